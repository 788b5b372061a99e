/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registration cache (src/mem) over a fake transport that records
 * every registration: interval hits and misses, page rounding, merging of
 * unused neighbours, reference counts (a region in use is never evicted
 * nor deregistered), LRU eviction order, the bounds in entries and bytes,
 * explicit invalidation, and invalidation by the userfaultfd monitor when
 * memory is unmapped (munmap, mmap MAP_FIXED over it, mremap,
 * madvise(MADV_DONTNEED), free) and mapped again at the same address.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "mem/mem.h"

#define MAX_REGS 256

typedef struct {
    ump_xp_mr_t base;
    bool live;
} fake_mr_t;

static struct {
    ump_xp_t xp;
    ump_xp_ops_t ops;
    fake_mr_t regs[MAX_REGS];
    int live, regs_made, deregs;
    bool fail_next; /* the next mem_reg fails with UMP_ERR_NO_MEMORY */
} f;

static size_t pg;

static int fake_reg(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **out)
{
    if (f.fail_next) {
        f.fail_next = false;
        return UMP_ERR_NO_MEMORY;
    }
    /* A slot per registration, never reused, so that a test's handle
     * keeps telling whether its own registration is live. */
    if (f.regs_made == MAX_REGS) return UMP_ERR_NO_MEMORY;
    fake_mr_t *m = &f.regs[f.regs_made++];
    m->live = true;
    m->base = (ump_xp_mr_t){.xp = xp, .addr = addr, .len = len, .rkey_len = 8};
    f.live++;
    *out = &m->base;
    return UMP_OK;
}

static void fake_dereg(ump_xp_mr_t *mr)
{
    fake_mr_t *m = (fake_mr_t *)mr;
    assert_true(m->live);
    m->live = false;
    f.live--;
    f.deregs++;
}

/* Whether mr is a live registration that covers [a, a + n). */
static bool covers(const ump_xp_mr_t *mr, const void *a, size_t n)
{
    const fake_mr_t *m = (const fake_mr_t *)mr;
    return m->live && (const char *)mr->addr <= (const char *)a &&
           (const char *)a + n <= (const char *)mr->addr + mr->len;
}

static char *arena; /* 64 pages of our own */

static ump_mem_cache_t *make(size_t entries, size_t bytes, bool monitor)
{
    memset(&f.regs, 0, sizeof(f.regs));
    f.live = f.regs_made = f.deregs = 0;
    f.fail_next = false;
    f.ops = (ump_xp_ops_t){.name = "fake", .mem_reg = fake_reg, .mem_dereg = fake_dereg};
    f.xp.ops = &f.ops;
    ump_mem_params_t p = {.max_entries = entries, .max_bytes = bytes, .monitor = monitor};
    ump_mem_cache_t *c = NULL;
    int rc = ump_mem_cache_create(&f.xp, &p, &c);
    if (monitor && rc == UMP_ERR_UNSUPPORTED) return NULL;
    assert_int_equal(rc, UMP_OK);
    return c;
}

static ump_mem_stats_t stats(ump_mem_cache_t *c)
{
    ump_mem_stats_t s;
    ump_mem_cache_stats(c, &s);
    return s;
}

static ump_xp_mr_t *reg(ump_mem_cache_t *c, void *a, size_t n)
{
    ump_xp_mr_t *mr = NULL;
    assert_int_equal(ump_mem_cache_reg(c, a, n, &mr), UMP_OK);
    assert_non_null(mr);
    assert_true(covers(mr, a, n));
    return mr;
}

