/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registration cache over one transport: regions in an array sorted by
 * start address (interval lookup by binary search), a reference count per
 * region, an LRU list of the unused ones, and a hash from the transport's
 * handle back to its region for dereg. See mem.h for the contract.
 *
 * Regions may overlap (a request that a region in use covers only in part
 * gets a new one beside it), so a lookup walks back from the last region
 * starting at or below the request, as far as the longest region could
 * reach. The array stays short (UMP_MEM_CACHE_MAX_ENTRIES), which keeps
 * its insertions cheap next to a registration.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>
#include <uthash.h>

#include "mem/mem.h"
#include "mem/mem_int.h"
#include "util/util.h"

typedef struct region {
    uintptr_t start, end; /* page-aligned */
    ump_xp_mr_t *mr;      /* the transport's registration */
    int refs;
    bool indexed;            /* in the lookup array (else dropped, or never cached) */
    TAILQ_ENTRY(region) lru; /* unused and indexed: on the LRU list, oldest first */
    UT_hash_handle hh;       /* by mr */
} region_t;

struct ump_mem_cache {
    ump_xp_t *xp;
    ump_mem_params_t p;
    region_t **idx; /* indexed regions by start */
    size_t n, cap;
    size_t max_len;  /* longest indexed region (bounds the lookup's walk back) */
    size_t bytes;    /* bytes of the indexed regions */
    size_t in_use;   /* indexed regions with references */
    region_t *by_mr; /* every region with a live registration */
    TAILQ_HEAD(, region) lru;
    ump_mem_stats_t st;
    ump_mem_cache_t *next; /* the monitored caches */
};

static ump_mem_cache_t *monitored; /* caches the monitor's ranges apply to */
static uintptr_t page_size;

/* First index whose region starts above a. */
static size_t upper(const ump_mem_cache_t *c, uintptr_t a)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->idx[mid]->start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int index_add(ump_mem_cache_t *c, region_t *r)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        region_t **idx = realloc(c->idx, cap * sizeof(*idx));
        if (!idx) return UMP_ERR_NO_MEMORY;
        c->idx = idx;
        c->cap = cap;
    }
    size_t i = upper(c, r->start);
    memmove(&c->idx[i + 1], &c->idx[i], (c->n - i) * sizeof(*c->idx));
    c->idx[i] = r;
    c->n++;
    r->indexed = true;
    c->bytes += r->end - r->start;
    if (r->end - r->start > c->max_len) c->max_len = r->end - r->start;
    if (r->refs) c->in_use++;
    return UMP_OK;
}

static void index_remove(ump_mem_cache_t *c, region_t *r)
{
    size_t i = upper(c, r->start);
    while (i > 0 && c->idx[i - 1] != r)
        i--;
    if (i == 0) return; /* not indexed */
    i--;
    memmove(&c->idx[i], &c->idx[i + 1], (c->n - i - 1) * sizeof(*c->idx));
    c->n--;
    r->indexed = false;
    c->bytes -= r->end - r->start;
    if (r->refs) c->in_use--;
    if (r->end - r->start == c->max_len) {
        c->max_len = 0;
        for (size_t j = 0; j < c->n; j++)
            if (c->idx[j]->end - c->idx[j]->start > c->max_len)
                c->max_len = c->idx[j]->end - c->idx[j]->start;
    }
}

/* Deregisters and frees a region nobody uses. */
static void region_free(ump_mem_cache_t *c, region_t *r)
{
    if (r->indexed) {
        index_remove(c, r);
        TAILQ_REMOVE(&c->lru, r, lru);
    }
    HASH_DEL(c->by_mr, r);
    c->xp->ops->mem_dereg(r->mr);
    free(r);
}

/* Drops r from the lookup: freed now when unused, at its last dereg else. */
static void region_drop(ump_mem_cache_t *c, region_t *r)
{
    if (r->refs == 0) {
        region_free(c, r);
        return;
    }
    index_remove(c, r);
}

