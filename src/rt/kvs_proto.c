/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame encoding and decoding shared by the rt client and umprun. */
#include <stdlib.h>
#include <string.h>

#include "rt/kvs_proto.h"

void ump_kvs_buf_free(ump_kvs_buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

void ump_kvs_buf_compact(ump_kvs_buf_t *b)
{
    if (b->off == 0) return;
    memmove(b->p, b->p + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
}

bool ump_kvs_buf_reserve(ump_kvs_buf_t *b, size_t n)
{
    if (b->oom) return false;
    if (b->len + n <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void ump_kvs_put_bytes(ump_kvs_buf_t *b, const void *p, size_t n)
{
    if (n == 0 || !ump_kvs_buf_reserve(b, n)) return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void ump_kvs_put_u8(ump_kvs_buf_t *b, uint8_t v)
{
    ump_kvs_put_bytes(b, &v, 1);
}

void ump_kvs_put_u32(ump_kvs_buf_t *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    ump_kvs_put_bytes(b, x, 4);
}

size_t ump_kvs_frame_begin(ump_kvs_buf_t *b, uint8_t type)
{
    size_t start = b->len;
    ump_kvs_put_u32(b, 0);
    ump_kvs_put_u8(b, type);
    return start;
}

void ump_kvs_frame_end(ump_kvs_buf_t *b, size_t start)
{
    if (b->oom) return;
    uint32_t n = (uint32_t)(b->len - start - UMP_KVS_HDR);
    uint8_t x[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    memcpy(b->p + start, x, 4);
}

const void *ump_kvs_get_bytes(ump_kvs_rd_t *r, size_t n)
{
    if (r->bad || n > r->len - r->off) {
        r->bad = true;
        return NULL;
    }
    const void *p = r->p + r->off;
    r->off += n;
    return p;
}

uint8_t ump_kvs_get_u8(ump_kvs_rd_t *r)
{
    const uint8_t *p = ump_kvs_get_bytes(r, 1);
    return p ? *p : 0;
}

uint32_t ump_kvs_get_u32(ump_kvs_rd_t *r)
{
    const uint8_t *p = ump_kvs_get_bytes(r, 4);
    return p ? ump_kvs_load_u32(p) : 0;
}
