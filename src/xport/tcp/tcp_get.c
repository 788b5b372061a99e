/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_get.c - get() over TCP: reading a peer's memory with no copy of
 * ours on either side.
 *
 * The asking side writes a GETREQ frame naming the pieces of the peer's
 * memory it wants (tcp.h). The serving side answers, from its progress,
 * with a GETREP header and the bytes themselves, sent from where they
 * lie: what the socket does not take at once stays queued as a reference
 * to that memory, never copied (the core keeps the buffer untouched until
 * the asking side's FIN, which follows the last byte). The asking side
 * reads the header like any frame, copies what its receive buffer already
 * holds of the data, and reads the rest from the socket straight into the
 * get's buffers. So a rendezvous over TCP costs the kernel's copy into the
 * socket and its copy out, and none of the two copies of streaming (into
 * the send queue when the socket is full, out of the receive buffer).
 *
 * The serving side trusts the addresses as it trusts every frame of an
 * authenticated peer of the job (tcp.h: both ends proved the job secret);
 * an address that is not readable memory makes the kernel refuse the
 * write (EFAULT), which is reported as a protocol error naming the rank.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "xport/tcp/tcp.h"

static const uint8_t zeros[UMP_TCP_FRAME_ALIGN];

int ump_tcp_get(ump_xp_t *base, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    (void)lmr;
    (void)rkey;
    ump_tcp_xp_t *xp = (ump_tcp_xp_t *)base;
    if (peer < 0 || peer >= xp->npeers || nlocal < 1 || nlocal > UMP_TCP_MAX_IOV || nremote < 1 ||
        nremote > UMP_TCP_MAX_IOV)
        return UMP_ERR_INVALID;
    if (xp->peers[peer].dead) return UMP_ERR_PEER_DEAD;
    size_t llen = 0, rlen = 0;
    for (int i = 0; i < nlocal; i++)
        llen += local[i].iov_len;
    for (int i = 0; i < nremote; i++)
        rlen += remote[i].len;
    if (llen != rlen) return UMP_ERR_INVALID;
    ump_tcp_get_t *g = malloc(sizeof(*g) + (size_t)nlocal * sizeof(g->iov[0]));
    if (!g) return UMP_ERR_NO_MEMORY;
    *g =
        (ump_tcp_get_t){.id = ++xp->next_get, .peer = peer, .len = llen, .comp = comp, .n = nlocal};
    memcpy(g->iov, local, (size_t)nlocal * sizeof(local[0]));

    ump_tcp_getreq_t q = {.id = htole64(g->id), .len = htole64(llen), .n = htole32(nremote)};
    ump_riov_t rv[UMP_TCP_MAX_IOV];
    for (int i = 0; i < nremote; i++)
        rv[i] = (ump_riov_t){htole64(remote[i].addr), htole64(remote[i].len)};
    struct iovec body = {rv, (size_t)nremote * sizeof(rv[0])};
    /* A frame like an AM's, with the GETREQ flag: it shares the AM path's
     * connection choice, bound and failure handling. */
    int rc = ump_tcp_send_frame(xp, peer, 0, UMP_TCP_FLAG_GETREQ, &q, sizeof(q), &body, 1);
    if (rc) {
        free(g);
        return rc;
    }
    LIST_INSERT_HEAD(&xp->gets, g, link);
    return UMP_INPROGRESS;
}

/* Queues the reply to a request: the header, then the data by reference. */
static int serve_reply(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, uint64_t id, const ump_riov_t *rv,
                       int n, size_t len)
{
    ump_tcp_conn_t *out;
    int rc = ump_tcp_send_conn(xp, c->peer, &out);
    if (rc) {
        ump_error("tcp: cannot answer a get of rank %d: %s", c->peer, ump_strerror(rc));
        return rc;
    }
    ump_tcp_getrep_t h = {.id = htole64(id), .len = htole64(len)};
    uint8_t fh[UMP_TCP_FRAME_HDR];
    struct iovec v[UMP_TCP_MAX_IOV + 3];
    size_t total;
    int k = ump_tcp_frame_iov(fh, 0, UMP_TCP_FLAG_GETREP, &h, sizeof(h), NULL, 0, v, &total);
    int ref = k, nref = 0;
    for (int i = 0; i < n; i++)
        if (rv[i].len) v[k + nref++] = (struct iovec){(void *)(uintptr_t)rv[i].addr, rv[i].len};
    k += nref;
    size_t pad = ump_tcp_pad(len);
    if (pad) v[k++] = (struct iovec){(void *)zeros, pad};
    total += len + pad;
    rc = ump_tcp_tx_send_ref(&out->txq, out->state == UMP_TCP_OPEN ? out->fd : -1, v, k, total, ref,
                             nref);
    if (rc == UMP_ERR_INVALID) {
        ump_error("tcp: rank %d asked to read memory this process does not have", c->peer);
        return UMP_ERR_PROTOCOL;
    }
    if (rc == UMP_ERR_PEER_DEAD) {
        ump_warn("tcp: send to rank %d (%s): %m", c->peer, out->addr);
        ump_tcp_peer_fail(xp, c->peer, false);
        return UMP_OK; /* reported from progress */
    }
    if (rc) {
        ump_error("tcp: cannot answer a get of rank %d: %s", c->peer, ump_strerror(rc));
        return rc;
    }
    ump_tcp_conn_rearm(xp, out);
    return UMP_OK;
}

static int bad_request(ump_tcp_conn_t *c)
{
    ump_error("tcp: malformed get request from rank %d (%s)", c->peer, c->addr);
    return UMP_ERR_PROTOCOL;
}

int ump_tcp_get_serve(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, const void *data, size_t len)
{
    ump_tcp_getreq_t q;
    if (len < sizeof(q)) return bad_request(c);
    memcpy(&q, data, sizeof(q));
    uint64_t id = le64toh(q.id), want = le64toh(q.len);
    uint32_t n = le32toh(q.n);
    if (q.zero || n < 1 || n > UMP_TCP_MAX_IOV || len != sizeof(q) + n * sizeof(ump_riov_t))
        return bad_request(c);
    ump_riov_t rv[UMP_TCP_MAX_IOV];
    memcpy(rv, (const char *)data + sizeof(q), n * sizeof(rv[0]));
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        rv[i].addr = le64toh(rv[i].addr);
        rv[i].len = le64toh(rv[i].len);
        if (rv[i].len > SIZE_MAX - sum) return bad_request(c);
        sum += rv[i].len;
    }
    if (sum != want) return bad_request(c);
    return serve_reply(xp, c, id, rv, (int)n, (size_t)want);
}

