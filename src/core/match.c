/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching queues. Each context has a posted-receive queue and an
 * unexpected-message queue, both in arrival order, which is what gives MPI's
 * non-overtaking rule: a message meets the earliest posted receive that
 * matches it, and a receive meets the earliest unexpected message.
 */
#include <stdlib.h>

#include "core/core.h"

/* Unexpected payloads come from free lists by size class; larger ones (only
 * when a transport's eager limit exceeds the last class) from malloc. */
static const size_t unexp_class[] = {256, 2048, 16384, 65536 + 64};

UMP_CFG(cfg_fail_unexp, "UMP_CORE_FAIL_UNEXP", UMP_CFG_INT, "0",
        "test hook: every Nth unexpected message finds no memory for its data (0: never)");

/* Records without data, in static memory, that stand in the unexpected
 * queue for a message whose data found no memory: the receive that
 * matches one fails with UMP_ERR_NO_MEMORY instead of taking the next
 * message in its place. */
#define TOMB_CLS   (SIZE_MAX - 1)
#define TOMB_COUNT 64
static _Alignas(ump_unexp_t) char tomb_mem[TOMB_COUNT][sizeof(ump_unexp_t)];
static ump_unexp_t *tomb_free[TOMB_COUNT];
static int tomb_top = -1; /* -1: not set up yet */
static long unexp_allocs;

ump_ctxq_t *ump_core_ctxq_lookup(uint32_t ctx, bool create)
{
    ump_ctxq_t *q;
    HASH_FIND(hh, ump_core.ctxqs, &ctx, sizeof(ctx), q);
    if (!q && create) {
        q = calloc(1, sizeof(*q));
        if (!q) return NULL;
        q->ctx = ctx;
        TAILQ_INIT(&q->posted);
        TAILQ_INIT(&q->unexp);
        HASH_ADD(hh, ump_core.ctxqs, ctx, sizeof(q->ctx), q);
    }
    if (q) ump_core.last_ctxq = q;
    return q;
}

void ump_core_ctxq_destroy_all(void)
{
    ump_ctxq_t *q, *tmp;
    HASH_ITER(hh, ump_core.ctxqs, q, tmp)
    {
        while (!TAILQ_EMPTY(&q->unexp)) {
            ump_unexp_t *u = TAILQ_FIRST(&q->unexp);
            TAILQ_REMOVE(&q->unexp, u, link);
            ump_core_unexp_free(u);
        }
        HASH_DEL(ump_core.ctxqs, q);
        free(q);
    }
    ump_core.last_ctxq = NULL;
}

ump_unexp_t *ump_core_unexp_alloc(size_t datalen)
{
    ump_unexp_t *u;
    if (UMP_UNLIKELY(cfg_fail_unexp.v.i > 0) && ++unexp_allocs % cfg_fail_unexp.v.i == 0)
        return NULL;
    for (size_t c = 0; c < UMP_ARRAY_SIZE(unexp_class); c++) {
        if (datalen <= unexp_class[c]) {
            ump_freelist_t *fl = &ump_core.unexp_fl[c];
            if (!fl->obj_size) ump_freelist_init(fl, sizeof(ump_unexp_t) + unexp_class[c], 16);
            u = ump_freelist_take(fl);
            if (u) {
                u->cls = c;
                u->lay = NULL;
            }
            return u;
        }
    }
    u = calloc(1, sizeof(*u) + datalen);
    if (u) u->cls = SIZE_MAX;
    return u;
}

ump_unexp_t *ump_core_unexp_tomb(void)
{
    if (tomb_top < 0)
        for (tomb_top = 0; tomb_top < TOMB_COUNT; tomb_top++)
            tomb_free[tomb_top] = (ump_unexp_t *)tomb_mem[tomb_top];
    if (!tomb_top) return NULL;
    ump_unexp_t *u = tomb_free[--tomb_top];
    u->cls = TOMB_CLS;
    u->lay = NULL;
    u->datalen = 0;
    return u;
}

bool ump_core_unexp_lost(const ump_unexp_t *u)
{
    return u->cls == TOMB_CLS;
}

void ump_core_unexp_free(ump_unexp_t *u)
{
    if (u->lay) {
        ump_core_dt_lay_unref(u->lay);
        u->lay = NULL;
    }
    if (u->cls == TOMB_CLS)
        tomb_free[tomb_top++] = u;
    else if (u->cls == SIZE_MAX)
        free(u);
    else
        ump_freelist_put(&ump_core.unexp_fl[u->cls], u);
}

static inline bool matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == UMP_ANY_SOURCE || want_src == src) &&
           (want_tag == UMP_ANY_TAG || want_tag == tag);
}

struct ump_request *ump_core_match_posted(ump_ctxq_t *q, int src, int tag)
{
    struct ump_request *r;
    TAILQ_FOREACH(r, &q->posted, link)
    {
        if (matches(r->peer, r->tag, src, tag)) {
            TAILQ_REMOVE(&q->posted, r, link);
            r->flags &= ~UMP_RF_POSTED;
            return r;
        }
    }
    return NULL;
}

ump_unexp_t *ump_core_match_unexp(ump_ctxq_t *q, int src, int tag, bool take)
{
    ump_unexp_t *u;
    TAILQ_FOREACH(u, &q->unexp, link)
    {
        if (matches(src, tag, u->src, u->h.m.tag)) {
            if (take) TAILQ_REMOVE(&q->unexp, u, link);
            return u;
        }
    }
    return NULL;
}

void ump_core_describe_unexp(const ump_unexp_t *u, ump_status_t *st)
{
    if (!st) return;
    st->source = u->src;
    st->tag = u->h.m.tag;
    st->error = UMP_OK;
    st->cancelled = 0;
    st->msg_len = u->h.m.len;
    st->count = u->h.m.len;
}
