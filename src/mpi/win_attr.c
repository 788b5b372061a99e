/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window attributes (MPI 3.1 6.7.3): MPI_Win_create_keyval / free_keyval
 * and MPI_Win_set_attr / delete_attr, and MPI_Win_get_attr of user keys
 * (win.c answers the predefined MPI_WIN_* keys). The store is
 * keyval_obj.c's, shared with datatypes; the delete callbacks run at an
 * overwrite, a delete and MPI_Win_free (win.c). Windows are never
 * duplicated, so copy callbacks are kept but never called.
 */
#include <stdarg.h>
#include <stdio.h>

#include "mpi/mpi_impl.h"
#include "mpi/win.h"
#include "util/util.h"

int ump_mpi_win_null_copy_fn(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int ump_mpi_win_dup_fn(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int ump_mpi_win_null_delete_fn(MPI_Win w, int k, void *val, void *extra)
{
    (void)w, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

static int raise_win(void *obj, int cls, const char *call, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!obj) return ump_mpi_error(MPI_COMM_NULL, cls, call, "%s", msg);
    return ump_win_error(obj, cls, call, "%s", msg);
}

static int call_copy(ump_mpi_kv_fn_t fn, void *obj, int k, void *extra, void *in, void *out,
                     int *flag)
{
    return ((MPI_Win_copy_attr_function *)fn)(obj, k, extra, in, out, flag);
}

static int call_del(ump_mpi_kv_fn_t fn, void *obj, int k, void *val, void *extra)
{
    return ((MPI_Win_delete_attr_function *)fn)(obj, k, val, extra);
}

static const ump_mpi_kv_kind_t win_kind = {"window", raise_win, call_copy, call_del};

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    static const char call[] = "MPI_Win_create_keyval";
    UMP_MPI_CHECK_INIT(call);
    return ump_mpi_kv_create(
        &win_kind, call,
        (ump_mpi_kv_fn_t)(win_copy_attr_fn ? win_copy_attr_fn : MPI_WIN_NULL_COPY_FN),
        (ump_mpi_kv_fn_t)(win_delete_attr_fn ? win_delete_attr_fn : MPI_WIN_NULL_DELETE_FN),
        win_keyval, extra_state);
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *win_keyval)
{
    static const char call[] = "MPI_Win_free_keyval";
    UMP_MPI_CHECK_INIT(call);
    return ump_mpi_kv_free(&win_kind, call, win_keyval);
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Win_set_attr";
    UMP_WIN_CHECK(call, win);
    return ump_mpi_kv_set(&win_kind, call, win, win_keyval, attribute_val);
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char call[] = "MPI_Win_delete_attr";
    UMP_WIN_CHECK(call, win);
    return ump_mpi_kv_delete(&win_kind, call, win, win_keyval);
}

int ump_win_attr_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    return ump_mpi_kv_get(&win_kind, "MPI_Win_get_attr", win, win_keyval, attribute_val, flag);
}

int ump_win_attr_delete_all(MPI_Win win)
{
    return ump_mpi_kv_delete_all(win);
}
