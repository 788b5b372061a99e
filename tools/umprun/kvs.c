/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The key-value/fence server (protocol: src/rt/kvs_proto.h). Every process
 * keeps one connection; puts accumulate in its group's epoch and, when the
 * group's last rank fences, the whole epoch goes to every rank of the group
 * in one FENCE_DONE frame, so a rank's gets after the fence are local
 * lookups. Groups fence independently: a spawned group's fences never wait
 * for its parents, nor see their keys.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "umprun.h"
#include "util/util.h"

/* The first IPv4 address of an up, non-loopback interface: what remote
 * ranks dial. Good enough for a LAN or namespaces joined by veth. */
static int advertised_ip(char *buf, size_t len)
{
    struct ifaddrs *ifa, *i;
    if (getifaddrs(&ifa)) {
        fprintf(stderr, "umprun: getifaddrs: %s\n", strerror(errno));
        return -1;
    }
    int rc = -1;
    for (i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
                      (socklen_t)len)) {
            rc = 0;
            break;
        }
    }
    freeifaddrs(ifa);
    if (rc)
        fprintf(stderr, "umprun: no up non-loopback IPv4 interface for remote ranks to reach\n");
    return rc;
}

int kvs_listen(void)
{
    char ip[INET_ADDRSTRLEN] = "127.0.0.1";
    struct sockaddr_in sa = {.sin_family = AF_INET};
    /* All-local jobs never expose the server beyond this machine. */
    sa.sin_addr.s_addr = htonl(job.all_local ? INADDR_LOOPBACK : INADDR_ANY);
    if (!job.all_local && advertised_ip(ip, sizeof(ip))) return -1;
    job.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (job.lfd < 0 || bind(job.lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(job.lfd, 1024)) {
        fprintf(stderr, "umprun: cannot open the key-value server socket: %s\n", strerror(errno));
        return -1;
    }
    socklen_t sl = sizeof(sa);
    getsockname(job.lfd, (struct sockaddr *)&sa, &sl);
    snprintf(job.kvs_addr, sizeof(job.kvs_addr), "%s:%u", ip, ntohs(sa.sin_port));
    if (job.verbose)
        fprintf(stderr, "umprun: job %s, key-value server at %s\n", job.id, job.kvs_addr);
    return 0;
}

void kvs_accept(void)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(job.lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            /* Out of descriptors, the ranks would wait for an answer to
             * their hello until they time out: end the job, saying why. */
            if ((errno == EMFILE || errno == ENFILE) && !job.ending) {
                io_no_fds("accepting a rank's connection");
                job_fail(UMPRUN_EXIT_SETUP, "cannot accept the ranks' connections");
            }
            return; /* EAGAIN, or a transient error: retried on the next poll */
        }
        if (job.ending) {
            close(fd);
            continue;
        }
        struct conn *c = calloc(1, sizeof(*c));
        if (!c || (job.nconns == job.capconns && !(job.capconns = job.capconns * 2 + 16))) {
            free(c);
            close(fd);
            continue;
        }
        struct conn **cs = realloc(job.conns, sizeof(*cs) * (size_t)job.capconns);
        if (!cs) {
            free(c);
            close(fd);
            continue;
        }
        job.conns = cs;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c->fd = fd;
        c->hello_deadline = ump_time_ns() + UMPRUN_HELLO_WAIT_NS;
        char ip[INET6_ADDRSTRLEN] = "?";
        unsigned port = 0;
        if (ss.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip, sizeof(ip));
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        }
        snprintf(c->peer, sizeof(c->peer), "%s:%u", ip, port);
        job.conns[job.nconns++] = c;
    }
}

static void conn_flush(struct conn *c)
{
    while (!c->dead && c->out.off < c->out.len) {
        ssize_t w = send(c->fd, c->out.p + c->out.off, c->out.len - c->out.off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) c->dead = true;
            return;
        }
        c->out.off += (size_t)w;
    }
    c->out.len = c->out.off = 0;
}

static void send_simple(struct conn *c, uint8_t type, const char *text)
{
    size_t f = ump_kvs_frame_begin(&c->out, type);
    if (text) {
        ump_kvs_put_u32(&c->out, (uint32_t)strlen(text));
        ump_kvs_put_bytes(&c->out, text, strlen(text));
    }
    ump_kvs_frame_end(&c->out, f);
    conn_flush(c);
}

