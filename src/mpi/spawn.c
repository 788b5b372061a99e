/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting processes (MPI 3.1 §10.3): MPI_Comm_spawn, Comm_spawn_multiple
 * and Comm_get_parent.
 *
 * The root opens a port and asks the launcher (ump_spawn) to start the
 * children as one new job, each told the port; the spawning group then
 * accepts on it (ump_mpi_meet) while the children's MPI_Init connects to it
 * over their MPI_COMM_WORLD. The intercommunicator that meeting makes is the
 * parents' result and the children's MPI_Comm_get_parent. The launcher
 * answers only once the children are started, or with the reason it
 * refused (a program it cannot find, a host it does not have), which every
 * member of the spawning group then reports as MPI_ERR_SPAWN: the children
 * start all or none.
 *
 * Info keys read (per command): "wdir" (the children's working directory)
 * and "host" (comma-separated hosts of umprun's, where they run); others
 * are ignored, as the standard allows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/inter.h"
#include "mpi/mpi_impl.h"

static MPI_Comm parent = MPI_COMM_NULL;

int ump_mpi_parent_connect(void)
{
    const char *port = ump_parent_port();
    if (!port[0]) return MPI_SUCCESS;
    return ump_mpi_meet("MPI_Init", false, port, 0, MPI_COMM_WORLD, &parent);
}

void ump_mpi_parent_forget(MPI_Comm c)
{
    if (c == parent) parent = MPI_COMM_NULL;
}

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm *p)
{
    static const char call[] = "MPI_Comm_get_parent";
    UMP_MPI_CHECK_INIT(call);
    if (!p) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "parent is NULL");
    *p = parent;
    return MPI_SUCCESS;
}

/* An info value of the root's, or NULL. */
static char *info_get(MPI_Info info, const char *key)
{
    int flag = 0, len = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS ||
        !flag)
        return NULL;
    char *v = malloc((size_t)len + 1);
    if (v && (PMPI_Info_get(info, key, len + 1, v, &flag) != MPI_SUCCESS || !flag)) {
        free(v);
        v = NULL;
    }
    return v;
}

/* The root starts the children: MPI_SUCCESS, or the class with *why. */
static int start(int count, char **cmds, char ***argvs, const int *maxprocs, const MPI_Info *infos,
                 const char *port, char *why, size_t whylen)
{
    ump_app_t *apps = calloc((size_t)count, sizeof(*apps));
    char **vals = calloc(2 * (size_t)count, sizeof(*vals));
    int n = 0, rc = MPI_ERR_NO_MEM;
    snprintf(why, whylen, "out of memory");
    if (!apps || !vals) goto out;
    for (int i = 0; i < count; i++) {
        if (!maxprocs[i]) continue; /* asks for nothing: no app */
        MPI_Info info = infos ? infos[i] : MPI_INFO_NULL;
        vals[2 * i] = info_get(info, "wdir");
        vals[2 * i + 1] = info_get(info, "host");
        apps[n++] = (ump_app_t){.cmd = cmds[i],
                                .argv = argvs ? argvs[i] : NULL,
                                .maxprocs = maxprocs[i],
                                .wdir = vals[2 * i],
                                .hosts = vals[2 * i + 1]};
    }
    if (!n) {
        snprintf(why, whylen, "no process was asked for (every maxprocs is 0)");
        rc = MPI_ERR_SPAWN;
        goto out;
    }
    char job[17];
    int urc = ump_spawn(apps, n, port, job, sizeof(job), why, whylen);
    rc = urc == UMP_OK ? MPI_SUCCESS : MPI_ERR_SPAWN;
out:
    for (int i = 0; vals && i < 2 * count; i++)
        free(vals[i]);
    free(vals);
    free(apps);
    return rc;
}

/* Both spawns, collective over comm once the root's arguments are checked;
 * total is the root's count of processes. */
static int spawn(const char *call, int count, char **cmds, char ***argvs, const int *maxprocs,
                 const MPI_Info *infos, int total, int root, MPI_Comm comm, MPI_Comm *intercomm,
                 int *errcodes)
{
    char port[MPI_MAX_PORT_NAME] = "", why[512] = "";
    int res[2] = {MPI_SUCCESS, total};
    *intercomm = MPI_COMM_NULL;
    if (comm->rank == root) {
        int urc = ump_port_open(port, sizeof(port));
        if (urc != UMP_OK) {
            res[0] = MPI_ERR_SPAWN;
            snprintf(why, sizeof(why), "cannot open a port for the children: %s",
                     ump_strerror(urc));
        } else {
            res[0] = start(count, cmds, argvs, maxprocs, infos, port, why, sizeof(why));
        }
    }
    int rc = PMPI_Bcast(res, 2, MPI_INT, root, comm);
    if (rc == MPI_SUCCESS && res[0] == MPI_SUCCESS)
        rc = ump_mpi_meet(call, true, port, root, comm, intercomm);
    if (comm->rank == root && port[0]) ump_port_close(port);
    int code = rc != MPI_SUCCESS ? MPI_ERR_SPAWN : res[0];
    for (int i = 0; errcodes && i < res[1]; i++)
        errcodes[i] = code;
    if (rc != MPI_SUCCESS) return rc; /* the meeting said why */
    if (res[0] != MPI_SUCCESS) {
        if (comm->rank == root) return ump_mpi_error(comm, res[0], call, "%s", why);
        return ump_mpi_error(comm, res[0], call, "the root (rank %d) could not start the processes",
                             root);
    }
    return MPI_SUCCESS;
}

#define CHECK_INFO(call, comm, info)                                                               \
    do {                                                                                           \
        if ((info) != MPI_INFO_NULL && !ump_mpi_info_ok(info))                                     \
            return ump_mpi_error(comm, MPI_ERR_INFO, call, "invalid info object");                 \
    } while (0)

/* The arguments both spawns check on every rank. */
static int check_common(const char *call, int root, MPI_Comm comm, MPI_Comm *intercomm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_INTRA(call, comm);
    if (!intercomm) return ump_mpi_error(comm, MPI_ERR_ARG, call, "intercomm is NULL");
    if (root < 0 || root >= comm->size)
        return ump_mpi_error(comm, MPI_ERR_ROOT, call, "root %d is not a rank of the %d", root,
                             comm->size);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char call[] = "MPI_Comm_spawn";
    int rc = check_common(call, root, comm, intercomm);
    if (rc != MPI_SUCCESS) return rc;
    /* Only the root's command, argv, maxprocs and info count (MPI 3.1 §10.3.2). */
    if (comm->rank == root) {
        if (!command || !*command)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "command is NULL or empty");
        if (maxprocs <= 0)
            return ump_mpi_error(comm, MPI_ERR_ARG, call, "maxprocs %d is not positive", maxprocs);
        CHECK_INFO(call, comm, info);
    }
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    return spawn(call, 1, cmds, argvs, &maxprocs, &info, maxprocs, root, comm, intercomm,
                 array_of_errcodes);
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char call[] = "MPI_Comm_spawn_multiple";
    int rc = check_common(call, root, comm, intercomm);
    if (rc != MPI_SUCCESS) return rc;
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
            if (array_of_info) CHECK_INFO(call, comm, array_of_info[i]);
            if (array_of_maxprocs[i] > INT32_MAX - total)
                return ump_mpi_error(comm, MPI_ERR_ARG, call, "the maxprocs add up past %d",
                                     INT32_MAX);
            total += array_of_maxprocs[i];
        }
    }
    return spawn(call, count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info,
                 total, root, comm, intercomm, array_of_errcodes);
}
