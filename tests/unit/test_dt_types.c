/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatypes with known answers: extents and sizes from MPI 3.1's rules and
 * examples, pair types, merging, signatures, reference counting, the MPI
 * datatype functions (arguments, envelope/contents, names, element counts,
 * pack/unpack) and a timing of seed 002's vector test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "dt/dt.h"
#include "mpi.h"
#include "mpi/mpi_impl.h"

/* The rest of the MPI layer may not be linked in: reach it weakly. */
#pragma weak MPI_Init
#pragma weak MPI_Finalize
#pragma weak MPI_Comm_set_errhandler
#pragma weak ump_mpi_comm_world
#pragma weak ump_mpi_errors_return

#define MK(t, call)                                                                                \
    do {                                                                                           \
        t = NULL;                                                                                  \
        assert_int_equal((call), UMP_OK);                                                          \
        assert_non_null(t);                                                                        \
    } while (0)

static void test_struct_padding(void **state)
{
    (void)state;
    /* struct {char c; double d;}: size 9, extent 16 as the C struct */
    struct cd {
        char c;
        double d;
    };
    int bl[2] = {1, 1};
    ptrdiff_t d[2] = {offsetof(struct cd, c), offsetof(struct cd, d)};
    ump_dt_t ty[2] = {MPI_CHAR, MPI_DOUBLE};
    struct ump_dt *t = NULL;
    MK(t, ump_dt_struct(2, bl, d, ty, &t));
    assert_int_equal(t->size, 9);
    assert_int_equal(ump_dt_lb(t), 0);
    assert_int_equal(ump_dt_extent(t), sizeof(struct cd));
    assert_int_equal(ump_dt_true_extent(t), sizeof(struct cd));
    assert_false(t->contiguous);
    assert_int_equal(t->nblocks, 2);
    /* {double d; char c;}: the padding is after c */
    ptrdiff_t d2[2] = {8, 0};
    struct ump_dt *u = NULL;
    MK(u, ump_dt_struct(2, bl, d2, ty, &u));
    assert_int_equal(ump_dt_extent(u), 16);
    assert_int_equal(ump_dt_true_extent(u), 9);
    assert_int_equal(u->nblocks, 2); /* c (at 8) comes first in the stream: no merge */
    ump_dt_unref(t);
    ump_dt_unref(u);
    /* a struct of packed fields is contiguous */
    int bl3[3] = {2, 1, 1};
    ptrdiff_t d3[3] = {0, 8, 12};
    ump_dt_t ty3[3] = {MPI_INT, MPI_INT, MPI_FLOAT};
    struct ump_dt *p = NULL;
    MK(p, ump_dt_struct(3, bl3, d3, ty3, &p));
    assert_true(p->contiguous);
    assert_int_equal(p->dl->kind, UMP_DL_LEAF);
    ump_dt_unref(p);
}

