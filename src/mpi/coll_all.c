/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI collective calls of the all-to-all family and the reductions
 * that scatter or scan: allgather(v), alltoall(v/w), reduce_scatter(_block),
 * scan and exscan, blocking and nonblocking, checked as coll.c checks, on
 * the collectives of ump_coll.h.
 */
#include "mpi/coll_call.h"
#include "mpi/inter.h"

/* --- allgather --------------------------------------------------------------- */

static int allgather_check(const char *call, const void *sbuf, int scount, MPI_Datatype sdt,
                           void *rbuf, const int *rcounts, const int *displs, int rcount,
                           MPI_Datatype rdt, bool v, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (sbuf != MPI_IN_PLACE) {
        UMP_MPI_CHECK_COUNT(call, comm, scount);
        UMP_MPI_CHECK_DT(call, comm, sdt);
        UMP_MPI_CHECK_BUF(call, comm, sbuf, scount, sdt);
    }
    CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
    UMP_MPI_CHECK_DT(call, comm, rdt);
    if (v) {
        if (!rcounts || !displs)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "recvcounts or displs is NULL");
        for (int i = 0; i < comm->size; i++)
            UMP_MPI_CHECK_COUNT(call, comm, rcounts[i]);
        UMP_MPI_CHECK_RECV_DT(call, comm, rdt, ump_mpi_coll_max_count(rcounts, comm->size));
    } else {
        UMP_MPI_CHECK_COUNT(call, comm, rcount);
        UMP_MPI_CHECK_RECV_DT(call, comm, rdt, rcount);
        UMP_MPI_CHECK_BUF(call, comm, rbuf, rcount, rdt);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_allgather(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                       recvcount, recvtype, comm, NULL);
    int rc = allgather_check(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                             recvtype, false, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_allgather(sendbuf, (size_t)sendcount, sendtype, recvbuf,
                                           (size_t)recvcount, recvtype, comm->ucomm));
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Iallgather";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_allgather(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                       recvcount, recvtype, comm, request);
    }
    int rc = allgather_check(call, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                             recvtype, false, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_iallgather(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype,
                        comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                       displs, -1, recvtype, comm, NULL);
    int rc = allgather_check(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                             recvtype, true, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_allgatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf,
                                            recvcounts, displs, recvtype, comm->ucomm));
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Iallgatherv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                       displs, -1, recvtype, comm, request);
    }
    int rc = allgather_check(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                             recvtype, true, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_iallgatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs,
                         recvtype, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

/* --- alltoall ------------------------------------------------------------------ */

/* mode 0: alltoall, 1: alltoallv, 2: alltoallw */
static int alltoall_check(const char *call, const void *sbuf, const int *scounts,
                          const int *sdispls, const MPI_Datatype *sdts, int scount,
                          MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                          const MPI_Datatype *rdts, int rcount, MPI_Datatype rdt, int mode,
                          MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
    int n = comm->size;
    if (mode == 0) {
        if (sbuf != MPI_IN_PLACE) {
            UMP_MPI_CHECK_COUNT(call, comm, scount);
            UMP_MPI_CHECK_DT(call, comm, sdt);
        }
        UMP_MPI_CHECK_COUNT(call, comm, rcount);
        UMP_MPI_CHECK_DT(call, comm, rdt);
        UMP_MPI_CHECK_RECV_DT(call, comm, rdt, rcount);
        return MPI_SUCCESS;
    }
    if (!rcounts || !rdispls || (mode == 2 && !rdts))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "a receive-side array is NULL");
    if (sbuf != MPI_IN_PLACE && (!scounts || !sdispls || (mode == 2 && !sdts)))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "a send-side array is NULL");
    for (int i = 0; i < n; i++) {
        UMP_MPI_CHECK_COUNT(call, comm, rcounts[i]);
        UMP_MPI_CHECK_DT(call, comm, mode == 2 ? rdts[i] : rdt);
        UMP_MPI_CHECK_RECV_DT(call, comm, mode == 2 ? rdts[i] : rdt, rcounts[i]);
        if (sbuf != MPI_IN_PLACE) {
            UMP_MPI_CHECK_COUNT(call, comm, scounts[i]);
            UMP_MPI_CHECK_DT(call, comm, mode == 2 ? sdts[i] : sdt);
        }
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoall";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_alltoall(call, sendbuf, NULL, NULL, NULL, sendcount, sendtype, recvbuf,
                                      NULL, NULL, NULL, recvcount, recvtype, comm, NULL);
    int rc = alltoall_check(call, sendbuf, NULL, NULL, NULL, sendcount, sendtype, recvbuf, NULL,
                            NULL, NULL, recvcount, recvtype, 0, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_alltoall(sendbuf, (size_t)sendcount, sendtype, recvbuf,
                                          (size_t)recvcount, recvtype, comm->ucomm));
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ialltoall";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_alltoall(call, sendbuf, NULL, NULL, NULL, sendcount, sendtype, recvbuf,
                                      NULL, NULL, NULL, recvcount, recvtype, comm, request);
    }
    int rc = alltoall_check(call, sendbuf, NULL, NULL, NULL, sendcount, sendtype, recvbuf, NULL,
                            NULL, NULL, recvcount, recvtype, 0, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ialltoall(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype,
                       comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_alltoall(call, sendbuf, sendcounts, sdispls, NULL, -1, sendtype,
                                      recvbuf, recvcounts, rdispls, NULL, -1, recvtype, comm, NULL);
    int rc = alltoall_check(call, sendbuf, sendcounts, sdispls, NULL, 0, sendtype, recvbuf,
                            recvcounts, rdispls, NULL, 0, recvtype, 1, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                           recvcounts, rdispls, recvtype, comm->ucomm));
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ialltoallv";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_alltoall(call, sendbuf, sendcounts, sdispls, NULL, -1, sendtype,
                                      recvbuf, recvcounts, rdispls, NULL, -1, recvtype, comm,
                                      request);
    }
    int rc = alltoall_check(call, sendbuf, sendcounts, sdispls, NULL, 0, sendtype, recvbuf,
                            recvcounts, rdispls, NULL, 0, recvtype, 1, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallw";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_alltoall(call, sendbuf, sendcounts, sdispls, sendtypes, -1, NULL,
                                      recvbuf, recvcounts, rdispls, recvtypes, -1, NULL, comm,
                                      NULL);
    int rc = alltoall_check(call, sendbuf, sendcounts, sdispls, sendtypes, 0, MPI_DATATYPE_NULL,
                            recvbuf, recvcounts, rdispls, recvtypes, 0, MPI_DATATYPE_NULL, 2, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_alltoallw(sendbuf, sendcounts, sdispls,
                                           (const ump_dt_t *)sendtypes, recvbuf, recvcounts,
                                           rdispls, (const ump_dt_t *)recvtypes, comm->ucomm));
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    static const char call[] = "MPI_Ialltoallw";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_alltoall(call, sendbuf, sendcounts, sdispls, sendtypes, -1, NULL,
                                      recvbuf, recvcounts, rdispls, recvtypes, -1, NULL, comm,
                                      request);
    }
    int rc = alltoall_check(call, sendbuf, sendcounts, sdispls, sendtypes, 0, MPI_DATATYPE_NULL,
                            recvbuf, recvcounts, rdispls, recvtypes, 0, MPI_DATATYPE_NULL, 2, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ialltoallw(sendbuf, sendcounts, sdispls, (const ump_dt_t *)sendtypes, recvbuf,
                        recvcounts, rdispls, (const ump_dt_t *)recvtypes, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

/* --- reduce_scatter / scan ------------------------------------------------------ */

static int redscat_check(const char *call, const void *sbuf, void *rbuf, const int *rcounts,
                         int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_DT(call, comm, dt);
    CHECK_OP(call, comm, op);
    CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
    if (rcounts) {
        for (int i = 0; i < comm->size; i++)
            UMP_MPI_CHECK_COUNT(call, comm, rcounts[i]);
    } else {
        UMP_MPI_CHECK_COUNT(call, comm, rcount);
    }
    UMP_MPI_CHECK_RECV_DT(call, comm, dt, rcounts ? rcounts[comm->rank] : rcount);
    int rc = ump_redop_check(op->uop, dt);
    if (rc != UMP_OK)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "%s does not apply to datatype %s",
                             op->name, dt->name ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_reduce_scatter(call, sendbuf, recvbuf, recvcounts, -1, datatype, op,
                                            comm, NULL);
    if (!recvcounts) return ump_mpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    int rc = redscat_check(call, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(
        comm, call,
        ump_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op->uop, comm->ucomm));
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter_block";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm))
        return ump_mpi_inter_reduce_scatter(call, sendbuf, recvbuf, NULL, recvcount, datatype, op,
                                            comm, NULL);
    int rc = redscat_check(call, sendbuf, recvbuf, NULL, recvcount, datatype, op, comm);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_coll_done(comm, call,
                             ump_reduce_scatter_block(sendbuf, recvbuf, (size_t)recvcount, datatype,
                                                      op->uop, comm->ucomm));
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ireduce_scatter";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_reduce_scatter(call, sendbuf, recvbuf, recvcounts, -1, datatype, op,
                                            comm, request);
    }
    if (!recvcounts) return ump_mpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    int rc = redscat_check(call, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op->uop, comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    static const char call[] = "MPI_Ireduce_scatter_block";
    UMP_MPI_CHECK_INIT(call);
    if (ump_mpi_is_inter(comm)) {
        if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
        return ump_mpi_inter_reduce_scatter(call, sendbuf, recvbuf, NULL, recvcount, datatype, op,
                                            comm, request);
    }
    int rc = redscat_check(call, sendbuf, recvbuf, NULL, recvcount, datatype, op, comm);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_REQ(call, comm, request);
    ump_req_t g = UMP_REQ_NULL;
    rc = ump_ireduce_scatter_block(sendbuf, recvbuf, (size_t)recvcount, datatype, op->uop,
                                   comm->ucomm, &g);
    return ump_mpi_coll_ireq(comm, call, rc, g, request);
}

/* Scan and Exscan, blocking (request NULL) or not. */
static int scan_common(const char *call, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                       MPI_Op op, bool exclusive, MPI_Comm comm, MPI_Request *request)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_INTRA(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    CHECK_OP(call, comm, op);
    CHECK_NOT_INPLACE(call, comm, rbuf, "receive buffer");
    if (sbuf != MPI_IN_PLACE) UMP_MPI_CHECK_BUF(call, comm, sbuf, count, dt);
    UMP_MPI_CHECK_BUF(call, comm, rbuf, count, dt);
    UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    int rc = ump_redop_check(op->uop, dt);
    if (rc != UMP_OK)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "%s does not apply to datatype %s",
                             op->name, dt->name ? dt->name : "(derived)");
    if (request) {
        ump_req_t g = UMP_REQ_NULL;
        rc = (exclusive ? ump_iexscan : ump_iscan)(sbuf, rbuf, (size_t)count, dt, op->uop,
                                                   comm->ucomm, &g);
        return ump_mpi_coll_ireq(comm, call, rc, g, request);
    }
    if (!count) return MPI_SUCCESS;
    return ump_mpi_coll_done(
        comm, call,
        (exclusive ? ump_exscan : ump_scan)(sbuf, rbuf, (size_t)count, dt, op->uop, comm->ucomm));
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return scan_common("MPI_Scan", sendbuf, recvbuf, count, datatype, op, false, comm, NULL);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return scan_common("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, true, comm, NULL);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return ump_mpi_error(comm, MPI_ERR_REQUEST, "MPI_Iscan", "request pointer is NULL");
    return scan_common("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, false, comm, request);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return ump_mpi_error(comm, MPI_ERR_REQUEST, "MPI_Iexscan", "request pointer is NULL");
    return scan_common("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, true, comm, request);
}
