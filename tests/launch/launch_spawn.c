/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launch_spawn: umprun starting processes at run time (ump_rt_spawn).
 *
 *   launch_spawn parent      the first group (2 ranks): rank 0 spawns 2
 *                            copies of this program, then 2 apps of 1 and 2
 *                            copies (spawn_multiple), checks refusals (a
 *                            missing program, a host umprun does not have,
 *                            maxprocs 0) and forged SPAWN frames, and both
 *                            ranks fence. Prints "parent rank R ok".
 *   launch_spawn failparent  rank 0 spawns 2 copies in mode "exit3": the
 *                            job must fail with the spawned rank's code.
 *   launch_spawn remoteparent
 *                            (run on hosts fake-a, fake-b through a fake
 *                            ssh) rank 0 spawns 2 copies in mode "remote"
 *                            on host fake-b: started through the agent.
 *   launch_spawn hangparent  rank 0 spawns 1 copy in mode "hang", and the
 *                            first group finalizes and exits: umprun must
 *                            wait for the child (until its --timeout).
 *   launch_spawn child TAG SIZE MODE
 *                            a spawned process: checks its group's facts,
 *                            the app number, the parent port and a custom
 *                            variable, puts, fences within its group, sees
 *                            its siblings' keys and not the parent's.
 *                            Prints "child TAG rank R of N ok". MODE exit3:
 *                            rank 1 exits 3 after the fence instead; hang:
 *                            every rank waits for a signal instead; remote:
 *                            also checks it was started for host fake-b
 *                            with a variable that needs quoting.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/rt_int.h"
#include "util/util.h"

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "launch_spawn: FAIL %s:%d: ", __FILE__, __LINE__);                     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static char self[4096];

static void put_fence_check(ump_rt_t *rt, const char *tag)
{
    const ump_rt_info_t *in = ump_rt_info(rt);
    char val[64], got[64];
    snprintf(val, sizeof(val), "%s-%d", tag, in->rank);
    CHECK(ump_rt_put(rt, "spawn.k", val, strlen(val) + 1) == UMP_OK, "put");
    int rc = ump_rt_fence(rt);
    CHECK(rc == UMP_OK, "fence: %s", ump_strerror(rc));
    for (int r = 0; r < in->size; r++) {
        size_t len = sizeof(got);
        rc = ump_rt_get(rt, r, "spawn.k", got, &len);
        snprintf(val, sizeof(val), "%s-%d", tag, r);
        CHECK(rc == UMP_OK && !strcmp(got, val), "%s rank %d: key of rank %d: %s '%s'", tag,
              in->rank, r, ump_strerror(rc), rc ? "" : got);
    }
}

static int child(int argc, char **argv)
{
    CHECK(argc == 5, "child TAG SIZE MODE");
    const char *tag = argv[2], *mode = argv[4];
    ump_rt_t *rt;
    int rc = ump_rt_init(&rt);
    CHECK(rc == UMP_OK, "child init: %s", ump_strerror(rc));
    const ump_rt_info_t *in = ump_rt_info(rt);
    CHECK(!strcmp(in->backend, "umprun"), "backend %s", in->backend);
    CHECK(in->size == atoi(argv[3]), "size %d, want %s", in->size, argv[3]);
    CHECK(in->rank >= 0 && in->rank < in->size, "rank %d", in->rank);
    CHECK(in->local_size == in->size && in->num_nodes == 1 && in->node_id == 0,
          "local size %d of %d, nodes %d", in->local_size, in->size, in->num_nodes);
    CHECK(in->local_rank == in->rank, "local rank %d", in->local_rank);
    const char *parent = getenv("SPAWN_PARENT_ID");
    CHECK(parent && strlen(in->job_id) == 16 && strcmp(in->job_id, parent),
          "job id %s, the parent's %s", in->job_id, parent ? parent : "?");
    char want[64];
    snprintf(want, sizeof(want), "test-port-%s", tag);
    CHECK(!strcmp(in->parent_port, want), "parent port '%s', want '%s'", in->parent_port, want);
    /* Spawn "M" has app 0 (1 process) and app 1 (2): rank 0 is app 0. */
    int appnum = !strcmp(tag, "M") && in->rank > 0 ? 1 : 0;
    CHECK(in->appnum == appnum, "appnum %d, want %d", in->appnum, appnum);
    snprintf(want, sizeof(want), "%s-app%d", tag, appnum);
    const char *v = getenv("SPAWN_TEST_VAR");
    CHECK(v && !strcmp(v, want), "SPAWN_TEST_VAR '%s', want '%s'", v ? v : "", want);
    if (!strcmp(mode, "remote")) {
        const char *h = getenv("UMP_JOB_HOST"), *q = getenv("SPAWN_QUOTE");
        CHECK(h && !strcmp(h, "fake-b") && !strcmp(in->hostname, "fake-b"), "host %s", h ? h : "?");
        CHECK(q && !strcmp(q, "a b'c $HOME"), "SPAWN_QUOTE '%s'", q ? q : "");
    }
    put_fence_check(rt, tag);
    /* The parent group's keys (same ranks, other group) never reach us. */
    char got[64];
    size_t len = sizeof(got);
    CHECK(ump_rt_get(rt, 0, "parent.k", got, &len) == UMP_ERR_INVALID, "parent's key visible");
    if (!strcmp(mode, "exit3") && in->rank == 1) {
        printf("child %s rank %d exits 3\n", tag, in->rank);
        fflush(stdout);
        _exit(3);
    }
    if (!strcmp(mode, "hang")) {
        printf("child %s rank %d hangs\n", tag, in->rank);
        fflush(stdout);
        for (;;)
            pause();
    }
    CHECK(ump_rt_fence(rt) == UMP_OK, "second fence");
    printf("child %s rank %d of %d ok\n", tag, in->rank, in->size);
    ump_rt_fini(rt);
    return 0;
}

