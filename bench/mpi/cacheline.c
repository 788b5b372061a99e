/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cacheline - how far apart are two CPUs? Two processes, pinned to CPU A and
 * CPU B (default 0 and 1), bounce one cache line in shared memory: each waits
 * for the other's counter value and answers with the next one. Prints the
 * nanoseconds of one one-way hop (round trip / 2). On a VM the same two
 * vCPU numbers can land on a shared L2/L3 (tens of ns) or across
 * sockets/chiplets (100+ ns) from one run to the next; compare-p2p.sh runs
 * this before and after each benchmark to label where the ranks were.
 *
 *   cacheline [CPU_A CPU_B [ROUND_TRIPS]]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct line {
    _Alignas(64) _Atomic uint64_t v;
    char pad[56];
};

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for the counter to reach `want`; gives up after ~2 s so a descheduled
 * peer on an oversubscribed machine cannot hang the probe. */
static int await(struct line *l, uint64_t want)
{
    for (unsigned long spins = 0; atomic_load_explicit(&l->v, memory_order_acquire) != want;
         spins++) {
        if ((spins & 0xfffff) == 0xfffff && spins > (1ul << 30)) return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int a = argc > 2 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
    long n = argc > 3 ? atol(argv[3]) : 200000;
    struct line *l =
        mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    atomic_store(&l->v, 0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (pin(b) != 0) perror("cacheline: pin B");
        atomic_store(&l->v, 1); /* ready */
        for (long i = 0; i < n; i++) {
            if (await(l, 2 * (uint64_t)i + 2) != 0) _exit(1);
            atomic_store_explicit(&l->v, 2 * (uint64_t)i + 3, memory_order_release);
        }
        _exit(0);
    }
    if (pin(a) != 0) perror("cacheline: pin A");
    int bad = await(l, 1);
    /* A few warm-up round trips, then the timed ones. */
    uint64_t base = 1;
    double t0 = 0;
    for (long i = 0; i < n && !bad; i++) {
        if (i == n / 10) t0 = now(), base = (uint64_t)i;
        atomic_store_explicit(&l->v, 2 * (uint64_t)i + 2, memory_order_release);
        bad = await(l, 2 * (uint64_t)i + 3);
    }
    double dt = now() - t0;
    int st = 0;
    waitpid(pid, &st, 0);
    if (bad || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "cacheline: the peer stopped answering\n");
        return 1;
    }
    printf("%.1f\n", dt / (double)(n - (long)base) / 2 * 1e9);
    return 0;
}
