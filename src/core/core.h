/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * core.h - requests, matching, protocols and progress.
 *
 * Path of a message: ump_isend (send.c) picks the protocol from the size and
 * the peer's transport: eager (one AM), synchronous eager (the receiver
 * acknowledges at match time), or rendezvous (RTS; the receiver then either
 * reads the data with the transport's get() and answers FIN, or answers CTS
 * and the sender streams DATA segments). Arriving AMs enter through
 * ump_core_am_handler (proto.c), which matches them against posted receives
 * (match.c) or keeps them as unexpected. Eager data the receiver holds
 * without a posted receive costs the sender credits, returned by the
 * receiver once the message is consumed; a sender out of credits sends an
 * RTS instead, whose data stays with the sender until the receive is
 * posted: a flood of unexpected messages slows the sender (its sends
 * complete only when matched) and leaves the receiver holding small records,
 * never the data.
 *
 * Non-contiguous data (a committed datatype that is not one byte range)
 * take the same protocols; dtx.c packs them straight into the transport
 * and unpacks them straight out of it, or has the receiver read the
 * sender's runs scatter/gather with get() (see the schemes there).
 */
#ifndef UMP_CORE_H
#define UMP_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <uthash.h>

#include "dt/dt.h"
#include "mem/mem.h"
#include "rt/rt.h"
#include "util/util.h"
#include "xport/xport.h"

/* Active-message ids of the core's protocols. */
enum {
    UMP_AM_EAGER = 1,   /* ump_hdr_match_t + payload (sent as UMP_AM_EAGER_SHORT) */
    UMP_AM_EAGER_SYNC,  /* ump_hdr_match_t + payload; answer SYNC_ACK at match */
    UMP_AM_RTS,         /* ump_hdr_rts_t */
    UMP_AM_CTS,         /* ump_hdr_cts_t: receiver matched, send DATA */
    UMP_AM_DATA,        /* ump_hdr_data_t + payload */
    UMP_AM_FIN,         /* ump_hdr_ack_t: receiver read the data with get() */
    UMP_AM_SYNC_ACK,    /* ump_hdr_ack_t: synchronous eager matched */
    UMP_AM_CREDIT,      /* ump_hdr_credit_t */
    UMP_AM_NACK,        /* ump_hdr_nack_t: the peer failed its side of our request */
    UMP_AM_CTSW,        /* ump_hdr_ctsw_t + key + layout: receiver matched, write with put() */
    UMP_AM_WFIN,        /* ump_hdr_ack_t (the receiver's request): the put() data are in place */
    UMP_AM_EAGER_SHORT, /* the first UMP_HDR_SHORT bytes of ump_hdr_match_t + payload */
};

/* Wire headers: host byte order (homogeneous jobs), at most 32 bytes. */
typedef struct {
    int32_t tag;
    uint32_t ctx;
    uint64_t len;  /* message bytes */
    uint64_t sreq; /* sender's request id (synchronous and rendezvous) */
} ump_hdr_match_t;

typedef struct {
    ump_hdr_match_t m;
    uint64_t addr; /* sender buffer, for get() */
} ump_hdr_rts_t;

/* A standard eager message names no request and its length is the
 * payload's: it travels as UMP_AM_EAGER_SHORT with tag and context only,
 * and the receiver restores the rest. 16 bytes fewer put a small message
 * and its header in half a cache line. Credits still count the full
 * header, on both sides. */
#define UMP_HDR_SHORT 8
_Static_assert(offsetof(ump_hdr_match_t, tag) == 0 && offsetof(ump_hdr_match_t, ctx) == 4,
               "the short header is the match header's first 8 bytes");

/* The id and header length a message of `am_id` goes out with. */
static inline uint8_t ump_core_wire_am(uint8_t am_id, size_t *hlen)
{
    if (am_id != UMP_AM_EAGER) return am_id;
    *hlen = UMP_HDR_SHORT;
    return UMP_AM_EAGER_SHORT;
}

/* Payload of an RTS whose data are not one contiguous range at `addr`
 * (then addr is the origin of the sender's layout): what the receiver needs
 * to read them itself (seed 002 §5.4.2). The layout of one element, when
 * it travels, follows as nruns ump_riov_t (offset from the origin, length);
 * the sender sends it once per (receiver, type) and afterwards only the
 * type's id, which the receiver looks up in its table of that sender's
 * layouts. No layout (nruns 0 and no id known) means: stream it (CTS). */
