/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel.c - the reliability engine (see rel.h for the contract and the wire
 * format).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/crc32c.h"
#include "util/util.h"
#include "xport/rel/rel.h"

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

#define SACK_BITS 64
#define OUT_MAX   32 /* datagrams per call of the lower send */
#define POOL_KEEP 64 /* free buffers kept for reuse */
#define PROBES    3  /* probes of a stalled head before the timeout's penalties */

enum {
    TX_SACKED = 0x01, /* the receiver has it (out of order) */
    TX_FAST = 0x02,   /* resent for a gap; not again before a timeout */
};

/* A datagram held by the sender until acknowledged, or by the receiver
 * until its turn; the bytes follow, rel header first. */
typedef struct dgbuf {
    struct dgbuf *next;
    uint64_t sent_ns; /* last transmission; 0 = never sent */
    uint32_t seq;
    uint32_t len; /* datagram bytes */
    uint8_t nsent;
    uint8_t flags;
    uint64_t data[]; /* 8-aligned datagram */
} dgbuf_t;

typedef struct ump_rel_peer {
    dgbuf_t *txq, *txtail; /* unacknowledged and unsent, in sequence order */
    dgbuf_t *txnext;       /* first never sent, NULL when all went out */
    dgbuf_t *ooo;          /* arrived early, in sequence order */
    uint8_t *asm_buf;      /* the AM being reassembled */
    uint32_t asm_off;
    uint32_t snd_nxt, snd_una; /* next to assign, oldest unacknowledged */
    uint32_t rcv_nxt;          /* next expected */
    uint32_t nq;               /* datagrams in txq */
    uint64_t rcv_sack;         /* bit i: rcv_nxt + 1 + i is in ooo */
    uint64_t heard_ns;         /* last datagram from the peer */
    uint64_t busy_ns;          /* when txq last became non-empty */
    uint64_t ack_at;           /* delayed ack due; 0 = none owed */
    uint32_t srtt_us, rttvar_us, rto_us;
    uint32_t recover;  /* no window cut again before snd_una passes it */
    uint32_t acked_to; /* the ack we last sent */
    uint16_t mtu;      /* largest datagram to this peer */
    uint8_t backoff, cwnd, cwnd_acc, ssthresh;
    uint8_t dead : 1, active : 1, probed : 2;
} ump_rel_peer_t;

struct ump_rel {
    char name[16];
    int rank, size;
    ump_rel_config_t cfg;
    ump_rel_lower_t lower;
    ump_rel_upper_t upper;
    ump_rel_peer_t **peers; /* NULL until first contact */
    int *active;            /* peers with something pending (timers, queue) */
    int nactive;
    int *failed; /* dead peers still to report from poll() */
    int nfailed;
    /* Buffer pool: every buffer holds one datagram of up to lower.mtu. */
    dgbuf_t *pool;
    size_t npool, bufsize;
    size_t tx_bufs, tx_cap, rx_bufs, rx_cap; /* in use / cap, in buffers */
    size_t asm_bytes;
    uint8_t *asm_cache; /* one reassembly buffer kept for reuse */
    /* Datagrams collected for one call of the lower send. */
    ump_rel_dgram_t out[OUT_MAX];
    int nout;
    ump_rel_hdr_t acks[OUT_MAX]; /* ACK datagrams among `out` */
    int nacks;
    uint64_t rng;
    bool faults, flushing;
    uint64_t last_data_ns, linger_ns; /* for flush: our last acks must have landed */
    ump_rel_stats_t st;
};

/* --- helpers --------------------------------------------------------------- */

static inline bool seq_lt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

static inline uint64_t now_ns(ump_rel_t *rel)
{
    return rel->lower.clock ? rel->lower.clock(rel->lower.ctx) : ump_time_ns();
}

static inline ump_rel_hdr_t *hdr_of(dgbuf_t *b)
{
    return (ump_rel_hdr_t *)b->data;
}

static uint64_t rto_eff(const ump_rel_t *rel, const ump_rel_peer_t *p)
{
    uint64_t t = (uint64_t)p->rto_us * 1000u << p->backoff;
    return UMP_MIN(t, rel->cfg.rto_max_ns);
}

