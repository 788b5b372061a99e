/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udp.h - the UDP transport's internals, shared by its files and tests.
 *
 *   udp_sock.c    address and MTU choice, sockets, the datagram tag
 *   udp_auth.c    the per-peer handshake and the admission of source addresses
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
 *
 * Authentication (src/util/auth.h, label "ump-udp"): before a rank sends
 * anything to a peer, the two run a three-datagram handshake (udp_auth.c):
 * HELLO (initiator's nonce and send ports) to the peer's published receive
 * address, CHALLENGE (the responder's nonce, send ports and proof) back to
 * the initiator's published address, PROOF (the initiator's proof). Each
 * proof covers both nonces, both ranks, the job size and both sides' send
 * ports, so each side then admits exactly the other's send sockets (its
 * published IP, the proven ports). A datagram from any other source is
 * dropped and counted ("unauth"); a failed proof is refused, logged with
 * the sender's address, and counted ("auth_refused"). Until its handshake
 * completes, datagrams rel hands down for a peer are dropped as if lost,
 * so rel's retransmissions carry them once it does, and each retransmission
 * repeats a lost HELLO; a responder that drops datagrams of a rank whose
 * PROOF it still awaits repeats its CHALLENGE, which makes the initiator
 * repeat a lost PROOF.
 */
#ifndef UMP_XPORT_UDP_H
#define UMP_XPORT_UDP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rt/rt.h"
#include "util/auth.h"
#include "util/util.h"
#include "xport/rel/rel.h"
#include "xport/xport.h"

#define UMP_UDP_MAGIC     0x44504d55u /* "UMPD" little-endian */
#define UMP_UDP_HDR       8
#define UMP_UDP_MAX_IOV   64    /* caps.max_iov */
#define UMP_UDP_MAX_DGRAM 65507 /* largest UDP payload over IPv4 */

typedef struct ump_udp_hdr {
    uint32_t magic;
    uint32_t tag;
} ump_udp_hdr_t;
_Static_assert(sizeof(ump_udp_hdr_t) == UMP_UDP_HDR, "udp header is 8 bytes");

/* The tag of a datagram whose rel part is `data`/`len`, under `key`
 * (the CRC32C of the job secret): rel's keyed tag, shared with ofiud. */
static inline uint32_t ump_udp_tag(uint32_t key, const void *data, size_t len)
{
    return ump_rel_tag(key, data, len);
}

#define UMP_UDP_MAGIC_AUTH 0x41504d55u /* "UMPA": a handshake datagram */
#define UMP_UDP_AUTH_LABEL "ump-udp"
#define UMP_UDP_MAX_SFD    16

enum { UMP_UDP_AUTH_HELLO = 1, UMP_UDP_AUTH_CHALLENGE = 2, UMP_UDP_AUTH_PROOF = 3 };

/* A handshake datagram; integers little-endian, ports in network order. */
typedef struct ump_udp_auth_msg {
    uint32_t magic; /* UMP_UDP_MAGIC_AUTH */
    uint8_t type;
    uint8_t nports; /* the sender's send sockets */
    uint16_t reserved;
    uint32_t from, to, size;
    uint16_t ports[UMP_UDP_MAX_SFD];
    uint16_t ports_a[UMP_UDP_MAX_SFD]; /* PROOF: the responder's, as CHALLENGE gave them */
    uint8_t nonce_c[UMP_AUTH_NONCE_LEN], nonce_a[UMP_AUTH_NONCE_LEN];
    uint8_t proof[UMP_AUTH_MAC_LEN];
} ump_udp_auth_msg_t;
_Static_assert(sizeof(ump_udp_auth_msg_t) == 180, "handshake datagram is 180 bytes");

typedef enum {
    UMP_UDP_AUTH_NONE,
    UMP_UDP_AUTH_STARTED, /* initiator: HELLO sent, CHALLENGE awaited */
    UMP_UDP_AUTH_DONE,    /* the peer proved itself: it may be sent to */
} ump_udp_auth_state_t;

typedef struct ump_udp_peer {
    struct sockaddr_in sa; /* family 0 until resolved */
    uint16_t mtu;          /* the peer's datagram size (UDP payload) */
    ump_udp_auth_state_t auth;
    bool admitted;  /* its send sockets' datagrams are taken */
    bool awaiting;  /* responder: CHALLENGE sent, PROOF awaited */
    uint8_t nports; /* admitted send ports of the peer */
    uint16_t ports[UMP_UDP_MAX_SFD];
    uint8_t nonce_mine[UMP_AUTH_NONCE_LEN]; /* as initiator: our HELLO's */
    uint8_t nonce_peer[UMP_AUTH_NONCE_LEN]; /* as responder: the peer's HELLO's */
    uint8_t nonce_a[UMP_AUTH_NONCE_LEN];    /* as responder: our CHALLENGE's */
    uint64_t resent_at;                     /* last HELLO or CHALLENGE repeat */
    ump_udp_auth_msg_t challenge;           /* as responder: ours, to repeat */
    ump_udp_auth_msg_t proof;               /* as initiator: ours, to repeat */
} ump_udp_peer_t;

typedef struct ump_udp_xp {
    ump_xp_t base; /* first: the core sees only this */
    int rank, size;
    ump_rt_t *rt;
    int rfd;                  /* the receive socket */
    int sfd[UMP_UDP_MAX_SFD]; /* send sockets, used in turn */
    int nsfd;
    uint16_t sports[UMP_UDP_MAX_SFD]; /* their ports, network order */
    const uint8_t *secret;            /* the job secret (the runtime's) */
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
    struct sockaddr_in *rname; /* each slot's source address */
    uint64_t foreign, truncated, send_errors, recv_calls, send_calls;
    uint64_t unauth;       /* datagrams from a source no handshake admitted */
    uint64_t auth_refused; /* handshakes whose proof failed */
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

/* udp_xport.c */
/* Reads the peer's published address into xp->peers[peer] once. */
int ump_udp_resolve(ump_udp_xp_t *xp, int peer);

/* udp_auth.c */
/* True when datagrams may go to peer; otherwise starts (or repeats, at
 * most once a millisecond) the handshake with it. */
bool ump_udp_auth_ready(ump_udp_xp_t *xp, int peer);
/* A handshake datagram received from `src`. */
void ump_udp_auth_input(ump_udp_xp_t *xp, const void *data, size_t len,
                        const struct sockaddr_in *src);
/* True when a rel datagram from `src` claiming rank `rank` may be taken;
 * otherwise counts it (unauth) and, when that rank's PROOF is awaited,
 * repeats the CHALLENGE. */
bool ump_udp_auth_admit(ump_udp_xp_t *xp, uint32_t rank, const struct sockaddr_in *src);

extern const ump_xp_ops_t ump_xp_udp_ops;

#endif /* UMP_XPORT_UDP_H */
