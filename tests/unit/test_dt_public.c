/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public datatype API of ump.h, used as a program would (no internal
 * header, no mpi.h): every constructor's size, bounds, true bounds,
 * envelope and contents against answers worked out from the C layout, the
 * error codes of bad arguments, names, and handle lifetimes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <ump.h>

#define I ((ptrdiff_t)sizeof(int))

static void expect_bounds(ump_dt_t t, size_t size, ptrdiff_t lb, ptrdiff_t ext, ptrdiff_t tlb,
                          ptrdiff_t text)
{
    ptrdiff_t a, b;
    assert_int_equal(ump_dt_size(t), size);
    assert_int_equal(ump_dt_get_extent(t, &a, &b), UMP_OK);
    assert_int_equal(a, lb);
    assert_int_equal(b, ext);
    assert_int_equal(ump_dt_get_true_extent(t, &a, &b), UMP_OK);
    assert_int_equal(a, tlb);
    assert_int_equal(b, text);
}

static void expect_envelope(ump_dt_t t, int combiner, int ni, int na, int nd)
{
    int i, a, d, c;
    assert_int_equal(ump_dt_envelope(t, &i, &a, &d, &c), UMP_OK);
    assert_int_equal(c, combiner);
    assert_int_equal(i, ni);
    assert_int_equal(a, na);
    assert_int_equal(d, nd);
}

static void test_predefined(void **state)
{
    (void)state;
    /* every predefined type is named by its ump.h constant */
#define X(ump, obj) assert_string_equal(ump_dt_name(ump), #ump);
    UMP_FOREACH_PREDEFINED_DT(X)
#undef X
    assert_string_equal(ump_dt_name(UMP_BYTE), "UMP_BYTE");
    expect_bounds(UMP_DOUBLE, sizeof(double), 0, sizeof(double), 0, sizeof(double));
    expect_envelope(UMP_INT, UMP_DT_COMBINER_NAMED, 0, 0, 0);
    /* {double v; int i;}: data 12 bytes, extent the padded struct */
    struct di {
        double v;
        int i;
    };
    expect_bounds(UMP_DOUBLE_INT, sizeof(double) + sizeof(int), 0, sizeof(struct di), 0,
                  offsetof(struct di, i) + sizeof(int));
    int ints[1];
    struct ump_dt *types[1];
    assert_int_equal(ump_dt_contents(UMP_INT, 1, 1, 1, ints, NULL, types), UMP_ERR_INVALID);
    struct ump_dt *p = (struct ump_dt *)UMP_INT;
    assert_int_equal(ump_dt_free(&p), UMP_ERR_DATATYPE);
    assert_ptr_equal(p, UMP_INT);
}

