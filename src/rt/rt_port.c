/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: where two groups of processes meet (MPI_Open_port, Comm_accept,
 * Comm_connect, Comm_join). A port is a listening TCP socket owned by rt;
 * its name is "ump-port:<ip>:<port>:<nonce>", the nonce 16 hex digits
 * drawn at open, so a port reopened on the same TCP port is a different
 * port. The roots of the two groups meet on it and run one exchange
 * (ump_rt_meet): each sends a hello (magic, version, fresh auth nonce, the
 * port's nonce), then its proof that it knows the job secret (util/auth.h,
 * label "ump-port", context: the port's nonce), then, once it has checked
 * the other's proof, a verdict byte and its "card" (opaque bytes the caller
 * chose, length-prefixed). A process of another job fails the proof and
 * gets a clear refusal instead of a card. The connector proves with the
 * connector's role; Comm_join, where both ends are equal, gives the role
 * to the end whose nonce is smaller.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

#define PORT_MAGIC      0x554d5050u /* "UMPP" */
#define PORT_VERSION    1u
#define PORT_LABEL      "ump-port"
#define PORT_PREFIX     "ump-port:"
#define PORT_CARD_MAX   (64u << 20) /* a larger card is a protocol error */
#define PORT_STEP_MS    10          /* the idle callback runs at least this often */
#define PORT_MEET_TMO_S 60          /* a started exchange that stalls this long fails */

struct ump_rt_port {
    struct ump_rt_port *next;
    int fd;
    char name[UMP_RT_PORT_NAME_MAX];
};

/* hello: u32 magic, u32 version, nonce[32], port nonce[8] (big endian) */
#define HELLO_LEN (8 + UMP_AUTH_NONCE_LEN + 8)

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Waits for events on fd, calling idle every PORT_STEP_MS; deadline_ns 0
 * waits forever. */
static int wait_io(int fd, short events, uint64_t deadline_ns, void (*idle)(void *), void *arg)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, idle ? PORT_STEP_MS : 1000);
        if (n > 0) return UMP_OK;
        if (n < 0 && errno != EINTR) return UMP_ERR_IO;
        if (deadline_ns && ump_time_ns() > deadline_ns) return UMP_ERR_TIMEOUT;
        if (idle) idle(arg);
    }
}

static int xfer(int fd, void *buf, size_t n, bool out, uint64_t deadline, void (*idle)(void *),
                void *arg)
{
    uint8_t *p = buf;
    while (n > 0) {
        int rc = wait_io(fd, out ? POLLOUT : POLLIN, deadline, idle, arg);
        if (rc) return rc;
        ssize_t r =
            out ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, p, n, MSG_DONTWAIT);
        if (r == 0 && !out) return UMP_ERR_PEER_DEAD;
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return UMP_ERR_PEER_DEAD;
        }
        p += r;
        n -= (size_t)r;
    }
    return UMP_OK;
}

/* ump-port:<ip>:<port>:<nonce>, the ip possibly [v6]. */
static int parse_name(const char *name, struct sockaddr_storage *ss, socklen_t *sl,
                      uint8_t nonce[8])
{
    size_t np = strlen(PORT_PREFIX);
    if (!name || strncmp(name, PORT_PREFIX, np)) return UMP_ERR_INVALID;
    char buf[UMP_RT_PORT_NAME_MAX];
    if (snprintf(buf, sizeof(buf), "%s", name + np) >= (int)sizeof(buf)) return UMP_ERR_INVALID;
    char *nn = strrchr(buf, ':');
    if (!nn) return UMP_ERR_INVALID;
    *nn++ = '\0';
    if (strlen(nn) != 16 || ump_hex_decode(nn, nonce, 8)) return UMP_ERR_INVALID;
    char *pp = strrchr(buf, ':');
    if (!pp) return UMP_ERR_INVALID;
    *pp++ = '\0';
    char *end;
    long port = strtol(pp, &end, 10);
    if (*end || end == pp || port <= 0 || port > 65535) return UMP_ERR_INVALID;
    char *host = buf;
    size_t hl = strlen(host);
    memset(ss, 0, sizeof(*ss));
    if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1) return UMP_ERR_INVALID;
        *sl = sizeof(*s6);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) return UMP_ERR_INVALID;
        *sl = sizeof(*s4);
    }
    return UMP_OK;
}

