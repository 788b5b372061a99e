/*
 * The whole shm transport across processes started by umprun, through the
 * real runtime (as the core opens it). The cmocka driver starts
 * `umprun ... <this program> <scenario>` per test; each rank runs the
 * scenario and exits 0 on success.
 *
 * Scenarios: a two-rank stream of random-size messages checked byte for
 * byte, with acks sent re-entrantly from the handler and a CMA read from the
 * handler; an all-to-all among four local ranks plus one rank on another
 * (fake, same-machine) host; sleeping on the doorbell; configuration limits;
 * the segment file gone once all local ranks attached.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt/rt.h"
#include "util/util.h"
#include "xport/xport.h"

#define MAX_RANKS   8
#define JOB_TIMEOUT "12" /* seconds per umprun job; ctest allows 60 for all */

/* Fails the rank with a line number. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank check failed at line %d: %s\n", __LINE__, #cond);                \
            _exit(10);                                                                             \
        }                                                                                          \
    } while (0)

/* --- per-process state for handlers ------------------------------------------ */

#define AM_DATA 1
#define AM_ACK  2
#define AM_GET  3 /* payload: ump_riov_t + seed; the handler get()s it */
#define AM_DONE 4
#define AM_MANY 5 /* payload: message number; counted per source */

struct state {
    ump_xp_t *xp;
    ump_rt_t *rt;
    uint32_t next[MAX_RANKS]; /* next message number expected from each */
    uint64_t acks;
    int done;
    int bad;
    uint8_t *getbuf;
    bool ack; /* acknowledge every 1000th message from the handler */
    bool count_only;
    uint64_t many;
};
static struct state st;

static uint8_t pattern(uint32_t seed, uint32_t i)
{
    uint32_t x = seed * 2654435761u ^ i * 2246822519u;
    x ^= x >> 15;
    return (uint8_t)(x * 0x9e3779b1u >> 24);
}

static size_t msg_len(uint32_t n, size_t max)
{
    uint32_t x = n * 2654435761u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    if ((x & 31) == 0) return x % (max + 1);
    if ((x & 3) == 0) return x % 4096;
    return x % 150;
}

struct data_hdr {
    uint32_t src, n;
};

static void handler(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data, size_t len)
{
    struct data_hdr h;
    switch (am_id) {
    case AM_DATA: {
        if (len < sizeof(h)) {
            st.bad++;
            return;
        }
        memcpy(&h, data, sizeof(h));
        if ((int)h.src != peer || h.n != st.next[peer] ||
            len != sizeof(h) + msg_len(h.n ^ h.src, xp->caps.max_am - sizeof(h))) {
            fprintf(stderr, "bad message from %d: n %u (want %u) len %zu\n", peer, h.n,
                    st.next[peer], len);
            st.bad++;
        }
        const uint8_t *p = (const uint8_t *)data + sizeof(h);
        for (size_t i = 0; i < len - sizeof(h); i++)
            if (p[i] != pattern(h.n ^ h.src, (uint32_t)i)) {
                st.bad++;
                break;
            }
        st.next[peer]++;
        /* Re-entrant send: acknowledge every 1000th message from inside the
         * handler (retrying would need progress(), which handlers may not
         * call, so a full ring here counts as a failure: the peer drains
         * our acks while it waits for space). */
        if (st.ack && h.n % 1000 == 999) {
            uint32_t n = h.n;
            int rc;
            unsigned tries = 0;
            while ((rc = xp->ops->am_send(xp, peer, AM_ACK, &n, sizeof(n), NULL, 0)) ==
                       UMP_ERR_NO_RESOURCE &&
                   ++tries < 1000000)
                sched_yield();
            if (rc != UMP_OK) st.bad++;
        }
        break;
    }
    case AM_ACK:
        st.acks++;
        break;
    case AM_GET: {
        ump_riov_t r;
        uint32_t seed;
        memcpy(&r, data, sizeof(r));
        memcpy(&seed, (const char *)data + sizeof(r), sizeof(seed));
        /* Scatter into three local pieces. */
        size_t a = r.len / 3, b = r.len / 2;
        struct iovec l[3] = {{st.getbuf, a}, {st.getbuf + a, b - a}, {st.getbuf + b, r.len - b}};
        int rc = xp->ops->get(xp, peer, l, 3, NULL, &r, 1, NULL, NULL);
        if (rc != UMP_OK) {
            fprintf(stderr, "get: %s\n", ump_strerror(rc));
            st.bad++;
        }
        for (size_t i = 0; i < r.len; i++)
            if (st.getbuf[i] != pattern(seed, (uint32_t)i)) {
                st.bad++;
                break;
            }
        uint32_t n = 0xffffffffu;
        while (xp->ops->am_send(xp, peer, AM_ACK, &n, sizeof(n), NULL, 0) == UMP_ERR_NO_RESOURCE)
            sched_yield();
        break;
    }
    case AM_DONE:
        st.done++;
        break;
    case AM_MANY: {
        uint32_t i;
        memcpy(&i, data, sizeof(i));
        if (peer >= MAX_RANKS * 64 || len != sizeof(i) + (i * 37) % 256) st.bad++;
        st.many++;
        break;
    }
    default:
        st.bad++;
    }
}

