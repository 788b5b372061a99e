/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce: recursive doubling (short vectors: log n rounds of the whole
 * vector), Rabenseifner (reduce-scatter by recursive halving + allgather by
 * recursive doubling: long vectors, log n rounds), ring (reduce-scatter +
 * allgather around a ring: long vectors on many ranks that all run; needs
 * a commutative op). Non-powers of two fold the extra ranks into their
 * neighbours first. Across nodes (commutative ops): reduce to each node's
 * leader, allreduce among leaders, broadcast within the node.
 */
#include "coll/coll_int.h"
#include "coll/rab.h"

UMP_CFG_ENUM_(ump_coll_allreduce_algo, "UMP_COLL_ALLREDUCE_ALGO", "auto",
              "auto|recdbl|ring|rabenseifner|reduce_bcast|hier",
              "allreduce algorithm (auto: by size, op, node layout and oversubscription)");
UMP_CFG(ump_coll_allreduce_short, "UMP_COLL_ALLREDUCE_SHORT", UMP_CFG_SIZE, "16k",
        "allreduces below this many bytes use recursive doubling");
UMP_CFG(ump_coll_allreduce_ring, "UMP_COLL_ALLREDUCE_RING", UMP_CFG_SIZE, "1m",
        "allreduces of at least this many bytes on more than 2 ranks use the ring "
        "(commutative ops, not oversubscribed)");

void ump_alg_allreduce_recdbl(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                              const void *src)
{
    ump_rab_t r;
    ump_rab_init(&r, g, count, esz);
    size_t bytes = count * esz;
    void *tmp = ump_sched_tmp(s, bytes);
    if (!tmp) return;
    ump_rab_fold(s, &r, acc, tmp);
    if (r.nr >= 0) {
        for (int mask = 1; mask < r.p2; mask <<= 1) {
            int pn = r.nr ^ mask, peer = ump_rab_real(&r, pn);
            ump_sched_send(s, peer, mask == 1 && src && r.p2 == g.n ? src : acc, bytes);
            ump_sched_recv(s, peer, tmp, bytes);
            if (pn < r.nr)
                ump_sched_red(s, tmp, acc, count);
            else
                ump_sched_redr(s, tmp, acc, count);
            ump_sched_round(s);
        }
    }
    ump_rab_unfold(s, &r, acc);
}

void ump_alg_allreduce_rab(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                           const void *src)
{
    ump_rab_t r;
    ump_rab_init(&r, g, count, esz);
    char *tmp = ump_sched_tmp(s, count * esz);
    if (!tmp) return;
    ump_rab_fold(s, &r, acc, tmp);
    if (r.nr >= 0) {
        ump_rab_reduce_scatter(s, &r, acc, tmp, r.p2 == g.n ? src : NULL);
        for (int j = r.k - 1; j >= 0; j--) {
            int pn = r.nr ^ (1 << j), peer = ump_rab_real(&r, pn);
            size_t mlo, mhi, plo, phi;
            ump_rab_window(&r, r.nr, j + 1, &mlo, &mhi);
            ump_rab_window(&r, pn, j + 1, &plo, &phi);
            ump_sched_send(s, peer, (char *)acc + mlo, mhi - mlo);
            ump_sched_recv(s, peer, (char *)acc + plo, phi - plo);
            ump_sched_round(s);
        }
    }
    ump_rab_unfold(s, &r, acc);
}

