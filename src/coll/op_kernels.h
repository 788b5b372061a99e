/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * op_kernels.h - the predefined reduction operations as plain loops over
 * machine types. This layer knows nothing of op or type objects, so it can be
 * tested alone; src/coll/op.c maps (ump_redop_t, ump_dt_t) onto it.
 */
#ifndef UMP_COLL_OP_KERNELS_H
#define UMP_COLL_OP_KERNELS_H

#include <stddef.h>

/* Machine representation of a basic element. */
typedef enum {
    UMP_KIND_I8,
    UMP_KIND_I16,
    UMP_KIND_I32,
    UMP_KIND_I64,
    UMP_KIND_U8,
    UMP_KIND_U16,
    UMP_KIND_U32,
    UMP_KIND_U64,
    UMP_KIND_FLOAT,
    UMP_KIND_DOUBLE,
    UMP_KIND_LDOUBLE,
    UMP_KIND_CFLOAT,
    UMP_KIND_CDOUBLE,
    UMP_KIND_CLDOUBLE,
    UMP_KIND_BOOL,
    UMP_KIND_FLOAT_INT, /* the MAXLOC/MINLOC pair types, packed (no padding) */
    UMP_KIND_DOUBLE_INT,
    UMP_KIND_LONG_INT,
    UMP_KIND_2INT,
    UMP_KIND_SHORT_INT,
    UMP_KIND_LDOUBLE_INT,
    UMP_KIND_2FLOAT, /* Fortran's MPI_2REAL, MPI_2DOUBLE_PRECISION: {T v; T i;} */
    UMP_KIND_2DOUBLE,
    UMP_KIND_COUNT_
} ump_kind_t;

/* The predefined operations, in the order of UMP_FOREACH_OP (ump_coll.h). */
typedef enum {
    UMP_OPK_MAX,
    UMP_OPK_MIN,
    UMP_OPK_SUM,
    UMP_OPK_PROD,
    UMP_OPK_LAND,
    UMP_OPK_BAND,
    UMP_OPK_LOR,
    UMP_OPK_BOR,
    UMP_OPK_LXOR,
    UMP_OPK_BXOR,
    UMP_OPK_MAXLOC,
    UMP_OPK_MINLOC,
    UMP_OPK_REPLACE,
    UMP_OPK_NO_OP,
    UMP_OPK_COUNT_
} ump_opk_t;

/* inout[i] = in[i] op inout[i] for i < n elements of the kind. The buffers
 * must not overlap. */
typedef void (*ump_kernel_fn_t)(const void *in, void *inout, size_t n);

/* The kernel for (op, kind), or NULL when the operation has no meaning on
 * the kind (e.g. a bitwise op on floating point). REPLACE and NO_OP exist
 * for every kind. */
ump_kernel_fn_t ump_coll_kernel(ump_opk_t op, ump_kind_t kind);
/* Bytes of one element of a kind. */
size_t ump_coll_kind_size(ump_kind_t kind);

/* The pair types (MPI 3.1 §5.9.4) are handled in packed form: the value
 * followed by the int, no padding; an element is sizeof(value) + sizeof(int)
 * bytes and may be unaligned. */

#endif /* UMP_COLL_OP_KERNELS_H */
