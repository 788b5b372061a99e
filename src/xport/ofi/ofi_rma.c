/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA for the core's rendezvous: get() is one fi_readmsg, put() one
 * fi_writemsg, each completed from progress() through the caller's
 * ump_xp_comp_t. See xport.h for the contract, ofi.h for the addressing
 * rules.
 *
 * A write asks for FI_DELIVERY_COMPLETE: the core tells the receiver that
 * its data are in place as soon as the write completes, and ofi_rxm (and
 * others) complete a plain write once the bytes left this process, before
 * they landed in the peer's memory.
 */
#include <string.h>

#include "xport/ofi/ofi.h"

static int rma(ofi_xp_t *xp, bool write, int peer, const struct iovec *local, int nlocal,
               ump_xp_mr_t *lmr, const ump_riov_t *remote, int nremote, const void *rkey,
               ump_xp_comp_t *comp)
{
    if (UMP_UNLIKELY(peer < 0 || peer >= xp->size || !rkey || !lmr || nlocal < 1 || nremote < 1 ||
                     (size_t)nlocal > xp->iov_limit || (size_t)nremote > xp->rma_iov_limit))
        return UMP_ERR_INVALID;
    ofi_rma_t *op = xp->rma_free;
    if (!op) return UMP_ERR_NO_RESOURCE; /* as many operations as the provider queues */
    size_t len = 0;
    for (int i = 0; i < nlocal; i++)
        len += local[i].iov_len;
    /* One operation goes whatever its size, so a window below it cannot
     * stall a transfer. */
    if (xp->rma_window && xp->rma_bytes[peer] && xp->rma_bytes[peer] + len > xp->rma_window) {
        xp->nwindow++;
        return UMP_ERR_NO_RESOURCE;
    }
    ofi_rkey_t rk;
    memcpy(&rk, rkey, sizeof(rk));
    struct fi_rma_iov riov[nremote];
    void *desc[nlocal];
    for (int i = 0; i < nremote; i++) {
        /* Virtual addressing: the peer's address as it is; otherwise the
         * offset into the region the key names. */
        uint64_t a = remote[i].addr;
        riov[i] = (struct fi_rma_iov){
            .addr = (xp->mr_mode & FI_MR_VIRT_ADDR) ? a : a - rk.base,
            .len = remote[i].len,
            .key = rk.key,
        };
    }
    for (int i = 0; i < nlocal; i++)
        desc[i] = ((ofi_mr_t *)lmr)->desc;
    struct fi_msg_rma msg = {
        .msg_iov = local,
        .desc = desc,
        .iov_count = (size_t)nlocal,
        .addr = xp->addrs[peer],
        .rma_iov = riov,
        .rma_iov_count = (size_t)nremote,
        .context = &op->op.ctx,
    };
    ssize_t ret = write ? fi_writemsg(xp->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                        : fi_readmsg(xp->ep, &msg, FI_COMPLETION);
    if (ret == -FI_EAGAIN) return UMP_ERR_NO_RESOURCE;
    if (ret != 0) return ump_ofi_status(write ? "fi_writemsg" : "fi_readmsg", ret);
    xp->rma_free = op->next;
    op->comp = comp;
    op->peer = peer;
    op->len = len;
    if (xp->rma_window) xp->rma_bytes[peer] += len;
    xp->rma_out++;
    if (write)
        xp->nwrites++;
    else
        xp->nreads++;
    return UMP_INPROGRESS;
}

int ump_ofi_get(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    return rma((ofi_xp_t *)xp, false, peer, local, nlocal, lmr, remote, nremote, rkey, comp);
}

int ump_ofi_put(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    return rma((ofi_xp_t *)xp, true, peer, local, nlocal, lmr, remote, nremote, rkey, comp);
}
