/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_xport.c - the TCP transport's ops table (see xport.h for the
 * contract of each op, tcp.h for the channel rule and the wire format).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xport/tcp/tcp.h"

UMP_CFG(ump_tcp_if, "UMP_TCP_IF", UMP_CFG_STRING, "",
        "network interface whose IPv4 address TCP listens on (default: the one reaching the "
        "launcher)");
UMP_CFG(ump_tcp_eager_limit, "UMP_TCP_EAGER_LIMIT", UMP_CFG_SIZE, "64k",
        "largest message sent eagerly over TCP");
UMP_CFG(ump_tcp_seg_size, "UMP_TCP_SEG_SIZE", UMP_CFG_SIZE, "256k",
        "payload per DATA message of a pipelined rendezvous over TCP");
UMP_CFG(ump_tcp_sndbuf, "UMP_TCP_SNDBUF", UMP_CFG_SIZE, "0",
        "SO_SNDBUF of TCP connections (0: kernel default, autotuned); when not set, connections "
        "between two ranks of one host take UMP_TCP_SNDBUF_LOCAL");
UMP_CFG(ump_tcp_sndbuf_local, "UMP_TCP_SNDBUF_LOCAL", UMP_CFG_SIZE, "256k",
        "SO_SNDBUF of TCP connections between two ranks of one host, unless UMP_TCP_SNDBUF is "
        "set: over loopback the sending kernel also does the receiver's protocol work, and an "
        "autotuned buffer lets one send copy megabytes in a burst the receiver waits out "
        "(0: autotuned)");
UMP_CFG(ump_tcp_rcvbuf, "UMP_TCP_RCVBUF", UMP_CFG_SIZE, "0",
        "SO_RCVBUF of TCP connections (0: kernel default, autotuned)");
UMP_CFG(ump_tcp_get_min, "UMP_TCP_GET_MIN", UMP_CFG_SIZE, "512k",
        "smallest contiguous rendezvous over TCP that the receiver reads with a get (the sender "
        "writes it from its buffer, the receiver reads it into its own: no copy of ump's on "
        "either side); smaller ones are streamed in DATA segments");
UMP_CFG(ump_tcp_queue_max, "UMP_TCP_QUEUE_MAX", UMP_CFG_SIZE, "4m",
        "bytes queued to one peer before am_send pushes back (one AM is always taken)");

/* Room the core gets for its own header in front of a segment. */
#define AM_HDR_ROOM 1024

static int tcp_open(const ump_xp_params_t *params, ump_xp_t **out)
{
    ump_cfg_load(false);
    const ump_rt_info_t *info = ump_rt_info(params->rt);
    ump_tcp_xp_t *xp = calloc(1, sizeof(*xp));
    if (!xp) return UMP_ERR_NO_MEMORY;
    int rc = UMP_ERR_NO_MEMORY;
    xp->base.ops = &ump_xp_tcp_ops;
    xp->base.params = *params;
    xp->rank = info->rank;
    xp->size = xp->npeers = info->size;
    if (ump_hex_decode(info->job_id, xp->job, sizeof(xp->job))) {
        ump_error("tcp: the job id '%s' is not 16 hex digits", info->job_id);
        free(xp);
        return UMP_ERR_BOOTSTRAP;
    }
    memcpy(xp->secret, info->secret, sizeof(xp->secret));
    xp->queue_max = ump_tcp_queue_max.v.sz;
    xp->sndbuf = ump_tcp_sndbuf.v.sz;
    xp->sndbuf_local = ump_tcp_sndbuf.from_env ? 0 : ump_tcp_sndbuf_local.v.sz;
    xp->rcvbuf = ump_tcp_rcvbuf.v.sz;
    LIST_INIT(&xp->conns);
    LIST_INIT(&xp->zombies);
    LIST_INIT(&xp->gets);
    xp->lfd = xp->epfd = -1;

    size_t seg = ump_tcp_seg_size.v.sz ? ump_tcp_seg_size.v.sz : 256 * 1024;
    size_t eager = ump_tcp_eager_limit.v.sz;
    xp->base.caps = (ump_xp_caps_t){
        .reliable = true,
        .ordered = true,
        .am_cost = UMP_XP_AM_SYSCALL,
        .rma_get = true,
        .max_am = UMP_MAX(seg, eager) + AM_HDR_ROOM,
        .max_iov = UMP_TCP_MAX_IOV,
        .eager_limit = eager,
        .seg_size = seg,
        .get_min = ump_tcp_get_min.v.sz,
        .get_max_iov = UMP_TCP_MAX_IOV,
    };

    xp->peers = calloc((size_t)xp->size, sizeof(*xp->peers));
    if (!xp->peers) goto err_free;
    xp->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (xp->epfd < 0) {
        ump_error("tcp: epoll_create1: %m");
        rc = UMP_ERR_IO;
        goto err_free;
    }
    char ip[64];
    rc = ump_tcp_pick_addr(params->rt, ump_tcp_if.v.s, ip, sizeof(ip));
    if (rc) goto err_epoll;
    xp->lfd = ump_tcp_listen(ip, xp->addr, sizeof(xp->addr));
    if (xp->lfd < 0) {
        rc = xp->lfd;
        goto err_epoll;
    }
    /* data.ptr NULL marks the listener among the connections. */
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(xp->epfd, EPOLL_CTL_ADD, xp->lfd, &ev)) {
        ump_error("tcp: epoll_ctl: %m");
        rc = UMP_ERR_IO;
        goto err_listen;
    }
    rc = ump_rt_put(params->rt, "tcp.addr", xp->addr, strlen(xp->addr) + 1);
    if (rc) {
        ump_error("tcp: cannot publish address: %s", ump_strerror(rc));
        goto err_listen;
    }
    ump_debug("tcp: listening on %s", xp->addr);
    *out = &xp->base;
    return UMP_OK;
