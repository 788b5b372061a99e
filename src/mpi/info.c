/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Info objects: small ordered (key, value) lists. MPI_INFO_ENV describes
 * how the process was started (MPI 3.1 9.1.2): command, argv, maxprocs,
 * host, wdir, thread_level.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

struct ump_mpi_info ump_mpi_info_null = {.magic = UMP_MPI_MAGIC_DEAD};
struct ump_mpi_info ump_mpi_info_env = {.magic = UMP_MPI_MAGIC_INFO};

bool ump_mpi_info_ok(MPI_Info info)
{
    return info && info->magic == UMP_MPI_MAGIC_INFO;
}

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->nkeys; i++)
        if (strcmp(info->keys[i], key) == 0) return i;
    return -1;
}

/* Sets key to value; UMP status. */
static int set(MPI_Info info, const char *key, const char *value)
{
    int i = find(info, key);
    char *v = strdup(value);
    if (!v) return UMP_ERR_NO_MEMORY;
    if (i >= 0) {
        free(info->values[i]);
        info->values[i] = v;
        return UMP_OK;
    }
    char *k = strdup(key);
    char **nk = realloc(info->keys, sizeof(char *) * (size_t)(info->nkeys + 1));
    if (nk) info->keys = nk;
    char **nv = nk ? realloc(info->values, sizeof(char *) * (size_t)(info->nkeys + 1)) : NULL;
    if (nv) info->values = nv;
    if (!k || !nk || !nv) {
        free(k);
        free(v);
        return UMP_ERR_NO_MEMORY;
    }
    info->keys[info->nkeys] = k;
    info->values[info->nkeys] = v;
    info->nkeys++;
    return UMP_OK;
}

static void clear(MPI_Info info)
{
    for (int i = 0; i < info->nkeys; i++) {
        free(info->keys[i]);
        free(info->values[i]);
    }
    free(info->keys);
    free(info->values);
    info->keys = info->values = NULL;
    info->nkeys = 0;
}

void ump_mpi_info_env_init(int argc, char **argv)
{
    MPI_Info e = MPI_INFO_ENV;
    clear(e);
    e->magic = UMP_MPI_MAGIC_INFO;
    char buf[4096];
    if (argv && argc > 0 && argv[0]) set(e, "command", argv[0]);
    if (argv && argc > 1) {
        size_t off = 0;
        buf[0] = 0;
        for (int i = 1; i < argc && argv[i]; i++)
            off += (size_t)snprintf(buf + UMP_MIN(off, sizeof(buf) - 1),
                                    sizeof(buf) - UMP_MIN(off, sizeof(buf) - 1), "%s%s",
                                    i > 1 ? " " : "", argv[i]);
        set(e, "argv", buf);
    }
    snprintf(buf, sizeof(buf), "%d", ump_size());
    set(e, "maxprocs", buf);
    const char *h = ump_hostname();
    if (h && *h) set(e, "host", h);
    if (getcwd(buf, sizeof(buf))) set(e, "wdir", buf);
    static const char *const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    set(e, "thread_level", levels[ump_mpi_thread_level & 3]);
}

void ump_mpi_info_env_fini(void)
{
    clear(MPI_INFO_ENV);
}

#define CHECK_INFO(call, info)                                                                     \
    do {                                                                                           \
        if (!ump_mpi_info_ok(info))                                                                \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO, call,                                \
                                 "info is MPI_INFO_NULL, invalid or freed");                       \
    } while (0)

static int check_key(const char *call, const char *key)
{
    if (!key) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_KEY, call, "key is NULL");
    size_t n = strlen(key);
    if (n == 0) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_KEY, call, "key is empty");
    if (n > MPI_MAX_INFO_KEY)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_KEY, call,
                             "key of %zu characters is longer than MPI_MAX_INFO_KEY (%d)", n,
                             MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    static const char call[] = "MPI_Info_create";
    UMP_MPI_CHECK_INIT(call);
    if (!info) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "info pointer is NULL");
    MPI_Info i = calloc(1, sizeof(*i));
    if (!i) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    i->magic = UMP_MPI_MAGIC_INFO;
    *info = i;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char call[] = "MPI_Info_set";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    int rc = check_key(call, key);
    if (rc != MPI_SUCCESS) return rc;
    if (!value) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, call, "value is NULL");
    size_t n = strlen(value);
    if (n == 0 || n > MPI_MAX_INFO_VAL)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, call,
                             "value of %zu characters is empty or longer than MPI_MAX_INFO_VAL "
                             "(%d)",
                             n, MPI_MAX_INFO_VAL);
    if (set(info, key, value) != UMP_OK)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char call[] = "MPI_Info_get";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    int rc = check_key(call, key);
    if (rc != MPI_SUCCESS) return rc;
    if (valuelen < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "valuelen %d is negative", valuelen);
    if (!value || !flag)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "value or flag is NULL");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* value holds valuelen characters plus the terminating null (MPI 3.1 9.2). */
        size_t n = UMP_MIN(strlen(info->values[i]), (size_t)valuelen);
        memcpy(value, info->values[i], n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char call[] = "MPI_Info_get_valuelen";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    int rc = check_key(call, key);
    if (rc != MPI_SUCCESS) return rc;
    if (!valuelen || !flag)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "valuelen or flag is NULL");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0) *valuelen = (int)strlen(info->values[i]);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char call[] = "MPI_Info_get_nkeys";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    if (!nkeys) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "nkeys is NULL");
    *nkeys = info->nkeys;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char call[] = "MPI_Info_get_nthkey";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    if (!key) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "key is NULL");
    if (n < 0 || n >= info->nkeys)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n = %d is out of range [0, %d)", n,
                             info->nkeys);
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", info->keys[n]);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char call[] = "MPI_Info_dup";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    if (!newinfo) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newinfo is NULL");
    MPI_Info d = calloc(1, sizeof(*d));
    if (!d) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    d->magic = UMP_MPI_MAGIC_INFO;
    for (int i = 0; i < info->nkeys; i++)
        if (set(d, info->keys[i], info->values[i]) != UMP_OK) {
            clear(d);
            free(d);
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
        }
    *newinfo = d;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char call[] = "MPI_Info_delete";
    UMP_MPI_CHECK_INIT(call);
    CHECK_INFO(call, info);
    int rc = check_key(call, key);
    if (rc != MPI_SUCCESS) return rc;
    int i = find(info, key);
    if (i < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO_NOKEY, call, "key \"%s\" is not set", key);
    free(info->keys[i]);
    free(info->values[i]);
    /* Keep the order of the remaining keys for get_nthkey. */
    memmove(&info->keys[i], &info->keys[i + 1], sizeof(char *) * (size_t)(info->nkeys - i - 1));
    memmove(&info->values[i], &info->values[i + 1], sizeof(char *) * (size_t)(info->nkeys - i - 1));
    info->nkeys--;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    static const char call[] = "MPI_Info_free";
    UMP_MPI_CHECK_INIT(call);
    if (!info) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "info pointer is NULL");
    CHECK_INFO(call, *info);
    if (*info == MPI_INFO_ENV)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_INFO, call, "MPI_INFO_ENV cannot be freed");
    clear(*info);
    (*info)->magic = UMP_MPI_MAGIC_DEAD;
    free(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
