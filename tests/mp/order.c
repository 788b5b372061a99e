/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * order: non-overtaking and context isolation between rank 0 and the last rank.
 *  1. Rank 0 sends NMSG messages of random sizes (0 .. 600 KB, so eager and
 *     rendezvous for both shm and tcp are mixed) to rank R (the last rank), all with one tag
 *     on one context, as a burst of isends with some issends and some
 *     ump_isend_inline sends (which may complete inside the call) among them.
 *     Rank R has the first half of the receives posted before the burst and
 *     posts the rest afterwards (so they meet unexpected messages); the i-th
 *     receive must get the i-th message: size and pattern index both checked.
 *  2. A message on context 2 never matches a receive on context 1, even a
 *     full-wildcard one: the ctx-1 receive stays incomplete for 300 ms while
 *     the ctx-2 message is there (iprobe on ctx 2 sees it), then ctx-2 and
 *     ctx-1 messages each land in their own receive. Both eager and
 *     rendezvous sizes.
 */
#include "mp_common.h"

#define NMSG 400
#define TAG  42
#define MAXN 600000

/* The receiver is the last rank: under netns-run.sh it sits on the other
 * "host", so the test crosses the network transport there. */
static int R;

static size_t msg_size(int i)
{
    /* Mostly small, a fair share past every eager limit. */
    uint64_t r = mp_mix64(0x5eed0000u + (uint64_t)i);
    switch (r % 4) {
    case 0:
        return (size_t)(r >> 8) % 64;
    case 1:
        return (size_t)(r >> 8) % 9000;
    case 2:
        return (size_t)(r >> 8) % 70000;
    default:
        return (size_t)(r >> 8) % MAXN;
    }
}

static void test_order(int me)
{
    if (me == 0) {
        unsigned char **bufs = mp_malloc(sizeof(*bufs) * NMSG);
        ump_req_t *reqs = mp_malloc(sizeof(*reqs) * NMSG);
        for (int i = 0; i < NMSG; i++) {
            size_t n = msg_size(i);
            bufs[i] = mp_malloc(n);
            mp_fill(bufs[i], n, 0, R, TAG, (uint64_t)i);
        }
        mp_barrier();
        for (int i = 0; i < NMSG; i++) {
            if (i % 7 == 3)
                MP_CALL(ump_issend(bufs[i], msg_size(i), UMP_BYTE, R, TAG, 1, &reqs[i]));
            else if (i % 3 == 1)
                /* May complete inside the call (reqs[i] null): its order
                 * against the queued sends around it is what is checked. */
                MP_CALL(ump_isend_inline(bufs[i], msg_size(i), UMP_BYTE, R, TAG, 1, &reqs[i]));
            else
                MP_CALL(ump_isend(bufs[i], msg_size(i), UMP_BYTE, R, TAG, 1, &reqs[i]));
        }
        MP_CALL(ump_waitall(NMSG, reqs, UMP_STATUS_IGNORE));
        for (int i = 0; i < NMSG; i++)
            free(bufs[i]);
        free(bufs);
        free(reqs);
    } else if (me == R) {
        unsigned char **bufs = mp_malloc(sizeof(*bufs) * NMSG);
        ump_req_t *reqs = mp_malloc(sizeof(*reqs) * NMSG);
        ump_status_t *sts = mp_malloc(sizeof(*sts) * NMSG);
        /* Room for the expected message plus a little: a message out of
         * order shows up as a wrong count or a truncation. */
        for (int i = 0; i < NMSG; i++)
            bufs[i] = mp_malloc(msg_size(i) + 64);
        for (int i = 0; i < NMSG / 2; i++)
            MP_CALL(ump_irecv(bufs[i], msg_size(i) + 64, UMP_BYTE, 0, TAG, 1, &reqs[i]));
        mp_barrier();
        /* Let part of the burst arrive unexpected before the rest is posted. */
        mp_progress_for(0.05);
        for (int i = NMSG / 2; i < NMSG; i++)
            MP_CALL(ump_irecv(bufs[i], msg_size(i) + 64, UMP_BYTE, i % 2 ? UMP_ANY_SOURCE : 0, TAG,
                              1, &reqs[i]));
        int rc = ump_waitall(NMSG, reqs, sts);
        for (int i = 0; i < NMSG; i++) {
            MP_CHECK(sts[i].msg_len == msg_size(i) && sts[i].count == msg_size(i) &&
                         sts[i].error == UMP_OK && sts[i].source == 0 && sts[i].tag == TAG,
                     "receive %d got %zu of %zu bytes from %d, error %d (expected message %d "
                     "of %zu bytes): order broken",
                     i, sts[i].count, sts[i].msg_len, sts[i].source, sts[i].error, i, msg_size(i));
            MP_CHECK_DATA(bufs[i], sts[i].count, 0, R, TAG, (uint64_t)i);
            free(bufs[i]);
        }
        MP_CHECK(rc == UMP_OK, "waitall returned %d with every status fine", rc);
        free(bufs);
        free(reqs);
        free(sts);
        printf("order: %d messages in order\n", NMSG);
    } else {
        mp_barrier();
    }
}

