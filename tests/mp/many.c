/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * many: 10,000 outstanding requests. Rank 1 posts 10,000 irecvs (tags cycle
 * through 100 values, so matching walks long queues), then rank 0 posts
 * 10,000 isends (mostly small, every 500th past the rendezvous limits) and
 * both wait for all at once. Every message is checked. Then the same again
 * with the sends first (everything unexpected) and the receives posted later.
 */
#include "mp_common.h"

#define N 10000

static size_t size_of(int i)
{
    return i % 500 == 7 ? 100000 + (size_t)i : (size_t)(i * 37) % 1500;
}

static void run(int me, int recv_first)
{
    unsigned char **bufs = mp_malloc(sizeof(*bufs) * N);
    ump_req_t *reqs = mp_malloc(sizeof(*reqs) * N);
    ump_status_t *sts = mp_malloc(sizeof(*sts) * N);
    for (int i = 0; i < N; i++)
        bufs[i] = mp_malloc(size_of(i));
    double t0 = mp_now();

    if (me == 0) {
        for (int i = 0; i < N; i++)
            mp_fill(bufs[i], size_of(i), 0, 1, i % 100, (uint64_t)i);
        mp_barrier();
        if (recv_first) mp_recv_go(1);
        for (int i = 0; i < N; i++)
            MP_CALL(ump_isend(bufs[i], size_of(i), UMP_BYTE, 1, i % 100, 0, &reqs[i]));
        MP_CALL(ump_waitall(N, reqs, sts));
        for (int i = 0; i < N; i++)
            MP_CHECK(reqs[i] == UMP_REQ_NULL && sts[i].error == UMP_OK, "send %d: error %d", i,
                     sts[i].error);
    } else if (me == 1) {
        mp_barrier();
        if (!recv_first) mp_progress_for(0.2); /* let the sends arrive unexpected */
        for (int i = 0; i < N; i++)
            MP_CALL(ump_irecv(bufs[i], size_of(i), UMP_BYTE, 0, i % 100, 0, &reqs[i]));
        if (recv_first) mp_send_go(0);
        MP_CALL(ump_waitall(N, reqs, sts));
        for (int i = 0; i < N; i++) {
            MP_CHECK(reqs[i] == UMP_REQ_NULL, "handle %d not released", i);
            MP_CHECK(sts[i].error == UMP_OK && sts[i].count == size_of(i) && sts[i].source == 0 &&
                         sts[i].tag == i % 100,
                     "receive %d: error %d count %zu (want %zu) src %d tag %d", i, sts[i].error,
                     sts[i].count, size_of(i), sts[i].source, sts[i].tag);
            MP_CHECK_DATA(bufs[i], size_of(i), 0, 1, i % 100, (uint64_t)i);
        }
        printf("many: %d requests (%s first) ok in %.2f s\n", N, recv_first ? "receives" : "sends",
               mp_now() - t0);
    } else {
        mp_barrier();
    }
    for (int i = 0; i < N; i++)
        free(bufs[i]);
    free(bufs);
    free(reqs);
    free(sts);
}

int main(int argc, char **argv)
{
    mp_init("many", &argc, &argv);
    MP_CHECK(ump_size() >= 2, "needs 2 ranks");
    run(ump_rank(), 1);
    mp_barrier();
    run(ump_rank(), 0);
    mp_barrier();
    mp_finalize();
    return 0;
}
