/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_type.c - type constructors: the cached facts (bounds, size,
 * signature, block statistics) and the compact layout of each new type,
 * with adjacent blocks merged so that, e.g., a vector whose stride equals
 * its block is one contiguous run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"
#include "mpi.h"
#include "util/util.h"

size_t ump_dt_size(ump_dt_t dt)
{
    return dt ? dt->size : 0;
}

/* --- signature algebra (see dt_int.h) ----------------------------------- */

static uint64_t upow(uint64_t b, size_t n)
{
    uint64_t r = 1;
    for (; n; n >>= 1, b *= b)
        if (n & 1) r *= b;
    return r;
}

/* 1 + p + ... + p^(n-1), by doubling: S(2m) = S(m)(1 + p^m), S(m+1) = S(m) + p^m. */
static uint64_t geom(uint64_t p, size_t n)
{
    uint64_t s = 0, pm = 1;
    for (int bit = (int)(sizeof(size_t) * CHAR_BIT) - 1; bit >= 0; bit--) {
        s *= 1 + pm;
        pm *= pm;
        if ((n >> bit) & 1) {
            s += pm;
            pm *= p;
        }
    }
    return s;
}

uint64_t ump_dt_sig(ump_dt_t dt, size_t count)
{
    return dt->sig * geom(dt->sig_pow, count);
}

/* --- objects ------------------------------------------------------------- */

static struct ump_dt *new_type(int combiner)
{
    struct ump_dt *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->magic = UMP_DT_MAGIC;
    t->refs = 1;
    t->handles = 1;
    t->combiner = (uint8_t)combiner;
    t->kind = UMP_DT_DERIVED;
    t->align = 1;
    t->name = t->namebuf;
    t->dl = &ump_dt_empty_leaf;
    static uint64_t next_uid;
    t->uid = __atomic_add_fetch(&next_uid, 1, __ATOMIC_RELAXED);
    return t;
}

static void release(struct ump_dt *t)
{
    for (int k = 0; k < t->nd; k++)
        ump_dt_unref(t->types[k]);
    if (t->impl) ump_dt_unref(t->impl);
    for (ump_dt_dl_t *n = t->owned, *next; n; n = next) {
        next = n->next_owned;
        free(n);
    }
    free(t->flat);
    free(t->ovl);
    free(t->ints);
    free(t->aints);
    free(t->types);
    t->magic = UMP_DT_MAGIC_DEAD;
    free(t);
}

void ump_dt_ref(ump_dt_t dt)
{
    if (dt && !dt->predefined)
        __atomic_add_fetch(&((struct ump_dt *)dt)->refs, 1, __ATOMIC_RELAXED);
}

void ump_dt_unref(ump_dt_t dt)
{
    if (!dt || dt->predefined) return;
    struct ump_dt *t = (struct ump_dt *)dt;
    if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) release(t);
}

int ump_dt_commit(struct ump_dt *dt)
{
    if (!ump_dt_valid(dt) || dt->user_freed) return UMP_ERR_DATATYPE;
    dt->committed = true;
    return UMP_OK;
}

int ump_dt_free(struct ump_dt **dt)
{
    if (!dt || !ump_dt_valid(*dt) || (*dt)->predefined || (*dt)->user_freed)
        return UMP_ERR_DATATYPE;
    struct ump_dt *t = *dt;
    if (__atomic_sub_fetch(&t->handles, 1, __ATOMIC_ACQ_REL) == 0) t->user_freed = true;
    *dt = NULL;
    ump_dt_unref(t);
    return UMP_OK;
}

const struct iovec *ump_dt_flat(ump_dt_t dt, size_t max_runs, size_t *nruns)
{
    struct ump_dt *t = (struct ump_dt *)dt;
    if (t->flat) {
        *nruns = t->nflat;
        return t->flat;
    }
    if (t->nblocks > max_runs || !t->nblocks) return NULL;
    struct iovec *v = malloc(t->nblocks * sizeof(*v));
    if (!v) return NULL;
    ump_dt_cursor_t c;
    int n = 0;
    if (ump_dt_cursor_init(&c, NULL, 1, dt, 0) != UMP_OK ||
        ump_dt_cursor_iov(&c, dt->size, v, (int)t->nblocks, &n) != dt->size) {
        /* nblocks counts merged runs, so this cannot happen: stay safe. */
        free(v);
        return NULL;
    }
    if (t->predefined) { /* static object: nowhere to keep it */
        free(v);
        return NULL;
    }
    t->flat = v;
    t->nflat = (size_t)n;
    *nruns = t->nflat;
    return t->flat;
}

int ump_dt_set_name(struct ump_dt *dt, const char *name)
{
    if (!ump_dt_valid(dt) || !name) return UMP_ERR_INVALID;
    /* Predefined names are string literals: give them their buffer first. */
    snprintf(dt->namebuf, sizeof(dt->namebuf), "%s", name);
    dt->name = dt->namebuf;
    return UMP_OK;
}

