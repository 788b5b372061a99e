/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T control variables: ump's tunables (src/util/config.c), one per
 * UMP_* environment variable, indexed in the table's name order, their
 * values those the environment set (or the defaults).
 *
 * A write is allowed only where it is safe (MPI 3.1 14.3.6):
 *  - the collective tunables (UMP_COLL_*) are read at every call, so they
 *    may be written at any time; every rank must write the same value
 *    (scope MPI_T_SCOPE_ALL_EQ), else ranks pick different algorithms;
 *  - UMP_LOG changes the log level at once (MPI_T_SCOPE_LOCAL);
 *  - the rest are read when MPI_Init sets up the transports and the core:
 *    writable before MPI_Init, MPI_T_ERR_CVAR_SET_NOT_NOW after;
 *  - strings (interface names, transport lists) point into the
 *    environment: MPI_T_ERR_CVAR_SET_NEVER.
 */
#include <stdio.h>
#include <string.h>

#include "mpi/mpit.h"

struct ump_mpit_cvar_handle {
    uint32_t magic;
    int index;
};
enum { CVAR_MAGIC = 0x43564152 /* "CVAR" */ };

int ump_mpit_cvar_count(void)
{
    int n = 0;
    while (ump_cfg_at((size_t)n))
        n++;
    return n;
}

static bool runtime_writable(const ump_cfg_t *c)
{
    return !strncmp(c->name, "UMP_COLL_", 9) || !strcmp(c->name, "UMP_LOG");
}

/* Whether every rank must hold the same value. */
static bool all_equal(const ump_cfg_t *c)
{
    static const char *const keys[] = {"COLL_", "EAGER", "SEG_SIZE", "TRANSPORTS", "CREDITS"};
    for (size_t i = 0; i < UMP_ARRAY_SIZE(keys); i++)
        if (strstr(c->name, keys[i])) return true;
    return false;
}

static int scope_of(const ump_cfg_t *c)
{
    if (c->type == UMP_CFG_STRING) return MPI_T_SCOPE_READONLY;
    return all_equal(c) ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
}

static MPI_Datatype type_of(const ump_cfg_t *c)
{
    switch (c->type) {
    case UMP_CFG_INT:
        return MPI_COUNT; /* long long */
    case UMP_CFG_SIZE:
        return MPI_UNSIGNED_LONG_LONG;
    case UMP_CFG_DOUBLE:
        return MPI_DOUBLE;
    case UMP_CFG_STRING:
        return MPI_CHAR;
    case UMP_CFG_BOOL:
    case UMP_CFG_ENUM:
        break;
    }
    return MPI_INT;
}

static int verbosity_of(const ump_cfg_t *c)
{
    if (!strcmp(c->name, "UMP_LOG") || !strcmp(c->name, "UMP_TRANSPORTS") ||
        !strcmp(c->name, "UMP_STATS"))
        return MPI_T_VERBOSITY_USER_BASIC;
    /* Fault injection is for ump's own tests. */
    if (strstr(c->name, "FAIL") || strstr(c->name, "REL_DROP") || strstr(c->name, "REL_DUP") ||
        strstr(c->name, "REL_REORDER") || strstr(c->name, "REL_CORRUPT"))
        return MPI_T_VERBOSITY_MPIDEV_ALL;
    return MPI_T_VERBOSITY_TUNER_BASIC;
}

/* The tunable at index i, or NULL. Lock held. */
static const ump_cfg_t *cvar_at(int i)
{
    return i >= 0 ? ump_cfg_at((size_t)i) : NULL;
}

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (num_cvar) *num_cvar = ump_mpit_cvar_count();
    ump_mpit_leave();
    return num_cvar ? MPI_SUCCESS
                    : ump_mpit_err(MPI_T_ERR_INVALID, "MPI_T_cvar_get_num", "num_cvar is NULL");
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *binding, int *scope)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    const ump_cfg_t *c = cvar_at(cvar_index);
    if (!c) {
        ump_mpit_leave();
        return ump_mpit_err(MPI_T_ERR_INVALID_INDEX, "MPI_T_cvar_get_info",
                            "cvar_index %d is not in [0, %d)", cvar_index, ump_mpit_cvar_count());
    }
    ump_mpit_str(c->name, name, name_len);
    if (verbosity) *verbosity = verbosity_of(c);
    if (datatype) *datatype = type_of(c);
    if (enumtype) *enumtype = ump_mpit_enum_of(cvar_index);
    char d[512];
    snprintf(d, sizeof(d), "%s (default %s)", c->doc ? c->doc : "", c->defval);
    ump_mpit_str(d, desc, desc_len);
    if (binding) *binding = MPI_T_BIND_NO_OBJECT;
    if (scope) *scope = scope_of(c);
    ump_mpit_leave();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    static const char call[] = "MPI_T_cvar_get_index";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_T_ERR_INVALID_NAME;
    if (name && cvar_index)
        for (int i = 0; cvar_at(i); i++)
            if (!strcmp(cvar_at(i)->name, name)) {
                *cvar_index = i;
                rc = MPI_SUCCESS;
                break;
            }
    ump_mpit_leave();
    if (!name || !cvar_index)
        return ump_mpit_err(MPI_T_ERR_INVALID, call, "name or cvar_index is NULL");
    if (rc != MPI_SUCCESS) return ump_mpit_err(rc, call, "no control variable is named '%s'", name);
    return rc;
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    static const char call[] = "MPI_T_cvar_handle_alloc";
    (void)obj_handle; /* every variable is bound to no object */
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    const ump_cfg_t *c = cvar_at(cvar_index);
    ump_mpit_leave();
    if (!c)
        return ump_mpit_err(MPI_T_ERR_INVALID_INDEX, call, "cvar_index %d is not in [0, %d)",
                            cvar_index, ump_mpit_cvar_count());
    if (!handle || !count) return ump_mpit_err(MPI_T_ERR_INVALID, call, "handle or count is NULL");
    struct ump_mpit_cvar_handle *h = malloc(sizeof(*h));
    if (!h) return ump_mpit_err(MPI_T_ERR_MEMORY, call, "out of memory");
    *h = (struct ump_mpit_cvar_handle){.magic = CVAR_MAGIC, .index = cvar_index};
    /* A string is read whole: its length (with the NUL) is the count. */
    *count = c->type == UMP_CFG_STRING ? (int)strlen(c->v.s ? c->v.s : "") + 1 : 1;
    *handle = h;
    return MPI_SUCCESS;
}

