/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI collectives on intercommunicators (MPI 3.1 §5.2.2): coll.c sends
 * every call whose communicator has a remote group here. Arguments are
 * checked with the intercommunicator's rules: a rooted call takes MPI_ROOT
 * on the root, MPI_PROC_NULL on the rest of its group and the root's rank
 * in the remote group on the other side, and only the root's buffers of
 * the root's side count; MPI_IN_PLACE is never allowed. Then the
 * collectives of src/coll's inter.c (ump_inter_*) run on the core
 * intercommunicator (comm->ucomm).
 */
#include <stdlib.h>

#include "mpi/coll_call.h"
#include "mpi/inter.h"

/* Ends a call: blocking (request NULL) returns its result; nonblocking
 * wraps the core request the schedule completes. */
static int finish(MPI_Comm comm, const char *call, int rc, const ump_req_t *gp,
                  MPI_Request *request)
{
    /* gp is read only here, after the collective (an argument of the same
     * call) has stored its request. */
    if (!request) return ump_mpi_coll_done(comm, call, rc);
    return ump_mpi_coll_ireq(comm, call, rc, *gp, request);
}

#define GREQ(request, g) ((request) ? &(g) : NULL)

/* Where this process stands in a rooted collective. */
enum { ROOT, ROOT_GROUP, OTHER_GROUP };

static int check_root(const char *call, MPI_Comm comm, int root, int *side)
{
    if (root == MPI_ROOT) {
        *side = ROOT;
    } else if (root == MPI_PROC_NULL) {
        *side = ROOT_GROUP;
    } else if (root >= 0 && root < comm->rgroup->size) {
        *side = OTHER_GROUP;
    } else {
        return ump_mpi_error(comm, MPI_ERR_ROOT, call,
                             "root %d is not MPI_ROOT, MPI_PROC_NULL nor a rank of the remote "
                             "group (size %d) of the intercommunicator",
                             root, comm->rgroup->size);
    }
    return MPI_SUCCESS;
}

static int check_buf(const char *call, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                     bool recv, const char *what)
{
    if (buf == MPI_IN_PLACE)
        return ump_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as the %s on an intercommunicator", what);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    UMP_MPI_CHECK_BUF(call, comm, buf, count, dt);
    if (recv) UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    return MPI_SUCCESS;
}

static int check_counts(const char *call, MPI_Comm comm, const int *counts, const int *displs,
                        int n, const char *what)
{
    if (!counts || !displs)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s or its displacements are NULL", what);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return ump_mpi_error(comm, MPI_ERR_COUNT, call, "%s[%d] = %d is negative", what, i,
                                 counts[i]);
    return MPI_SUCCESS;
}

#define CHECKED(expr)                                                                              \
    do {                                                                                           \
        int checked_rc_ = (expr);                                                                  \
        if (checked_rc_ != MPI_SUCCESS) return checked_rc_;                                        \
    } while (0)

static int check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype dt)
{
    if (!ump_mpi_op_ok(op)) return ump_mpi_error(comm, MPI_ERR_OP, call, "invalid op");
    int rc = ump_redop_check(op->uop, dt);
    if (rc != UMP_OK)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "%s does not apply to datatype %s",
                             op->name, dt->name ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

/* --- the collectives ---------------------------------------------------------------- */

int ump_mpi_inter_barrier(const char *call, MPI_Comm comm, MPI_Request *request)
{
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call, ump_inter_barrier(comm->ucomm, GREQ(request, g)), &g, request);
}

int ump_mpi_inter_bcast(const char *call, void *buf, int count, MPI_Datatype dt, int root,
                        MPI_Comm comm, MPI_Request *request)
{
    int side;
    CHECKED(check_root(call, comm, root, &side));
    if (side != ROOT_GROUP)
        CHECKED(check_buf(call, comm, buf, count, dt, side == OTHER_GROUP, "buffer"));
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_bcast(buf, (size_t)count, dt,
                                  side == ROOT         ? UMP_ROOT
                                  : side == ROOT_GROUP ? UMP_ROOT_NONE
                                                       : root,
                                  comm->ucomm, GREQ(request, g)),
                  &g, request);
}

