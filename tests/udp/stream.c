/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream: rank r of the first half streams TOTAL bytes to rank r + n/2 in
 * messages of mixed sizes (eager and rendezvous), a few in flight at once;
 * the receiver checks every byte against the seeded pattern and the order
 * (each message's index is its tag). Over two network namespaces the pairs
 * cross the veth link, so a shaped, lossy link must be survived.
 *
 * usage: stream [TOTAL]      (default 32m)
 */
#include <stdbool.h>

#include "../mp/mp_common.h"

#define INFLIGHT 4

static const size_t sizes[] = {1024, 60 * 1024, 256 * 1024, 1024 * 1024, 7, 300 * 1000};

int main(int argc, char **argv)
{
    mp_init("stream", &argc, &argv);
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np % 2 == 0, "needs an even number of ranks, not %d", np);
    size_t total = argc > 1 ? mp_parse_size(argv[1]) : 32u << 20;
    int half = np / 2;
    bool sender = me < half;
    int peer = sender ? me + half : me - half;
    unsigned char *buf[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++)
        buf[i] = mp_malloc(1u << 20);
    ump_req_t req[INFLIGHT];
    size_t len[INFLIGHT];
    int tag[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++)
        req[i] = UMP_REQ_NULL;

    mp_barrier();
    double t0 = mp_now();
    size_t moved = 0;
    int n = 0, slot = 0;
    for (;;) {
        /* Complete the oldest, then reuse its slot. */
        if (req[slot] != UMP_REQ_NULL) {
            ump_status_t st;
            MP_CALL(ump_wait(&req[slot], &st));
            if (!sender) {
                MP_CHECK(st.tag == tag[slot], "message %d arrived as number %d", st.tag, tag[slot]);
                MP_CHECK(st.count == len[slot], "message %d: %zu bytes, want %zu", tag[slot],
                         (size_t)st.count, len[slot]);
                MP_CHECK_DATA(buf[slot], len[slot], peer, me, tag[slot], (uint64_t)tag[slot]);
            }
        }
        if (moved >= total) {
            /* Drain the rest. */
            bool left = false;
            for (int i = 0; i < INFLIGHT; i++)
                left |= req[i] != UMP_REQ_NULL;
            if (!left) break;
            slot = (slot + 1) % INFLIGHT;
            continue;
        }
        size_t sz = sizes[n % (int)(sizeof(sizes) / sizeof(sizes[0]))];
        if (sz > total - moved) sz = total - moved;
        len[slot] = sz;
        tag[slot] = n;
        if (sender) {
            mp_fill(buf[slot], sz, me, peer, n, (uint64_t)n);
            MP_CALL(ump_isend(buf[slot], sz, UMP_BYTE, peer, n, 0, &req[slot]));
        } else {
            /* The tag fixes the order: message n must match receive n. */
            MP_CALL(ump_irecv(buf[slot], 1u << 20, UMP_BYTE, peer, UMP_ANY_TAG, 0, &req[slot]));
        }
        moved += sz;
        n++;
        slot = (slot + 1) % INFLIGHT;
    }
    double dt = mp_now() - t0;
    if (!sender)
        printf("stream: rank %d got %zu bytes in %d messages from rank %d, all correct, in %.2f s "
               "(%.1f MB/s)\n",
               me, moved, n, peer, dt, (double)moved / dt / 1e6);
    mp_barrier();
    for (int i = 0; i < INFLIGHT; i++)
        free(buf[i]);
    mp_finalize();
    return 0;
}
