/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udp_xport.c - the UDP transport's ops table (see xport.h for the contract
 * of each op, udp.h for the sockets and the wire format, rel.h for how the
 * datagrams are made reliable).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "xport/udp/udp.h"

UMP_CFG(udp_if, "UMP_UDP_IF", UMP_CFG_STRING, "",
        "network interface whose IPv4 address UDP uses (default: the one reaching the launcher)");
UMP_CFG(udp_mtu, "UMP_UDP_MTU", UMP_CFG_SIZE, "0",
        "largest UDP payload sent (0: the interface MTU less IP/UDP headers, at most 65000; "
        "loopback takes large datagrams)");
UMP_CFG(udp_stripes, "UMP_UDP_STRIPES", UMP_CFG_INT, "4",
        "send sockets used in turn (striping), 1..16");
UMP_CFG(udp_sndbuf, "UMP_UDP_SNDBUF", UMP_CFG_SIZE, "1m", "SO_SNDBUF of each send socket");
UMP_CFG(udp_rcvbuf, "UMP_UDP_RCVBUF", UMP_CFG_SIZE, "4m",
        "SO_RCVBUF of the receive socket (the kernel caps it at net.core.rmem_max unless "
        "privileged)");
UMP_CFG(udp_batch, "UMP_UDP_BATCH", UMP_CFG_INT, "16", "datagrams taken by one recvmmsg call");
UMP_CFG(udp_eager_limit, "UMP_UDP_EAGER_LIMIT", UMP_CFG_SIZE, "64k",
        "largest message sent eagerly over UDP");
UMP_CFG(udp_seg_size, "UMP_UDP_SEG_SIZE", UMP_CFG_SIZE, "0",
        "payload per DATA message of a pipelined rendezvous over UDP (0: one datagram's worth "
        "when datagrams are large, else 64k)");

#define SEND_CHUNK  8 /* datagrams per sendmmsg call, each call on the next socket */
#define RECV_ROUNDS 4 /* recvmmsg calls per progress, so senders cannot starve the rest */

/* --- the lower layer of rel ------------------------------------------------ */

int ump_udp_resolve(ump_udp_xp_t *xp, int peer)
{
    ump_udp_peer_t *p = &xp->peers[peer];
    if (p->sa.sin_family) return UMP_OK;
    char val[128];
    size_t len = sizeof(val) - 1;
    int rc = ump_rt_get(xp->rt, peer, "udp.addr", val, &len);
    if (rc) {
        ump_error("udp: no address published by rank %d: %s", peer, ump_strerror(rc));
        return rc;
    }
    val[len] = 0;
    char ip[64];
    unsigned port, pmtu;
    if (sscanf(val, "%63s %u %u", ip, &port, &pmtu) != 3 || port > 65535 ||
        inet_pton(AF_INET, ip, &p->sa.sin_addr) != 1) {
        ump_error("udp: rank %d published a malformed address '%s'", peer, val);
        return UMP_ERR_PROTOCOL;
    }
    p->sa.sin_family = AF_INET;
    p->sa.sin_port = htons((uint16_t)port);
    p->mtu = (uint16_t)UMP_MIN(pmtu, (unsigned)UMP_UDP_MAX_DGRAM);
    return UMP_OK;
}

static int lower_peer_open(void *ctx, int peer, size_t *mtu)
{
    ump_udp_xp_t *xp = ctx;
    int rc = ump_udp_resolve(xp, peer);
    if (rc) return rc;
    *mtu = UMP_MIN((size_t)xp->peers[peer].mtu, xp->mtu) - UMP_UDP_HDR;
    ump_udp_auth_ready(xp, peer); /* the handshake starts before the first datagram */
    return UMP_OK;
}

static void lower_peer_name(void *ctx, int peer, char *buf, size_t len)
{
    ump_udp_xp_t *xp = ctx;
    ump_udp_peer_t *p = &xp->peers[peer];
    char ip[INET_ADDRSTRLEN] = "?";
    if (!p->sa.sin_family) {
        snprintf(buf, len, "address unknown");
        return;
    }
    inet_ntop(AF_INET, &p->sa.sin_addr, ip, sizeof(ip));
    snprintf(buf, len, "udp %s:%u", ip, ntohs(p->sa.sin_port));
}

