/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rt client without umprun: the singleton backend, the validation of
 * UMP_JOB_* variables, and the umprun backend against a scripted fake
 * key-value server in a thread (accepted hello, refused hello, a fence
 * answer, a server that vanishes during a fence, spawn requests).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/kvs_proto.h"
#include "rt/rt.h"
#include "util/util.h"

#define SECRET_HEX "000102030405060708090a0b0c0d0e0f"

static void clear_env(void)
{
    static const char *const vars[] = {
        "UMP_JOB_ID",         "UMP_JOB_SECRET",     "UMP_JOB_KVS",        "UMP_JOB_RANK",
        "UMP_JOB_SIZE",       "UMP_JOB_LOCAL_RANK", "UMP_JOB_LOCAL_SIZE", "UMP_JOB_NODE_ID",
        "UMP_JOB_NUM_NODES",  "UMP_JOB_HOST",       "UMP_JOB_SLOT",       "UMP_JOB_APPNUM",
        "UMP_JOB_PARENT_PORT"};
    for (size_t i = 0; i < UMP_ARRAY_SIZE(vars); i++)
        unsetenv(vars[i]);
}

/* Rank 1 of 2, on node 1 of 2, talking to 127.0.0.1:port. */
static void set_env(int port)
{
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "127.0.0.1:%d", port);
    setenv("UMP_JOB_ID", "0123456789abcdef", 1);
    setenv("UMP_JOB_SECRET", SECRET_HEX, 1);
    setenv("UMP_JOB_KVS", kvs, 1);
    setenv("UMP_JOB_RANK", "1", 1);
    setenv("UMP_JOB_SIZE", "2", 1);
    setenv("UMP_JOB_LOCAL_RANK", "0", 1);
    setenv("UMP_JOB_LOCAL_SIZE", "1", 1);
    setenv("UMP_JOB_NODE_ID", "1", 1);
    setenv("UMP_JOB_NUM_NODES", "2", 1);
    setenv("UMP_JOB_HOST", "hostB", 1);
}

static void test_singleton(void **state)
{
    clear_env();
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    const ump_rt_info_t *in = ump_rt_info(rt);
    assert_string_equal(in->backend, "singleton");
    assert_int_equal(in->rank, 0);
    assert_int_equal(in->size, 1);
    assert_int_equal(strlen(in->job_id), 16);
    assert_int_equal(ump_rt_put(rt, "k", "abc", 4), UMP_OK);
    assert_int_equal(ump_rt_put(rt, "k", "xyz!", 5), UMP_OK); /* a later put wins */
    assert_int_equal(ump_rt_fence(rt), UMP_OK);
    char buf[8];
    size_t len = sizeof(buf);
    assert_int_equal(ump_rt_get(rt, 0, "k", buf, &len), UMP_OK);
    assert_int_equal(len, 5);
    assert_string_equal(buf, "xyz!");
    len = 2;
    assert_int_equal(ump_rt_get(rt, 0, "k", buf, &len), UMP_ERR_NO_RESOURCE);
    assert_int_equal(len, 5);
    len = sizeof(buf);
    assert_int_equal(ump_rt_get(rt, 0, "nope", buf, &len), UMP_ERR_INVALID);
    assert_int_equal(ump_rt_get(rt, 1, "k", buf, &len), UMP_ERR_INVALID);
    char longkey[UMP_RT_KEY_MAX + 1];
    memset(longkey, 'a', sizeof(longkey) - 1);
    longkey[UMP_RT_KEY_MAX] = '\0';
    assert_int_equal(ump_rt_put(rt, longkey, "v", 1), UMP_ERR_INVALID);
    assert_int_equal(ump_rt_node_of(rt, 0), 0);
    char addr[32];
    assert_int_equal(ump_rt_local_addr(rt, addr, sizeof(addr)), UMP_OK);
    assert_string_equal(addr, "127.0.0.1");
    assert_int_equal(ump_rt_local_addr(rt, addr, 4), UMP_ERR_NO_RESOURCE);
    /* Nobody to start processes: said so, nothing else happens. */
    assert_int_equal(in->appnum, 0);
    assert_string_equal(in->parent_port, "");
    ump_rt_app_t app = {.cmd = "true", .maxprocs = 1};
    char id[17], why[256];
    assert_int_equal(ump_rt_spawn(rt, &app, 1, NULL, id, sizeof(id), why, sizeof(why)),
                     UMP_ERR_UNSUPPORTED);
    assert_non_null(strstr(why, "umprun"));
    ump_rt_fini(rt);
}

