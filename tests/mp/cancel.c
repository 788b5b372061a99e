/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cancel:
 *  1. A receive that never matches (tag nobody sends, and a wildcard one on
 *     a quiet context) is cancelled: ump_wait completes it, status.cancelled
 *     is 1, nothing was written into its buffer.
 *  2. A receive cancelled before its message was sent: the message, sent
 *     later, goes to the next receive posted (and not to the cancelled one).
 *  3. Cancelling a receive that already matched is a no-op: it completes
 *     normally with its data, cancelled = 0.
 *  4. Cancelling a send is refused with UMP_ERR_UNSUPPORTED and the send
 *     still completes.
 * Eager and rendezvous sizes for 2 and 3.
 */
#include "mp_common.h"

static const size_t szs[] = {10, 100000, 1 << 20};

int main(int argc, char **argv)
{
    mp_init("cancel", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    size_t cap = (1 << 20) + 64;
    unsigned char *a = mp_malloc(cap), *b = mp_malloc(cap);
    ump_status_t st;
    ump_req_t q, q2;

    /* 1 */
    if (me == R) {
        memset(a, 0x11, 64);
        MP_CALL(ump_irecv(a, 64, UMP_BYTE, 0, 999, 0, &q));
        MP_CALL(ump_irecv(b, 64, UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG, 77, &q2));
        mp_sleep_ms(20);
        MP_CALL(ump_cancel(&q));
        MP_CALL(ump_cancel(&q2));
        memset(&st, 0, sizeof(st));
        int rc = ump_wait(&q, &st);
        MP_CHECK(rc == UMP_OK || rc == UMP_ERR_CANCELLED, "wait on cancelled: %d (%s)", rc,
                 ump_status_name(rc));
        MP_CHECK(st.cancelled == 1 && q == UMP_REQ_NULL, "status.cancelled %d after cancel",
                 st.cancelled);
        MP_CHECK(st.count == 0, "cancelled receive reports %zu bytes", st.count);
        for (int j = 0; j < 64; j++)
            MP_CHECK(a[j] == 0x11, "cancelled receive wrote byte %d", j);
        memset(&st, 0, sizeof(st));
        rc = ump_wait(&q2, &st);
        MP_CHECK((rc == UMP_OK || rc == UMP_ERR_CANCELLED) && st.cancelled == 1,
                 "wildcard cancel: rc %d cancelled %d", rc, st.cancelled);
    }
    mp_barrier();

    for (size_t i = 0; i < sizeof(szs) / sizeof(szs[0]); i++) {
        size_t n = szs[i];
        int tag = 20 + (int)i;
        /* 2 */
        if (me == 0) {
            mp_recv_go(R);
            mp_fill(a, n, 0, R, tag, n);
            MP_CALL(ump_send(a, n, UMP_BYTE, R, tag, 0));
        } else if (me == R) {
            memset(a, 0x22, n);
            MP_CALL(ump_irecv(a, cap, UMP_BYTE, 0, tag, 0, &q));
            MP_CALL(ump_cancel(&q));
            MP_CALL(ump_wait(&q, &st));
            MP_CHECK(st.cancelled == 1, "receive not cancelled (nothing was sent yet)");
            MP_CALL(ump_irecv(b, cap, UMP_BYTE, 0, tag, 0, &q2));
            mp_send_go(0);
            MP_CALL(ump_wait(&q2, &st));
            MP_CHECK(!st.cancelled && st.count == n && st.tag == tag,
                     "next receive: cancelled %d count %zu tag %d", st.cancelled, st.count, st.tag);
            MP_CHECK_DATA(b, n, 0, R, tag, n);
            for (size_t j = 0; j < n; j++)
                MP_CHECK(a[j] == 0x22, "cancelled receive buffer written at %zu", j);
        }
        mp_barrier();

        /* 3: matched before the cancel; a later marker proves the arrival */
        if (me == 0) {
            mp_recv_go(R);
            mp_fill(a, n, 0, R, tag + 50, n);
            MP_CALL(ump_send(a, n, UMP_BYTE, R, tag + 50, 0));
            MP_CALL(ump_send(NULL, 0, UMP_BYTE, R, tag + 51, 0));
        } else if (me == R) {
            MP_CALL(ump_irecv(b, cap, UMP_BYTE, 0, tag + 50, 0, &q));
            mp_send_go(0);
            /* Same source and context: the marker cannot be matched before
             * the earlier message was matched. */
            MP_CALL(ump_recv(NULL, 0, UMP_BYTE, 0, tag + 51, 0, &st));
            MP_CALL(ump_cancel(&q));
            MP_CALL(ump_wait(&q, &st));
            MP_CHECK(!st.cancelled && st.count == n && st.error == UMP_OK,
                     "cancel after match: cancelled %d count %zu error %d", st.cancelled, st.count,
                     st.error);
            MP_CHECK_DATA(b, n, 0, R, tag + 50, n);
        }
        mp_barrier();
    }

    /* 4 */
    if (me == 0) {
        mp_fill(a, 100000, 0, R, 60, 0);
        MP_CALL(ump_issend(a, 100000, UMP_BYTE, R, 60, 0, &q));
        int rc = ump_cancel(&q);
        MP_CHECK(rc == UMP_ERR_UNSUPPORTED, "cancel of a send returned %d (%s)", rc,
                 ump_status_name(rc));
        MP_CHECK(q != UMP_REQ_NULL, "refused cancel released the send request");
        mp_send_go(R);
        MP_CALL(ump_wait(&q, &st));
        MP_CHECK(!st.cancelled, "send reports cancelled");
    } else if (me == R) {
        mp_recv_go(0);
        MP_CALL(ump_recv(b, cap, UMP_BYTE, 0, 60, 0, &st));
        MP_CHECK(st.count == 100000, "count %zu", st.count);
        MP_CHECK_DATA(b, 100000, 0, R, 60, 0);
    }
    mp_barrier();
    if (me == R) printf("cancel: ok\n");
    free(a);
    free(b);
    mp_finalize();
    return 0;
}