/* When the oldest datagram in flight is probed: a few round trips plus the
 * receiver's ack delay; never before a round trip was measured. */
static uint64_t probe_after(const ump_rel_t *rel, const ump_rel_peer_t *p)
{
    if (!p->srtt_us) return UINT64_MAX;
    uint64_t t = 2ull * p->srtt_us * 1000u;
    return UMP_MAX(t, rel->cfg.ack_delay_ns + 300000u);
}

static double rnd(ump_rel_t *rel)
{
    /* xorshift64*: enough randomness for fault injection, reproducible. */
    uint64_t x = rel->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rel->rng = x;
    return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static void peer_label(ump_rel_t *rel, int peer, char *buf, size_t len)
{
    char addr[96] = "";
    if (rel->lower.peer_name) rel->lower.peer_name(rel->lower.ctx, peer, addr, sizeof(addr));
    if (addr[0])
        snprintf(buf, len, "rank %d (%s)", peer, addr);
    else
        snprintf(buf, len, "rank %d", peer);
}

/* --- buffer pool ---------------------------------------------------------- */

/* Receive buffers are capped here; send buffers by ump_rel_send, per AM,
 * so that one AM can always be taken. */
static dgbuf_t *buf_get(ump_rel_t *rel, bool tx)
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

static void buf_put(ump_rel_t *rel, dgbuf_t *b, bool tx)
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

static uint8_t *asm_get(ump_rel_t *rel)
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

static void asm_put(ump_rel_t *rel, uint8_t *a)
{
    rel->asm_bytes -= rel->cfg.max_am;
    if (!rel->asm_cache)
        rel->asm_cache = a;
    else
        free(a);
}

/* --- peers ---------------------------------------------------------------- */

static void activate(ump_rel_t *rel, int peer, ump_rel_peer_t *p)
{
    if (p->active) return;
    p->active = 1;
    rel->active[rel->nactive++] = peer;
}

static ump_rel_peer_t *peer_get(ump_rel_t *rel, int peer)
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

/* --- sending -------------------------------------------------------------- */

static void flush_out(ump_rel_t *rel)
{
    int n = rel->nout;
    if (!n) return;
    rel->nout = 0;
    rel->nacks = 0;
    ump_rel_dgram_t *d = rel->out;
    ump_rel_dgram_t mixed[2 * OUT_MAX];
    struct {
        uint8_t *at;
        uint8_t old;
    } flips[2 * OUT_MAX];
    int nflips = 0;
    if (UMP_UNLIKELY(rel->faults)) {
        /* Faults are applied on the way out, so both ends see them as a
         * network would: loss, duplicates, reordering, bit errors. */
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (rnd(rel) < rel->cfg.drop) {
                rel->st.inj_drop++;
                continue;
            }
            if (rnd(rel) < rel->cfg.corrupt && d[i].len > 0) {
                /* Flipped in place and restored after the send: the lower
                 * layer needs the bytes only for the call. */
                uint8_t *at = (uint8_t *)d[i].data + (size_t)(rnd(rel) * (double)d[i].len);
                flips[nflips].at = at;
                flips[nflips++].old = *at;
                *at ^= (uint8_t)(1u << (rel->rng & 7));
                rel->st.inj_corrupt++;
            }
            mixed[m++] = d[i];
            if (rnd(rel) < rel->cfg.dup) {
                mixed[m++] = d[i];
                rel->st.inj_dup++;
            }
            if (m >= 2 && rnd(rel) < rel->cfg.reorder) {
                ump_rel_dgram_t t = mixed[m - 1];
                mixed[m - 1] = mixed[m - 2];
                mixed[m - 2] = t;
                rel->st.inj_reorder++;
            }
        }
        d = mixed;
        n = m;
    }
    if (n) {
        int k = rel->lower.send(rel->lower.ctx, d, n);
        if (k < 0) k = 0;
        if (k < n) rel->st.send_short += (uint64_t)(n - k);
    }
    while (nflips--)
        *flips[nflips].at = flips[nflips].old;
}

