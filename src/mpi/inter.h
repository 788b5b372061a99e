/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inter.h - intercommunicators (inter.c, inter_coll.c): construction, the
 * context ids they share with the other group, and their collectives.
 *
 * An intercommunicator is a struct ump_mpi_comm whose rgroup is the remote
 * group: point-to-point ranks name it, Comm_size/rank/group give the local
 * group. Its context id n is agreed by both groups; its ucomm is a core
 * intercommunicator (ump_intercomm_create) on ctx_coll, and `local` an
 * intracommunicator of the local group on contexts of its own (above every
 * MPI communicator's, derived from n, so both groups use the same two
 * without meeting: their members are disjoint) that the construction calls
 * run their local steps on.
 */
#ifndef UMP_MPI_INTER_H
#define UMP_MPI_INTER_H

#include <stdbool.h>
#include <stdint.h>

#include "mpi/mpi_impl.h"

/* Collective over `local`: the context ids free on every member
 * (bitwise AND of their free bitmaps), UMP_MPI_MAX_CTX_IDS bits. */
int ump_mpi_ctx_free_mask(MPI_Comm local, uint64_t mask[UMP_MPI_MAX_CTX_IDS / 64]);
/* Lowest id set in mask, or -1. */
int ump_mpi_ctx_pick(const uint64_t *mask);
/* Every process of both groups calls it (not collective: no traffic)
 * with the same ctx_id: builds the intercommunicator of local's group
 * and `remote` (a group whose world[] entries are core peer indices;
 * processes met at run time have indices >= the world size, so never
 * assume world[] < world size). `low` is true on exactly one side: it
 * orders the groups where the standard needs an order. Marks ctx_id used
 * on this process (freed with the communicator); takes its own references
 * to the groups; the error handler is local's. MPI class. */
/* MPI_Comm_accept (is_accept) or _connect once the arguments are checked,
 * collective over comm: the meeting of dpm_comm.c. Also how a spawning
 * group (accept) and its children (connect, in MPI_Init) meet. */
int ump_mpi_meet(const char *call, bool is_accept, const char *port, int root, MPI_Comm comm,
                 MPI_Comm *newcomm);
int ump_mpi_intercomm_build(MPI_Comm local, MPI_Group remote, int ctx_id, bool low,
                            MPI_Comm *newcomm);

/* comm.c: marks a context id used or free on this process; makes an
 * intracommunicator of group g (its reference taken over) on context id
 * `id` (not marked here) with parent's error handler, or NULL. */
void ump_mpi_ctx_mark(int id, bool used);
MPI_Comm ump_mpi_comm_new(MPI_Group g, int id, MPI_Comm parent);

/* inter.c: the intercommunicator forms of comm.c's calls (inter_dup is all
 * of MPI_Comm_dup's work: info and attributes too). */
void ump_mpi_inter_free(MPI_Comm c); /* the parts only an intercommunicator has */
int ump_mpi_inter_dup(const char *call, MPI_Comm c, MPI_Comm *newcomm);
int ump_mpi_inter_split(const char *call, MPI_Comm c, int color, int key, MPI_Comm *newcomm);
int ump_mpi_inter_create(const char *call, MPI_Comm c, MPI_Group group, MPI_Comm *newcomm);
int ump_mpi_inter_compare(MPI_Comm a, MPI_Comm b); /* MPI_IDENT ... MPI_UNEQUAL, a != b */

/* inter_coll.c: the collectives on an intercommunicator, called by coll.c
 * once it has seen comm->rgroup. `request` NULL: blocking. */
static inline bool ump_mpi_is_inter(MPI_Comm c)
{
    return ump_mpi_comm_ok(c) && c->rgroup;
}
int ump_mpi_inter_barrier(const char *call, MPI_Comm comm, MPI_Request *request);
int ump_mpi_inter_bcast(const char *call, void *buf, int count, MPI_Datatype dt, int root,
                        MPI_Comm comm, MPI_Request *request);
int ump_mpi_inter_reduce(const char *call, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                         MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
int ump_mpi_inter_allreduce(const char *call, const void *sbuf, void *rbuf, int count,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request);
/* rcounts NULL: rcount from each; displs NULL: blocks in rank order. */
int ump_mpi_inter_gather(const char *call, const void *sbuf, int scount, MPI_Datatype sdt,
                         void *rbuf, const int *rcounts, const int *displs, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *request);
int ump_mpi_inter_scatter(const char *call, const void *sbuf, const int *scounts, const int *displs,
                          int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                          int root, MPI_Comm comm, MPI_Request *request);
int ump_mpi_inter_allgather(const char *call, const void *sbuf, int scount, MPI_Datatype sdt,
                            void *rbuf, const int *rcounts, const int *displs, int rcount,
                            MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request);
/* sdts/rdts NULL: sdt/rdt for all (alltoall, alltoallv); with them the
 * displacements count bytes (alltoallw). */
int ump_mpi_inter_alltoall(const char *call, const void *sbuf, const int *scounts,
                           const int *sdispls, const MPI_Datatype *sdts, int scount,
                           MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                           const MPI_Datatype *rdts, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                           MPI_Request *request);
/* rcounts NULL: rcount each (reduce_scatter_block). */
int ump_mpi_inter_reduce_scatter(const char *call, const void *sbuf, void *rbuf, const int *rcounts,
                                 int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request);

#endif /* UMP_MPI_INTER_H */