void ump_alg_allreduce_ring(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz)
{
    int n = g.n, me = g.me;
    if (n == 1) return;
    char *a = acc;
    char *tmp = ump_sched_tmp(s, (count / (size_t)n + 1) * esz);
    if (!tmp) return;
    size_t q = count / (size_t)n, m = count % (size_t)n;
#define EOFF(i) (((size_t)(i)*q + UMP_MIN((size_t)(i), m)))
#define ECNT(i) (EOFF((i) + 1) - EOFF(i))
    int right = g.w[(me + 1) % n], left = g.w[(me - 1 + n) % n];
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        ump_sched_send(s, right, a + EOFF(sb) * esz, ECNT(sb) * esz);
        ump_sched_recv(s, left, tmp, ECNT(rb) * esz);
        ump_sched_red(s, tmp, a + EOFF(rb) * esz, ECNT(rb));
        ump_sched_round(s);
    }
    for (int k = 0; k < n - 1; k++) {
        int sb = (me + 1 - k + n) % n, rb = (me - k + n) % n;
        ump_sched_send(s, right, a + EOFF(sb) * esz, ECNT(sb) * esz);
        ump_sched_recv(s, left, a + EOFF(rb) * esz, ECNT(rb) * esz);
        ump_sched_round(s);
    }
#undef EOFF
#undef ECNT
}

static void allreduce_flat(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                           bool oversub, int algo, const void *src)
{
    size_t bytes = count * esz;
    if (algo == 0) {
        if (bytes < ump_coll_allreduce_short.v.sz || count < (size_t)ump_pow2_floor(g.n))
            algo = 1;
        else if (s->red.commutative && !oversub && g.n > 2 &&
                 bytes >= ump_coll_allreduce_ring.v.sz && count >= (size_t)g.n)
            algo = 2;
        else
            algo = 3;
    }
    /* The ring reduces blocks starting at every rank: rank order is lost. */
    if (algo == 2 && !s->red.commutative) algo = 3;
    switch (algo) {
    case 2:
        ump_alg_allreduce_ring(s, g, acc, count, esz);
        break;
    case 3:
        ump_alg_allreduce_rab(s, g, acc, count, esz, src);
        break;
    case 4:
        ump_alg_reduce_binomial(s, g, acc, acc, count, esz, 0);
        ump_alg_bcast_auto(s, g, acc, bytes, 0, oversub);
        break;
    default:
        ump_alg_allreduce_recdbl(s, g, acc, count, esz, src);
        break;
    }
}

void ump_alg_allreduce_auto(ump_sched_t *s, ump_cgrp_t g, void *acc, size_t count, size_t esz,
                            bool oversub)
{
    allreduce_flat(s, g, acc, count, esz, oversub, 0, NULL);
}

int ump_coll_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                       ump_comm_t comm, ump_req_t *greq)
{
    if (!greq && ump_coll_allreduce_algo.v.e == 0) {
        int rc = ump_fast_allreduce(sbuf, rbuf, count, dt, op, comm);
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
    bool contig = ump_coll_dt_contig(dt);
    void *acc;
    if (contig) {
        acc = rbuf;
        if (sbuf != UMP_IN_PLACE && bytes) ump_coll_pack(acc, sbuf, n, dt);
    } else {
        acc = ump_sched_tmp(&s, bytes);
        if (acc) ump_coll_pack(acc, sbuf == UMP_IN_PLACE ? rbuf : sbuf, n, dt);
    }
    if (s.err || !st || !n) goto out;
    int algo = ump_coll_allreduce_algo.v.e;
    if (algo == 0 && s.red.commutative && ump_coll_use_hier(st, comm->size)) algo = 5;
    if (algo == 5 && s.red.commutative && st->nnodes > 1) {
        ump_cgrp_t loc = {.w = st->local, .n = st->nlocal, .me = st->local_me};
        ump_alg_reduce_binomial(&s, loc, acc, acc, n, esz, 0);
        if (st->local_me == 0) {
            ump_cgrp_t lead = {.w = st->leaders, .n = st->nnodes, .me = st->my_node};
            allreduce_flat(&s, lead, acc, n, esz, false, 0, NULL);
        }
        ump_alg_bcast_auto(&s, loc, acc, bytes, 0, st->oversub);
    } else {
        allreduce_flat(&s, ump_cgrp_comm(comm), acc, n, esz, st->oversub, algo == 5 ? 0 : algo,
                       contig && sbuf != UMP_IN_PLACE ? sbuf : NULL);
    }
    if (!contig) {
        ump_sched_round(&s);
        ump_sched_unpack(&s, rbuf, acc, n, dt);
    }
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