typedef struct {
    uint64_t dtid;  /* the sender's type id, 0 when the layout is not to be kept */
    uint64_t count; /* elements */
    int64_t extent; /* bytes between elements */
    uint32_t nruns; /* runs per element following this header, 0 = none */
    uint32_t flags;
} ump_rts_dt_t;

enum { UMP_RTS_DT_LAYOUT = 1 }; /* the layout follows */

/* Over a transport whose get() needs registered memory (caps.mr_required,
 * the same on both ends of a pair), the payload of every RTS starts with
 * this, then `len` bytes of the sender's packed remote key, padded to 8
 * bytes; any ump_rts_dt_t follows. len 0: the sender registered nothing
 * (a non-contiguous send, or registration failed): the receiver streams. */
typedef struct {
    uint32_t len;
    uint32_t pad;
} ump_rts_key_t;

/* A sender's layout as a receiver knows it (reference counted: a table slot
 * and every unexpected RTS that names it hold one). */
typedef struct ump_rlay {
    int refs;
    uint64_t dtid;
    int64_t extent;
    size_t size;    /* data bytes per element */
    size_t avg_run; /* size / nruns */
    uint32_t nruns;
    ump_riov_t run[];
} ump_rlay_t;

typedef struct {
    uint64_t sreq;
    uint64_t rreq;
    uint64_t len; /* bytes the receiver takes (<= message length) */
} ump_hdr_cts_t;

/* The receiver's answer to an RTS that it wants written (rput.c). The
 * payload is the key trailer of the receiver's registered buffer (as in an
 * RTS, over transports with caps.mr_required) and, when the receive is not
 * contiguous, an ump_rts_dt_t describing its layout (dtid: the receiver's
 * type id, the version the sender caches the layout under; the runs
 * follow the first time). The sender writes `len` bytes with put(), then
 * answers WFIN; or streams DATA as after a CTS when it cannot write. */
typedef struct {
    uint64_t sreq;
    uint64_t rreq;
    uint64_t len;  /* bytes the receiver takes (<= message length) */
    uint64_t addr; /* receiver buffer (the layout's origin when non-contiguous) */
} ump_hdr_ctsw_t;

typedef struct {
    uint64_t rreq;
    uint64_t offset;
} ump_hdr_data_t;

typedef struct {
    uint64_t sreq;
} ump_hdr_ack_t;

typedef struct {
    uint64_t bytes;
} ump_hdr_credit_t;

/* The sender of this AM could not go on with a rendezvous (out of memory
 * for its cursor, or for the record of an unexpected RTS): the request
 * `req` of the receiving side completes with `error` instead of waiting
 * for CTS, DATA or FIN that will not come. */
typedef struct {
    uint64_t req;
    int32_t error;
    uint32_t pad;
} ump_hdr_nack_t;

_Static_assert(sizeof(ump_hdr_rts_t) <= 32, "protocol headers are at most 32 bytes");
_Static_assert(sizeof(ump_hdr_ctsw_t) <= 32, "protocol headers are at most 32 bytes");

/* Rendezvous schemes (rndv.c; the order of UMP_RNDV_SCHEME's choices). */
enum { UMP_RNDV_AUTO, UMP_RNDV_READ, UMP_RNDV_WRITE, UMP_RNDV_STREAM };

/* What the copy counters are kept by: how a message's data moved. */
enum { UMP_XFER_EAGER, UMP_XFER_READ, UMP_XFER_WRITE, UMP_XFER_STREAM, UMP_XFER_N };

/* Counted by the receiver (messages and bytes per scheme) and by each side
 * for the bytes the core itself copied (packing, unpacking, memcpy) on the
 * way; copies transports make are not counted. Printed with UMP_STATS. */
typedef struct {
    uint64_t msgs[UMP_XFER_N];
    uint64_t bytes[UMP_XFER_N];
    uint64_t copied_send[UMP_XFER_N];
    uint64_t copied_recv[UMP_XFER_N];
} ump_core_stats_t;

/* The receiver's timings of contiguous rendezvous read with get() and
 * streamed, per power-of-two size class from 8 KiB, where the transport
 * leaves that choice to measurement (caps.get_measure; rndv.c). */