static int lower_send(void *ctx, const ump_rel_dgram_t *d, int n)
{
    ump_udp_xp_t *xp = ctx;
    struct mmsghdr msg[SEND_CHUNK];
    struct iovec iov[SEND_CHUNK][2];
    ump_udp_hdr_t hdr[SEND_CHUNK];
    int done = 0;
    while (done < n) {
        /* Nothing goes to a peer before it proved itself: such datagrams
         * are taken as sent and lost, and rel's retransmissions carry them
         * once the handshake is done. */
        if (!ump_udp_auth_ready(xp, d[done].peer)) {
            done++;
            continue;
        }
        int k = 0;
        while (k < SEND_CHUNK && done + k < n && ump_udp_auth_ready(xp, d[done + k].peer))
            k++;
        for (int i = 0; i < k; i++) {
            const ump_rel_dgram_t *g = &d[done + i];
            hdr[i].magic = UMP_UDP_MAGIC;
            hdr[i].tag = ump_udp_tag(xp->key, g->data, g->len);
            iov[i][0] = (struct iovec){.iov_base = &hdr[i], .iov_len = sizeof(hdr[i])};
            iov[i][1] = (struct iovec){.iov_base = (void *)g->data, .iov_len = g->len};
            msg[i] = (struct mmsghdr){.msg_hdr = {.msg_name = &xp->peers[g->peer].sa,
                                                  .msg_namelen = sizeof(struct sockaddr_in),
                                                  .msg_iov = iov[i],
                                                  .msg_iovlen = 2}};
        }
        int fd = xp->sfd[xp->next_sfd++ % (unsigned)xp->nsfd];
        int r;
        do
            r = sendmmsg(fd, msg, (unsigned)k, MSG_DONTWAIT);
        while (r < 0 && errno == EINTR); /* nothing was sent: try again */
        xp->send_calls++;
        if (r < 0) {
            if (errno == EAGAIN || errno == ENOBUFS) return done; /* full: the rest is "lost" */
            /* This datagram cannot go (route, permission): count it lost
             * and go on with the others; rel resends or gives up. */
            if (!xp->send_errors++) ump_warn("udp: sendmmsg to rank %d: %m", d[done].peer);
            r = 1;
        }
        done += r;
    }
    return done;
}

/* --- receiving ------------------------------------------------------------- */

static int udp_recv(ump_udp_xp_t *xp)
{
    int delivered = 0;
    for (int round = 0; round < RECV_ROUNDS; round++) {
        for (int i = 0; i < xp->rbatch; i++) {
            xp->riov[i] =
                (struct iovec){.iov_base = xp->rbuf + (size_t)i * xp->rslot, .iov_len = xp->mtu};
            xp->rmsg[i] = (struct mmsghdr){.msg_hdr = {.msg_name = &xp->rname[i],
                                                       .msg_namelen = sizeof(xp->rname[i]),
                                                       .msg_iov = &xp->riov[i],
                                                       .msg_iovlen = 1}};
        }
        int k = recvmmsg(xp->rfd, xp->rmsg, (unsigned)xp->rbatch, MSG_DONTWAIT, NULL);
        xp->recv_calls++;
        if (k <= 0) {
            if (k < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED)
                ump_debug("udp: recvmmsg: %m");
            break;
        }
        for (int i = 0; i < k; i++) {
            const uint8_t *b = xp->riov[i].iov_base;
            size_t len = xp->rmsg[i].msg_len;
            if (xp->rmsg[i].msg_hdr.msg_flags & MSG_TRUNC) {
                xp->truncated++;
                continue;
            }
            const ump_udp_hdr_t *h = (const ump_udp_hdr_t *)b;
            const struct sockaddr_in *src = &xp->rname[i];
            if (len >= 4 && h->magic == htole32(UMP_UDP_MAGIC_AUTH)) {
                ump_udp_auth_input(xp, b, len, src);
                continue;
            }
            if (len < UMP_UDP_HDR || h->magic != UMP_UDP_MAGIC ||
                h->tag != ump_udp_tag(xp->key, b + UMP_UDP_HDR, len - UMP_UDP_HDR)) {
                xp->foreign++;
                continue;
            }
            /* Only from a source a handshake admitted as the rank it claims. */
            uint32_t from;
            if (len < UMP_UDP_HDR + sizeof(ump_rel_hdr_t)) {
                xp->unauth++;
                continue;
            }
            memcpy(&from, b + UMP_UDP_HDR + offsetof(ump_rel_hdr_t, src), sizeof(from));
            if (!ump_udp_auth_admit(xp, le32toh(from), src)) continue;
            delivered += ump_rel_input(xp->rel, b + UMP_UDP_HDR, len - UMP_UDP_HDR);
        }
        if (k < xp->rbatch) break;
    }
    return delivered;
}

/* --- ops ------------------------------------------------------------------ */

static void udp_free(ump_udp_xp_t *xp)
{
    if (xp->rel) ump_rel_destroy(xp->rel);
    for (int i = 0; i < xp->nsfd; i++)
        close(xp->sfd[i]);
    if (xp->rfd >= 0) close(xp->rfd);
    if (xp->tfd >= 0) close(xp->tfd);
    if (xp->epfd >= 0) close(xp->epfd);
    free(xp->rbuf);
    free(xp->rmsg);
    free(xp->riov);
    free(xp->rname);
    free(xp->peers);
    free(xp);
}