static void test_contexts(int me, size_t n)
{
    ump_status_t st;
    if (me == 0) {
        unsigned char *a = mp_malloc(n), *b = mp_malloc(n);
        ump_req_t r;
        mp_fill(a, n, 0, R, 2000 + 2, n);
        mp_fill(b, n, 0, R, 2000 + 1, n);
        mp_recv_go(R);
        MP_CALL(ump_isend(a, n, UMP_BYTE, R, 5, 2, &r)); /* ctx 2 */
        mp_recv_go(R);
        MP_CALL(ump_send(b, n, UMP_BYTE, R, 5, 1)); /* ctx 1 */
        MP_CALL(ump_wait(&r, UMP_STATUS_IGNORE));
        free(a);
        free(b);
    } else if (me == R) {
        unsigned char *r1 = mp_malloc(n + 1), *r2 = mp_malloc(n + 1);
        ump_req_t q1;
        int done = 0, flag = 0;
        MP_CALL(ump_irecv(r1, n + 1, UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG, 1, &q1));
        mp_send_go(0);
        /* The ctx-2 message shows up on ctx 2 ... */
        double t0 = mp_now();
        while (!flag) {
            MP_CALL(ump_iprobe(0, 5, 2, &flag, &st));
            MP_CHECK(mp_now() - t0 < 20, "ctx-2 message (%zu bytes) never seen by iprobe", n);
            MP_CALL(ump_test(&q1, &done, &st));
            MP_CHECK(!done, "receive on ctx 1 matched the message sent on ctx 2 (%zu bytes)", n);
            if (!flag) mp_sleep_ms(1);
        }
        MP_CHECK(st.source == 0 && st.tag == 5 && st.msg_len == n, "iprobe ctx 2: %d %d %zu",
                 st.source, st.tag, st.msg_len);
        /* ... and never on ctx 1. */
        for (t0 = mp_now(); mp_now() - t0 < 0.3;) {
            MP_CALL(ump_test(&q1, &done, &st));
            MP_CHECK(!done, "receive on ctx 1 matched the message sent on ctx 2 (%zu bytes)", n);
            MP_CALL(ump_iprobe(UMP_ANY_SOURCE, UMP_ANY_TAG, 1, &flag, &st));
            MP_CHECK(!flag, "iprobe on ctx 1 sees the ctx-2 message");
            mp_sleep_ms(2);
        }
        MP_CALL(ump_recv(r2, n + 1, UMP_BYTE, 0, 5, 2, &st));
        MP_CHECK(st.count == n, "ctx 2 receive: %zu bytes of %zu", st.count, n);
        MP_CHECK_DATA(r2, n, 0, R, 2000 + 2, n);
        mp_send_go(0);
        MP_CALL(ump_wait(&q1, &st));
        MP_CHECK(st.count == n && st.source == 0 && st.tag == 5,
                 "ctx 1 receive: count %zu src %d tag %d", st.count, st.source, st.tag);
        MP_CHECK_DATA(r1, n, 0, R, 2000 + 1, n);
        free(r1);
        free(r2);
    }
}

int main(int argc, char **argv)
{
    mp_init("order", &argc, &argv);
    int me = ump_rank();
    MP_CHECK(ump_size() >= 2, "needs 2 ranks");
    R = ump_size() - 1;
    test_order(me);
    mp_barrier();
    const size_t ctx_sizes[] = {0, 100, 20000, 100000, 1 << 20};
    for (size_t i = 0; i < sizeof(ctx_sizes) / sizeof(ctx_sizes[0]); i++) {
        test_contexts(me, ctx_sizes[i]);
        mp_barrier();
    }
    if (me == R) printf("order: contexts isolated\n");
    mp_finalize();
    return 0;
}
