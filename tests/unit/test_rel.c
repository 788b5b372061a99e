/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reliability engine against a scripted in-memory datagram network.
 *
 * Several engines (one per "rank") live in this process. Their lower layer
 * puts datagrams into a simulated network that can drop, duplicate, delay
 * (and so reorder) and corrupt them, or black-hole a direction entirely;
 * a fake clock drives every timer, so runs are fast and reproducible.
 * Every AM carries (source, sequence number) and a seeded byte pattern, and
 * the receiver checks order and bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ump.h"

#include "util/crc32c.h"
#include "util/util.h"
#include "xport/rel/rel.h"

#define NR     3
#define MTU    1500
#define MAX_AM (64 * 1024)
#define MAXPKT 20000

typedef struct pkt {
    int src, dst;
    uint64_t at; /* delivery time */
    size_t len;
    uint64_t data[MTU / 8 + 1];
} pkt_t;

typedef struct net {
    uint64_t now;
    pkt_t *q[MAXPKT];
    int nq;
    double drop, dup, corrupt;
    uint64_t jitter_ns; /* random extra delay, reorders */
    uint64_t delay_ns;  /* one-way latency */
    bool blackhole[NR][NR];
    int drop_nth[NR]; /* drop the n-th datagram (1-based) sent by a rank; 0: none */
    int sent[NR];
    uint64_t rng;
} net_t;

static net_t net;

typedef struct rank {
    int id;
    ump_rel_t *rel;
    uint32_t next_send[NR], next_recv[NR];
    unsigned bad;
    int failed[NR];
    uint64_t failed_at[NR];
} rank_t;

static rank_t ranks[NR];

static uint64_t rnd64(void)
{
    uint64_t x = net.rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    net.rng = x;
    return x * 0x2545f4914f6cdd1dull;
}
static double rndu(void)
{
    return (double)(rnd64() >> 11) / 9007199254740992.0;
}

static uint8_t pat(int src, int dst, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 31 + dst * 7 + seq * 131u + i * 13u + (i >> 8));
}

static uint64_t clock_cb(void *ctx)
{
    return net.now;
}

static int peer_open(void *ctx, int peer, size_t *mtu)
{
    *mtu = MTU;
    return 0;
}

static void enqueue(int src, const ump_rel_dgram_t *d)
{
    assert_true(net.nq < MAXPKT);
    pkt_t *p = malloc(sizeof(*p));
    assert_non_null(p);
    assert_true(d->len <= MTU);
    p->src = src;
    p->dst = d->peer;
    p->len = d->len;
    memcpy(p->data, d->data, d->len);
    p->at = net.now + net.delay_ns + (net.jitter_ns ? rnd64() % net.jitter_ns : 0);
    if (rndu() < net.corrupt)
        ((uint8_t *)p->data)[rnd64() % p->len] ^= (uint8_t)(1 + rnd64() % 255);
    net.q[net.nq++] = p;
}

static int lower_send(void *ctx, const ump_rel_dgram_t *d, int n)
{
    rank_t *r = ctx;
    for (int i = 0; i < n; i++) {
        assert_true(d[i].peer >= 0 && d[i].peer < NR && d[i].peer != r->id);
        net.sent[r->id]++;
        if (net.drop_nth[r->id] && net.sent[r->id] == net.drop_nth[r->id]) continue;
        if (net.blackhole[r->id][d[i].peer]) continue;
        if (rndu() < net.drop) continue;
        enqueue(r->id, &d[i]);
        if (rndu() < net.dup) enqueue(r->id, &d[i]);
    }
    return n;
}

static void deliver(void *arg, int peer, uint8_t am_id, const void *data, size_t len)
{
    rank_t *r = arg;
    uint32_t seq;
    if (len < 4 || am_id != 5) {
        r->bad++;
        return;
    }
    memcpy(&seq, data, 4);
    if (seq != r->next_recv[peer]) r->bad++;
    r->next_recv[peer] = seq + 1;
    const uint8_t *b = data;
    for (size_t i = 4; i < len; i++)
        if (b[i] != pat(peer, r->id, seq, i)) {
            r->bad++;
            break;
        }
}

static void peer_failed(void *arg, int peer, int status)
{
    rank_t *r = arg;
    assert_int_equal(status, UMP_ERR_PEER_DEAD);
    r->failed[peer]++;
    r->failed_at[peer] = net.now;
}

