/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scan and Exscan: recursive doubling (log n rounds; the partial result of
 * the lower ranks is always the left operand, so non-commutative ops come
 * out in rank order) or a linear chain (rank r waits for r-1: fewer bytes
 * in all, n-1 steps of latency).
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_scan_algo, "UMP_COLL_SCAN_ALGO", "auto", "auto|recdbl|linear",
              "scan/exscan algorithm (auto: recursive doubling)");

int ump_coll_scan(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                  bool exclusive, ump_comm_t comm, ump_req_t *greq)
{
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int rc = ump_sched_reduction(&s, op, dt);
    if (rc != UMP_OK) {
        ump_sched_free(&s);
        return rc;
    }
    int n = comm->size, me = comm->rank;
    size_t esz = dt->size, cnt = (size_t)count, bytes = cnt * esz;
    bool contig = ump_coll_dt_contig(dt);
    char *mine = ump_sched_tmp(&s, bytes); /* this rank's input, then the partial */
    char *res = contig ? rbuf : ump_sched_tmp(&s, bytes);
    char *tmp = ump_sched_tmp(&s, bytes);
    if (s.err || !cnt) goto out;
    ump_coll_pack(mine, sbuf == UMP_IN_PLACE ? rbuf : sbuf, cnt, dt);
    bool have = !exclusive; /* whether res holds something yet */
    if (!exclusive) memcpy(res, mine, bytes);
    ump_cgrp_t g = ump_cgrp_comm(comm);
    int algo = ump_coll_scan_algo.v.e;
    if (algo == 2) {
        /* mine becomes a_0 ... a_me, passed on to me + 1. */
        if (me > 0) {
            ump_sched_recv(&s, g.w[me - 1], tmp, bytes);
            if (exclusive) {
                ump_sched_copy(&s, res, tmp, bytes);
                have = true;
            }
            ump_sched_red(&s, tmp, mine, cnt);
            if (!exclusive) ump_sched_copy(&s, res, mine, bytes);
            ump_sched_round(&s);
        }
        if (me < n - 1) {
            ump_sched_send(&s, g.w[me + 1], mine, bytes);
            ump_sched_round(&s);
        }
    } else {
        /* mine: reduction over the aligned block of ranks seen so far. */
        for (int mask = 1; mask < n; mask <<= 1) {
            int pn = me ^ mask;
            if (pn >= n) continue;
            ump_sched_send(&s, g.w[pn], mine, bytes);
            ump_sched_recv(&s, g.w[pn], tmp, bytes);
            if (pn < me) {
                /* tmp covers lower ranks: it goes on the left. */
                if (have) {
                    ump_sched_red(&s, tmp, res, cnt);
                } else {
                    ump_sched_copy(&s, res, tmp, bytes);
                    have = true;
                }
                ump_sched_red(&s, tmp, mine, cnt);
            } else {
                ump_sched_redr(&s, tmp, mine, cnt);
            }
            ump_sched_round(&s);
        }
    }
    if (!contig && have) ump_sched_unpack(&s, rbuf, res, cnt, dt);
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
