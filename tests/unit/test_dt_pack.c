/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datatype engine against a naive reference: random nested types of
 * every constructor are built twice, once through src/dt and once as a
 * tree here; the tree is expanded into its type map (offset, length,
 * basic kind) by the MPI definitions, and pack, unpack, the cursor in
 * random pieces, iovec lists and signatures are compared with it.
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

/* --- the reference: a type tree and its type map -------------------------- */

enum {
    T_BASIC,
    T_CONTIG,
    T_VECTOR,
    T_HVECTOR,
    T_INDEXED,
    T_HINDEXED,
    T_IBLOCK,
    T_HIBLOCK,
    T_STRUCT,
    T_RESIZED,
    T_DUP,
    T_SUBARRAY,
    T_DARRAY,
    T_NKINDS
};

typedef struct tnode {
    int kind;
    int count, bl, stride;
    ptrdiff_t hstride, lb, ext;
    int bls[4], idisps[4];
    ptrdiff_t adisps[4];
    struct tnode *kids[4];
    /* subarray / darray (up to 3 dims) */
    int ndims, order, sizes[3], subsizes[3], starts[3];
    int psize, prank, distribs[3], dargs[3], psizes[3];
    MPI_Datatype basic;
    struct ump_dt *dt; /* the engine's type */
} tnode_t;

/* A type-map entry: data bytes [off, off + len) of one basic kind. */
typedef struct {
    ptrdiff_t off;
    size_t len;
    int kind;
} ent_t;

typedef struct {
    ent_t *e;
    size_t n, cap;
} map_t;

static void map_add(map_t *m, ptrdiff_t off, size_t len, int kind)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->e = realloc(m->e, m->cap * sizeof(*m->e));
        assert_non_null(m->e);
    }
    m->e[m->n++] = (ent_t){off, len, kind};
}

/* The reference extent: lb/ub per MPI 3.1 with resized bounds as markers
 * and struct padding. Computed recursively here from the definitions. */
typedef struct {
    ptrdiff_t lb, ub;   /* final bounds */
    int has_lb, has_ub; /* explicit (marker) bounds */
    int any;            /* has data */
    size_t align;
    /* while gathering: data-derived bounds */
    int dlb_set, dub_set;
    ptrdiff_t dlb, dub;
} bnd_t;

static bnd_t ref_bounds(const tnode_t *t);

static void bnd_add(bnd_t *b, bnd_t c, ptrdiff_t at)
{
    if (c.has_lb) {
        b->lb = b->has_lb && b->lb < c.lb + at ? b->lb : c.lb + at;
        b->has_lb = 1;
    } else if (c.any) {
        b->dlb = b->dlb_set && b->dlb < c.lb + at ? b->dlb : c.lb + at;
        b->dlb_set = 1;
    }
    if (c.has_ub) {
        b->ub = b->has_ub && b->ub > c.ub + at ? b->ub : c.ub + at;
        b->has_ub = 1;
    } else if (c.any) {
        b->dub = b->dub_set && b->dub > c.ub + at ? b->dub : c.ub + at;
        b->dub_set = 1;
    }
    b->any |= c.any;
    if (c.align > b->align) b->align = c.align;
}

static void bnd_final(bnd_t *b)
{
    if (!b->has_lb) b->lb = b->dlb_set ? b->dlb : 0;
    if (!b->has_ub) b->ub = b->dub_set ? b->dub : 0;
}

/* Calls fn(child, displacement) for every copy of a child in map order. */
typedef void (*visit_fn)(const tnode_t *c, ptrdiff_t at, void *arg);

static ptrdiff_t ref_extent(const tnode_t *t)
{
    bnd_t b = ref_bounds(t);
    return b.ub - b.lb;
}

