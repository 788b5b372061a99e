/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbourhood collectives (MPI 3.1 §7.6, 7.7): Neighbor_allgather(v)
 * and Neighbor_alltoall(v, w), blocking and nonblocking. Each call checks
 * its arguments, describes its send and receive blocks, and hands them to
 * neighbor_run.c, which moves them in one round.
 *
 * The neighbours are those of the communicator's topology, in the order
 * the standard fixes: for a Cartesian grid, per dimension the negative
 * then the positive neighbour (MPI_PROC_NULL off a non-periodic edge: no
 * message, and that receive block is left untouched); for a graph, the
 * node's adjacency list; for a distributed graph, its sources (receive)
 * and destinations (send). MPI_IN_PLACE has no meaning here and is
 * refused.
 */
#include "mpi/topo.h"

/* Checks one side of a collective with `n` blocks; `what` names the
 * buffer argument ("sendbuf"/"recvbuf") and `cnt`, `dsp`, `typ` the
 * count, displacement and type arguments. */
static int side_check(const char *call, MPI_Comm comm, const struct ump_mpi_nbr_side *s, int n,
                      bool recv, const char *what, const char *cnt, const char *dsp,
                      const char *typ)
{
    if (s->buf == MPI_IN_PLACE)
        return ump_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as the %s of a neighbourhood collective",
                             what);
    if (n == 0) return MPI_SUCCESS; /* counts, displacements and types are not read */
    if (s->varying && !s->counts) return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", cnt);
    if (s->varying && !s->disps && !s->disp_bytes)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", dsp);
    if (s->typed && !s->types) return ump_mpi_error(comm, MPI_ERR_ARG, call, "%s is NULL", typ);
    /* One count and type for every block: check them once. */
    int blocks = s->varying ? n : 1;
    for (int k = 0; k < blocks; k++) {
        int count = s->varying ? s->counts[k] : s->count;
        MPI_Datatype dt = s->typed ? s->types[k] : s->type;
        if (count < 0)
            return ump_mpi_error(comm, MPI_ERR_COUNT, call, "%s (block %d) = %d is negative", cnt,
                                 k, count);
        if (!ump_mpi_dt_ok(dt))
            return ump_mpi_error(comm, MPI_ERR_TYPE, call,
                                 "%s (block %d) is null, freed or not committed", typ, k);
        if (!s->varying && !ump_mpi_buf_ok(s->buf, count, dt))
            return ump_mpi_error(comm, MPI_ERR_BUFFER, call, "%s is null with %s %d", what, cnt,
                                 count);
        if (recv && ump_dt_overlaps(dt, (size_t)count))
            return ump_mpi_error(comm, MPI_ERR_TYPE, call,
                                 "%s (block %d) has overlapping entries (count %d): a receive "
                                 "into it would write some bytes twice",
                                 typ, k, count);
    }
    return MPI_SUCCESS;
}

/* Checks both sides and runs the collective (request NULL: blocking). */
static int start(const char *call, MPI_Comm comm, const struct ump_mpi_nbr_side *snd,
                 const struct ump_mpi_nbr_side *rcv, bool nonblocking, MPI_Request *request,
                 const char *const names[6])
{
    UMP_MPI_CHECK_INIT(call);
    int rc;
    struct ump_mpi_topo *t = ump_mpi_topo_get(call, comm, 0, &rc);
    if (!t) return rc;
    if (nonblocking && !request)
        return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    if ((rc = side_check(call, comm, snd, t->outdeg, false, "sendbuf", names[0], names[1],
                         names[2])) != MPI_SUCCESS ||
        (rc = side_check(call, comm, rcv, t->indeg, true, "recvbuf", names[3], names[4],
                         names[5])) != MPI_SUCCESS)
        return rc;
    return ump_mpi_nbr_run(call, comm, snd, rcv, nonblocking ? request : NULL);
}

