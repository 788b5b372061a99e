/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How ump_core_dt_am_send hands a non-contiguous payload to a transport
 * (UMP_DT_PACK=auto): packed in place through am_send_pack, as iovecs of
 * the user's runs, or packed into a pooled buffer and sent as one piece.
 * A fake transport records which entry point was used and the bytes it
 * received; every case checks those bytes against ump_dt_pack of the same
 * stream range, at the thresholds of the choice, on memory and socket
 * transports. Also the segment size of the pipelined scheme.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "mpi.h"
#include "ump.h"

#define ROWS 128
#define COLS 4096

enum { VIA_NONE, VIA_PACK, VIA_IOV, VIA_ONE };

static struct {
    int via, niov, calls;
    size_t len;
    unsigned char data[1 << 20];
    int refuse; /* am_send answers NO_RESOURCE this many times */
} got;

static int fake_send(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                     const struct iovec *iov, int iovcnt)
{
    (void)xp, (void)peer, (void)am_id, (void)hdr, (void)hlen;
    got.calls++;
    if (got.refuse) {
        got.refuse--;
        return UMP_ERR_NO_RESOURCE;
    }
    got.via = iovcnt > 1 ? VIA_IOV : VIA_ONE;
    got.niov = iovcnt;
    got.len = 0;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(got.data + got.len, iov[i].iov_base, iov[i].iov_len);
        got.len += iov[i].iov_len;
    }
    return UMP_OK;
}

static int fake_send_pack(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                          size_t len, void (*pack)(void *, void *, size_t), void *arg)
{
    (void)xp, (void)peer, (void)am_id, (void)hdr, (void)hlen;
    got.calls++;
    got.via = VIA_PACK;
    got.niov = 0;
    got.len = len;
    pack(arg, got.data, len);
    return UMP_OK;
}

static int fake_get(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                    const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    (void)xp, (void)peer, (void)local, (void)nlocal, (void)remote, (void)nremote;
    (void)lmr, (void)rkey, (void)comp;
    return UMP_ERR_UNSUPPORTED;
}

/* A memory transport (shm: packs in place, has get()), a socket transport
 * (tcp: packs into its send queue, no get(), AMs cost system calls), and
 * one that cannot pack. */
static const ump_xp_ops_t ops_mem = {
    .am_send = fake_send, .am_send_pack = fake_send_pack, .get = fake_get};
static const ump_xp_ops_t ops_sock = {.am_send = fake_send, .am_send_pack = fake_send_pack};
static const ump_xp_ops_t ops_nopack = {.am_send = fake_send};

static ump_xp_t xp_of(const ump_xp_ops_t *ops)
{
    ump_xp_t xp;
    memset(&xp, 0, sizeof(xp));
    xp.ops = ops;
    xp.caps.max_am = 1 << 20;
    xp.caps.max_iov = 64;
    xp.caps.seg_size = 32768;
    xp.caps.eager_limit = 8192;
    xp.caps.get_min = SIZE_MAX;
    /* The socket transport says so in its caps; the core reads nothing else. */
    xp.caps.am_cost = ops == &ops_sock ? UMP_XP_AM_SYSCALL : UMP_XP_AM_MEMORY;
    return xp;
}

static int *arr;
static unsigned char *want;

static int setup(void **state)
{
    (void)state;
    unsetenv("UMP_DT_PACK");
    unsetenv("UMP_DT_IOV_MIN_RUN");
    unsetenv("UMP_DT_DIRECT_MAX");
    unsetenv("UMP_DT_SEG_SIZE");
    if (ump_cfg_load(true) != UMP_OK) return -1;
    ump_core_dt_init();
    arr = malloc(sizeof(int) * ROWS * COLS * 2);
    want = malloc(1 << 20);
    if (!arr || !want) return -1;
    for (size_t i = 0; i < (size_t)ROWS * COLS * 2; i++)
        arr[i] = (int)(i * 2654435761u);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ump_core_dt_fini();
    free(arr);
    free(want);
    return 0;
}

/* (rows, blocklen ints, stride ints) vector of MPI_INT. */
static struct ump_dt *vec(int rows, int blk, int stride)
{
    struct ump_dt *v;
    assert_int_equal(ump_dt_vector(rows, blk, stride, MPI_INT, &v), UMP_OK);
    assert_int_equal(ump_dt_commit(v), UMP_OK);
    return v;
}

