/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP transport's wire pieces on their own: frames parsed back from a
 * stream cut at random places, the send queue over a socketpair whose
 * buffer is far smaller than the frames, the hello check, and the send
 * buffer of a connection within the host.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xport/tcp/tcp.h"

/* Byte i of frame `seq`: a pattern that differs per frame and per offset. */
static uint8_t pat(unsigned seq, size_t i)
{
    return (uint8_t)(seq * 131u + i * 7u + (i >> 8));
}

static uint32_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

/* Size of frame seq: mostly small, some near the limit, some empty. */
static size_t frame_len(unsigned seq, size_t max)
{
    switch (seq % 5) {
    case 0:
        return 0;
    case 1:
        return rnd() % 64;
    case 2:
        return rnd() % 4096;
    case 3:
        return max - rnd() % 16;
    default:
        return rnd() % max;
    }
}

/* Encodes `n` frames (hdr = 4-byte seq, payload in two iovs) into a flat
 * stream; returns its length. */
static size_t build_stream(uint8_t **out, unsigned n, size_t max, size_t *lens, uint8_t *ids)
{
    size_t cap = 1 << 20, len = 0;
    uint8_t *s = malloc(cap);
    assert_non_null(s);
    uint8_t *payload = malloc(max);
    assert_non_null(payload);
    for (unsigned q = 0; q < n; q++) {
        size_t l = frame_len(q, max - 4);
        for (size_t i = 0; i < l; i++)
            payload[i] = pat(q, i + 4);
        uint32_t seq = q;
        struct iovec in[2] = {{payload, l / 3}, {payload + l / 3, l - l / 3}};
        struct iovec v[6];
        uint8_t fh[UMP_TCP_FRAME_HDR];
        size_t total;
        ids[q] = (uint8_t)(q * 3);
        int k = ump_tcp_frame_iov(fh, ids[q], 0, &seq, 4, in, 2, v, &total);
        assert_int_equal(total % UMP_TCP_FRAME_ALIGN, 0);
        lens[q] = l + 4;
        while (len + total > cap) {
            cap *= 2;
            s = realloc(s, cap);
            assert_non_null(s);
        }
        size_t sum = 0;
        for (int j = 0; j < k; j++) {
            memcpy(s + len, v[j].iov_base, v[j].iov_len);
            len += v[j].iov_len;
            sum += v[j].iov_len;
        }
        assert_int_equal(sum, total);
    }
    free(payload);
    *out = s;
    return len;
}

static void check_frame(unsigned q, uint8_t id, const void *data, size_t len, const size_t *lens,
                        const uint8_t *ids)
{
    assert_int_equal(len, lens[q]);
    assert_int_equal(id, ids[q]);
    assert_int_equal((uintptr_t)data % UMP_TCP_FRAME_ALIGN, 0);
    uint32_t seq;
    memcpy(&seq, data, 4);
    assert_int_equal(seq, q);
    const uint8_t *b = data;
    for (size_t i = 4; i < len; i++)
        if (b[i] != pat(q, i)) fail_msg("frame %u byte %zu: %u != %u", q, i, b[i], pat(q, i));
}

/* Feeds the stream in chunks of random size, some 1 byte, some huge. */
static void test_split_reads(void **state)
{
    enum { N = 400 };
    const size_t max = 300 * 1024;
    static size_t lens[N];
    static uint8_t ids[N];
    for (unsigned seed = 1; seed <= 4; seed++) {
        rng_state = seed;
        uint8_t *s;
        size_t slen = build_stream(&s, N, max, lens, ids);
        ump_tcp_rx_t rx;
        ump_tcp_rx_init(&rx, max);
        size_t off = 0;
        unsigned got = 0;
        while (off < slen) {
            size_t room;
            uint8_t *p = ump_tcp_rx_space(&rx, &room);
            assert_non_null(p);
            assert_true(room > 0);
            size_t chunk;
            switch (rnd() % 4) {
            case 0:
                chunk = 1;
                break;
            case 1:
                chunk = 1 + rnd() % 16;
                break;
            case 2:
                chunk = 1 + rnd() % 5000;
                break;
            default:
                chunk = 1 + rnd() % (512 * 1024);
                break;
            }
            chunk = UMP_MIN(chunk, UMP_MIN(room, slen - off));
            memcpy(p, s + off, chunk);
            off += chunk;
            ump_tcp_rx_commit(&rx, chunk);
            uint8_t id, fl;
            const void *d;
            size_t l;
            int k;
            while ((k = ump_tcp_rx_next(&rx, &id, &fl, &d, &l)) == 1) {
                assert_true(got < N);
                assert_int_equal(fl, 0);
                check_frame(got, id, d, l, lens, ids);
                got++;
            }
            assert_int_equal(k, 0);
        }
        assert_int_equal(got, N);
        assert_int_equal(ump_tcp_rx_pending(&rx), 0);
        /* Never grew past the largest frame (plus the minimum buffer). */
        assert_true(rx.cap <= UMP_MAX(max + 16 + UMP_TCP_FRAME_HDR, (size_t)64 * 1024));
        ump_tcp_rx_fini(&rx);
        free(s);
    }
}

