/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ofiud transport's data path and ops table (see xport.h for each op's
 * contract, ofi_dgram.h for the endpoints and the wire format, rel.h for
 * how the datagrams are made reliable).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "xport/ofi/ofi_dgram.h"

#define CQ_BATCH 16
#define CQ_PASS  256 /* completions per progress() at most, so senders cannot starve the rest */

/* --- the lower layer of rel ------------------------------------------------ */

int ump_ofiud_peer_open(void *ctx, int peer, size_t *mtu)
{
    ofiud_xp_t *xp = ctx;
    if (!xp->wired || xp->av_count[peer] <= 0) return UMP_ERR_PEER_DEAD;
    *mtu = UMP_MIN(xp->peer_mtu[peer], xp->mtu) - UMP_OFIUD_HDR;
    return UMP_OK;
}

void ump_ofiud_peer_name(void *ctx, int peer, char *buf, size_t len)
{
    ofiud_xp_t *xp = ctx;
    char addr[256], name[128];
    size_t alen = sizeof(addr), nlen = sizeof(name);
    if (xp->wired && xp->av_count[peer] > 0 &&
        fi_av_lookup(xp->av, xp->av_addr[xp->av_base[peer]], addr, &alen) == 0 &&
        alen <= sizeof(addr) && fi_av_straddr(xp->av, addr, name, &nlen))
        snprintf(buf, len, "%s %s", xp->info->fabric_attr->prov_name, name);
    else
        snprintf(buf, len, "address unknown");
}

/* One datagram (our header, then the rel bytes) from the next endpoint to
 * the peer's receiving endpoint. UMP_OK, UMP_ERR_NO_RESOURCE (the provider
 * or the pool is full), UMP_ERR_IO (this datagram cannot go). */
static int send_one(ofiud_xp_t *xp, const ump_rel_dgram_t *g)
{
    ofiud_hdr_t h = {.magic = htole32(UMP_OFIUD_MAGIC),
                     .tag = ump_rel_tag(xp->key, g->data, g->len)};
    size_t len = UMP_OFIUD_HDR + g->len;
    fi_addr_t dest = xp->av_addr[xp->av_base[g->peer]];
    struct fid_ep *ep = xp->ep[xp->next_ep % (unsigned)xp->nep];
    ssize_t ret;
    if (len <= xp->inject) {
        memcpy(xp->scratch, &h, sizeof(h));
        memcpy(xp->scratch + UMP_OFIUD_HDR, g->data, g->len);
        ret = fi_inject(ep, xp->scratch, len, dest);
        if (ret == 0) xp->injects++;
    } else {
        ofiud_buf_t *b = xp->tx_free;
        if (!b) {
            xp->no_buf++;
            return UMP_ERR_NO_RESOURCE;
        }
        memcpy(b->mem + xp->prefix, &h, sizeof(h));
        memcpy(b->mem + xp->prefix + UMP_OFIUD_HDR, g->data, g->len);
        ret = fi_send(ep, b->mem, xp->prefix + len, xp->desc, dest, &b->ctx);
        if (ret == 0) {
            xp->tx_free = b->next;
            xp->tx_out++;
            xp->sends++;
        }
    }
    if (ret == 0) {
        xp->next_ep++;
        return UMP_OK;
    }
    if (ret == -FI_EAGAIN) return UMP_ERR_NO_RESOURCE;
    if (!xp->send_errors++)
        ump_warn("ofiud: sending to rank %d: %s", g->peer, ump_ofi_strerror((int)-ret));
    return UMP_ERR_IO;
}

int ump_ofiud_send(void *ctx, const ump_rel_dgram_t *d, int n)
{
    ofiud_xp_t *xp = ctx;
    for (int i = 0; i < n; i++) {
        int rc = send_one(xp, &d[i]);
        /* Full: the rest counts as lost, and rel sends it again later. A
         * datagram that cannot go at all is lost too; rel resends it or
         * declares the peer dead. */
        if (rc == UMP_ERR_NO_RESOURCE) return i;
    }
    return n;
}

/* --- receiving --------------------------------------------------------------- */