/* Sends stream bytes [first, first + n) of (arr, 1, t) and checks how they
 * went and that they are the right bytes. */
static void send_check(ump_xp_t *xp, struct ump_dt *t, size_t first, size_t n, int via)
{
    ump_dt_cursor_t c;
    assert_int_equal(ump_dt_cursor_init(&c, arr, 1, t, first), UMP_OK);
    got.via = VIA_NONE;
    got.calls = 0;
    char hdr[8] = {0};
    assert_int_equal(ump_core_dt_am_send(xp, 0, UMP_AM_DATA, hdr, sizeof(hdr), &c, n), UMP_OK);
    assert_int_equal(got.via, via);
    assert_int_equal(got.len, n);
    assert_int_equal(c.pos, first + n);
    assert_int_equal(ump_dt_pack(arr, 1, t, first, want, n), UMP_OK);
    assert_memory_equal(got.data, want, n);
}

/* shm-like: small payloads and long runs packed in place, the rest through
 * the pooled buffer; runs from 16 KiB as iovecs. */
static void test_auto_memory_transport(void **state)
{
    (void)state;
    ump_xp_t xp = xp_of(&ops_mem);
    struct ump_dt *t4 = vec(1024, 4, 256);        /* 16-byte runs, 16 KiB */
    struct ump_dt *t16 = vec(1024, 16, 256);      /* 64-byte runs, 64 KiB */
    struct ump_dt *t1k = vec(ROWS, 1024, COLS);   /* 4 KiB runs, 512 KiB */
    struct ump_dt *t4k = vec(16, 4096, 2 * COLS); /* 16 KiB runs, 256 KiB */
    send_check(&xp, t4, 0, 512, VIA_PACK);        /* well below the limit */
    send_check(&xp, t4, 0, 4096, VIA_PACK);       /* at UMP_DT_DIRECT_MAX */
    send_check(&xp, t4, 0, 4097, VIA_ONE);        /* just above it */
    send_check(&xp, t4, 7, 4096, VIA_PACK);       /* starting inside a run */
    send_check(&xp, t16, 100, 8192, VIA_ONE);
    send_check(&xp, t16, 0, 32768, VIA_ONE);
    send_check(&xp, t1k, 0, 32768, VIA_PACK); /* runs of UMP_DT_DIRECT_MIN_RUN */
    send_check(&xp, t1k, 4000, 32768, VIA_PACK);
    send_check(&xp, t4k, 0, 65536, VIA_IOV);
    assert_int_equal(got.niov, 4);
    send_check(&xp, t4k, 10, 65536, VIA_IOV);
    assert_int_equal(got.niov, 5);
    ump_dt_free(&t4);
    ump_dt_free(&t16);
    ump_dt_free(&t1k);
    ump_dt_free(&t4k);
}

/* tcp-like: runs from 1 KiB go as iovecs while they fit the transport's
 * entries; shorter runs, or too many, are packed (in place when small or
 * long, else through the pooled buffer). */
static void test_auto_socket_transport(void **state)
{
    (void)state;
    ump_xp_t xp = xp_of(&ops_sock);
    struct ump_dt *t256 = vec(ROWS, 256, COLS); /* 1 KiB runs */
    struct ump_dt *t255 = vec(ROWS, 255, COLS); /* 1020-byte runs */
    struct ump_dt *t1k = vec(ROWS, 1024, COLS); /* 4 KiB runs */
    send_check(&xp, t256, 0, 32768, VIA_IOV);   /* 32 runs */
    assert_int_equal(got.niov, 32);
    send_check(&xp, t256, 0, 65536, VIA_ONE); /* 64 runs: more than max_iov - 2 */
    send_check(&xp, t255, 0, 32640, VIA_ONE); /* runs below 1 KiB */
    send_check(&xp, t255, 0, 4080, VIA_PACK); /* small: in place */
    send_check(&xp, t1k, 0, 131072, VIA_IOV);
    assert_int_equal(got.niov, 32);
    send_check(&xp, t1k, 1, 131072, VIA_IOV); /* a partial run at each end */
    assert_int_equal(got.niov, 33);
    send_check(&xp, t1k, 0, 262144, VIA_PACK); /* 66 runs of 4 KiB: in place */

    /* An explicit threshold overrides the transport's default. */
    setenv("UMP_DT_IOV_MIN_RUN", "4k", 1);
    assert_int_equal(ump_cfg_load(true), UMP_OK);
    send_check(&xp, t256, 0, 32768, VIA_ONE);
    send_check(&xp, t1k, 0, 131072, VIA_IOV);
    unsetenv("UMP_DT_IOV_MIN_RUN");
    assert_int_equal(ump_cfg_load(true), UMP_OK);

    /* Without am_send_pack nothing is packed in place. */
    ump_xp_t np = xp_of(&ops_nopack);
    send_check(&np, t255, 0, 4080, VIA_ONE);
    send_check(&np, t1k, 0, 262144, VIA_ONE);
    ump_dt_free(&t256);
    ump_dt_free(&t255);
    ump_dt_free(&t1k);
}

