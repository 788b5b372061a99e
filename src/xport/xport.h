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
 *   am_send(), get()/put(), progress(), arm()/wait_fd() while the job runs;
 *   mem_reg()/mem_dereg() around the buffers of get()/put() where the
 *   transport needs registered memory (caps.mr_required).
 *   flush()    at finalize: push out everything queued.
 *   close()    after the final fence: release everything.
 *
 * Threading: a transport is only ever called by one thread at a time (the
 * core serialises under its lock). Handlers and completion callbacks are
 * called from inside progress(); they may call am_send(), get(), put(),
 * mem_reg() and mem_dereg() on any transport, including the one that is
 * delivering, but never progress().
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
    size_t max_iov;           /* most iovec entries am_send accepts */
    size_t eager_limit;       /* largest payload the core should send eagerly */
    size_t seg_size;          /* payload per DATA AM of a pipelined rendezvous */
    size_t get_min;           /* smallest message worth a get(); SIZE_MAX = never */
    bool get_measure;         /* whether get() beats streaming depends on the machine: the
                               * core times both on contiguous messages above eager_limit
                               * and keeps the faster per size (get_min still rules layouts) */
    size_t get_skew;          /* a get() whose destination lies 1 to get_skew - 1 bytes past
                               * its source, modulo 4 KiB, runs several times slower than
                               * others (the kernel's copy on some CPUs): the core streams
                               * such contiguous messages; 0: no such penalty */
    /* Remote memory access (see get() and put() below). */
    bool rma_put;       /* put() works */
    size_t get_max_iov; /* most entries per side of one get(); SIZE_MAX: any */
    size_t put_max_iov; /* most entries per side of one put(); SIZE_MAX: any */
    size_t rma_max;     /* most bytes of one get() or put(); 0: any */
    bool mr_required;   /* get()/put() need both buffers registered with mem_reg():
                         * the local one's handle and the peer's packed key */
    size_t rkey_size;   /* largest packed remote key mem_reg() makes (bytes) */
    size_t zc_min;      /* smallest eager payload the core sends by am_send_zc (smaller
                         * ones are copied); ignored without am_send_zc */
} ump_xp_caps_t;

/* Counters of a transport that keeps its own reliability (udp), added up
 * by the core for ump_stats_get. */
typedef struct ump_xp_stats {
    uint64_t sent;          /* data datagrams sent the first time */
    uint64_t received;      /* data datagrams accepted */
    uint64_t retransmitted; /* data datagrams sent again */
    uint64_t duplicates;    /* data datagrams already had, dropped */
    uint64_t corrupted;     /* datagrams failing the checksum or malformed, dropped */
    uint64_t timeouts;      /* retransmission timer expiries */
} ump_xp_stats_t;

/* Largest packed remote key of any transport (the core's headers hold one). */
#define UMP_XP_RKEY_MAX 48

/*
 * A registered memory region (mem_reg). Transports embed it first in their
 * own handle. `rkey` is an opaque byte string that lets a peer's get() or
 * put() reach this region; the core carries it in its rendezvous headers
 * and hands it to the peer's transport unread.
 */
typedef struct ump_xp_mr {
    ump_xp_t *xp; /* the transport that registered it (mem_dereg goes there) */
    void *addr;
    size_t len;
    uint32_t rkey_len; /* <= caps.rkey_size <= UMP_XP_RKEY_MAX */
    unsigned char rkey[UMP_XP_RKEY_MAX];
} ump_xp_mr_t;

/*
 * A completion object owned by the caller of an operation that may finish
 * later (get, put, am_send_zc). Before the call the caller adds one to
 * `count` for the operation (several operations may share one object).
 * An operation that returns UMP_INPROGRESS takes the object: when it
 * finishes the transport records a failure in `status` (the first one
 * wins; the caller sets it to UMP_OK beforehand), subtracts one from
 * `count`, and when count reaches 0 calls cb(comp, status) from inside
 * its progress(). An operation that returns anything else never touches
 * it (the caller subtracts the one itself). The object must stay valid
 * until cb ran. cb may call every op but progress(), like a handler.
 */
typedef struct ump_xp_comp ump_xp_comp_t;
struct ump_xp_comp {
    int count;
    int status;
    void (*cb)(ump_xp_comp_t *comp, int status);
};

/* For transports: one operation taken with `comp` finished with `status`. */
static inline void ump_xp_comp_done(ump_xp_comp_t *comp, int status)
{
    if (status != 0 && comp->status == 0) comp->status = status;
    if (--comp->count == 0) comp->cb(comp, comp->status);
}

