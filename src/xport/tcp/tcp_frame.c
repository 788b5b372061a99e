/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_frame.c - the TCP transport's wire format: handshake, frame headers, the
 * receive parser and the per-connection send queue. Nothing here knows
 * about epoll or peers, so the unit tests drive it over plain buffers and
 * socketpairs.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "xport/tcp/tcp.h"

/* --- hello --------------------------------------------------------------- */

void ump_tcp_hello_encode(ump_tcp_hello_t *h, const uint8_t job[8], int rank, int size,
                          const uint8_t *nonce)
{
    memset(h, 0, sizeof(*h));
    h->magic = htole32(UMP_TCP_MAGIC);
    h->version = htole16(UMP_TCP_VERSION);
    h->rank = htole32((uint32_t)rank);
    h->size = htole32((uint32_t)size);
    memcpy(h->job, job, sizeof(h->job));
    memcpy(h->nonce, nonce, UMP_AUTH_NONCE_LEN);
}

int ump_tcp_hello_check(const ump_tcp_hello_t *h, const uint8_t job[8], int size, int *rank)
{
    if (le32toh(h->magic) != UMP_TCP_MAGIC || le16toh(h->version) != UMP_TCP_VERSION)
        return UMP_ERR_PROTOCOL;
    uint32_t r = le32toh(h->rank), n = le32toh(h->size);
    bool mine = !memcmp(h->job, job, sizeof(h->job));
    if ((mine && n != (uint32_t)size) || n > INT32_MAX || r >= n) return UMP_ERR_PROTOCOL;
    *rank = (int)r;
    return UMP_OK;
}

ump_auth_ctx_t ump_tcp_auth_ctx(const uint8_t *secret, const uint8_t *nonce_c,
                                const uint8_t *nonce_a, const uint8_t jfrom[8], int from,
                                const uint8_t jto[8], int to, uint8_t extra[24])
{
    uint32_t f = htole32((uint32_t)from), t = htole32((uint32_t)to);
    memcpy(extra, jfrom, 8);
    memcpy(extra + 8, &f, 4);
    memcpy(extra + 12, jto, 8);
    memcpy(extra + 20, &t, 4);
    return (ump_auth_ctx_t){
        UMP_TCP_AUTH_LABEL, secret, UMP_RT_SECRET_LEN, nonce_c, nonce_a, extra, 24};
}

/* --- frames -------------------------------------------------------------- */

static const uint8_t zeros[UMP_TCP_FRAME_ALIGN];

int ump_tcp_frame_iov(uint8_t hbuf[UMP_TCP_FRAME_HDR], uint8_t am_id, uint8_t flags,
                      const void *hdr, size_t hlen, const struct iovec *iov, int iovcnt,
                      struct iovec *out, size_t *total)
{
    size_t len = hlen;
    int n = 1;
    if (hlen) out[n++] = (struct iovec){(void *)hdr, hlen};
    for (int i = 0; i < iovcnt; i++) {
        if (!iov[i].iov_len) continue;
        out[n++] = iov[i];
        len += iov[i].iov_len;
    }
    uint32_t le = htole32((uint32_t)len);
    memcpy(hbuf, &le, 4);
    hbuf[4] = am_id;
    hbuf[5] = flags;
    hbuf[6] = hbuf[7] = 0;
    out[0] = (struct iovec){hbuf, UMP_TCP_FRAME_HDR};
    size_t pad = ump_tcp_pad(len);
    if (pad) out[n++] = (struct iovec){(void *)zeros, pad};
    *total = UMP_TCP_FRAME_HDR + len + pad;
    return n;
}

/* --- receive parser ------------------------------------------------------ */

#define RX_INIT_CAP (64 * 1024)

void ump_tcp_rx_init(ump_tcp_rx_t *rx, size_t max_am)
{
    memset(rx, 0, sizeof(*rx));
    rx->max_frame = max_am;
}

void ump_tcp_rx_fini(ump_tcp_rx_t *rx)
{
    free(rx->buf);
    memset(rx, 0, sizeof(*rx));
}

/* Bytes the frame at rx->start occupies on the wire, as far as known: the
 * whole frame once its header is in, else just a header. */
size_t ump_tcp_rx_head_len(const ump_tcp_rx_t *rx)
{
    if (rx->end - rx->start < 4) return 0;
    uint32_t len;
    memcpy(&len, rx->buf + rx->start, 4);
    return le32toh(len);
}

static size_t frame_need(const ump_tcp_rx_t *rx)
{
    if (rx->end - rx->start < UMP_TCP_FRAME_HDR) return UMP_TCP_FRAME_HDR;
    size_t len = ump_tcp_rx_head_len(rx);
    if (len > rx->max_frame) /* rx_next reports it; read no further */
        return UMP_TCP_FRAME_HDR;
    return UMP_TCP_FRAME_HDR + len + ump_tcp_pad(len);
}