static void fill_ack(ump_rel_peer_t *p, ump_rel_hdr_t *h)
{
    h->ack = p->rcv_nxt;
    h->sack = p->rcv_sack;
    h->hcrc = ump_crc32c(0, (const uint8_t *)h + 4, sizeof(*h) - 4);
    p->acked_to = p->rcv_nxt;
    p->ack_at = 0;
}

static void queue_out(ump_rel_t *rel, int peer, const void *data, size_t len)
{
    if (rel->nout == OUT_MAX) flush_out(rel);
    rel->out[rel->nout++] = (ump_rel_dgram_t){.peer = peer, .data = data, .len = len};
}

/* Puts a DATA datagram on the wire (first time or again), with the current
 * ack for the reverse direction riding on it. */
static void transmit(ump_rel_t *rel, int peer, ump_rel_peer_t *p, dgbuf_t *b, uint64_t now)
{
    ump_rel_hdr_t *h = hdr_of(b);
    if (b->nsent) {
        rel->st.retransmitted++;
        h->flags |= UMP_REL_F_ACKREQ;
    } else {
        rel->st.sent++;
        /* The datagram that fills the window asks for an ack at once, so the
         * sender does not wait out the receiver's ack delay. */
        if ((uint32_t)(b->seq + 1 - p->snd_una) >= UMP_MIN(p->cwnd, rel->cfg.window))
            h->flags |= UMP_REL_F_ACKREQ;
    }
    fill_ack(p, h);
    b->sent_ns = now;
    if (b->nsent < 255) b->nsent++;
    queue_out(rel, peer, b->data, b->len);
}

static void send_ack(ump_rel_t *rel, int peer, ump_rel_peer_t *p)
{
    /* Both arrays need room: flushing empties both, and an ACK header must
     * not be rewritten while `out` still points at it. */
    if (rel->nacks == OUT_MAX || rel->nout == OUT_MAX) flush_out(rel);
    ump_rel_hdr_t *h = &rel->acks[rel->nacks++];
    memset(h, 0, sizeof(*h));
    h->src = (uint32_t)rel->rank;
    h->seq = p->snd_nxt;
    h->type = UMP_REL_ACK;
    h->version = UMP_REL_VERSION;
    fill_ack(p, h);
    rel->st.acks_sent++;
    queue_out(rel, peer, h, sizeof(*h));
}

/* Sends what the window allows of the queue. */
static void push(ump_rel_t *rel, int peer, ump_rel_peer_t *p, uint64_t now)
{
    uint32_t win = UMP_MIN(p->cwnd, rel->cfg.window);
    while (p->txnext && (uint32_t)(p->txnext->seq - p->snd_una) < win) {
        dgbuf_t *b = p->txnext;
        p->txnext = b->next;
        if (!(b->flags & TX_SACKED)) transmit(rel, peer, p, b, now);
    }
}

