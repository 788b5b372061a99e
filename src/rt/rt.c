/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runtime front: picks the backend from the environment. With UMP_JOB_KVS
 * set the rank talks to umprun (rt_umprun.c); without it, the process is a
 * one-rank "singleton" job whose key-value store is purely local.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt/rt_int.h"
#include "util/util.h"

static int singleton_init(ump_rt_t *rt)
{
    rt->info.rank = 0;
    rt->info.size = 1;
    rt->info.local_rank = 0;
    rt->info.local_size = 1;
    rt->info.node_id = 0;
    rt->info.num_nodes = 1;
    unsigned char id[8];
    if (ump_random_bytes(id, sizeof(id)) || ump_random_bytes(rt->info.secret, UMP_RT_SECRET_LEN)) {
        ump_error("rt: cannot draw random bytes for the job id: %m");
        return UMP_ERR_BOOTSTRAP;
    }
    ump_hex_encode(id, sizeof(id), rt->info.job_id);
    gethostname(rt->info.hostname, sizeof(rt->info.hostname) - 1);
    rt->info.backend = "singleton";
    return UMP_OK;
}

int ump_rt_init(ump_rt_t **out)
{
    ump_rt_t *rt = calloc(1, sizeof(*rt));
    if (!rt) return UMP_ERR_NO_MEMORY;
    rt->fd = -1;
    const char *kvs = getenv("UMP_JOB_KVS");
    int rc = kvs && *kvs ? ump_rt_umprun_init(rt) : singleton_init(rt);
    if (rc) {
        ump_rt_store_fini(&rt->store);
        ump_kvs_buf_free(&rt->pending);
        free(rt);
        return rc;
    }
    ump_log_set_rank(rt->info.rank);
    *out = rt;
    return UMP_OK;
}

void ump_rt_fini(ump_rt_t *rt)
{
    if (!rt) return;
    if (rt->fd >= 0) ump_rt_umprun_fini(rt);
    ump_rt_store_fini(&rt->store);
    ump_kvs_buf_free(&rt->pending);
    free(rt->node_of);
    free(rt);
}

const ump_rt_info_t *ump_rt_info(const ump_rt_t *rt)
{
    return &rt->info;
}

int ump_rt_local_addr(const ump_rt_t *rt, char *buf, size_t len)
{
    const char *ip = "127.0.0.1";
    char tmp[INET6_ADDRSTRLEN];
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (rt->fd >= 0 && getsockname(rt->fd, (struct sockaddr *)&ss, &sl) == 0) {
        const void *a = NULL;
        if (ss.ss_family == AF_INET)
            a = &((struct sockaddr_in *)&ss)->sin_addr;
        else if (ss.ss_family == AF_INET6)
            a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
        if (a && inet_ntop(ss.ss_family, a, tmp, sizeof(tmp))) ip = tmp;
    }
    if (strlen(ip) >= len) return UMP_ERR_NO_RESOURCE;
    strcpy(buf, ip);
    return UMP_OK;
}

int ump_rt_put(ump_rt_t *rt, const char *key, const void *val, size_t len)
{
    size_t klen = key ? strlen(key) : 0;
    if (klen == 0 || klen >= UMP_RT_KEY_MAX || len > UMP_RT_VAL_MAX || (len && !val))
        return UMP_ERR_INVALID;
    /* Our own puts are readable at once; peers see them after the fence. */
    int rc = ump_rt_store_set(&rt->store, rt->info.rank, key, klen, val, len);
    if (rc || rt->fd < 0) return rc;
    ump_kvs_put_u8(&rt->pending, (uint8_t)klen);
    ump_kvs_put_bytes(&rt->pending, key, klen);
    ump_kvs_put_u32(&rt->pending, (uint32_t)len);
    ump_kvs_put_bytes(&rt->pending, val, len);
    if (rt->pending.oom) return UMP_ERR_NO_MEMORY;
    rt->npending++;
    return UMP_OK;
}

int ump_rt_fence(ump_rt_t *rt)
{
    return rt->fd >= 0 ? ump_rt_umprun_fence(rt) : UMP_OK;
}

int ump_rt_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len)
{
    if (!key || rank < 0 || rank >= rt->info.size) return UMP_ERR_INVALID;
    const ump_rt_kv_t *kv = ump_rt_store_find(&rt->store, rank, key);
    if (!kv) return UMP_ERR_INVALID;
    if (kv->len > *len) {
        *len = kv->len;
        return UMP_ERR_NO_RESOURCE;
    }
    if (kv->len) memcpy(val, kv->val, kv->len);
    *len = kv->len;
    return UMP_OK;
}

int ump_rt_node_of(const ump_rt_t *rt, int rank)
{
    if (rank < 0 || rank >= rt->info.size) return UMP_ERR_RANK;
    if (!rt->node_of) /* singleton, or before the first fence */
        return rank == rt->info.rank ? rt->info.node_id : 0;
    return rt->node_of[rank];
}

void ump_rt_abort(ump_rt_t *rt, int code, const char *msg)
{
    if (rt && rt->fd >= 0) ump_rt_umprun_abort(rt, code, msg);
    fprintf(stderr, "ump: rank %d aborted the job (code %d): %s\n", rt ? rt->info.rank : 0, code,
            msg ? msg : "");
    _exit(code ? code : 1);
}
