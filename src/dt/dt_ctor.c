/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_ctor.c - the type constructors: contiguous, vector, hvector, the
 * indexed family, struct, resized and dup. Each checks its arguments,
 * builds the layout and the facts and records its arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"

int ump_dt_check_old(ump_dt_t old)
{
    return ump_dt_valid(old) && !old->user_freed ? UMP_OK : UMP_ERR_DATATYPE;
}

/* n_out blocks at k*stride, each bl copies of old at old's extent. */
static int make_hvector(int combiner, size_t count, size_t bl, ptrdiff_t stride, ump_dt_t old,
                        struct ump_dt **out)
{
    struct ump_dt *t = ump_dt_new(combiner);
    if (!t) return UMP_ERR_NO_MEMORY;
    ump_dt_acc_t a;
    ump_dt_acc_init(&a);
    ump_dt_acc_add(&a, old, count, stride, bl, ump_dt_extent(old), 0);
    const ump_dt_dl_t *blkdl = ump_dt_dl_vec(t, bl, ump_dt_extent(old), 0, old->dl);
    int rc = ump_dt_acc_finish(t, &a, ump_dt_dl_vec(t, count, stride, 0, blkdl), false);
    if (rc != UMP_OK) goto err;
    *out = t;
    return UMP_OK;
err:
    ump_dt_release(t);
    return rc;
}

int ump_dt_make_blocks(int combiner, size_t n, const ump_dt_blk_t *b, bool pad, struct ump_dt **out)
{
    struct ump_dt *t = ump_dt_new(combiner);
    if (!t) return UMP_ERR_NO_MEMORY;
    ump_dt_acc_t a;
    ump_dt_acc_init(&a);
    for (size_t k = 0; k < n; k++)
        ump_dt_acc_add(&a, b[k].type, 1, 0, b[k].bl, ump_dt_extent(b[k].type), b[k].disp);
    int rc = ump_dt_acc_finish(t, &a, ump_dt_dl_blocks(t, n, b), pad);
    if (rc != UMP_OK) goto err;
    *out = t;
    return UMP_OK;
err:
    ump_dt_release(t);
    return rc;
}

#define CHECK_COUNT(n)                                                                             \
    do {                                                                                           \
        if ((n) < 0) return UMP_ERR_COUNT;                                                         \
    } while (0)
#define CHECK_OUT(o)                                                                               \
    do {                                                                                           \
        if (!(o)) return UMP_ERR_INVALID;                                                          \
    } while (0)

