/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few datatype facts the collectives need, over src/dt.
 */
#include <string.h>

#include "coll/coll.h"

bool ump_coll_dt_contig(ump_dt_t dt)
{
    return dt->contiguous;
}

int ump_coll_pack(void *out, const void *buf, size_t count, ump_dt_t dt)
{
    size_t len = count * dt->size;
    if (!len) return UMP_OK;
    if (dt->contiguous) {
        memcpy(out, buf, len);
        return UMP_OK;
    }
    return ump_dt_pack(buf, count, dt, 0, out, len) == UMP_OK ? UMP_OK : UMP_ERR_DATATYPE;
}

int ump_coll_unpack(void *buf, const void *in, size_t count, ump_dt_t dt)
{
    size_t len = count * dt->size;
    if (!len) return UMP_OK;
    if (dt->contiguous) {
        memcpy(buf, in, len);
        return UMP_OK;
    }
    return ump_dt_unpack(buf, count, dt, 0, in, len) == UMP_OK ? UMP_OK : UMP_ERR_DATATYPE;
}

size_t ump_coll_dt_span(ump_dt_t dt, size_t count, ptrdiff_t *lb)
{
    /* From the first data byte of element 0 to the last of element
     * count - 1 (extents are not negative for the types reductions take). */
    *lb = ump_dt_true_lb(dt);
    if (!count) return 0;
    return (count - 1) * dt->extent + (size_t)ump_dt_true_extent(dt);
}
