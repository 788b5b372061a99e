/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI windows: creation and release, attributes, names, info, error
 * handlers and the window's group. Communication is in win_ops.c, the
 * synchronisation calls in win_sync.c, the target side in win_am.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/win.h"

/* Every live window, so a communicator-level error handler call can find
 * the window it belongs to. */
static MPI_Win all_wins;

/* --- error handlers ----------------------------------------------------------
 *
 * Errors are raised through ump_mpi_error on the window's private
 * communicator, whose handler mirrors the window's: the two predefined
 * ones as they are, a user window handler through this trampoline, which
 * finds the window of the communicator and calls the handler with it. */
static void win_trampoline(MPI_Comm *comm, int *code, ...)
{
    for (MPI_Win w = all_wins; w; w = w->next) {
        if (w->comm != *comm) continue;
        MPI_Win h = w;
        ((MPI_Win_errhandler_function *)(void (*)(void))w->errh->fn)(&h, code);
        return;
    }
}

static struct ump_mpi_errhandler win_tramp = {
    .magic = UMP_MPI_MAGIC_ERRH, .refcount = 1, .predefined = true, .fn = win_trampoline};

static void mirror_errh(MPI_Win w)
{
    MPI_Errhandler e = w->errh;
    if (e != MPI_ERRORS_ARE_FATAL && e != MPI_ERRORS_RETURN) e = &win_tramp;
    PMPI_Comm_set_errhandler(w->comm, e);
}

static void name_comm(MPI_Win w)
{
    char buf[MPI_MAX_OBJECT_NAME];
    if (w->name[0])
        snprintf(buf, sizeof(buf), "of window '%.100s'", w->name);
    else
        snprintf(buf, sizeof(buf), "of an unnamed window");
    PMPI_Comm_set_name(w->comm, buf);
}

int ump_win_error(MPI_Win w, int errclass, const char *call, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return ump_mpi_error(ump_win_ok(w) ? w->comm : MPI_COMM_NULL, errclass, call, "rank %d: %s",
                         ump_win_ok(w) ? w->rank : ump_rank(), detail);
}

/* --- wire indices of predefined types and ops ------------------------------- */

#define X(mpi, nm) &ump_dt_##nm,
static const MPI_Datatype dts[] = {UMP_MPI_FOREACH_DATATYPE(X)};
#undef X
#define X(mpi, nm) &ump_mpi_op_##nm,
static const MPI_Op ops[] = {UMP_MPI_FOREACH_OP(X)};
#undef X

int ump_win_dt_index(MPI_Datatype dt)
{
    for (int i = 0; i < (int)(sizeof(dts) / sizeof(dts[0])); i++)
        if (dts[i] == dt) return i;
    return -1;
}

MPI_Datatype ump_win_dt_at(int i)
{
    return i >= 0 && i < (int)(sizeof(dts) / sizeof(dts[0])) ? dts[i] : MPI_DATATYPE_NULL;
}