err_listen:
    close(xp->lfd);
err_epoll:
    close(xp->epfd);
err_free:
    free(xp->peers);
    free(xp);
    return rc;
}

/* Connections are made on the first am_send to each peer. */
static int tcp_wireup(ump_xp_t *xp)
{
    return UMP_OK;
}

static bool tcp_reaches(ump_xp_t *base, int peer)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    return peer >= 0 && peer < xp->size;
}

/* A process of another job: reachable when its card gave a tcp address. */
static int tcp_add_peer(ump_xp_t *base, int peer)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    char addr[80];
    size_t len = sizeof(addr);
    if (peer < xp->size || ump_rt_get(base->params.rt, peer, "tcp.addr", addr, &len))
        return UMP_ERR_UNSUPPORTED;
    if (peer >= xp->npeers) {
        ump_tcp_peer_t *p = realloc(xp->peers, sizeof(*p) * (size_t)(peer + 1));
        if (!p) return UMP_ERR_NO_MEMORY;
        memset(p + xp->npeers, 0, sizeof(*p) * (size_t)(peer + 1 - xp->npeers));
        xp->peers = p;
        xp->npeers = peer + 1;
    }
    return UMP_OK;
}

/* The connection this rank sends to `peer` on, chosen at the first send
 * and kept (tcp.h, channel rule): the peer's own connection to us when it
 * is open by then, so that one socket carries both ways and each side's
 * TCP acknowledgements ride on its replies; else a new one. */
int ump_tcp_send_conn(ump_tcp_xp_t *xp, int peer, ump_tcp_conn_t **out)
{
    ump_tcp_peer_t *p = &xp->peers[peer];
    if (UMP_LIKELY(p->out != NULL)) {
        *out = p->out;
        return UMP_OK;
    }
    if (p->in && p->in->state == UMP_TCP_OPEN) {
        p->out = p->in;
    } else {
        int rc = ump_tcp_conn_connect(xp, peer, &p->out);
        if (rc) {
            if (rc == UMP_ERR_PEER_DEAD) ump_tcp_peer_fail(xp, peer, false);
            return rc;
        }
    }
    *out = p->out;
    return UMP_OK;
}

int ump_tcp_send_frame(ump_tcp_xp_t *xp, int peer, uint8_t am_id, uint8_t flags, const void *hdr,
                       size_t hlen, const struct iovec *iov, int iovcnt)
{
    ump_xp_t *base = &xp->base;
    if (peer < 0 || peer >= xp->npeers || iovcnt < 0 || iovcnt > UMP_TCP_MAX_IOV)
        return UMP_ERR_INVALID;
    ump_tcp_peer_t *p = &xp->peers[peer];
    if (p->dead) return UMP_ERR_PEER_DEAD;
    size_t len = hlen;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > base->caps.max_am) return UMP_ERR_INVALID;
    ump_tcp_conn_t *c;
    int rc = ump_tcp_send_conn(xp, peer, &c);
    if (rc) return rc;
    struct iovec v[UMP_TCP_MAX_IOV + 3];
    uint8_t fh[UMP_TCP_FRAME_HDR];
    size_t total;
    int n = ump_tcp_frame_iov(fh, am_id, flags, hdr, hlen, iov, iovcnt, v, &total);
    /* Back-pressure bound; an AM is always taken when only the proof (of
     * the handshake) is queued, so a bound smaller than one AM cannot stall
     * a peer. */
    size_t queued = ump_tcp_txq_bytes(&c->txq);
    if (queued > UMP_TCP_PROOF_LEN && queued + total > xp->queue_max) return UMP_ERR_NO_RESOURCE;
    rc = ump_tcp_tx_send(&c->txq, c->state == UMP_TCP_OPEN ? c->fd : -1, v, n, total);
    if (rc == UMP_ERR_PEER_DEAD) {
        ump_warn("tcp: send to rank %d (%s): %m", peer, c->addr);
        ump_tcp_peer_fail(xp, peer, false);
        return rc;
    }
    if (rc) return rc;
    ump_tcp_conn_rearm(xp, c);
    return UMP_OK;
}

