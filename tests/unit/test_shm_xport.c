/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole shm transport across forked processes. The runtime is replaced
 * by a stand-in defined here (a key-value table and a barrier in a
 * MAP_SHARED mapping), which the linker takes instead of src/rt because
 * every ump_rt_* symbol the transport needs is defined in this program.
 *
 * Scenarios: a two-rank stream of random-size messages checked byte for
 * byte, with acks sent re-entrantly from the handler and CMA reads from the
 * handler; an all-to-all among four local ranks plus one rank on another
 * node; sleeping on the doorbell; the segment file gone once all attached.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt/rt.h"
#include "util/util.h"
#include "xport/xport.h"

#define MAX_RANKS     8
#define MAX_KEYS      8
#define CHILD_TIMEOUT 40 /* seconds; ctest allows 60 */

/* --- a runtime stand-in over shared memory --------------------------------- */

struct kv_entry {
    char key[UMP_RT_KEY_MAX];
    size_t len;
    unsigned char val[UMP_RT_VAL_MAX];
};

struct world {
    int size;
    int node_of[MAX_RANKS];
    char job_id[17];
    _Atomic int barrier_count;
    _Atomic int barrier_gen;
    struct kv_entry kv[MAX_RANKS][MAX_KEYS];
};

static struct world *world;

struct ump_rt {
    ump_rt_info_t info;
};

int ump_rt_init(ump_rt_t **rt)
{
    return UMP_ERR_BOOTSTRAP;
}
void ump_rt_fini(ump_rt_t *rt)
{
    free(rt);
}
const ump_rt_info_t *ump_rt_info(const ump_rt_t *rt)
{
    return &rt->info;
}

int ump_rt_put(ump_rt_t *rt, const char *key, const void *val, size_t len)
{
    struct kv_entry *e = world->kv[rt->info.rank];
    for (int i = 0; i < MAX_KEYS; i++) {
        if (!e[i].key[0] || !strcmp(e[i].key, key)) {
            snprintf(e[i].key, sizeof(e[i].key), "%s", key);
            memcpy(e[i].val, val, len);
            e[i].len = len;
            return UMP_OK;
        }
    }
    return UMP_ERR_NO_RESOURCE;
}

int ump_rt_fence(ump_rt_t *rt)
{
    int gen = atomic_load(&world->barrier_gen);
    if (atomic_fetch_add(&world->barrier_count, 1) + 1 == world->size) {
        atomic_store(&world->barrier_count, 0);
        atomic_fetch_add(&world->barrier_gen, 1);
    } else {
        while (atomic_load(&world->barrier_gen) == gen)
            usleep(100);
    }
    return UMP_OK;
}

int ump_rt_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len)
{
    struct kv_entry *e = world->kv[rank];
    for (int i = 0; i < MAX_KEYS; i++) {
        if (!strcmp(e[i].key, key)) {
            if (e[i].len > *len) return UMP_ERR_NO_RESOURCE;
            memcpy(val, e[i].val, e[i].len);
            *len = e[i].len;
            return UMP_OK;
        }
    }
    return UMP_ERR_INVALID;
}

int ump_rt_node_of(const ump_rt_t *rt, int rank)
{
    return world->node_of[rank];
}

void ump_rt_abort(ump_rt_t *rt, int code, const char *msg)
{
    fprintf(stderr, "abort: %s\n", msg);
    _exit(code ? code : 1);
}

static ump_rt_t *make_rt(int rank)
{
    ump_rt_t *rt = calloc(1, sizeof(*rt));
    rt->info.rank = rank;
    rt->info.size = world->size;
    rt->info.node_id = world->node_of[rank];
    for (int r = 0; r < world->size; r++) {
        if (world->node_of[r] != rt->info.node_id) continue;
        if (r < rank) rt->info.local_rank++;
        rt->info.local_size++;
    }
    rt->info.num_nodes = 2;
    memcpy(rt->info.job_id, world->job_id, sizeof(rt->info.job_id));
    rt->info.backend = "test";
    return rt;
}

