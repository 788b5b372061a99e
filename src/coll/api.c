/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public collective calls of ump_coll.h: argument checks (each bad
 * argument is logged with the call, the rank and the argument, and refused
 * before anything is sent), then the implementation of this folder. Faces
 * (the MPI interface) check their own arguments first with their own messages and
 * then come through here, so these checks are the cheap ones: null
 * handles, roots, types that cannot be used, counts that overflow.
 *
 * Blocking calls on one member, or of nothing, return at once as MPI's
 * calls always did here; nonblocking ones still make (empty) schedules so
 * their request completes through the usual path.
 */
#include "coll/coll.h"

static int bad_comm(const char *call, ump_comm_t c)
{
    if (c)
        ump_error("%s: the communicator is an intercommunicator: use ump_inter_* (rank %d)", call,
                  ump_rank());
    else
        ump_error("%s: the communicator is NULL (rank %d)", call, ump_rank());
    return UMP_ERR_INVALID;
}

static int check_dt(const char *call, const char *what, ump_dt_t dt, size_t count)
{
    if (UMP_UNLIKELY(!ump_dt_valid(dt) || !dt->committed)) {
        ump_error("%s: %s is null, freed or not committed (rank %d)", call, what, ump_rank());
        return UMP_ERR_DATATYPE;
    }
    if (UMP_UNLIKELY(dt->size && count > (size_t)-1 / 2 / dt->size)) {
        ump_error("%s: count %zu of %s overflows (rank %d)", call, count, what, ump_rank());
        return UMP_ERR_COUNT;
    }
    return UMP_OK;
}

static int check_root(const char *call, int root, ump_comm_t comm)
{
    if (UMP_LIKELY(root >= 0 && root < comm->size)) return UMP_OK;
    ump_error("%s: root %d is not a member (communicator of %d; rank %d)", call, root, comm->size,
              ump_rank());
    return UMP_ERR_ROOT;
}

static int check_op(const char *call, ump_redop_t op)
{
    if (UMP_LIKELY(op != NULL)) return UMP_OK;
    ump_error("%s: the op is NULL (rank %d)", call, ump_rank());
    return UMP_ERR_OP;
}

static int check_req(const char *call, ump_req_t *req)
{
    if (UMP_LIKELY(req != NULL)) return UMP_OK;
    ump_error("%s: the request pointer is NULL (rank %d)", call, ump_rank());
    return UMP_ERR_REQUEST;
}

static int check_array(const char *call, const char *what, const int *a, int n)
{
    if (UMP_UNLIKELY(!a)) {
        ump_error("%s: %s is NULL (rank %d)", call, what, ump_rank());
        return UMP_ERR_INVALID;
    }
    for (int i = 0; i < n; i++)
        if (UMP_UNLIKELY(a[i] < 0)) {
            ump_error("%s: %s[%d] = %d is negative (rank %d)", call, what, i, a[i], ump_rank());
            return UMP_ERR_COUNT;
        }
    return UMP_OK;
}

/* Logs a failure found by the algorithms (after the checks above). */
static int result(const char *call, int rc, ump_redop_t op, ump_dt_t dt)
{
    if (UMP_LIKELY(rc == UMP_OK)) return UMP_OK;
    if (rc == UMP_ERR_OP)
        ump_error("%s: %s does not apply to datatype %s (rank %d)", call, op ? op->name : "op",
                  dt && dt->name && *dt->name ? dt->name : "(derived)", ump_rank());
    return rc;
}

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        int check_rc_ = (expr);                                                                    \
        if (UMP_UNLIKELY(check_rc_ != UMP_OK)) return check_rc_;                                   \
    } while (0)
#define CHECK_COMM(call, c)                                                                        \
    do {                                                                                           \
        if (UMP_UNLIKELY(!(c) || (c)->rsize)) return bad_comm(call, c);                            \
    } while (0)

/* --- barrier, bcast ------------------------------------------------------------ */

int ump_barrier(ump_comm_t comm)
{
    CHECK_COMM("ump_barrier", comm);
    if (comm->size == 1) return UMP_OK;
    return ump_coll_barrier(comm, NULL);
}

int ump_ibarrier(ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM("ump_ibarrier", comm);
    CHECK(check_req("ump_ibarrier", req));
    return ump_coll_barrier(comm, req);
}

static int bcast(const char *call, void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm,
                 ump_req_t *req)
{
    CHECK_COMM(call, comm);
    CHECK(check_dt(call, "datatype", dt, count));
    CHECK(check_root(call, root, comm));
    if (!req) {
        if (comm->size == 1) return UMP_OK;
        return ump_coll_bcast(buf, count, dt, root, comm, NULL);
    }
    return ump_coll_bcast(buf, count, dt, root, comm, req);
}

