/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wake: no lost wake-ups. Ranks 2k and 2k+1 ping-pong small messages N
 * times; before each send a rank works for a random 0-40 us, so the
 * receiver is often just going to sleep, or just asleep, when the message
 * arrives. Run with UMP_WAIT=block and a short spin, every wait ends in the
 * transport's sleep handshake. A message published without a wake-up costs
 * the sleeper its safety timeout (100 ms), so more than a few round trips
 * that slow fail the test; the data of every message is checked.
 *
 * usage: wake [N [BYTES]]    (defaults 3000 round trips, 24 bytes)
 */
#include <stdbool.h>

#include "mp_common.h"

#define SLOW_S    0.099 /* a missed wake-up costs the 100 ms safety timeout */
#define SLOW_MAX  3     /* tolerated: a loaded machine may stall a rank */
#define MAX_BYTES 4096

static void work_us(unsigned us)
{
    double end = mp_now() + us * 1e-6;
    while (mp_now() < end)
        ;
}

int main(int argc, char **argv)
{
    mp_prog = "wake";
    long n = argc > 1 ? atol(argv[1]) : 3000;
    size_t bytes = argc > 2 ? mp_parse_size(argv[2]) : 24;
    MP_CHECK(n > 0 && bytes <= MAX_BYTES, "usage: wake [N [BYTES<=4096]]");
    MP_CALL(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL));
    int me = ump_rank(), np = ump_size();
    int peer = me ^ 1;
    if (peer >= np) { /* odd rank count: the last one only joins the barrier */
        mp_barrier();
        MP_CALL(ump_finalize());
        return 0;
    }
    char sb[MAX_BYTES], rb[MAX_BYTES];
    uint64_t rnd = mp_mix64((uint64_t)me + 77);
    int slow = 0;
    double worst = 0;
    mp_barrier();
    double t0 = mp_now();
    for (long i = 0; i < n; i++) {
        double t = mp_now();
        for (int leg = 0; leg < 2; leg++) {
            bool sending = (leg == 0) == (me % 2 == 0);
            int src = sending ? me : peer, dst = sending ? peer : me;
            if (sending) {
                rnd = mp_mix64(rnd);
                work_us((unsigned)(rnd % 41));
                mp_fill(sb, bytes, src, dst, 5, (uint64_t)i);
                MP_CALL(ump_send(sb, bytes, UMP_BYTE, dst, 5, 1));
            } else {
                ump_status_t st;
                memset(rb, 0, bytes);
                MP_CALL(ump_recv(rb, bytes, UMP_BYTE, src, 5, 1, &st));
                MP_CHECK(st.count == bytes, "round trip %ld: %zu bytes", i, (size_t)st.count);
                MP_CHECK_DATA(rb, bytes, src, dst, 5, (uint64_t)i);
            }
        }
        t = mp_now() - t;
        if (t > worst) worst = t;
        if (t >= SLOW_S) slow++;
    }
    double total = mp_now() - t0;
    printf("rank %d: %ld round trips in %.3f s, slowest %.1f ms, %d at or above %.0f ms\n", me, n,
           total, worst * 1e3, slow, SLOW_S * 1e3);
    MP_CHECK(slow <= SLOW_MAX, "%d round trips took >= %.0f ms: wake-ups were lost", slow,
             SLOW_S * 1e3);
    mp_barrier();
    MP_CALL(ump_finalize());
    return 0;
}
