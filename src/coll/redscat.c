/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce_scatter(_block): a ring for commutative ops on long vectors
 * (n-1 rounds, each rank reducing 1/n of the data per round, ending with
 * its own block), otherwise reduce to rank 0 (any algorithm of reduce,
 * rank order kept) and scatterv.
 */
#include "coll/coll_int.h"

UMP_CFG_ENUM_(ump_coll_redscat_algo, "UMP_COLL_REDUCE_SCATTER_ALGO", "auto",
              "auto|ring|reduce_scatterv",
              "reduce_scatter algorithm (auto: ring for long vectors and commutative ops)");
UMP_CFG(ump_coll_redscat_long, "UMP_COLL_REDUCE_SCATTER_LONG", UMP_CFG_SIZE, "64k",
        "reduce_scatters of at least this many bytes in total use the ring");

int ump_coll_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, size_t rcount,
                            ump_dt_t dt, ump_redop_t op, ump_comm_t comm, ump_req_t *greq)
{
    ump_sched_t s;
    ump_sched_init(&s, comm);
    int rc = ump_sched_reduction(&s, op, dt);
    if (rc != UMP_OK) {
        ump_sched_free(&s);
        return rc;
    }
    int n = comm->size, me = comm->rank;
    size_t esz = dt->size;
    size_t *eoff = ump_sched_tmp(&s, sizeof(size_t) * (size_t)(n + 1));
    if (!eoff) goto out;
    eoff[0] = 0;
    for (int i = 0; i < n; i++)
        eoff[i + 1] = eoff[i] + (size_t)(rcounts ? (size_t)rcounts[i] : rcount);
    size_t total = eoff[n];
    if (!total) goto out;
    /* The whole input, packed (in place: it is in rbuf). */
    char *acc = ump_sched_tmp(&s, total * esz);
    if (!acc) goto out;
    ump_coll_pack(acc, sbuf == UMP_IN_PLACE ? rbuf : sbuf, total, dt);
    size_t mycnt = eoff[me + 1] - eoff[me];
    int algo = ump_coll_redscat_algo.v.e;
    if (algo == 0) algo = s.red.commutative && total * esz >= ump_coll_redscat_long.v.sz ? 1 : 2;
    if (algo == 1 && !s.red.commutative) algo = 2;
    ump_cgrp_t g = ump_cgrp_comm(comm);
    if (algo == 1 && n > 1) {
        size_t maxc = 0;
        for (int i = 0; i < n; i++)
            maxc = UMP_MAX(maxc, eoff[i + 1] - eoff[i]);
        char *tmp = ump_sched_tmp(&s, maxc * esz);
        if (!tmp) goto out;
        int right = g.w[(me + 1) % n], left = g.w[(me - 1 + n) % n];
        for (int k = 0; k < n - 1; k++) {
            int sb = (me - 1 - k + 2 * n) % n, rb = (me - 2 - k + 2 * n) % n;
            ump_sched_send(&s, right, acc + eoff[sb] * esz, (eoff[sb + 1] - eoff[sb]) * esz);
            ump_sched_recv(&s, left, tmp, (eoff[rb + 1] - eoff[rb]) * esz);
            ump_sched_red(&s, tmp, acc + eoff[rb] * esz, eoff[rb + 1] - eoff[rb]);
            ump_sched_round(&s);
        }
    } else {
        ump_alg_reduce_binomial(&s, g, acc, acc, total, esz, 0);
        /* Scatter the blocks from rank 0. */
        if (me == 0) {
            for (int i = 1; i < n; i++)
                ump_sched_send(&s, g.w[i], acc + eoff[i] * esz, (eoff[i + 1] - eoff[i]) * esz);
        } else {
            ump_sched_recv(&s, g.w[0], acc + eoff[me] * esz, mycnt * esz);
        }
        ump_sched_round(&s);
    }
    if (ump_coll_dt_contig(dt))
        ump_sched_copy(&s, rbuf, acc + eoff[me] * esz, mycnt * esz);
    else
        ump_sched_unpack(&s, rbuf, acc + eoff[me] * esz, mycnt, dt);
out:
    return greq ? ump_sched_start(&s, greq) : ump_sched_run(&s);
}
