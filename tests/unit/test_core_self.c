/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core in a one-rank job (singleton init): every protocol path over the
 * self transport, matching order, truncation, probe, cancel and peek.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ump.h"
#include "core/core.h"
#include "dt/dt.h"

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xff);
}

static int setup(void **state)
{
    int provided;
    if (!ump_initialized()) return ump_init(NULL, NULL, UMP_THREAD_SINGLE, &provided);
    return 0;
}

static void test_singleton(void **state)
{
    assert_int_equal(ump_rank(), 0);
    assert_int_equal(ump_size(), 1);
}

static void test_sizes(void **state)
{
    static const size_t sizes[] = {0,     1,     7,     4095,    4096,         4097,
                                   65535, 65536, 65537, 1 << 20, (1 << 20) + 3};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        unsigned char *s = malloc(n + 1), *r = malloc(n + 1);
        fill(s, n, (unsigned)i);
        memset(r, 0xee, n + 1);
        ump_req_t sr, rr;
        ump_status_t st;
        assert_int_equal(ump_isend(s, n, UMP_BYTE, 0, 5, 1, &sr), UMP_OK);
        assert_int_equal(ump_irecv(r, n, UMP_BYTE, 0, 5, 1, &rr), UMP_OK);
        assert_int_equal(ump_wait(&rr, &st), UMP_OK);
        assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
        assert_null(rr);
        assert_int_equal(st.count, n);
        assert_int_equal(st.source, 0);
        assert_int_equal(st.tag, 5);
        assert_memory_equal(s, r, n);
        assert_int_equal(r[n], 0xee);
        free(s);
        free(r);
    }
}

static void test_order_and_contexts(void **state)
{
    int v[20], got;
    ump_req_t reqs[20];
    for (int i = 0; i < 20; i++) {
        v[i] = i;
        assert_int_equal(ump_isend(&v[i], sizeof(int), UMP_BYTE, 0, 9, (uint32_t)(i % 2), &reqs[i]),
                         UMP_OK);
    }
    /* Context 1 holds the odd values, in order; context 0 the even ones. */
    for (int i = 1; i < 20; i += 2) {
        assert_int_equal(
            ump_recv(&got, sizeof(int), UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG, 1, NULL), UMP_OK);
        assert_int_equal(got, i);
    }
    for (int i = 0; i < 20; i += 2) {
        assert_int_equal(ump_recv(&got, sizeof(int), UMP_BYTE, 0, 9, 0, NULL), UMP_OK);
        assert_int_equal(got, i);
    }
    assert_int_equal(ump_waitall(20, reqs, NULL), UMP_OK);
}

static void test_truncate(void **state)
{
    size_t sizes[] = {100, 200000};
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        unsigned char *s = malloc(n), *r = malloc(n);
        fill(s, n, 3);
        ump_status_t st;
        ump_req_t sr;
        assert_int_equal(ump_isend(s, n, UMP_BYTE, 0, 1, 0, &sr), UMP_OK);
        assert_int_equal(ump_recv(r, n / 2, UMP_BYTE, 0, 1, 0, &st), UMP_ERR_TRUNCATE);
        assert_int_equal(st.error, UMP_ERR_TRUNCATE);
        assert_int_equal(st.count, n / 2);
        assert_int_equal(st.msg_len, n);
        assert_memory_equal(s, r, n / 2);
        assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
        free(s);
        free(r);
    }
}

