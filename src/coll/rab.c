/* SPDX-License-Identifier: BSD-3-Clause */
#include "coll/rab.h"

void ump_rab_init(ump_rab_t *r, ump_cgrp_t g, size_t count, size_t esz)
{
    r->g = g;
    r->p2 = ump_pow2_floor(g.n);
    r->rem = g.n - r->p2;
    r->k = 0;
    while ((1 << r->k) < r->p2)
        r->k++;
    r->count = count;
    r->esz = esz;
    if (g.me < 2 * r->rem)
        r->nr = (g.me & 1) ? -1 : g.me / 2;
    else
        r->nr = g.me - r->rem;
}

int ump_rab_real(const ump_rab_t *r, int nr)
{
    return r->g.w[nr < r->rem ? nr * 2 : nr + r->rem];
}

static size_t boff(const ump_rab_t *r, int i)
{
    size_t q = r->count / (size_t)r->p2, m = r->count % (size_t)r->p2;
    return ((size_t)i * q + UMP_MIN((size_t)i, m)) * r->esz;
}

void ump_rab_window(const ump_rab_t *r, int nr, int steps, size_t *lo, size_t *hi)
{
    int l = 0, h = r->p2;
    for (int j = 0; j < steps; j++) {
        int mid = (l + h) / 2;
        if ((nr >> j) & 1)
            l = mid;
        else
            h = mid;
    }
    *lo = boff(r, l);
    *hi = boff(r, h);
}

void ump_rab_fold(ump_sched_t *s, const ump_rab_t *r, void *acc, void *tmp)
{
    int me = r->g.me;
    if (me >= 2 * r->rem) return;
    size_t bytes = r->count * r->esz;
    if (me & 1) {
        ump_sched_send(s, r->g.w[me - 1], acc, bytes);
    } else {
        ump_sched_recv(s, r->g.w[me + 1], tmp, bytes);
        ump_sched_redr(s, tmp, acc, r->count);
    }
    ump_sched_round(s);
}

void ump_rab_unfold(ump_sched_t *s, const ump_rab_t *r, void *acc)
{
    int me = r->g.me;
    if (me >= 2 * r->rem) return;
    size_t bytes = r->count * r->esz;
    if (me & 1)
        ump_sched_recv(s, r->g.w[me - 1], acc, bytes);
    else
        ump_sched_send(s, r->g.w[me + 1], acc, bytes);
    ump_sched_round(s);
}

void ump_rab_reduce_scatter(ump_sched_t *s, const ump_rab_t *r, void *acc, void *tmp,
                            const void *src)
{
    char *a = acc, *t = tmp;
    for (int j = 0; j < r->k; j++) {
        int pn = r->nr ^ (1 << j);
        size_t klo, khi, slo, shi;
        ump_rab_window(r, r->nr, j + 1, &klo, &khi); /* the half I keep */
        ump_rab_window(r, pn, j + 1, &slo, &shi);    /* the half the partner keeps */
        int peer = ump_rab_real(r, pn);
        ump_sched_send(s, peer, (j == 0 && src ? (const char *)src : a) + slo, shi - slo);
        ump_sched_recv(s, peer, t + klo, khi - klo);
        size_t cnt = (khi - klo) / r->esz;
        if (pn > r->nr)
            ump_sched_redr(s, t + klo, a + klo, cnt);
        else
            ump_sched_red(s, t + klo, a + klo, cnt);
        ump_sched_round(s);
    }
}
