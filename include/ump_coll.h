/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ump_coll.h - collective operations of the core API (included by ump.h).
 *
 * A collective runs over a *communicator*, a ump_comm_t: an ordered list of
 * world ranks (ump_rank() numbering), this process's position in it, and
 * the core context its collective traffic uses. Every member calls the same
 * collectives on it in the same order, with arguments that agree (the same
 * root, matching type signatures, the same op), as in MPI.
 *
 * Contexts. Collective messages travel on the communicator's context with
 * tags below 2^30, so they never match point-to-point messages posted on
 * other contexts. Core contexts are shared out so:
 *   0 .. UMP_CTX_USER_MAX            free for programs on ump.h (point-to-
 *                                     point, or ump_comm_create)
 *   UMP_CTX_WORLD_COLL (0xffff)       the collectives of ump_comm_world()
 *   0x10000 and up                    the MPI interface's communicators
 * A context given to ump_comm_create must carry no other traffic with tags
 * below 2^30 while the communicator lives.
 *
 * Status: every call returns UMP_OK or a negative UMP_ERR_*: UMP_ERR_OP for
 * an op that does not apply to the datatype (UMP_OP_BAND on UMP_DOUBLE),
 * UMP_ERR_ROOT for a root outside the communicator, UMP_ERR_INVALID for a
 * null communicator or array, UMP_ERR_DATATYPE, UMP_ERR_COUNT, and the
 * point-to-point errors of the messages (UMP_ERR_PEER_DEAD, ...). Argument
 * errors are found before anything is sent and logged with the call's name
 * and the rank.
 *
 * Buffers and counts: counts are elements of the datatype (any committed
 * type, contiguous or not). UMP_IN_PLACE replaces the send buffer where
 * MPI 3.1 allows MPI_IN_PLACE (the same value), and means the same thing.
 * Count and displacement arrays of the v-variants are int arrays (as MPI
 * and Java hold them, so neither face copies them per call), one entry per
 * member, non-negative; displacements count elements of the receive (or
 * send) type, except alltoallw's, which count bytes.
 *
 * Nonblocking forms (ump_i*) return at once with a request that completes
 * when this rank's part is done; wait for it with ump_wait/ump_test. The
 * buffers, arrays and the op belong to the collective until then (a freed
 * op or datatype stays alive while a collective uses it). A communicator
 * runs its collectives in the order they are started; at
 * UMP_THREAD_MULTIPLE a nonblocking collective runs to completion when it
 * is started. Blocking forms may be used from any thread, but one
 * communicator must not run two collectives at once from two threads.
 */
#ifndef UMP_COLL_API_H
#define UMP_COLL_API_H

#include <stddef.h>
#include <stdint.h>

#include "ump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks an in-place send (or, for scatter at the root, receive) buffer. */
#define UMP_IN_PLACE ((void *)1)

/* Last core context free for programs on ump.h, and the context of the
 * collectives of ump_comm_world(). */
#define UMP_CTX_USER_MAX   0xfffeu
#define UMP_CTX_WORLD_COLL 0xffffu

/* --- communicators ---------------------------------------------------------- */

typedef struct ump_comm *ump_comm_t;

/* A communicator of the n world ranks in `world_ranks` (copied; distinct,
 * each in [0, ump_size())), this process among them, whose collectives
 * use core context `ctx`. No message is exchanged: every member makes its
 * own with the same list and context. UMP_ERR_RANK when a rank is invalid,
 * repeated or this process is not in the list. */
int ump_comm_create(const int *world_ranks, int n, uint32_t ctx, ump_comm_t *out);
/* Frees a communicator made by ump_comm_create (no collective of it may be
 * running) and sets *comm to NULL. ump_comm_world() is not freed. */
int ump_comm_free(ump_comm_t *comm);
/* Every rank of the job in ump_rank() order, on UMP_CTX_WORLD_COLL. Made on
 * first use after ump_init; NULL before. Owned by ump. */
ump_comm_t ump_comm_world(void);
/* This process's position, and the number of members (-1 for NULL). */
int ump_comm_rank(ump_comm_t comm);
int ump_comm_size(ump_comm_t comm);
/* World rank of member `rank`, or -1 when out of range. */
int ump_comm_world_rank(ump_comm_t comm, int rank);

