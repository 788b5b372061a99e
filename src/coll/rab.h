/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rab.h - the pieces of Rabenseifner's algorithms shared by reduce and
 * allreduce: folding n ranks to a power of two, block windows, and the
 * reduce-scatter by recursive halving.
 */
#ifndef UMP_COLL_RAB_H
#define UMP_COLL_RAB_H

#include "coll/coll_int.h"

typedef struct {
    ump_cgrp_t g;
    int p2, rem, k; /* p2 = 2^k participants after folding rem ranks */
    int nr;         /* this rank's new rank, -1 when folded away */
    size_t count, esz;
} ump_rab_t;

void ump_rab_init(ump_rab_t *r, ump_cgrp_t g, size_t count, size_t esz);
/* World rank of new rank nr. */
int ump_rab_real(const ump_rab_t *r, int nr);
/* Byte range [lo, hi) of the blocks new rank nr owns after `steps` halvings. */
void ump_rab_window(const ump_rab_t *r, int nr, int steps, size_t *lo, size_t *hi);
/* The first 2*rem ranks pair up; the odd one's data is reduced into the
 * even one's, keeping rank order. */
void ump_rab_fold(ump_sched_t *s, const ump_rab_t *r, void *acc, void *tmp);
/* The reverse: the even rank hands the result to the odd one. */
void ump_rab_unfold(ump_sched_t *s, const ump_rab_t *r, void *acc);
/* Recursive halving: afterwards new rank nr holds the reduced block
 * window(nr, k) in acc. src, when not NULL, holds what acc holds (the
 * user's contribution, nothing folded in): the first round sends from it,
 * lines no core has just written, which a peer reads faster. */
void ump_rab_reduce_scatter(ump_sched_t *s, const ump_rab_t *r, void *acc, void *tmp,
                            const void *src);

#endif /* UMP_COLL_RAB_H */
