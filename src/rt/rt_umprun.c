/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The umprun backend: the rank learns its place from UMP_JOB_* variables and
 * keeps one TCP connection to the launcher's key-value server for its whole
 * life (protocol in kvs_proto.h). Every call blocks on that socket; when the
 * launcher goes away the socket closes, which wakes any waiting fence with
 * UMP_ERR_BOOTSTRAP instead of hanging.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt/rt_int.h"
#include "util/util.h"

UMP_CFG(rt_connect_timeout, "UMP_RT_CONNECT_TIMEOUT", UMP_CFG_INT, "30",
        "seconds a rank waits to connect to and be accepted by umprun's key-value server");

static int env_int(const char *name, int min, int max, int *out)
{
    const char *s = getenv(name);
    if (!s || !*s) {
        ump_error("rt: %s is not set (umprun sets it; UMP_JOB_KVS alone is not enough)", name);
        return UMP_ERR_BOOTSTRAP;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max) {
        ump_error("rt: %s='%s' is not an integer in [%d, %d]", name, s, min, max);
        return UMP_ERR_BOOTSTRAP;
    }
    *out = (int)v;
    return UMP_OK;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes exactly 2n hex chars of `s` into out (out may be NULL to check). */
static bool hex_decode(const char *s, uint8_t *out, size_t n)
{
    if (strlen(s) != 2 * n) return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        if (out) out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

static int read_env(ump_rt_info_t *in)
{
    int rc = 0;
    const char *id = getenv("UMP_JOB_ID");
    if (!id || !hex_decode(id, NULL, 8)) {
        ump_error("rt: UMP_JOB_ID='%s' is not 16 hex digits", id ? id : "");
        return UMP_ERR_BOOTSTRAP;
    }
    strcpy(in->job_id, id);
    const char *sec = getenv("UMP_JOB_SECRET");
    if (!sec || !hex_decode(sec, in->secret, UMP_RT_SECRET_LEN)) {
        ump_error("rt: UMP_JOB_SECRET is not %d hex digits", 2 * UMP_RT_SECRET_LEN);
        return UMP_ERR_BOOTSTRAP;
    }
    if ((rc = env_int("UMP_JOB_SIZE", 1, 1 << 24, &in->size)) ||
        (rc = env_int("UMP_JOB_RANK", 0, in->size - 1, &in->rank)) ||
        (rc = env_int("UMP_JOB_LOCAL_SIZE", 1, in->size, &in->local_size)) ||
        (rc = env_int("UMP_JOB_LOCAL_RANK", 0, in->local_size - 1, &in->local_rank)) ||
        (rc = env_int("UMP_JOB_NUM_NODES", 1, in->size, &in->num_nodes)) ||
        (rc = env_int("UMP_JOB_NODE_ID", 0, in->num_nodes - 1, &in->node_id)))
        return rc;
    const char *host = getenv("UMP_JOB_HOST");
    if (host && *host) {
        snprintf(in->hostname, sizeof(in->hostname), "%s", host);
    } else {
        gethostname(in->hostname, sizeof(in->hostname) - 1);
    }
    in->backend = "umprun";
    /* A spawned group's facts (rt.h); the first group has neither. */
    in->appnum = 0;
    if (getenv("UMP_JOB_APPNUM") && (rc = env_int("UMP_JOB_APPNUM", 0, 1 << 24, &in->appnum)))
        return rc;
    const char *port = getenv("UMP_JOB_PARENT_PORT");
    if (port && strlen(port) >= sizeof(in->parent_port)) {
        ump_error("rt: UMP_JOB_PARENT_PORT is longer than %d bytes", UMP_RT_PORT_NAME_MAX - 1);
        return UMP_ERR_BOOTSTRAP;
    }
    snprintf(in->parent_port, sizeof(in->parent_port), "%s", port ? port : "");
    return UMP_OK;
}

/* The slot this process says hello as (kvs_proto.h): UMP_JOB_SLOT, or the
 * rank in the first group, which does not set it. */
static int hello_slot(const ump_rt_info_t *in, uint32_t *slot)
{
    int v = in->rank;
    if (getenv("UMP_JOB_SLOT")) {
        int rc = env_int("UMP_JOB_SLOT", 0, 1 << 30, &v);
        if (rc) return rc;
    }
    *slot = (uint32_t)v;
    return UMP_OK;
}

/* Waits for `events` on fd; timeout_ms < 0 waits forever. */
static int wait_fd(int fd, short events, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int n = poll(&p, 1, timeout_ms);
        if (n > 0) return UMP_OK;
        if (n == 0) return UMP_ERR_TIMEOUT;
        if (errno != EINTR) /* a signal handler ran: keep waiting */
            return UMP_ERR_IO;
    }
}

/* Connects to "host:port" or "[v6addr]:port" within the timeout. */
static int kvs_connect(const char *spec, int timeout_ms, int *out)
{
    char host[256], *port;
    if (snprintf(host, sizeof(host), "%s", spec) >= (int)sizeof(host)) goto err_syntax;
    port = strrchr(host, ':');
    if (!port || port == host || !port[1]) goto err_syntax;
    *port++ = '\0';
    char *h = host;
    if (h[0] == '[') {
        size_t n = strlen(h);
        if (n < 3 || h[n - 1] != ']') goto err_syntax;
        h[n - 1] = '\0';
        h++;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai, *a;
    int gai = getaddrinfo(h, port, &hints, &ai);
    if (gai) {
        ump_error("rt: UMP_JOB_KVS='%s': cannot resolve: %s", spec, gai_strerror(gai));
        return UMP_ERR_BOOTSTRAP;
    }
    int fd = -1, err = 0;
    for (a = ai; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS && wait_fd(fd, POLLOUT, timeout_ms) == UMP_OK) {
            socklen_t sl = sizeof(err);
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl);
            if (!err) break;
        } else {
            err = errno == EINPROGRESS ? ETIMEDOUT : errno;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        errno = err;
        ump_error("rt: cannot connect to umprun's key-value server at %s: %m", spec);
        return UMP_ERR_BOOTSTRAP;
    }
    /* Blocking from here on: every exchange is a request and its answer. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    *out = fd;
    return UMP_OK;

err_syntax:
    ump_error("rt: UMP_JOB_KVS='%s' is not host:port", spec);
    return UMP_ERR_BOOTSTRAP;
}

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) /* nothing was sent: retry */
                continue;
            return UMP_ERR_BOOTSTRAP;
        }
        c += w;
        n -= (size_t)w;
    }
    return UMP_OK;
}

