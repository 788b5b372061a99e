/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * regcache: the registration cache under a real rendezvous (two ranks,
 * run over a transport that registers memory, e.g. UMP_TRANSPORTS=ofi).
 * For each size around the protocol thresholds and in both directions,
 * a message goes from a buffer into a buffer; then both ranks do one of
 *   reuse     nothing: the second transfer must hit the cache;
 *   free      free() and malloc() again (large chunks: munmap and mmap);
 *   munmap    munmap and mmap again at the same address (MAP_FIXED);
 *   mremap    move the pages elsewhere, new pages at the old address;
 *   dontneed  madvise(MADV_DONTNEED): the pages are replaced by zeros;
 * to their buffer, write new data at the same address, and send again.
 * The receiver checks every byte; each rank checks from its cache's
 * counters that the region was invalidated and registered afresh (with a
 * software provider a stale registration would still read the right
 * bytes, so the counters are what show that it was not used).
 *
 * Exits 77 on every rank, saying why, when the cache is off here (no
 * userfaultfd).
 */
#include <malloc.h>
#include <sys/mman.h>

#include "../mp/mp_common.h"
#include "core/core.h"
#include "mem/mem.h"

enum { REUSE, FREE, MUNMAP, MREMAP, DONTNEED, NSCEN };
#if defined(__SANITIZE_ADDRESS__)
static const bool sanitized = true;
#else
static const bool sanitized = false;
#endif
static const char *const scen_name[NSCEN] = {"reuse", "free", "munmap", "mremap", "dontneed"};

static size_t pg;

typedef struct {
    char *map; /* the mapping (mmap'd kinds), or NULL */
    size_t maplen;
    char *buf; /* the message's first byte */
} buf_t;

static size_t env_size(const char *name, size_t def)
{
    const char *s = getenv(name);
    return s && *s ? mp_parse_size(s) : def;
}

static void b_alloc(buf_t *b, size_t n, int scen)
{
    if (scen == FREE || scen == REUSE) {
        b->map = NULL;
        b->maplen = 0;
        b->buf = mp_malloc(n);
        return;
    }
    /* Not page-aligned on purpose: the cache rounds to pages. */
    b->maplen = UMP_ALIGN_UP(n + 100, pg);
    b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    MP_CHECK(b->map != MAP_FAILED, "mmap %zu: %m", b->maplen);
    b->buf = b->map + 100;
}

static void b_free(buf_t *b)
{
    if (b->map)
        munmap(b->map, b->maplen);
    else
        free(b->buf);
}

/* Applies the scenario to our buffer; the moved pages of mremap go to
 * *moved (NULL otherwise). */
