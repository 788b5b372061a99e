/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * finalize: "Outstanding sends are finished first." Rank 0 starts sends it
 * never waits for - eager, rendezvous and synchronous - and calls
 * ump_finalize at once. The receiver only posts its receives 300 ms later;
 * every message must still arrive intact, and rank 0's ump_finalize must
 * not return before the receiver has taken the synchronous one (it blocks
 * while the peer has not matched). The other ranks just finalize.
 */
#include "mp_common.h"

static const size_t szs[] = {0, 100, 50000, 3 << 20};
#define NS (sizeof(szs) / sizeof(szs[0]))
static unsigned char *bufs[NS + 1];

int main(int argc, char **argv)
{
    mp_init("finalize", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs 2 ranks");
    int R = np - 1;
    mp_barrier();
    if (me == 0) {
        ump_req_t q;
        for (size_t i = 0; i < NS; i++) {
            bufs[i] = mp_malloc(szs[i]);
            mp_fill(bufs[i], szs[i], 0, R, (int)i, 0);
            MP_CALL(ump_isend(bufs[i], szs[i], UMP_BYTE, R, (int)i, 0, &q));
        }
        bufs[NS] = mp_malloc(1000);
        mp_fill(bufs[NS], 1000, 0, R, 99, 0);
        MP_CALL(ump_issend(bufs[NS], 1000, UMP_BYTE, R, 99, 0, &q));
        double t0 = mp_now();
        MP_CALL(ump_finalize());
        double dt = mp_now() - t0;
        printf("finalize: rank 0's ump_finalize took %.3f s with sends outstanding\n", dt);
        MP_CHECK(dt > 0.2,
                 "ump_finalize returned after %.3f s, before the receiver (which waits "
                 "0.3 s) matched the synchronous send",
                 dt);
        return 0;
    }
    if (me == R) {
        mp_progress_for(0.3);
        unsigned char *b = mp_malloc(3 << 20);
        ump_status_t st;
        for (size_t i = 0; i <= NS; i++) {
            size_t n = i < NS ? szs[i] : 1000;
            int tag = i < NS ? (int)i : 99;
            MP_CALL(ump_recv(b, 3 << 20, UMP_BYTE, 0, tag, 0, &st));
            MP_CHECK(st.count == n, "message %zu: %zu bytes of %zu", i, st.count, n);
            MP_CHECK_DATA(b, n, 0, R, tag, 0);
        }
        free(b);
        printf("finalize: all sends of a finalizing rank arrived\n");
    }
    mp_finalize();
    return 0;
}
