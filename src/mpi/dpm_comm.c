/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic processes that make intercommunicators: MPI_Comm_accept,
 * Comm_connect, Comm_join, and MPI_Comm_disconnect (MPI 3.1 §10.4).
 *
 * accept/connect: every member of each group first ANDs the context ids
 * free on it (ump_mpi_ctx_free_mask, collective over the local
 * communicator) and gives the root its process card (ump_peer_card: how to
 * reach it). The two roots then meet on the port (ump_port_accept /
 * _connect: both prove they know the job secret) and swap group "cards":
 * the job id, the group's world ranks, its free-id mask and its members'
 * process cards. Each root decides the same way from the same two cards:
 * the lowest id free in both groups, or an error (no id is free, a
 * malformed card). The root broadcasts the verdict, the id and the remote
 * members' cards over its group; every member learns the remote processes
 * (ump_peer_add: the ranks of its own job as they are, the processes of
 * another job - a spawned group, a parent - as new peers) and builds the
 * intercommunicator (ump_mpi_intercomm_build); the accepting group is the
 * "low" one. Comm_join is the same meeting between two single processes
 * over the socket the caller connected; the smaller (job id, rank) is "low".
 *
 * The meeting proves the job secret, which umprun shares with the groups
 * it spawns and with jobs started with the same --secret-file; processes
 * started by another umprun (another secret) are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/inter.h"
#include "mpi/mpi_impl.h"

enum { NWORDS = UMP_MPI_MAX_CTX_IDS / 64 };
#define CARD_MAGIC 0x554d5045u /* "UMPE" */

/* A group card: this header, n int32 world ranks, NWORDS uint64 of free
 * context ids, then n process cards, each a uint32 length and its bytes.
 * Host byte order: the processes that meet share one architecture. */
typedef struct {
    uint32_t magic;
    uint32_t n;
    char job[16];
} card_hdr_t;

/* Collective over comm: every member's process card, gathered at root
 * into a group card (*card, *len; malloc'd) with the ranks and mask. An
 * MPI class; on the root MPI_SUCCESS means the card is made. */
static int card_make(MPI_Comm comm, int root, const uint64_t *mask, void **card, size_t *len)
{
    char mine[UMP_CARD_MAX];
    size_t ml = 0;
    int l = ump_peer_card(mine, sizeof(mine), &ml) == UMP_OK ? (int)ml : -1;
    int n = comm->size, rc = MPI_SUCCESS;
    int *lens = NULL, *displs = NULL;
    uint8_t *p = NULL;
    *card = NULL;
    size_t head = sizeof(card_hdr_t) + (size_t)n * sizeof(int32_t) + NWORDS * sizeof(uint64_t);
    if (comm->rank == root) {
        lens = malloc(sizeof(int) * (size_t)n);
        displs = malloc(sizeof(int) * (size_t)n);
    }
    rc = PMPI_Gather(&l, 1, MPI_INT, lens, 1, MPI_INT, root, comm);
    bool ok = rc == MPI_SUCCESS;
    size_t total = head;
    if (comm->rank == root && ok && lens && displs) {
        /* Each card follows its length: gathered in place between them. */
        size_t off = 0;
        for (int i = 0; i < n; i++) {
            ok &= lens[i] >= 0;
            if (lens[i] < 0) lens[i] = 0;
            displs[i] = (int)(off + 4);
            off += 4 + (size_t)lens[i];
        }
        total = head + off;
        p = malloc(total);
    }
    int rrc = PMPI_Gatherv(mine, l < 0 ? 0 : l, MPI_BYTE, p ? p + head : NULL, lens, displs,
                           MPI_BYTE, root, comm);
    if (rc == MPI_SUCCESS) rc = rrc;
    if (comm->rank == root) {
        if (rc == MPI_SUCCESS && (!ok || !p)) rc = p ? MPI_ERR_OTHER : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            card_hdr_t h = {.magic = CARD_MAGIC, .n = (uint32_t)n};
            memcpy(h.job, ump_job_id(), sizeof(h.job));
            memcpy(p, &h, sizeof(h));
            for (int i = 0; i < n; i++) {
                int32_t w = comm->group->world[i];
                uint32_t cl = (uint32_t)lens[i];
                memcpy(p + sizeof(h) + (size_t)i * sizeof(w), &w, sizeof(w));
                memcpy(p + head + (size_t)displs[i] - 4, &cl, 4);
            }
            memcpy(p + sizeof(h) + (size_t)n * sizeof(int32_t), mask, NWORDS * sizeof(uint64_t));
            *card = p;
            *len = total;
            p = NULL;
        }
    }
    free(p);
    free(lens);
    free(displs);
    return rc;
}

