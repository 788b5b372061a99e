/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP transport through its ops table and the real runtime.
 *
 * In-process cases run as a singleton job (rank 0 of 1): rank 0 streams to
 * itself over a real connection to its own listener, and raw sockets play
 * the part of other connectors (wrong secret, wrong version, a crash).
 *
 * The two-rank cases start this same program under umprun
 * (`umprun -n 2 test_tcp_xport --rank MODE`): both ranks send first at the
 * same moment (or, in "reply" mode, rank 1 answers rank 0's first AM on
 * the connection rank 0 opened), then stream AMs of random sizes both ways
 * (over one socket in "reply" mode); rank 1 also tries
 * a connection with a wrong secret, which rank 0 must refuse; at the end
 * rank 1 closes cleanly and rank 0 must not take that for a failure.
 */
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
static void check_failed(int line, const char *what)
{
    if (under_cmocka) fail_msg("line %d: check failed: %s", line, what);
    fprintf(stderr, "test_tcp_xport line %d: check failed: %s\n", line, what);
    exit(1);
}
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (!(x)) check_failed(__LINE__, #x);                                                      \
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
    int failed[NR_MAX]; /* peer_failed calls, per peer */
    unsigned bad;       /* wrong sequence or bytes */
    bool echo;          /* answer every 8th DATA from the handler */
    uint8_t *buf;
} rank_ctx_t;

static uint8_t pat(int src, int dst, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 17 + dst * 5 + seq * 131u + i * 7u + (i >> 9));
}

static void on_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data, size_t len)
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
    /* Answer some from inside the handler: am_send is re-entrant. */
    if (c->echo && h.seq % 8 == 0) {
        msg_hdr_t e = {c->echo_sent[peer], 0};
        int rc = xp->ops->am_send(xp, peer, AM_ECHO, &e, sizeof(e), NULL, 0);
        if (rc == UMP_OK)
            c->echo_sent[peer]++;
        else
            CHECK(rc == UMP_ERR_NO_RESOURCE);
    }
}

static void on_failed(void *arg, ump_xp_t *xp, int peer, int status)
{
    rank_ctx_t *c = arg;
    CHECK(status == UMP_ERR_PEER_DEAD);
    c->failed[peer]++;
}

static void open_rank(rank_ctx_t *c)
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

static void close_xp(rank_ctx_t *c)
{
    if (c->xp) c->xp->ops->close(c->xp);
    c->xp = NULL;
}

static void close_rank(rank_ctx_t *c)
{
    close_xp(c);
    ump_rt_fini(c->rt);
    free(c->buf);
    c->buf = NULL;
}

static void progress(rank_ctx_t *c)
{
    CHECK(c->xp->ops->progress(c->xp) >= 0);
}

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

/* Mostly tiny or full-size AMs, the rest anywhere in between. */
static size_t pick_len(rank_ctx_t *c)
{
    size_t max = c->xp->caps.max_am - sizeof(msg_hdr_t);
    switch (rnd() % 4) {
    case 0:
        return rnd() % 32;
    case 1:
        return rnd() % 2000;
    case 2:
        return max - rnd() % 64;
    default:
        return rnd() % max;
    }
}

/* Sends DATA AM number c->sent[dst] with `len` payload bytes split over 1-3
 * iovs; the buffer is scribbled over at once, as a caller may. */
static int send_data(rank_ctx_t *c, int dst, size_t len)
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

/*
 * This rank streams `n` DATA AMs to `dst` (itself, or the other rank) while
 * `dst` does the same back; then each sends DONE, which, AMs being ordered,
 * arrives after everything else the peer sent. Returns with every queue
 * flushed. The first AM goes out before any progress() call.
 */