/* Sends a raw SPAWN frame and reads the answer: the status, text in buf. */
static int raw_spawn(ump_rt_t *rt, const ump_kvs_buf_t *f, char *buf, size_t len)
{
    CHECK(send(rt->fd, f->p, f->len, MSG_NOSIGNAL) == (ssize_t)f->len, "send forged");
    uint8_t hdr[4], body[4096];
    size_t got = 0, want = 4;
    uint8_t *p = hdr;
    for (int part = 0; part < 2; part++) {
        while (got < want) {
            struct pollfd pfd = {.fd = rt->fd, .events = POLLIN};
            CHECK(poll(&pfd, 1, 30000) == 1, "no answer to a forged spawn");
            ssize_t n = recv(rt->fd, p + got, want - got, 0);
            CHECK(n > 0, "umprun closed the connection after a forged spawn");
            got += (size_t)n;
        }
        if (part == 0) {
            want = ump_kvs_load_u32(hdr);
            CHECK(want >= 6 && want <= sizeof(body), "answer length %zu", want);
            p = body;
            got = 0;
        }
    }
    CHECK(body[0] == UMP_KVS_SPAWN_ANS, "answer type %u", body[0]);
    uint32_t n = ump_kvs_load_u32(body + 2);
    CHECK(n + 6 == want, "answer text length %u", n);
    snprintf(buf, len, "%.*s", (int)n, (const char *)body + 6);
    return body[1];
}

/* Frames a well-formed request cannot be: each must be refused, the
 * connection left usable. */
static void forged(ump_rt_t *rt)
{
    for (int k = 0; k < 7; k++) {
        ump_kvs_buf_t b = {0};
        size_t f = ump_kvs_frame_begin(&b, UMP_KVS_SPAWN);
        switch (k) {
        case 0: /* empty */
            break;
        case 1: /* a huge app count */
            ump_kvs_put_u32(&b, 0xffffffffu);
            break;
        case 2: /* a string length past the frame */
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 1000);
            ump_kvs_put_bytes(&b, "true", 4);
            break;
        case 3: /* an argument count the frame cannot hold */
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 0x0fffffffu);
            break;
        case 4: /* a NUL inside the command */
        case 5: /* a byte after the end */
        case 6: /* an environment count past the frame */
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 1);
            ump_kvs_put_u32(&b, 5);
            ump_kvs_put_bytes(&b, k == 4 ? "tr\0ue" : "/true", 5);
            ump_kvs_put_u32(&b, k == 6 ? 100000u : 0u);
            ump_kvs_put_u32(&b, 0);
            ump_kvs_put_u32(&b, 0);
            ump_kvs_put_u32(&b, 0);
            if (k == 5) ump_kvs_put_u8(&b, 7);
            break;
        }
        ump_kvs_frame_end(&b, f);
        char why[1024];
        int st = raw_spawn(rt, &b, why, sizeof(why));
        CHECK(st == UMP_KVS_SPAWN_REFUSED && !strncmp(why, "malformed spawn request", 23),
              "forged frame %d: status %d '%s'", k, st, why);
        printf("forged frame %d refused: %s\n", k, why);
        ump_kvs_buf_free(&b);
    }
}

static void refused(ump_rt_t *rt, ump_rt_app_t *app, const char *want)
{
    char id[17] = "", why[1024] = "";
    int rc = ump_rt_spawn(rt, app, 1, NULL, id, sizeof(id), why, sizeof(why));
    CHECK(rc == UMP_ERR_INVALID && strstr(why, want), "spawn of %s: %s '%s', want '%s'", app->cmd,
          ump_strerror(rc), why, want);
    printf("refused as expected: %s\n", why);
}

