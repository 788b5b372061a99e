/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error classes and codes added at run time (MPI 3.1 8.5): MPI_Add_error_class,
 * MPI_Add_error_code and MPI_Add_error_string. Added values follow
 * MPI_ERR_LASTCODE, one counter for classes and codes alike, so every
 * added value is distinct and MPI_LASTUSEDCODE (ump_mpi_lastusedcode) is
 * the largest. An added class is its own class, as predefined ones are;
 * an added code names the class it was added to. Strings are copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

int ump_mpi_lastusedcode = MPI_ERR_LASTCODE;

typedef struct {
    int cls;
    char *text; /* NULL until MPI_Add_error_string */
} added_t;

static added_t *added; /* added[v - MPI_ERR_LASTCODE - 1] */
static int nadded, added_cap;

/* The entry of an added value, or NULL. Call with the lock held. */
static added_t *entry(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < nadded ? &added[i] : NULL;
}

bool ump_mpi_errcode_added(int code, int *cls, char *text, size_t len)
{
    ump_mpi_lock();
    added_t *e = entry(code);
    if (e) {
        if (cls) *cls = e->cls;
        if (text && len) snprintf(text, len, "%s", e->text ? e->text : "");
    }
    ump_mpi_unlock();
    return e != NULL;
}

/* A new value of class cls (-1: a new class, its own), or -1 when out of memory. */
static int add(int cls)
{
    int v = -1;
    ump_mpi_lock();
    if (nadded == added_cap) {
        int cap = added_cap ? added_cap * 2 : 16;
        added_t *t = realloc(added, sizeof(*t) * (size_t)cap);
        if (!t) goto out;
        added = t;
        added_cap = cap;
    }
    v = MPI_ERR_LASTCODE + 1 + nadded;
    added[nadded++] = (added_t){.cls = cls < 0 ? v : cls, .text = NULL};
    ump_mpi_lastusedcode = v;
out:
    ump_mpi_unlock();
    return v;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    static const char call[] = "MPI_Add_error_class";
    UMP_MPI_CHECK_INIT(call);
    if (!errorclass)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "errorclass pointer is NULL");
    int v = add(-1);
    if (v < 0) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    *errorclass = v;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char call[] = "MPI_Add_error_code";
    UMP_MPI_CHECK_INIT(call);
    if (!errorcode)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "errorcode pointer is NULL");
    int cls = -1;
    bool ok = (errorclass >= MPI_SUCCESS && errorclass <= MPI_ERR_LASTCODE) ||
              (ump_mpi_errcode_added(errorclass, &cls, NULL, 0) && cls == errorclass);
    if (!ok)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "%d is not an error class (predefined or added)", errorclass);
    int v = add(errorclass);
    if (v < 0) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    *errorcode = v;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char call[] = "MPI_Add_error_string";
    UMP_MPI_CHECK_INIT(call);
    if (!string) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "string is NULL");
    size_t len = strlen(string);
    if (len >= MPI_MAX_ERROR_STRING)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "string of %zu characters is longer than MPI_MAX_ERROR_STRING - 1",
                             len);
    char *copy = malloc(len + 1);
    if (!copy) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    memcpy(copy, string, len + 1);
    ump_mpi_lock();
    added_t *e = entry(errorcode);
    char *old = NULL;
    if (e) {
        old = e->text;
        e->text = copy;
    }
    ump_mpi_unlock();
    if (!e) {
        free(copy);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "error code %d was not added by MPI_Add_error_class or _code (the "
                             "strings of predefined codes cannot change)",
                             errorcode);
    }
    free(old);
    return MPI_SUCCESS;
}
