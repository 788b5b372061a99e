/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous by the transport's get() (the read scheme, chosen in rndv.c):
 * the receiver reads the sender's buffer itself and answers FIN. Over a transport that needs
 * registered memory (caps.mr_required) the sender registers its buffer when it sends the RTS and
 * the RTS carries the packed remote key; the receiver registers its own buffer for the read. The
 * read may finish at once (shm's process_vm_readv) or later (an RDMA read): then the request's
 * completion object, called from the transport's progress, sends the FIN
 * and completes the receive; a read that fails falls back to streaming.
 */
#include <string.h>

#include "core/core.h"

size_t ump_core_rts_key_pack(const ump_xp_mr_t *mr, void *out)
{
    ump_rts_key_t k = {.len = mr ? mr->rkey_len : 0};
    memcpy(out, &k, sizeof(k));
    if (k.len) memcpy((char *)out + sizeof(k), mr->rkey, k.len);
    return sizeof(k) + UMP_ALIGN_UP(k.len, 8);
}

size_t ump_core_rts_key_make(ump_xp_t *xp, struct ump_request *r, void *out)
{
    if (!xp->caps.mr_required) return 0;
    /* Only a contiguous buffer the receiver may read is worth registering
     * here (a non-contiguous one: dtx.c); not when a scheme other than
     * reading is forced. */
    int forced = ump_core_rndv_forced();
    if (!r->dt && xp->caps.rma_get && r->len >= ump_core_rma_min(xp) && r->len &&
        (forced == UMP_RNDV_AUTO || forced == UMP_RNDV_READ))
        ump_core_mr_reg(xp, r, r->len);
    return ump_core_rts_key_pack(r->mr, out);
}

size_t ump_core_rts_key_parse(const ump_xp_t *xp, int src, const void *payload, size_t plen,
                              const void **key)
{
    *key = NULL;
    if (!xp->caps.mr_required) return 0;
    ump_rts_key_t k;
    if (plen < sizeof(k)) {
        ump_error("protocol: RTS or CTSW from rank %d without its key trailer; streaming it", src);
        return plen;
    }
    memcpy(&k, payload, sizeof(k));
    size_t n = sizeof(k) + UMP_ALIGN_UP((size_t)k.len, 8);
    if (k.len > UMP_XP_RKEY_MAX || n > plen) {
        ump_error("protocol: RTS or CTSW from rank %d with a bad key (%u bytes); streaming it", src,
                  k.len);
        return plen;
    }
    if (k.len) *key = (const char *)payload + sizeof(k);
    return n;
}

/* The transport finished every read of r (from its progress). */
static void rget_done(ump_xp_comp_t *comp, int status)
{
    struct ump_request *r = UMP_CONTAINER_OF(comp, struct ump_request, comp);
    int src = r->status.source;
    r->flags &= ~UMP_RF_RMA;
    ump_core_mr_release(r);
    if (status == UMP_OK) {
        if (r->timed) ump_core_rndv_timed(r, true);
        ump_core.xfer.msgs[UMP_XFER_READ]++;
        ump_core.xfer.bytes[UMP_XFER_READ] += r->expected;
        ump_hdr_ack_t fin = {.sreq = r->rreq};
        ump_core_send_ctrl(src, UMP_AM_FIN, &fin, sizeof(fin));
        ump_core_req_complete(r, r->status.error);
        return;
    }
    if (status == UMP_ERR_PEER_DEAD || ump_core.peers[src].dead) {
        ump_core_req_complete(r, UMP_ERR_PEER_DEAD);
        return;
    }
    /* The sender's buffer is untouched and still waits for us: have it
     * streamed, over every byte the reads may have written (not timed: a
     * failed read is no measure of either scheme). */
    if (r->timed) ump_core_rndv_timed(r, false);
    ump_debug("get from rank %d failed (%s); streaming instead", src, ump_strerror(status));
    ump_core_rdv_stream(r, src, r->rreq, r->expected);
}

int ump_core_rget(ump_xp_t *xp, int src, struct ump_request *r, const ump_hdr_rts_t *h,
                  const void *key, const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take)
{
    if (!xp->caps.rma_get || !xp->ops->get) return UMP_ERR_UNSUPPORTED;
    /* Below the transport's single-copy threshold contiguous data are
     * streamed (layouts: dtx.c decides); where the transport has no
     * threshold but asks for measurement, the timings decide. */
    bool contig = !ext && !r->dt;
    if (contig && !xp->caps.mr_required && ump_core_rndv_forced() == UMP_RNDV_AUTO) {
        /* A distance at which the transport's reads crawl: streamed, and
         * left out of the timings (it says nothing of other messages). */
        size_t skew = ((uintptr_t)r->buf - (uintptr_t)h->addr) & 4095;
        if (skew && skew < xp->caps.get_skew) return UMP_ERR_UNSUPPORTED;
    }
    if (contig && xp->caps.get_measure && !xp->caps.mr_required &&
        ump_core_rndv_forced() == UMP_RNDV_AUTO) {
        if (!ump_core_rndv_measure(xp, r, take)) return UMP_ERR_UNSUPPORTED;
    } else if ((xp->caps.mr_required || contig) && take < ump_core_rma_min(xp)) {
        return UMP_ERR_UNSUPPORTED;
    }
    if (xp->caps.mr_required) {
        /* No key: the sender did not register (failure, or a layout it
         * streams). A non-contiguous receive is registered as one span. */
        if (!key) return UMP_ERR_UNSUPPORTED;
        if (ump_core_mr_reg(xp, r, take) != UMP_OK) return UMP_ERR_UNSUPPORTED;
    }
    r->rreq = h->m.sreq;
    r->comp = (ump_xp_comp_t){.count = 1, .status = UMP_OK, .cb = rget_done};
    int rc;
    if (!ext && !r->dt)
        rc = ump_core_sg_rma(xp, src, r, h->addr, NULL, NULL, take, key, false);
    else
        rc = ump_core_dt_get(xp, src, r, h->addr, ext, lay, take, key);
    /* Drop the count the core held while starting the reads. */
    if (rc != UMP_OK && r->comp.status == UMP_OK) r->comp.status = rc;
    if (--r->comp.count > 0) {
        r->flags |= UMP_RF_RMA; /* rget_done finishes it, even if the peer dies */
        return UMP_INPROGRESS;
    }
    rc = r->comp.status;
    ump_core_mr_release(r);
    if (rc != UMP_OK && r->timed) ump_core_rndv_timed(r, false);
    if (rc == UMP_OK) {
        if (r->timed) ump_core_rndv_timed(r, true);
        ump_core.xfer.msgs[UMP_XFER_READ]++;
        ump_core.xfer.bytes[UMP_XFER_READ] += take;
        ump_hdr_ack_t fin = {.sreq = h->m.sreq};
        ump_core_send_ctrl(src, UMP_AM_FIN, &fin, sizeof(fin));
        ump_core_req_complete(r, r->status.error);
    }
    return rc;
}
