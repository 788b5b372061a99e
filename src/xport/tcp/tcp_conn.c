/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_conn.c - TCP connections: the lazy connect, the handshake that proves
 * both ends know the job secret (tcp.h), reading and delivering frames, and
 * teardown.
 *
 * A connection is never freed while it may be on the stack: a handler
 * called from conn_read() may call am_send(), which may find the peer dead
 * and close this very connection. So closing only closes the fd and moves
 * the struct to xp->zombies; progress() frees zombies when it returns.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xport/tcp/tcp.h"

/* Reads per connection per event before letting the others have a turn;
 * level-triggered epoll brings a busy connection back on the next call. */
#define READS_PER_EVENT 8

static ump_tcp_conn_t *conn_new(ump_tcp_xp_t *xp, int fd, bool outgoing)
{
    ump_tcp_conn_t *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->fd = fd;
    c->peer = -1;
    c->outgoing = outgoing;
    ump_tcp_rx_init(&c->rx, xp->base.caps.max_am);
    ump_tcp_txq_init(&c->txq);
    return c;
}

static uint32_t conn_want(const ump_tcp_conn_t *c)
{
    switch (c->state) {
    case UMP_TCP_CONNECTING:
        return EPOLLOUT;
    case UMP_TCP_AUTH_WAIT:
    case UMP_TCP_HELLO_WAIT:
    case UMP_TCP_PROOF_WAIT:
        return EPOLLIN;
    case UMP_TCP_OPEN:
        return EPOLLIN | (ump_tcp_txq_len(&c->txq) ? EPOLLOUT : 0);
    default:
        return 0;
    }
}

/* Sets the epoll mask kept in c->events, counting the EPOLLOUT ones. */
static void conn_set_events(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, uint32_t want)
{
    xp->nout += !!(want & EPOLLOUT) - !!(c->events & EPOLLOUT);
    c->events = want;
}

