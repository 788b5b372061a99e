/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alltoall: every rank sends to and receives from every other rank, a few
 * rounds per size, sizes from 0 to 1 MiB. Run with more ranks than cores
 * (8 on 2) it checks that waiting ranks yield the CPU (UMP_WAIT=auto): the
 * launcher's --timeout bounds the whole run. Prints the time per size.
 */
#include "mp_common.h"

static const size_t szs[] = {0, 100, 10000, 100000, 1 << 20};
#define ROUNDS 3

int main(int argc, char **argv)
{
    mp_init("alltoall", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    size_t maxn = 1 << 20;
    unsigned char **sb = mp_malloc(sizeof(*sb) * (size_t)np);
    unsigned char **rb = mp_malloc(sizeof(*rb) * (size_t)np);
    ump_req_t *reqs = mp_malloc(sizeof(*reqs) * 2 * (size_t)np);
    ump_status_t *sts = mp_malloc(sizeof(*sts) * 2 * (size_t)np);
    for (int p = 0; p < np; p++) {
        sb[p] = mp_malloc(maxn);
        rb[p] = mp_malloc(maxn);
    }
    double t_all = mp_now();
    for (size_t i = 0; i < sizeof(szs) / sizeof(szs[0]); i++) {
        size_t n = szs[i];
        double t0 = mp_now();
        for (int round = 0; round < ROUNDS; round++) {
            int tag = (int)i * 10 + round;
            size_t nr = 0;
            for (int k = 1; k < np; k++) {
                int p = (me + np - k) % np;
                MP_CALL(ump_irecv(rb[p], n, UMP_BYTE, p, tag, 0, &reqs[nr++]));
            }
            for (int k = 1; k < np; k++) {
                int p = (me + k) % np;
                mp_fill(sb[p], n, me, p, tag, (uint64_t)round);
                MP_CALL(ump_isend(sb[p], n, UMP_BYTE, p, tag, 0, &reqs[nr++]));
            }
            MP_CALL(ump_waitall(nr, reqs, sts));
            for (int k = 1; k < np; k++) {
                int p = (me + np - k) % np;
                ump_status_t *s = &sts[k - 1];
                MP_CHECK(s->source == p && s->tag == tag && s->count == n,
                         "from %d: source %d tag %d count %zu (size %zu)", p, s->source, s->tag,
                         s->count, n);
                MP_CHECK_DATA(rb[p], n, p, me, tag, (uint64_t)round);
            }
        }
        mp_barrier();
        if (me == 0)
            printf("alltoall: %d ranks, %zu bytes x %d rounds: %.3f s\n", np, n, ROUNDS,
                   mp_now() - t0);
    }
    if (me == 0) printf("alltoall: total %.2f s\n", mp_now() - t_all);
    for (int p = 0; p < np; p++) {
        free(sb[p]);
        free(rb[p]);
    }
    free(sb);
    free(rb);
    free(reqs);
    free(sts);
    mp_finalize();
    return 0;
}
