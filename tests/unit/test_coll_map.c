/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the (op, datatype) mapping of src/coll: which predefined op
 * applies to which datatype (the rules of MPI 3.1 §5.9.2), derived types made of one
 * basic type take predefined ops and mixed ones do not, and the reduction
 * of packed elements (predefined ops on derived types, user ops on
 * contiguous and non-contiguous types).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "coll/coll.h"

/* The predefined types only the MPI interface names (defined in src/dt). */
extern struct ump_dt ump_dt_aint, ump_dt_count, ump_dt_offset;

static const ump_redop_t all_ops[] = {UMP_OP_MAX,     UMP_OP_MIN,  UMP_OP_SUM,    UMP_OP_PROD,
                                      UMP_OP_LAND,    UMP_OP_BAND, UMP_OP_LOR,    UMP_OP_BOR,
                                      UMP_OP_LXOR,    UMP_OP_BXOR, UMP_OP_MAXLOC, UMP_OP_MINLOC,
                                      UMP_OP_REPLACE, UMP_OP_NO_OP};

static int applies(ump_redop_t op, ump_dt_t dt)
{
    ump_coll_red_t r;
    int rc = ump_coll_red_prepare(&r, op, dt);
    assert_true(rc == UMP_OK || rc == UMP_ERR_OP);
    /* The public check agrees (it goes through the cache). */
    assert_int_equal(ump_redop_check(op, dt), rc);
    return rc == UMP_OK;
}

static void test_table(void **state)
{
    /* C integers: everything but the pair ops. */
    ump_dt_t ints[] = {UMP_INT,           UMP_SHORT,    UMP_LONG,   UMP_LONG_LONG, UMP_SIGNED_CHAR,
                       UMP_UNSIGNED_CHAR, UMP_UNSIGNED, UMP_UINT64, UMP_INT8};
    for (size_t t = 0; t < sizeof(ints) / sizeof(ints[0]); t++)
        for (size_t k = 0; k < sizeof(all_ops) / sizeof(all_ops[0]); k++)
            assert_int_equal(applies(all_ops[k], ints[t]),
                             all_ops[k] != UMP_OP_MAXLOC && all_ops[k] != UMP_OP_MINLOC);
    /* Floating point: MAX MIN SUM PROD. */
    ump_dt_t fl[] = {UMP_FLOAT, UMP_DOUBLE, UMP_LONG_DOUBLE};
    for (size_t t = 0; t < 3; t++) {
        assert_true(applies(UMP_OP_MAX, fl[t]) && applies(UMP_OP_SUM, fl[t]) &&
                    applies(UMP_OP_PROD, fl[t]));
        assert_false(applies(UMP_OP_BAND, fl[t]) || applies(UMP_OP_LAND, fl[t]) ||
                     applies(UMP_OP_MAXLOC, fl[t]));
    }
    /* Complex: SUM PROD only. */
    assert_true(applies(UMP_OP_SUM, UMP_C_DOUBLE_COMPLEX) &&
                applies(UMP_OP_PROD, UMP_C_FLOAT_COMPLEX));
    assert_false(applies(UMP_OP_MAX, UMP_C_DOUBLE_COMPLEX) ||
                 applies(UMP_OP_LOR, UMP_C_DOUBLE_COMPLEX));
    /* Logical: LAND LOR LXOR. */
    assert_true(applies(UMP_OP_LAND, UMP_C_BOOL) && applies(UMP_OP_LXOR, UMP_C_BOOL));
    assert_false(applies(UMP_OP_SUM, UMP_C_BOOL) || applies(UMP_OP_BAND, UMP_C_BOOL));
    /* Byte: bitwise only. */
    assert_true(applies(UMP_OP_BAND, UMP_BYTE) && applies(UMP_OP_BXOR, UMP_BYTE));
    assert_false(applies(UMP_OP_SUM, UMP_BYTE) || applies(UMP_OP_MAX, UMP_BYTE) ||
                 applies(UMP_OP_LAND, UMP_BYTE));
    /* Multi-language types: C integers, the logical ops included. */
    assert_true(applies(UMP_OP_SUM, &ump_dt_aint) && applies(UMP_OP_BOR, &ump_dt_offset) &&
                applies(UMP_OP_MIN, &ump_dt_count));
    assert_true(applies(UMP_OP_LAND, &ump_dt_aint) && applies(UMP_OP_LOR, &ump_dt_offset) &&
                applies(UMP_OP_LXOR, &ump_dt_count));
    /* Characters: no arithmetic. */
    assert_false(applies(UMP_OP_SUM, UMP_CHAR) || applies(UMP_OP_MAX, UMP_WCHAR));
    assert_true(applies(UMP_OP_REPLACE, UMP_CHAR));
    /* Pairs: MAXLOC MINLOC. */
    ump_dt_t pairs[] = {UMP_FLOAT_INT, UMP_DOUBLE_INT, UMP_LONG_INT,
                        UMP_2INT,      UMP_SHORT_INT,  UMP_LONG_DOUBLE_INT};
    for (size_t t = 0; t < 6; t++) {
        assert_true(applies(UMP_OP_MAXLOC, pairs[t]) && applies(UMP_OP_MINLOC, pairs[t]));
        assert_false(applies(UMP_OP_SUM, pairs[t]) || applies(UMP_OP_MAX, pairs[t]));
    }
}

