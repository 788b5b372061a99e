/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI collective calls: argument checks, then src/coll. Blocking and
 * nonblocking versions share one implementation each; a nonblocking call
 * returns an MPI request over the core generalized request that the
 * collective's schedule completes.
 */
#include <stdlib.h>

#include "coll/coll.h"
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

/* The result of a collective: MPI_SUCCESS, or the error raised on comm. */
static int done(MPI_Comm comm, const char *call, int rc)
{
    if (rc == MPI_SUCCESS) return MPI_SUCCESS;
    if (rc == MPI_ERR_OP)
        return ump_mpi_error(comm, rc, call, "the op does not apply to the datatype");
    return ump_mpi_error(comm, rc, call, "collective failed");
}

/* Wraps the generalized request of a started nonblocking collective. */
static int ireq(MPI_Comm comm, const char *call, int rc, ump_req_t g, MPI_Request *request)
{
    if (rc != MPI_SUCCESS) return done(comm, call, rc);
    struct ump_mpi_request *r = calloc(1, sizeof(*r));
    if (!r) {
        ump_wait(&g, UMP_STATUS_IGNORE);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the request");
    }
    r->magic = UMP_MPI_MAGIC_REQ;
    r->kind = UMP_MPI_REQ_COLL;
    r->core = g;
    r->comm = comm;
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    *request = r;
    return MPI_SUCCESS;
}

/* --- barrier ---------------------------------------------------------------- */

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (comm->size == 1) return MPI_SUCCESS;
    return done(comm, call, ump_coll_barrier(comm, NULL));
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibarrier";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    int rc = ump_coll_barrier(comm, &g);
    return ireq(comm, call, rc, g, request);
}

/* --- bcast ------------------------------------------------------------------ */

static int bcast_check(const char *call, void *buf, int count, MPI_Datatype dt, int root,
                       MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    UMP_MPI_CHECK_BUF(call, comm, buf, count, dt);
    CHECK_ROOT(call, comm, root);
    return MPI_SUCCESS;
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    int rc = bcast_check(call, buffer, count, datatype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->size == 1) return MPI_SUCCESS;
    return done(comm, call, ump_coll_bcast(buffer, count, datatype, root, comm, NULL));
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    static const char call[] = "MPI_Ibcast";
    int rc = bcast_check(call, buffer, count, datatype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_coll_bcast(buffer, count, datatype, root, comm, &g);
    return ireq(comm, call, rc, g, request);
}

/* --- reduce / allreduce ------------------------------------------------------ */

static int reduce_check(const char *call, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                        MPI_Op op, int root, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    CHECK_OP(call, comm, op);
    bool at_root = root < 0 || comm->rank == root; /* root < 0: every rank receives */
    if (root >= 0) CHECK_ROOT(call, comm, root);
    if (!at_root) CHECK_NOT_INPLACE(call, comm, sbuf, "send buffer of a non-root rank");
    if (at_root) CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
    if (sbuf != MPI_IN_PLACE) UMP_MPI_CHECK_BUF(call, comm, sbuf, count, dt);
    if (at_root) UMP_MPI_CHECK_BUF(call, comm, rbuf, count, dt);
    ump_coll_red_t r;
    int rc = ump_coll_red_prepare(&r, op, dt);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(comm, rc, call, "%s does not apply to datatype %s", op->name,
                             dt->name ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!count) return MPI_SUCCESS;
    return done(comm, call,
                ump_coll_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, NULL));
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ireduce";
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_coll_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, &g);
    return ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, -1, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!count) return MPI_SUCCESS;
    return done(comm, call, ump_coll_allreduce(sendbuf, recvbuf, count, datatype, op, comm, NULL));
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Iallreduce";
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, -1, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_coll_allreduce(sendbuf, recvbuf, count, datatype, op, comm, &g);
    return ireq(comm, call, rc, g, request);
}