/* Opens the transport through the stand-in runtime, as the core does. */
static void setup(int rank)
{
    ump_xp_params_t prm = {.rt = st.rt, .am_handler = handler, .arg = &st};
    CHECK(ump_xp_shm_ops.open(&prm, &st.xp) == UMP_OK);
    CHECK(st.xp->caps.reliable && st.xp->caps.ordered);
    CHECK(st.xp->caps.max_am >= st.xp->caps.seg_size + 64);
    ump_rt_fence(st.rt);
    CHECK(ump_xp_shm_ops.wireup(st.xp) == UMP_OK);
    ump_rt_fence(st.rt);
    /* Every local rank attached: the segment's name is gone. */
    const ump_rt_info_t *info = ump_rt_info(st.rt);
    for (int r = 0; r < info->size; r++) {
        char name[128], path[160];
        size_t len = sizeof(name) - 1;
        if (ump_rt_node_of(st.rt, r) != info->node_id ||
            ump_rt_get(st.rt, r, "shm.seg", name, &len) != UMP_OK)
            continue;
        name[len] = '\0';
        CHECK(!strncmp(name, "/ump-", 5) && strstr(name, info->job_id));
        snprintf(path, sizeof(path), "/dev/shm%s", name);
        CHECK(access(path, F_OK) != 0 && errno == ENOENT);
    }
}

static void teardown(void)
{
    CHECK(st.xp->ops->flush(st.xp) == UMP_OK);
    ump_rt_fence(st.rt);
    st.xp->ops->close(st.xp);
}

static void send_retry(int peer, uint8_t am, const void *hdr, size_t hlen, const struct iovec *iov,
                       int n)
{
    int rc;
    unsigned spins = 0;
    while ((rc = st.xp->ops->am_send(st.xp, peer, am, hdr, hlen, iov, n)) == UMP_ERR_NO_RESOURCE) {
        st.xp->ops->progress(st.xp);
        if (++spins > 100) sched_yield();
    }
    CHECK(rc == UMP_OK);
}

static void send_data(int peer, uint32_t n, uint8_t *buf)
{
    struct data_hdr h = {(uint32_t)ump_rt_info(st.rt)->rank, n};
    size_t len = msg_len(n ^ h.src, st.xp->caps.max_am - sizeof(h));
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(n ^ h.src, (uint32_t)i);
    struct iovec iov[2] = {{buf, len / 2}, {buf + len / 2, len - len / 2}};
    send_retry(peer, AM_DATA, &h, sizeof(h), iov, 2);
}

/* Polls before yielding the core; high when each rank has its own core. */
static unsigned spin_limit = 100;

static void wait_until(bool (*cond)(void))
{
    unsigned spins = 0;
    while (!cond()) {
        if (st.xp->ops->progress(st.xp) < 0) _exit(11);
        if (++spins > spin_limit) sched_yield();
    }
}

/* --- two ranks: stream, re-entrant acks, get ------------------------------- */

#define STREAM_N 30000
static bool got_all_acks(void)
{
    return st.acks >= STREAM_N / 1000 + 1;
}
static bool got_done(void)
{
    return st.done > 0;
}
static bool got_stream(void)
{
    return st.next[0] == STREAM_N;
}

static int body_stream(int rank)
{
    setup(rank);
    st.ack = true;
    CHECK(st.xp->ops->reaches(st.xp, 1 - rank));
    CHECK(!st.xp->ops->reaches(st.xp, rank));
    CHECK(!st.xp->ops->reaches(st.xp, 7));
    uint8_t *buf = malloc(st.xp->caps.max_am);
    st.getbuf = malloc(4 << 20);
    CHECK(buf && st.getbuf);
    if (rank == 0) {
        for (uint32_t n = 0; n < STREAM_N; n++)
            send_data(1, n, buf);
        /* A CMA read by the peer, from its handler. */
        if (st.xp->caps.rma_get) {
            size_t len = (3 << 20) + 123;
            uint8_t *src = malloc(len);
            CHECK(src);
            for (size_t i = 0; i < len; i++)
                src[i] = pattern(99, (uint32_t)i);
            struct {
                ump_riov_t r;
                uint32_t seed;
            } __attribute__((packed)) g = {{(uint64_t)(uintptr_t)src, len}, 99};
            send_retry(1, AM_GET, &g, sizeof(g), NULL, 0);
            wait_until(got_all_acks);
            free(src);
        } else {
            st.acks++;
            wait_until(got_all_acks);
        }
        send_retry(1, AM_DONE, NULL, 0, NULL, 0);
    } else {
        wait_until(got_stream);
        wait_until(got_done);
    }
    CHECK(st.bad == 0);
    free(buf);
    free(st.getbuf);
    teardown();
    return 0;
}

