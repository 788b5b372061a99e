/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xport.h - the byte-transfer interface every transport implements.
 *
 * A transport moves opaque active messages (AMs) between ranks and, when it
 * can, reads remote memory. It never sees tags, contexts, communicators or
 * datatypes: those belong to the core, which tells a transport only a peer
 * rank, a one-byte AM id and bytes.
 *
 * Life cycle, driven by the core (src/core/init.c):
 *
 *   open()     create the endpoint; publish its address with ump_rt_put().
 *              Called before the runtime fence.
 *   wireup()   after the fence: read peers' addresses, attach shared
 *              segments. Connections themselves may be made lazily on the
 *              first am_send to a peer.
 *   reaches()  whether this transport can talk to a peer (shm: same node).
 *   am_send(), get(), progress(), arm()/wait_fd() while the job runs.
 *   flush()    at finalize: push out everything queued.
 *   close()    after the final fence: release everything.
 *
 * Threading: a transport is only ever called by one thread at a time (the
 * core serialises under its lock). Handlers are called from inside
 * progress(); a handler may call am_send() and get() on any transport,
 * including the one that is delivering, but never progress().
 */
#ifndef UMP_XPORT_H
#define UMP_XPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "rt/rt.h"

typedef struct ump_xp ump_xp_t;

/* What one AM costs the sender, as far as the core's choice of segment
 * size and of handing iovecs over instead of packing is concerned. */
typedef enum {
    /* An AM is a few stores into shared or private memory (shm, self):
     * every iovec entry costs a copy call like packing would, and small
     * segments are cheap. */
    UMP_XP_AM_MEMORY = 0,
    /* Every AM costs system calls and the kernel copies the payload from
     * the caller's iovecs (tcp, udp): gathering runs saves a copy of ours,
     * and segments pay off only when large. */
    UMP_XP_AM_SYSCALL,
} ump_xp_am_cost_t;

/* Numbers the core's protocol choice reads; filled by open(). The core
 * knows a transport only by these (never by its name). */
typedef struct ump_xp_caps {
    bool reliable;            /* no loss, no duplication, no corruption */
    bool ordered;             /* AMs to one peer are delivered in send order */
    ump_xp_am_cost_t am_cost; /* what an AM costs the sender (see above) */
    bool rma_get;             /* get() works (possibly refused later per peer) */
    size_t max_am;            /* largest hlen + payload of one AM */
    size_t max_iov;           /* most iovec entries am_send/get accept */
    size_t eager_limit;       /* largest payload the core should send eagerly */
    size_t seg_size;          /* payload per DATA AM of a pipelined rendezvous */
    size_t get_min;           /* smallest message worth a get(); SIZE_MAX = never */
} ump_xp_caps_t;

/* A piece of a peer's memory, as published by the peer (for CMA: its own
 * virtual address; key unused). */
typedef struct ump_riov {
    uint64_t addr;
    uint64_t len;
} ump_riov_t;

/*
 * Called from progress() once per arriving AM. `data` holds the AM's bytes
 * (header and payload as the sender gave them, contiguous) and is valid only
 * until the handler returns.
 */
typedef void (*ump_xp_am_handler_t)(void *arg, ump_xp_t *xp, int peer, uint8_t am_id,
                                    const void *data, size_t len);
/* Called when a peer became unreachable (connection reset, no answer).
 * After it, am_send to that peer fails with UMP_ERR_PEER_DEAD. */
typedef void (*ump_xp_peer_failed_t)(void *arg, ump_xp_t *xp, int peer, int status);

typedef struct ump_xp_params {
    ump_rt_t *rt;
    ump_xp_am_handler_t am_handler;
    ump_xp_peer_failed_t peer_failed;
    void *arg; /* passed back to both callbacks */
} ump_xp_params_t;

