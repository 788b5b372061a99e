/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * type.c - MPI datatype functions: constructors, commit/free, queries,
 * names, envelope/contents, and the status element counts. The work is
 * done by the datatype calls of ump.h (src/dt); this file checks
 * arguments and maps errors (type_map.c maps MPI's datatype constants and
 * names onto the engine's). Errors go to MPI_COMM_NULL, which
 * ump_mpi_error reports on MPI_COMM_WORLD (datatype calls have no
 * communicator).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dt/dt.h"
#include "mpi/mpi_impl.h"
#include "util/util.h"

/* --- handles ----------------------------------------------------------------- */

/* A handle a constructor or query may use: live and not freed by the user
 * (committing is needed only for communication). */
static bool dt_usable(MPI_Datatype dt)
{
    return ump_dt_valid(dt) && !dt->user_freed;
}

/* MPI class and message for an engine status. */
static int dt_fail(int rc, const char *call)
{
    switch (rc) {
    case UMP_ERR_COUNT:
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "invalid count");
    case UMP_ERR_DATATYPE:
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call, "invalid datatype");
    case UMP_ERR_NO_MEMORY:
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    case UMP_ERR_UNSUPPORTED:
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "datatype nesting deeper than %d levels", UMP_DT_MAX_DEPTH);
    default:
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "invalid argument");
    }
}

#define CHECK_OLD(call, dt)                                                                        \
    do {                                                                                           \
        if (!dt_usable(dt))                                                                        \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,                                \
                                 "datatype is null, invalid or freed");                            \
    } while (0)