int ump_mem_cache_create(ump_xp_t *xp, const ump_mem_params_t *p, ump_mem_cache_t **out)
{
    if (!xp || !p || !xp->ops->mem_reg || !xp->ops->mem_dereg) return UMP_ERR_INVALID;
    if (p->monitor && ump_mem_monitor_start() != UMP_OK) return UMP_ERR_UNSUPPORTED;
    ump_mem_cache_t *c = calloc(1, sizeof(*c));
    if (!c) return UMP_ERR_NO_MEMORY;
    if (!page_size) page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    c->xp = xp;
    c->p = *p;
    if (c->p.max_entries < 1) c->p.max_entries = 1;
    TAILQ_INIT(&c->lru);
    if (p->monitor) {
        c->next = monitored;
        monitored = c;
    }
    *out = c;
    return UMP_OK;
}

void ump_mem_cache_destroy(ump_mem_cache_t *c)
{
    if (!c) return;
    region_t *r, *tmp;
    HASH_ITER(hh, c->by_mr, r, tmp)
    {
        if (r->refs)
            ump_debug("registration cache: %#lx+%zu still in use (%d) at its end",
                      (unsigned long)r->start, (size_t)(r->end - r->start), r->refs);
        if (r->indexed && r->refs) index_remove(c, r);
        r->refs = 0;
        region_free(c, r);
    }
    for (ump_mem_cache_t **pp = &monitored; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    bool last = c->p.monitor && !monitored;
    free(c->idx);
    free(c);
    if (last) ump_mem_monitor_stop();
}

void ump_mem_cache_invalidate(ump_mem_cache_t *c, uintptr_t start, uintptr_t end)
{
    if (start >= end) return;
    /* Regions overlapping [start, end) start below end and, being no
     * longer than max_len, at or above start - max_len. */
    size_t i = upper(c, end - 1);
    while (i > 0) {
        region_t *r = c->idx[--i];
        if (r->start + c->max_len < start) break;
        if (r->end > start && r->start < end) {
            c->st.invalidations++;
            region_drop(c, r); /* shifts only entries at or above i */
        }
    }
}

static void invalidate_all(void *arg, uintptr_t start, uintptr_t end)
{
    (void)arg;
    for (ump_mem_cache_t *c = monitored; c; c = c->next)
        ump_mem_cache_invalidate(c, start, end);
}

/* Applies what the monitor saw since the last lookup, to every cache. */
static void sync_monitor(void)
{
    if (!monitored) return;
    if (ump_mem_monitor_drain(invalidate_all, NULL)) return;
    /* Ranges were lost: nothing cached can be trusted. */
    for (ump_mem_cache_t *c = monitored; c; c = c->next) {
        while (c->n) {
            c->st.invalidations++;
            region_drop(c, c->idx[c->n - 1]);
        }
    }
}

static region_t *lookup(ump_mem_cache_t *c, uintptr_t a, uintptr_t e)
{
    size_t i = upper(c, a);
    while (i > 0) {
        region_t *r = c->idx[--i];
        if (r->start + c->max_len < e) break;
        if (r->end >= e) return r;
    }
    return NULL;
}

/* Evicts unused regions, oldest first, until `entries` more regions and
 * `bytes` more bytes fit. Returns whether they do. */
static bool make_room(ump_mem_cache_t *c, size_t entries, size_t bytes)
{
    while (c->n + entries > c->p.max_entries || c->bytes + bytes > c->p.max_bytes) {
        region_t *r = TAILQ_FIRST(&c->lru);
        if (!r) return false;
        c->st.evictions++;
        region_free(c, r);
    }
    return true;
}

/* Registers [start, end); on a shortage of locked memory, frees every
 * unused region and tries once more. */
static int do_reg(ump_mem_cache_t *c, uintptr_t start, uintptr_t end, ump_xp_mr_t **mr)
{
    int rc = c->xp->ops->mem_reg(c->xp, (void *)start, end - start, mr);
    if (rc == UMP_ERR_NO_MEMORY && !TAILQ_EMPTY(&c->lru)) {
        while (!TAILQ_EMPTY(&c->lru)) {
            c->st.evictions++;
            region_free(c, TAILQ_FIRST(&c->lru));
        }
        rc = c->xp->ops->mem_reg(c->xp, (void *)start, end - start, mr);
    }
    return rc;
}

/* Merges the unused regions that overlap or touch [*start, *end) into it
 * (they are deregistered), as long as the result stays within max_bytes:
 * a buffer that grows, or neighbours sent one after another, then end up
 * in one region. */
static void merge(ump_mem_cache_t *c, uintptr_t *start, uintptr_t *end)
{
    size_t i = upper(c, *end);
    while (i > 0) {
        region_t *r = c->idx[--i];
        if (r->start + c->max_len < *start) break;
        if (r->refs || r->end < *start || r->start > *end) continue;
        uintptr_t s = r->start < *start ? r->start : *start;
        uintptr_t e = r->end > *end ? r->end : *end;
        if (e - s > c->p.max_bytes) continue;
        *start = s;
        *end = e;
        c->st.merged++;
        region_free(c, r);
        i = upper(c, *end); /* the array moved and the range grew */
    }
}

int ump_mem_cache_reg(ump_mem_cache_t *c, void *addr, size_t len, ump_xp_mr_t **mr)
{
    if (!c || !mr || (!addr && len)) return UMP_ERR_INVALID;
    if (c->p.monitor) sync_monitor();
    uintptr_t a = (uintptr_t)addr, e = a + (len ? len : 1);
    region_t *r = lookup(c, a, e);
    if (r) {
        if (r->refs++ == 0) {
            TAILQ_REMOVE(&c->lru, r, lru);
            c->in_use++;
        }
        c->st.hits++;
        *mr = r->mr;
        return UMP_OK;
    }
    c->st.misses++;
    uintptr_t start = a & ~(page_size - 1), end = UMP_ALIGN_UP(e, page_size);
    merge(c, &start, &end);
    /* A region larger than the whole cache is registered but not kept. */
    bool cache = end - start <= c->p.max_bytes && make_room(c, 1, end - start);
    r = calloc(1, sizeof(*r));
    if (!r) return UMP_ERR_NO_MEMORY;
    int rc = do_reg(c, start, end, &r->mr);
    if (rc != UMP_OK && (start != (a & ~(page_size - 1)) || end != UMP_ALIGN_UP(e, page_size))) {
        /* The merged range may span memory the fabric refuses: try the
         * request's own pages. */
        start = a & ~(page_size - 1);
        end = UMP_ALIGN_UP(e, page_size);
        rc = do_reg(c, start, end, &r->mr);
    }
    if (rc != UMP_OK) {
        free(r);
        return rc;
    }
    r->start = start;
    r->end = end;
    r->refs = 1;
    HASH_ADD_PTR(c->by_mr, mr, r);
    if (cache && c->p.monitor && ump_mem_monitor_watch(start, end - start) != UMP_OK) cache = false;
    if (cache && index_add(c, r) != UMP_OK) cache = false;
    if (!cache) c->st.uncached++;
    *mr = r->mr;
    return UMP_OK;
}

void ump_mem_cache_dereg(ump_mem_cache_t *c, ump_xp_mr_t *mr)
{
    if (!c || !mr) return;
    region_t *r;
    HASH_FIND_PTR(c->by_mr, &mr, r);
    if (!r || r->refs <= 0) {
        ump_error("registration cache: release of a registration it did not make (%p)", (void *)mr);
        return;
    }
    if (--r->refs > 0) return;
    if (!r->indexed) {
        region_free(c, r); /* uncached, or invalidated while in use */
        return;
    }
    c->in_use--;
    TAILQ_INSERT_TAIL(&c->lru, r, lru);
}

void ump_mem_cache_stats(const ump_mem_cache_t *c, ump_mem_stats_t *s)
{
    *s = c->st;
    s->entries = c->n;
    s->bytes = c->bytes;
    s->in_use = c->in_use;
    s->cached = true;
}