static void expect_bootstrap(const char *var, const char *val)
{
    ump_rt_t *rt = NULL;
    set_env(1);
    if (val)
        setenv(var, val, 1);
    else
        unsetenv(var);
    assert_int_equal(ump_rt_init(&rt), UMP_ERR_BOOTSTRAP);
}

static void test_bad_env(void **state)
{
    expect_bootstrap("UMP_JOB_RANK", NULL);
    expect_bootstrap("UMP_JOB_RANK", "2"); /* == size */
    expect_bootstrap("UMP_JOB_RANK", "-1");
    expect_bootstrap("UMP_JOB_RANK", "1x");
    expect_bootstrap("UMP_JOB_SIZE", "0");
    expect_bootstrap("UMP_JOB_SECRET", "0011");
    expect_bootstrap("UMP_JOB_SECRET", "zz0102030405060708090a0b0c0d0e0f");
    expect_bootstrap("UMP_JOB_ID", "0123");
    expect_bootstrap("UMP_JOB_LOCAL_RANK", "1"); /* == local size */
    expect_bootstrap("UMP_JOB_NODE_ID", "2");
    expect_bootstrap("UMP_JOB_NUM_NODES", "3"); /* more nodes than ranks */
    expect_bootstrap("UMP_JOB_KVS", "nocolon");
    expect_bootstrap("UMP_JOB_KVS", "127.0.0.1:1"); /* nobody listens on port 1 */
    expect_bootstrap("UMP_JOB_APPNUM", "one");
    expect_bootstrap("UMP_JOB_APPNUM", "-1");
    char port[UMP_RT_PORT_NAME_MAX + 1];
    memset(port, 'p', UMP_RT_PORT_NAME_MAX);
    port[UMP_RT_PORT_NAME_MAX] = '\0';
    expect_bootstrap("UMP_JOB_PARENT_PORT", port); /* one byte too long */
    clear_env();
}

/* --- a scripted fake server ---------------------------------------------- */

/* WRONG_KEY: the server does not know the secret (its proof is made with
 * another key); REPLAY: it answers with the challenge and proof recorded
 * from an earlier, genuine handshake. The rank must refuse both and send
 * nothing after its hello. */
enum script { ACCEPT_ALL, REFUSE, VANISH_IN_FENCE, WRONG_KEY, REPLAY };

static const uint8_t job_key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
/* The last genuine CHALLENGE frame sent, for REPLAY. */
static uint8_t recorded[128];
static size_t recorded_len;

struct fake {
    int lfd, port;
    enum script script;
    pthread_t thr;
    /* what the server saw */
    uint32_t rank, pid;
    bool proof_ok;     /* the rank's AUTH proof checked out */
    int after_refusal; /* frames received after a refused challenge */
    int puts, finalized;
    char put_key[64];
    int spawns;                /* SPAWN requests: 1st started, 2nd refused, 3rd unanswered */
    uint32_t napps, maxprocs0; /* of the first request */
    char cmd0[64], arg0[64], env0[64], sport[64];
};

/* Copies a u32-length string of a SPAWN request into out. */
static void get_str(ump_kvs_rd_t *rd, char *out, size_t len)
{
    uint32_t n = ump_kvs_get_u32(rd);
    const char *p = ump_kvs_get_bytes(rd, n);
    snprintf(out, len, "%.*s", p ? (int)n : 0, p ? p : "");
}

