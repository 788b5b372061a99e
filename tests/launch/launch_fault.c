/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launch_fault MODE VICTIM WAIT [token]: a job where rank VICTIM misbehaves
 * and the others wait, to check that umprun ends the job, names the rank and
 * cleans up. Every rank first creates /dev/shm/ump-<jobid>-test-<rank> (as
 * the shm transport would) so the test can see umprun remove it (not with
 * UMP_TEST_NO_SHM set). The token
 * argument is unused: it only makes the processes findable with pgrep -f.
 *   MODE:  abort     the victim calls abort()
 *          kill9     the victim kills itself with SIGKILL
 *          exit3     the victim exits 3 after init, without finalizing
 *          exit0     the victim exits 0 after init, without finalizing
 *          rtabort   the victim calls ump_rt_abort(rt, 7, "...")
 *          none      the victim only sleeps (so a fence never completes)
 *   WAIT:  fence (block in a fence), spin (burn CPU), stubborn (spin, ignoring
 *          SIGTERM), sleep
 * Special modes, without VICTIM/WAIT:
 *          badsecret    init with a corrupted UMP_JOB_SECRET; expects UMP_ERR_AUTH
 *          noauth       connect to UMP_JOB_KVS and run the handshake by hand
 *                       with a wrong secret; expects the server to refuse
 *                       and close; then runs a normal init/fence/fini
 *          replay       runs init through a recording proxy, then replays
 *                       the recorded hello and proof on a new connection;
 *                       expects the server to refuse it; then fence/fini
 *          badenv VAR   sets VAR=garbage; expects UMP_ERR_BOOTSTRAP
 *          cat          rank 0 copies stdin to stdout, then init/fini
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt/kvs_proto.h"
#include "rt/rt.h"
#include "util/util.h"

static void make_shm_file(void)
{
    const char *id = getenv("UMP_JOB_ID"), *rank = getenv("UMP_JOB_RANK");
    if (!id || !rank || getenv("UMP_TEST_NO_SHM")) return;
    char path[128];
    snprintf(path, sizeof(path), "/dev/shm/ump-%s-test-%s", id, rank);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0) close(fd);
}

static int kvs_dial(void)
{
    const char *kvs = getenv("UMP_JOB_KVS");
    char host[64];
    snprintf(host, sizeof(host), "%s", kvs ? kvs : "");
    char *colon = strrchr(host, ':');
    if (!colon) return -1;
    *colon = '\0';
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        perror("connect");
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads what the server sends until it closes (5 s at most); returns the
 * type of the last frame, or -1. */
static int read_to_eof(int fd, const char *who)
{
    uint8_t buf[512];
    size_t total = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 5000) != 1) {
            fprintf(stderr, "%s: server did not close the connection\n", who);
            return -1;
        }
        ssize_t r = read(fd, buf + total, sizeof(buf) - total);
        if (r <= 0) break;
        total += (size_t)r;
        if (total == sizeof(buf)) return -1;
    }
    int last = -1;
    for (size_t off = 0; off + 5 <= total;) {
        last = buf[off + 4];
        off += 4 + ump_kvs_load_u32(buf + off);
    }
    return last;
}

