/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem.h - the registration cache (src/mem), between the transports and the
 * core.
 *
 * Registering memory with an RDMA fabric pins pages and costs a system
 * call or more; the core's rendezvous registers the user's buffer on both
 * sides of every large message, and applications send from the same
 * buffers again and again. The cache keeps registrations after the
 * transfer that needed them and hands them out again when a later request
 * lies inside one. It has the contract of the transports' mem_reg and
 * mem_dereg (xport.h): ump_mem_reg() returns the transport's own handle
 * (usable as get()/put()'s local registration, its rkey sent to peers) and
 * ump_mem_dereg() gives it back.
 *
 * - Lookup is by interval: a cached region that covers [addr, addr+len) is
 *   a hit. Regions are page-aligned; on a miss, unused regions that overlap
 *   or touch the request are merged into the new one.
 * - Every region has a reference count: one per ump_mem_reg() not yet
 *   given back. A region in use is never evicted nor deregistered.
 * - Unused regions wait on an LRU list; the cache is bounded in entries
 *   (UMP_MEM_CACHE_MAX_ENTRIES) and bytes (UMP_MEM_CACHE_MAX_BYTES) and
 *   evicts the least recently used region to stay within both. A request
 *   that cannot fit while everything is in use is registered uncached.
 * - Invalidation: a region whose memory the application unmaps, remaps or
 *   discards (munmap, mremap, madvise(MADV_DONTNEED), brk shrinking, and
 *   free() and realloc() doing any of these) is dropped before the next
 *   lookup, so a later buffer at the same address is registered afresh: a
 *   stale translation is never handed out. The kernel reports those events
 *   through userfaultfd (mem_monitor.c, see docs/design.md for why this
 *   monitor). Where userfaultfd is not available the cache stays off and
 *   every request registers and deregisters.
 *
 * Threading: ump_mem_* are called under the core's lock (one thread at a
 * time); only the monitor's own thread runs beside them, and it shares
 * nothing but a ring of unmapped ranges (mem_monitor.c).
 */
#ifndef UMP_MEM_H
#define UMP_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ump.h"
#include "xport/xport.h"

/* Counters of one cache (UMP_STATS prints them at finalize). */
typedef struct ump_mem_stats {
    uint64_t hits;          /* requests inside a cached region */
    uint64_t misses;        /* requests that registered a region */
    uint64_t evictions;     /* unused regions dropped to stay within the bounds */
    uint64_t invalidations; /* regions dropped because their memory was unmapped */
    uint64_t merged;        /* unused regions merged into a larger new one */
    uint64_t uncached;      /* registrations made outside the cache (no monitor,
                               too large, memory the monitor cannot watch) */
    size_t entries;         /* regions in the cache now */
    size_t bytes;           /* bytes they cover */
    size_t in_use;          /* of them, regions with references */
    bool cached;            /* the cache is on (else every registration is uncached) */
} ump_mem_stats_t;

typedef struct ump_mem_params {
    size_t max_entries; /* most regions kept (>= 1) */
    size_t max_bytes;   /* most bytes kept registered */
    /* Invalidate through the process's unmap monitor. Off (unit tests
     * only): the caller invalidates with ump_mem_cache_invalidate(). */
    bool monitor;
} ump_mem_params_t;

typedef struct ump_mem_cache ump_mem_cache_t;

/* --- one cache over one transport (the core uses the front below) ---- */

/* Makes a cache over xp's mem_reg/mem_dereg. With p->monitor it fails with
 * UMP_ERR_UNSUPPORTED when the unmap monitor cannot run here. */
int ump_mem_cache_create(ump_xp_t *xp, const ump_mem_params_t *p, ump_mem_cache_t **out);
/* Deregisters every region (regions still in use are logged and released
 * too) and frees the cache. */
void ump_mem_cache_destroy(ump_mem_cache_t *c);
/* mem_reg's contract: *mr covers [addr, addr+len) and holds one reference
 * until ump_mem_cache_dereg(). Errors as the transport's mem_reg. */
int ump_mem_cache_reg(ump_mem_cache_t *c, void *addr, size_t len, ump_xp_mr_t **mr);
/* Drops the reference ump_mem_cache_reg() gave with mr. */
void ump_mem_cache_dereg(ump_mem_cache_t *c, ump_xp_mr_t *mr);
/* [start, end) is no longer the memory it was: drops every region that
 * overlaps it (at once when unused, at its last dereg otherwise). */
void ump_mem_cache_invalidate(ump_mem_cache_t *c, uintptr_t start, uintptr_t end);
void ump_mem_cache_stats(const ump_mem_cache_t *c, ump_mem_stats_t *s);

/* --- the front the core calls: one cache per transport ---------------- */

/* The core's mem_reg: through xp's cache (made on first use, with the
 * UMP_MEM_CACHE_* tunables), or straight to the transport when
 * UMP_MEM_CACHE=off or the monitor cannot run. */
int ump_mem_reg(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **mr);
/* The core's mem_dereg, for handles from ump_mem_reg(). */
void ump_mem_dereg(ump_xp_mr_t *mr);
/* xp's cache counters; UMP_ERR_INVALID when xp has no cache. */
int ump_mem_stats(const ump_xp_t *xp, ump_mem_stats_t *s);
/* At finalize, before the transports close: prints the counters when
 * UMP_STATS is set (as rank `rank`) and destroys every cache. */
void ump_mem_fini(int rank);

#endif /* UMP_MEM_H */
