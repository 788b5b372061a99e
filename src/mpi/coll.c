/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI collective calls: argument checks, then the collectives of
 * ump_coll.h on the communicator's core communicator (comm->ucomm) with the
 * op's ump op (op->uop); MPI datatypes are ump datatypes. A nonblocking
 * call returns an MPI request over the core request the collective
 * completes. ump status codes become MPI classes in ump_mpi_coll_done().
 * Here: barrier, bcast, reduce and allreduce, gather and scatter; the
 * all-to-all family and the reductions that scatter or scan are in
 * coll_all.c.
 */
#include <limits.h>

#include "mpi/coll_call.h"
#include "mpi/inter.h"

int ump_mpi_coll_done(MPI_Comm comm, const char *call, int rc)
{
    if (rc == UMP_OK) return MPI_SUCCESS;
    if (rc == UMP_ERR_OP)
        return ump_mpi_error(comm, MPI_ERR_OP, call, "the op does not apply to the datatype");
    return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "collective failed: %s",
                         ump_strerror(rc));
}

int ump_mpi_coll_ireq(MPI_Comm comm, const char *call, int rc, ump_req_t g, MPI_Request *request)
{
    if (rc != UMP_OK) return ump_mpi_coll_done(comm, call, rc);
    MPI_Request r = ump_mpi_req_new(UMP_MPI_REQ_COLL, comm);
    if (!r) {
        ump_wait(&g, UMP_STATUS_IGNORE);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the request");
    }
    r->core = g;
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
    if (ump_mpi_is_inter(comm)) return ump_mpi_inter_barrier(call, comm, NULL);
    UMP_MPI_CHECK_COMM(call, comm);
    if (comm->size == 1) return MPI_SUCCESS;
    return ump_mpi_coll_done(comm, call, ump_barrier(comm->ucomm));
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibarrier";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_barrier(call, comm, request);
    }
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    int rc = ump_ibarrier(comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
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
    /* Every rank but the root receives into buf; the root only sends. */
    if (comm->rank != root) UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_bcast(call, buffer, count, datatype, root, comm, NULL);
    int rc = bcast_check(call, buffer, count, datatype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->size == 1) return MPI_SUCCESS;
    return ump_mpi_coll_done(comm, call,
                             ump_bcast(buffer, (size_t)count, datatype, root, comm->ucomm));
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    static const char call[] = "MPI_Ibcast";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_bcast(call, buffer, count, datatype, root, comm, request);
    }
    int rc = bcast_check(call, buffer, count, datatype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ibcast(buffer, (size_t)count, datatype, root, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

/* --- reduce / allreduce ------------------------------------------------------ */

/* The root argument of reduce_check for collectives where every rank
 * receives the result (a user's root is checked, even a negative one). */
#define EVERY_RANK INT_MIN

static int reduce_check(const char *call, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                        MPI_Op op, int root, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    CHECK_OP(call, comm, op);
    bool at_root = root == EVERY_RANK || comm->rank == root;
    if (root != EVERY_RANK) CHECK_ROOT(call, comm, root);
    if (!at_root) CHECK_NOT_INPLACE(call, comm, sbuf, "send buffer of a non-root rank");
    if (at_root) CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
    if (sbuf != MPI_IN_PLACE) UMP_MPI_CHECK_BUF(call, comm, sbuf, count, dt);
    if (at_root) UMP_MPI_CHECK_BUF(call, comm, rbuf, count, dt);
    if (at_root) UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    int rc = ump_redop_check(op->uop, dt);
    if (rc != UMP_OK)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "%s does not apply to datatype %s",
                             op->name, dt->name ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_reduce(call, sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!count) return MPI_SUCCESS;
    return ump_mpi_coll_done(
        comm, call,
        ump_reduce(sendbuf, recvbuf, (size_t)count, datatype, op->uop, root, comm->ucomm));
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ireduce";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_reduce(call, sendbuf, recvbuf, count, datatype, op, root, comm,
                                    request);
    }
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ireduce(sendbuf, recvbuf, (size_t)count, datatype, op->uop, root, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_allreduce(call, sendbuf, recvbuf, count, datatype, op, comm, NULL);
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, EVERY_RANK, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!count) return MPI_SUCCESS;
    return ump_mpi_coll_done(
        comm, call, ump_allreduce(sendbuf, recvbuf, (size_t)count, datatype, op->uop, comm->ucomm));
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Iallreduce";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_allreduce(call, sendbuf, recvbuf, count, datatype, op, comm, request);
    }
    int rc = reduce_check(call, sendbuf, recvbuf, count, datatype, op, EVERY_RANK, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_iallreduce(sendbuf, recvbuf, (size_t)count, datatype, op->uop, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

/* --- gather / scatter --------------------------------------------------------- */

static int gather_check(const char *call, const void *sbuf, int scount, MPI_Datatype sdt,
                        void *rbuf, const int *rcounts, const int *displs, int rcount,
                        MPI_Datatype rdt, int root, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_ROOT(call, comm, root);
    bool is_root = comm->rank == root;
    if (!is_root || sbuf != MPI_IN_PLACE) {
        if (!is_root) CHECK_NOT_INPLACE(call, comm, sbuf, "send buffer of a non-root rank");
        UMP_MPI_CHECK_COUNT(call, comm, scount);
        UMP_MPI_CHECK_DT(call, comm, sdt);
        UMP_MPI_CHECK_BUF(call, comm, sbuf, scount, sdt);
    }
    if (is_root) {
        CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
        UMP_MPI_CHECK_DT(call, comm, rdt);
        if (rcounts) {
            if (!displs) return ump_mpi_error(comm, MPI_ERR_ARG, call, "displs is NULL");
            for (int i = 0; i < comm->size; i++)
                UMP_MPI_CHECK_COUNT(call, comm, rcounts[i]);
            UMP_MPI_CHECK_RECV_DT(call, comm, rdt, ump_mpi_coll_max_count(rcounts, comm->size));
        } else {
            UMP_MPI_CHECK_COUNT(call, comm, rcount);
            UMP_MPI_CHECK_RECV_DT(call, comm, rdt, rcount);
            UMP_MPI_CHECK_BUF(call, comm, rbuf, rcount, rdt);
        }
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gather";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_gather(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                    recvcount, recvtype, root, comm, NULL);
    int rc = gather_check(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                          recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_gather(sendbuf, (size_t)sendcount, sendtype, recvbuf,
                                        (size_t)recvcount, recvtype, root, comm->ucomm));
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    static const char call[] = "MPI_Igather";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_gather(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                    recvcount, recvtype, root, comm, request);
    }
    int rc = gather_check(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                          recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_igather(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype,
                     root, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    static const char call[] = "MPI_Gatherv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    -1, recvtype, root, comm, NULL);
    int rc = gather_check(call, sendbuf, sendcount, sendtype, recvbuf,
                          comm && ump_mpi_comm_ok(comm) && comm->rank == root ? recvcounts : NULL,
                          displs, 0, recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->rank == root && !recvcounts)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    return ump_mpi_coll_done(comm, call,
                             ump_gatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts,
                                         displs, recvtype, root, comm->ucomm));
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Igatherv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    -1, recvtype, root, comm, request);
    }
    int rc = gather_check(call, sendbuf, sendcount, sendtype, recvbuf,
                          comm && ump_mpi_comm_ok(comm) && comm->rank == root ? recvcounts : NULL,
                          displs, 0, recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->rank == root && !recvcounts)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_igatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                      root, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

static int scatter_check(const char *call, const void *sbuf, const int *scounts, const int *displs,
                         int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                         int root, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_ROOT(call, comm, root);
    bool is_root = comm->rank == root;
    if (!is_root || rbuf != MPI_IN_PLACE) {
        if (!is_root) CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer of a non-root rank");
        UMP_MPI_CHECK_COUNT(call, comm, rcount);
        UMP_MPI_CHECK_DT(call, comm, rdt);
        UMP_MPI_CHECK_RECV_DT(call, comm, rdt, rcount);
        UMP_MPI_CHECK_BUF(call, comm, rbuf, rcount, rdt);
    }
    if (is_root) {
        CHECK_NOT_INPLACE(call, comm, sbuf, "send buffer");
        UMP_MPI_CHECK_DT(call, comm, sdt);
        if (scounts) {
            if (!displs) return ump_mpi_error(comm, MPI_ERR_ARG, call, "displs is NULL");
            for (int i = 0; i < comm->size; i++)
                UMP_MPI_CHECK_COUNT(call, comm, scounts[i]);
        } else {
            UMP_MPI_CHECK_COUNT(call, comm, scount);
            UMP_MPI_CHECK_BUF(call, comm, sbuf, scount, sdt);
        }
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatter";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_scatter(call, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, NULL);
    int rc = scatter_check(call, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_scatter(sendbuf, (size_t)sendcount, sendtype, recvbuf,
                                         (size_t)recvcount, recvtype, root, comm->ucomm));
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    static const char call[] = "MPI_Iscatter";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_scatter(call, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, request);
    }
    int rc = scatter_check(call, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_iscatter(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype,
                      root, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatterv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_scatter(call, sendbuf, sendcounts, displs, -1, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, NULL);
    int rc = scatter_check(call, sendbuf,
                           comm && ump_mpi_comm_ok(comm) && comm->rank == root ? sendcounts : NULL,
                           displs, 0, sendtype, recvbuf, recvcount, recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->rank == root && !sendcounts)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "sendcounts is NULL");
    return ump_mpi_coll_done(comm, call,
                             ump_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                          (size_t)recvcount, recvtype, root, comm->ucomm));
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Iscatterv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_scatter(call, sendbuf, sendcounts, displs, -1, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, request);
    }
    int rc = scatter_check(call, sendbuf,
                           comm && ump_mpi_comm_ok(comm) && comm->rank == root ? sendcounts : NULL,
                           displs, 0, sendtype, recvbuf, recvcount, recvtype, root, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->rank == root && !sendcounts)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "sendcounts is NULL");
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, (size_t)recvcount, recvtype,
                       root, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}