static void stream(rank_ctx_t *c, int dst, unsigned n)
{
    time_t t0 = time(NULL);
    unsigned pushed_back = 0;
    bool done_sent = false;
    c->echo = true;
    for (;;) {
        if (c->sent[dst] < n) {
            int rc = send_data(c, dst, pick_len(c));
            if (rc == UMP_ERR_NO_RESOURCE)
                pushed_back++;
            else
                CHECK(rc == UMP_OK);
        }
        if (!done_sent && c->sent[dst] == n && c->got[dst] == n) {
            msg_hdr_t h = {0, 0};
            int rc = c->xp->ops->am_send(c->xp, dst, AM_DONE, &h, sizeof(h), NULL, 0);
            CHECK(rc == UMP_OK || rc == UMP_ERR_NO_RESOURCE);
            done_sent = rc == UMP_OK;
        }
        if (done_sent && c->done_got[dst] && c->xp->ops->flush(c->xp) == UMP_OK) break;
        progress(c);
        if (time(NULL) - t0 > 40) {
            fprintf(stderr, "rank %d stalled: sent %u got %u done %d/%u\n", c->rank, c->sent[dst],
                    c->got[dst], done_sent, c->done_got[dst]);
            CHECK(!"stream stalled");
        }
    }
    CHECK(c->bad == 0);
    CHECK(c->failed[dst] == 0);
    CHECK(c->got[dst] == n && c->done_got[dst] == 1);
    CHECK(c->echo_sent[dst] > 0 && c->echo_got[dst] > 0);
    if (c->xp->caps.max_am > ((ump_tcp_xp_t *)c->xp)->queue_max) CHECK(pushed_back > 0);
}

/* The sockets to `dst` after a stream: one each way when both ends sent
 * first at once (or the peer is this rank), else the one `dst` opened, or
 * this rank opened, carrying both ways (tcp.h, channel rule). */
static void check_sockets(rank_ctx_t *c, int dst, bool shared)
{
    ump_tcp_xp_t *t = (ump_tcp_xp_t *)c->xp;
    ump_tcp_conn_t *out = t->peers[dst].out, *in = t->peers[dst].in;
    CHECK(out != NULL);
    if (!shared) {
        CHECK(in != NULL && out != in);
        CHECK(out->outgoing && !in->outgoing);
    } else if (out->outgoing) {
        CHECK(in == NULL);
    } else {
        CHECK(in == out);
    }
}

/* --- in-process cases (singleton job) ------------------------------------ */

static void test_self_stream(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    stream(&c, 0, 300);
    check_sockets(&c, 0, false);
    close_rank(&c);
}

/* One AM queued at most, the smallest socket buffers: every am_send past
 * the first meets back-pressure, and handlers still send. */
static void test_self_pressure(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    ump_tcp_xp_t *t = (ump_tcp_xp_t *)c.xp;
    t->queue_max = 1;
    t->sndbuf = t->rcvbuf = 4096;
    stream(&c, 0, 150);
    check_sockets(&c, 0, false);
    close_rank(&c);
}

/* --- get ------------------------------------------------------------------ */

static int got_status = 1;
static void note_status(ump_xp_comp_t *comp, int status)
{
    got_status = status;
}

/* get() of this process's own memory over its loopback connection, then
 * a request naming memory the serving side does not have (address 16):
 * the server logs it and drops the connection, the get fails with
 * PEER_DEAD from progress, the peer is reported once; nothing crashes. */
static void test_self_get(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    size_t n = 300000 + 5;
    uint8_t *src = malloc(n), *dst = malloc(n);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < n; i++)
        src[i] = pat(0, 0, 3, i);
    memset(dst, 0, n);
    ump_xp_comp_t comp = {.count = 1, .status = UMP_OK, .cb = note_status};
    struct iovec lv = {dst, n};
    ump_riov_t rv[2] = {{(uintptr_t)src, 1000}, {(uintptr_t)src + 1000, n - 1000}};
    assert_int_equal(c.xp->ops->get(c.xp, 0, &lv, 1, NULL, rv, 2, NULL, &comp), UMP_INPROGRESS);
    for (int k = 0; k < 5000 && comp.count; k++)
        progress(&c);
    assert_int_equal(comp.count, 0);
    assert_int_equal(got_status, UMP_OK);
    assert_memory_equal(src, dst, n);
    /* Unequal sides, too many pieces: refused at once. */
    ump_riov_t one = {(uintptr_t)src, n - 1};
    assert_int_equal(c.xp->ops->get(c.xp, 0, &lv, 1, NULL, &one, 1, NULL, &comp), UMP_ERR_INVALID);
    assert_int_equal(c.xp->ops->get(c.xp, 0, &lv, 1, NULL, rv, UMP_TCP_MAX_IOV + 1, NULL, &comp),
                     UMP_ERR_INVALID);

    got_status = 1;
    comp = (ump_xp_comp_t){.count = 1, .status = UMP_OK, .cb = note_status};
    ump_riov_t bad = {16, 4096};
    struct iovec bv = {dst, 4096};
    assert_int_equal(c.xp->ops->get(c.xp, 0, &bv, 1, NULL, &bad, 1, NULL, &comp), UMP_INPROGRESS);
    for (int k = 0; k < 5000 && (comp.count || !c.failed[0]); k++) {
        progress(&c);
        usleep(100);
    }
    assert_int_equal(comp.count, 0);
    assert_int_equal(got_status, UMP_ERR_PEER_DEAD);
    assert_int_equal(c.failed[0], 1);
    assert_int_equal(c.xp->ops->get(c.xp, 0, &lv, 1, NULL, rv, 2, NULL, &comp), UMP_ERR_PEER_DEAD);
    free(src);
    free(dst);
    close_rank(&c);
}

