/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pack.c - MPI_Pack, MPI_Unpack, MPI_Pack_size. The packed format is the
 * datatype engine's stream (data bytes in type-map order, host
 * representation: ump assumes homogeneous clusters), so a message packed
 * here can be sent as MPI_PACKED and received with the original type.
 */
#include <limits.h>

#include "dt/dt.h"
#include "mpi/mpi_impl.h"

/* Bytes of count elements, or -1 when it does not fit an int position. */
static long long packed_bytes(int count, MPI_Datatype dt)
{
    unsigned long long b = (unsigned long long)count * dt->size;
    return b > INT_MAX ? -1 : (long long)b;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, incount);
    UMP_MPI_CHECK_DT(call, comm, datatype);
    UMP_MPI_CHECK_BUF(call, comm, inbuf, incount, datatype);
    if (!position) return ump_mpi_error(comm, MPI_ERR_ARG, call, "position is NULL");
    if (outsize < 0)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "outsize %d is negative", outsize);
    if (*position < 0 || *position > outsize)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "position %d is outside [0, %d]", *position,
                             outsize);
    long long n = packed_bytes(incount, datatype);
    if (n < 0)
        return ump_mpi_error(comm, MPI_ERR_COUNT, call, "%d elements of %zu bytes exceed an int",
                             incount, datatype->size);
    if (n > outsize - *position)
        return ump_mpi_error(comm, MPI_ERR_TRUNCATE, call,
                             "%lld packed bytes at position %d exceed outsize %d", n, *position,
                             outsize);
    if (n && !outbuf) return ump_mpi_error(comm, MPI_ERR_BUFFER, call, "outbuf is NULL");
    int rc =
        ump_dt_pack(inbuf, (size_t)incount, datatype, 0, (char *)outbuf + *position, (size_t)n);
    if (rc != UMP_OK) return ump_mpi_error(comm, MPI_ERR_INTERN, call, "%s", ump_strerror(rc));
    *position += (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, outcount);
    UMP_MPI_CHECK_DT(call, comm, datatype);
    UMP_MPI_CHECK_BUF(call, comm, outbuf, outcount, datatype);
    if (!position) return ump_mpi_error(comm, MPI_ERR_ARG, call, "position is NULL");
    if (insize < 0) return ump_mpi_error(comm, MPI_ERR_ARG, call, "insize %d is negative", insize);
    if (*position < 0 || *position > insize)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "position %d is outside [0, %d]", *position,
                             insize);
    long long n = packed_bytes(outcount, datatype);
    if (n < 0)
        return ump_mpi_error(comm, MPI_ERR_COUNT, call, "%d elements of %zu bytes exceed an int",
                             outcount, datatype->size);
    if (n > insize - *position)
        return ump_mpi_error(comm, MPI_ERR_TRUNCATE, call,
                             "%lld bytes wanted at position %d but insize is %d", n, *position,
                             insize);
    if (n && !inbuf) return ump_mpi_error(comm, MPI_ERR_BUFFER, call, "inbuf is NULL");
    int rc = ump_dt_unpack(outbuf, (size_t)outcount, datatype, 0, (const char *)inbuf + *position,
                           (size_t)n);
    if (rc != UMP_OK) return ump_mpi_error(comm, MPI_ERR_INTERN, call, "%s", ump_strerror(rc));
    *position += (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Pack_size";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, incount);
    UMP_MPI_CHECK_DT(call, comm, datatype);
    if (!size) return ump_mpi_error(comm, MPI_ERR_ARG, call, "size is NULL");
    long long n = packed_bytes(incount, datatype);
    if (n < 0)
        return ump_mpi_error(comm, MPI_ERR_COUNT, call, "%d elements of %zu bytes exceed an int",
                             incount, datatype->size);
    *size = (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size
