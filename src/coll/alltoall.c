/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall(v, w): Bruck (small uniform blocks: log n rounds, each moving
 * half the blocks through a rotated scratch buffer), linear (every send and
 * receive posted at once: medium blocks, and long ones when oversubscribed,
 * since a rank that gets the CPU can serve every peer), pairwise exchange
 * (long blocks: n-1 rounds, one partner each, no contention).
 *
 * Derived types go to the core per peer as (buf, count, type); a blocking
 * linear exchange of them (auto) is posted directly, without a schedule,
 * and this rank's own block is copied type to type in one pass.
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_alltoall_algo, "UMP_COLL_ALLTOALL_ALGO", "auto",
              "auto|bruck|linear|pairwise",
              "alltoall algorithm (auto: bruck for small blocks, linear, pairwise for long)");
UMP_CFG(ump_coll_alltoall_short, "UMP_COLL_ALLTOALL_SHORT", UMP_CFG_SIZE, "256",
        "alltoall blocks below this many bytes use Bruck's algorithm (more than 2 ranks)");
UMP_CFG(ump_coll_alltoall_long, "UMP_COLL_ALLTOALL_LONG", UMP_CFG_SIZE, "32k",
        "alltoall blocks of at least this many bytes use pairwise exchange (not oversubscribed)");

/* Bruck over packed uniform blocks: sb holds n blocks in rank order, rb
 * receives n blocks in rank order. */
static void bruck(ump_sched_t *s, ump_cgrp_t g, const char *sb, char *rb, size_t b)
{
    int n = g.n, me = g.me;
    char *t = ump_sched_tmp(s, (size_t)n * b);
    char *pk = ump_sched_tmp(s, (size_t)(n / 2 + 1) * b);
    char *pr = ump_sched_tmp(s, (size_t)(n / 2 + 1) * b);
    if (!t || !pk || !pr) return;
    /* t[i] = block for rank me + i. */
    memcpy(t, sb + (size_t)me * b, (size_t)(n - me) * b);
    memcpy(t + (size_t)(n - me) * b, sb, (size_t)me * b);
    for (int d = 1; d < n; d <<= 1) {
        /* Pack the blocks whose index has bit d, send them d ranks on. */
        size_t k = 0;
        for (int i = 0; i < n; i++)
            if (i & d) {
                if (d == 1)
                    memcpy(pk + k * b, t + (size_t)i * b, b);
                else
                    ump_sched_copy(s, pk + k * b, t + (size_t)i * b, b);
                k++;
            }
        ump_sched_round(s);
        ump_sched_send(s, g.w[(me + d) % n], pk, k * b);
        ump_sched_recv(s, g.w[(me - d + n) % n], pr, k * b);
        k = 0;
        for (int i = 0; i < n; i++)
            if (i & d) ump_sched_copy(s, t + (size_t)i * b, pr + (k++) * b, b);
        ump_sched_round(s);
    }
    /* Block from rank j sits at t[(me - j) mod n]. */
    for (int j = 0; j < n; j++)
        ump_sched_copy(s, rb + (size_t)j * b, t + (size_t)((me - j + n) % n) * b, b);
    ump_sched_round(s);
}

/* 1 Bruck, 2 linear, 3 pairwise; b is this rank's first block in bytes. */
static int choose(ump_comm_t comm, bool uniform, size_t b)
{
    ump_coll_comm_t *st = comm->coll;
    int n = comm->size, algo = ump_coll_alltoall_algo.v.e;
    if (algo == 0) {
        /* Oversubscribed, linear measured best at every size (8 ranks on 2
         * cores: 44 us at 8 B against 53 for Bruck, 1.1 ms at 128 KiB). */
        bool over = st && st->oversub;
        if (over)
            algo = 2;
        else if (uniform && n > 2 && b < ump_coll_alltoall_short.v.sz)
            algo = 1;
        else if (b >= ump_coll_alltoall_long.v.sz)
            algo = 3;
        else
            algo = 2;
    }
    if (algo == 1 && !uniform) algo = 2;
    return algo;
}

/* Copies the stream of (src, scount, sdt) into (dst, rcount, rdt), run
 * against run: one pass over the data where packing into scratch and
 * unpacking from it took two. Moves min of both streams' lengths. */
