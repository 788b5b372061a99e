/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel_impl.h - the reliability engine's state and the calls its files
 * share (rel.c: configuration, buffer pool, peers, life cycle;
 * rel_send.c: sending and acks; rel_recv.c: receiving, acks taken,
 * reassembly; rel_timer.c: retransmission, probes, dead peers, flush).
 * The design is described in rel.c; the contract and wire format in rel.h.
 */
#ifndef UMP_XPORT_REL_IMPL_H
#define UMP_XPORT_REL_IMPL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/crc32c.h"
#include "util/util.h"
#include "xport/rel/rel.h"

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
    bool oversize_said; /* a message too large for this rank was reported */
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

static inline uint64_t rto_eff(const ump_rel_t *rel, const ump_rel_peer_t *p)
{
    uint64_t t = (uint64_t)p->rto_us * 1000u << p->backoff;
    return UMP_MIN(t, rel->cfg.rto_max_ns);
}

/* When the oldest datagram in flight is probed: a few round trips plus the
 * receiver's ack delay; never before a round trip was measured. */
static inline uint64_t probe_after(const ump_rel_t *rel, const ump_rel_peer_t *p)
{
    if (!p->srtt_us) return UINT64_MAX;
    uint64_t t = 2ull * p->srtt_us * 1000u;
    return UMP_MAX(t, rel->cfg.ack_delay_ns + 300000u);
}

static inline double rnd(ump_rel_t *rel)
{
    /* xorshift64*: enough randomness for fault injection, reproducible. */
    uint64_t x = rel->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rel->rng = x;
    return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static inline void peer_label(ump_rel_t *rel, int peer, char *buf, size_t len)
{
    char addr[96] = "";
    if (rel->lower.peer_name) rel->lower.peer_name(rel->lower.ctx, peer, addr, sizeof(addr));
    if (addr[0])
        snprintf(buf, len, "rank %d (%s)", peer, addr);
    else
        snprintf(buf, len, "rank %d", peer);
}

dgbuf_t *ump_rel_buf_get(ump_rel_t *rel, bool tx);
void ump_rel_buf_put(ump_rel_t *rel, dgbuf_t *b, bool tx);
uint8_t *ump_rel_asm_get(ump_rel_t *rel);
void ump_rel_asm_put(ump_rel_t *rel, uint8_t *a);
void ump_rel_activate(ump_rel_t *rel, int peer, ump_rel_peer_t *p);
ump_rel_peer_t *ump_rel_peer_get(ump_rel_t *rel, int peer);
void ump_rel_flush_out(ump_rel_t *rel);
void ump_rel_transmit(ump_rel_t *rel, int peer, ump_rel_peer_t *p, dgbuf_t *b, uint64_t now);
void ump_rel_send_ack(ump_rel_t *rel, int peer, ump_rel_peer_t *p);
void ump_rel_push(ump_rel_t *rel, int peer, ump_rel_peer_t *p, uint64_t now);

#endif
