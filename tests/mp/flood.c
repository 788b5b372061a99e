/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flood: the other ranks send NMSG x 1 KiB eager messages in all (an equal
 * share each) to the last rank, R,
 * which for 1 s drives progress (ump_progress and an ump_iprobe for a tag
 * nobody sends) without posting a receive, so everything that arrives is
 * unexpected; then it receives them all. A receiver that merely slept would
 * not read its rings or sockets and would prove nothing. The unexpected data
 * rank 1 may hold is bounded by credit flow control, so its peak resident
 * size (getrusage ru_maxrss) may grow by at most LIMIT_MB over its size
 * before the flood, far below the NMSG KiB sent. Every message is checked,
 * in order. With more than two ranks this is a fan-in: the bound must hold
 * for the sum of what every sender may have outstanding.
 *
 * usage: flood [NMSG [LIMIT_MB]]     (defaults 100000 and 64)
 */
#include <sys/resource.h>

#include "mp_common.h"

#define MSG 1024

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    mp_init("flood", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    long nmsg = argc > 1 ? atol(argv[1]) : 100000;
    long limit_mb = argc > 2 ? atol(argv[2]) : 64;
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    unsigned char buf[MSG];

    /* The barrier connects the pair both ways, so connection set-up is in
     * the baseline, not in the growth. */
    mp_barrier();
    long per = nmsg / (np - 1);
    if (me != R) {
        double t0 = mp_now();
        for (long i = 0; i < per; i++) {
            mp_fill(buf, MSG, me, R, 1, (uint64_t)i);
            MP_CALL(ump_send(buf, MSG, UMP_BYTE, R, 1, 0));
        }
        printf("flood: rank %d sent %ld x %d bytes in %.2f s\n", me, per, MSG, mp_now() - t0);
    } else {
        long base = maxrss_kb();
        ump_status_t st;
        int flag = 0;
        for (double t0 = mp_now(); mp_now() - t0 < 1.0;) {
            mp_progress_for(0.001);
            MP_CALL(ump_iprobe(0, 999, 0, &flag, &st));
            MP_CHECK(!flag, "iprobe matched tag 999, which nobody sends");
        }
        for (long i = 0; i < per; i++)
            for (int src = 0; src < R; src++) {
                MP_CALL(ump_recv(buf, MSG, UMP_BYTE, src, 1, 0, &st));
                MP_CHECK(st.count == MSG, "message %ld from %d: %zu bytes", i, src, st.count);
                MP_CHECK_DATA(buf, MSG, src, R, 1, (uint64_t)i);
            }
        long peak = maxrss_kb();
        printf("flood: rank %d received %ld messages; peak RSS %ld KiB, %ld KiB over the "
               "baseline of %ld KiB (limit %ld MiB, %ld MiB sent)\n",
               R, per * R, peak, peak - base, base, limit_mb, per * R * MSG >> 20);
        MP_CHECK(peak - base < limit_mb * 1024,
                 "unexpected messages grew RSS by %ld MiB (limit %ld MiB): no flow control",
                 (peak - base) >> 10, limit_mb);
    }
    mp_barrier();
    mp_finalize();
    return 0;
}
