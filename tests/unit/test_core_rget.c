/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core's rendezvous by get() when the transport completes later: a
 * one-rank job whose self transport is wrapped so that get() returns
 * UMP_INPROGRESS and finishes from a later progress() pass (or fails
 * then, or finishes at once), optionally demanding registered memory with
 * packed keys. Checks that neither side completes before the reads do,
 * that the FIN comes from the completion, that a failed read falls back to
 * streaming, that several batches share one completion, that every
 * registration is released, and the data byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "ump.h"

enum { MODE_LATER, MODE_FAIL, MODE_NOW };

#define MAX_PENDING 256
#define MAX_REGS    16
#define KEY_MAGIC   0x6b65796b65796b65ull

typedef struct {
    ump_xp_mr_t base;
    bool live;
} fake_mr_t;

static struct {
    ump_xp_t *xp;
    const ump_xp_ops_t *real;
    ump_xp_caps_t real_caps;
    ump_xp_ops_t ops;
    int mode;
    bool hold; /* completes nothing while set */
    int gets, started, completed, bad_keys;
    int regs_live;
    fake_mr_t regs[MAX_REGS];
    struct pending {
        ump_xp_comp_t *comp;
        int delay;
        size_t n;
        char *dst[64];
        const char *src[64];
        size_t len[64];
    } pend[MAX_PENDING];
    int npend;
} f;

static int fake_reg(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **out)
{
    for (int i = 0; i < MAX_REGS; i++) {
        fake_mr_t *m = &f.regs[i];
        if (m->live) continue;
        m->live = true;
        m->base = (ump_xp_mr_t){.xp = xp, .addr = addr, .len = len, .rkey_len = 24};
        uint64_t k[3] = {KEY_MAGIC, (uint64_t)(uintptr_t)addr, len};
        memcpy(m->base.rkey, k, sizeof(k));
        f.regs_live++;
        *out = &m->base;
        return UMP_OK;
    }
    return UMP_ERR_NO_MEMORY;
}

static void fake_dereg(ump_xp_mr_t *mr)
{
    fake_mr_t *m = (fake_mr_t *)mr;
    assert_true(m->live);
    m->live = false;
    f.regs_live--;
}

/* Whether [a, a + n) lies in the registration `rkey` packs (or lmr). */
static bool key_covers(const void *rkey, uint64_t a, size_t n)
{
    uint64_t k[3];
    if (!rkey) return false;
    memcpy(k, rkey, sizeof(k));
    return k[0] == KEY_MAGIC && a >= k[1] && a + n <= k[1] + k[2];
}

static int fake_get(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                    const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    (void)peer;
    f.gets++;
    assert_true(nlocal <= 64 && nremote <= 64);
    assert_true((size_t)nlocal <= f.xp->caps.get_max_iov);
    assert_true((size_t)nremote <= f.xp->caps.get_max_iov);
    struct pending p = {.comp = comp, .delay = 1 + f.gets % 3};
    /* Both lists cover the same bytes; pair them up piece by piece. */
    int li = 0, ri = 0;
    size_t lo = 0, ro = 0;
    while (li < nlocal && ri < nremote) {
        size_t n = UMP_MIN(local[li].iov_len - lo, remote[ri].len - ro);
        if (f.xp->caps.mr_required) {
            if (!key_covers(rkey, remote[ri].addr + ro, n) ||
                !key_covers(lmr ? lmr->rkey : NULL, (uintptr_t)local[li].iov_base + lo, n))
                f.bad_keys++;
        }
        assert_true(p.n < 64);
        p.dst[p.n] = (char *)local[li].iov_base + lo;
        p.src[p.n] = (const char *)(uintptr_t)remote[ri].addr + ro;
        p.len[p.n++] = n;
        lo += n;
        ro += n;
        if (lo == local[li].iov_len) li++, lo = 0;
        if (ro == remote[ri].len) ri++, ro = 0;
    }
    if (f.mode == MODE_NOW) {
        for (size_t i = 0; i < p.n; i++)
            memcpy(p.dst[i], p.src[i], p.len[i]);
        return UMP_OK;
    }
    assert_true(f.npend < MAX_PENDING);
    f.pend[f.npend++] = p;
    f.started++;
    xp->idle = false; /* work of the wrapper's own, whatever self said */
    return UMP_INPROGRESS;
}