/* Checks a group card from the other side: its member count, or -1. *cards
 * points at its process cards (*clen bytes). */
static int card_check(const void *theirs, size_t tlen, card_hdr_t *h, const uint8_t **cards,
                      size_t *clen)
{
    if (tlen < sizeof(*h)) return -1;
    memcpy(h, theirs, sizeof(*h));
    if (h->magic != CARD_MAGIC || h->n == 0 || h->n > (1u << 20)) return -1;
    size_t head = sizeof(*h) + (size_t)h->n * sizeof(int32_t) + NWORDS * sizeof(uint64_t);
    if (tlen < head) return -1;
    const uint8_t *p = (const uint8_t *)theirs + head;
    size_t left = tlen - head;
    for (uint32_t i = 0; i < h->n; i++) {
        uint32_t l;
        if (left < 4) return -1;
        memcpy(&l, p, 4);
        if (l > UMP_CARD_MAX || l > left - 4) return -1;
        p += 4 + l;
        left -= 4 + l;
    }
    if (left) return -1;
    *cards = (const uint8_t *)theirs + head;
    *clen = tlen - head;
    return (int)h->n;
}

/* The root's decision from the two cards: into out[0] an MPI class
 * (MPI_SUCCESS or the failure), out[1] the context id, out[2] the remote
 * size, out[3] the length of the remote process cards (*cards, inside
 * theirs). *why explains a failure. */
static void decide(const void *theirs, size_t tlen, const uint64_t *mine, int out[4],
                   const uint8_t **cards, const char **why)
{
    card_hdr_t h;
    size_t clen = 0;
    out[0] = MPI_ERR_OTHER;
    if (card_check(theirs, tlen, &h, cards, &clen) < 0 || clen > INT32_MAX) {
        *why = "the other side sent a malformed card";
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
    out[0] = MPI_SUCCESS;
    out[1] = id;
    out[2] = (int)h.n;
    out[3] = (int)clen;
}

/* Every member: the peer index of each remote process from its card (n of
 * them, clen bytes), into ranks. A ump status. */
static int learn(const uint8_t *cards, size_t clen, int n, int *ranks)
{
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        uint32_t l;
        if (clen - off < 4) return UMP_ERR_PROTOCOL;
        memcpy(&l, cards + off, 4);
        if (l > clen - off - 4) return UMP_ERR_PROTOCOL;
        int rc = ump_peer_add(cards + off + 4, l, &ranks[i]);
        if (rc != UMP_OK) return rc;
        off += 4 + l;
    }
    return off == clen ? UMP_OK : UMP_ERR_PROTOCOL;
}