static void test_bad_frames(void **state)
{
    ump_tcp_rx_t rx;
    ump_tcp_rx_init(&rx, 1000);
    uint8_t fh[UMP_TCP_FRAME_HDR];
    struct iovec v[4];
    size_t total;
    static uint8_t big[1001];
    struct iovec in = {big, sizeof(big)};
    ump_tcp_frame_iov(fh, 1, 0, NULL, 0, &in, 1, v, &total);
    size_t room;
    uint8_t *p = ump_tcp_rx_space(&rx, &room);
    memcpy(p, fh, sizeof(fh));
    ump_tcp_rx_commit(&rx, sizeof(fh));
    uint8_t id, fl;
    const void *d;
    size_t l;
    /* Longer than max_am: refused as soon as the header is in. */
    assert_int_equal(ump_tcp_rx_next(&rx, &id, &fl, &d, &l), UMP_ERR_PROTOCOL);
    ump_tcp_rx_fini(&rx);

    ump_tcp_rx_init(&rx, 1000);
    ump_tcp_frame_iov(fh, 1, 0, NULL, 0, NULL, 0, v, &total);
    assert_int_equal(total, UMP_TCP_FRAME_HDR);
    fh[7] = 1; /* reserved bits set */
    p = ump_tcp_rx_space(&rx, &room);
    memcpy(p, fh, sizeof(fh));
    ump_tcp_rx_commit(&rx, sizeof(fh));
    assert_int_equal(ump_tcp_rx_next(&rx, &id, &fl, &d, &l), UMP_ERR_PROTOCOL);
    ump_tcp_rx_fini(&rx);
}

/*
 * The sender pushes frames far larger than the socket buffer without ever
 * blocking: what the socket does not take goes to the queue, which later
 * sends drain in order. The reader checks every byte.
 */