static int fake_progress(ump_xp_t *xp)
{
    int n = f.real->progress(xp);
    for (int i = 0; i < f.npend && !f.hold;) {
        struct pending *p = &f.pend[i];
        if (--p->delay > 0) {
            i++;
            continue;
        }
        struct pending done = *p;
        f.pend[i] = f.pend[--f.npend];
        int status = UMP_OK;
        if (f.mode == MODE_FAIL)
            status = UMP_ERR_IO;
        else
            for (size_t k = 0; k < done.n; k++)
                memcpy(done.dst[k], done.src[k], done.len[k]);
        f.completed++;
        ump_xp_comp_done(done.comp, status);
        n++;
    }
    if (f.npend) xp->idle = false;
    return n;
}

static int fake_arm(ump_xp_t *xp)
{
    return f.npend ? UMP_ERR_BUSY : f.real->arm(xp);
}

static int setup(void **state)
{
    (void)state;
    int provided;
    setenv("UMP_WAIT", "spin", 1);
    /* Every registration is checked to be released after its transfer:
     * the registration cache (tested in unit.mem_cache) would keep them. */
    setenv("UMP_MEM_CACHE", "off", 1);
    if (ump_init(NULL, NULL, UMP_THREAD_SINGLE, &provided) != UMP_OK) return -1;
    f.xp = ump_core.peers[0].xp;
    f.real = f.xp->ops;
    f.real_caps = f.xp->caps;
    f.ops = *f.real;
    f.ops.get = fake_get;
    f.ops.progress = fake_progress;
    f.ops.arm = fake_arm;
    f.ops.mem_reg = fake_reg;
    f.ops.mem_dereg = fake_dereg;
    f.xp->ops = &f.ops;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    f.xp->ops = f.real;
    f.xp->caps = f.real_caps;
    return ump_finalize() == UMP_OK ? 0 : -1;
}

static void reset(int mode, bool mr, size_t max_iov)
{
    f.mode = mode;
    f.gets = f.started = f.completed = f.bad_keys = 0;
    f.xp->caps = f.real_caps;
    f.xp->caps.rma_get = true;
    f.xp->caps.get_min = 0;
    f.xp->caps.mr_required = mr;
    f.xp->caps.rkey_size = mr ? 24 : 0;
    f.xp->caps.get_max_iov = max_iov;
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xff);
}

/* One contiguous rendezvous; `unexpected`: the RTS waits before the
 * receive is posted. Checks nothing completes before the reads do. */
static void one(size_t n, bool unexpected, unsigned seed)
{
    unsigned char *s = malloc(n), *r = malloc(n + 1);
    fill(s, n, seed);
    memset(r, 0xee, n + 1);
    ump_req_t sr, rr;
    ump_status_t st;
    int done = 0;
    assert_int_equal(ump_isend(s, n, UMP_BYTE, 0, 9, 1, &sr), UMP_OK);
    if (unexpected) {
        assert_true(ump_progress() >= 0);
        assert_true(ump_progress() >= 0);
    }
    int gets0 = f.gets;
    f.hold = true;
    assert_int_equal(ump_irecv(r, n, UMP_BYTE, 0, 9, 1, &rr), UMP_OK);
    if (f.mode != MODE_NOW) {
        /* The read has started (the match ran, inline or on the first
         * pass) but has not finished: neither side may complete. */
        if (f.gets == gets0) assert_true(ump_progress() >= 0);
        assert_int_equal(f.gets, gets0 + 1);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(ump_test(&sr, &done, NULL), UMP_OK);
            assert_int_equal(done, 0);
            assert_int_equal(ump_test(&rr, &done, NULL), UMP_OK);
            assert_int_equal(done, 0);
        }
        assert_int_equal(f.npend, 1);
    }
    f.hold = false;
    assert_int_equal(ump_wait(&rr, &st), UMP_OK);
    assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
    assert_int_equal(st.count, n);
    assert_memory_equal(s, r, n);
    assert_int_equal(r[n], 0xee);
    assert_int_equal(f.npend, 0);
    assert_int_equal(f.regs_live, 0);
    free(s);
    free(r);
}