uint8_t *ump_tcp_rx_space(ump_tcp_rx_t *rx, size_t *room)
{
    if (rx->start == rx->end) rx->start = rx->end = 0; /* cheap reset: nothing to move */
    size_t need = frame_need(rx);
    if (rx->cap - rx->end < RX_INIT_CAP / 4 || rx->cap - rx->start < need) {
        /* Move the unfinished frame to the front; grow if it still does not
         * fit. Growing happens only up to the largest frame. */
        if (rx->start) {
            memmove(rx->buf, rx->buf + rx->start, rx->end - rx->start);
            rx->end -= rx->start;
            rx->start = 0;
        }
        size_t want = UMP_MAX(need, (size_t)RX_INIT_CAP);
        if (rx->cap < want) {
            uint8_t *nb = realloc(rx->buf, want);
            if (!nb) return NULL;
            rx->buf = nb;
            rx->cap = want;
        }
    }
    if (rx->end == rx->cap) {
        /* Full of complete frames the caller has not taken yet; cannot
         * happen when rx_next is drained after every commit. */
        *room = 0;
        return NULL;
    }
    *room = rx->cap - rx->end;
    return rx->buf + rx->end;
}

int ump_tcp_rx_next(ump_tcp_rx_t *rx, uint8_t *am_id, uint8_t *flags, const void **data,
                    size_t *len)
{
    size_t have = rx->end - rx->start;
    if (have < UMP_TCP_FRAME_HDR) return 0;
    const uint8_t *h = rx->buf + rx->start;
    size_t l = ump_tcp_rx_head_len(rx);
    if (l > rx->max_frame || h[6] || h[7] || (h[5] & ~UMP_TCP_FLAGS)) return UMP_ERR_PROTOCOL;
    size_t whole = UMP_TCP_FRAME_HDR + l + ump_tcp_pad(l);
    if (have < whole) return 0;
    *am_id = h[4];
    *flags = h[5];
    *data = h + UMP_TCP_FRAME_HDR;
    *len = l;
    rx->start += whole;
    return 1;
}

/* --- send queue ---------------------------------------------------------- */

void ump_tcp_txq_init(ump_tcp_txq_t *q)
{
    memset(q, 0, sizeof(*q));
    q->rtail = &q->refs;
}

void ump_tcp_txq_fini(ump_tcp_txq_t *q)
{
    free(q->buf);
    while (q->refs) {
        ump_tcp_ref_t *r = q->refs;
        q->refs = r->next;
        free(r);
    }
    memset(q, 0, sizeof(*q));
    q->rtail = &q->refs;
}

int ump_tcp_txq_push_ref(ump_tcp_txq_t *q, const struct iovec *iov, int n, size_t skip)
{
    ump_tcp_ref_t *r = malloc(sizeof(*r) + (size_t)n * sizeof(r->iov[0]));
    if (!r) return UMP_ERR_NO_MEMORY;
    *r = (ump_tcp_ref_t){.pos = q->pushed, .n = n};
    for (int k = 0; k < n; k++) {
        r->iov[k] = iov[k];
        r->left += iov[k].iov_len;
    }
    r->left -= skip;
    while (r->i < n && skip >= r->iov[r->i].iov_len)
        skip -= r->iov[r->i++].iov_len;
    r->off = skip;
    *q->rtail = r;
    q->rtail = &r->next;
    q->ref_bytes += r->left;
    return UMP_OK;
}

int ump_tcp_txq_push(ump_tcp_txq_t *q, const struct iovec *iov, int n, size_t skip)
{
    size_t add = 0;
    for (int i = 0; i < n; i++)
        add += iov[i].iov_len;
    add -= skip;
    if (q->head == q->tail) q->head = q->tail = 0;
    if (q->cap - q->tail < add) {
        /* Slide down first: the queue is a FIFO, so the written prefix is
         * dead space. Grow only when that is not enough. */
        if (q->head) {
            memmove(q->buf, q->buf + q->head, q->tail - q->head);
            q->tail -= q->head;
            q->head = 0;
        }
        if (q->cap - q->tail < add) {
            size_t want = UMP_MAX(q->cap * 2, q->tail + add);
            want = UMP_MAX(want, (size_t)64 * 1024);
            uint8_t *nb = realloc(q->buf, want);
            if (!nb) return UMP_ERR_NO_MEMORY;
            q->buf = nb;
            q->cap = want;
        }
    }
    for (int i = 0; i < n; i++) {
        size_t l = iov[i].iov_len;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        memcpy(q->buf + q->tail, (const uint8_t *)iov[i].iov_base + skip, l - skip);
        q->tail += l - skip;
        skip = 0;
    }
    q->pushed += add;
    return UMP_OK;
}

