/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stress.c - point-to-point traffic among all ranks at once (MPI 3.1 §3.5,
 * §3.7): every rank derives the same random plan of messages (source,
 * destination, size from 0 to 1 MiB, send mode, whether the receive is
 * posted before the sends or after, specific or MPI_ANY_SOURCE), then all
 * ranks run it concurrently with nonblocking calls only, so the plan cannot
 * deadlock; completion alternates between Waitall and a Testsome loop.
 * Each message carries its own byte pattern and unique tag, checked on
 * arrival together with the status.
 */
#include "mt.h"

enum { ROUNDS = 4, PER_ROUND = 240 };

struct msg {
    int src, dst, tag, early, any_source;
    int mode; /* 0 Isend, 1 Issend, 2 Irsend (early receives only) */
    size_t len;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13; /* xorshift64: same sequence on every rank */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "stress");
    struct msg m[PER_ROUND];
    size_t total = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int nrecv = 0, nsend = 0;
        for (int k = 0; k < PER_ROUND; k++) {
            struct msg *x = &m[k];
            uint32_t r = rnd();
            x->src = (int)(rnd() % (uint32_t)mt_size);
            x->dst = (int)(rnd() % (uint32_t)mt_size);
            x->tag = round * 10000 + k;
            x->early = r % 2;
            x->any_source = (r >> 1) % 3 == 0;
            x->mode = (int)((r >> 3) % 3);
            if (x->mode == 2 && !x->early) x->mode = 0;
            uint32_t kind = (r >> 5) % 20;
            x->len = kind < 12   ? rnd() % 257
                     : kind < 17 ? 1024 + rnd() % 65536
                                 : 65536 + rnd() % (1 << 20);
            nrecv += x->dst == mt_rank;
            nsend += x->src == mt_rank;
        }
        unsigned char **sb = mt_xmalloc(sizeof(void *) * PER_ROUND);
        unsigned char **rb = mt_xmalloc(sizeof(void *) * PER_ROUND);
        MPI_Request *req = mt_xmalloc(sizeof(MPI_Request) * (size_t)(nrecv + nsend));
        MPI_Status *st = mt_xmalloc(sizeof(MPI_Status) * (size_t)(nrecv + nsend));
        int *which = mt_xmalloc(sizeof(int) * (size_t)(nrecv + nsend)); /* k, or -1-k for sends */
        int nreq = 0;
        for (int k = 0; k < PER_ROUND; k++)
            sb[k] = rb[k] = NULL;

        /* a: early receives; b: barrier; c: sends; d: late receives */
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < PER_ROUND; k++) {
                struct msg *x = &m[k];
                if (x->dst != mt_rank || x->early != (pass == 0)) continue;
                rb[k] = mt_xmalloc(x->len + 8);
                memset(rb[k], 0xEE, x->len + 8);
                CALL(MPI_Irecv(rb[k], (int)x->len + 8, MPI_BYTE,
                               x->any_source ? MPI_ANY_SOURCE : x->src, x->tag, MPI_COMM_WORLD,
                               &req[nreq]));
                which[nreq++] = k;
            }
            if (pass == 1) break;
            CALL(MPI_Barrier(MPI_COMM_WORLD));
            for (int k = 0; k < PER_ROUND; k++) {
                struct msg *x = &m[k];
                if (x->src != mt_rank) continue;
                sb[k] = mt_xmalloc(x->len);
                mt_fill(sb[k], x->len, (unsigned)x->tag);
                if (x->mode == 0)
                    CALL(MPI_Isend(sb[k], (int)x->len, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD,
                                   &req[nreq]));
                else if (x->mode == 1)
                    CALL(MPI_Issend(sb[k], (int)x->len, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD,
                                    &req[nreq]));
                else
                    CALL(MPI_Irsend(sb[k], (int)x->len, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD,
                                    &req[nreq]));
                which[nreq++] = -1 - k;
            }
        }
        CHECK(nreq == nrecv + nsend, "round %d: %d requests, planned %d", round, nreq,
              nrecv + nsend);

        if (round % 2 == 0) {
            CALL(MPI_Waitall(nreq, req, st));
        } else {
            /* Testsome only: completion must come from polling alone */
            int left = nreq, out, *ind = mt_xmalloc(sizeof(int) * (size_t)(nreq + 1));
            MPI_Status *tmp = mt_xmalloc(sizeof(MPI_Status) * (size_t)(nreq + 1));
            double t0 = MPI_Wtime();
            while (left > 0) {
                CALL(MPI_Testsome(nreq, req, &out, ind, tmp));
                CHECK(out != MPI_UNDEFINED, "MPI_Testsome: MPI_UNDEFINED with %d active", left);
                for (int j = 0; j < out; j++)
                    st[ind[j]] = tmp[j];
                left -= out;
                CHECK(MPI_Wtime() - t0 < 60.0,
                      "round %d: %d of %d requests still pending after "
                      "60 s of MPI_Testsome",
                      round, left, nreq);
            }
            free(ind);
            free(tmp);
        }
        for (int i = 0; i < nreq; i++) {
            if (which[i] < 0) continue;
            struct msg *x = &m[which[i]];
            int n = -1;
            char what[128];
            snprintf(what, sizeof(what), "round %d message %d (%d->%d, %zu bytes, %s, %s %s)",
                     round, which[i], x->src, x->dst, x->len,
                     x->mode == 0   ? "Isend"
                     : x->mode == 1 ? "Issend"
                                    : "Irsend",
                     x->early ? "pre-posted" : "late", x->any_source ? "ANY_SOURCE" : "receive");
            CALL(MPI_Get_count(&st[i], MPI_BYTE, &n));
            CHECK(st[i].MPI_SOURCE == x->src && st[i].MPI_TAG == x->tag && n == (int)x->len,
                  "%s: status source %d tag %d count %d", what, st[i].MPI_SOURCE, st[i].MPI_TAG, n);
            CHECK_DATA(rb[which[i]], x->len, (unsigned)x->tag, what);
            for (int e = 0; e < 8; e++)
                CHECK(rb[which[i]][x->len + e] == 0xEE, "%s: wrote past the message", what);
            total += x->len;
        }
        for (int k = 0; k < PER_ROUND; k++) {
            free(sb[k]);
            free(rb[k]);
        }
        free(sb);
        free(rb);
        free(req);
        free(st);
        free(which);
    }
    long long all = 0, mine = (long long)total;
    CALL(MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("stress: %d rounds of %d messages, %lld bytes checked\n", ROUNDS, PER_ROUND, all);
    return mt_done();
}
