/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel.c - the reliability engine (see rel.h for the contract and the wire
 * format): its configuration, buffer pool, peers and life cycle; sending
 * in rel_send.c, receiving in rel_recv.c, timers in rel_timer.c; a
 * transport's setup over the engine in rel_xp.c.
 *
 * Per peer and direction a 32-bit sequence number counts datagrams. The
 * sender keeps every datagram until the receiver's cumulative ack passes
 * it, in a per-peer queue whose first `window` entries may be in flight.
 * The receiver delivers in sequence order, keeps datagrams that arrived
 * early (up to 64 ahead, the reach of the selective ack) and reassembles
 * AMs from consecutive fragments.
 *
 * Timers, per peer: the retransmission timeout of the oldest datagram in
 * flight (Jacobson's estimator over round trips of datagrams sent once,
 * doubled on each expiry up to a ceiling); before it, up to three probes
 * that resend the oldest datagram after two round trips (a lost tail shows
 * no gap); the delayed ack; the silence that declares the peer dead. A gap
 * the selective ack shows (three later datagrams arrived) resends the
 * missing one at once.
 *
 * Congestion: a window (cwnd) below the configured one. A timeout restarts
 * it at one datagram (slow start, everything unreported in flight resent
 * as the window allows: go back N); several gaps at once halve it; a lone
 * gap leaves it, so random loss does not starve the stream.
 *
 * Buffers come from one pool per process (datagram-sized buffers, capped in
 * bytes for sending and for receiving); a peer costs only its ump_rel_peer_t,
 * allocated when it is first contacted.
 */
#include "xport/rel/rel_impl.h"

UMP_CFG(rel_window, "UMP_REL_WINDOW", UMP_CFG_INT, "0",
        "datagrams in flight to one peer before the sender waits for acks (1..64; 0: 2 MiB "
        "worth of datagrams, at least 8)");
UMP_CFG(rel_tx_max, "UMP_REL_TX_MAX", UMP_CFG_SIZE, "16m",
        "bytes of send buffers (unacknowledged datagrams) per process");
UMP_CFG(rel_rx_max, "UMP_REL_RX_MAX", UMP_CFG_SIZE, "8m",
        "bytes of receive buffers (early datagrams, reassembly) per process; past it datagrams "
        "are dropped and resent later");
UMP_CFG(rel_rto_init, "UMP_REL_RTO_INIT_US", UMP_CFG_INT, "20000",
        "retransmission timeout before a round trip is measured, microseconds");
UMP_CFG(rel_rto_min, "UMP_REL_RTO_MIN_US", UMP_CFG_INT, "20000",
        "smallest adaptive retransmission timeout, microseconds");
UMP_CFG(rel_rto_max, "UMP_REL_RTO_MAX_US", UMP_CFG_INT, "1000000",
        "largest retransmission timeout after backoff, microseconds");
UMP_CFG(rel_timeout, "UMP_REL_TIMEOUT", UMP_CFG_DOUBLE, "30",
        "seconds a peer may stay silent while data to it is unacknowledged before it is "
        "declared dead");
UMP_CFG(rel_ack_delay, "UMP_REL_ACK_DELAY_US", UMP_CFG_INT, "200",
        "microseconds an ack waits for reverse traffic to ride on");
UMP_CFG(rel_ack_count, "UMP_REL_ACK_COUNT", UMP_CFG_INT, "8",
        "datagrams received that trigger an explicit ack at once");
UMP_CFG(rel_drop, "UMP_REL_DROP", UMP_CFG_DOUBLE, "0",
        "fault injection: fraction of datagrams dropped on sending");
UMP_CFG(rel_dup, "UMP_REL_DUP", UMP_CFG_DOUBLE, "0",
        "fault injection: fraction of datagrams sent twice");
UMP_CFG(rel_reorder, "UMP_REL_REORDER", UMP_CFG_DOUBLE, "0",
        "fault injection: fraction of datagrams sent after the next one");
UMP_CFG(rel_corrupt, "UMP_REL_CORRUPT", UMP_CFG_DOUBLE, "0",
        "fault injection: fraction of datagrams with one byte flipped");
UMP_CFG(rel_seed, "UMP_REL_SEED", UMP_CFG_INT, "1",
        "fault injection: random seed (mixed with the rank)");
UMP_CFG(rel_stats, "UMP_STATS", UMP_CFG_BOOL, "0",
        "print transport counters (sent, retransmitted, duplicates, ...) at finalize");

/* --- buffer pool ---------------------------------------------------------- */

/* Receive buffers are capped here; send buffers by ump_rel_send, per AM,
 * so that one AM can always be taken. */
