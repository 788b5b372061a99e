/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receiving side of every protocol: what the core does with each AM a
 * transport hands it. See core.h for the protocols' shape.
 */
#include <string.h>

#include "core/core.h"

static size_t match_hlen(uint8_t am_id)
{
    return am_id == UMP_AM_RTS ? sizeof(ump_hdr_rts_t) : sizeof(ump_hdr_match_t);
}

/* Copies the first n bytes of an eager message into r's buffer. */
static void place(struct ump_request *r, const void *payload, size_t n)
{
    ump_core.xfer.msgs[UMP_XFER_EAGER]++;
    ump_core.xfer.bytes[UMP_XFER_EAGER] += n;
    ump_core.xfer.copied_recv[UMP_XFER_EAGER] += n;
    if (!n) return;
    if (r->dt)
        ump_dt_unpack(r->buf, r->count, r->dt, 0, payload, n);
    else
        memcpy(r->buf, payload, n);
}

/* Receive `r` meets a message described by (src, am_id, h) whose eager
 * payload, if any, is `payload` (for an RTS: its ump_rts_dt_t, if any, and
 * `lay` the sender's layout when known). */
static void deliver(struct ump_request *r, int src, uint8_t am_id, const ump_hdr_rts_t *h,
                    const void *payload, size_t plen, const ump_rlay_t *lay)
{
    size_t take = UMP_MIN((size_t)h->m.len, r->len);
    int err = h->m.len > r->len ? UMP_ERR_TRUNCATE : UMP_OK;

    r->flags |= UMP_RF_MATCHED;
    r->status.source = src;
    r->status.tag = h->m.tag;
    r->status.msg_len = h->m.len;
    r->status.count = take;

    if (am_id != UMP_AM_RTS) {
        place(r, payload, UMP_MIN(take, plen));
        if (am_id == UMP_AM_EAGER_SYNC) {
            ump_hdr_ack_t ack = {.sreq = h->m.sreq};
            ump_core_send_ctrl(src, UMP_AM_SYNC_ACK, &ack, sizeof(ack));
        }
        ump_core_req_complete(r, err);
        return;
    }

    /* Rendezvous: the scheme is chosen per message from both layouts
     * (rndv.c): read the data ourselves, have the sender write them, or
     * have them streamed. An RTS that waited as unexpected may come from a
     * peer that died since: nobody would answer. */
    if (UMP_UNLIKELY(ump_core.peers[src].dead)) {
        ump_core_req_complete(r, UMP_ERR_PEER_DEAD);
        return;
    }
    ump_xp_t *xp = ump_core.peers[src].xp;
    r->expected = take;
    r->done = 0;
    r->status.error = err;
    const void *key;
    size_t klen = ump_core_rts_key_parse(xp, src, payload, plen, &key);
    payload = (const char *)payload + klen;
    plen -= klen;
    ump_rts_dt_t ext;
    bool noncontig = plen >= sizeof(ext);
    if (noncontig) memcpy(&ext, payload, sizeof(ext));
    int scheme = take > 0 ? ump_core_rndv_choose(xp, r, !noncontig, take) : UMP_RNDV_STREAM;
    if (scheme == UMP_RNDV_WRITE && ump_core_rput_ask(xp, src, r, h->m.sreq, take) == UMP_OK)
        return; /* the sender writes (or streams) */
    if (scheme == UMP_RNDV_READ) {
        int rc = ump_core_rget(xp, src, r, h, key, noncontig ? &ext : NULL, lay, take);
        if (rc == UMP_OK || rc == UMP_INPROGRESS) return; /* done, or finished by the transport */
        if (rc == UMP_ERR_PEER_DEAD) {
            ump_core_req_complete(r, rc);
            return;
        }
        if (rc != UMP_ERR_UNSUPPORTED)
            ump_debug("get from rank %d failed (%s); streaming instead", src, ump_strerror(rc));
    }
    ump_core_rdv_stream(r, src, h->m.sreq, take);
}

void ump_core_rdv_stream(struct ump_request *r, int src, uint64_t sreq, size_t take)
{
    if (take == 0) {
        /* Nothing to move: release the sender at once. */
        ump_hdr_ack_t fin = {.sreq = sreq};
        ump_core_send_ctrl(src, UMP_AM_FIN, &fin, sizeof(fin));
        ump_core_req_complete(r, r->status.error);
        return;
    }
    if (r->dt) {
        int rc = ump_core_dt_cursor(r);
        if (rc != UMP_OK) {
            /* The sender waits for CTS or FIN: fail its send too (a FIN
             * would report success for data that never moved). */
            ump_error("out of memory receiving %zu bytes from rank %d", take, src);
            ump_core_send_nack(src, sreq, rc);
            ump_core_req_complete(r, rc);
            return;
        }
    }
    ump_hdr_cts_t cts = {.sreq = sreq, .rreq = ump_req_id(r), .len = take};
    ump_core_send_ctrl(src, UMP_AM_CTS, &cts, sizeof(cts));
}

