/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_overlap.c - overlap detection: whether count elements of a type cover
 * some byte twice (see dt.h), answered once per type and kept.
 */
#include <limits.h>
#include <stdlib.h>

#include "dt/dt_int.h"
#include "util/util.h"

UMP_CFG(ump_dt_cfg_overlap_budget, "UMP_DT_OVERLAP_BUDGET", UMP_CFG_SIZE, "16m",
        "run comparisons spent at most per datatype looking for overlapping entries of a "
        "receive type (past it the unchecked part is taken as not overlapping)");

#define OVL_DEFAULT_BUDGET ((size_t)1 << 24)

typedef struct {
    ptrdiff_t lo, hi; /* [lo, hi) from the origin */
} ovl_run_t;

/* The runs of one element sorted by offset, touching runs merged. */
struct ump_dt_ovl {
    size_t n;
    ovl_run_t r[];
};

static size_t ovl_budget(void)
{
    return ump_dt_cfg_overlap_budget.loaded ? ump_dt_cfg_overlap_budget.v.sz : OVL_DEFAULT_BUDGET;
}

/* Charges `cost` run comparisons to t; false when that exceeds the budget
 * (nothing is charged then). Racing callers may overshoot a little, which
 * only matters for the bound, not the answers. */
static bool ovl_charge(struct ump_dt *t, size_t cost)
{
    size_t spent = __atomic_load_n(&t->ovl_work, __ATOMIC_RELAXED), budget = ovl_budget();
    if (cost > budget || spent > budget - cost) return false;
    __atomic_add_fetch(&t->ovl_work, cost, __ATOMIC_RELAXED);
    return true;
}

