/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * truncate: a receive smaller than the message. The receive reports
 * UMP_ERR_TRUNCATE (as ump_recv's result, ump_wait's result and status.error),
 * count = the bytes that fit, msg_len = the bytes sent, those bytes are right
 * and nothing past the receive buffer is written. Eager and rendezvous sizes;
 * blocking receive, irecv posted before the send, and receive posted after
 * the message arrived (unexpected). After each truncation a full-size message
 * must still arrive intact: the job goes on. Last, ump_waitall over three
 * receives of which the middle one truncates returns UMP_ERR_TRUNCATE and
 * each status holds its own result.
 */
#include "mp_common.h"

#define GUARD 4096

static const size_t msg[] = {1, 100, 8000, 9000, 60000, 70000, 300000, 2 << 20};

static void check_guard(const unsigned char *buf, size_t m, size_t n)
{
    for (size_t j = 0; j < GUARD; j++)
        MP_CHECK(buf[m + j] == 0xc3,
                 "message %zu into %zu-byte receive: byte %zu past the buffer was written", n, m,
                 j);
}

int main(int argc, char **argv)
{
    mp_init("truncate", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    size_t cap = (2 << 20) + GUARD;
    unsigned char *buf = mp_malloc(cap);
    ump_status_t st;
    int cases = 0;

    for (size_t i = 0; i < sizeof(msg) / sizeof(msg[0]); i++) {
        size_t n = msg[i];
        const size_t keep[] = {0, n / 2, n - 1};
        for (int k = 0; k < 3; k++) {
            /* mode 0 blocking recv, 1 irecv posted first, 2 message unexpected */
            for (int mode = 0; mode < 3; mode++) {
                int tag = (int)(i * 100 + (size_t)k * 10 + (size_t)mode * 2);
                size_t m = keep[k];
                if (me == 0) {
                    mp_fill(buf, n, 0, R, tag, n);
                    mp_recv_go(R);
                    MP_CALL(ump_send(buf, n, UMP_BYTE, R, tag, 0));
                    mp_fill(buf, n, 0, R, tag + 1, n);
                    MP_CALL(ump_send(buf, n, UMP_BYTE, R, tag + 1, 0));
                } else if (me == R) {
                    ump_req_t q;
                    int rc = 12345;
                    memset(buf, 0xc3, m + GUARD);
                    memset(&st, 0, sizeof(st));
                    if (mode == 0) {
                        mp_send_go(0);
                        rc = ump_recv(buf, m, UMP_BYTE, 0, tag, 0, &st);
                    } else if (mode == 1) {
                        MP_CALL(ump_irecv(buf, m, UMP_BYTE, 0, tag, 0, &q));
                        mp_send_go(0);
                        rc = ump_wait(&q, &st);
                    } else {
                        ump_status_t pst;
                        mp_send_go(0);
                        MP_CALL(ump_probe(0, tag, 0, &pst));
                        MP_CHECK(pst.msg_len == n, "probe says %zu bytes, sent %zu", pst.msg_len,
                                 n);
                        MP_CALL(ump_irecv(buf, m, UMP_BYTE, 0, tag, 0, &q));
                        rc = ump_wait(&q, &st);
                    }
                    MP_CHECK(rc == UMP_ERR_TRUNCATE,
                             "mode %d: %zu-byte message into %zu bytes returned %d (%s)", mode, n,
                             m, rc, ump_status_name(rc));
                    MP_CHECK(st.error == UMP_ERR_TRUNCATE && st.count == m && st.msg_len == n &&
                                 st.source == 0 && st.tag == tag && !st.cancelled,
                             "mode %d: %zu into %zu: status error %d count %zu msg_len %zu src "
                             "%d tag %d",
                             mode, n, m, st.error, st.count, st.msg_len, st.source, st.tag);
                    MP_CHECK_DATA(buf, m, 0, R, tag, n);
                    check_guard(buf, m, n);
                    /* the next message, full size, is fine */
                    memset(buf, 0xc3, n + GUARD);
                    rc = ump_recv(buf, n, UMP_BYTE, 0, tag + 1, 0, &st);
                    MP_CHECK(rc == UMP_OK && st.error == UMP_OK && st.count == n,
                             "after truncation: rc %d error %d count %zu of %zu", rc, st.error,
                             st.count, n);
                    MP_CHECK_DATA(buf, n, 0, R, tag + 1, n);
                    check_guard(buf, n, n);
                    cases++;
                }
            }
        }
    }
    mp_barrier();
    if (me == 0) {
        mp_recv_go(R);
        for (int t = 0; t < 3; t++) {
            mp_fill(buf, 50000, 0, R, 900 + t, 0);
            MP_CALL(ump_send(buf, 50000, UMP_BYTE, R, 900 + t, 0));
        }
    } else if (me == R) {
        ump_req_t q[3];
        ump_status_t sts[3];
        const size_t room[3] = {50000, 20000, 60000};
        for (int t = 0; t < 3; t++)
            MP_CALL(ump_irecv(buf + (size_t)t * 60000, room[t], UMP_BYTE, 0, 900 + t, 0, &q[t]));
        mp_send_go(0);
        int rc = ump_waitall(3, q, sts);
        MP_CHECK(rc == UMP_ERR_TRUNCATE, "waitall with a truncated receive returned %d (%s)", rc,
                 ump_status_name(rc));
        MP_CHECK(sts[0].error == UMP_OK && sts[0].count == 50000 &&
                     sts[1].error == UMP_ERR_TRUNCATE && sts[1].count == 20000 &&
                     sts[2].error == UMP_OK && sts[2].count == 50000,
                 "waitall statuses: %d/%zu %d/%zu %d/%zu", sts[0].error, sts[0].count, sts[1].error,
                 sts[1].count, sts[2].error, sts[2].count);
        for (int t = 0; t < 3; t++) {
            MP_CHECK(q[t] == UMP_REQ_NULL, "waitall left handle %d", t);
            MP_CHECK_DATA(buf + (size_t)t * 60000, sts[t].count, 0, R, 900 + t, 0);
        }
    }
    mp_barrier();
    if (me == R) printf("truncate: %d cases and waitall ok\n", cases);
    free(buf);
    mp_finalize();
    return 0;
}
