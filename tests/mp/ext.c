/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ext: the core API for layers above it.
 *  - matched probe: ump_improbe says "no" before anything was sent; a
 *    matched message leaves the matching queues (iprobe and the next mprobe
 *    see the following message, not it); ump_imrecv receives matched
 *    messages in any order, consumes the handle (NULL afterwards), and
 *    truncates like a receive. Eager and rendezvous sizes.
 *  - ump_request_get_status: reports "not complete" without releasing,
 *    then complete, and the request still has to be waited for.
 *  - generalized requests: incomplete until ump_greq_complete, whose error
 *    is what ump_wait returns.
 *  - progress hooks: called while a blocking call waits, not after
 *    unregistering.
 *  - ump_node_id: equal for ranks on one host, as given by argv[1], a comma
 *    list of node numbers per rank (default: all ranks on one node).
 */
#include "mp_common.h"

static const size_t szs[3] = {100, 100000, 2 << 20};

static void test_mprobe(int me, int R)
{
    if (me == 0) {
        /* non-blocking: a rendezvous send completes only when the receiver
         * takes it, which it does after probing all three */
        unsigned char *b[3];
        ump_req_t q[3];
        mp_recv_go(R);
        for (int t = 0; t < 3; t++) {
            b[t] = mp_malloc(szs[t]);
            mp_fill(b[t], szs[t], 0, R, 1 + t, 0);
            MP_CALL(ump_isend(b[t], szs[t], UMP_BYTE, R, 1 + t, 0, &q[t]));
        }
        MP_CALL(ump_waitall(3, q, UMP_STATUS_IGNORE));
        for (int t = 0; t < 3; t++)
            free(b[t]);
        return;
    }
    if (me != R) return;
    ump_msg_t m[3] = {NULL, NULL, NULL};
    ump_status_t st;
    int flag = 1;
    MP_CALL(ump_improbe(UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &flag, &m[0], &st));
    MP_CHECK(!flag, "improbe matched a message before any was sent");
    mp_send_go(0);
    double t0 = mp_now();
    do {
        MP_CALL(ump_improbe(UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &flag, &m[0], &st));
        MP_CHECK(mp_now() - t0 < 20, "improbe never found the first message");
    } while (!flag);
    MP_CHECK(m[0] && st.source == 0 && st.tag == 1 && st.msg_len == szs[0],
             "improbe: msg %p source %d tag %d len %zu", (void *)m[0], st.source, st.tag,
             st.msg_len);
    /* the matched message is off the queues: the next one is tag 2 */
    MP_CALL(ump_probe(0, UMP_ANY_TAG, 0, &st));
    MP_CHECK(st.tag == 2, "probe after improbe sees tag %d, not the next message (2)", st.tag);
    MP_CALL(ump_mprobe(0, UMP_ANY_TAG, 0, &m[1], &st));
    MP_CHECK(m[1] && st.tag == 2 && st.msg_len == szs[1], "mprobe: tag %d len %zu", st.tag,
             st.msg_len);
    MP_CALL(ump_mprobe(UMP_ANY_SOURCE, 3, 0, &m[2], &st));
    MP_CHECK(m[2] && st.tag == 3 && st.msg_len == szs[2], "mprobe: tag %d len %zu", st.tag,
             st.msg_len);
    MP_CALL(ump_iprobe(UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &flag, &st));
    MP_CHECK(!flag, "iprobe sees a message that mprobe took (tag %d)", st.tag);

    /* receive in reverse order; the last one into a short buffer */
    unsigned char *b = mp_malloc(2 << 20);
    ump_req_t q;
    size_t room = szs[2] / 2;
    MP_CALL(ump_imrecv(b, room, UMP_BYTE, &m[2], &q));
    MP_CHECK(m[2] == NULL, "imrecv did not consume the message handle");
    int rc = ump_wait(&q, &st);
    MP_CHECK(rc == UMP_ERR_TRUNCATE && st.count == room && st.msg_len == szs[2] && st.tag == 3,
             "imrecv into a short buffer: rc %d count %zu len %zu", rc, st.count, st.msg_len);
    MP_CHECK_DATA(b, room, 0, R, 3, 0);
    for (int t = 1; t >= 0; t--) {
        MP_CALL(ump_imrecv(b, szs[t], UMP_BYTE, &m[t], &q));
        MP_CHECK(m[t] == NULL, "imrecv did not consume the message handle");
        MP_CALL(ump_wait(&q, &st));
        MP_CHECK(st.count == szs[t] && st.tag == 1 + t && st.source == 0,
                 "imrecv %d: count %zu tag %d", t, st.count, st.tag);
        MP_CHECK_DATA(b, szs[t], 0, R, 1 + t, 0);
    }
    free(b);
}