#define UMP_RNDV_CLASSES 16
#define UMP_RNDV_XPS     8 /* one per entry of ump_core.xps */
typedef struct {
    uint32_t msgs;     /* rendezvous of this class since it was last timed */
    uint16_t tries[2]; /* blocks begun per scheme: [0] read, [1] stream */
    uint8_t got[2];    /* blocks timed to the end */
    uint8_t cur;       /* scheme of the current block */
    uint8_t left;      /* its choices still to make */
    uint8_t gen;       /* number of the current block (stale completions are ignored) */
    bool spoiled;      /* a transfer of the current block failed */
    bool overlap;      /* its timed messages overlapped other measured receives */
    uint16_t pending;  /* its timed messages under way */
    uint64_t t0;       /* ns clock at its first timed choice */
    uint64_t msg_t0;   /* ns clock at its latest timed choice */
    uint64_t busy;     /* ns its timed messages took, each alone (no overlap) */
    uint64_t bytes;    /* bytes of its timed messages in place */
    float best[2];     /* fastest block, ns per byte (0: none yet) */
    /* With UMP_RNDV_DRIFT set, once both are timed, messages of the kept
     * scheme that run alone are watched, in windows: the least ns per
     * byte of a window against the timed figure. */
    bool watching;    /* one of them is under way */
    uint8_t drifts;   /* times the class was timed again for drift */
    uint16_t watched; /* watched in the current window */
    uint32_t w_begun; /* ump_core.rndv_begun when it began */
    uint64_t w_t0;    /* ns clock when it began */
    float watch;      /* the least of them, ns per byte */
} ump_rndv_class_t;
typedef struct {
    ump_rndv_class_t cls[UMP_RNDV_CLASSES];
} ump_rndv_times_t;

typedef enum { UMP_REQ_SEND = 1, UMP_REQ_RECV, UMP_REQ_GREQ } ump_req_kind_t;

/* Request flags. */
enum {
    UMP_RF_COMPLETE = 1 << 0,
    UMP_RF_SYNC = 1 << 1,      /* synchronous send */
    UMP_RF_MATCHED = 1 << 2,   /* receive matched a message */
    UMP_RF_IN_COMPLQ = 1 << 3, /* on the completion list for ump_peek */
    UMP_RF_PEEKED = 1 << 4,    /* reported by ump_peek once */
    UMP_RF_POSTED = 1 << 5,    /* on a posted-receive queue */
    UMP_RF_ACTIVE = 1 << 6,    /* on the active list */
    UMP_RF_RMA = 1 << 7,       /* a transport's get() or put() on buf is under way (comp) */
};

struct ump_request {
    uint32_t flags;
    uint8_t kind;
    uint16_t timed; /* receive timed for the scheme choice (rndv.c), or 0 */
    int peer;       /* destination, or source (may be UMP_ANY_SOURCE) */
    int tag;
    uint32_t ctx;
    void *buf;            /* first data byte, or the layout's origin when dt is set */
    size_t len;           /* send: message bytes; receive: buffer bytes */
    ump_dt_t dt;          /* non-contiguous layout of buf (referenced), NULL for plain bytes */
    size_t count;         /* elements of dt */
    ump_dt_cursor_t *cur; /* stream position of a pipelined transfer (dt set) */
    size_t done;          /* bytes sent (pipelined send) or received (pipelined receive) */
    size_t expected;      /* receive: bytes that will arrive */
    uint64_t rreq;        /* send: the receiver's request id from CTS; receive by get():
                             the sender's request id, for FIN */
    ump_xp_mr_t *mr;      /* buf's registration with the peer's transport, or NULL */
    ump_xp_comp_t comp;   /* receive by get(), send by put(): the transport's operations */
    ump_status_t status;
    TAILQ_ENTRY(ump_request) link;   /* posted queue */
    TAILQ_ENTRY(ump_request) active; /* active list (incomplete requests) */
    TAILQ_ENTRY(ump_request) complq; /* completion list for ump_peek */
};
TAILQ_HEAD(ump_req_list, ump_request);

/* A message that arrived before its receive was posted. */
typedef struct ump_unexp {
    TAILQ_ENTRY(ump_unexp) link;
    int src;
    uint8_t am_id; /* EAGER, EAGER_SYNC or RTS */
    ump_hdr_rts_t h;
    size_t cost; /* credits it holds until consumed */
    size_t datalen;
    size_t cls;      /* size class (index into core.unexp_fl) or SIZE_MAX if malloc'd */
    ump_rlay_t *lay; /* RTS of non-contiguous data: the sender's layout, if known */
    char data[];
} ump_unexp_t;
TAILQ_HEAD(ump_unexp_list, ump_unexp);