static void test_probe_cancel_peek(void **state)
{
    int flag = 1, x = 42, y = 0;
    ump_status_t st;
    assert_int_equal(ump_iprobe(0, 77, 3, &flag, &st), UMP_OK);
    assert_int_equal(flag, 0);
    ump_req_t sr, rr, cr;
    assert_int_equal(ump_irecv(&y, sizeof(y), UMP_BYTE, 0, 78, 3, &cr), UMP_OK);
    assert_int_equal(ump_cancel(&cr), UMP_OK);
    assert_int_equal(ump_wait(&cr, &st), UMP_OK);
    assert_int_equal(st.cancelled, 1);
    assert_int_equal(ump_isend(&x, sizeof(x), UMP_BYTE, 0, 77, 3, &sr), UMP_OK);
    assert_int_equal(ump_probe(0, UMP_ANY_TAG, 3, &st), UMP_OK);
    assert_int_equal(st.tag, 77);
    assert_int_equal(st.msg_len, sizeof(x));
    assert_int_equal(ump_irecv(&y, sizeof(y), UMP_BYTE, 0, 77, 3, &rr), UMP_OK);
    ump_req_t p1, p2;
    assert_int_equal(ump_peek(&p1), UMP_OK);
    assert_int_equal(ump_peek(&p2), UMP_OK);
    assert_true((p1 == sr && p2 == rr) || (p1 == rr && p2 == sr));
    assert_int_equal(ump_peek(&p1), UMP_ERR_INVALID);
    assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
    assert_int_equal(ump_wait(&rr, NULL), UMP_OK);
    assert_int_equal(y, 42);
}

static void test_ssend_waits_for_match(void **state)
{
    int x = 5, y = 0, done = 1;
    ump_req_t sr;
    assert_int_equal(ump_issend(&x, sizeof(x), UMP_BYTE, 0, 2, 0, &sr), UMP_OK);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ump_test(&sr, &done, NULL), UMP_OK);
        assert_int_equal(done, 0);
    }
    assert_int_equal(ump_recv(&y, sizeof(y), UMP_BYTE, 0, 2, 0, NULL), UMP_OK);
    assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
    assert_int_equal(y, 5);
}

static void test_bad_arguments(void **state)
{
    int x = 0;
    ump_req_t r;
    assert_int_equal(ump_isend(&x, 4, UMP_BYTE, 1, 0, 0, &r), UMP_ERR_RANK);
    assert_int_equal(ump_isend(&x, 4, UMP_BYTE, -1, 0, 0, &r), UMP_ERR_RANK);
    assert_int_equal(ump_isend(&x, 4, UMP_BYTE, 0, -2, 0, &r), UMP_ERR_TAG);
    assert_int_equal(ump_isend(NULL, 4, UMP_BYTE, 0, 0, 0, &r), UMP_ERR_BUFFER);
    assert_int_equal(ump_isend(&x, 4, NULL, 0, 0, 0, &r), UMP_ERR_DATATYPE);
    assert_int_equal(ump_irecv(&x, 4, UMP_BYTE, 3, 0, 0, &r), UMP_ERR_RANK);
    assert_int_equal(ump_irecv(&x, 4, UMP_BYTE, 0, -5, 0, &r), UMP_ERR_TAG);
    assert_int_equal(ump_irecv(&x, 4, UMP_BYTE, 0, 0, 0, NULL), UMP_ERR_INVALID);
    assert_string_equal(ump_status_name(UMP_ERR_TRUNCATE), "UMP_ERR_TRUNCATE");
}

/* Receiving into a layout that covers a byte twice is refused on every
 * receive entry before anything is touched; the same type still sends. */
static void test_overlapping_receive_type(void **state)
{
    struct ump_dt *ov = NULL;
    assert_int_equal(ump_dt_hvector(3, 4, 2, UMP_BYTE, &ov), UMP_OK); /* 4-byte blocks 2 apart */
    assert_int_equal(ump_dt_commit(ov), UMP_OK);
    char src[8] = "abcdefgh", buf[16];
    ump_req_t r;
    memset(buf, '.', sizeof(buf));
    assert_int_equal(ump_irecv(buf, 1, ov, 0, 7, 0, &r), UMP_ERR_DATATYPE);
    assert_int_equal(ump_recv(buf, 1, ov, 0, 7, 0, NULL), UMP_ERR_DATATYPE);
    /* As a send type it is legal: 12 bytes, "abcd" "cdef" "efgh". */
    assert_int_equal(ump_send(src, 1, ov, 0, 7, 0), UMP_OK);
    int flag = 0;
    ump_msg_t m = NULL;
    ump_status_t st;
    assert_int_equal(ump_improbe(0, 7, 0, &flag, &m, &st), UMP_OK);
    assert_int_equal(flag, 1);
    assert_int_equal(ump_imrecv(buf, 1, ov, &m, &r), UMP_ERR_DATATYPE);
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], '.');
    /* The message is still there for a proper receive. */
    assert_non_null(m);
    assert_int_equal(ump_imrecv(buf, 12, UMP_BYTE, &m, &r), UMP_OK);
    assert_int_equal(ump_wait(&r, NULL), UMP_OK);
    assert_memory_equal(buf, "abcdcdefefgh", 12);
    assert_int_equal(ump_dt_free(&ov), UMP_OK);
}