int ump_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm)
{
    return bcast("ump_bcast", buf, count, dt, root, comm, NULL);
}

int ump_ibcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_ibcast", req));
    return bcast("ump_ibcast", buf, count, dt, root, comm, req);
}

/* --- reduce, allreduce ----------------------------------------------------------- */

static int reduce(const char *call, const void *sbuf, void *rbuf, size_t count, ump_dt_t dt,
                  ump_redop_t op, int root, bool all, ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    CHECK(check_dt(call, "datatype", dt, count));
    CHECK(check_op(call, op));
    if (!all) CHECK(check_root(call, root, comm));
    if (!req && !count) return result(call, ump_redop_check(op, dt), op, dt);
    int rc = all ? ump_coll_allreduce(sbuf, rbuf, count, dt, op, comm, req)
                 : ump_coll_reduce(sbuf, rbuf, count, dt, op, root, comm, req);
    return result(call, rc, op, dt);
}

int ump_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op, int root,
               ump_comm_t comm)
{
    return reduce("ump_reduce", sbuf, rbuf, count, dt, op, root, false, comm, NULL);
}

int ump_ireduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op, int root,
                ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_ireduce", req));
    return reduce("ump_ireduce", sbuf, rbuf, count, dt, op, root, false, comm, req);
}

int ump_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                  ump_comm_t comm)
{
    return reduce("ump_allreduce", sbuf, rbuf, count, dt, op, 0, true, comm, NULL);
}

int ump_iallreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                   ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iallreduce", req));
    return reduce("ump_iallreduce", sbuf, rbuf, count, dt, op, 0, true, comm, req);
}

/* --- gather, scatter ---------------------------------------------------------------- */

/* The v-forms: a rank other than the root passes a non-null dummy count
 * array, which tells the algorithms to take the v-path on every rank (the
 * root's arrays are the only ones read). */
static const int no_counts = 0;

static int gather(const char *call, const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf,
                  const int *rcounts, const int *displs, size_t rcount, ump_dt_t rdt, bool v,
                  int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    CHECK(check_root(call, root, comm));
    bool is_root = comm->rank == root;
    if (!is_root || sbuf != UMP_IN_PLACE) CHECK(check_dt(call, "send datatype", sdt, scount));
    if (is_root) {
        CHECK(check_dt(call, "receive datatype", rdt, rcount));
        if (v) {
            CHECK(check_array(call, "rcounts", rcounts, comm->size));
            CHECK(check_array(call, "displs", displs, 0));
        }
    }
    if (v && !is_root) rcounts = &no_counts;
    return ump_coll_gatherv(sbuf, scount, sdt, rbuf, v ? rcounts : NULL, v ? displs : NULL, rcount,
                            rdt, root, comm, req);
}

int ump_gather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
               ump_dt_t rdt, int root, ump_comm_t comm)
{
    return gather("ump_gather", sbuf, scount, sdt, rbuf, NULL, NULL, rcount, rdt, false, root, comm,
                  NULL);
}

int ump_igather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_igather", req));
    return gather("ump_igather", sbuf, scount, sdt, rbuf, NULL, NULL, rcount, rdt, false, root,
                  comm, req);
}

int ump_gatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                const int *displs, ump_dt_t rdt, int root, ump_comm_t comm)
{
    return gather("ump_gatherv", sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, true, root, comm,
                  NULL);
}

int ump_igatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                 const int *displs, ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_igatherv", req));
    return gather("ump_igatherv", sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, true, root,
                  comm, req);
}

static int scatter(const char *call, const void *sbuf, const int *scounts, const int *displs,
                   size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount, ump_dt_t rdt, bool v,
                   int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    CHECK(check_root(call, root, comm));
    bool is_root = comm->rank == root;
    if (!is_root || rbuf != UMP_IN_PLACE) CHECK(check_dt(call, "receive datatype", rdt, rcount));
    if (is_root) {
        CHECK(check_dt(call, "send datatype", sdt, scount));
        if (v) {
            CHECK(check_array(call, "scounts", scounts, comm->size));
            CHECK(check_array(call, "displs", displs, 0));
        }
    }
    if (v && !is_root) scounts = &no_counts;
    return ump_coll_scatterv(sbuf, v ? scounts : NULL, v ? displs : NULL, scount, sdt, rbuf, rcount,
                             rdt, root, comm, req);
}

int ump_scatter(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                ump_dt_t rdt, int root, ump_comm_t comm)
{
    return scatter("ump_scatter", sbuf, NULL, NULL, scount, sdt, rbuf, rcount, rdt, false, root,
                   comm, NULL);
}

int ump_iscatter(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                 ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iscatter", req));
    return scatter("ump_iscatter", sbuf, NULL, NULL, scount, sdt, rbuf, rcount, rdt, false, root,
                   comm, req);
}