#define CHECK_PTR(call, p, what)                                                                   \
    do {                                                                                           \
        if (!(p)) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL", what);      \
    } while (0)
#define CHECK_NONNEG(call, cls, v, what)                                                           \
    do {                                                                                           \
        if ((v) < 0)                                                                               \
            return ump_mpi_error(MPI_COMM_NULL, cls, call, "%s %d is negative", what, (int)(v));   \
    } while (0)

/* Checks count, the block-length array (when given) and the displacement array. */
static int check_blocks(const char *call, int count, const int bls[], const void *disps)
{
    CHECK_NONNEG(call, MPI_ERR_COUNT, count, "count");
    if (count == 0) return MPI_SUCCESS;
    if (bls == NULL && disps == NULL)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "arrays are NULL");
    if (!disps) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "displacements are NULL");
    for (int k = 0; bls && k < count; k++)
        if (bls[k] < 0)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "array_of_blocklengths[%d] = %d is negative", k, bls[k]);
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_contiguous";
    UMP_MPI_CHECK_INIT(call);
    CHECK_NONNEG(call, MPI_ERR_COUNT, count, "count");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_contiguous(count, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_vector";
    UMP_MPI_CHECK_INIT(call);
    CHECK_NONNEG(call, MPI_ERR_COUNT, count, "count");
    CHECK_NONNEG(call, MPI_ERR_ARG, blocklength, "blocklength");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_vector(count, blocklength, stride, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_vector = PMPI_Type_vector

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hvector";
    UMP_MPI_CHECK_INIT(call);
    CHECK_NONNEG(call, MPI_ERR_COUNT, count, "count");
    CHECK_NONNEG(call, MPI_ERR_ARG, blocklength, "blocklength");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_hvector(count, blocklength, stride, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_indexed";
    UMP_MPI_CHECK_INIT(call);
    int err = check_blocks(call, count, array_of_blocklengths, array_of_displacements);
    if (err) return err;
    if (count && !array_of_blocklengths)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "array_of_blocklengths is NULL");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_indexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_indexed = PMPI_Type_indexed

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed";
    UMP_MPI_CHECK_INIT(call);
    int err = check_blocks(call, count, array_of_blocklengths, array_of_displacements);
    if (err) return err;
    if (count && !array_of_blocklengths)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "array_of_blocklengths is NULL");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc =
        ump_dt_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_indexed_block";
    UMP_MPI_CHECK_INIT(call);
    int err = check_blocks(call, count, NULL, array_of_displacements);
    if (err) return err;
    CHECK_NONNEG(call, MPI_ERR_ARG, blocklength, "blocklength");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_indexed_block(count, blocklength, array_of_displacements, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed_block";
    UMP_MPI_CHECK_INIT(call);
    int err = check_blocks(call, count, NULL, array_of_displacements);
    if (err) return err;
    CHECK_NONNEG(call, MPI_ERR_ARG, blocklength, "blocklength");
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_hindexed_block(count, blocklength, array_of_displacements, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_struct";
    UMP_MPI_CHECK_INIT(call);
    int err = check_blocks(call, count, array_of_blocklengths, array_of_displacements);
    if (err) return err;
    if (count && (!array_of_blocklengths || !array_of_types))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "an array argument is NULL");
    for (int k = 0; k < count; k++)
        if (!dt_usable(array_of_types[k]))
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                                 "array_of_types[%d] is null, invalid or freed", k);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_struct(count, array_of_blocklengths, array_of_displacements,
                           (const ump_dt_t *)array_of_types, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct

static int check_order(const char *call, int order)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    UMP_MPI_CHECK_INIT(call);
    if (ndims <= 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_DIMS, call, "ndims %d is not positive", ndims);
    CHECK_PTR(call, array_of_sizes, "array_of_sizes");
    CHECK_PTR(call, array_of_subsizes, "array_of_subsizes");
    CHECK_PTR(call, array_of_starts, "array_of_starts");
    for (int k = 0; k < ndims; k++) {
        int n = array_of_sizes[k], s = array_of_subsizes[k], st = array_of_starts[k];
        if (n <= 0)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "array_of_sizes[%d] = %d is not positive", k, n);
        if (s <= 0 || s > n)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "array_of_subsizes[%d] = %d is not in [1, %d]", k, s, n);
        if (st < 0 || st > n - s)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "array_of_starts[%d] = %d is not in [0, %d]", k, st, n - s);
    }
    int err = check_order(call, order);
    if (err) return err;
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                             oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_darray";
    UMP_MPI_CHECK_INIT(call);
    if (size <= 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "size %d is not positive", size);
    if (rank < 0 || rank >= size)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                             size);
    if (ndims <= 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_DIMS, call, "ndims %d is not positive", ndims);
    CHECK_PTR(call, array_of_gsizes, "array_of_gsizes");
    CHECK_PTR(call, array_of_distribs, "array_of_distribs");
    CHECK_PTR(call, array_of_dargs, "array_of_dargs");
    CHECK_PTR(call, array_of_psizes, "array_of_psizes");
    long long procs = 1;
    for (int k = 0; k < ndims; k++) {
        int g = array_of_gsizes[k], d = array_of_distribs[k], a = array_of_dargs[k],
            p = array_of_psizes[k];
        if (g <= 0 || p <= 0)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: gsize %d and psize %d must be positive", k, g, p);
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: unknown distribution %d", k, d);
        if (d == MPI_DISTRIBUTE_NONE && p != 1)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: MPI_DISTRIBUTE_NONE needs psize 1, not %d", k, p);
        if (a != MPI_DISTRIBUTE_DFLT_DARG && a <= 0)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: darg %d is not positive", k, a);
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && (long long)a * p < g)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                                 "dimension %d: block %d times %d processes < gsize %d", k, a, p,
                                 g);
        procs *= p;
        if (procs > size) break;
    }
    if (procs != size)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "the product of array_of_psizes is not size %d", size);
    int err = check_order(call, order);
    if (err) return err;
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                           array_of_psizes, order, oldtype, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_resized(oldtype, lb, extent, newtype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, oldtype);
    CHECK_PTR(call, newtype, "newtype");
    int rc = ump_dt_dup(oldtype, newtype);
    if (rc != UMP_OK) return dt_fail(rc, call);
    rc = ump_mpi_type_attr_copy(oldtype, *newtype);
    if (rc != MPI_SUCCESS) {
        ump_mpi_type_attr_delete_all(*newtype);
        ump_dt_free(newtype);
        return ump_mpi_error(MPI_COMM_NULL, rc, call, "an attribute copy callback failed (%d)", rc);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_dup = PMPI_Type_dup

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_commit";
    UMP_MPI_CHECK_INIT(call);
    CHECK_PTR(call, datatype, "datatype");
    CHECK_OLD(call, *datatype);
    int rc = ump_dt_commit(*datatype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_commit = PMPI_Type_commit

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    UMP_MPI_CHECK_INIT(call);
    CHECK_PTR(call, datatype, "datatype");
    CHECK_OLD(call, *datatype);
    if ((*datatype)->predefined)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "cannot free the predefined datatype %s", ump_mpi_dt_name(*datatype));
    int rc = ump_mpi_type_attr_delete_all(*datatype);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, rc, call, "an attribute delete callback failed (%d)",
                             rc);
    rc = ump_dt_free(datatype);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_free = PMPI_Type_free

/* --- queries --------------------------------------------------------------- */

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    static const char call[] = "MPI_Type_size";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, size, "size");
    size_t n = ump_dt_size(datatype);
    *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

