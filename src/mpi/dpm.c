/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic processes, the calls that need no intercommunicator: ports
 * (MPI_Open_port, Close_port), the name service (Publish_name,
 * Unpublish_name, Lookup_name), MPI_Comm_get_parent and MPI_Comm_spawn(_
 * multiple). The ports and names are the core's (ump.h, "meeting other
 * processes"): a port is a listening socket of this process, names live in
 * umprun (seen by the whole job) or, without it, in this process.
 *
 * Spawning is not offered yet: ump's launcher does not start processes at
 * run time, and the transports meet only the processes of the world they
 * started with. MPI_Comm_spawn and _multiple check their arguments, then
 * fail with MPI_ERR_SPAWN on every rank of the communicator, saying so
 * (every entry of array_of_errcodes is MPI_ERR_SPAWN). MPI_Comm_get_parent
 * is therefore always MPI_COMM_NULL.
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

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    static const char call[] = "MPI_Comm_get_parent";
    UMP_MPI_CHECK_INIT(call);
    if (!parent) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "parent is NULL");
    /* No process of ump is spawned (see the top of the file). */
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The common part of both spawns: root's arguments were checked. */
static int spawn_refused(const char *call, MPI_Comm comm, int nprocs, MPI_Comm *intercomm,
                         int *errcodes)
{
    for (int i = 0; errcodes && i < nprocs; i++)
        errcodes[i] = MPI_ERR_SPAWN;
    *intercomm = MPI_COMM_NULL;
    return ump_mpi_error(comm, MPI_ERR_SPAWN, call,
                         "ump does not start processes at run time (%s)%s",
                         getenv("UMP_JOB_KVS") ? "umprun has no spawn service yet"
                                               : "and this process was not started by umprun",
                         nprocs ? ": none of the processes asked for was started" : "");
}

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char call[] = "MPI_Comm_spawn";
    (void)argv;
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!intercomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "intercomm is NULL");
    if (root < 0 || root >= comm->size)
        return ump_mpi_error(comm, MPI_ERR_ROOT, call, "root %d is not a rank of the %d", root,
                             comm->size);
    /* Only the root's command, argv, maxprocs and info count (MPI 3.1 §10.3.2). */
    if (comm->rank == root) {
        if (!command || !*command)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "command is NULL or empty");
        if (maxprocs <= 0)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "maxprocs %d is not positive", maxprocs);
        CHECK_INFO(call, info);
    }
    /* Only the root knows how many were asked for: it fills its codes. */
    return spawn_refused(call, comm, comm->rank == root ? maxprocs : 0, intercomm,
                         array_of_errcodes);
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char call[] = "MPI_Comm_spawn_multiple";
    (void)array_of_argv;
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!intercomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "intercomm is NULL");
    if (root < 0 || root >= comm->size)
        return ump_mpi_error(comm, MPI_ERR_ROOT, call, "root %d is not a rank of the %d", root,
                             comm->size);
    int total = 0;
    if (comm->rank == root) {
        if (count <= 0)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "count %d is not positive", count);
        if (!array_of_commands || !array_of_maxprocs)
            return ump_mpi_error(comm, MPI_ERR_ARG, call,
                                 "array_of_commands or array_of_maxprocs is NULL");
        for (int i = 0; i < count; i++) {
            if (!array_of_commands[i] || !*array_of_commands[i])
                return ump_mpi_error(comm, MPI_ERR_ARG, call, "command %d is NULL or empty", i);
            if (array_of_maxprocs[i] < 0)
                return ump_mpi_error(comm, MPI_ERR_ARG, call, "maxprocs[%d] = %d is negative", i,
                                     array_of_maxprocs[i]);
            if (array_of_info && array_of_info[i] != MPI_INFO_NULL &&
                !ump_mpi_info_ok(array_of_info[i]))
                return ump_mpi_error(comm, MPI_ERR_INFO, call, "array_of_info[%d] is invalid", i);
            total += array_of_maxprocs[i];
        }
    }
    return spawn_refused(call, comm, total, intercomm, array_of_errcodes);
}
