/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction operations: the predefined op objects, user ops, and
 * MPI_Reduce_local. The kernels live in src/coll.
 */
#include <stdlib.h>

#include "coll/coll.h"
#include "mpi/mpi_impl.h"

#define X(mpi, nm)                                                                                 \
    struct ump_mpi_op ump_mpi_op_##nm = {.magic = UMP_MPI_MAGIC_OP,                                \
                                         .predefined = true,                                       \
                                         .commutative = true,                                      \
                                         .refcount = 1,                                            \
                                         .user_fn = NULL,                                          \
                                         .name = #mpi};
UMP_MPI_FOREACH_OP(X)
#undef X

bool ump_mpi_op_ok(MPI_Op op)
{
    return op && op->magic == UMP_MPI_MAGIC_OP;
}

void ump_coll_op_retain(MPI_Op op)
{
    if (!op->predefined) op->refcount++;
}

void ump_coll_op_release(MPI_Op op)
{
    if (op->predefined) return;
    if (--op->refcount == 0) {
        op->magic = UMP_MPI_MAGIC_DEAD;
        free(op);
    }
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
    o->refcount = 1;
    o->user_fn = user_fn;
    o->name = "user op";
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
    /* A pending nonblocking collective holds its own reference. */
    ump_coll_op_release(*op);
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
    if (!op->predefined) {
        /* User functions see the buffers in the type's own layout. */
        MPI_Datatype dt = datatype;
        int len = count;
        op->user_fn((void *)inbuf, inoutbuf, &len, &dt);
        return MPI_SUCCESS;
    }
    ump_coll_red_t r;
    int rc = ump_coll_red_prepare(&r, op, datatype);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, rc, call, "%s does not apply to datatype %s", op->name,
                             datatype->name ? datatype->name : "(derived)");
    if (ump_coll_dt_contig(datatype)) {
        ump_coll_red_apply(&r, inbuf, inoutbuf, (size_t)count);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * datatype->size;
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    ump_coll_pack(a, inbuf, (size_t)count, datatype);
    ump_coll_pack(b, inoutbuf, (size_t)count, datatype);
    ump_coll_red_apply(&r, a, b, (size_t)count);
    rc = ump_coll_unpack(inoutbuf, b, (size_t)count, datatype);
    free(a);
    free(b);
    if (rc != MPI_SUCCESS) return ump_mpi_error(MPI_COMM_NULL, rc, call, "cannot unpack");
    return MPI_SUCCESS;
}
