/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_query.c - the public queries of a type (size, bounds, true bounds)
 * and its name.
 */
#include <stdio.h>

#include "dt/dt_int.h"

/* A type a caller may query: live and not freed by its user. */
static bool usable(ump_dt_t dt)
{
    return ump_dt_valid(dt) && !dt->user_freed;
}

size_t ump_dt_size(ump_dt_t dt)
{
    return dt ? dt->size : 0;
}

int ump_dt_get_extent(ump_dt_t dt, ptrdiff_t *lb, ptrdiff_t *extent)
{
    if (!usable(dt)) return UMP_ERR_DATATYPE;
    if (!lb || !extent) return UMP_ERR_INVALID;
    *lb = ump_dt_lb(dt);
    *extent = ump_dt_extent(dt);
    return UMP_OK;
}

int ump_dt_get_true_extent(ump_dt_t dt, ptrdiff_t *true_lb, ptrdiff_t *true_extent)
{
    if (!usable(dt)) return UMP_ERR_DATATYPE;
    if (!true_lb || !true_extent) return UMP_ERR_INVALID;
    *true_lb = ump_dt_true_lb(dt);
    *true_extent = ump_dt_true_extent(dt);
    return UMP_OK;
}

const char *ump_dt_name(ump_dt_t dt)
{
    return ump_dt_valid(dt) && dt->name ? dt->name : "";
}

int ump_dt_set_name(struct ump_dt *dt, const char *name)
{
    if (!ump_dt_valid(dt) || !name) return UMP_ERR_INVALID;
    /* Predefined names are string literals: give them their buffer first. */
    snprintf(dt->namebuf, sizeof(dt->namebuf), "%s", name);
    dt->name = dt->namebuf;
    return UMP_OK;
}