static void test_derived(void **state)
{
    struct ump_dt *c4, *vec, *st;
    assert_int_equal(ump_dt_contiguous(4, UMP_INT, &c4), UMP_OK);
    assert_int_equal(ump_dt_commit(c4), UMP_OK);
    assert_int_equal(ump_dt_vector(3, 1, 2, UMP_DOUBLE, &vec), UMP_OK);
    assert_int_equal(ump_dt_commit(vec), UMP_OK);
    int bl[2] = {1, 1};
    ptrdiff_t disp[2] = {0, 8};
    ump_dt_t tys[2] = {UMP_INT, UMP_DOUBLE};
    assert_int_equal(ump_dt_struct(2, bl, disp, tys, &st), UMP_OK);
    assert_int_equal(ump_dt_commit(st), UMP_OK);

    /* Homogeneous types take the ops of their basic type. */
    assert_true(applies(UMP_OP_BAND, c4) && applies(UMP_OP_SUM, c4));
    assert_true(applies(UMP_OP_SUM, vec) && !applies(UMP_OP_BAND, vec));
    assert_false(applies(UMP_OP_SUM, st));

    /* SUM over packed elements of the vector (3 doubles each). */
    ump_coll_red_t r;
    assert_int_equal(ump_coll_red_prepare(&r, UMP_OP_SUM, vec), UMP_OK);
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
    ump_coll_red_apply(&r, a, b, 2);
    for (int i = 0; i < 6; i++)
        assert_true(b[i] == 11 * (i + 1));
    ump_dt_free(&c4);
    ump_dt_free(&vec);
    ump_dt_free(&st);
}

/* inout = in - inout: not commutative, shows the operand order. Works on
 * UMP_INT and on vector(2, 1, 2, UMP_INT) in its layout (ints 0 and 2 of
 * every 3). */
static int calls;
static void sub(const void *in, void *io, size_t len, ump_dt_t dt, void *arg)
{
    const int *a = in;
    int *b = io;
    assert_ptr_equal(arg, &calls);
    calls++;
    if (dt == UMP_INT) {
        for (size_t i = 0; i < len; i++)
            b[i] = a[i] - b[i];
        return;
    }
    for (size_t e = 0; e < len; e++)
        for (size_t k = 0; k <= 2; k += 2)
            b[3 * e + k] = a[3 * e + k] - b[3 * e + k];
}

static int freed;
static void free_arg(void *arg)
{
    assert_ptr_equal(arg, &calls);
    freed++;
}

static void test_user(void **state)
{
    ump_redop_t op;
    assert_int_equal(ump_redop_create(sub, 0, &calls, free_arg, &op), UMP_OK);
    assert_int_equal(ump_redop_commutative(op), 0);
    ump_coll_red_t r;
    assert_int_equal(ump_coll_red_prepare(&r, op, UMP_INT), UMP_OK);
    int a[3] = {10, 20, 30}, b[3] = {1, 2, 3};
    ump_coll_red_apply(&r, a, b, 3);
    assert_int_equal(b[0], 9);
    assert_int_equal(b[2], 27);

    /* A non-contiguous type: the user function sees the type's layout. */
    struct ump_dt *vec;
    assert_int_equal(ump_dt_vector(2, 1, 2, UMP_INT, &vec), UMP_OK);
    assert_int_equal(ump_dt_commit(vec), UMP_OK);
    assert_int_equal(ump_coll_red_prepare(&r, op, vec), UMP_OK);
    assert_false(r.user_contig);
    /* Packed: 2 elements of 2 ints. */
    int pa[4] = {100, 200, 300, 400}, pb[4] = {1, 2, 3, 4};
    ump_coll_red_apply(&r, pa, pb, 2);
    assert_int_equal(pb[0], 99);
    assert_int_equal(pb[1], 198);
    assert_int_equal(pb[2], 297);
    assert_int_equal(pb[3], 396);
    ump_dt_free(&vec);

    /* A running collective's reference keeps the op (and its arg) past
     * ump_redop_free; the last release calls free_arg once. */
    ump_coll_op_retain(op);
    ump_redop_t keep = op;
    assert_int_equal(ump_redop_free(&op), UMP_OK);
    assert_null(op);
    assert_int_equal(freed, 0);
    ump_coll_op_release(keep);
    assert_int_equal(freed, 1);
    assert_true(calls >= 2);
}

/* ump_reduce_local: predefined ops on contiguous and strided types, and
 * UMP_ERR_OP where the op does not apply. */
static void test_local(void **state)
{
    double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    assert_int_equal(ump_reduce_local(x, y, 4, UMP_DOUBLE, UMP_OP_SUM), UMP_OK);
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == 11 * (i + 1));
    assert_int_equal(ump_reduce_local(x, y, 4, UMP_DOUBLE, UMP_OP_BAND), UMP_ERR_OP);
    struct ump_dt *vec;
    assert_int_equal(ump_dt_vector(2, 1, 2, UMP_INT, &vec), UMP_OK);
    assert_int_equal(ump_dt_commit(vec), UMP_OK);
    int p[3] = {5, -1, 7}, q[3] = {6, 99, 2};
    assert_int_equal(ump_reduce_local(p, q, 1, vec, UMP_OP_MAX), UMP_OK);
    assert_int_equal(q[0], 6);
    assert_int_equal(q[1], 99); /* not part of the type: untouched */
    assert_int_equal(q[2], 7);
    ump_dt_free(&vec);
    assert_int_equal(ump_redop_check(NULL, UMP_INT), UMP_ERR_OP);
    assert_int_equal(ump_redop_commutative(UMP_OP_SUM), 1);
    ump_redop_t pre = UMP_OP_SUM;
    assert_int_equal(ump_redop_free(&pre), UMP_ERR_OP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_user),
        cmocka_unit_test(test_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