/* Connects a raw socket to `addr` and writes `len` bytes. */
static int raw_connect(const char *addr, const void *bytes, size_t len)
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
static bool refused(rank_ctx_t *c, int fd)
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
static bool raw_read(rank_ctx_t *c, int fd, void *buf, size_t n)
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
static size_t data_frame(uint8_t *out)
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
static int raw_handshake(rank_ctx_t *c, const char *addr, int rank, int size, int to,
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

static void my_addr(rank_ctx_t *c, int rank, char *addr, size_t len)
{
    size_t l = len - 1;
    CHECK(ump_rt_get(c->rt, rank, "tcp.addr", addr, &l) == UMP_OK);
    addr[l] = '\0';
}

/* A genuine challenge of this program's listener, for the fake acceptor. */
static ump_tcp_challenge_t genuine_challenge;

static void test_handshake(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    ump_tcp_xp_t *t = (ump_tcp_xp_t *)c.xp;
    const uint8_t *secret = ump_rt_info(c.rt)->secret;
    char addr[64];
    my_addr(&c, 0, addr, sizeof(addr));
    uint8_t s[512], rec[512];
    size_t l, rec_len;
    uint8_t wrong[UMP_RT_SECRET_LEN];
    memcpy(wrong, secret, sizeof(wrong));
    wrong[3] ^= 1;
    ump_tcp_challenge_t ch;

    /* Wrong secret: the acceptor's proof does not check with it (it does
     * with the right one), our proof is refused, the connection closed,
     * nothing delivered, nobody reported. */
    int fd = raw_handshake(&c, addr, 0, 1, 0, wrong, false, s, &l, &ch);
    assert_int_equal(le32toh(ch.rank), 0);
    assert_true(refused(&c, fd));
    close(fd);
    assert_int_equal(t->auth_refused, 1);
    /* Wrong version: closed at the hello, no challenge. */
    uint8_t nc[UMP_AUTH_NONCE_LEN] = {0};
    ump_tcp_hello_t h;
    ump_tcp_hello_encode(&h, t->job, 0, 1, nc);
    h.version = 99;
    fd = raw_connect(addr, &h, sizeof(h));
    assert_true(refused(&c, fd));
    close(fd);
    /* Wrong job size, and a rank outside the job. */
    ump_tcp_hello_encode(&h, t->job, 0, 2, nc);
    fd = raw_connect(addr, &h, sizeof(h));
    assert_true(refused(&c, fd));
    close(fd);
    ump_tcp_hello_encode(&h, t->job, 1, 1, nc);
    fd = raw_connect(addr, &h, sizeof(h));
    assert_true(refused(&c, fd));
    close(fd);
    assert_int_equal(t->auth_refused, 1);
    assert_int_equal(c.got[0], 0);
    assert_int_equal(c.failed[0], 0);

    /* The right handshake, written a byte at a time: accepted, AM delivered. */
    fd = raw_handshake(&c, addr, 0, 1, 0, secret, true, rec, &rec_len, &genuine_challenge);
    uint8_t extra[24];
    ump_auth_ctx_t ctx = ump_tcp_auth_ctx(secret, rec + offsetof(ump_tcp_hello_t, nonce),
                                          genuine_challenge.nonce, t->job, 0, t->job, 0, extra);
    assert_true(ump_auth_check(genuine_challenge.proof, &ctx, UMP_AUTH_ACCEPTOR));
    ctx.key = wrong;
    assert_false(ump_auth_check(genuine_challenge.proof, &ctx, UMP_AUTH_ACCEPTOR));
    for (int k = 0; k < 1000 && !c.got[0]; k++) {
        progress(&c);
        usleep(1000);
    }
    assert_int_equal(c.got[0], 1);
    assert_int_equal(c.bad, 1); /* "hello" is not the test pattern: seen as such */

    /* Its bytes replayed on a new connection: the acceptor's nonce is new,
     * so the recorded proof fails; nothing delivered. */
    int fd2 = raw_connect(addr, rec, rec_len);
    assert_true(refused(&c, fd2));
    close(fd2);
    assert_int_equal(t->auth_refused, 2);
    assert_int_equal(c.got[0], 1);

    /* A second genuine connection claiming the same rank is refused. */
    fd2 = raw_handshake(&c, addr, 0, 1, 0, secret, false, s, &l, &ch);
    assert_true(refused(&c, fd2));
    close(fd2);
    assert_int_equal(c.got[0], 1);
    assert_int_equal(t->auth_refused, 2);

    /* The first one vanishes without a BYE: a crash, reported once. */
    close(fd);
    for (int k = 0; k < 1000 && !c.failed[0]; k++) {
        progress(&c);
        usleep(1000);
    }
    progress(&c);
    assert_int_equal(c.failed[0], 1);
    msg_hdr_t m = {0, 0};
    assert_int_equal(c.xp->ops->am_send(c.xp, 0, AM_DATA, &m, sizeof(m), NULL, 0),
                     UMP_ERR_PEER_DEAD);
    assert_int_equal(c.xp->ops->flush(c.xp), UMP_OK);
    close_rank(&c);
}

/*
 * A fake acceptor at rank 0's published address: it reads the hello and
 * answers with a challenge whose proof is made without the job secret, or
 * with a genuine challenge recorded from another handshake (a replay). The
 * connector must refuse it, report the peer, and send it nothing after the
 * hello: no proof, no AM.
 */
static void test_fake_acceptor(void **state)
{
    assert_int_not_equal(genuine_challenge.magic, 0); /* test_handshake ran first */
    for (int variant = 0; variant < 2; variant++) {
        rank_ctx_t c;
        open_rank(&c);
        ump_tcp_xp_t *t = (ump_tcp_xp_t *)c.xp;
        char addr[64];
        int lfd = ump_tcp_listen("127.0.0.1", addr, sizeof(addr));
        assert_true(lfd >= 0);
        assert_int_equal(ump_rt_put(c.rt, "tcp.addr", addr, strlen(addr) + 1), UMP_OK);
        assert_int_equal(send_data(&c, 0, 1000), UMP_OK);
        int fd = -1;
        for (int k = 0; k < 2000 && fd < 0; k++) {
            progress(&c);
            fd = accept(lfd, NULL, NULL); /* non-blocking listener */
            if (fd < 0) usleep(1000);
        }
        assert_true(fd >= 0);
        ump_tcp_hello_t h;
        assert_true(raw_read(&c, fd, &h, sizeof(h)));
        int rank = -1;
        const uint8_t *job = ((ump_tcp_xp_t *)c.xp)->job;
        assert_int_equal(ump_tcp_hello_check(&h, job, 1, &rank), UMP_OK);
        ump_tcp_challenge_t ch = genuine_challenge;
        if (variant == 0) {
            uint8_t key[UMP_RT_SECRET_LEN] = "not-the-secret!", extra[24];
            assert_int_equal(ump_auth_nonce(ch.nonce), 0);
            ump_auth_ctx_t ctx = ump_tcp_auth_ctx(key, h.nonce, ch.nonce, job, 0, job, 0, extra);
            assert_int_equal(ump_auth_mac(ch.proof, &ctx, UMP_AUTH_ACCEPTOR), 0);
        }
        assert_int_equal(write(fd, &ch, sizeof(ch)), (ssize_t)sizeof(ch));
        for (int k = 0; k < 2000 && !c.failed[0]; k++) {
            progress(&c);
            usleep(1000);
        }
        assert_int_equal(c.failed[0], 1);
        assert_int_equal(t->auth_refused, 1);
        /* Closed with nothing more written: EOF right away. */
        uint8_t b[64];
        ssize_t n = -1;
        for (int k = 0; k < 2000; k++) {
            n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
            if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) break;
            usleep(1000);
        }
        assert_int_equal(n, 0);
        assert_int_equal(c.got[0], 0);
        close(fd);
        close(lfd);
        close_rank(&c);
    }
}

