/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided reads for the layers above (ump_rget): bytes of a peer's
 * memory, at an address the peer published, read into a local buffer by
 * the transport's get() with the rendezvous' scatter/gather (sg.c), with
 * no message to the peer's layers and no handler of theirs (over tcp a
 * read request the peer's transport answers from its progress).
 * Transports whose memory must be registered are not offered, nor those
 * whose reads may lose to their own messages (caps.get_measure: shm,
 * whose process_vm_readv ran 2.4 to 4 times slower than its copies
 * through the rings for 32 KiB to 1 MiB on the VM this was measured on);
 * the caller sends messages instead.
 */
#include "core/core.h"

/* The transport finished every read of r (from its progress, or at once). */
static void rread_done(ump_xp_comp_t *comp, int status)
{
    struct ump_request *r = UMP_CONTAINER_OF(comp, struct ump_request, comp);
    r->flags &= ~UMP_RF_RMA;
    ump_core_req_complete(r, status);
}

/* The pair's transport when it reads a peer's memory with no key and
 * its reads are not known to lose to its messages. */
static ump_xp_t *reader(int peer)
{
    ump_xp_t *xp = ump_core.peers[peer].xp;
    if (!xp || !xp->caps.rma_get || !xp->ops->get || xp->caps.mr_required || xp->caps.get_measure ||
        ump_core.peers[peer].dead)
        return NULL;
    return xp;
}

int ump_rget_supported(int peer)
{
    if (!ump_core.initialized || ump_core.finalized || peer < 0 || peer >= ump_core.npeers)
        return 0;
    ump_core_lock();
    int ok = reader(peer) != NULL;
    ump_core_unlock();
    return ok;
}

int ump_rget(void *buf, size_t count, ump_dt_t dt, int peer, uint64_t raddr, ump_req_t *req)
{
    static const char call[] = "ump_rget";
    UMP_CORE_CHECK_INIT();
    size_t len;
    const void *data;
    ump_dt_t layout;
    int rc = ump_core_check_buf(call, buf, count, dt, &len, req, &data, &layout);
    if (rc == UMP_OK) rc = ump_core_check_recv_layout(call, layout, count);
    if (rc != UMP_OK) return rc;
    if (peer < 0 || peer >= ump_core.npeers) {
        ump_error("%s: rank %d is out of range (rank %d of %d)", call, peer, ump_core.rank,
                  ump_core.npeers);
        return UMP_ERR_RANK;
    }
    if (!raddr && len) {
        ump_error("%s: the peer's address is 0 with %zu bytes to read (rank %d)", call, len,
                  ump_core.rank);
        return UMP_ERR_INVALID;
    }
    ump_core_lock();
    ump_xp_t *xp = reader(peer);
    if (!xp) {
        ump_core_unlock();
        return UMP_ERR_UNSUPPORTED;
    }
    struct ump_request *r = ump_core_req_alloc(UMP_REQ_RECV);
    if (!r) {
        ump_core_unlock();
        return UMP_ERR_NO_MEMORY;
    }
    r->peer = peer;
    r->buf = (void *)data;
    r->len = len;
    r->count = count;
    r->dt = layout;
    if (layout) ump_dt_ref(layout);
    r->flags |= UMP_RF_MATCHED;
    r->status.source = peer;
    r->status.msg_len = len;
    r->status.count = len;
    r->expected = len;
    /* One count held while the reads start; each read the transport
     * takes holds one more. */
    r->comp = (ump_xp_comp_t){.count = 1, .status = UMP_OK, .cb = rread_done};
    r->flags |= UMP_RF_RMA;
    rc = len ? ump_core_sg_rma(xp, peer, r, raddr, NULL, NULL, len, NULL, false) : UMP_OK;
    if (rc == UMP_ERR_UNSUPPORTED && r->comp.count == 1) {
        /* Nothing started (a layout of more pieces than the transport
         * queues): the caller sends messages instead. */
        r->flags &= ~UMP_RF_RMA;
        ump_core_req_complete(r, UMP_OK);
        ump_req_t tmp = r;
        ump_core_unlock();
        ump_wait(&tmp, NULL);
        return UMP_ERR_UNSUPPORTED;
    }
    *req = r;
    ump_xp_comp_done(&r->comp, rc);
    ump_core_unlock();
    return UMP_OK;
}