/* The MPI_Count forms: MPI 3's _x and MPI 4's _c names of one query. */
static int size_count(const char *call, MPI_Datatype datatype, MPI_Count *size)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, size, "size");
    *size = (MPI_Count)ump_dt_size(datatype);
    return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return size_count("MPI_Type_size_x", datatype, size);
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return size_count("MPI_Type_size_c", datatype, size);
}
#pragma weak MPI_Type_size_c = PMPI_Type_size_c

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    static const char call[] = "MPI_Type_get_extent";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, lb, "lb");
    CHECK_PTR(call, extent, "extent");
    ptrdiff_t l, e;
    int rc = ump_dt_get_extent(datatype, &l, &e);
    if (rc != UMP_OK) return dt_fail(rc, call);
    *lb = l;
    *extent = e;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

static int extent_count(const char *call, MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, lb, "lb");
    CHECK_PTR(call, extent, "extent");
    ptrdiff_t l, e;
    int rc = ump_dt_get_extent(datatype, &l, &e);
    if (rc != UMP_OK) return dt_fail(rc, call);
    *lb = l;
    *extent = e;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extent_count("MPI_Type_get_extent_x", datatype, lb, extent);
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extent_count("MPI_Type_get_extent_c", datatype, lb, extent);
}
#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    static const char call[] = "MPI_Type_get_true_extent";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, true_lb, "true_lb");
    CHECK_PTR(call, true_extent, "true_extent");
    ptrdiff_t l, e;
    int rc = ump_dt_get_true_extent(datatype, &l, &e);
    if (rc != UMP_OK) return dt_fail(rc, call);
    *true_lb = l;
    *true_extent = e;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

static int true_extent_count(const char *call, MPI_Datatype datatype, MPI_Count *true_lb,
                             MPI_Count *true_extent)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, true_lb, "true_lb");
    CHECK_PTR(call, true_extent, "true_extent");
    ptrdiff_t l, e;
    int rc = ump_dt_get_true_extent(datatype, &l, &e);
    if (rc != UMP_OK) return dt_fail(rc, call);
    *true_lb = l;
    *true_extent = e;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return true_extent_count("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent);
}
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return true_extent_count("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent);
}
#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    static const char call[] = "MPI_Type_get_envelope";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, num_integers, "num_integers");
    CHECK_PTR(call, num_addresses, "num_addresses");
    CHECK_PTR(call, num_datatypes, "num_datatypes");
    CHECK_PTR(call, combiner, "combiner");
    int rc = ump_dt_envelope(datatype, num_integers, num_addresses, num_datatypes, combiner);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    static const char call[] = "MPI_Type_get_contents";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    int ni, na, nd, comb;
    int rc = ump_dt_envelope(datatype, &ni, &na, &nd, &comb);
    if (rc != UMP_OK) return dt_fail(rc, call);
    if (comb == MPI_COMBINER_NAMED)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "%s is predefined: it has no contents", ump_mpi_dt_name(datatype));
    if (max_integers < ni || max_addresses < na || max_datatypes < nd)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "arrays too small: need %d integers, %d addresses, %d datatypes", ni,
                             na, nd);
    if ((ni && !array_of_integers) || (na && !array_of_addresses) || (nd && !array_of_datatypes))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "an output array is NULL");
    rc = ump_dt_contents(datatype, max_integers, max_addresses, max_datatypes, array_of_integers,
                         array_of_addresses, array_of_datatypes);
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char call[] = "MPI_Type_set_name";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, type_name, "type_name");
    /* Under the lock: another thread may read the name meanwhile. */
    ump_mpi_lock();
    int rc = ump_dt_set_name(datatype, type_name);
    ump_mpi_unlock();
    return rc == UMP_OK ? MPI_SUCCESS : dt_fail(rc, call);
}
#pragma weak MPI_Type_set_name = PMPI_Type_set_name

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char call[] = "MPI_Type_get_name";
    UMP_MPI_CHECK_INIT(call);
    CHECK_OLD(call, datatype);
    CHECK_PTR(call, type_name, "type_name");
    CHECK_PTR(call, resultlen, "resultlen");
    ump_mpi_lock();
    int n = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", ump_mpi_dt_name(datatype));
    ump_mpi_unlock();
    *resultlen = n < MPI_MAX_OBJECT_NAME ? n : MPI_MAX_OBJECT_NAME - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_name = PMPI_Type_get_name

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_match_size";
    UMP_MPI_CHECK_INIT(call);
    CHECK_PTR(call, datatype, "datatype");
    static const struct {
        int cls;
        MPI_Datatype dt;
    } table[] = {
        {MPI_TYPECLASS_INTEGER, MPI_INT8_T},
        {MPI_TYPECLASS_INTEGER, MPI_INT16_T},
        {MPI_TYPECLASS_INTEGER, MPI_INT32_T},
        {MPI_TYPECLASS_INTEGER, MPI_INT64_T},
        {MPI_TYPECLASS_REAL, MPI_FLOAT},
        {MPI_TYPECLASS_REAL, MPI_DOUBLE},
        {MPI_TYPECLASS_REAL, MPI_LONG_DOUBLE},
        {MPI_TYPECLASS_COMPLEX, MPI_C_FLOAT_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, MPI_C_DOUBLE_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX},
    };
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "unknown typeclass %d", typeclass);
    for (size_t k = 0; k < UMP_ARRAY_SIZE(table); k++)
        if (table[k].cls == typeclass && (int)table[k].dt->size == size) {
            *datatype = table[k].dt;
            return MPI_SUCCESS;
        }
    return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "no type of class %d has size %d",
                         typeclass, size);
}
#pragma weak MPI_Type_match_size = PMPI_Type_match_size