/* --- four local ranks all-to-all, one rank elsewhere ----------------------- */

#define A2A_N 3000
static int a2a_rank;
static bool got_a2a(void)
{
    for (int r = 0; r < 4; r++)
        if (r != a2a_rank && st.next[r] != A2A_N) return false;
    return true;
}
static bool got_done3(void)
{
    return st.done == 3;
}

static int body_a2a(int rank)
{
    if (rank == 4) {
        /* Alone on its node: shm declines. */
        CHECK(ump_rt_info(st.rt)->local_size == 1);
        ump_xp_params_t prm = {.rt = st.rt, .am_handler = handler, .arg = &st};
        CHECK(ump_xp_shm_ops.open(&prm, &st.xp) == UMP_ERR_UNSUPPORTED);
        for (int i = 0; i < 3; i++)
            ump_rt_fence(st.rt);
        return 0;
    }
    a2a_rank = rank;
    setup(rank);
    CHECK(!st.xp->ops->reaches(st.xp, 4));
    uint8_t *buf = malloc(st.xp->caps.max_am);
    CHECK(buf);
    /* Interleave destinations so every ring and fastbox is busy at once. */
    for (uint32_t n = 0; n < A2A_N; n++)
        for (int d = 1; d < 4; d++)
            send_data((rank + d) % 4, n, buf);
    for (int d = 1; d < 4; d++)
        send_retry((rank + d) % 4, AM_DONE, NULL, 0, NULL, 0);
    wait_until(got_a2a);
    wait_until(got_done3);
    CHECK(st.bad == 0);
    free(buf);
    teardown();
    return 0;
}

/* --- sleeping ------------------------------------------------------------------ */

static bool got_one(void)
{
    return st.next[0] >= 1;
}

static int body_sleep(int rank)
{
    setup(rank);
    uint8_t *buf = malloc(st.xp->caps.max_am);
    CHECK(buf);
    if (rank == 0) {
        /* 1: a message already pending makes arm() refuse. */
        send_data(1, 0, buf);
        ump_rt_fence(st.rt);
        ump_rt_fence(st.rt);
        /* 2: the peer sleeps; wake it after a while. */
        usleep(200 * 1000);
        send_data(1, 1, buf);
        ump_rt_fence(st.rt);
    } else {
        ump_rt_fence(st.rt);
        CHECK(st.xp->ops->arm(st.xp) == UMP_ERR_BUSY);
        wait_until(got_one);
        ump_rt_fence(st.rt);
        /* Nothing pending: arm succeeds and the fd is quiet. */
        int fd = st.xp->ops->wait_fd(st.xp);
        CHECK(fd >= 0);
        CHECK(st.xp->ops->arm(st.xp) == UMP_OK);
        struct pollfd pfd = {fd, POLLIN, 0};
        uint64_t t0 = ump_time_ns();
        int n = poll(&pfd, 1, 10000);
        uint64_t dt = ump_time_ns() - t0;
        CHECK(n == 1 && (pfd.revents & POLLIN));
        CHECK(dt > 50 * 1000 * 1000ull); /* really slept until the send */
        CHECK(st.xp->ops->progress(st.xp) == 1);
        CHECK(st.next[0] == 2);
        /* The doorbell was drained: polling again times out. */
        CHECK(poll(&pfd, 1, 0) == 0);
        ump_rt_fence(st.rt);
    }
    CHECK(st.bad == 0);
    free(buf);
    teardown();
    return 0;
}

/* --- configuration: CMA off, small rings ----------------------------------------- */

