/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_param.c - predefined types chosen by parameters (MPI's
 * Type_create_f90_real/complex/integer): each behaves as the named type it
 * stands for (same kind, layout and name), but reports its own combiner and
 * parameters. Made once per distinct request and kept for the process's
 * life, like the static predefined types; a small list is enough, since a
 * program asks for a handful.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"

typedef struct param_type {
    struct param_type *next;
    struct ump_dt t;
    int ints[2];
} param_type_t;

static pthread_mutex_t param_lock = PTHREAD_MUTEX_INITIALIZER;
static param_type_t *param_list;

int ump_dt_param(ump_dt_t base, int combiner, int ni, const int *ints, ump_dt_t *out)
{
    if (!ump_dt_valid(base) || base->combiner != UMP_DT_COMBINER_NAMED) return UMP_ERR_DATATYPE;
    if (!out || ni < 0 || ni > 2 || (ni && !ints)) return UMP_ERR_INVALID;
    if (combiner != UMP_DT_COMBINER_F90_REAL && combiner != UMP_DT_COMBINER_F90_COMPLEX &&
        combiner != UMP_DT_COMBINER_F90_INTEGER)
        return UMP_ERR_INVALID;
    int rc = UMP_OK;
    pthread_mutex_lock(&param_lock);
    param_type_t *p;
    for (p = param_list; p; p = p->next)
        if (p->t.impl == base && p->t.combiner == combiner && p->t.ni == ni &&
            (ni == 0 || !memcmp(p->ints, ints, sizeof(int) * (size_t)ni)))
            break;
    if (!p) {
        p = malloc(sizeof(*p));
        if (!p) {
            rc = UMP_ERR_NO_MEMORY;
            goto out;
        }
        p->t = *base; /* kind, layout, bounds, name: the named type's */
        p->t.combiner = (uint8_t)combiner;
        /* impl is unused by predefined types (only subarray/darray build
         * one): here it remembers the base, for the lookup above. */
        p->t.impl = (struct ump_dt *)base;
        p->t.ni = ni;
        if (ni) memcpy(p->ints, ints, sizeof(int) * (size_t)ni);
        p->t.ints = p->ints;
        p->t.na = p->t.nd = 0;
        p->t.aints = NULL;
        p->t.types = NULL;
        p->t.flat = NULL;
        p->t.nflat = 0;
        p->t.ovl = NULL;
        if (base->name == base->namebuf) p->t.name = p->t.namebuf;
        p->next = param_list;
        param_list = p;
    }
    *out = &p->t;
out:
    pthread_mutex_unlock(&param_lock);
    return rc;
}