static void test_partial_writes(void **state)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    int small = 4096;
    assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
    assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);

    enum { N = 60 };
    const size_t max = 200 * 1024;
    uint8_t *payload = malloc(max);
    assert_non_null(payload);
    ump_tcp_txq_t q;
    ump_tcp_txq_init(&q);
    ump_tcp_rx_t rx;
    ump_tcp_rx_init(&rx, max + 4);
    rng_state = 99;
    static size_t lens[N];
    static uint8_t ids[N];
    unsigned sent = 0, got = 0, queued_once = 0;
    time_t t0 = time(NULL);
    while (got < N) {
        assert_true(time(NULL) - t0 < 30);
        if (sent < N && ump_tcp_txq_len(&q) < 2 * max) {
            size_t l = sent % 3 ? max - rnd() % 1000 : rnd() % 100;
            for (size_t i = 0; i < l; i++)
                payload[i] = pat(sent, i + 4);
            uint32_t seq = sent;
            struct iovec in = {payload, l};
            struct iovec v[4];
            uint8_t fh[UMP_TCP_FRAME_HDR];
            size_t total;
            ids[sent] = (uint8_t)sent;
            lens[sent] = l + 4;
            int k = ump_tcp_frame_iov(fh, ids[sent], 0, &seq, 4, &in, 1, v, &total);
            assert_int_equal(ump_tcp_tx_send(&q, sv[0], v, k, total), UMP_OK);
            /* The caller may reuse its buffers at once. */
            memset(payload, 0xee, l);
            if (ump_tcp_txq_len(&q)) queued_once++;
            sent++;
        }
        assert_true(ump_tcp_tx_drain(&q, sv[0]) >= 0);
        /* Read a little at a time, so the writer keeps hitting a full
         * socket. */
        size_t room;
        uint8_t *p = ump_tcp_rx_space(&rx, &room);
        assert_non_null(p);
        ssize_t r = recv(sv[1], p, UMP_MIN(room, (size_t)3000), 0);
        if (r < 0) {
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
            continue;
        }
        assert_true(r > 0);
        ump_tcp_rx_commit(&rx, (size_t)r);
        uint8_t id, fl;
        const void *d;
        size_t l;
        while (ump_tcp_rx_next(&rx, &id, &fl, &d, &l) == 1) {
            check_frame(got, id, d, l, lens, ids);
            got++;
        }
    }
    assert_int_equal(sent, N);
    assert_int_equal(ump_tcp_txq_len(&q), 0);
    assert_true(queued_once > N / 2); /* the queue was really exercised */
    ump_tcp_txq_fini(&q);
    ump_tcp_rx_fini(&rx);
    free(payload);
    close(sv[0]);

    /* A short frame (sent whole from one copy) meeting a full socket is
     * queued whole and leaves intact once the socket drains. */
    close(sv[1]);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
    static uint8_t fill[4096];
    size_t filled = 0;
    for (ssize_t w; (w = send(sv[0], fill, sizeof(fill), MSG_DONTWAIT)) > 0;)
        filled += (size_t)w;
    ump_tcp_txq_init(&q);
    ump_tcp_rx_init(&rx, 1024);
    uint8_t shortp[40];
    for (size_t i = 0; i < sizeof(shortp); i++)
        shortp[i] = pat(7, i);
    uint32_t seq7 = 7;
    struct iovec sv7 = {shortp, sizeof(shortp)}, v7[4];
    uint8_t fh7[UMP_TCP_FRAME_HDR];
    size_t total7;
    int k7 = ump_tcp_frame_iov(fh7, 7, 0, &seq7, 4, &sv7, 1, v7, &total7);
    assert_true(total7 <= UMP_TCP_GATHER_MAX);
    assert_int_equal(ump_tcp_tx_send(&q, sv[0], v7, k7, total7), UMP_OK);
    assert_int_equal(ump_tcp_txq_len(&q), total7);
    memset(shortp, 0xee, sizeof(shortp));
    for (size_t left = filled; left;) {
        ssize_t r = recv(sv[1], fill, UMP_MIN(left, sizeof(fill)), 0);
        assert_true(r > 0);
        left -= (size_t)r;
    }
    assert_int_equal(ump_tcp_tx_drain(&q, sv[0]), (ssize_t)total7);
    size_t room7;
    uint8_t *p7 = ump_tcp_rx_space(&rx, &room7);
    assert_int_equal(recv(sv[1], p7, room7, 0), (ssize_t)total7);
    ump_tcp_rx_commit(&rx, total7);
    uint8_t id7, fl7;
    const void *d7;
    size_t l7;
    assert_int_equal(ump_tcp_rx_next(&rx, &id7, &fl7, &d7, &l7), 1);
    assert_int_equal(id7, 7);
    assert_int_equal(l7, 4 + sizeof(shortp));
    assert_memory_equal(d7, &seq7, 4);
    for (size_t i = 0; i < sizeof(shortp); i++)
        assert_int_equal(((const uint8_t *)d7)[4 + i], pat(7, i));
    ump_tcp_txq_fini(&q);
    ump_tcp_rx_fini(&rx);
    close(sv[0]);

    /* Writing to a closed peer reports it (no SIGPIPE: we are still here). */
    uint8_t x[64] = {0};
    struct iovec in = {x, sizeof(x)};
    ump_tcp_txq_init(&q);
    close(sv[1]);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    close(sv[1]);
    assert_int_equal(ump_tcp_tx_send(&q, sv[0], &in, 1, sizeof(x)), UMP_ERR_PEER_DEAD);
    close(sv[0]);
    ump_tcp_txq_fini(&q);
}

static void test_hello(void **state)
{
    uint8_t nonce[UMP_AUTH_NONCE_LEN];
    memset(nonce, 0x5a, sizeof(nonce));
    ump_tcp_hello_t h;
    int rank = -1;
    static const uint8_t job[8] = {1, 2, 3, 4, 5, 6, 7, 8}, other[8] = {9, 2, 3, 4, 5, 6, 7, 8};
    ump_tcp_hello_encode(&h, job, 3, 8, nonce);
    assert_int_equal(ump_tcp_hello_check(&h, job, 8, &rank), UMP_OK);
    assert_int_equal(rank, 3);
    assert_memory_equal(h.nonce, nonce, sizeof(nonce));
    assert_memory_equal(h.job, job, sizeof(job));
    assert_int_equal(ump_tcp_hello_check(&h, job, 9, &rank), UMP_ERR_PROTOCOL);
    /* Another job's rank: its own size bounds it, not ours. */
    rank = -1;
    assert_int_equal(ump_tcp_hello_check(&h, other, 2, &rank), UMP_OK);
    assert_int_equal(rank, 3);
    ump_tcp_hello_encode(&h, job, 8, 8, nonce);
    assert_int_equal(ump_tcp_hello_check(&h, job, 8, &rank), UMP_ERR_PROTOCOL);
    assert_int_equal(ump_tcp_hello_check(&h, other, 8, &rank), UMP_ERR_PROTOCOL);
    ump_tcp_hello_encode(&h, job, 1, 8, nonce);
    h.version++;
    assert_int_equal(ump_tcp_hello_check(&h, job, 8, &rank), UMP_ERR_PROTOCOL);
    ump_tcp_hello_encode(&h, job, 1, 8, nonce);
    h.magic ^= 1;
    assert_int_equal(ump_tcp_hello_check(&h, job, 8, &rank), UMP_ERR_PROTOCOL);
}