static int body_config(int rank)
{
    setenv("UMP_SHM_CMA", "no", 1);
    setenv("UMP_SHM_RING_SIZE", "16k", 1);
    ump_cfg_load(true);
    setup(rank);
    CHECK(!st.xp->caps.rma_get);
    CHECK(st.xp->caps.get_min == SIZE_MAX);
    CHECK(st.xp->caps.max_am < 16384);
    CHECK(st.xp->caps.seg_size + 64 <= st.xp->caps.max_am);
    /* A message over max_am is refused, one at max_am goes through. */
    uint8_t *buf = calloc(1, st.xp->caps.max_am + 1);
    struct iovec iov = {buf, st.xp->caps.max_am + 1};
    CHECK(st.xp->ops->am_send(st.xp, 1 - rank, AM_ACK, NULL, 0, &iov, 1) == UMP_ERR_INVALID);
    iov.iov_len = st.xp->caps.max_am;
    send_retry(1 - rank, AM_ACK, NULL, 0, &iov, 1);
    while (st.acks < 1) {
        st.xp->ops->progress(st.xp);
        sched_yield();
    }
    free(buf);
    teardown();
    return 0;
}

/* --- many ranks: every pair wired, neighbours streaming ----------------------------- */

#define MANY_N 50
static bool got_many(void)
{
    const ump_rt_info_t *info = ump_rt_info(st.rt);
    int n = info->size, me = info->rank;
    uint64_t want = 0, have = 0;
    for (int r = 0; r < n; r++) {
        if (r == me) continue;
        int d = (me - r + n) % n; /* r sends MANY_N to me when d in 1..3 */
        want += d >= 1 && d <= 3 ? MANY_N : 0;
        have += r < MAX_RANKS ? 0 : 0;
    }
    (void)have;
    return st.acks == (uint64_t)(n - 1) && st.many == want;
}

static int body_many(int rank)
{
    setup(rank);
    int n = ump_rt_info(st.rt)->size;
    CHECK(ump_rt_info(st.rt)->local_size == n);
    st.count_only = true;
    uint8_t buf[256];
    memset(buf, 0x5a, sizeof(buf));
    for (int r = 0; r < n; r++)
        if (r != rank) {
            CHECK(st.xp->ops->reaches(st.xp, r));
            struct iovec iov = {buf, 8};
            send_retry(r, AM_ACK, NULL, 0, &iov, 1);
        }
    for (int k = 1; k <= 3 && k < n; k++)
        for (uint32_t i = 0; i < MANY_N; i++) {
            struct iovec iov = {buf, (i * 37) % sizeof(buf)};
            send_retry((rank + k) % n, AM_MANY, &i, sizeof(i), &iov, 1);
        }
    wait_until(got_many);
    CHECK(st.bad == 0);
    teardown();
    return 0;
}

/* --- latency (printed, not asserted) ----------------------------------------------- */

static uint64_t pongs;
static bool got_pong(void)
{
    return st.acks == pongs;
}

static int body_latency(int rank)
{
    setup(rank);
    spin_limit = 1u << 20;
    uint8_t *buf = calloc(1, 65536);
    CHECK(buf);
    static const size_t sizes[] = {8, 64, 120, 1024, 8192, 32768};
    for (size_t s = 0; s < UMP_ARRAY_SIZE(sizes); s++) {
        const int iters = 5000, warm = 500;
        uint64_t t0 = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) t0 = ump_time_ns();
            struct iovec iov = {buf, sizes[s]};
            pongs++;
            if (rank == 0) {
                send_retry(1, AM_ACK, NULL, 0, &iov, 1);
                wait_until(got_pong);
            } else {
                wait_until(got_pong);
                send_retry(0, AM_ACK, NULL, 0, &iov, 1);
            }
        }
        if (rank == 0)
            printf("shm latency %6zu B: %.2f us (half round trip)\n", sizes[s],
                   (double)(ump_time_ns() - t0) / iters / 2 / 1000.0);
    }
    free(buf);
    teardown();
    return 0;
}

/* --- a peer that leaves: PEER_DEAD and peer_failed ------------------------------------ */

static int failed_peer = -1;
static void on_failed(void *arg, ump_xp_t *xp, int peer, int status)
{
    if (status == UMP_ERR_PEER_DEAD) failed_peer = peer;
}

static int body_dead(int rank)
{
    setup(rank);
    if (rank == 1) {
        /* Leave without a word (finalizing with the runtime, so the job
         * goes on). */
        st.xp->ops->close(st.xp);
        return 0;
    }
    st.xp->params.peer_failed = on_failed;
    usleep(300 * 1000);
    uint8_t buf[1024] = {0};
    struct iovec iov = {buf, sizeof(buf)};
    int rc;
    uint64_t t0 = ump_time_ns();
    /* Fills the ring; then each refusal may check the peer (every 100 ms). */
    while ((rc = st.xp->ops->am_send(st.xp, 1, AM_ACK, NULL, 0, &iov, 1)) == UMP_OK ||
           rc == UMP_ERR_NO_RESOURCE) {
        CHECK(ump_time_ns() - t0 < 5000000000ull);
        if (rc == UMP_ERR_NO_RESOURCE) usleep(1000);
    }
    CHECK(rc == UMP_ERR_PEER_DEAD);
    CHECK(st.xp->ops->am_send(st.xp, 1, AM_ACK, NULL, 0, NULL, 0) == UMP_ERR_PEER_DEAD);
    CHECK(st.xp->ops->progress(st.xp) >= 1);
    CHECK(failed_peer == 1);
    st.xp->ops->close(st.xp);
    return 0;
}