static int uroot(int side, int root)
{
    return side == ROOT ? UMP_ROOT : side == ROOT_GROUP ? UMP_ROOT_NONE : root;
}

int ump_mpi_inter_reduce(const char *call, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                         MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    int side;
    CHECKED(check_root(call, comm, root, &side));
    if (side == ROOT) CHECKED(check_buf(call, comm, rbuf, count, dt, true, "receive buffer"));
    if (side == OTHER_GROUP) CHECKED(check_buf(call, comm, sbuf, count, dt, false, "send buffer"));
    if (side != ROOT_GROUP) CHECKED(check_op(call, comm, op, dt));
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_reduce(sbuf, rbuf, (size_t)count, dt,
                                   side == ROOT_GROUP ? NULL : op->uop, uroot(side, root),
                                   comm->ucomm, GREQ(request, g)),
                  &g, request);
}

int ump_mpi_inter_allreduce(const char *call, const void *sbuf, void *rbuf, int count,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    CHECKED(check_buf(call, comm, sbuf, count, dt, false, "send buffer"));
    CHECKED(check_buf(call, comm, rbuf, count, dt, true, "receive buffer"));
    CHECKED(check_op(call, comm, op, dt));
    ump_req_t g = UMP_REQ_NULL;
    return finish(
        comm, call,
        ump_inter_allreduce(sbuf, rbuf, (size_t)count, dt, op->uop, comm->ucomm, GREQ(request, g)),
        &g, request);
}

int ump_mpi_inter_gather(const char *call, const void *sbuf, int scount, MPI_Datatype sdt,
                         void *rbuf, const int *rcounts, const int *displs, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *request)
{
    int side, m = comm->rgroup->size;
    bool v = rcount < 0; /* the v-form: its arrays must be there */
    if (v)
        rcount = 0;
    else
        rcounts = displs = NULL;
    CHECKED(check_root(call, comm, root, &side));
    if (side == ROOT) {
        if (v) {
            CHECKED(check_counts(call, comm, rcounts, displs, m, "recvcounts"));
            int mx = 0;
            for (int i = 0; i < m; i++)
                mx = rcounts[i] > mx ? rcounts[i] : mx;
            CHECKED(check_buf(call, comm, rbuf, mx, rdt, true, "receive buffer"));
        } else {
            CHECKED(check_buf(call, comm, rbuf, rcount, rdt, true, "receive buffer"));
        }
    }
    if (side == OTHER_GROUP)
        CHECKED(check_buf(call, comm, sbuf, scount, sdt, false, "send buffer"));
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_gatherv(sbuf, (size_t)scount, sdt, rbuf, rcounts, displs,
                                    (size_t)rcount, rdt, uroot(side, root), comm->ucomm,
                                    GREQ(request, g)),
                  &g, request);
}

int ump_mpi_inter_scatter(const char *call, const void *sbuf, const int *scounts, const int *displs,
                          int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                          int root, MPI_Comm comm, MPI_Request *request)
{
    int side, m = comm->rgroup->size;
    bool v = scount < 0;
    if (v)
        scount = 0;
    else
        scounts = displs = NULL;
    CHECKED(check_root(call, comm, root, &side));
    if (side == ROOT) {
        if (v) {
            CHECKED(check_counts(call, comm, scounts, displs, m, "sendcounts"));
            CHECKED(check_buf(call, comm, sbuf, 0, sdt, false, "send buffer"));
        } else {
            CHECKED(check_buf(call, comm, sbuf, scount, sdt, false, "send buffer"));
        }
    }
    if (side == OTHER_GROUP)
        CHECKED(check_buf(call, comm, rbuf, rcount, rdt, true, "receive buffer"));
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_scatterv(sbuf, scounts, displs, (size_t)scount, sdt, rbuf,
                                     (size_t)rcount, rdt, uroot(side, root), comm->ucomm,
                                     GREQ(request, g)),
                  &g, request);
}