/* Marks the connection for closing; the rank (if any) loses it. */
static void conn_kill(struct conn *c)
{
    c->dead = true;
    if (c->rank && c->rank->conn == c) {
        c->rank->conn = NULL;
        if (!c->rank->finalized && !job.ending)
            c->rank->eof_deadline = ump_time_ns() + UMPRUN_EOF_GRACE_NS;
    }
}

static void refuse(struct conn *c, const char *why)
{
    fprintf(stderr, "umprun: refused a key-value connection from %s: %s\n", c->peer, why);
    send_simple(c, UMP_KVS_REFUSED, why);
    conn_kill(c);
}

/* Fails the fence of everyone of g waiting when some rank can never join it. */
static void fence_check_impossible(struct group *g)
{
    if (g->nfenced == 0) return;
    int gone = 0;
    for (int r = 0; r < g->n; r++)
        gone += g->ranks[r].gone && !g->ranks[r].fenced;
    if (g->nfenced + gone < g->n) return;
    for (int r = 0; r < g->n; r++) {
        struct rank *rk = &g->ranks[r];
        if (rk->fenced && rk->conn) {
            send_simple(rk->conn, UMP_KVS_FENCE_FAIL,
                        "a rank finalized or exited without joining this fence");
        }
        rk->fenced = false;
    }
    g->nfenced = 0;
}

void kvs_rank_gone(struct rank *r)
{
    r->gone = true;
    fence_check_impossible(r->group);
}

static void fence_complete(struct group *g)
{
    ump_kvs_buf_t b = {0};
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_FENCE_DONE);
    ump_kvs_put_u32(&b, g->nepoch);
    ump_kvs_put_bytes(&b, g->epoch.p, g->epoch.len);
    ump_kvs_frame_end(&b, f);
    if (b.oom) {
        job_fail(UMPRUN_EXIT_SETUP, "out of memory in the key-value server");
        ump_kvs_buf_free(&b);
        return;
    }
    for (int r = 0; r < g->n; r++) {
        struct rank *rk = &g->ranks[r];
        rk->fenced = false;
        if (rk->conn) {
            ump_kvs_put_bytes(&rk->conn->out, b.p, b.len);
            conn_flush(rk->conn);
        }
    }
    ump_kvs_buf_free(&b);
    g->epoch.len = 0;
    g->nepoch = 0;
    g->nfenced = 0;
}

/* HELLO: answered with our nonce and proof; the rank is not taken before
 * its own proof checks out, so a client without the secret learns nothing
 * about which ranks have connected. */
static void handle_hello(struct conn *c, ump_kvs_rd_t *rd)
{
    uint32_t magic = ump_kvs_get_u32(rd), version = ump_kvs_get_u32(rd);
    uint32_t rank = ump_kvs_get_u32(rd), pid = ump_kvs_get_u32(rd);
    const uint8_t *nc = ump_kvs_get_bytes(rd, UMP_AUTH_NONCE_LEN);
    if (magic != UMP_KVS_MAGIC || (version == UMP_KVS_VERSION && rd->bad))
        return refuse(c, "not an ump hello");
    if (version != UMP_KVS_VERSION)
        return refuse(c, "protocol version mismatch (ump library and umprun differ)");
    if (rank >= (uint32_t)job.nslots) return refuse(c, "rank out of range");
    if (job.ending) return refuse(c, "the job is ending");
    memcpy(c->nonce_c, nc, UMP_AUTH_NONCE_LEN);
    c->hello_rank = rank;
    c->hello_pid = pid;
    uint8_t extra[8], mac[UMP_AUTH_MAC_LEN];
    ump_auth_ctx_t ctx =
        ump_kvs_auth_ctx(job.secret, UMP_RT_SECRET_LEN, c->nonce_c, c->nonce_a, rank, pid, extra);
    if (ump_auth_nonce(c->nonce_a) || ump_auth_mac(mac, &ctx, UMP_AUTH_ACCEPTOR))
        return refuse(c, "umprun cannot draw random bytes");
    c->challenged = true;
    size_t f = ump_kvs_frame_begin(&c->out, UMP_KVS_CHALLENGE);
    ump_kvs_put_bytes(&c->out, c->nonce_a, UMP_AUTH_NONCE_LEN);
    ump_kvs_put_bytes(&c->out, mac, sizeof(mac));
    ump_kvs_frame_end(&c->out, f);
    conn_flush(c);
}

