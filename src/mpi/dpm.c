/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic processes, the calls that need no intercommunicator: ports
 * (MPI_Open_port, Close_port) and the name service (Publish_name,
 * Unpublish_name, Lookup_name). The ports and names are the core's (ump.h,
 * "meeting other processes"): a port is a listening socket of this process,
 * names live in umprun (seen by every process it started, spawned ones
 * included) or, without it, in this process. Spawning is in spawn.c, the
 * meetings that make intercommunicators in dpm_comm.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* The class of a port or name failure. */
static int port_class(int rc)
{
    switch (rc) {
    case UMP_ERR_INVALID:
        return MPI_ERR_PORT;
    case UMP_ERR_NO_MEMORY:
        return MPI_ERR_NO_MEM;
    default:
        return ump_mpi_class_of(rc);
    }
}

#define CHECK_INFO(call, info)                                                                     \
    do {                                                                                           \
        if ((info) != MPI_INFO_NULL && !ump_mpi_info_ok(info))                                     \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO, call, "invalid info object");        \
    } while (0)

#define CHECK_STR(call, s, what, max, cls)                                                         \
    do {                                                                                           \
        if (!(s) || !*(s))                                                                         \
            return ump_mpi_error(MPI_COMM_NULL, cls, call, "%s is NULL or empty", what);           \
        if (strlen(s) >= (max))                                                                    \
            return ump_mpi_error(MPI_COMM_NULL, cls, call, "%s is longer than %d characters",      \
                                 what, (int)(max)-1);                                              \
    } while (0)

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char call[] = "MPI_Open_port";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    if (!port_name) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "port_name is NULL");
    int rc = ump_port_open(port_name, MPI_MAX_PORT_NAME);
    if (rc)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call, "cannot open a port: %s",
                             ump_strerror(rc));
    return MPI_SUCCESS;
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char *port_name)
{
    static const char call[] = "MPI_Close_port";
    UMP_MPI_CHECK_INIT(call);
    CHECK_STR(call, port_name, "port_name", MPI_MAX_PORT_NAME, MPI_ERR_PORT);
    if (ump_port_close(port_name))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_PORT, call,
                             "'%s' is not a port this process opened (or it is closed already)",
                             port_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char call[] = "MPI_Publish_name";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    CHECK_STR(call, service_name, "service_name", UMP_PORT_NAME_MAX, MPI_ERR_ARG);
    CHECK_STR(call, port_name, "port_name", MPI_MAX_PORT_NAME, MPI_ERR_PORT);
    int rc = ump_name_publish(service_name, port_name);
    if (rc == UMP_ERR_BUSY)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_SERVICE, call,
                             "service '%s' is published already", service_name);
    if (rc)
        return ump_mpi_error(MPI_COMM_NULL, port_class(rc), call, "cannot publish service '%s': %s",
                             service_name, ump_strerror(rc));
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char call[] = "MPI_Unpublish_name";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    CHECK_STR(call, service_name, "service_name", UMP_PORT_NAME_MAX, MPI_ERR_ARG);
    CHECK_STR(call, port_name, "port_name", MPI_MAX_PORT_NAME, MPI_ERR_PORT);
    int rc = ump_name_unpublish(service_name, port_name);
    if (rc == UMP_ERR_INVALID)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_SERVICE, call,
                             "service '%s' is not published under port '%s'", service_name,
                             port_name);
    if (rc)
        return ump_mpi_error(MPI_COMM_NULL, port_class(rc), call,
                             "cannot unpublish service '%s': %s", service_name, ump_strerror(rc));
    return MPI_SUCCESS;
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char call[] = "MPI_Lookup_name";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    CHECK_STR(call, service_name, "service_name", UMP_PORT_NAME_MAX, MPI_ERR_ARG);
    if (!port_name) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "port_name is NULL");
    int rc = ump_name_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    if (rc == UMP_ERR_INVALID)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NAME, call, "service '%s' is not published",
                             service_name);
    if (rc)
        return ump_mpi_error(MPI_COMM_NULL, port_class(rc), call, "cannot look up service '%s': %s",
                             service_name, ump_strerror(rc));
    return MPI_SUCCESS;
}
