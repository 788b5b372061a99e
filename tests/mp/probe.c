/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe: ump_iprobe says "no" before a message was sent; ump_probe then
 * returns its source, tag and msg_len (with wildcards), probing again finds
 * the same message (probing does not receive), and a receive of exactly
 * msg_len bytes gets it. Eager and rendezvous sizes.
 * peek: with K receives outstanding, ump_peek hands back each completed
 * request exactly once (never one that was not posted); they are released
 * afterwards with ump_waitall; with nothing outstanding ump_peek returns
 * UMP_ERR_INVALID.
 * testany: says "nothing" (index -1, done 0) while no posted receive can
 * have matched, then finds the one that did, with its status, and releases
 * only that one.
 */
#include "mp_common.h"

static const size_t szs[] = {0, 1, 50, 8191, 8193, 65537, 300000, 1 << 20};
#define K 16

static void test_probe(int me, int R)
{
    ump_status_t st, st2;
    for (size_t i = 0; i < sizeof(szs) / sizeof(szs[0]); i++) {
        size_t n = szs[i];
        int tag = 300 + (int)i;
        if (me == 0) {
            unsigned char *b = mp_malloc(n);
            mp_fill(b, n, 0, R, tag, n);
            mp_recv_go(R);
            MP_CALL(ump_send(b, n, UMP_BYTE, R, tag, 0));
            free(b);
        } else if (me == R) {
            int flag = 1;
            MP_CALL(ump_iprobe(0, tag, 0, &flag, &st));
            MP_CHECK(!flag, "iprobe found a message (tag %d) that was not sent yet", tag);
            MP_CALL(ump_iprobe(UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &flag, &st));
            MP_CHECK(!flag, "wildcard iprobe found a message that was not sent yet");
            mp_send_go(0);
            memset(&st, 0xff, sizeof(st));
            MP_CALL(ump_probe(UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &st));
            MP_CHECK(st.source == 0 && st.tag == tag && st.msg_len == n,
                     "probe: source %d tag %d msg_len %zu, expected 0 %d %zu", st.source, st.tag,
                     st.msg_len, tag, n);
            /* still there */
            flag = 0;
            double t0 = mp_now();
            MP_CALL(ump_iprobe(0, tag, 0, &flag, &st2));
            MP_CHECK(flag && st2.msg_len == n && st2.source == 0 && st2.tag == tag,
                     "second iprobe: flag %d len %zu (%.3f s)", flag, st2.msg_len, mp_now() - t0);
            unsigned char *b = mp_malloc(st.msg_len);
            MP_CALL(ump_recv(b, st.msg_len, UMP_BYTE, st.source, st.tag, 0, &st2));
            MP_CHECK(st2.count == n && st2.error == UMP_OK, "recv after probe: count %zu err %d",
                     st2.count, st2.error);
            MP_CHECK_DATA(b, n, 0, R, tag, n);
            free(b);
            MP_CALL(ump_iprobe(UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &flag, &st));
            MP_CHECK(!flag, "iprobe finds a message after it was received (tag %d)", st.tag);
        }
    }
}

static void test_peek(int me, int R)
{
    if (me == 0) {
        unsigned char b[2000];
        mp_recv_go(R);
        /* send in a scrambled order of tags */
        for (int j = 0; j < K; j++) {
            int t = (j * 7) % K;
            size_t n = (size_t)t * 100;
            mp_fill(b, n, 0, R, t, 0);
            MP_CALL(ump_send(b, n, UMP_BYTE, R, t, 0));
        }
    } else if (me == R) {
        static unsigned char bufs[K][2000];
        ump_req_t reqs[K], copy[K];
        int seen[K] = {0};
        for (int t = 0; t < K; t++)
            MP_CALL(ump_irecv(bufs[t], 2000, UMP_BYTE, 0, t, 0, &reqs[t]));
        memcpy(copy, reqs, sizeof(reqs));
        mp_send_go(0);
        for (int c = 0; c < K; c++) {
            ump_req_t r = UMP_REQ_NULL;
            MP_CALL(ump_peek(&r));
            int idx = -1;
            for (int t = 0; t < K; t++)
                if (copy[t] == r) idx = t;
            MP_CHECK(idx >= 0, "ump_peek returned a request that was never posted (%p)", (void *)r);
            MP_CHECK(!seen[idx], "ump_peek reported request %d twice", idx);
            seen[idx] = 1;
            int done = 0;
            ump_status_t st;
            MP_CALL(ump_test(&reqs[idx], &done, &st));
            MP_CHECK(done, "request %d given by ump_peek is not complete", idx);
            MP_CHECK(st.tag == idx && st.count == (size_t)idx * 100, "peeked %d: tag %d count %zu",
                     idx, st.tag, st.count);
            MP_CHECK_DATA(bufs[idx], st.count, 0, R, idx, 0);
        }
        MP_CALL(ump_waitall(K, reqs, UMP_STATUS_IGNORE));
        ump_req_t r = UMP_REQ_NULL;
        int rc = ump_peek(&r);
        MP_CHECK(rc == UMP_ERR_INVALID, "ump_peek with nothing outstanding returned %d (%s)", rc,
                 ump_status_name(rc));
    }
}

