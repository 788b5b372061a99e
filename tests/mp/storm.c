/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * storm: random all-to-all traffic with wildcards. Every rank sends M
 * messages to every other rank, in a random interleaving, with random sizes
 * (eager and rendezvous), random tags (0..3), random contexts (1 or 2) and
 * a random mix of isend and issend, keeping at most SWIN sends in flight. At
 * the same time it keeps RWIN receives posted per context, all with
 * UMP_ANY_SOURCE and UMP_ANY_TAG, and reposts as they complete. Completions
 * are taken with ump_peek (every outstanding request, sends and receives
 * alike), then released with ump_test.
 *
 * Every rank regenerates every sender's schedule from the seed. Receives on
 * one context are numbered in posting order; each completed receive is
 * recorded as (number, source, tag, count, digest of the data). Receives may
 * complete out of order (an eager message behind a rendezvous one), so the
 * check comes at the end: for each source and context, sorted by receive
 * number, the k-th receive must hold exactly the k-th message that source
 * sent on that context - tag, size and the digest of its seeded pattern -
 * which is non-overtaking, routing and data integrity at once.
 *
 * usage: storm [M [MAXSIZE]]    (defaults 600 messages per pair, 300000)
 */
#include "mp_common.h"

#define SWIN 32
#define RWIN 24
#define NCTX 2

static int np, me;
static long M;
static size_t maxsz;

struct msg {
    size_t size;
    int tag, ctx, sync, dst;
};

/* Schedules: order[s][k] = destination of sender s's k-th send; each sender
 * sends M to each other rank, shuffled with a seeded Fisher-Yates. */
static int **order;
/* idx_on[s][k] = how many messages sender s sent before to the same dst. */
static long **idx_on;

static void make_schedules(void)
{
    long total = M * (np - 1);
    order = mp_malloc(sizeof(*order) * (size_t)np);
    idx_on = mp_malloc(sizeof(*idx_on) * (size_t)np);
    long *cnt = mp_malloc(sizeof(long) * (size_t)np);
    for (int s = 0; s < np; s++) {
        order[s] = mp_malloc(sizeof(int) * (size_t)total);
        idx_on[s] = mp_malloc(sizeof(long) * (size_t)total);
        long k = 0;
        for (int d = 0; d < np; d++)
            if (d != s)
                for (long j = 0; j < M; j++)
                    order[s][k++] = d;
        uint64_t r = 0x5eedull + (uint64_t)s;
        for (long i = total - 1; i > 0; i--) {
            r = mp_mix64(r);
            long j = (long)(r % (uint64_t)(i + 1));
            int t = order[s][i];
            order[s][i] = order[s][j];
            order[s][j] = t;
        }
        for (int d = 0; d < np; d++)
            cnt[d] = 0;
        for (long i = 0; i < total; i++)
            idx_on[s][i] = cnt[order[s][i]]++;
    }
    free(cnt);
}

/* Properties of the j-th message from s to d. */
static struct msg props(int s, int d, long j)
{
    uint64_t r = mp_mix64(((uint64_t)s << 48) ^ ((uint64_t)d << 32) ^ (uint64_t)j ^ 0xabcdefull);
    struct msg m;
    m.dst = d;
    switch (r & 3) {
    case 0:
        m.size = (size_t)(r >> 20) % 48;
        break;
    case 1:
        m.size = (size_t)(r >> 20) % 10000;
        break;
    case 2:
        m.size = (size_t)(r >> 20) % 80000;
        break;
    default:
        m.size = (size_t)(r >> 20) % (maxsz + 1);
        break;
    }
    m.tag = (int)((r >> 2) & 3);
    m.ctx = 1 + (int)((r >> 4) & 1);
    m.sync = ((r >> 5) & 7) == 0;
    return m;
}

struct rec {
    long seq;
    int tag;
    size_t count, msg_len;
    uint64_t digest;
};