/* Nothing listens at the peer's address: reported, then PEER_DEAD. */
static void test_connect_refused(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    char addr[64];
    int lfd = ump_tcp_listen("127.0.0.1", addr, sizeof(addr));
    assert_true(lfd >= 0);
    close(lfd); /* a port that was free a moment ago */
    /* A later put replaces the transport's own address. */
    assert_int_equal(ump_rt_put(c.rt, "tcp.addr", addr, strlen(addr) + 1), UMP_OK);
    msg_hdr_t m = {0, 0};
    int rc = c.xp->ops->am_send(c.xp, 0, AM_DATA, &m, sizeof(m), NULL, 0);
    assert_true(rc == UMP_OK || rc == UMP_ERR_PEER_DEAD);
    for (int k = 0; k < 1000 && !c.failed[0]; k++) {
        progress(&c);
        usleep(1000);
    }
    assert_int_equal(c.failed[0], 1);
    assert_int_equal(c.xp->ops->am_send(c.xp, 0, AM_DATA, &m, sizeof(m), NULL, 0),
                     UMP_ERR_PEER_DEAD);
    /* flush does not wait for a dead peer. */
    assert_int_equal(c.xp->ops->flush(c.xp), UMP_OK);
    close_rank(&c);
}

/* arm() says OK when idle; an arriving AM wakes wait_fd. */
static void test_sleep(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    int fd = c.xp->ops->wait_fd(c.xp);
    assert_true(fd >= 0);
    assert_int_equal(c.xp->ops->arm(c.xp), UMP_OK);
    struct pollfd pfd = {fd, POLLIN, 0};
    assert_int_equal(poll(&pfd, 1, 50), 0); /* nothing to wake for */
    assert_int_equal(send_data(&c, 0, 1000), UMP_OK);
    /* Pending work (the connect under way): arm refuses to sleep. */
    assert_int_equal(c.xp->ops->arm(c.xp), UMP_ERR_BUSY);
    for (int k = 0; k < 50 && !c.got[0]; k++) {
        if (c.xp->ops->arm(c.xp) == UMP_OK) assert_int_equal(poll(&pfd, 1, 2000), 1);
        progress(&c);
    }
    assert_int_equal(c.got[0], 1);
    assert_int_equal(c.bad, 0);
    /* Drained: it may sleep again, and nothing wakes it. */
    for (int k = 0; k < 10 && c.xp->ops->arm(c.xp) != UMP_OK; k++)
        progress(&c);
    assert_int_equal(c.xp->ops->arm(c.xp), UMP_OK);
    assert_int_equal(poll(&pfd, 1, 20), 0);
    close_rank(&c);
}