/* --- reduction operations ------------------------------------------------------
 *
 * (The core's transport operations already own the name ump_op_t; a
 * reduction operation is a ump_redop_t.) Predefined ops apply to the types
 * MPI 3.1 §5.9.2 allows (SUM on integers, floating point and complex; BAND
 * on integers and UMP_BYTE; MAXLOC on the pair types; ...) and to derived
 * types whose elements are all of one such type; elsewhere UMP_ERR_OP. */
typedef const struct ump_redop *ump_redop_t;

#define UMP_FOREACH_OP(X)                                                                          \
    X(UMP_OP_MAX, max)                                                                             \
    X(UMP_OP_MIN, min)                                                                             \
    X(UMP_OP_SUM, sum)                                                                             \
    X(UMP_OP_PROD, prod)                                                                           \
    X(UMP_OP_LAND, land)                                                                           \
    X(UMP_OP_BAND, band)                                                                           \
    X(UMP_OP_LOR, lor)                                                                             \
    X(UMP_OP_BOR, bor)                                                                             \
    X(UMP_OP_LXOR, lxor)                                                                           \
    X(UMP_OP_BXOR, bxor)                                                                           \
    X(UMP_OP_MAXLOC, maxloc)                                                                       \
    X(UMP_OP_MINLOC, minloc)                                                                       \
    X(UMP_OP_REPLACE, replace)                                                                     \
    X(UMP_OP_NO_OP, no_op)

#define UMP_X_OP_DECL(ump, name) extern const struct ump_redop ump_redop_##name;
UMP_FOREACH_OP(UMP_X_OP_DECL)
#undef UMP_X_OP_DECL

#define UMP_OP_MAX     (&ump_redop_max)
#define UMP_OP_MIN     (&ump_redop_min)
#define UMP_OP_SUM     (&ump_redop_sum)
#define UMP_OP_PROD    (&ump_redop_prod)
#define UMP_OP_LAND    (&ump_redop_land)
#define UMP_OP_BAND    (&ump_redop_band)
#define UMP_OP_LOR     (&ump_redop_lor)
#define UMP_OP_BOR     (&ump_redop_bor)
#define UMP_OP_LXOR    (&ump_redop_lxor)
#define UMP_OP_BXOR    (&ump_redop_bxor)
#define UMP_OP_MAXLOC  (&ump_redop_maxloc)
#define UMP_OP_MINLOC  (&ump_redop_minloc)
#define UMP_OP_REPLACE (&ump_redop_replace)
#define UMP_OP_NO_OP   (&ump_redop_no_op)

/* A user operation: inout[i] = in[i] (op) inout[i] for `count` elements of
 * `dt`, both in dt's own layout (as the user's buffers are). Called on the
 * thread running the collective; it must not call ump. */
typedef void (*ump_user_op_fn)(const void *in, void *inout, size_t count, ump_dt_t dt, void *arg);

/* A user op. `commutative` 0 makes ump combine operands in rank order.
 * `arg` is handed to every call; `free_arg` (may be NULL) is called with it
 * once the op is gone: after ump_redop_free and the end of every collective
 * still using the op. */
int ump_redop_create(ump_user_op_fn fn, int commutative, void *arg, void (*free_arg)(void *arg),
                     ump_redop_t *op);
/* Releases a user op (UMP_ERR_OP for a predefined one) and sets *op NULL. */
int ump_redop_free(ump_redop_t *op);
/* 1 when the op is commutative, 0 when not, UMP_ERR_OP for NULL. */
int ump_redop_commutative(ump_redop_t op);
/* UMP_OK when `op` applies to `dt`, else UMP_ERR_OP (UMP_ERR_DATATYPE for
 * an invalid type). Collectives check the same; faces use this to report
 * the error before anything else. */
int ump_redop_check(ump_redop_t op, ump_dt_t dt);
/* inout = in (op) inout over count elements of dt, locally. */
int ump_reduce_local(const void *in, void *inout, size_t count, ump_dt_t dt, ump_redop_t op);

