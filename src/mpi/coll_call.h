/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the MPI collective calls share (coll.c, coll_all.c, inter_coll.c):
 * the argument checks every call makes and the two ways a collective
 * returns, blocking or as a request.
 */
#ifndef UMP_MPI_COLL_CALL_H
#define UMP_MPI_COLL_CALL_H

#include "mpi/mpi_impl.h"

#define CHECK_ROOT(call, c, root)                                                                  \
    do {                                                                                           \
        if ((root) < 0 || (root) >= (c)->size)                                                     \
            return ump_mpi_error(c, MPI_ERR_ROOT, call,                                            \
                                 "root %d is not a rank of the "                                   \
                                 "communicator (size %d)",                                         \
                                 (root), (c)->size);                                               \
    } while (0)
#define CHECK_OP(call, c, op)                                                                      \
    do {                                                                                           \
        if (!ump_mpi_op_ok(op)) return ump_mpi_error(c, MPI_ERR_OP, call, "invalid op");           \
    } while (0)
#define CHECK_REQ(call, c, r)                                                                      \
    do {                                                                                           \
        if (!(r)) return ump_mpi_error(c, MPI_ERR_REQUEST, call, "request pointer is NULL");       \
    } while (0)
#define CHECK_NOT_INPLACE(call, c, buf, what)                                                      \
    do {                                                                                           \
        if ((buf) == MPI_IN_PLACE)                                                                 \
            return ump_mpi_error(c, MPI_ERR_BUFFER, call,                                          \
                                 "MPI_IN_PLACE is not allowed as the " what);                      \
    } while (0)

/* Largest of n counts (already checked non-negative): overlap grows with
 * the count, so checking a receive type at the largest one covers all. */
static inline int ump_mpi_coll_max_count(const int *counts, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        m = counts[i] > m ? counts[i] : m;
    return m;
}

/* The result of a collective (a ump status): MPI_SUCCESS, or the error
 * raised on comm with the class of the status. */
int ump_mpi_coll_done(MPI_Comm comm, const char *call, int rc);
/* Wraps the core request g of a started nonblocking collective (rc its
 * start's status) into *request. The schedule frees itself when it
 * completes, so the request needs no hook. */
int ump_mpi_coll_ireq(MPI_Comm comm, const char *call, int rc, ump_req_t g, MPI_Request *request);

#endif
