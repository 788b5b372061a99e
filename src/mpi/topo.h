/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo.h - process topologies (MPI 3.1 chapter 7) inside src/mpi: the
 * object a communicator's `topo` field points to, and what the topology
 * files (topo_*.c) and the neighbourhood collectives (neighbor*.c) share.
 *
 * Life cycle: a topology constructor (Cart_create, Graph_create,
 * Dist_graph_create(_adjacent), Cart_sub) first makes an ordinary
 * communicator, then attaches a topology to it with ump_mpi_topo_attach.
 * The topology is immutable afterwards except for its sequence number; it
 * is copied by MPI_Comm_dup (ump_mpi_topo_dup) and freed with the
 * communicator object (ump_mpi_topo_free, from comm.c).
 *
 * Neighbourhood traffic runs on the point-to-point context of a hidden
 * duplicate of the communicator (`hidden`), so it can never match a user's
 * message or an ordinary collective, with the per-topology sequence number
 * as the tag, so several outstanding neighbourhood collectives on one
 * communicator never match each other's messages.
 */
#ifndef UMP_MPI_TOPO_H
#define UMP_MPI_TOPO_H

#include "mpi/mpi_impl.h"

struct ump_mpi_topo {
    int kind;        /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    MPI_Comm hidden; /* private duplicate: its ctx_p2p carries neighbour traffic */
    uint32_t seq;    /* neighbourhood collectives started on this communicator */

    /* MPI_CART */
    int ndims;
    int *dims, *periods, *coords; /* coords: this process's */

    /* MPI_GRAPH: the whole graph, as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;

    /* MPI_DIST_GRAPH: this process's part */
    bool weighted;
    int *sweights, *dweights; /* NULL when unweighted */

    /* The neighbour lists every kind reduces to (communicator ranks,
     * MPI_PROC_NULL allowed), in the order the standard fixes for the
     * neighbourhood collectives, with the tag offset (0 or 1) of each
     * message: for Cartesian grids a message travelling towards the
     * negative neighbour carries 0 and one towards the positive neighbour
     * 1, so the two messages between a pair of ranks that are each other's
     * neighbour in both directions (a periodic dimension of size 1 or 2)
     * land in the right blocks. */
    int indeg, outdeg;
    int *in, *out;
    uint8_t *in_tag, *out_tag;
};

/* Allocates an empty topology of `kind`, or NULL. */
struct ump_mpi_topo *ump_mpi_topo_new(int kind);
/* Releases a topology that is not attached to any communicator. */
void ump_mpi_topo_destroy(struct ump_mpi_topo *t);
/* Attaches t (complete but for `hidden`) to the new communicator c:
 * makes the hidden duplicate (collective over c). t NULL (out of memory)
 * still takes part and fails with MPI_ERR_NO_MEM. On failure t is
 * destroyed and the error raised on c is returned; the caller frees c. */
int ump_mpi_topo_attach(const char *call, MPI_Comm c, struct ump_mpi_topo *t);
/* The topology of comm when it is of `kind` (or of any kind when kind is
 * 0); otherwise raises MPI_ERR_TOPOLOGY (MPI_ERR_COMM for a bad handle)
 * naming `call`, stores the class in *err and returns NULL. */
struct ump_mpi_topo *ump_mpi_topo_get(const char *call, MPI_Comm comm, int kind, int *err);
/* Cartesian helpers (topo_cart.c): rank of coordinates (already inside the
 * grid) and coordinates of a rank. */
int ump_mpi_cart_rank_of(const struct ump_mpi_topo *t, const int *coords);
void ump_mpi_cart_coords_of(const struct ump_mpi_topo *t, int rank, int *coords);
/* Fills the neighbour lists of a Cartesian topology for `rank`. */
int ump_mpi_cart_lists(struct ump_mpi_topo *t, int rank);

/* What a neighbourhood collective moves (neighbor.c fills it, checked;
 * neighbor_run.c posts it). Send block j goes to out-neighbour j, receive
 * block i comes from in-neighbour i. A block's address is
 *   buf + disp_bytes[k]                      (alltoallw),
 *   buf + disps[k] * extent                  (v forms),
 *   buf + k * count * extent                 (per_block),
 *   buf                                      (otherwise: allgather's send);
 * its count is counts[k] or count, its type types[k] or type. */
struct ump_mpi_nbr_side {
    const char *buf;
    int count;
    const int *counts;
    const int *disps;
    const MPI_Aint *disp_bytes;
    bool per_block;
    bool varying, typed; /* counts and displacements (v, w); types (w) per block */
    MPI_Datatype type;
    const MPI_Datatype *types;
};

/* Posts every receive and send of one neighbourhood collective on comm at
 * once, then completes them: before returning (request NULL) or through
 * *request, an MPI request over a core generalized request that a progress
 * hook completes. Errors are raised on comm naming `call`. */
int ump_mpi_nbr_run(const char *call, MPI_Comm comm, const struct ump_mpi_nbr_side *snd,
                    const struct ump_mpi_nbr_side *rcv, MPI_Request *request);

/* Copies of the caller's arrays (n may be 0: returns a valid pointer). */
int *ump_mpi_topo_intdup(const int *a, int n);

#endif /* UMP_MPI_TOPO_H */