static int tcp_am_send(ump_xp_t *base, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                       const struct iovec *iov, int iovcnt)
{
    return ump_tcp_send_frame((ump_tcp_xp_t *)base, peer, am_id, 0, hdr, hlen, iov, iovcnt);
}

/* Packs the payload straight into the connection's send queue, then
 * writes as much of the queue as the socket takes. */
static int tcp_am_send_pack(ump_xp_t *base, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                            size_t len, void (*pack)(void *, void *, size_t), void *arg)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    if (peer < 0 || peer >= xp->npeers) return UMP_ERR_INVALID;
    ump_tcp_peer_t *p = &xp->peers[peer];
    if (p->dead) return UMP_ERR_PEER_DEAD;
    if (hlen + len > base->caps.max_am) return UMP_ERR_INVALID;
    ump_tcp_conn_t *c;
    int rc = ump_tcp_send_conn(xp, peer, &c);
    if (rc) return rc;
    uint8_t fh[UMP_TCP_FRAME_HDR];
    struct iovec v[4]; /* frame header, hdr, payload, padding */
    size_t total;
    struct iovec body = {NULL, len};
    ump_tcp_frame_iov(fh, am_id, 0, hdr, hlen, &body, 1, v, &total);
    size_t queued = ump_tcp_txq_bytes(&c->txq);
    if (queued > UMP_TCP_PROOF_LEN && queued + total > xp->queue_max) return UMP_ERR_NO_RESOURCE;
    uint8_t *dst = ump_tcp_txq_reserve(&c->txq, total);
    if (!dst) return UMP_ERR_NO_MEMORY;
    memcpy(dst, fh, UMP_TCP_FRAME_HDR);
    memcpy(dst + UMP_TCP_FRAME_HDR, hdr, hlen);
    if (len) pack(arg, dst + UMP_TCP_FRAME_HDR + hlen, len);
    memset(dst + UMP_TCP_FRAME_HDR + hlen + len, 0, total - UMP_TCP_FRAME_HDR - hlen - len);
    if (c->state == UMP_TCP_OPEN && ump_tcp_tx_drain(&c->txq, c->fd) < 0) {
        ump_warn("tcp: send to rank %d (%s): %m", peer, c->addr);
        ump_tcp_peer_fail(xp, peer, false);
        return UMP_OK; /* taken; the failure is reported from progress */
    }
    ump_tcp_conn_rearm(xp, c);
    return UMP_OK;
}

static int tcp_progress(ump_xp_t *base)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    struct epoll_event ev[64];
    int n = 0, rc = 0, k = 0;
    ump_tcp_conn_t *hot = xp->hot;
    if (hot && !xp->nout && (++xp->polls % UMP_TCP_EPOLL_EVERY)) {
        /* Direct read of the connection likely to deliver next (no queue
         * waits for a socket to take more, which only epoll tells). */
        int r = ump_tcp_conn_event(xp, hot, EPOLLIN);
        if (r < 0)
            rc = r;
        else
            n += r;
        goto after;
    }
    k = epoll_wait(xp->epfd, ev, (int)UMP_ARRAY_SIZE(ev), 0);
    if (k < 0 && errno != EINTR) { /* EINTR: nothing taken, next call sees it */
        ump_error("tcp: epoll_wait: %m");
        return UMP_ERR_IO;
    }
    /* The hot connection is out of the set: read it here too. */
    if (hot && hot->unwatched) {
        int r = ump_tcp_conn_event(xp, hot, EPOLLIN);
        if (r < 0)
            rc = r;
        else
            n += r;
    }
    for (int i = 0; i < k; i++) {
        int r = ev[i].data.ptr ? ump_tcp_conn_event(xp, ev[i].data.ptr, ev[i].events)
                               : ump_tcp_conn_accept(xp);
        if (r < 0)
            rc = r;
        else
            n += r;
        ump_tcp_conn_t *c = ev[i].data.ptr;
        if (r > 0 && c && (ev[i].events & EPOLLIN) && c->state == UMP_TCP_OPEN && xp->hot != c) {
            if (xp->hot) ump_tcp_conn_watch(xp, xp->hot);
            xp->hot = c;
        }
    }
    if (xp->hot && !xp->armed) ump_tcp_conn_unwatch(xp, xp->hot);
