/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the transfer schemes take from the datatype engine: the flat run
 * list of one element (ump_dt_flat) that a sender ships to a receiver for
 * scatter/gather, and the type ids that name a layout on the wire (unique,
 * never reused after a free).
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

static void test_vector_runs(void **state)
{
    (void)state;
    struct ump_dt *v;
    assert_int_equal(ump_dt_vector(5, 3, 7, MPI_INT, &v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK);
    size_t n = 0;
    const struct iovec *f = ump_dt_flat(v, 100, &n);
    assert_non_null(f);
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal((uintptr_t)f[i].iov_base, i * 7 * sizeof(int));
        assert_int_equal(f[i].iov_len, 3 * sizeof(int));
    }
    /* Kept with the type: the same list on the next call. */
    size_t n2 = 0;
    assert_ptr_equal(ump_dt_flat(v, 100, &n2), f);
    assert_int_equal(n2, n);
    ump_dt_free(&v);
}

static void test_negative_offsets_and_merge(void **state)
{
    (void)state;
    /* Blocks at -8 and -4 touch (merged into one run of 8), then one at 16. */
    int bl[3] = {1, 1, 1};
    ptrdiff_t d[3] = {-8, -4, 16};
    struct ump_dt *t;
    assert_int_equal(ump_dt_hindexed(3, bl, d, MPI_INT, &t), UMP_OK);
    assert_int_equal(ump_dt_commit(t), UMP_OK);
    size_t n = 0;
    const struct iovec *f = ump_dt_flat(t, 100, &n);
    assert_non_null(f);
    assert_int_equal(n, 2);
    assert_int_equal((intptr_t)(uintptr_t)f[0].iov_base, -8);
    assert_int_equal(f[0].iov_len, 8);
    assert_int_equal((intptr_t)(uintptr_t)f[1].iov_base, 16);
    assert_int_equal(f[1].iov_len, 4);
    ump_dt_free(&t);
}

static void test_limit(void **state)
{
    (void)state;
    struct ump_dt *v;
    assert_int_equal(ump_dt_vector(64, 1, 2, MPI_INT, &v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK);
    size_t n = 12345;
    assert_null(ump_dt_flat(v, 63, &n)); /* too many runs to ship */
    assert_non_null(ump_dt_flat(v, 64, &n));
    assert_int_equal(n, 64);
    ump_dt_free(&v);
    /* Predefined types have nowhere to keep a list. */
    assert_null(ump_dt_flat(MPI_DOUBLE_INT, 100, &n));
}

static void test_ids_unique(void **state)
{
    (void)state;
    uint64_t seen[64];
    for (int i = 0; i < 64; i++) {
        struct ump_dt *t;
        assert_int_equal(ump_dt_contiguous(2, MPI_INT, &t), UMP_OK);
        seen[i] = t->uid;
        assert_true(seen[i] != 0);
        for (int j = 0; j < i; j++)
            assert_true(seen[j] != seen[i]); /* even where malloc reuses the memory */
        ump_dt_free(&t);
    }
}

/* Resized and dup'd types are built as copies of their old type: each must
 * get its own id (a receiver keeps layouts and their extents by id) and its
 * own flat list (freed with it). */
static void test_copies_own_id_and_runs(void **state)
{
    (void)state;
    struct ump_dt *v, *r, *d;
    size_t n = 0;
    assert_int_equal(ump_dt_vector(3, 2, 5, MPI_INT, &v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK);
    assert_non_null(ump_dt_flat(v, 16, &n)); /* built before the copies */
    assert_int_equal(ump_dt_resized(v, -100, 64, &r), UMP_OK);
    assert_int_equal(ump_dt_dup(v, &d), UMP_OK);
    assert_int_equal(ump_dt_commit(r), UMP_OK);
    assert_true(r->uid != v->uid && d->uid != v->uid && r->uid != d->uid);
    ump_dt_free(&v); /* the copies' flat lists must outlive it */
    const struct iovec *f = ump_dt_flat(r, 16, &n);
    assert_non_null(f);
    assert_int_equal(n, 3);
    assert_int_equal((intptr_t)f[1].iov_base, 20);
    assert_int_equal(ump_dt_extent(r), 64);
    ump_dt_free(&r);
    ump_dt_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_runs),
        cmocka_unit_test(test_negative_offsets_and_merge),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_ids_unique),
        cmocka_unit_test(test_copies_own_id_and_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