static int udp_open(const ump_xp_params_t *params, ump_xp_t **out)
{
    ump_cfg_load(false);
    const ump_rt_info_t *info = ump_rt_info(params->rt);
    ump_udp_xp_t *xp = calloc(1, sizeof(*xp));
    if (!xp) return UMP_ERR_NO_MEMORY;
    int rc = UMP_ERR_NO_MEMORY;
    xp->base.ops = &ump_xp_udp_ops;
    xp->base.params = *params;
    xp->rt = params->rt;
    xp->rank = info->rank;
    xp->size = info->size;
    xp->rfd = xp->epfd = xp->tfd = -1;
    xp->key = ump_crc32c(0, info->secret, sizeof(info->secret));
    xp->secret = info->secret;
    xp->peers = calloc((size_t)xp->size, sizeof(*xp->peers));
    if (!xp->peers) goto err;

    char ip[64];
    int if_mtu;
    rc = ump_udp_pick_addr(params->rt, udp_if.v.s, ip, sizeof(ip), &if_mtu);
    if (rc) goto err;
    size_t mtu = udp_mtu.v.sz;
    if (!mtu) mtu = if_mtu > 28 ? UMP_MIN((size_t)if_mtu - 28, 65000) : 1472;
    xp->mtu = UMP_MIN(UMP_MAX(mtu, (size_t)512), (size_t)UMP_UDP_MAX_DGRAM);

    rc = UMP_ERR_IO;
    xp->rfd = ump_udp_socket(ip, 0, udp_rcvbuf.v.sz);
    if (xp->rfd < 0) goto err;
    int k = (int)UMP_MIN(UMP_MAX(udp_stripes.v.i, 1), (long long)UMP_ARRAY_SIZE(xp->sfd));
    for (; xp->nsfd < k; xp->nsfd++) {
        /* Send sockets never receive: the smallest receive buffer. */
        int fd = ump_udp_socket(ip, udp_sndbuf.v.sz, 1);
        if (fd < 0) goto err;
        xp->sfd[xp->nsfd] = fd;
        struct sockaddr_in ssa;
        if (ump_udp_sockname(fd, &ssa)) goto err;
        xp->sports[xp->nsfd] = ssa.sin_port;
    }
    struct sockaddr_in sa;
    if (ump_udp_sockname(xp->rfd, &sa)) goto err;
    snprintf(xp->addr, sizeof(xp->addr), "%s %u %zu", ip, ntohs(sa.sin_port), xp->mtu);

    xp->epfd = epoll_create1(EPOLL_CLOEXEC);
    xp->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (xp->epfd < 0 || xp->tfd < 0) {
        ump_error("udp: epoll/timerfd: %m");
        goto err;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = xp->rfd};
    struct epoll_event tev = {.events = EPOLLIN, .data.fd = xp->tfd};
    if (epoll_ctl(xp->epfd, EPOLL_CTL_ADD, xp->rfd, &ev) ||
        epoll_ctl(xp->epfd, EPOLL_CTL_ADD, xp->tfd, &tev)) {
        ump_error("udp: epoll_ctl: %m");
        goto err;
    }

    rc = UMP_ERR_NO_MEMORY;
    xp->rbatch = (int)UMP_MIN(UMP_MAX(udp_batch.v.i, 1), 256);
    xp->rslot = UMP_ALIGN_UP(xp->mtu, 64);
    xp->rbuf = aligned_alloc(64, xp->rslot * (size_t)xp->rbatch);
    xp->rmsg = calloc((size_t)xp->rbatch, sizeof(*xp->rmsg));
    xp->riov = calloc((size_t)xp->rbatch, sizeof(*xp->riov));
    xp->rname = calloc((size_t)xp->rbatch, sizeof(*xp->rname));
    if (!xp->rbuf || !xp->rmsg || !xp->riov || !xp->rname) goto err;

    ump_rel_lower_t lower = {.ctx = xp,
                             .mtu = xp->mtu - UMP_UDP_HDR,
                             .peer_open = lower_peer_open,
                             .send = lower_send,
                             .peer_name = lower_peer_name};
    rc = ump_rel_xp_open(&xp->base, xp->rank, xp->size, &lower, udp_seg_size.v.sz,
                         udp_eager_limit.v.sz, UMP_UDP_MAX_IOV, &xp->stats, &xp->rel);
    if (rc) goto err;

    rc = ump_rt_put(params->rt, "udp.addr", xp->addr, strlen(xp->addr) + 1);
    if (rc) {
        ump_error("udp: cannot publish address: %s", ump_strerror(rc));
        goto err;
    }
    ump_debug("udp: receiving on %s:%u, datagrams up to %zu bytes, %d send socket(s)", ip,
              ntohs(sa.sin_port), xp->mtu, xp->nsfd);
    *out = &xp->base;
    return UMP_OK;
err:
    udp_free(xp);
    return rc;
}