int ump_mpi_inter_allgather(const char *call, const void *sbuf, int scount, MPI_Datatype sdt,
                            void *rbuf, const int *rcounts, const int *displs, int rcount,
                            MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    bool v = rcount < 0;
    if (v)
        rcount = 0;
    else
        rcounts = displs = NULL;
    CHECKED(check_buf(call, comm, sbuf, scount, sdt, false, "send buffer"));
    if (v) {
        CHECKED(check_counts(call, comm, rcounts, displs, comm->rgroup->size, "recvcounts"));
        CHECKED(check_buf(call, comm, rbuf, 0, rdt, true, "receive buffer"));
    } else {
        CHECKED(check_buf(call, comm, rbuf, rcount, rdt, true, "receive buffer"));
    }
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_allgatherv(sbuf, (size_t)scount, sdt, rbuf, rcounts, displs,
                                       (size_t)rcount, rdt, comm->ucomm, GREQ(request, g)),
                  &g, request);
}

int ump_mpi_inter_alltoall(const char *call, const void *sbuf, const int *scounts,
                           const int *sdispls, const MPI_Datatype *sdts, int scount,
                           MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                           const MPI_Datatype *rdts, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                           MPI_Request *request)
{
    int m = comm->rgroup->size;
    bool v = scount < 0;
    if (v) {
        scount = rcount = 0;
    } else {
        scounts = sdispls = rcounts = rdispls = NULL;
        sdts = rdts = NULL;
    }
    if (v) {
        CHECKED(check_counts(call, comm, scounts, sdispls, m, "sendcounts"));
        CHECKED(check_counts(call, comm, rcounts, rdispls, m, "recvcounts"));
        if ((sdts != NULL) != (rdts != NULL) || (!sdts && (!sdt || !rdt)))
            return ump_mpi_error(comm, MPI_ERR_TYPE, call, "a datatype argument is NULL");
        for (int i = 0; i < m; i++) {
            CHECKED(check_buf(call, comm, sbuf, scounts[i], sdts ? sdts[i] : sdt, false,
                              "send buffer"));
            CHECKED(check_buf(call, comm, rbuf, rcounts[i], rdts ? rdts[i] : rdt, true,
                              "receive buffer"));
        }
    } else {
        CHECKED(check_buf(call, comm, sbuf, scount, sdt, false, "send buffer"));
        CHECKED(check_buf(call, comm, rbuf, rcount, rdt, true, "receive buffer"));
    }
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_alltoallw(sbuf, scounts, sdispls, (const ump_dt_t *)sdts, rbuf, rcounts,
                                      rdispls, (const ump_dt_t *)rdts, sdts != NULL, (size_t)scount,
                                      sdt, (size_t)rcount, rdt, comm->ucomm, GREQ(request, g)),
                  &g, request);
}

int ump_mpi_inter_reduce_scatter(const char *call, const void *sbuf, void *rbuf, const int *rcounts,
                                 int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    int n = comm->size, mine = rcount, total = 0;
    bool v = rcount < 0;
    if (v && !rcounts) return ump_mpi_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    if (v) {
        rcount = 0;
        for (int i = 0; i < n; i++) {
            if (rcounts[i] < 0)
                return ump_mpi_error(comm, MPI_ERR_COUNT, call, "recvcounts[%d] = %d is negative",
                                     i, rcounts[i]);
            total += rcounts[i];
        }
        mine = rcounts[comm->rank];
    } else {
        rcounts = NULL;
        UMP_MPI_CHECK_COUNT(call, comm, rcount);
        total = rcount * n;
    }
    CHECKED(check_buf(call, comm, sbuf, total, dt, false, "send buffer"));
    CHECKED(check_buf(call, comm, rbuf, mine, dt, true, "receive buffer"));
    CHECKED(check_op(call, comm, op, dt));
    ump_req_t g = UMP_REQ_NULL;
    return finish(comm, call,
                  ump_inter_reduce_scatter(sbuf, rbuf, rcounts, (size_t)rcount, dt, op->uop,
                                           comm->ucomm, GREQ(request, g)),
                  &g, request);
}
