/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the (op, datatype) mapping of src/coll: which predefined op
 * applies to which MPI type (MPI 3.1 §5.9.2), derived types made of one
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

static const MPI_Op all_ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                 MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                 MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};

static int applies(MPI_Op op, MPI_Datatype dt)
{
    ump_coll_red_t r;
    int rc = ump_coll_red_prepare(&r, op, dt);
    assert_true(rc == MPI_SUCCESS || rc == MPI_ERR_OP);
    return rc == MPI_SUCCESS;
}

static void test_table(void **state)
{
    /* C integers: everything but the pair ops. */
    MPI_Datatype ints[] = {MPI_INT,       MPI_SHORT,       MPI_LONG,
                           MPI_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
                           MPI_UNSIGNED,  MPI_UINT64_T,    MPI_INT8_T};
    for (size_t t = 0; t < sizeof(ints) / sizeof(ints[0]); t++)
        for (size_t k = 0; k < sizeof(all_ops) / sizeof(all_ops[0]); k++)
            assert_int_equal(applies(all_ops[k], ints[t]),
                             all_ops[k] != MPI_MAXLOC && all_ops[k] != MPI_MINLOC);
    /* Floating point: MAX MIN SUM PROD. */
    MPI_Datatype fl[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    for (size_t t = 0; t < 3; t++) {
        assert_true(applies(MPI_MAX, fl[t]) && applies(MPI_SUM, fl[t]) && applies(MPI_PROD, fl[t]));
        assert_false(applies(MPI_BAND, fl[t]) || applies(MPI_LAND, fl[t]) ||
                     applies(MPI_MAXLOC, fl[t]));
    }
    /* Complex: SUM PROD only. */
    assert_true(applies(MPI_SUM, MPI_C_DOUBLE_COMPLEX) && applies(MPI_PROD, MPI_C_FLOAT_COMPLEX));
    assert_false(applies(MPI_MAX, MPI_C_DOUBLE_COMPLEX) || applies(MPI_LOR, MPI_C_DOUBLE_COMPLEX));
    /* Logical: LAND LOR LXOR. */
    assert_true(applies(MPI_LAND, MPI_C_BOOL) && applies(MPI_LXOR, MPI_C_BOOL));
    assert_false(applies(MPI_SUM, MPI_C_BOOL) || applies(MPI_BAND, MPI_C_BOOL));
    /* Byte: bitwise only. */
    assert_true(applies(MPI_BAND, MPI_BYTE) && applies(MPI_BXOR, MPI_BYTE));
    assert_false(applies(MPI_SUM, MPI_BYTE) || applies(MPI_MAX, MPI_BYTE) ||
                 applies(MPI_LAND, MPI_BYTE));
    /* Multi-language types: not the logical ops. */
    assert_true(applies(MPI_SUM, MPI_AINT) && applies(MPI_BOR, MPI_OFFSET) &&
                applies(MPI_MIN, MPI_COUNT));
    assert_false(applies(MPI_LAND, MPI_AINT));
    /* Characters: no arithmetic. */
    assert_false(applies(MPI_SUM, MPI_CHAR) || applies(MPI_MAX, MPI_WCHAR));
    assert_true(applies(MPI_REPLACE, MPI_CHAR));
    /* Pairs: MAXLOC MINLOC. */
    MPI_Datatype pairs[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
                            MPI_2INT,      MPI_SHORT_INT,  MPI_LONG_DOUBLE_INT};
    for (size_t t = 0; t < 6; t++) {
        assert_true(applies(MPI_MAXLOC, pairs[t]) && applies(MPI_MINLOC, pairs[t]));
        assert_false(applies(MPI_SUM, pairs[t]) || applies(MPI_MAX, pairs[t]));
    }
}

static void test_derived(void **state)
{
    struct ump_dt *c4, *vec, *st;
    assert_int_equal(ump_dt_contiguous(4, MPI_INT, &c4), UMP_OK);
    assert_int_equal(ump_dt_commit(c4), UMP_OK);
    assert_int_equal(ump_dt_vector(3, 1, 2, MPI_DOUBLE, &vec), UMP_OK);
    assert_int_equal(ump_dt_commit(vec), UMP_OK);
    int bl[2] = {1, 1};
    ptrdiff_t disp[2] = {0, 8};
    ump_dt_t tys[2] = {MPI_INT, MPI_DOUBLE};
    assert_int_equal(ump_dt_struct(2, bl, disp, tys, &st), UMP_OK);
    assert_int_equal(ump_dt_commit(st), UMP_OK);

    /* Homogeneous types take the ops of their basic type. */
    assert_true(applies(MPI_BAND, c4) && applies(MPI_SUM, c4));
    assert_true(applies(MPI_SUM, vec) && !applies(MPI_BAND, vec));
    assert_false(applies(MPI_SUM, st));

    /* SUM over packed elements of the vector (3 doubles each). */
    ump_coll_red_t r;
    assert_int_equal(ump_coll_red_prepare(&r, MPI_SUM, vec), MPI_SUCCESS);
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
    ump_coll_red_apply(&r, a, b, 2);
    for (int i = 0; i < 6; i++)
        assert_true(b[i] == 11 * (i + 1));
    ump_dt_free(&c4);
    ump_dt_free(&vec);
    ump_dt_free(&st);
}

/* inout = in - inout: not commutative, shows the operand order. Works on
 * MPI_INT and on vector(2, 1, 2, MPI_INT) in its layout (ints 0 and 2 of
 * every 3). */
static void sub(void *in, void *io, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = io;
    if (*dt == MPI_INT) {
        for (int i = 0; i < *len; i++)
            b[i] = a[i] - b[i];
        return;
    }
    for (int e = 0; e < *len; e++)
        for (int k = 0; k <= 2; k += 2)
            b[3 * e + k] = a[3 * e + k] - b[3 * e + k];
}

static void test_user(void **state)
{
    struct ump_mpi_op op = {
        .magic = UMP_MPI_MAGIC_OP, .commutative = false, .refcount = 1, .user_fn = sub};
    ump_coll_red_t r;
    assert_int_equal(ump_coll_red_prepare(&r, &op, MPI_INT), MPI_SUCCESS);
    int a[3] = {10, 20, 30}, b[3] = {1, 2, 3};
    ump_coll_red_apply(&r, a, b, 3);
    assert_int_equal(b[0], 9);
    assert_int_equal(b[2], 27);

    /* A non-contiguous type: the user function sees the type's layout. */
    struct ump_dt *vec;
    assert_int_equal(ump_dt_vector(2, 1, 2, MPI_INT, &vec), UMP_OK);
    assert_int_equal(ump_dt_commit(vec), UMP_OK);
    assert_int_equal(ump_coll_red_prepare(&r, &op, vec), MPI_SUCCESS);
    assert_false(r.user_contig);
    /* Packed: 2 elements of 2 ints. */
    int pa[4] = {100, 200, 300, 400}, pb[4] = {1, 2, 3, 4};
    ump_coll_red_apply(&r, pa, pb, 2);
    assert_int_equal(pb[0], 99);
    assert_int_equal(pb[1], 198);
    assert_int_equal(pb[2], 297);
    assert_int_equal(pb[3], 396);
    ump_dt_free(&vec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
