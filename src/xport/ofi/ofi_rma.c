/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA reads for the core's rendezvous (get): one fi_readmsg per call,
 * completed from progress() through the caller's ump_xp_comp_t. See
 * xport.h for the contract, ofi.h for the addressing rules.
 */
#include <string.h>

#include "xport/ofi/ofi.h"

int ump_ofi_get(ump_xp_t *xp_, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    if (UMP_UNLIKELY(peer < 0 || peer >= xp->size || !rkey || !lmr || nlocal < 1 || nremote < 1 ||
                     (size_t)nlocal > xp->iov_limit || (size_t)nremote > xp->rma_iov_limit))
        return UMP_ERR_INVALID;
    ofi_rma_t *op = xp->rma_free;
    if (!op) return UMP_ERR_NO_RESOURCE; /* as many reads as the provider queues */
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
    ssize_t ret = fi_readmsg(xp->ep, &msg, FI_COMPLETION);
    if (ret == -FI_EAGAIN) return UMP_ERR_NO_RESOURCE;
    if (ret != 0) return ump_ofi_status("fi_readmsg", ret);
    xp->rma_free = op->next;
    op->comp = comp;
    op->peer = peer;
    xp->rma_out++;
    xp->nreads++;
    return UMP_INPROGRESS;
}