/* Records the constructor arguments and takes a reference on each type. */
static int set_contents(struct ump_dt *t, int ni, const int *ints, int na, const ptrdiff_t *aints,
                        int nd, ump_dt_t const *types)
{
    t->ints = ni ? malloc(sizeof(int) * (size_t)ni) : NULL;
    t->aints = na ? malloc(sizeof(ptrdiff_t) * (size_t)na) : NULL;
    t->types = nd ? malloc(sizeof(*t->types) * (size_t)nd) : NULL;
    if ((ni && !t->ints) || (na && !t->aints) || (nd && !t->types)) return UMP_ERR_NO_MEMORY;
    if (ni) memcpy(t->ints, ints, sizeof(int) * (size_t)ni);
    if (na) memcpy(t->aints, aints, sizeof(ptrdiff_t) * (size_t)na);
    for (int k = 0; k < nd; k++) {
        t->types[k] = (struct ump_dt *)types[k];
        ump_dt_ref(types[k]);
    }
    t->ni = ni, t->na = na, t->nd = nd;
    return UMP_OK;
}

/* --- layout nodes -------------------------------------------------------- */

/* A node with `extra` bytes of arrays after it, owned by t. */
static ump_dt_dl_t *node_new(struct ump_dt *t, int kind, size_t count, size_t size, size_t extra)
{
    ump_dt_dl_t *n = calloc(1, sizeof(*n) + extra);
    if (!n) return NULL;
    n->kind = (uint8_t)kind;
    n->count = count;
    n->size = size;
    n->next_owned = t->owned;
    t->owned = n;
    return n;
}

/* The depth of a node above one of depth d, saturating past the limit. */
static uint8_t deeper(uint8_t d)
{
    return d > UMP_DT_MAX_DEPTH ? d : (uint8_t)(d + 1);
}

static const ump_dt_dl_t *leaf_new(struct ump_dt *t, size_t len)
{
    ump_dt_dl_t *n = node_new(t, UMP_DL_LEAF, 0, len, 0);
    if (n) n->nruns = len ? 1 : 0;
    return n;
}

/* count copies of kid at off + i*stride, merged where the copies touch. */
static const ump_dt_dl_t *mk_vec(struct ump_dt *t, size_t count, ptrdiff_t stride, ptrdiff_t off,
                                 const ump_dt_dl_t *kid)
{
    if (!kid) return NULL;
    if (count == 0 || kid->size == 0) return &ump_dt_empty_leaf;
    if (kid->kind == UMP_DL_VEC && kid->count == 1) { /* a shifted node: fold the shift */
        off += kid->off;
        kid = kid->child;
    }
    if (count == 1) stride = 0;
    if (count == 1 && off == 0) return kid;
    if (kid->kind == UMP_DL_LEAF && (count == 1 || stride == (ptrdiff_t)kid->size)) {
        const ump_dt_dl_t *run = count == 1 ? kid : leaf_new(t, count * kid->size);
        if (!run || off == 0) return run;
        count = 1, stride = 0, kid = run;
    } else if (kid->kind == UMP_DL_VEC && count > 1 &&
               (ptrdiff_t)kid->count * kid->stride == stride) {
        /* copies of a vector that tile: one longer vector */
        off += kid->off;
        stride = kid->stride;
        count *= kid->count;
        kid = kid->child;
    }
    ump_dt_dl_t *n = node_new(t, UMP_DL_VEC, count, count * kid->size, 0);
    if (!n) return NULL;
    n->stride = stride;
    n->off = off;
    n->child = kid;
    n->depth = deeper(kid->depth);
    n->nruns = count * kid->nruns;
    return n;
}

/* Whether the node is one run, at *off from its base. */
static bool is_run(const ump_dt_dl_t *n, ptrdiff_t *off)
{
    if (n->kind == UMP_DL_LEAF) {
        *off = 0;
        return true;
    }
    if (n->kind == UMP_DL_VEC && n->count == 1 && n->child->kind == UMP_DL_LEAF) {
        *off = n->off;
        return true;
    }
    return false;
}

static bool arith(size_t m, const ptrdiff_t *d)
{
    for (size_t k = 2; k < m; k++)
        if (d[k] - d[k - 1] != d[1] - d[0]) return false;
    return true;
}

/* m runs (d[k], len[k]), in stream order, already merged. */
static const ump_dt_dl_t *compact_runs(struct ump_dt *t, size_t m, const ptrdiff_t *d,
                                       const size_t *len)
{
    if (m == 0) return &ump_dt_empty_leaf;
    bool same = true;
    for (size_t k = 1; k < m && same; k++)
        same = len[k] == len[0];
    if (same) {
        const ump_dt_dl_t *leaf = leaf_new(t, len[0]);
        if (!leaf) return NULL;
        if (m == 1 || arith(m, d)) return mk_vec(t, m, m > 1 ? d[1] - d[0] : 0, d[0], leaf);
        ump_dt_dl_t *n = node_new(t, UMP_DL_BLK, m, m * len[0], m * sizeof(ptrdiff_t));
        if (!n) return NULL;
        ptrdiff_t *nd = (ptrdiff_t *)(n + 1);
        memcpy(nd, d, m * sizeof(*nd));
        n->disps = nd;
        n->child = leaf;
        n->depth = 1;
        n->nruns = m;
        return n;
    }
    ump_dt_dl_t *n = node_new(
        t, UMP_DL_IDX, m, 0, m * sizeof(ptrdiff_t) + m * sizeof(size_t) + (m + 1) * sizeof(size_t));
    if (!n) return NULL;
    ptrdiff_t *nd = (ptrdiff_t *)(n + 1);
    size_t *nl = (size_t *)(nd + m), *pfx = nl + m;
    memcpy(nd, d, m * sizeof(*nd));
    memcpy(nl, len, m * sizeof(*nl));
    pfx[0] = 0;
    for (size_t k = 0; k < m; k++)
        pfx[k + 1] = pfx[k] + len[k];
    n->size = pfx[m];
    n->disps = nd, n->lens = nl, n->pfx = pfx;
    n->depth = 1;
    n->nruns = m;
    return n;
}