int ump_core_take_eager(void *buf, size_t len, ump_dt_t layout, size_t count, ump_unexp_t *u,
                        ump_status_t *st)
{
    size_t take = UMP_MIN((size_t)u->h.m.len, len);
    int err = u->h.m.len > len ? UMP_ERR_TRUNCATE : UMP_OK;
    int src = u->src;
    size_t cost = u->cost;
    ump_core.xfer.msgs[UMP_XFER_EAGER]++;
    ump_core.xfer.bytes[UMP_XFER_EAGER] += take;
    ump_core.xfer.copied_recv[UMP_XFER_EAGER] += take;
    if (take) {
        if (layout)
            ump_dt_unpack(buf, count, layout, 0, u->data, take);
        else
            memcpy(buf, u->data, take);
    }
    if (u->am_id == UMP_AM_EAGER_SYNC) {
        ump_hdr_ack_t ack = {.sreq = u->h.m.sreq};
        ump_core_send_ctrl(src, UMP_AM_SYNC_ACK, &ack, sizeof(ack));
    }
    if (st) {
        st->source = src;
        st->tag = u->h.m.tag;
        st->error = err;
        st->cancelled = 0;
        st->count = take;
        st->msg_len = u->h.m.len;
    }
    ump_core_unexp_free(u);
    ump_core_consumed(src, cost);
    return err;
}

void ump_core_deliver_unexp(struct ump_request *r, ump_unexp_t *u)
{
    int src = u->src;
    size_t cost = u->cost;
    if (UMP_UNLIKELY(ump_core_unexp_lost(u))) {
        r->flags |= UMP_RF_MATCHED;
        r->status.source = src;
        r->status.tag = u->h.m.tag;
        r->status.msg_len = u->h.m.len;
        r->status.count = 0;
        ump_error("receive on rank %d: the message from rank %d (tag %d, %llu bytes) that it "
                  "matches was lost: no memory to hold it when it arrived",
                  ump_core.rank, src, u->h.m.tag, (unsigned long long)u->h.m.len);
        ump_core_req_complete(r, UMP_ERR_NO_MEMORY);
        ump_core_unexp_free(u);
        ump_core_consumed(src, cost);
        return;
    }
    deliver(r, src, u->am_id, &u->h, u->data, u->datalen, u->lay);
    ump_core_unexp_free(u);
    ump_core_consumed(src, cost);
}

static void on_match_am(int peer, uint8_t am_id, const char *data, size_t len)
{
    size_t hlen = match_hlen(am_id); /* what credits count */
    size_t wire = am_id == UMP_AM_EAGER_SHORT ? UMP_HDR_SHORT : hlen;
    ump_hdr_rts_t h = {0};
    if (len < wire) {
        ump_error("protocol: short message header (%zu bytes) from rank %d dropped", len, peer);
        return;
    }
    memcpy(&h, data, wire);
    const char *payload = data + wire;
    size_t plen = len - wire;
    if (am_id == UMP_AM_EAGER_SHORT) {
        am_id = UMP_AM_EAGER;
        h.m.len = plen;
    }
    if (am_id != UMP_AM_RTS && plen != h.m.len) {
        ump_error("protocol: eager message from rank %d says %llu bytes but carries %zu; dropped",
                  peer, (unsigned long long)h.m.len, plen);
        return;
    }
    /* A layout that travels with an RTS is kept now, in arrival order, so
     * later RTSs of this sender that name it find it. */
    ump_rlay_t *lay = NULL;
    if (am_id == UMP_AM_RTS && plen) {
        /* Any key trailer stays with the message; deliver() reads it. */
        const void *key;
        size_t klen = ump_core_rts_key_parse(ump_core.peers[peer].xp, peer, payload, plen, &key);
        if (plen > klen) lay = ump_core_dt_rts_layout(peer, payload + klen, plen - klen);
        /* the runs are in lay now */
        plen = klen + UMP_MIN(plen - klen, sizeof(ump_rts_dt_t));
    }

    ump_ctxq_t *q = ump_core_ctxq(h.m.ctx, true);
    if (UMP_UNLIKELY(!q)) {
        ump_error("out of memory for the queues of context %u", h.m.ctx);
        ump_core_dt_lay_unref(lay);
        return;
    }
    struct ump_request *r = ump_core_match_posted(q, peer, h.m.tag);
    size_t cost = ump_core_cost(am_id, hlen, plen);
    ump_core.stats.msgs_recv++;
    ump_core.stats.bytes_recv += h.m.len;
    if (!r) ump_core.stats.unexpected++;
    if (r) {
        deliver(r, peer, am_id, &h, payload, plen, lay);
        ump_core_dt_lay_unref(lay);
        ump_core_consumed(peer, cost);
        return;
    }
    ump_unexp_t *u = ump_core_unexp_alloc(plen);
    if (UMP_UNLIKELY(!u)) {
        /* Credits bound what can arrive here, so this is real exhaustion.
         * A sender that waits for our answer fails instead of waiting
         * forever (a standard eager send has completed already); the
         * receive that would have matched fails too, through a data-less
         * record that keeps the message's place in the queue. */
        ump_core_dt_lay_unref(lay);
        if (am_id != UMP_AM_EAGER) ump_core_send_nack(peer, h.m.sreq, UMP_ERR_NO_MEMORY);
        u = ump_core_unexp_tomb();
        if (!u) {
            ump_error("out of memory for an unexpected message of %zu bytes from rank %d (tag "
                      "%d): it is lost",
                      plen, peer, h.m.tag);
            ump_core_consumed(peer, cost);
            return;
        }
        ump_error("out of memory for an unexpected message of %zu bytes from rank %d (tag %d): "
                  "the receive that matches it will fail",
                  plen, peer, h.m.tag);
        u->src = peer;
        u->am_id = am_id;
        u->h = h;
        u->cost = cost;
        TAILQ_INSERT_TAIL(&q->unexp, u, link);
        return;
    }
    u->src = peer;
    u->am_id = am_id;
    u->h = h;
    u->cost = cost;
    u->datalen = plen;
    u->lay = lay;
    if (am_id != UMP_AM_RTS) ump_core.xfer.copied_recv[UMP_XFER_EAGER] += plen;
    if (plen) memcpy(u->data, payload, plen);
    TAILQ_INSERT_TAIL(&q->unexp, u, link);
}

