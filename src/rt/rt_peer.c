/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Processes of other jobs (met through a port, or spawned): their "cards"
 * and the peer indices they get here.
 *
 * A card is what a process of another job needs to reach this one: its
 * identity (job id, rank) and every value it published (its transports'
 * addresses). Little-endian:
 *   u32 magic, char job[16], u32 rank, u32 nkeys,
 *   nkeys x { u8 klen, key, u16 vlen, val }
 * A process added with ump_rt_peer_add gets the next peer index after the
 * job's own ranks (size, size + 1, ...); its values go into the local store
 * under that index, so ump_rt_get reads them like a rank's.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt_int.h"
#include "util/util.h"

#define CARD_MAGIC 0x554d5044u /* "UMPD" */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    bool over;
} wr_t;

static void put(wr_t *w, const void *v, size_t n)
{
    if (w->over || n > w->cap - w->len) {
        w->over = true;
        return;
    }
    memcpy(w->p + w->len, v, n);
    w->len += n;
}

static void put_u32(wr_t *w, uint32_t v)
{
    v = htole32(v);
    put(w, &v, 4);
}

typedef struct {
    wr_t *w;
    uint32_t n;
} card_arg_t;

static void card_kv(void *arg, const ump_rt_kv_t *kv)
{
    card_arg_t *a = arg;
    uint8_t klen = (uint8_t)strlen(kv->key);
    uint16_t vlen = htole16((uint16_t)kv->len);
    put(a->w, &klen, 1);
    put(a->w, kv->key, klen);
    put(a->w, &vlen, 2);
    put(a->w, kv->val, kv->len);
    a->n++;
}

int ump_rt_card(ump_rt_t *rt, void *buf, size_t len, size_t *out)
{
    wr_t w = {.p = buf, .cap = len};
    put_u32(&w, CARD_MAGIC);
    put(&w, rt->info.job_id, 16);
    put_u32(&w, (uint32_t)rt->info.rank);
    size_t at = w.len;
    put_u32(&w, 0);
    card_arg_t a = {.w = &w};
    ump_rt_store_each(&rt->store, rt->info.rank, card_kv, &a);
    if (w.over) return UMP_ERR_NO_RESOURCE;
    uint32_t n = htole32(a.n);
    memcpy(w.p + at, &n, 4);
    *out = w.len;
    return UMP_OK;
}

typedef struct {
    const uint8_t *p;
    size_t len, off;
    bool bad;
} rd_t;

static const void *get(rd_t *r, size_t n)
{
    if (r->bad || n > r->len - r->off) {
        r->bad = true;
        return NULL;
    }
    const void *v = r->p + r->off;
    r->off += n;
    return v;
}

static uint32_t get_u32(rd_t *r)
{
    const void *v = get(r, 4);
    uint32_t x = 0;
    if (v) memcpy(&x, v, 4);
    return le32toh(x);
}

static bool job_ok(const char *job)
{
    for (int i = 0; i < 16; i++)
        if (!((job[i] >= '0' && job[i] <= '9') || (job[i] >= 'a' && job[i] <= 'f'))) return false;
    return true;
}

int ump_rt_peer_find(const ump_rt_t *rt, const char *job, int rank)
{
    if (!memcmp(job, rt->info.job_id, 16)) return rank >= 0 && rank < rt->info.size ? rank : -1;
    for (int i = 0; i < rt->ndyn; i++)
        if (rt->dyn[i].rank == rank && !memcmp(rt->dyn[i].job, job, 16)) return rt->info.size + i;
    return -1;
}

int ump_rt_peer_name(const ump_rt_t *rt, int peer, char *job, int *rank)
{
    if (peer >= 0 && peer < rt->info.size) {
        memcpy(job, rt->info.job_id, 16);
        *rank = peer;
        return UMP_OK;
    }
    int i = peer - rt->info.size;
    if (peer < 0 || i >= rt->ndyn) return UMP_ERR_RANK;
    memcpy(job, rt->dyn[i].job, 16);
    *rank = rt->dyn[i].rank;
    return UMP_OK;
}

int ump_rt_npeers(const ump_rt_t *rt)
{
    return rt->info.size + rt->ndyn;
}

int ump_rt_peer_add(ump_rt_t *rt, const void *card, size_t len, int *peer)
{
    rd_t r = {.p = card, .len = len};
    uint32_t magic = get_u32(&r);
    const char *job = get(&r, 16);
    uint32_t rank = get_u32(&r), n = get_u32(&r);
    if (r.bad || magic != CARD_MAGIC || !job_ok(job) || rank > INT32_MAX || n > 4096) {
        ump_error("rt: a process card is malformed (%zu bytes)", len);
        return UMP_ERR_PROTOCOL;
    }
    /* Check every entry before keeping any. */
    size_t first = r.off;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *kl = get(&r, 1);
        get(&r, kl ? *kl : 0);
        const uint8_t *vl = get(&r, 2);
        uint16_t v = 0;
        if (vl) memcpy(&v, vl, 2);
        if (!r.bad && (!*kl || *kl >= UMP_RT_KEY_MAX || le16toh(v) > UMP_RT_VAL_MAX)) r.bad = true;
        get(&r, le16toh(v));
    }
    if (r.bad || r.off != len) {
        ump_error("rt: a process card is malformed (%zu bytes)", len);
        return UMP_ERR_PROTOCOL;
    }
    int known = ump_rt_peer_find(rt, job, (int)rank);
    if (known >= 0 || !memcmp(job, rt->info.job_id, 16)) {
        if (known < 0) {
            ump_error("rt: a card names rank %u of this job, which has %d", rank, rt->info.size);
            return UMP_ERR_RANK;
        }
        *peer = known;
        return UMP_OK;
    }
    if (rt->ndyn == rt->capdyn) {
        int cap = rt->capdyn ? 2 * rt->capdyn : 16;
        void *d = realloc(rt->dyn, sizeof(*rt->dyn) * (size_t)cap);
        if (!d) return UMP_ERR_NO_MEMORY;
        rt->dyn = d;
        rt->capdyn = cap;
    }
    int idx = rt->info.size + rt->ndyn;
    r.off = first;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t kl = *(const uint8_t *)get(&r, 1);
        const char *key = get(&r, kl);
        uint16_t v;
        memcpy(&v, get(&r, 2), 2);
        v = le16toh(v);
        int rc = ump_rt_store_set(&rt->store, idx, key, kl, get(&r, v), v);
        if (rc) return rc;
    }
    memcpy(rt->dyn[rt->ndyn].job, job, 16);
    rt->dyn[rt->ndyn].rank = (int)rank;
    rt->ndyn++;
    *peer = idx;
    return UMP_OK;
}
