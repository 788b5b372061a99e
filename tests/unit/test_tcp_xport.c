/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP transport through its ops table, with several "ranks" living in
 * this one process. The runtime is replaced by a test double defined below
 * (a shared table of published addresses): the linker then takes these
 * definitions and never pulls the real runtime out of the static library.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xport/tcp/tcp.h"

/* --- runtime double ------------------------------------------------------ */

#define NR 3

struct ump_rt {
    ump_rt_info_t info;
};
static char published[NR][64];

const ump_rt_info_t *ump_rt_info(const ump_rt_t *rt)
{
    return &rt->info;
}

int ump_rt_put(ump_rt_t *rt, const char *key, const void *val, size_t len)
{
    assert_string_equal(key, "tcp.addr");
    assert_true(len <= sizeof(published[0]));
    memcpy(published[rt->info.rank], val, len);
    return UMP_OK;
}

int ump_rt_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len)
{
    if (strcmp(key, "tcp.addr") || !published[rank][0]) return UMP_ERR_INVALID;
    size_t l = strlen(published[rank]) + 1;
    if (l > *len) return UMP_ERR_NO_RESOURCE;
    memcpy(val, published[rank], l);
    *len = l;
    return UMP_OK;
}

int ump_rt_local_addr(const ump_rt_t *rt, char *buf, size_t len)
{
    snprintf(buf, len, "127.0.0.1");
    return UMP_OK;
}

/* --- one rank ------------------------------------------------------------ */

enum { AM_DATA = 7, AM_ECHO = 9 };

typedef struct {
    uint32_t seq, len; /* len: payload bytes after this header */
} msg_hdr_t;

typedef struct rank_ctx {
    int rank;
    ump_rt_t rt;
    ump_xp_t *xp;
    unsigned sent[NR]; /* DATA AMs taken, per destination */
    unsigned got[NR];  /* DATA AMs received, per source */
    unsigned echo_sent[NR], echo_got[NR];
    int failed[NR]; /* peer_failed calls, per peer */
    unsigned bad;   /* wrong sequence or bytes */
    bool echo;      /* answer every 8th DATA from the handler */
    uint8_t *buf;
} rank_ctx_t;

static const uint8_t job_secret[UMP_RT_SECRET_LEN] = "0123456789abcdef";

static uint8_t pat(int src, int dst, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 17 + dst * 5 + seq * 131u + i * 7u + (i >> 9));
}

static void on_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data, size_t len)
{
    rank_ctx_t *c = arg;
    assert_ptr_equal(xp, c->xp);
    assert_true(peer >= 0 && peer < NR);
    assert_int_equal((uintptr_t)data % 8, 0); /* frames arrive aligned */
    assert_true(len >= sizeof(msg_hdr_t));
    msg_hdr_t h;
    memcpy(&h, data, sizeof(h));
    assert_int_equal(len, sizeof(h) + h.len);
    if (am_id == AM_ECHO) {
        if (h.seq != c->echo_got[peer]) c->bad++;
        c->echo_got[peer]++;
        return;
    }
    assert_int_equal(am_id, AM_DATA);
    if (h.seq != c->got[peer]) c->bad++;
    const uint8_t *b = (const uint8_t *)data + sizeof(h);
    for (size_t i = 0; i < h.len; i++)
        if (b[i] != pat(peer, c->rank, h.seq, i)) {
            c->bad++;
            break;
        }
    c->got[peer]++;
    /* Answer some from inside the handler: am_send is re-entrant. */
    if (c->echo && h.seq % 8 == 0) {
        msg_hdr_t e = {c->echo_sent[peer], 0};
        int rc = xp->ops->am_send(xp, peer, AM_ECHO, &e, sizeof(e), NULL, 0);
        if (rc == UMP_OK)
            c->echo_sent[peer]++;
        else
            assert_int_equal(rc, UMP_ERR_NO_RESOURCE);
    }
}