/* Per-context matching queues. */
typedef struct ump_ctxq {
    uint32_t ctx;
    struct ump_req_list posted;
    struct ump_unexp_list unexp;
    UT_hash_handle hh;
} ump_ctxq_t;

/* A send-side operation waiting for room in the transport. */
typedef struct ump_op {
    TAILQ_ENTRY(ump_op) link;
    uint8_t am_id;
    uint8_t hlen;
    bool reserve; /* from the static reserve, not the free list */
    union {
        ump_hdr_rts_t rts;
        ump_hdr_match_t match;
        ump_hdr_cts_t cts;
        ump_hdr_ack_t ack;
        ump_hdr_credit_t credit;
        ump_hdr_nack_t nack;
        ump_hdr_ctsw_t ctsw;
        char bytes[32];
    } h;
    struct ump_request *req; /* payload source (EAGER from req->buf; DATA streams req) */
} ump_op_t;
TAILQ_HEAD(ump_op_list, ump_op);

typedef struct ump_peer {
    ump_xp_t *xp;
    bool dead;
    bool on_pending_list;
    bool credit_wait_off;     /* a wait for its CREDIT timed out; until the next one comes */
    int64_t credits;          /* eager bytes the receiver will still hold for us */
    size_t owed;              /* bytes of its messages we consumed, not yet returned */
    struct ump_op_list ctrl;  /* replies and DATA, which may overtake `match` */
    struct ump_op_list match; /* EAGER/EAGER_SYNC/RTS, in send order */
    uint64_t *lay_sent;       /* type ids whose layout this peer has (by slot) */
    ump_rlay_t **lay_rx;      /* this peer's layouts we keep (by slot) */
    uint64_t *wlay_sent;      /* receive type ids whose layout this peer has for put() */
    ump_rlay_t **wlay_rx;     /* this peer's receive layouts we keep for put() (Multi-W) */
    TAILQ_ENTRY(ump_peer) pending_link;
} ump_peer_t;
TAILQ_HEAD(ump_peer_list, ump_peer);

typedef enum { UMP_WAIT_SPIN = 0, UMP_WAIT_BLOCK, UMP_WAIT_AUTO } ump_wait_mode_t;

typedef struct ump_core {
    bool initialized, finalized;
    int rank, size;
    int thread_level;
    pthread_mutex_t lock; /* taken only at UMP_THREAD_MULTIPLE */
    pthread_cond_t cond;  /* MULTIPLE: wakes threads waiting behind the sleeper */
    int cond_waiters;
    bool sleeping;  /* a thread sleeps on the transports' wait fds */
    bool wake_sent; /* wake_fd was written since that sleep began */
    int wake_fd;    /* MULTIPLE: eventfd in epfd that wakes the sleeper */
    ump_rt_t *rt;
    ump_xp_t *xps[8];
    int nxps;
    ump_xp_t *idle_xps[8]; /* open, reaching no rank of the job: kept unpolled for
                            * processes of other jobs (add_peer) */
    int nidle;
    /* peers[0, size) are the job's ranks; [size, npeers) processes of other
     * jobs met at run time; room for UMP_CORE_MAX_MET of those. */
    ump_peer_t *peers;
    int npeers;
#define UMP_CORE_MAX_MET 4096
    struct ump_peer_list pending_peers;
    ump_ctxq_t *ctxqs;     /* uthash table */
    ump_ctxq_t *last_ctxq; /* one-entry lookup cache */
    struct ump_req_list active;
    struct ump_req_list complq;
    size_t outstanding; /* requests handed out and not yet released */
    ump_freelist_t req_fl, op_fl;
    ump_freelist_t unexp_fl[4];
    ump_freelist_t cur_fl; /* cursors of non-contiguous pipelined transfers */
    int64_t credits_init;
    bool block; /* wait by sleeping after the spin budget */
    bool oversubscribed;
    uint64_t spin_ns;
    uint64_t credit_wait_ns; /* UMP_CREDIT_WAIT_US (p2p.c, credits_look) */
    int epfd;                /* the transports' wait fds, for sleeping */
    int blocked_sends;       /* sends refused by a transport since last progress */
    int progress_depth;      /* ump_core_progress() passes under way (under the lock) */
    struct {
        ump_progress_fn_t fn;
        void *arg;
    } hooks[8]; /* called on every progress pass (collective schedules) */
    int nhooks;
    ump_core_stats_t xfer;                     /* how data moved, per scheme (UMP_STATS) */
    ump_rndv_times_t rndv_times[UMP_RNDV_XPS]; /* read or stream, per transport of xps[] (rndv.c) */
    uint32_t rndv_begun, rndv_ended;           /* measured rendezvous receives begun and ended */
    ump_stats_t stats;                         /* ump_stats_get; updated under the core lock */
    ump_xp_stats_t xp_retired;                 /* counters of the transports closed by finalize */
} ump_core_t;

