/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Measures the two ways shm moves a large message between two processes:
 *   ring: the sender copies chunks into an SPSC ring while the receiver
 *         copies earlier chunks out (what the core's pipelined rendezvous
 *         does with DATA AMs), two copies but on two cores at once;
 *   cma:  the receiver reads the sender's buffer with process_vm_readv, one
 *         copy on one core.
 * It prints both bandwidths per size (what the core's measured choice between
 * the two weighs on each machine; UMP_SHM_CMA_MIN fixes a threshold instead)
 * and checks that every byte arrived. Set UMP_SHM_PERF_FULL=1 for
 * more iterations. CMA refused here (ptrace policy) is reported, and only
 * the ring is measured.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xport/shm/shm.h"

#define MAX_SIZE  (16u << 20)
#define RING_SIZE (256u << 10)

struct shared {
    _Atomic int go;   /* iteration number the sender may start */
    _Atomic int done; /* iteration number the receiver finished */
    _Atomic int quit;
    int chunk;
    size_t size;
    ump_shm_ring_ctl_t ctl;
    char data[] UMP_ALIGNED(UMP_CACHELINE);
};

/* Waits until *v >= want; returns *v. In CMA rounds the receiver needs no
 * sender and may run several rounds ahead. */
static int wait_for(_Atomic int *v, int want, _Atomic int *quit)
{
    unsigned spins = 0;
    int got;
    while ((got = atomic_load_explicit(v, memory_order_acquire)) < want &&
           !atomic_load_explicit(quit, memory_order_relaxed))
        if (++spins > 1000) sched_yield();
    return got;
}

/* The sender: for each `go`, streams `size` bytes of src through the ring in
 * `chunk` pieces (or, with chunk 0, does nothing: the receiver uses CMA). */
static void sender(struct shared *sh, char *src)
{
    alarm(55);
    ump_shm_ring_t r;
    ump_shm_ring_attach(&r, &sh->ctl, sh->data, RING_SIZE);
    for (int it = 1;; it++) {
        it = wait_for(&sh->go, it, &sh->quit);
        if (atomic_load(&sh->quit)) break;
        size_t chunk = (size_t)sh->chunk, size = sh->size;
        for (size_t off = 0; chunk && off < size;) {
            size_t n = UMP_MIN(chunk, size - off);
            struct iovec iov = {src + off, n};
            uint64_t hdr = off;
            unsigned spins = 0;
            while (ump_shm_ring_push(&r, 0, 1, &hdr, sizeof(hdr), &iov, 1, n + sizeof(hdr)) !=
                   UMP_OK)
                if (++spins > 1000) sched_yield();
            off += n;
        }
        wait_for(&sh->done, it, &sh->quit);
    }
    _exit(0);
}

static double now(void)
{
    return (double)ump_time_ns() * 1e-9;
}

static int iterations(size_t size)
{
    const char *full = getenv("UMP_SHM_PERF_FULL");
    size_t budget = (full && *full == '1') ? (2u << 30) : (256u << 20); /* bytes per point */
    size_t n = budget / size;
    return (int)UMP_MAX(UMP_MIN(n, 2000), 3);
}

static void test_ring_vs_cma(void **state)
{
    size_t shsize = sizeof(struct shared) + RING_SIZE;
    struct shared *sh =
        mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(sh != MAP_FAILED);
    char *src = malloc(MAX_SIZE), *dst = malloc(MAX_SIZE);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < MAX_SIZE; i++)
        src[i] = (char)(i * 7 + (i >> 12));
    setvbuf(stdout, NULL, _IONBF, 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) sender(sh, src);
    alarm(55);

    ump_shm_ring_t r;
    ump_shm_ring_attach(&r, &sh->ctl, sh->data, RING_SIZE);
    bool cma_ok = true;
    int it = 0;
    static const int chunks[] = {16 << 10, 32 << 10, 64 << 10};
    printf("# size      ring16k  ring32k  ring64k      cma   (GB/s, best of N)\n");
    for (size_t size = 64u << 10; size <= MAX_SIZE; size *= 2) {
        double best[4] = {0};
        int n = iterations(size);
        for (int m = 0; m < 4; m++) {
            if (m == 3 && !cma_ok) continue;
            for (int k = 0; k < n; k++) {
                memset(dst, 0, 64); /* some bytes that must be rewritten */
                sh->chunk = m < 3 ? chunks[m] : 0;
                sh->size = size;
                it++;
                double t0 = now();
                atomic_store_explicit(&sh->go, it, memory_order_release);
                if (m < 3) {
                    size_t got = 0;
                    unsigned spins = 0;
                    while (got < size) {
                        const ump_shm_rec_t *rec = ump_shm_ring_peek(&r);
                        if (!rec) {
                            if (++spins > 1000) sched_yield();
                            continue;
                        }
                        uint64_t off;
                        memcpy(&off, rec + 1, sizeof(off));
                        size_t len = rec->len - sizeof(off);
                        memcpy(dst + off, (const char *)(rec + 1) + sizeof(off), len);
                        got += len;
                        ump_shm_ring_pop(&r, rec);
                    }
                } else {
                    struct iovec l = {dst, size};
                    ump_riov_t rv = {(uint64_t)(uintptr_t)src, size};
                    int rc = ump_shm_cma_read(pid, &l, 1, &rv, 1);
                    if (rc == UMP_ERR_UNSUPPORTED) {
                        printf("# process_vm_readv refused here: ring only\n");
                        cma_ok = false;
                    } else {
                        assert_int_equal(rc, UMP_OK);
                    }
                }
                double t = now() - t0;
                atomic_store_explicit(&sh->done, it, memory_order_release);
                if (m == 3 && !cma_ok) break;
                /* Every byte, on the first round of each method. */
                if (k == 0) assert_memory_equal(dst, src, size);
                double bw = (double)size / t * 1e-9;
                if (bw > best[m]) best[m] = bw;
            }
        }
        printf("%8zuk  %7.2f  %7.2f  %7.2f  %7.2f   (N=%d)\n", size >> 10, best[0], best[1],
               best[2], best[3], n);
    }
    atomic_store(&sh->quit, 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    alarm(0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(src);
    free(dst);
    munmap(sh, shsize);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_vs_cma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