/* One block of a general constructor: bl copies of type at disp. */
typedef struct {
    ptrdiff_t disp;
    size_t bl;
    ump_dt_t type;
} blk_t;

static ptrdiff_t ext_of(ump_dt_t t)
{
    return t->ub - t->lb;
}

/* Layout of n blocks (in stream order). */
static const ump_dt_dl_t *build_blocks(struct ump_dt *t, size_t n, const blk_t *b)
{
    size_t m = 0;
    bool runs = true;
    for (size_t k = 0; k < n; k++) {
        if (!b[k].bl || !b[k].type->size) continue;
        ptrdiff_t o;
        const ump_dt_dl_t *dl = b[k].type->dl;
        if (!is_run(dl, &o) || (b[k].bl > 1 && ext_of(b[k].type) != (ptrdiff_t)b[k].type->size))
            runs = false;
        m++;
    }
    if (m == 0) return &ump_dt_empty_leaf;
    ptrdiff_t *d = malloc(m * sizeof(*d));
    size_t *len = runs ? malloc(m * sizeof(*len)) : NULL;
    const ump_dt_dl_t **kids = runs ? NULL : malloc(m * sizeof(*kids));
    const ump_dt_dl_t *res = NULL;
    if (!d || (runs && !len) || (!runs && !kids)) goto out;
    size_t j = 0;
    if (runs) {
        for (size_t k = 0; k < n; k++) {
            if (!b[k].bl || !b[k].type->size) continue;
            ptrdiff_t o = 0;
            is_run(b[k].type->dl, &o);
            ptrdiff_t at = b[k].disp + o;
            size_t l = b[k].bl * b[k].type->size;
            if (j && d[j - 1] + (ptrdiff_t)len[j - 1] == at) {
                len[j - 1] += l; /* touches the previous run: merge */
            } else {
                d[j] = at, len[j] = l;
                j++;
            }
        }
        res = compact_runs(t, j, d, len);
        goto out;
    }
    const ump_dt_dl_t *prev = NULL;
    ptrdiff_t prev_shift = 0;
    ump_dt_t prev_type = NULL;
    size_t prev_bl = 0;
    bool same = true;
    for (size_t k = 0; k < n; k++) {
        if (!b[k].bl || !b[k].type->size) continue;
        const ump_dt_dl_t *kid = prev;
        ptrdiff_t shift = prev_shift;
        if (!prev || b[k].type != prev_type || b[k].bl != prev_bl) {
            kid = mk_vec(t, b[k].bl, ext_of(b[k].type), 0, b[k].type->dl);
            if (!kid) goto out;
            shift = 0;
            if (kid->kind == UMP_DL_VEC && kid->count == 1) { /* fold the shift into disp */
                shift = kid->off;
                kid = kid->child;
            }
        }
        kids[j] = kid;
        d[j] = b[k].disp + shift;
        if (kids[j] != kids[0]) same = false;
        j++;
        prev = kid, prev_shift = shift, prev_type = b[k].type, prev_bl = b[k].bl;
    }
    if (same) {
        if (j == 1 || arith(j, d)) {
            res = mk_vec(t, j, j > 1 ? d[1] - d[0] : 0, d[0], kids[0]);
        } else {
            ump_dt_dl_t *nn = node_new(t, UMP_DL_BLK, j, j * kids[0]->size, j * sizeof(ptrdiff_t));
            if (!nn) goto out;
            ptrdiff_t *nd = (ptrdiff_t *)(nn + 1);
            memcpy(nd, d, j * sizeof(*nd));
            nn->disps = nd;
            nn->child = kids[0];
            nn->depth = deeper(kids[0]->depth);
            nn->nruns = j * kids[0]->nruns;
            res = nn;
        }
        goto out;
    }
    ump_dt_dl_t *nn =
        node_new(t, UMP_DL_STRUCT, j, 0,
                 j * sizeof(ptrdiff_t) + (j + 1) * sizeof(size_t) + j * sizeof(void *));
    if (!nn) goto out;
    ptrdiff_t *nd = (ptrdiff_t *)(nn + 1);
    size_t *pfx = (size_t *)(nd + j);
    const ump_dt_dl_t **nk = (const ump_dt_dl_t **)(pfx + j + 1);
    memcpy(nd, d, j * sizeof(*nd));
    memcpy(nk, kids, j * sizeof(*nk));
    pfx[0] = 0;
    for (size_t k = 0; k < j; k++)
        pfx[k + 1] = pfx[k] + kids[k]->size;
    nn->size = pfx[j];
    nn->disps = nd, nn->pfx = pfx, nn->kids = nk;
    for (size_t k = 0; k < j; k++) {
        nn->depth = UMP_MAX(nn->depth, deeper(kids[k]->depth));
        nn->nruns += kids[k]->nruns;
    }
    res = nn;
out:
    free(d);
    free(len);
    free(kids);
    return res;
}