/* Reads exactly n bytes; timeout_ms bounds the wait for each chunk. */
static int recv_all(int fd, void *p, size_t n, int timeout_ms)
{
    char *c = p;
    while (n > 0) {
        int rc = wait_fd(fd, POLLIN, timeout_ms);
        if (rc) return rc;
        ssize_t r = recv(fd, c, n, 0);
        if (r == 0)
            return UMP_ERR_BOOTSTRAP; /* the launcher closed: it is gone or ending the job */
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return UMP_ERR_BOOTSTRAP;
        }
        c += r;
        n -= (size_t)r;
    }
    return UMP_OK;
}

/* Receives one frame into buf; on success rd covers its payload. */
static int recv_frame(int fd, ump_kvs_buf_t *buf, int timeout_ms, uint8_t *type, ump_kvs_rd_t *rd)
{
    uint8_t hdr[UMP_KVS_HDR];
    int rc = recv_all(fd, hdr, sizeof(hdr), timeout_ms);
    if (rc) return rc;
    uint32_t n = ump_kvs_load_u32(hdr);
    if (n < 1 || n > UMP_KVS_MAX_FRAME) {
        ump_error("rt: bad frame length %u from umprun", n);
        return UMP_ERR_PROTOCOL;
    }
    buf->len = buf->off = 0;
    if (!ump_kvs_buf_reserve(buf, n)) return UMP_ERR_NO_MEMORY;
    if ((rc = recv_all(fd, buf->p, n, timeout_ms))) return rc;
    buf->len = n;
    *type = buf->p[0];
    *rd = (ump_kvs_rd_t){.p = buf->p + 1, .len = n - 1};
    return UMP_OK;
}

static void log_refusal(ump_kvs_rd_t *rd)
{
    uint32_t n = ump_kvs_get_u32(rd);
    const char *t = ump_kvs_get_bytes(rd, n);
    ump_error("rt: umprun refused this rank: %.*s", t ? (int)n : 7, t ? t : "unknown");
}

/* The answer to HELLO or AUTH: UMP_OK with *type and *rd set, or an error
 * already logged. */