/* The handshake of kvs_proto.h by hand, with a wrong secret. */
static int raw_bad_hello(void)
{
    int fd = kvs_dial();
    if (fd < 0) return 1;
    uint8_t nc[UMP_AUTH_NONCE_LEN], key[UMP_RT_SECRET_LEN] = {0}, mac[UMP_AUTH_MAC_LEN], extra[8];
    uint32_t rank = (uint32_t)atoi(getenv("UMP_JOB_RANK")), pid = (uint32_t)getpid();
    ump_auth_nonce(nc);
    ump_kvs_buf_t b = {0};
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_HELLO);
    ump_kvs_put_u32(&b, UMP_KVS_MAGIC);
    ump_kvs_put_u32(&b, UMP_KVS_VERSION);
    ump_kvs_put_u32(&b, rank);
    ump_kvs_put_u32(&b, pid);
    ump_kvs_put_bytes(&b, nc, sizeof(nc));
    ump_kvs_frame_end(&b, f);
    if (write(fd, b.p, b.len) != (ssize_t)b.len) return 1;
    uint8_t ch[4 + 1 + 2 * 32];
    if (recv(fd, ch, sizeof(ch), MSG_WAITALL) != (ssize_t)sizeof(ch) ||
        ch[4] != UMP_KVS_CHALLENGE) {
        fprintf(stderr, "noauth: no challenge from the server\n");
        return 1;
    }
    /* The server's proof is not made with our (wrong) key. */
    ump_auth_ctx_t ctx = ump_kvs_auth_ctx(key, sizeof(key), nc, ch + 5, rank, pid, extra);
    if (ump_auth_check(ch + 5 + 32, &ctx, UMP_AUTH_ACCEPTOR)) {
        fprintf(stderr, "noauth: the server's proof checks out with a wrong key\n");
        return 1;
    }
    ump_auth_mac(mac, &ctx, UMP_AUTH_CONNECTOR);
    b.len = 0;
    f = ump_kvs_frame_begin(&b, UMP_KVS_AUTH);
    ump_kvs_put_bytes(&b, mac, sizeof(mac));
    ump_kvs_frame_end(&b, f);
    if (write(fd, b.p, b.len) != (ssize_t)b.len) return 1;
    ump_kvs_buf_free(&b);
    int last = read_to_eof(fd, "noauth");
    close(fd);
    if (last != UMP_KVS_REFUSED) {
        fprintf(stderr, "noauth: expected a REFUSED frame, got %d\n", last);
        return 1;
    }
    printf("noauth: refused as expected\n");
    return 0;
}

/* A proxy between this rank and the server that records what the rank sent
 * first: its HELLO and AUTH frames, a genuine handshake's bytes. */
static struct {
    int lfd, up;
    uint8_t rec[256];
    size_t rec_len;
} proxy;