/* Reads the first SPAWN request into f (a 1-app request is expected). */
static void record_spawn(struct fake *f, ump_kvs_rd_t *rd)
{
    char skip[64];
    f->napps = ump_kvs_get_u32(rd);
    f->maxprocs0 = ump_kvs_get_u32(rd);
    uint32_t argc = ump_kvs_get_u32(rd);
    get_str(rd, f->cmd0, sizeof(f->cmd0));
    for (uint32_t i = 1; i < argc; i++)
        get_str(rd, i == 1 ? f->arg0 : skip, 64);
    uint32_t nenv = ump_kvs_get_u32(rd);
    for (uint32_t i = 0; i < nenv; i++)
        get_str(rd, i == 0 ? f->env0 : skip, 64);
    get_str(rd, skip, sizeof(skip)); /* wdir */
    get_str(rd, skip, sizeof(skip)); /* hosts */
    get_str(rd, f->sport, sizeof(f->sport));
    assert_false(rd->bad);
    assert_int_equal(rd->off, rd->len);
}

static int read_frame(int fd, uint8_t *buf, size_t cap, uint32_t *len)
{
    uint8_t h[4];
    if (recv(fd, h, 4, MSG_WAITALL) != 4) return -1;
    *len = ump_kvs_load_u32(h);
    if (*len > cap || recv(fd, buf, *len, MSG_WAITALL) != (ssize_t)*len) return -1;
    return 0;
}

static void send_buf(int fd, ump_kvs_buf_t *b)
{
    assert_false(b->oom);
    assert_int_equal(send(fd, b->p, b->len, MSG_NOSIGNAL), (ssize_t)b->len);
    b->len = 0;
}

