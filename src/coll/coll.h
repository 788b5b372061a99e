/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll.h - collective operations over the core's point-to-point calls.
 *
 * Every collective is built as a *schedule*: rounds of sends and receives
 * posted together, each round followed by local steps (copies and
 * reductions) that run once its messages completed. A blocking collective
 * runs its schedule to the end at once (ump_waitall per round, so the
 * core's wait policy applies: spin, then sleep when oversubscribed); a
 * nonblocking one hands the schedule to a progress hook that advances it
 * on every progress pass and completes a core generalized request.
 *
 * Algorithms work on packed bytes: a non-contiguous user buffer is packed
 * into a scratch buffer when the schedule is built and unpacked by its last
 * round. Traffic uses the communicator's ctx_coll and a tag that is the
 * communicator's collective sequence number, so successive and overlapping
 * collectives never match each other's messages nor point-to-point ones.
 *
 * This layer stands on the core (ump.h) and src/dt only; its public face
 * is include/ump_coll.h (api.c checks the arguments and calls the
 * functions below). Functions return ump status codes (UMP_OK, UMP_ERR_OP,
 * ...).
 */
#ifndef UMP_SRC_COLL_H
#define UMP_SRC_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/op_kernels.h"
#include "dt/dt.h"
#include "ump.h"
#include "util/util.h"

/* --- communicators (comm.c) ------------------------------------------------- */

struct ump_coll_comm;

struct ump_comm {
    int rank, size;
    int *world;                 /* member -> world rank (owned) */
    uint32_t ctx;               /* core context of the collectives */
    bool predefined;            /* ump_comm_world(): not freed by ump_comm_free */
    struct ump_coll_comm *coll; /* algorithm state, made on first use */
    /* Intercommunicators (inter.c): the remote group, else 0 and NULL. */
    int rsize;
    int *rworld; /* remote member -> world rank (owned) */
};

static inline int ump_coll_wrank(ump_comm_t c, int rank)
{
    return c->world[rank];
}

/* --- reduction operations (op.c) --------------------------------------------- */

struct ump_redop {
    int kind; /* UMP_OPK_* of a predefined op, -1 for a user op */
    bool commutative;
    bool predefined;
    int refcount; /* user ops: the creator's reference + running collectives */
    ump_user_op_fn fn;
    void *arg;
    void (*free_arg)(void *arg);
    const char *name;
};

/* --- reductions (op.c) ---------------------------------------------------- */

/* A reduction of (op, datatype) ready to apply to packed elements. */
typedef struct {
    ump_redop_t op;
    ump_dt_t dt;
    ump_kernel_fn_t kernel; /* predefined op: kernel on basic elements */
    size_t per_elem;        /* basic elements per element of dt */
    bool commutative;
    bool user_contig; /* user op on a type whose packed form is its layout */
} ump_coll_red_t;

/* Index of a predefined op (UMP_OPK_*), or -1 for a user op. */
static inline int ump_coll_opk(ump_redop_t op)
{
    return op->kind;
}
/* Checks that `op` applies to `dt` and fills *r. UMP_ERR_OP when it does
 * not (e.g. UMP_OP_BAND on UMP_DOUBLE), UMP_ERR_DATATYPE when the type's elements
 * are not all of one basic type for a predefined op. */
int ump_coll_red_prepare(ump_coll_red_t *r, ump_redop_t op, ump_dt_t dt);
/* ump_coll_red_prepare through a cache of (op, datatype) pairs of
 * predefined ops and types, for the per-call checks of short reductions. */
int ump_coll_red_lookup(ump_coll_red_t *r, ump_redop_t op, ump_dt_t dt);
/* inout = in (op) inout over `count` packed elements. */
void ump_coll_red_apply(const ump_coll_red_t *r, const void *in, void *inout, size_t count);

/* Ops are reference counted so a nonblocking collective keeps its op alive
 * past ump_redop_free (op.c). */
void ump_coll_op_retain(ump_redop_t op);
void ump_coll_op_release(ump_redop_t op);

/* --- datatypes -------------------------------------------------------------- */

/* Whether `count` elements of dt at buf are plain bytes in memory. */
bool ump_coll_dt_contig(ump_dt_t dt);
/* Packs count elements of dt from buf into out (count * dt->size bytes). */
int ump_coll_pack(void *out, const void *buf, size_t count, ump_dt_t dt);
/* Unpacks count * dt->size bytes from in into buf. */
int ump_coll_unpack(void *buf, const void *in, size_t count, ump_dt_t dt);
/* Size in bytes of a memory region holding count elements of dt (from the
 * buffer pointer), and the offset of the first byte touched (true lb). */
size_t ump_coll_dt_span(ump_dt_t dt, size_t count, ptrdiff_t *lb);

/* --- per-communicator state -------------------------------------------- */

typedef struct ump_coll_comm {
    uint32_t seq; /* collective calls so far: the tag of the next one */
    bool topo_done;
    bool oversub;      /* more ranks on this node than cores */
    int nnodes;        /* distinct nodes in the communicator */
    int *node_of;      /* comm rank -> node index (0..nnodes-1, by first rank) */
    int *leaders;      /* node index -> world rank of its lowest comm rank */
    int *leader_crank; /* node index -> that comm rank */
    int *local;        /* world ranks of this node's members, in comm order */
    int nlocal, local_me;
    int my_node;
    void *ftmp; /* scratch of the short blocking collectives (fast.c) */
    size_t fcap;
} ump_coll_comm_t;

/* The state of comm (created on first use; NULL when out of memory). */
ump_coll_comm_t *ump_coll_state(ump_comm_t comm);
/* Frees the state; ump_comm_free calls this. */
void ump_coll_comm_free(ump_comm_t comm);

/* --- schedules (sched.c) --------------------------------------------------- */

typedef enum {
    UMP_SOP_SEND,   /* src, n bytes to peer */
    UMP_SOP_RECV,   /* dst, n bytes from peer */
    UMP_SOP_COPY,   /* n bytes src -> dst */
    UMP_SOP_RED,    /* dst = src (op) dst over n elements */
    UMP_SOP_REDR,   /* dst = dst (op) src over n elements; src is scratch and is clobbered */
    UMP_SOP_UNPACK, /* n elements of dt from packed src into user buffer dst */
} ump_sop_kind_t;

typedef struct {
    uint8_t kind;
    int peer;    /* world rank */
    ump_dt_t dt; /* UNPACK; SEND/RECV of typed data (then n counts elements) */
    const void *src;
    void *dst;
    size_t n;
} ump_sop_t;

/* A scratch buffer of a schedule and its capacity. */
typedef struct {
    void *p;
    size_t cap;
} ump_sched_buf_t;

/* Schedules of short collectives fit in arrays inside the schedule, so
 * the blocking path does not allocate. */
#define UMP_SCHED_INLINE 24

typedef struct ump_sched {
    ump_sop_t *ops;
    size_t nops, capops;
    uint32_t *rend; /* rend[r]: end of round r in ops */
    size_t nrounds, caprounds;
    ump_sched_buf_t *tmps;
    size_t ntmps, captmps;
    ump_coll_red_t red;
    bool has_red;
    uint32_t ctx;
    int tag;
    int err; /* first error while building or running (UMP_ERR_*) */
    /* execution of a nonblocking schedule */
    size_t cur;
    ump_req_t *reqs;
    size_t nreqs, capreqs;
    ump_req_t greq;
    struct ump_sched *next;
    ump_sop_t ops_in[UMP_SCHED_INLINE];
    uint32_t rend_in[UMP_SCHED_INLINE];
    ump_req_t reqs_in[UMP_SCHED_INLINE];
    ump_sched_buf_t tmps_in[8];
} ump_sched_t;

/* Starts a schedule on comm (takes the next collective tag). */
void ump_sched_init(ump_sched_t *s, ump_comm_t comm);
void ump_sched_send(ump_sched_t *s, int peer, const void *buf, size_t bytes);
void ump_sched_recv(ump_sched_t *s, int peer, void *buf, size_t bytes);
/* Sends / receives `count` elements of dt at buf: the core moves a
 * non-contiguous type without a pack buffer. */
void ump_sched_send_dt(ump_sched_t *s, int peer, const void *buf, size_t count, ump_dt_t dt);
void ump_sched_recv_dt(ump_sched_t *s, int peer, void *buf, size_t count, ump_dt_t dt);
void ump_sched_copy(ump_sched_t *s, void *dst, const void *src, size_t bytes);
void ump_sched_red(ump_sched_t *s, const void *in, void *inout, size_t count);
void ump_sched_redr(ump_sched_t *s, void *scratch_in, void *inout, size_t count);
void ump_sched_unpack(ump_sched_t *s, void *dst, const void *packed, size_t count, ump_dt_t dt);
/* Makes the schedule reduce with (op, dt), holding both until it ends;
 * UMP_ERR_OP when the op does not apply to the type. */
int ump_sched_reduction(ump_sched_t *s, ump_redop_t op, ump_dt_t dt);
/* Closes the current round (no-op when it is empty). */
void ump_sched_round(ump_sched_t *s);
/* Scratch memory freed with the schedule (NULL on failure; s->err set). */
void *ump_sched_tmp(ump_sched_t *s, size_t bytes);
/* Runs the schedule to completion and frees it; returns a status code. */
int ump_sched_run(ump_sched_t *s);
/* Starts a nonblocking schedule: moves it to the heap, returns the core
 * generalized request completed when it ends. */
int ump_sched_start(ump_sched_t *s, ump_req_t *greq);
void ump_sched_free(ump_sched_t *s);

/* A group of ranks an algorithm runs over: the whole communicator, the
 * ranks of one node, or the node leaders. */
typedef struct {
    const int *w; /* member -> world rank */
    int n, me;
} ump_cgrp_t;

/* --- short blocking collectives without a schedule (fast.c) ----------------- */

/* Returned by ump_fast_* when they do not apply (no status code is this). */
#define UMP_COLL_NOFAST 0x4e46

int ump_fast_barrier(ump_comm_t comm);
int ump_fast_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm);
int ump_fast_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                    int root, ump_comm_t comm);
int ump_fast_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                       ump_comm_t comm);
int ump_fast_allgather(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                       ump_dt_t rdt, ump_comm_t comm);
int ump_fast_alltoall(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, size_t rcount,
                      ump_dt_t rdt, ump_comm_t comm);

