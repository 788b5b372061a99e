/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather(v): recursive doubling (powers of two: log n rounds, blocks
 * doubling), Bruck (any n: log n rounds through a rotated scratch buffer),
 * ring (long messages: n-1 rounds to the neighbours, each block crossing
 * each link once; also every allgatherv).
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_allgather_algo, "UMP_COLL_ALLGATHER_ALGO", "auto", "auto|recdbl|bruck|ring",
              "allgather algorithm (auto: recdbl or bruck for short, ring for long)");
UMP_CFG(ump_coll_allgather_long, "UMP_COLL_ALLGATHER_LONG", UMP_CFG_SIZE, "256k",
        "allgathers of at least this many bytes in total use the ring (if not oversubscribed)");

void ump_alg_allgather_ring(ump_sched_t *s, ump_cgrp_t g, char *buf, const size_t *offs,
                            const size_t *lens, const void *mine)
{
    int n = g.n, me = g.me;
    int right = g.w[(me + 1) % n], left = g.w[(me - 1 + n) % n];
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        ump_sched_send(s, right, k == 0 && mine ? mine : buf + offs[sb], lens[sb]);
        ump_sched_recv(s, left, buf + offs[rb], lens[rb]);
        if (k == 0 && mine) ump_sched_copy(s, buf + offs[me], mine, lens[me]);
        ump_sched_round(s);
    }
}

void ump_alg_allgather_recdbl(ump_sched_t *s, ump_cgrp_t g, char *buf, size_t b, const void *own)
{
    for (int mask = 1; mask < g.n; mask <<= 1) {
        int pn = g.me ^ mask;
        size_t mine = (size_t)(g.me & ~(mask - 1)), theirs = (size_t)(pn & ~(mask - 1));
        ump_sched_send(s, g.w[pn], mask == 1 && own ? own : buf + mine * b, (size_t)mask * b);
        ump_sched_recv(s, g.w[pn], buf + theirs * b, (size_t)mask * b);
        if (mask == 1 && own) ump_sched_copy(s, buf + (size_t)g.me * b, own, b);
        ump_sched_round(s);
    }
}

void ump_alg_allgather_bruck(ump_sched_t *s, ump_cgrp_t g, char *buf, size_t b)
{
    int n = g.n, me = g.me;
    char *t = ump_sched_tmp(s, (size_t)n * b);
    if (!t) return;
    /* t[i] holds the block of rank me + i. */
    memcpy(t, buf + (size_t)me * b, b);
    for (int d = 1; d < n; d <<= 1) {
        int cnt = UMP_MIN(d, n - d);
        ump_sched_send(s, g.w[(me - d + n) % n], t, (size_t)cnt * b);
        ump_sched_recv(s, g.w[(me + d) % n], t + (size_t)d * b, (size_t)cnt * b);
        ump_sched_round(s);
    }
    ump_sched_copy(s, buf + (size_t)me * b, t, (size_t)(n - me) * b);
    ump_sched_copy(s, buf, t + (size_t)(n - me) * b, (size_t)me * b);
    ump_sched_round(s);
}

int ump_coll_allgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf,
                        const int *rcounts, const int *displs, size_t rcount, ump_dt_t rdt,
                        ump_comm_t comm, ump_req_t *greq)
{
    if (!greq && !rcounts && ump_coll_allgather_algo.v.e == 0) {
        int rc = ump_fast_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
        if (rc != UMP_COLL_NOFAST) return rc;
    }
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int n = comm->size, me = comm->rank;
    bool inplace = sbuf == UMP_IN_PLACE;
    bool rcontig = ump_coll_dt_contig(rdt);
    size_t *offs = ump_sched_tmp(&s, sizeof(size_t) * (size_t)n);
    size_t *lens = ump_sched_tmp(&s, sizeof(size_t) * (size_t)n);
    if (s.err) goto out;
    /* Block layout of the work buffer: the user's when contiguous, else
     * packed back to back. */
    size_t total = 0;
    bool uniform = !rcounts;
    for (int i = 0; i < n; i++) {
        size_t cnt = (size_t)(rcounts ? (size_t)rcounts[i] : rcount);
        lens[i] = cnt * rdt->size;
        if (rcontig)
            offs[i] = (size_t)(displs ? (size_t)displs[i] : (size_t)(i)*rcount) * rdt->extent;
        else
            offs[i] = total;
        total += lens[i];
    }
    if (displs && rcontig) {
        /* Back to back and in order: the uniform algorithms apply too. */
        uniform = true;
        for (int i = 0; i < n && uniform; i++)
            uniform = lens[i] == lens[0] && offs[i] == (size_t)i * lens[0];
    }
    char *buf = rcontig ? rbuf : ump_sched_tmp(&s, total);
    if (!buf) goto out;
    char *own = buf + offs[me];
    /* A contiguous block of ours is sent from the user's buffer, and
     * copied into place while it goes (ring and recursive doubling): the
     * peers then read lines no core has just written. */
    const void *mine = NULL;
    if (!inplace) {
        if (!ump_coll_dt_contig(sdt) || !rcontig)
            ump_coll_pack(own, sbuf, (size_t)scount, sdt);
        else
            mine = sbuf;
    } else if (!rcontig) {
        size_t o = (size_t)(displs ? (size_t)displs[me] : (size_t)(me)*rcount) * rdt->extent;
        ump_coll_pack(own, (char *)rbuf + o, (size_t)(rcounts ? (size_t)rcounts[me] : rcount), rdt);
    }
    int algo = ump_coll_allgather_algo.v.e;
    ump_coll_comm_t *st = comm->coll;
    bool pow2 = (n & (n - 1)) == 0;
    if (algo == 0) {
        if (!uniform || (total >= ump_coll_allgather_long.v.sz && !(st && st->oversub)))
            algo = 3;
        else
            algo = pow2 ? 1 : 2;
    }
    if (!uniform) algo = 3;
    if (algo == 1 && !pow2) algo = 2;
    if (mine && (algo == 2 || n == 1)) {
        memcpy(own, mine, lens[me]);
        mine = NULL;
    }
    ump_cgrp_t g = ump_cgrp_comm(comm);
    if (algo == 1)
        ump_alg_allgather_recdbl(&s, g, buf, lens[0], mine);
    else if (algo == 2)
        ump_alg_allgather_bruck(&s, g, buf, lens[0]);
    else
        ump_alg_allgather_ring(&s, g, buf, offs, lens, mine);
    if (!rcontig) {
        for (int i = 0; i < n; i++) {
            size_t o = (size_t)(displs ? (size_t)displs[i] : (size_t)(i)*rcount) * rdt->extent;
            ump_sched_unpack(&s, (char *)rbuf + o, buf + offs[i],
                             (size_t)(rcounts ? (size_t)rcounts[i] : rcount), rdt);
        }
    }
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