static void on_failed(void *arg, ump_xp_t *xp, int peer, int status)
{
    rank_ctx_t *c = arg;
    assert_int_equal(status, UMP_ERR_PEER_DEAD);
    c->failed[peer]++;
}

static void open_rank(rank_ctx_t *c, int rank, int size)
{
    memset(c, 0, sizeof(*c));
    c->rank = rank;
    c->rt.info.rank = rank;
    c->rt.info.size = size;
    c->rt.info.num_nodes = 1;
    memcpy(c->rt.info.secret, job_secret, UMP_RT_SECRET_LEN);
    ump_xp_params_t p = {&c->rt, on_am, on_failed, c};
    assert_int_equal(ump_xp_tcp_ops.open(&p, &c->xp), UMP_OK);
    assert_string_equal(c->xp->ops->name, "tcp");
    assert_true(c->xp->caps.reliable && c->xp->caps.ordered && !c->xp->caps.rma_get);
    assert_null(c->xp->ops->get);
    assert_true(c->xp->caps.max_am >= c->xp->caps.seg_size + 64);
    assert_int_equal(c->xp->caps.get_min, SIZE_MAX);
    c->buf = malloc(c->xp->caps.max_am);
    assert_non_null(c->buf);
}

static void close_rank(rank_ctx_t *c)
{
    if (c->xp) c->xp->ops->close(c->xp);
    c->xp = NULL;
    free(c->buf);
    c->buf = NULL;
}

static void progress_all(rank_ctx_t *r, int n)
{
    for (int i = 0; i < n; i++)
        if (r[i].xp) assert_true(r[i].xp->ops->progress(r[i].xp) >= 0);
}

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

/* Payload that fits whatever iov count send_data uses for seq. */
static size_t pick_len(rank_ctx_t *c)
{
    size_t max = c->xp->caps.max_am - sizeof(msg_hdr_t);
    size_t l;
    switch (rnd() % 4) {
    case 0:
        l = rnd() % 32;
        break;
    case 1:
        l = rnd() % 2000;
        break;
    case 2:
        l = max - rnd() % 64;
        break;
    default:
        l = rnd() % max;
        break;
    }
    return l;
}

/* Sends DATA AM number c->sent[dst] with `len` payload bytes split over 1-3
 * iovs; the buffer is scribbled over at once, as a caller may. */
static int send_exact(rank_ctx_t *c, int dst, size_t len)
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
        memset(c->buf, 0xa5, len); /* reuse at once is allowed */
        c->sent[dst]++;
    }
    return rc;
}

/*
 * Ranks 0 and 1 both send first before either progresses (simultaneous
 * connects), then stream `n` AMs of random sizes each way; rank 0 also
 * talks to itself. Every AM arrives once, in order, byte-exact.
 */
