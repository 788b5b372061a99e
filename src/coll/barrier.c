/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier: dissemination (ceil(log2 n) rounds of one zero-byte message each
 * way, any n), or hierarchical on several nodes: the node's ranks check in
 * with their leader, the leaders run dissemination, the leaders release.
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_barrier_algo, "UMP_COLL_BARRIER_ALGO", "auto", "auto|dissem|hier",
              "barrier algorithm (auto: hier across nodes, else dissemination)");
UMP_CFG_ENUM_(ump_coll_hier, "UMP_COLL_HIER", "auto", "auto|off",
              "node-aware collectives when a communicator spans nodes with several ranks each");

bool ump_coll_use_hier(ump_coll_comm_t *st, int n)
{
    if (ump_coll_hier.v.e == 1) return false;
    return st->nnodes > 1 && st->nnodes < n;
}

void ump_alg_barrier_dissem(ump_sched_t *s, ump_cgrp_t g)
{
    for (int d = 1; d < g.n; d <<= 1) {
        ump_sched_send(s, g.w[(g.me + d) % g.n], NULL, 0);
        ump_sched_recv(s, g.w[(g.me - d + g.n) % g.n], NULL, 0);
        ump_sched_round(s);
    }
}

/* Everyone tells `root` it arrived. */
void ump_alg_fanin(ump_sched_t *s, ump_cgrp_t g, int root)
{
    if (g.me == root) {
        for (int i = 0; i < g.n; i++)
            if (i != root) ump_sched_recv(s, g.w[i], NULL, 0);
    } else {
        ump_sched_send(s, g.w[root], NULL, 0);
    }
    ump_sched_round(s);
}

void ump_alg_fanout(ump_sched_t *s, ump_cgrp_t g, int root)
{
    if (g.me == root) {
        for (int i = 0; i < g.n; i++)
            if (i != root) ump_sched_send(s, g.w[i], NULL, 0);
    } else {
        ump_sched_recv(s, g.w[root], NULL, 0);
    }
    ump_sched_round(s);
}

int ump_coll_barrier(ump_comm_t comm, ump_req_t *greq)
{
    if (!greq && ump_coll_barrier_algo.v.e == 0) {
        int rc = ump_fast_barrier(comm);
        if (rc != UMP_COLL_NOFAST) return rc;
    }
    ump_sched_t s;
    ump_sched_init(&s, comm);
    ump_coll_comm_t *st = comm->coll;
    ump_cgrp_t g = ump_cgrp_comm(comm);
    int algo = ump_coll_barrier_algo.v.e;
    if (st && (algo == 2 || (algo == 0 && ump_coll_use_hier(st, comm->size)))) {
        ump_cgrp_t loc = {.w = st->local, .n = st->nlocal, .me = st->local_me};
        ump_alg_fanin(&s, loc, 0);
        if (st->local_me == 0) {
            ump_cgrp_t lead = {.w = st->leaders, .n = st->nnodes, .me = st->my_node};
            ump_alg_barrier_dissem(&s, lead);
        }
        ump_alg_fanout(&s, loc, 0);
    } else {
        ump_alg_barrier_dissem(&s, g);
    }
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