/* Runs body(rank) in `size` processes; node_of gives each rank's node. */
static void run_ranks(int size, const int *node_of, int (*body)(int rank))
{
    world = mmap(NULL, sizeof(*world), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(world != MAP_FAILED);
    world->size = size;
    memcpy(world->node_of, node_of, sizeof(int) * (size_t)size);
    uint8_t id[8];
    assert_int_equal(ump_random_bytes(id, sizeof(id)), 0);
    ump_hex_encode(id, sizeof(id), world->job_id);
    pid_t pids[MAX_RANKS];
    for (int r = 0; r < size; r++) {
        pids[r] = fork();
        assert_true(pids[r] >= 0);
        if (pids[r] == 0) {
            alarm(CHILD_TIMEOUT);
            ump_log_set_rank(r);
            _exit(body(r));
        }
    }
    int failed = 0;
    for (int r = 0; r < size; r++) {
        int status;
        assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            print_error("rank %d: %s %d\n", r, WIFEXITED(status) ? "exit" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            failed++;
        }
    }
    /* No segment may outlive the job. */
    DIR *d = opendir("/dev/shm");
    if (d) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "ump-%s", world->job_id);
        struct dirent *de;
        while ((de = readdir(d)))
            if (!strncmp(de->d_name, prefix, strlen(prefix))) {
                print_error("segment %s left behind\n", de->d_name);
                failed++;
            }
        closedir(d);
    }
    munmap(world, sizeof(*world));
    assert_int_equal(failed, 0);
}

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

struct state {
    ump_xp_t *xp;
    ump_rt_t *rt;
    uint32_t next[MAX_RANKS]; /* next message number expected from each */
    uint64_t acks;
    int done;
    int bad;
    uint8_t *getbuf;
    bool ack; /* acknowledge every 1000th message from the handler */
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
        int rc = xp->ops->get(xp, peer, l, 3, &r, 1);
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
    default:
        st.bad++;
    }
}

/* Opens the transport through the stand-in runtime, as the core does. */
static void setup(int rank)
{
    memset(&st, 0, sizeof(st));
    st.rt = make_rt(rank);
    ump_xp_params_t prm = {.rt = st.rt, .am_handler = handler, .arg = &st};
    CHECK(ump_xp_shm_ops.open(&prm, &st.xp) == UMP_OK);
    CHECK(st.xp->caps.reliable && st.xp->caps.ordered);
    CHECK(st.xp->caps.max_am >= st.xp->caps.seg_size + 64);
    ump_rt_fence(st.rt);
    CHECK(ump_xp_shm_ops.wireup(st.xp) == UMP_OK);
    ump_rt_fence(st.rt);
}

static void teardown(void)
{
    CHECK(st.xp->ops->flush(st.xp) == UMP_OK);
    ump_rt_fence(st.rt);
    st.xp->ops->close(st.xp);
    ump_rt_fini(st.rt);
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

static void wait_until(bool (*cond)(void))
{
    unsigned spins = 0;
    while (!cond()) {
        if (st.xp->ops->progress(st.xp) < 0) _exit(11);
        if (++spins > 100) sched_yield();
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

static void test_stream(void **state)
{
    int nodes[2] = {0, 0};
    run_ranks(2, nodes, body_stream);
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
        memset(&st, 0, sizeof(st));
        st.rt = make_rt(rank);
        ump_xp_params_t prm = {.rt = st.rt, .am_handler = handler, .arg = &st};
        CHECK(ump_xp_shm_ops.open(&prm, &st.xp) == UMP_ERR_UNSUPPORTED);
        for (int i = 0; i < 3; i++)
            ump_rt_fence(st.rt);
        ump_rt_fini(st.rt);
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

static void test_all_to_all(void **state)
{
    int nodes[5] = {0, 0, 0, 0, 1};
    run_ranks(5, nodes, body_a2a);
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

static void test_sleep(void **state)
{
    int nodes[2] = {0, 0};
    run_ranks(2, nodes, body_sleep);
}

/* --- configuration: CMA off, small rings ----------------------------------------- */

static int body_config(int rank)
{
    setenv("UMP_SHM_CMA", "no", 1);
    setenv("UMP_SHM_RING_SIZE", "16k", 1);
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

static void test_config(void **state)
{
    int nodes[2] = {0, 0};
    run_ranks(2, nodes, body_config);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_all_to_all),
        cmocka_unit_test(test_sleep),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