/* --- collectives ------------------------------------------------------------------
 *
 * Blocking forms return when this rank's part is done (its buffers may be
 * reused); ump_i* forms start the same operation and return a request. */

int ump_barrier(ump_comm_t comm);
int ump_ibarrier(ump_comm_t comm, ump_req_t *req);

/* root's buf to every member's buf. */
int ump_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm);
int ump_ibcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm, ump_req_t *req);

/* rbuf at root = sbuf of member 0 (op) sbuf of member 1 (op) ...; rbuf is
 * read only at root; sbuf may be UMP_IN_PLACE at root (input in rbuf). */
int ump_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op, int root,
               ump_comm_t comm);
int ump_ireduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op, int root,
                ump_comm_t comm, ump_req_t *req);
/* The reduction into every member's rbuf; sbuf may be UMP_IN_PLACE. */
int ump_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                  ump_comm_t comm);
int ump_iallreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                   ump_comm_t comm, ump_req_t *req);

/* Every member's block to the root, in member order (rcount elements of
 * rdt each, read only at root; sbuf UMP_IN_PLACE at root: its block is in
 * rbuf). The v-forms place member i's rcounts[i] elements at displs[i]. */
int ump_gather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
               ump_dt_t rdt, int root, ump_comm_t comm);
int ump_igather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req);
int ump_gatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                const int *displs, ump_dt_t rdt, int root, ump_comm_t comm);
int ump_igatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                 const int *displs, ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req);

/* The root's blocks to the members (the inverse of gather; rbuf may be
 * UMP_IN_PLACE at root). */
int ump_scatter(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                ump_dt_t rdt, int root, ump_comm_t comm);
int ump_iscatter(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                 ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req);
int ump_scatterv(const void *sbuf, const int *scounts, const int *displs, ump_dt_t sdt, void *rbuf,
                 size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm);
int ump_iscatterv(const void *sbuf, const int *scounts, const int *displs, ump_dt_t sdt, void *rbuf,
                  size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm, ump_req_t *req);

/* Gather to every member (sbuf may be UMP_IN_PLACE: the block is in rbuf). */
int ump_allgather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                  ump_dt_t rdt, ump_comm_t comm);
int ump_iallgather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                   ump_dt_t rdt, ump_comm_t comm, ump_req_t *req);
int ump_allgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                   const int *displs, ump_dt_t rdt, ump_comm_t comm);
int ump_iallgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                    const int *displs, ump_dt_t rdt, ump_comm_t comm, ump_req_t *req);

/* Block i of every member's sbuf to member i, into block j (from member j)
 * of rbuf. sbuf UMP_IN_PLACE: the blocks are taken from rbuf. */
int ump_alltoall(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                 ump_dt_t rdt, ump_comm_t comm);
int ump_ialltoall(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                  ump_dt_t rdt, ump_comm_t comm, ump_req_t *req);
int ump_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, ump_dt_t sdt,
                  void *rbuf, const int *rcounts, const int *rdispls, ump_dt_t rdt,
                  ump_comm_t comm);
int ump_ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, ump_dt_t sdt,
                   void *rbuf, const int *rcounts, const int *rdispls, ump_dt_t rdt,
                   ump_comm_t comm, ump_req_t *req);
/* Per-peer types; displacements in bytes. */
int ump_alltoallw(const void *sbuf, const int *scounts, const int *sdispls, const ump_dt_t *sdts,
                  void *rbuf, const int *rcounts, const int *rdispls, const ump_dt_t *rdts,
                  ump_comm_t comm);
int ump_ialltoallw(const void *sbuf, const int *scounts, const int *sdispls, const ump_dt_t *sdts,
                   void *rbuf, const int *rcounts, const int *rdispls, const ump_dt_t *rdts,
                   ump_comm_t comm, ump_req_t *req);

/* The reduction of every member's sbuf (the sum of rcounts elements), of
 * which member i receives rcounts[i] elements (the _block form: rcount
 * each). sbuf may be UMP_IN_PLACE (input in rbuf). */
int ump_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, ump_dt_t dt,
                       ump_redop_t op, ump_comm_t comm);