/* --- the driver ------------------------------------------------------------------ */

static const struct scenario {
    const char *name;
    int (*body)(int rank);
} scenarios[] = {
    {"stream", body_stream}, {"a2a", body_a2a},   {"sleep", body_sleep},
    {"config", body_config}, {"many", body_many}, {"latency", body_latency},
    {"dead", body_dead},
};

static char self[PATH_MAX];
static char umprun[PATH_MAX + 16];
static char rsh[64];

/* Runs umprun with the given words, then this program and the scenario. */
static int launch(const char *scenario, const char *const *words)
{
    const char *argv[16];
    int n = 0;
    argv[n++] = umprun;
    argv[n++] = "--timeout";
    argv[n++] = JOB_TIMEOUT;
    while (*words)
        argv[n++] = *words++;
    argv[n++] = self;
    argv[n++] = scenario;
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execv(umprun, (char *const *)argv);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_stream(void **state)
{
    const char *w[] = {"-n", "2", NULL};
    assert_int_equal(launch("stream", w), 0);
}

static void test_all_to_all(void **state)
{
    /* Two fake hosts on this machine: four ranks on one, one on the other. */
    const char *w[] = {"--host", "shm-a:4,shm-b:1", "--rsh", rsh, NULL};
    assert_int_equal(launch("a2a", w), 0);
}

static void test_sleep(void **state)
{
    const char *w[] = {"-n", "2", NULL};
    assert_int_equal(launch("sleep", w), 0);
}

static void test_many(void **state)
{
    /* Oversubscribed: 16 ranks on 2 cores, each one pair-wired to all. */
    const char *w[] = {"-n", "16", NULL};
    assert_int_equal(launch("many", w), 0);
}

static void test_latency(void **state)
{
    const char *w[] = {"-n", "2", NULL};
    assert_int_equal(launch("latency", w), 0);
}

static void test_dead(void **state)
{
    const char *w[] = {"-n", "2", NULL};
    assert_int_equal(launch("dead", w), 0);
}

static void test_config(void **state)
{
    const char *w[] = {"-n", "2", NULL};
    assert_int_equal(launch("config", w), 0);
}

static int driver_setup(void **state)
{
    /* A fake rsh that runs the command here, joining words like ssh. */
    snprintf(rsh, sizeof(rsh), "/tmp/ump-shm-test-rsh-%d", (int)getpid());
    FILE *f = fopen(rsh, "w");
    if (!f) return -1;
    fputs("#!/bin/sh\nshift\nexec sh -c \"$*\"\n", f);
    fclose(f);
    return chmod(rsh, 0700);
}

static int driver_teardown(void **state)
{
    unlink(rsh);
    return 0;
}

int main(int argc, char **argv)
{
    if (getenv("UMP_JOB_ID") && argc == 2) {
        /* A rank of a job the driver started. */
        for (size_t i = 0; i < UMP_ARRAY_SIZE(scenarios); i++) {
            if (strcmp(argv[1], scenarios[i].name)) continue;
            memset(&st, 0, sizeof(st));
            CHECK(ump_rt_init(&st.rt) == UMP_OK);
            int rank = ump_rt_info(st.rt)->rank;
            ump_log_set_rank(rank);
            int rc = scenarios[i].body(rank);
            ump_rt_fini(st.rt);
            return rc;
        }
        return 2;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return 1;
    self[n] = '\0';
    char dir[PATH_MAX];
    memcpy(dir, self, sizeof(dir));
    snprintf(umprun, sizeof(umprun), "%s/../bin/umprun", dirname(dir));
    if (access(umprun, X_OK) != 0) {
        printf("umprun not found at %s: cannot run the transport tests\n", umprun);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream), cmocka_unit_test(test_all_to_all),
        cmocka_unit_test(test_sleep),  cmocka_unit_test(test_config),
        cmocka_unit_test(test_many),   cmocka_unit_test(test_latency),
        cmocka_unit_test(test_dead),
    };
    return cmocka_run_group_tests(tests, driver_setup, driver_teardown);
}