/* A piece of a peer's memory, as published by the peer: its own virtual
 * address (CMA, and RDMA providers with virtual addressing; a transport
 * whose fabric counts offsets converts with the base in its rkey). */
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
     * Optional (NULL: this transport reaches only its job's ranks): a
     * process of another job, met at run time, became peer index `peer`
     * (past the job's ranks; ump_rt_get reads the values its card carried).
     * UMP_OK when this transport now reaches it, UMP_ERR_UNSUPPORTED when
     * it cannot (no address of its kind in the card). Called under the
     * core's lock, after wireup, possibly while the transport is not polled
     * (a transport no rank of the job used is kept for this, unpolled).
     */
    int (*add_peer)(ump_xp_t *xp, int peer);

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
     * Optional (NULL allowed): an eager AM whose payload the transport may
     * send from the caller's buffer itself, with no copy: the iovecs lie in
     * `mr` (registered by mem_reg). Returns UMP_OK when the buffers may be
     * reused at once, UMP_INPROGRESS when the transport keeps reading them
     * until `comp` completes (then the caller must not write them before),
     * UMP_ERR_NO_RESOURCE when nothing was taken. Order and limits as
     * am_send; the AM counts as taken in either success case.
     */
    int (*am_send_zc)(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                      const struct iovec *iov, int iovcnt, ump_xp_mr_t *mr, ump_xp_comp_t *comp);

    /*
     * Registers [addr, addr + len) for remote access and for use as a local
     * buffer of get()/put(). Needed only when caps.mr_required (NULL
     * otherwise). *mr is the transport's; its packed rkey goes to peers.
     * Errors: UMP_ERR_NO_MEMORY (locked-memory limit, with a logged hint),
     * UMP_ERR_IO (the fabric refused). Thread-safety as every op.
     */
    int (*mem_reg)(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **mr);
    /* Releases a registration; no operation may be using it any more. */
    void (*mem_dereg)(ump_xp_mr_t *mr);

    /*
     * Reads the peer's memory `remote` (addresses as the peer gave them:
     * its virtual addresses inside the region its `rkey` names) into
     * `local`; both lists are gathered/scattered in order and must have
     * equal total length, at most caps.get_max_iov entries per side and
     * at most caps.rma_max bytes (when not 0). When
     * caps.mr_required, `lmr` is the local buffers' registration and
     * `rkey` the peer's packed key (mem_reg's rkey bytes); otherwise both
     * may be NULL. The lists themselves are read during the call only; the
     * memory they describe belongs to the transport until completion.
     * Returns
     *   UMP_OK               every byte is in place (comp untouched);
     *   UMP_INPROGRESS       started: comp completes later, from progress();
     *   UMP_ERR_UNSUPPORTED  this peer's memory cannot be read (the core
     *                        then streams the message instead);
     *   UMP_ERR_NO_RESOURCE  nothing started, try again after progress();
     *   UMP_ERR_PEER_DEAD or other negatives: failure.
     * Never blocks waiting for the peer, so a handler may call it. Called
     * only when caps.rma_get; a transport that cannot read leaves it NULL.
     */
    int (*get)(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
               const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp);
    /* Writes `local` into the peer's memory `remote`: the contract of get()
     * with the direction reversed; completion means the bytes are visible
     * in the peer's memory (delivery complete). Called only when
     * caps.rma_put. */
    int (*put)(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
               const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp);

    /* Delivers arrived AMs through the handler and advances queued sends.
     * Returns the number of events handled (>= 0) or an error. */
    int (*progress)(ump_xp_t *xp);

    /* Prepares to sleep: UMP_OK when nothing is pending and an event will
     * make wait_fd() readable; UMP_ERR_BUSY when there is work (call
     * progress() instead of sleeping). */
    int (*arm)(ump_xp_t *xp);
    /* Optional: the sleep that arm() prepared is over (or was not taken).
     * Between arm() and disarm() wait_fd() must stay readable on every
     * event, whichever thread progresses meanwhile. */
    void (*disarm)(ump_xp_t *xp);
    /* File descriptor that becomes readable on an event after arm(), or -1
     * when this transport cannot wake a sleeper (the core then polls). */
    int (*wait_fd)(ump_xp_t *xp);

    /* UMP_OK when every AM taken has left this process (or the peer is
     * dead), UMP_INPROGRESS while some are queued. */
    int (*flush)(ump_xp_t *xp);

    /* Optional (NULL: no counters): adds this transport's counters to *st. */
    void (*stats)(ump_xp_t *xp, ump_xp_stats_t *st);
} ump_xp_ops_t;

/* The common head of every transport instance; transports embed it first. */
struct ump_xp {
    const ump_xp_ops_t *ops;
    ump_xp_caps_t caps;
    ump_xp_params_t params;
    /* Set by the transport when its progress() has nothing to do until
     * one of its own entry points (a send to it, arm) gives it work, which
     * clears it; the core does not call progress() while it is set. A
     * transport that leaves it false is polled on every pass. */
    bool idle;
};

/* The registry: every built transport, in order of preference. */
extern const ump_xp_ops_t ump_xp_self_ops;
extern const ump_xp_ops_t ump_xp_shm_ops;
extern const ump_xp_ops_t ump_xp_tcp_ops;
extern const ump_xp_ops_t ump_xp_udp_ops;
extern const ump_xp_ops_t ump_xp_ofi_ops;   /* only with UMP_HAVE_OFI (libfabric) */
extern const ump_xp_ops_t ump_xp_ofiud_ops; /* likewise: rel over FI_EP_DGRAM */

/* NULL-terminated list of built transports (self, shm, tcp, udp, then ofi
 * and ofiud where libfabric was found). */
const ump_xp_ops_t *const *ump_xp_registry(void);
/* NULL-terminated lines naming the transports this build left out, and why. */
const char *const *ump_xp_not_built(void);

#endif /* UMP_XPORT_H */