static void *fake_main(void *arg)
{
    struct fake *f = arg;
    static uint8_t buf[1 << 16];
    uint32_t len;
    ump_kvs_buf_t b = {0};
    int fd = accept(f->lfd, NULL, NULL);
    if (fd < 0 || read_frame(fd, buf, sizeof(buf), &len) || buf[0] != UMP_KVS_HELLO) goto out;
    ump_kvs_rd_t rd = {.p = buf + 1, .len = len - 1};
    if (ump_kvs_get_u32(&rd) != UMP_KVS_MAGIC || ump_kvs_get_u32(&rd) != UMP_KVS_VERSION) goto out;
    f->rank = ump_kvs_get_u32(&rd);
    f->pid = ump_kvs_get_u32(&rd);
    const uint8_t *hello_nc = ump_kvs_get_bytes(&rd, UMP_AUTH_NONCE_LEN);
    if (rd.bad) goto out;
    uint8_t nc[UMP_AUTH_NONCE_LEN]; /* buf is reused for the next frame */
    memcpy(nc, hello_nc, sizeof(nc));
    if (f->script == REFUSE) {
        size_t s = ump_kvs_frame_begin(&b, UMP_KVS_REFUSED);
        ump_kvs_put_u32(&b, 5);
        ump_kvs_put_bytes(&b, "nope!", 5);
        ump_kvs_frame_end(&b, s);
        send_buf(fd, &b);
        goto out;
    }
    uint8_t na[UMP_AUTH_NONCE_LEN], mac[UMP_AUTH_MAC_LEN], key[16], extra[8];
    memcpy(key, job_key, sizeof(key));
    if (f->script == WRONG_KEY) key[7] ^= 0x20;
    assert_int_equal(ump_auth_nonce(na), 0);
    ump_auth_ctx_t ctx = ump_kvs_auth_ctx(key, sizeof(key), nc, na, f->rank, f->pid, extra);
    assert_int_equal(ump_auth_mac(mac, &ctx, UMP_AUTH_ACCEPTOR), 0);
    size_t s = ump_kvs_frame_begin(&b, UMP_KVS_CHALLENGE);
    ump_kvs_put_bytes(&b, na, sizeof(na));
    ump_kvs_put_bytes(&b, mac, sizeof(mac));
    ump_kvs_frame_end(&b, s);
    if (f->script == REPLAY) {
        assert_true(recorded_len > 0);
        memcpy(b.p, recorded, recorded_len);
        b.len = recorded_len;
    } else if (f->script == ACCEPT_ALL) {
        memcpy(recorded, b.p, b.len);
        recorded_len = b.len;
    }
    send_buf(fd, &b);
    if (f->script == WRONG_KEY || f->script == REPLAY) {
        /* The rank must close without a proof or any job data. */
        while (read_frame(fd, buf, sizeof(buf), &len) == 0)
            f->after_refusal++;
        goto out;
    }
    if (read_frame(fd, buf, sizeof(buf), &len) || buf[0] != UMP_KVS_AUTH) goto out;
    rd = (ump_kvs_rd_t){.p = buf + 1, .len = len - 1};
    const uint8_t *proof = ump_kvs_get_bytes(&rd, UMP_AUTH_MAC_LEN);
    f->proof_ok = !rd.bad && ump_auth_check(proof, &ctx, UMP_AUTH_CONNECTOR);
    /* A reflected answer (the acceptor's own proof sent back) must not pass. */
    assert_false(ump_auth_check(mac, &ctx, UMP_AUTH_CONNECTOR));
    if (!f->proof_ok) goto out;
    ump_kvs_frame_end(&b, ump_kvs_frame_begin(&b, UMP_KVS_OK));
    send_buf(fd, &b);
    while (read_frame(fd, buf, sizeof(buf), &len) == 0) {
        rd = (ump_kvs_rd_t){.p = buf + 1, .len = len - 1};
        if (buf[0] == UMP_KVS_PUT) {
            f->puts = (int)ump_kvs_get_u32(&rd);
            uint8_t kl = ump_kvs_get_u8(&rd);
            memcpy(f->put_key, ump_kvs_get_bytes(&rd, kl), kl);
        } else if (buf[0] == UMP_KVS_FENCE) {
            if (f->script == VANISH_IN_FENCE) {
                usleep(100000);
                goto out;
            }
            /* Both ranks' node ids plus a value from "rank 0". */
            size_t s = ump_kvs_frame_begin(&b, UMP_KVS_FENCE_DONE);
            ump_kvs_put_u32(&b, 3);
            const struct {
                uint32_t rank;
                const char *k, *v;
            } e[] = {{0, "rt.node", "0"}, {1, "rt.node", "1"}, {0, "addr", "hello from 0"}};
            for (int i = 0; i < 3; i++) {
                ump_kvs_put_u32(&b, e[i].rank);
                ump_kvs_put_u8(&b, (uint8_t)strlen(e[i].k));
                ump_kvs_put_bytes(&b, e[i].k, strlen(e[i].k));
                ump_kvs_put_u32(&b, (uint32_t)strlen(e[i].v) + 1);
                ump_kvs_put_bytes(&b, e[i].v, strlen(e[i].v) + 1);
            }
            ump_kvs_frame_end(&b, s);
            send_buf(fd, &b);
        } else if (buf[0] == UMP_KVS_SPAWN) {
            if (++f->spawns == 1) record_spawn(f, &rd);
            if (f->spawns == 3) goto out; /* umprun gone before it answered */
            const char *text = f->spawns == 1 ? "fedcba9876543210" : "app 0: maxprocs 0";
            size_t s = ump_kvs_frame_begin(&b, UMP_KVS_SPAWN_ANS);
            ump_kvs_put_u8(&b, f->spawns == 1 ? UMP_KVS_SPAWN_STARTED : UMP_KVS_SPAWN_REFUSED);
            ump_kvs_put_u32(&b, (uint32_t)strlen(text));
            ump_kvs_put_bytes(&b, text, strlen(text));
            ump_kvs_frame_end(&b, s);
            send_buf(fd, &b);
        } else if (buf[0] == UMP_KVS_FINALIZE) {
            f->finalized = 1;
            ump_kvs_frame_end(&b, ump_kvs_frame_begin(&b, UMP_KVS_OK));
            send_buf(fd, &b);
        }
    }
out:
    ump_kvs_buf_free(&b);
    if (fd >= 0) close(fd);
    return NULL;
}

static void fake_start(struct fake *f, enum script script)
{
    memset(f, 0, sizeof(*f));
    f->script = script;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(f->lfd >= 0);
    assert_int_equal(bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(f->lfd, 4), 0);
    getsockname(f->lfd, (struct sockaddr *)&sa, &sl);
    f->port = ntohs(sa.sin_port);
    assert_int_equal(pthread_create(&f->thr, NULL, fake_main, f), 0);
    set_env(f->port);
}

