/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * limits - the floor and ceiling of this machine, without any MPI:
 *   "cacheline" one cache line ping-ponged through shared memory between two
 *   processes pinned to CPU A and B: ns of one one-way hop (the floor for a
 *   small-message latency); "memcpy" single-core copy of 4 MiB and 64 MiB
 *   (the ceiling of a one-copy transfer); "process_vm_readv" 4 MiB read from
 *   another process (cross memory attach).
 *
 *   limits [--csv FILE] [--quick]    all of it, as a table (and CSV)
 *   limits probe [A B]               only the one-way hop in ns (one number);
 *                                    bench/compare runs it around every run
 * On a VM two vCPUs can share a cache (tens of ns) or sit far apart
 * (100+ ns), and that can change between runs: hence the probe.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hop.h"

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

static double cacheline(int a, int b, long n)
{
    struct hop_line *l =
        mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) return -1;
    atomic_store(&l->v, 0);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        pin(b);
        _exit(hop_follow(l) ? 1 : 0);
    }
    pin(a);
    double ns = hop_lead(l, n, 60);
    int st = 0;
    waitpid(pid, &st, 0);
    munmap(l, sizeof(*l));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
    return ns;
}

/* GB/s of copying n bytes, best of a few rounds lasting ~t seconds. */
static double copy_bw(size_t n, double t)
{
    char *s = malloc(n), *d = malloc(n);
    if (!s || !d) return -1;
    memset(s, 1, n);
    memset(d, 2, n);
    double best = 0;
    for (int r = 0; r < 5; r++) {
        long it = 0;
        double t0 = hop_now(), dt;
        do {
            memcpy(d, s, n);
            it++;
            dt = hop_now() - t0;
        } while (dt < t / 5);
        double bw = (double)n * (double)it / dt / 1e9;
        if (bw > best) best = bw;
    }
    int ok = memcmp(d, s, n) == 0;
    free(s);
    free(d);
    return ok ? best : -1;
}

static double cma_bw(size_t n, double t)
{
    char *s = malloc(n), *d = malloc(n);
    int go[2];
    if (!s || !d || pipe(go) != 0) return -1;
    for (size_t i = 0; i < n; i++)
        s[i] = (char)(i * 13);
    pid_t pid = fork();
    if (pid == 0) { /* keeps its copy of s alive until the parent is done */
        char c;
        close(go[1]);
        (void)!read(go[0], &c, 1);
        _exit(0);
    }
    close(go[0]);
    struct iovec li = {d, n}, ri = {s, n};
    double best = 0;
    for (int r = 0; r < 5; r++) {
        long it = 0;
        double t0 = hop_now(), dt;
        do {
            if (process_vm_readv(pid, &li, 1, &ri, 1, 0) != (ssize_t)n) {
                best = -1;
                goto out;
            }
            it++;
            dt = hop_now() - t0;
        } while (dt < t / 5);
        double bw = (double)n * (double)it / dt / 1e9;
        if (bw > best) best = bw;
    }
    if (memcmp(d, s, n) != 0) best = -1;
out:
    close(go[1]);
    waitpid(pid, NULL, 0);
    free(s);
    free(d);
    return best;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "probe")) {
        int a = argc > 3 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 1;
        double ns = cacheline(a, b, 100000);
        if (ns < 0) {
            fprintf(stderr, "limits: the probe failed\n");
            return 1;
        }
        printf("%.1f\n", ns);
        return 0;
    }
    const char *csv = NULL;
    double t = 1.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            t = 0.25;
        else {
            fprintf(stderr, "usage: limits [--csv FILE] [--quick] | limits probe [A B]\n");
            return 2;
        }
    }
    struct {
        const char *what;
        size_t bytes;
        double v;
        const char *unit;
    } r[] = {
        {"cacheline", 64, cacheline(0, 1, 200000), "ns"},
        {"memcpy", 4 << 20, copy_bw(4 << 20, t), "GB/s"},
        {"memcpy", 64 << 20, copy_bw(64 << 20, t), "GB/s"},
        {"process_vm_readv", 4 << 20, cma_bw(4 << 20, t), "GB/s"},
    };
    FILE *f = csv ? fopen(csv, "w") : NULL;
    if (f) fprintf(f, "what,bytes,value,unit\n");
    printf("%-18s %10s %10s\n", "limit", "bytes", "value");
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
        printf("%-18s %10zu %10.1f %s\n", r[i].what, r[i].bytes, r[i].v, r[i].unit);
        if (f) fprintf(f, "%s,%zu,%.2f,%s\n", r[i].what, r[i].bytes, r[i].v, r[i].unit);
    }
    if (f) fclose(f);
    return 0;
}
