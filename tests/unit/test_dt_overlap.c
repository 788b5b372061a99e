/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Overlapping entries of a type map (ump_dt_overlaps), which a receive must
 * refuse: checked against a reference that lists every byte `count`
 * elements cover, through the same cursor the transfers use, and reports a
 * byte listed twice. Hand-made cases (overlap inside one element, between
 * elements, interleaved but disjoint elements such as the transpose type)
 * and a seeded sweep of small nested types must agree exactly; answers
 * are cached per type, and the work bound gives up to "not overlapping".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dt/dt.h"
#include "mpi.h"
#include "util/util.h"

/* --- the reference ----------------------------------------------------------- */

/* Marks each byte of `count` elements of dt; true when one is marked twice. */
static bool naive_overlaps(ump_dt_t dt, size_t count)
{
    if (!count || !dt->size) return false;
    ptrdiff_t ext = dt->ub - dt->lb, last = (ptrdiff_t)(count - 1) * ext;
    ptrdiff_t lo = dt->true_lb + (last < 0 ? last : 0);
    ptrdiff_t hi = dt->true_ub + (last > 0 ? last : 0);
    assert_true(hi > lo);
    unsigned char *mark = calloc((size_t)(hi - lo), 1);
    assert_non_null(mark);
    ump_dt_cursor_t c;
    assert_int_equal(ump_dt_cursor_init(&c, NULL, count, dt, 0), UMP_OK);
    bool twice = false;
    size_t total = 0;
    while (!ump_dt_cursor_done(&c)) {
        struct iovec iov[16];
        int n = 0;
        size_t got = ump_dt_cursor_iov(&c, (size_t)-1, iov, 16, &n);
        assert_true(got > 0);
        total += got;
        for (int i = 0; i < n; i++) {
            ptrdiff_t off = (ptrdiff_t)(uintptr_t)iov[i].iov_base;
            assert_true(off >= lo && off + (ptrdiff_t)iov[i].iov_len <= hi);
            for (size_t b = 0; b < iov[i].iov_len; b++)
                if (mark[off - lo + (ptrdiff_t)b]++) twice = true;
        }
    }
    assert_int_equal(total, count * dt->size);
    free(mark);
    return twice;
}

/* Both answers for counts 0..maxcount, asked twice (the second from the cache). */
static void agree(ump_dt_t dt, size_t maxcount)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t n = 0; n <= maxcount; n++) {
            bool want = naive_overlaps(dt, n), got = ump_dt_overlaps(dt, n);
            if (want != got)
                fail_msg("count %zu pass %d: ump_dt_overlaps says %d, reference %d", n, pass, got,
                         want);
        }
}

/* Runs a constructor writing into t, then commits t. */
#define MAKE(t, ctor)                                                                              \
    do {                                                                                           \
        assert_int_equal((ctor), UMP_OK);                                                          \
        assert_int_equal(ump_dt_commit(t), UMP_OK);                                                \
    } while (0)

/* --- hand-made cases --------------------------------------------------------- */

static void test_indexed(void **state)
{
    (void)state;
    struct ump_dt *t;
    /* Blocks [0, 8) and [4, 12): overlap inside one element. */
    int bl[2] = {2, 2}, d[2] = {0, 1};
    MAKE(t, ump_dt_indexed(2, bl, d, MPI_INT, &t));
    assert_true(ump_dt_overlaps(t, 1));
    assert_true(ump_dt_overlaps(t, 3));
    assert_false(ump_dt_overlaps(t, 0));
    agree(t, 4);
    ump_dt_free(&t);
    /* The same block twice, out of order with a third. */
    int bl3[3] = {1, 1, 1}, d3[3] = {5, 0, 5};
    MAKE(t, ump_dt_indexed(3, bl3, d3, MPI_INT, &t));
    assert_true(ump_dt_overlaps(t, 1));
    ump_dt_free(&t);
    /* Disjoint blocks listed backwards: no overlap, at any count. */
    int d4[3] = {6, 3, 0};
    MAKE(t, ump_dt_indexed(3, bl3, d4, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 1));
    agree(t, 5);
    ump_dt_free(&t);
}