/* A standard eager message on the wire: tag and context only, the length
 * the payload's. One cut short of its 8 bytes is dropped with an error;
 * whole ones reach the receive at the head of the posted queue and the
 * unexpected queue alike, with their length restored. */
static void test_short_eager_header(void **state)
{
    char msg[UMP_HDR_SHORT + 5];
    ump_hdr_match_t h = {.tag = 31, .ctx = 6};
    memcpy(msg, &h, UMP_HDR_SHORT);
    memcpy(msg + UMP_HDR_SHORT, "hello", 5);
    ump_core_lock();
    ump_core_am_handler(NULL, NULL, 0, UMP_AM_EAGER_SHORT, msg, UMP_HDR_SHORT - 1);
    ump_core_am_handler(NULL, NULL, 0, UMP_AM_EAGER_SHORT, msg, sizeof(msg)); /* unexpected */
    ump_core_unlock();
    int flag = 0;
    ump_status_t st;
    assert_int_equal(ump_iprobe(0, UMP_ANY_TAG, 6, &flag, &st), UMP_OK);
    assert_int_equal(flag, 1);
    assert_int_equal(st.tag, 31);
    assert_int_equal(st.msg_len, 5); /* the cut one left nothing */
    char buf[8] = {0};
    assert_int_equal(ump_recv(buf, sizeof(buf), UMP_BYTE, 0, 31, 6, &st), UMP_OK);
    assert_int_equal(st.count, 5);
    assert_memory_equal(buf, "hello", 5);
    assert_int_equal(ump_iprobe(0, UMP_ANY_TAG, 6, &flag, &st), UMP_OK);
    assert_int_equal(flag, 0);
    /* Posted first: matched as it arrives. */
    ump_req_t r;
    memset(buf, 0, sizeof(buf));
    assert_int_equal(ump_irecv(buf, sizeof(buf), UMP_BYTE, 0, 31, 6, &r), UMP_OK);
    ump_core_lock();
    ump_core_am_handler(NULL, NULL, 0, UMP_AM_EAGER_SHORT, msg, UMP_HDR_SHORT + 3);
    ump_core_unlock();
    assert_int_equal(ump_wait(&r, &st), UMP_OK);
    assert_int_equal(st.count, 3);
    assert_memory_equal(buf, "hel", 3);
}

static int teardown(void **state)
{
    return ump_finalize();
}

/* The self transport says it is idle once drained, and the core skips it
 * then; a send to it or an arm makes the core poll it again, so a message
 * sent after an idle pass is received, byte for byte. */
static void test_idle_transport(void **state)
{
    ump_xp_t *xp = ump_core.peers[0].xp;
    ump_progress();
    assert_true(xp->idle);
    unsigned char out[8], in[8] = {0};
    fill(out, sizeof(out), 11);
    assert_int_equal(ump_send(out, sizeof(out), UMP_BYTE, 0, 6, 0), UMP_OK);
    assert_false(xp->idle);
    assert_int_equal(ump_recv(in, sizeof(in), UMP_BYTE, 0, 6, 0, UMP_STATUS_IGNORE), UMP_OK);
    assert_memory_equal(in, out, sizeof(out));
    ump_progress();
    assert_true(xp->idle);
    assert_int_equal(xp->ops->arm(xp), UMP_OK);
    assert_false(xp->idle);
    ump_progress();
    assert_true(xp->idle);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_singleton),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_order_and_contexts),
        cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_probe_cancel_peek),
        cmocka_unit_test(test_ssend_waits_for_match),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_short_eager_header),
        cmocka_unit_test(test_overlapping_receive_type),
        cmocka_unit_test(test_idle_transport),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