static void test_later(void **state)
{
    (void)state;
    static const size_t sizes[] = {4097, 65536, (1 << 20) + 3};
    reset(MODE_LATER, false, SIZE_MAX);
    for (size_t i = 0; i < 3; i++) {
        one(sizes[i], false, (unsigned)i);
        one(sizes[i], true, (unsigned)i + 10);
    }
    assert_int_equal(f.started, 6);
    assert_int_equal(f.completed, 6);
}

/* Registered memory: the RTS carries the sender's key, the receiver
 * registers its buffer, both registrations go when the requests complete. */
static void test_later_registered(void **state)
{
    (void)state;
    reset(MODE_LATER, true, SIZE_MAX);
    one(4097, false, 1);
    one(300000, true, 2);
    one(300000, false, 3);
    assert_int_equal(f.bad_keys, 0);
    assert_int_equal(f.completed, 3);
}

/* A read that fails in its completion: the receiver has the message
 * streamed instead and the data still arrive whole. */
static void test_fail_streams(void **state)
{
    (void)state;
    reset(MODE_FAIL, true, SIZE_MAX);
    one(70000, false, 4);
    one(70001, true, 5);
    assert_int_equal(f.completed, 2);
}

/* get() done at once (shm's case) through the same path. */
static void test_now(void **state)
{
    (void)state;
    reset(MODE_NOW, true, SIZE_MAX);
    one(65537, false, 6);
    one(65537, true, 7);
    assert_int_equal(f.gets, 2);
    assert_int_equal(f.started, 0);
}

/* Non-contiguous on both sides, read in batches of at most 4 entries per
 * side: several reads share the receive's completion, which fires once,
 * after the last. */
static void test_batches(void **state)
{
    (void)state;
    reset(MODE_LATER, false, 4);
    setenv("UMP_DT_SCHEME", "sg", 1);
    assert_int_equal(ump_cfg_load(true), UMP_OK);
    enum { ROWS = 64, BLK = 256, STRIDE = 512 };
    struct ump_dt *v;
    assert_int_equal(ump_dt_vector(ROWS, BLK, STRIDE, UMP_INT, &v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK);
    int *s = malloc(sizeof(int) * ROWS * STRIDE), *r = malloc(sizeof(int) * ROWS * STRIDE);
    for (int i = 0; i < ROWS * STRIDE; i++) {
        s[i] = i * 7 + 3;
        r[i] = -1;
    }
    ump_req_t sr, rr;
    ump_status_t st;
    assert_int_equal(ump_irecv(r, 1, v, 0, 3, 1, &rr), UMP_OK);
    assert_int_equal(ump_isend(s, 1, v, 0, 3, 1, &sr), UMP_OK);
    assert_int_equal(ump_wait(&rr, &st), UMP_OK);
    assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
    assert_true(f.started >= ROWS / 4);
    assert_int_equal(f.completed, f.started);
    for (int i = 0; i < ROWS * STRIDE; i++)
        assert_int_equal(r[i], i % STRIDE < BLK ? i * 7 + 3 : -1);
    free(s);
    free(r);
    ump_dt_free(&v);
    unsetenv("UMP_DT_SCHEME");
    assert_int_equal(ump_cfg_load(true), UMP_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_later),        cmocka_unit_test(test_later_registered),
        cmocka_unit_test(test_fail_streams), cmocka_unit_test(test_now),
        cmocka_unit_test(test_batches),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
