/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport's receive side: the 48-byte hello an acceptor reads,
 * then the frame parser fed the rest of the bytes in pieces of the sizes
 * the input chooses, exactly as tcp_conn.c drives it (rx_space, commit,
 * rx_next until it says 0 or an error).
 *
 * Input: u8 max-frame choice, u8 job size, 48 hello bytes, then records
 * { u16 piece length, bytes }.
 */
#include <string.h>

#include "fuzz.h"
#include "xport/tcp/tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size, 0};
    static const size_t maxes[] = {0, 8, 64, 4096, 65536, 1 << 20};
    size_t max_am = maxes[fuzz_u8(&in) % UMP_ARRAY_SIZE(maxes)];
    int jobsize = fuzz_u8(&in) % 8 + 1;

    size_t got;
    const uint8_t *hb = fuzz_bytes(&in, sizeof(ump_tcp_hello_t), &got);
    if (got == sizeof(ump_tcp_hello_t)) {
        ump_tcp_hello_t h;
        memcpy(&h, hb, sizeof(h));
        int rank = -1;
        static const uint8_t job[8] = "fuzzjob";
        int rc = ump_tcp_hello_check(&h, job, jobsize, &rank);
        bool mine = !memcmp(h.job, job, sizeof(job));
        if (rc == UMP_OK && (rank < 0 || (mine && rank >= jobsize)))
            fuzz_fail("hello accepted with rank %d of %d", rank, jobsize);
    }

    ump_tcp_rx_t rx;
    ump_tcp_rx_init(&rx, max_am);
    bool broken = false;
    while (fuzz_left(&in) && !broken) {
        size_t want = fuzz_u16(&in), n;
        const uint8_t *piece = fuzz_bytes(&in, want, &n);
        while (n && !broken) {
            size_t room;
            uint8_t *p = ump_tcp_rx_space(&rx, &room);
            if (!p || room == 0) fuzz_fail("no receive room with frames drained");
            size_t k = n < room ? n : room;
            memcpy(p, piece, k);
            ump_tcp_rx_commit(&rx, k);
            piece += k;
            n -= k;
            uint8_t am_id, flags;
            const void *d;
            size_t len;
            int r;
            while ((r = ump_tcp_rx_next(&rx, &am_id, &flags, &d, &len)) == 1) {
                if (len > max_am) fuzz_fail("frame of %zu bytes over the %zu limit", len, max_am);
                if ((uintptr_t)d % UMP_TCP_FRAME_ALIGN)
                    fuzz_fail("frame data not %d-byte aligned", UMP_TCP_FRAME_ALIGN);
                const uint8_t *b = d;
                if (b < rx.buf || b + len > rx.buf + rx.end)
                    fuzz_fail("frame data outside the receive buffer");
                /* Touch every byte: the AM handler reads all of it. */
                volatile uint8_t sum = 0;
                for (size_t i = 0; i < len; i++)
                    sum ^= b[i];
                (void)sum;
            }
            if (r < 0) broken = true; /* the connection would be dropped */
        }
    }
    ump_tcp_rx_fini(&rx);
    return 0;
}
