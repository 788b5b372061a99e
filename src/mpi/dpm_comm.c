/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic processes that make intercommunicators: MPI_Comm_accept,
 * Comm_connect, Comm_join, and MPI_Comm_disconnect (MPI 3.1 §10.4).
 *
 * accept/connect: every member of each group first ANDs the context ids
 * free on it (ump_mpi_ctx_free_mask, collective over the local
 * communicator). The two roots then meet on the port (ump_port_accept /
 * _connect: both prove they know the job secret) and swap "cards": the job
 * id, the group's world ranks and its free-id mask. Each root decides the
 * same way from the same two cards: the lowest id free in both groups, or
 * an error (the other side is of another job, no id is free). The root
 * broadcasts the verdict, the id and the remote ranks over its group, and
 * every member builds the intercommunicator (ump_mpi_intercomm_build); the
 * accepting group is the "low" one. Comm_join is the same meeting between
 * two single processes over the socket the caller connected; the lower
 * world rank is "low".
 *
 * Limit: the transports reach only the processes of this process's world
 * (started together by umprun), so both groups must be of one job; a
 * process of another job is refused at the meeting (its secret differs).
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/inter.h"

enum { NWORDS = UMP_MPI_MAX_CTX_IDS / 64 };
#define CARD_MAGIC 0x554d5043u /* "UMPC" */

/* A card: this header, then n int32 world ranks, then NWORDS uint64 of
 * free context ids. Host byte order: the job is homogeneous. */
typedef struct {
    uint32_t magic;
    uint32_t n;
    char job[16];
} card_hdr_t;

static void *card_make(MPI_Group g, const uint64_t *mask, size_t *len)
{
    size_t n = (size_t)g->size;
    *len = sizeof(card_hdr_t) + n * sizeof(int32_t) + NWORDS * sizeof(uint64_t);
    uint8_t *p = malloc(*len);
    if (!p) return NULL;
    card_hdr_t h = {.magic = CARD_MAGIC, .n = (uint32_t)n};
    memcpy(h.job, ump_job_id(), sizeof(h.job));
    memcpy(p, &h, sizeof(h));
    int32_t *w = (int32_t *)(p + sizeof(h));
    for (size_t i = 0; i < n; i++)
        w[i] = g->world[i];
    memcpy(p + sizeof(h) + n * sizeof(int32_t), mask, NWORDS * sizeof(uint64_t));
    return p;
}

/* The root's decision from the two cards: into out[0] an MPI class
 * (MPI_SUCCESS or the failure), out[1] the context id, out[2] the remote
 * size; *ranks the remote world ranks (malloc'd). *why explains a failure. */
static void decide(const void *theirs, size_t tlen, const uint64_t *mine, int out[3], int **ranks,
                   const char **why)
{
    card_hdr_t h;
    out[0] = MPI_ERR_OTHER;
    *ranks = NULL;
    if (tlen < sizeof(h)) {
        *why = "the other side sent a malformed card";
        return;
    }
    memcpy(&h, theirs, sizeof(h));
    size_t want = sizeof(h) + (size_t)h.n * sizeof(int32_t) + NWORDS * sizeof(uint64_t);
    if (h.magic != CARD_MAGIC || h.n == 0 || h.n > (1u << 24) || tlen != want) {
        *why = "the other side sent a malformed card";
        return;
    }
    if (memcmp(h.job, ump_job_id(), sizeof(h.job))) {
        out[0] = MPI_ERR_UNSUPPORTED_OPERATION;
        *why = "the other side is a process of another job: ump connects the processes of one "
               "job only (its transports reach no others)";
        return;
    }
    const uint8_t *p = theirs;
    uint64_t both[NWORDS], m;
    for (int i = 0; i < NWORDS; i++) {
        memcpy(&m, p + sizeof(h) + (size_t)h.n * sizeof(int32_t) + (size_t)i * sizeof(m),
               sizeof(m));
        both[i] = m & mine[i];
    }
    int id = ump_mpi_ctx_pick(both);
    if (id < 0) {
        out[0] = MPI_ERR_INTERN;
        *why = "no context id is free in both groups (too many communicators)";
        return;
    }
    *ranks = malloc((size_t)h.n * sizeof(int));
    if (!*ranks) {
        out[0] = MPI_ERR_NO_MEM;
        *why = "out of memory";
        return;
    }
    for (uint32_t i = 0; i < h.n; i++) {
        int32_t r;
        memcpy(&r, p + sizeof(h) + (size_t)i * sizeof(r), sizeof(r));
        (*ranks)[i] = r;
    }
    out[0] = MPI_SUCCESS;
    out[1] = id;
    out[2] = (int)h.n;
}