/* --- facts ------------------------------------------------------------------ */

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

/* Bounds, size and signature gathered over the blocks of a constructor,
 * with explicit (resized) bounds acting as MPI's lb/ub markers: when any
 * part carries one, the markers alone decide that bound. */
typedef struct {
    bool lb_set, ub_set, mlb_set, mub_set, data, overflow;
    ptrdiff_t lb, ub, mlb, mub, tlb, tub;
    size_t size, nbasic;
    uint64_t sig, pow;
    uint16_t align;
} acc_t;

static void acc_init(acc_t *a)
{
    memset(a, 0, sizeof(*a));
    a->pow = 1;
    a->align = 1;
}

/* n_out * n_in copies of c at disp + i*stride + j*step (i < n_out, j < n_in),
 * in the order i-major. */
static void acc_add2(acc_t *a, ump_dt_t c, size_t n_out, ptrdiff_t stride, size_t n_in,
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
    uint64_t rep_pow = upow(c->sig_pow, n);
    a->sig = a->sig * rep_pow + c->sig * geom(c->sig_pow, n);
    a->pow *= rep_pow;
    a->align = UMP_MAX(a->align, c->align);
}

/* Sets t's facts from the accumulator and its layout. */
static int finish(struct ump_dt *t, const acc_t *a, const ump_dt_dl_t *dl, bool pad)
{
    if (a->overflow) return UMP_ERR_COUNT;
    if (!dl) return UMP_ERR_NO_MEMORY;
    t->lb = a->mlb_set ? a->mlb : a->lb_set ? a->lb : 0;
    t->ub = a->mub_set ? a->mub : a->ub_set ? a->ub : 0;
    t->has_lb = a->mlb_set;
    t->has_ub = a->mub_set;
    if (pad && !t->has_ub && t->ub > t->lb) {
        /* MPI implementations round a struct's extent up to the alignment of
         * its largest basic type, so arrays of it match the C struct. */
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

static int check_old(ump_dt_t old)
{
    return ump_dt_valid(old) && !old->user_freed ? UMP_OK : UMP_ERR_DATATYPE;
}

/* n_out blocks at k*stride, each bl copies of old at old's extent. */
static int make_hvector(int combiner, size_t count, size_t bl, ptrdiff_t stride, ump_dt_t old,
                        struct ump_dt **out)
{
    struct ump_dt *t = new_type(combiner);
    if (!t) return UMP_ERR_NO_MEMORY;
    acc_t a;
    acc_init(&a);
    acc_add2(&a, old, count, stride, bl, ext_of(old), 0);
    const ump_dt_dl_t *blkdl = mk_vec(t, bl, ext_of(old), 0, old->dl);
    int rc = finish(t, &a, mk_vec(t, count, stride, 0, blkdl), false);
    if (rc != UMP_OK) goto err;
    *out = t;
    return UMP_OK;
err:
    release(t);
    return rc;
}

static int make_blocks(int combiner, size_t n, const blk_t *b, bool pad, struct ump_dt **out)
{
    struct ump_dt *t = new_type(combiner);
    if (!t) return UMP_ERR_NO_MEMORY;
    acc_t a;
    acc_init(&a);
    for (size_t k = 0; k < n; k++)
        acc_add2(&a, b[k].type, 1, 0, b[k].bl, ext_of(b[k].type), b[k].disp);
    int rc = finish(t, &a, build_blocks(t, n, b), pad);
    if (rc != UMP_OK) goto err;
    *out = t;
    return UMP_OK;
err:
    release(t);
    return rc;
}

/* A type with old's facts and layout (dup, resized, and the wrapper of
 * subarray/darray around the type they build). */
static struct ump_dt *copy_of(int combiner, ump_dt_t old)
{
    struct ump_dt *t = new_type(combiner);
    if (!t) return NULL;
    char *nb = t->namebuf;
    uint64_t uid = t->uid;
    memcpy(t, old, offsetof(struct ump_dt, namebuf));
    t->name = nb;
    /* Its own id (a peer keeps layouts by id, and this one's extent may
     * differ) and its own flattened layout (old frees its own). */
    t->uid = uid;
    t->flat = NULL;
    t->nflat = 0;
    /* Overlap facts start over: a resized copy has another extent, and
     * old keeps (and frees) its own runs. */
    t->ovl = NULL;
    t->ovl_elem = UMP_DT_OVL_UNKNOWN;
    t->ovl_capped = false;
    t->ovl_clean_k = t->ovl_bad_k = t->ovl_work = 0;
    t->magic = UMP_DT_MAGIC;
    t->refs = 1;
    t->handles = 1;
    t->predefined = t->committed = t->user_freed = false;
    t->kind = UMP_DT_DERIVED;
    t->combiner = (uint8_t)combiner;
    t->owned = NULL;
    t->impl = NULL;
    t->ni = t->na = t->nd = 0;
    t->ints = NULL, t->aints = NULL, t->types = NULL;
    return t;
}

/* --- the MPI constructors ----------------------------------------------- */

#define CHECK_COUNT(n)                                                                             \
    do {                                                                                           \
        if ((n) < 0) return UMP_ERR_COUNT;                                                         \
    } while (0)
#define CHECK_OUT(o)                                                                               \
    do {                                                                                           \
        if (!(o)) return UMP_ERR_INVALID;                                                          \
    } while (0)

static int with_contents(int rc, struct ump_dt **t, int ni, const int *ints, int na,
                         const ptrdiff_t *aints, int nd, ump_dt_t const *types)
{
    if (rc != UMP_OK) return rc;
    rc = set_contents(*t, ni, ints, na, aints, nd, types);
    if (rc != UMP_OK) {
        release(*t);
        *t = NULL;
    }
    return rc;
}

int ump_dt_contiguous(int count, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = NULL;
    int rc = make_hvector(MPI_COMBINER_CONTIGUOUS, (size_t)count, 1, ext_of(old), old, &t);
    rc = with_contents(rc, &t, 1, &count, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_vector(int count, int blocklen, int stride, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_COUNT(blocklen);
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = NULL;
    int rc = make_hvector(MPI_COMBINER_VECTOR, (size_t)count, (size_t)blocklen,
                          (ptrdiff_t)stride * ext_of(old), old, &t);
    int ints[3] = {count, blocklen, stride};
    rc = with_contents(rc, &t, 3, ints, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_hvector(int count, int blocklen, ptrdiff_t stride, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_COUNT(blocklen);
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = NULL;
    int rc = make_hvector(MPI_COMBINER_HVECTOR, (size_t)count, (size_t)blocklen, stride, old, &t);
    int ints[2] = {count, blocklen};
    rc = with_contents(rc, &t, 2, ints, 1, &stride, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

/* The indexed family: per-block lengths (bls, or bl for all) and
 * displacements in extents (idisps) or bytes (adisps). */
static int indexed_common(int combiner, int count, const int *bls, int bl, const int *idisps,
                          const ptrdiff_t *adisps, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    if (count && ((bls == NULL && bl < 0) || (!idisps && !adisps))) return UMP_ERR_INVALID;
    CHECK_COUNT(bl);
    /* calloc: with count 0 make_blocks reads no entry, but the compiler
     * cannot know that. */
    blk_t *b = calloc((size_t)count + 1, sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    ptrdiff_t ext = ext_of(old);
    for (int k = 0; k < count; k++) {
        int l = bls ? bls[k] : bl;
        if (l < 0) {
            free(b);
            return UMP_ERR_COUNT;
        }
        b[k].bl = (size_t)l;
        b[k].disp = idisps ? (ptrdiff_t)idisps[k] * ext : adisps[k];
        b[k].type = old;
    }
    struct ump_dt *t = NULL;
    int rc = make_blocks(combiner, (size_t)count, b, false, &t);
    free(b);
    if (rc != UMP_OK) return rc;
    /* contents: count, then block lengths (or the one), then int displacements */
    int ni = 1 + (bls ? count : 1) + (idisps ? count : 0);
    int *ints = malloc(sizeof(int) * (size_t)ni);
    if (!ints) {
        release(t);
        return UMP_ERR_NO_MEMORY;
    }
    int p = 0;
    ints[p++] = count;
    if (bls) {
        if (count) memcpy(ints + p, bls, sizeof(int) * (size_t)count);
        p += count;
    } else {
        ints[p++] = bl;
    }
    if (idisps && count) memcpy(ints + p, idisps, sizeof(int) * (size_t)count);
    rc = with_contents(UMP_OK, &t, ni, ints, adisps ? count : 0, adisps, 1, &old);
    free(ints);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_indexed(int count, const int blocklens[], const int disps[], ump_dt_t old,
                   struct ump_dt **out)
{
    if (count > 0 && !blocklens) return UMP_ERR_INVALID;
    return indexed_common(MPI_COMBINER_INDEXED, count, blocklens, 0, disps, NULL, old, out);
}

int ump_dt_hindexed(int count, const int blocklens[], const ptrdiff_t disps[], ump_dt_t old,
                    struct ump_dt **out)
{
    if (count > 0 && !blocklens) return UMP_ERR_INVALID;
    return indexed_common(MPI_COMBINER_HINDEXED, count, blocklens, 0, NULL, disps, old, out);
}

int ump_dt_indexed_block(int count, int blocklen, const int disps[], ump_dt_t old,
                         struct ump_dt **out)
{
    if (count > 0 && !disps) return UMP_ERR_INVALID;
    return indexed_common(MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklen, disps, NULL, old, out);
}

int ump_dt_hindexed_block(int count, int blocklen, const ptrdiff_t disps[], ump_dt_t old,
                          struct ump_dt **out)
{
    if (count > 0 && !disps) return UMP_ERR_INVALID;
    return indexed_common(MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklen, NULL, disps, old,
                          out);
}

int ump_dt_struct(int count, const int blocklens[], const ptrdiff_t disps[], const ump_dt_t types[],
                  struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_OUT(out);
    if (count && (!blocklens || !disps || !types)) return UMP_ERR_INVALID;
    for (int k = 0; k < count; k++) {
        if (blocklens[k] < 0) return UMP_ERR_COUNT;
        if (check_old(types[k])) return UMP_ERR_DATATYPE;
    }
    blk_t *b = malloc(((size_t)count + 1) * sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    for (int k = 0; k < count; k++)
        b[k] = (blk_t){disps[k], (size_t)blocklens[k], types[k]};
    struct ump_dt *t = NULL;
    int rc = make_blocks(MPI_COMBINER_STRUCT, (size_t)count, b, true, &t);
    free(b);
    int *ints = malloc(sizeof(int) * ((size_t)count + 1));
    if (rc == UMP_OK && !ints) {
        release(t);
        rc = UMP_ERR_NO_MEMORY;
    }
    if (rc == UMP_OK) {
        ints[0] = count;
        if (count) memcpy(ints + 1, blocklens, sizeof(int) * (size_t)count);
        rc = with_contents(rc, &t, count + 1, ints, count, disps, count, types);
    }
    free(ints);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_resized(ump_dt_t old, ptrdiff_t lb, ptrdiff_t extent, struct ump_dt **out)
{
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = copy_of(MPI_COMBINER_RESIZED, old);
    if (!t) return UMP_ERR_NO_MEMORY;
    t->lb = lb;
    t->ub = lb + extent;
    t->has_lb = t->has_ub = true;
    t->extent = (size_t)extent;
    t->is_contig = t->size == 0 || (t->nblocks == 1 && extent == (ptrdiff_t)t->size);
    t->contiguous = t->is_contig && (t->size == 0 || t->true_lb == 0);
    ptrdiff_t a[2] = {lb, extent};
    int rc = with_contents(UMP_OK, &t, 0, NULL, 2, a, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_dup(ump_dt_t old, struct ump_dt **out)
{
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = copy_of(MPI_COMBINER_DUP, old);
    if (!t) return UMP_ERR_NO_MEMORY;
    t->committed = old->committed; /* MPI: the duplicate of a committed type is committed */
    int rc = with_contents(UMP_OK, &t, 0, NULL, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

/* Wraps the type `impl` built by subarray/darray under their combiner. */
static int wrap_impl(int combiner, struct ump_dt *impl, int ni, const int *ints, ump_dt_t old,
                     struct ump_dt **out)
{
    struct ump_dt *t = copy_of(combiner, impl);
    if (!t) {
        ump_dt_unref(impl);
        return UMP_ERR_NO_MEMORY;
    }
    t->impl = impl; /* takes impl's reference */
    int rc = with_contents(UMP_OK, &t, ni, ints, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

/* One dimension step: n copies of cur at disp bytes, then bounds [0, ext). */
static int place(struct ump_dt **cur, size_t nblk, const size_t *bl, const ptrdiff_t *disp,
                 ptrdiff_t ext)
{
    blk_t *b = malloc((nblk + 1) * sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    for (size_t k = 0; k < nblk; k++)
        b[k] = (blk_t){disp[k], bl[k], *cur};
    struct ump_dt *t1 = NULL, *t2 = NULL;
    int rc = make_blocks(MPI_COMBINER_HINDEXED, nblk, b, false, &t1);
    free(b);
    if (rc != UMP_OK) return rc;
    /* t1 must keep *cur alive: record it as t1's old type */
    rc = with_contents(rc, &t1, 0, NULL, 0, NULL, 1, (ump_dt_t *)cur);
    if (rc != UMP_OK) return rc;
    rc = ump_dt_resized(t1, 0, ext, &t2);
    ump_dt_unref(t1);
    if (rc != UMP_OK) return rc;
    ump_dt_unref(*cur);
    *cur = t2;
    return UMP_OK;
}

int ump_dt_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                    int order, ump_dt_t old, struct ump_dt **out)
{
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    if (ndims <= 0 || !sizes || !subsizes || !starts) return UMP_ERR_INVALID;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return UMP_ERR_INVALID;
    for (int k = 0; k < ndims; k++)
        if (sizes[k] <= 0 || subsizes[k] <= 0 || subsizes[k] > sizes[k] || starts[k] < 0 ||
            starts[k] > sizes[k] - subsizes[k])
            return UMP_ERR_INVALID;
    /* innermost dimension first: the last in C order, the first in Fortran */
    struct ump_dt *cur = (struct ump_dt *)old;
    ump_dt_ref(cur);
    ptrdiff_t ext = ext_of(old);
    int rc = UMP_OK;
    for (int s = 0; s < ndims && rc == UMP_OK; s++) {
        int k = order == MPI_ORDER_C ? ndims - 1 - s : s;
        size_t bl = (size_t)subsizes[k];
        ptrdiff_t disp = (ptrdiff_t)starts[k] * ext;
        rc = place(&cur, 1, &bl, &disp, (ptrdiff_t)sizes[k] * ext);
        ext *= sizes[k];
    }
    if (rc != UMP_OK) {
        ump_dt_unref(cur);
        return rc;
    }
    int ni = 3 * ndims + 2;
    int *ints = malloc(sizeof(int) * (size_t)ni);
    if (!ints) {
        ump_dt_unref(cur);
        return UMP_ERR_NO_MEMORY;
    }
    ints[0] = ndims;
    memcpy(ints + 1, sizes, sizeof(int) * (size_t)ndims);
    memcpy(ints + 1 + ndims, subsizes, sizeof(int) * (size_t)ndims);
    memcpy(ints + 1 + 2 * ndims, starts, sizeof(int) * (size_t)ndims);
    ints[ni - 1] = order;
    rc = wrap_impl(MPI_COMBINER_SUBARRAY, cur, ni, ints, old, out);
    free(ints);
    return rc;
}

int ump_dt_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                  const int dargs[], const int psizes[], int order, ump_dt_t old,
                  struct ump_dt **out)
{
    CHECK_OUT(out);
    if (check_old(old)) return UMP_ERR_DATATYPE;
    if (size <= 0 || rank < 0 || rank >= size || ndims <= 0 || !gsizes || !distribs || !dargs ||
        !psizes)
        return UMP_ERR_INVALID;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return UMP_ERR_INVALID;
    long long nprocs = 1;
    for (int k = 0; k < ndims; k++) {
        if (gsizes[k] <= 0 || psizes[k] <= 0) return UMP_ERR_INVALID;
        nprocs *= psizes[k];
        if (nprocs > size) return UMP_ERR_INVALID;
        int d = distribs[k];
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
            return UMP_ERR_INVALID;
        if (d == MPI_DISTRIBUTE_NONE && psizes[k] != 1) return UMP_ERR_INVALID;
        if (dargs[k] != MPI_DISTRIBUTE_DFLT_DARG && dargs[k] <= 0) return UMP_ERR_INVALID;
        if (d == MPI_DISTRIBUTE_BLOCK && dargs[k] != MPI_DISTRIBUTE_DFLT_DARG &&
            (long long)dargs[k] * psizes[k] < gsizes[k])
            return UMP_ERR_INVALID;
    }
    if (nprocs != size) return UMP_ERR_INVALID;
    int *coords = malloc(sizeof(int) * (size_t)ndims);
    if (!coords) return UMP_ERR_NO_MEMORY;
    /* the process grid is row-major whatever the array order */
    for (int k = ndims - 1, r = rank; k >= 0; k--) {
        coords[k] = r % psizes[k];
        r /= psizes[k];
    }
    struct ump_dt *cur = (struct ump_dt *)old;
    ump_dt_ref(cur);
    ptrdiff_t ext = ext_of(old);
    int rc = UMP_OK;
    size_t *bl = NULL;
    ptrdiff_t *disp = NULL;
    for (int s = 0; s < ndims && rc == UMP_OK; s++) {
        int k = order == MPI_ORDER_C ? ndims - 1 - s : s;
        size_t g = (size_t)gsizes[k], p = (size_t)psizes[k], c = (size_t)coords[k];
        size_t nblk = 0;
        free(bl);
        free(disp);
        bl = NULL, disp = NULL;
        if (distribs[k] == MPI_DISTRIBUTE_CYCLIC) {
            size_t b = dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : (size_t)dargs[k];
            size_t nb = (g + b - 1) / b; /* blocks over the whole dimension */
            size_t mine = nb > c ? (nb - c + p - 1) / p : 0;
            bl = malloc((mine + 1) * sizeof(*bl));
            disp = malloc((mine + 1) * sizeof(*disp));
            if (!bl || !disp) {
                rc = UMP_ERR_NO_MEMORY;
                break;
            }
            for (size_t q = c; q < nb; q += p) {
                bl[nblk] = q == nb - 1 ? g - q * b : b;
                disp[nblk++] = (ptrdiff_t)(q * b) * ext;
            }
        } else {
            size_t b = distribs[k] == MPI_DISTRIBUTE_NONE     ? g
                       : dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p
                                                              : (size_t)dargs[k];
            size_t start = c * b;
            bl = malloc(sizeof(*bl));
            disp = malloc(sizeof(*disp));
            if (!bl || !disp) {
                rc = UMP_ERR_NO_MEMORY;
                break;
            }
            bl[0] = start < g ? UMP_MIN(b, g - start) : 0;
            disp[0] = (ptrdiff_t)start * ext;
            nblk = 1;
        }
        rc = place(&cur, nblk, bl, disp, (ptrdiff_t)g * ext);
        ext *= (ptrdiff_t)g;
    }
    free(bl);
    free(disp);
    free(coords);
    if (rc != UMP_OK) {
        ump_dt_unref(cur);
        return rc;
    }
    int ni = 4 * ndims + 4;
    int *ints = malloc(sizeof(int) * (size_t)ni);
    if (!ints) {
        ump_dt_unref(cur);
        return UMP_ERR_NO_MEMORY;
    }
    ints[0] = size, ints[1] = rank, ints[2] = ndims;
    memcpy(ints + 3, gsizes, sizeof(int) * (size_t)ndims);
    memcpy(ints + 3 + ndims, distribs, sizeof(int) * (size_t)ndims);
    memcpy(ints + 3 + 2 * ndims, dargs, sizeof(int) * (size_t)ndims);
    memcpy(ints + 3 + 3 * ndims, psizes, sizeof(int) * (size_t)ndims);
    ints[ni - 1] = order;
    rc = wrap_impl(MPI_COMBINER_DARRAY, cur, ni, ints, old, out);
    free(ints);
    return rc;
}

/* --- envelope and contents ---------------------------------------------- */

void ump_dt_envelope(ump_dt_t dt, int *ni, int *na, int *nd, int *combiner)
{
    *ni = dt->ni, *na = dt->na, *nd = dt->nd;
    *combiner = dt->predefined ? MPI_COMBINER_NAMED : dt->combiner;
}

int ump_dt_contents(ump_dt_t dt, int maxi, int maxa, int maxd, int ints[], ptrdiff_t aints[],
                    struct ump_dt *types[])
{
    if (dt->predefined) return UMP_ERR_INVALID;
    if (maxi < dt->ni || maxa < dt->na || maxd < dt->nd) return UMP_ERR_INVALID;
    if (dt->ni) memcpy(ints, dt->ints, sizeof(int) * (size_t)dt->ni);
    if (dt->na) memcpy(aints, dt->aints, sizeof(ptrdiff_t) * (size_t)dt->na);
    for (int k = 0; k < dt->nd; k++) {
        types[k] = dt->types[k];
        if (types[k]->predefined) continue;
        /* a new user handle: the type is usable again even if the user
         * had freed the handle it was created with */
        ump_dt_ref(types[k]);
        if (__atomic_add_fetch(&types[k]->handles, 1, __ATOMIC_ACQ_REL) == 1)
            types[k]->user_freed = false;
    }
    return UMP_OK;
}

/* --- element counts --------------------------------------------------------- */

/* Basic elements in 0 < rem < size bytes of one element, -1 if not whole. */
static long long part_elems(ump_dt_t t, size_t rem)
{
    if (t->predefined) {
        if (t->nbasic == 2 && t->size - sizeof(int) == rem) return 1;
        return -1;
    }
    switch (t->combiner) {
    case MPI_COMBINER_STRUCT: {
        long long n = 0;
        for (int k = 0; k < t->nd; k++) {
            ump_dt_t c = t->types[k];
            size_t s = (size_t)t->ints[1 + k] * c->size;
            if (rem >= s) {
                rem -= s;
                n += (long long)((size_t)t->ints[1 + k] * c->nbasic);
                continue;
            }
            long long r = ump_dt_elements(c, rem);
            return r < 0 ? -1 : n + r;
        }
        return n;
    }
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        return ump_dt_elements(t->impl, rem);
    default: /* every other constructor repeats its one old type */
        return t->nd == 1 ? ump_dt_elements(t->types[0], rem) : -1;
    }
}

long long ump_dt_elements(ump_dt_t dt, size_t bytes)
{
    if (dt->size == 0) return 0;
    size_t full = bytes / dt->size, rem = bytes % dt->size;
    long long n = (long long)(full * dt->nbasic);
    if (!rem) return n;
    long long r = part_elems(dt, rem);
    return r < 0 ? -1 : n + r;
}

static long long part_bytes(ump_dt_t t, size_t elems)
{
    if (t->predefined)
        return t->nbasic == 2 && elems == 1 ? (long long)(t->size - sizeof(int)) : -1;
    switch (t->combiner) {
    case MPI_COMBINER_STRUCT: {
        long long b = 0;
        for (int k = 0; k < t->nd; k++) {
            ump_dt_t c = t->types[k];
            size_t e = (size_t)t->ints[1 + k] * c->nbasic;
            if (elems >= e) {
                elems -= e;
                b += (long long)((size_t)t->ints[1 + k] * c->size);
                continue;
            }
            long long r = ump_dt_elements_bytes(c, elems);
            return r < 0 ? -1 : b + r;
        }
        return b;
    }
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        return ump_dt_elements_bytes(t->impl, elems);
    default:
        return t->nd == 1 ? ump_dt_elements_bytes(t->types[0], elems) : -1;
    }
}

long long ump_dt_elements_bytes(ump_dt_t dt, size_t elems)
{
    if (dt->nbasic == 0) return elems ? -1 : 0;
    size_t full = elems / dt->nbasic, rem = elems % dt->nbasic;
    long long b = (long long)(full * dt->size);
    if (!rem) return b;
    long long r = part_bytes(dt, rem);
    return r < 0 ? -1 : b + r;
}

/* --- overlapping entries ----------------------------------------------------- */

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
