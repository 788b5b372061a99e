/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction operations: the predefined op objects, user ops, and
 * MPI_Reduce_local. Each MPI op carries the ump op (ump_coll.h) the
 * collectives run with: predefined MPI ops map to the predefined UMP_OP_*,
 * a user function is called through a trampoline that gives it MPI's
 * arguments.
 */
#include <limits.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"

#define X(mpi, nm)                                                                                 \
    struct ump_mpi_op ump_mpi_op_##nm = {.magic = UMP_MPI_MAGIC_OP,                                \
                                         .predefined = true,                                       \
                                         .commutative = true,                                      \
                                         .user_fn = NULL,                                          \
                                         .name = #mpi,                                             \
                                         .uop = &ump_redop_##nm};
UMP_MPI_FOREACH_OP(X)
#undef X

bool ump_mpi_op_ok(MPI_Op op)
{
    return op && op->magic == UMP_MPI_MAGIC_OP;
}

/* A ump user op calling an MPI user function, which takes an int count:
 * long vectors go in slices of the type's extent. */
static void trampoline(const void *in, void *inout, size_t count, ump_dt_t dt, void *arg)
{
    const struct ump_mpi_op *o = arg;
    MPI_Datatype d = (MPI_Datatype)dt;
    size_t stride = dt->extent;
    while (count) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        o->user_fn((void *)in, inout, &len, &d);
        in = (const char *)in + (size_t)len * stride;
        inout = (char *)inout + (size_t)len * stride;
        count -= (size_t)len;
    }
}

/* The MPI object goes with its ump op, once no collective uses it. */
static void op_gone(void *arg)
{
    free(arg);
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    static const char call[] = "MPI_Op_create";
    if (!user_fn) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "user function is NULL");
    if (!op) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "op pointer is NULL");
    struct ump_mpi_op *o = calloc(1, sizeof(*o));
    if (!o) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    o->magic = UMP_MPI_MAGIC_OP;
    o->predefined = false;
    o->commutative = commute != 0;
    o->user_fn = user_fn;
    o->name = "user op";
    if (ump_redop_create(trampoline, commute, o, op_gone, &o->uop) != UMP_OK) {
        free(o);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *op = o;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    static const char call[] = "MPI_Op_free";
    if (!op || !ump_mpi_op_ok(*op))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OP, call, "invalid op");
    if ((*op)->predefined)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OP, call, "%s is predefined", (*op)->name);
    /* The handle is dead now; the object stays while a pending nonblocking
     * collective holds the ump op (op_gone frees it). */
    ump_redop_t u = (*op)->uop; /* the object may be gone when this returns */
    (*op)->magic = UMP_MPI_MAGIC_DEAD;
    ump_redop_free(&u);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char call[] = "MPI_Op_commutative";
    if (!ump_mpi_op_ok(op)) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OP, call, "invalid op");
    if (!commute) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "commute is NULL");
    *commute = op->commutative;
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    static const char call[] = "MPI_Reduce_local";
    UMP_MPI_CHECK_COUNT(call, MPI_COMM_NULL, count);
    UMP_MPI_CHECK_DT(call, MPI_COMM_NULL, datatype);
    if (!ump_mpi_op_ok(op)) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OP, call, "invalid op");
    UMP_MPI_CHECK_BUF(call, MPI_COMM_NULL, inbuf, count, datatype);
    UMP_MPI_CHECK_BUF(call, MPI_COMM_NULL, inoutbuf, count, datatype);
    if (!count) return MPI_SUCCESS;
    int rc = ump_redop_check(op->uop, datatype);
    if (rc != UMP_OK)
        return ump_mpi_error(MPI_COMM_NULL, ump_mpi_class_of(rc), call,
                             "%s does not apply to datatype %s", op->name,
                             datatype->name ? datatype->name : "(derived)");
    rc = ump_reduce_local(inbuf, inoutbuf, (size_t)count, datatype, op->uop);
    if (rc != UMP_OK)
        return ump_mpi_error(MPI_COMM_NULL, ump_mpi_class_of(rc), call, "%s", ump_strerror(rc));
    return MPI_SUCCESS;
}
