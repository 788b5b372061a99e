/* SPDX-License-Identifier: BSD-3-Clause */
/* The reliability engine: sending, windows and acks (see rel_impl.h). */
#include "xport/rel/rel_impl.h"

/* --- sending -------------------------------------------------------------- */

void ump_rel_flush_out(ump_rel_t *rel)
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
    if (rel->nout == OUT_MAX) ump_rel_flush_out(rel);
    rel->out[rel->nout++] = (ump_rel_dgram_t){.peer = peer, .data = data, .len = len};
}

/* Puts a DATA datagram on the wire (first time or again), with the current
 * ack for the reverse direction riding on it. */
void ump_rel_transmit(ump_rel_t *rel, int peer, ump_rel_peer_t *p, dgbuf_t *b, uint64_t now)
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

void ump_rel_send_ack(ump_rel_t *rel, int peer, ump_rel_peer_t *p)
{
    /* Both arrays need room: flushing empties both, and an ACK header must
     * not be rewritten while `out` still points at it. */
    if (rel->nacks == OUT_MAX || rel->nout == OUT_MAX) ump_rel_flush_out(rel);
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
void ump_rel_push(ump_rel_t *rel, int peer, ump_rel_peer_t *p, uint64_t now)
{
    uint32_t win = UMP_MIN(p->cwnd, rel->cfg.window);
    while (p->txnext && (uint32_t)(p->txnext->seq - p->snd_una) < win) {
        dgbuf_t *b = p->txnext;
        p->txnext = b->next;
        if (!(b->flags & TX_SACKED)) ump_rel_transmit(rel, peer, p, b, now);
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
    ump_rel_peer_t *p = ump_rel_peer_get(rel, peer);
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
        dgbuf_t *b = ump_rel_buf_get(rel, true);
        if (!b) {
            /* Pool or memory exhausted: give everything back, take nothing. */
            while (first) {
                dgbuf_t *n = first->next;
                ump_rel_buf_put(rel, first, true);
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
    ump_rel_activate(rel, peer, p);
    ump_rel_push(rel, peer, p, now);
    ump_rel_flush_out(rel);
    return UMP_OK;
}
