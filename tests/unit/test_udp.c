/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UDP transport through its ops table, as a singleton job: datagrams
 * that are not ump's, are from another job (wrong tag), are truncated or
 * come from an address no handshake admitted are dropped and counted;
 * arm() reports pending input and an idle transport sleeps.
 *
 * test_two_ranks_auth starts this program as a two-rank job under umprun
 * (`umprun -n 2 test_udp --rank`): rank 0 first forges, from a raw socket,
 * rel datagrams claiming to be rank 0 (with the job's tag) and a handshake
 * claiming rank 0 made with a wrong secret; rank 1 must drop and count
 * them all and refuse the handshake; then rank 0 sends rank 1 one AM (so
 * rank 0 runs the handshake as initiator) and replays that handshake's
 * HELLO and PROOF from the raw socket: rank 1 must refuse the replayed
 * proof; then both ranks exchange checked AMs.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <libgen.h>
#include <limits.h>
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

#include "util/crc32c.h"
#include "xport/udp/udp.h"

static void on_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data, size_t len)
{
    (*(int *)arg)++;
}

static void test_foreign(void **state)
{
    setenv("UMP_UDP_MTU", "1000", 1);
    ump_cfg_load(true);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    int calls = 0;
    ump_xp_params_t params = {.rt = rt, .am_handler = on_am, .arg = &calls};
    ump_xp_t *base;
    assert_int_equal(ump_xp_udp_ops.open(&params, &base), UMP_OK);
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    assert_true(base->caps.reliable && base->caps.ordered);
    assert_true(base->caps.max_am >= base->caps.eager_limit);
    assert_true(base->caps.max_am >= base->caps.seg_size);
    assert_int_equal(xp->mtu, 1000);
    assert_false(ump_xp_udp_ops.reaches(base, 0)); /* our own rank goes by self */
    assert_int_equal(ump_xp_udp_ops.wireup(base), UMP_OK);
    assert_true(ump_xp_udp_ops.wait_fd(base) >= 0);
    assert_int_equal(ump_xp_udp_ops.arm(base), UMP_OK); /* idle: may sleep */

    struct sockaddr_in to;
    assert_int_equal(ump_udp_sockname(xp->rfd, &to), UMP_OK);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    uint8_t buf[1200];
    memset(buf, 0x5a, sizeof(buf));
    /* 1: not ump's at all. */
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 2: ump's magic, another job's secret. */
    ump_udp_hdr_t h = {.magic = UMP_UDP_MAGIC};
    uint8_t other[UMP_RT_SECRET_LEN] = {1, 2, 3};
    h.tag = ump_udp_tag(ump_crc32c(0, other, sizeof(other)), buf + 8, 92);
    memcpy(buf, &h, sizeof(h));
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 3: our tag, but from an address no handshake admitted. */
    h.tag = ump_udp_tag(xp->key, buf + 8, 92);
    memcpy(buf, &h, sizeof(h));
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 4: larger than our datagram size. */
    assert_int_equal(sendto(fd, buf, 1200, 0, (struct sockaddr *)&to, sizeof(to)), 1200);
    close(fd);

    usleep(20000);
    assert_int_equal(ump_xp_udp_ops.arm(base), UMP_ERR_BUSY); /* input waits */
    assert_true(ump_xp_udp_ops.progress(base) >= 0);
    assert_int_equal(xp->foreign, 2);
    assert_int_equal(xp->truncated, 1);
    assert_int_equal(xp->unauth, 1);
    ump_rel_stats_t st;
    ump_rel_get_stats(xp->rel, &st);
    assert_int_equal(st.corrupted + st.malformed, 0); /* rel never saw it */
    assert_int_equal(st.delivered, 0);
    assert_int_equal(calls, 0);
    assert_int_equal(ump_xp_udp_ops.arm(base), UMP_OK);
    assert_int_equal(ump_xp_udp_ops.flush(base), UMP_OK);
    /* Our own rank and out-of-range ranks are not this transport's. */
    assert_int_equal(ump_xp_udp_ops.am_send(base, 0, 1, "x", 1, NULL, 0), UMP_ERR_INVALID);
    assert_int_equal(ump_xp_udp_ops.am_send(base, 7, 1, "x", 1, NULL, 0), UMP_ERR_INVALID);
    ump_xp_udp_ops.close(base);
    ump_rt_fini(rt);
    unsetenv("UMP_UDP_MTU");
}

/* --- two ranks under umprun ----------------------------------------------- */

#define FORGED 20
#define NAMS   200

