/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt.h - datatypes. This release knows contiguous types only; a committed
 * derived type will carry its layout here, and the core will move it through
 * a segment cursor instead of (buf, bytes).
 */
#ifndef UMP_DT_H
#define UMP_DT_H

#include <stdbool.h>
#include <stddef.h>

#include "ump.h"

struct ump_dt {
    size_t size;     /* bytes of data in one element */
    size_t extent;   /* stride between consecutive elements */
    bool contiguous; /* size == extent and no holes */
    const char *name;
};

/* Bytes of `count` elements, or UMP_ERR_* (negative) when the product
 * overflows or the type cannot be moved as plain bytes yet. */
static inline long long ump_dt_bytes(ump_dt_t dt, size_t count, size_t *bytes)
{
    if (!dt) return UMP_ERR_DATATYPE;
    if (!dt->contiguous) return UMP_ERR_UNSUPPORTED;
    if (dt->size && count > (size_t)-1 / dt->size) return UMP_ERR_COUNT;
    *bytes = count * dt->size;
    return UMP_OK;
}

#endif /* UMP_DT_H */