int ump_rel_send(ump_rel_t *rel, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                 const struct iovec *iov, int iovcnt)
{
    if (peer < 0 || peer >= rel->size || peer == rel->rank || iovcnt < 0) return UMP_ERR_INVALID;
    size_t total = hlen;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (total > rel->cfg.max_am) return UMP_ERR_INVALID;
    ump_rel_peer_t *p = peer_get(rel, peer);
    if (!p) return UMP_ERR_PEER_DEAD;
    if (p->dead) return UMP_ERR_PEER_DEAD;
    /* Window: an AM is taken while the queue is below it, so one AM larger
     * than the window still goes (in pieces as acks come back). */
    if (p->nq >= rel->cfg.window) return UMP_ERR_NO_RESOURCE;
    size_t room = p->mtu - sizeof(ump_rel_hdr_t);
    size_t nfrag = total ? (total + room - 1) / room : 1;
    if (rel->tx_bufs + nfrag > rel->tx_cap && rel->tx_bufs > 0) return UMP_ERR_NO_RESOURCE;

    /* Fragment: copy hdr then the iov into consecutive datagrams. */
    dgbuf_t *first = NULL, *last = NULL;
    const uint8_t *src = hdr;
    size_t src_left = hlen;
    int vi = 0;
    for (size_t f = 0; f < nfrag; f++) {
        dgbuf_t *b = buf_get(rel, true);
        if (!b) {
            /* Pool or memory exhausted: give everything back, take nothing. */
            while (first) {
                dgbuf_t *n = first->next;
                buf_put(rel, first, true);
                first = n;
            }
            return UMP_ERR_NO_RESOURCE;
        }
        uint8_t *pl = (uint8_t *)b->data + sizeof(ump_rel_hdr_t);
        size_t len = 0;
        while (len < room) {
            while (!src_left && vi < iovcnt) {
                src = iov[vi].iov_base;
                src_left = iov[vi].iov_len;
                vi++;
            }
            if (!src_left) break;
            size_t k = UMP_MIN(room - len, src_left);
            memcpy(pl + len, src, k);
            len += k;
            src += k;
            src_left -= k;
        }
        ump_rel_hdr_t *h = hdr_of(b);
        memset(h, 0, sizeof(*h));
        h->pcrc = len ? ump_crc32c(0, pl, len) : 0;
        h->src = (uint32_t)rel->rank;
        h->msglen = (uint32_t)total;
        h->len = (uint16_t)len;
        h->type = UMP_REL_DATA;
        h->flags = (f == 0 ? UMP_REL_F_FIRST : 0) | (f == nfrag - 1 ? UMP_REL_F_LAST : 0);
        h->am_id = am_id;
        h->version = UMP_REL_VERSION;
        b->len = (uint32_t)(sizeof(ump_rel_hdr_t) + len);
        if (last)
            last->next = b;
        else
            first = b;
        last = b;
    }
    uint64_t now = now_ns(rel);
    for (dgbuf_t *b = first; b; b = b->next)
        hdr_of(b)->seq = b->seq = p->snd_nxt++;
    if (!p->txq) {
        p->txq = first;
        p->busy_ns = now;
    } else {
        p->txtail->next = first;
    }
    p->txtail = last;
    if (!p->txnext) p->txnext = first;
    p->nq += (uint32_t)nfrag;
    activate(rel, peer, p);
    push(rel, peer, p, now);
    flush_out(rel);
    return UMP_OK;
}

/* --- receiving ------------------------------------------------------------ */

static void rtt_sample(ump_rel_t *rel, ump_rel_peer_t *p, uint64_t rtt_ns)
{
    uint32_t r = (uint32_t)UMP_MIN(rtt_ns / 1000, 60000000u);
    if (!p->srtt_us) {
        p->srtt_us = r;
        p->rttvar_us = r / 2;
    } else {
        uint32_t dev = p->srtt_us > r ? p->srtt_us - r : r - p->srtt_us;
        p->rttvar_us = (3 * p->rttvar_us + dev) / 4;
        p->srtt_us = (7 * p->srtt_us + r) / 8;
    }
    uint64_t rto = (uint64_t)p->srtt_us + UMP_MAX(4u * p->rttvar_us, 1000u);
    rto = UMP_MAX(rto, rel->cfg.rto_min_ns / 1000);
    rto = UMP_MIN(rto, rel->cfg.rto_max_ns / 1000);
    p->rto_us = (uint32_t)rto;
}

