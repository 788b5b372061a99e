/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_ref.c - the lifetime of a type object: creation (new and copied from
 * another type), references held by users, derived types and operations in
 * flight, commit, the user's free and the release when the last reference
 * goes.
 */
#include <stdlib.h>
#include <string.h>

#include "dt/dt_int.h"

struct ump_dt *ump_dt_new(int combiner)
{
    struct ump_dt *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->magic = UMP_DT_MAGIC;
    t->refs = 1;
    t->handles = 1;
    t->combiner = (uint8_t)combiner;
    t->kind = UMP_DT_DERIVED;
    t->align = 1;
    t->name = t->namebuf;
    t->dl = &ump_dt_empty_leaf;
    static uint64_t next_uid;
    t->uid = __atomic_add_fetch(&next_uid, 1, __ATOMIC_RELAXED);
    return t;
}

void ump_dt_release(struct ump_dt *t)
{
    for (int k = 0; k < t->nd; k++)
        ump_dt_unref(t->types[k]);
    if (t->impl) ump_dt_unref(t->impl);
    for (ump_dt_dl_t *n = t->owned, *next; n; n = next) {
        next = n->next_owned;
        free(n);
    }
    free(t->flat);
    free(t->ovl);
    free(t->ints);
    free(t->aints);
    free(t->types);
    t->magic = UMP_DT_MAGIC_DEAD;
    free(t);
}

int ump_dt_commit(struct ump_dt *dt)
{
    if (!ump_dt_valid(dt) || dt->user_freed) return UMP_ERR_DATATYPE;
    dt->committed = true;
    return UMP_OK;
}

int ump_dt_free(struct ump_dt **dt)
{
    if (!dt || !ump_dt_valid(*dt) || (*dt)->predefined || (*dt)->user_freed)
        return UMP_ERR_DATATYPE;
    struct ump_dt *t = *dt;
    if (__atomic_sub_fetch(&t->handles, 1, __ATOMIC_ACQ_REL) == 0) t->user_freed = true;
    *dt = NULL;
    ump_dt_unref(t);
    return UMP_OK;
}

/* A type with old's facts and layout (dup, resized, and the wrapper of
 * subarray/darray around the type they build). */
struct ump_dt *ump_dt_copy(int combiner, ump_dt_t old)
{
    struct ump_dt *t = ump_dt_new(combiner);
    if (!t) return NULL;
    char *nb = t->namebuf;
    uint64_t uid = t->uid;
    memcpy(t, old, offsetof(struct ump_dt, namebuf));
    t->name = nb;
    /* Its own id (a peer keeps layouts by id, and this one's extent may
     * differ) and its own flattened layout (old frees its own). */
    t->uid = uid;
    t->flat = NULL;
    t->nflat = 0;
    /* Overlap facts start over: a resized copy has another extent, and
     * old keeps (and frees) its own runs. */
    t->ovl = NULL;
    t->ovl_elem = UMP_DT_OVL_UNKNOWN;
    t->ovl_capped = false;
    t->ovl_clean_k = t->ovl_bad_k = t->ovl_work = 0;
    t->magic = UMP_DT_MAGIC;
    t->refs = 1;
    t->handles = 1;
    t->predefined = t->committed = t->user_freed = false;
    t->kind = UMP_DT_DERIVED;
    t->combiner = (uint8_t)combiner;
    t->owned = NULL;
    t->impl = NULL;
    t->ni = t->na = t->nd = 0;
    t->ints = NULL, t->aints = NULL, t->types = NULL;
    return t;
}