static void visit(const tnode_t *t, visit_fn fn, void *arg)
{
    const tnode_t *c = t->kids[0];
    ptrdiff_t e = t->kind == T_STRUCT || t->kind == T_BASIC ? 0 : ref_extent(c);
    switch (t->kind) {
    case T_CONTIG:
        for (int i = 0; i < t->count; i++)
            fn(c, i * e, arg);
        break;
    case T_VECTOR:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bl; j++)
                fn(c, ((ptrdiff_t)i * t->stride + j) * e, arg);
        break;
    case T_HVECTOR:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bl; j++)
                fn(c, i * t->hstride + j * e, arg);
        break;
    case T_INDEXED:
    case T_IBLOCK:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < (t->kind == T_IBLOCK ? t->bl : t->bls[i]); j++)
                fn(c, ((ptrdiff_t)t->idisps[i] + j) * e, arg);
        break;
    case T_HINDEXED:
    case T_HIBLOCK:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < (t->kind == T_HIBLOCK ? t->bl : t->bls[i]); j++)
                fn(c, t->adisps[i] + j * e, arg);
        break;
    case T_STRUCT:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bls[i]; j++)
                fn(t->kids[i], t->adisps[i] + j * ref_extent(t->kids[i]), arg);
        break;
    case T_RESIZED:
    case T_DUP:
        fn(c, 0, arg);
        break;
    case T_SUBARRAY: {
        /* every index tuple of the subarray in memory order */
        int n = t->ndims, idx[3] = {0, 0, 0};
        ptrdiff_t stride[3];
        for (int k = 0, inner = 1; k < n; k++) {
            int d = t->order == MPI_ORDER_C ? n - 1 - k : k;
            stride[d] = inner;
            inner *= t->sizes[d];
        }
        for (;;) {
            ptrdiff_t lin = 0;
            for (int k = 0; k < n; k++)
                lin += (ptrdiff_t)(t->starts[k] + idx[k]) * stride[k];
            fn(c, lin * e, arg);
            int k;
            for (k = 0; k < n; k++) {
                int d = t->order == MPI_ORDER_C ? n - 1 - k : k;
                if (++idx[d] < t->subsizes[d]) break;
                idx[d] = 0;
            }
            if (k == n) break;
        }
        break;
    }
    case T_DARRAY: {
        int n = t->ndims, coord[3], idx[3] = {0, 0, 0};
        for (int k = n - 1, r = t->prank; k >= 0; k--) {
            coord[k] = r % t->psizes[k];
            r /= t->psizes[k];
        }
        ptrdiff_t stride[3];
        for (int k = 0, inner = 1; k < n; k++) {
            int d = t->order == MPI_ORDER_C ? n - 1 - k : k;
            stride[d] = inner;
            inner *= t->sizes[d];
        }
        for (;;) {
            int mine = 1;
            ptrdiff_t lin = 0;
            for (int k = 0; k < n; k++) {
                int g = t->sizes[k], p = t->psizes[k], owner;
                if (t->distribs[k] == MPI_DISTRIBUTE_NONE) {
                    owner = 0;
                } else if (t->distribs[k] == MPI_DISTRIBUTE_BLOCK) {
                    int b = t->dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : t->dargs[k];
                    owner = idx[k] / b;
                } else {
                    int b = t->dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : t->dargs[k];
                    owner = (idx[k] / b) % p;
                }
                if (owner != coord[k]) mine = 0;
                lin += (ptrdiff_t)idx[k] * stride[k];
            }
            if (mine) fn(c, lin * e, arg);
            int k;
            for (k = 0; k < n; k++) {
                int d = t->order == MPI_ORDER_C ? n - 1 - k : k;
                if (++idx[d] < t->sizes[d]) break;
                idx[d] = 0;
            }
            if (k == n) break;
        }
        break;
    }
    }
}

typedef struct {
    map_t *m;
    ptrdiff_t at;
} mapctx_t;

static void ref_map(const tnode_t *t, ptrdiff_t at, map_t *m);

static void map_visit(const tnode_t *c, ptrdiff_t at, void *arg)
{
    mapctx_t *x = arg;
    ref_map(c, x->at + at, x->m);
}

static void ref_map(const tnode_t *t, ptrdiff_t at, map_t *m)
{
    if (t->kind == T_BASIC) {
        if (t->basic == MPI_SHORT_INT) { /* {short; int} with a hole */
            map_add(m, at, sizeof(short), (int)MPI_SHORT->kind);
            map_add(m,
                    at + offsetof(
                             struct {
                                 short s;
                                 int i;
                             },
                             i),
                    sizeof(int), (int)MPI_INT->kind);
        } else {
            map_add(m, at, t->basic->size, (int)t->basic->kind);
        }
        return;
    }
    mapctx_t x = {m, at};
    visit(t, map_visit, &x);
}

typedef struct {
    bnd_t *b;
} bndctx_t;

static void bnd_visit(const tnode_t *c, ptrdiff_t at, void *arg)
{
    bnd_add(((bndctx_t *)arg)->b, ref_bounds(c), at);
}

