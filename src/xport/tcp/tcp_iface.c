/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_iface.c - which address the TCP transport listens on, the listening
 * socket, and the socket options every connection gets.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

void ump_tcp_sock_opts(int fd, size_t sndbuf, size_t rcvbuf)
{
    int one = 1;
    /* AMs are latency-bound and already written whole with one writev:
     * Nagle would only hold back the tail of a frame. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
        ump_debug("tcp: TCP_NODELAY: %m");
    if (sndbuf) {
        int v = (int)UMP_MIN(UMP_MAX(sndbuf, SOCKBUF_MIN), (size_t)1 << 30);
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v))) ump_debug("tcp: SO_SNDBUF: %m");
    }
    if (rcvbuf) {
        int v = (int)UMP_MIN(UMP_MAX(rcvbuf, SOCKBUF_MIN), (size_t)1 << 30);
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v))) ump_debug("tcp: SO_RCVBUF: %m");
    }
}

int ump_tcp_parse_addr(const char *addr, void *out)
{
    struct sockaddr_in *sin = out;
    char ip[INET_ADDRSTRLEN];
    const char *colon = strrchr(addr, ':');
    if (!colon || (size_t)(colon - addr) >= sizeof(ip)) return UMP_ERR_INVALID;
    memcpy(ip, addr, (size_t)(colon - addr));
    ip[colon - addr] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port <= 0 || port > 65535) return UMP_ERR_INVALID;
    memset(sin, 0, sizeof(*sin));
    sin->sin_family = AF_INET;
    sin->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1) return UMP_ERR_INVALID;
    return UMP_OK;
}

int ump_tcp_listen(const char *ip, char *addr, size_t alen)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1) {
        ump_error("tcp: bad listen address '%s'", ip);
        return UMP_ERR_INVALID;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ump_error("tcp: socket: %m");
        return UMP_ERR_IO;
    }
    socklen_t sl = sizeof(sin);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
        ump_error("tcp: bind %s: %m", ip);
        goto err_close;
    }
    /* The backlog bounds connections not yet accepted; every rank of a
     * large job may connect at once. The kernel caps it at somaxconn. */
    if (listen(fd, 4096)) {
        ump_error("tcp: listen: %m");
        goto err_close;
    }
    if (getsockname(fd, (struct sockaddr *)&sin, &sl)) {
        ump_error("tcp: getsockname: %m");
        goto err_close;
    }
    snprintf(addr, alen, "%s:%u", ip, (unsigned)ntohs(sin.sin_port));
    return fd;
err_close:
    close(fd);
    return UMP_ERR_IO;
}
