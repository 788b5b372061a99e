/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cursor's fixed-length run kernels (vector of a basic or contiguous
 * type): every run length that has a kernel of its own (1, 2, 4, 8, 16,
 * 128, 256 bytes) and the lengths around them, with strides far apart
 * (16 KiB, the ddt_vector benchmark's shape), close, negative and
 * touching. Each case packs whole and in odd-sized chunks that stop and
 * resume inside runs, and compares with a naive reference; unpacking
 * writes exactly the runs and nothing between them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dt/dt.h"
#include "mpi.h"
#include "util/util.h"

#define AREA (8u << 20)

static unsigned char *src, *dst, *ref, *out, *cov;

static int setup(void **state)
{
    (void)state;
    src = malloc(AREA);
    dst = malloc(AREA);
    ref = malloc(AREA);
    out = malloc(AREA);
    cov = malloc(AREA);
    if (!src || !dst || !ref || !out || !cov) return -1;
    for (size_t i = 0; i < AREA; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(src);
    free(dst);
    free(ref);
    free(out);
    free(cov);
    return 0;
}

/* count runs of blk bytes, run i at origin + i * stride (bytes). */
static void check(int count, int blk, ptrdiff_t stride, int chunk)
{
    struct ump_dt *bytes, *v;
    assert_int_equal(ump_dt_contiguous(blk, MPI_BYTE, &bytes), UMP_OK);
    assert_int_equal(ump_dt_hvector(count, 1, stride, bytes, &v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK);
    size_t total = (size_t)count * (size_t)blk;
    /* The origin sits in the middle so negative strides stay inside. */
    ptrdiff_t origin = AREA / 2;
    size_t k = 0;
    for (int i = 0; i < count; i++)
        for (int b = 0; b < blk; b++)
            ref[k++] = src[origin + i * stride + b];

    /* Whole, then in chunks through one cursor. */
    memset(out, 0, total);
    assert_int_equal(ump_dt_pack(src + origin, 1, v, 0, out, total), UMP_OK);
    assert_memory_equal(out, ref, total);
    memset(out, 0, total);
    ump_dt_cursor_t c;
    assert_int_equal(ump_dt_cursor_init(&c, src + origin, 1, v, 0), UMP_OK);
    for (size_t at = 0; at < total;) {
        size_t n = UMP_MIN((size_t)chunk, total - at);
        assert_int_equal(ump_dt_cursor_pack(&c, out + at, n), n);
        at += n;
    }
    assert_true(ump_dt_cursor_done(&c));
    assert_memory_equal(out, ref, total);

    /* Unpack in chunks into a guard pattern: the runs, and only they. */
    memset(dst, 0xa5, AREA);
    assert_int_equal(ump_dt_cursor_init(&c, dst + origin, 1, v, 0), UMP_OK);
    for (size_t at = 0; at < total;) {
        size_t n = UMP_MIN((size_t)chunk + 3, total - at);
        assert_int_equal(ump_dt_cursor_unpack(&c, ref + at, n), n);
        at += n;
    }
    size_t span_lo = (size_t)(origin + UMP_MIN((ptrdiff_t)0, (count - 1) * stride));
    size_t span_hi = (size_t)(origin + UMP_MAX((ptrdiff_t)0, (count - 1) * stride)) + (size_t)blk;
    memset(cov + span_lo - 64, 0, span_hi - span_lo + 128);
    for (int i = 0; i < count; i++)
        memset(cov + origin + i * stride, 1, (size_t)blk);
    for (size_t a = span_lo - 64; a < span_hi + 64; a++) {
        if (cov[a])
            assert_int_equal(dst[a], src[a]);
        else
            assert_int_equal(dst[a], 0xa5);
    }
    ump_dt_free(&v);
    ump_dt_free(&bytes);
}

static void test_run_lengths(void **state)
{
    (void)state;
    static const int lens[] = {1,  2,  3,  4,   5,   7,   8,   9,   15,  16,  17,  31,
                               32, 33, 64, 100, 127, 128, 129, 255, 256, 257, 4096};
    static const ptrdiff_t strides[] = {16384, -16384, 4160, 3};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        for (size_t j = 0; j < sizeof(strides) / sizeof(strides[0]); j++) {
            ptrdiff_t st = strides[j];
            if (st == 3) st = lens[i] + 3; /* close, not touching */
            check(128, lens[i], st, 1000);
            check(37, lens[i], st, 61);
        }
    /* Touching runs become one copy. */
    check(128, 128, 128, 777);
    check(128, 256, 256, 777);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_lengths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