static bnd_t ref_bounds(const tnode_t *t)
{
    bnd_t b = {0};
    if (t->kind == T_BASIC) {
        b.lb = 0;
        b.ub = (ptrdiff_t)(t->basic->ub);
        b.any = 1;
        b.align = t->basic->align;
        return b;
    }
    if (t->kind == T_RESIZED) {
        b = ref_bounds(t->kids[0]);
        b.lb = t->lb, b.ub = t->lb + t->ext, b.has_lb = b.has_ub = 1;
        return b;
    }
    if (t->kind == T_SUBARRAY || t->kind == T_DARRAY) {
        /* MPI: lb 0, extent of the whole array, as explicit bounds */
        b = ref_bounds(t->kids[0]);
        ptrdiff_t n = 1;
        for (int k = 0; k < t->ndims; k++)
            n *= t->sizes[k];
        ptrdiff_t e = b.ub - b.lb;
        b.lb = 0, b.ub = n * e;
        b.has_lb = b.has_ub = 1;
        return b;
    }
    bndctx_t x = {&b};
    b.align = 1;
    visit(t, bnd_visit, &x);
    bnd_final(&b);
    if (t->kind == T_STRUCT && !b.has_ub && b.align > 1) {
        ptrdiff_t ext = b.ub - b.lb, r = ext % (ptrdiff_t)b.align;
        if (ext > 0 && r) b.ub += (ptrdiff_t)b.align - r;
    }
    return b;
}

/* --- random types ---------------------------------------------------------- */

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) & 0xffffff;
}
static int rnd_in(int lo, int hi)
{
    return lo + (int)(rnd() % (unsigned)(hi - lo + 1));
}
/* A count: mostly 1..hi, sometimes 0 (empty parts must work too). */
static int rnd_cnt(int hi)
{
    return rnd() % 8 ? rnd_in(1, hi) : 0;
}

static MPI_Datatype basics[] = {MPI_CHAR,   MPI_SHORT,     MPI_INT,
                                MPI_DOUBLE, MPI_SHORT_INT, MPI_DOUBLE_INT};

static void tfree(tnode_t *t)
{
    if (!t) return;
    for (int k = 0; k < 4; k++)
        tfree(t->kids[k]);
    if (t->dt) ump_dt_unref(t->dt);
    free(t);
}

