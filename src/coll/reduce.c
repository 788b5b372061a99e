/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce: binomial tree (short vectors) and Rabenseifner's reduce-scatter
 * by recursive halving + binomial gather (long vectors: each rank reduces
 * only its share). Both keep rank order for non-commutative ops: the tree
 * is rooted at rank 0 so every subtree covers consecutive ranks (the
 * result then travels to the root), and the halving doubles its distance
 * each step so partial results always cover aligned blocks of ranks.
 * Across nodes (commutative ops): reduce within each node to its leader,
 * then among the leaders to the root.
 */
#include "coll/coll_int.h"
#include "coll/rab.h"

UMP_CFG_ENUM_(ump_coll_reduce_algo, "UMP_COLL_REDUCE_ALGO", "auto",
              "auto|binomial|rabenseifner|hier|pipeline",
              "reduce algorithm (auto: by size and node layout)");
/* Measured on the 2-core development machine (shm, 2 to 4 ranks), the
 * binomial tree beat Rabenseifner up to 1 MiB by 2-3x: the tree's non-root
 * ranks finish early and overlap the next call, so the default switches
 * late. */
UMP_CFG(ump_coll_reduce_long, "UMP_COLL_REDUCE_LONG", UMP_CFG_SIZE, "8m",
        "reductions of at least this many bytes use Rabenseifner's algorithm");

/* first, when not NULL, is this rank's contribution, not yet in acc: the
 * first child's data are received straight into acc and first is folded
 * in there (no copy of it into acc, no scratch for that receive). Only
 * for a rank with a child (a leaf sends acc). */
static void reduce_binomial(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                            size_t esz, int root, const void *first)
{
    int n = g.n;
    /* Commutative ops may root the tree anywhere; others need rank order. */
    int base = s->red.commutative ? root : 0;
    int vr = (g.me - base + n) % n;
    void *tmp = NULL;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            ump_sched_send(s, g.w[(vr - mask + base) % n], acc, count * esz);
            ump_sched_round(s);
            break;
        }
        if (vr + mask < n) {
            if (first) {
                /* acc = first (op) child, in rank order. */
                ump_sched_recv(s, g.w[(vr + mask + base) % n], acc, count * esz);
                ump_sched_red(s, first, acc, count);
                first = NULL;
            } else {
                if (!tmp) tmp = ump_sched_tmp(s, count * esz);
                ump_sched_recv(s, g.w[(vr + mask + base) % n], tmp, count * esz);
                ump_sched_redr(s, tmp, acc, count);
            }
            ump_sched_round(s);
        }
    }
    if (base == root) {
        if (g.me == root) ump_sched_copy(s, res, acc, count * esz);
    } else if (g.me == base) {
        ump_sched_send(s, g.w[root], acc, count * esz);
    } else if (g.me == root) {
        ump_sched_recv(s, g.w[base], res, count * esz);
    }
    ump_sched_round(s);
}

void ump_alg_reduce_binomial(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                             size_t esz, int root)
{
    reduce_binomial(s, g, acc, res, count, esz, root, NULL);
}

/* The binomial tree cut into segments: a node receives segment k from its
 * children while it sends segment k-1 to its parent, so long vectors flow
 * through the tree instead of waiting at every level. */
