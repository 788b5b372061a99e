/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registration cache's front for the core: one cache per transport,
 * made on the first registration, its tunables, and its counters at
 * finalize (UMP_STATS).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mem/mem.h"
#include "mem/mem_int.h"
#include "util/util.h"

UMP_CFG(mem_cache_on, "UMP_MEM_CACHE", UMP_CFG_BOOL, "1",
        "keep memory registrations for reuse (needs userfaultfd to see memory unmapped; "
        "without it, or off, every rendezvous registers and deregisters)");
UMP_CFG(mem_cache_entries, "UMP_MEM_CACHE_MAX_ENTRIES", UMP_CFG_SIZE, "1024",
        "most registered regions the cache keeps per transport");
UMP_CFG(mem_cache_bytes, "UMP_MEM_CACHE_MAX_BYTES", UMP_CFG_SIZE, "1g",
        "most bytes the cache keeps registered per transport");

#define MAX_CACHES 8 /* transports that need registration, per process */

static struct {
    struct {
        ump_xp_t *xp;
        ump_mem_cache_t *cache; /* NULL: registrations go straight to xp */
        uint64_t direct;        /* registrations made without a cache */
    } c[MAX_CACHES];
    int n;
    /* After ump_mem_fini every registration has been released: a request
     * the core still holds at finalize must not release it twice. */
    bool finished;
} front;

static int slot(ump_xp_t *xp)
{
    for (int i = 0; i < front.n; i++)
        if (front.c[i].xp == xp) return i;
    if (front.n == MAX_CACHES) return -1;
    int i = front.n++;
    front.c[i].xp = xp;
    front.c[i].cache = NULL;
    front.c[i].direct = 0;
    if (mem_cache_on.v.b) {
        ump_mem_params_t p = {.max_entries = mem_cache_entries.v.sz,
                              .max_bytes = mem_cache_bytes.v.sz,
                              .monitor = true};
        if (ump_mem_cache_create(xp, &p, &front.c[i].cache) != UMP_OK) front.c[i].cache = NULL;
    }
    return i;
}

int ump_mem_reg(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **mr)
{
    front.finished = false;
    int i = slot(xp);
    if (i >= 0 && front.c[i].cache) return ump_mem_cache_reg(front.c[i].cache, addr, len, mr);
    if (i >= 0) front.c[i].direct++;
    return xp->ops->mem_reg(xp, addr, len, mr);
}

void ump_mem_dereg(ump_xp_mr_t *mr)
{
    if (!mr || front.finished) return;
    for (int i = 0; i < front.n; i++) {
        if (front.c[i].xp == mr->xp && front.c[i].cache) {
            ump_mem_cache_dereg(front.c[i].cache, mr);
            return;
        }
    }
    mr->xp->ops->mem_dereg(mr);
}

int ump_mem_stats(const ump_xp_t *xp, ump_mem_stats_t *s)
{
    for (int i = 0; i < front.n; i++) {
        if (front.c[i].xp != xp) continue;
        if (front.c[i].cache)
            ump_mem_cache_stats(front.c[i].cache, s);
        else
            *s = (ump_mem_stats_t){.misses = front.c[i].direct, .uncached = front.c[i].direct};
        return UMP_OK;
    }
    return UMP_ERR_INVALID;
}

void ump_mem_fini(int rank)
{
    ump_cfg_t *stats = ump_cfg_find("UMP_STATS");
    for (int i = 0; i < front.n; i++) {
        ump_mem_stats_t s;
        ump_mem_stats(front.c[i].xp, &s);
        if (stats && stats->v.b) {
            uint64_t total = s.hits + s.misses;
            fprintf(stderr,
                    "ump stats rank %d mem %s: registrations=%llu hits=%llu misses=%llu "
                    "hit_rate=%.1f%% evictions=%llu invalidations=%llu merged=%llu "
                    "uncached=%llu entries=%zu bytes=%zu monitor=%s\n",
                    rank, front.c[i].xp->ops->name, (unsigned long long)total,
                    (unsigned long long)s.hits, (unsigned long long)s.misses,
                    total ? 100.0 * (double)s.hits / (double)total : 0.0,
                    (unsigned long long)s.evictions, (unsigned long long)s.invalidations,
                    (unsigned long long)s.merged, (unsigned long long)s.uncached, s.entries,
                    s.bytes, front.c[i].cache ? ump_mem_monitor_name() : "none");
        }
        ump_mem_cache_destroy(front.c[i].cache);
        front.c[i].cache = NULL;
    }
    front.finished = front.n > 0;
    front.n = 0;
}
