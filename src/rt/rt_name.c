/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The name service (MPI_Publish_name, Unpublish_name, Lookup_name). Under
 * umprun the launcher keeps the names, so every process of the job sees
 * them; a singleton or a PMIx rank keeps them in this process (a list: a
 * program publishes a handful).
 */
#include <stdlib.h>
#include <string.h>

#include "rt/rt_int.h"
#include "util/util.h"

struct ump_rt_name {
    struct ump_rt_name *next;
    char *service, *port;
};

static struct ump_rt_name **find(ump_rt_t *rt, const char *service)
{
    struct ump_rt_name **pp = &rt->names;
    while (*pp && strcmp((*pp)->service, service))
        pp = &(*pp)->next;
    return pp;
}

static bool valid(const char *s, size_t max)
{
    return s && *s && strlen(s) < max;
}

int ump_rt_name_publish(ump_rt_t *rt, const char *service, const char *port)
{
    if (!valid(service, UMP_RT_SERVICE_MAX) || !valid(port, UMP_RT_PORT_NAME_MAX))
        return UMP_ERR_INVALID;
    if (rt->fd >= 0) return ump_rt_umprun_name(rt, UMP_KVS_NAME_PUBLISH, service, port, NULL, 0);
    if (*find(rt, service)) return UMP_ERR_BUSY;
    struct ump_rt_name *n = calloc(1, sizeof(*n));
    if (!n || !(n->service = strdup(service)) || !(n->port = strdup(port))) {
        if (n) free(n->service);
        free(n);
        return UMP_ERR_NO_MEMORY;
    }
    n->next = rt->names;
    rt->names = n;
    return UMP_OK;
}

int ump_rt_name_unpublish(ump_rt_t *rt, const char *service, const char *port)
{
    if (!valid(service, UMP_RT_SERVICE_MAX) || !valid(port, UMP_RT_PORT_NAME_MAX))
        return UMP_ERR_INVALID;
    if (rt->fd >= 0) return ump_rt_umprun_name(rt, UMP_KVS_NAME_UNPUBLISH, service, port, NULL, 0);
    struct ump_rt_name **pp = find(rt, service), *n = *pp;
    if (!n || strcmp(n->port, port)) return UMP_ERR_INVALID;
    *pp = n->next;
    free(n->service);
    free(n->port);
    free(n);
    return UMP_OK;
}

int ump_rt_name_lookup(ump_rt_t *rt, const char *service, char *port, size_t len)
{
    if (!valid(service, UMP_RT_SERVICE_MAX) || !port || !len) return UMP_ERR_INVALID;
    if (rt->fd >= 0) return ump_rt_umprun_name(rt, UMP_KVS_NAME_LOOKUP, service, "", port, len);
    struct ump_rt_name *n = *find(rt, service);
    if (!n) return UMP_ERR_INVALID;
    if (strlen(n->port) >= len) return UMP_ERR_NO_RESOURCE;
    strcpy(port, n->port);
    return UMP_OK;
}

void ump_rt_names_fini(ump_rt_t *rt)
{
    while (rt->names) {
        struct ump_rt_name *n = rt->names;
        rt->names = n->next;
        free(n->service);
        free(n->port);
        free(n);
    }
}