static tnode_t *gen(int depth)
{
    tnode_t *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    int kind = depth <= 0 ? T_BASIC : rnd_in(0, T_NKINDS - 1);
    if (kind == T_BASIC || (depth <= 1 && (kind == T_SUBARRAY || kind == T_DARRAY) && rnd() % 2)) {
        t->kind = T_BASIC;
        t->basic = basics[rnd() % (sizeof(basics) / sizeof(basics[0]))];
        t->dt = t->basic;
        return t;
    }
    t->kind = kind;
    int nk = kind == T_STRUCT ? rnd_cnt(3) : 1;
    for (int k = 0; k < (kind == T_STRUCT ? nk : 1); k++)
        t->kids[k] = gen(depth - 1 - (rnd() % 4 == 0));
    ump_dt_t c = t->kids[0] ? t->kids[0]->dt : NULL;
    int rc = -1;
    t->count = rnd_cnt(3);
    switch (kind) {
    case T_CONTIG:
        rc = ump_dt_contiguous(t->count, c, &t->dt);
        break;
    case T_VECTOR:
        t->bl = rnd_cnt(3);
        t->stride = rnd_in(-4, 4);
        rc = ump_dt_vector(t->count, t->bl, t->stride, c, &t->dt);
        break;
    case T_HVECTOR:
        t->bl = rnd_cnt(3);
        t->hstride = rnd_in(-40, 40);
        rc = ump_dt_hvector(t->count, t->bl, t->hstride, c, &t->dt);
        break;
    case T_INDEXED:
    case T_HINDEXED:
    case T_IBLOCK:
    case T_HIBLOCK:
        t->bl = rnd_cnt(3);
        for (int i = 0; i < t->count; i++) {
            t->bls[i] = rnd_cnt(3);
            t->idisps[i] = rnd_in(-5, 5);
            t->adisps[i] = rnd_in(-30, 30);
        }
        if (rnd() % 2 && t->count > 1) { /* sometimes touching blocks, to exercise merging */
            for (int i = 1; i < t->count; i++) {
                t->idisps[i] = t->idisps[i - 1] + t->bls[i - 1];
                t->adisps[i] = t->adisps[i - 1] + (ptrdiff_t)t->bls[i - 1] * ump_dt_extent(c);
            }
        }
        if (kind == T_INDEXED) rc = ump_dt_indexed(t->count, t->bls, t->idisps, c, &t->dt);
        if (kind == T_HINDEXED) rc = ump_dt_hindexed(t->count, t->bls, t->adisps, c, &t->dt);
        if (kind == T_IBLOCK) rc = ump_dt_indexed_block(t->count, t->bl, t->idisps, c, &t->dt);
        if (kind == T_HIBLOCK) rc = ump_dt_hindexed_block(t->count, t->bl, t->adisps, c, &t->dt);
        break;
    case T_STRUCT: {
        t->count = nk;
        ump_dt_t ty[4];
        ptrdiff_t at = rnd_in(-16, 16);
        for (int i = 0; i < nk; i++) {
            t->bls[i] = rnd_cnt(2);
            t->adisps[i] = rnd() % 3 ? at : rnd_in(-30, 30); /* mostly packed fields */
            at = t->adisps[i] + t->bls[i] * ump_dt_extent(t->kids[i]->dt);
            ty[i] = t->kids[i]->dt;
        }
        rc = ump_dt_struct(nk, t->bls, t->adisps, ty, &t->dt);
        break;
    }
    case T_RESIZED:
        t->lb = rnd_in(-12, 12);
        t->ext = rnd_in(-4, 40);
        rc = ump_dt_resized(c, t->lb, t->ext, &t->dt);
        break;
    case T_DUP:
        rc = ump_dt_dup(c, &t->dt);
        break;
    case T_SUBARRAY:
        t->ndims = rnd_in(1, 3);
        t->order = rnd() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        for (int k = 0; k < t->ndims; k++) {
            t->sizes[k] = rnd_in(1, 4);
            t->subsizes[k] = rnd_in(1, t->sizes[k]);
            t->starts[k] = rnd_in(0, t->sizes[k] - t->subsizes[k]);
        }
        rc = ump_dt_subarray(t->ndims, t->sizes, t->subsizes, t->starts, t->order, c, &t->dt);
        break;
    case T_DARRAY:
        t->ndims = rnd_in(1, 3);
        t->order = rnd() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        t->psize = 1;
        for (int k = 0; k < t->ndims; k++) {
            t->sizes[k] = rnd_in(1, 7);
            t->distribs[k] = MPI_DISTRIBUTE_BLOCK + (int)(rnd() % 3);
            t->psizes[k] = t->distribs[k] == MPI_DISTRIBUTE_NONE ? 1 : rnd_in(1, 3);
            t->dargs[k] = MPI_DISTRIBUTE_DFLT_DARG;
            if (t->distribs[k] == MPI_DISTRIBUTE_CYCLIC && rnd() % 2) t->dargs[k] = rnd_in(1, 3);
            if (t->distribs[k] == MPI_DISTRIBUTE_BLOCK && rnd() % 2)
                t->dargs[k] = (t->sizes[k] + t->psizes[k] - 1) / t->psizes[k] + rnd_in(0, 1);
            t->psize *= t->psizes[k];
        }
        t->prank = rnd_in(0, t->psize - 1);
        rc = ump_dt_darray(t->psize, t->prank, t->ndims, t->sizes, t->distribs, t->dargs, t->psizes,
                           t->order, c, &t->dt);
        break;
    }
    assert_int_equal(rc, UMP_OK);
    assert_int_equal(ump_dt_commit(t->dt), UMP_OK);
    return t;
}

static const char *knames[] = {"basic",    "contig",   "vector",  "hvector", "indexed",
                               "hindexed", "iblock",   "hiblock", "struct",  "resized",
                               "dup",      "subarray", "darray"};

