/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared-memory windows: MPI_Win_allocate_shared and MPI_Win_shared_query.
 *
 * The ranks of the communicator (all on one node) map one POSIX shared
 * memory segment that holds every rank's part one after the other, with
 * no gap (MPI 3.1 11.2.3: contiguous by default; the segment itself is
 * page aligned), so each can load and store the
 * others' memory directly. Rank 0 creates the segment (mode 0600, a name
 * no other job uses), the others map it, and it is unlinked as soon as all
 * have it mapped: nothing is left behind if the job dies. MPI_Win_allocate
 * on a communicator within one node makes its window the same way. The
 * segment starts with every rank's control words (ump_win_ctl_t), and
 * RMA calls on such a window are done by the origin itself
 * (win_direct.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpi/win.h"
#include "util/util.h"

void ump_win_shm_free(MPI_Win w)
{
    if (w->shm_map) munmap(w->shm_map, w->shm_len);
    w->shm_map = NULL;
}

/* Maps the segment; rank 0 creates it. Returns MPI_SUCCESS on every rank
 * or an error class on every rank. */
static int map_segment(MPI_Comm comm, size_t len, void **map, char *why, size_t whylen)
{
    static unsigned serial;
    char name[64] = "";
    int ok = 1;
    void *m = MAP_FAILED;
    if (comm->rank == 0) {
        snprintf(name, sizeof(name), "/ump-win-%d-%u", (int)getpid(), serial++);
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600), fe = 0;
        /* The pages are reserved now: a segment larger than what is free
         * in /dev/shm fails here, not with SIGBUS at a later store. */
        if (fd < 0 || ftruncate(fd, (off_t)len) != 0 ||
            ((fe = posix_fallocate(fd, 0, (off_t)len)) != 0 && fe != EOPNOTSUPP && (errno = fe)) ||
            (m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
            snprintf(why, whylen, "rank 0 cannot create a shared segment of %zu bytes: %s", len,
                     strerror(errno));
            ok = 0;
            if (fd >= 0) shm_unlink(name);
        }
        if (fd >= 0) close(fd);
        if (!ok) name[0] = 0;
    }
    int rc = PMPI_Bcast(name, sizeof(name), MPI_CHAR, 0, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (comm->rank != 0 && name[0]) {
        int fd = shm_open(name, O_RDWR, 0);
        if (fd < 0 ||
            (m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
            snprintf(why, whylen, "rank %d cannot map the shared segment: %s", comm->rank,
                     strerror(errno));
            ok = 0;
        }
        if (fd >= 0) close(fd);
    } else if (!name[0]) {
        if (comm->rank != 0) snprintf(why, whylen, "rank 0 could not create the shared segment");
        ok = 0;
    }
    int all = 0;
    rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (comm->rank == 0 && name[0]) shm_unlink(name);
    if (rc == MPI_SUCCESS && !all) rc = MPI_ERR_RMA_SHARED;
    if (rc != MPI_SUCCESS) {
        if (m != MAP_FAILED) munmap(m, len);
        if (!why[0]) snprintf(why, whylen, "another rank could not map the shared segment");
        return rc;
    }
    *map = m;
    return MPI_SUCCESS;
}

bool ump_win_one_node(MPI_Comm comm)
{
    int node = ump_node_id(ump_mpi_world_rank(comm, 0));
    for (int i = 1; i < comm->size; i++)
        if (ump_node_id(ump_mpi_world_rank(comm, i)) != node) return false;
    return true;
}

UMP_CFG(ump_win_cfg_direct, "UMP_WIN_DIRECT", UMP_CFG_BOOL, "1",
        "one-sided operations on windows of MPI_Win_allocate(_shared) within one node are "
        "loads and stores by the origin; 0 sends them as messages the target applies");

static bool direct_allowed(void)
{
    return !ump_win_cfg_direct.loaded || ump_win_cfg_direct.v.b;
}

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

int ump_win_shm_setup(const char *call, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      int flavor, void **base_out, MPI_Win *win, char *why, size_t whylen)
{
    int n = comm->size;
    long long mine = size, *sizes = malloc(sizeof(long long) * (size_t)n);
    MPI_Aint *offs = malloc(sizeof(MPI_Aint) * (size_t)n);
    if (!sizes || !offs) {
        free(sizes);
        free(offs);
        snprintf(why, whylen, "rank %d: out of memory", comm->rank);
        return MPI_ERR_NO_MEM;
    }
    int rc = PMPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes, 1, MPI_LONG_LONG, comm);
    /* The ranks' control words first, a page, so the parts start page
     * aligned; then the parts: with no gap for allocate_shared (MPI 3.1
     * 11.2.3: contiguous by default), each on a cache line for allocate
     * (aligned for any type, as a private allocation would be). */
    size_t total = round_up((size_t)n * sizeof(ump_win_ctl_t), 4096), data = 0;
    size_t align = flavor == MPI_WIN_FLAVOR_SHARED ? 1 : 64;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        offs[i] = (MPI_Aint)total;
        total += round_up((size_t)sizes[i], align);
        data += (size_t)sizes[i];
    }
    free(sizes);
    if (rc != MPI_SUCCESS) {
        free(offs);
        return rc;
    }
    void *map = NULL;
    rc = map_segment(comm, total, &map, why, whylen);
    if (rc != MPI_SUCCESS) {
        free(offs);
        if (!why[0]) snprintf(why, whylen, "rank %d: cannot map the window", comm->rank);
        return rc;
    }
    /* The segment is new, so zero: the locks free, the memory cleared. */
    char *base = data ? (char *)map + offs[comm->rank] : NULL;
    rc = ump_win_setup(call, base, size, disp_unit, info, comm, flavor, win);
    if (rc != MPI_SUCCESS) {
        munmap(map, total);
        free(offs);
        why[0] = 0;
        return rc;
    }
    (*win)->shm_map = map;
    (*win)->shm_len = total;
    (*win)->shm_offs = offs;
    (*win)->ctl = map;
    (*win)->direct = direct_allowed();
    *base_out = base;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    static const char call[] = "MPI_Win_allocate_shared";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_INTRA(call, comm);
    if (!baseptr || !win)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "rank %d: baseptr or win is NULL",
                             comm->rank);
    if (size < 0)
        return ump_mpi_error(comm, MPI_ERR_SIZE, call, "rank %d: window size %ld is negative",
                             comm->rank, (long)size);
    int n = comm->size, node = ump_node_id(ump_mpi_world_rank(comm, 0));
    for (int i = 1; i < n; i++)
        if (ump_node_id(ump_mpi_world_rank(comm, i)) != node)
            return ump_mpi_error(comm, MPI_ERR_RMA_SHARED, call,
                                 "rank %d: ranks 0 and %d of the communicator are on different "
                                 "nodes (split it with MPI_Comm_split_type first)",
                                 comm->rank, i);
    char why[256] = "";
    void *base = NULL;
    int rc = ump_win_shm_setup(call, size, disp_unit, info, comm, MPI_WIN_FLAVOR_SHARED, &base, win,
                               why, sizeof(why));
    if (rc != MPI_SUCCESS)
        return why[0] ? ump_mpi_error(comm, rc, call, "rank %d: %s", comm->rank, why) : rc;
    *(void **)baseptr = base;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    static const char call[] = "MPI_Win_shared_query";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (win->flavor != MPI_WIN_FLAVOR_SHARED)
        return ump_win_error(win, MPI_ERR_RMA_FLAVOR, call,
                             "the window was not made by MPI_Win_allocate_shared");
    if (!size || !disp_unit || !baseptr)
        return ump_win_error(win, MPI_ERR_ARG, call, "size, disp_unit or baseptr is NULL");
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory (MPI 3.1 11.2.3). */
        rank = 0;
        for (int i = 0; i < win->size; i++)
            if (win->peers[i].size > 0) {
                rank = i;
                break;
            }
    } else if (rank < 0 || rank >= win->size) {
        return ump_win_error(win, MPI_ERR_RANK, call, "rank %d is out of range [0, %d)", rank,
                             win->size);
    }
    *size = win->peers[rank].size;
    *disp_unit = win->peers[rank].disp_unit;
    *(void **)baseptr =
        win->shm_map && win->peers[rank].size ? (char *)win->shm_map + win->shm_offs[rank] : NULL;
    return MPI_SUCCESS;
}
