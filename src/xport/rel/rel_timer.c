/* SPDX-License-Identifier: BSD-3-Clause */
/* The reliability engine: timers, dead peers, flush and counters (see rel_impl.h). */
#include "xport/rel/rel_impl.h"

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
    ump_rel_flush_out(rel);
    p->dead = 1;
    while (p->txq) {
        dgbuf_t *b = p->txq;
        p->txq = b->next;
        ump_rel_buf_put(rel, b, true);
    }
    p->txtail = p->txnext = NULL;
    p->nq = 0;
    while (p->ooo) {
        dgbuf_t *b = p->ooo;
        p->ooo = b->next;
        ump_rel_buf_put(rel, b, false);
    }
    if (p->asm_buf) ump_rel_asm_put(rel, p->asm_buf);
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
            ump_rel_transmit(rel, peer, p, b, now);
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
    if (p->txnext) ump_rel_push(rel, peer, p, now);
    if (p->ack_at && now >= p->ack_at) {
        ump_rel_send_ack(rel, peer, p);
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
        ump_rel_flush_out(rel);
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
        if (p->ack_at) ump_rel_send_ack(rel, peer, p); /* no point waiting now */
        if (p->txq) busy = true;
    }
    ump_rel_flush_out(rel);
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