/* The ack fields of any datagram from the peer. */
static void on_ack(ump_rel_t *rel, int peer, ump_rel_peer_t *p, uint32_t ack, uint64_t sack,
                   uint64_t now)
{
    /* (After a timeout rewinds txnext, datagrams past it were sent before,
     * so only snd_nxt bounds a true ack.) */
    if (seq_lt(p->snd_nxt, ack)) return; /* acks what we never sent: bogus */
    /* The out list may point into buffers this ack frees. */
    flush_out(rel);
    if (seq_lt(p->snd_una, ack)) {
        uint64_t sample = 0;
        uint32_t freed = 0;
        while (p->txq && seq_lt(p->txq->seq, ack)) {
            dgbuf_t *b = p->txq;
            /* Karn: only datagrams sent once time a round trip. */
            if (b->nsent == 1) sample = now - b->sent_ns;
            p->txq = b->next;
            if (p->txnext == b) p->txnext = b->next;
            buf_put(rel, b, true);
            p->nq--;
            freed++;
        }
        if (!p->txq) p->txtail = NULL;
        p->snd_una = ack;
        p->backoff = 0;
        p->probed = 0;
        if (sample) rtt_sample(rel, p, sample);
        /* Slow start below the threshold, then one datagram more per
         * window acknowledged. */
        if (p->cwnd < p->ssthresh) {
            p->cwnd = (uint8_t)UMP_MIN(p->cwnd + freed, p->ssthresh);
        } else {
            p->cwnd_acc = (uint8_t)UMP_MIN(p->cwnd_acc + freed, 255u);
            if (p->cwnd_acc >= p->cwnd && p->cwnd < rel->cfg.window) {
                p->cwnd++;
                p->cwnd_acc = 0;
            }
        }
        p->busy_ns = now;
    }
    if (!sack || !p->txq) return;
    /* Selective ack: mark what arrived early; resend what three later
     * datagrams overtook (reordering by one or two is forgiven). */
    int top = 63 - __builtin_clzll(sack);
    uint32_t high = ack + 1 + (uint32_t)top;
    unsigned holes = 0;
    for (dgbuf_t *b = p->txq; b; b = b->next) {
        uint32_t off = b->seq - ack - 1;
        if (b->seq != ack && off < SACK_BITS && ((sack >> off) & 1)) {
            b->flags |= TX_SACKED;
            continue;
        }
        if (b->flags & TX_SACKED) continue;
        if (!seq_lt(b->seq + 2, high) || !b->nsent) break;
        /* Resent for a gap already: again only when the resend itself had
         * time to arrive and later datagrams still overtake it (it was
         * lost too), rather than waiting for the timeout. */
        if ((b->flags & TX_FAST) && now - b->sent_ns < probe_after(rel, p)) continue;
        b->flags |= TX_FAST;
        rel->st.fast_rexmit++;
        transmit(rel, peer, p, b, now);
        holes++;
    }
    /* Several datagrams missing at once is a queue that overflowed: halve
     * the window (once per round trip). A lone missing datagram is taken
     * for noise, repaired and not punished: random loss would otherwise
     * hold the window far below what the path carries. */
    if (holes >= 2 && !seq_lt(p->snd_una, p->recover)) {
        p->ssthresh = p->cwnd = (uint8_t)UMP_MAX(p->cwnd / 2, 2);
        p->recover = p->snd_nxt;
    }
}

/* After in-order data: ack now, or arm the delayed ack (unless a reply the
 * handler sent carried the ack already). */
static void note_ack_owed(ump_rel_t *rel, int peer, ump_rel_peer_t *p, bool now_please,
                          uint64_t now)
{
    uint32_t owed = p->rcv_nxt - p->acked_to;
    if (!owed) return;
    if (now_please || owed >= rel->cfg.ack_count) {
        send_ack(rel, peer, p);
    } else if (!p->ack_at) {
        p->ack_at = now + rel->cfg.ack_delay_ns;
        activate(rel, peer, p);
    }
}

/* Takes the in-order datagram `h` (payload follows it). Returns -1 when it
 * cannot be taken now (no reassembly buffer), else the AMs delivered. */
static int take(ump_rel_t *rel, int peer, ump_rel_peer_t *p, const ump_rel_hdr_t *h)
{
    const uint8_t *pl = (const uint8_t *)(h + 1);
    uint8_t fl = h->flags & (UMP_REL_F_FIRST | UMP_REL_F_LAST);
    if (fl == (UMP_REL_F_FIRST | UMP_REL_F_LAST)) {
        if (p->asm_buf || h->msglen != h->len) goto bad;
        p->rcv_nxt++;
        p->rcv_sack >>= 1;
        rel->st.received++;
        rel->st.delivered++;
        rel->upper.deliver(rel->upper.arg, peer, h->am_id, pl, h->len);
        return 1;
    }
    if (fl & UMP_REL_F_FIRST) {
        if (p->asm_buf) goto bad;
        if (!(p->asm_buf = asm_get(rel))) {
            rel->st.rx_dropped++;
            return -1;
        }
        p->asm_off = 0;
    } else if (!p->asm_buf) {
        goto bad;
    }
    if (p->asm_off + h->len > h->msglen) goto bad;
    memcpy(p->asm_buf + p->asm_off, pl, h->len);
    p->asm_off += h->len;
    p->rcv_nxt++;
    p->rcv_sack >>= 1;
    rel->st.received++;
    if (!(fl & UMP_REL_F_LAST)) return 0;
    uint8_t *a = p->asm_buf;
    p->asm_buf = NULL;
    int n = 0;
    if (p->asm_off == h->msglen) {
        rel->st.delivered++;
        rel->upper.deliver(rel->upper.arg, peer, h->am_id, a, h->msglen);
        n = 1;
    } else {
        rel->st.malformed++;
    }
    asm_put(rel, a);
    return n;
bad:
    /* A well-formed sender never does this; count it and move on, so a
     * broken stream cannot wedge the peer. */
    rel->st.malformed++;
    if (p->asm_buf && (fl & UMP_REL_F_FIRST)) {
        asm_put(rel, p->asm_buf);
        p->asm_buf = NULL;
    }
    p->rcv_nxt++;
    p->rcv_sack >>= 1;
    return 0;
}

