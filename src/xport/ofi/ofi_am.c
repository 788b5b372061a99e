/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages over the libfabric transport: the pools of registered
 * send and receive buffers, and the sends. See ofi.h.
 */
#include <stdlib.h>
#include <string.h>

#include "xport/ofi/ofi.h"

/* AMs up to this many bytes (prefix included) go by fi_inject, built on
 * the stack; the provider's inject size may be smaller. */
#define INJECT_MAX 256

int ump_ofi_post_recv(ofi_xp_t *xp, ofi_buf_t *b)
{
    ssize_t ret =
        fi_recv(xp->ep, b->data, xp->buf_size, xp->rx_mr->desc, FI_ADDR_UNSPEC, &b->op.ctx);
    if (ret == 0) return UMP_OK;
    if (ret != -FI_EAGAIN) return ump_ofi_status("fi_recv", ret);
    /* The provider has no room now: post it again from progress(). */
    b->next = xp->rx_unposted;
    xp->rx_unposted = b;
    return UMP_OK;
}

void ump_ofi_retry(ofi_xp_t *xp)
{
    ofi_buf_t *rx = xp->rx_unposted;
    xp->rx_unposted = NULL;
    while (rx) {
        ofi_buf_t *next = rx->next;
        ump_ofi_post_recv(xp, rx);
        rx = next;
    }
    while (xp->backlog) {
        ofi_buf_t *b = xp->backlog;
        ssize_t ret =
            fi_send(xp->ep, b->data, b->len, xp->tx_mr->desc, xp->addrs[b->peer], &b->op.ctx);
        if (ret == -FI_EAGAIN) return;
        xp->backlog = b->next;
        if (!xp->backlog) xp->backlog_tail = NULL;
        if (ret != 0) {
            /* Taken from the core long ago: all we can do is say so. */
            ump_ofi_status("fi_send", ret);
            b->next = xp->tx_free;
            xp->tx_free = b;
            xp->base.params.peer_failed(xp->base.params.arg, &xp->base, b->peer, UMP_ERR_IO);
            continue;
        }
        xp->tx_out++;
    }
}

static int pool_open(ofi_xp_t *xp, int n, char **mem, ofi_mr_t **mr, ofi_buf_t **bufs, int kind)
{
    size_t bytes = (size_t)n * xp->buf_size;
    *mem = aligned_alloc(4096, UMP_ALIGN_UP(bytes, 4096));
    *bufs = calloc((size_t)n, sizeof(ofi_buf_t));
    if (!*mem || !*bufs) return UMP_ERR_NO_MEMORY;
    int rc = ump_ofi_mr_open(xp, *mem, bytes, mr);
    if (rc != UMP_OK) return rc;
    for (int i = 0; i < n; i++) {
        (*bufs)[i].op.kind = kind;
        (*bufs)[i].data = *mem + (size_t)i * xp->buf_size;
    }
    return UMP_OK;
}

int ump_ofi_pools_open(ofi_xp_t *xp)
{
    int rc = pool_open(xp, xp->nrx, &xp->rx_mem, &xp->rx_mr, &xp->rx, OFI_OP_RECV);
    if (rc == UMP_OK) rc = pool_open(xp, xp->ntx, &xp->tx_mem, &xp->tx_mr, &xp->tx, OFI_OP_SEND);
    if (rc != UMP_OK) return rc;
    for (int i = xp->ntx - 1; i >= 0; i--) {
        xp->tx[i].next = xp->tx_free;
        xp->tx_free = &xp->tx[i];
    }
    /* Reads under way: as many as the provider queues for transmission. */
    xp->nrma = (int)UMP_MIN(UMP_MAX(xp->info->tx_attr->size, (size_t)16), (size_t)1024);
    xp->rma_all = calloc((size_t)xp->nrma, sizeof(ofi_rma_t));
    if (!xp->rma_all) return UMP_ERR_NO_MEMORY;
    for (int i = xp->nrma - 1; i >= 0; i--) {
        xp->rma_all[i].op.kind = OFI_OP_RMA;
        xp->rma_all[i].next = xp->rma_free;
        xp->rma_free = &xp->rma_all[i];
    }
    for (int i = 0; i < xp->nrx; i++)
        if ((rc = ump_ofi_post_recv(xp, &xp->rx[i])) != UMP_OK) return rc;
    xp->posted = true;
    return UMP_OK;
}

/* After the endpoint is closed (its posted receives are gone with it). */
void ump_ofi_pools_close(ofi_xp_t *xp)
{
    if (xp->rx_mr) ump_ofi_mem_dereg(&xp->rx_mr->base);
    if (xp->tx_mr) ump_ofi_mem_dereg(&xp->tx_mr->base);
    xp->rx_mr = xp->tx_mr = NULL;
    free(xp->rx_mem);
    free(xp->tx_mem);
    free(xp->rx);
    free(xp->tx);
    free(xp->rma_all);
    xp->rx_mem = xp->tx_mem = NULL;
    xp->rx = xp->tx = NULL;
    xp->rma_all = xp->rma_free = NULL;
    xp->tx_free = NULL;
}

static size_t iov_bytes(const struct iovec *iov, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += iov[i].iov_len;
    return s;
}

static char *put_prefix(ofi_xp_t *xp, char *p, uint8_t am_id, const void *hdr, size_t hlen)
{
    ofi_am_hdr_t h = {.src = xp->rank, .am_id = am_id};
    memcpy(p, &h, sizeof(h));
    p += sizeof(h);
    if (hlen) memcpy(p, hdr, hlen);
    return p + hlen;
}

