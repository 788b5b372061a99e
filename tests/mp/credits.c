/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * More eager data than the receiver's credit window, received in reverse
 * order: the earlier messages hold every credit while the receiver waits
 * for the last one, so the sender must get the later messages through
 * without credits (as RTS), or the job deadlocks. Both ranks do it at once.
 */
#include "mp_common.h"

int main(int argc, char **argv)
{
    mp_init("credits", &argc, &argv);
    int me = ump_rank(), peer = me ^ 1;
    if (peer >= ump_size()) MP_FAIL("needs an even number of ranks");
    enum { N = 800, LEN = 6000 }; /* 4.8 MB: over twice the default 2 MiB window */
    unsigned char *s = mp_malloc((size_t)N * LEN), *r = mp_malloc((size_t)N * LEN);
    ump_req_t sr[N], rr[N];
    for (int i = 0; i < N; i++) {
        mp_fill(s + (size_t)i * LEN, LEN, me, peer, i, (uint64_t)i);
        MP_CALL(ump_isend(s + (size_t)i * LEN, LEN, UMP_BYTE, peer, i, 0, &sr[i]));
    }
    /* Let everything that can arrive arrive unexpected first. */
    mp_progress_for(0.2);
    for (int i = N - 1; i >= 0; i--) {
        ump_status_t st;
        MP_CALL(ump_irecv(r + (size_t)i * LEN, LEN, UMP_BYTE, peer, i, 0, &rr[i]));
        MP_CALL(ump_wait(&rr[i], &st));
        MP_CHECK(st.count == LEN && st.tag == i, "message %d: %zu bytes, tag %d", i, st.count,
                 st.tag);
        MP_CHECK_DATA(r + (size_t)i * LEN, LEN, peer, me, i, (uint64_t)i);
    }
    MP_CALL(ump_waitall(N, sr, UMP_STATUS_IGNORE));
    free(s);
    free(r);
    mp_finalize();
    return 0;
}