static void stream(size_t queue_max, size_t sockbuf, unsigned n)
{
    rank_ctx_t r[2];
    memset(published, 0, sizeof(published));
    open_rank(&r[0], 0, 2);
    open_rank(&r[1], 1, 2);
    for (int i = 0; i < 2; i++) {
        ump_tcp_xp_t *t = (ump_tcp_xp_t *)r[i].xp;
        t->queue_max = queue_max;
        t->sndbuf = t->rcvbuf = sockbuf;
        assert_int_equal(r[i].xp->ops->wireup(r[i].xp), UMP_OK);
        assert_true(r[i].xp->ops->reaches(r[i].xp, 1 - i));
        r[i].echo = true;
    }
    assert_int_equal(send_exact(&r[0], 1, 100), UMP_OK);
    assert_int_equal(send_exact(&r[1], 0, 100), UMP_OK);
    time_t t0 = time(NULL);
    unsigned pushed_back = 0;
    for (;;) {
        bool done = true;
        for (int i = 0; i < 2; i++) {
            int dst = 1 - i;
            if (r[i].sent[dst] < n) {
                done = false;
                size_t len = pick_len(&r[i]);
                int rc = send_exact(&r[i], dst, len);
                if (rc == UMP_ERR_NO_RESOURCE)
                    pushed_back++;
                else
                    assert_int_equal(rc, UMP_OK);
            }
            if (i == 0 && r[0].sent[0] < n / 4) {
                int rc = send_exact(&r[0], 0, rnd() % 5000);
                assert_true(rc == UMP_OK || rc == UMP_ERR_NO_RESOURCE);
            }
            if (r[1 - i].got[i] < n || r[i].echo_got[dst] < r[dst].echo_sent[i]) done = false;
        }
        if (r[0].got[0] < n / 4) done = false;
        if (done) break;
        progress_all(r, 2);
        if (time(NULL) - t0 > 40) {
            for (int i = 0; i < 2; i++) {
                ump_tcp_xp_t *t = (ump_tcp_xp_t *)r[i].xp;
                for (ump_tcp_conn_t *c = LIST_FIRST(&t->conns); c; c = LIST_NEXT(c, link)) {
                    int inq = 0, outq = 0;
                    ioctl(c->fd, FIONREAD, &inq);
                    ioctl(c->fd, TIOCOUTQ, &outq);
                    fprintf(stderr,
                            "rank %d conn peer %d out %d state %d ev %x txq %zu rx %zu/%zu start "
                            "%zu inq %d outq %d\n",
                            i, c->peer, c->outgoing, c->state, c->events, ump_tcp_txq_len(&c->txq),
                            ump_tcp_rx_pending(&c->rx), c->rx.cap, c->rx.start, inq, outq);
                }
            }
            fail_msg("stream stalled: 0->1 %u/%u, 1->0 %u/%u", r[1].got[0], r[0].sent[1],
                     r[0].got[1], r[1].sent[0]);
        }
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].bad, 0);
        assert_int_equal(r[i].failed[0] + r[i].failed[1], 0);
        assert_int_equal(r[1 - i].got[i], r[i].sent[1 - i]);
        assert_true(r[i].echo_sent[1 - i] > 0);
    }
    assert_int_equal(r[0].got[0], r[0].sent[0]);
    if (queue_max < 4096) assert_true(pushed_back > 0); /* the bound was really hit */
    /* Exactly one connection each way per pair, plus rank 0's own loop. */
    ump_tcp_xp_t *t0x = (ump_tcp_xp_t *)r[0].xp;
    assert_non_null(t0x->peers[1].out);
    assert_non_null(t0x->peers[1].in);
    assert_true(t0x->peers[1].out->outgoing && !t0x->peers[1].in->outgoing);
    int nconn = 0;
    for (ump_tcp_conn_t *c = LIST_FIRST(&t0x->conns); c; c = LIST_NEXT(c, link))
        nconn++;
    assert_int_equal(nconn, 4);

    /* flush, then a clean close of rank 1: never reported as a failure. */
    for (int k = 0; k < 100000; k++) {
        int a = r[0].xp->ops->flush(r[0].xp), b = r[1].xp->ops->flush(r[1].xp);
        if (a == UMP_OK && b == UMP_OK) break;
        assert_true(a >= 0 && b >= 0);
        progress_all(r, 2);
    }
    assert_int_equal(r[0].xp->ops->flush(r[0].xp), UMP_OK);
    close_rank(&r[1]);
    for (int k = 0; k < 50; k++) {
        progress_all(r, 1);
        usleep(1000);
    }
    assert_int_equal(r[0].failed[1], 0);
    assert_int_equal(
        r[0].xp->ops->am_send(r[0].xp, 1, AM_DATA, &(msg_hdr_t){0, 0}, sizeof(msg_hdr_t), NULL, 0),
        UMP_ERR_PEER_DEAD);
    close_rank(&r[0]);
}

static void test_stream_default(void **state)
{
    stream(4u << 20, 0, 400);
}

/* One AM queued at most, the smallest socket buffers: back-pressure everywhere. */
static void test_stream_pressure(void **state)
{
    stream(1, 4096, 150);
}