extern ump_core_t ump_core;

static inline void ump_core_lock(void)
{
    if (ump_core.thread_level == UMP_THREAD_MULTIPLE) pthread_mutex_lock(&ump_core.lock);
}
static inline void ump_core_unlock(void)
{
    if (ump_core.thread_level == UMP_THREAD_MULTIPLE) pthread_mutex_unlock(&ump_core.lock);
}

/* Every entry point of ump.h starts with this. */
#define UMP_CORE_CHECK_INIT()                                                                      \
    do {                                                                                           \
        if (UMP_UNLIKELY(!ump_core.initialized || ump_core.finalized)) return UMP_ERR_NOT_INIT;    \
    } while (0)

static inline uint64_t ump_req_id(struct ump_request *r)
{
    return (uint64_t)(uintptr_t)r;
}
static inline struct ump_request *ump_req_from_id(uint64_t id)
{
    return (struct ump_request *)(uintptr_t)id;
}

/* request.c */
/* A new request on the active list (inline: one per message). */
static inline struct ump_request *ump_core_req_alloc(ump_req_kind_t kind)
{
    /* Field by field, not a memset of the whole object: every field a
     * path may read before it writes it starts known (comp is set by the
     * rendezvous read that uses it, the links by the lists). */
    struct ump_request *r = ump_freelist_take(&ump_core.req_fl);
    if (UMP_UNLIKELY(!r)) return NULL;
    r->kind = (uint8_t)kind;
    r->timed = 0;
    r->flags = UMP_RF_ACTIVE;
    r->peer = 0;
    r->tag = 0;
    r->ctx = 0;
    r->buf = NULL;
    r->len = 0;
    r->dt = NULL;
    r->count = 0;
    r->cur = NULL;
    r->done = 0;
    r->expected = 0;
    r->rreq = 0;
    r->mr = NULL;
    r->status = (ump_status_t){0};
    TAILQ_INSERT_TAIL(&ump_core.active, r, active);
    ump_core.outstanding++;
    return r;
}

void ump_core_req_complete(struct ump_request *r, int error);
/* Waits (progressing, spinning then sleeping by policy) until done(arg). */
void ump_core_wait_until(bool (*done)(void *), void *arg);

/* match.c */
ump_ctxq_t *ump_core_ctxq_lookup(uint32_t ctx, bool create);
/* The queues of context ctx (made when `create`), or NULL. The context last
 * used is cached: one compare on the path of most messages. */
static inline ump_ctxq_t *ump_core_ctxq(uint32_t ctx, bool create)
{
    ump_ctxq_t *q = ump_core.last_ctxq;
    if (UMP_LIKELY(q && q->ctx == ctx)) return q;
    return ump_core_ctxq_lookup(ctx, create);
}
void ump_core_ctxq_destroy_all(void);
ump_unexp_t *ump_core_unexp_alloc(size_t datalen);
void ump_core_unexp_free(ump_unexp_t *u);
/* A data-less record for a message whose data found no memory (NULL when
 * the static reserve is used up), and whether u is one. */
ump_unexp_t *ump_core_unexp_tomb(void);
bool ump_core_unexp_lost(const ump_unexp_t *u);
/* Finds and removes the first posted receive matching (src, tag), or NULL. */
struct ump_request *ump_core_match_posted(ump_ctxq_t *q, int src, int tag);
/* Fills *st (if not NULL) with what a probe of `u` reports. */
void ump_core_describe_unexp(const ump_unexp_t *u, ump_status_t *st);
/* Finds the first unexpected message matching (src, tag); removes it if `take`. */
ump_unexp_t *ump_core_match_unexp(ump_ctxq_t *q, int src, int tag, bool take);