static const char *const names_plain[6] = {"sendcount", "(none)", "sendtype",
                                           "recvcount", "(none)", "recvtype"};
static const char *const names_gv[6] = {"sendcount",  "(none)", "sendtype",
                                        "recvcounts", "displs", "recvtype"};
static const char *const names_v[6] = {"sendcounts", "sdispls", "sendtype",
                                       "recvcounts", "rdispls", "recvtype"};
static const char *const names_w[6] = {"sendcounts", "sdispls", "sendtypes",
                                       "recvcounts", "rdispls", "recvtypes"};

/* --- allgather(v) -------------------------------------------------------------- */

static int allgather(const char *call, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     int rcount, MPI_Datatype rdt, MPI_Comm comm, bool nb, MPI_Request *request)
{
    struct ump_mpi_nbr_side s = {.buf = sbuf, .count = scount, .type = sdt};
    struct ump_mpi_nbr_side r = {.buf = rbuf, .count = rcount, .type = rdt, .per_block = true};
    return start(call, comm, &s, &r, nb, request, names_plain);
}

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, false, NULL);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    static const char call[] = "MPI_Ineighbor_allgather";
    return allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true,
                     request);
}

static int allgatherv(const char *call, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm,
                      bool nb, MPI_Request *request)
{
    struct ump_mpi_nbr_side s = {.buf = sbuf, .count = scount, .type = sdt};
    struct ump_mpi_nbr_side r = {
        .buf = rbuf, .counts = rcounts, .disps = displs, .type = rdt, .varying = true};
    return start(call, comm, &s, &r, nb, request, names_gv);
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, false, NULL);
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ineighbor_allgatherv";
    return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                      comm, true, request);
}

/* --- alltoall(v, w) ------------------------------------------------------------ */

static int alltoall(const char *call, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    int rcount, MPI_Datatype rdt, MPI_Comm comm, bool nb, MPI_Request *request)
{
    struct ump_mpi_nbr_side s = {.buf = sbuf, .count = scount, .type = sdt, .per_block = true};
    struct ump_mpi_nbr_side r = {.buf = rbuf, .count = rcount, .type = rdt, .per_block = true};
    return start(call, comm, &s, &r, nb, request, names_plain);
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, false, NULL);
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    static const char call[] = "MPI_Ineighbor_alltoall";
    return alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true,
                    request);
}

static int alltoallv(const char *call, const void *sbuf, const int *scounts, const int *sdispls,
                     MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                     MPI_Datatype rdt, MPI_Comm comm, bool nb, MPI_Request *request)
{
    struct ump_mpi_nbr_side s = {
        .buf = sbuf, .counts = scounts, .disps = sdispls, .type = sdt, .varying = true};
    struct ump_mpi_nbr_side r = {
        .buf = rbuf, .counts = rcounts, .disps = rdispls, .type = rdt, .varying = true};
    return start(call, comm, &s, &r, nb, request, names_v);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, false, NULL);
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    static const char call[] = "MPI_Ineighbor_alltoallv";
    return alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, true, request);
}

static int alltoallw(const char *call, const void *sbuf, const int *scounts,
                     const MPI_Aint *sdispls, const MPI_Datatype *sdts, void *rbuf,
                     const int *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rdts,
                     MPI_Comm comm, bool nb, MPI_Request *request)
{
    struct ump_mpi_nbr_side s = {.buf = sbuf,
                                 .counts = scounts,
                                 .disp_bytes = sdispls,
                                 .types = sdts,
                                 .varying = true,
                                 .typed = true};
    struct ump_mpi_nbr_side r = {.buf = rbuf,
                                 .counts = rcounts,
                                 .disp_bytes = rdispls,
                                 .types = rdts,
                                 .varying = true,
                                 .typed = true};
    return start(call, comm, &s, &r, nb, request, names_w);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, false, NULL);
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ineighbor_alltoallw";
    return alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, true, request);
}