static uint64_t digest(const unsigned char *p, size_t n)
{
    uint64_t h = mp_mix64(n);
    for (size_t w = 0; w < n; w += 8) {
        uint64_t v = 0;
        memcpy(&v, p + w, n - w < 8 ? n - w : 8);
        h = mp_mix64(h ^ v);
    }
    return h;
}

static int cmp_rec(const void *a, const void *b)
{
    long x = ((const struct rec *)a)->seq, y = ((const struct rec *)b)->seq;
    return x < y ? -1 : x > y;
}

struct rslot {
    ump_req_t req;
    unsigned char *buf;
    long seq; /* posting order on its context */
};

int main(int argc, char **argv)
{
    mp_init("storm", &argc, &argv);
    me = ump_rank();
    np = ump_size();
    M = argc > 1 ? atol(argv[1]) : 600;
    maxsz = argc > 2 ? mp_parse_size(argv[2]) : 300000;
    MP_CHECK(np >= 2, "needs 2 ranks");
    make_schedules();

    /* What this rank will receive, per context, from each source: the
     * messages s->me in order, filtered by context. */
    long expect_ctx[NCTX] = {0, 0};
    /* Per (ctx, source): the receives that got a message from it. */
    long *nrec[NCTX];
    struct rec **recs[NCTX];
    for (int c = 0; c < NCTX; c++) {
        nrec[c] = mp_malloc(sizeof(long) * (size_t)np);
        recs[c] = mp_malloc(sizeof(struct rec *) * (size_t)np);
        for (int s = 0; s < np; s++) {
            nrec[c][s] = 0;
            recs[c][s] = mp_malloc(sizeof(struct rec) * (size_t)M);
        }
    }
    for (int s = 0; s < np; s++)
        if (s != me)
            for (long j = 0; j < M; j++)
                expect_ctx[props(s, me, j).ctx - 1]++;

    struct rslot rs[NCTX][RWIN];
    long posted[NCTX] = {0, 0}, done_rx[NCTX] = {0, 0};
    for (int c = 0; c < NCTX; c++)
        for (int w = 0; w < RWIN; w++) {
            rs[c][w].buf = mp_malloc(maxsz);
            rs[c][w].req = UMP_REQ_NULL;
        }
    ump_req_t sreq[SWIN];
    unsigned char *sbuf[SWIN];
    for (int w = 0; w < SWIN; w++) {
        sreq[w] = UMP_REQ_NULL;
        sbuf[w] = mp_malloc(maxsz);
    }
    long total_tx = M * (np - 1), sent = 0, done_tx = 0;

    mp_barrier();
    double t0 = mp_now();
    for (;;) {
        /* keep the receive windows full */
        for (int c = 0; c < NCTX; c++)
            for (int w = 0; w < RWIN; w++)
                if (rs[c][w].req == UMP_REQ_NULL && posted[c] < expect_ctx[c]) {
                    rs[c][w].seq = posted[c]++;
                    MP_CALL(ump_irecv(rs[c][w].buf, maxsz, UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG,
                                      (uint32_t)(c + 1), &rs[c][w].req));
                }
        /* and the send window */
        for (int w = 0; w < SWIN && sent < total_tx; w++) {
            if (sreq[w] != UMP_REQ_NULL) continue;
            int d = order[me][sent];
            long j = idx_on[me][sent];
            struct msg m = props(me, d, j);
            mp_fill(sbuf[w], m.size, me, d, m.tag, (uint64_t)j);
            if (m.sync)
                MP_CALL(ump_issend(sbuf[w], m.size, UMP_BYTE, d, m.tag, (uint32_t)m.ctx, &sreq[w]));
            else
                MP_CALL(ump_isend(sbuf[w], m.size, UMP_BYTE, d, m.tag, (uint32_t)m.ctx, &sreq[w]));
            sent++;
        }
        if (done_tx == total_tx && done_rx[0] == expect_ctx[0] && done_rx[1] == expect_ctx[1])
            break;
        MP_CHECK(mp_now() - t0 < 100,
                 "no end after 100 s: sent %ld/%ld done, received %ld+%ld "
                 "of %ld+%ld",
                 done_tx, total_tx, done_rx[0], done_rx[1], expect_ctx[0], expect_ctx[1]);

        ump_req_t r = UMP_REQ_NULL;
        MP_CALL(ump_peek(&r));
        ump_status_t st;
        int found = 0, done = 0;
        for (int w = 0; w < SWIN && !found; w++)
            if (sreq[w] != UMP_REQ_NULL && sreq[w] == r) {
                found = 1;
                MP_CALL(ump_test(&sreq[w], &done, &st));
                MP_CHECK(done && sreq[w] == UMP_REQ_NULL, "peeked send not complete");
                done_tx++;
            }
        for (int c = 0; c < NCTX && !found; c++)
            for (int w = 0; w < RWIN && !found; w++) {
                struct rslot *q = &rs[c][w];
                if (q->req == UMP_REQ_NULL || q->req != r) continue;
                found = 1;
                MP_CALL(ump_test(&q->req, &done, &st));
                MP_CHECK(done && q->req == UMP_REQ_NULL, "peeked receive not complete");
                int s = st.source;
                MP_CHECK(s >= 0 && s < np && s != me, "ctx %d: bad source %d", c + 1, s);
                MP_CHECK(nrec[c][s] < M, "ctx %d: more messages from %d than it sent", c + 1, s);
                struct rec *e = &recs[c][s][nrec[c][s]++];
                e->seq = q->seq;
                e->tag = st.tag;
                e->count = st.count;
                e->msg_len = st.msg_len;
                e->digest = digest(q->buf, st.count < maxsz ? st.count : maxsz);
                MP_CHECK(st.error == UMP_OK, "ctx %d from %d: error %d", c + 1, s, st.error);
                done_rx[c]++;
            }
        MP_CHECK(found, "ump_peek returned a request that is not outstanding (%p)", (void *)r);
    }
    double dt = mp_now() - t0;
    unsigned char *tmp = mp_malloc(maxsz);
    for (int c = 0; c < NCTX; c++)
        for (int s = 0; s < np; s++) {
            long k = 0;
            qsort(recs[c][s], (size_t)nrec[c][s], sizeof(struct rec), cmp_rec);
            for (long j = 0; s != me && j < M; j++) {
                struct msg m = props(s, me, j);
                if (m.ctx != c + 1) continue;
                MP_CHECK(k < nrec[c][s], "ctx %d from %d: message %ld (and later) never arrived",
                         c + 1, s, j);
                struct rec *e = &recs[c][s][k++];
                mp_fill(tmp, m.size, s, me, m.tag, (uint64_t)j);
                MP_CHECK(e->tag == m.tag && e->count == m.size && e->msg_len == m.size &&
                             e->digest == digest(tmp, m.size),
                         "ctx %d from %d: receive #%ld is number %ld (from 1) from that source and "
                         "should "
                         "hold its message %ld (tag %d, %zu bytes); it got tag %d, %zu of %zu "
                         "bytes%s: overtaken, misrouted or corrupted",
                         c + 1, s, e->seq, k, j, m.tag, m.size, e->tag, e->count, e->msg_len,
                         e->tag == m.tag && e->count == m.size ? ", other data" : "");
            }
            MP_CHECK(k == nrec[c][s], "ctx %d from %d: %ld messages, %ld sent", c + 1, s,
                     nrec[c][s], k);
        }
    free(tmp);
    mp_barrier();
    printf("storm: rank %d sent %ld, received %ld+%ld in %.2f s\n", me, total_tx, done_rx[0],
           done_rx[1], dt);
    for (int c = 0; c < NCTX; c++) {
        for (int w = 0; w < RWIN; w++)
            free(rs[c][w].buf);
        for (int s = 0; s < np; s++)
            free(recs[c][s]);
        free(recs[c]);
        free(nrec[c]);
    }
    for (int w = 0; w < SWIN; w++)
        free(sbuf[w]);
    for (int s = 0; s < np; s++) {
        free(order[s]);
        free(idx_on[s]);
    }
    free(order);
    free(idx_on);
    mp_finalize();
    return 0;
}