/* Sends the first `len` bytes of b to peer. The AM is taken either way:
 * when the provider has no room it waits in the backlog, which progress()
 * drains in order before any later AM is taken. */
static int send_buf(ofi_xp_t *xp, int peer, ofi_buf_t *b, size_t len)
{
    xp->nsends++;
    b->peer = peer;
    b->len = len;
    b->next = NULL;
    ssize_t ret = fi_send(xp->ep, b->data, len, xp->tx_mr->desc, xp->addrs[peer], &b->op.ctx);
    if (ret == -FI_EAGAIN) {
        if (xp->backlog_tail)
            xp->backlog_tail->next = b;
        else
            xp->backlog = b;
        xp->backlog_tail = b;
        return UMP_OK;
    }
    if (ret != 0) {
        b->next = xp->tx_free;
        xp->tx_free = b;
        return ump_ofi_status("fi_send", ret);
    }
    xp->tx_out++;
    return UMP_OK;
}

int ump_ofi_am_send(ump_xp_t *xp_, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                    const struct iovec *iov, int iovcnt)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    size_t len = hlen + iov_bytes(iov, iovcnt);
    if (UMP_UNLIKELY(len > xp->base.caps.max_am || peer < 0 || peer >= xp->size))
        return UMP_ERR_INVALID;
    /* AMs wait in the backlog: a new one may not overtake them. */
    if (xp->backlog) return UMP_ERR_NO_RESOURCE;
    size_t total = sizeof(ofi_am_hdr_t) + len;
    if (total <= xp->inject_size && total <= INJECT_MAX) {
        char buf[INJECT_MAX];
        char *p = put_prefix(xp, buf, am_id, hdr, hlen);
        for (int i = 0; i < iovcnt; i++) {
            memcpy(p, iov[i].iov_base, iov[i].iov_len);
            p += iov[i].iov_len;
        }
        ssize_t ret = fi_inject(xp->ep, buf, total, xp->addrs[peer]);
        if (ret == 0) {
            xp->ninjects++;
            return UMP_OK;
        }
        if (ret != -FI_EAGAIN) return ump_ofi_status("fi_inject", ret);
        /* No room to inject: a pool buffer may still be free. */
    }
    ofi_buf_t *b = xp->tx_free;
    if (!b) return UMP_ERR_NO_RESOURCE;
    xp->tx_free = b->next;
    char *p = put_prefix(xp, b->data, am_id, hdr, hlen);
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    return send_buf(xp, peer, b, total);
}

int ump_ofi_am_send_zc(ump_xp_t *xp_, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                       const struct iovec *iov, int iovcnt, ump_xp_mr_t *mr, ump_xp_comp_t *comp)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    size_t len = hlen + iov_bytes(iov, iovcnt);
    if (UMP_UNLIKELY(len > xp->base.caps.max_am || peer < 0 || peer >= xp->size || iovcnt < 0 ||
                     (iovcnt && !mr)))
        return UMP_ERR_INVALID;
    /* More pieces than one send takes: copied, as any AM. */
    if ((size_t)iovcnt + 1 > xp->iov_limit)
        return ump_ofi_am_send(xp_, peer, am_id, hdr, hlen, iov, iovcnt);
    if (xp->backlog) return UMP_ERR_NO_RESOURCE;
    ofi_buf_t *b = xp->tx_free;
    if (!b) return UMP_ERR_NO_RESOURCE;
    struct iovec v[iovcnt + 1];
    void *desc[iovcnt + 1];
    v[0].iov_base = b->data;
    v[0].iov_len = (size_t)(put_prefix(xp, b->data, am_id, hdr, hlen) - b->data);
    desc[0] = xp->tx_mr->desc;
    for (int i = 0; i < iovcnt; i++) {
        v[i + 1] = iov[i];
        desc[i + 1] = ((ofi_mr_t *)mr)->desc;
    }
    struct fi_msg msg = {
        .msg_iov = v,
        .desc = desc,
        .iov_count = (size_t)iovcnt + 1,
        .addr = xp->addrs[peer],
        .context = &b->op.ctx,
    };
    ssize_t ret = fi_sendmsg(xp->ep, &msg, FI_COMPLETION);
    if (ret == -FI_EAGAIN) return UMP_ERR_NO_RESOURCE; /* nothing taken */
    if (ret != 0) return ump_ofi_status("fi_sendmsg", ret);
    xp->tx_free = b->next;
    b->peer = peer;
    b->comp = comp;
    xp->nsends_zc++;
    xp->tx_out++;
    return UMP_INPROGRESS;
}

int ump_ofi_am_send_pack(ump_xp_t *xp_, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                         size_t len, void (*pack)(void *arg, void *dst, size_t len), void *arg)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    if (UMP_UNLIKELY(hlen + len > xp->base.caps.max_am || peer < 0 || peer >= xp->size))
        return UMP_ERR_INVALID;
    ofi_buf_t *b = xp->tx_free;
    if (!b || xp->backlog) return UMP_ERR_NO_RESOURCE;
    xp->tx_free = b->next;
    char *p = put_prefix(xp, b->data, am_id, hdr, hlen);
    pack(arg, p, len);
    return send_buf(xp, peer, b, sizeof(ofi_am_hdr_t) + hlen + len);
}