static int dt_copy(void *dst, size_t rcount, ump_dt_t rdt, const void *src, size_t scount,
                   ump_dt_t sdt)
{
    size_t len = UMP_MIN(rcount * rdt->size, scount * sdt->size);
    if (!len) return UMP_OK;
    if (ump_coll_dt_contig(rdt) && ump_coll_dt_contig(sdt)) {
        memcpy(dst, src, len);
        return UMP_OK;
    }
    if (ump_coll_dt_contig(sdt)) return ump_coll_unpack(dst, src, rcount, rdt);
    if (ump_coll_dt_contig(rdt)) return ump_coll_pack(dst, src, scount, sdt);
    ump_dt_cursor_t sc, rc;
    if (ump_dt_cursor_init(&sc, src, scount, sdt, 0) != UMP_OK ||
        ump_dt_cursor_init(&rc, dst, rcount, rdt, 0) != UMP_OK)
        return UMP_ERR_DATATYPE;
    enum { BATCH = 32 };
    struct iovec si[BATCH], ri[BATCH];
    int sn = 0, rn = 0, sk = 0, rk = 0;
    size_t soff = 0, roff = 0;
    while (len) {
        if (sk == sn) {
            ump_dt_cursor_iov(&sc, len, si, BATCH, &sn);
            sk = 0;
            soff = 0;
            if (!sn) break;
        }
        if (rk == rn) {
            ump_dt_cursor_iov(&rc, len, ri, BATCH, &rn);
            rk = 0;
            roff = 0;
            if (!rn) break;
        }
        size_t n = UMP_MIN(si[sk].iov_len - soff, ri[rk].iov_len - roff);
        n = UMP_MIN(n, len);
        memcpy((char *)ri[rk].iov_base + roff, (const char *)si[sk].iov_base + soff, n);
        len -= n;
        soff += n;
        roff += n;
        if (soff == si[sk].iov_len) {
            sk++;
            soff = 0;
        }
        if (roff == ri[rk].iov_len) {
            rk++;
            roff = 0;
        }
    }
    return len ? UMP_ERR_DATATYPE : UMP_OK;
}