dgbuf_t *ump_rel_buf_get(ump_rel_t *rel, bool tx)
{
    if (!tx && rel->rx_bufs >= rel->rx_cap) return NULL;
    dgbuf_t *b = rel->pool;
    if (b) {
        rel->pool = b->next;
        rel->npool--;
    } else {
        b = malloc(rel->bufsize);
        if (!b) return NULL;
    }
    if (tx)
        rel->tx_bufs++;
    else
        rel->rx_bufs++;
    b->next = NULL;
    b->sent_ns = 0;
    b->nsent = 0;
    b->flags = 0;
    return b;
}

void ump_rel_buf_put(ump_rel_t *rel, dgbuf_t *b, bool tx)
{
    if (tx)
        rel->tx_bufs--;
    else
        rel->rx_bufs--;
    if (rel->npool < POOL_KEEP) {
        b->next = rel->pool;
        rel->pool = b;
        rel->npool++;
    } else {
        free(b);
    }
}

uint8_t *ump_rel_asm_get(ump_rel_t *rel)
{
    if (rel->asm_bytes + rel->cfg.max_am > rel->cfg.rx_max) return NULL;
    uint8_t *a = rel->asm_cache;
    if (a)
        rel->asm_cache = NULL;
    else if (!(a = malloc(rel->cfg.max_am)))
        return NULL;
    rel->asm_bytes += rel->cfg.max_am;
    return a;
}

void ump_rel_asm_put(ump_rel_t *rel, uint8_t *a)
{
    rel->asm_bytes -= rel->cfg.max_am;
    if (!rel->asm_cache)
        rel->asm_cache = a;
    else
        free(a);
}

/* --- peers ---------------------------------------------------------------- */

void ump_rel_activate(ump_rel_t *rel, int peer, ump_rel_peer_t *p)
{
    if (p->active) return;
    p->active = 1;
    rel->active[rel->nactive++] = peer;
}

ump_rel_peer_t *ump_rel_peer_get(ump_rel_t *rel, int peer)
{
    ump_rel_peer_t *p = rel->peers[peer];
    if (p) return p;
    size_t mtu = rel->lower.mtu;
    int rc = rel->lower.peer_open ? rel->lower.peer_open(rel->lower.ctx, peer, &mtu) : UMP_OK;
    if (rc != UMP_OK) {
        ump_warn("%s: rank %d is not reachable: %s", rel->name, peer, ump_strerror(rc));
        return NULL;
    }
    if (mtu > rel->lower.mtu) mtu = rel->lower.mtu;
    if (mtu < sizeof(ump_rel_hdr_t) + 64) {
        ump_warn("%s: rank %d: datagram size %zu is too small", rel->name, peer, mtu);
        return NULL;
    }
    p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    p->mtu = (uint16_t)UMP_MIN(mtu, 65535u);
    p->rto_us = (uint32_t)(rel->cfg.rto_init_ns / 1000);
    p->cwnd = p->ssthresh = (uint8_t)rel->cfg.window;
    p->heard_ns = now_ns(rel);
    rel->peers[peer] = p;
    return p;
}

/* --- life cycle ------------------------------------------------------------ */

void ump_rel_config_default(ump_rel_config_t *cfg)
{
    ump_cfg_load(false);
    long long w = rel_window.v.i;
    *cfg = (ump_rel_config_t){
        .window = (unsigned)(w < 0           ? 0
                             : w > SACK_BITS ? SACK_BITS
                                             : w),
        .max_am = 256 * 1024,
        .tx_max = rel_tx_max.v.sz,
        .rx_max = rel_rx_max.v.sz,
        .rto_init_ns = (uint64_t)UMP_MAX(rel_rto_init.v.i, 1) * 1000,
        .rto_min_ns = (uint64_t)UMP_MAX(rel_rto_min.v.i, 1) * 1000,
        .rto_max_ns = (uint64_t)UMP_MAX(rel_rto_max.v.i, 1) * 1000,
        .dead_ns = (uint64_t)(UMP_MAX(rel_timeout.v.d, 0.01) * 1e9),
        .ack_delay_ns = (uint64_t)UMP_MAX(rel_ack_delay.v.i, 0) * 1000,
        .ack_count = (unsigned)UMP_MAX(rel_ack_count.v.i, 1),
        .drop = rel_drop.v.d,
        .dup = rel_dup.v.d,
        .reorder = rel_reorder.v.d,
        .corrupt = rel_corrupt.v.d,
        .seed = (uint64_t)rel_seed.v.i,
        .stats = rel_stats.v.b,
    };
}