typedef struct ump_xp_ops {
    const char *name; /* "shm", "tcp", "self", ... as in UMP_TRANSPORTS */
    /* Known before open(): the transport reaches only this process (its own
     * rank). The core always opens it, whatever UMP_TRANSPORTS says, uses it
     * for the rank's own messages and for nothing else. */
    bool process_local;

    /* Creates the endpoint and publishes its address. UMP_ERR_UNSUPPORTED
     * means "not usable here" (the core goes on without it, logging why). */
    int (*open)(const ump_xp_params_t *params, ump_xp_t **xp);
    /* After the runtime fence: everything that needs the peers' addresses. */
    int (*wireup)(ump_xp_t *xp);
    /* Releases every resource; called after the final fence. */
    void (*close)(ump_xp_t *xp);

    bool (*reaches)(ump_xp_t *xp, int peer);

    /*
     * Sends one AM: `hlen` bytes of `hdr` followed by the iov's bytes, in
     * total at most caps.max_am. Returns
     *   UMP_OK               the bytes are taken (copied or sent): the caller
     *                        may reuse every buffer at once;
     *   UMP_ERR_NO_RESOURCE  nothing was taken (ring full, socket queue over
     *                        its bound): try again after progress();
     *   UMP_ERR_PEER_DEAD    the peer is gone; other negatives: failure.
     * AMs taken for one peer are delivered in the order taken.
     */
    int (*am_send)(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                   const struct iovec *iov, int iovcnt);

    /*
     * Optional (NULL allowed): sends one AM of `hlen` header bytes followed
     * by `len` payload bytes that the caller writes in place. When the
     * transport takes the AM it reserves room in its own send buffer (ring
     * slot, socket queue), calls pack(arg, dst, len) exactly once to fill
     * the payload, and returns UMP_OK; pack must write all `len` bytes and
     * returns nothing the transport looks at. On UMP_ERR_NO_RESOURCE or any
     * other error pack is not called. Same limits and ordering as am_send.
     * This lets the core pack a non-contiguous message straight into the
     * transport's buffer; the transport still sees only bytes.
     */
    int (*am_send_pack)(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                        size_t len, void (*pack)(void *arg, void *dst, size_t len), void *arg);

    /*
     * Reads the peer's memory `remote` (as the peer described it) into
     * `local`; both lists are gathered/scattered in order and must have equal
     * total length. Synchronous: returns UMP_OK when every byte is in place.
     * UMP_ERR_UNSUPPORTED when the peer's memory cannot be read (then the
     * core falls back to a pipelined rendezvous for that message). The core
     * calls it only when caps.rma_get is true; a transport that can never
     * read remote memory leaves it NULL.
     */
    int (*get)(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal,
               const ump_riov_t *remote, int nremote);

    /* Delivers arrived AMs through the handler and advances queued sends.
     * Returns the number of events handled (>= 0) or an error. */
    int (*progress)(ump_xp_t *xp);

    /* Prepares to sleep: UMP_OK when nothing is pending and an event will
     * make wait_fd() readable; UMP_ERR_BUSY when there is work (call
     * progress() instead of sleeping). */
    int (*arm)(ump_xp_t *xp);
    /* File descriptor that becomes readable on an event after arm(), or -1
     * when this transport cannot wake a sleeper (the core then polls). */
    int (*wait_fd)(ump_xp_t *xp);

    /* UMP_OK when every AM taken has left this process (or the peer is
     * dead), UMP_INPROGRESS while some are queued. */
    int (*flush)(ump_xp_t *xp);
} ump_xp_ops_t;

/* The common head of every transport instance; transports embed it first. */
struct ump_xp {
    const ump_xp_ops_t *ops;
    ump_xp_caps_t caps;
    ump_xp_params_t params;
};

/* The registry: every built transport, in order of preference. */
extern const ump_xp_ops_t ump_xp_self_ops;
extern const ump_xp_ops_t ump_xp_shm_ops;
extern const ump_xp_ops_t ump_xp_tcp_ops;
extern const ump_xp_ops_t ump_xp_udp_ops;

/* NULL-terminated list of built transports (self first, then shm, tcp). */
const ump_xp_ops_t *const *ump_xp_registry(void);

#endif /* UMP_XPORT_H */