after:
    /* Failures are reported here, never from inside am_send. */
    if (xp->nparked) ump_tcp_conn_unpark(xp);
    if (xp->ngets_failed) n += ump_tcp_get_fail_report(xp);
    for (int p = 0; xp->nreport && p < xp->npeers; p++) {
        if (!xp->peers[p].report) continue;
        xp->peers[p].report = false;
        xp->nreport--;
        n++;
        if (base->params.peer_failed)
            base->params.peer_failed(base->params.arg, base, p, UMP_ERR_PEER_DEAD);
    }
    ump_tcp_free_zombies(xp);
    return rc ? rc : n;
}

static int tcp_arm(ump_xp_t *base)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    if (xp->nreport || xp->ngets_failed) return UMP_ERR_BUSY;
    /* Whoever sleeps on the set must hear the hot connection too, until
     * disarm, whichever thread progresses meanwhile. */
    xp->armed = true;
    if (xp->hot) ump_tcp_conn_watch(xp, xp->hot);
    /* Level-triggered: peeking consumes nothing. Complete frames never
     * stay in a receive buffer (each read delivers them), so "ready fd"
     * is the only pending input there is. */
    struct epoll_event ev;
    int k;
    do
        k = epoll_wait(xp->epfd, &ev, 1, 0);
    while (k < 0 && errno == EINTR);
    return k != 0 ? UMP_ERR_BUSY : UMP_OK;
}

static void tcp_disarm(ump_xp_t *base)
{
    ((ump_tcp_xp_t *)base)->armed = false;
}

static int tcp_wait_fd(ump_xp_t *base)
{
    return ((ump_tcp_xp_t *)base)->epfd;
}

static int tcp_flush(ump_xp_t *base)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    int rc = UMP_OK;
    ump_tcp_conn_t *c;
again:
    LIST_FOREACH(c, &xp->conns, link)
    {
        if (!ump_tcp_txq_len(&c->txq)) continue;
        if (c->state == UMP_TCP_OPEN && ump_tcp_tx_drain(&c->txq, c->fd) < 0) {
            ump_warn("tcp: send to rank %d (%s): %m", c->peer, c->addr);
            /* Closes this and maybe the next connection: walk again. */
            ump_tcp_peer_fail(xp, c->peer, false);
            rc = UMP_OK;
            goto again;
        }
        if (ump_tcp_txq_len(&c->txq)) rc = UMP_INPROGRESS;
        ump_tcp_conn_rearm(xp, c);
    }
    return rc;
}

static void tcp_close(ump_xp_t *base)
{
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    if (!xp) return;
    ump_tcp_conn_t *c;
    while ((c = LIST_FIRST(&xp->conns))) {
        /* Tell the other side this is a clean close, so that its EOF is not
         * taken for a crash if it still polls. Only when no frame is half
         * written: the BYE must land on a frame boundary. */
        if (c->state == UMP_TCP_OPEN && ump_tcp_tx_drain(&c->txq, c->fd) >= 0 &&
            !ump_tcp_txq_len(&c->txq)) {
            uint8_t fh[UMP_TCP_FRAME_HDR];
            struct iovec v[2];
            size_t total;
            ump_tcp_frame_iov(fh, 0, UMP_TCP_FLAG_BYE, NULL, 0, NULL, 0, v, &total);
            if (send(c->fd, fh, total, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)total)
                shutdown(c->fd, SHUT_WR);
        }
        /* Closing a socket with unread input makes the kernel send a reset
         * and drop what is still queued for the other side, the BYE among
         * it. Everything was flushed before the final fence, so what is
         * left here is stale: read it away first. */
        if (c->state != UMP_TCP_CLOSED) {
            char sink[4096];
            for (int i = 0; i < 256; i++) /* bounded: the peer may still write */
                if (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0) break;
        }
        ump_tcp_conn_close(xp, c);
    }
    ump_tcp_free_zombies(xp);
    ump_tcp_get_fini(xp);
    close(xp->lfd);
    close(xp->epfd);
    free(xp->peers);
    free(xp);
}

const ump_xp_ops_t ump_xp_tcp_ops = {
    .name = "tcp",
    .open = tcp_open,
    .wireup = tcp_wireup,
    .close = tcp_close,
    .reaches = tcp_reaches,
    .add_peer = tcp_add_peer,
    .am_send = tcp_am_send,
    .am_send_pack = tcp_am_send_pack,
    .get = ump_tcp_get,
    .progress = tcp_progress,
    .arm = tcp_arm,
    .disarm = tcp_disarm,
    .wait_fd = tcp_wait_fd,
    .flush = tcp_flush,
};