static void test_hvector(void **state)
{
    (void)state;
    struct ump_dt *t;
    /* Blocks of 8 bytes every 4 bytes. */
    MAKE(t, ump_dt_hvector(3, 2, 4, MPI_INT, &t));
    assert_true(ump_dt_overlaps(t, 1));
    agree(t, 3);
    ump_dt_free(&t);
    /* Stride equal to the block: one run, no overlap; the count follows. */
    MAKE(t, ump_dt_hvector(3, 2, 8, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 4));
    ump_dt_free(&t);
    /* Stride longer than the block: holes, no overlap. */
    MAKE(t, ump_dt_hvector(3, 2, 12, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 4));
    agree(t, 4);
    ump_dt_free(&t);
}

static void test_negative_stride(void **state)
{
    (void)state;
    struct ump_dt *t;
    /* One int every -2 ints: disjoint, and elements tile ([-16, 4) each). */
    MAKE(t, ump_dt_vector(3, 1, -2, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 1));
    assert_false(ump_dt_overlaps(t, 4));
    agree(t, 4);
    ump_dt_free(&t);
    /* Three ints every -2 ints: each block meets the next. */
    MAKE(t, ump_dt_vector(3, 3, -2, MPI_INT, &t));
    assert_true(ump_dt_overlaps(t, 1));
    agree(t, 2);
    ump_dt_free(&t);
}

static void test_struct(void **state)
{
    (void)state;
    struct ump_dt *t;
    int bl[2] = {1, 1};
    ump_dt_t ty[2] = {MPI_INT, MPI_DOUBLE};
    /* A double at byte 2 covers the int's last two bytes. */
    ptrdiff_t d[2] = {0, 2};
    MAKE(t, ump_dt_struct(2, bl, d, ty, &t));
    assert_true(ump_dt_overlaps(t, 1));
    agree(t, 2);
    ump_dt_free(&t);
    /* The C layout: no overlap, and the padded extent keeps elements apart. */
    ptrdiff_t d2[2] = {0, 8};
    MAKE(t, ump_dt_struct(2, bl, d2, ty, &t));
    assert_false(ump_dt_overlaps(t, 1));
    assert_false(ump_dt_overlaps(t, 10));
    agree(t, 4);
    ump_dt_free(&t);
}

static void test_resized(void **state)
{
    (void)state;
    struct ump_dt *c4, *t;
    MAKE(c4, ump_dt_contiguous(4, MPI_INT, &c4));
    /* 16 bytes of data every 8 bytes: fine alone, overlapping from 2 on. */
    MAKE(t, ump_dt_resized(c4, 0, 8, &t));
    assert_false(ump_dt_overlaps(t, 1));
    assert_true(ump_dt_overlaps(t, 2));
    agree(t, 4);
    ump_dt_free(&t);
    /* Zero extent: every element on the same bytes. */
    MAKE(t, ump_dt_resized(c4, 0, 0, &t));
    assert_false(ump_dt_overlaps(t, 1));
    assert_true(ump_dt_overlaps(t, 2));
    agree(t, 3);
    ump_dt_free(&t);
    /* Negative extents: elements go down; -16 tiles, -12 overlaps. */
    MAKE(t, ump_dt_resized(c4, 0, -16, &t));
    assert_false(ump_dt_overlaps(t, 5));
    agree(t, 4);
    ump_dt_free(&t);
    MAKE(t, ump_dt_resized(c4, 4, -12, &t));
    assert_true(ump_dt_overlaps(t, 2));
    agree(t, 4);
    ump_dt_free(&t);
    /* An extent larger than the data: gaps, no overlap. */
    MAKE(t, ump_dt_resized(c4, -4, 24, &t));
    assert_false(ump_dt_overlaps(t, 7));
    agree(t, 4);
    ump_dt_free(&t);
    ump_dt_free(&c4);
}

/* The column of an n x n matrix of doubles, resized to one double: count n
 * of it is the whole matrix in column order (the transpose type). */
static struct ump_dt *transpose_type(int n)
{
    struct ump_dt *col, *t;
    MAKE(col, ump_dt_vector(n, 1, n, MPI_DOUBLE, &col));
    MAKE(t, ump_dt_resized(col, 0, (ptrdiff_t)sizeof(double), &t));
    ump_dt_free(&col);
    return t;
}