int ump_rel_input(ump_rel_t *rel, const void *data, size_t len)
{
    if (len < sizeof(ump_rel_hdr_t) || len > rel->lower.mtu) {
        rel->st.malformed++;
        return 0;
    }
    const ump_rel_hdr_t *h = data;
    if (ump_crc32c(0, (const uint8_t *)h + 4, sizeof(*h) - 4) != h->hcrc) {
        rel->st.corrupted++;
        return 0;
    }
    if (h->version != UMP_REL_VERSION || h->len != len - sizeof(*h) ||
        h->src >= (uint32_t)rel->size || (int)h->src == rel->rank ||
        (h->type != UMP_REL_DATA && h->type != UMP_REL_ACK) ||
        (h->type == UMP_REL_DATA && (h->msglen > rel->cfg.max_am || h->len > h->msglen))) {
        rel->st.malformed++;
        return 0;
    }
    if (h->len && ump_crc32c(0, h + 1, h->len) != h->pcrc) {
        rel->st.corrupted++;
        return 0;
    }
    int peer = (int)h->src;
    ump_rel_peer_t *p = peer_get(rel, peer);
    if (!p || p->dead) return 0;
    uint64_t now = now_ns(rel);
    p->heard_ns = now;
    on_ack(rel, peer, p, h->ack, h->sack, now);
    if (p->txnext) push(rel, peer, p, now); /* the ack may have opened the window */
    int delivered = 0;
    if (h->type == UMP_REL_ACK) {
        rel->st.acks_recv++;
        flush_out(rel);
        return 0;
    }
    rel->last_data_ns = now;
    rel->linger_ns = UMP_MIN(UMP_MAX(4 * rto_eff(rel, p), 20000000ull), 1000000000ull);
    int32_t d = (int32_t)(h->seq - p->rcv_nxt);
    bool ackreq = h->flags & UMP_REL_F_ACKREQ;
    if (d < 0 || (d > 0 && d <= SACK_BITS && ((p->rcv_sack >> (d - 1)) & 1))) {
        /* Had it: our ack was lost or is late; say again what we have. */
        rel->st.duplicates++;
        send_ack(rel, peer, p);
    } else if (d == 0) {
        bool had_gap = p->ooo != NULL;
        int n = take(rel, peer, p, h);
        if (n < 0) {
            flush_out(rel);
            return 0;
        }
        delivered += n;
        /* The datagrams that waited for this one. */
        while (p->ooo && p->ooo->seq == p->rcv_nxt && !p->dead) {
            dgbuf_t *b = p->ooo;
            n = take(rel, peer, p, hdr_of(b));
            if (n < 0) break;
            p->ooo = b->next;
            buf_put(rel, b, false);
            delivered += n;
        }
        note_ack_owed(rel, peer, p, ackreq || had_gap, now);
    } else if (d <= SACK_BITS) {
        /* Early: keep it if a buffer is free, and tell the sender at once
         * so that the gap is repaired before its timer runs out. */
        dgbuf_t *b = buf_get(rel, false);
        if (!b) {
            rel->st.rx_dropped++;
        } else {
            memcpy(b->data, data, len);
            b->seq = h->seq;
            b->len = (uint32_t)len;
            dgbuf_t **pp = &p->ooo;
            while (*pp && seq_lt((*pp)->seq, b->seq))
                pp = &(*pp)->next;
            b->next = *pp;
            *pp = b;
            p->rcv_sack |= 1ull << (d - 1);
            rel->st.received++;
        }
        send_ack(rel, peer, p);
    } else {
        rel->st.rx_dropped++; /* beyond any window: the sender is confused */
    }
    flush_out(rel);
    return delivered;
}