int ump_scatterv(const void *sbuf, const int *scounts, const int *displs, ump_dt_t sdt, void *rbuf,
                 size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm)
{
    return scatter("ump_scatterv", sbuf, scounts, displs, 0, sdt, rbuf, rcount, rdt, true, root,
                   comm, NULL);
}

int ump_iscatterv(const void *sbuf, const int *scounts, const int *displs, ump_dt_t sdt, void *rbuf,
                  size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iscatterv", req));
    return scatter("ump_iscatterv", sbuf, scounts, displs, 0, sdt, rbuf, rcount, rdt, true, root,
                   comm, req);
}

/* --- allgather --------------------------------------------------------------------- */

static int allgather(const char *call, const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf,
                     const int *rcounts, const int *displs, size_t rcount, ump_dt_t rdt, bool v,
                     ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    if (sbuf != UMP_IN_PLACE) CHECK(check_dt(call, "send datatype", sdt, scount));
    CHECK(check_dt(call, "receive datatype", rdt, rcount));
    if (v) {
        CHECK(check_array(call, "rcounts", rcounts, comm->size));
        CHECK(check_array(call, "displs", displs, 0));
    }
    return ump_coll_allgatherv(sbuf, scount, sdt, rbuf, v ? rcounts : NULL, v ? displs : NULL,
                               rcount, rdt, comm, req);
}

int ump_allgather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                  ump_dt_t rdt, ump_comm_t comm)
{
    return allgather("ump_allgather", sbuf, scount, sdt, rbuf, NULL, NULL, rcount, rdt, false, comm,
                     NULL);
}

int ump_iallgather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                   ump_dt_t rdt, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iallgather", req));
    return allgather("ump_iallgather", sbuf, scount, sdt, rbuf, NULL, NULL, rcount, rdt, false,
                     comm, req);
}

int ump_allgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                   const int *displs, ump_dt_t rdt, ump_comm_t comm)
{
    return allgather("ump_allgatherv", sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, true, comm,
                     NULL);
}

int ump_iallgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                    const int *displs, ump_dt_t rdt, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iallgatherv", req));
    return allgather("ump_iallgatherv", sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, true,
                     comm, req);
}

/* --- alltoall(v, w) ------------------------------------------------------------------ */

/* mode 0: alltoall, 1: alltoallv, 2: alltoallw. */
static int alltoall(const char *call, int mode, const void *sbuf, const int *scounts,
                    const int *sdispls, const ump_dt_t *sdts, size_t scount, ump_dt_t sdt,
                    void *rbuf, const int *rcounts, const int *rdispls, const ump_dt_t *rdts,
                    size_t rcount, ump_dt_t rdt, ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    bool inplace = sbuf == UMP_IN_PLACE;
    int n = comm->size;
    if (mode == 0) {
        if (!inplace) CHECK(check_dt(call, "send datatype", sdt, scount));
        CHECK(check_dt(call, "receive datatype", rdt, rcount));
    } else {
        CHECK(check_array(call, "rcounts", rcounts, n));
        CHECK(check_array(call, "rdispls", rdispls, 0));
        if (!inplace) {
            CHECK(check_array(call, "scounts", scounts, n));
            CHECK(check_array(call, "sdispls", sdispls, 0));
        }
        if (mode == 2 && (!rdts || (!inplace && !sdts))) {
            ump_error("%s: an array of datatypes is NULL (rank %d)", call, ump_rank());
            return UMP_ERR_INVALID;
        }
        for (int i = 0; i < n; i++) {
            CHECK(
                check_dt(call, "receive datatype", mode == 2 ? rdts[i] : rdt, (size_t)rcounts[i]));
            if (!inplace)
                CHECK(
                    check_dt(call, "send datatype", mode == 2 ? sdts[i] : sdt, (size_t)scounts[i]));
        }
    }
    return ump_coll_alltoallw(sbuf, mode ? scounts : NULL, mode ? sdispls : NULL,
                              mode == 2 ? sdts : NULL, rbuf, mode ? rcounts : NULL,
                              mode ? rdispls : NULL, mode == 2 ? rdts : NULL, mode == 2, scount,
                              mode == 2 ? NULL : sdt, rcount, mode == 2 ? NULL : rdt, comm, req);
}

int ump_alltoall(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                 ump_dt_t rdt, ump_comm_t comm)
{
    return alltoall("ump_alltoall", 0, sbuf, NULL, NULL, NULL, scount, sdt, rbuf, NULL, NULL, NULL,
                    rcount, rdt, comm, NULL);
}

int ump_ialltoall(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                  ump_dt_t rdt, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_ialltoall", req));
    return alltoall("ump_ialltoall", 0, sbuf, NULL, NULL, NULL, scount, sdt, rbuf, NULL, NULL, NULL,
                    rcount, rdt, comm, req);
}