static bool under_cmocka = true;
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (!(x)) {                                                                                \
            fprintf(stderr, "test_udp line %d: check failed: %s\n", __LINE__, #x);                 \
            if (under_cmocka) fail();                                                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct {
    int rank;
    unsigned got, bad;
} job_ctx_t;

static uint8_t pat(int src, unsigned seq, size_t i)
{
    return (uint8_t)(src * 31 + seq * 7 + i * 13);
}

static void on_job_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data,
                      size_t len)
{
    job_ctx_t *c = arg;
    const uint8_t *b = data;
    unsigned seq;
    if (am_id != 5 || len < sizeof(seq) || peer != 1 - c->rank) {
        c->bad++;
        return;
    }
    memcpy(&seq, b, sizeof(seq));
    if (seq != c->got) c->bad++;
    for (size_t i = sizeof(seq); i < len; i++)
        if (b[i] != pat(peer, seq, i)) {
            c->bad++;
            break;
        }
    c->got++;
}

static void send_to(int fd, const struct sockaddr_in *to, const void *p, size_t n)
{
    CHECK(sendto(fd, p, n, 0, (const struct sockaddr *)to, sizeof(*to)) == (ssize_t)n);
}

/* Rank 0's forgeries against rank 1, from a socket no handshake admitted. */
static void forge(ump_rt_t *rt, ump_udp_xp_t *xp)
{
    char val[128], ip[64];
    size_t l = sizeof(val) - 1;
    unsigned port, mtu;
    CHECK(ump_rt_get(rt, 1, "udp.addr", val, &l) == UMP_OK);
    val[l] = 0;
    CHECK(sscanf(val, "%63s %u %u", ip, &port, &mtu) == 3);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    CHECK(inet_pton(AF_INET, ip, &to.sin_addr) == 1);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(fd >= 0);
    /* rel-looking datagrams claiming rank 0, with the job's tag. */
    uint8_t buf[UMP_UDP_HDR + sizeof(ump_rel_hdr_t) + 16];
    memset(buf, 0, sizeof(buf));
    ump_rel_hdr_t rh = {.src = 0, .type = 1, .len = 16};
    memcpy(buf + UMP_UDP_HDR, &rh, sizeof(rh));
    ump_udp_hdr_t h = {.magic = UMP_UDP_MAGIC};
    h.tag = ump_udp_tag(xp->key, buf + UMP_UDP_HDR, sizeof(buf) - UMP_UDP_HDR);
    memcpy(buf, &h, sizeof(h));
    for (int i = 0; i < FORGED; i++)
        send_to(fd, &to, buf, sizeof(buf));
    /* A handshake claiming rank 0, proved with a wrong secret. The real
     * rank 0 gets the CHALLENGE (answers go to published addresses only)
     * and must refuse it, as it answers no hello of its own. */
    ump_udp_auth_msg_t m = {.magic = htole32(UMP_UDP_MAGIC_AUTH),
                            .type = UMP_UDP_AUTH_HELLO,
                            .nports = 1,
                            .from = htole32(0),
                            .to = htole32(1),
                            .size = htole32(2)};
    CHECK(ump_auth_nonce(m.nonce_c) == 0);
    send_to(fd, &to, &m, sizeof(m));
    usleep(50000);
    m.type = UMP_UDP_AUTH_PROOF;
    uint8_t wrong[UMP_RT_SECRET_LEN] = "not-the-secret!";
    uint8_t extra[12] = {0};
    ump_auth_ctx_t ctx = {UMP_UDP_AUTH_LABEL, wrong, sizeof(wrong), m.nonce_c,
                          m.nonce_a,          extra, sizeof(extra)};
    CHECK(ump_auth_mac(m.proof, &ctx, UMP_AUTH_CONNECTOR) == 0);
    send_to(fd, &to, &m, sizeof(m));
    close(fd);
}

/* Rank 0 replays its own genuine HELLO and PROOF to rank 1 from a raw
 * socket, back to back, while rank 1 is not progressing. */
static void replay(ump_rt_t *rt, ump_udp_xp_t *xp)
{
    ump_udp_peer_t *p = &xp->peers[1];
    CHECK(p->auth == UMP_UDP_AUTH_DONE && p->proof.type == UMP_UDP_AUTH_PROOF);
    ump_udp_auth_msg_t hello = p->proof;
    hello.type = UMP_UDP_AUTH_HELLO;
    memset(hello.ports_a, 0, sizeof(hello.ports_a));
    memset(hello.nonce_a, 0, sizeof(hello.nonce_a));
    memset(hello.proof, 0, sizeof(hello.proof));
    CHECK(memcmp(hello.nonce_c, p->nonce_mine, sizeof(hello.nonce_c)) == 0);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(fd >= 0);
    send_to(fd, &p->sa, &hello, sizeof(hello));
    send_to(fd, &p->sa, &p->proof, sizeof(p->proof));
    close(fd);
}

static void pump(ump_xp_t *base, int ms)
{
    for (int i = 0; i < ms; i++) {
        CHECK(ump_xp_udp_ops.progress(base) >= 0);
        usleep(1000);
    }
}

static int rank_main(void)
{
    under_cmocka = false;
    ump_rt_t *rt;
    CHECK(ump_rt_init(&rt) == UMP_OK);
    job_ctx_t c = {.rank = ump_rt_info(rt)->rank};
    CHECK(ump_rt_info(rt)->size == 2);
    ump_xp_params_t params = {.rt = rt, .am_handler = on_job_am, .arg = &c};
    ump_xp_t *base;
    CHECK(ump_xp_udp_ops.open(&params, &base) == UMP_OK);
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    CHECK(ump_rt_fence(rt) == UMP_OK);
    if (c.rank == 0) forge(rt, xp);
    /* Rank 1 takes the forgeries in before anyone sends for real. */
    pump(base, 200);
    CHECK(ump_rt_fence(rt) == UMP_OK);
    if (c.rank == 1) {
        fprintf(stderr, "rank 1: unauth=%llu auth_refused=%llu\n", (unsigned long long)xp->unauth,
                (unsigned long long)xp->auth_refused);
        CHECK(xp->unauth >= FORGED);
        CHECK(xp->auth_refused == 1);
    } else {
        fprintf(stderr, "rank 0: unauth=%llu auth_refused=%llu\n", (unsigned long long)xp->unauth,
                (unsigned long long)xp->auth_refused);
        CHECK(xp->auth_refused == 1); /* the challenge to a hello it never sent */
    }
    int peer = 1 - c.rank;
    uint8_t *b = malloc(base->caps.max_am);
    CHECK(b != NULL);
    static const size_t lens[] = {4, 5, 100, 900, 1400, 1500, 4000, 9000, 60000};
    unsigned sent = 0;

    /* Rank 0 sends first (it alone initiates the handshake), then replays
     * it. Rank 1 refuses the replayed proof (its CHALLENGE to the replayed
     * HELLO is new); rank 0 answers that CHALLENGE genuinely, as it fits
     * its own hello, so it refuses nothing more. */
    if (c.rank == 0) {
        memcpy(b, &sent, sizeof(sent));
        struct iovec v = {b, sizeof(sent)};
        CHECK(ump_xp_udp_ops.am_send(base, 1, 5, NULL, 0, &v, 1) == UMP_OK);
        sent++;
        pump(base, 500);
    } else {
        time_t t1 = time(NULL);
        while (c.got < 1) {
            CHECK(ump_xp_udp_ops.progress(base) >= 0);
            CHECK(time(NULL) - t1 < 20);
        }
        pump(base, 300);
    }
    CHECK(ump_rt_fence(rt) == UMP_OK);
    if (c.rank == 0) replay(rt, xp);
    CHECK(ump_rt_fence(rt) == UMP_OK);
    pump(base, 200);
    CHECK(ump_rt_fence(rt) == UMP_OK);
    fprintf(stderr, "rank %d after the replay: unauth=%llu auth_refused=%llu\n", c.rank,
            (unsigned long long)xp->unauth, (unsigned long long)xp->auth_refused);
    CHECK(xp->auth_refused == (c.rank == 1 ? 2 : 1));

    /* The job goes on: AMs of sizes around a datagram both ways. */
    time_t t0 = time(NULL);
    while (c.got < NAMS || sent < NAMS) {
        if (sent < NAMS) {
            size_t len = lens[sent % (sizeof(lens) / sizeof(lens[0]))];
            memcpy(b, &sent, sizeof(sent));
            for (size_t i = sizeof(sent); i < len; i++)
                b[i] = pat(c.rank, sent, i);
            struct iovec v = {b, len};
            int rc = ump_xp_udp_ops.am_send(base, peer, 5, NULL, 0, &v, 1);
            if (rc == UMP_OK)
                sent++;
            else
                CHECK(rc == UMP_ERR_NO_RESOURCE);
        }
        CHECK(ump_xp_udp_ops.progress(base) >= 0);
        CHECK(time(NULL) - t0 < 40);
    }
    while (ump_xp_udp_ops.flush(base) != UMP_OK)
        CHECK(ump_xp_udp_ops.progress(base) >= 0);
    CHECK(c.bad == 0 && c.got == NAMS);
    CHECK(ump_rt_fence(rt) == UMP_OK);
    ump_xp_udp_ops.close(base);
    free(b);
    ump_rt_fini(rt);
    return 0;
}

static char self_path[PATH_MAX];

static void test_two_ranks_auth(void **state)
{
    char umprun[PATH_MAX + 32], dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", self_path);
    snprintf(umprun, sizeof(umprun), "%s/../bin/umprun", dirname(dir));
    if (access(umprun, X_OK)) fail_msg("no launcher at %s", umprun);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(umprun, umprun, "-n", "2", "--timeout", "50", self_path, "--rank", (char *)NULL);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--rank") == 0) return rank_main();
    ssize_t l = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
    if (l <= 0) return 1;
    self_path[l] = '\0';
    unsetenv("UMP_JOB_KVS"); /* the in-process case is a singleton job */
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_foreign),
                                       cmocka_unit_test(test_two_ranks_auth)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
