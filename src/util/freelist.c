/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* A chunk starts with a link to the next chunk, then the objects. */
#define CHUNK_HEAD 16

void ump_freelist_init(ump_freelist_t *fl, size_t obj_size, size_t per_chunk)
{
    memset(fl, 0, sizeof(*fl));
    fl->obj_size = UMP_ALIGN_UP(UMP_MAX(obj_size, sizeof(void *)), 16);
    fl->per_chunk = per_chunk ? per_chunk : 64;
}

void ump_freelist_destroy(ump_freelist_t *fl)
{
    void *c = fl->chunks;
    while (c) {
        void *next = *(void **)c;
        free(c);
        c = next;
    }
    memset(fl, 0, sizeof(*fl));
}

int ump_freelist_grow(ump_freelist_t *fl)
{
    char *chunk = malloc(CHUNK_HEAD + fl->obj_size * fl->per_chunk);
    if (!chunk) return UMP_ERR_NO_MEMORY;
    *(void **)chunk = fl->chunks;
    fl->chunks = chunk;
    /* Thread the new objects onto the free list, first object first. */
    for (size_t i = fl->per_chunk; i-- > 0;) {
        void *obj = chunk + CHUNK_HEAD + i * fl->obj_size;
        *(void **)obj = fl->free;
        fl->free = obj;
    }
    fl->allocated += fl->per_chunk;
    return UMP_OK;
}

void *ump_freelist_get(ump_freelist_t *fl)
{
    void *obj = ump_freelist_take(fl);
    if (obj) memset(obj, 0, fl->obj_size);
    return obj;
}