int ump_coll_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                       const ump_dt_t *sdts, void *rbuf, const int *rcounts, const int *rdispls,
                       const ump_dt_t *rdts, bool bytes_displ, size_t scount, ump_dt_t sdt,
                       size_t rcount, ump_dt_t rdt, ump_comm_t comm, ump_req_t *greq)
{
    if (!greq && !scounts && !rcounts && !sdts && !rdts && ump_coll_alltoall_algo.v.e == 0) {
        int rc = ump_fast_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
        if (rc != UMP_COLL_NOFAST) return rc;
    }
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int n = comm->size, me = comm->rank;
    bool inplace = sbuf == UMP_IN_PLACE;
#define RDT(i)  (rdts ? rdts[i] : rdt)
#define RCNT(i) ((size_t)(rcounts ? (size_t)rcounts[i] : rcount))
#define ROFF(i)                                                                                    \
    (bytes_displ ? (size_t)rdispls[i]                                                              \
                 : (size_t)(rdispls ? (size_t)rdispls[i] : (size_t)(i)*rcount) * RDT(i)->extent)
#define SDT(i)  (sdts ? sdts[i] : sdt)
#define SCNT(i) ((size_t)(scounts ? (size_t)scounts[i] : scount))
#define SOFF(i)                                                                                    \
    (bytes_displ ? (size_t)sdispls[i]                                                              \
                 : (size_t)(sdispls ? (size_t)sdispls[i] : (size_t)(i)*scount) * SDT(i)->extent)
    /* Derived types go to the core as they are: it packs them straight
     * into the transport and unpacks them straight out of it, two copies
     * fewer than packing here (and no scratch). Bruck needs packed blocks,
     * and in place needs a copy of the receive buffer anyway. */
    if (!inplace) {
        bool derived = false;
        for (int i = 0; i < n && !derived; i++)
            derived = !ump_coll_dt_contig(RDT(i)) || !ump_coll_dt_contig(SDT(i));
        int algo =
            derived ? choose(comm, !scounts && !rcounts && !sdts && !rdts, SCNT(0) * SDT(0)->size)
                    : 1;
        if (algo == 2 && !greq && ump_coll_alltoall_algo.v.e == 0 && !s.err) {
            /* Blocking linear: the same messages as the schedule below,
             * posted straight from here (no ops, rounds or scratch), and
             * this rank's block copied type to type while they fly. */
            ump_req_t rin[2 * 8], *reqs = rin; /* 9 and more ranks: scratch */
            if (2 * (size_t)n > UMP_ARRAY_SIZE(rin)) {
                reqs = ump_sched_tmp(&s, 2 * (size_t)n * sizeof(ump_req_t));
                if (!reqs) goto out;
            }
            int rc = UMP_OK, nr = 0, err = UMP_OK;
            for (int k = 1; k < n && rc == UMP_OK; k++) {
                int from = (me - k + n) % n;
                rc = ump_irecv((char *)rbuf + ROFF(from), RCNT(from), RDT(from),
                               ump_coll_wrank(comm, from), s.tag, s.ctx, &reqs[nr]);
                if (rc == UMP_OK) nr++;
            }
            int nrecv = nr;
            for (int k = 1; k < n && rc == UMP_OK; k++) {
                int to = (me + k) % n;
                rc = ump_isend((const char *)sbuf + SOFF(to), SCNT(to), SDT(to),
                               ump_coll_wrank(comm, to), s.tag, s.ctx, &reqs[nr]);
                if (rc == UMP_OK) nr++;
            }
            if (rc == UMP_OK)
                err = dt_copy((char *)rbuf + ROFF(me), RCNT(me), RDT(me),
                              (const char *)sbuf + SOFF(me), SCNT(me), SDT(me));
            else
                for (int i = 0; i < nrecv; i++)
                    ump_cancel(&reqs[i]);
            int wrc = ump_waitall((size_t)nr, reqs, UMP_STATUS_IGNORE);
            if (rc == UMP_OK) rc = wrc;
            ump_sched_free(&s);
            if (rc != UMP_OK) return rc;
            return err;
        }
        if (algo != 1) {
            /* This rank's own block: a schedule step when both sides are
             * plain bytes, else copied type to type now (the buffers
             * belong to the collective from its start). */
            const char *mysrc = (const char *)sbuf + SOFF(me);
            char *mydst = (char *)rbuf + ROFF(me);
            if (ump_coll_dt_contig(RDT(me)) && ump_coll_dt_contig(SDT(me))) {
                ump_sched_copy(&s, mydst, mysrc, RCNT(me) * RDT(me)->size);
            } else {
                int e = dt_copy(mydst, RCNT(me), RDT(me), mysrc, SCNT(me), SDT(me));
                if (e != UMP_OK) {
                    s.err = e;
                    goto out;
                }
            }
            for (int k = 1; k < n; k++) {
                int to = (me + k) % n, from = (me - k + n) % n;
                ump_sched_recv_dt(&s, ump_coll_wrank(comm, from), (char *)rbuf + ROFF(from),
                                  RCNT(from), RDT(from));
                ump_sched_send_dt(&s, ump_coll_wrank(comm, to), (const char *)sbuf + SOFF(to),
                                  SCNT(to), SDT(to));
                if (algo == 3) ump_sched_round(&s);
            }
            goto out;
        }
    }
    const void **sp = ump_sched_tmp(&s, sizeof(void *) * (size_t)n);
    void **rp = ump_sched_tmp(&s, sizeof(void *) * (size_t)n);
    size_t *sl = ump_sched_tmp(&s, sizeof(size_t) * (size_t)n);
    size_t *rl = ump_sched_tmp(&s, sizeof(size_t) * (size_t)n);
    if (s.err) goto out;
    /* Receive side: straight into the user's buffer when contiguous, else
     * into one packed scratch buffer for all peers (one allocation, so the
     * scratch cache keeps it between calls: a buffer per peer missed the
     * cache and cost page faults on every call). */
    bool rall_contig = true;
    size_t rpacked = 0;
    for (int i = 0; i < n; i++) {
        ump_dt_t t = RDT(i);
        rl[i] = RCNT(i) * t->size;
        if (ump_coll_dt_contig(t)) {
            rp[i] = (char *)rbuf + ROFF(i);
        } else {
            rall_contig = false;
            rp[i] = NULL;
            rpacked += rl[i];
        }
    }
    if (!rall_contig) {
        char *p = ump_sched_tmp(&s, rpacked);
        if (!p) goto out;
        for (int i = 0; i < n; i++)
            if (!rp[i]) {
                rp[i] = p;
                p += rl[i];
            }
    }
    /* Send side: the user's buffer, packed pieces, or (in place) a packed
     * copy of the receive buffer taken now. */
    bool uniform_send = !scounts && !inplace;
    size_t spacked = 0;
    bool any_pack = inplace;
    for (int i = 0; i < n; i++) {
        if (inplace) {
            sl[i] = rl[i];
            spacked += sl[i];
            continue;
        }
        ump_dt_t t = sdts ? sdts[i] : sdt;
        sl[i] = (size_t)(scounts ? (size_t)scounts[i] : scount) * t->size;
        if (!ump_coll_dt_contig(t)) {
            spacked += sl[i];
            any_pack = true;
        }
    }
    /* Empty packed blocks still need a non-null pointer (memcpy of 0 bytes). */
    char *spk = spacked || any_pack ? ump_sched_tmp(&s, spacked) : NULL;
    if (s.err) goto out;
    for (int i = 0; i < n; i++) {
        if (inplace) {
            ump_coll_pack(spk, (char *)rbuf + ROFF(i), RCNT(i), RDT(i));
            sp[i] = spk;
            spk += sl[i];
            continue;
        }
        ump_dt_t t = sdts ? sdts[i] : sdt;
        size_t cnt = (size_t)(scounts ? (size_t)scounts[i] : scount);
        size_t off = bytes_displ
                         ? (size_t)sdispls[i]
                         : (size_t)(sdispls ? (size_t)sdispls[i] : (size_t)(i)*scount) * t->extent;
        if (ump_coll_dt_contig(t)) {
            sp[i] = (const char *)sbuf + off;
        } else {
            uniform_send = false;
            ump_coll_pack(spk, (const char *)sbuf + off, cnt, t);
            sp[i] = spk;
            spk += sl[i];
        }
    }
    bool uniform = !scounts && !rcounts && !sdts && !rdts;
    size_t b = sl[0];
    int algo = choose(comm, uniform, b);
    ump_cgrp_t g = ump_cgrp_comm(comm);
    if (algo == 1) {
        /* Bruck wants packed, back-to-back blocks on both sides. */
        const char *sb = uniform_send ? sbuf : NULL;
        if (!sb) {
            char *p = ump_sched_tmp(&s, (size_t)n * b);
            if (!p) goto out;
            for (int i = 0; i < n; i++)
                memcpy(p + (size_t)i * b, sp[i], b);
            sb = p;
        }
        char *rb = rall_contig ? rbuf : ump_sched_tmp(&s, (size_t)n * b);
        if (!rb) goto out;
        bruck(&s, g, sb, rb, b);
        if (!rall_contig)
            for (int i = 0; i < n; i++)
                ump_sched_copy(&s, rp[i], rb + (size_t)i * b, b);
    } else {
        ump_sched_copy(&s, rp[me], sp[me], rl[me]);
        if (algo == 3) {
            for (int k = 1; k < n; k++) {
                int to = (me + k) % n, from = (me - k + n) % n;
                ump_sched_send(&s, g.w[to], sp[to], sl[to]);
                ump_sched_recv(&s, g.w[from], rp[from], rl[from]);
                ump_sched_round(&s);
            }
        } else {
            for (int k = 1; k < n; k++) {
                int to = (me + k) % n, from = (me - k + n) % n;
                ump_sched_recv(&s, g.w[from], rp[from], rl[from]);
                ump_sched_send(&s, g.w[to], sp[to], sl[to]);
            }
        }
    }
    ump_sched_round(&s);
    if (!rall_contig)
        for (int i = 0; i < n; i++)
            if (!ump_coll_dt_contig(RDT(i)))
                ump_sched_unpack(&s, (char *)rbuf + ROFF(i), rp[i], RCNT(i), RDT(i));
#undef RDT
#undef RCNT
#undef ROFF
#undef SDT
#undef SCNT
#undef SOFF
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