static const ump_cfg_t *handle_cfg(MPI_T_cvar_handle h)
{
    return h && h->magic == CVAR_MAGIC ? cvar_at(h->index) : NULL;
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    static const char call[] = "MPI_T_cvar_handle_free";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!handle || !handle_cfg(*handle))
        return ump_mpit_err(MPI_T_ERR_INVALID_HANDLE, call, "not a control variable handle");
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    static const char call[] = "MPI_T_cvar_read";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    const ump_cfg_t *c = handle_cfg(handle);
    if (!c || !buf) {
        ump_mpit_leave();
        return ump_mpit_err(c ? MPI_T_ERR_INVALID : MPI_T_ERR_INVALID_HANDLE, call,
                            c ? "buf is NULL" : "not a control variable handle");
    }
    switch (c->type) {
    case UMP_CFG_INT:
        *(long long *)buf = c->v.i;
        break;
    case UMP_CFG_SIZE:
        *(unsigned long long *)buf = c->v.sz;
        break;
    case UMP_CFG_BOOL:
        *(int *)buf = c->v.b;
        break;
    case UMP_CFG_DOUBLE:
        *(double *)buf = c->v.d;
        break;
    case UMP_CFG_ENUM:
        *(int *)buf = c->v.e;
        break;
    case UMP_CFG_STRING:
        strcpy(buf, c->v.s ? c->v.s : "");
        break;
    }
    ump_mpit_leave();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    static const char call[] = "MPI_T_cvar_write";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    /* The tunable itself is not the MPI_T lock's: the layers read it
     * without one. Writes are whole words, made only where the readers
     * take the value afresh at each use. */
    ump_cfg_t *c = (ump_cfg_t *)handle_cfg(handle);
    if (!c) return ump_mpit_err(MPI_T_ERR_INVALID_HANDLE, call, "not a control variable handle");
    if (!buf) return ump_mpit_err(MPI_T_ERR_INVALID, call, "buf is NULL");
    if (c->type == UMP_CFG_STRING)
        return ump_mpit_err(MPI_T_ERR_CVAR_SET_NEVER, call,
                            "%s is a string set only by the "
                            "environment",
                            c->name);
    int inited = 0;
    PMPI_Initialized(&inited);
    if (inited && !runtime_writable(c))
        return ump_mpit_err(MPI_T_ERR_CVAR_SET_NOT_NOW, call,
                            "%s is read by MPI_Init; it can be written only before", c->name);
    switch (c->type) {
    case UMP_CFG_INT:
        c->v.i = *(const long long *)buf;
        break;
    case UMP_CFG_SIZE:
        c->v.sz = (size_t) * (const unsigned long long *)buf;
        break;
    case UMP_CFG_BOOL:
        c->v.b = *(const int *)buf != 0;
        break;
    case UMP_CFG_DOUBLE:
        c->v.d = *(const double *)buf;
        break;
    case UMP_CFG_ENUM: {
        int v = *(const int *)buf, n = 1;
        for (const char *p = c->choices; *p; p++)
            n += *p == '|';
        if (v < 0 || v >= n)
            return ump_mpit_err(MPI_T_ERR_INVALID, call, "%d is not an item of %s (0..%d)", v,
                                c->name, n - 1);
        c->v.e = v;
        if (!strcmp(c->name, "UMP_LOG")) ump_log_level = v;
        break;
    }
    case UMP_CFG_STRING:
        break;
    }
    return MPI_SUCCESS;
}