void ump_alg_reduce_pipe(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                         size_t esz, int root, size_t seg)
{
    int n = g.n;
    int base = s->red.commutative ? root : 0;
    int vr = (g.me - base + n) % n;
    size_t segc = seg / esz ? seg / esz : 1; /* elements per segment */
    size_t nseg = count ? (count + segc - 1) / segc : 0;
    int low = 1;
    while (low < n && !(vr & low))
        low <<= 1;
    int parent = vr ? g.w[(vr - low + base) % n] : -1;
    int nkids = 0, kids[32];
    for (int m = 1; m < low && vr + m < n; m <<= 1)
        kids[nkids++] = g.w[(vr + m + base) % n];
    char *a = acc, *tb[32];
    for (int j = 0; j < nkids; j++) {
        tb[j] = ump_sched_tmp(s, segc * esz);
        if (!tb[j]) return;
    }
    for (size_t k = 0; k <= nseg; k++) {
        if (k < nseg) {
            size_t off = k * segc, c = UMP_MIN(segc, count - off);
            /* Children in increasing distance cover increasing ranks. */
            for (int j = 0; j < nkids; j++)
                ump_sched_recv(s, kids[j], tb[j], c * esz);
            for (int j = 0; j < nkids; j++)
                ump_sched_redr(s, tb[j], a + off * esz, c);
        }
        if (k >= 1 && parent >= 0) {
            size_t off = (k - 1) * segc, c = UMP_MIN(segc, count - off);
            ump_sched_send(s, parent, a + off * esz, c * esz);
        }
        ump_sched_round(s);
    }
    if (base == root) {
        if (g.me == root) ump_sched_copy(s, res, acc, count * esz);
    } else if (g.me == base) {
        ump_sched_send(s, g.w[root], acc, count * esz);
    } else if (g.me == root) {
        ump_sched_recv(s, g.w[base], res, count * esz);
    }
    ump_sched_round(s);
}

void ump_alg_reduce_rab(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                        size_t esz, int root)
{
    ump_rab_t r;
    ump_rab_init(&r, g, count, esz);
    char *tmp = ump_sched_tmp(s, count * esz);
    if (!tmp) return;
    ump_rab_fold(s, &r, acc, tmp);
    if (r.nr >= 0) {
        ump_rab_reduce_scatter(s, &r, acc, tmp, NULL);
        /* Binomial gather of the blocks to new rank 0 (rank 0). */
        for (int j = r.k - 1; j >= 0; j--) {
            int mask = 1 << j;
            if (r.nr >= 2 * mask) continue;
            size_t lo, hi;
            if (r.nr & mask) {
                ump_rab_window(&r, r.nr, j + 1, &lo, &hi);
                ump_sched_send(s, ump_rab_real(&r, r.nr - mask), (char *)acc + lo, hi - lo);
                ump_sched_round(s);
                break;
            }
            ump_rab_window(&r, r.nr + mask, j + 1, &lo, &hi);
            ump_sched_recv(s, ump_rab_real(&r, r.nr + mask), (char *)acc + lo, hi - lo);
            ump_sched_round(s);
        }
    }
    if (root == 0) {
        if (g.me == 0) ump_sched_copy(s, res, acc, count * esz);
    } else if (g.me == 0) {
        ump_sched_send(s, g.w[root], acc, count * esz);
    } else if (g.me == root) {
        ump_sched_recv(s, g.w[0], res, count * esz);
    }
    ump_sched_round(s);
}

static int reduce_choose(ump_cgrp_t g, size_t count, size_t esz, int algo)
{
    size_t bytes = count * esz;
    if (algo != 0) return algo;
    /* Measured: the segmented tree wins from 2 segments on more than 2
     * ranks (5x at 1 MiB on 8 oversubscribed ranks), the plain tree on 2. */
    if (bytes >= ump_coll_reduce_long.v.sz && count >= (size_t)ump_pow2_floor(g.n) && g.n > 1)
        return 2;
    if (g.n > 2 && bytes >= 2 * ump_coll_segsize.v.sz) return 4;
    return 1;
}

/* Whether this rank has no children in the binomial trees (plain and
 * segmented) rooted at `base`: it only sends its contribution. */
static bool tree_leaf(ump_cgrp_t g, int base)
{
    int vr = (g.me - base + g.n) % g.n;
    for (int mask = 1; mask < g.n; mask <<= 1) {
        if (vr & mask) return true;
        if (vr + mask < g.n) return false;
    }
    return false;
}