static void fake_stop(struct fake *f)
{
    pthread_join(f->thr, NULL);
    close(f->lfd);
    clear_env();
}

static void test_umprun_ok(void **state)
{
    struct fake f;
    fake_start(&f, ACCEPT_ALL);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    const ump_rt_info_t *in = ump_rt_info(rt);
    assert_string_equal(in->backend, "umprun");
    assert_int_equal(in->rank, 1);
    assert_int_equal(in->size, 2);
    assert_int_equal(in->node_id, 1);
    assert_string_equal(in->hostname, "hostB");
    assert_string_equal(in->job_id, "0123456789abcdef");
    char addr[64];
    assert_int_equal(ump_rt_local_addr(rt, addr, sizeof(addr)), UMP_OK);
    assert_string_equal(addr, "127.0.0.1");
    assert_int_equal(ump_rt_put(rt, "mine", "x", 2), UMP_OK);
    assert_int_equal(ump_rt_fence(rt), UMP_OK);
    char buf[32];
    size_t len = sizeof(buf);
    assert_int_equal(ump_rt_get(rt, 0, "addr", buf, &len), UMP_OK);
    assert_string_equal(buf, "hello from 0");
    len = sizeof(buf);
    assert_int_equal(ump_rt_get(rt, 1, "mine", buf, &len), UMP_OK); /* own put */
    assert_int_equal(ump_rt_node_of(rt, 0), 0);
    assert_int_equal(ump_rt_node_of(rt, 1), 1);
    assert_int_equal(ump_rt_node_of(rt, 2), UMP_ERR_RANK);
    ump_rt_fini(rt);
    fake_stop(&f);
    assert_int_equal(f.rank, 1);
    assert_int_equal(f.pid, (uint32_t)getpid());
    assert_true(f.proof_ok);
    assert_int_equal(f.puts, 2); /* rt.node + mine */
    assert_string_equal(f.put_key, "rt.node");
    assert_int_equal(f.finalized, 1);
}

static void test_umprun_refused(void **state)
{
    struct fake f;
    fake_start(&f, REFUSE);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_ERR_AUTH);
    fake_stop(&f);
}

/* A server that does not know the secret, or replays a genuine server's
 * answer to a new hello: the rank refuses it (UMP_ERR_AUTH) and sends it
 * neither a proof nor anything of the job. */
static void test_umprun_fake_server(void **state)
{
    struct fake f;
    ump_rt_t *rt;
    fake_start(&f, ACCEPT_ALL); /* a genuine handshake to record */
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    ump_rt_fini(rt);
    fake_stop(&f);
    assert_true(f.proof_ok);

    enum script bad[] = {WRONG_KEY, REPLAY};
    for (int i = 0; i < 2; i++) {
        fake_start(&f, bad[i]);
        assert_int_equal(ump_rt_init(&rt), UMP_ERR_AUTH);
        fake_stop(&f);
        assert_int_equal(f.after_refusal, 0);
        assert_int_equal(f.puts, 0);
    }
}

static void test_umprun_vanishes(void **state)
{
    struct fake f;
    fake_start(&f, VANISH_IN_FENCE);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    uint64_t t0 = ump_time_ns();
    assert_int_equal(ump_rt_fence(rt), UMP_ERR_BOOTSTRAP); /* woken, not hung */
    assert_true(ump_time_ns() - t0 < 3000000000ull);
    ump_rt_fini(rt);
    fake_stop(&f);
}

/* A spawned process (UMP_JOB_SLOT, _APPNUM, _PARENT_PORT set) says hello as
 * its slot; ump_rt_spawn encodes the request, returns the started group's
 * id, a refusal's reason, and UMP_ERR_BOOTSTRAP when umprun goes away. */