static void test_vectors(void **state)
{
    (void)state;
    struct ump_dt *c, *v, *h, *hn;
    assert_int_equal(ump_dt_contiguous(5, UMP_INT, &c), UMP_OK);
    expect_bounds(c, 5 * I, 0, 5 * I, 0, 5 * I);
    expect_envelope(c, UMP_DT_COMBINER_CONTIGUOUS, 1, 0, 1);

    /* 3 blocks of 2 ints, 4 ints apart: data ends at (2*4 + 2) ints */
    assert_int_equal(ump_dt_vector(3, 2, 4, UMP_INT, &v), UMP_OK);
    expect_bounds(v, 6 * I, 0, 10 * I, 0, 10 * I);
    expect_envelope(v, UMP_DT_COMBINER_VECTOR, 3, 0, 1);
    int ints[3];
    struct ump_dt *old[1];
    assert_int_equal(ump_dt_contents(v, 3, 0, 1, ints, NULL, old), UMP_OK);
    assert_int_equal(ints[0], 3);
    assert_int_equal(ints[1], 2);
    assert_int_equal(ints[2], 4);
    assert_ptr_equal(old[0], UMP_INT);
    assert_int_equal(ump_dt_contents(v, 2, 0, 1, ints, NULL, old), UMP_ERR_INVALID);
    assert_int_equal(ump_dt_contents(v, 3, 0, 1, NULL, NULL, old), UMP_ERR_INVALID);

    /* hvector of the vector, 100 bytes apart */
    assert_int_equal(ump_dt_hvector(2, 1, 100, v, &h), UMP_OK);
    expect_bounds(h, 12 * I, 0, 100 + 10 * I, 0, 100 + 10 * I);
    expect_envelope(h, UMP_DT_COMBINER_HVECTOR, 2, 1, 1);
    ptrdiff_t aint[1];
    assert_int_equal(ump_dt_contents(h, 2, 1, 1, ints, aint, old), UMP_OK);
    assert_int_equal(aint[0], 100);
    assert_ptr_equal(old[0], v);
    assert_int_equal(ump_dt_free(&old[0]), UMP_OK); /* contents handed out a handle */

    /* a negative stride: blocks run backwards from the origin */
    assert_int_equal(ump_dt_hvector(3, 1, -8, UMP_INT, &hn), UMP_OK);
    expect_bounds(hn, 3 * I, -16, 16 + I, -16, 16 + I);

    assert_int_equal(ump_dt_commit(v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK); /* idempotent */
    assert_int_equal(ump_dt_free(&c), UMP_OK);
    assert_null(c);
    assert_int_equal(ump_dt_free(&v), UMP_OK);
    /* h holds v: still whole */
    expect_bounds(h, 12 * I, 0, 100 + 10 * I, 0, 100 + 10 * I);
    assert_int_equal(ump_dt_free(&h), UMP_OK);
    assert_int_equal(ump_dt_free(&hn), UMP_OK);
}

static void test_indexed(void **state)
{
    (void)state;
    struct ump_dt *ix, *hx, *ib, *hb;
    int bl[3] = {2, 0, 1}, d[3] = {5, 1, 0};
    assert_int_equal(ump_dt_indexed(3, bl, d, UMP_INT, &ix), UMP_OK);
    expect_bounds(ix, 3 * I, 0, 7 * I, 0, 7 * I);
    expect_envelope(ix, UMP_DT_COMBINER_INDEXED, 7, 0, 1);

    ptrdiff_t hd[3] = {-4, 20, 40};
    assert_int_equal(ump_dt_hindexed(3, bl, hd, UMP_INT, &hx), UMP_OK);
    expect_bounds(hx, 3 * I, -4, 40 + I + 4, -4, 40 + I + 4); /* the empty block counts not */
    expect_envelope(hx, UMP_DT_COMBINER_HINDEXED, 4, 3, 1);

    int bd[2] = {3, 0};
    assert_int_equal(ump_dt_indexed_block(2, 2, bd, UMP_SHORT, &ib), UMP_OK);
    expect_bounds(ib, 4 * sizeof(short), 0, 5 * sizeof(short), 0, 5 * sizeof(short));
    expect_envelope(ib, UMP_DT_COMBINER_INDEXED_BLOCK, 4, 0, 1);

    ptrdiff_t hbd[2] = {16, 0};
    assert_int_equal(ump_dt_hindexed_block(2, 1, hbd, UMP_DOUBLE, &hb), UMP_OK);
    expect_bounds(hb, 2 * sizeof(double), 0, 16 + sizeof(double), 0, 16 + sizeof(double));
    expect_envelope(hb, UMP_DT_COMBINER_HINDEXED_BLOCK, 2, 2, 1);

    int neg[1] = {-1};
    struct ump_dt *bad = NULL;
    assert_int_equal(ump_dt_indexed(1, neg, d, UMP_INT, &bad), UMP_ERR_COUNT);
    assert_int_equal(ump_dt_indexed(1, NULL, d, UMP_INT, &bad), UMP_ERR_INVALID);
    assert_int_equal(ump_dt_hindexed_block(1, 1, NULL, UMP_INT, &bad), UMP_ERR_INVALID);
    assert_null(bad);
    assert_int_equal(ump_dt_free(&ix), UMP_OK);
    assert_int_equal(ump_dt_free(&hx), UMP_OK);
    assert_int_equal(ump_dt_free(&ib), UMP_OK);
    assert_int_equal(ump_dt_free(&hb), UMP_OK);
}

static void test_struct_resized_dup(void **state)
{
    (void)state;
    struct s {
        char c;
        double d[2];
        short h;
    };
    int bl[3] = {1, 2, 1};
    ptrdiff_t disp[3] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, h)};
    ump_dt_t types[3] = {UMP_CHAR, UMP_DOUBLE, UMP_SHORT};
    struct ump_dt *st, *r, *dup;
    assert_int_equal(ump_dt_struct(3, bl, disp, types, &st), UMP_OK);
    /* padded like the C struct */
    expect_bounds(st, 1 + 2 * sizeof(double) + sizeof(short), 0, sizeof(struct s), 0,
                  offsetof(struct s, h) + sizeof(short));
    expect_envelope(st, UMP_DT_COMBINER_STRUCT, 4, 3, 3);
    int ints[4];
    ptrdiff_t aints[3];
    struct ump_dt *olds[3];
    assert_int_equal(ump_dt_contents(st, 4, 3, 3, ints, aints, olds), UMP_OK);
    assert_int_equal(ints[0], 3);
    assert_int_equal(ints[2], 2);
    assert_int_equal(aints[1], offsetof(struct s, d));
    assert_ptr_equal(olds[2], UMP_SHORT);

    assert_int_equal(ump_dt_resized(st, -8, 64, &r), UMP_OK);
    expect_bounds(r, ump_dt_size(st), -8, 64, 0, offsetof(struct s, h) + sizeof(short));
    expect_envelope(r, UMP_DT_COMBINER_RESIZED, 0, 2, 1);

    assert_int_equal(ump_dt_commit(r), UMP_OK);
    assert_int_equal(ump_dt_dup(r, &dup), UMP_OK);
    expect_bounds(dup, ump_dt_size(st), -8, 64, 0, offsetof(struct s, h) + sizeof(short));
    expect_envelope(dup, UMP_DT_COMBINER_DUP, 0, 0, 1);

    /* names: a copy, kept per type */
    assert_string_equal(ump_dt_name(st), "");
    assert_int_equal(ump_dt_set_name(st, "s"), UMP_OK);
    assert_string_equal(ump_dt_name(st), "s");
    assert_string_equal(ump_dt_name(dup), "");
    assert_int_equal(ump_dt_set_name(st, NULL), UMP_ERR_INVALID);

    ump_dt_t badtypes[3] = {UMP_CHAR, NULL, UMP_SHORT};
    struct ump_dt *bad = NULL;
    assert_int_equal(ump_dt_struct(3, bl, disp, badtypes, &bad), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_struct(-1, bl, disp, types, &bad), UMP_ERR_COUNT);
    assert_null(bad);

    assert_int_equal(ump_dt_free(&st), UMP_OK);
    /* freed: no longer usable for building or queries */
    assert_int_equal(ump_dt_get_extent(st, &aints[0], &aints[1]), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_free(&r), UMP_OK);
    assert_int_equal(ump_dt_free(&dup), UMP_OK);
}