/* --- timers --------------------------------------------------------------- */

static void peer_kill(ump_rel_t *rel, int peer, ump_rel_peer_t *p, uint64_t silent_ns)
{
    char who[128];
    peer_label(rel, peer, who, sizeof(who));
    unsigned rexmit = p->txq ? p->txq->nsent : 0;
    ump_error("%s: %s did not answer for %.1f s (%u transmissions of datagram %u): declaring it "
              "dead",
              rel->name, who, (double)silent_ns / 1e9, rexmit, p->snd_una);
    if (p->txq)
        ump_debug("%s: %s: head seq %u flags %x nsent %u sent %.3f s ago, snd_una %u snd_nxt %u "
                  "rcv_nxt %u rto %u us backoff %u cwnd %u",
                  rel->name, who, p->txq->seq, p->txq->flags, p->txq->nsent,
                  (double)(now_ns(rel) - p->txq->sent_ns) / 1e9, p->snd_una, p->snd_nxt, p->rcv_nxt,
                  p->rto_us, p->backoff, p->cwnd);
    flush_out(rel);
    p->dead = 1;
    while (p->txq) {
        dgbuf_t *b = p->txq;
        p->txq = b->next;
        buf_put(rel, b, true);
    }
    p->txtail = p->txnext = NULL;
    p->nq = 0;
    while (p->ooo) {
        dgbuf_t *b = p->ooo;
        p->ooo = b->next;
        buf_put(rel, b, false);
    }
    if (p->asm_buf) asm_put(rel, p->asm_buf);
    p->asm_buf = NULL;
    p->ack_at = 0;
    rel->st.dead_peers++;
    rel->failed[rel->nfailed++] = peer;
}

/* Timers of one peer; returns events handled. */
static int peer_timers(ump_rel_t *rel, int peer, ump_rel_peer_t *p, uint64_t now)
{
    int ev = 0;
    if (p->txq && p->txq != p->txnext) {
        uint64_t since = UMP_MAX(p->heard_ns, p->busy_ns);
        if (now - since >= rel->cfg.dead_ns) {
            peer_kill(rel, peer, p, now - since);
            return 1;
        }
        uint64_t rto = rto_eff(rel, p);
        uint64_t pto = probe_after(rel, p);
        if (p->probed < PROBES && pto < rto && now - p->txq->sent_ns >= pto) {
            /* Probe: the oldest datagram again, up to PROBES times a
             * stall, long before the timeout and without its penalties. A lost datagram with none
             * after it (the tail of a burst, a lone control message, a lost
             * ack) shows no gap to the receiver; the probe makes it answer. */
            dgbuf_t *b = p->txq;
            while (b != p->txnext && (b->flags & TX_SACKED))
                b = b->next;
            if (b == p->txnext) b = p->txq;
            p->probed++;
            rel->st.probes++;
            transmit(rel, peer, p, b, now);
            ev++;
        }
        if (now - p->txq->sent_ns >= rto) {
            /* Timeout of the oldest datagram: whatever is in flight and not
             * known to have arrived counts as lost (go back N, skipping what
             * the selective ack reported), and goes again from one datagram
             * on, slow start: resending a whole window into the queue that
             * just overflowed would lose it again. The timer runs even when
             * all in flight was reported early and the head goes again
             * anyway: the ack that would have freed them may be the one that
             * was lost, and only a resend makes the receiver repeat it. */
            rel->st.timeouts++;
            ump_debug("%s: rank %d: timeout of datagram %u (flags %x, sent %u times), %u queued, "
                      "cwnd %u, next %d, rto %llu us",
                      rel->name, peer, p->txq->seq, p->txq->flags, p->txq->nsent, p->nq, p->cwnd,
                      p->txnext ? (int)(p->txnext->seq - p->snd_una) : -1,
                      (unsigned long long)rto / 1000);
            if (p->backoff < 16) p->backoff++;
            p->ssthresh = (uint8_t)UMP_MAX(p->cwnd / 2, 2);
            p->cwnd = 1;
            p->cwnd_acc = 0;
            p->recover = p->snd_nxt;
            for (dgbuf_t *b = p->txq; b != p->txnext; b = b->next)
                b->flags &= (uint8_t)~TX_FAST;
            p->txq->flags &= (uint8_t)~TX_SACKED;
            p->txnext = p->txq;
            ev++;
        }
    }
    if (p->txnext) push(rel, peer, p, now);
    if (p->ack_at && now >= p->ack_at) {
        send_ack(rel, peer, p);
        ev++;
    }
    return ev;
}