static void test_transpose(void **state)
{
    (void)state;
    int sizes[] = {2, 3, 7, 16, 100};
    for (size_t s = 0; s < UMP_ARRAY_SIZE(sizes); s++) {
        int n = sizes[s];
        struct ump_dt *t = transpose_type(n);
        assert_false(ump_dt_overlaps(t, 1));
        assert_false(ump_dt_overlaps(t, (size_t)n));
        /* Column n is column 0 moved down one row: the bytes of row 1 on. */
        assert_true(ump_dt_overlaps(t, (size_t)n + 1));
        assert_false(ump_dt_overlaps(t, (size_t)n));
        if (n <= 16) agree(t, (size_t)n + 2);
        ump_dt_free(&t);
    }
}

static void test_nested(void **state)
{
    (void)state;
    int n = 6;
    struct ump_dt *tr = transpose_type(n), *t;
    /* n interleaved columns are the whole matrix: one element is clean,
     * but the next element starts one row in. */
    MAKE(t, ump_dt_contiguous(n, tr, &t));
    assert_false(ump_dt_overlaps(t, 1));
    assert_true(ump_dt_overlaps(t, 2));
    agree(t, 3);
    ump_dt_free(&t);
    /* Two transposes side by side, one matrix apart: clean. */
    MAKE(t, ump_dt_hvector(2, n, (ptrdiff_t)(n * n * sizeof(double)), tr, &t));
    assert_false(ump_dt_overlaps(t, 1));
    agree(t, 2);
    ump_dt_free(&t);
    /* An overlapping indexed type inside a vector stays overlapping. */
    int bl[2] = {2, 2}, d[2] = {0, 1};
    struct ump_dt *ix;
    MAKE(ix, ump_dt_indexed(2, bl, d, MPI_INT, &ix));
    MAKE(t, ump_dt_vector(3, 1, 4, ix, &t));
    assert_true(ump_dt_overlaps(t, 1));
    agree(t, 2);
    ump_dt_free(&t);
    ump_dt_free(&ix);
    /* Duplicates answer like the original. */
    MAKE(t, ump_dt_dup(tr, &t));
    assert_false(ump_dt_overlaps(t, (size_t)n));
    assert_true(ump_dt_overlaps(t, (size_t)n + 1));
    ump_dt_free(&t);
    /* A resized copy learns its own answers: the original knows count n
     * is clean, while with two doubles of extent element n / 2 already
     * lands on row 1 of element 0. */
    MAKE(t, ump_dt_resized(tr, 0, 2 * (ptrdiff_t)sizeof(double), &t));
    assert_false(ump_dt_overlaps(t, (size_t)n / 2));
    assert_true(ump_dt_overlaps(t, (size_t)n / 2 + 1));
    agree(t, (size_t)n + 1);
    assert_false(ump_dt_overlaps(tr, (size_t)n));
    ump_dt_free(&t);
    ump_dt_free(&tr);
}

static void test_trivial(void **state)
{
    (void)state;
    /* Predefined and contiguous types never overlap, at any count. */
    assert_false(ump_dt_overlaps(MPI_INT, 1000));
    assert_false(ump_dt_overlaps(MPI_DOUBLE_INT, 1000));
    assert_false(ump_dt_overlaps(MPI_INT, 0));
    struct ump_dt *t;
    MAKE(t, ump_dt_contiguous(5, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 1000));
    ump_dt_free(&t);
    /* No data: nothing to write twice. */
    MAKE(t, ump_dt_contiguous(0, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 10));
    ump_dt_free(&t);
    int bl[2] = {0, 0}, d[2] = {0, 0};
    MAKE(t, ump_dt_indexed(2, bl, d, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 10));
    ump_dt_free(&t);
    /* Count 0 of an overlapping type writes nothing. */
    MAKE(t, ump_dt_hvector(2, 2, 1, MPI_INT, &t));
    assert_false(ump_dt_overlaps(t, 0));
    assert_true(ump_dt_overlaps(t, 1));
    ump_dt_free(&t);
}

/* --- cache and work bound ---------------------------------------------------- */

