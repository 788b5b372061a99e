/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather(v) and Scatter(v). Uniform blocks use binomial trees (log n
 * rounds; inner nodes forward their subtree's blocks in one message) up to
 * a size, then the linear algorithm (the root talks to every rank, all
 * messages posted at once), which is also the algorithm of the v-variants.
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_gather_algo, "UMP_COLL_GATHER_ALGO", "auto", "auto|binomial|linear",
              "gather/scatter algorithm (auto: binomial for small blocks, else linear)");
UMP_CFG(ump_coll_gather_long, "UMP_COLL_GATHER_LONG", UMP_CFG_SIZE, "16k",
        "gathers and scatters with blocks of at least this many bytes use the linear algorithm");

static int lowbit_of(int vr, int n)
{
    int m = 1;
    while (m < n && !(vr & m))
        m <<= 1;
    return m;
}

void ump_alg_gather_binomial(ump_sched_t *s, ump_cgrp_t g, const void *mine, char *all, size_t b,
                             int root)
{
    int n = g.n, vr = (g.me - root + n) % n;
    int low = vr ? lowbit_of(vr, n) : n;
    int sz = UMP_MIN(low, n - vr); /* blocks of my subtree */
    char *t;
    if (vr == 0 && root == 0)
        t = all;
    else if (sz == 1)
        t = NULL;
    else
        t = ump_sched_tmp(s, (size_t)sz * b);
    if (sz > 1 && !t) return;
    if (t) ump_sched_copy(s, t, mine, b);
    /* Children send their subtrees, all at once. */
    for (int m = 1; m < low && vr + m < n; m <<= 1) {
        int c = vr + m;
        int csz = UMP_MIN(m, n - c);
        ump_sched_recv(s, g.w[(c + root) % n], t + (size_t)m * b, (size_t)csz * b);
    }
    ump_sched_round(s);
    if (vr) {
        ump_sched_send(s, g.w[(vr - low + root) % n], t ? t : mine, (size_t)sz * b);
        ump_sched_round(s);
    } else if (root != 0) {
        /* vr order -> rank order. */
        ump_sched_copy(s, all + (size_t)root * b, t, (size_t)(n - root) * b);
        ump_sched_copy(s, all, t + (size_t)(n - root) * b, (size_t)root * b);
        ump_sched_round(s);
    }
}

void ump_alg_scatter_binomial(ump_sched_t *s, ump_cgrp_t g, const char *all, void *mine, size_t b,
                              int root)
{
    int n = g.n, vr = (g.me - root + n) % n;
    int low = vr ? lowbit_of(vr, n) : n;
    int sz = UMP_MIN(low, n - vr);
    char *t;
    if (vr == 0) {
        if (root == 0) {
            t = (char *)all;
        } else {
            t = ump_sched_tmp(s, (size_t)n * b);
            if (!t) return;
            /* Rank order -> vr order, now: the send data is already there. */
            memcpy(t, all + (size_t)root * b, (size_t)(n - root) * b);
            memcpy(t + (size_t)(n - root) * b, all, (size_t)root * b);
        }
    } else {
        t = sz == 1 ? mine : ump_sched_tmp(s, (size_t)sz * b);
        if (!t) return;
        ump_sched_recv(s, g.w[(vr - low + root) % n], t, (size_t)sz * b);
        ump_sched_round(s);
    }
    int m = 1;
    while (m * 2 < low && m * 2 < n)
        m <<= 1;
    for (; m >= 1; m >>= 1) {
        int c = vr + m;
        if (m >= low || c >= n) continue;
        ump_sched_send(s, g.w[(c + root) % n], t + (size_t)m * b, (size_t)UMP_MIN(m, n - c) * b);
    }
    ump_sched_copy(s, mine, t, b);
    ump_sched_round(s);
}