/* Peek with requests left unreleased: each completion is reported once even
 * while the caller holds on to the handles. */
static void test_peek_held(int me, int R)
{
    if (me == 0) {
        mp_recv_go(R);
        for (int t = 0; t < K; t++)
            MP_CALL(ump_send(&t, sizeof(t), UMP_BYTE, R, 50 + t, 0));
    } else if (me == R) {
        int vals[K];
        ump_req_t reqs[K], got[K];
        for (int t = 0; t < K; t++)
            MP_CALL(ump_irecv(&vals[t], sizeof(int), UMP_BYTE, 0, 50 + t, 0, &reqs[t]));
        mp_send_go(0);
        for (int c = 0; c < K; c++) {
            MP_CALL(ump_peek(&got[c]));
            for (int d = 0; d < c; d++)
                MP_CHECK(got[d] != got[c], "ump_peek reported one completion twice (%d, %d)", d, c);
            int found = 0;
            for (int t = 0; t < K; t++)
                found |= reqs[t] == got[c];
            MP_CHECK(found, "ump_peek returned an unknown request");
        }
        ump_status_t sts[K];
        MP_CALL(ump_waitall(K, reqs, sts));
        for (int t = 0; t < K; t++)
            MP_CHECK(vals[t] == t, "value %d is %d", t, vals[t]);
    }
}

static void test_testany(int me, int R)
{
    if (me == 0) {
        mp_recv_go(R);
        int v = 4242;
        MP_CALL(ump_send(&v, sizeof(v), UMP_BYTE, R, 72, 0));
        mp_recv_go(R);
        v = 4343;
        MP_CALL(ump_send(&v, sizeof(v), UMP_BYTE, R, 70, 0));
    } else if (me == R) {
        int vals[3] = {0, 0, 0}, idx = 7, done = 7;
        ump_req_t reqs[4] = {UMP_REQ_NULL, UMP_REQ_NULL, UMP_REQ_NULL, UMP_REQ_NULL};
        ump_status_t st;
        MP_CALL(ump_testany(4, reqs, &idx, &done, &st));
        MP_CHECK(idx == -1, "testany over null handles: index %d", idx);
        for (int i = 0; i < 3; i++)
            MP_CALL(ump_irecv(&vals[i], sizeof(int), UMP_BYTE, 0, 70 + i, 0, &reqs[i]));
        for (int k = 0; k < 20; k++) {
            MP_CALL(ump_testany(4, reqs, &idx, &done, &st));
            MP_CHECK(!done && idx == -1, "testany before any send: done %d index %d", done, idx);
            mp_sleep_ms(1);
        }
        mp_send_go(0);
        double t0 = mp_now();
        do {
            MP_CALL(ump_testany(4, reqs, &idx, &done, &st));
            MP_CHECK(mp_now() - t0 < 20, "testany never saw the message");
        } while (!done);
        MP_CHECK(idx == 2 && reqs[2] == UMP_REQ_NULL && reqs[0] && reqs[1] && vals[2] == 4242 &&
                     st.tag == 72 && st.source == 0 && st.count == sizeof(int),
                 "testany: index %d tag %d value %d", idx, st.tag, vals[2]);
        mp_send_go(0);
        MP_CALL(ump_waitany(4, reqs, &idx, &st));
        MP_CHECK(idx == 0 && vals[0] == 4343 && st.tag == 70, "waitany: index %d value %d", idx,
                 vals[0]);
        MP_CALL(ump_cancel(&reqs[1]));
        MP_CALL(ump_wait(&reqs[1], &st));
        MP_CHECK(st.cancelled, "receive for tag 71 not cancelled");
    }
}

int main(int argc, char **argv)
{
    mp_init("probe", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    test_probe(me, R);
    mp_barrier();
    test_peek(me, R);
    mp_barrier();
    test_peek_held(me, R);
    mp_barrier();
    test_testany(me, R);
    mp_barrier();
    if (me == R) printf("probe: probe, iprobe, peek and testany ok\n");
    mp_finalize();
    return 0;
}