int ump_rt_port_open(ump_rt_t *rt, char *name, size_t len)
{
    char ip[64];
    if (ump_rt_local_addr(rt, ip, sizeof(ip))) return UMP_ERR_INTERNAL;
    bool v6 = strchr(ip, ':') != NULL;
    struct sockaddr_storage ss = {0};
    socklen_t sl;
    if (v6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        inet_pton(AF_INET6, ip, &s6->sin6_addr);
        sl = sizeof(*s6);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        inet_pton(AF_INET, ip, &s4->sin_addr);
        sl = sizeof(*s4);
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 64) ||
        getsockname(fd, (struct sockaddr *)&ss, &sl)) {
        ump_error("rt: cannot open a port on %s: %m", ip);
        if (fd >= 0) close(fd);
        return UMP_ERR_IO;
    }
    unsigned port =
        ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
    uint8_t nonce[8];
    char hex[17];
    struct ump_rt_port *p = calloc(1, sizeof(*p));
    if (!p || ump_random_bytes(nonce, sizeof(nonce))) {
        int rc = p ? UMP_ERR_IO : UMP_ERR_NO_MEMORY;
        free(p);
        close(fd);
        return rc;
    }
    ump_hex_encode(nonce, sizeof(nonce), hex);
    int n = snprintf(p->name, sizeof(p->name), "%s%s%s%s:%u:%s", PORT_PREFIX, v6 ? "[" : "", ip,
                     v6 ? "]" : "", port, hex);
    if (n < 0 || (size_t)n >= len) {
        free(p);
        close(fd);
        return UMP_ERR_NO_RESOURCE;
    }
    p->fd = fd;
    p->next = rt->ports;
    rt->ports = p;
    memcpy(name, p->name, (size_t)n + 1);
    return UMP_OK;
}

static struct ump_rt_port **find_port(ump_rt_t *rt, const char *name)
{
    struct ump_rt_port **pp = &rt->ports;
    while (*pp && strcmp((*pp)->name, name))
        pp = &(*pp)->next;
    return pp;
}

int ump_rt_port_close(ump_rt_t *rt, const char *name)
{
    struct ump_rt_port **pp = name ? find_port(rt, name) : &rt->ports;
    if (!name || !*pp) return UMP_ERR_INVALID;
    struct ump_rt_port *p = *pp;
    *pp = p->next;
    close(p->fd);
    free(p);
    return UMP_OK;
}

void ump_rt_ports_fini(ump_rt_t *rt)
{
    while (rt->ports)
        ump_rt_port_close(rt, rt->ports->name);
}

/* Sends v (5 bytes) and the card while receiving the other side's verdict,
 * length and card: both at once, so two large cards cannot each wait for
 * the other to be read. *refused when the other side's verdict is "no". */