static ump_rel_config_t base_cfg(void)
{
    return (ump_rel_config_t){
        .window = 16,
        .max_am = MAX_AM,
        .tx_max = 1 << 20,
        .rx_max = 1 << 20,
        .rto_init_ns = 10000000,
        .rto_min_ns = 2000000,
        .rto_max_ns = 200000000,
        .dead_ns = 2000000000,
        .ack_delay_ns = 200000,
        .ack_count = 4,
    };
}

static void setup_cfg(const ump_rel_config_t *cfg)
{
    memset(&net, 0, sizeof(net));
    net.rng = 0x1234567;
    net.delay_ns = 20000;
    for (int i = 0; i < NR; i++) {
        memset(&ranks[i], 0, sizeof(ranks[i]));
        ranks[i].id = i;
        ump_rel_lower_t lo = {.ctx = &ranks[i],
                              .mtu = MTU,
                              .peer_open = peer_open,
                              .send = lower_send,
                              .clock = clock_cb};
        ump_rel_upper_t up = {.arg = &ranks[i], .deliver = deliver, .peer_failed = peer_failed};
        assert_int_equal(ump_rel_create("test", i, NR, cfg, &lo, &up, &ranks[i].rel), 0);
    }
}

static void teardown(void)
{
    for (int i = 0; i < NR; i++)
        ump_rel_destroy(ranks[i].rel);
    for (int i = 0; i < net.nq; i++)
        free(net.q[i]);
    net.nq = 0;
}

/* Delivers every datagram due (in a random order among those due), then
 * polls every engine, then moves the clock by `step`. */
static void tick(uint64_t step)
{
    for (;;) {
        int due = 0;
        for (int i = 0; i < net.nq; i++)
            if (net.q[i]->at <= net.now) due++;
        if (!due) break;
        /* Without jitter the network keeps order (FIFO). */
        int k = net.jitter_ns ? (int)(rnd64() % (uint64_t)due) : 0;
        for (int i = 0; i < net.nq; i++) {
            if (net.q[i]->at > net.now) continue;
            if (k--) continue;
            pkt_t *p = net.q[i];
            memmove(&net.q[i], &net.q[i + 1], (size_t)(net.nq - i - 1) * sizeof(net.q[0]));
            net.nq--;
            ump_rel_input(ranks[p->dst].rel, p->data, p->len);
            free(p);
            break;
        }
    }
    for (int i = 0; i < NR; i++)
        ump_rel_poll(ranks[i].rel);
    net.now += step;
}

static int send_one(int src, int dst, size_t len)
{
    rank_t *r = &ranks[src];
    static uint8_t buf[MAX_AM];
    uint32_t seq = r->next_send[dst];
    memcpy(buf, &seq, 4);
    for (size_t i = 4; i < len; i++)
        buf[i] = pat(src, dst, seq, i);
    /* Header and payload in separate pieces, as the core gives them. */
    size_t hlen = len < 16 ? len : 16;
    struct iovec iov[2] = {{buf + hlen, (len - hlen) / 2},
                           {buf + hlen + (len - hlen) / 2, len - hlen - (len - hlen) / 2}};
    int rc = ump_rel_send(r->rel, dst, 5, buf, hlen, iov, 2);
    if (rc == 0) r->next_send[dst]++;
    return rc;
}

static size_t rnd_len(void)
{
    switch (rnd64() % 4) {
    case 0:
        return 4 + rnd64() % 64;
    case 1:
        return 4 + rnd64() % MTU;
    case 2:
        return 4 + rnd64() % (4 * MTU);
    default:
        return 4 + rnd64() % (MAX_AM - 4);
    }
}

/* Everyone sends `n` AMs of random sizes to everyone; runs the clock until
 * all arrived and all are acknowledged. Returns the simulated time taken. */
static uint64_t exchange(int n, uint64_t limit_ns)
{
    int left[NR][NR];
    for (int s = 0; s < NR; s++)
        for (int d = 0; d < NR; d++)
            left[s][d] = s == d ? 0 : n;
    uint64_t t0 = net.now;
    for (;;) {
        bool more = false;
        for (int s = 0; s < NR; s++)
            for (int d = 0; d < NR; d++) {
                while (left[s][d] > 0) {
                    int rc = send_one(s, d, rnd_len());
                    if (rc == UMP_ERR_NO_RESOURCE) break;
                    assert_int_equal(rc, 0);
                    left[s][d]--;
                }
                more |= left[s][d] > 0;
            }
        tick(50000);
        bool done = !more;
        for (int s = 0; s < NR && done; s++) {
            for (int d = 0; d < NR; d++)
                if (s != d && ranks[d].next_recv[s] != (uint32_t)n) done = false;
            if (ump_rel_flush(ranks[s].rel) != 0) done = false;
        }
        if (done) break;
        assert_true(net.now - t0 < limit_ns);
    }
    for (int i = 0; i < NR; i++)
        assert_int_equal(ranks[i].bad, 0);
    return net.now - t0;
}

