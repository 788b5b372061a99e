/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the tcp transport's unit tests share (test_tcp_xport.c,
 * test_tcp_auth.c): a rank of the real runtime with the transport open on
 * it, its AM handler (DATA AMs carry a sequence number and a pattern the
 * handler checks byte for byte; some are answered from the handler),
 * CHECK, which fails a cmocka test or ends a rank under umprun with
 * status 1, and raw sockets that play a connector by hand.
 */
#ifndef UMP_TEST_TCP_XPORT_COMMON_H
#define UMP_TEST_TCP_XPORT_COMMON_H

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xport/tcp/tcp.h"

/* In a cmocka test a failed check fails the test; in a rank under umprun
 * it ends the rank with status 1, which fails the job. */
static bool under_cmocka = true;
static inline void check_failed(const char *file, int line, const char *what)
{
    if (under_cmocka) fail_msg("line %d: check failed: %s", line, what);
    fprintf(stderr, "%s line %d: check failed: %s\n", file, line, what);
    exit(1);
}
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (!(x)) check_failed(__FILE__, __LINE__, #x);                                            \
    } while (0)

#define NR_MAX 4

enum { AM_DATA = 7, AM_ECHO = 9, AM_DONE = 11 };

typedef struct {
    uint32_t seq, len; /* len: payload bytes after this header */
} msg_hdr_t;

typedef struct rank_ctx {
    int rank, size;
    ump_rt_t *rt;
    ump_xp_t *xp;
    unsigned sent[NR_MAX]; /* DATA AMs taken, per destination */
    unsigned got[NR_MAX];  /* DATA AMs received, per source */
    unsigned echo_sent[NR_MAX], echo_got[NR_MAX], done_got[NR_MAX];
    unsigned echo_owed[NR_MAX]; /* echoes a handler could not send yet */
    int failed[NR_MAX]; /* peer_failed calls, per peer */
    unsigned bad;       /* wrong sequence or bytes */
    bool echo;          /* answer every 8th DATA, from the handler if it can */
    uint8_t *buf;
} rank_ctx_t;

static inline uint8_t pat(int src, int dst, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 17 + dst * 5 + seq * 131u + i * 7u + (i >> 9));
}

/* One ECHO AM to `peer`, numbered in sending order. */
static inline int echo_send(rank_ctx_t *c, int peer)
{
    msg_hdr_t e = {c->echo_sent[peer], 0};
    int rc = c->xp->ops->am_send(c->xp, peer, AM_ECHO, &e, sizeof(e), NULL, 0);
    if (rc == UMP_OK)
        c->echo_sent[peer]++;
    else
        CHECK(rc == UMP_ERR_NO_RESOURCE);
    return rc;
}

static inline void on_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data,
                         size_t len)
{
    rank_ctx_t *c = arg;
    CHECK(xp == c->xp);
    CHECK(peer >= 0 && peer < c->size);
    CHECK((uintptr_t)data % 8 == 0); /* frames arrive aligned */
    CHECK(len >= sizeof(msg_hdr_t));
    msg_hdr_t h;
    memcpy(&h, data, sizeof(h));
    CHECK(len == sizeof(h) + h.len);
    if (am_id == AM_DONE) {
        c->done_got[peer]++;
        return;
    }
    if (am_id == AM_ECHO) {
        if (h.seq != c->echo_got[peer]) c->bad++;
        c->echo_got[peer]++;
        return;
    }
    CHECK(am_id == AM_DATA);
    if (h.seq != c->got[peer]) c->bad++;
    const uint8_t *b = (const uint8_t *)data + sizeof(h);
    for (size_t i = 0; i < h.len; i++)
        if (b[i] != pat(peer, c->rank, h.seq, i)) {
            c->bad++;
            break;
        }
    c->got[peer]++;
    /* Answer some from inside the handler: am_send is re-entrant. One the
     * queue's bound refuses is owed, and sent later outside the handler. */
    if (c->echo && h.seq % 8 == 0) {
        if (c->echo_owed[peer] || echo_send(c, peer) == UMP_ERR_NO_RESOURCE) c->echo_owed[peer]++;
    }
}

static inline void on_failed(void *arg, ump_xp_t *xp, int peer, int status)
{
    rank_ctx_t *c = arg;
    CHECK(status == UMP_ERR_PEER_DEAD);
    c->failed[peer]++;
}

static inline void open_rank(rank_ctx_t *c)
{
    memset(c, 0, sizeof(*c));
    CHECK(ump_rt_init(&c->rt) == UMP_OK);
    c->rank = ump_rt_info(c->rt)->rank;
    c->size = ump_rt_info(c->rt)->size;
    CHECK(c->size <= NR_MAX);
    ump_xp_params_t p = {c->rt, on_am, on_failed, c};
    CHECK(ump_xp_tcp_ops.open(&p, &c->xp) == UMP_OK);
    CHECK(strcmp(c->xp->ops->name, "tcp") == 0);
    CHECK(c->xp->caps.reliable && c->xp->caps.ordered && c->xp->caps.rma_get);
    CHECK(c->xp->ops->get != NULL && !c->xp->caps.mr_required);
    CHECK(c->xp->caps.max_am >= c->xp->caps.seg_size + 64);
    CHECK(c->xp->caps.get_min == (getenv("UMP_TCP_GET_MIN") ? c->xp->caps.get_min : 512 << 10));
    CHECK(ump_rt_fence(c->rt) == UMP_OK);
    CHECK(c->xp->ops->wireup(c->xp) == UMP_OK);
    c->buf = malloc(c->xp->caps.max_am);
    CHECK(c->buf != NULL);
}

static inline void close_xp(rank_ctx_t *c)
{
    if (c->xp) c->xp->ops->close(c->xp);
    c->xp = NULL;
}

