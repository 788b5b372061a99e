/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udp.h - the UDP transport's internals, shared by its files and tests.
 *
 *   udp_sock.c    address and MTU choice, sockets, the datagram tag
 *   udp_xport.c   the ops table: open, am_send, progress, arm, ...
 *
 * The UD transport of Friedley et al. on UDP sockets: one receive socket
 * per process takes every peer's datagrams (the shared receive queue, so
 * receive buffers do not grow with the job), K send sockets are used in
 * turn (striping), sendmmsg/recvmmsg move batches. No connection is ever
 * set up: a peer's address comes from the bootstrap on first contact.
 * Reliability, order, fragmentation and flow control come from rel/.
 *
 * Wire format: an 8-byte header, then the rel datagram.
 *   u32 magic   UMP_UDP_MAGIC
 *   u32 tag     CRC32C, seeded with the CRC32C of the job secret, of the
 *               first (up to) 32 bytes of the rel datagram: datagrams of
 *               another job, or stray ones, fail it and are dropped and
 *               counted ("foreign"). A keyed CRC keeps jobs apart; it is
 *               not a defence against an attacker who sees the traffic.
 */
#ifndef UMP_XPORT_UDP_H
#define UMP_XPORT_UDP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rt/rt.h"
#include "util/util.h"
#include "xport/rel/rel.h"
#include "xport/xport.h"

#define UMP_UDP_MAGIC     0x44504d55u /* "UMPD" little-endian */
#define UMP_UDP_HDR       8
#define UMP_UDP_TAG_SPAN  32
#define UMP_UDP_MAX_IOV   64    /* caps.max_iov */
#define UMP_UDP_MAX_DGRAM 65507 /* largest UDP payload over IPv4 */

typedef struct ump_udp_hdr {
    uint32_t magic;
    uint32_t tag;
} ump_udp_hdr_t;
_Static_assert(sizeof(ump_udp_hdr_t) == UMP_UDP_HDR, "udp header is 8 bytes");

/* The tag of a datagram whose rel part is `data`/`len`, under `key`
 * (the CRC32C of the job secret). */
uint32_t ump_udp_tag(uint32_t key, const void *data, size_t len);

typedef struct ump_udp_peer {
    struct sockaddr_in sa; /* family 0 until resolved */
    uint16_t mtu;          /* the peer's datagram size (UDP payload) */
} ump_udp_peer_t;

typedef struct ump_udp_xp {
    ump_xp_t base; /* first: the core sees only this */
    int rank, size;
    ump_rt_t *rt;
    int rfd;     /* the receive socket */
    int sfd[16]; /* send sockets, used in turn */
    int nsfd;
    unsigned next_sfd;
    int epfd, tfd;     /* wait fd: epoll of rfd and a timerfd */
    uint64_t timer_at; /* deadline the timerfd is set to; 0 = disarmed */
    uint32_t key;      /* CRC32C of the job secret */
    size_t mtu;        /* our datagram size (UDP payload) */
    char addr[80];     /* published "ip port mtu" */
    ump_udp_peer_t *peers;
    ump_rel_t *rel;
    bool stats;
    /* Receive batch: rbatch slots of rslot bytes. */
    int rbatch;
    size_t rslot;
    uint8_t *rbuf;
    struct mmsghdr *rmsg;
    struct iovec *riov;
    uint64_t foreign, truncated, send_errors, recv_calls, send_calls;
} ump_udp_xp_t;

/* udp_sock.c */
/* The IPv4 address to use (UMP_UDP_IF's, else the runtime's) and the MTU of
 * its interface (0 if unknown). */
int ump_udp_pick_addr(ump_rt_t *rt, const char *ifname, char *ip, size_t len, int *if_mtu);
/* Non-blocking datagram socket bound to ip, port 0, with the given buffer
 * sizes (0: kernel default). Returns the fd or a negative UMP_ERR_*. */
int ump_udp_socket(const char *ip, size_t sndbuf, size_t rcvbuf);
/* Reads the bound address of fd into "ip:port". */
int ump_udp_sockname(int fd, struct sockaddr_in *sa);

extern const ump_xp_ops_t ump_xp_udp_ops;

#endif /* UMP_XPORT_UDP_H */