/* A transport out of room leaves the cursor where it was, so the retry
 * sends the same bytes (iovec and pooled-buffer paths). */
static void test_refused_rewinds(void **state)
{
    (void)state;
    ump_xp_t xp = xp_of(&ops_sock);
    struct ump_dt *t1k = vec(ROWS, 1024, COLS);
    struct ump_dt *t16 = vec(1024, 16, 256);
    struct ump_dt *ts[2] = {t1k, t16};
    for (int k = 0; k < 2; k++) {
        ump_dt_cursor_t c;
        assert_int_equal(ump_dt_cursor_init(&c, arr, 1, ts[k], 300), UMP_OK);
        char hdr[8] = {0};
        got.refuse = 1;
        assert_int_equal(ump_core_dt_am_send(&xp, 0, UMP_AM_DATA, hdr, 8, &c, 8192),
                         UMP_ERR_NO_RESOURCE);
        assert_int_equal(c.pos, 300);
        assert_int_equal(ump_core_dt_am_send(&xp, 0, UMP_AM_DATA, hdr, 8, &c, 8192), UMP_OK);
        assert_int_equal(got.len, 8192);
        assert_int_equal(ump_dt_pack(arr, 1, ts[k], 300, want, 8192), UMP_OK);
        assert_memory_equal(got.data, want, 8192);
    }
    ump_dt_free(&t1k);
    ump_dt_free(&t16);
}

/* Segments of a pipelined message: four on a memory transport (at least
 * 4 KiB, at most the transport's segment); at least half the transport's
 * segment where each AM costs system calls (caps.am_cost). */
static void test_segments(void **state)
{
    (void)state;
    ump_xp_t shm = xp_of(&ops_mem), tcp = xp_of(&ops_sock);
    tcp.caps.seg_size = 262144;
    assert_int_equal(ump_core_dt_seg(&shm, 8193, true), 4096);
    assert_int_equal(ump_core_dt_seg(&shm, 16384, true), 4096);
    assert_int_equal(ump_core_dt_seg(&shm, 32768, true), 8192);
    assert_int_equal(ump_core_dt_seg(&shm, 65536, true), 16384);
    assert_int_equal(ump_core_dt_seg(&shm, 100000, true), 25600); /* 1 KiB multiple */
    assert_int_equal(ump_core_dt_seg(&shm, 524288, true), 32768);
    assert_int_equal(ump_core_dt_seg(&shm, 524288, false), 32768);
    assert_int_equal(ump_core_dt_seg(&tcp, 65537, true), 131072);
    assert_int_equal(ump_core_dt_seg(&tcp, 524288, true), 131072);
    assert_int_equal(ump_core_dt_seg(&tcp, 4 << 20, true), 262144);
    setenv("UMP_DT_SEG_SIZE", "5000", 1);
    assert_int_equal(ump_cfg_load(true), UMP_OK);
    assert_int_equal(ump_core_dt_seg(&shm, 524288, true), 5000);
    assert_int_equal(ump_core_dt_seg(&tcp, 524288, true), 5000);
    unsetenv("UMP_DT_SEG_SIZE");
    assert_int_equal(ump_cfg_load(true), UMP_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_memory_transport),
        cmocka_unit_test(test_auto_socket_transport),
        cmocka_unit_test(test_refused_rewinds),
        cmocka_unit_test(test_segments),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
