/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP transport through its ops table and the real runtime.
 *
 * In-process cases run as a singleton job (rank 0 of 1): rank 0 streams to
 * itself over a real connection to its own listener, sleeps and wakes,
 * reads its own memory with get(), and refuses bad arguments (the
 * handshake against raw sockets: test_tcp_auth.c).
 *
 * The two-rank cases start this same program under umprun
 * (`umprun -n 2 test_tcp_xport --rank MODE`): both ranks send first at the
 * same moment (or, in "reply" mode, rank 1 answers rank 0's first AM on
 * the connection rank 0 opened), then stream AMs of random sizes both ways
 * (over one socket in "reply" mode); rank 1 also tries
 * a connection with a wrong secret, which rank 0 must refuse; at the end
 * rank 1 closes cleanly and rank 0 must not take that for a failure.
 */
#include "tcp_xport_common.h"

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
        while (c->echo_owed[dst] && echo_send(c, dst) == UMP_OK)
            c->echo_owed[dst]--;
        /* DONE after every echo owed, so it arrives after them too. */
        if (!done_sent && c->sent[dst] == n && c->got[dst] == n && !c->echo_owed[dst]) {
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
    /* One echo each way for every 8th DATA, sent from the handler or owed. */
    CHECK(c->echo_sent[dst] == (n + 7) / 8 && c->echo_got[dst] == (n + 7) / 8);
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
    t->sndbuf_local = 0; /* else a same-host connection takes 256 KiB */
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

/* arm() says OK when idle; an arriving AM wakes wait_fd, also on the
 * connection progress reads directly. */
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

    /* The connection that delivered is read directly and leaves the epoll
     * set while nobody sleeps; arm() puts it back until disarm(), even if
     * progress runs meanwhile (another thread's), so an AM still wakes the
     * sleeper. */
    ump_tcp_xp_t *t = (ump_tcp_xp_t *)c.xp;
    for (unsigned want = 2; want <= 4; want++) {
        c.xp->ops->disarm(c.xp);
        for (int k = 0; k < 3 * UMP_TCP_EPOLL_EVERY; k++)
            progress(&c);
        assert_non_null(t->hot);
        assert_true(t->hot->unwatched);
        assert_int_equal(c.xp->ops->arm(c.xp), UMP_OK);
        assert_false(t->hot->unwatched);
        for (int k = 0; k < 3 * UMP_TCP_EPOLL_EVERY; k++)
            progress(&c);
        assert_false(t->hot->unwatched);
        assert_int_equal(poll(&pfd, 1, 20), 0);
        assert_int_equal(send_data(&c, 0, want * 100), UMP_OK);
        assert_int_equal(poll(&pfd, 1, 2000), 1);
        c.xp->ops->disarm(c.xp);
        for (int k = 0; k < 1000 && c.got[0] < want; k++)
            progress(&c);
        assert_int_equal(c.got[0], want);
    }
    assert_int_equal(c.bad, 0);
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
        t->sndbuf_local = 0; /* else a same-host connection takes 256 KiB */
    }
    rng = 777u + (unsigned)c.rank;
    c.echo = true; /* from the first DATA on, which may arrive before stream() */

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
        /* The echo of that first DATA, from the handler, may have gone
         * already: on rank 0's connection too. */
        CHECK(t->peers[peer].in != NULL);
        CHECK(t->peers[peer].out == NULL || t->peers[peer].out == t->peers[peer].in);
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
        cmocka_unit_test(test_self_stream),
        cmocka_unit_test(test_self_pressure),
        cmocka_unit_test(test_sleep),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_self_get),
        cmocka_unit_test(test_two_ranks),
        cmocka_unit_test(test_two_ranks_pressure),
        cmocka_unit_test(test_two_ranks_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