static void test_lossless(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    setup_cfg(&cfg);
    exchange(300, 60ull * 1000000000);
    for (int i = 0; i < NR; i++) {
        ump_rel_stats_t st;
        ump_rel_get_stats(ranks[i].rel, &st);
        assert_int_equal(st.delivered, 600);
        print_message(
            "rank %d: sent %llu retransmitted %llu timeouts %llu fast %llu rx_dropped %llu\n", i,
            (unsigned long long)st.sent, (unsigned long long)st.retransmitted,
            (unsigned long long)st.timeouts, (unsigned long long)st.fast_rexmit,
            (unsigned long long)st.rx_dropped);
        assert_int_equal(st.retransmitted, 0);
        assert_int_equal(st.corrupted, 0);
        assert_int_equal(st.duplicates, 0);
        assert_true(st.sent > 600); /* fragmented */
    }
    teardown();
}

static void test_lossy(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    setup_cfg(&cfg);
    net.drop = 0.10;
    net.dup = 0.05;
    net.corrupt = 0.03;
    net.jitter_ns = 300000; /* far more than the spacing: heavy reordering */
    exchange(200, 600ull * 1000000000);
    uint64_t rexmit = 0, dups = 0, corrupt = 0;
    for (int i = 0; i < NR; i++) {
        ump_rel_stats_t st;
        ump_rel_get_stats(ranks[i].rel, &st);
        assert_int_equal(st.delivered, 400);
        assert_int_equal(st.dead_peers, 0);
        rexmit += st.retransmitted;
        dups += st.duplicates;
        corrupt += st.corrupted;
        assert_int_equal(ranks[i].failed[0] + ranks[i].failed[1] + ranks[i].failed[2], 0);
    }
    assert_true(rexmit > 0);
    assert_true(dups > 0);
    assert_true(corrupt > 0);
    teardown();
}

/* The engine's own fault injection, over a perfect network. */
static void test_injected(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    cfg.drop = 0.05;
    cfg.dup = 0.02;
    cfg.reorder = 0.05;
    cfg.corrupt = 0.01;
    cfg.seed = 7;
    setup_cfg(&cfg);
    exchange(200, 600ull * 1000000000);
    ump_rel_stats_t sum = {0};
    for (int i = 0; i < NR; i++) {
        ump_rel_stats_t st;
        ump_rel_get_stats(ranks[i].rel, &st);
        assert_int_equal(st.delivered, 400);
        sum.inj_drop += st.inj_drop;
        sum.inj_dup += st.inj_dup;
        sum.inj_reorder += st.inj_reorder;
        sum.inj_corrupt += st.inj_corrupt;
        sum.corrupted += st.corrupted;
        sum.retransmitted += st.retransmitted;
    }
    assert_true(sum.inj_drop > 0 && sum.inj_dup > 0 && sum.inj_reorder > 0 && sum.inj_corrupt > 0);
    assert_true(sum.corrupted > 0);
    assert_true(sum.retransmitted >= sum.inj_drop / 2);
    teardown();
}

/* One lost datagram in a stream is resent because later ones overtook it
 * (selective ack), long before its timer would fire. */
static void test_fast_retransmit(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    cfg.rto_init_ns = cfg.rto_min_ns = 500000000; /* 0.5 s: a timeout would show */
    setup_cfg(&cfg);
    net.drop_nth[0] = 2;
    for (int i = 0; i < 10; i++)
        assert_int_equal(send_one(0, 1, 100), 0);
    for (int i = 0; i < 100 && ranks[1].next_recv[0] != 10; i++)
        tick(10000);
    assert_int_equal(ranks[1].next_recv[0], 10);
    assert_true(net.now < 100000000);
    ump_rel_stats_t st;
    ump_rel_get_stats(ranks[0].rel, &st);
    assert_int_equal(st.timeouts, 0);
    assert_true(st.fast_rexmit >= 1);
    assert_int_equal(ranks[1].bad, 0);
    teardown();
}

