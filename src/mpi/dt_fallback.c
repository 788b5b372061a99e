/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Weak stand-ins for the datatype checks of src/mpi/type.c, so the library
 * links (and moves contiguous types) before the datatype engine is merged.
 * The strong definitions in type.c replace these; then this file can go.
 */
#include "mpi/mpi_impl.h"

__attribute__((weak)) bool ump_mpi_dt_ok(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && dt->size > 0;
}

__attribute__((weak)) bool ump_mpi_buf_ok(const void *buf, int count, MPI_Datatype dt)
{
    return buf || count == 0 || dt->size == 0;
}