static void reduce_flat(ump_sched_t *s, ump_cgrp_t g, void *acc, void *res, size_t count,
                        size_t esz, int root, int algo, const void *first)
{
    algo = reduce_choose(g, count, esz, algo);
    if (algo == 2)
        ump_alg_reduce_rab(s, g, acc, res, count, esz, root);
    else if (algo == 4)
        ump_alg_reduce_pipe(s, g, acc, res, count, esz, root, ump_coll_segsize.v.sz);
    else
        reduce_binomial(s, g, acc, res, count, esz, root, first);
}

int ump_coll_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                    int root, ump_comm_t comm, ump_req_t *greq)
{
    if (!greq && ump_coll_reduce_algo.v.e == 0) {
        int rc = ump_fast_reduce(sbuf, rbuf, count, dt, op, root, comm);
        if (rc != UMP_COLL_NOFAST) return rc;
    }
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int rc = ump_sched_reduction(&s, op, dt);
    if (rc != UMP_OK) {
        ump_sched_free(&s);
        return rc;
    }
    ump_coll_comm_t *st = comm->coll;
    size_t esz = dt->size, n = (size_t)count, bytes = n * esz;
    bool is_root = comm->rank == root;
    bool contig = ump_coll_dt_contig(dt);
    const void *mine = sbuf == UMP_IN_PLACE ? rbuf : sbuf;
    void *acc, *res = NULL;
    int algo = ump_coll_reduce_algo.v.e;
    if (algo == 0 && s.red.commutative && st && ump_coll_use_hier(st, comm->size)) algo = 3;
    int flat = algo == 3 ? 0 : reduce_choose(ump_cgrp_comm(comm), n, esz, algo);
    bool leaf = tree_leaf(ump_cgrp_comm(comm), s.red.commutative ? root : 0);
    /* In the plain tree a rank with a child receives the first child's
     * data straight into acc and folds its own in there (reduce_binomial):
     * no copy of its contribution, and the peer's data land in a buffer
     * the reduction then reads once. */
    const void *first = NULL;
    bool defer = st && contig && algo != 3 && flat == 1 && !leaf && comm->size > 1;
    if (is_root && contig) {
        acc = res = rbuf;
        if (sbuf != UMP_IN_PLACE) {
            if (defer)
                first = sbuf;
            else
                ump_coll_pack(acc, sbuf, n, dt);
        }
    } else if (contig && algo != 3 && (flat == 1 || flat == 4) && leaf) {
        /* A leaf of the tree only sends: its own buffer will do. */
        acc = res = (void *)mine;
    } else {
        acc = ump_sched_tmp(&s, bytes);
        if (acc && defer)
            first = mine;
        else if (acc)
            ump_coll_pack(acc, mine, n, dt);
        res = acc;
    }
    if (s.err || !st) goto out;
    if (algo == 3 && s.red.commutative && st->nnodes > 1) {
        /* Within the node to its leader (the root on the root's node). */
        int rnode = st->node_of[root];
        int lroot = 0;
        int rw = ump_coll_wrank(comm, root);
        if (st->my_node == rnode)
            for (int i = 0; i < st->nlocal; i++)
                if (st->local[i] == rw) lroot = i;
        ump_cgrp_t loc = {.w = st->local, .n = st->nlocal, .me = st->local_me};
        reduce_flat(&s, loc, acc, acc, n, esz, lroot, 0, NULL);
        if (st->local_me == lroot) {
            int *lw = ump_sched_tmp(&s, sizeof(int) * (size_t)st->nnodes);
            if (!lw) goto out;
            for (int i = 0; i < st->nnodes; i++)
                lw[i] = st->leaders[i];
            lw[rnode] = rw;
            ump_cgrp_t lead = {.w = lw, .n = st->nnodes, .me = st->my_node};
            reduce_flat(&s, lead, acc, acc, n, esz, rnode, 0, NULL);
        }
    } else {
        reduce_flat(&s, ump_cgrp_comm(comm), acc, res, n, esz, root, algo == 3 ? 0 : algo, first);
    }
    if (is_root && !contig) {
        ump_sched_round(&s);
        ump_sched_unpack(&s, rbuf, acc, n, dt);
    }
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
