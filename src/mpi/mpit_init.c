/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T_init_thread / MPI_T_finalize (nesting counted: the interface
 * stays usable until the last finalize), the MPI_T lock, the string rule
 * shared by every *_get_info, and the enumerations of enum tunables.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpi/mpit.h"

static pthread_mutex_t mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static int nest; /* MPI_T_init_thread calls not yet finalized */

/* One enumeration per enum tunable; items are its choices in order and
 * their values their indices (what the variable holds). */
struct ump_mpit_enum {
    const ump_cfg_t *cfg;
    int nitems;
};
static struct ump_mpit_enum *enums; /* by cvar index; nitems 0 for non-enums */
static int nenums;

int ump_mpit_err(int code, const char *call, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ump_info("%s: %s", call, msg);
    return code;
}

int ump_mpit_enter(void)
{
    pthread_mutex_lock(&mpit_lock);
    if (nest > 0) return MPI_SUCCESS;
    pthread_mutex_unlock(&mpit_lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

void ump_mpit_leave(void)
{
    pthread_mutex_unlock(&mpit_lock);
}

void ump_mpit_str(const char *src, char *name, int *len)
{
    if (!len) return;
    int need = (int)strlen(src) + 1;
    if (!name || *len <= 0) {
        *len = need;
        return;
    }
    int n = need <= *len ? need - 1 : *len - 1;
    memcpy(name, src, (size_t)n);
    name[n] = '\0';
    *len = n + 1;
}

static int count_choices(const char *choices)
{
    int n = 1;
    for (const char *p = choices; *p; p++)
        n += *p == '|';
    return n;
}

/* Lock held. */
static int build_enums(void)
{
    if (enums) return MPI_SUCCESS;
    int n = ump_mpit_cvar_count();
    enums = calloc((size_t)(n ? n : 1), sizeof(*enums));
    if (!enums) return MPI_T_ERR_MEMORY;
    for (int i = 0; i < n; i++) {
        const ump_cfg_t *c = ump_cfg_at((size_t)i);
        enums[i].cfg = c;
        if (c->type == UMP_CFG_ENUM && c->choices) enums[i].nitems = count_choices(c->choices);
    }
    nenums = n;
    return MPI_SUCCESS;
}

MPI_T_enum ump_mpit_enum_of(int cvar_index)
{
    if (!enums || cvar_index < 0 || cvar_index >= nenums || !enums[cvar_index].nitems)
        return MPI_T_ENUM_NULL;
    return &enums[cvar_index];
}

static bool enum_ok(MPI_T_enum e)
{
    return e && enums && e >= enums && e < enums + nenums && e->nitems > 0;
}

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int *provided)
{
    static const char call[] = "MPI_T_init_thread";
    if (!provided) return ump_mpit_err(MPI_T_ERR_INVALID, call, "provided is NULL");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return ump_mpit_err(MPI_T_ERR_INVALID, call, "required %d is not a thread level", required);
    ump_cfg_load(false);
    pthread_mutex_lock(&mpit_lock);
    int rc = build_enums();
    if (rc == MPI_SUCCESS) nest++;
    pthread_mutex_unlock(&mpit_lock);
    /* Every MPI_T call takes the lock, so any level is safe. */
    if (rc == MPI_SUCCESS) *provided = required;
    return rc;
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS)
        return ump_mpit_err(rc, "MPI_T_finalize", "MPI_T_init_thread was not called");
    nest--;
    ump_mpit_leave();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    static const char call[] = "MPI_T_enum_get_info";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!enum_ok(enumtype)) {
        ump_mpit_leave();
        return ump_mpit_err(MPI_T_ERR_INVALID_HANDLE, call, "not an enumeration handle");
    }
    if (num) *num = enumtype->nitems;
    ump_mpit_str(enumtype->cfg->name, name, name_len);
    ump_mpit_leave();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    static const char call[] = "MPI_T_enum_get_item";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!enum_ok(enumtype)) {
        ump_mpit_leave();
        return ump_mpit_err(MPI_T_ERR_INVALID_HANDLE, call, "not an enumeration handle");
    }
    if (index < 0 || index >= enumtype->nitems) {
        int n = enumtype->nitems;
        ump_mpit_leave();
        return ump_mpit_err(MPI_T_ERR_INVALID_ITEM, call, "item %d is not in [0, %d)", index, n);
    }
    const char *p = enumtype->cfg->choices;
    for (int i = 0; i < index; i++)
        p = strchr(p, '|') + 1;
    char item[64];
    snprintf(item, sizeof(item), "%.*s", (int)strcspn(p, "|"), p);
    if (value) *value = index;
    ump_mpit_str(item, name, name_len);
    ump_mpit_leave();
    return MPI_SUCCESS;
}