static void test_cache(void **state)
{
    (void)state;
    int n = 50;
    struct ump_dt *t = transpose_type(n);
    assert_false(ump_dt_overlaps(t, 10));
    assert_int_equal(t->ovl_clean_k, 9);
    size_t work = t->ovl_work;
    assert_true(work > 0);
    /* Smaller or equal counts are answered from what is kept: no work. */
    for (int i = 0; i < 3; i++) {
        assert_false(ump_dt_overlaps(t, 10));
        assert_false(ump_dt_overlaps(t, 3));
    }
    assert_int_equal(t->ovl_work, work);
    /* A larger count extends the verified range, then finds the first
     * overlapping shift and keeps it. */
    assert_false(ump_dt_overlaps(t, (size_t)n));
    assert_int_equal(t->ovl_clean_k, (size_t)n - 1);
    assert_true(ump_dt_overlaps(t, (size_t)n + 5));
    assert_int_equal(t->ovl_bad_k, (size_t)n);
    work = t->ovl_work;
    assert_true(ump_dt_overlaps(t, (size_t)n + 1));
    assert_true(ump_dt_overlaps(t, 100000));
    assert_false(ump_dt_overlaps(t, (size_t)n));
    assert_int_equal(t->ovl_work, work);
    ump_dt_free(&t);
}

static ump_cfg_t budget_saved;

static int restore_budget(void **state)
{
    (void)state;
    ump_cfg_t *cfg = ump_cfg_find("UMP_DT_OVERLAP_BUDGET");
    if (cfg) *cfg = budget_saved;
    return 0;
}

static void test_budget(void **state)
{
    (void)state;
    ump_cfg_t *cfg = ump_cfg_find("UMP_DT_OVERLAP_BUDGET");
    assert_non_null(cfg);
    budget_saved = *cfg;
    cfg->loaded = true;
    cfg->v.sz = 1000;
    /* Sorting the 64 runs of a 64-column transpose costs about 500, each
     * shift about 130 more: the budget runs out long before shift 64,
     * where the overlap is, so the check gives up and says "not
     * overlapping" from then on. */
    struct ump_dt *t = transpose_type(64);
    assert_false(ump_dt_overlaps(t, 65));
    assert_int_equal(t->ovl_elem, UMP_DT_OVL_CLEAN);
    assert_true(t->ovl_capped);
    assert_true(t->ovl_work <= 1000);
    assert_false(ump_dt_overlaps(t, 1000));
    /* What was verified before the budget ran out stays exact. */
    assert_true(t->ovl_clean_k >= 1 && t->ovl_clean_k < 64);
    assert_false(ump_dt_overlaps(t, t->ovl_clean_k + 1));
    ump_dt_free(&t);
    /* Too many runs in one element to sort within the budget: every
     * block twice, listed downwards. Listed upwards they need no sort and
     * fit (listing costs one step per run). */
    int bl[400], d[400];
    for (int i = 0; i < 400; i++) {
        bl[i] = 1;
        d[i] = (399 - i) / 2;
    }
    struct ump_dt *ix;
    MAKE(ix, ump_dt_indexed(400, bl, d, MPI_INT, &ix));
    assert_false(ump_dt_overlaps(ix, 1));
    assert_int_equal(ix->ovl_elem, UMP_DT_OVL_UNCHECKED);
    assert_false(ump_dt_overlaps(ix, 1));
    ump_dt_free(&ix);
    for (int i = 0; i < 400; i++)
        d[i] = i / 2;
    MAKE(ix, ump_dt_indexed(400, bl, d, MPI_INT, &ix));
    assert_true(ump_dt_overlaps(ix, 1));
    assert_true(ix->ovl_work <= 400);
    ump_dt_free(&ix);
    for (int i = 0; i < 400; i++)
        d[i] = (399 - i) / 2;
    /* With the default budget both are found. */
    *cfg = budget_saved;
    t = transpose_type(64);
    assert_true(ump_dt_overlaps(t, 65));
    ump_dt_free(&t);
    MAKE(ix, ump_dt_indexed(400, bl, d, MPI_INT, &ix));
    assert_true(ump_dt_overlaps(ix, 1));
    ump_dt_free(&ix);
}

