/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ssend: a synchronous send completes only once the receiver has matched it.
 * Rank 0 starts ump_issend; for 200 ms ump_test must say "not done" (the
 * receiver is busy waiting for a go-message on the control context and has
 * not posted the receive, although the data or its request have arrived);
 * then rank 0 sends the go, the receiver posts its receive and the issend
 * must complete. Eager and rendezvous sizes. Also blocking ump_ssend against
 * a receive that is posted only after a delay: it must block at least that long.
 */
#include "mp_common.h"

static const size_t szs[] = {0, 1, 100, 8000, 9000, 60000, 70000, 300000, 2 << 20};

int main(int argc, char **argv)
{
    mp_init("ssend", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    unsigned char *buf = mp_malloc((2 << 20) + 1);
    ump_status_t st;

    for (size_t i = 0; i < sizeof(szs) / sizeof(szs[0]); i++) {
        size_t n = szs[i];
        int tag = 10 + (int)i;
        if (me == 0) {
            ump_req_t q;
            int done = 0;
            mp_fill(buf, n, 0, R, tag, n);
            MP_CALL(ump_issend(buf, n, UMP_BYTE, R, tag, 0, &q));
            double t0 = mp_now();
            while (mp_now() - t0 < 0.2) {
                MP_CALL(ump_test(&q, &done, &st));
                MP_CHECK(!done,
                         "issend of %zu bytes completed after %.0f ms although the receiver has "
                         "not posted a receive",
                         n, (mp_now() - t0) * 1e3);
                mp_sleep_ms(1);
            }
            mp_send_go(R);
            t0 = mp_now();
            while (!done) {
                MP_CALL(ump_test(&q, &done, &st));
                MP_CHECK(done || mp_now() - t0 < 20,
                         "issend of %zu bytes not complete 20 s after the receive was posted", n);
                if (!done) mp_sleep_ms(1);
            }
            MP_CHECK(q == UMP_REQ_NULL && st.error == UMP_OK, "issend status error %d", st.error);

            /* blocking ssend: the receiver posts 150 ms after our go */
            mp_fill(buf, n, 0, R, tag + 100, n);
            mp_send_go(R);
            t0 = mp_now();
            MP_CALL(ump_ssend(buf, n, UMP_BYTE, R, tag + 100, 0));
            double dt = mp_now() - t0;
            MP_CHECK(dt > 0.1,
                     "ssend of %zu bytes returned after %.1f ms, before the receive "
                     "was posted (150 ms)",
                     n, dt * 1e3);
        } else if (me == R) {
            mp_recv_go(0);
            memset(buf, 0, n);
            MP_CALL(ump_recv(buf, n, UMP_BYTE, 0, tag, 0, &st));
            MP_CHECK(st.count == n, "count %zu of %zu", st.count, n);
            MP_CHECK_DATA(buf, n, 0, R, tag, n);

            mp_recv_go(0);
            mp_sleep_ms(150);
            MP_CALL(ump_recv(buf, n, UMP_BYTE, 0, tag + 100, 0, &st));
            MP_CHECK(st.count == n, "count %zu of %zu", st.count, n);
            MP_CHECK_DATA(buf, n, 0, R, tag + 100, n);
        }
    }
    mp_barrier();
    if (me == 0) printf("ssend: %zu sizes ok\n", sizeof(szs) / sizeof(szs[0]));
    free(buf);
    mp_finalize();
    return 0;
}