static void test_known_extents(void **state)
{
    (void)state;
    struct ump_dt *t = NULL;
    /* vector(3, 2, 4, int): blocks at 0, 16, 32 of 8 bytes */
    MK(t, ump_dt_vector(3, 2, 4, MPI_INT, &t));
    assert_int_equal(t->size, 24);
    assert_int_equal(ump_dt_lb(t), 0);
    assert_int_equal(ump_dt_extent(t), 40);
    assert_int_equal(t->nblocks, 3);
    assert_int_equal(t->min_blk, 8);
    assert_int_equal(t->median_blk, 8);
    ump_dt_unref(t);
    /* negative stride: elements at 0, -8, -16 */
    MK(t, ump_dt_vector(3, 1, -2, MPI_INT, &t));
    assert_int_equal(ump_dt_lb(t), -16);
    assert_int_equal(ump_dt_extent(t), 20);
    assert_int_equal(ump_dt_true_lb(t), -16);
    ump_dt_unref(t);
    /* resized: explicit bounds win, true extent unchanged */
    MK(t, ump_dt_resized(MPI_INT, -4, 12, &t));
    assert_int_equal(ump_dt_lb(t), -4);
    assert_int_equal(ump_dt_extent(t), 12);
    assert_int_equal(ump_dt_true_lb(t), 0);
    assert_int_equal(ump_dt_true_extent(t), 4);
    assert_false(t->contiguous);
    /* a vector of it steps by 12; the markers stay sticky */
    struct ump_dt *v = NULL;
    MK(v, ump_dt_contiguous(3, t, &v));
    assert_int_equal(ump_dt_lb(v), -4);
    assert_int_equal(ump_dt_extent(v), 36);
    assert_int_equal(ump_dt_true_extent(v), 28);
    ump_dt_unref(v);
    ump_dt_unref(t);
    /* zero counts */
    MK(t, ump_dt_contiguous(0, MPI_DOUBLE, &t));
    assert_int_equal(t->size, 0);
    assert_int_equal(ump_dt_extent(t), 0);
    assert_true(t->contiguous);
    ump_dt_unref(t);
    /* hindexed with a hole and out-of-order blocks */
    int bl[2] = {1, 2};
    ptrdiff_t d[2] = {20, -4};
    MK(t, ump_dt_hindexed(2, bl, d, MPI_INT, &t));
    assert_int_equal(ump_dt_lb(t), -4);
    assert_int_equal(ump_dt_extent(t), 28);
    assert_int_equal(t->size, 12);
    assert_int_equal(t->nblocks, 2);
    ump_dt_unref(t);
    /* subarray (MPI 3.1 §4.1.3 style): 100x100 doubles, 10x20 from (5,10) */
    int sizes[2] = {100, 100}, sub[2] = {10, 20}, starts[2] = {5, 10};
    MK(t, ump_dt_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t));
    assert_int_equal(t->size, 10 * 20 * 8);
    assert_int_equal(ump_dt_lb(t), 0);
    assert_int_equal(ump_dt_extent(t), 100 * 100 * 8);
    assert_int_equal(ump_dt_true_lb(t), (5 * 100 + 10) * 8);
    assert_int_equal(ump_dt_true_extent(t), ((14 * 100 + 29) - (5 * 100 + 10) + 1) * 8);
    assert_int_equal(t->nblocks, 10);
    assert_int_equal(t->median_blk, 160);
    ump_dt_unref(t);
    /* Fortran order: the first index runs fastest */
    MK(t, ump_dt_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    assert_int_equal(ump_dt_true_lb(t), (10 * 100 + 5) * 8);
    assert_int_equal(t->nblocks, 20);
    ump_dt_unref(t);
    /* darray: 8 ints in blocks over 2 processes, rank 1 holds 4..7 */
    int g[1] = {8}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG},
        ps[1] = {2};
    MK(t, ump_dt_darray(2, 1, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    assert_int_equal(t->size, 16);
    assert_int_equal(ump_dt_lb(t), 0);
    assert_int_equal(ump_dt_extent(t), 32);
    assert_int_equal(ump_dt_true_lb(t), 16);
    ump_dt_unref(t);
    /* cyclic(2) of 10 over 3: rank 1 holds 2,3 and 8,9 */
    int g2[1] = {10}, dist2[1] = {MPI_DISTRIBUTE_CYCLIC}, darg2[1] = {2}, ps2[1] = {3};
    MK(t, ump_dt_darray(3, 1, 1, g2, dist2, darg2, ps2, MPI_ORDER_C, MPI_INT, &t));
    assert_int_equal(t->size, 16);
    assert_int_equal(ump_dt_true_lb(t), 8);
    assert_int_equal(ump_dt_true_extent(t), 32);
    assert_int_equal(ump_dt_extent(t), 40);
    ump_dt_unref(t);
    /* bad darray / subarray arguments */
    assert_int_equal(ump_dt_darray(3, 3, 1, g2, dist2, darg2, ps2, MPI_ORDER_C, MPI_INT, &t),
                     UMP_ERR_INVALID);
    int bad[2] = {95, 10};
    assert_int_equal(ump_dt_subarray(2, sizes, sub, bad, MPI_ORDER_C, MPI_DOUBLE, &t),
                     UMP_ERR_INVALID);
    assert_int_equal(ump_dt_contiguous(-1, MPI_INT, &t), UMP_ERR_COUNT);
    assert_int_equal(ump_dt_contiguous(1, NULL, &t), UMP_ERR_DATATYPE);
}

static void test_pairs_and_predefined(void **state)
{
    (void)state;
    struct di {
        double d;
        int i;
    };
    struct si {
        short s;
        int i;
    };
    assert_int_equal(MPI_DOUBLE_INT->size, 12);
    assert_int_equal(ump_dt_extent(MPI_DOUBLE_INT), sizeof(struct di));
    assert_false(MPI_DOUBLE_INT->contiguous);
    assert_int_equal(MPI_SHORT_INT->size, 6);
    assert_int_equal(ump_dt_extent(MPI_SHORT_INT), sizeof(struct si));
    assert_int_equal(MPI_SHORT_INT->nblocks, 2);
    assert_true(MPI_2INT->contiguous);
    assert_true(MPI_FLOAT_INT->contiguous);
    assert_int_equal(ump_dt_basic_kind(MPI_2INT), UMP_DT_2INT);
    assert_int_equal(ump_dt_basic_kind(MPI_INT), UMP_DT_INT32);
    assert_int_equal(ump_dt_basic_kind(MPI_UNSIGNED_LONG), UMP_DT_UINT64);
    assert_int_equal(ump_dt_basic_kind(MPI_C_BOOL), UMP_DT_C_BOOL);
    assert_int_equal(ump_dt_kind_size(UMP_DT_LONG_DOUBLE_INT), ump_dt_extent(MPI_LONG_DOUBLE_INT));
    /* the engine names predefined types by ump.h's constants; the MPI
     * layer by MPI's (test_names) */
    assert_string_equal(ump_dt_name(MPI_INT), "UMP_INT");
    assert_string_equal(ump_dt_name(UMP_LONG_DOUBLE_INT), "UMP_LONG_DOUBLE_INT");
    assert_string_equal(ump_dt_name(MPI_AINT), "UMP_AINT");
    assert_true(UMP_BYTE == (ump_dt_t)MPI_BYTE);
    assert_true(MPI_BYTE->contiguous && MPI_BYTE->size == 1);
    /* pack of pairs skips the padding */
    struct si a[2] = {{1, 2}, {3, 4}};
    char out[12];
    assert_int_equal(ump_dt_pack(a, 2, MPI_SHORT_INT, 0, out, 12), UMP_OK);
    short s;
    int i;
    memcpy(&s, out + 6, 2);
    memcpy(&i, out + 8, 4);
    assert_int_equal(s, 3);
    assert_int_equal(i, 4);
    /* elements: a pair is two basic elements */
    assert_int_equal(ump_dt_elements(MPI_SHORT_INT, 8), 3);
    assert_int_equal(ump_dt_elements(MPI_SHORT_INT, 7), -1);
    assert_int_equal(ump_dt_elements_bytes(MPI_DOUBLE_INT, 3), 20);
}

static void test_merging(void **state)
{
    (void)state;
    struct ump_dt *t = NULL, *u = NULL;
    /* vector of contiguous ints whose stride equals the block: contiguous */
    MK(t, ump_dt_vector(8, 3, 3, MPI_INT, &t));
    assert_true(t->contiguous);
    assert_true(ump_dt_is_contig(t));
    assert_int_equal(t->nblocks, 1);
    assert_int_equal(t->dl->kind, UMP_DL_LEAF);
    size_t bytes = 0;
    assert_int_equal(ump_dt_bytes(t, 2, &bytes), UMP_OK);
    assert_int_equal(bytes, 192);
    /* a contiguous of it, and an indexed of touching blocks, stay one run */
    MK(u, ump_dt_contiguous(4, t, &u));
    assert_true(u->contiguous);
    ump_dt_unref(u);
    int bl[3] = {2, 1, 4}, d[3] = {0, 2, 3};
    MK(u, ump_dt_indexed(3, bl, d, MPI_INT, &u));
    assert_true(u->contiguous);
    ump_dt_unref(u);
    /* shifted: one run but not at buf: is_contig, not contiguous for the core */
    int d2[3] = {5, 7, 8};
    MK(u, ump_dt_indexed(3, bl, d2, MPI_INT, &u));
    assert_true(ump_dt_is_contig(u));
    assert_false(u->contiguous);
    assert_int_equal(ump_dt_true_lb(u), 20);
    assert_int_equal(ump_dt_bytes(u, 1, &bytes), UMP_ERR_UNSUPPORTED);
    ump_dt_unref(u);
    ump_dt_unref(t);
    /* a vector with gaps is not contiguous; its layout is one vector node */
    MK(t, ump_dt_vector(128, 1, 4096, MPI_INT, &t));
    assert_false(ump_dt_is_contig(t));
    assert_int_equal(t->dl->kind, UMP_DL_VEC);
    assert_int_equal(t->dl->child->kind, UMP_DL_LEAF);
    assert_int_equal(t->nblocks, 128);
    ump_dt_unref(t);
}

static void test_signature(void **state)
{
    (void)state;
    struct ump_dt *a = NULL, *b = NULL, *c = NULL;
    MK(a, ump_dt_vector(4, 2, 8, MPI_INT, &a));
    MK(b, ump_dt_contiguous(8, MPI_INT, &b));
    assert_true(ump_dt_sig(a, 3) == ump_dt_sig(b, 3));
    assert_true(ump_dt_sig(a, 3) == ump_dt_sig(MPI_INT, 24));
    assert_true(ump_dt_sig(a, 3) != ump_dt_sig(MPI_INT, 23));
    assert_true(ump_dt_sig(a, 1) != ump_dt_sig(MPI_FLOAT, 8));
    ump_dt_unref(a);
    ump_dt_unref(b);
    /* {int, double} x 2 versus {double, int} x 2 */
    int bl[2] = {1, 1};
    ptrdiff_t d[2] = {0, 8};
    ump_dt_t t1[2] = {MPI_INT, MPI_DOUBLE}, t2[2] = {MPI_DOUBLE, MPI_INT};
    MK(a, ump_dt_struct(2, bl, d, t1, &a));
    MK(b, ump_dt_struct(2, bl, d, t2, &b));
    assert_true(ump_dt_sig(a, 2) != ump_dt_sig(b, 2));
    /* the same signature through a resized contiguous of a dup */
    struct ump_dt *e = NULL;
    MK(e, ump_dt_dup(a, &e));
    MK(c, ump_dt_resized(e, 0, 64, &c));
    assert_true(ump_dt_sig(c, 2) == ump_dt_sig(a, 2));
    ump_dt_unref(e);
    ump_dt_unref(c);
    /* MPI_DOUBLE_INT is {double, int} */
    ump_dt_t t3[2] = {MPI_DOUBLE, MPI_INT};
    MK(c, ump_dt_struct(2, bl, d, t3, &c));
    assert_true(ump_dt_sig(c, 5) == ump_dt_sig(MPI_DOUBLE_INT, 5));
    ump_dt_unref(a);
    ump_dt_unref(b);
    ump_dt_unref(c);
}

static void test_big_counts(void **state)
{
    (void)state;
    struct ump_dt *a = NULL, *b = NULL;
    MK(a, ump_dt_contiguous(1 << 20, MPI_INT, &a));
    MK(b, ump_dt_vector(1 << 12, 1, 2, a, &b)); /* 16 GiB of data, 32 GiB extent */
    assert_int_equal(b->size, (size_t)1 << 34);
    assert_int_equal(ump_dt_extent(b), ((ptrdiff_t)((1 << 13) - 1)) << 22);
    size_t bytes = 0;
    assert_int_equal(ump_dt_bytes(a, 1 << 13, &bytes), UMP_OK);
    assert_int_equal(bytes, (size_t)1 << 35);
    assert_int_equal(ump_dt_elements(b, (size_t)1 << 34), (long long)1 << 32);
    assert_int_equal(ump_dt_elements_bytes(b, (size_t)3 << 30), (long long)3 << 32);
    ump_dt_unref(a);
    ump_dt_unref(b);
    /* sizes past what memory can address are refused, not wrapped */
    MK(a, ump_dt_contiguous(0x7fffffff, MPI_CHAR, &a));
    MK(b, ump_dt_contiguous(0x7fffffff, a, &b));
    struct ump_dt *c = NULL;
    assert_int_equal(ump_dt_contiguous(0x7fffffff, b, &c), UMP_ERR_COUNT);
    assert_null(c);
    ump_dt_unref(a);
    ump_dt_unref(b);
    /* nesting deeper than the cursor walks is refused */
    struct ump_dt *cur = MPI_INT, *next = NULL;
    int rc = UMP_OK, levels = 0;
    for (; levels < 40; levels++) {
        rc = ump_dt_vector(2, 1, 2, cur, &next);
        if (rc != UMP_OK) break;
        ump_dt_unref(cur);
        cur = next;
    }
    assert_int_equal(rc, UMP_ERR_UNSUPPORTED);
    assert_int_equal(levels, UMP_DT_MAX_DEPTH);
    assert_int_equal(cur->depth, UMP_DT_MAX_DEPTH);
    ump_dt_unref(cur);
}

static void test_refcount(void **state)
{
    (void)state;
    /* free the inner types while a derived type still uses them */
    struct ump_dt *in = NULL, *mid = NULL, *out = NULL;
    MK(in, ump_dt_vector(2, 1, 3, MPI_INT, &in));
    MK(mid, ump_dt_resized(in, 0, 24, &mid));
    MK(out, ump_dt_contiguous(2, mid, &out));
    assert_int_equal(ump_dt_free(&in), UMP_OK);
    assert_null(in);
    assert_int_equal(ump_dt_free(&mid), UMP_OK);
    assert_int_equal(ump_dt_commit(out), UMP_OK);
    ump_dt_ref(out); /* an operation in flight */
    struct ump_dt *keep = out;
    assert_int_equal(ump_dt_free(&out), UMP_OK);
    int buf[12];
    for (int k = 0; k < 12; k++)
        buf[k] = k;
    int packed[4];
    assert_int_equal(ump_dt_pack(buf, 1, keep, 0, packed, 16), UMP_OK);
    assert_int_equal(packed[0], 0);
    assert_int_equal(packed[1], 3);
    assert_int_equal(packed[2], 6);
    assert_int_equal(packed[3], 9);
    ump_dt_unref(keep);
    /* predefined types are never freed */
    struct ump_dt *p = MPI_INT;
    assert_int_equal(ump_dt_free(&p), UMP_ERR_DATATYPE);
    assert_true(p == MPI_INT);
}

static void test_contents(void **state)
{
    (void)state;
    struct ump_dt *t = NULL;
    int bl[3] = {1, 2, 3}, d[3] = {9, 4, 0};
    MK(t, ump_dt_indexed(3, bl, d, MPI_SHORT, &t));
    int ni, na, nd, comb;
    ump_dt_envelope(t, &ni, &na, &nd, &comb);
    assert_int_equal(comb, MPI_COMBINER_INDEXED);
    assert_int_equal(ni, 7);
    assert_int_equal(na, 0);
    assert_int_equal(nd, 1);
    int ints[7];
    struct ump_dt *types[1];
    assert_int_equal(ump_dt_contents(t, 7, 0, 1, ints, NULL, types), UMP_OK);
    assert_int_equal(ints[0], 3);
    assert_int_equal(ints[3], 3);
    assert_int_equal(ints[4], 9);
    assert_true(types[0] == MPI_SHORT);
    assert_int_equal(ump_dt_contents(t, 6, 0, 1, ints, NULL, types), UMP_ERR_INVALID);
    ump_dt_envelope(MPI_INT, &ni, &na, &nd, &comb);
    assert_int_equal(comb, MPI_COMBINER_NAMED);
    /* a derived type returned by contents carries a reference for the caller */
    struct ump_dt *r = NULL;
    MK(r, ump_dt_resized(t, 0, 100, &r));
    ump_dt_envelope(r, &ni, &na, &nd, &comb);
    assert_int_equal(comb, MPI_COMBINER_RESIZED);
    ptrdiff_t a[2];
    assert_int_equal(ump_dt_contents(r, 0, 2, 1, NULL, a, types), UMP_OK);
    assert_int_equal(a[1], 100);
    assert_true(types[0] == t);
    /* freeing the returned handle leaves the user's own handle valid */
    struct ump_dt *h = types[0];
    assert_int_equal(ump_dt_free(&h), UMP_OK);
    assert_false(t->user_freed);
    assert_int_equal(ump_dt_contents(r, 0, 2, 1, NULL, a, types), UMP_OK);
    assert_int_equal(ump_dt_free(&t), UMP_OK);
    assert_false(types[0]->user_freed); /* one handle left */
    t = types[0];
    assert_int_equal(ump_dt_free(&t), UMP_OK);
    assert_true(types[0]->user_freed); /* alive through r only */
    assert_int_equal(ump_dt_free(&types[0]), UMP_ERR_DATATYPE);
    ump_dt_unref(r); /* the last reference: ASan checks nothing leaks or dangles */
    int sz[2] = {4, 5}, sub[2] = {2, 3}, st[2] = {1, 1};
    MK(t, ump_dt_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t));
    ump_dt_envelope(t, &ni, &na, &nd, &comb);
    assert_int_equal(comb, MPI_COMBINER_SUBARRAY);
    assert_int_equal(ni, 8);
    ump_dt_unref(t);
}

