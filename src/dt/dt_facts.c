/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_facts.c - the cached facts of a new type: bounds (with the sticky
 * markers of resized types), true bounds, size, basic element count,
 * signature, alignment padding, nesting depth, and the block statistics
 * (number, minimum, median and average run length) the transfer schemes
 * choose by.
 */
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"
#include "util/util.h"

static int dl_depth(const ump_dt_dl_t *n)
{
    switch (n->kind) {
    case UMP_DL_VEC:
    case UMP_DL_BLK:
        return 1 + dl_depth(n->child);
    case UMP_DL_IDX:
        return 1;
    case UMP_DL_STRUCT: {
        int d = 0;
        for (size_t k = 0; k < n->count; k++)
            d = UMP_MAX(d, dl_depth(n->kids[k]));
        return 1 + d;
    }
    default:
        return 0;
    }
}

typedef struct {
    size_t len, w;
} hist_t;

/* Run lengths with multiplicities, for the min and median facts. The walk
 * visits every STRUCT entry of every path, which can explode for structs
 * of structs sharing a child, so it stops after a budget: the statistics
 * then describe the first runs only (nblocks stays exact: nodes count
 * their runs when they are built). */
typedef struct {
    hist_t *h;
    size_t n, cap;
    size_t budget;
    bool oom;
} hists_t;

#define HIST_BUDGET ((size_t)1 << 20)

static void hist_add(hists_t *hs, size_t len, size_t w)
{
    if (!hs->budget) return;
    hs->budget--;
    if (hs->n && hs->h[hs->n - 1].len == len) {
        hs->h[hs->n - 1].w += w;
        return;
    }
    if (hs->n == hs->cap) {
        size_t cap = hs->cap ? 2 * hs->cap : 16;
        hist_t *h = realloc(hs->h, cap * sizeof(*h));
        if (!h) {
            hs->oom = true;
            return;
        }
        hs->h = h, hs->cap = cap;
    }
    hs->h[hs->n++] = (hist_t){len, w};
}

static void dl_hist(const ump_dt_dl_t *n, size_t mult, hists_t *hs)
{
    if (!hs->budget) return;
    hs->budget--;
    switch (n->kind) {
    case UMP_DL_LEAF:
        if (n->size) hist_add(hs, n->size, mult);
        break;
    case UMP_DL_VEC:
    case UMP_DL_BLK:
        dl_hist(n->child, mult * n->count, hs);
        break;
    case UMP_DL_IDX:
        for (size_t k = 0; k < n->count; k++)
            hist_add(hs, n->lens[k], mult);
        break;
    case UMP_DL_STRUCT:
        for (size_t k = 0; k < n->count; k++)
            dl_hist(n->kids[k], mult, hs);
        break;
    }
}

static int cmp_hist(const void *a, const void *b)
{
    const hist_t *x = a, *y = b;
    return (x->len > y->len) - (x->len < y->len);
}

void ump_dt_acc_init(ump_dt_acc_t *a)
{
    memset(a, 0, sizeof(*a));
    a->pow = 1;
    a->align = 1;
}

/* n_out * n_in copies of c at disp + i*stride + j*step (i < n_out, j < n_in),
 * in the order i-major. */