static int hello_answer(ump_rt_t *rt, ump_kvs_buf_t *b, int tmo, uint8_t want, ump_kvs_rd_t *rd)
{
    uint8_t type = 0;
    int rc = recv_frame(rt->fd, b, tmo, &type, rd);
    if (rc == UMP_ERR_BOOTSTRAP || rc == UMP_ERR_TIMEOUT) {
        ump_error("rt: no answer from umprun at %s to this rank's hello", getenv("UMP_JOB_KVS"));
        return UMP_ERR_BOOTSTRAP;
    }
    if (rc) return rc;
    if (type == UMP_KVS_REFUSED) {
        log_refusal(rd);
        return UMP_ERR_AUTH;
    }
    if (type != want) {
        ump_error("rt: unexpected answer %u to hello from %s", type, getenv("UMP_JOB_KVS"));
        return UMP_ERR_PROTOCOL;
    }
    return UMP_OK;
}

/* HELLO, the server's proof checked, then ours (kvs_proto.h). Nothing of the
 * job goes to a server that cannot prove it knows the secret. */
static int kvs_handshake(ump_rt_t *rt, int tmo)
{
    uint8_t nc[UMP_AUTH_NONCE_LEN], extra[8], mac[UMP_AUTH_MAC_LEN];
    uint32_t rank = 0, pid = (uint32_t)getpid();
    int rc = hello_slot(&rt->info, &rank);
    if (rc) return rc;
    if (ump_auth_nonce(nc)) return UMP_ERR_BOOTSTRAP;
    ump_kvs_buf_t b = {0};
    ump_kvs_rd_t rd;
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_HELLO);
    ump_kvs_put_u32(&b, UMP_KVS_MAGIC);
    ump_kvs_put_u32(&b, UMP_KVS_VERSION);
    ump_kvs_put_u32(&b, rank);
    ump_kvs_put_u32(&b, pid);
    ump_kvs_put_bytes(&b, nc, sizeof(nc));
    ump_kvs_frame_end(&b, f);
    rc = b.oom ? UMP_ERR_NO_MEMORY : send_all(rt->fd, b.p, b.len);
    if (!rc) rc = hello_answer(rt, &b, tmo, UMP_KVS_CHALLENGE, &rd);
    if (rc) goto out;
    const uint8_t *na = ump_kvs_get_bytes(&rd, UMP_AUTH_NONCE_LEN);
    const uint8_t *proof = ump_kvs_get_bytes(&rd, UMP_AUTH_MAC_LEN);
    ump_auth_ctx_t ctx = {0};
    if (!rd.bad)
        ctx = ump_kvs_auth_ctx(rt->info.secret, UMP_RT_SECRET_LEN, nc, na, rank, pid, extra);
    if (rd.bad || !ump_auth_check(proof, &ctx, UMP_AUTH_ACCEPTOR)) {
        ump_error("rt: refused the key-value server at %s: it failed authentication (it does "
                  "not know the job secret)",
                  getenv("UMP_JOB_KVS"));
        rc = UMP_ERR_AUTH;
        goto out;
    }
    if (ump_auth_mac(mac, &ctx, UMP_AUTH_CONNECTOR)) {
        rc = UMP_ERR_BOOTSTRAP;
        goto out;
    }
    b.len = b.off = 0;
    f = ump_kvs_frame_begin(&b, UMP_KVS_AUTH);
    ump_kvs_put_bytes(&b, mac, sizeof(mac));
    ump_kvs_frame_end(&b, f);
    rc = b.oom ? UMP_ERR_NO_MEMORY : send_all(rt->fd, b.p, b.len);
    if (!rc) rc = hello_answer(rt, &b, tmo, UMP_KVS_OK, &rd);
out:
    ump_kvs_buf_free(&b);
    return rc;
}

int ump_rt_umprun_init(ump_rt_t *rt)
{
    int rc = read_env(&rt->info);
    if (rc) return rc;
    ump_cfg_load(false);
    int tmo = (int)UMP_MAX(1, UMP_MIN(rt_connect_timeout.v.i, 3600)) * 1000;
    if ((rc = kvs_connect(getenv("UMP_JOB_KVS"), tmo, &rt->fd))) return rc;

    rc = kvs_handshake(rt, tmo);
    if (rc) goto err_close;

    /* Every rank publishes its node so node_of() works after the first fence. */
    char node[16];
    snprintf(node, sizeof(node), "%d", rt->info.node_id);
    if ((rc = ump_rt_put(rt, "rt.node", node, strlen(node) + 1))) goto err_close;
    return UMP_OK;

err_close:
    close(rt->fd);
    rt->fd = -1;
    return rc;
}