static void get_finish(ump_tcp_get_t *g, int status)
{
    LIST_REMOVE(g, link);
    ump_xp_comp_t *comp = g->comp;
    free(g);
    ump_xp_comp_done(comp, status);
}

/* Places n bytes at p into g's buffers from g->done on. */
static void place(ump_tcp_get_t *g, const uint8_t *p, size_t n)
{
    size_t at = g->done, i = 0;
    while (i < (size_t)g->n && at >= g->iov[i].iov_len)
        at -= g->iov[i++].iov_len;
    g->done += n;
    while (n) {
        size_t k = UMP_MIN(n, g->iov[i].iov_len - at);
        memcpy((char *)g->iov[i].iov_base + at, p, k);
        p += k;
        n -= k;
        at = 0;
        i++;
    }
}

int ump_tcp_get_reply(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, const void *data, size_t len)
{
    ump_tcp_getrep_t h;
    if (len != sizeof(h)) return UMP_ERR_PROTOCOL;
    memcpy(&h, data, sizeof(h));
    uint64_t id = le64toh(h.id), dlen = le64toh(h.len);
    ump_tcp_get_t *g;
    LIST_FOREACH(g, &xp->gets, link)
    if (g->id == id && g->peer == c->peer && !g->failed) break;
    if (!g || h.zero || dlen != g->len) {
        ump_error("tcp: a get reply from rank %d (%s) matches no get of this process", c->peer,
                  c->addr);
        return UMP_ERR_PROTOCOL;
    }
    /* What the receive buffer holds already of the data and padding. */
    size_t pad = ump_tcp_pad(g->len);
    size_t have = ump_tcp_rx_pending(&c->rx);
    size_t k = UMP_MIN(have, g->len);
    place(g, c->rx.buf + c->rx.start, k);
    c->rx.start += k;
    have -= k;
    size_t kp = UMP_MIN(have, pad);
    c->rx.start += kp;
    if (g->done == g->len && kp == pad) {
        get_finish(g, UMP_OK);
        return UMP_OK;
    }
    c->dget = g;
    c->dleft = g->len - g->done;
    c->dpad = pad - kp;
    return UMP_OK;
}