int ump_rel_poll(ump_rel_t *rel)
{
    int ev = 0;
    if (rel->nactive) {
        uint64_t now = now_ns(rel);
        for (int i = 0; i < rel->nactive;) {
            int peer = rel->active[i];
            ump_rel_peer_t *p = rel->peers[peer];
            if (!p->dead) ev += peer_timers(rel, peer, p, now);
            if (p->dead || (!p->txq && !p->ack_at)) {
                p->active = 0;
                rel->active[i] = rel->active[--rel->nactive];
                continue;
            }
            i++;
        }
        flush_out(rel);
    }
    /* Failures are reported outside the walk: the callback may send. */
    while (rel->nfailed) {
        int peer = rel->failed[--rel->nfailed];
        if (rel->upper.peer_failed) rel->upper.peer_failed(rel->upper.arg, peer, UMP_ERR_PEER_DEAD);
        ev++;
    }
    return ev;
}

uint64_t ump_rel_deadline(ump_rel_t *rel)
{
    if (rel->nfailed) return 0;
    uint64_t t = UINT64_MAX;
    for (int i = 0; i < rel->nactive; i++) {
        ump_rel_peer_t *p = rel->peers[rel->active[i]];
        if (p->dead) return 0;
        if (p->ack_at) t = UMP_MIN(t, p->ack_at);
        if (p->txnext &&
            (uint32_t)(p->txnext->seq - p->snd_una) < UMP_MIN(p->cwnd, rel->cfg.window))
            return 0;
        if (p->txq && p->txq != p->txnext) {
            uint64_t rto = rto_eff(rel, p);
            t = UMP_MIN(t, p->txq->sent_ns + rto);
            uint64_t pto = probe_after(rel, p);
            if (p->probed < PROBES && pto < rto) t = UMP_MIN(t, p->txq->sent_ns + pto);
            t = UMP_MIN(t, UMP_MAX(p->heard_ns, p->busy_ns) + rel->cfg.dead_ns);
        }
    }
    if (rel->flushing && rel->last_data_ns) t = UMP_MIN(t, rel->last_data_ns + rel->linger_ns);
    return t;
}

int ump_rel_flush(ump_rel_t *rel)
{
    rel->flushing = true;
    bool busy = false;
    for (int i = 0; i < rel->nactive; i++) {
        int peer = rel->active[i];
        ump_rel_peer_t *p = rel->peers[peer];
        if (p->dead) continue;
        if (p->ack_at) send_ack(rel, peer, p); /* no point waiting now */
        if (p->txq) busy = true;
    }
    flush_out(rel);
    if (busy) return UMP_INPROGRESS;
    /* Our peers close once their data is acknowledged; when our last ack to
     * one was lost, it resends and needs us to answer. So stay a few of its
     * retransmission timeouts after the last data arrived. */
    if (rel->last_data_ns && now_ns(rel) - rel->last_data_ns < rel->linger_ns)
        return UMP_INPROGRESS;
    return UMP_OK;
}

bool ump_rel_peer_dead(ump_rel_t *rel, int peer)
{
    return peer >= 0 && peer < rel->size && rel->peers[peer] && rel->peers[peer]->dead;
}

void ump_rel_get_stats(const ump_rel_t *rel, ump_rel_stats_t *st)
{
    *st = rel->st;
}

size_t ump_rel_peer_state_size(void)
{
    return sizeof(ump_rel_peer_t);
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