static int fill_node_of(ump_rt_t *rt)
{
    if (rt->node_of) return UMP_OK;
    int *n = malloc(sizeof(*n) * (size_t)rt->info.size);
    if (!n) return UMP_ERR_NO_MEMORY;
    for (int r = 0; r < rt->info.size; r++) {
        const ump_rt_kv_t *kv = ump_rt_store_find(&rt->store, r, "rt.node");
        if (!kv || kv->len < 2 || kv->val[kv->len - 1] != '\0') {
            ump_error("rt: rank %d published no node id before the fence", r);
            free(n);
            return UMP_ERR_BOOTSTRAP;
        }
        n[r] = atoi((const char *)kv->val);
        if (n[r] < 0 || n[r] >= rt->info.num_nodes) {
            ump_error("rt: rank %d published node id %d out of range", r, n[r]);
            free(n);
            return UMP_ERR_BOOTSTRAP;
        }
    }
    rt->node_of = n;
    return UMP_OK;
}

static int apply_fence(ump_rt_t *rt, ump_kvs_rd_t *rd)
{
    uint32_t n = ump_kvs_get_u32(rd);
    for (uint32_t i = 0; i < n && !rd->bad; i++) {
        uint32_t rank = ump_kvs_get_u32(rd);
        uint8_t klen = ump_kvs_get_u8(rd);
        const char *key = ump_kvs_get_bytes(rd, klen);
        uint32_t vlen = ump_kvs_get_u32(rd);
        const void *val = ump_kvs_get_bytes(rd, vlen);
        if (rd->bad || rank >= (uint32_t)rt->info.size) break;
        int rc = ump_rt_store_set(&rt->store, (int)rank, key, klen, val, vlen);
        if (rc == UMP_ERR_NO_MEMORY) return rc;
        if (rc) rd->bad = true;
    }
    if (rd->bad) {
        ump_error("rt: malformed fence answer from umprun");
        return UMP_ERR_PROTOCOL;
    }
    return fill_node_of(rt);
}

int ump_rt_umprun_fence(ump_rt_t *rt, ump_rt_idle_fn idle, void *arg)
{
    ump_kvs_buf_t b = {0};
    int rc;
    if (rt->lost) return UMP_ERR_BOOTSTRAP;
    if (rt->npending) {
        size_t f = ump_kvs_frame_begin(&b, UMP_KVS_PUT);
        ump_kvs_put_u32(&b, rt->npending);
        ump_kvs_put_bytes(&b, rt->pending.p, rt->pending.len);
        ump_kvs_frame_end(&b, f);
    }
    ump_kvs_frame_end(&b, ump_kvs_frame_begin(&b, UMP_KVS_FENCE));
    if (b.oom) {
        rc = UMP_ERR_NO_MEMORY;
        goto out;
    }
    rt->pending.len = 0;
    rt->npending = 0;
    uint8_t type = 0;
    ump_kvs_rd_t rd;
    rc = send_all(rt->fd, b.p, b.len);
    /* Every rank must arrive: no timeout, but a closed socket wakes us. */
    if (!rc && idle)
        while ((rc = wait_fd(rt->fd, POLLIN, 1)) == UMP_ERR_TIMEOUT)
            idle(arg);
    if (!rc) rc = recv_frame(rt->fd, &b, -1, &type, &rd);
    if (rc == UMP_ERR_BOOTSTRAP) {
        ump_error("rt: lost the connection to umprun during a fence (the launcher ended?)");
    } else if (!rc && type == UMP_KVS_FENCE_DONE) {
        rc = apply_fence(rt, &rd);
    } else if (!rc && type == UMP_KVS_FENCE_FAIL) {
        uint32_t n = ump_kvs_get_u32(&rd);
        const char *t = ump_kvs_get_bytes(&rd, n);
        ump_error("rt: fence failed: %.*s", t ? (int)n : 0, t ? t : "");
        rc = UMP_ERR_BOOTSTRAP;
    } else if (!rc) {
        ump_error("rt: unexpected answer %u to a fence", type);
        rc = UMP_ERR_PROTOCOL;
    }
out:
    ump_kvs_buf_free(&b);
    if (rc == UMP_ERR_BOOTSTRAP || rc == UMP_ERR_PROTOCOL)
        rt->lost = true; /* the stream is no longer in step: no more exchanges */
    return rc;
}