int ump_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, ump_dt_t sdt,
                  void *rbuf, const int *rcounts, const int *rdispls, ump_dt_t rdt, ump_comm_t comm)
{
    return alltoall("ump_alltoallv", 1, sbuf, scounts, sdispls, NULL, 0, sdt, rbuf, rcounts,
                    rdispls, NULL, 0, rdt, comm, NULL);
}

int ump_ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, ump_dt_t sdt,
                   void *rbuf, const int *rcounts, const int *rdispls, ump_dt_t rdt,
                   ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_ialltoallv", req));
    return alltoall("ump_ialltoallv", 1, sbuf, scounts, sdispls, NULL, 0, sdt, rbuf, rcounts,
                    rdispls, NULL, 0, rdt, comm, req);
}

int ump_alltoallw(const void *sbuf, const int *scounts, const int *sdispls, const ump_dt_t *sdts,
                  void *rbuf, const int *rcounts, const int *rdispls, const ump_dt_t *rdts,
                  ump_comm_t comm)
{
    return alltoall("ump_alltoallw", 2, sbuf, scounts, sdispls, sdts, 0, NULL, rbuf, rcounts,
                    rdispls, rdts, 0, NULL, comm, NULL);
}

int ump_ialltoallw(const void *sbuf, const int *scounts, const int *sdispls, const ump_dt_t *sdts,
                   void *rbuf, const int *rcounts, const int *rdispls, const ump_dt_t *rdts,
                   ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_ialltoallw", req));
    return alltoall("ump_ialltoallw", 2, sbuf, scounts, sdispls, sdts, 0, NULL, rbuf, rcounts,
                    rdispls, rdts, 0, NULL, comm, req);
}

/* --- reduce_scatter, scan -------------------------------------------------------------- */

static int redscat(const char *call, const void *sbuf, void *rbuf, const int *rcounts,
                   size_t rcount, ump_dt_t dt, ump_redop_t op, ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    if (rcounts) CHECK(check_array(call, "rcounts", rcounts, comm->size));
    CHECK(check_dt(call, "datatype", dt, rcounts ? 0 : rcount));
    CHECK(check_op(call, op));
    return result(call, ump_coll_reduce_scatter(sbuf, rbuf, rcounts, rcount, dt, op, comm, req), op,
                  dt);
}

int ump_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, ump_dt_t dt,
                       ump_redop_t op, ump_comm_t comm)
{
    if (!rcounts) return check_array("ump_reduce_scatter", "rcounts", NULL, 0);
    return redscat("ump_reduce_scatter", sbuf, rbuf, rcounts, 0, dt, op, comm, NULL);
}

int ump_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, ump_dt_t dt,
                        ump_redop_t op, ump_comm_t comm, ump_req_t *req)
{
    if (!rcounts) return check_array("ump_ireduce_scatter", "rcounts", NULL, 0);
    CHECK(check_req("ump_ireduce_scatter", req));
    return redscat("ump_ireduce_scatter", sbuf, rbuf, rcounts, 0, dt, op, comm, req);
}

int ump_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, ump_dt_t dt,
                             ump_redop_t op, ump_comm_t comm)
{
    return redscat("ump_reduce_scatter_block", sbuf, rbuf, NULL, rcount, dt, op, comm, NULL);
}

int ump_ireduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, ump_dt_t dt,
                              ump_redop_t op, ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_ireduce_scatter_block", req));
    return redscat("ump_ireduce_scatter_block", sbuf, rbuf, NULL, rcount, dt, op, comm, req);
}

static int scan(const char *call, const void *sbuf, void *rbuf, size_t count, ump_dt_t dt,
                ump_redop_t op, bool exclusive, ump_comm_t comm, ump_req_t *req)
{
    CHECK_COMM(call, comm);
    CHECK(check_dt(call, "datatype", dt, count));
    CHECK(check_op(call, op));
    if (!req && !count) return result(call, ump_redop_check(op, dt), op, dt);
    return result(call, ump_coll_scan(sbuf, rbuf, count, dt, op, exclusive, comm, req), op, dt);
}

int ump_scan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
             ump_comm_t comm)
{
    return scan("ump_scan", sbuf, rbuf, count, dt, op, false, comm, NULL);
}

int ump_iscan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
              ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iscan", req));
    return scan("ump_iscan", sbuf, rbuf, count, dt, op, false, comm, req);
}

int ump_exscan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
               ump_comm_t comm)
{
    return scan("ump_exscan", sbuf, rbuf, count, dt, op, true, comm, NULL);
}

int ump_iexscan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                ump_comm_t comm, ump_req_t *req)
{
    CHECK(check_req("ump_iexscan", req));
    return scan("ump_iexscan", sbuf, rbuf, count, dt, op, true, comm, req);
}
