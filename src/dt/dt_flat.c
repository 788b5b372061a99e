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
    if (t->flat) {
        *nruns = t->nflat;
        return t->flat;
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
    t->flat = v;
    t->nflat = (size_t)n;
    *nruns = t->nflat;
    return t->flat;
}