void ump_rt_umprun_fini(ump_rt_t *rt)
{
    ump_kvs_buf_t b = {0};
    if (rt->lost) goto out;
    ump_kvs_frame_end(&b, ump_kvs_frame_begin(&b, UMP_KVS_FINALIZE));
    uint8_t type = 0;
    ump_kvs_rd_t rd;
    /* Wait for the answer so umprun has recorded the finalize before it can
     * see this process exit (it would otherwise call the exit a failure). */
    int rc = b.oom ? UMP_ERR_NO_MEMORY : send_all(rt->fd, b.p, b.len);
    if (!rc) rc = recv_frame(rt->fd, &b, 10000, &type, &rd);
    if (rc || type != UMP_KVS_OK)
        ump_warn("rt: umprun did not acknowledge this rank's finalize (%s)", ump_strerror(rc));
out:
    ump_kvs_buf_free(&b);
    close(rt->fd);
    rt->fd = -1;
}

void ump_rt_umprun_abort(ump_rt_t *rt, int code, const char *msg)
{
    if (!msg) msg = "";
    if (rt->lost) return;
    size_t n = strnlen(msg, 4096);
    ump_kvs_buf_t b = {0};
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_ABORT);
    ump_kvs_put_u32(&b, (uint32_t)code);
    ump_kvs_put_u32(&b, (uint32_t)n);
    ump_kvs_put_bytes(&b, msg, n);
    ump_kvs_frame_end(&b, f);
    uint8_t type = 0;
    ump_kvs_rd_t rd;
    /* The short wait for the answer makes sure umprun reads the message
     * (and names it) before it sees this process exit. */
    if (!b.oom && send_all(rt->fd, b.p, b.len) == UMP_OK &&
        recv_frame(rt->fd, &b, 1000, &type, &rd) == UMP_OK && type == UMP_KVS_OK)
        _exit(code ? code : 1);
    ump_kvs_buf_free(&b);
    close(rt->fd);
    rt->fd = -1;
    /* The launcher is gone: rt.c prints the message and exits. */
}

int ump_rt_umprun_name(ump_rt_t *rt, int op, const char *service, const char *port, char *out,
                       size_t len)
{
    if (rt->lost) return UMP_ERR_BOOTSTRAP;
    size_t sl = strlen(service), pl = strlen(port);
    if (sl > UMP_KVS_NAME_MAX || pl > UMP_KVS_NAME_MAX) return UMP_ERR_INVALID;
    ump_kvs_buf_t b = {0};
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_NAME);
    ump_kvs_put_u8(&b, (uint8_t)op);
    ump_kvs_put_u32(&b, (uint32_t)sl);
    ump_kvs_put_bytes(&b, service, sl);
    ump_kvs_put_u32(&b, (uint32_t)pl);
    ump_kvs_put_bytes(&b, port, pl);
    ump_kvs_frame_end(&b, f);
    uint8_t type = 0;
    ump_kvs_rd_t rd;
    int rc = b.oom ? UMP_ERR_NO_MEMORY : send_all(rt->fd, b.p, b.len);
    /* The launcher answers at once: a bounded wait, so a lost launcher
     * cannot hang the caller. */
    if (!rc) rc = recv_frame(rt->fd, &b, 30000, &type, &rd);
    if (!rc && type != UMP_KVS_NAME_ANS) rc = UMP_ERR_PROTOCOL;
    if (rc) {
        ump_error("rt: the name service of umprun did not answer: %s", ump_strerror(rc));
        if (rc != UMP_ERR_NO_MEMORY) rt->lost = true;
        rc = UMP_ERR_BOOTSTRAP;
        goto out;
    }
    uint8_t st = ump_kvs_get_u8(&rd);
    uint32_t n = ump_kvs_get_u32(&rd);
    const char *v = ump_kvs_get_bytes(&rd, n);
    if (rd.bad) {
        rc = UMP_ERR_PROTOCOL;
    } else if (st == UMP_KVS_NAME_TAKEN) {
        rc = UMP_ERR_BUSY;
    } else if (st != UMP_KVS_NAME_OK) {
        rc = UMP_ERR_INVALID;
    } else if (op == UMP_KVS_NAME_LOOKUP) {
        if (n >= len) {
            rc = UMP_ERR_NO_RESOURCE;
        } else {
            memcpy(out, v, n);
            out[n] = '\0';
        }
    }
out:
    ump_kvs_buf_free(&b);
    return rc;
}

static void put_str(ump_kvs_buf_t *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    ump_kvs_put_u32(b, (uint32_t)n);
    ump_kvs_put_bytes(b, s, n);
}

