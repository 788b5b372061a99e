/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI environment: Init/Finalize, thread levels, version, processor
 * name, clocks, Abort, and the MPI layer's own lock.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

int ump_mpi_thread_level = MPI_THREAD_SINGLE;
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t main_thread;
static bool initialized, finalized;
bool ump_mpi_live;

void ump_mpi_lock_multiple(void)
{
    pthread_mutex_lock(&mpi_lock);
}

void ump_mpi_unlock_multiple(void)
{
    pthread_mutex_unlock(&mpi_lock);
}

/* ump_mpi_live mirrors initialized && !finalized, so the check every MPI
 * call starts with is one load (mpi_impl.h). */
static void set_state(bool init, bool fini)
{
    initialized = init;
    finalized = fini;
    ump_mpi_live = init && !fini;
}

static int init(const char *call, int *argc, char ***argv, int required, int *provided)
{
    if (initialized || finalized)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call,
                             finalized ? "MPI was finalized and cannot be initialized again"
                                       : "MPI is already initialized");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "thread level %d is not valid",
                             required);
    int got = MPI_THREAD_SINGLE;
    int rc = ump_init(argc, argv, required, &got);
    if (rc != UMP_OK) {
        /* There is no job to abort through; say why and return. */
        fprintf(stderr, "ump: %s failed: %s\n", call, ump_strerror(rc));
        return ump_mpi_class_of(rc) == MPI_SUCCESS ? MPI_ERR_OTHER : ump_mpi_class_of(rc);
    }
    ump_mpi_thread_level = got;
    main_thread = pthread_self();
    set_state(true, false);
    rc = ump_mpi_comm_init();
    if (rc != MPI_SUCCESS) {
        set_state(false, false);
        ump_finalize();
        fprintf(stderr, "ump: %s failed: out of memory for the predefined communicators\n", call);
        return MPI_ERR_NO_MEM;
    }
    ump_mpi_info_env_init(argc ? *argc : 0, argv ? *argv : NULL);
    /* A spawned process meets its parents before the program runs. */
    rc = ump_mpi_parent_connect();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ump: %s failed: this process was spawned but cannot meet its parents\n",
                call);
        return rc;
    }
    if (provided) *provided = got;
    return MPI_SUCCESS;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    return init("MPI_Init", argc, argv, MPI_THREAD_SINGLE, NULL);
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (!provided)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Init_thread",
                             "provided pointer is NULL");
    return init("MPI_Init_thread", argc, argv, required, provided);
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Initialized", "flag is NULL");
    *flag = initialized;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Finalized", "flag is NULL");
    *flag = finalized;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    static const char call[] = "MPI_Finalize";
    UMP_MPI_CHECK_INIT(call);
    /* MPI 3.1 8.7: MPI_COMM_SELF's attributes are deleted first, so
     * libraries can hook finalization with a delete callback. */
    ump_mpi_req_reap(true);
    ump_mpi_bsend_fini();
    ump_mpi_comm_fini();
    ump_mpi_info_env_fini();
    int rc = ump_finalize();
    set_state(true, true);
    if (rc != UMP_OK)
        return ump_mpi_error(MPI_COMM_NULL, ump_mpi_class_of(rc), call, "%s", ump_strerror(rc));
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "MPI_Abort called on rank %d with error code %d", ump_rank(),
             errorcode);
    /* What the rank printed is not lost to _exit, with or without a launcher. */
    fflush(NULL);
    /* The whole job ends whatever the communicator (allowed by MPI 3.1 8.7). */
    ump_abort(errorcode, msg);
    return MPI_ERR_OTHER; /* not reached */
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    static const char call[] = "MPI_Query_thread";
    UMP_MPI_CHECK_INIT(call);
    if (!provided) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "provided is NULL");
    *provided = ump_mpi_thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    static const char call[] = "MPI_Is_thread_main";
    UMP_MPI_CHECK_INIT(call);
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "flag is NULL");
    *flag = pthread_equal(pthread_self(), main_thread) != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_version",
                             "version or subversion is NULL");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_library_version",
                             "version or resultlen is NULL");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "ump %s (MPI %d.%d, C11)",
                     UMP_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = UMP_MIN(n, MPI_MAX_LIBRARY_VERSION_STRING - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    static const char call[] = "MPI_Get_processor_name";
    if (!name || !resultlen)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "name or resultlen is NULL");
    /* The machine's own name, as MPICH and Open MPI give it: the launcher's
     * name for the host may be "localhost", an address or an ssh alias. */
    char buf[MPI_MAX_PROCESSOR_NAME] = "";
    const char *h = buf;
    if (gethostname(buf, sizeof(buf) - 1) != 0 || !buf[0]) {
        h = ump_hostname();
        if (!h || !*h) h = "localhost";
    }
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", h);
    *resultlen = UMP_MIN(n, MPI_MAX_PROCESSOR_NAME - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    return ump_wtime();
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0 || (ts.tv_sec == 0 && ts.tv_nsec == 0)) return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