static void spawn_ok(ump_rt_t *rt, ump_rt_app_t *apps, int napps, const char *port)
{
    char id[17] = "", why[1024] = "";
    int rc = ump_rt_spawn(rt, apps, napps, port, id, sizeof(id), why, sizeof(why));
    CHECK(rc == UMP_OK, "spawn: %s: %s", ump_strerror(rc), why);
    CHECK(strlen(id) == 16 && strspn(id, "0123456789abcdef") == 16, "group id '%s'", id);
    CHECK(strcmp(id, ump_rt_info(rt)->job_id), "the new group has the parent's id");
    printf("spawned group %s\n", id);
}

enum parent_mode { P_OK, P_FAIL, P_HANG, P_REMOTE };

static int parent(enum parent_mode mode)
{
    ump_rt_t *rt;
    int rc = ump_rt_init(&rt);
    CHECK(rc == UMP_OK, "init: %s", ump_strerror(rc));
    const ump_rt_info_t *in = ump_rt_info(rt);
    CHECK(in->appnum == 0 && !in->parent_port[0], "the first group has an app or parent");
    char penv[64];
    snprintf(penv, sizeof(penv), "SPAWN_PARENT_ID=%s", in->job_id);
    CHECK(ump_rt_put(rt, "parent.k", "p", 2) == UMP_OK, "put");
    if (in->rank == 0 && mode != P_REMOTE) {
        char *args_a[] = {"child", "A", mode == P_HANG ? "1" : "2",
                          mode == P_FAIL   ? "exit3"
                          : mode == P_HANG ? "hang"
                                           : "ok",
                          NULL};
        char *env_a[] = {"SPAWN_TEST_VAR=A-app0", penv, NULL};
        ump_rt_app_t a = {
            .cmd = self, .argv = args_a, .maxprocs = mode == P_HANG ? 1 : 2, .env = env_a};
        spawn_ok(rt, &a, 1, "test-port-A");
        if (mode == P_FAIL) { /* the job ends when child 1 exits 3: wait for it */
            for (;;)
                pause();
        }
    }
    if (in->rank == 0 && mode == P_REMOTE) {
        char *args_r[] = {"child", "R", "2", "remote", NULL};
        char *env_r[] = {"SPAWN_TEST_VAR=R-app0", "SPAWN_QUOTE=a b'c $HOME", penv, NULL};
        ump_rt_app_t r = {
            .cmd = self, .argv = args_r, .maxprocs = 2, .env = env_r, .hosts = "fake-b"};
        spawn_ok(rt, &r, 1, "test-port-R");
    }
    if (in->rank == 0 && mode == P_OK) {
        char *args_m[] = {"child", "M", "3", "ok", NULL};
        char *env_m0[] = {"SPAWN_TEST_VAR=M-app0", penv, NULL};
        char *env_m1[] = {"SPAWN_TEST_VAR=M-app1", penv, NULL};
        ump_rt_app_t m[2] = {
            {.cmd = self, .argv = args_m, .maxprocs = 1, .env = env_m0, .hosts = "localhost"},
            {.cmd = self, .argv = args_m, .maxprocs = 2, .env = env_m1, .wdir = "/"},
        };
        spawn_ok(rt, m, 2, "test-port-M");

        ump_rt_app_t bad = {.cmd = "no-such-program-ump-spawn", .maxprocs = 1};
        refused(rt, &bad, "cannot find program 'no-such-program-ump-spawn'");
        bad = (ump_rt_app_t){.cmd = self, .maxprocs = 1, .hosts = "localhost,nohost.invalid"};
        refused(rt, &bad, "host 'nohost.invalid' is not one of umprun's hosts");
        bad = (ump_rt_app_t){.cmd = self, .maxprocs = 0};
        refused(rt, &bad, "maxprocs 0");
        char *bad_env[] = {"NOEQUALS", NULL};
        bad = (ump_rt_app_t){.cmd = self, .maxprocs = 1, .env = bad_env};
        refused(rt, &bad, "is not NAME=VALUE");
        forged(rt);
    }
    /* The connection is in step after all that: the group fences. */
    put_fence_check(rt, "P");
    printf("parent rank %d ok\n", in->rank);
    ump_rt_fini(rt);
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: launch_spawn parent|failparent|child ...");
    CHECK(realpath(argv[0], self), "realpath %s", argv[0]);
    if (!strcmp(argv[1], "child")) return child(argc, argv);
    if (!strcmp(argv[1], "parent")) return parent(P_OK);
    if (!strcmp(argv[1], "failparent")) return parent(P_FAIL);
    if (!strcmp(argv[1], "hangparent")) return parent(P_HANG);
    if (!strcmp(argv[1], "remoteparent")) return parent(P_REMOTE);
    CHECK(0, "unknown mode %s", argv[1]);
}