static void test_bad_args(void **state)
{
    rank_ctx_t c;
    open_rank(&c);
    msg_hdr_t m = {0, 0};
    assert_int_equal(c.xp->ops->am_send(c.xp, 1, AM_DATA, &m, sizeof(m), NULL, 0), UMP_ERR_INVALID);
    assert_int_equal(c.xp->ops->am_send(c.xp, -1, AM_DATA, &m, sizeof(m), NULL, 0),
                     UMP_ERR_INVALID);
    struct iovec big = {c.buf, c.xp->caps.max_am};
    assert_int_equal(c.xp->ops->am_send(c.xp, 0, AM_DATA, &m, sizeof(m), &big, 1), UMP_ERR_INVALID);
    assert_false(c.xp->ops->reaches(c.xp, 1));
    assert_true(c.xp->ops->reaches(c.xp, 0));
    close_rank(&c);
}

/* --- two ranks under umprun ---------------------------------------------- */

static char self_path[PATH_MAX];

/* Runs this program as a two-rank job in `mode`; returns its exit status. */
static int run_job(const char *mode)
{
    char umprun[PATH_MAX + 32];
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", self_path);
    snprintf(umprun, sizeof(umprun), "%s/../bin/umprun", dirname(dir));
    if (access(umprun, X_OK)) fail_msg("no launcher at %s", umprun);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(umprun, umprun, "-n", "2", "--timeout", "45", self_path, "--rank", mode,
              (char *)NULL);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_two_ranks(void **state)
{
    assert_int_equal(run_job("default"), 0);
}
static void test_two_ranks_pressure(void **state)
{
    assert_int_equal(run_job("pressure"), 0);
}
static void test_two_ranks_reply(void **state)
{
    assert_int_equal(run_job("reply"), 0);
}

/* --- get ------------------------------------------------------------------ */

static void get_done(ump_xp_comp_t *comp, int status)
{
    CHECK(status == UMP_OK);
}

static void idle_progress(void *arg)
{
    progress(arg);
}

/* Starts a get, after progress while the queue's bound refuses it. */
static void get_start(rank_ctx_t *c, int peer, const struct iovec *lv, int nl, const ump_riov_t *rv,
                      int nr, ump_xp_comp_t *comp)
{
    comp->count++;
    int rc;
    time_t t0 = time(NULL);
    while ((rc = c->xp->ops->get(c->xp, peer, lv, nl, NULL, rv, nr, NULL, comp)) ==
           UMP_ERR_NO_RESOURCE) {
        progress(c);
        CHECK(time(NULL) - t0 < 40);
    }
    CHECK(rc == UMP_INPROGRESS);
}

/*
 * Each rank reads the other's pattern buffer with get() while the other
 * does the same: several gets outstanding at once (replies matched by id),
 * one large read into three uneven pieces, one made of 64 pieces of the
 * peer's memory gathered into one buffer, and a one-byte read; every byte
 * checked. In "pressure" mode (4 KiB socket buffers) the replies queue as
 * references and arrive in many reads.
 */
static void gets(rank_ctx_t *c, int peer)
{
    const size_t big = (4u << 20) + 13;
    uint8_t *src = malloc(big), *dst = malloc(big + 64);
    CHECK(src && dst);
    for (size_t i = 0; i < big; i++)
        src[i] = pat(c->rank, peer, 9, i);
    uint64_t mine = (uint64_t)(uintptr_t)src, theirs = 0;
    size_t l = sizeof(theirs);
    CHECK(ump_rt_put(c->rt, "test.getbuf", &mine, sizeof(mine)) == UMP_OK);
    CHECK(ump_rt_fence(c->rt) == UMP_OK);
    CHECK(ump_rt_get(c->rt, peer, "test.getbuf", &theirs, &l) == UMP_OK && l == sizeof(theirs));

    for (int round = 0; round < 3; round++) {
        memset(dst, 0xee, big + 64);
        ump_xp_comp_t comp = {.count = 0, .status = UMP_OK, .cb = get_done};
        /* big, into three pieces */
        struct iovec lv[3] = {{dst, 1000}, {dst + 1000, big - 3000}, {dst + big - 2000, 2000}};
        ump_riov_t rv = {theirs, big};
        get_start(c, peer, lv, 3, &rv, 1, &comp);
        /* 64 pieces of 7 bytes, every 1000th byte on, into one buffer */
        uint8_t small[64 * 7];
        ump_riov_t rv64[64];
        for (int k = 0; k < 64; k++)
            rv64[k] = (ump_riov_t){theirs + 1000u * (unsigned)k + (unsigned)round, 7};
        struct iovec sv = {small, sizeof(small)};
        get_start(c, peer, &sv, 1, rv64, 64, &comp);
        /* one byte */
        uint8_t one = 0;
        struct iovec ov = {&one, 1};
        ump_riov_t orv = {theirs + big - 1, 1};
        get_start(c, peer, &ov, 1, &orv, 1, &comp);
        time_t t0 = time(NULL);
        while (comp.count) {
            progress(c);
            CHECK(time(NULL) - t0 < 40);
        }
        for (size_t i = 0; i < big; i++)
            if (dst[i] != pat(peer, c->rank, 9, i)) c->bad++;
        for (size_t i = big; i < big + 64; i++)
            if (dst[i] != 0xee) c->bad++;
        for (int k = 0; k < 64; k++)
            for (int j = 0; j < 7; j++)
                if (small[k * 7 + j] !=
                    pat(peer, c->rank, 9, 1000u * (unsigned)k + (unsigned)round + (unsigned)j))
                    c->bad++;
        if (one != pat(peer, c->rank, 9, big - 1)) c->bad++;
        CHECK(c->bad == 0);
    }
    /* The peer may still be reading ours: serve it until both are done. */
    CHECK(ump_rt_fence_idle(c->rt, idle_progress, c) == UMP_OK);
    free(dst);
    free(src);
}

/* One rank of the job. */
static int rank_main(const char *mode)
{
    under_cmocka = false;
    rank_ctx_t c;
    open_rank(&c);
    CHECK(c.size == 2);
    int peer = 1 - c.rank;
    ump_tcp_xp_t *t = (ump_tcp_xp_t *)c.xp;
    if (strcmp(mode, "pressure") == 0) {
        t->queue_max = 1;
        t->sndbuf = t->rcvbuf = 4096;
    }
    rng = 777u + (unsigned)c.rank;

    /* Both ranks send first, right after the fence, before any progress;
     * or, in "reply" mode, rank 0 first and rank 1 once that arrived, on
     * rank 0's connection. */
    bool reply = strcmp(mode, "reply") == 0;
    if (!reply || c.rank == 0) {
        CHECK(send_data(&c, peer, 100) == UMP_OK);
    } else {
        time_t t0 = time(NULL);
        while (c.got[peer] == 0) {
            progress(&c);
            CHECK(time(NULL) - t0 < 40);
        }
        CHECK(t->peers[peer].in != NULL && t->peers[peer].out == NULL);
        CHECK(send_data(&c, peer, 100) == UMP_OK);
        CHECK(t->peers[peer].out == t->peers[peer].in);
    }

    /* Rank 1 knocks on rank 0's door with a wrong secret; rank 0 refuses
     * it while streaming (had it accepted, rank 1's real connection would
     * be refused as a duplicate and the stream would fail). */
    if (c.rank == 1) {
        char addr[64];
        my_addr(&c, 0, addr, sizeof(addr));
        uint8_t s[256], wrong[UMP_RT_SECRET_LEN];
        memcpy(wrong, ump_rt_info(c.rt)->secret, sizeof(wrong));
        wrong[0] ^= 0x55;
        size_t l;
        ump_tcp_challenge_t ch;
        int fd = raw_handshake(&c, addr, 1, 2, 0, wrong, false, s, &l, &ch);
        CHECK(refused(&c, fd));
        close(fd);
    }
    stream(&c, peer, strcmp(mode, "pressure") == 0 ? 150 : 400);
    check_sockets(&c, peer, reply);
    gets(&c, peer);

    /* The final fence, then rank 1 closes; rank 0 sees BYE + EOF and must
     * not report it, but sending to rank 1 now fails. */
    CHECK(ump_rt_fence(c.rt) == UMP_OK);
    if (c.rank == 1) close_xp(&c);
    if (c.rank == 0) {
        msg_hdr_t m = {0, 0};
        int rc = UMP_OK;
        for (int k = 0; k < 2000 && rc == UMP_OK; k++) {
            progress(&c);
            rc = t->peers[1].dead ? UMP_ERR_PEER_DEAD : UMP_OK;
            if (rc == UMP_OK) usleep(1000);
        }
        CHECK(rc == UMP_ERR_PEER_DEAD);
        CHECK(c.xp->ops->am_send(c.xp, 1, AM_DATA, &m, sizeof(m), NULL, 0) == UMP_ERR_PEER_DEAD);
        progress(&c);
        CHECK(c.failed[1] == 0);
    }
    CHECK(ump_rt_fence(c.rt) == UMP_OK);
    close_rank(&c);
    return 0;
}

int main(int argc, char **argv)
{
    alarm(58); /* a hang fails the test instead of waiting for ctest */
    if (argc == 3 && strcmp(argv[1], "--rank") == 0) return rank_main(argv[2]);
    ssize_t l = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
    if (l <= 0) return 1;
    self_path[l] = '\0';
    /* The in-process cases are singleton jobs, whatever started us. */
    unsetenv("UMP_JOB_KVS");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_stream),     cmocka_unit_test(test_self_pressure),
        cmocka_unit_test(test_handshake),       cmocka_unit_test(test_fake_acceptor),
        cmocka_unit_test(test_connect_refused), cmocka_unit_test(test_sleep),
        cmocka_unit_test(test_bad_args),        cmocka_unit_test(test_self_get),
        cmocka_unit_test(test_two_ranks),       cmocka_unit_test(test_two_ranks_pressure),
        cmocka_unit_test(test_two_ranks_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