int ump_coll_gatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                     const int *displs, size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm,
                     ump_req_t *greq)
{
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int n = comm->size, me = comm->rank;
    bool is_root = me == root, inplace = sbuf == UMP_IN_PLACE;
    /* This rank's block, packed. */
    size_t sb = 0;
    const void *mine = NULL;
    if (!(is_root && inplace)) {
        sb = (size_t)scount * sdt->size;
        mine = sbuf;
        if (!ump_coll_dt_contig(sdt)) {
            void *p = ump_sched_tmp(&s, sb);
            if (p) ump_coll_pack(p, sbuf, (size_t)scount, sdt);
            mine = p;
        }
    }
    int algo = ump_coll_gather_algo.v.e;
    size_t b = rcounts ? 0 : (is_root ? (size_t)rcount * rdt->size : sb);
    if (algo == 0) algo = (!rcounts && b < ump_coll_gather_long.v.sz) ? 1 : 2;
    if (rcounts) algo = 2;
    if (s.err) goto out;
    if (algo == 1) {
        char *all = NULL;
        bool direct = is_root && ump_coll_dt_contig(rdt);
        if (is_root) {
            all = direct ? rbuf : ump_sched_tmp(&s, (size_t)n * b);
            if (!all) goto out;
            if (inplace) {
                /* The root's block is in rbuf already. */
                mine = (char *)rbuf + (size_t)me * (size_t)rcount * rdt->extent;
                if (!direct) {
                    void *p = ump_sched_tmp(&s, b);
                    if (!p) goto out;
                    ump_coll_pack(p, mine, (size_t)rcount, rdt);
                    mine = p;
                }
            }
        }
        ump_alg_gather_binomial(&s, ump_cgrp_comm(comm), mine, all, b, root);
        if (is_root && !direct) ump_sched_unpack(&s, rbuf, all, (size_t)n * (size_t)rcount, rdt);
    } else if (is_root) {
        bool contig = ump_coll_dt_contig(rdt);
        for (int i = 0; i < n; i++) {
            size_t cnt = (size_t)(rcounts ? (size_t)rcounts[i] : rcount);
            size_t off = (size_t)(displs ? (size_t)displs[i] : (size_t)(i)*rcount) * rdt->extent;
            char *dst = (char *)rbuf + off;
            if (i == me) {
                if (!inplace) {
                    if (contig)
                        ump_sched_copy(&s, dst, mine, cnt * rdt->size);
                    else
                        ump_sched_unpack(&s, dst, mine, cnt, rdt);
                }
                continue;
            }
            if (contig) {
                ump_sched_recv(&s, ump_coll_wrank(comm, i), dst, cnt * rdt->size);
            } else {
                void *t = ump_sched_tmp(&s, cnt * rdt->size);
                if (!t) goto out;
                ump_sched_recv(&s, ump_coll_wrank(comm, i), t, cnt * rdt->size);
                ump_sched_unpack(&s, dst, t, cnt, rdt);
            }
        }
        ump_sched_round(&s);
    } else {
        ump_sched_send(&s, ump_coll_wrank(comm, root), mine, sb);
        ump_sched_round(&s);
    }
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}

int ump_coll_scatterv(const void *sbuf, const int *scounts, const int *displs, size_t scount,
                      ump_dt_t sdt, void *rbuf, size_t rcount, ump_dt_t rdt, int root,
                      ump_comm_t comm, ump_req_t *greq)
{
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int n = comm->size, me = comm->rank;
    bool is_root = me == root, inplace = rbuf == UMP_IN_PLACE;
    size_t rb = inplace && is_root ? 0 : (size_t)rcount * rdt->size;
    bool rcontig = inplace ? true : ump_coll_dt_contig(rdt);
    void *mine = rcontig ? rbuf : ump_sched_tmp(&s, rb);
    int algo = ump_coll_gather_algo.v.e;
    size_t b = is_root ? (size_t)scount * sdt->size : rb;
    if (algo == 0) algo = (!scounts && b < ump_coll_gather_long.v.sz) ? 1 : 2;
    if (scounts) algo = 2;
    if (s.err) goto out;
    if (algo == 1) {
        const char *all = NULL;
        if (is_root) {
            if (ump_coll_dt_contig(sdt)) {
                all = sbuf;
            } else {
                char *p = ump_sched_tmp(&s, (size_t)n * b);
                if (!p) goto out;
                ump_coll_pack(p, sbuf, (size_t)n * (size_t)scount, sdt);
                all = p;
            }
            if (inplace) {
                /* The root keeps its block where it is. */
                mine = ump_sched_tmp(&s, b);
                if (!mine) goto out;
            }
        }
        ump_alg_scatter_binomial(&s, ump_cgrp_comm(comm), all, mine, b, root);
    } else if (is_root) {
        bool contig = ump_coll_dt_contig(sdt);
        for (int i = 0; i < n; i++) {
            size_t cnt = (size_t)(scounts ? (size_t)scounts[i] : scount);
            size_t off = (size_t)(displs ? (size_t)displs[i] : (size_t)(i)*scount) * sdt->extent;
            const char *src = (const char *)sbuf + off;
            const void *p = src;
            if (!contig) {
                void *t = ump_sched_tmp(&s, cnt * sdt->size);
                if (!t) goto out;
                ump_coll_pack(t, src, cnt, sdt);
                p = t;
            }
            if (i == me) {
                if (!inplace) ump_sched_copy(&s, mine, p, cnt * sdt->size);
                continue;
            }
            ump_sched_send(&s, ump_coll_wrank(comm, i), p, cnt * sdt->size);
        }
        ump_sched_round(&s);
    } else {
        ump_sched_recv(&s, ump_coll_wrank(comm, root), mine, rb);
        ump_sched_round(&s);
    }
    if (!rcontig && !(is_root && inplace)) ump_sched_unpack(&s, rbuf, mine, (size_t)rcount, rdt);
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
