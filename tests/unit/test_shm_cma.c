/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ump_shm_cma_read: gather/scatter with lists longer than one batch, uneven
 * splits and empty entries, from another process; and its error mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xport/shm/shm.h"

#define TOTAL (3u << 20)

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Splits TOTAL bytes of buf into n pieces of random length (some empty). */
static void split(char *buf, int n, uint32_t seed, struct iovec *iov)
{
    size_t left = TOTAL;
    for (int i = 0; i < n; i++) {
        size_t len = i == n - 1 ? left : UMP_MIN(left, rnd(&seed) % (2 * TOTAL / (size_t)n));
        if (i % 17 == 3 && i != n - 1) len = 0;
        iov[i].iov_base = buf;
        iov[i].iov_len = len;
        buf += len;
        left -= len;
    }
}

/* Reads the parent's buffer from a child through lists of nl and nr pieces. */
static void run(int nl, int nr)
{
    char *src = malloc(TOTAL);
    assert_non_null(src);
    for (size_t i = 0; i < TOTAL; i++)
        src[i] = (char)(i * 31 + (i >> 9));
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(30);
        char *dst = calloc(1, TOTAL);
        struct iovec *l = calloc((size_t)nl, sizeof(*l));
        struct iovec *rtmp = calloc((size_t)nr, sizeof(*rtmp));
        ump_riov_t *r = calloc((size_t)nr, sizeof(*r));
        if (!dst || !l || !rtmp || !r) _exit(2);
        split(dst, nl, 7, l);
        split(src, nr, 11, rtmp); /* src has the same address in the parent */
        for (int i = 0; i < nr; i++)
            r[i] = (ump_riov_t){(uint64_t)(uintptr_t)rtmp[i].iov_base, rtmp[i].iov_len};
        int rc = ump_shm_cma_read(parent, l, nl, r, nr);
        if (rc == UMP_ERR_UNSUPPORTED) _exit(77);
        if (rc != UMP_OK) _exit(3);
        /* The child's src is the parent's (copy-on-write, unchanged). */
        _exit(memcmp(dst, src, TOTAL) ? 4 : 0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    free(src);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        print_message("process_vm_readv not permitted here: cannot test CMA\n");
        exit(77);
    }
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_one_to_one(void **state)
{
    run(1, 1);
}
static void test_many_to_few(void **state)
{
    run(1000, 3);
}
static void test_few_to_many(void **state)
{
    run(5, 700);
}
static void test_many_to_many(void **state)
{
    run(333, 1500);
}

static void test_errors(void **state)
{
    char a[64], b[64] = {1};
    struct iovec l = {a, sizeof(a)};
    ump_riov_t r = {(uint64_t)(uintptr_t)b, sizeof(b)};
    assert_int_equal(ump_shm_cma_read(getpid(), &l, 1, &r, 1), UMP_OK);
    assert_memory_equal(a, b, sizeof(a));
    /* Lengths that differ. */
    ump_riov_t shorter = {(uint64_t)(uintptr_t)b, 32};
    assert_int_equal(ump_shm_cma_read(getpid(), &l, 1, &shorter, 1), UMP_ERR_INVALID);
    /* An unmapped remote address. */
    ump_riov_t bad = {4096, sizeof(a)};
    assert_true(ump_shm_cma_read(getpid(), &l, 1, &bad, 1) < 0);
    /* A process that is gone. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(ump_shm_cma_read(pid, &l, 1, &r, 1), UMP_ERR_PEER_DEAD);
    /* Nothing to do. */
    assert_int_equal(ump_shm_cma_read(getpid(), NULL, 0, NULL, 0), UMP_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_to_one),  cmocka_unit_test(test_many_to_few),
        cmocka_unit_test(test_few_to_many), cmocka_unit_test(test_many_to_many),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
