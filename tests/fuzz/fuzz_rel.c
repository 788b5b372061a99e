/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The udp transport's receive path: the udp header check (magic and the
 * keyed tag, as udp_xport.c's udp_recv does it) and the reliability
 * engine's ump_rel_input() on what passes, for rank 0 of a four-rank job,
 * with the engine's own sends (acks, its data) going nowhere and a clock
 * the input moves.
 *
 * CRCs would stop almost every random datagram at the door, so by default
 * the harness sets the udp tag, both rel CRCs and the length right and lets the
 * fuzzer reach the protocol logic; a record's flag keeps them as given.
 *
 * Input: records { u8 op, u16 length, bytes }. op bits: 0x01 keep the
 * CRCs and tag as given; 0x02 advance the clock by (op >> 4) ms and poll;
 * 0x04 also send an AM of `length` bytes to peer 1 + (op >> 2 & 1) first
 * (so acks from the input have something to acknowledge).
 */
#include <string.h>

#include "fuzz.h"
#include "util/crc32c.h"
#include "xport/rel/rel.h"
#include "xport/udp/udp.h"

#define NRANK   4
#define MTU     1500
#define MAX_AM  (64 * 1024)
#define JOB_KEY 0x5eedc0deu

static uint64_t clock_ns;
static uint64_t fake_clock(void *ctx)
{
    return clock_ns;
}

static int fake_open(void *ctx, int peer, size_t *mtu)
{
    *mtu = MTU;
    return 0;
}

static int fake_send(void *ctx, const ump_rel_dgram_t *d, int n)
{
    for (int i = 0; i < n; i++)
        if (d[i].len < sizeof(ump_rel_hdr_t) || d[i].len > MTU || d[i].peer < 0 ||
            d[i].peer >= NRANK)
            fuzz_fail("engine sent %zu bytes to peer %d", d[i].len, d[i].peer);
    return n;
}

static void deliver(void *arg, int peer, uint8_t am_id, const void *data, size_t len)
{
    if (peer < 1 || peer >= NRANK || len > MAX_AM)
        fuzz_fail("delivered %zu bytes from peer %d", len, peer);
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum ^= ((const uint8_t *)data)[i];
    (void)sum;
}

static void peer_failed(void *arg, int peer, int status) {}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size, 0};
    ump_rel_config_t cfg;
    ump_rel_config_default(&cfg);
    cfg.max_am = MAX_AM;
    cfg.drop = cfg.dup = cfg.reorder = cfg.corrupt = 0;
    cfg.stats = false;
    ump_rel_lower_t lower = {
        .mtu = MTU, .peer_open = fake_open, .send = fake_send, .clock = fake_clock};
    ump_rel_upper_t upper = {.deliver = deliver, .peer_failed = peer_failed};
    ump_rel_t *rel;
    clock_ns = 1000000000ull;
    if (ump_rel_create("fuzz", 0, NRANK, &cfg, &lower, &upper, &rel)) return 0;

    /* The udp datagram, 8-byte aligned as the receive batch slots are. */
    static uint64_t slot[(UMP_UDP_HDR + MTU) / 8 + 1];
    static uint8_t payload[MAX_AM];
    while (fuzz_left(&in)) {
        uint8_t op = fuzz_u8(&in);
        size_t want = fuzz_u16(&in), n;
        if (op & 0x04) {
            size_t amlen = want % MAX_AM;
            ump_rel_send(rel, 1 + (op >> 2 & 1), 7, NULL, 0, &(struct iovec){payload, amlen}, 1);
        }
        if (op & 0x02) {
            clock_ns += (uint64_t)(op >> 4) * 1000000ull;
            ump_rel_poll(rel);
        }
        const uint8_t *p = fuzz_bytes(&in, want, &n);
        if (n > UMP_UDP_HDR + MTU) n = UMP_UDP_HDR + MTU;
        uint8_t *b = (uint8_t *)slot;
        memcpy(b, p, n);
        if (!(op & 0x01) && n >= UMP_UDP_HDR) {
            uint8_t *r = b + UMP_UDP_HDR;
            size_t rlen = n - UMP_UDP_HDR;
            if (rlen >= sizeof(ump_rel_hdr_t)) {
                ump_rel_hdr_t h;
                memcpy(&h, r, sizeof(h));
                h.len = (uint16_t)(rlen - sizeof(h));
                h.pcrc = h.len ? ump_crc32c(0, r + sizeof(h), rlen - sizeof(h)) : 0;
                memcpy(r, &h, sizeof(h));
                h.hcrc = ump_crc32c(0, r + 4, sizeof(h) - 4);
                memcpy(r, &h, sizeof(h));
            }
            ump_udp_hdr_t u = {UMP_UDP_MAGIC, ump_udp_tag(JOB_KEY, r, rlen)};
            memcpy(b, &u, sizeof(u));
        }
        /* udp_recv's filter, then the engine. */
        const ump_udp_hdr_t *u = (const ump_udp_hdr_t *)b;
        if (n < UMP_UDP_HDR || u->magic != UMP_UDP_MAGIC ||
            u->tag != ump_udp_tag(JOB_KEY, b + UMP_UDP_HDR, n - UMP_UDP_HDR))
            continue;
        ump_rel_input(rel, b + UMP_UDP_HDR, n - UMP_UDP_HDR);
    }
    ump_rel_stats_t st;
    ump_rel_get_stats(rel, &st);
    if (st.delivered > st.received)
        fuzz_fail("%llu AMs delivered from %llu datagrams", (unsigned long long)st.delivered,
                  (unsigned long long)st.received);
    ump_rel_destroy(rel);
    return 0;
}
