/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous by the transport's put(): the write scheme (chosen in
 * rndv.c). The receiver answers the RTS with CTSW: where its buffer is,
 * its packed key over transports that need registered memory, and for a
 * non-contiguous receive its layout. The sender writes its data there
 * with put() — gathering its own runs into one range (RWG-UP), or into
 * the receiver's runs (Multi-W) — and when every write has completed
 * (delivery complete: the bytes are in the receiver's memory) it sends
 * WFIN, which completes the receive.
 *
 * The receiver's layout travels the first time it receives a type from a
 * sender and afterwards only its id, a process-unique version number that
 * is never reused: the sender keeps the layouts in a table of slots per
 * receiver (wlay_rx), the receiver remembers which ids it sent
 * (wlay_sent), both indexed alike, as for the RTS's layouts (dtx.c).
 *
 * The sender may always stream instead (no key, a layout it does not
 * have, short runs, a failed registration or write): it answers with DATA
 * segments exactly as after a CTS, and the receiver, which prepared for
 * that when it sent CTSW, completes on the last one.
 */
#include <string.h>

#include "core/core.h"

int ump_core_rput_ask(ump_xp_t *xp, int src, struct ump_request *r, uint64_t sreq, size_t take)
{
    if (!xp->caps.rma_put || !xp->ops->put || !take) return UMP_ERR_UNSUPPORTED;
    ump_peer_t *p = &ump_core.peers[src];
    ump_hdr_ctsw_t h = {
        .sreq = sreq, .rreq = ump_req_id(r), .len = take, .addr = (uint64_t)(uintptr_t)r->buf};
    ump_rts_dt_t ext = {0};
    const struct iovec *flat = NULL;
    size_t nruns = 0;
    if (r->dt) {
        ump_dt_t dt = r->dt;
        ext = (ump_rts_dt_t){.dtid = dt->uid, .count = r->count, .extent = ump_dt_extent(dt)};
        if (!ump_core_dt_lay_known(&p->wlay_sent, dt->uid)) {
            flat = ump_dt_flat(dt, ump_core_dt_layout_max(), &nruns);
            if (!flat || !nruns) return UMP_ERR_UNSUPPORTED; /* too many runs: stream */
            ext.nruns = (uint32_t)nruns;
            ext.flags = UMP_RTS_DT_LAYOUT;
        }
    }
    if (ump_core_mr_reg(xp, r, take) != UMP_OK) return UMP_ERR_UNSUPPORTED;
    char key[sizeof(ump_rts_key_t) + UMP_XP_RKEY_MAX];
    struct iovec v[3];
    int nv = 0;
    if (xp->caps.mr_required) v[nv++] = (struct iovec){key, ump_core_rts_key_pack(r->mr, key)};
    if (r->dt) {
        v[nv++] = (struct iovec){&ext, sizeof(ext)};
        if (flat) v[nv++] = (struct iovec){(void *)flat, nruns * sizeof(ump_riov_t)};
    }
    size_t total = sizeof(h);
    for (int i = 0; i < nv; i++)
        total += v[i].iov_len;
    int rc = UMP_ERR_UNSUPPORTED;
    /* The sender may stream instead of writing: be ready for DATA. */
    if (total <= xp->caps.max_am && (size_t)nv <= xp->caps.max_iov &&
        (!r->dt || ump_core_dt_cursor(r) == UMP_OK))
        rc = xp->ops->am_send(xp, src, UMP_AM_CTSW, &h, sizeof(h), v, nv);
    if (rc != UMP_OK) {
        /* Refused for now, or too big: a CTS (which queues) does it. */
        ump_core_mr_release(r);
        return UMP_ERR_UNSUPPORTED;
    }
    if (flat) ump_core_dt_lay_mark(&p->wlay_sent, r->dt->uid);
    return UMP_OK;
}

/* Every write of s is in the receiver's memory: tell it, and finish. */
static void wfin(int peer, struct ump_request *s)
{
    ump_hdr_ack_t fin = {.sreq = s->rreq};
    ump_core_send_ctrl(peer, UMP_AM_WFIN, &fin, sizeof(fin));
    ump_core_req_complete(s, UMP_OK);
}

/* The transport finished every write of s (from its progress). */
static void wput_done(ump_xp_comp_t *comp, int status)
{
    struct ump_request *s = UMP_CONTAINER_OF(comp, struct ump_request, comp);
    int peer = s->peer;
    s->flags &= ~UMP_RF_RMA;
    ump_core_mr_release(s);
    if (status == UMP_OK) {
        wfin(peer, s);
        return;
    }
    if (status == UMP_ERR_PEER_DEAD || ump_core.peers[peer].dead) {
        ump_core_req_complete(s, UMP_ERR_PEER_DEAD);
        return;
    }
    /* Our data are untouched: stream them over whatever the writes left. */
    ump_debug("put to rank %d failed (%s); streaming instead", peer, ump_strerror(status));
    ump_core_send_stream(peer, s);
}

static int start_put(ump_xp_t *xp, int peer, struct ump_request *s, const ump_hdr_ctsw_t *h,
                     const void *key, const ump_rts_dt_t *ext, const ump_rlay_t *lay)
{
    if (!s->expected || !xp->caps.rma_put || !xp->ops->put) return UMP_ERR_UNSUPPORTED;
    if ((xp->caps.mr_required && !key) || (ext && !lay)) return UMP_ERR_UNSUPPORTED;
    /* Auto: each of our runs costs the write an iovec entry; short ones
     * are cheaper packed and streamed. */
    if (s->dt && ump_core_rndv_forced() == UMP_RNDV_AUTO &&
        s->dt->avg_blk < ump_core_dt_min_run(xp))
        return UMP_ERR_UNSUPPORTED;
    if (ump_core_mr_reg(xp, s, s->expected) != UMP_OK) return UMP_ERR_UNSUPPORTED;
    s->comp = (ump_xp_comp_t){.count = 1, .status = UMP_OK, .cb = wput_done};
    int rc = ump_core_dt_put(xp, peer, s, h->addr, ext, lay, s->expected, key);
    /* Drop the count held while starting the writes. */
    if (rc != UMP_OK && s->comp.status == UMP_OK) s->comp.status = rc;
    if (--s->comp.count > 0) {
        s->flags |= UMP_RF_RMA; /* wput_done finishes it, even if the peer dies */
        return UMP_INPROGRESS;
    }
    rc = s->comp.status;
    ump_core_mr_release(s);
    if (rc == UMP_OK) wfin(peer, s);
    return rc;
}

void ump_core_on_ctsw(int peer, const char *data, size_t len)
{
    ump_hdr_ctsw_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short CTSW from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    struct ump_request *s = ump_req_from_id(h.sreq);
    s->rreq = h.rreq;
    s->expected = UMP_MIN((size_t)h.len, s->len);
    ump_xp_t *xp = ump_core.peers[peer].xp;
    const char *pl = data + sizeof(h);
    size_t plen = len - sizeof(h);
    const void *key;
    size_t klen = ump_core_rts_key_parse(xp, peer, pl, plen, &key);
    pl += klen;
    plen -= klen;
    ump_rts_dt_t ext;
    bool noncontig = plen >= sizeof(ext);
    ump_rlay_t *lay = NULL;
    if (noncontig) {
        memcpy(&ext, pl, sizeof(ext));
        lay = ump_core_dt_lay_parse(peer, &ump_core.peers[peer].wlay_rx, pl, plen);
    }
    /* The layout is read while the writes start only. */
    int rc = start_put(xp, peer, s, &h, key, noncontig ? &ext : NULL, lay);
    ump_core_dt_lay_unref(lay);
    if (rc == UMP_OK || rc == UMP_INPROGRESS) return;
    if (rc == UMP_ERR_PEER_DEAD) {
        ump_core_req_complete(s, rc);
        return;
    }
    if (rc != UMP_ERR_UNSUPPORTED)
        ump_debug("put to rank %d failed (%s); streaming instead", peer, ump_strerror(rc));
    ump_core_send_stream(peer, s);
}

void ump_core_on_wfin(int peer, const char *data, size_t len)
{
    ump_hdr_ack_t h;
    if (len < sizeof(h)) {
        ump_error("protocol: short WFIN from rank %d dropped", peer);
        return;
    }
    memcpy(&h, data, sizeof(h));
    struct ump_request *r = ump_req_from_id(h.sreq);
    ump_core.xfer.msgs[UMP_XFER_WRITE]++;
    ump_core.xfer.bytes[UMP_XFER_WRITE] += r->expected;
    r->done = r->expected;
    ump_core_req_complete(r, r->status.error);
}