/* A lone message is acknowledged after the ack delay, not at once and not
 * never; the sender's deadline is its retransmission timer until then. */
static void test_delayed_ack(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    setup_cfg(&cfg);
    assert_int_equal(ump_rel_deadline(ranks[0].rel), UINT64_MAX);
    assert_int_equal(send_one(0, 1, 10), 0);
    assert_int_equal(ump_rel_deadline(ranks[0].rel), net.now + cfg.rto_init_ns);
    assert_int_equal(ump_rel_flush(ranks[0].rel), UMP_INPROGRESS);
    tick(0);
    net.now = net.delay_ns;
    tick(0); /* arrives now */
    assert_int_equal(ranks[1].next_recv[0], 1);
    ump_rel_stats_t st;
    ump_rel_get_stats(ranks[1].rel, &st);
    assert_int_equal(st.acks_sent, 0);
    assert_int_equal(ump_rel_deadline(ranks[1].rel), net.delay_ns + cfg.ack_delay_ns);
    net.now = net.delay_ns + cfg.ack_delay_ns;
    tick(0);
    ump_rel_get_stats(ranks[1].rel, &st);
    assert_int_equal(st.acks_sent, 1);
    net.now += net.delay_ns;
    tick(0);
    ump_rel_get_stats(ranks[0].rel, &st);
    assert_int_equal(st.acks_recv, 1);
    assert_int_equal(st.retransmitted, 0);
    assert_int_equal(ump_rel_flush(ranks[0].rel), 0);
    teardown();
}

/* Replies carry the ack: a ping-pong needs no explicit ack datagram. */
static void test_piggyback(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    setup_cfg(&cfg);
    for (int i = 0; i < 50; i++) {
        int s = i & 1;
        assert_int_equal(send_one(s, !s, 32), 0);
        while (ranks[!s].next_recv[s] != (uint32_t)(i / 2 + 1))
            tick(1000);
    }
    ump_rel_stats_t st;
    ump_rel_get_stats(ranks[0].rel, &st);
    assert_int_equal(st.acks_sent, 0);
    assert_int_equal(st.retransmitted, 0);
    teardown();
}

/* A peer that never answers: the window fills (back-pressure, nothing
 * taken), then after the silence budget the peer is declared dead exactly
 * once, sends to it fail, and the others are unaffected. */
static void test_dead_peer(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    setup_cfg(&cfg);
    net.blackhole[0][2] = net.blackhole[2][0] = true;
    int taken = 0, rc;
    while ((rc = send_one(0, 2, 100)) == 0)
        taken++;
    assert_int_equal(rc, UMP_ERR_NO_RESOURCE);
    assert_int_equal(taken, (int)cfg.window);
    uint64_t t0 = net.now;
    while (!ranks[0].failed[2]) {
        tick(1000000);
        assert_true(net.now - t0 < cfg.dead_ns + 2 * cfg.rto_max_ns);
        /* Meanwhile 0 and 1 talk normally. */
        if ((net.now / 1000000) % 50 == 0) assert_int_equal(send_one(0, 1, 200), 0);
        if (!ranks[0].failed[2]) assert_int_equal(ump_rel_flush(ranks[0].rel), UMP_INPROGRESS);
        /* A sleeper would be woken by then. */
        if (!ranks[0].failed[2])
            assert_true(ump_rel_deadline(ranks[0].rel) <= t0 + cfg.dead_ns + 1000000);
    }
    assert_true(net.now - t0 >= cfg.dead_ns);
    assert_true(ump_rel_peer_dead(ranks[0].rel, 2));
    assert_int_equal(send_one(0, 2, 10), UMP_ERR_PEER_DEAD);
    for (int i = 0; i < 100; i++)
        tick(1000000);
    assert_int_equal(ranks[0].failed[2], 1);
    assert_int_equal(ranks[0].failed[1], 0);
    assert_int_equal(ranks[1].bad, 0);
    assert_true(ranks[1].next_recv[0] > 0);
    teardown();
}

/* A small receive limit: early datagrams beyond it are dropped (counted)
 * and resent, and everything still arrives. */
static void test_rx_limit(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    cfg.rx_max = 1; /* raised to the minimum the engine allows */
    setup_cfg(&cfg);
    net.jitter_ns = 500000;
    exchange(100, 600ull * 1000000000);
    teardown();
}

