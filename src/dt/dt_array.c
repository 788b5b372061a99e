/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_array.c - the array constructors, subarray and darray: the part of a
 * multi-dimensional array one process holds, built dimension by dimension
 * from the other constructors and wrapped under its own combiner.
 */
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"
#include "util/util.h"

/* Wraps the type `impl` built by subarray/darray under their combiner. */
static int wrap_impl(int combiner, struct ump_dt *impl, int ni, const int *ints, ump_dt_t old,
                     struct ump_dt **out)
{
    struct ump_dt *t = ump_dt_copy(combiner, impl);
    if (!t) {
        ump_dt_unref(impl);
        return UMP_ERR_NO_MEMORY;
    }
    t->impl = impl; /* takes impl's reference */
    int rc = ump_dt_with_contents(UMP_OK, &t, ni, ints, 0, NULL, 1, &old);
    if (rc == UMP_OK) *out = t;
    return rc;
}

/* One dimension step: n copies of cur at disp bytes, then bounds [0, ext). */
static int place(struct ump_dt **cur, size_t nblk, const size_t *bl, const ptrdiff_t *disp,
                 ptrdiff_t ext)
{
    ump_dt_blk_t *b = malloc((nblk + 1) * sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    for (size_t k = 0; k < nblk; k++)
        b[k] = (ump_dt_blk_t){disp[k], bl[k], *cur};
    struct ump_dt *t1 = NULL, *t2 = NULL;
    int rc = ump_dt_make_blocks(UMP_DT_COMBINER_HINDEXED, nblk, b, false, &t1);
    free(b);
    if (rc != UMP_OK) return rc;
    /* t1 must keep *cur alive: record it as t1's old type */
    rc = ump_dt_with_contents(rc, &t1, 0, NULL, 0, NULL, 1, (ump_dt_t *)cur);
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
    if (!out) return UMP_ERR_INVALID;
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    if (ndims <= 0 || !sizes || !subsizes || !starts) return UMP_ERR_INVALID;
    if (order != UMP_DT_ORDER_C && order != UMP_DT_ORDER_FORTRAN) return UMP_ERR_INVALID;
    for (int k = 0; k < ndims; k++)
        if (sizes[k] <= 0 || subsizes[k] <= 0 || subsizes[k] > sizes[k] || starts[k] < 0 ||
            starts[k] > sizes[k] - subsizes[k])
            return UMP_ERR_INVALID;
    /* innermost dimension first: the last in C order, the first in Fortran */
    struct ump_dt *cur = (struct ump_dt *)old;
    ump_dt_ref(cur);
    ptrdiff_t ext = ump_dt_extent(old);
    int rc = UMP_OK;
    for (int s = 0; s < ndims && rc == UMP_OK; s++) {
        int k = order == UMP_DT_ORDER_C ? ndims - 1 - s : s;
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
    rc = wrap_impl(UMP_DT_COMBINER_SUBARRAY, cur, ni, ints, old, out);
    free(ints);
    return rc;
}

int ump_dt_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                  const int dargs[], const int psizes[], int order, ump_dt_t old,
                  struct ump_dt **out)
{
    if (!out) return UMP_ERR_INVALID;
    if (ump_dt_check_old(old)) return UMP_ERR_DATATYPE;
    if (size <= 0 || rank < 0 || rank >= size || ndims <= 0 || !gsizes || !distribs || !dargs ||
        !psizes)
        return UMP_ERR_INVALID;
    if (order != UMP_DT_ORDER_C && order != UMP_DT_ORDER_FORTRAN) return UMP_ERR_INVALID;
    long long nprocs = 1;
    for (int k = 0; k < ndims; k++) {
        if (gsizes[k] <= 0 || psizes[k] <= 0) return UMP_ERR_INVALID;
        nprocs *= psizes[k];
        if (nprocs > size) return UMP_ERR_INVALID;
        int d = distribs[k];
        if (d != UMP_DT_DISTRIBUTE_BLOCK && d != UMP_DT_DISTRIBUTE_CYCLIC &&
            d != UMP_DT_DISTRIBUTE_NONE)
            return UMP_ERR_INVALID;
        if (d == UMP_DT_DISTRIBUTE_NONE && psizes[k] != 1) return UMP_ERR_INVALID;
        if (dargs[k] != UMP_DT_DISTRIBUTE_DFLT_DARG && dargs[k] <= 0) return UMP_ERR_INVALID;
        if (d == UMP_DT_DISTRIBUTE_BLOCK && dargs[k] != UMP_DT_DISTRIBUTE_DFLT_DARG &&
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
    ptrdiff_t ext = ump_dt_extent(old);
    int rc = UMP_OK;
    size_t *bl = NULL;
    ptrdiff_t *disp = NULL;
    for (int s = 0; s < ndims && rc == UMP_OK; s++) {
        int k = order == UMP_DT_ORDER_C ? ndims - 1 - s : s;
        size_t g = (size_t)gsizes[k], p = (size_t)psizes[k], c = (size_t)coords[k];
        size_t nblk = 0;
        free(bl);
        free(disp);
        bl = NULL, disp = NULL;
        if (distribs[k] == UMP_DT_DISTRIBUTE_CYCLIC) {
            size_t b = dargs[k] == UMP_DT_DISTRIBUTE_DFLT_DARG ? 1 : (size_t)dargs[k];
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
            size_t b = distribs[k] == UMP_DT_DISTRIBUTE_NONE     ? g
                       : dargs[k] == UMP_DT_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p
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
    rc = wrap_impl(UMP_DT_COMBINER_DARRAY, cur, ni, ints, old, out);
    free(ints);
    return rc;
}