/* accept (is_accept) or connect. */
static int meet(const char *call, bool is_accept, const char *port, MPI_Info info, int root,
                MPI_Comm comm, MPI_Comm *newcomm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_INTRA(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (root < 0 || root >= comm->size)
        return ump_mpi_error(comm, MPI_ERR_ROOT, call, "root %d is not a rank of the %d", root,
                             comm->size);
    if (comm->rank == root) {
        if (!port || !*port)
            return ump_mpi_error(comm, MPI_ERR_PORT, call, "port_name is NULL or empty");
        if (info != MPI_INFO_NULL && !ump_mpi_info_ok(info))
            return ump_mpi_error(comm, MPI_ERR_INFO, call, "invalid info object");
    }
    uint64_t mask[NWORDS];
    int rc = ump_mpi_ctx_free_mask(comm, mask);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(comm, rc, call, "agreeing on the free context ids failed");
    int res[3] = {MPI_ERR_OTHER, -1, 0}, *ranks = NULL;
    const char *why = "";
    if (comm->rank == root) {
        size_t mlen, tlen = 0;
        void *mine = card_make(comm->group, mask, &mlen), *theirs = NULL;
        int urc = UMP_ERR_NO_MEMORY;
        if (mine)
            urc = is_accept ? ump_port_accept(port, mine, mlen, &theirs, &tlen)
                            : ump_port_connect(port, mine, mlen, &theirs, &tlen, 60);
        free(mine);
        if (urc == UMP_OK) {
            decide(theirs, tlen, mask, res, &ranks, &why);
        } else {
            res[0] = urc == UMP_ERR_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_PORT;
            why = urc == UMP_ERR_INVALID && is_accept ? "not a port this process opened"
                  : urc == UMP_ERR_INVALID            ? "not a port name"
                  : urc == UMP_ERR_AUTH               ? "the other side is of another job (refused)"
                                        : "nothing accepts on that port, or the meeting failed";
        }
        free(theirs);
    }
    /* Everyone learns the verdict; the roots' came out the same on both
     * sides, so both groups fail or succeed together. */
    rc = PMPI_Bcast(res, 3, MPI_INT, root, comm);
    if (rc == MPI_SUCCESS && res[0] == MPI_SUCCESS) {
        if (comm->rank != root && !(ranks = malloc((size_t)res[2] * sizeof(int))))
            return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        rc = PMPI_Bcast(ranks, res[2], MPI_INT, root, comm);
    }
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return rc;
    }
    if (res[0] != MPI_SUCCESS) {
        free(ranks);
        if (comm->rank == root)
            return ump_mpi_error(comm, res[0], call, "port '%s': %s", port, why);
        return ump_mpi_error(comm, res[0], call,
                             "the root (rank %d) failed to meet the other "
                             "group",
                             root);
    }
    MPI_Group g = ump_mpi_group_new(res[2], ranks);
    free(ranks);
    if (!g) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    rc = ump_mpi_intercomm_build(comm, g, res[1], is_accept, newcomm);
    ump_mpi_group_unref(g);
    return rc;
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return meet("MPI_Comm_accept", true, port_name, info, root, comm, newcomm);
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return meet("MPI_Comm_connect", false, port_name, info, root, comm, newcomm);
}

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char call[] = "MPI_Comm_join";
    UMP_MPI_CHECK_INIT(call);
    if (!intercomm) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "intercomm is NULL");
    if (fd < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "fd %d is not a descriptor", fd);
    uint64_t mask[NWORDS];
    int rc = ump_mpi_ctx_free_mask(MPI_COMM_SELF, mask);
    if (rc != MPI_SUCCESS) return ump_mpi_error(MPI_COMM_NULL, rc, call, "no context ids");
    size_t mlen, tlen = 0;
    void *mine = card_make(MPI_COMM_SELF->group, mask, &mlen), *theirs = NULL;
    if (!mine) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int urc = ump_join(fd, mine, mlen, &theirs, &tlen);
    free(mine);
    if (urc != UMP_OK) {
        free(theirs);
        return ump_mpi_error(MPI_COMM_NULL, urc == UMP_ERR_INVALID ? MPI_ERR_ARG : MPI_ERR_OTHER,
                             call, "meeting the process at the other end of fd %d failed: %s", fd,
                             ump_strerror(urc));
    }
    int res[3], *ranks = NULL;
    const char *why = "";
    decide(theirs, tlen, mask, res, &ranks, &why);
    free(theirs);
    if (res[0] != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, res[0], call, "over fd %d: %s", fd, why);
    int me = MPI_COMM_SELF->group->world[0], other = ranks[0];
    if (other == me) {
        free(ranks);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "fd %d leads back to this process",
                             fd);
    }
    MPI_Group g = ump_mpi_group_new(1, ranks);
    free(ranks);
    if (!g) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    rc = ump_mpi_intercomm_build(MPI_COMM_SELF, g, res[1], me < other, intercomm);
    ump_mpi_group_unref(g);
    return rc;
}

#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char call[] = "MPI_Comm_disconnect";
    UMP_MPI_CHECK_INIT(call);
    if (!comm) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "comm pointer is NULL");
    UMP_MPI_CHECK_COMM(call, *comm);
    if ((*comm)->predefined)
        return ump_mpi_error(*comm, MPI_ERR_COMM, call,
                             "a predefined communicator cannot be disconnected");
    /* Collective over both groups: once every member is here, the messages
     * each sent before it have been matched or are buffered at their
     * receiver (a receive still pending is the program's error, as for
     * MPI_Comm_free). */
    int rc = PMPI_Barrier(*comm);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Comm_free(comm);
}