/* --- addresses ------------------------------------------------------------- */

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    static const char call[] = "MPI_Get_address";
    UMP_MPI_CHECK_INIT(call);
    CHECK_PTR(call, address, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_address = PMPI_Get_address

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
#pragma weak MPI_Aint_add = PMPI_Aint_add

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
#pragma weak MPI_Aint_diff = PMPI_Aint_diff

/* --- status element counts ---------------------------------------------- */

static int status_args(const char *call, const MPI_Status *status, MPI_Datatype dt, const void *out)
{
    CHECK_PTR(call, status, "status");
    CHECK_OLD(call, dt);
    CHECK_PTR(call, out, "count");
    return MPI_SUCCESS;
}

/* Whole elements in a status, or MPI_UNDEFINED when the bytes are not a
 * whole number of them. */
static MPI_Count count_of(const MPI_Status *status, MPI_Datatype datatype)
{
    MPI_Count bytes = status->ump_count;
    if (datatype->size == 0) return 0;
    if (bytes < 0 || bytes % (MPI_Count)datatype->size) return MPI_UNDEFINED;
    return bytes / (MPI_Count)datatype->size;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    static const char call[] = "MPI_Get_count";
    UMP_MPI_CHECK_INIT(call);
    int err = status_args(call, status, datatype, count);
    if (err) return err;
    MPI_Count n = count_of(status, datatype);
    *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_count = PMPI_Get_count

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    static const char call[] = "MPI_Get_count_c";
    UMP_MPI_CHECK_INIT(call);
    int err = status_args(call, status, datatype, count);
    if (err) return err;
    *count = count_of(status, datatype);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_count_c = PMPI_Get_count_c

static int elements_count(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                          MPI_Count *count)
{
    UMP_MPI_CHECK_INIT(call);
    int err = status_args(call, status, datatype, count);
    if (err) return err;
    long long n = status->ump_count < 0 ? -1 : ump_dt_elements(datatype, (size_t)status->ump_count);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return elements_count("MPI_Get_elements_x", status, datatype, count);
}
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return elements_count("MPI_Get_elements_c", status, datatype, count);
}
#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    static const char call[] = "MPI_Get_elements";
    UMP_MPI_CHECK_INIT(call);
    int err = status_args(call, status, datatype, count);
    if (err) return err;
    long long n = status->ump_count < 0 ? -1 : ump_dt_elements(datatype, (size_t)status->ump_count);
    *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_elements = PMPI_Get_elements

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    static const char call[] = "MPI_Status_set_elements_x";
    UMP_MPI_CHECK_INIT(call);
    CHECK_PTR(call, status, "status");
    CHECK_OLD(call, datatype);
    if (count < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "count %lld is negative",
                             (long long)count);
    long long bytes = ump_dt_elements_bytes(datatype, (size_t)count);
    if (bytes < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "%lld basic elements do not fit datatype %s", (long long)count,
                             *ump_mpi_dt_name(datatype) ? ump_mpi_dt_name(datatype) : "(derived)");
    status->ump_count = bytes;
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements

/* --- until the rest of src/mpi is linked in ------------------------------
 *
 * The MPI layer's error path lives in another file of src/mpi; this weak
 * stand-in lets the datatype functions link and run without it (reporting
 * like MPI_ERRORS_RETURN). The real definition replaces it. (The init
 * state and the communicator check are inline in mpi_impl.h.)
 */
__attribute__((weak)) int ump_mpi_error(MPI_Comm comm, int errclass, const char *call,
                                        const char *fmt, ...)
{
    (void)comm;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ump_error("%s: %s", call, msg);
    return errclass;
}
