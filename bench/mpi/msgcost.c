/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msgcost - what one 8-byte exchange costs each side in instructions, for
 * counting under valgrind's callgrind (bench/instr runs it). Each iteration
 * is MPI_Irecv + MPI_Isend + MPI_Waitall of 8 bytes with the other rank,
 * which does the same.
 *
 * Counting instructions instead of time removes the machine's noise, but a
 * wait that polls until the peer's message arrives would count as many
 * polls as the timing allowed. So the program switches collection on only
 * around the calls; both ranks post their receive before either sends, and
 * before waiting each waits, uncounted and outside MPI, until the peer says
 * (through flags in a file both ranks map) that its MPI_Isend of this
 * iteration has returned, then a little longer:
 * MPI_Waitall finds the message on its first pass, and what is counted is
 * the work of the path itself - posting, sending, matching, copying and
 * completing - the same every run however loaded the machine is. Every
 * library gets the same treatment, so the counts compare.
 *
 * Without valgrind the program runs as an ordinary (slow) exchange and
 * checks its data, so the test suite can run it.
 *   mpirun -n 2 [valgrind --tool=callgrind --collect-atstart=no] msgcost [ITERS] [SLEEP_US]
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_TOGGLE_COLLECT
#endif

/* flags[2 * stage + r]: the iterations rank r has finished stage 0 (its
 * MPI_Irecv is posted) and stage 1 (its MPI_Isend returned) of. */
static volatile long *flags;
static long late; /* counted iterations whose peer did not say in time */

/* Says that this rank finished `stage` of iteration `it` and waits, outside
 * MPI, until the peer has too. Bounded: a send of ours that still waits in
 * a queue (a connection being made) may be what the peer waits for, and
 * only our next MPI call moves it; counted iterations that hit the bound
 * are reported, as their count then includes polling. */
static void meet(int rank, int stage, long it, int counted)
{
    __atomic_store_n(&flags[2 * stage + rank], it + 1, __ATOMIC_RELEASE);
    double t0 = MPI_Wtime();
    while (__atomic_load_n(&flags[2 * stage + 1 - rank], __ATOMIC_ACQUIRE) < it + 1) {
        if (MPI_Wtime() - t0 > 1.0) {
            if (counted) late++;
            return;
        }
        sched_yield();
    }
}

/* One exchange. The receive is posted on both sides before either sends,
 * so every message meets a posted receive (the expected path) whatever the
 * timing. */
static void exchange(int rank, long it, unsigned char *sb, unsigned char *rb, unsigned sleep_us,
                     int counted)
{
    MPI_Request r[2];
    int peer = 1 - rank;
    if (counted) CALLGRIND_TOGGLE_COLLECT;
    MPI_Irecv(rb, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
    if (counted) CALLGRIND_TOGGLE_COLLECT;
    meet(rank, 0, it, counted);
    if (counted) CALLGRIND_TOGGLE_COLLECT;
    MPI_Isend(sb, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
    if (counted) CALLGRIND_TOGGLE_COLLECT;
    meet(rank, 1, it, counted);
    usleep(sleep_us); /* what a send left to the kernel or a queue lands */
    if (counted) CALLGRIND_TOGGLE_COLLECT;
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (counted) CALLGRIND_TOGGLE_COLLECT;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = argc > 1 ? atol(argv[1]) : 200;
    unsigned sleep_us = argc > 2 ? (unsigned)atol(argv[2]) : 2000;
    if (size != 2 || iters < 1) {
        if (rank == 0) fprintf(stderr, "msgcost: needs 2 ranks and ITERS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - rank;
    /* The flags: a file rank 0 makes, mapped by both (one host). */
    char path[64] = "/tmp/msgcost.XXXXXX";
    int fd = -1;
    if (rank == 0) {
        fd = mkstemp(path);
        if (fd < 0 || ftruncate(fd, 4096) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 1) fd = open(path, O_RDWR);
    void *m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "msgcost: rank %d cannot map %s (both ranks must share a host)\n", rank,
                path);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    flags = m;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
    unsigned char sb[8], rb[8];
    long it = 0;
    /* Warm-up, uncounted: connections, first-touch of buffers and pools. */
    for (int i = 0; i < 20; i++, it++)
        exchange(rank, it, sb, rb, sleep_us, 0);
    for (long i = 0; i < iters; i++, it++) {
        for (int k = 0; k < 8; k++)
            sb[k] = (unsigned char)(i * 8 + k + rank);
        exchange(rank, it, sb, rb, sleep_us, 1);
        for (int k = 0; k < 8; k++)
            if (rb[k] != (unsigned char)(i * 8 + k + peer)) {
                fprintf(stderr, "msgcost: rank %d: wrong data in iteration %ld\n", rank, i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    }
    if (late)
        printf("msgcost: rank %d: %ld of %ld counted iterations waited for the peer inside "
               "MPI_Waitall: their count includes polling\n",
               rank, late, iters);
    if (rank == 0) printf("msgcost: %ld counted iterations of 8 bytes each way\n", iters);
    MPI_Finalize();
    return 0;
}