/* --- through the MPI functions ---------------------------------------------- */

static int mpi_setup(void **state)
{
    (void)state;
    if (!ump_mpi_active() && MPI_Init) MPI_Init(NULL, NULL);
    if (MPI_Comm_set_errhandler) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return 0;
}

static int mpi_teardown(void **state)
{
    (void)state;
    if (MPI_Finalize && ump_mpi_active()) MPI_Finalize();
    return 0;
}

#define NEED_MPI()                                                                                 \
    do {                                                                                           \
        if (!ump_mpi_active()) {                                                                   \
            print_message("MPI could not be initialized here\n");                                  \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

static void test_mpi_args(void **state)
{
    (void)state;
    NEED_MPI();
    MPI_Datatype t = MPI_DATATYPE_NULL, p = MPI_INT;
    assert_int_equal(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    assert_int_equal(MPI_Type_vector(2, -1, 3, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_free(&p), MPI_ERR_TYPE);
    int bl[2] = {1, -2}, d[2] = {0, 4};
    assert_int_equal(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_indexed(2, NULL, d, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_contiguous(3, MPI_INT, &t), MPI_SUCCESS);
    assert_false(ump_mpi_dt_ok(t)); /* not committed yet */
    int size = 0;
    assert_int_equal(MPI_Type_size(t, &size), MPI_SUCCESS);
    assert_int_equal(size, 12);
    assert_int_equal(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_commit(&t), MPI_SUCCESS);
    assert_true(ump_mpi_dt_ok(t));
    assert_true(ump_mpi_dt_ok(MPI_DOUBLE));
    MPI_Datatype keep = t;
    assert_int_equal(MPI_Type_free(&t), MPI_SUCCESS);
    assert_true(t == MPI_DATATYPE_NULL);
    (void)keep; /* freed: must not be used again */
    assert_int_equal(MPI_Type_free(&t), MPI_ERR_TYPE);
    /* null buffers: refused unless the type reaches memory by itself */
    assert_false(ump_mpi_buf_ok(NULL, 1, MPI_INT));
    assert_true(ump_mpi_buf_ok(NULL, 0, MPI_INT));
    int x = 7;
    MPI_Aint addr;
    assert_int_equal(MPI_Get_address(&x, &addr), MPI_SUCCESS);
    int one = 1;
    assert_int_equal(MPI_Type_create_hindexed(1, &one, &addr, MPI_INT, &t), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&t), MPI_SUCCESS);
    assert_true(ump_mpi_buf_ok(MPI_BOTTOM, 1, t));
    char out[4];
    int pos = 0;
    assert_int_equal(MPI_Pack(MPI_BOTTOM, 1, t, out, 4, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 4);
    assert_memory_equal(out, &x, 4);
    assert_int_equal(MPI_Type_free(&t), MPI_SUCCESS);
    assert_true(MPI_Aint_diff(MPI_Aint_add(addr, 12), addr) == 12);
    MPI_Datatype m;
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m), MPI_SUCCESS);
    assert_true(m == MPI_DOUBLE);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m), MPI_ERR_ARG);
}

static void test_mpi_queries(void **state)
{
    (void)state;
    NEED_MPI();
    MPI_Datatype a, b;
    assert_int_equal(MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &a), MPI_SUCCESS);
    assert_int_equal(MPI_Type_contiguous(1 << 10, a, &b), MPI_SUCCESS); /* 8 GiB */
    int size;
    MPI_Count sx, lbx, extx;
    assert_int_equal(MPI_Type_size(b, &size), MPI_SUCCESS);
    assert_int_equal(size, MPI_UNDEFINED);
    assert_int_equal(MPI_Type_size_x(b, &sx), MPI_SUCCESS);
    assert_true(sx == (MPI_Count)1 << 33);
    assert_int_equal(MPI_Type_get_extent_x(b, &lbx, &extx), MPI_SUCCESS);
    assert_true(lbx == 0 && extx == (MPI_Count)1 << 33);
    assert_int_equal(MPI_Type_get_true_extent_x(b, &lbx, &extx), MPI_SUCCESS);
    assert_true(extx == (MPI_Count)1 << 33);
    MPI_Status st = {0};
    st.ump_count = (MPI_Count)1 << 33;
    MPI_Count ex;
    assert_int_equal(MPI_Get_elements_x(&st, b, &ex), MPI_SUCCESS);
    assert_true(ex == (MPI_Count)1 << 30);
    int cnt;
    assert_int_equal(MPI_Get_elements(&st, b, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, 1 << 30);
    /* The MPI 4 _c names answer the same, in MPI_Count. */
    MPI_Count c1 = 0, c2 = 0;
    assert_int_equal(MPI_Type_size_c(b, &c1), MPI_SUCCESS);
    assert_true(c1 == (MPI_Count)1 << 33);
    assert_int_equal(MPI_Type_get_extent_c(b, &c1, &c2), MPI_SUCCESS);
    assert_true(c1 == 0 && c2 == (MPI_Count)1 << 33);
    assert_int_equal(MPI_Type_get_true_extent_c(b, &c1, &c2), MPI_SUCCESS);
    assert_true(c1 == 0 && c2 == (MPI_Count)1 << 33);
    assert_int_equal(MPI_Get_elements_c(&st, b, &c1), MPI_SUCCESS);
    assert_true(c1 == (MPI_Count)1 << 30);
    assert_int_equal(MPI_Get_count_c(&st, b, &c1), MPI_SUCCESS);
    assert_true(c1 == 1);
    assert_int_equal(MPI_Get_count_c(&st, MPI_DOUBLE, &c1), MPI_SUCCESS);
    assert_true(c1 == (MPI_Count)1 << 30);
    st.ump_count = ((MPI_Count)1 << 33) + 4; /* not a whole number of doubles */
    assert_int_equal(MPI_Get_count_c(&st, MPI_DOUBLE, &c1), MPI_SUCCESS);
    assert_true(c1 == MPI_UNDEFINED);
    assert_int_equal(MPI_Get_count_c(&st, MPI_INT, &c1), MPI_SUCCESS);
    assert_true(c1 == ((MPI_Count)1 << 31) + 1); /* more than an int holds */
    assert_int_equal(MPI_Get_count(&st, MPI_INT, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &c1), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_size_c(MPI_DATATYPE_NULL, &c1), MPI_ERR_TYPE);
    st.ump_count = (MPI_Count)1 << 34; /* 2^31 doubles: too many for an int */
    assert_int_equal(MPI_Get_elements(&st, b, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_elements_c(&st, b, &c1), MPI_SUCCESS);
    assert_true(c1 == (MPI_Count)1 << 31);
    assert_int_equal(MPI_Type_free(&b), MPI_SUCCESS);
    assert_int_equal(MPI_Type_free(&a), MPI_SUCCESS);
    /* Get_count / Get_elements on a partial struct element */
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, s;
    assert_int_equal(MPI_Type_create_struct(2, bl, d, ty, &s), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&s), MPI_SUCCESS);
    st.ump_count = 20 + 12; /* one element and int + one double */
    assert_int_equal(MPI_Get_count(&st, s, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_elements(&st, s, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, 5);
    st.ump_count = 40;
    assert_int_equal(MPI_Get_count(&st, s, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, 2);
    st.ump_count = 22;
    assert_int_equal(MPI_Get_elements(&st, s, &cnt), MPI_SUCCESS);
    assert_int_equal(cnt, MPI_UNDEFINED);
    assert_int_equal(MPI_Status_set_elements(&st, s, 4), MPI_SUCCESS);
    assert_true(st.ump_count == 20 + 4);
    /* names and envelope */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    assert_int_equal(MPI_Type_get_name(MPI_FLOAT_INT, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_FLOAT_INT");
    assert_int_equal(len, 13);
    assert_int_equal(MPI_Type_get_name(MPI_LONG_LONG, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_LONG_LONG_INT");
    assert_int_equal(MPI_Type_get_name(MPI_AINT, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_AINT");
    assert_int_equal(MPI_Type_get_name((MPI_Datatype)UMP_UINT64, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_UINT64_T");
    /* every predefined type answers with its MPI name, not the engine's */
#define X(mpi, obj)                                                                                \
    assert_int_equal(MPI_Type_get_name(mpi, name, &len), MPI_SUCCESS);                             \
    assert_string_equal(name, #mpi);                                                               \
    assert_int_equal(len, (int)strlen(#mpi));
    UMP_MPI_FOREACH_DATATYPE(X)
#undef X
    /* MPI's constants pass through to the engine unchanged */
    MPI_Datatype sub;
    int gs[2] = {4, 4}, ss[2] = {2, 2}, st0[2] = {1, 1};
    assert_int_equal(MPI_Type_create_subarray(2, gs, ss, st0, MPI_ORDER_FORTRAN, MPI_INT, &sub),
                     MPI_SUCCESS);
    int sni, sna, snd, scomb, sints[8];
    MPI_Aint sa[1];
    MPI_Datatype sdt[1];
    assert_int_equal(MPI_Type_get_envelope(sub, &sni, &sna, &snd, &scomb), MPI_SUCCESS);
    assert_int_equal(scomb, MPI_COMBINER_SUBARRAY);
    assert_int_equal(MPI_Type_get_contents(sub, 8, 1, 1, sints, sa, sdt), MPI_SUCCESS);
    assert_int_equal(sints[sni - 1], MPI_ORDER_FORTRAN);
    assert_int_equal(MPI_Type_free(&sub), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(s, name, &len), MPI_SUCCESS);
    assert_int_equal(len, 0);
    assert_int_equal(MPI_Type_set_name(s, "particle"), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(s, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "particle");
    int ni, na, nd, comb;
    assert_int_equal(MPI_Type_get_envelope(s, &ni, &na, &nd, &comb), MPI_SUCCESS);
    assert_int_equal(comb, MPI_COMBINER_STRUCT);
    assert_true(ni == 3 && na == 2 && nd == 2);
    int ints[3];
    MPI_Aint addrs[2];
    MPI_Datatype types[2];
    assert_int_equal(MPI_Type_get_contents(s, 3, 2, 2, ints, addrs, types), MPI_SUCCESS);
    assert_true(types[0] == MPI_INT && types[1] == MPI_DOUBLE && addrs[1] == 8 && ints[2] == 2);
    assert_int_equal(MPI_Type_get_contents(MPI_INT, 3, 2, 2, ints, addrs, types), MPI_ERR_TYPE);
    /* pack / unpack round trip through MPI */
    struct {
        int i;
        double x[2];
    } src[3] = {{1, {1.5, 2.5}}, {2, {3.5, 4.5}}, {3, {5.5, 6.5}}}, dst[3];
    memset(dst, 0, sizeof(dst));
    char packed[64];
    int psize, pos = 0;
    assert_int_equal(MPI_Pack_size(3, s, MPI_COMM_WORLD, &psize), MPI_SUCCESS);
    assert_int_equal(psize, 60);
    assert_int_equal(MPI_Pack(src, 3, s, packed, 59, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    assert_int_equal(MPI_Pack(src, 3, s, packed, 64, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 60);
    pos = 0;
    assert_int_equal(MPI_Unpack(packed, 64, &pos, dst, 3, s, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 60);
    assert_true(dst[2].i == 3 && dst[2].x[1] == 6.5 && dst[0].x[0] == 1.5);
    assert_int_equal(MPI_Unpack(packed, 64, &pos, dst, 1, s, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    assert_int_equal(MPI_Type_free(&s), MPI_SUCCESS);
}

/* Seed 002 §3.2: x columns of a 128 x 4096 int array, x = 1..2048. */
static void test_vector_pack_rate(void **state)
{
    (void)state;
    enum { ROWS = 128, COLS = 4096 };
    int *a = malloc(sizeof(int) * ROWS * COLS), *out = malloc(sizeof(int) * ROWS * COLS);
    assert_non_null(a);
    assert_non_null(out);
    for (int k = 0; k < ROWS * COLS; k++)
        a[k] = k;
    for (int x = 1; x <= 2048; x *= 2) {
        struct ump_dt *t = NULL;
        MK(t, ump_dt_vector(ROWS, x, COLS, MPI_INT, &t));
        size_t bytes = (size_t)ROWS * x * sizeof(int);
        struct timespec t0, t1;
        int reps = 0;
        double el = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            assert_int_equal(ump_dt_pack(a, 1, t, 0, out, bytes), UMP_OK);
            reps++;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        } while (el < 0.02);
        /* spot-check the last row's last column */
        assert_int_equal(out[ROWS * x - 1], (ROWS - 1) * COLS + x - 1);
        double gbs = (double)bytes * reps / el / 1e9;
        struct timespec u0, u1;
        int ureps = 0;
        clock_gettime(CLOCK_MONOTONIC, &u0);
        do {
            assert_int_equal(ump_dt_unpack(a, 1, t, 0, out, bytes), UMP_OK);
            ureps++;
            clock_gettime(CLOCK_MONOTONIC, &u1);
            el = (double)(u1.tv_sec - u0.tv_sec) + 1e-9 * (double)(u1.tv_nsec - u0.tv_nsec);
        } while (el < 0.02);
        print_message("vector x=%4d: %8zu bytes, pack %6.2f GB/s, unpack %6.2f GB/s\n", x, bytes,
                      gbs, (double)bytes * ureps / el / 1e9);
        ump_dt_unref(t);
    }
    /* Seed 002 fig. 10: blocks of 1..x ints, each followed by a gap as
     * long as the block (an indexed type: the IDX kernel), packed in
     * 64 KiB segments through the cursor as a pipelined protocol would. */
    for (int x = 16; x <= 256; x *= 4) {
        int *bl = malloc(sizeof(int) * (size_t)x), *d = malloc(sizeof(int) * (size_t)x);
        int at = 0;
        for (int k = 0; k < x; k++) {
            bl[k] = k + 1;
            d[k] = at;
            at += 2 * (k + 1);
        }
        struct ump_dt *t = NULL;
        MK(t, ump_dt_indexed(x, bl, d, MPI_INT, &t));
        size_t cnt = (size_t)ROWS * COLS / (size_t)at, bytes = cnt * t->size;
        struct timespec t0, t1;
        int reps = 0;
        double el = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            ump_dt_cursor_t c;
            assert_int_equal(ump_dt_cursor_init(&c, a, cnt, t, 0), UMP_OK);
            for (size_t done = 0; done < bytes;)
                done += ump_dt_cursor_pack(&c, (char *)out + done, 65536);
            reps++;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        } while (el < 0.02);
        assert_int_equal(out[1], a[2]); /* block 1 starts at int 2 */
        print_message("fig.10 x=%4d: %zu elements, %8zu bytes, segmented pack %6.2f GB/s\n", x, cnt,
                      bytes, (double)bytes * reps / el / 1e9);
        ump_dt_unref(t);
        free(bl);
        free(d);
    }
    free(a);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_struct_padding),
        cmocka_unit_test(test_known_extents),
        cmocka_unit_test(test_pairs_and_predefined),
        cmocka_unit_test(test_merging),
        cmocka_unit_test(test_signature),
        cmocka_unit_test(test_big_counts),
        cmocka_unit_test(test_refcount),
        cmocka_unit_test(test_contents),
        cmocka_unit_test(test_mpi_args),
        cmocka_unit_test(test_mpi_queries),
        cmocka_unit_test(test_vector_pack_rate),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
