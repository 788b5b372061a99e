/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma_mt.c - windows under MPI_THREAD_MULTIPLE: while a second thread of
 * every rank exchanges point-to-point messages (whose waits run the
 * progress that serves windows), the main thread runs fence epochs, a
 * Fetch_and_op counter under locks and lock_all epochs with flushes; then
 * two threads of each rank use two windows at once. Data and counters
 * are checked exactly.
 */
#include <pthread.h>

#include "mt.h"

enum { PINGS = 300, ROUNDS = 40 };

static MPI_Comm p2p_comm;

static void *pinger(void *arg)
{
    (void)arg;
    int peer = mt_rank ^ 1;
    if (peer >= mt_size) peer = mt_rank;
    for (int i = 0; i < PINGS; i++) {
        int out[64], in[64];
        for (int k = 0; k < 64; k++)
            out[k] = mt_rank * 1000000 + i * 64 + k;
        CALL(MPI_Sendrecv(out, 64, MPI_INT, peer, i, in, 64, MPI_INT, peer, i, p2p_comm,
                          MPI_STATUS_IGNORE));
        for (int k = 0; k < 64; k++)
            CHECK(in[k] == peer * 1000000 + i * 64 + k, "ping %d word %d: %d", i, k, in[k]);
    }
    return NULL;
}

static void rma_work(MPI_Win win, long long *base, int slot)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    for (int r = 0; r < ROUNDS; r++) {
        long long v = (long long)r * 1000 + mt_rank;
        CALL(MPI_Win_fence(0, win));
        CALL(MPI_Put(&v, 1, MPI_LONG_LONG, right, slot, 1, MPI_LONG_LONG, win));
        CALL(MPI_Win_fence(0, win));
        CHECK(base[slot] == (long long)r * 1000 + left, "round %d slot %d: %lld", r, slot,
              base[slot]);
    }
    long long one = 1, old;
    for (int r = 0; r < ROUNDS; r++) {
        CALL(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CALL(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, slot + 1, MPI_SUM, win));
        CALL(MPI_Win_unlock(0, win));
    }
    CALL(MPI_Win_lock_all(0, win));
    CALL(MPI_Accumulate(&one, 1, MPI_LONG_LONG, right, slot + 1, 1, MPI_LONG_LONG, MPI_SUM, win));
    CALL(MPI_Win_flush_all(win));
    CALL(MPI_Win_unlock_all(win));
}

struct job {
    MPI_Win win;
    long long *base;
};

static void *rma_thread(void *arg)
{
    struct job *j = arg;
    rma_work(j->win, j->base, 0);
    return NULL;
}

static void check_counters(long long *base, const char *what)
{
    /* Slot 1: ROUNDS per rank on rank 0, plus one from the left neighbour. */
    long long want = 1 + (mt_rank == 0 ? (long long)ROUNDS * mt_size : 0);
    CHECK(base[1] == want, "%s: counter %lld want %lld", what, base[1], want);
}

int main(int argc, char **argv)
{
    mt_prog = "rma_mt";
    int provided = 0;
    CALL(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d", provided);
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &p2p_comm));

    long long *b1 = NULL, *b2 = NULL;
    MPI_Win w1, w2;
    CALL(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &b1, &w1));
    CALL(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &b2, &w2));
    b1[0] = b1[1] = b2[0] = b2[1] = 0;
    CALL(MPI_Barrier(MPI_COMM_WORLD));

    /* Point-to-point in one thread, RMA in the other. */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, pinger, NULL) == 0, "pthread_create");
    rma_work(w1, b1, 0);
    pthread_join(t, NULL);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    check_counters(b1, "window 1 beside point-to-point");

    /* Two windows, one per thread, at once. */
    struct job j = {w2, b2};
    CHECK(pthread_create(&t, NULL, rma_thread, &j) == 0, "pthread_create");
    b1[1] = 0;
    CALL(MPI_Barrier(p2p_comm));
    rma_work(w1, b1, 0);
    pthread_join(t, NULL);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    check_counters(b1, "window 1 beside window 2");
    check_counters(b2, "window 2 beside window 1");

    CALL(MPI_Win_free(&w1));
    CALL(MPI_Win_free(&w2));
    CALL(MPI_Comm_free(&p2p_comm));
    return mt_done();
}