int ump_rel_create(const char *name, int rank, int size, const ump_rel_config_t *cfg,
                   const ump_rel_lower_t *lower, const ump_rel_upper_t *upper, ump_rel_t **out)
{
    ump_rel_t *rel = calloc(1, sizeof(*rel));
    if (!rel) return UMP_ERR_NO_MEMORY;
    snprintf(rel->name, sizeof(rel->name), "%s", name);
    rel->rank = rank;
    rel->size = size;
    rel->cfg = *cfg;
    if (rel->cfg.window < 1) /* auto: 2 MiB in flight, in datagrams of this MTU */
        rel->cfg.window =
            (unsigned)UMP_MIN(UMP_MAX((2u << 20) / UMP_MAX(lower->mtu, 1), 8), SACK_BITS);
    if (rel->cfg.window > SACK_BITS) rel->cfg.window = SACK_BITS;
    if (rel->cfg.ack_count < 1) rel->cfg.ack_count = 1;
    rel->lower = *lower;
    rel->upper = *upper;
    rel->bufsize = sizeof(dgbuf_t) + UMP_ALIGN_UP(lower->mtu, 8);
    /* At least a window's worth each way, so one peer can always move. */
    rel->tx_cap = UMP_MAX(rel->cfg.tx_max / rel->bufsize, 2 * (size_t)SACK_BITS);
    rel->rx_cap = UMP_MAX(rel->cfg.rx_max / rel->bufsize, (size_t)SACK_BITS);
    if (rel->cfg.rx_max < 2 * rel->cfg.max_am) rel->cfg.rx_max = 2 * rel->cfg.max_am;
    rel->peers = calloc((size_t)size, sizeof(*rel->peers));
    rel->active = calloc((size_t)size, sizeof(int));
    rel->failed = calloc((size_t)size, sizeof(int));
    if (!rel->peers || !rel->active || !rel->failed) {
        ump_rel_destroy(rel);
        return UMP_ERR_NO_MEMORY;
    }
    rel->faults = cfg->drop > 0 || cfg->dup > 0 || cfg->reorder > 0 || cfg->corrupt > 0;
    rel->rng = (cfg->seed ^ ((uint64_t)(rank + 1) * 0x9e3779b97f4a7c15ull)) | 1;
    if (rel->faults)
        ump_info("%s: fault injection on: drop %.3f dup %.3f reorder %.3f corrupt %.3f seed %llu",
                 rel->name, cfg->drop, cfg->dup, cfg->reorder, cfg->corrupt,
                 (unsigned long long)cfg->seed);
    *out = rel;
    return UMP_OK;
}

void ump_rel_destroy(ump_rel_t *rel)
{
    if (!rel) return;
    if (rel->cfg.stats) {
        const ump_rel_stats_t *s = &rel->st;
        fprintf(stderr,
                "ump stats rank %d %s: sent=%llu retransmitted=%llu fast=%llu timeouts=%llu "
                "probes=%llu "
                "received=%llu duplicates=%llu corrupted=%llu malformed=%llu acks_sent=%llu "
                "acks_recv=%llu rx_dropped=%llu send_short=%llu delivered=%llu dead=%llu "
                "injected_drop=%llu injected_dup=%llu injected_reorder=%llu "
                "injected_corrupt=%llu\n",
                rel->rank, rel->name, (unsigned long long)s->sent,
                (unsigned long long)s->retransmitted, (unsigned long long)s->fast_rexmit,
                (unsigned long long)s->timeouts, (unsigned long long)s->probes,
                (unsigned long long)s->received, (unsigned long long)s->duplicates,
                (unsigned long long)s->corrupted, (unsigned long long)s->malformed,
                (unsigned long long)s->acks_sent, (unsigned long long)s->acks_recv,
                (unsigned long long)s->rx_dropped, (unsigned long long)s->send_short,
                (unsigned long long)s->delivered, (unsigned long long)s->dead_peers,
                (unsigned long long)s->inj_drop, (unsigned long long)s->inj_dup,
                (unsigned long long)s->inj_reorder, (unsigned long long)s->inj_corrupt);
    }
    for (int i = 0; rel->peers && i < rel->size; i++) {
        ump_rel_peer_t *p = rel->peers[i];
        if (!p) continue;
        while (p->txq) {
            dgbuf_t *b = p->txq;
            p->txq = b->next;
            free(b);
        }
        while (p->ooo) {
            dgbuf_t *b = p->ooo;
            p->ooo = b->next;
            free(b);
        }
        free(p->asm_buf);
        free(p);
    }
    while (rel->pool) {
        dgbuf_t *b = rel->pool;
        rel->pool = b->next;
        free(b);
    }
    free(rel->asm_cache);
    free(rel->peers);
    free(rel->active);
    free(rel->failed);
    free(rel);
}
