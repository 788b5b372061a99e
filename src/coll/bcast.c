/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broadcast: binomial tree (short messages: log n latency); van de Geijn's
 * binomial scatter + ring allgather (long messages: about 2x the bytes per
 * link instead of log n times); segmented binomial (pipelined tree, on
 * request). When the node is oversubscribed the plain tree is used for
 * every size: the ring needs every rank scheduled in turn. Across nodes: the
 * leaders first, then each node from its leader.
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_bcast_algo, "UMP_COLL_BCAST_ALGO", "auto",
              "auto|binomial|scatter_allgather|pipeline|hier",
              "broadcast algorithm (auto: by size, node layout and oversubscription)");
UMP_CFG(ump_coll_bcast_long, "UMP_COLL_BCAST_LONG", UMP_CFG_SIZE, "128k",
        "broadcasts of at least this many bytes use scatter+allgather or the pipeline");
UMP_CFG(ump_coll_segsize, "UMP_COLL_SEGSIZE", UMP_CFG_SIZE, "64k",
        "segment size of pipelined collectives");

void ump_alg_bcast_binomial(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root)
{
    int n = g.n, vr = (g.me - root + n) % n;
    int mask = 1;
    while (mask < n) {
        if (vr & mask) {
            ump_sched_recv(s, g.w[(vr - mask + root) % n], buf, bytes);
            ump_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n) ump_sched_send(s, g.w[(vr + mask + root) % n], buf, bytes);
    ump_sched_round(s);
}

void ump_alg_bcast_pipe(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root, size_t seg)
{
    int n = g.n, vr = (g.me - root + n) % n;
    if (!seg) seg = bytes;
    size_t nseg = bytes ? (bytes + seg - 1) / seg : 1;
    int parent = -1, lowbit = 1;
    while (lowbit < n && !(vr & lowbit))
        lowbit <<= 1;
    if (vr) parent = g.w[(vr - lowbit + root) % n];
    char *p = buf;
    /* Round k receives segment k and forwards segment k-1. */
    for (size_t k = 0; k <= nseg; k++) {
        if (parent >= 0 && k < nseg) {
            size_t off = k * seg;
            ump_sched_recv(s, parent, p + off, UMP_MIN(seg, bytes - off));
        }
        if (k >= 1) {
            size_t off = (k - 1) * seg;
            for (int m = lowbit >> 1; m > 0; m >>= 1)
                if (vr + m < n)
                    ump_sched_send(s, g.w[(vr + m + root) % n], p + off, UMP_MIN(seg, bytes - off));
        }
        ump_sched_round(s);
    }
}

void ump_alg_bcast_scag(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root)
{
    int n = g.n, vr = (g.me - root + n) % n;
    char *p = buf;
    size_t chunk = (bytes + (size_t)n - 1) / (size_t)n;
#define BOFF(i) UMP_MIN((size_t)(i)*chunk, bytes)
    /* Binomial scatter: vr receives the blocks of its subtree. */
    int mask = 1;
    while (mask < n) {
        if (vr & mask) {
            int hi = UMP_MIN(vr + mask, n);
            ump_sched_recv(s, g.w[(vr - mask + root) % n], p + BOFF(vr), BOFF(hi) - BOFF(vr));
            ump_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int c = vr + mask;
        if (c < n) {
            int hi = UMP_MIN(c + mask, n);
            ump_sched_send(s, g.w[(c + root) % n], p + BOFF(c), BOFF(hi) - BOFF(c));
        }
    }
    ump_sched_round(s);
    /* Ring allgather of the blocks, in vr order. */
    int right = g.w[((vr + 1) % n + root) % n];
    int left = g.w[((vr - 1 + n) % n + root) % n];
    for (int k = 0; k < n - 1; k++) {
        int sb = (vr - k + n) % n, rb = (vr - k - 1 + n) % n;
        ump_sched_send(s, right, p + BOFF(sb), BOFF(sb + 1) - BOFF(sb));
        ump_sched_recv(s, left, p + BOFF(rb), BOFF(rb + 1) - BOFF(rb));
        ump_sched_round(s);
    }
#undef BOFF
}

void ump_alg_bcast_auto(ump_sched_t *s, ump_cgrp_t g, void *buf, size_t bytes, int root,
                        bool oversub)
{
    /* Oversubscribed, the tree measured best (the ring of scatter+allgather
     * needs every rank scheduled in turn). */
    if (g.n <= 2 || bytes < ump_coll_bcast_long.v.sz || oversub)
        ump_alg_bcast_binomial(s, g, buf, bytes, root);
    else
        ump_alg_bcast_scag(s, g, buf, bytes, root);
}

int ump_coll_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm, ump_req_t *greq)
{
    if (!greq && ump_coll_bcast_algo.v.e == 0) {
        int rc = ump_fast_bcast(buf, count, dt, root, comm);
        if (rc != UMP_COLL_NOFAST) return rc;
    }
    ump_sched_t s;
    ump_sched_init(&s, comm);
    ump_coll_comm_t *st = comm->coll;
    ump_cgrp_t g = ump_cgrp_comm(comm);
    size_t bytes = (size_t)count * dt->size;
    bool contig = ump_coll_dt_contig(dt);
    void *p = buf;
    if (!contig) {
        p = ump_sched_tmp(&s, bytes);
        if (p && comm->rank == root) ump_coll_pack(p, buf, (size_t)count, dt);
    }
    if (s.err || !st) goto out;
    int algo = ump_coll_bcast_algo.v.e;
    if (algo == 0 && ump_coll_use_hier(st, comm->size)) algo = 4;
    switch (algo) {
    case 1:
        ump_alg_bcast_binomial(&s, g, p, bytes, root);
        break;
    case 2:
        ump_alg_bcast_scag(&s, g, p, bytes, root);
        break;
    case 3:
        ump_alg_bcast_pipe(&s, g, p, bytes, root, ump_coll_segsize.v.sz);
        break;
    case 4: {
        /* Leaders, with the root standing in for its node's leader. */
        int rnode = st->node_of[root];
        int *lw = ump_sched_tmp(&s, sizeof(int) * (size_t)st->nnodes);
        if (!lw) break;
        for (int i = 0; i < st->nnodes; i++)
            lw[i] = st->leaders[i];
        lw[rnode] = ump_coll_wrank(comm, root);
        int myw = ump_coll_wrank(comm, comm->rank);
        if (lw[st->my_node] == myw) {
            ump_cgrp_t lead = {.w = lw, .n = st->nnodes, .me = st->my_node};
            ump_alg_bcast_auto(&s, lead, p, bytes, rnode, false);
        }
        int lroot = 0;
        for (int i = 0; i < st->nlocal; i++)
            if (st->local[i] == lw[st->my_node]) lroot = i;
        ump_cgrp_t loc = {.w = st->local, .n = st->nlocal, .me = st->local_me};
        ump_alg_bcast_auto(&s, loc, p, bytes, lroot, st->oversub);
        break;
    }
    default:
        ump_alg_bcast_auto(&s, g, p, bytes, root, st->oversub);
        break;
    }
    if (!contig && comm->rank != root) {
        ump_sched_round(&s);
        ump_sched_unpack(&s, buf, p, (size_t)count, dt);
    }
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