/* Datagrams that are too short, not ours, or corrupted are dropped and
 * counted; nothing is delivered. */
static void test_bad_input(void **state)
{
    ump_rel_config_t cfg = base_cfg();
    setup_cfg(&cfg);
    uint64_t buf[64] = {0};
    ump_rel_input(ranks[1].rel, buf, 10);
    ump_rel_input(ranks[1].rel, buf, 100);
    /* A valid datagram, then flipped in the payload and in the header. */
    assert_int_equal(send_one(0, 1, 100), 0);
    assert_int_equal(net.nq, 1);
    pkt_t *p = net.q[0];
    net.nq = 0;
    uint8_t *b = (uint8_t *)p->data;
    b[p->len - 1] ^= 1;
    ump_rel_input(ranks[1].rel, p->data, p->len);
    b[p->len - 1] ^= 1;
    b[12] ^= 0x80;
    ump_rel_input(ranks[1].rel, p->data, p->len);
    b[12] ^= 0x80;
    ump_rel_stats_t st;
    ump_rel_get_stats(ranks[1].rel, &st);
    assert_int_equal(st.corrupted, 3); /* the zero header fails its CRC too */
    assert_int_equal(st.malformed, 1);
    assert_int_equal(st.delivered, 0);
    ump_rel_input(ranks[1].rel, p->data, p->len);
    ump_rel_input(ranks[1].rel, p->data, p->len);
    ump_rel_get_stats(ranks[1].rel, &st);
    assert_int_equal(st.delivered, 1);
    assert_int_equal(st.duplicates, 1);
    assert_int_equal(ranks[1].bad, 0);
    free(p);
    teardown();
}

/* One-way stream of 1 MiB messages over a simulated link (100 us each
 * way, no reordering): time with 5% of datagrams dropped against time
 * without loss. Selective acks, probes and the window must keep the lossy
 * run within a small factor (the target on a real loopback is half the
 * lossless bandwidth). */
static uint64_t stream_time(double drop)
{
    ump_rel_config_t cfg = base_cfg();
    cfg.window = 0; /* the default: 2 MiB worth */
    cfg.rto_min_ns = 20000000;
    setup_cfg(&cfg);
    net.delay_ns = 100000;
    net.drop = drop;
    int n = 200;
    uint64_t t0 = net.now;
    int sent = 0;
    while (ranks[1].next_recv[0] != (uint32_t)n || ump_rel_flush(ranks[0].rel) != 0) {
        while (sent < n && send_one(0, 1, MAX_AM - 8) == 0)
            sent++;
        tick(10000);
        assert_true(net.now - t0 < 600ull * 1000000000);
    }
    assert_int_equal(ranks[1].bad, 0);
    ump_rel_stats_t st;
    ump_rel_get_stats(ranks[0].rel, &st);
    print_message("drop %.2f: %.1f ms, sent %llu retransmitted %llu (fast %llu, probes %llu, "
                  "timeouts %llu)\n",
                  drop, (double)(net.now - t0) / 1e6, (unsigned long long)st.sent,
                  (unsigned long long)st.retransmitted, (unsigned long long)st.fast_rexmit,
                  (unsigned long long)st.probes, (unsigned long long)st.timeouts);
    teardown();
    return net.now - t0;
}

static void test_loss_throughput(void **state)
{
    uint64_t clean = stream_time(0), lossy = stream_time(0.05);
    print_message("5%% loss takes %.2fx the lossless time\n", (double)lossy / (double)clean);
    assert_true(lossy < 4 * clean);
}

static void test_state_size(void **state)
{
    /* "A few dozen bytes" per peer: keep it within two cache lines. */
    assert_true(ump_rel_peer_state_size() <= 128);
}

int main(void)
{
    ump_cfg_load(false); /* UMP_LOG=debug shows the engine's decisions */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless),    cmocka_unit_test(test_lossy),
        cmocka_unit_test(test_injected),    cmocka_unit_test(test_fast_retransmit),
        cmocka_unit_test(test_delayed_ack), cmocka_unit_test(test_piggyback),
        cmocka_unit_test(test_dead_peer),   cmocka_unit_test(test_rx_limit),
        cmocka_unit_test(test_bad_input),   cmocka_unit_test(test_loss_throughput),
        cmocka_unit_test(test_state_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