/* An arrived datagram of `len` bytes (the prefix included) from `src`. */
static int on_recv(ofiud_xp_t *xp, ofiud_buf_t *b, size_t len, fi_addr_t src)
{
    int delivered = 0;
    xp->recvs++;
    if (len <= xp->prefix) goto repost; /* the provider's own traffic */
    if (len > xp->prefix + xp->mtu) {
        /* Longer than any peer sends (the buffer has a byte to spare to
         * tell): truncated by the provider, or not one of ours. */
        xp->truncated++;
        goto repost;
    }
    const uint8_t *p = (const uint8_t *)b->mem + xp->prefix;
    len -= xp->prefix;
    ofiud_hdr_t h;
    if (len < UMP_OFIUD_HDR + sizeof(ump_rel_hdr_t)) {
        xp->foreign++;
        goto repost;
    }
    memcpy(&h, p, sizeof(h));
    if (h.magic != htole32(UMP_OFIUD_MAGIC) ||
        h.tag != ump_rel_tag(xp->key, p + UMP_OFIUD_HDR, len - UMP_OFIUD_HDR)) {
        xp->foreign++;
        goto repost;
    }
    if (xp->source) {
        /* Only from an endpoint of the rank the datagram names. */
        if (src == FI_ADDR_NOTAVAIL || src >= xp->nav) {
            xp->foreign++;
            goto repost;
        }
        uint32_t from;
        memcpy(&from, p + UMP_OFIUD_HDR + offsetof(ump_rel_hdr_t, src), sizeof(from));
        if (le32toh(from) != (uint32_t)xp->rank_of[src]) {
            xp->spoofed++;
            goto repost;
        }
    }
    /* Aligned to 8: the pool's slots are, the prefix is a multiple of 8. */
    delivered = ump_rel_input(xp->rel, p + UMP_OFIUD_HDR, len - UMP_OFIUD_HDR);
repost:
    ump_ofiud_post_recv(xp, b);
    return delivered;
}

static bool is_rx(const ofiud_xp_t *xp, const ofiud_buf_t *b)
{
    return b >= xp->bufs && b < xp->bufs + xp->nrx;
}

static void on_send_done(ofiud_xp_t *xp, ofiud_buf_t *b)
{
    xp->tx_out--;
    b->next = xp->tx_free;
    xp->tx_free = b;
}

static int read_error(ofiud_xp_t *xp)
{
    struct fi_cq_err_entry err = {0};
    if (fi_cq_readerr(xp->cq, &err, 0) != 1) return 0;
    ofiud_buf_t *b = err.op_context;
    if (!b) return 1;
    if (is_rx(xp, b)) {
        /* A datagram larger than our buffers, or a failed receive. */
        if (err.err == FI_ETRUNC || err.err == FI_EMSGSIZE)
            xp->truncated++;
        else if (err.err != FI_ECANCELED)
            ump_debug("ofiud: a receive failed: %s", ump_ofi_strerror(err.err));
        ump_ofiud_post_recv(xp, b);
    } else {
        /* A send that failed is a lost datagram: rel resends it. */
        if (!xp->send_errors++)
            ump_warn("ofiud: a send failed: %s (provider: %s)", ump_ofi_strerror(err.err),
                     fi_cq_strerror(xp->cq, err.prov_errno, err.err_data, NULL, 0));
        on_send_done(xp, b);
    }
    return 1;
}

static int poll_cq(ofiud_xp_t *xp, int *handled)
{
    struct fi_cq_msg_entry e[CQ_BATCH];
    fi_addr_t src[CQ_BATCH];
    int delivered = 0;
    while (*handled < CQ_PASS) {
        ssize_t n =
            xp->source ? fi_cq_readfrom(xp->cq, e, CQ_BATCH, src) : fi_cq_read(xp->cq, e, CQ_BATCH);
        if (n == -FI_EAGAIN) break;
        if (n == -FI_EAVAIL) {
            if (!read_error(xp)) break;
            (*handled)++;
            continue;
        }
        if (n < 0) return ump_ofi_status("fi_cq_read", n);
        for (ssize_t i = 0; i < n; i++) {
            ofiud_buf_t *b = e[i].op_context;
            if (is_rx(xp, b))
                delivered += on_recv(xp, b, e[i].len, xp->source ? src[i] : FI_ADDR_NOTAVAIL);
            else
                on_send_done(xp, b);
        }
        *handled += (int)n;
        if (n < CQ_BATCH) break;
    }
    return delivered;
}

/* --- ops ------------------------------------------------------------------- */

static bool ofiud_reaches(ump_xp_t *base, int peer)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    return peer >= 0 && peer < xp->size && peer != xp->rank && xp->av_count &&
           xp->av_count[peer] > 0;
}