static int conn_register(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    conn_set_events(xp, c, conn_want(c));
    struct epoll_event ev = {.events = c->events, .data.ptr = c};
    if (epoll_ctl(xp->epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
        ump_error("tcp: epoll_ctl add: %m");
        conn_set_events(xp, c, 0);
        return UMP_ERR_IO;
    }
    LIST_INSERT_HEAD(&xp->conns, c, link);
    return UMP_OK;
}

void ump_tcp_conn_unwatch(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    if (c->unwatched || c->state != UMP_TCP_OPEN || c->events != EPOLLIN) return;
    if (epoll_ctl(xp->epfd, EPOLL_CTL_DEL, c->fd, NULL) == 0) c->unwatched = true;
}

void ump_tcp_conn_watch(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    if (!c->unwatched || c->state == UMP_TCP_CLOSED) return;
    uint32_t want = conn_want(c);
    struct epoll_event ev = {.events = want, .data.ptr = c};
    if (epoll_ctl(xp->epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
        /* Still read directly while hot; a sleep would miss it, so say so. */
        ump_warn("tcp: epoll_ctl add (%s): %m", c->addr);
        return;
    }
    c->unwatched = false;
    conn_set_events(xp, c, want);
}

void ump_tcp_conn_rearm(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    if (c->state == UMP_TCP_CLOSED) return;
    uint32_t want = conn_want(c);
    if (want == c->events) return;
    if (c->unwatched) {
        ump_tcp_conn_watch(xp, c);
        return;
    }
    struct epoll_event ev = {.events = want, .data.ptr = c};
    if (epoll_ctl(xp->epfd, EPOLL_CTL_MOD, c->fd, &ev))
        ump_warn("tcp: epoll_ctl mod (%s): %m", c->addr);
    else
        conn_set_events(xp, c, want);
}

void ump_tcp_conn_close(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    if (c->state == UMP_TCP_CLOSED) return;
    if (c->parked) {
        c->parked = false;
        xp->nparked--;
    }
    if (xp->hot == c) xp->hot = NULL;
    conn_set_events(xp, c, 0);
    if (!c->unwatched) epoll_ctl(xp->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    c->unwatched = false;
    close(c->fd);
    c->fd = -1;
    c->state = UMP_TCP_CLOSED;
    LIST_REMOVE(c, link);
    LIST_INSERT_HEAD(&xp->zombies, c, link);
}

void ump_tcp_free_zombies(ump_tcp_xp_t *xp)
{
    ump_tcp_conn_t *c;
    while ((c = LIST_FIRST(&xp->zombies))) {
        LIST_REMOVE(c, link);
        ump_tcp_rx_fini(&c->rx);
        ump_tcp_txq_fini(&c->txq);
        free(c);
    }
}

void ump_tcp_peer_fail(ump_tcp_xp_t *xp, int peer, bool clean)
{
    ump_tcp_peer_t *p = &xp->peers[peer];
    if (p->out) ump_tcp_conn_close(xp, p->out);
    if (p->in) ump_tcp_conn_close(xp, p->in);
    p->out = p->in = NULL;
    if (p->dead) return;
    p->dead = true;
    ump_tcp_get_peer_failed(xp, peer);
    if (clean) {
        p->gone = true;
        ump_debug("tcp: rank %d closed its connections", peer);
    } else {
        p->report = true;
        xp->nreport++;
    }
}

/* Writes a handshake message whole. It is the first thing written on a new
 * socket, so the socket buffer always has room; a short write means the
 * connection failed. */
static int send_whole(ump_tcp_conn_t *c, const void *p, size_t n)
{
    ssize_t w;
    do
        w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (w < 0 && errno == EINTR);
    if (w == (ssize_t)n) return UMP_OK;
    ump_warn("tcp: handshake with %s: %s", c->addr, w < 0 ? strerror(errno) : "short write");
    return UMP_ERR_PEER_DEAD;
}

/* The connector's hello, once connected. */
static int send_hello(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    ump_tcp_hello_t h;
    ump_tcp_hello_encode(&h, xp->job, xp->rank, xp->size, c->nonce_c);
    ump_tcp_sock_local(c->fd, xp->sndbuf_local);
    c->state = UMP_TCP_AUTH_WAIT;
    return send_whole(c, &h, sizeof(h));
}

int ump_tcp_conn_connect(ump_tcp_xp_t *xp, int peer, ump_tcp_conn_t **out)
{
    char addr[80];
    size_t len = sizeof(addr) - 1;
    int rc = ump_rt_get(xp->base.params.rt, peer, "tcp.addr", addr, &len);
    if (rc) {
        ump_error("tcp: no address published by rank %d: %s", peer, ump_strerror(rc));
        return UMP_ERR_PEER_DEAD;
    }
    addr[len] = '\0';
    struct sockaddr_storage ss;
    socklen_t sl;
    if (ump_tcp_parse_addr(addr, &ss, &sl)) {
        ump_error("tcp: rank %d published a bad address '%s'", peer, addr);
        return UMP_ERR_PEER_DEAD;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ump_error("tcp: socket: %m");
        return UMP_ERR_IO;
    }
    ump_tcp_sock_opts(fd, xp->sndbuf, xp->rcvbuf);
    ump_tcp_conn_t *c = conn_new(xp, fd, true);
    if (!c) {
        rc = UMP_ERR_NO_MEMORY;
        goto err_close;
    }
    c->peer = peer;
    memcpy(c->addr, addr, sizeof(c->addr));
    char job[17];
    if (ump_rt_peer_name(xp->base.params.rt, peer, job, &c->rrank) ||
        ump_hex_decode(job, c->rjob, sizeof(c->rjob))) {
        ump_error("tcp: peer %d has no job id and rank", peer);
        rc = UMP_ERR_PEER_DEAD;
        goto err_free;
    }
    /* Room for our proof first in the queue, so AMs queued before the
     * handshake ends follow it in order; nothing in the queue leaves before
     * the acceptor has proved itself (conn_challenge). */
    static const uint8_t later[UMP_TCP_PROOF_LEN];
    struct iovec pv = {(void *)later, sizeof(later)};
    if (ump_auth_nonce(c->nonce_c)) {
        rc = UMP_ERR_IO;
        goto err_free;
    }
    rc = ump_tcp_txq_push(&c->txq, &pv, 1, 0);
    if (rc) goto err_free;
    int r;
    do /* connect is restartable here: EINTR only interrupts the wait */
        r = connect(fd, (struct sockaddr *)&ss, sl);
    while (r < 0 && errno == EINTR);
    if (r == 0) {
        rc = send_hello(xp, c);
        if (rc) goto err_free;
    } else if (errno == EINPROGRESS) {
        c->state = UMP_TCP_CONNECTING;
    } else {
        ump_warn("tcp: connect to rank %d at %s: %m", peer, addr);
        rc = UMP_ERR_PEER_DEAD;
        goto err_free;
    }
    rc = conn_register(xp, c);
    if (rc) goto err_free;
    ump_debug("tcp: connecting to rank %d at %s", peer, addr);
    *out = c;
    return UMP_OK;
err_free:
    ump_tcp_rx_fini(&c->rx);
    ump_tcp_txq_fini(&c->txq);
    free(c);
err_close:
    close(fd);
    return rc;
}

int ump_tcp_conn_accept(ump_tcp_xp_t *xp)
{
    int n = 0;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(xp->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            /* A connection reset before we took it, or a signal: the next
             * one may be fine. */
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) ump_warn("tcp: accept: %m");
            return n;
        }
        ump_tcp_sock_opts(fd, xp->sndbuf, xp->rcvbuf);
        ump_tcp_sock_local(fd, xp->sndbuf_local);
        ump_tcp_conn_t *c = conn_new(xp, fd, false);
        if (!c) {
            close(fd);
            return UMP_ERR_NO_MEMORY;
        }
        ump_tcp_format_addr((struct sockaddr *)&ss, c->addr, sizeof(c->addr));
        c->state = UMP_TCP_HELLO_WAIT;
        if (conn_register(xp, c)) {
            close(fd);
            ump_tcp_rx_fini(&c->rx);
            free(c);
            return UMP_ERR_IO;
        }
        n++;
    }
}

static void conn_lost(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, int err);

static int refuse(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, const char *why)
{
    ump_warn("tcp: refused connection from %s: %s", c->addr, why);
    ump_tcp_conn_close(xp, c);
    return UMP_ERR_AUTH;
}

/* A hello from a process of another job that the core has not added (yet):
 * it waits, its bytes unread, until ump_tcp_conn_unpark finds it known. */
static int park(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, int rrank)
{
    uint64_t now = ump_time_ns();
    if (!c->parked) {
        c->parked = true;
        c->park_until = now + 60ull * 1000000000ull;
        xp->nparked++;
        ump_debug("tcp: %s (rank %d of another job) waits until that process is met", c->addr,
                  rrank);
        return 0;
    }
    if (now < c->park_until) return 0;
    return refuse(xp, c, "a process of another job that this one has not met");
}

/* Acceptor: reads the hello and answers with the challenge. */
static int conn_hello(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    ump_tcp_hello_t h;
    if (ump_tcp_rx_pending(&c->rx) < sizeof(h)) return 0;
    memcpy(&h, c->rx.buf + c->rx.start, sizeof(h));
    int rrank, peer;
    if (ump_tcp_hello_check(&h, xp->job, xp->size, &rrank))
        return refuse(xp, c, "bad handshake (magic, version or job size)");
    if (!memcmp(h.job, xp->job, sizeof(h.job))) {
        peer = rrank;
    } else {
        char job[17];
        ump_hex_encode(h.job, sizeof(h.job), job);
        peer = ump_rt_peer_find(xp->base.params.rt, job, rrank);
        if (peer < 0 || peer >= xp->npeers) return park(xp, c, rrank);
    }
    if (c->parked) {
        c->parked = false;
        xp->nparked--;
    }
    c->rx.start += sizeof(h);
    c->hello_rank = peer;
    c->rrank = rrank;
    memcpy(c->rjob, h.job, sizeof(c->rjob));
    memcpy(c->nonce_c, h.nonce, sizeof(c->nonce_c));
    ump_tcp_challenge_t ch = {.magic = htole32(UMP_TCP_MAGIC), .rank = htole32((uint32_t)xp->rank)};
    uint8_t extra[24];
    ump_auth_ctx_t ctx = ump_tcp_auth_ctx(xp->secret, c->nonce_c, c->nonce_a, c->rjob, c->rrank,
                                          xp->job, xp->rank, extra);
    if (ump_auth_nonce(c->nonce_a) || ump_auth_mac(ch.proof, &ctx, UMP_AUTH_ACCEPTOR))
        return refuse(xp, c, "cannot draw random bytes");
    memcpy(ch.nonce, c->nonce_a, sizeof(ch.nonce));
    c->state = UMP_TCP_PROOF_WAIT;
    if (send_whole(c, &ch, sizeof(ch))) {
        ump_tcp_conn_close(xp, c);
        return UMP_ERR_PEER_DEAD;
    }
    return 1;
}

/* Acceptor: checks the connector's proof; only then is it that rank. */
static int conn_proof(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    if (ump_tcp_rx_pending(&c->rx) < UMP_TCP_PROOF_LEN) return 0;
    const uint8_t *proof = c->rx.buf + c->rx.start;
    uint8_t extra[24];
    ump_auth_ctx_t ctx = ump_tcp_auth_ctx(xp->secret, c->nonce_c, c->nonce_a, c->rjob, c->rrank,
                                          xp->job, xp->rank, extra);
    bool ok = ump_auth_check(proof, &ctx, UMP_AUTH_CONNECTOR);
    c->rx.start += UMP_TCP_PROOF_LEN; /* 48 + 32 bytes: frames after it stay aligned */
    if (!ok) {
        xp->auth_refused++;
        return refuse(xp, c, "failed authentication (wrong job secret or a replayed handshake)");
    }
    int peer = c->hello_rank;
    if (xp->peers[peer].in || xp->peers[peer].dead) {
        ump_warn("tcp: refused connection from %s: rank %d is already connected or gone", c->addr,
                 peer);
        ump_tcp_conn_close(xp, c);
        return UMP_ERR_PROTOCOL;
    }
    c->peer = peer;
    c->state = UMP_TCP_OPEN;
    xp->peers[peer].in = c;
    ump_debug("tcp: rank %d connected from %s", peer, c->addr);
    return 1;
}

/* Connector: checks the acceptor's challenge; only then does the queue, our
 * proof first, go out. */
static int conn_challenge(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    ump_tcp_challenge_t ch;
    if (ump_tcp_rx_pending(&c->rx) < sizeof(ch)) return 0;
    memcpy(&ch, c->rx.buf + c->rx.start, sizeof(ch));
    c->rx.start += sizeof(ch);
    uint8_t extra[24];
    ump_auth_ctx_t ctx = ump_tcp_auth_ctx(xp->secret, c->nonce_c, ch.nonce, xp->job, xp->rank,
                                          c->rjob, c->rrank, extra);
    if (le32toh(ch.magic) != UMP_TCP_MAGIC || le32toh(ch.rank) != (uint32_t)c->rrank ||
        !ump_auth_check(ch.proof, &ctx, UMP_AUTH_ACCEPTOR)) {
        ump_warn("tcp: refused rank %d at %s: it failed authentication (not rank %d of this job, "
                 "or it does not know the job secret)",
                 c->peer, c->addr, c->peer);
        xp->auth_refused++;
        ump_tcp_peer_fail(xp, c->peer, false);
        return UMP_ERR_AUTH;
    }
    /* The proof slot is still at the head: nothing has been written. */
    if (ump_auth_mac(c->txq.buf + c->txq.head, &ctx, UMP_AUTH_CONNECTOR)) {
        ump_tcp_peer_fail(xp, c->peer, false);
        return UMP_ERR_IO;
    }
    c->state = UMP_TCP_OPEN;
    ump_debug("tcp: connected to rank %d at %s", c->peer, c->addr);
    if (ump_tcp_tx_drain(&c->txq, c->fd) < 0) {
        conn_lost(xp, c, errno);
        return UMP_ERR_PEER_DEAD;
    }
    return 1;
}

/* Runs the handshake as far as the bytes read allow. 1 when open, 0 when
 * more bytes are needed, <0 when the connection was refused and closed. */
static int conn_handshake(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    for (;;) {
        int h;
        switch (c->state) {
        case UMP_TCP_HELLO_WAIT:
            h = conn_hello(xp, c);
            break;
        case UMP_TCP_PROOF_WAIT:
            h = conn_proof(xp, c);
            break;
        case UMP_TCP_AUTH_WAIT:
            h = conn_challenge(xp, c);
            break;
        default:
            return 1;
        }
        if (h <= 0) return h;
    }
}

void ump_tcp_conn_unpark(ump_tcp_xp_t *xp)
{
    ump_tcp_conn_t *c = LIST_FIRST(&xp->conns), *next;
    for (; c && xp->nparked; c = next) {
        next = LIST_NEXT(c, link); /* a refusal moves c to the zombies */
        if (c->parked) conn_handshake(xp, c);
    }
}

/* The connection ended (EOF, reset, error). */
static void conn_lost(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, int err)
{
    if (c->peer < 0) { /* before its proof: nobody to tell */
        ump_debug("tcp: connection from %s closed before its handshake", c->addr);
        ump_tcp_conn_close(xp, c);
        return;
    }
    if (c->bye) {
        ump_tcp_peer_fail(xp, c->peer, true);
        return;
    }
    if (!xp->peers[c->peer].dead)
        ump_warn("tcp: lost connection %s rank %d (%s): %s", c->outgoing ? "to" : "from", c->peer,
                 c->addr, err ? strerror(err) : "end of stream");
    ump_tcp_peer_fail(xp, c->peer, false);
}

/* Reads what is available and delivers every complete frame. */
static int conn_read(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    int n = 0;
    for (int i = 0; i < READS_PER_EVENT && c->state != UMP_TCP_CLOSED; i++) {
        if (c->dget) { /* a get reply's data: straight into the get's buffers */
            int g = ump_tcp_get_read(xp, c);
            if (g < 0) {
                conn_lost(xp, c, errno);
                return n;
            }
            if (!g) break;
            n++;
            if (g == 2 && c->dget) break; /* the socket is empty */
            continue;
        }
        size_t room;
        uint8_t *p = ump_tcp_rx_space(&c->rx, &room);
        if (!p) {
            ump_error("tcp: out of memory for a receive buffer (%s)", c->addr);
            conn_lost(xp, c, ENOMEM);
            return UMP_ERR_NO_MEMORY;
        }
        ssize_t r = recv(c->fd, p, room, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR) /* nothing read yet: read again */
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            conn_lost(xp, c, errno);
            return n;
        }
        if (r == 0) {
            conn_lost(xp, c, 0);
            return n;
        }
        ump_tcp_rx_commit(&c->rx, (size_t)r);
        /* A short read emptied the socket: skip the recv that would only
         * say EAGAIN. */
        bool drained = (size_t)r < room;
        if (c->state != UMP_TCP_OPEN) {
            int h = conn_handshake(xp, c);
            if (h <= 0) return n + (h < 0);
            n++;
        }
        uint8_t am_id, flags;
        const void *data;
        size_t len;
        int k;
        while ((k = ump_tcp_rx_next(&c->rx, &am_id, &flags, &data, &len)) == 1) {
            if (flags & UMP_TCP_FLAG_BYE) {
                c->bye = true;
                continue;
            }
            if (flags & (UMP_TCP_FLAG_GETREQ | UMP_TCP_FLAG_GETREP)) {
                int g = (flags & UMP_TCP_FLAG_GETREQ) ? ump_tcp_get_serve(xp, c, data, len)
                                                      : ump_tcp_get_reply(xp, c, data, len);
                if (g < 0) { /* logged there */
                    ump_tcp_peer_fail(xp, c->peer, false);
                    return n;
                }
                n++;
                if (c->state == UMP_TCP_CLOSED) return n;
                if (c->dget) break; /* the rest of its data: from the socket */
                continue;
            }
            xp->base.params.am_handler(xp->base.params.arg, &xp->base, c->peer, am_id, data, len);
            n++;
            /* The handler's am_send may have found this peer dead. */
            if (c->state == UMP_TCP_CLOSED) return n;
        }
        if (k < 0) {
            size_t l = ump_tcp_rx_head_len(&c->rx);
            if (l > c->rx.max_frame)
                ump_error("tcp: rank %d (%s) sent a %zu-byte message, larger than this rank's "
                          "largest (%zu): UMP_TCP_EAGER_LIMIT and UMP_TCP_SEG_SIZE must be set "
                          "alike on every rank",
                          c->peer, c->addr, l, c->rx.max_frame);
            else
                ump_error("tcp: corrupted frame from rank %d (%s)", c->peer, c->addr);
            ump_tcp_peer_fail(xp, c->peer, false);
            return n;
        }
        if (drained) break;
    }
    return n;
}

int ump_tcp_conn_event(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, uint32_t ev)
{
    int n = 0;
    if (c->state == UMP_TCP_CLOSED) return 0;
    if (c->state == UMP_TCP_CONNECTING) {
        int err = 0;
        socklen_t sl = sizeof(err);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl)) err = errno;
        if (err) {
            ump_warn("tcp: connect to rank %d at %s: %s", c->peer, c->addr, strerror(err));
            ump_tcp_peer_fail(xp, c->peer, false);
            return 1;
        }
        if (!(ev & EPOLLOUT)) return 0;
        if (send_hello(xp, c)) {
            ump_tcp_peer_fail(xp, c->peer, false);
            return 1;
        }
        n++;
    }
    if ((ev & EPOLLOUT) && c->state == UMP_TCP_OPEN && ump_tcp_txq_len(&c->txq)) {
        ssize_t w = ump_tcp_tx_drain(&c->txq, c->fd);
        if (w < 0) {
            conn_lost(xp, c, errno);
            return n + 1;
        }
        n += w > 0;
    }
    if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        int r = conn_read(xp, c);
        if (r < 0) return r;
        n += r;
    }
    ump_tcp_conn_rearm(xp, c);
    return n;
}
