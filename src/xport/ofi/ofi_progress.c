/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress of the libfabric transport: reads the completion queue and
 * dispatches each entry by the kind of operation its context names:
 * arrived AMs to the core's handler (then the buffer is posted again),
 * finished sends back to the pool, finished reads and writes to their completion
 * objects.
 */
#include <string.h>

#include "xport/ofi/ofi.h"

#define CQ_BATCH 16
#define CQ_PASS  64 /* entries handled per progress() call at most */

static void on_recv(ofi_xp_t *xp, ofi_buf_t *b, size_t len)
{
    ofi_am_hdr_t h;
    if (len < sizeof(h)) {
        ump_error("ofi: a %zu-byte message without its header dropped", len);
    } else {
        memcpy(&h, b->data, sizeof(h));
        if (h.src < 0 || h.src >= xp->size)
            ump_error("ofi: a message from unknown rank %d dropped", h.src);
        else
            xp->base.params.am_handler(xp->base.params.arg, &xp->base, h.src, h.am_id,
                                       b->data + sizeof(h), len - sizeof(h));
    }
    ump_ofi_post_recv(xp, b);
}

/* A receive that failed other than by cancellation (at close) lost a
 * message of a reliable, ordered stream: the peer's later messages cannot
 * be trusted to complete what it began, so when the header names the
 * sender (a truncated message keeps its start) that peer's operations
 * fail rather than wait for ever; otherwise the loss is reported. */
static void recv_failed(ofi_xp_t *xp, ofi_buf_t *b, const struct fi_cq_err_entry *err)
{
    ofi_am_hdr_t h;
    int src = -1;
    if (err->err == FI_ETRUNC && err->len >= sizeof(h)) {
        memcpy(&h, b->data, sizeof(h));
        if (h.src >= 0 && h.src < xp->size) src = h.src;
    }
    const char *prov = fi_cq_strerror(xp->cq, err->prov_errno, err->err_data, NULL, 0);
    if (src < 0) {
        ump_error("ofi: a receive failed: %s (provider: %s): a message from an unknown rank is "
                  "lost",
                  ump_ofi_strerror(err->err), prov);
        return;
    }
    ump_error("ofi: a message from rank %d did not fit the %zu-byte receive buffer (%s, "
              "provider: %s): operations with rank %d fail",
              src, xp->buf_size, ump_ofi_strerror(err->err), prov, src);
    xp->base.params.peer_failed(xp->base.params.arg, &xp->base, src, UMP_ERR_PROTOCOL);
}

static void on_done(ofi_xp_t *xp, ofi_op_t *op, size_t len, int status)
{
    switch (op->kind) {
    case OFI_OP_RECV:
        if (status == UMP_OK)
            on_recv(xp, (ofi_buf_t *)op, len);
        else
            ump_ofi_post_recv(xp, (ofi_buf_t *)op);
        break;
    case OFI_OP_SEND: {
        ofi_buf_t *b = (ofi_buf_t *)op;
        ump_xp_comp_t *comp = b->comp;
        xp->tx_out--;
        b->comp = NULL;
        b->next = xp->tx_free;
        xp->tx_free = b;
        if (comp) ump_xp_comp_done(comp, status == UMP_OK ? UMP_OK : UMP_ERR_PEER_DEAD);
        if (status != UMP_OK)
            xp->base.params.peer_failed(xp->base.params.arg, &xp->base, b->peer, UMP_ERR_PEER_DEAD);
        break;
    }
    case OFI_OP_RMA: {
        ofi_rma_t *r = (ofi_rma_t *)op;
        ump_xp_comp_t *comp = r->comp;
        xp->rma_out--;
        if (xp->rma_window) xp->rma_bytes[r->peer] -= r->len;
        r->next = xp->rma_free;
        xp->rma_free = r;
        ump_xp_comp_done(comp, status);
        break;
    }
    default:
        ump_error("ofi: completion of unknown kind %d", op->kind);
    }
}

int ump_ofi_progress(ump_xp_t *xp_)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    struct fi_cq_data_entry e[CQ_BATCH];
    int handled = 0;
    if (xp->backlog || xp->rx_unposted) ump_ofi_retry(xp);
    while (handled < CQ_PASS) {
        ssize_t n = fi_cq_read(xp->cq, e, CQ_BATCH);
        if (n == -FI_EAGAIN) break;
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            if (fi_cq_readerr(xp->cq, &err, 0) != 1) break;
            ofi_op_t *op = err.op_context;
            if (op && op->kind == OFI_OP_RECV && err.err != FI_ECANCELED)
                recv_failed(xp, (ofi_buf_t *)op, &err);
            else if (err.err != FI_ECANCELED)
                ump_debug("ofi: an operation failed: %s (provider: %s)", ump_ofi_strerror(err.err),
                          fi_cq_strerror(xp->cq, err.prov_errno, err.err_data, NULL, 0));
            if (op) on_done(xp, op, 0, UMP_ERR_IO);
            handled++;
            continue;
        }
        if (n < 0) return ump_ofi_status("fi_cq_read", n);
        for (ssize_t i = 0; i < n; i++)
            on_done(xp, e[i].op_context, e[i].len, UMP_OK);
        handled += (int)n;
        if (n < CQ_BATCH) break;
    }
    if (xp->backlog) ump_ofi_retry(xp);
    return handled;
}

/* No wait object: the core polls this transport (wait_fd -1). */
int ump_ofi_arm(ump_xp_t *xp)
{
    return UMP_ERR_BUSY;
}

int ump_ofi_wait_fd(ump_xp_t *xp)
{
    return -1;
}

int ump_ofi_flush(ump_xp_t *xp_)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    return xp->tx_out || xp->backlog || xp->rma_out ? UMP_INPROGRESS : UMP_OK;
}