static int ofiud_am_send(ump_xp_t *base, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                         const struct iovec *iov, int iovcnt)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    if (iovcnt > UMP_OFIUD_MAX_IOV) return UMP_ERR_INVALID;
    return ump_rel_send(xp->rel, peer, am_id, hdr, hlen, iov, iovcnt);
}

static int ofiud_progress(ump_xp_t *base)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    if (xp->timer_at && ump_time_ns() >= xp->timer_at) {
        uint64_t v;
        if (read(xp->tfd, &v, sizeof(v)) < 0 && errno != EAGAIN) ump_debug("ofiud: timerfd: %m");
        xp->timer_at = 0;
    }
    if (xp->rx_unposted) {
        ofiud_buf_t *list = xp->rx_unposted;
        xp->rx_unposted = NULL;
        while (list) {
            ofiud_buf_t *b = list;
            list = b->next;
            ump_ofiud_post_recv(xp, b);
        }
    }
    int handled = 0;
    int rc = poll_cq(xp, &handled);
    if (rc < 0) return rc;
    return handled + ump_rel_poll(xp->rel);
}

static int ofiud_arm(ump_xp_t *base)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    if (xp->cq_fd < 0 || xp->rx_unposted) return UMP_ERR_BUSY;
    uint64_t due = ump_rel_deadline(xp->rel);
    if (due <= ump_time_ns()) return UMP_ERR_BUSY;
    /* The provider says whether its fd will signal what is still queued. */
    struct fid *fids[1] = {&xp->cq->fid};
    if (fi_trywait(xp->fabric, fids, 1) != FI_SUCCESS) return UMP_ERR_BUSY;
    /* Retransmissions and delayed acks must happen while the application
     * sleeps: the timer wakes the sleeper when one is due. */
    if (due == UINT64_MAX) {
        if (xp->timer_at) {
            struct itimerspec off = {{0, 0}, {0, 0}};
            timerfd_settime(xp->tfd, 0, &off, NULL);
            xp->timer_at = 0;
        }
    } else if (due != xp->timer_at) {
        struct itimerspec its = {{0, 0}, {(time_t)(due / 1000000000u), (long)(due % 1000000000u)}};
        if (timerfd_settime(xp->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
            ump_debug("ofiud: timerfd_settime: %m");
            return UMP_ERR_BUSY;
        }
        xp->timer_at = due;
    }
    /* Level-triggered peek: a timer that already went off, or a
     * completion the fd signalled before trywait, leaves it readable. */
    struct epoll_event ev;
    int k;
    do
        k = epoll_wait(xp->epfd, &ev, 1, 0);
    while (k < 0 && errno == EINTR); /* interrupted: look again */
    return k == 0 ? UMP_OK : UMP_ERR_BUSY;
}

static int ofiud_wait_fd(ump_xp_t *base)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    return xp->cq_fd >= 0 ? xp->epfd : -1;
}

static int ofiud_flush(ump_xp_t *base)
{
    return ump_rel_flush(((ofiud_xp_t *)base)->rel);
}

static void ofiud_close(ump_xp_t *base)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    if (!xp) return;
    if (xp->stats)
        fprintf(stderr,
                "ump stats rank %d ofiud endpoints: foreign=%llu spoofed=%llu truncated=%llu "
                "send_errors=%llu no_send_buffer=%llu injects=%llu sends=%llu recvs=%llu "
                "mtu=%zu stripes=%d provider=%s\n",
                xp->rank, (unsigned long long)xp->foreign, (unsigned long long)xp->spoofed,
                (unsigned long long)xp->truncated, (unsigned long long)xp->send_errors,
                (unsigned long long)xp->no_buf, (unsigned long long)xp->injects,
                (unsigned long long)xp->sends, (unsigned long long)xp->recvs, xp->mtu, xp->nep,
                xp->info ? xp->info->fabric_attr->prov_name : "?");
    ump_ofiud_free(xp);
}

const ump_xp_ops_t ump_xp_ofiud_ops = {
    .name = "ofiud",
    .open = ump_ofiud_open,
    .wireup = ump_ofiud_wireup,
    .close = ofiud_close,
    .reaches = ofiud_reaches,
    .am_send = ofiud_am_send,
    .get = NULL,
    .progress = ofiud_progress,
    .arm = ofiud_arm,
    .wait_fd = ofiud_wait_fd,
    .flush = ofiud_flush,
};