uint8_t *ump_tcp_txq_reserve(ump_tcp_txq_t *q, size_t n)
{
    /* Slide or grow exactly like a push of n bytes, then hand out the room. */
    if (q->head == q->tail) q->head = q->tail = 0;
    if (q->cap - q->tail < n) {
        if (q->head) {
            memmove(q->buf, q->buf + q->head, q->tail - q->head);
            q->tail -= q->head;
            q->head = 0;
        }
        if (q->cap - q->tail < n) {
            size_t want = UMP_MAX(q->cap * 2, q->tail + n);
            want = UMP_MAX(want, (size_t)64 * 1024);
            uint8_t *nb = realloc(q->buf, want);
            if (!nb) return NULL;
            q->buf = nb;
            q->cap = want;
        }
    }
    uint8_t *p = q->buf + q->tail;
    q->tail += n;
    q->pushed += n;
    return p;
}

int ump_tcp_tx_send_ref(ump_tcp_txq_t *q, int fd, const struct iovec *iov, int n, size_t total,
                        int ref, int nref)
{
    size_t sent = 0;
    uint8_t b[UMP_TCP_GATHER_MAX];
    struct iovec one = {b, total};
    if (fd >= 0 && ump_tcp_txq_len(q) == 0) {
        /* A short frame goes out whole from one copy (queued from it too
         * if the socket does not take it all), with send(): no iovec for
         * the kernel to import. */
        if (total <= UMP_TCP_GATHER_MAX && !nref && n > 1) {
            uint8_t *p = b;
            for (int k = 0; k < n; k++) {
                memcpy(p, iov[k].iov_base, iov[k].iov_len);
                p += iov[k].iov_len;
            }
            iov = &one;
            n = ref = 1;
        }
        struct msghdr msg = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n};
        ssize_t r;
        do
            r = n == 1 ? send(fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL | MSG_DONTWAIT)
                       : sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        while (r < 0 && errno == EINTR);
        if (r < 0 && errno == EFAULT) return UMP_ERR_INVALID;
        if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return UMP_ERR_PEER_DEAD;
        if (r > 0) sent = (size_t)r;
        if (sent == total) return UMP_OK;
    }
    /* The copied entries before the referenced ones, the references, then
     * the copied rest; each part skips what the socket took of it. */
    size_t before = 0, mid = 0;
    for (int k = 0; k < ref; k++)
        before += iov[k].iov_len;
    for (int k = ref; k < ref + nref; k++)
        mid += iov[k].iov_len;
    int rc = UMP_OK;
    if (sent < before) rc = ump_tcp_txq_push(q, iov, ref, sent);
    if (!rc && nref && sent < before + mid)
        rc = ump_tcp_txq_push_ref(q, iov + ref, nref, sent > before ? sent - before : 0);
    if (!rc && ref + nref < n)
        rc = ump_tcp_txq_push(q, iov + ref + nref, n - ref - nref,
                              sent > before + mid ? sent - before - mid : 0);
    return rc;
}

/* Writes what the socket takes of reference r: 1 when all of it is out,
 * 0 when the socket is full, <0 on failure. */
static int ref_drain(ump_tcp_txq_t *q, ump_tcp_ref_t *r, int fd)
{
    while (r->left) {
        struct iovec v[UMP_TCP_MAX_IOV];
        int k = 0;
        for (int j = r->i; j < r->n && k < (int)UMP_ARRAY_SIZE(v); j++, k++) {
            size_t o = j == r->i ? r->off : 0;
            v[k] = (struct iovec){(char *)r->iov[j].iov_base + o, r->iov[j].iov_len - o};
        }
        struct msghdr msg = {.msg_iov = v, .msg_iovlen = (size_t)k};
        ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return errno == EFAULT ? UMP_ERR_INVALID : UMP_ERR_PEER_DEAD;
        }
        size_t t = (size_t)w;
        r->left -= t;
        q->ref_bytes -= t;
        while (t) {
            size_t room = r->iov[r->i].iov_len - r->off;
            if (t < room) {
                r->off += t;
                break;
            }
            t -= room;
            r->i++;
            r->off = 0;
        }
    }
    return 1;
}

ssize_t ump_tcp_tx_drain(ump_tcp_txq_t *q, int fd)
{
    ssize_t done = 0;
    for (;;) {
        ump_tcp_ref_t *ref = q->refs;
        if (ref && q->sent == ref->pos) {
            size_t before = ref->left;
            int r = ref_drain(q, ref, fd);
            done += (ssize_t)(before - ref->left);
            if (r < 0) return r;
            if (!r) break;
            q->refs = ref->next;
            if (!q->refs) q->rtail = &q->refs;
            free(ref);
            continue;
        }
        size_t avail = q->tail - q->head;
        if (ref && avail > ref->pos - q->sent) avail = (size_t)(ref->pos - q->sent);
        if (!avail) break;
        ssize_t r = send(fd, q->buf + q->head, avail, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR) /* interrupted before writing: try again */
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            return UMP_ERR_PEER_DEAD;
        }
        q->head += (size_t)r;
        q->sent += (uint64_t)r;
        done += r;
    }
    if (q->head == q->tail) {
        q->head = q->tail = 0;
        /* Give back a buffer that a burst blew up; keep a modest one. */
        if (q->cap > (size_t)1 << 20) {
            free(q->buf);
            q->buf = NULL;
            q->cap = 0;
        }
    }
    return done;
}