int ump_win_op_index(MPI_Op op)
{
    for (int i = 0; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
        if (ops[i] == op) return i;
    return -1;
}

MPI_Op ump_win_op_at(int i)
{
    return i >= 0 && i < (int)(sizeof(ops) / sizeof(ops[0])) ? ops[i] : MPI_OP_NULL;
}

/* --- creation and release ----------------------------------------------------- */

static void win_destroy(MPI_Win w)
{
    free(w->peers);
    free(w->locked);
    free(w->unproven);
    free(w->nocheck);
    free(w->post_seen);
    free(w->pend);
    free(w->start_group);
    free(w->post_group);
    free(w->regions);
    free(w->shm_offs);
    ump_win_batch_free(w);
    free(w->in_scratch);
    for (ump_win_waiter_t *q = w->unlocks, *next; q; q = next) {
        next = q->next;
        free(q);
    }
    for (int i = 0; i < w->njoin_spare; i++)
        free(w->join_spare[i]);
    if (w->info) PMPI_Info_free(&w->info);
    ump_mpi_errh_unref(w->errh);
    w->magic = UMP_MPI_MAGIC_DEAD;
    pthread_mutex_destroy(&w->mu);
    free(w);
}

int ump_win_setup(const char *call, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                  MPI_Comm comm, int flavor, MPI_Win *out)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_INTRA(call, comm);
    if (size < 0)
        return ump_mpi_error(comm, MPI_ERR_SIZE, call, "rank %d: window size %ld is negative",
                             comm->rank, (long)size);
    if (disp_unit <= 0)
        return ump_mpi_error(comm, MPI_ERR_DISP, call,
                             "rank %d: displacement unit %d is not positive", comm->rank,
                             disp_unit);
    if (info != MPI_INFO_NULL && !ump_mpi_info_ok(info))
        return ump_mpi_error(comm, MPI_ERR_INFO, call, "rank %d: invalid info", comm->rank);
    if (!out) return ump_mpi_error(comm, MPI_ERR_ARG, call, "rank %d: win is NULL", comm->rank);
    MPI_Win w = calloc(1, sizeof(*w));
    if (!w) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    int rc = PMPI_Comm_dup(comm, &w->comm);
    if (rc != MPI_SUCCESS) {
        free(w);
        return rc;
    }
    w->magic = UMP_MPI_MAGIC_WIN;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&w->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    w->rank = comm->rank;
    w->size = comm->size;
    w->base = base;
    w->win_size = size;
    w->disp_unit = disp_unit;
    w->flavor = flavor;
    /* Every access to a window goes through its owner's memory (the
     * target applies operations to it), so public and private copies are
     * one: the unified model. */
    w->model = MPI_WIN_UNIFIED;
    w->lock_excl = -1;
    w->errh = MPI_ERRORS_ARE_FATAL;
    w->next_tag = 1;
    int n = w->size;
    w->peers = calloc((size_t)n, sizeof(*w->peers));
    w->locked = calloc((size_t)n, 1);
    w->unproven = calloc((size_t)n, 1);
    w->nocheck = calloc((size_t)n, 1);
    w->post_seen = calloc((size_t)n, sizeof(*w->post_seen));
    if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &w->info);
    if (!w->peers || !w->locked || !w->unproven || !w->nocheck || !w->post_seen) {
        PMPI_Comm_free(&w->comm);
        win_destroy(w);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* Window errors default to MPI_ERRORS_ARE_FATAL (MPI 3.1 8.3), not the
     * communicator's handler. */
    PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_ARE_FATAL);
    name_comm(w);
    /* Every rank's size and unit, for range checks at the origin, and its
     * base address, where the origin reads a large get itself (win_ops.c;
     * none for a dynamic window, whose memory comes later). */
    long long mine[3] = {(long long)size, disp_unit,
                         flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : (long long)(uintptr_t)base},
              *all = malloc(sizeof(mine) * (size_t)n);
    if (!all) {
        PMPI_Comm_free(&w->comm);
        win_destroy(w);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = PMPI_Allgather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, w->comm);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        w->peers[i].size = (MPI_Aint)all[3 * i];
        w->peers[i].disp_unit = (int)all[3 * i + 1];
        w->peers[i].base = (uint64_t)all[3 * i + 2];
    }
    free(all);
    if (rc == MPI_SUCCESS) rc = ump_win_am_attach(w);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&w->comm);
        win_destroy(w);
        return ump_mpi_error(comm, rc, call, "rank %d: cannot set up the window", comm->rank);
    }
    ump_mpi_lock();
    w->next = all_wins;
    all_wins = w;
    ump_mpi_unlock();
    *out = w;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    static const char call[] = "MPI_Win_create";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!base && size > 0)
        return ump_mpi_error(comm, MPI_ERR_BASE, call, "rank %d: base is NULL with size %ld",
                             comm->rank, (long)size);
    return ump_win_setup(call, base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, win);
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    static const char call[] = "MPI_Win_allocate";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_INTRA(call, comm);
    if (!baseptr)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "rank %d: baseptr is NULL", comm->rank);
    if (size < 0)
        return ump_mpi_error(comm, MPI_ERR_SIZE, call, "rank %d: window size %ld is negative",
                             comm->rank, (long)size);
    /* On one node the window lies in one segment every rank maps, and
     * its operations are loads and stores (win_direct.c); a segment that
     * cannot be made (on every rank alike) leaves private memory. */
    if (ump_win_one_node(comm)) {
        char why[256] = "";
        void *base = NULL;
        int rc = ump_win_shm_setup(call, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE,
                                   &base, win, why, sizeof(why));
        if (rc == MPI_SUCCESS) {
            *(void **)baseptr = base;
            return MPI_SUCCESS;
        }
        if (!why[0]) return rc;
        if (rc != MPI_ERR_RMA_SHARED)
            return ump_mpi_error(comm, rc, call, "rank %d: %s", comm->rank, why);
    }
    /* Aligned for any type a window may hold (long double, complex). */
    void *mem = NULL;
    if (size > 0 && posix_memalign(&mem, 64, (size_t)size) != 0)
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "rank %d: cannot allocate %ld bytes",
                             comm->rank, (long)size);
    if (mem) memset(mem, 0, (size_t)size);
    int rc = ump_win_setup(call, mem, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, win);
    if (rc != MPI_SUCCESS) {
        free(mem);
        return rc;
    }
    (*win)->owns_base = true;
    *(void **)baseptr = mem;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    static const char call[] = "MPI_Win_free";
    UMP_MPI_CHECK_INIT(call);
    if (!win) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "win pointer is NULL");
    MPI_Win w = *win;
    UMP_WIN_CHECK(call, w);
    /* Held until the hook no longer sees the window (not by
     * UMP_WIN_GUARD: the lock dies with the window). */
    MPI_Win held = ump_win_enter(w);
    int rc = MPI_SUCCESS;
    if (w->nlocked || w->start_group || w->post_group)
        rc = ump_win_error(w, MPI_ERR_RMA_SYNC, call,
                           "an access or exposure epoch (lock or post/start) is still open");
    /* Everything this rank started is complete, then nobody sends to the
     * window any more once all ranks passed the barrier. */
    if (rc == MPI_SUCCESS) rc = ump_win_batch_send_all(w);
    if (rc == MPI_SUCCESS) rc = ump_win_pend_wait(w);
    /* The delete callbacks run while the window is still whole; one that
     * fails leaves it (MPI 3.1 6.7.2). */
    if (rc == MPI_SUCCESS && (rc = ump_win_attr_delete_all(w)) != MPI_SUCCESS)
        rc = ump_win_error(w, rc, call, "a delete callback of the window's attributes failed");
    if (rc == MPI_SUCCESS) rc = PMPI_Barrier(w->comm);
    if (rc == MPI_SUCCESS) ump_win_am_detach(w);
    ump_win_leave(&held);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_lock();
    for (MPI_Win *p = &all_wins; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    ump_mpi_unlock();
    if (w->owns_base) free(w->base);
    if (w->shm_map) ump_win_shm_free(w);
    PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_free(&w->comm);
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

/* --- group, name, info ---------------------------------------------------------- */

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char call[] = "MPI_Win_get_group";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!group) return ump_win_error(win, MPI_ERR_ARG, call, "group is NULL");
    return PMPI_Comm_group(win->comm, group);
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char call[] = "MPI_Win_set_name";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!win_name) return ump_win_error(win, MPI_ERR_ARG, call, "win_name is NULL");
    snprintf(win->name, sizeof(win->name), "%s", win_name);
    name_comm(win);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char call[] = "MPI_Win_get_name";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!win_name || !resultlen)
        return ump_win_error(win, MPI_ERR_ARG, call, "win_name or resultlen is NULL");
    /* A window has no name until the user gives it one (MPI 3.1 6.8). */
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char call[] = "MPI_Win_set_info";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (info != MPI_INFO_NULL && !ump_mpi_info_ok(info))
        return ump_win_error(win, MPI_ERR_INFO, call, "invalid info");
    /* No hint changes how ump runs a window; they are kept for get_info. */
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL) {
        int rc = PMPI_Info_dup(info, &copy);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (win->info) PMPI_Info_free(&win->info);
    win->info = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char call[] = "MPI_Win_get_info";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!info_used) return ump_win_error(win, MPI_ERR_ARG, call, "info_used is NULL");
    if (win->info) return PMPI_Info_dup(win->info, info_used);
    return PMPI_Info_create(info_used);
}