int ump_mpi_meet(const char *call, bool is_accept, const char *port, int root, MPI_Comm comm,
                 MPI_Comm *newcomm)
{
    uint64_t mask[NWORDS];
    int rc = ump_mpi_ctx_free_mask(comm, mask);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(comm, rc, call, "agreeing on the free context ids failed");
    void *mine = NULL, *theirs = NULL;
    size_t mlen = 0, tlen = 0;
    rc = card_make(comm, root, mask, &mine, &mlen);
    int res[4] = {rc, -1, 0, 0};
    const uint8_t *cards = NULL;
    const char *why = "the cards of this group's processes could not be gathered";
    if (comm->rank == root && rc == MPI_SUCCESS) {
        int urc = is_accept ? ump_port_accept(port, mine, mlen, &theirs, &tlen)
                            : ump_port_connect(port, mine, mlen, &theirs, &tlen, 60);
        if (urc == UMP_OK) {
            decide(theirs, tlen, mask, res, &cards, &why);
        } else {
            res[0] = urc == UMP_ERR_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_PORT;
            why = urc == UMP_ERR_INVALID && is_accept ? "not a port this process opened"
                  : urc == UMP_ERR_INVALID            ? "not a port name"
                  : urc == UMP_ERR_AUTH ? "the other side is of another job (its secret differs)"
                                        : "nothing accepts on that port, or the meeting failed";
        }
    }
    free(mine);
    /* Everyone learns the verdict; the roots' came out the same on both
     * sides, so both groups fail or succeed together. */
    rc = PMPI_Bcast(res, 4, MPI_INT, root, comm);
    uint8_t *buf = NULL;
    int *ranks = NULL;
    bool learned = true; /* false: the failure is this group's own, after the meeting */
    if (rc == MPI_SUCCESS && res[0] == MPI_SUCCESS) {
        buf = comm->rank == root ? (uint8_t *)cards : malloc((size_t)res[3] + 1);
        ranks = malloc(sizeof(int) * (size_t)res[2]);
        rc = buf ? PMPI_Bcast(buf, res[3], MPI_BYTE, root, comm) : MPI_ERR_NO_MEM;
        /* Every member must know every remote process before any uses the
         * intercommunicator: agree that all could. */
        int urc = rc == MPI_SUCCESS && ranks ? learn(buf, (size_t)res[3], res[2], ranks)
                                             : UMP_ERR_NO_MEMORY;
        int bad = urc != UMP_OK, anybad = 1;
        int arc = PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
        if (rc == MPI_SUCCESS) rc = arc;
        if (rc == MPI_SUCCESS && anybad) {
            learned = false;
            res[0] = bad ? ump_mpi_class_of(urc) : MPI_ERR_OTHER;
            why = bad ? "the processes of the other group cannot be reached from here"
                      : "another member of this group cannot reach the other group";
        }
    }
    if (comm->rank != root) free(buf);
    free(theirs);
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return rc;
    }
    if (res[0] != MPI_SUCCESS) {
        free(ranks);
        if (comm->rank == root || !learned)
            return ump_mpi_error(comm, res[0], call, "%s%s%s%s", port && *port ? "port '" : "",
                                 port && *port ? port : "", port && *port ? "': " : "", why);
        return ump_mpi_error(comm, res[0], call,
                             "the root (rank %d) failed to meet the other group", root);
    }
    MPI_Group g = ump_mpi_group_new(res[2], ranks);
    free(ranks);
    if (!g) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    rc = ump_mpi_intercomm_build(comm, g, res[1], is_accept, newcomm);
    ump_mpi_group_unref(g);
    return rc;
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
    return ump_mpi_meet(call, is_accept, port, root, comm, newcomm);
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
    void *mine = NULL, *theirs = NULL;
    rc = card_make(MPI_COMM_SELF, 0, mask, &mine, &mlen);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, rc, call, "this process's card cannot be made");
    int urc = ump_join(fd, mine, mlen, &theirs, &tlen);
    free(mine);
    if (urc != UMP_OK) {
        free(theirs);
        return ump_mpi_error(MPI_COMM_NULL, urc == UMP_ERR_INVALID ? MPI_ERR_ARG : MPI_ERR_OTHER,
                             call, "meeting the process at the other end of fd %d failed: %s", fd,
                             ump_strerror(urc));
    }
    int res[4];
    const uint8_t *cards = NULL;
    const char *why = "";
    decide(theirs, tlen, mask, res, &cards, &why);
    int other = -1;
    if (res[0] == MPI_SUCCESS && res[2] != 1) {
        res[0] = MPI_ERR_OTHER;
        why = "the other side is not one process";
    }
    if (res[0] == MPI_SUCCESS && (urc = learn(cards, (size_t)res[3], 1, &other)) != UMP_OK) {
        res[0] = ump_mpi_class_of(urc);
        why = "the process at the other end cannot be reached from here";
    }
    /* The smaller (job id, rank) is low: both ends order alike. */
    card_hdr_t h = {0};
    if (tlen >= sizeof(h)) memcpy(&h, theirs, sizeof(h));
    int32_t orank = 0;
    if (res[0] == MPI_SUCCESS) memcpy(&orank, (const uint8_t *)theirs + sizeof(h), sizeof(orank));
    free(theirs);
    if (res[0] != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, res[0], call, "over fd %d: %s", fd, why);
    int me = MPI_COMM_SELF->group->world[0];
    if (other == me)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "fd %d leads back to this process",
                             fd);
    int jc = memcmp(ump_job_id(), h.job, sizeof(h.job));
    bool low = jc < 0 || (jc == 0 && me < orank);
    MPI_Group g = ump_mpi_group_new(1, &other);
    if (!g) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    rc = ump_mpi_intercomm_build(MPI_COMM_SELF, g, res[1], low, intercomm);
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
