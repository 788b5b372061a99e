/* SPDX-License-Identifier: BSD-3-Clause */
/* udp_sock.c - address and MTU choice, sockets, the datagram tag. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "xport/udp/udp.h"

static int if_mtu_of(const char *ifname)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    int mtu = ioctl(fd, SIOCGIFMTU, &ifr) == 0 ? ifr.ifr_mtu : 0;
    close(fd);
    return mtu;
}

int ump_udp_pick_addr(ump_rt_t *rt, const char *ifname, char *ip, size_t len, int *if_mtu)
{
    struct ifaddrs *ifa = NULL;
    *if_mtu = 0;
    if (getifaddrs(&ifa) != 0) {
        ump_warn("udp: getifaddrs: %m");
        ifa = NULL;
    }
    int rc = UMP_OK;
    if (ifname && *ifname) {
        rc = UMP_ERR_INVALID;
        for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || strcmp(i->ifa_name, ifname))
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, ip, (socklen_t)len);
            rc = UMP_OK;
            break;
        }
        if (rc) ump_error("udp: UMP_UDP_IF=%s has no IPv4 address", ifname);
    } else {
        rc = ump_rt_local_addr(rt, ip, len);
    }
    if (rc == UMP_OK) {
        struct in_addr want;
        if (inet_pton(AF_INET, ip, &want) != 1) {
            ump_error("udp: '%s' is not an IPv4 address", ip);
            rc = UMP_ERR_UNSUPPORTED;
        }
        for (struct ifaddrs *i = ifa; rc == UMP_OK && i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
            if (((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr != want.s_addr) continue;
            *if_mtu = if_mtu_of(i->ifa_name);
            break;
        }
    }
    if (ifa) freeifaddrs(ifa);
    return rc;
}

static void set_buf(int fd, int opt, int force_opt, size_t want, const char *what)
{
    if (!want) return;
    int v = (int)UMP_MIN(want, (size_t)INT32_MAX / 2);
    /* The forcing variant passes rmem_max/wmem_max when privileged; the
     * plain one is capped by them silently. */
    if (setsockopt(fd, SOL_SOCKET, force_opt, &v, sizeof(v)) == 0) return;
    if (setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v)) != 0) ump_debug("udp: %s: %m", what);
}

int ump_udp_socket(const char *ip, size_t sndbuf, size_t rcvbuf)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ump_error("udp: socket: %m");
        return UMP_ERR_IO;
    }
    set_buf(fd, SO_SNDBUF, SO_SNDBUFFORCE, sndbuf, "SO_SNDBUF");
    set_buf(fd, SO_RCVBUF, SO_RCVBUFFORCE, rcvbuf, "SO_RCVBUF");
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        ump_error("udp: bind to %s: %m", ip);
        close(fd);
        return UMP_ERR_IO;
    }
    return fd;
}

int ump_udp_sockname(int fd, struct sockaddr_in *sa)
{
    socklen_t sl = sizeof(*sa);
    if (getsockname(fd, (struct sockaddr *)sa, &sl) != 0) {
        ump_error("udp: getsockname: %m");
        return UMP_ERR_IO;
    }
    return UMP_OK;
}