static inline void close_rank(rank_ctx_t *c)
{
    close_xp(c);
    ump_rt_fini(c->rt);
    free(c->buf);
    c->buf = NULL;
}

static inline void progress(rank_ctx_t *c)
{
    CHECK(c->xp->ops->progress(c->xp) >= 0);
}

/* Sends DATA AM number c->sent[dst] with `len` payload bytes split over 1-3
 * iovs; the buffer is scribbled over at once, as a caller may. */
static inline int send_data(rank_ctx_t *c, int dst, size_t len)
{
    uint32_t seq = c->sent[dst];
    for (size_t i = 0; i < len; i++)
        c->buf[i] = pat(c->rank, dst, seq, i);
    msg_hdr_t h = {seq, (uint32_t)len};
    int n = 1 + (int)(seq % 3);
    struct iovec v[3];
    size_t a = len / n, off = 0;
    for (int i = 0; i < n; i++) {
        size_t l = i == n - 1 ? len - off : a;
        v[i] = (struct iovec){c->buf + off, l};
        off += l;
    }
    int rc = c->xp->ops->am_send(c->xp, dst, AM_DATA, &h, sizeof(h), v, n);
    if (rc == UMP_OK) {
        memset(c->buf, 0xa5, len);
        c->sent[dst]++;
    }
    return rc;
}

/* --- raw sockets: a connector or acceptor written by hand --------------- */

/* Connects a raw socket to `addr` and writes `len` bytes. */
static inline int raw_connect(const char *addr, const void *bytes, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    CHECK(ump_tcp_parse_addr(addr, &ss, &sl) == UMP_OK);
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    CHECK(connect(fd, (struct sockaddr *)&ss, sl) == 0);
    CHECK(write(fd, bytes, len) == (ssize_t)len);
    return fd;
}

/* Waits (progressing c) until the raw socket sees the far end close; what
 * it reads before (a challenge) is dropped. */
static inline bool refused(rank_ctx_t *c, int fd)
{
    struct timeval tv = {0, 10000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (int k = 0; k < 300; k++) {
        progress(c);
        char b[128];
        ssize_t n = recv(fd, b, sizeof(b), 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
        CHECK(n > 0 || errno == EAGAIN || errno == EWOULDBLOCK);
    }
    return false;
}

/* Reads exactly n bytes from a raw socket, progressing c meanwhile. */
static inline bool raw_read(rank_ctx_t *c, int fd, void *buf, size_t n)
{
    size_t got = 0;
    for (int k = 0; k < 3000 && got < n; k++) {
        if (c) progress(c);
        ssize_t r = recv(fd, (uint8_t *)buf + got, n - got, MSG_DONTWAIT);
        if (r == 0) return false;
        if (r > 0)
            got += (size_t)r;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            usleep(1000);
        else
            return false;
    }
    return got == n;
}

/* One DATA frame as a connector writes it after the handshake. */
static inline size_t data_frame(uint8_t *out)
{
    msg_hdr_t m = {0, 5};
    struct iovec in = {"hello", 5};
    struct iovec v[4];
    uint8_t fh[UMP_TCP_FRAME_HDR];
    size_t total, off = 0;
    int k = ump_tcp_frame_iov(fh, AM_DATA, 0, &m, sizeof(m), &in, 1, v, &total);
    for (int i = 0; i < k; i++) {
        memcpy(out + off, v[i].iov_base, v[i].iov_len);
        off += v[i].iov_len;
    }
    return off;
}

/*
 * A connector's handshake by hand, as rank `rank` of `size` proving with
 * `key`, to the acceptor rank `to` at addr; then one DATA frame. Every byte
 * written is kept in rec (*rec_len), the acceptor's challenge in *ch.
 * `step`: write a byte at a time. Returns the socket.
 */
static inline int raw_handshake(rank_ctx_t *c, const char *addr, int rank, int size, int to,
                                const uint8_t *key, bool step, uint8_t *rec, size_t *rec_len,
                                ump_tcp_challenge_t *ch)
{
    uint8_t nc[UMP_AUTH_NONCE_LEN], extra[24];
    CHECK(ump_auth_nonce(nc) == 0);
    ump_tcp_hello_t h;
    const uint8_t *job = ((ump_tcp_xp_t *)c->xp)->job;
    ump_tcp_hello_encode(&h, job, rank, size, nc);
    memcpy(rec, &h, sizeof(h));
    int fd = raw_connect(addr, rec, step ? 1 : sizeof(h));
    for (size_t i = 1; step && i < sizeof(h); i++) {
        progress(c);
        CHECK(write(fd, rec + i, 1) == 1);
    }
    CHECK(raw_read(c, fd, ch, sizeof(*ch)));
    ump_auth_ctx_t ctx = ump_tcp_auth_ctx(key, nc, ch->nonce, job, rank, job, to, extra);
    size_t n = sizeof(h);
    CHECK(ump_auth_mac(rec + n, &ctx, UMP_AUTH_CONNECTOR) == 0);
    n += UMP_TCP_PROOF_LEN;
    n += data_frame(rec + n);
    for (size_t i = sizeof(h); i < n; i += step ? 1 : n - i) {
        if (step) progress(c);
        size_t k = step ? 1 : n - i;
        CHECK(write(fd, rec + i, k) == (ssize_t)k);
    }
    *rec_len = n;
    return fd;
}

static inline void my_addr(rank_ctx_t *c, int rank, char *addr, size_t len)
{
    size_t l = len - 1;
    CHECK(ump_rt_get(c->rt, rank, "tcp.addr", addr, &l) == UMP_OK);
    addr[l] = '\0';
}

#endif