int ump_tcp_get_read(ump_tcp_xp_t *xp, ump_tcp_conn_t *c)
{
    ump_tcp_get_t *g = c->dget;
    uint8_t sink[UMP_TCP_FRAME_ALIGN];
    struct iovec v[UMP_TCP_MAX_IOV + 1];
    int k = 0;
    size_t at = g->done, i = 0;
    while (i < (size_t)g->n && at >= g->iov[i].iov_len)
        at -= g->iov[i++].iov_len;
    for (; i < (size_t)g->n && k < UMP_TCP_MAX_IOV; i++, at = 0)
        v[k++] = (struct iovec){(char *)g->iov[i].iov_base + at, g->iov[i].iov_len - at};
    if (i == (size_t)g->n && c->dpad) v[k++] = (struct iovec){sink, c->dpad};
    if (!c->dleft) { /* only padding left */
        k = 0;
        v[k++] = (struct iovec){sink, c->dpad};
    }
    struct msghdr msg = {.msg_iov = v, .msg_iovlen = (size_t)k};
    ssize_t r;
    do
        r = recvmsg(c->fd, &msg, MSG_DONTWAIT);
    while (r < 0 && errno == EINTR);
    if (r < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    if (r == 0) {
        errno = 0;
        return -1;
    }
    size_t want = 0;
    for (int j = 0; j < k; j++)
        want += v[j].iov_len;
    size_t t = (size_t)r, d = UMP_MIN(t, c->dleft);
    c->dleft -= d;
    g->done += d;
    c->dpad -= t - d;
    if (!c->dleft && !c->dpad) {
        c->dget = NULL;
        get_finish(g, UMP_OK);
    }
    /* A short read emptied the socket: the next recv would only say EAGAIN. */
    return t < want ? 2 : 1;
}

void ump_tcp_get_peer_failed(ump_tcp_xp_t *xp, int peer)
{
    ump_tcp_get_t *g;
    LIST_FOREACH(g, &xp->gets, link)
    if (g->peer == peer && !g->failed) {
        g->failed = true;
        xp->ngets_failed++;
    }
}

int ump_tcp_get_fail_report(ump_tcp_xp_t *xp)
{
    int n = 0;
    ump_tcp_get_t *g, *next;
    for (g = LIST_FIRST(&xp->gets); g && xp->ngets_failed; g = next) {
        next = LIST_NEXT(g, link);
        if (!g->failed) continue;
        xp->ngets_failed--;
        get_finish(g, UMP_ERR_PEER_DEAD);
        n++;
    }
    return n;
}

void ump_tcp_get_fini(ump_tcp_xp_t *xp)
{
    ump_tcp_get_t *g;
    while ((g = LIST_FIRST(&xp->gets))) {
        LIST_REMOVE(g, link);
        free(g);
    }
}