void ump_core_send_stream(int peer, struct ump_request *s)
{
    s->done = 0;
    if (s->dt) {
        int rc = ump_core_dt_cursor(s);
        if (rc != UMP_OK) {
            /* The receiver waits for DATA that will not come: fail it too. */
            ump_error("out of memory streaming %zu bytes to rank %d", s->expected, peer);
            ump_core_send_nack(peer, s->rreq, rc);
            ump_core_req_complete(s, rc);
            return;
        }
    }
    ump_op_t op = {.am_id = UMP_AM_DATA, .req = s};
    ump_core_queue_op(peer, &op, true);
}

static void on_cts(int peer, const char *data, size_t len)
{
    ump_hdr_cts_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short CTS from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    struct ump_request *s = ump_req_from_id(h.sreq);
    s->rreq = h.rreq;
    s->expected = UMP_MIN((size_t)h.len, s->len);
    ump_core_send_stream(peer, s);
}

static void on_data(int peer, const char *data, size_t len)
{
    ump_hdr_data_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short DATA from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    struct ump_request *r = ump_req_from_id(h.rreq);
    size_t n = len - sizeof(h);
    if (h.offset + n > r->expected) {
        ump_error("protocol: DATA from rank %d beyond the message (offset %llu + %zu > %zu)", peer,
                  (unsigned long long)h.offset, n, r->expected);
        return;
    }
    if (r->dt) {
        /* Segments of one message arrive in order on most transports, and
         * the cursor then just moves on; a provider may deliver large
         * messages out of order (ofi_rxm's rendezvous for big ones
         * overtaken by its eager ones): the cursor seeks to the segment. */
        if (UMP_UNLIKELY(!r->cur)) {
            ump_error("protocol: DATA from rank %d for a receive not streaming", peer);
            return;
        }
        if (UMP_UNLIKELY(r->cur->pos != h.offset) &&
            ump_dt_cursor_init(r->cur, r->buf, r->count, r->dt, h.offset) != UMP_OK) {
            ump_error("protocol: DATA from rank %d at a bad offset %llu", peer,
                      (unsigned long long)h.offset);
            return;
        }
        ump_dt_cursor_unpack(r->cur, data + sizeof(h), n);
    } else {
        memcpy((char *)r->buf + h.offset, data + sizeof(h), n);
    }
    ump_core.xfer.copied_recv[UMP_XFER_STREAM] += n;
    r->done += n;
    if (r->done == r->expected) {
        if (r->timed) ump_core_rndv_timed(r, true);
        ump_core.xfer.msgs[UMP_XFER_STREAM]++;
        ump_core.xfer.bytes[UMP_XFER_STREAM] += r->expected;
        ump_core_req_complete(r, r->status.error);
    }
}

static void on_ack(int peer, const char *data, size_t len)
{
    ump_hdr_ack_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short acknowledgement from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    ump_core_req_complete(ump_req_from_id(h.sreq), UMP_OK);
}