/* Prints the tree, for a failing case. */
static void dump(const tnode_t *t, int ind)
{
    const struct ump_dt *d = t->dt;
    fprintf(stderr, "%*s%s count=%d bl=%d stride=%d hstride=%td lb=%td ext=%td nd=%d order=%d", ind,
            "", t->kind == T_BASIC ? t->basic->name : knames[t->kind], t->count, t->bl, t->stride,
            t->hstride, t->lb, t->ext, t->ndims, t->order);
    fprintf(stderr, " bls=[%d %d %d %d] id=[%d %d %d %d] ad=[%td %td %td %td]", t->bls[0],
            t->bls[1], t->bls[2], t->bls[3], t->idisps[0], t->idisps[1], t->idisps[2], t->idisps[3],
            t->adisps[0], t->adisps[1], t->adisps[2], t->adisps[3]);
    for (int k = 0; k < t->ndims; k++)
        fprintf(stderr, " dim%d(%d %d %d | %d %d %d)", k, t->sizes[k], t->subsizes[k], t->starts[k],
                t->distribs[k], t->dargs[k], t->psizes[k]);
    if (t->kind == T_DARRAY) fprintf(stderr, " rank %d/%d", t->prank, t->psize);
    fprintf(stderr, "\n%*s  -> size %zu lb %td ub %td tlb %td tub %td mk %d%d\n", ind, "", d->size,
            d->lb, d->ub, d->true_lb, d->true_ub, d->has_lb, d->has_ub);
    for (int k = 0; k < 4; k++)
        if (t->kids[k]) dump(t->kids[k], ind + 2);
}

/* Prints the engine's layout, for a failing case. */
static void dl_dump(const ump_dt_dl_t *n, int ind)
{
    fprintf(stderr, "%*skind %d count %zu size %zu nruns %zu off %td stride %td\n", ind, "",
            n->kind, n->count, n->size, n->nruns, n->off, n->stride);
    if (n->kind == UMP_DL_VEC || n->kind == UMP_DL_BLK) dl_dump(n->child, ind + 2);
    if (n->kind == UMP_DL_STRUCT)
        for (size_t k = 0; k < n->count; k++)
            dl_dump(n->kids[k], ind + 2);
}

/* --- comparisons -------------------------------------------------------------- */

/* The map of count elements, each shifted by the (engine) extent. */
static void ref_full_map(const tnode_t *t, size_t count, map_t *m)
{
    for (size_t k = 0; k < count; k++)
        ref_map(t, (ptrdiff_t)k * ump_dt_extent(t->dt), m);
}