void ump_dt_acc_add(ump_dt_acc_t *a, ump_dt_t c, size_t n_out, ptrdiff_t stride, size_t n_in,
                    ptrdiff_t step, ptrdiff_t disp)
{
    size_t n = n_out * n_in;
    if (n == 0) return;
    if (n / n_out != n_in || (c->size && n > (SIZE_MAX - a->size) / c->size) ||
        (c->nbasic && n > (SIZE_MAX - a->nbasic) / c->nbasic)) {
        a->overflow = true; /* more bytes than memory can hold */
        return;
    }
    ptrdiff_t so = (ptrdiff_t)(n_out - 1) * stride, si = (ptrdiff_t)(n_in - 1) * step;
    ptrdiff_t lo = disp + UMP_MIN(0, so) + UMP_MIN(0, si);
    ptrdiff_t hi = disp + UMP_MAX(0, so) + UMP_MAX(0, si);
    if (c->has_lb) {
        a->mlb = a->mlb_set ? UMP_MIN(a->mlb, c->lb + lo) : c->lb + lo;
        a->mlb_set = true;
    } else if (c->size) {
        a->lb = a->lb_set ? UMP_MIN(a->lb, c->lb + lo) : c->lb + lo;
        a->lb_set = true;
    }
    if (c->has_ub) {
        a->mub = a->mub_set ? UMP_MAX(a->mub, c->ub + hi) : c->ub + hi;
        a->mub_set = true;
    } else if (c->size) {
        a->ub = a->ub_set ? UMP_MAX(a->ub, c->ub + hi) : c->ub + hi;
        a->ub_set = true;
    }
    if (c->size) {
        a->tlb = a->data ? UMP_MIN(a->tlb, c->true_lb + lo) : c->true_lb + lo;
        a->tub = a->data ? UMP_MAX(a->tub, c->true_ub + hi) : c->true_ub + hi;
        a->data = true;
    }
    a->size += n * c->size;
    a->nbasic += n * c->nbasic;
    uint64_t rep_pow = ump_dt_sig_pow(c->sig_pow, n);
    a->sig = a->sig * rep_pow + c->sig * ump_dt_sig_geom(c->sig_pow, n);
    a->pow *= rep_pow;
    a->align = UMP_MAX(a->align, c->align);
}

int ump_dt_acc_finish(struct ump_dt *t, const ump_dt_acc_t *a, const ump_dt_dl_t *dl, bool pad)
{
    if (a->overflow) return UMP_ERR_COUNT;
    if (!dl) return UMP_ERR_NO_MEMORY;
    t->lb = a->mlb_set ? a->mlb : a->lb_set ? a->lb : 0;
    t->ub = a->mub_set ? a->mub : a->ub_set ? a->ub : 0;
    t->has_lb = a->mlb_set;
    t->has_ub = a->mub_set;
    if (pad && !t->has_ub && t->ub > t->lb) {
        /* A struct's extent is rounded up to the alignment of its largest
         * basic type, the padding C gives the struct, so arrays of the
         * type match arrays of the C struct (other implementations agree). */
        ptrdiff_t ext = t->ub - t->lb, r = ext % a->align;
        if (r) t->ub += a->align - r;
    }
    t->true_lb = a->data ? a->tlb : 0;
    t->true_ub = a->data ? a->tub : 0;
    t->size = a->size;
    t->nbasic = a->nbasic;
    t->sig = a->sig;
    t->sig_pow = a->pow;
    t->align = a->align;
    t->dl = dl;
    t->extent = (size_t)(t->ub - t->lb);
    int depth = dl_depth(dl);
    if (depth > UMP_DT_MAX_DEPTH) {
        ump_error("datatype nesting depth %d exceeds %d", depth, UMP_DT_MAX_DEPTH);
        return UMP_ERR_UNSUPPORTED;
    }
    t->depth = (uint8_t)depth;
    hists_t hs = {.budget = HIST_BUDGET};
    dl_hist(dl, 1, &hs);
    if (hs.oom) {
        free(hs.h);
        return UMP_ERR_NO_MEMORY;
    }
    if (hs.n) qsort(hs.h, hs.n, sizeof(*hs.h), cmp_hist);
    size_t total = 0, acc = 0;
    for (size_t k = 0; k < hs.n; k++)
        total += hs.h[k].w;
    t->nblocks = dl->nruns;
    t->min_blk = hs.n ? hs.h[0].len : 0;
    t->avg_blk = t->nblocks ? t->size / t->nblocks : 0;
    t->median_blk = 0;
    for (size_t k = 0; k < hs.n; k++) {
        acc += hs.h[k].w;
        if (2 * acc >= total) {
            t->median_blk = hs.h[k].len;
            break;
        }
    }
    free(hs.h);
    t->is_contig = t->size == 0 || (t->nblocks == 1 && t->ub - t->lb == (ptrdiff_t)t->size);
    t->contiguous = t->is_contig && (t->size == 0 || t->true_lb == 0);
    return UMP_OK;
}