/* --- attributes ------------------------------------------------------------------- */

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Win_get_attr";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!attribute_val || !flag)
        return ump_win_error(win, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    void **out = attribute_val;
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *out = win->base;
        break;
    case MPI_WIN_SIZE:
        *out = &win->win_size;
        break;
    case MPI_WIN_DISP_UNIT:
        *out = &win->disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        *out = &win->flavor;
        break;
    case MPI_WIN_MODEL:
        *out = &win->model;
        break;
    default:
        *flag = 0;
        return ump_win_attr_get(win, win_keyval, attribute_val, flag);
    }
    return MPI_SUCCESS;
}

/* --- error handlers ----------------------------------------------------------------- */

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    /* Same object as a communicator handler; only the argument differs,
     * and the trampoline passes the window. */
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))fn,
                                       errhandler);
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_Win_set_errhandler";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!ump_mpi_errh_ok(errhandler))
        return ump_win_error(win, MPI_ERR_ARG, call, "invalid error handler");
    ump_mpi_errh_ref(errhandler);
    ump_mpi_errh_unref(win->errh);
    win->errh = errhandler;
    mirror_errh(win);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Win_get_errhandler";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!errhandler) return ump_win_error(win, MPI_ERR_ARG, call, "errhandler is NULL");
    ump_mpi_errh_ref(win->errh);
    *errhandler = win->errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char call[] = "MPI_Win_call_errhandler";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    ump_win_error(win, errorcode, call, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}