/* The buffer checks every send and receive makes (p2p.c), for the other
 * calls that take a buffer: *bytes, and *data and *layout as a request
 * keeps them (layout NULL: one range at *data); errors logged, naming the
 * call. */
int ump_core_check_buf(const char *call, const void *buf, size_t count, ump_dt_t dt, size_t *bytes,
                       const void *req, const void **data, ump_dt_t *layout);
/* UMP_ERR_DATATYPE (logged, naming the call) when count elements of the
 * layout cover some byte twice: a receive into it is erroneous (p2p.c). */
int ump_core_check_recv_layout(const char *call, ump_dt_t layout, size_t count);

/* proto.c */
void ump_core_am_handler(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data,
                         size_t len);
void ump_core_peer_failed(void *arg, ump_xp_t *xp, int peer, int status);
/* A peer's lists and credit, before its first message (init.c). */
void ump_core_peer_init(ump_peer_t *p);
/* A blocking receive of (buf, len; layout and count when non-contiguous)
 * takes the unexpected eager message u (already out of its queue) with no
 * request: data, status, the sync ack, credits. Returns the status error. */
int ump_core_take_eager(void *buf, size_t len, ump_dt_t layout, size_t count, ump_unexp_t *u,
                        ump_status_t *st);
/* A receive `r` meets message `u` (or the arriving AM described the same way). */
void ump_core_deliver_unexp(struct ump_request *r, ump_unexp_t *u);

/* rma.c: rendezvous by the transport's get() */
/* Sender: the key trailer of an RTS for r (registering r's buffer when the
 * transport needs it) into out (room for sizeof(ump_rts_key_t) +
 * UMP_XP_RKEY_MAX); returns its bytes, 0 when the transport needs none. */
size_t ump_core_rts_key_make(ump_xp_t *xp, struct ump_request *r, void *out);
/* The key trailer of registration mr (NULL: an empty one) into out;
 * returns its bytes. */
size_t ump_core_rts_key_pack(const ump_xp_mr_t *mr, void *out);
/* Receiver: the bytes of the key trailer at the start of an RTS payload (0
 * when the transport needs none) and in *key the packed key, or NULL. */
size_t ump_core_rts_key_parse(const ump_xp_t *xp, int src, const void *payload, size_t plen,
                              const void **key);
/* Receiver: reads `take` bytes of the message the RTS h describes into r
 * (ext/lay as for ump_core_dt_get). UMP_OK: done (FIN sent, r completed);
 * UMP_INPROGRESS: the transport's completion finishes r later (FIN, or
 * streaming on failure); UMP_ERR_UNSUPPORTED: stream it; other errors fail
 * the receive. */
int ump_core_rget(ump_xp_t *xp, int src, struct ump_request *r, const ump_hdr_rts_t *h,
                  const void *key, const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take);
/* rndv.c: scheme choice, registration, counters */
/* UMP_RNDV_SCHEME as set (UMP_RNDV_AUTO unless forced). */
int ump_core_rndv_forced(void);
/* Receiver: the scheme for a rendezvous of `take` bytes into r whose
 * sender's data are (not) one range: UMP_RNDV_READ, _WRITE or _STREAM. */
int ump_core_rndv_choose(ump_xp_t *xp, const struct ump_request *r, bool sender_contig,
                         size_t take);
/* A contiguous receive of `take` bytes over xp, which measures instead of
 * keeping a threshold (caps.get_measure): true to read it with get(),
 * false to have it streamed. May mark r as timed. */
bool ump_core_rndv_measure(ump_xp_t *xp, struct ump_request *r, size_t take);
/* A timed receive finished (done: its data are in place, and its time
 * counts for its scheme and class; else it failed and times nothing). */
void ump_core_rndv_timed(struct ump_request *r, bool done);
/* Smallest message worth a get() or put(): the transport's threshold, or
 * 1 when a scheme is forced. */
size_t ump_core_rma_min(const ump_xp_t *xp);
/* Most get()/put() operations one non-contiguous rendezvous may take. */
size_t ump_core_rndv_max_ops(void);
/* Registers the part of r's buffer a transfer of `len` bytes touches with
 * xp (a contiguous range, or the whole span of a non-contiguous layout)
 * into r->mr, when xp needs registered memory and r has none yet. The one
 * place the core registers memory. UMP_OK or an error (then stream). */