static void check_one(tnode_t *t, size_t count)
{
    ump_dt_t dt = t->dt;
    map_t m = {0};
    ref_map(t, 0, &m);
    /* facts against the reference */
    size_t size = 0;
    ptrdiff_t tlb = 0, tub = 0;
    for (size_t k = 0; k < m.n; k++) {
        size += m.e[k].len;
        if (k == 0 || m.e[k].off < tlb) tlb = m.e[k].off;
        if (k == 0 || m.e[k].off + (ptrdiff_t)m.e[k].len > tub)
            tub = m.e[k].off + (ptrdiff_t)m.e[k].len;
    }
    bnd_t b = ref_bounds(t);
    if (ump_dt_lb(dt) != b.lb || ump_dt_extent(dt) != b.ub - b.lb || dt->size != size ||
        ump_dt_true_lb(dt) != tlb) {
        dump(t, 0);
        fprintf(stderr, "ref: size %zu lb %td ub %td tlb %td tub %td\n", size, b.lb, b.ub, tlb,
                tub);
    }
    assert_int_equal(dt->size, size);
    assert_int_equal(ump_dt_true_lb(dt), tlb);
    assert_int_equal(ump_dt_true_extent(dt), tub - tlb);
    {
        assert_int_equal(ump_dt_lb(dt), b.lb);
        assert_int_equal(ump_dt_extent(dt), b.ub - b.lb);
    }
    /* a buffer covering every byte the elements touch, with a margin */
    m.n = 0;
    ref_full_map(t, count, &m);
    ptrdiff_t lo = 0, hi = 1;
    for (size_t k = 0; k < m.n; k++) {
        if (m.e[k].off < lo) lo = m.e[k].off;
        if (m.e[k].off + (ptrdiff_t)m.e[k].len > hi) hi = m.e[k].off + (ptrdiff_t)m.e[k].len;
    }
    size_t span = (size_t)(hi - lo) + 64;
    unsigned char *mem = malloc(span), *mem2 = malloc(span), *mem3 = malloc(span);
    unsigned char *buf = mem - lo + 32, *buf2 = mem2 - lo + 32, *buf3 = mem3 - lo + 32;
    size_t total = count * size;
    unsigned char *ref = malloc(total + 1), *out = malloc(total + 1), *out2 = malloc(total + 1);
    for (size_t k = 0; k < span; k++)
        mem[k] = (unsigned char)(rnd() & 0xff);
    /* reference pack */
    size_t p = 0;
    for (size_t k = 0; k < m.n; k++) {
        memcpy(ref + p, buf + m.e[k].off, m.e[k].len);
        p += m.e[k].len;
    }
    assert_int_equal(p, total);
    /* one-shot pack */
    memset(out, 0xEE, total + 1);
    assert_int_equal(ump_dt_pack(buf, count, dt, 0, out, total), UMP_OK);
    assert_memory_equal(out, ref, total);
    assert_int_equal(out[total], 0xEE);
    /* cursor in random pieces, and random ranges through ump_dt_pack */
    ump_dt_cursor_t cur;
    assert_int_equal(ump_dt_cursor_init(&cur, buf, count, dt, 0), UMP_OK);
    memset(out2, 0, total + 1);
    for (size_t at = 0; at < total;) {
        size_t n = 1 + rnd() % 23;
        ump_dt_cursor_t copy = cur; /* cursors may move */
        size_t got = ump_dt_cursor_pack(&copy, out2 + at, n);
        cur = copy;
        assert_true(got == n || at + got == total);
        at += got;
    }
    assert_true(ump_dt_cursor_done(&cur));
    assert_memory_equal(out2, ref, total);
    if (total) {
        size_t first = rnd() % total, len = rnd() % (total - first + 1);
        memset(out2, 0, total);
        assert_int_equal(ump_dt_pack(buf, count, dt, first, out2, len), UMP_OK);
        assert_memory_equal(out2, ref + first, len);
        ump_dt_cursor_t c2;
        assert_int_equal(ump_dt_cursor_init(&c2, buf, count, dt, first), UMP_OK);
        assert_int_equal(ump_dt_cursor_pack(&c2, out2, total), total - first);
        assert_memory_equal(out2, ref + first, total - first);
    }
    assert_int_equal(ump_dt_pack(buf, count, dt, total, out, 1), UMP_ERR_INVALID);
    /* unpack: reference writes in map order (later entries win on overlap) */
    memset(mem2, 0x5A, span);
    memset(mem3, 0x5A, span);
    p = 0;
    for (size_t k = 0; k < m.n; k++) {
        memcpy(buf3 + m.e[k].off, ref + p, m.e[k].len);
        p += m.e[k].len;
    }
    ump_dt_cursor_t cu;
    assert_int_equal(ump_dt_cursor_init(&cu, buf2, count, dt, 0), UMP_OK);
    for (size_t at = 0; at < total;) {
        size_t n = 1 + rnd() % 31;
        at += ump_dt_cursor_unpack(&cu, ref + at, n);
    }
    assert_memory_equal(mem2, mem3, span);
    memset(mem2, 0x5A, span);
    assert_int_equal(ump_dt_unpack(buf2, count, dt, 0, ref, total), UMP_OK);
    assert_memory_equal(mem2, mem3, span);
    /* iovecs, in random batches, cover exactly the reference runs */
    map_t runs = {0};
    for (size_t k = 0; k < m.n; k++) {
        if (runs.n && runs.e[runs.n - 1].off + (ptrdiff_t)runs.e[runs.n - 1].len == m.e[k].off)
            runs.e[runs.n - 1].len += m.e[k].len;
        else if (m.e[k].len)
            map_add(&runs, m.e[k].off, m.e[k].len, 0);
    }
    map_t got = {0};
    assert_int_equal(ump_dt_cursor_init(&cur, buf, count, dt, 0), UMP_OK);
    while (!ump_dt_cursor_done(&cur)) {
        struct iovec iov[4];
        int niov = 0, max = 1 + (int)(rnd() % 4);
        size_t want = 1 + rnd() % 64;
        size_t done = ump_dt_cursor_iov(&cur, want, iov, max, &niov);
        assert_true(done > 0);
        assert_true(done <= want);
        size_t sum = 0;
        for (int k = 0; k < niov; k++) {
            sum += iov[k].iov_len;
            ptrdiff_t off = (unsigned char *)iov[k].iov_base - buf;
            if (got.n && got.e[got.n - 1].off + (ptrdiff_t)got.e[got.n - 1].len == off)
                got.e[got.n - 1].len += iov[k].iov_len;
            else
                map_add(&got, off, iov[k].iov_len, 0);
        }
        assert_int_equal(sum, done);
        assert_true(niov <= max);
    }
    assert_int_equal(got.n, runs.n);
    for (size_t k = 0; k < runs.n; k++) {
        assert_int_equal(got.e[k].off, runs.e[k].off);
        assert_int_equal(got.e[k].len, runs.e[k].len);
    }
    /* nblocks per element never undercounts the merged runs of one element */
    if (count == 1 && dt->size && dt->nblocks < runs.n) {
        dump(t, 0);
        fprintf(stderr, "nblocks %zu runs %zu\n", dt->nblocks, runs.n);
        dl_dump(dt->dl, 0);
    }
    if (count == 1 && dt->size) assert_true(dt->nblocks >= runs.n);
    if (count == 1) {
        /* and equals the runs of the map, merged only where the engine does */
        size_t leaves = 0;
        for (size_t k = 0; k < m.n; k++)
            leaves += m.e[k].len > 0;
        assert_true(dt->nblocks <= leaves);
    }
    /* the signature equals that of a flat struct of the same basic types */
    if (m.n && m.n < 4096) {
        int *bl = malloc(m.n * sizeof(int));
        ptrdiff_t *d = malloc(m.n * sizeof(ptrdiff_t));
        ump_dt_t *ty = malloc(m.n * sizeof(ump_dt_t));
        size_t nt = 0;
        for (size_t k = 0; k < m.n; k++) {
            MPI_Datatype b = NULL;
            for (size_t q = 0; !b && q < sizeof(basics) / sizeof(basics[0]); q++)
                if ((int)basics[q]->kind == m.e[k].kind && basics[q]->nbasic == 1) b = basics[q];
            if (!b && m.e[k].kind == UMP_DT_DOUBLE_INT) b = MPI_DOUBLE_INT;
            assert_non_null(b);
            bl[nt] = 1, d[nt] = (ptrdiff_t)(8 * nt), ty[nt++] = b;
        }
        struct ump_dt *flat;
        assert_int_equal(ump_dt_struct((int)nt, bl, d, ty, &flat), UMP_OK);
        assert_true(ump_dt_sig(flat, 1) == ump_dt_sig(dt, count));
        assert_int_equal(flat->nbasic, count * dt->nbasic);
        /* changing one element's kind changes the hash */
        ty[nt / 2] = ty[nt / 2] == MPI_CHAR ? MPI_SHORT : MPI_CHAR;
        struct ump_dt *other;
        assert_int_equal(ump_dt_struct((int)nt, bl, d, ty, &other), UMP_OK);
        assert_true(ump_dt_sig(other, 1) != ump_dt_sig(dt, count));
        ump_dt_unref(flat);
        ump_dt_unref(other);
        free(bl);
        free(d);
        free(ty);
    }
    /* element counts of a prefix agree with the map */
    if (total) {
        size_t cut = rnd() % (total + 1), at = 0;
        long long want = 0;
        for (size_t k = 0; k < m.n && at < cut; k++) {
            size_t l = m.e[k].len;
            int pair = m.e[k].kind == UMP_DT_DOUBLE_INT;
            if (at + l <= cut) {
                want += pair ? 2 : 1;
                at += l;
            } else if (pair && cut - at == sizeof(double)) {
                want += 1;
                at = cut;
            } else {
                want = -1;
                break;
            }
        }
        assert_int_equal(ump_dt_elements(dt, cut), want);
        if (want >= 0 && cut == total)
            assert_int_equal(ump_dt_elements_bytes(dt, (size_t)want), total);
    }
    free(runs.e);
    free(got.e);
    free(m.e);
    free(mem);
    free(mem2);
    free(mem3);
    free(ref);
    free(out);
    free(out2);
}

static void test_random_types(void **state)
{
    (void)state;
    const char *seed = getenv("UMP_TEST_SEED");
    rnd_state = seed ? (unsigned)strtoul(seed, NULL, 0) : 20261121u;
    clock_t t0 = clock();
    int n = 0;
    for (; n < 20000 && (clock() - t0) < 6 * CLOCKS_PER_SEC; n++) {
        tnode_t *t = gen(rnd_in(1, 5));
        check_one(t, (size_t)rnd_cnt(3));
        tfree(t);
    }
    print_message("%d random types checked\n", n);
    assert_true(n >= 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