static void test_hits(void **state)
{
    (void)state;
    ump_mem_cache_t *c = make(16, 1 << 30, false);
    ump_xp_mr_t *a = reg(c, arena + 100, 3 * pg);
    /* Registered page-aligned: the whole of pages 0..3. */
    assert_ptr_equal(a->addr, arena);
    assert_int_equal(a->len, 4 * pg);
    ump_mem_cache_dereg(c, a);
    assert_int_equal(f.live, 1); /* kept */
    /* Inside: hits, whether at the start, the end or in between. */
    ump_xp_mr_t *b = reg(c, arena, 1);
    ump_xp_mr_t *d = reg(c, arena + 4 * pg - 10, 10);
    ump_xp_mr_t *e = reg(c, arena + pg, 2 * pg);
    assert_ptr_equal(b, a);
    assert_ptr_equal(d, a);
    assert_ptr_equal(e, a);
    assert_int_equal(stats(c).hits, 3);
    assert_int_equal(stats(c).misses, 1);
    assert_int_equal(stats(c).in_use, 1);
    /* One byte past its end: a miss, and as a is in use (not merged) a
     * second region overlapping it is made. */
    ump_xp_mr_t *g = reg(c, arena + 3 * pg, pg + 1);
    assert_ptr_not_equal(g, a);
    assert_int_equal(stats(c).misses, 2);
    assert_int_equal(stats(c).entries, 2);
    assert_int_equal(f.live, 2);
    ump_mem_cache_dereg(c, b);
    ump_mem_cache_dereg(c, d);
    ump_mem_cache_dereg(c, e);
    ump_mem_cache_dereg(c, g);
    assert_int_equal(stats(c).in_use, 0);
    assert_int_equal(f.live, 2);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

static void test_merge(void **state)
{
    (void)state;
    ump_mem_cache_t *c = make(16, 1 << 30, false);
    ump_xp_mr_t *a = reg(c, arena, pg);
    ump_xp_mr_t *b = reg(c, arena + 2 * pg, pg);
    ump_mem_cache_dereg(c, a);
    ump_mem_cache_dereg(c, b);
    /* Page 1 touches both unused neighbours: one region of pages 0..2. */
    ump_xp_mr_t *m = reg(c, arena + pg, pg);
    assert_ptr_equal(m->addr, arena);
    assert_int_equal(m->len, 3 * pg);
    assert_int_equal(stats(c).merged, 2);
    assert_int_equal(stats(c).entries, 1);
    assert_int_equal(f.live, 1);
    /* A neighbour in use is not merged (its handle must stay valid). */
    ump_xp_mr_t *n = reg(c, arena + 3 * pg, pg);
    assert_ptr_equal(n->addr, arena + 3 * pg);
    assert_true(((fake_mr_t *)m)->live);
    assert_int_equal(stats(c).entries, 2);
    ump_mem_cache_dereg(c, m);
    ump_mem_cache_dereg(c, n);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

static void test_lru_order(void **state)
{
    (void)state;
    ump_mem_cache_t *c = make(3, 1 << 30, false);
    /* Three unused one-page regions, apart so they never merge: A, B, C. */
    ump_xp_mr_t *r[4];
    for (int i = 0; i < 3; i++) {
        r[i] = reg(c, arena + (size_t)(2 * i) * pg, pg);
        ump_mem_cache_dereg(c, r[i]);
    }
    /* Using A again makes B the least recently used. */
    ump_mem_cache_dereg(c, reg(c, arena, pg));
    r[3] = reg(c, arena + 6 * pg, pg); /* D: one region too many */
    assert_int_equal(stats(c).evictions, 1);
    assert_false(((fake_mr_t *)r[1])->live); /* B went */
    assert_true(((fake_mr_t *)r[0])->live);
    assert_true(((fake_mr_t *)r[2])->live);
    ump_mem_cache_dereg(c, r[3]);
    /* Next: C (A was used after it). */
    ump_mem_cache_dereg(c, reg(c, arena + 8 * pg, pg));
    assert_false(((fake_mr_t *)r[2])->live);
    assert_true(((fake_mr_t *)r[0])->live);
    assert_int_equal(stats(c).evictions, 2);
    assert_int_equal(stats(c).entries, 3);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

static void test_bounds_and_refs(void **state)
{
    (void)state;
    /* Two entries, four pages. */
    ump_mem_cache_t *c = make(2, 4 * pg, false);
    ump_xp_mr_t *a = reg(c, arena, pg);
    ump_xp_mr_t *b = reg(c, arena + 2 * pg, pg);
    /* Both in use: a third request is registered but not kept, and
     * nothing in use is evicted. */
    ump_xp_mr_t *d = reg(c, arena + 4 * pg, pg);
    assert_int_equal(stats(c).uncached, 1);
    assert_int_equal(stats(c).evictions, 0);
    assert_int_equal(stats(c).entries, 2);
    assert_int_equal(f.live, 3);
    ump_mem_cache_dereg(c, d);
    assert_int_equal(f.live, 2); /* released at once */
    /* Twice referenced: one dereg leaves it in use. */
    assert_ptr_equal(reg(c, arena, pg), a);
    ump_mem_cache_dereg(c, a);
    ump_mem_cache_dereg(c, b);
    /* a held once more, b unused: a 3-page region fits the 4-page budget
     * next to a's page only once b is evicted. */
    ump_xp_mr_t *e = reg(c, arena + 8 * pg, 3 * pg);
    assert_true(((fake_mr_t *)a)->live);
    assert_false(((fake_mr_t *)b)->live);
    assert_int_equal(stats(c).evictions, 1);
    assert_int_equal(stats(c).bytes, 4 * pg);
    /* Larger than the whole budget: registered, never kept. */
    ump_xp_mr_t *big = reg(c, arena + 16 * pg, 5 * pg);
    assert_int_equal(stats(c).uncached, 2);
    ump_mem_cache_dereg(c, big);
    assert_false(((fake_mr_t *)big)->live);
    ump_mem_cache_dereg(c, e);
    ump_mem_cache_dereg(c, a);
    assert_int_equal(stats(c).in_use, 0);
    assert_true(stats(c).bytes <= 4 * pg);
    assert_true(stats(c).entries <= 2);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

static void test_reg_failure(void **state)
{
    (void)state;
    ump_mem_cache_t *c = make(16, 1 << 30, false);
    ump_mem_cache_dereg(c, reg(c, arena, pg));
    /* Locked memory runs out: the cache lets its unused regions go and
     * tries once more. */
    f.fail_next = true;
    ump_xp_mr_t *a = reg(c, arena + 4 * pg, pg);
    assert_int_equal(f.live, 1);
    assert_int_equal(stats(c).evictions, 1);
    ump_mem_cache_dereg(c, a);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

static void test_invalidate(void **state)
{
    (void)state;
    ump_mem_cache_t *c = make(16, 1 << 30, false);
    ump_xp_mr_t *a = reg(c, arena, 2 * pg);
    ump_xp_mr_t *b = reg(c, arena + 4 * pg, pg);
    ump_mem_cache_dereg(c, b);
    ump_xp_mr_t *keep = reg(c, arena + 8 * pg, pg);
    ump_mem_cache_dereg(c, keep);
    /* One byte of a's last page and all of b's: both go; b (unused) is
     * deregistered at once, a (in use) at its release. */
    ump_mem_cache_invalidate(c, (uintptr_t)arena + 2 * pg - 1, (uintptr_t)arena + 5 * pg);
    assert_int_equal(stats(c).invalidations, 2);
    assert_false(((fake_mr_t *)b)->live);
    assert_true(((fake_mr_t *)a)->live);
    assert_true(((fake_mr_t *)keep)->live);
    /* The same addresses now miss and get new registrations. */
    int made = f.regs_made;
    ump_xp_mr_t *a2 = reg(c, arena, 2 * pg);
    assert_int_equal(f.regs_made, made + 1);
    assert_ptr_not_equal(a2, a);
    ump_mem_cache_dereg(c, a);
    assert_false(((fake_mr_t *)a)->live);
    ump_mem_cache_dereg(c, a2);
    /* A range touching nothing changes nothing. */
    ump_mem_cache_invalidate(c, (uintptr_t)arena + 20 * pg, (uintptr_t)arena + 30 * pg);
    assert_int_equal(stats(c).invalidations, 2);
    ump_mem_cache_dereg(c, reg(c, arena + 8 * pg, pg));
    assert_int_equal(stats(c).hits, 1);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

/* --- the monitor: real unmapping -------------------------------------- */

enum { UNMAP, FIXED, REMAP, DONTNEED, FREE };

static void monitored(int how)
{
    ump_mem_cache_t *c = make(16, 1 << 30, true);
    if (!c) skip(); /* userfaultfd refused here (printed by cmocka) */
    size_t n = 16 * pg;
    char *p;
    if (how == FREE) {
        /* A chunk larger than the heap's free top and above a fixed mmap
         * threshold comes from mmap and goes back with munmap (a chunk
         * from the heap keeps its pages when freed: its registration stays
         * right, and a hit would be correct). */
        n = 256 * pg;
        mallopt(M_MMAP_THRESHOLD, 64 * 1024);
        p = malloc(n);
    } else {
        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    assert_true(p != NULL && p != MAP_FAILED);
    memset(p, 1, n);
    ump_xp_mr_t *a = reg(c, p, n);
    ump_mem_cache_dereg(c, a);
    ump_mem_cache_dereg(c, reg(c, p, n));
    assert_int_equal(stats(c).hits, 1);
    char *q = p;
    switch (how) {
    case UNMAP:
        assert_int_equal(munmap(p, n), 0);
        q = mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        break;
    case FIXED:
        /* New pages mapped over the old ones, with no munmap first. */
        q = mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        break;
    case REMAP: {
        /* Moved elsewhere, then new memory where it was. */
        char *moved = mremap(p, n, 2 * n, MREMAP_MAYMOVE);
        assert_true(moved != MAP_FAILED);
        if (moved == p) { /* grown in place: the old range is still the same pages */
            ump_mem_cache_destroy(c);
            munmap(moved, 2 * n);
            fail_msg("mremap grew in place; the test needs a move");
        }
        q = mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        munmap(moved, 2 * n);
        break;
    }
    case DONTNEED:
        assert_int_equal(madvise(p + pg, pg, MADV_DONTNEED), 0);
        break;
    case FREE:
        free(p);
        q = malloc(n);
        break;
    }
    assert_true(q != MAP_FAILED && q != NULL);
    memset(q, 2, n);
    /* The region went with the memory: a miss, whatever address q got. */
    int made = f.regs_made;
    ump_xp_mr_t *b = reg(c, q, n);
    assert_int_equal(f.regs_made, made + 1);
    assert_false(((fake_mr_t *)a)->live);
    assert_int_equal(stats(c).invalidations, 1);
    ump_mem_cache_dereg(c, b);
    /* And the new region is watched in its turn. */
    ump_mem_cache_dereg(c, reg(c, q, n));
    assert_int_equal(stats(c).hits, 2);
    if (how == FREE) {
        free(q);
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    } else {
        munmap(q, n);
    }
    ump_mem_cache_dereg(c, reg(c, arena, pg)); /* drains the last unmap */
    assert_int_equal(stats(c).invalidations, 2);
    ump_mem_cache_destroy(c);
    assert_int_equal(f.live, 0);
}

static void test_monitor_munmap(void **state)
{
    (void)state;
    monitored(UNMAP);
}

static void test_monitor_map_fixed(void **state)
{
    (void)state;
    monitored(FIXED);
}

static void test_monitor_mremap(void **state)
{
    (void)state;
    monitored(REMAP);
}

static void test_monitor_dontneed(void **state)
{
    (void)state;
    monitored(DONTNEED);
}

static void test_monitor_free(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's free keeps the memory mapped in its quarantine and
     * its malloc never hands the same address back, so a free unmaps
     * nothing for the monitor to see (and no stale translation can arise);
     * the unsanitized builds run this case. */
    skip();
#else
    monitored(FREE);
#endif
}

/* Memory the monitor cannot watch (a file mapping) is registered but not
 * kept: nothing would tell the cache when it goes. */
static void test_monitor_file(void **state)
{
    (void)state;
    ump_mem_cache_t *c = make(16, 1 << 30, true);
    if (!c) skip();
    FILE *tf = tmpfile();
    assert_non_null(tf);
    assert_int_equal(ftruncate(fileno(tf), (off_t)(4 * pg)), 0);
    char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(tf), 0);
    assert_true(p != MAP_FAILED);
    ump_xp_mr_t *a = reg(c, p, 4 * pg);
    assert_int_equal(stats(c).uncached, 1);
    ump_mem_cache_dereg(c, a);
    assert_false(((fake_mr_t *)a)->live);
    munmap(p, 4 * pg);
    fclose(tf);
    ump_mem_cache_destroy(c);
}

int main(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    arena = mmap(NULL, 64 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hits),           cmocka_unit_test(test_merge),
        cmocka_unit_test(test_lru_order),      cmocka_unit_test(test_bounds_and_refs),
        cmocka_unit_test(test_reg_failure),    cmocka_unit_test(test_invalidate),
        cmocka_unit_test(test_monitor_munmap), cmocka_unit_test(test_monitor_map_fixed),
        cmocka_unit_test(test_monitor_mremap), cmocka_unit_test(test_monitor_dontneed),
        cmocka_unit_test(test_monitor_free),   cmocka_unit_test(test_monitor_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
