/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few datatype facts the collectives need, over src/dt.
 */
#include <string.h>

#include "coll/coll.h"

MPI_Datatype ump_coll_dt_basic(MPI_Datatype dt)
{
    /* Predefined types are their own basic type; derived ones are asked of
     * the datatype engine. */
    return dt;
}

bool ump_coll_dt_contig(MPI_Datatype dt)
{
    return dt->contiguous;
}

int ump_coll_pack(void *out, const void *buf, size_t count, MPI_Datatype dt)
{
    if (dt->contiguous) {
        if (count) memcpy(out, buf, count * dt->size);
        return MPI_SUCCESS;
    }
    return MPI_ERR_TYPE;
}

int ump_coll_unpack(void *buf, const void *in, size_t count, MPI_Datatype dt)
{
    if (dt->contiguous) {
        if (count) memcpy(buf, in, count * dt->size);
        return MPI_SUCCESS;
    }
    return MPI_ERR_TYPE;
}

size_t ump_coll_dt_span(MPI_Datatype dt, size_t count, ptrdiff_t *lb)
{
    *lb = 0;
    return count ? (count - 1) * dt->extent + dt->size : 0;
}
