/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_layout.c - building the compact layout (dataloop) of a new type from
 * its blocks, merging adjacent blocks so that, e.g., a vector whose stride
 * equals its block is one contiguous run, and recognising regular
 * displacements as strided vectors.
 */
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"
#include "util/util.h"

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
const ump_dt_dl_t *ump_dt_dl_vec(struct ump_dt *t, size_t count, ptrdiff_t stride, ptrdiff_t off,
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
        if (m == 1 || arith(m, d)) return ump_dt_dl_vec(t, m, m > 1 ? d[1] - d[0] : 0, d[0], leaf);
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

/* Layout of n blocks (in stream order). */
const ump_dt_dl_t *ump_dt_dl_blocks(struct ump_dt *t, size_t n, const ump_dt_blk_t *b)
{
    size_t m = 0;
    bool runs = true;
    for (size_t k = 0; k < n; k++) {
        if (!b[k].bl || !b[k].type->size) continue;
        ptrdiff_t o;
        const ump_dt_dl_t *dl = b[k].type->dl;
        if (!is_run(dl, &o) ||
            (b[k].bl > 1 && ump_dt_extent(b[k].type) != (ptrdiff_t)b[k].type->size))
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
            kid = ump_dt_dl_vec(t, b[k].bl, ump_dt_extent(b[k].type), 0, b[k].type->dl);
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
            res = ump_dt_dl_vec(t, j, j > 1 ? d[1] - d[0] : 0, d[0], kids[0]);
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
