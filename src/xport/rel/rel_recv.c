/* SPDX-License-Identifier: BSD-3-Clause */
/* The reliability engine: receiving, acks taken, reassembly (see rel_impl.h). */
#include "xport/rel/rel_impl.h"

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
    ump_rel_flush_out(rel);
    if (seq_lt(p->snd_una, ack)) {
        uint64_t sample = 0;
        uint32_t freed = 0;
        while (p->txq && seq_lt(p->txq->seq, ack)) {
            dgbuf_t *b = p->txq;
            /* Karn: only datagrams sent once time a round trip. */
            if (b->nsent == 1) sample = now - b->sent_ns;
            p->txq = b->next;
            if (p->txnext == b) p->txnext = b->next;
            ump_rel_buf_put(rel, b, true);
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
        ump_rel_transmit(rel, peer, p, b, now);
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
        ump_rel_send_ack(rel, peer, p);
    } else if (!p->ack_at) {
        p->ack_at = now + rel->cfg.ack_delay_ns;
        ump_rel_activate(rel, peer, p);
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
        if (!(p->asm_buf = ump_rel_asm_get(rel))) {
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
    ump_rel_asm_put(rel, a);
    return n;
bad:
    /* A well-formed sender never does this; count it and move on, so a
     * broken stream cannot wedge the peer. */
    rel->st.malformed++;
    if (p->asm_buf && (fl & UMP_REL_F_FIRST)) {
        ump_rel_asm_put(rel, p->asm_buf);
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
        /* A sound header (its CRC held) with a message too large for this
         * rank: the sender's sizes differ from ours, and every retransmission
         * will be dropped too. Said once, naming the sender. */
        if (h->type == UMP_REL_DATA && h->msglen > rel->cfg.max_am && h->len <= h->msglen &&
            h->src < (uint32_t)rel->size && !rel->oversize_said) {
            rel->oversize_said = true;
            ump_error("rel: rank %u sends %u-byte messages, larger than this rank's largest "
                      "(%zu): their eager limit and segment size must be set alike on every rank "
                      "(UMP_UDP_* or UMP_OFIUD_*); its messages are dropped",
                      h->src, h->msglen, rel->cfg.max_am);
        }
        return 0;
    }
    if (h->len && ump_crc32c(0, h + 1, h->len) != h->pcrc) {
        rel->st.corrupted++;
        return 0;
    }
    int peer = (int)h->src;
    ump_rel_peer_t *p = ump_rel_peer_get(rel, peer);
    if (!p || p->dead) return 0;
    uint64_t now = now_ns(rel);
    p->heard_ns = now;
    on_ack(rel, peer, p, h->ack, h->sack, now);
    if (p->txnext) ump_rel_push(rel, peer, p, now); /* the ack may have opened the window */
    int delivered = 0;
    if (h->type == UMP_REL_ACK) {
        rel->st.acks_recv++;
        ump_rel_flush_out(rel);
        return 0;
    }
    rel->last_data_ns = now;
    rel->linger_ns = UMP_MIN(UMP_MAX(4 * rto_eff(rel, p), 20000000ull), 1000000000ull);
    int32_t d = (int32_t)(h->seq - p->rcv_nxt);
    bool ackreq = h->flags & UMP_REL_F_ACKREQ;
    if (d < 0 || (d > 0 && d <= SACK_BITS && ((p->rcv_sack >> (d - 1)) & 1))) {
        /* Had it: our ack was lost or is late; say again what we have. */
        rel->st.duplicates++;
        ump_rel_send_ack(rel, peer, p);
    } else if (d == 0) {
        bool had_gap = p->ooo != NULL;
        int n = take(rel, peer, p, h);
        if (n < 0) {
            ump_rel_flush_out(rel);
            return 0;
        }
        delivered += n;
        /* The datagrams that waited for this one. */
        while (p->ooo && p->ooo->seq == p->rcv_nxt && !p->dead) {
            dgbuf_t *b = p->ooo;
            n = take(rel, peer, p, hdr_of(b));
            if (n < 0) break;
            p->ooo = b->next;
            ump_rel_buf_put(rel, b, false);
            delivered += n;
        }
        note_ack_owed(rel, peer, p, ackreq || had_gap, now);
    } else if (d <= SACK_BITS) {
        /* Early: keep it if a buffer is free, and tell the sender at once
         * so that the gap is repaired before its timer runs out. */
        dgbuf_t *b = ump_rel_buf_get(rel, false);
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
        ump_rel_send_ack(rel, peer, p);
    } else {
        rel->st.rx_dropped++; /* beyond any window: the sender is confused */
    }
    ump_rel_flush_out(rel);
    return delivered;
}