static int cmp_run(const void *a, const void *b)
{
    const ovl_run_t *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

static size_t log2_ceil(size_t n)
{
    size_t l = 0;
    while (l < sizeof(size_t) * CHAR_BIT && ((size_t)1 << l) < n)
        l++;
    return l;
}

/* The runs of one element in stream order (zero-length ones dropped), or
 * NULL when memory is short. */
static struct ump_dt_ovl *ovl_list(struct ump_dt *t)
{
    size_t cap = t->nblocks ? t->nblocks : 1, n = 0;
    struct ump_dt_ovl *o = malloc(sizeof(*o) + cap * sizeof(o->r[0]));
    ump_dt_cursor_t c;
    if (!o || ump_dt_cursor_init(&c, NULL, 1, t, 0) != UMP_OK) goto err;
    while (!ump_dt_cursor_done(&c)) {
        struct iovec iov[64];
        int got = 0;
        if (!ump_dt_cursor_iov(&c, t->size, iov, 64, &got)) goto err; /* no progress: stay safe */
        if (n + (size_t)got > cap) {
            /* nblocks counts the runs the cursor lists; grow if it lists more. */
            cap = 2 * cap + (size_t)got;
            struct ump_dt_ovl *no = realloc(o, sizeof(*o) + cap * sizeof(o->r[0]));
            if (!no) goto err;
            o = no;
        }
        for (int i = 0; i < got; i++) {
            if (!iov[i].iov_len) continue;
            ptrdiff_t lo = (ptrdiff_t)(uintptr_t)iov[i].iov_base;
            o->r[n++] = (ovl_run_t){lo, lo + (ptrdiff_t)iov[i].iov_len};
        }
    }
    o->n = n;
    return o;
err:
    free(o);
    return NULL;
}

/* Lists, sorts and checks the runs of one element. Returns the element's
 * state; when it is CLEAN and elements may meet, t->ovl holds the sorted
 * runs (published before the state, so a reader that sees CLEAN sees the
 * runs). */
static uint8_t ovl_elem_check(struct ump_dt *t)
{
    uint8_t st = UMP_DT_OVL_UNCHECKED;
    struct ump_dt_ovl *o = NULL;
    /* Listing costs one step per run; most layouts list their runs in
     * address order already, and only the others pay for a sort. */
    if (!ovl_charge(t, t->nblocks)) goto out;
    o = ovl_list(t);
    if (!o) return UMP_DT_OVL_UNCHECKED; /* memory: this time only, try again later */
    ovl_run_t *r = o->r;
    size_t m = o->n, k = 0;
    bool sorted = true;
    for (size_t i = 1; i < m && sorted; i++)
        sorted = cmp_run(&r[i - 1], &r[i]) <= 0;
    if (!sorted) {
        if (!ovl_charge(t, m * (log2_ceil(m) + 1))) goto out;
        qsort(r, m, sizeof(r[0]), cmp_run);
    }
    /* Sorted by start, a run overlaps an earlier one iff it starts before
     * the furthest end so far; without overlap the ends increase too. */
    st = UMP_DT_OVL_CLEAN;
    for (size_t i = 0; i < m; i++) {
        if (k && r[i].lo < r[k - 1].hi) {
            st = UMP_DT_OVL_YES;
            break;
        }
        if (k && r[i].lo == r[k - 1].hi)
            r[k - 1].hi = r[i].hi; /* touching: one run */
        else
            r[k++] = r[i];
    }
    o->n = k;
    /* The runs are kept only for the shifts between elements, which
     * matter only when elements are closer than their data span. */
    ptrdiff_t ext = t->ub - t->lb;
    size_t step = ext < 0 ? (size_t)0 - (size_t)ext : (size_t)ext;
    if (st == UMP_DT_OVL_CLEAN && step < (size_t)(t->true_ub - t->true_lb)) {
        struct ump_dt_ovl *none = NULL;
        if (__atomic_compare_exchange_n(&t->ovl, &none, o, false, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
            o = NULL; /* t keeps it; else another caller published the same runs first */
    }
out:
    /* UNCHECKED here means the budget ran out: the element is never checked. */
    free(o);
    __atomic_store_n(&t->ovl_elem, st, __ATOMIC_RELEASE);
    return st;
}

/* First index of runs r[0..n) whose end is past x (ends increase). */
static size_t first_end_after(const ovl_run_t *r, size_t n, ptrdiff_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].hi <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First index of runs r[0..n) that start at or after x. */
static size_t first_start_at(const ovl_run_t *r, size_t n, ptrdiff_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].lo < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void store_max(size_t *p, size_t v)
{
    size_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v &&
           !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* Element i + k lies at i's runs shifted by k * step (step = |extent|;
 * a negative extent mirrors the picture, same intersections). Checks
 * k = from..to in order with one merge of the runs against their shifted
 * copy each, limited to the window where the two can meet. True at the
 * first k that meets, which is then the smallest one (all below it were
 * verified clean before). */
static bool ovl_shift_check(struct ump_dt *t, const struct ump_dt_ovl *o, size_t from, size_t to,
                            size_t step)
{
    const ovl_run_t *r = o->r;
    size_t n = o->n;
    if (!n) return false;
    for (size_t k = from; k <= to; k++) {
        ptrdiff_t d = (ptrdiff_t)(k * step); /* < span, so no overflow */
        /* Runs of the original ending after the shifted copy starts, and
         * runs of the copy starting before the original ends. */
        size_t i = first_end_after(r, n, r[0].lo + d);
        size_t jend = first_start_at(r, n, r[n - 1].hi - d);
        if (!ovl_charge(t, (n - i) + jend + 1)) {
            __atomic_store_n(&t->ovl_capped, true, __ATOMIC_RELAXED);
            return false;
        }
        size_t j = 0;
        while (i < n && j < jend) {
            ptrdiff_t blo = r[j].lo + d, bhi = r[j].hi + d;
            if (r[i].hi <= blo) {
                i++;
            } else if (bhi <= r[i].lo) {
                j++;
            } else {
                __atomic_store_n(&t->ovl_bad_k, k, __ATOMIC_RELAXED);
                return true;
            }
        }
        store_max(&t->ovl_clean_k, k);
    }
    return false;
}

bool ump_dt_overlaps(ump_dt_t dt, size_t count)
{
    if (!dt || !count || !dt->size || dt->contiguous || dt->is_contig || dt->predefined)
        return false;
    struct ump_dt *t = (struct ump_dt *)dt;
    uint8_t elem = __atomic_load_n(&t->ovl_elem, __ATOMIC_ACQUIRE);
    if (elem == UMP_DT_OVL_UNKNOWN) {
        /* A single run cannot cover a byte twice: no need to list it. */
        if (t->nblocks <= 1) {
            elem = UMP_DT_OVL_CLEAN;
            __atomic_store_n(&t->ovl_elem, elem, __ATOMIC_RELEASE);
        } else {
            elem = ovl_elem_check(t);
        }
    }
    if (elem == UMP_DT_OVL_YES) return true;
    if (count == 1) return false;

    /* Element i's data lie in [true_lb, true_ub) + i * extent. */
    ptrdiff_t ext = t->ub - t->lb;
    size_t step = ext < 0 ? (size_t)0 - (size_t)ext : (size_t)ext;
    size_t span = (size_t)(t->true_ub - t->true_lb);
    if (step >= span) return false;
    if (!step) return true; /* every element on the same bytes */
    /* Elements i and i + k can meet only while k * step < span. */
    size_t need = UMP_MIN(count - 1, (span - 1) / step);
    size_t bad = __atomic_load_n(&t->ovl_bad_k, __ATOMIC_RELAXED);
    if (bad) return bad <= need;
    size_t clean = __atomic_load_n(&t->ovl_clean_k, __ATOMIC_RELAXED);
    if (need <= clean) return false;
    if (elem != UMP_DT_OVL_CLEAN || __atomic_load_n(&t->ovl_capped, __ATOMIC_RELAXED))
        return false; /* unchecked: best effort, see dt.h */
    /* One run per element spans the whole data: the next element, closer
     * than that, lands inside it. */
    if (t->nblocks <= 1) return true;
    const struct ump_dt_ovl *o = __atomic_load_n(&t->ovl, __ATOMIC_ACQUIRE);
    if (!o) return false;
    return ovl_shift_check(t, o, clean + 1, need, step);
}