static void on_nack(int peer, const char *data, size_t len)
{
    ump_hdr_nack_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short NACK from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    struct ump_request *r = ump_req_from_id(h.req);
    ump_debug("rank %d failed its side of a transfer: %s", peer, ump_strerror(h.error));
    ump_core_req_complete(r, h.error);
}

static void on_credit(int peer, const char *data, size_t len)
{
    ump_hdr_credit_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short CREDIT from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    ump_peer_t *p = &ump_core.peers[peer];
    p->credits += (int64_t)h.bytes;
    p->credit_wait_off = false;
    if (!TAILQ_EMPTY(&p->match) && !p->on_pending_list) {
        TAILQ_INSERT_TAIL(&ump_core.pending_peers, p, pending_link);
        p->on_pending_list = true;
    }
}

/* The common case of an arriving standard eager message, by itself: its
 * context is the one last used, and the receive at the head of the posted
 * queue (the earliest one, so matching it keeps MPI's order) matches it,
 * takes plain bytes and has room. Then no scan, no header copy beyond tag
 * and context, no protocol switch. False (nothing done) sends it the
 * general way. */
static bool eager_at_head(int peer, const char *data, size_t len)
{
    ump_hdr_match_t h;
    if (UMP_UNLIKELY(len < UMP_HDR_SHORT)) return false;
    memcpy(&h, data, UMP_HDR_SHORT);
    size_t plen = len - UMP_HDR_SHORT;
    ump_ctxq_t *q = ump_core.last_ctxq;
    if (!q || q->ctx != h.ctx) return false;
    struct ump_request *r = TAILQ_FIRST(&q->posted);
    if (!r || r->dt || plen > r->len || (r->peer != UMP_ANY_SOURCE && r->peer != peer) ||
        (r->tag != UMP_ANY_TAG && r->tag != h.tag))
        return false;
    TAILQ_REMOVE(&q->posted, r, link);
    r->flags = (r->flags & ~UMP_RF_POSTED) | UMP_RF_MATCHED;
    r->status.source = peer;
    r->status.tag = h.tag;
    r->status.msg_len = plen;
    r->status.count = plen;
    ump_core.xfer.msgs[UMP_XFER_EAGER]++;
    ump_core.xfer.bytes[UMP_XFER_EAGER] += plen;
    ump_core.xfer.copied_recv[UMP_XFER_EAGER] += plen;
    ump_copy_short(r->buf, data + UMP_HDR_SHORT, plen);
    ump_core.stats.msgs_recv++;
    ump_core.stats.bytes_recv += plen;
    ump_core_req_complete(r, UMP_OK);
    ump_core_consumed(peer, sizeof(h) + plen);
    return true;
}

void ump_core_am_handler(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data,
                         size_t len)
{
    if (am_id == UMP_AM_EAGER_SHORT && UMP_LIKELY(peer >= 0 && peer < ump_core.npeers) &&
        eager_at_head(peer, data, len))
        return;
    if (UMP_UNLIKELY(peer < 0 || peer >= ump_core.npeers)) {
        ump_error("protocol: message from unknown rank %d dropped", peer);
        return;
    }
    /* Replies name our requests, which a peer's death completed and may
     * have released: whatever of its AMs a transport still hands over.
     * Its messages (EAGER_SHORT sits after the replies' ids) still go to
     * their receives. */
    if (UMP_UNLIKELY(ump_core.peers[peer].dead) && am_id >= UMP_AM_CTS && am_id != UMP_AM_CREDIT &&
        am_id != UMP_AM_EAGER_SHORT)
        return;
    switch (am_id) {
    case UMP_AM_EAGER:
    case UMP_AM_EAGER_SHORT:
    case UMP_AM_EAGER_SYNC:
    case UMP_AM_RTS:
        on_match_am(peer, am_id, data, len);
        break;
    case UMP_AM_CTS:
        on_cts(peer, data, len);
        break;
    case UMP_AM_DATA:
        on_data(peer, data, len);
        break;
    case UMP_AM_FIN:
    case UMP_AM_SYNC_ACK:
        on_ack(peer, data, len);
        break;
    case UMP_AM_CREDIT:
        on_credit(peer, data, len);
        break;
    case UMP_AM_NACK:
        on_nack(peer, data, len);
        break;
    case UMP_AM_CTSW:
        ump_core_on_ctsw(peer, data, len);
        break;
    case UMP_AM_WFIN:
        ump_core_on_wfin(peer, data, len);
        break;
    default:
        ump_error("protocol: unknown message type %u from rank %d dropped", am_id, peer);
    }
}

void ump_core_peer_failed(void *arg, ump_xp_t *xp, int peer, int status)
{
    if (peer < 0 || peer >= ump_core.npeers || ump_core.peers[peer].dead) return;
    ump_debug("rank %d is unreachable over %s: %s", peer, xp->ops->name, ump_strerror(status));
    ump_core_fail_peer(peer, status);
}
