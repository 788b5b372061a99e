/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hop.h - one cache line ping-ponged between two processes through shared
 * memory: the time of one one-way hop between their cores. On a VM the two
 * vCPUs may share a cache (tens of ns) or sit far apart (hundreds), and the
 * placement can change from one second to the next, so limits measures it
 * between two pinned CPUs and every two-rank benchmark (bench.h) measures
 * it between its own ranks around each point.
 *
 * The line holds a counter. The follower writes 1 when it is ready; the
 * leader writes even numbers, the follower answers each with the next odd
 * one, until the leader writes HOP_STOP in its turn.
 */
#ifndef BENCH_HOP_H
#define BENCH_HOP_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

struct hop_line {
    _Alignas(64) _Atomic uint64_t v;
    char pad[56];
};

#define HOP_STOP UINT64_MAX

static inline double hop_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for the counter to read `want` (or HOP_STOP: the value read is
 * returned); gives up with 0 after a few seconds, so a descheduled peer on
 * a busy machine cannot hang the probe. */
static inline uint64_t hop_await(struct hop_line *l, uint64_t want)
{
    double t0 = 0;
    for (unsigned long spins = 0;; spins++) {
        uint64_t v = atomic_load_explicit(&l->v, memory_order_acquire);
        if (v == want || v == HOP_STOP) return v;
        if ((spins & 0xfffff) == 0xfffff) {
            if (t0 == 0)
                t0 = hop_now();
            else if (hop_now() - t0 > 5)
                return 0;
        }
    }
}

/* The follower's side: announces itself, then answers until the leader
 * stops. 0, or -1 when the leader went silent. */
static inline int hop_follow(struct hop_line *l)
{
    atomic_store_explicit(&l->v, 1, memory_order_release);
    for (uint64_t i = 0;; i++) {
        uint64_t v = hop_await(l, 2 * i + 2);
        if (v == HOP_STOP) return 0;
        if (v == 0) return -1;
        atomic_store_explicit(&l->v, 2 * i + 3, memory_order_release);
    }
}

/* The leader's side: n round trips, of which the first tenth warm up, or
 * fewer when max_sec passes first (a busy machine). ns per one-way hop, or
 * -1 when too few round trips were timed to say. */
static inline double hop_lead(struct hop_line *l, long n, double max_sec)
{
    if (hop_await(l, 1) != 1) return -1;
    long warm = n / 10, i = 0;
    double start = hop_now(), t0 = start;
    int bad = 0;
    for (; i < n; i++) {
        if (i == warm) t0 = hop_now();
        if ((i & 255) == 255 && hop_now() - start > max_sec) break;
        atomic_store_explicit(&l->v, 2 * (uint64_t)i + 2, memory_order_release);
        if (hop_await(l, 2 * (uint64_t)i + 3) != 2 * (uint64_t)i + 3) {
            bad = 1;
            break;
        }
    }
    double dt = hop_now() - t0;
    atomic_store_explicit(&l->v, HOP_STOP, memory_order_release);
    long timed = i - warm;
    if (bad || timed < 100) return -1;
    return dt / (double)timed / 2 * 1e9;
}

#endif
