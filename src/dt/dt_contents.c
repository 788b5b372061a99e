/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_contents.c - the constructor arguments recorded with each derived
 * type, and the envelope and contents queries that give them back.
 */
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"

/* Records the constructor arguments and takes a reference on each type. */
int ump_dt_set_contents(struct ump_dt *t, int ni, const int *ints, int na, const ptrdiff_t *aints,
                        int nd, ump_dt_t const *types)
{
    t->ints = ni ? malloc(sizeof(int) * (size_t)ni) : NULL;
    t->aints = na ? malloc(sizeof(ptrdiff_t) * (size_t)na) : NULL;
    t->types = nd ? malloc(sizeof(*t->types) * (size_t)nd) : NULL;
    if ((ni && !t->ints) || (na && !t->aints) || (nd && !t->types)) return UMP_ERR_NO_MEMORY;
    if (ni) memcpy(t->ints, ints, sizeof(int) * (size_t)ni);
    if (na) memcpy(t->aints, aints, sizeof(ptrdiff_t) * (size_t)na);
    for (int k = 0; k < nd; k++) {
        t->types[k] = (struct ump_dt *)types[k];
        ump_dt_ref(types[k]);
    }
    t->ni = ni, t->na = na, t->nd = nd;
    return UMP_OK;
}

int ump_dt_with_contents(int rc, struct ump_dt **t, int ni, const int *ints, int na,
                         const ptrdiff_t *aints, int nd, ump_dt_t const *types)
{
    if (rc != UMP_OK) return rc;
    rc = ump_dt_set_contents(*t, ni, ints, na, aints, nd, types);
    if (rc != UMP_OK) {
        ump_dt_release(*t);
        *t = NULL;
    }
    return rc;
}

int ump_dt_envelope(ump_dt_t dt, int *ni, int *na, int *nd, int *combiner)
{
    if (!ump_dt_valid(dt)) return UMP_ERR_DATATYPE;
    if (!ni || !na || !nd || !combiner) return UMP_ERR_INVALID;
    *ni = dt->ni, *na = dt->na, *nd = dt->nd;
    *combiner = dt->combiner; /* NAMED for the static predefined types */
    return UMP_OK;
}

int ump_dt_contents(ump_dt_t dt, int maxi, int maxa, int maxd, int ints[], ptrdiff_t aints[],
                    struct ump_dt *types[])
{
    if (!ump_dt_valid(dt)) return UMP_ERR_DATATYPE;
    if (dt->combiner == UMP_DT_COMBINER_NAMED) return UMP_ERR_INVALID;
    if (maxi < dt->ni || maxa < dt->na || maxd < dt->nd) return UMP_ERR_INVALID;
    if ((dt->ni && !ints) || (dt->na && !aints) || (dt->nd && !types)) return UMP_ERR_INVALID;
    if (dt->ni) memcpy(ints, dt->ints, sizeof(int) * (size_t)dt->ni);
    if (dt->na) memcpy(aints, dt->aints, sizeof(ptrdiff_t) * (size_t)dt->na);
    for (int k = 0; k < dt->nd; k++) {
        types[k] = dt->types[k];
        if (types[k]->predefined) continue;
        /* a new user handle: the type is usable again even if the user
         * had freed the handle it was created with */
        ump_dt_ref(types[k]);
        if (__atomic_add_fetch(&types[k]->handles, 1, __ATOMIC_ACQ_REL) == 1)
            types[k]->user_freed = false;
    }
    return UMP_OK;
}