/* The proofs: each checks only with the same secret, nonces, jobs, ranks
 * and role. */
static void test_proof(void **state)
{
    uint8_t secret[UMP_RT_SECRET_LEN], other[UMP_RT_SECRET_LEN];
    for (int i = 0; i < UMP_RT_SECRET_LEN; i++)
        secret[i] = other[i] = (uint8_t)i;
    other[UMP_RT_SECRET_LEN - 1] ^= 0x80;
    uint8_t nc[UMP_AUTH_NONCE_LEN], na[UMP_AUTH_NONCE_LEN], na2[UMP_AUTH_NONCE_LEN];
    assert_int_equal(ump_auth_nonce(nc), 0);
    assert_int_equal(ump_auth_nonce(na), 0);
    assert_int_equal(ump_auth_nonce(na2), 0);
    assert_memory_not_equal(na, na2, sizeof(na)); /* fresh every time */
    uint8_t e1[24], e2[24], mac[UMP_AUTH_MAC_LEN];
    static const uint8_t ja[8] = "jobAAAA", jb[8] = "jobBBBB";
    ump_auth_ctx_t ctx = ump_tcp_auth_ctx(secret, nc, na, ja, 2, ja, 5, e1);
    assert_int_equal(ump_auth_mac(mac, &ctx, UMP_AUTH_CONNECTOR), 0);
    assert_true(ump_auth_check(mac, &ctx, UMP_AUTH_CONNECTOR));
    /* Reflected: the connector's proof is no acceptor's proof. */
    assert_false(ump_auth_check(mac, &ctx, UMP_AUTH_ACCEPTOR));
    ump_auth_ctx_t wrong = ump_tcp_auth_ctx(other, nc, na, ja, 2, ja, 5, e2);
    assert_false(ump_auth_check(mac, &wrong, UMP_AUTH_CONNECTOR));
    /* Replayed against a new acceptor nonce. */
    wrong = ump_tcp_auth_ctx(secret, nc, na2, ja, 2, ja, 5, e2);
    assert_false(ump_auth_check(mac, &wrong, UMP_AUTH_CONNECTOR));
    /* Other ranks or jobs. */
    wrong = ump_tcp_auth_ctx(secret, nc, na, ja, 3, ja, 5, e2);
    assert_false(ump_auth_check(mac, &wrong, UMP_AUTH_CONNECTOR));
    wrong = ump_tcp_auth_ctx(secret, nc, na, jb, 2, ja, 5, e2);
    assert_false(ump_auth_check(mac, &wrong, UMP_AUTH_CONNECTOR));
    wrong = ump_tcp_auth_ctx(secret, nc, na, ja, 2, jb, 5, e2);
    assert_false(ump_auth_check(mac, &wrong, UMP_AUTH_CONNECTOR));
    /* One flipped bit of the proof. */
    mac[17] ^= 4;
    assert_false(ump_auth_check(mac, &ctx, UMP_AUTH_CONNECTOR));
}

