/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * self: every rank sends to itself, sizes across every threshold up to 8 MiB.
 *   isend first, then a blocking recv, then wait for the send;
 *   irecv first, then a blocking send;
 *   a wildcard receive (ANY_SOURCE, ANY_TAG) that must find the self message;
 *   ssend to self against a posted irecv.
 * Self-sends work whatever UMP_TRANSPORTS says.
 */
#include "mp_common.h"

static const size_t szs[] = {0,      1,      7,       64,      65,           1000,  8191,
                             8192,   8193,   32768,   65535,   65536,        65537, 262143,
                             262144, 262145, 1000003, 4 << 20, (8 << 20) + 5};

int main(int argc, char **argv)
{
    mp_init("self", &argc, &argv);
    int me = ump_rank();
    size_t cap = (8 << 20) + 64;
    unsigned char *s = mp_malloc(cap), *r = mp_malloc(cap);
    ump_status_t st;
    ump_req_t q;
    for (size_t i = 0; i < sizeof(szs) / sizeof(szs[0]); i++) {
        size_t n = szs[i];
        int tag = (int)i;

        mp_fill(s, n, me, me, tag, 1);
        memset(r, 0x5a, n);
        MP_CALL(ump_isend(s, n, UMP_BYTE, me, tag, 0, &q));
        MP_CALL(ump_recv(r, cap, UMP_BYTE, me, tag, 0, &st));
        MP_CALL(ump_wait(&q, UMP_STATUS_IGNORE));
        MP_CHECK(st.source == me && st.tag == tag && st.count == n && st.msg_len == n,
                 "isend+recv %zu: src %d tag %d count %zu", n, st.source, st.tag, st.count);
        MP_CHECK_DATA(r, n, me, me, tag, 1);

        mp_fill(s, n, me, me, tag, 2);
        memset(r, 0x5a, n);
        MP_CALL(ump_irecv(r, cap, UMP_BYTE, me, tag, 3, &q));
        MP_CALL(ump_send(s, n, UMP_BYTE, me, tag, 3));
        MP_CALL(ump_wait(&q, &st));
        MP_CHECK(st.source == me && st.tag == tag && st.count == n,
                 "irecv+send %zu: src %d tag %d count %zu", n, st.source, st.tag, st.count);
        MP_CHECK_DATA(r, n, me, me, tag, 2);

        mp_fill(s, n, me, me, tag + 100, 3);
        memset(r, 0x5a, n);
        MP_CALL(ump_isend(s, n, UMP_BYTE, me, tag + 100, 4, &q));
        MP_CALL(ump_recv(r, cap, UMP_BYTE, UMP_ANY_SOURCE, UMP_ANY_TAG, 4, &st));
        MP_CALL(ump_wait(&q, UMP_STATUS_IGNORE));
        MP_CHECK(st.source == me && st.tag == tag + 100 && st.count == n,
                 "wildcard %zu: src %d tag %d count %zu", n, st.source, st.tag, st.count);
        MP_CHECK_DATA(r, n, me, me, tag + 100, 3);

        mp_fill(s, n, me, me, tag, 4);
        memset(r, 0x5a, n);
        MP_CALL(ump_irecv(r, cap, UMP_BYTE, me, tag, 5, &q));
        MP_CALL(ump_ssend(s, n, UMP_BYTE, me, tag, 5));
        MP_CALL(ump_wait(&q, &st));
        MP_CHECK(st.count == n, "ssend %zu: count %zu", n, st.count);
        MP_CHECK_DATA(r, n, me, me, tag, 4);
    }
    printf("self: rank %d: %zu sizes ok\n", me, sizeof(szs) / sizeof(szs[0]));
    free(s);
    free(r);
    mp_finalize();
    return 0;
}
