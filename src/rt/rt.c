/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runtime front: picks the backend from the environment. Only the singleton
 * backend lives here for now: a process started without a launcher is a
 * one-rank job whose key-value store is local.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt.h"
#include "util/util.h"

struct kv {
    struct kv *next;
    int rank;
    char key[UMP_RT_KEY_MAX];
    size_t len;
    unsigned char val[];
};

struct ump_rt {
    ump_rt_info_t info;
    struct kv *kvs;
};

int ump_rt_init(ump_rt_t **out)
{
    ump_rt_t *rt = calloc(1, sizeof(*rt));
    if (!rt) return UMP_ERR_NO_MEMORY;
    rt->info.rank = 0;
    rt->info.size = 1;
    rt->info.local_rank = 0;
    rt->info.local_size = 1;
    rt->info.node_id = 0;
    rt->info.num_nodes = 1;
    unsigned char id[8];
    if (ump_random_bytes(id, sizeof(id)) || ump_random_bytes(rt->info.secret, UMP_RT_SECRET_LEN)) {
        free(rt);
        return UMP_ERR_BOOTSTRAP;
    }
    ump_hex_encode(id, sizeof(id), rt->info.job_id);
    gethostname(rt->info.hostname, sizeof(rt->info.hostname) - 1);
    rt->info.backend = "singleton";
    *out = rt;
    return UMP_OK;
}

void ump_rt_fini(ump_rt_t *rt)
{
    if (!rt) return;
    while (rt->kvs) {
        struct kv *n = rt->kvs->next;
        free(rt->kvs);
        rt->kvs = n;
    }
    free(rt);
}

const ump_rt_info_t *ump_rt_info(const ump_rt_t *rt)
{
    return &rt->info;
}

int ump_rt_put(ump_rt_t *rt, const char *key, const void *val, size_t len)
{
    if (strlen(key) >= UMP_RT_KEY_MAX || len > UMP_RT_VAL_MAX) return UMP_ERR_INVALID;
    struct kv *kv = malloc(sizeof(*kv) + len);
    if (!kv) return UMP_ERR_NO_MEMORY;
    kv->rank = rt->info.rank;
    strcpy(kv->key, key);
    kv->len = len;
    memcpy(kv->val, val, len);
    kv->next = rt->kvs;
    rt->kvs = kv;
    return UMP_OK;
}

int ump_rt_fence(ump_rt_t *rt)
{
    return UMP_OK;
}

int ump_rt_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len)
{
    for (struct kv *kv = rt->kvs; kv; kv = kv->next) {
        if (kv->rank != rank || strcmp(kv->key, key)) continue;
        if (kv->len > *len) {
            *len = kv->len;
            return UMP_ERR_NO_RESOURCE;
        }
        memcpy(val, kv->val, kv->len);
        *len = kv->len;
        return UMP_OK;
    }
    return UMP_ERR_INVALID;
}

int ump_rt_node_of(const ump_rt_t *rt, int rank)
{
    return 0;
}

void ump_rt_abort(ump_rt_t *rt, int code, const char *msg)
{
    fprintf(stderr, "ump: rank 0 aborted the job (code %d): %s\n", code, msg ? msg : "");
    _exit(code ? code : 1);
}