int ump_dt_contiguous(int count, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_OUT(out);
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = NULL;
    int rc =
        make_hvector(UMP_DT_COMBINER_CONTIGUOUS, (size_t)count, 1, ump_dt_extent(old), old, &t);
    rc = ump_dt_with_contents(rc, &t, 1, &count, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_vector(int count, int blocklen, int stride, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_COUNT(blocklen);
    CHECK_OUT(out);
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = NULL;
    int rc = make_hvector(UMP_DT_COMBINER_VECTOR, (size_t)count, (size_t)blocklen,
                          (ptrdiff_t)stride * ump_dt_extent(old), old, &t);
    int ints[3] = {count, blocklen, stride};
    rc = ump_dt_with_contents(rc, &t, 3, ints, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_hvector(int count, int blocklen, ptrdiff_t stride, ump_dt_t old, struct ump_dt **out)
{
    CHECK_COUNT(count);
    CHECK_COUNT(blocklen);
    CHECK_OUT(out);
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = NULL;
    int rc =
        make_hvector(UMP_DT_COMBINER_HVECTOR, (size_t)count, (size_t)blocklen, stride, old, &t);
    int ints[2] = {count, blocklen};
    rc = ump_dt_with_contents(rc, &t, 2, ints, 1, &stride, 1, &old);
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
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    if (count && ((bls == NULL && bl < 0) || (!idisps && !adisps))) return UMP_ERR_INVALID;
    CHECK_COUNT(bl);
    /* calloc: with count 0 ump_dt_make_blocks reads no entry, but GCC's
     * flow analysis cannot see that. */
    ump_dt_blk_t *b = calloc((size_t)count + 1, sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    ptrdiff_t ext = ump_dt_extent(old);
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
    int rc = ump_dt_make_blocks(combiner, (size_t)count, b, false, &t);
    free(b);
    if (rc != UMP_OK) return rc;
    /* contents: count, then block lengths (or the one), then int displacements */
    int ni = 1 + (bls ? count : 1) + (idisps ? count : 0);
    int *ints = malloc(sizeof(int) * (size_t)ni);
    if (!ints) {
        ump_dt_release(t);
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
    rc = ump_dt_with_contents(UMP_OK, &t, ni, ints, adisps ? count : 0, adisps, 1, &old);
    free(ints);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_indexed(int count, const int blocklens[], const int disps[], ump_dt_t old,
                   struct ump_dt **out)
{
    if (count > 0 && !blocklens) return UMP_ERR_INVALID;
    return indexed_common(UMP_DT_COMBINER_INDEXED, count, blocklens, 0, disps, NULL, old, out);
}

int ump_dt_hindexed(int count, const int blocklens[], const ptrdiff_t disps[], ump_dt_t old,
                    struct ump_dt **out)
{
    if (count > 0 && !blocklens) return UMP_ERR_INVALID;
    return indexed_common(UMP_DT_COMBINER_HINDEXED, count, blocklens, 0, NULL, disps, old, out);
}

int ump_dt_indexed_block(int count, int blocklen, const int disps[], ump_dt_t old,
                         struct ump_dt **out)
{
    if (count > 0 && !disps) return UMP_ERR_INVALID;
    return indexed_common(UMP_DT_COMBINER_INDEXED_BLOCK, count, NULL, blocklen, disps, NULL, old,
                          out);
}

int ump_dt_hindexed_block(int count, int blocklen, const ptrdiff_t disps[], ump_dt_t old,
                          struct ump_dt **out)
{
    if (count > 0 && !disps) return UMP_ERR_INVALID;
    return indexed_common(UMP_DT_COMBINER_HINDEXED_BLOCK, count, NULL, blocklen, NULL, disps, old,
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
        if (ump_dt_check_old(types[k])) return UMP_ERR_DATATYPE;
    }
    ump_dt_blk_t *b = malloc(((size_t)count + 1) * sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    for (int k = 0; k < count; k++)
        b[k] = (ump_dt_blk_t){disps[k], (size_t)blocklens[k], types[k]};
    struct ump_dt *t = NULL;
    int rc = ump_dt_make_blocks(UMP_DT_COMBINER_STRUCT, (size_t)count, b, true, &t);
    free(b);
    int *ints = malloc(sizeof(int) * ((size_t)count + 1));
    if (rc == UMP_OK && !ints) {
        ump_dt_release(t);
        rc = UMP_ERR_NO_MEMORY;
    }
    if (rc == UMP_OK) {
        ints[0] = count;
        if (count) memcpy(ints + 1, blocklens, sizeof(int) * (size_t)count);
        rc = ump_dt_with_contents(rc, &t, count + 1, ints, count, disps, count, types);
    }
    free(ints);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_resized(ump_dt_t old, ptrdiff_t lb, ptrdiff_t extent, struct ump_dt **out)
{
    CHECK_OUT(out);
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = ump_dt_copy(UMP_DT_COMBINER_RESIZED, old);
    if (!t) return UMP_ERR_NO_MEMORY;
    t->lb = lb;
    t->ub = lb + extent;
    t->has_lb = t->has_ub = true;
    t->extent = (size_t)extent;
    t->is_contig = t->size == 0 || (t->nblocks == 1 && extent == (ptrdiff_t)t->size);
    t->contiguous = t->is_contig && (t->size == 0 || t->true_lb == 0);
    ptrdiff_t a[2] = {lb, extent};
    int rc = ump_dt_with_contents(UMP_OK, &t, 0, NULL, 2, a, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

int ump_dt_dup(ump_dt_t old, struct ump_dt **out)
{
    CHECK_OUT(out);
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    struct ump_dt *t = ump_dt_copy(UMP_DT_COMBINER_DUP, old);
    if (!t) return UMP_ERR_NO_MEMORY;
    t->committed = old->committed; /* the duplicate of a committed type is committed */
    int rc = ump_dt_with_contents(UMP_OK, &t, 0, NULL, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}
