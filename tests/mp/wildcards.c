/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wildcards: UMP_ANY_SOURCE and UMP_ANY_TAG with 4 (or more) ranks. Each rank
 * in turn is the root; the others send to it. The root checks that the status
 * names the real source, tag and byte count, that the data are the ones that
 * source sent with that tag, and that messages from one source arrive in the
 * order it sent them even through wildcard receives.
 *   phase A: ANY_SOURCE + ANY_TAG, blocking receives, eager and rendezvous sizes
 *   phase B: ANY_SOURCE + a given tag (tags picked in reverse rank order)
 *   phase C: a given source + ANY_TAG (sources picked in reverse order)
 *   phase D: wildcard irecvs posted before any sender starts, waitany
 */
#include "mp_common.h"

#define NMSG 6
static const size_t msg_sizes[NMSG] = {0, 17, 9000, 70000, 300000, 1 << 20};
#define CAP ((1 << 20) + 128)

static void send_phase(int root, int me, int base)
{
    static unsigned char buf[CAP];
    for (int k = 0; k < NMSG; k++) {
        int tag = base + me * 100 + k;
        mp_fill(buf, msg_sizes[k], me, root, tag, (uint64_t)k);
        MP_CALL(ump_send(buf, msg_sizes[k], UMP_BYTE, root, tag, 0));
    }
}

int main(int argc, char **argv)
{
    mp_init("wildcards", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 3, "needs at least 3 ranks, got %d", np);
    unsigned char *rbuf = mp_malloc(CAP);
    int *next_k = mp_malloc(sizeof(int) * (size_t)np);
    ump_status_t st;

    for (int root = 0; root < np; root++) {
        /* A: full wildcards */
        mp_barrier();
        if (me != root) {
            send_phase(root, me, 0);
        } else {
            for (int i = 0; i < np; i++)
                next_k[i] = 0;
            for (int m = 0; m < (np - 1) * NMSG; m++) {
                memset(&st, 0xff, sizeof(st));
                MP_CALL(ump_recv(rbuf, CAP, UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &st));
                MP_CHECK(st.source >= 0 && st.source < np && st.source != me, "A: bad source %d",
                         st.source);
                int k = next_k[st.source]++;
                MP_CHECK(k < NMSG, "A: too many messages from %d", st.source);
                MP_CHECK(st.tag == st.source * 100 + k, "A: from %d expected tag %d (order) got %d",
                         st.source, st.source * 100 + k, st.tag);
                MP_CHECK(st.count == msg_sizes[k] && st.msg_len == msg_sizes[k] &&
                             st.error == UMP_OK && !st.cancelled,
                         "A: count %zu len %zu err %d, expected %zu", st.count, st.msg_len,
                         st.error, msg_sizes[k]);
                MP_CHECK_DATA(rbuf, st.count, st.source, me, st.tag, (uint64_t)k);
            }
        }

        /* B: ANY_SOURCE with a given tag, tags chosen highest rank first */
        mp_barrier();
        if (me != root) {
            int tag = 5000 + me;
            size_t n = (size_t)(me * 40000 + 3);
            mp_fill(rbuf, n, me, root, tag, 0);
            MP_CALL(ump_send(rbuf, n, UMP_BYTE, root, tag, 0));
        } else {
            for (int src = np - 1; src >= 0; src--) {
                if (src == me) continue;
                int tag = 5000 + src;
                size_t n = (size_t)(src * 40000 + 3);
                MP_CALL(ump_recv(rbuf, CAP, UMP_BYTE, UMP_ANY_SOURCE, tag, 0, &st));
                MP_CHECK(st.source == src && st.tag == tag && st.count == n,
                         "B: tag %d: source %d tag %d count %zu (want %d, %zu)", tag, st.source,
                         st.tag, st.count, src, n);
                MP_CHECK_DATA(rbuf, n, src, me, tag, 0);
            }
        }

        /* C: a given source with ANY_TAG, sources chosen highest first; each
         * sends two messages and ANY_TAG must give them in order */
        mp_barrier();
        if (me != root) {
            for (int j = 0; j < 2; j++) {
                int tag = 7000 + me * 10 + j;
                size_t n = j ? 100000 : 50;
                mp_fill(rbuf, n, me, root, tag, (uint64_t)j);
                MP_CALL(ump_send(rbuf, n, UMP_BYTE, root, tag, 0));
            }
        } else {
            for (int src = np - 1; src >= 0; src--) {
                if (src == me) continue;
                for (int j = 0; j < 2; j++) {
                    int tag = 7000 + src * 10 + j;
                    size_t n = j ? 100000 : 50;
                    MP_CALL(ump_recv(rbuf, CAP, UMP_BYTE, src, UMP_ANY_TAG, 0, &st));
                    MP_CHECK(st.source == src && st.tag == tag && st.count == n,
                             "C: src %d: got source %d tag %d count %zu (want tag %d, %zu)", src,
                             st.source, st.tag, st.count, tag, n);
                    MP_CHECK_DATA(rbuf, n, src, me, tag, (uint64_t)j);
                }
            }
        }

        /* D: wildcard receives posted first, completed through waitany */
        ump_req_t reqs[64];
        unsigned char *bufs[64];
        int nr = np - 1;
        MP_CHECK(nr <= 64, "too many ranks");
        if (me == root) {
            for (int i = 0; i < nr; i++) {
                bufs[i] = mp_malloc(200000);
                MP_CALL(
                    ump_irecv(bufs[i], 200000, UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG, 0, &reqs[i]));
            }
        }
        mp_barrier();
        if (me != root) {
            int tag = 9000 + me;
            size_t n = (size_t)(me * 33333);
            mp_fill(rbuf, n, me, root, tag, 0);
            MP_CALL(ump_send(rbuf, n, UMP_BYTE, root, tag, 0));
        } else {
            int seen = 0;
            for (int c = 0; c < nr; c++) {
                int idx = -2;
                MP_CALL(ump_waitany((size_t)nr, reqs, &idx, &st));
                MP_CHECK(idx >= 0 && idx < nr && reqs[idx] == UMP_REQ_NULL, "D: waitany index %d",
                         idx);
                int src = st.source;
                MP_CHECK(src >= 0 && src < np && src != me && !(seen & (1 << src)),
                         "D: bad or repeated source %d", src);
                seen |= 1 << src;
                MP_CHECK(st.tag == 9000 + src && st.count == (size_t)(src * 33333),
                         "D: src %d tag %d count %zu", src, st.tag, st.count);
                MP_CHECK_DATA(bufs[idx], st.count, src, me, st.tag, 0);
                free(bufs[idx]);
            }
            int idx = 5;
            MP_CALL(ump_waitany((size_t)nr, reqs, &idx, &st));
            MP_CHECK(idx == -1, "D: waitany on all-null handles gave index %d", idx);
        }
    }
    mp_barrier();
    if (me == 0) printf("wildcards: %d roots x 4 phases ok\n", np);
    free(rbuf);
    free(next_k);
    mp_finalize();
    return 0;
}