static void test_get_status(int me, int R)
{
    if (me == 0) {
        mp_recv_go(R);
        int v = 31337;
        MP_CALL(ump_send(&v, sizeof(v), UMP_BYTE, R, 40, 0));
    } else if (me == R) {
        int v = 0, flag = 1;
        ump_req_t q;
        ump_status_t st;
        MP_CALL(ump_irecv(&v, sizeof(v), UMP_BYTE, 0, 40, 0, &q));
        MP_CALL(ump_request_get_status(q, &flag, &st));
        MP_CHECK(!flag, "get_status: complete before the send");
        mp_send_go(0);
        double t0 = mp_now();
        do {
            MP_CALL(ump_request_get_status(q, &flag, &st));
            MP_CHECK(mp_now() - t0 < 20, "get_status never reports completion");
        } while (!flag);
        MP_CHECK(q != UMP_REQ_NULL, "get_status released the request");
        MP_CHECK(st.count == sizeof(int) && st.tag == 40 && v == 31337,
                 "get_status: count %zu tag %d v %d", st.count, st.tag, v);
        MP_CALL(ump_wait(&q, &st));
        MP_CHECK(q == UMP_REQ_NULL && st.tag == 40, "wait after get_status");
    }
}

static void test_greq(void)
{
    ump_req_t g;
    ump_status_t st;
    int done = 1;
    MP_CALL(ump_greq_start(&g));
    for (int i = 0; i < 5; i++) {
        MP_CALL(ump_test(&g, &done, &st));
        MP_CHECK(!done && g != UMP_REQ_NULL, "generalized request done before completion");
    }
    MP_CALL(ump_greq_complete(g, UMP_OK));
    MP_CALL(ump_wait(&g, &st));
    MP_CHECK(g == UMP_REQ_NULL, "wait left the generalized request");

    MP_CALL(ump_greq_start(&g));
    MP_CALL(ump_greq_complete(g, UMP_ERR_IO));
    int rc = ump_wait(&g, &st);
    MP_CHECK(rc == UMP_ERR_IO && st.error == UMP_ERR_IO,
             "generalized request completed with UMP_ERR_IO: wait %d, status %d", rc, st.error);
}

static int hook_calls;
static int hook(void *arg)
{
    hook_calls += *(int *)arg;
    return 0;
}

static void test_hooks(int me, int R)
{
    int one = 1;
    MP_CALL(ump_progress_register(hook, &one));
    hook_calls = 0;
    if (me == 0) {
        mp_sleep_ms(50);
        mp_send_go(R);
    } else if (me == R) {
        mp_recv_go(0); /* waits ~50 ms inside ump */
        MP_CHECK(hook_calls > 0, "progress hook never called during a 50 ms blocking receive");
    }
    MP_CALL(ump_progress_unregister(hook, &one));
    int before = hook_calls;
    for (int i = 0; i < 10; i++)
        MP_CHECK(ump_progress() >= 0, "ump_progress failed");
    MP_CHECK(hook_calls == before, "hook called %d times after unregistering", hook_calls - before);
}

static void test_node_id(int me, int np, const char *spec)
{
    int *want = mp_malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++)
        want[r] = 0;
    if (spec) {
        const char *p = spec;
        for (int r = 0; r < np && *p; r++) {
            want[r] = atoi(p);
            p = strchr(p, ',');
            if (!p) break;
            p++;
        }
    }
    for (int a = 0; a < np; a++) {
        int na = ump_node_id(a);
        MP_CHECK(na >= 0 && na < np, "node id of rank %d is %d", a, na);
        for (int b = 0; b < np; b++)
            MP_CHECK((na == ump_node_id(b)) == (want[a] == want[b]),
                     "ranks %d and %d: node ids %d and %d, expected %s node", a, b, na,
                     ump_node_id(b), want[a] == want[b] ? "the same" : "a different");
    }
    (void)me;
    free(want);
}

int main(int argc, char **argv)
{
    mp_init("ext", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    test_node_id(me, np, argc > 1 ? argv[1] : NULL);
    mp_barrier();
    test_mprobe(me, R);
    mp_barrier();
    test_get_status(me, R);
    mp_barrier();
    test_greq();
    mp_barrier();
    test_hooks(me, R);
    mp_barrier();
    if (me == R) printf("ext: matched probe, get_status, greq, hooks, node ids ok\n");
    mp_finalize();
    return 0;
}