/* AUTH: the rank's proof over both nonces; only now does it get its rank. */
static void handle_auth(struct conn *c, ump_kvs_rd_t *rd)
{
    const uint8_t *proof = ump_kvs_get_bytes(rd, UMP_AUTH_MAC_LEN);
    if (rd->bad) return refuse(c, "not an ump client (bad proof frame)");
    uint8_t extra[8];
    ump_auth_ctx_t ctx = ump_kvs_auth_ctx(job.secret, UMP_RT_SECRET_LEN, c->nonce_c, c->nonce_a,
                                          c->hello_rank, c->hello_pid, extra);
    if (!ump_auth_check(proof, &ctx, UMP_AUTH_CONNECTOR))
        return refuse(c, "wrong job secret (failed authentication)");
    struct rank *r = job.slots[c->hello_rank];
    if (r->hello) return refuse(c, "this rank already connected");
    if (job.ending) return refuse(c, "the job is ending");
    r->hello = true;
    r->rpid = (pid_t)c->hello_pid;
    r->conn = c;
    c->rank = r;
    send_simple(c, UMP_KVS_OK, NULL);
}

static void handle_put(struct conn *c, ump_kvs_rd_t *rd)
{
    struct group *g = c->rank->group;
    uint32_t n = ump_kvs_get_u32(rd);
    for (uint32_t i = 0; i < n && !rd->bad; i++) {
        uint8_t klen = ump_kvs_get_u8(rd);
        const void *key = ump_kvs_get_bytes(rd, klen);
        uint32_t vlen = ump_kvs_get_u32(rd);
        const void *val = ump_kvs_get_bytes(rd, vlen);
        if (rd->bad || klen == 0 || klen >= UMP_RT_KEY_MAX || vlen > UMP_RT_VAL_MAX) {
            rd->bad = true;
            break;
        }
        ump_kvs_put_u32(&g->epoch, (uint32_t)c->rank->rank);
        ump_kvs_put_u8(&g->epoch, klen);
        ump_kvs_put_bytes(&g->epoch, key, klen);
        ump_kvs_put_u32(&g->epoch, vlen);
        ump_kvs_put_bytes(&g->epoch, val, vlen);
        g->nepoch++;
    }
    if (g->epoch.oom) job_fail(UMPRUN_EXIT_SETUP, "out of memory in the key-value server");
}

static void handle_frame(struct conn *c, uint8_t type, ump_kvs_rd_t *rd)
{
    char who[160];
    struct rank *r = c->rank;
    if (!r) {
        if (!c->challenged) {
            if (type != UMP_KVS_HELLO) return refuse(c, "no hello");
            return handle_hello(c, rd);
        }
        if (type != UMP_KVS_AUTH) return refuse(c, "no proof after the challenge");
        return handle_auth(c, rd);
    }
    switch (type) {
    case UMP_KVS_PUT:
        handle_put(c, rd);
        break;
    case UMP_KVS_FENCE:
        if (r->fenced) {
            rd->bad = true;
            break;
        }
        r->fenced = true;
        if (++r->group->nfenced == r->group->n)
            fence_complete(r->group);
        else
            fence_check_impossible(r->group);
        break;
    case UMP_KVS_NAME:
        if (names_request(rd, &c->out))
            rd->bad = true;
        else
            conn_flush(c);
        break;
    case UMP_KVS_SPAWN:
        /* Refused or not, the request gets its answer; only running out
         * of memory ends the connection. */
        if (group_spawn_request(r, rd, &c->out))
            job_fail(UMPRUN_EXIT_SETUP, "out of memory starting a spawned group");
        else
            conn_flush(c);
        rd->bad = false; /* a malformed request was refused: the stream is in step */
        break;
    case UMP_KVS_FINALIZE:
        r->finalized = true;
        send_simple(c, UMP_KVS_OK, NULL);
        kvs_rank_gone(r);
        break;
    case UMP_KVS_ABORT: {
        int code = (int)ump_kvs_get_u32(rd);
        uint32_t n = ump_kvs_get_u32(rd);
        const char *text = ump_kvs_get_bytes(rd, n);
        if (rd->bad) break;
        /* The text lives in the input buffer, which reaping (below) may
         * refill: keep a copy. */
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s called abort with code %d: %.*s",
                 rank_desc(r, who, sizeof(who)), code, (int)n, text);
        /* A rank often aborts because a peer died (killed, crashed): when
         * that peer has exited already, its death is the cause to report,
         * though its SIGCHLD may be behind this message. Reap before
         * answering: the aborting rank waits for the answer before it
         * exits, so the exit reaped here is never its own (its "exited
         * with code N" would hide its message). */
        /* The peer's death can reach this rank (a closed socket or
         * doorbell) a moment before the kernel lets us reap it: give it
         * up to 100 ms, ended by the first death found (no wait when no
         * other rank is left running to die). */
        bool others = false;
        for (int k = 0; k < job.nslots; k++)
            if (job.slots[k]->running && job.slots[k] != r) others = true;
        for (int i = 0; others && i < 20 && !job.ending; i++) {
            job_reap();
            if (!job.ending && i < 19) usleep(5000);
        }
        if (!job.ending) job_fail(code ? (code & 255 ? code & 255 : 1) : 1, "%s", msg);
        send_simple(c, UMP_KVS_OK, NULL);
        break;
    }
    default:
        rd->bad = true;
        break;
    }
    if (rd->bad) {
        if (!job.ending)
            fprintf(stderr, "umprun: %s sent a malformed message (type %u); dropping it\n",
                    rank_desc(r, who, sizeof(who)), type);
        conn_kill(c);
    }
}

