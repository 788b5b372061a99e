/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype attributes (MPI 3.1 6.7.4): MPI_Type_create_keyval / free_keyval
 * and MPI_Type_set_attr / get_attr / delete_attr, with the copy callbacks
 * run by MPI_Type_dup and the delete callbacks by MPI_Type_free, an
 * overwrite or a delete. The store is keyval_obj.c's, shared with windows;
 * errors go to the MPI_COMM_NULL handler (a datatype has none).
 */
#include <stdarg.h>
#include <stdio.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

int ump_mpi_type_null_copy_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int ump_mpi_type_dup_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int ump_mpi_type_null_delete_fn(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

static int raise_type(void *obj, int cls, const char *call, const char *fmt, ...)
{
    (void)obj;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ump_mpi_error(MPI_COMM_NULL, cls, call, "%s", msg);
}

static int call_copy(ump_mpi_kv_fn_t fn, void *obj, int k, void *extra, void *in, void *out,
                     int *flag)
{
    return ((MPI_Type_copy_attr_function *)fn)(obj, k, extra, in, out, flag);
}

static int call_del(ump_mpi_kv_fn_t fn, void *obj, int k, void *val, void *extra)
{
    return ((MPI_Type_delete_attr_function *)fn)(obj, k, val, extra);
}

static const ump_mpi_kv_kind_t type_kind = {"datatype", raise_type, call_copy, call_del};

#define CHECK_TYPE(call, dt)                                                                       \
    do {                                                                                           \
        if (!ump_dt_valid(dt))                                                                     \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call, "datatype is null or freed");  \
    } while (0)

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    static const char call[] = "MPI_Type_create_keyval";
    UMP_MPI_CHECK_INIT(call);
    return ump_mpi_kv_create(
        &type_kind, call,
        (ump_mpi_kv_fn_t)(type_copy_attr_fn ? type_copy_attr_fn : MPI_TYPE_NULL_COPY_FN),
        (ump_mpi_kv_fn_t)(type_delete_attr_fn ? type_delete_attr_fn : MPI_TYPE_NULL_DELETE_FN),
        type_keyval, extra_state);
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    static const char call[] = "MPI_Type_free_keyval";
    UMP_MPI_CHECK_INIT(call);
    return ump_mpi_kv_free(&type_kind, call, type_keyval);
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Type_set_attr";
    UMP_MPI_CHECK_INIT(call);
    CHECK_TYPE(call, datatype);
    return ump_mpi_kv_set(&type_kind, call, datatype, type_keyval, attribute_val);
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    UMP_MPI_CHECK_INIT(call);
    CHECK_TYPE(call, datatype);
    return ump_mpi_kv_get(&type_kind, call, datatype, type_keyval, attribute_val, flag);
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    UMP_MPI_CHECK_INIT(call);
    CHECK_TYPE(call, datatype);
    return ump_mpi_kv_delete(&type_kind, call, datatype, type_keyval);
}

int ump_mpi_type_attr_copy(MPI_Datatype oldt, MPI_Datatype newt)
{
    return ump_mpi_kv_copy_all(oldt, newt);
}

int ump_mpi_type_attr_delete_all(MPI_Datatype dt)
{
    return ump_mpi_kv_delete_all(dt);
}