int ump_core_mr_reg(ump_xp_t *xp, struct ump_request *r, size_t len);
/* Prints the counters (UMP_STATS at finalize). */
void ump_core_stats_print(void);
/* The rendezvous timings per transport and size class (UMP_STATS; while
 * the transports are open). */
void ump_core_rndv_stats_print(void);

/* rput.c: rendezvous by the transport's put() */
/* Receiver: answers the RTS (sender request sreq) with CTSW for `take`
 * bytes into r. UMP_OK: sent (the sender writes or streams, r completes on
 * WFIN or the last DATA); UMP_ERR_UNSUPPORTED: nothing sent, stream. */
int ump_core_rput_ask(ump_xp_t *xp, int src, struct ump_request *r, uint64_t sreq, size_t take);
/* Sender: a CTSW arrived (data, len: header and payload). */
void ump_core_on_ctsw(int peer, const char *data, size_t len);
/* Receiver: WFIN arrived. */
void ump_core_on_wfin(int peer, const char *data, size_t len);

/* proto.c: the sender streams r's data after a CTS (or a CTSW it cannot
 * write): cursor, then DATA segments. */
void ump_core_send_stream(int peer, struct ump_request *s);

/* Releases r's registration, if any. */
static inline void ump_core_mr_release(struct ump_request *r)
{
    if (r->mr) {
        ump_mem_dereg(r->mr);
        r->mr = NULL;
    }
}

/* proto.c: the receiver answers an RTS it will not read with get(): CTS,
 * so the sender streams `take` bytes (sreq: the sender's request). */
void ump_core_rdv_stream(struct ump_request *r, int src, uint64_t sreq, size_t take);

/* dtx.c: moving non-contiguous data (datatype transfer schemes) */
void ump_core_dt_init(void);
void ump_core_dt_fini(void);
/* Sends one AM whose payload is the next n bytes of cur's stream: packed
 * straight into the transport's buffer, described by iovecs, or packed into
 * a pooled bounce buffer (UMP_DT_PACK). Result as am_send; on failure the
 * cursor is where it was. */
int ump_core_dt_am_send(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                        ump_dt_cursor_t *cur, size_t n);
/* Sends the RTS of send request r (non-contiguous) to peer: header plus
 * ump_rts_dt_t, with the layout the first time. Result as am_send. */
int ump_core_dt_send_rts(ump_xp_t *xp, int peer, const ump_hdr_rts_t *h, struct ump_request *r);
/* Receiver: the layout an arriving RTS payload names (a new reference), or
 * NULL; keeps a layout that travelled with it. */
ump_rlay_t *ump_core_dt_rts_layout(int peer, const void *payload, size_t plen);
void ump_core_dt_lay_unref(ump_rlay_t *lay);
/* Receiver of a rendezvous: starts reading `take` bytes of the sender's
 * data (contiguous at addr when lay is NULL and ext is NULL) into r's
 * buffer with the transport's get() when the scheme choice says so, in
 * batches that share r->comp (the caller holds one count on it). UMP_OK:
 * every batch was started or done; UMP_ERR_UNSUPPORTED: nothing started,
 * stream instead; other errors: a batch failed (earlier ones may still be
 * under way on comp). */
int ump_core_dt_get(ump_xp_t *xp, int src, struct ump_request *r, uint64_t addr,
                    const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey);
/* Sender of a rendezvous by write: the same walk with put(), r's buffer
 * (contiguous or not) into the receiver's memory at addr (one range when
 * lay is NULL, else count elements of its layout). Result as
 * ump_core_dt_get. */
int ump_core_dt_put(ump_xp_t *xp, int dst, struct ump_request *r, uint64_t addr,
                    const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey);
/* sg.c: the get()/put() operations of one rendezvous (read or write
 * scheme) between r's buffer and the peer's memory at addr (one range when
 * ext is NULL, else ext->count elements of the peer's layout lay), sharing
 * r->comp (the caller holds one count). UMP_OK: all started or done, or
 * the rest waits for progress (holding a count); UMP_ERR_UNSUPPORTED:
 * nothing started, stream instead; other errors: an operation failed
 * (earlier ones may be under way on comp). */
int ump_core_sg_rma(ump_xp_t *xp, int peer, struct ump_request *r, uint64_t addr,
                    const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey,
                    bool put);