static int swap_cards(int fd, const uint8_t v[5], const void *mine, size_t mlen, void **theirs,
                      size_t *tlen, bool *refused, uint64_t deadline, void (*idle)(void *),
                      void *arg)
{
    uint8_t ov[5];
    size_t sent = 0, got = 0, n = 0; /* bytes of v + mine sent; of ov + card received */
    uint8_t *card = NULL;
    bool have_len = false;
    int rc = UMP_OK;
    while (!rc && (sent < 5 + mlen || !have_len || got < 5 + n)) {
        struct pollfd p = {.fd = fd,
                           .events = (short)((sent < 5 + mlen ? POLLOUT : 0) |
                                             (!have_len || got < 5 + n ? POLLIN : 0))};
        int k = poll(&p, 1, idle ? PORT_STEP_MS : 1000);
        if (k < 0 && errno != EINTR) rc = UMP_ERR_IO;
        if (k <= 0) {
            if (!rc && ump_time_ns() > deadline) rc = UMP_ERR_TIMEOUT;
            if (!rc && idle) idle(arg);
            continue;
        }
        if (p.revents & POLLOUT) {
            const uint8_t *src = sent < 5 ? v + sent : (const uint8_t *)mine + (sent - 5);
            size_t len = sent < 5 ? 5 - sent : mlen - (sent - 5);
            ssize_t w = send(fd, src, len, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0)
                sent += (size_t)w;
            else if (w < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
                rc = UMP_ERR_PEER_DEAD;
        }
        if (!rc && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            uint8_t *dst = got < 5 ? ov + got : card + (got - 5);
            size_t len = got < 5 ? (got == 0 ? 1 : 5 - got) : n - (got - 5);
            ssize_t r = recv(fd, dst, len, MSG_DONTWAIT);
            if (r == 0) {
                rc = UMP_ERR_PEER_DEAD;
            } else if (r < 0) {
                if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
                    rc = UMP_ERR_PEER_DEAD;
            } else {
                got += (size_t)r;
                if (got >= 1 && ov[0] != 1) { /* refused: nothing follows */
                    *refused = true;
                    rc = UMP_ERR_AUTH;
                } else if (got == 5 && !have_len) {
                    n = ump_kvs_load_u32(ov + 1);
                    have_len = true;
                    if (n > PORT_CARD_MAX)
                        rc = UMP_ERR_PROTOCOL;
                    else if (!(card = malloc(n ? n : 1)))
                        rc = UMP_ERR_NO_MEMORY;
                }
            }
        }
    }
    if (rc) {
        free(card);
        return rc;
    }
    *theirs = card;
    *tlen = n;
    return UMP_OK;
}

/* The exchange on a connected socket (see the top of the file). role:
 * 'C' connector, 'A' acceptor, 0 decided by the nonces (join). */
static int meet(ump_rt_t *rt, int fd, int role, const uint8_t pnonce[8], const void *mine,
                size_t mlen, void **theirs, size_t *tlen, char *why, size_t whylen,
                void (*idle)(void *), void *arg)
{
    uint8_t h[HELLO_LEN], oh[HELLO_LEN], mac[UMP_AUTH_MAC_LEN], omac[UMP_AUTH_MAC_LEN];
    uint64_t deadline = ump_time_ns() + (uint64_t)PORT_MEET_TMO_S * 1000000000ull;
    put32(h, PORT_MAGIC);
    put32(h + 4, PORT_VERSION);
    if (ump_auth_nonce(h + 8)) return UMP_ERR_IO;
    memcpy(h + 8 + UMP_AUTH_NONCE_LEN, pnonce, 8);
    int rc = xfer(fd, h, sizeof(h), true, deadline, idle, arg);
    if (!rc) rc = xfer(fd, oh, sizeof(oh), false, deadline, idle, arg);
    if (rc) {
        snprintf(why, whylen, "the other side closed the connection before the handshake");
        return rc;
    }
    if (ump_kvs_load_u32(oh) != PORT_MAGIC || ump_kvs_load_u32(oh + 4) != PORT_VERSION) {
        snprintf(why, whylen, "the other side is not an ump process of this version");
        return UMP_ERR_PROTOCOL;
    }
    if (memcmp(oh + 8 + UMP_AUTH_NONCE_LEN, pnonce, 8)) {
        snprintf(why, whylen, "the other side names another port (closed and reopened?)");
        return UMP_ERR_PROTOCOL;
    }
    const uint8_t *mine_n = h + 8, *their_n = oh + 8;
    if (!role) {
        int c = memcmp(mine_n, their_n, UMP_AUTH_NONCE_LEN);
        if (!c) return UMP_ERR_PROTOCOL;
        role = c < 0 ? UMP_AUTH_CONNECTOR : UMP_AUTH_ACCEPTOR;
    }
    bool conn = role == UMP_AUTH_CONNECTOR;
    ump_auth_ctx_t ctx = {PORT_LABEL,
                          rt->info.secret,
                          UMP_RT_SECRET_LEN,
                          conn ? mine_n : their_n,
                          conn ? their_n : mine_n,
                          pnonce,
                          8};
    if (ump_auth_mac(mac, &ctx, conn ? UMP_AUTH_CONNECTOR : UMP_AUTH_ACCEPTOR)) return UMP_ERR_IO;
    rc = xfer(fd, mac, sizeof(mac), true, deadline, idle, arg);
    if (!rc) rc = xfer(fd, omac, sizeof(omac), false, deadline, idle, arg);
    if (rc) {
        snprintf(why, whylen, "the other side closed the connection during the handshake");
        return rc;
    }
    bool ok = ump_auth_check(omac, &ctx, conn ? UMP_AUTH_ACCEPTOR : UMP_AUTH_CONNECTOR);
    /* verdict byte, then (when accepted) u32 length and the card */
    uint8_t v[5] = {ok ? 1 : 0};
    put32(v + 1, (uint32_t)mlen);
    if (!ok) {
        xfer(fd, v, 1, true, deadline, idle, arg);
        snprintf(why, whylen,
                 "the other side failed authentication: it is not a process of "
                 "this job (another umprun job or a singleton has another secret)");
        return UMP_ERR_AUTH;
    }
    bool refused = false;
    rc = swap_cards(fd, v, mine, mlen, theirs, tlen, &refused, deadline, idle, arg);
    if (refused) {
        snprintf(why, whylen,
                 "the other side refused this process: it is not of the other "
                 "side's job (the job secrets differ)");
        return UMP_ERR_AUTH;
    }
    if (rc) snprintf(why, whylen, "the exchange with the other side failed: %s", ump_strerror(rc));
    return rc;
}

int ump_rt_port_accept(ump_rt_t *rt, const char *name, const void *mine, size_t mlen, void **theirs,
                       size_t *tlen, void (*idle)(void *), void *arg)
{
    struct ump_rt_port *p = name ? *find_port(rt, name) : NULL;
    if (!p) {
        ump_error("rt: '%s' is not a port this process opened", name ? name : "(null)");
        return UMP_ERR_INVALID;
    }
    uint8_t pnonce[8];
    struct sockaddr_storage ss;
    socklen_t sl;
    parse_name(p->name, &ss, &sl, pnonce);
    /* A client that fails the exchange (another job, a port scanner) is
     * refused and logged; the accept goes on waiting for a good one. */
    for (;;) {
        int rc = wait_io(p->fd, POLLIN, 0, idle, arg);
        if (rc) return rc;
        sl = sizeof(ss);
        int fd = accept4(p->fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
            ump_error("rt: accept on port %s: %m", p->name);
            return UMP_ERR_IO;
        }
        char why[200];
        rc = meet(rt, fd, UMP_AUTH_ACCEPTOR, pnonce, mine, mlen, theirs, tlen, why, sizeof(why),
                  idle, arg);
        close(fd);
        if (!rc) return UMP_OK;
        if (rc == UMP_ERR_NO_MEMORY) return rc;
        ump_warn("rt: refused a connection on port %s: %s", p->name, why);
    }
}

int ump_rt_port_connect(ump_rt_t *rt, const char *name, const void *mine, size_t mlen,
                        void **theirs, size_t *tlen, int timeout_s, void (*idle)(void *), void *arg)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    uint8_t pnonce[8];
    if (parse_name(name, &ss, &sl, pnonce)) {
        ump_error("rt: '%s' is not a port name (ump-port:<ip>:<port>:<nonce>)",
                  name ? name : "(null)");
        return UMP_ERR_INVALID;
    }
    uint64_t deadline = ump_time_ns() + (uint64_t)(timeout_s > 0 ? timeout_s : 1) * 1000000000ull;
    /* The server may not be accepting yet: its listening socket queues the
     * connection, so only a refused connect (no such port) ends the call. */
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return UMP_ERR_IO;
    int r;
    do
        r = connect(fd, (struct sockaddr *)&ss, sl);
    while (r < 0 && errno == EINTR);
    int rc = UMP_OK;
    if (r < 0 && errno == EINPROGRESS) {
        rc = wait_io(fd, POLLOUT, deadline, idle, arg);
        int err = 0;
        socklen_t el = sizeof(err);
        if (!rc) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (!rc && err) {
            errno = err;
            r = -1;
        } else if (!rc) {
            r = 0;
        }
    }
    if (rc || r < 0) {
        ump_error("rt: cannot connect to port %s: %s", name,
                  rc ? ump_strerror(rc) : strerror(errno));
        close(fd);
        return UMP_ERR_PEER_DEAD;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char why[200];
    rc = meet(rt, fd, UMP_AUTH_CONNECTOR, pnonce, mine, mlen, theirs, tlen, why, sizeof(why), idle,
              arg);
    close(fd);
    if (rc) ump_error("rt: connecting to port %s: %s", name, why);
    return rc;
}

int ump_rt_join(ump_rt_t *rt, int fd, const void *mine, size_t mlen, void **theirs, size_t *tlen,
                void (*idle)(void *), void *arg)
{
    static const uint8_t no_port[8];
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) {
        ump_error("rt: join: %d is not an open file descriptor", fd);
        return UMP_ERR_INVALID;
    }
    /* The exchange needs a non-blocking socket; the caller's stays as it was. */
    if (!(fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    char why[200];
    int rc = meet(rt, fd, 0, no_port, mine, mlen, theirs, tlen, why, sizeof(why), idle, arg);
    if (!(fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl);
    if (rc) ump_error("rt: join over descriptor %d: %s", fd, why);
    return rc;
}