static void test_addr(void **state)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
    assert_int_equal(ump_tcp_parse_addr("127.0.0.1:4242", &ss, &sl), UMP_OK);
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(ntohs(sin->sin_port), 4242);
    assert_int_equal(ump_tcp_parse_addr("::1:4243", &ss, &sl), UMP_OK);
    assert_int_equal(ss.ss_family, AF_INET6);
    assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 4243);
    assert_int_equal(ump_tcp_parse_addr(":4243", &ss, &sl), UMP_ERR_INVALID);
    assert_int_equal(ump_tcp_parse_addr("127.0.0.1", &ss, &sl), UMP_ERR_INVALID);
    assert_int_equal(ump_tcp_parse_addr("127.0.0.1:0", &ss, &sl), UMP_ERR_INVALID);
    assert_int_equal(ump_tcp_parse_addr("127.0.0.1:12x", &ss, &sl), UMP_ERR_INVALID);
    assert_int_equal(ump_tcp_parse_addr("nohost:12", &ss, &sl), UMP_ERR_INVALID);
    char addr[64];
    int fd = ump_tcp_listen("127.0.0.1", addr, sizeof(addr));
    assert_true(fd >= 0);
    assert_int_equal(strncmp(addr, "127.0.0.1:", 10), 0);
    assert_int_equal(ump_tcp_parse_addr(addr, &ss, &sl), UMP_OK);
    assert_true(ntohs(sin->sin_port) > 0);
    close(fd);

    /* IPv6: listen on ::1, connect through the published form. */
    fd = ump_tcp_listen("::1", addr, sizeof(addr));
    if (fd < 0) {
        print_message("no IPv6 loopback here: IPv6 part not run\n");
        return;
    }
    assert_int_equal(strncmp(addr, "::1:", 4), 0);
    assert_int_equal(ump_tcp_parse_addr(addr, &ss, &sl), UMP_OK);
    int cfd = socket(AF_INET6, SOCK_STREAM, 0);
    assert_true(cfd >= 0);
    assert_int_equal(connect(cfd, (struct sockaddr *)&ss, sl), 0);
    struct pollfd p = {fd, POLLIN, 0};
    assert_int_equal(poll(&p, 1, 5000), 1);
    int afd = accept(fd, NULL, NULL);
    assert_true(afd >= 0);
    close(afd);
    close(cfd);
    close(fd);
}

static int sndbuf_of(int fd)
{
    int v = 0;
    socklen_t l = sizeof(v);
    assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &l), 0);
    return v;
}

/* A connection from `from` (NULL: the kernel's choice) to a listener on
 * 127.0.0.1: the connected end and the accepted end. */
static void loop_pair(const char *from, int *cfd, int *afd)
{
    char addr[64];
    struct sockaddr_storage ss;
    socklen_t sl;
    int lfd = ump_tcp_listen("127.0.0.1", addr, sizeof(addr));
    assert_true(lfd >= 0);
    assert_int_equal(ump_tcp_parse_addr(addr, &ss, &sl), UMP_OK);
    *cfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(*cfd >= 0);
    if (from) {
        struct sockaddr_in me = {.sin_family = AF_INET};
        assert_int_equal(inet_pton(AF_INET, from, &me.sin_addr), 1);
        assert_int_equal(bind(*cfd, (struct sockaddr *)&me, sizeof(me)), 0);
    }
    assert_int_equal(connect(*cfd, (struct sockaddr *)&ss, sl), 0);
    struct pollfd p = {lfd, POLLIN, 0};
    assert_int_equal(poll(&p, 1, 5000), 1);
    *afd = accept(lfd, NULL, NULL);
    assert_true(*afd >= 0);
    close(lfd);
}

/* Both ends on one address (a connection within the host) take the
 * buffer, on either side; two different addresses, or 0, leave the
 * kernel's own (Linux reports twice what was set). */
static void test_local_sndbuf(void **state)
{
    (void)state;
    int cfd, afd;
    loop_pair(NULL, &cfd, &afd);
    int before = sndbuf_of(cfd);
    ump_tcp_sock_local(cfd, 0);
    assert_int_equal(sndbuf_of(cfd), before);
    ump_tcp_sock_local(cfd, 256 << 10);
    ump_tcp_sock_local(afd, 256 << 10);
    assert_int_equal(sndbuf_of(cfd), 2 * (256 << 10));
    assert_int_equal(sndbuf_of(afd), 2 * (256 << 10));
    ump_tcp_sock_local(cfd, 1); /* raised to the floor that keeps loopback moving */
    assert_int_equal(sndbuf_of(cfd), 2 * (64 << 10));
    close(cfd);
    close(afd);

    loop_pair("127.0.0.2", &cfd, &afd);
    int cb = sndbuf_of(cfd), ab = sndbuf_of(afd);
    ump_tcp_sock_local(cfd, 256 << 10);
    ump_tcp_sock_local(afd, 256 << 10);
    assert_int_equal(sndbuf_of(cfd), cb);
    assert_int_equal(sndbuf_of(afd), ab);
    close(cfd);
    close(afd);

    /* Not connected: nothing to tell, nothing set. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    int fb = sndbuf_of(fd);
    ump_tcp_sock_local(fd, 256 << 10);
    assert_int_equal(sndbuf_of(fd), fb);
    close(fd);
}

int main(void)
{
    alarm(50); /* a hang fails the test instead of waiting for ctest */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_reads),    cmocka_unit_test(test_bad_frames),
        cmocka_unit_test(test_partial_writes), cmocka_unit_test(test_hello),
        cmocka_unit_test(test_proof),          cmocka_unit_test(test_addr),
        cmocka_unit_test(test_local_sndbuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