/* --- the collectives (one file each) -------------------------------------- */

/* greq NULL: blocking; otherwise a nonblocking start. */
int ump_coll_barrier(ump_comm_t comm, ump_req_t *greq);
int ump_coll_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm,
                   ump_req_t *greq);
int ump_coll_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                    int root, ump_comm_t comm, ump_req_t *greq);
int ump_coll_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                       ump_comm_t comm, ump_req_t *greq);
int ump_coll_gatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                     const int *displs, size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm,
                     ump_req_t *greq);
int ump_coll_scatterv(const void *sbuf, const int *scounts, const int *displs, size_t scount,
                      ump_dt_t sdt, void *rbuf, size_t rcount, ump_dt_t rdt, int root,
                      ump_comm_t comm, ump_req_t *greq);
int ump_coll_allgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf,
                        const int *rcounts, const int *displs, size_t rcount, ump_dt_t rdt,
                        ump_comm_t comm, ump_req_t *greq);
int ump_coll_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                       const ump_dt_t *sdts, void *rbuf, const int *rcounts, const int *rdispls,
                       const ump_dt_t *rdts, bool bytes_displ, size_t scount, ump_dt_t sdt,
                       size_t rcount, ump_dt_t rdt, ump_comm_t comm, ump_req_t *greq);
int ump_coll_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, size_t rcount,
                            ump_dt_t dt, ump_redop_t op, ump_comm_t comm, ump_req_t *greq);
int ump_coll_scan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                  bool exclusive, ump_comm_t comm, ump_req_t *greq);

#endif /* UMP_SRC_COLL_H */
