/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job's name service (the NAME request of kvs_proto.h, behind
 * MPI_Publish_name, Unpublish_name and Lookup_name): service -> port, kept
 * for the life of umprun. A job publishes a handful of names: a list.
 */
#include <stdlib.h>
#include <string.h>

#include "umprun.h"

struct name {
    struct name *next;
    char *service, *port;
};

static struct name *names;

static struct name **find(const char *s, size_t sl)
{
    struct name **pp = &names;
    while (*pp && !(strlen((*pp)->service) == sl && !memcmp((*pp)->service, s, sl)))
        pp = &(*pp)->next;
    return pp;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

int names_request(ump_kvs_rd_t *rd, ump_kvs_buf_t *out)
{
    uint8_t op = ump_kvs_get_u8(rd);
    uint32_t sl = ump_kvs_get_u32(rd);
    const char *s = sl <= UMP_KVS_NAME_MAX ? ump_kvs_get_bytes(rd, sl) : NULL;
    uint32_t pl = ump_kvs_get_u32(rd);
    const char *p = pl <= UMP_KVS_NAME_MAX ? ump_kvs_get_bytes(rd, pl) : NULL;
    if (rd->bad || !s || !p || !sl) return -1;
    struct name **pp = find(s, sl), *n = *pp;
    uint8_t st = UMP_KVS_NAME_OK;
    const char *val = "";
    switch (op) {
    case UMP_KVS_NAME_PUBLISH:
        if (n) {
            st = UMP_KVS_NAME_TAKEN;
            break;
        }
        n = calloc(1, sizeof(*n));
        if (!n || !(n->service = dup_n(s, sl)) || !(n->port = dup_n(p, pl))) {
            if (n) free(n->service);
            free(n);
            return -1;
        }
        n->next = names;
        names = n;
        break;
    case UMP_KVS_NAME_UNPUBLISH:
        if (!n || strlen(n->port) != pl || memcmp(n->port, p, pl)) {
            st = UMP_KVS_NAME_NONE;
            break;
        }
        *pp = n->next;
        free(n->service);
        free(n->port);
        free(n);
        break;
    case UMP_KVS_NAME_LOOKUP:
        if (!n)
            st = UMP_KVS_NAME_NONE;
        else
            val = n->port;
        break;
    default:
        return -1;
    }
    size_t f = ump_kvs_frame_begin(out, UMP_KVS_NAME_ANS);
    ump_kvs_put_u8(out, st);
    ump_kvs_put_u32(out, (uint32_t)strlen(val));
    ump_kvs_put_bytes(out, val, strlen(val));
    ump_kvs_frame_end(out, f);
    return out->oom ? -1 : 0;
}

void names_free(void)
{
    while (names) {
        struct name *n = names;
        names = n->next;
        free(n->service);
        free(n->port);
        free(n);
    }
}
