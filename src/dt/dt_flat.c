/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_flat.c - the run list of one element ((offset, length) pairs), built
 * once per type and kept with it: what a peer needs to read or write this
 * layout directly (scatter/gather transfer).
 */
#include <stdlib.h>

#include "dt/dt_int.h"

const struct iovec *ump_dt_flat(ump_dt_t dt, size_t max_runs, size_t *nruns)
{
    struct ump_dt *t = (struct ump_dt *)dt;
    /* Threads sending one type at once may both build it: the first to
     * publish wins (release, after nflat), the other frees its copy. */
    struct iovec *have = __atomic_load_n(&t->flat, __ATOMIC_ACQUIRE);
    if (have) {
        *nruns = __atomic_load_n(&t->nflat, __ATOMIC_RELAXED);
        return have;
    }
    if (t->nblocks > max_runs || !t->nblocks) return NULL;
    struct iovec *v = malloc(t->nblocks * sizeof(*v));
    if (!v) return NULL;
    ump_dt_cursor_t c;
    int n = 0;
    if (ump_dt_cursor_init(&c, NULL, 1, dt, 0) != UMP_OK ||
        ump_dt_cursor_iov(&c, dt->size, v, (int)t->nblocks, &n) != dt->size) {
        /* nblocks counts merged runs, so this cannot happen: stay safe. */
        free(v);
        return NULL;
    }
    if (t->predefined) { /* static object: nowhere to keep it */
        free(v);
        return NULL;
    }
    /* Every builder finds the same count, so nflat may be written twice. */
    __atomic_store_n(&t->nflat, (size_t)n, __ATOMIC_RELAXED);
    if (!__atomic_compare_exchange_n(&t->flat, &have, v, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(v);
        v = have;
    }
    *nruns = (size_t)n;
    return v;
}
