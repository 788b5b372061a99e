/* SPDX-License-Identifier: BSD-3-Clause */
/* The rank-local key-value table that fences fill and ump_rt_get reads. */
#include <stdlib.h>
#include <string.h>

#include "rt/rt_int.h"
#include "util/util.h"

static size_t hash(int rank, const char *key, size_t klen)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)rank;
    for (size_t i = 0; i < klen; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static int grow(ump_rt_store_t *s)
{
    size_t n = s->nbuckets ? s->nbuckets * 2 : 64;
    ump_rt_kv_t **b = calloc(n, sizeof(*b));
    if (!b) return UMP_ERR_NO_MEMORY;
    for (size_t i = 0; i < s->nbuckets; i++) {
        ump_rt_kv_t *kv = s->buckets[i];
        while (kv) {
            ump_rt_kv_t *next = kv->next;
            size_t h = hash(kv->rank, kv->key, strlen(kv->key)) & (n - 1);
            kv->next = b[h];
            b[h] = kv;
            kv = next;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nbuckets = n;
    return UMP_OK;
}

int ump_rt_store_set(ump_rt_store_t *s, int rank, const char *key, size_t klen, const void *val,
                     size_t len)
{
    if (klen == 0 || klen >= UMP_RT_KEY_MAX || len > UMP_RT_VAL_MAX) return UMP_ERR_INVALID;
    if (s->count >= s->nbuckets && grow(s)) return UMP_ERR_NO_MEMORY;
    size_t h = hash(rank, key, klen) & (s->nbuckets - 1);
    ump_rt_kv_t **pp = &s->buckets[h];
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->rank == rank && strlen((*pp)->key) == klen && !memcmp((*pp)->key, key, klen))
            break;
    }
    ump_rt_kv_t *kv = malloc(sizeof(*kv) + len);
    if (!kv) return UMP_ERR_NO_MEMORY;
    kv->rank = rank;
    memcpy(kv->key, key, klen);
    kv->key[klen] = '\0';
    kv->len = len;
    if (len) memcpy(kv->val, val, len);
    if (*pp) { /* replace: a later put of the same key wins */
        kv->next = (*pp)->next;
        free(*pp);
    } else {
        kv->next = NULL;
        s->count++;
    }
    *pp = kv;
    return UMP_OK;
}

const ump_rt_kv_t *ump_rt_store_find(const ump_rt_store_t *s, int rank, const char *key)
{
    if (!s->nbuckets) return NULL;
    size_t h = hash(rank, key, strlen(key)) & (s->nbuckets - 1);
    for (const ump_rt_kv_t *kv = s->buckets[h]; kv; kv = kv->next) {
        if (kv->rank == rank && !strcmp(kv->key, key)) return kv;
    }
    return NULL;
}

void ump_rt_store_each(const ump_rt_store_t *s, int rank, void (*fn)(void *, const ump_rt_kv_t *),
                       void *arg)
{
    for (size_t i = 0; i < s->nbuckets; i++)
        for (const ump_rt_kv_t *kv = s->buckets[i]; kv; kv = kv->next)
            if (kv->rank == rank) fn(arg, kv);
}

void ump_rt_store_fini(ump_rt_store_t *s)
{
    for (size_t i = 0; i < s->nbuckets; i++) {
        ump_rt_kv_t *kv = s->buckets[i];
        while (kv) {
            ump_rt_kv_t *next = kv->next;
            free(kv);
            kv = next;
        }
    }
    free(s->buckets);
    memset(s, 0, sizeof(*s));
}
