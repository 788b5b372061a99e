/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_iface.c - which address the TCP transport listens on, the listening
 * socket, and the socket options every connection gets (and those of a
 * connection within the host).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xport/tcp/tcp.h"

/* First IPv4 address of `ifname`, or with ifname NULL the first up,
 * non-loopback one. */
static int iface_addr(const char *ifname, char *ip, size_t len)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs)) {
        ump_error("tcp: getifaddrs: %m");
        return UMP_ERR_IO;
    }
    int rc = UMP_ERR_INVALID;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        if (ifname ? strcmp(i->ifa_name, ifname) != 0
                   : (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)))
            continue;
        const struct sockaddr_in *sin = (const struct sockaddr_in *)i->ifa_addr;
        if (inet_ntop(AF_INET, &sin->sin_addr, ip, (socklen_t)len)) rc = UMP_OK;
        break;
    }
    freeifaddrs(ifs);
    return rc;
}

int ump_tcp_pick_addr(ump_rt_t *rt, const char *ifname, char *ip, size_t len)
{
    if (ifname && *ifname) {
        int rc = iface_addr(ifname, ip, len);
        if (rc) ump_error("tcp: UMP_TCP_IF=%s has no IPv4 address", ifname);
        return rc;
    }
    /* The runtime knows which local address reaches the other hosts: the
     * one its own connection to the launcher uses. */
    if (ump_rt_local_addr(rt, ip, len) == UMP_OK) return UMP_OK;
    if (ump_rt_info(rt)->num_nodes > 1 && iface_addr(NULL, ip, len) == UMP_OK) return UMP_OK;
    snprintf(ip, len, "127.0.0.1");
    return UMP_OK;
}

/* Socket buffers smaller than this stall loopback connections, whose MSS
 * is ~64k: the receiver never opens a window worth a segment. */
#define SOCKBUF_MIN ((size_t)64 * 1024)

/* SO_SNDBUF or SO_RCVBUF, within what loopback and the kernel take. */
static void set_buf(int fd, int opt, size_t bytes)
{
    int v = (int)UMP_MIN(UMP_MAX(bytes, SOCKBUF_MIN), (size_t)1 << 30);
    if (setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v)))
        ump_debug("tcp: %s: %m", opt == SO_SNDBUF ? "SO_SNDBUF" : "SO_RCVBUF");
}

void ump_tcp_sock_opts(int fd, size_t sndbuf, size_t rcvbuf)
{
    int one = 1;
    /* AMs are latency-bound and already written whole with one writev:
     * Nagle would only hold back the tail of a frame. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
        ump_debug("tcp: TCP_NODELAY: %m");
    if (sndbuf) set_buf(fd, SO_SNDBUF, sndbuf);
    if (rcvbuf) set_buf(fd, SO_RCVBUF, rcvbuf);
}

/* Whether a and b hold one IP address (ports aside). */
static bool same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family) return false;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
    return false;
}

/* A connection to one of the host's own addresses runs over loopback,
 * whatever the interface the address belongs to, and its two ends then
 * carry the same address. */
void ump_tcp_sock_local(int fd, size_t sndbuf)
{
    if (!sndbuf) return;
    struct sockaddr_storage me, peer;
    socklen_t lm = sizeof(me), lp = sizeof(peer);
    if (getsockname(fd, (struct sockaddr *)&me, &lm) ||
        getpeername(fd, (struct sockaddr *)&peer, &lp) || !same_ip(&me, &peer))
        return;
    set_buf(fd, SO_SNDBUF, sndbuf);
}

/* Numeric host (IPv4 or IPv6, with an optional %scope) and port into ss. */
static int numeric_addr(const char *ip, const char *port, struct sockaddr_storage *ss,
                        socklen_t *sl)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                             .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai;
    if (getaddrinfo(ip, port, &hints, &ai)) return UMP_ERR_INVALID;
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *sl = ai->ai_addrlen;
    freeaddrinfo(ai);
    return UMP_OK;
}

int ump_tcp_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sl)
{
    /* The port follows the last colon; an IPv6 address has colons too. */
    char ip[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof(ip)) return UMP_ERR_INVALID;
    memcpy(ip, addr, (size_t)(colon - addr));
    ip[colon - addr] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || port <= 0 || port > 65535) return UMP_ERR_INVALID;
    return numeric_addr(ip, colon + 1, ss, sl);
}

void ump_tcp_format_addr(const struct sockaddr *sa, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN + IF_NAMESIZE + 2], port[8];
    socklen_t sl =
        sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (getnameinfo(sa, sl, ip, sizeof(ip), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV))
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%s:%s", ip, port);
}

int ump_tcp_listen(const char *ip, char *addr, size_t alen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (numeric_addr(ip, "0", &ss, &sl)) {
        ump_error("tcp: bad listen address '%s'", ip);
        return UMP_ERR_INVALID;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ump_error("tcp: socket: %m");
        return UMP_ERR_IO;
    }
    if (bind(fd, (struct sockaddr *)&ss, sl)) {
        ump_error("tcp: bind %s: %m", ip);
        goto err_close;
    }
    /* The backlog bounds connections not yet accepted; every rank of a
     * large job may connect at once. The kernel caps it at somaxconn. */
    if (listen(fd, 4096)) {
        ump_error("tcp: listen: %m");
        goto err_close;
    }
    sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
        ump_error("tcp: getsockname: %m");
        goto err_close;
    }
    ump_tcp_format_addr((struct sockaddr *)&ss, addr, alen);
    return fd;
err_close:
    close(fd);
    return UMP_ERR_IO;
}