static void test_arrays(void **state)
{
    (void)state;
    struct ump_dt *cs, *fs, *da, *dc;
    /* a 3 x 4 block at (1, 2) of a 6 x 8 array of ints */
    int sizes[2] = {6, 8}, subs[2] = {3, 4}, starts[2] = {1, 2};
    assert_int_equal(ump_dt_subarray(2, sizes, subs, starts, UMP_DT_ORDER_C, UMP_INT, &cs), UMP_OK);
    /* C order: rows of 8; first (1,2) = 10, last (3,5) = 29 */
    expect_bounds(cs, 12 * I, 0, 48 * I, 10 * I, 20 * I);
    expect_envelope(cs, UMP_DT_COMBINER_SUBARRAY, 8, 0, 1);
    assert_int_equal(ump_dt_subarray(2, sizes, subs, starts, UMP_DT_ORDER_FORTRAN, UMP_INT, &fs),
                     UMP_OK);
    /* Fortran order: columns of 6; first 1 + 2*6 = 13, last 3 + 5*6 = 33 */
    expect_bounds(fs, 12 * I, 0, 48 * I, 13 * I, 21 * I);
    struct ump_dt *bad = NULL;
    assert_int_equal(ump_dt_subarray(2, sizes, subs, starts, 0, UMP_INT, &bad), UMP_ERR_INVALID);
    starts[1] = 5; /* 5 + 4 > 8 */
    assert_int_equal(ump_dt_subarray(2, sizes, subs, starts, UMP_DT_ORDER_C, UMP_INT, &bad),
                     UMP_ERR_INVALID);

    /* 10 ints, blocks over 3 processes (4, 4, 2): process 2's part */
    int g = 10, block = UMP_DT_DISTRIBUTE_BLOCK, cyclic = UMP_DT_DISTRIBUTE_CYCLIC,
        dflt = UMP_DT_DISTRIBUTE_DFLT_DARG, p = 3, two = 2;
    assert_int_equal(ump_dt_darray(3, 2, 1, &g, &block, &dflt, &p, UMP_DT_ORDER_C, UMP_INT, &da),
                     UMP_OK);
    expect_bounds(da, 2 * I, 0, 10 * I, 8 * I, 2 * I);
    expect_envelope(da, UMP_DT_COMBINER_DARRAY, 4 * 1 + 4, 0, 1);
    /* cyclic in blocks of 2 over 3: process 1 holds 2-3 and 8-9 */
    assert_int_equal(ump_dt_darray(3, 1, 1, &g, &cyclic, &two, &p, UMP_DT_ORDER_C, UMP_INT, &dc),
                     UMP_OK);
    expect_bounds(dc, 4 * I, 0, 10 * I, 2 * I, 8 * I);
    int none = UMP_DT_DISTRIBUTE_NONE;
    assert_int_equal(ump_dt_darray(3, 1, 1, &g, &none, &dflt, &p, UMP_DT_ORDER_C, UMP_INT, &bad),
                     UMP_ERR_INVALID);
    assert_null(bad);
    assert_int_equal(ump_dt_free(&cs), UMP_OK);
    assert_int_equal(ump_dt_free(&fs), UMP_OK);
    assert_int_equal(ump_dt_free(&da), UMP_OK);
    assert_int_equal(ump_dt_free(&dc), UMP_OK);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct ump_dt *bad = NULL;
    ptrdiff_t a, b;
    assert_int_equal(ump_dt_contiguous(-1, UMP_INT, &bad), UMP_ERR_COUNT);
    assert_int_equal(ump_dt_vector(1, -2, 1, UMP_INT, &bad), UMP_ERR_COUNT);
    assert_int_equal(ump_dt_contiguous(1, NULL, &bad), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_contiguous(1, UMP_INT, NULL), UMP_ERR_INVALID);
    assert_int_equal(ump_dt_resized(NULL, 0, 4, &bad), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_dup(UMP_INT, NULL), UMP_ERR_INVALID);
    assert_null(bad);
    assert_int_equal(ump_dt_get_extent(NULL, &a, &b), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_get_extent(UMP_INT, NULL, &b), UMP_ERR_INVALID);
    assert_int_equal(ump_dt_get_true_extent(UMP_INT, &a, NULL), UMP_ERR_INVALID);
    int i, n, d, c;
    assert_int_equal(ump_dt_envelope(NULL, &i, &n, &d, &c), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_envelope(UMP_INT, NULL, &n, &d, &c), UMP_ERR_INVALID);
    assert_int_equal(ump_dt_commit(NULL), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_free(NULL), UMP_ERR_DATATYPE);
    assert_int_equal(ump_dt_free(&bad), UMP_ERR_DATATYPE);
    assert_string_equal(ump_dt_name(NULL), "");
    assert_int_equal(ump_dt_size(NULL), 0);
    /* nesting past 32 levels */
    struct ump_dt *t = NULL, *prev = NULL;
    int rc = UMP_OK, depth = 0;
    for (; depth < 40 && rc == UMP_OK; depth++) {
        rc = ump_dt_hvector(2, 1, 64, prev ? prev : UMP_INT, &t);
        if (prev) ump_dt_free(&prev);
        prev = rc == UMP_OK ? t : NULL;
    }
    assert_int_equal(rc, UMP_ERR_UNSUPPORTED);
    assert_true(depth > 30);
    assert_null(prev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predefined), cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_indexed),    cmocka_unit_test(test_struct_resized_dup),
        cmocka_unit_test(test_arrays),     cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
