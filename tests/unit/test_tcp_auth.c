/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP transport's handshake against raw sockets, in a singleton job
 * (rank 0 of 1) over its own listener: a connector with a wrong secret, a
 * replay of a genuine connector's bytes, a wrong version, one that
 * vanishes without a BYE (a crash, reported once); a fake acceptor
 * without the secret or replaying a genuine challenge; a connection
 * refused. Each must be refused with its reason counted and no AM
 * delivered from it, while genuine traffic goes on.
 */
#include "tcp_xport_common.h"

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

int main(void)
{
    alarm(58);               /* a hang fails the test instead of waiting for ctest */
    unsetenv("UMP_JOB_KVS"); /* singleton jobs, whatever started us */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake),
        cmocka_unit_test(test_fake_acceptor),
        cmocka_unit_test(test_connect_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