/* Nothing to connect: addresses are read from the bootstrap on first contact. */
static int udp_wireup(ump_xp_t *xp)
{
    return UMP_OK;
}

static bool udp_reaches(ump_xp_t *base, int peer)
{
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    return peer >= 0 && peer < xp->size && peer != xp->rank;
}

static int udp_am_send(ump_xp_t *base, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                       const struct iovec *iov, int iovcnt)
{
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    if (iovcnt > UMP_UDP_MAX_IOV) return UMP_ERR_INVALID;
    return ump_rel_send(xp->rel, peer, am_id, hdr, hlen, iov, iovcnt);
}

static int udp_progress(ump_xp_t *base)
{
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    if (xp->timer_at && ump_time_ns() >= xp->timer_at) {
        uint64_t v;
        if (read(xp->tfd, &v, sizeof(v)) < 0 && errno != EAGAIN) ump_debug("udp: timerfd: %m");
        xp->timer_at = 0;
    }
    int n = udp_recv(xp);
    n += ump_rel_poll(xp->rel);
    return n;
}

static int udp_arm(ump_xp_t *base)
{
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    uint64_t due = ump_rel_deadline(xp->rel);
    uint64_t now = ump_time_ns();
    if (due <= now) return UMP_ERR_BUSY;
    /* Level-triggered peek: a datagram waiting, or the timer gone off. */
    struct epoll_event ev;
    int k;
    do
        k = epoll_wait(xp->epfd, &ev, 1, 0);
    while (k < 0 && errno == EINTR);
    if (k != 0) return UMP_ERR_BUSY;
    /* Retransmissions and delayed acks must happen while the application
     * sleeps in a wait: the timer wakes the sleeper when one is due. */
    if (due == UINT64_MAX) {
        if (xp->timer_at) {
            struct itimerspec off = {{0, 0}, {0, 0}};
            timerfd_settime(xp->tfd, 0, &off, NULL);
            xp->timer_at = 0;
        }
    } else if (due != xp->timer_at) {
        struct itimerspec its = {{0, 0}, {(time_t)(due / 1000000000u), (long)(due % 1000000000u)}};
        if (timerfd_settime(xp->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
            ump_debug("udp: timerfd_settime: %m");
            return UMP_ERR_BUSY;
        }
        xp->timer_at = due;
    }
    return UMP_OK;
}

static int udp_wait_fd(ump_xp_t *base)
{
    return ((ump_udp_xp_t *)base)->epfd;
}

static int udp_flush(ump_xp_t *base)
{
    return ump_rel_flush(((ump_udp_xp_t *)base)->rel);
}

static void udp_close(ump_xp_t *base)
{
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    if (!xp) return;
    if (xp->stats)
        fprintf(stderr,
                "ump stats rank %d udp sockets: foreign=%llu unauth=%llu auth_refused=%llu "
                "truncated=%llu send_errors=%llu sendmmsg_calls=%llu recvmmsg_calls=%llu "
                "mtu=%zu stripes=%d\n",
                xp->rank, (unsigned long long)xp->foreign, (unsigned long long)xp->unauth,
                (unsigned long long)xp->auth_refused, (unsigned long long)xp->truncated,
                (unsigned long long)xp->send_errors, (unsigned long long)xp->send_calls,
                (unsigned long long)xp->recv_calls, xp->mtu, xp->nsfd);
    udp_free(xp);
}

static void udp_stats(ump_xp_t *base, ump_xp_stats_t *st)
{
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    if (!xp->rel) return;
    ump_rel_stats_t r;
    ump_rel_get_stats(xp->rel, &r);
    st->sent += r.sent;
    st->received += r.received;
    st->retransmitted += r.retransmitted;
    st->duplicates += r.duplicates;
    st->corrupted += r.corrupted + r.malformed;
    st->timeouts += r.timeouts;
}

const ump_xp_ops_t ump_xp_udp_ops = {
    .name = "udp",
    .open = udp_open,
    .wireup = udp_wireup,
    .close = udp_close,
    .reaches = udp_reaches,
    .am_send = udp_am_send,
    .get = NULL,
    .progress = udp_progress,
    .arm = udp_arm,
    .wait_fd = udp_wait_fd,
    .flush = udp_flush,
    .stats = udp_stats,
};