/* Issues what transports refused for now (from progress); events. */
int ump_core_sg_resume(void);
/* Transfers refused for now and waiting in ump_core_sg_resume (sg.c). */
extern struct ump_core_sg_job *ump_core_sg_jobs;
static inline bool ump_core_sg_pending(void)
{
    return ump_core_sg_jobs != NULL;
}

/* The layout table `tab` (per peer, LAY_SLOTS entries, allocated on first
 * use) applied to an ump_rts_dt_t and its runs: a new reference to the
 * layout they name or carry (kept in the table), or NULL. */
ump_rlay_t *ump_core_dt_lay_parse(int peer, ump_rlay_t ***tab, const void *payload, size_t plen);
/* Whether `uid`'s layout was sent to the peer whose table is *tab, and
 * marking it sent. */
bool ump_core_dt_lay_known(uint64_t *const *tab, uint64_t uid);
void ump_core_dt_lay_mark(uint64_t **tab, uint64_t uid);
/* UMP_DT_LAYOUT_MAX: most runs per element of a layout that travels. */
size_t ump_core_dt_layout_max(void);
/* Smallest average run worth a scatter/gather get() or put() (auto). */
size_t ump_core_dt_min_run(const ump_xp_t *xp);
/* UMP_DT_SCHEME=pipeline: non-contiguous data are always streamed. */
bool ump_core_dt_pipeline_forced(void);
/* A cursor for r at stream offset 0 (from the core's free list). */
int ump_core_dt_cursor(struct ump_request *r);
/* Payload per DATA AM of a pipelined transfer of `len` bytes. */
size_t ump_core_dt_seg(ump_xp_t *xp, size_t len, bool dt);
/* Sender of a pipelined transfer, right after its RTS went out: packs the
 * first bytes ahead into a pooled buffer while the receiver answers. */
void ump_core_dt_prepack(ump_xp_t *xp, struct ump_request *r);
/* Bytes [off, off + *n) of r's stream when they were packed ahead (*n is
 * clipped to what was), else NULL. */
const void *ump_core_dt_prepacked(struct ump_request *r, size_t off, size_t *n);
/* Returns r's cursor (and any bytes packed ahead) to the pools. */
void ump_core_dt_cursor_put(struct ump_request *r);
/* Drops what a request holds for non-contiguous data (type, cursor). */
static inline void ump_core_dt_release(struct ump_request *r)
{
    if (r->cur) ump_core_dt_cursor_put(r);
    if (r->dt) {
        ump_dt_unref(r->dt);
        r->dt = NULL;
    }
}

/* progress.c */
int ump_core_progress(void);
/* Queues an op for peer (control ops skip credits). Tries to send at once
 * when nothing is queued ahead of it. */
void ump_core_queue_op(int peer, ump_op_t *op, bool ctrl);
ump_op_t *ump_core_op_alloc(uint8_t am_id, const void *hdr, size_t hlen, struct ump_request *r);
/* Sends a reply AM (CTS, FIN, SYNC_ACK, CREDIT, NACK) now or queues it. */
void ump_core_send_ctrl(int peer, uint8_t am_id, const void *hdr, size_t hlen);
/* The receiver consumed `cost` bytes of `src`'s credit-holding messages
 * (inline: once per message). */
static inline void ump_core_consumed(int src, size_t cost)
{
    ump_peer_t *p = &ump_core.peers[src];
    p->owed += cost;
    /* Return credits in batches: one CREDIT per quarter of the window keeps
     * the sender streaming without an AM per message. */
    if ((int64_t)p->owed >= ump_core.credits_init / 4) {
        ump_hdr_credit_t h = {.bytes = p->owed};
        p->owed = 0;
        ump_core_send_ctrl(src, UMP_AM_CREDIT, &h, sizeof(h));
    }
}

/* Tells peer that its request `req` failed here with `error` (NACK). */
void ump_core_send_nack(int peer, uint64_t req, int error);
/* Fails every queued op and incomplete request involving `peer`. */
void ump_core_fail_peer(int peer, int error);
bool ump_core_sends_pending(void);
/* Credit cost of a matching AM. */
static inline size_t ump_core_cost(uint8_t am_id, size_t hlen, size_t payload)
{
    /* An RTS holds only a small record at the receiver; its data waits at
     * the sender. */
    return am_id == UMP_AM_RTS ? 0 : hlen + payload;
}

#endif /* UMP_CORE_H */