static void test_umprun_spawn(void **state)
{
    struct fake f;
    fake_start(&f, ACCEPT_ALL);
    setenv("UMP_JOB_SLOT", "7", 1);
    setenv("UMP_JOB_APPNUM", "3", 1);
    setenv("UMP_JOB_PARENT_PORT", "ump-port:127.0.0.1:9:abc", 1);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    const ump_rt_info_t *in = ump_rt_info(rt);
    assert_int_equal(in->rank, 1);
    assert_int_equal(in->appnum, 3);
    assert_string_equal(in->parent_port, "ump-port:127.0.0.1:9:abc");

    char *args[] = {"child", "x", NULL}, *env[] = {"A=b", NULL};
    ump_rt_app_t app = {.cmd = "prog", .argv = args, .maxprocs = 4, .env = env};
    char id[17] = "", why[256] = "";
    /* Checked before anything is sent. */
    assert_int_equal(ump_rt_spawn(rt, &app, 0, NULL, id, sizeof(id), why, sizeof(why)),
                     UMP_ERR_INVALID);
    assert_int_equal(ump_rt_spawn(rt, &app, 1, NULL, id, 16, why, sizeof(why)), UMP_ERR_INVALID);
    ump_rt_app_t neg = {.cmd = "prog", .maxprocs = -1};
    assert_int_equal(ump_rt_spawn(rt, &neg, 1, NULL, id, sizeof(id), why, sizeof(why)),
                     UMP_ERR_INVALID);
    assert_non_null(strstr(why, "negative"));

    assert_int_equal(ump_rt_spawn(rt, &app, 1, "port-1", id, sizeof(id), why, sizeof(why)), UMP_OK);
    assert_string_equal(id, "fedcba9876543210");
    assert_int_equal(ump_rt_spawn(rt, &app, 1, NULL, id, sizeof(id), why, sizeof(why)),
                     UMP_ERR_INVALID);
    assert_string_equal(why, "app 0: maxprocs 0");
    uint64_t t0 = ump_time_ns();
    assert_int_equal(ump_rt_spawn(rt, &app, 1, NULL, id, sizeof(id), NULL, 0), UMP_ERR_BOOTSTRAP);
    assert_true(ump_time_ns() - t0 < 10000000000ull); /* woken by the close, not the 30 s */
    ump_rt_fini(rt);
    fake_stop(&f);
    assert_int_equal(f.rank, 7); /* the slot */
    assert_true(f.proof_ok);
    assert_int_equal(f.spawns, 3);
    assert_int_equal(f.napps, 1);
    assert_int_equal(f.maxprocs0, 4);
    assert_string_equal(f.cmd0, "prog");
    assert_string_equal(f.arg0, "child");
    assert_string_equal(f.env0, "A=b");
    assert_string_equal(f.sport, "port-1");
}

/* The frame reader stops at the frame's end instead of running past it. */
static void test_proto_bounds(void **state)
{
    ump_kvs_buf_t b = {0};
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_PUT);
    ump_kvs_put_u32(&b, 0xdeadbeef);
    ump_kvs_put_u8(&b, 7);
    ump_kvs_frame_end(&b, f);
    assert_int_equal(b.len, 4 + 1 + 4 + 1);
    assert_int_equal(ump_kvs_load_u32(b.p), 6);
    assert_int_equal(b.p[4], UMP_KVS_PUT);
    ump_kvs_rd_t rd = {.p = b.p + 5, .len = b.len - 5};
    assert_int_equal(ump_kvs_get_u32(&rd), 0xdeadbeef);
    assert_false(rd.bad);
    assert_null(ump_kvs_get_bytes(&rd, 2)); /* only 1 byte left */
    assert_true(rd.bad);
    assert_int_equal(ump_kvs_get_u8(&rd), 0); /* stays bad */
    ump_kvs_rd_t rd2 = {.p = b.p + 5, .len = b.len - 5};
    assert_null(ump_kvs_get_bytes(&rd2, SIZE_MAX)); /* no overflow in the check */
    assert_true(rd2.bad);
    ump_kvs_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proto_bounds),
        cmocka_unit_test(test_singleton),
        cmocka_unit_test(test_bad_env),
        cmocka_unit_test(test_umprun_ok),
        cmocka_unit_test(test_umprun_refused),
        cmocka_unit_test(test_umprun_vanishes),
        cmocka_unit_test(test_umprun_fake_server),
        cmocka_unit_test(test_umprun_spawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
