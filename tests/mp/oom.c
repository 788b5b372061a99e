/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * oom: an unexpected message whose data finds no memory is reported, never
 * silently replaced. Run with UMP_CORE_FAIL_UNEXP=N (every Nth unexpected
 * message's data allocation fails). Rank 0 sends M messages to rank 1 on
 * one context with tags cycling over 0..2 and sizes from 0 to 4 KiB, every
 * third one synchronous (issend), before rank 1 posts anything; rank 1
 * then receives them in order, each with its own tag. Every receive either
 * gets exactly its message (data checked) or fails with UMP_ERR_NO_MEMORY;
 * none gets another message's data. A synchronous send fails exactly when
 * its receive failed (rank 1 reports its failures to rank 0). With N > 0
 * at least one failure must happen, and the reserve of data-less records
 * (64) is not exceeded for M <= 64 * N.
 *
 * usage: oom [M]    (default 60)
 */
#include <stdbool.h>

#include "mp_common.h"

#define CTX      5
#define MAX_MSGS 256
#define MAX_LEN  4096

static size_t len_of(int i)
{
    static const size_t lens[] = {0, 1, 8, 100, 119, 120, 121, 1000, 4096};
    return lens[i % (int)(sizeof(lens) / sizeof(lens[0]))];
}

int main(int argc, char **argv)
{
    mp_prog = "oom";
    int m = argc > 1 ? atoi(argv[1]) : 60;
    MP_CHECK(m > 0 && m <= MAX_MSGS, "usage: oom [M<=%d]", MAX_MSGS);
    MP_CALL(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL));
    MP_CHECK(ump_size() == 2, "needs 2 ranks");
    int me = ump_rank();
    const char *fail = getenv("UMP_CORE_FAIL_UNEXP");
    bool injecting = fail && atoi(fail) > 0;
    char *buf = mp_malloc(MAX_LEN);
    unsigned char failed[MAX_MSGS] = {0};

    if (me == 0) {
        ump_req_t reqs[MAX_MSGS];
        bool sync[MAX_MSGS];
        char *bufs[MAX_MSGS];
        for (int i = 0; i < m; i++) {
            char *b = bufs[i] = mp_malloc(MAX_LEN);
            mp_fill(b, len_of(i), 0, 1, i % 3, (uint64_t)i);
            sync[i] = i % 3 == 2;
            if (sync[i])
                MP_CALL(ump_issend(b, len_of(i), UMP_BYTE, 1, i % 3, CTX, &reqs[i]));
            else
                MP_CALL(ump_isend(b, len_of(i), UMP_BYTE, 1, i % 3, CTX, &reqs[i]));
        }
        mp_send_go(1);
        int rcs[MAX_MSGS];
        for (int i = 0; i < m; i++) {
            ump_status_t st;
            rcs[i] = ump_wait(&reqs[i], &st);
            free(bufs[i]);
        }
        MP_CALL(ump_recv(failed, (size_t)m, UMP_BYTE, 1, 9, MP_CTX_CTRL, UMP_STATUS_IGNORE));
        for (int i = 0; i < m; i++) {
            if (sync[i])
                MP_CHECK(rcs[i] == (failed[i] ? UMP_ERR_NO_MEMORY : UMP_OK),
                         "ssend %d returned %d, its receive %s", i, rcs[i],
                         failed[i] ? "failed" : "succeeded");
            else
                MP_CHECK(rcs[i] == UMP_OK, "send %d returned %d", i, rcs[i]);
        }
    } else {
        /* All of rank 0's messages arrive before any receive is posted:
         * the go message follows them on an ordered channel. */
        mp_recv_go(0);
        int nfail = 0;
        for (int i = 0; i < m; i++) {
            ump_status_t st;
            memset(buf, 0x5a, MAX_LEN);
            int rc = ump_recv(buf, MAX_LEN, UMP_BYTE, 0, i % 3, CTX, &st);
            if (rc == UMP_ERR_NO_MEMORY) {
                MP_CHECK(st.source == 0 && st.tag == i % 3, "failed receive %d: source %d tag %d",
                         i, st.source, st.tag);
                MP_CHECK(st.msg_len == len_of(i), "failed receive %d names %zu bytes, sent %zu", i,
                         (size_t)st.msg_len, len_of(i));
                failed[i] = 1;
                nfail++;
                continue;
            }
            MP_CHECK(rc == UMP_OK, "receive %d returned %d", i, rc);
            MP_CHECK(st.count == len_of(i), "receive %d: %zu bytes, sent %zu", i, (size_t)st.count,
                     len_of(i));
            MP_CHECK_DATA(buf, len_of(i), 0, 1, i % 3, (uint64_t)i);
        }
        printf("%d of %d receives failed for want of memory\n", nfail, m);
        if (injecting)
            MP_CHECK(nfail > 0 && nfail < m, "%d of %d failed", nfail, m);
        else
            MP_CHECK(nfail == 0, "%d of %d failed without injection", nfail, m);
        MP_CALL(ump_send(failed, (size_t)m, UMP_BYTE, 0, 9, MP_CTX_CTRL));
    }
    mp_barrier();
    free(buf);
    MP_CALL(ump_finalize());
    return 0;
}