static void conn_read(struct conn *c)
{
    for (int rounds = 0; rounds < 64 && !c->dead; rounds++) {
        /* Room for a read; grown only when little is left (reserving 64 KiB
         * past the data on every read doubled the buffer each time). */
        if (c->in.cap - c->in.len < 2048 && !ump_kvs_buf_reserve(&c->in, 16 * 1024)) {
            conn_kill(c);
            return;
        }
        ssize_t n = recv(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) break;
        if (n <= 0) {
            conn_kill(c); /* EOF: fine after FINALIZE, a failure sign otherwise */
            break;
        }
        c->in.len += (size_t)n;
        /* Parse every complete frame. */
        while (!c->dead && c->in.len - c->in.off >= UMP_KVS_HDR) {
            uint32_t flen = ump_kvs_load_u32(c->in.p + c->in.off);
            uint32_t limit = c->rank ? UMP_KVS_MAX_FRAME : UMP_KVS_MAX_HELLO;
            if (flen < 1 || flen > limit) {
                if (!c->rank)
                    refuse(c, "not an ump client (bad frame)");
                else
                    conn_kill(c);
                break;
            }
            /* Incomplete: the buffer grows as the bytes come (not to the
             * length the peer claims before it sent them). */
            if (c->in.len - c->in.off < UMP_KVS_HDR + flen) break;
            const uint8_t *fp = c->in.p + c->in.off + UMP_KVS_HDR;
            ump_kvs_rd_t rd = {.p = fp + 1, .len = flen - 1};
            c->in.off += UMP_KVS_HDR + flen;
            handle_frame(c, fp[0], &rd);
        }
        ump_kvs_buf_compact(&c->in);
    }
}

void kvs_conn_io(struct conn *c, short revents)
{
    if (revents & POLLOUT) conn_flush(c);
    if (revents & ~POLLOUT) conn_read(c);
}

void kvs_drain(struct rank *r)
{
    if (r->conn) conn_read(r->conn);
}

void kvs_reap_conns(void)
{
    int j = 0;
    for (int i = 0; i < job.nconns; i++) {
        struct conn *c = job.conns[i];
        if (c->dead) {
            if (c->rank && c->rank->conn == c) c->rank->conn = NULL;
            close(c->fd);
            ump_kvs_buf_free(&c->in);
            ump_kvs_buf_free(&c->out);
            free(c);
        } else {
            job.conns[j++] = c;
        }
    }
    job.nconns = j;
}

void kvs_close_all(void)
{
    for (int i = 0; i < job.nconns; i++) {
        conn_flush(job.conns[i]); /* a last ABORT answer, if it fits */
        job.conns[i]->dead = true;
        if (job.conns[i]->rank) job.conns[i]->rank->conn = NULL;
    }
    /* Freed by kvs_reap_conns() from the loop: a caller may be inside one. */
    if (job.lfd >= 0) close(job.lfd);
    job.lfd = -1;
}

void kvs_timers(uint64_t now, uint64_t *next)
{
    char who[160];
    for (int i = 0; i < job.nconns; i++) {
        struct conn *c = job.conns[i];
        if (c->rank || c->dead) continue;
        if (now >= c->hello_deadline)
            refuse(c, "no hello in time");
        else if (c->hello_deadline < *next)
            *next = c->hello_deadline;
    }
    for (int s = 0; s < job.nslots && !job.ending; s++) {
        struct rank *rk = job.slots[s];
        if (!rk->eof_deadline || rk->finalized) continue;
        if (now >= rk->eof_deadline) {
            rk->eof_deadline = 0;
            job_fail(1, "%s closed its connection to umprun without finalizing",
                     rank_desc(rk, who, sizeof(who)));
        } else if (rk->eof_deadline < *next) {
            *next = rk->eof_deadline;
        }
    }
}