int ump_reduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, ump_dt_t dt,
                             ump_redop_t op, ump_comm_t comm);
int ump_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, ump_dt_t dt,
                        ump_redop_t op, ump_comm_t comm, ump_req_t *req);
int ump_ireduce_scatter_block(const void *sbuf, void *rbuf, size_t rcount, ump_dt_t dt,
                              ump_redop_t op, ump_comm_t comm, ump_req_t *req);

/* Prefix reductions: member i receives sbuf of 0 (op) ... (op) sbuf of i;
 * exscan stops at i - 1 (rbuf of member 0 is left as it is). */
int ump_scan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
             ump_comm_t comm);
int ump_exscan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
               ump_comm_t comm);
int ump_iscan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
              ump_comm_t comm, ump_req_t *req);
int ump_iexscan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                ump_comm_t comm, ump_req_t *req);

/* --- intercommunicators ----------------------------------------------------------
 *
 * An intercommunicator joins two disjoint groups: the local one (this
 * process among them) and the remote one. Its collectives move data from
 * one group to the other only (MPI 3.1 §5.2.2): ump_inter_* below, never
 * the calls above. Every member of both groups calls each of them, in the
 * same order. Rooted ones take, in the root's group, UMP_ROOT on the root
 * and UMP_ROOT_NONE on the others, and in the other group the root's rank
 * in the remote group. A NULL count array means `rcount` (or `scount`)
 * for every member, a NULL displacement array blocks of that count in
 * rank order; reductions reduce the other group's contributions in its
 * rank order. `req` NULL runs the collective to completion (blocking),
 * otherwise starts it and returns its request there. */
#define UMP_ROOT      (-3)
#define UMP_ROOT_NONE (-2)

/* An intercommunicator of the local and the remote list of world ranks
 * (peer indices; copied), whose collectives use core context `ctx`: every
 * member of both groups makes its own with the same context and lists. */
int ump_intercomm_create(const int *local, int n, const int *remote, int m, uint32_t ctx,
                         ump_comm_t *out);
/* Size of the remote group; 0 for a communicator that is not an inter one. */
int ump_comm_remote_size(ump_comm_t comm);

int ump_inter_barrier(ump_comm_t comm, ump_req_t *req);
int ump_inter_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm,
                    ump_req_t *req);
/* The root receives rcounts[i] (or rcount) elements from remote member i. */
int ump_inter_gatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                      const int *displs, size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm,
                      ump_req_t *req);
int ump_inter_scatterv(const void *sbuf, const int *scounts, const int *displs, size_t scount,
                       ump_dt_t sdt, void *rbuf, size_t rcount, ump_dt_t rdt, int root,
                       ump_comm_t comm, ump_req_t *req);
/* Every member receives the send buffers of the remote group, in its order. */
int ump_inter_allgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf,
                         const int *rcounts, const int *displs, size_t rcount, ump_dt_t rdt,
                         ump_comm_t comm, ump_req_t *req);
/* Block i of the send buffer goes to remote member i; sdts/rdts NULL mean
 * sdt/rdt for all; bytes_displ: displacements count bytes (alltoallw). */
int ump_inter_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                        const ump_dt_t *sdts, void *rbuf, const int *rcounts, const int *rdispls,
                        const ump_dt_t *rdts, int bytes_displ, size_t scount, ump_dt_t sdt,
                        size_t rcount, ump_dt_t rdt, ump_comm_t comm, ump_req_t *req);
/* The root gets the reduction of the remote group's send buffers. */
int ump_inter_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                     int root, ump_comm_t comm, ump_req_t *req);
/* Every member gets the reduction of the remote group's send buffers. */
int ump_inter_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                        ump_comm_t comm, ump_req_t *req);
/* The reduction of the remote group's vectors (the sum of this group's
 * counts long, equal to the remote group's sum) is scattered over this
 * group by rcounts (or rcount each: reduce_scatter_block). */
int ump_inter_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, size_t rcount,
                             ump_dt_t dt, ump_redop_t op, ump_comm_t comm, ump_req_t *req);

#ifdef __cplusplus
}
#endif
#endif /* UMP_COLL_API_H */
