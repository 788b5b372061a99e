/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator info hints and the duplications MPI 3.0 added around them:
 * MPI_Comm_set_info / MPI_Comm_get_info, MPI_Comm_dup_with_info and
 * MPI_Comm_idup.
 *
 * ump acts on no communicator hint, so a communicator keeps the hints the
 * program set (a private copy) and MPI_Comm_get_info returns a copy of
 * them; MPI_Comm_dup passes them on, MPI_Comm_dup_with_info takes the
 * given ones instead (MPI 3.1 6.4.2, 6.4.4).
 *
 * MPI_Comm_idup runs the duplication at once and returns a request that
 * is already complete: the new communicator is ready before the call
 * returns, which the standard allows (it may not be used until the
 * request completes). It needs every member to reach the call, as
 * MPI_Comm_dup does.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

void ump_mpi_comm_info_free(MPI_Comm c)
{
    if (c->info) PMPI_Info_free(&c->info);
}

/* Replaces the hints of c with a copy of info (MPI_INFO_NULL: none). */
static int set_hints(const char *call, MPI_Comm c, MPI_Info info)
{
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL) {
        int rc = PMPI_Info_dup(info, &copy);
        if (rc != MPI_SUCCESS) return ump_mpi_error(c, rc, call, "copying the info failed");
    }
    ump_mpi_comm_info_free(c);
    c->info = copy;
    return MPI_SUCCESS;
}

int ump_mpi_comm_info_copy(MPI_Comm oldc, MPI_Comm newc)
{
    return oldc->info ? set_hints("MPI_Comm_dup", newc, oldc->info) : MPI_SUCCESS;
}

#define CHECK_INFO(call, c, info)                                                                  \
    do {                                                                                           \
        if ((info) != MPI_INFO_NULL && !ump_mpi_info_ok(info))                                     \
            return ump_mpi_error(c, MPI_ERR_INFO, call, "invalid info object");                    \
    } while (0)

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char call[] = "MPI_Comm_set_info";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_INFO(call, comm, info);
    if (comm->predefined && info == MPI_INFO_NULL) return MPI_SUCCESS;
    return set_hints(call, comm, info);
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char call[] = "MPI_Comm_get_info";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!info_used) return ump_mpi_error(comm, MPI_ERR_ARG, call, "info_used pointer is NULL");
    /* Always a new object the program frees, even with no hints. */
    int rc = comm->info ? PMPI_Info_dup(comm->info, info_used) : PMPI_Info_create(info_used);
    if (rc != MPI_SUCCESS) return ump_mpi_error(comm, rc, call, "making the info object failed");
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup_with_info";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    CHECK_INFO(call, comm, info);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS) return rc;
    rc = set_hints(call, *newcomm, info);
    if (rc != MPI_SUCCESS) PMPI_Comm_free(newcomm);
    return rc;
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    static const char call[] = "MPI_Comm_idup";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!newcomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "newcomm pointer is NULL");
    if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    MPI_Request r = ump_mpi_req_new(UMP_MPI_REQ_COLL, comm);
    if (!r) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the request");
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS) {
        ump_mpi_req_release(r);
        return rc;
    }
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    ump_mpi_status_empty(&r->status);
    r->status.MPI_ERROR = MPI_SUCCESS;
    r->complete = true;
    *request = r;
    return MPI_SUCCESS;
}