/* Connects a raw socket to rank 0 of `r` and writes `len` bytes. */
static int raw_connect(const char *addr, const void *bytes, size_t len)
{
    struct sockaddr_in sin;
    assert_int_equal(ump_tcp_parse_addr(addr, &sin), UMP_OK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    return fd;
}

/* Waits (progressing `r`) until the raw socket sees the far end close. */
static bool refused(rank_ctx_t *r, int fd)
{
    struct timeval tv = {0, 10000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (int k = 0; k < 300; k++) {
        progress_all(r, 1);
        char b;
        ssize_t n = recv(fd, &b, 1, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
        assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    }
    return false;
}

/* A hello followed by one DATA frame, as a connector would write them. */
static size_t hand_stream(uint8_t *out, int rank, int size, const uint8_t *secret)
{
    ump_tcp_hello_t h;
    ump_tcp_hello_encode(&h, rank, size, secret);
    memcpy(out, &h, sizeof(h));
    msg_hdr_t m = {0, 5};
    struct iovec in = {"hello", 5};
    struct iovec v[4];
    uint8_t fh[UMP_TCP_FRAME_HDR];
    size_t total, off = sizeof(h);
    int k = ump_tcp_frame_iov(fh, AM_DATA, 0, &m, sizeof(m), &in, 1, v, &total);
    for (int i = 0; i < k; i++) {
        memcpy(out + off, v[i].iov_base, v[i].iov_len);
        off += v[i].iov_len;
    }
    return off;
}

static void test_handshake(void **state)
{
    rank_ctx_t r;
    memset(published, 0, sizeof(published));
    open_rank(&r, 0, 2);
    uint8_t s[256];
    uint8_t wrong[UMP_RT_SECRET_LEN];
    memcpy(wrong, job_secret, sizeof(wrong));
    wrong[3] ^= 1;

    /* Wrong secret: closed, nothing delivered, nobody reported. */
    size_t l = hand_stream(s, 1, 2, wrong);
    int fd = raw_connect(published[0], s, l);
    assert_true(refused(&r, fd));
    close(fd);
    /* Wrong version. */
    l = hand_stream(s, 1, 2, job_secret);
    ((ump_tcp_hello_t *)s)->version = 99;
    fd = raw_connect(published[0], s, l);
    assert_true(refused(&r, fd));
    close(fd);
    /* Wrong job size. */
    l = hand_stream(s, 1, 3, job_secret);
    fd = raw_connect(published[0], s, l);
    assert_true(refused(&r, fd));
    close(fd);
    assert_int_equal(r.got[1], 0);
    assert_int_equal(r.failed[1], 0);

    /* The right hello, written a byte at a time: accepted, AM delivered. */
    l = hand_stream(s, 1, 2, job_secret);
    fd = raw_connect(published[0], s, 1);
    for (size_t i = 1; i < l; i++) {
        progress_all(&r, 1);
        assert_int_equal(write(fd, s + i, 1), 1);
    }
    for (int k = 0; k < 1000 && !r.got[1]; k++) {
        progress_all(&r, 1);
        usleep(1000);
    }
    assert_int_equal(r.got[1], 1);
    assert_int_equal(r.bad, 1); /* "hello" is not the test pattern: seen as such */

    /* A second connection claiming the same rank is refused. */
    int fd2 = raw_connect(published[0], s, l);
    assert_true(refused(&r, fd2));
    close(fd2);
    assert_int_equal(r.got[1], 1);

    /* The first one vanishes without a BYE: a crash, reported once. */
    close(fd);
    for (int k = 0; k < 1000 && !r.failed[1]; k++) {
        progress_all(&r, 1);
        usleep(1000);
    }
    progress_all(&r, 1);
    assert_int_equal(r.failed[1], 1);
    msg_hdr_t m = {0, 0};
    assert_int_equal(r.xp->ops->am_send(r.xp, 1, AM_DATA, &m, sizeof(m), NULL, 0),
                     UMP_ERR_PEER_DEAD);
    close_rank(&r);
}

/* Nothing listens at the peer's address: reported, then PEER_DEAD. */
static void test_connect_refused(void **state)
{
    rank_ctx_t r;
    memset(published, 0, sizeof(published));
    open_rank(&r, 0, 2);
    char addr[64];
    int lfd = ump_tcp_listen("127.0.0.1", addr, sizeof(addr));
    assert_true(lfd >= 0);
    close(lfd); /* a port that was free a moment ago */
    snprintf(published[1], sizeof(published[1]), "%s", addr);
    msg_hdr_t m = {0, 0};
    int rc = r.xp->ops->am_send(r.xp, 1, AM_DATA, &m, sizeof(m), NULL, 0);
    assert_true(rc == UMP_OK || rc == UMP_ERR_PEER_DEAD);
    for (int k = 0; k < 1000 && !r.failed[1]; k++) {
        progress_all(&r, 1);
        usleep(1000);
    }
    assert_int_equal(r.failed[1], 1);
    assert_int_equal(r.xp->ops->am_send(r.xp, 1, AM_DATA, &m, sizeof(m), NULL, 0),
                     UMP_ERR_PEER_DEAD);
    /* flush does not wait for a dead peer. */
    assert_int_equal(r.xp->ops->flush(r.xp), UMP_OK);
    close_rank(&r);
}

/* arm() says OK when idle; a send from the peer wakes wait_fd. */
static void test_sleep(void **state)
{
    rank_ctx_t r[2];
    memset(published, 0, sizeof(published));
    open_rank(&r[0], 0, 2);
    open_rank(&r[1], 1, 2);
    int fd = r[0].xp->ops->wait_fd(r[0].xp);
    assert_true(fd >= 0);
    assert_int_equal(r[0].xp->ops->arm(r[0].xp), UMP_OK);
    struct pollfd pfd = {fd, POLLIN, 0};
    assert_int_equal(poll(&pfd, 1, 50), 0); /* nothing to wake for */
    assert_int_equal(send_exact(&r[1], 0, 1000), UMP_OK);
    for (int k = 0; k < 200 && r[1].xp->ops->flush(r[1].xp) != UMP_OK; k++) {
        progress_all(&r[1], 1);
        usleep(1000);
    }
    /* Sleep until the data (or the connection) arrives, progress, repeat. */
    for (int k = 0; k < 20 && !r[0].got[1]; k++) {
        if (r[0].xp->ops->arm(r[0].xp) == UMP_OK) assert_int_equal(poll(&pfd, 1, 2000), 1);
        progress_all(&r[0], 1);
    }
    assert_int_equal(r[0].got[1], 1);
    assert_int_equal(r[0].bad, 0);
    /* Drained: it may sleep again. */
    assert_int_equal(r[0].xp->ops->arm(r[0].xp), UMP_OK);
    close_rank(&r[1]);
    close_rank(&r[0]);
}

static void test_bad_args(void **state)
{
    rank_ctx_t r;
    memset(published, 0, sizeof(published));
    open_rank(&r, 0, 2);
    msg_hdr_t m = {0, 0};
    assert_int_equal(r.xp->ops->am_send(r.xp, 2, AM_DATA, &m, sizeof(m), NULL, 0), UMP_ERR_INVALID);
    assert_int_equal(r.xp->ops->am_send(r.xp, -1, AM_DATA, &m, sizeof(m), NULL, 0),
                     UMP_ERR_INVALID);
    struct iovec big = {r.buf, r.xp->caps.max_am};
    assert_int_equal(r.xp->ops->am_send(r.xp, 0, AM_DATA, &m, sizeof(m), &big, 1), UMP_ERR_INVALID);
    assert_false(r.xp->ops->reaches(r.xp, 2));
    close_rank(&r);
}

int main(void)
{
    alarm(55); /* a hang fails the test instead of waiting for ctest */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_default), cmocka_unit_test(test_stream_pressure),
        cmocka_unit_test(test_handshake),      cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_sleep),          cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