static void b_change(buf_t *b, size_t n, int scen, char **moved)
{
    *moved = NULL;
    switch (scen) {
    case REUSE:
        break;
    case FREE:
        free(b->buf);
        b->buf = mp_malloc(n);
        break;
    case MUNMAP: {
        MP_CHECK(munmap(b->map, b->maplen) == 0, "munmap: %m");
        char *p = mmap(b->map, b->maplen, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        MP_CHECK(p == b->map, "mmap at %p again: %m", (void *)b->map);
        break;
    }
    case MREMAP: {
        /* Somewhere else to move to, reserved first so the move is real. */
        char *to = mmap(NULL, b->maplen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        MP_CHECK(to != MAP_FAILED, "mmap: %m");
        char *m = mremap(b->map, b->maplen, b->maplen, MREMAP_MAYMOVE | MREMAP_FIXED, to);
        MP_CHECK(m == to, "mremap: %m");
        char *p = mmap(b->map, b->maplen, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        MP_CHECK(p == b->map, "mmap at %p again: %m", (void *)b->map);
        *moved = m;
        break;
    }
    case DONTNEED:
        MP_CHECK(madvise(b->map, b->maplen, MADV_DONTNEED) == 0, "madvise: %m");
        for (size_t i = 0; i < n; i++)
            MP_CHECK(b->buf[i] == 0, "byte %zu is %d after MADV_DONTNEED", i, b->buf[i]);
        break;
    }
}

static ump_mem_stats_t stats(int peer)
{
    ump_mem_stats_t s = {0};
    ump_mem_stats(ump_core.peers[peer].xp, &s);
    return s;
}

/* One transfer of n bytes from `from` to `to`, pattern idx. */
static void xfer(char *buf, size_t n, int from, int to, int tag, uint64_t idx)
{
    int me = ump_rank();
    if (me == from) {
        mp_fill(buf, n, from, to, tag, idx);
        MP_CALL(ump_send(buf, n, UMP_BYTE, to, tag, 0));
    } else {
        memset(buf, 0xee, n);
        ump_status_t st;
        MP_CALL(ump_recv(buf, n, UMP_BYTE, from, tag, 0, &st));
        MP_CHECK(st.count == n, "received %zu of %zu bytes", st.count, n);
        MP_CHECK_DATA(buf, n, from, to, tag, idx);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    mp_prog = "regcache";
    pg = (size_t)sysconf(_SC_PAGESIZE);
    /* Chunks from 64 KiB come from mmap (and go back with munmap) once the
     * heap's free top is smaller, which it is above the trim threshold. */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
    MP_CALL(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL));
    int me = ump_rank();
    MP_CHECK(ump_size() == 2, "needs 2 ranks, has %d", ump_size());
    int peer = 1 - me;
    MP_CHECK(ump_core.peers[peer].xp->caps.mr_required,
             "the transport to rank %d (%s) registers "
             "no memory: run over one that does (UMP_TRANSPORTS=ofi)",
             peer, ump_core.peers[peer].xp->ops->name);

    size_t eager = ump_core.peers[peer].xp->caps.eager_limit; /* provider-dependent default */
    size_t get_min = env_size("UMP_OFI_GET_MIN", 0);
    size_t max_bytes = env_size("UMP_MEM_CACHE_MAX_BYTES", (size_t)1 << 30);
    size_t cand[] = {eager + 1,      get_min ? get_min - 1 : 0,
                     get_min,        get_min + 1,
                     64 * 1024 - 1,  256 * 1024 + 1,
                     (1u << 20) + 3, 4u << 20};
    int tag = 0;
    for (size_t ci = 0; ci < UMP_ARRAY_SIZE(cand); ci++) {
        size_t n = cand[ci];
        if (n <= eager) continue; /* eager: nothing registered */
        /* Registered on both sides: the sender at its RTS, the receiver
         * for its read. */
        bool regs = n >= get_min;
        /* A region larger than the cache's byte bound is never kept. */
        bool kept = regs && n + 2 * pg <= max_bytes;
        for (int scen = 0; scen < NSCEN; scen++) {
            for (int from = 0; from < 2; from++) {
                int to = 1 - from;
                tag++;
                buf_t b;
                b_alloc(&b, n, scen);
                ump_mem_stats_t s0 = stats(peer);
                xfer(b.buf, n, from, to, tag, 0);
                ump_mem_stats_t s1 = stats(peer);
                if (regs && !s1.cached) {
                    fprintf(stderr,
                            "regcache: the registration cache is off here (%s): "
                            "nothing to test\n",
                            getenv("UMP_MEM_CACHE") ? "UMP_MEM_CACHE" : "no userfaultfd");
                    ump_finalize();
                    return 77;
                }
                if (regs)
                    MP_CHECK(s1.hits + s1.misses > s0.hits + s0.misses,
                             "%zu bytes, %s: the rendezvous registered nothing", n,
                             scen_name[scen]);
                char *moved;
                b_change(&b, n, scen, &moved);
                xfer(b.buf, n, from, to, tag, 1);
                ump_mem_stats_t s2 = stats(peer);
                if (kept && scen == REUSE)
                    MP_CHECK(s2.hits > s1.hits,
                             "%zu bytes: the same buffer again missed the "
                             "cache (hits %llu)",
                             n, (unsigned long long)s2.hits);
                /* A heap chunk that stays mapped keeps its pages and its
                 * registration rightly; from 256 KiB chunks are mmap'd. */
                bool unmapped = scen != REUSE && (scen != FREE || n >= 256 * 1024);
                /* AddressSanitizer's free keeps every chunk mapped in its
                 * quarantine (and never hands the address back), so a free
                 * unmaps nothing there: the bytes are still checked. */
                if (scen == FREE && sanitized) unmapped = false;
                if (kept && unmapped) {
                    MP_CHECK(s2.invalidations > s1.invalidations,
                             "%zu bytes, %s: the cached region was not invalidated", n,
                             scen_name[scen]);
                    MP_CHECK(s2.misses > s1.misses,
                             "%zu bytes, %s: the new memory was not registered afresh", n,
                             scen_name[scen]);
                }
                if (moved) {
                    /* The moved pages still hold the first message (the
                     * receiver's) or its pattern (the sender's): send them
                     * from their new address, into the receiver's. */
                    xfer(moved + 100, n, from, to, tag, 2);
                    munmap(moved, b.maplen);
                }
                b_free(&b);
            }
        }
    }
    /* A tight cache (the .tight runs): one more region than it holds, all
     * mapped and unused between transfers, must evict one. (The scenarios
     * above free most of theirs before the next, and whether a freed heap
     * chunk comes back at the same address is the allocator's choice.)
     * The buffers lie in one reservation a page apart: the cache merges
     * regions that touch. */
    size_t max_ent = env_size("UMP_MEM_CACHE_MAX_ENTRIES", 0);
    if (max_ent && max_ent < 16) {
        size_t n = UMP_MAX(eager + 1, (size_t)128 * 1024);
        size_t maplen = UMP_ALIGN_UP(n + 100, pg), stride = maplen + pg;
        char *res = mmap(NULL, stride * (max_ent + 1), PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        MP_CHECK(res != MAP_FAILED, "mmap: %m");
        ump_mem_stats_t s0 = stats(peer);
        for (size_t i = 0; i <= max_ent; i++) {
            char *m = mmap(res + i * stride, maplen, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            MP_CHECK(m == res + i * stride, "mmap at %p: %m", (void *)(res + i * stride));
            xfer(m + 100, n, 0, 1, ++tag, 3);
        }
        ump_mem_stats_t s1 = stats(peer);
        if (n + 2 * pg <= max_bytes)
            MP_CHECK(s1.evictions > s0.evictions,
                     "%zu regions of %zu bytes in a cache of %zu entries: none evicted "
                     "(misses %llu, hits %llu, entries %zu, merged %llu)",
                     max_ent + 1, n, max_ent, (unsigned long long)(s1.misses - s0.misses),
                     (unsigned long long)(s1.hits - s0.hits), s1.entries,
                     (unsigned long long)(s1.merged - s0.merged));
        munmap(res, stride * (max_ent + 1));
    }
    mp_barrier();
    ump_mem_stats_t s = stats(peer);
    printf("[regcache rank %d] ok: hits %llu misses %llu invalidations %llu evictions %llu\n", me,
           (unsigned long long)s.hits, (unsigned long long)s.misses,
           (unsigned long long)s.invalidations, (unsigned long long)s.evictions);
    /* A tight cache (the .tight runs) must have evicted to stay in bounds. */
    if (getenv("UMP_MEM_CACHE_MAX_ENTRIES"))
        MP_CHECK(s.evictions > 0 && s.entries <= env_size("UMP_MEM_CACHE_MAX_ENTRIES", 0),
                 "a cache of %zu entries evicted %llu and holds %zu",
                 env_size("UMP_MEM_CACHE_MAX_ENTRIES", 0), (unsigned long long)s.evictions,
                 s.entries);
    MP_CALL(ump_finalize());
    return 0;
}
