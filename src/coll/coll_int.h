/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll_int.h - the algorithms of src/coll, shared between its files. Each
 * algorithm appends rounds to a schedule and runs over a group (ump_cgrp_t),
 * so hierarchical collectives reuse the flat ones on a node's ranks and on
 * the node leaders. Buffers are packed bytes; `esz` is the packed size of
 * one element (for reductions), `bytes` a length in bytes.
 */
#ifndef UMP_COLL_INT_H
#define UMP_COLL_INT_H

#include <string.h>

#include "coll/coll.h"

extern ump_cfg_t ump_coll_fake_ppn, ump_coll_segsize;

/* The whole communicator as a group. */
static inline ump_cgrp_t ump_cgrp_comm(ump_comm_t c)
{
    return (ump_cgrp_t){.w = c->world, .n = c->size, .me = c->rank};
}

/* Largest power of two <= n (n >= 1). */
static inline int ump_pow2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Whether hierarchical algorithms apply: several nodes, some with more than
 * one rank, and the tunable allows it. */
bool ump_coll_use_hier(ump_coll_comm_t *st, int n);

/* barrier.c */
void ump_alg_barrier_dissem(ump_sched_t *s, ump_cgrp_t g);
void ump_alg_fanin(ump_sched_t *s, ump_cgrp_t g, int root);
void ump_alg_fanout(ump_sched_t *s, ump_cgrp_t g, int root);

/* bcast.c */
void ump_alg_bcast_binomial(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root);
void ump_alg_bcast_scag(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root);
void ump_alg_bcast_pipe(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root,
                        size_t seg);
/* Picks by size; used by composite algorithms too. */
void ump_alg_bcast_auto(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root,
                        bool oversub);

/* reduce.c: acc holds this rank's contribution and is clobbered; the
 * root's result lands in res (which may be acc). */
void ump_alg_reduce_binomial(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                             size_t esz, int root);
void ump_alg_reduce_pipe(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                         size_t esz, int root, size_t seg);
void ump_alg_reduce_rab(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                        size_t esz, int root);

/* allreduce.c: acc holds the contribution and receives the result. */
/* src, when not NULL, holds acc's contents (contiguous, not in place):
 * the first round sends from it (see ump_rab_reduce_scatter). */
void ump_alg_allreduce_recdbl(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                              const void *src);
void ump_alg_allreduce_ring(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz);
void ump_alg_allreduce_rab(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                           const void *src);
void ump_alg_allreduce_auto(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                            bool oversub);

/* allgather.c: buf holds n blocks at offs[i] of lens[i] bytes; this rank's
 * block is in place, or (mine not NULL, n > 1) at mine: then the first
 * round sends it from there and copies it into place while the peers read. */
void ump_alg_allgather_ring(ump_sched_t *s, ump_cgrp_t g, char *buf, const size_t *offs,
                            const size_t *lens, const void *mine);
/* Uniform blocks of b bytes laid out back to back. */
void ump_alg_allgather_recdbl(ump_sched_t *s, ump_cgrp_t g, char *buf, size_t b, const void *mine);
void ump_alg_allgather_bruck(ump_sched_t *s, ump_cgrp_t g, char *buf, size_t b);

/* gather.c / scatter.c: uniform blocks of b bytes, packed, in rank order. */
void ump_alg_gather_binomial(ump_sched_t *s, ump_cgrp_t g, const void *mine, char *all, size_t b,
                             int root);
void ump_alg_scatter_binomial(ump_sched_t *s, ump_cgrp_t g, const char *all, void *mine, size_t b,
                              int root);

#endif /* UMP_COLL_INT_H */