static int count_strv(char *const *v)
{
    int n = 0;
    while (v && v[n])
        n++;
    return n;
}

/* The SPAWN frame of the request; UMP_ERR_INVALID (why set) for arguments
 * no request can carry. */
static int encode_spawn(ump_kvs_buf_t *b, const ump_rt_app_t *apps, int napps,
                        const char *parent_port, char *why, size_t whylen)
{
    if (!apps || napps < 1 || napps > (int)UMP_KVS_SPAWN_MAX_APPS) {
        snprintf(why, whylen, "%d apps (1 to %u can be started at once)", napps,
                 UMP_KVS_SPAWN_MAX_APPS);
        return UMP_ERR_INVALID;
    }
    size_t f = ump_kvs_frame_begin(b, UMP_KVS_SPAWN);
    ump_kvs_put_u32(b, (uint32_t)napps);
    for (int i = 0; i < napps; i++) {
        const ump_rt_app_t *a = &apps[i];
        if (!a->cmd || !a->cmd[0] || a->maxprocs < 0) {
            snprintf(why, whylen, "app %d: %s", i,
                     a->maxprocs < 0 ? "maxprocs is negative" : "no command");
            return UMP_ERR_INVALID;
        }
        int argc = count_strv(a->argv), nenv = count_strv(a->env);
        ump_kvs_put_u32(b, (uint32_t)a->maxprocs);
        ump_kvs_put_u32(b, (uint32_t)argc + 1);
        put_str(b, a->cmd);
        for (int k = 0; k < argc; k++)
            put_str(b, a->argv[k]);
        ump_kvs_put_u32(b, (uint32_t)nenv);
        for (int k = 0; k < nenv; k++)
            put_str(b, a->env[k]);
        put_str(b, a->wdir);
        put_str(b, a->hosts);
    }
    put_str(b, parent_port);
    ump_kvs_frame_end(b, f);
    return b->oom ? UMP_ERR_NO_MEMORY : UMP_OK;
}

int ump_rt_umprun_spawn(ump_rt_t *rt, const ump_rt_app_t *apps, int napps, const char *parent_port,
                        char *job_id, size_t len, char *why, size_t whylen)
{
    if (rt->lost) {
        snprintf(why, whylen, "the connection to umprun is lost");
        return UMP_ERR_BOOTSTRAP;
    }
    if (!job_id || len < 17) {
        snprintf(why, whylen, "the job id buffer holds %zu bytes, 17 are needed", len);
        return UMP_ERR_INVALID;
    }
    ump_kvs_buf_t b = {0};
    int rc = encode_spawn(&b, apps, napps, parent_port, why, whylen);
    if (rc) {
        if (rc == UMP_ERR_INVALID) ump_error("rt: spawn: %s", why);
        goto out;
    }
    uint8_t type = 0;
    ump_kvs_rd_t rd;
    rc = send_all(rt->fd, b.p, b.len);
    /* umprun answers once it has forked them: bounded, so a lost launcher
     * cannot hang the caller. */
    if (!rc) rc = recv_frame(rt->fd, &b, 30000, &type, &rd);
    if (!rc && type != UMP_KVS_SPAWN_ANS) rc = UMP_ERR_PROTOCOL;
    if (rc) {
        snprintf(why, whylen, "umprun did not answer the spawn request: %s", ump_strerror(rc));
        ump_error("rt: %s", why);
        if (rc != UMP_ERR_NO_MEMORY) rt->lost = true; /* the stream is out of step */
        rc = UMP_ERR_BOOTSTRAP;
        goto out;
    }
    uint8_t st = ump_kvs_get_u8(&rd);
    uint32_t n = ump_kvs_get_u32(&rd);
    const char *t = ump_kvs_get_bytes(&rd, n);
    if (rd.bad || (st == UMP_KVS_SPAWN_STARTED && n != 16)) {
        snprintf(why, whylen, "malformed answer from umprun to a spawn request");
        ump_error("rt: %s", why);
        rc = UMP_ERR_PROTOCOL;
    } else if (st == UMP_KVS_SPAWN_STARTED) {
        memcpy(job_id, t, 16);
        job_id[16] = '\0';
    } else {
        snprintf(why, whylen, "%.*s", (int)n, t);
        ump_error("rt: umprun refused to spawn: %s", why);
        rc = UMP_ERR_INVALID;
    }
out:
    ump_kvs_buf_free(&b);
    return rc;
}
