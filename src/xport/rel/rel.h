/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel.h - the reliability engine: reliable, ordered active messages over
 * any transport that sends datagrams of up to an MTU to any peer from one
 * endpoint (a UDP socket, a libfabric FI_EP_DGRAM endpoint, ...).
 *
 * The engine knows nothing of sockets. Its lower layer gives it a send
 * function and calls ump_rel_input() with every datagram that arrives; its
 * upper layer (a transport's ops table) calls ump_rel_send() and gets whole
 * AMs back through a deliver callback, in order, exactly once.
 *
 * Life cycle:
 *   ump_rel_create()   with the lower and upper callbacks (a transport's
 *                      open calls ump_rel_xp_open(), which also fills in
 *                      its capabilities and gives the upper side);
 *   ump_rel_send()     takes one AM (copied), fragments it to the MTU;
 *   ump_rel_input()    one arrived datagram (from the lower layer's receive
 *                      loop); may call deliver() and the lower send();
 *   ump_rel_poll()     timers: retransmission, delayed acks, dead peers,
 *                      and datagrams the window held back;
 *   ump_rel_deadline() when poll() must run next (for a sleeping waiter);
 *   ump_rel_flush()    whether everything sent is acknowledged;
 *   ump_rel_destroy()  frees everything, prints the counters if UMP_STATS.
 *
 * Not thread-safe: one caller at a time (the core's lock). deliver() may
 * call ump_rel_send() (on any peer) but never input() or poll().
 *
 * Wire format: every datagram starts with ump_rel_hdr_t (40 bytes, host
 * byte order: ump assumes homogeneous clusters), then `len` payload bytes.
 * A DATA datagram carries one fragment of an AM; an ACK datagram has no
 * payload. Every datagram carries the cumulative ack and a 64-bit selective
 * ack of the reverse direction, so acks ride on reverse traffic for free.
 */
#ifndef UMP_XPORT_REL_H
#define UMP_XPORT_REL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "xport/xport.h"

enum {
    UMP_REL_DATA = 1,
    UMP_REL_ACK = 2,
};

enum {
    UMP_REL_F_FIRST = 0x01,  /* first fragment of an AM */
    UMP_REL_F_LAST = 0x02,   /* last fragment of an AM */
    UMP_REL_F_ACKREQ = 0x04, /* sender's window is full or this is a resend: ack at once */
};

#define UMP_REL_VERSION 1

typedef struct ump_rel_hdr {
    uint32_t hcrc;   /* CRC32C of bytes 4..39 of this header */
    uint32_t pcrc;   /* CRC32C of the payload (0 when there is none) */
    uint32_t src;    /* sender's rank */
    uint32_t seq;    /* DATA: this datagram's sequence number; ACK: next unsent */
    uint32_t ack;    /* every seq below this from the receiver arrived */
    uint32_t msglen; /* DATA: length of the whole AM */
    uint64_t sack;   /* bit i set: seq ack + 1 + i arrived */
    uint16_t len;    /* payload bytes in this datagram */
    uint8_t type;    /* UMP_REL_DATA, UMP_REL_ACK */
    uint8_t flags;   /* UMP_REL_F_* */
    uint8_t am_id;
    uint8_t version;
    uint16_t reserved;
} ump_rel_hdr_t;
_Static_assert(sizeof(ump_rel_hdr_t) == 40, "the rel header is 40 bytes on the wire");

/* One datagram handed to the lower layer: `len` bytes at `data` (the rel
 * header first) to rank `peer`. */
typedef struct ump_rel_dgram {
    int peer;
    const void *data;
    size_t len;
} ump_rel_dgram_t;

typedef struct ump_rel_lower {
    void *ctx;  /* passed back to every callback */
    size_t mtu; /* largest datagram (rel header included) to any peer; at most 65535 */
    /*
     * Called once per peer, on first contact (a send to it or a datagram
     * from it), before any datagram goes to it: resolves its address and
     * sets *mtu to the largest datagram (rel header included) it may get.
     * An error makes the peer unreachable.
     */
    int (*peer_open)(void *ctx, int peer, size_t *mtu);
    /*
     * Sends n datagrams; the bytes need to live only for the call. Returns
     * how many were handed to the network (a shortfall counts as loss and
     * is repaired by retransmission), or a negative error.
     */
    int (*send)(void *ctx, const ump_rel_dgram_t *d, int n);
    /* Monotonic nanoseconds; NULL: the system clock (tests give their own). */
    uint64_t (*clock)(void *ctx);
    /* Writes a printable address of the peer for log lines; may be NULL. */
    void (*peer_name)(void *ctx, int peer, char *buf, size_t len);
} ump_rel_lower_t;

typedef struct ump_rel_upper {
    void *arg;
    /* One whole AM, in order; `data` is valid until the call returns. */
    void (*deliver)(void *arg, int peer, uint8_t am_id, const void *data, size_t len);
    /* The peer stopped answering (or could not be reached); every later
     * ump_rel_send to it fails with UMP_ERR_PEER_DEAD. Called from poll(). */
    void (*peer_failed)(void *arg, int peer, int status);
} ump_rel_upper_t;

/* Settings; ump_rel_config_default() fills them from the UMP_REL_* tunables. */
typedef struct ump_rel_config {
    unsigned window;       /* datagrams in flight per peer (1..64) */
    size_t max_am;         /* largest AM accepted (header + payload) */
    size_t tx_max;         /* bytes of send buffers per process */
    size_t rx_max;         /* bytes of out-of-order + reassembly buffers per process */
    uint64_t rto_init_ns;  /* retransmission timeout before any round trip is measured */
    uint64_t rto_min_ns;   /* floor of the adaptive timeout */
    uint64_t rto_max_ns;   /* ceiling of the timeout with backoff */
    uint64_t dead_ns;      /* silence with data outstanding that declares a peer dead */
    uint64_t ack_delay_ns; /* longest an ack waits for reverse traffic */
    unsigned ack_count;    /* datagrams that trigger an explicit ack */
    double drop, dup, reorder, corrupt; /* fault injection rates, 0..1 */
    uint64_t seed;                      /* fault injection seed */
    bool stats;                         /* print counters at destroy */
} ump_rel_config_t;

void ump_rel_config_default(ump_rel_config_t *cfg);

typedef struct ump_rel_stats {
    uint64_t sent;          /* DATA datagrams sent the first time */
    uint64_t retransmitted; /* DATA datagrams sent again (timeout or gap) */
    uint64_t fast_rexmit;   /* of those, sent again because of a gap */
    uint64_t timeouts;      /* retransmission timer expiries */
    uint64_t probes;        /* oldest datagram resent early, once per stall */
    uint64_t received;      /* DATA datagrams accepted */
    uint64_t duplicates;    /* DATA datagrams already had, dropped */
    uint64_t corrupted;     /* datagrams failing the CRC, dropped */
    uint64_t malformed;     /* datagrams too short or with a bad header */
    uint64_t acks_sent;     /* explicit ACK datagrams */
    uint64_t acks_recv;
    uint64_t rx_dropped; /* datagrams dropped for want of receive buffers */
    uint64_t send_short; /* datagrams the lower layer did not take */
    uint64_t delivered;  /* AMs delivered */
    uint64_t inj_drop, inj_dup, inj_reorder, inj_corrupt; /* faults injected */
    uint64_t dead_peers;
} ump_rel_stats_t;

typedef struct ump_rel ump_rel_t;

/* `name` prefixes log lines ("udp"). UMP_OK or UMP_ERR_NO_MEMORY. */
int ump_rel_create(const char *name, int rank, int size, const ump_rel_config_t *cfg,
                   const ump_rel_lower_t *lower, const ump_rel_upper_t *upper, ump_rel_t **out);
/* Frees everything (unacknowledged data is dropped). */
void ump_rel_destroy(ump_rel_t *rel);

/*
 * Sets the engine up under transport `xp` (its ops and params filled in),
 * whose lower layer sends datagrams of up to lower->mtu bytes (the
 * engine's header included, the transport's own not). Fills xp->caps:
 * reliable, ordered, system-call cost per AM (the engine gathers the
 * caller's iovecs into its own buffers), no RMA, eager limit `eager`,
 * `max_iov` iovecs, segments of `seg` bytes (0: a datagram's payload room
 * less AM header room when that is at least 16 KiB, else 64 KiB) and
 * max_am to match. Creates the engine with the UMP_REL_* settings, that
 * max_am, log lines named after xp->ops->name, and an upper side that
 * hands AMs and dead peers to xp->params' callbacks. *stats: whether
 * UMP_STATS asks for counters at close. UMP_OK or UMP_ERR_NO_MEMORY.
 */
int ump_rel_xp_open(ump_xp_t *xp, int rank, int size, const ump_rel_lower_t *lower, size_t seg,
                    size_t eager, size_t max_iov, bool *stats, ump_rel_t **out);

/*
 * Takes one AM (hlen bytes of hdr, then the iov's bytes; at most max_am in
 * all), copying it: the caller may reuse its buffers at once. UMP_OK;
 * UMP_ERR_NO_RESOURCE when the peer's window or the send buffers are full
 * (nothing taken: try again after poll/input); UMP_ERR_PEER_DEAD;
 * UMP_ERR_INVALID. AMs taken for one peer are delivered in that order.
 */
int ump_rel_send(ump_rel_t *rel, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                 const struct iovec *iov, int iovcnt);

/* One datagram from the lower layer (any peer; bad ones are counted and
 * dropped). `data` must be 8-byte aligned: single-datagram AMs are
 * delivered in place. Returns the number of AMs delivered. */
int ump_rel_input(ump_rel_t *rel, const void *data, size_t len);

/* Runs due timers and sends what the windows allow. Returns events handled. */
int ump_rel_poll(ump_rel_t *rel);

/* Monotonic time (lower clock) at which poll() has work: 0 = now,
 * UINT64_MAX = nothing pending (a sleeper needs no timer). */
uint64_t ump_rel_deadline(ump_rel_t *rel);

/* UMP_OK when every AM taken is acknowledged (or its peer dead) and the
 * peers had time to see our last acks; else UMP_INPROGRESS. */
int ump_rel_flush(ump_rel_t *rel);

/* Whether the peer was declared dead. */
bool ump_rel_peer_dead(ump_rel_t *rel, int peer);

void ump_rel_get_stats(const ump_rel_t *rel, ump_rel_stats_t *st);

/* Bytes of per-peer state (for the memory tests). */
size_t ump_rel_peer_state_size(void);

/*
 * The keyed tag of a datagram whose rel part is `data`/`len`: CRC32C,
 * seeded with `key` (the CRC32C of the job secret), of its first (up to)
 * UMP_REL_TAG_SPAN bytes (the rel header, which names the sender and
 * holds the header CRC). The lower layers (udp, ofiud) send it in front of
 * every datagram and drop arrivals that fail it: datagrams of another job,
 * or stray ones. It keeps jobs apart; it is no defence against an attacker
 * who sees the traffic.
 */
#define UMP_REL_TAG_SPAN 32
uint32_t ump_rel_tag(uint32_t key, const void *data, size_t len);

#endif /* UMP_XPORT_REL_H */