static void *proxy_main(void *arg)
{
    int down = accept(proxy.lfd, NULL, NULL);
    if (down < 0) return NULL;
    for (;;) {
        struct pollfd p[2] = {{.fd = down, .events = POLLIN}, {.fd = proxy.up, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) continue;
        for (int i = 0; i < 2; i++) {
            if (!p[i].revents) continue;
            uint8_t buf[65536];
            ssize_t n = read(p[i].fd, buf, sizeof(buf));
            if (n <= 0) {
                close(down);
                close(proxy.up);
                return NULL;
            }
            if (i == 0 && proxy.rec_len + (size_t)n <= sizeof(proxy.rec) && proxy.rec_len < 90) {
                memcpy(proxy.rec + proxy.rec_len, buf, (size_t)n);
                proxy.rec_len += (size_t)n;
            }
            if (write(p[1 - i].fd, buf, (size_t)n) != n) return NULL;
        }
    }
}

static int start_proxy(void)
{
    proxy.up = kvs_dial();
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    proxy.lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (proxy.up < 0 || bind(proxy.lfd, (struct sockaddr *)&sa, sl) || listen(proxy.lfd, 1))
        return 1;
    getsockname(proxy.lfd, (struct sockaddr *)&sa, &sl);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
    setenv("UMP_JOB_KVS_REAL", getenv("UMP_JOB_KVS"), 1);
    setenv("UMP_JOB_KVS", addr, 1);
    pthread_t t;
    return pthread_create(&t, NULL, proxy_main, NULL) != 0;
}

/* Sends the recorded handshake again on a new connection. */
static int replay(void)
{
    setenv("UMP_JOB_KVS", getenv("UMP_JOB_KVS_REAL"), 1);
    /* HELLO (4 + 49 bytes) and AUTH (4 + 33) */
    if (proxy.rec_len != 90 || proxy.rec[4] != UMP_KVS_HELLO || proxy.rec[57] != UMP_KVS_AUTH) {
        fprintf(stderr, "replay: recorded %zu bytes, not a hello and a proof\n", proxy.rec_len);
        return 1;
    }
    int fd = kvs_dial();
    if (fd < 0 || write(fd, proxy.rec, proxy.rec_len) != (ssize_t)proxy.rec_len) return 1;
    int last = read_to_eof(fd, "replay");
    close(fd);
    if (last != UMP_KVS_REFUSED) {
        fprintf(stderr, "replay: expected a REFUSED frame, got %d\n", last);
        return 1;
    }
    printf("replay: refused as expected\n");
    return 0;
}

static void wait_forever(const char *how, ump_rt_t *rt)
{
    if (!strcmp(how, "fence")) {
        int rc = ump_rt_fence(rt);
        /* Only reached if umprun closed our connection before killing us. */
        fprintf(stderr, "fence returned %s\n", ump_strerror(rc));
        sleep(30);
        exit(5);
    }
    if (!strcmp(how, "stubborn")) { /* only SIGKILL ends this one */
        signal(SIGTERM, SIG_IGN);
        how = "spin";
    }
    if (!strcmp(how, "spin")) {
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    if (!strcmp(how, "sleep")) {
        sleep(100);
        exit(6);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *mode = argv[1];
    ump_rt_t *rt;
    int rc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    make_shm_file();

    if (!strcmp(mode, "badsecret")) {
        setenv("UMP_JOB_SECRET", "00112233445566778899aabbccddeeff", 1);
        rc = ump_rt_init(&rt);
        printf("badsecret: ump_rt_init returned %s\n", ump_status_name(rc));
        return rc == UMP_ERR_AUTH ? 0 : 1;
    }
    if (!strcmp(mode, "badenv") && argc > 2) {
        setenv(argv[2], "garbage", 1);
        rc = ump_rt_init(&rt);
        printf("badenv: ump_rt_init returned %s\n", ump_status_name(rc));
        return rc == UMP_ERR_BOOTSTRAP ? 0 : 1;
    }
    if (!strcmp(mode, "noauth") && raw_bad_hello()) return 1;
    if (!strcmp(mode, "replay") && start_proxy()) return 1;
    if (!strcmp(mode, "cat") && getenv("UMP_JOB_RANK") && !strcmp(getenv("UMP_JOB_RANK"), "0")) {
        char buf[4096];
        ssize_t n;
        while ((n = read(0, buf, sizeof(buf))) > 0)
            fwrite(buf, 1, (size_t)n, stdout);
        fflush(stdout);
    }

    rc = ump_rt_init(&rt);
    if (rc) {
        fprintf(stderr, "ump_rt_init: %s\n", ump_strerror(rc));
        return 1;
    }
    int me = ump_rt_info(rt)->rank;
    if (!strcmp(mode, "replay") && replay()) return 1;
    if (argc >= 4) {
        int victim = atoi(argv[2]);
        const char *wait = argv[3];
        if (me == victim) {
            if (!strcmp(mode, "abort")) abort();
            if (!strcmp(mode, "kill9")) {
                usleep(300000); /* let the others reach the fence */
                raise(SIGKILL);
            }
            if (!strcmp(mode, "exit3")) exit(3);
            if (!strcmp(mode, "exit0")) exit(0);
            if (!strcmp(mode, "rtabort")) ump_rt_abort(rt, 7, "custom abort message from the test");
            if (!strcmp(mode, "none")) /* keeps the others' fence from completing */
                wait_forever("sleep", rt);
        }
        wait_forever(wait, rt);
    }
    /* Every rank's value, after the refusals: the job's data is intact. */
    char val[64], got[64];
    snprintf(val, sizeof(val), "value of rank %d", me);
    if ((rc = ump_rt_put(rt, "test.val", val, strlen(val) + 1))) {
        fprintf(stderr, "put: %s\n", ump_strerror(rc));
        return 1;
    }
    rc = ump_rt_fence(rt);
    if (rc) {
        fprintf(stderr, "fence: %s\n", ump_strerror(rc));
        return 1;
    }
    for (int r = 0; r < ump_rt_info(rt)->size; r++) {
        size_t len = sizeof(got);
        snprintf(val, sizeof(val), "value of rank %d", r);
        if (ump_rt_get(rt, r, "test.val", got, &len) || len != strlen(val) + 1 ||
            strcmp(got, val)) {
            fprintf(stderr, "rank %d: wrong value from rank %d\n", me, r);
            return 1;
        }
    }
    printf("rank %d done\n", me);
    ump_rt_fini(rt);
    return 0;
}