/* --- seeded sweep ------------------------------------------------------------- */

static unsigned rnd(unsigned *s, unsigned n)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) % n;
}

static int rnd_in(unsigned *s, int lo, int hi)
{
    return lo + (int)rnd(s, (unsigned)(hi - lo + 1));
}

static ump_dt_t rnd_base(unsigned *s)
{
    ump_dt_t b[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE};
    return b[rnd(s, UMP_ARRAY_SIZE(b))];
}

static void drop(struct ump_dt *t)
{
    if (!t->predefined) ump_dt_free(&t);
}

/* A random small type, nested up to `depth` constructors. */
static struct ump_dt *rnd_type(unsigned *s, int depth)
{
    if (!depth || !rnd(s, 4)) return (struct ump_dt *)rnd_base(s);
    struct ump_dt *c = rnd_type(s, depth - 1), *t = NULL;
    int rc;
    switch (rnd(s, 6)) {
    case 0:
        rc = ump_dt_vector(rnd_in(s, 1, 4), rnd_in(s, 0, 3), rnd_in(s, -4, 4), c, &t);
        break;
    case 1:
        rc = ump_dt_hvector(rnd_in(s, 1, 4), rnd_in(s, 1, 3), rnd_in(s, -24, 24), c, &t);
        break;
    case 2: {
        int n = rnd_in(s, 1, 4), bl[4], d[4];
        for (int i = 0; i < n; i++) {
            bl[i] = rnd_in(s, 0, 3);
            d[i] = rnd_in(s, -4, 6);
        }
        rc = ump_dt_indexed(n, bl, d, c, &t);
        break;
    }
    case 3:
        rc = ump_dt_resized(c, rnd_in(s, -8, 8), rnd_in(s, -24, 24), &t);
        break;
    case 4:
        rc = ump_dt_contiguous(rnd_in(s, 1, 3), c, &t);
        break;
    default: {
        int bl[2] = {rnd_in(s, 1, 2), rnd_in(s, 1, 2)};
        ptrdiff_t d[2] = {rnd_in(s, -8, 16), rnd_in(s, -8, 16)};
        ump_dt_t ty[2] = {c, rnd_base(s)};
        rc = ump_dt_struct(2, bl, d, ty, &t);
        break;
    }
    }
    assert_int_equal(rc, UMP_OK);
    drop(c);
    assert_int_equal(ump_dt_commit(t), UMP_OK);
    return t;
}

static void test_sweep(void **state)
{
    (void)state;
    unsigned seed = 20261121;
    size_t yes = 0, no = 0, cross = 0;
    for (int iter = 0; iter < 4000; iter++) {
        struct ump_dt *t = rnd_type(&seed, 1 + (int)rnd(&seed, 3));
        bool one = naive_overlaps(t, 1);
        size_t maxn = iter % 8 ? 5 : 40; /* some reach far shifts */
        for (size_t n = 0; n <= maxn; n++) {
            bool want = naive_overlaps(t, n), got = ump_dt_overlaps(t, n);
            if (want != got)
                fail_msg("iteration %d count %zu: ump_dt_overlaps says %d, reference %d "
                         "(size %zu, extent %td, true [%td, %td), %zu runs)",
                         iter, n, got, want, t->size, t->ub - t->lb, t->true_lb, t->true_ub,
                         t->nblocks);
            yes += want;
            no += !want;
            cross += want && !one;
        }
        /* Asked again, in another order, from the cache. */
        for (size_t n = 5; n + 1 > 0; n--)
            assert_int_equal(ump_dt_overlaps(t, n), naive_overlaps(t, n));
        drop(t);
    }
    /* The sweep means something only if it meets every kind of answer. */
    assert_true(yes > 1000);
    assert_true(no > 1000);
    assert_true(cross > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indexed),
        cmocka_unit_test(test_hvector),
        cmocka_unit_test(test_negative_stride),
        cmocka_unit_test(test_struct),
        cmocka_unit_test(test_resized),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_trivial),
        cmocka_unit_test(test_cache),
        cmocka_unit_test_teardown(test_budget, restore_budget),
        cmocka_unit_test(test_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
