/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Alloc_mem / MPI_Free_mem (MPI 3.1 8.2) and MPI_Pcontrol (14.2.4).
 *
 * ump's transports need no registered memory, so MPI_Alloc_mem is an
 * aligned malloc: 64 bytes, a cache line, which also suits any type and
 * vector instructions. No info key changes that (hints may be ignored).
 * MPI_Pcontrol is the hook profiling libraries intercept; ump itself
 * records nothing, so it only accepts the call.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char call[] = "MPI_Alloc_mem";
    UMP_MPI_CHECK_INIT(call);
    if (size < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_SIZE, call, "size %lld is negative",
                             (long long)size);
    if (info != MPI_INFO_NULL && !ump_mpi_info_ok(info))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO, call, "invalid info object");
    if (!baseptr) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "baseptr is NULL");
    void *p = NULL;
    /* Size 0 still gives a distinct pointer the program may free. */
    size_t n = size ? ((size_t)size + 63) & ~(size_t)63 : 64;
    if ((uint64_t)size > SIZE_MAX - 64 || posix_memalign(&p, 64, n) != 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "cannot allocate %lld bytes",
                             (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    static const char call[] = "MPI_Free_mem";
    UMP_MPI_CHECK_INIT(call);
    free(base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
