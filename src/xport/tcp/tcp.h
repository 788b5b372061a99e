/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp.h - the TCP transport's internals, shared by its files and unit tests.
 *
 *   tcp_iface.c   address choice and the listening socket
 *   tcp_frame.c   the wire format: frame headers, the receive parser, the
 *                 per-connection send queue
 *   tcp_conn.c    connections: lazy connect, handshake, accept, teardown
 *   tcp_get.c     get(): the peer sends the bytes asked for straight from
 *                 its memory and they are read straight into ours
 *   tcp_xport.c   the ops table: am_send, progress, arm, flush, ...
 *
 * Channel rule: a rank sends all its AMs for peer p on ONE connection,
 * chosen at its first send to p and never changed: p's connection to it if
 * that one is open (authenticated) by then, else one it opens itself. So a
 * pair where one side speaks first shares one socket both ways, and each
 * side's acknowledgements ride on its replies instead of costing a packet
 * of their own on the latency path. When both send first at the same time
 * each opens its own connection and there is nothing to resolve: each AM
 * stream is still one TCP byte stream, and per-peer order, no loss and no
 * duplication follow from TCP itself. Every connection is read for frames
 * whichever end opened it, and each end writes a BYE frame on it at close,
 * so each socket also carries the "closing cleanly" notice both ways.
 *
 * Handshake (src/util/auth.h, label "ump-tcp"): the connector writes its
 * 56-byte hello (its job id, its rank there and a fresh nonce); the
 * acceptor answers with a 72-byte challenge (its rank, its nonce, its
 * proof); the connector checks that proof before anything of the job
 * leaves it, then writes its own 32-byte proof, which the acceptor checks
 * before it takes the connection for that peer. Both proofs cover both
 * nonces and both ends' (job, rank). A peer that fails is refused with a
 * log line naming its address. A process of another job (met through a
 * port, or spawned) shares the secret; until the core has added it as a
 * peer (add_peer) its hello waits unanswered, for at most a minute.
 *
 * Wire format, after the hello and the proof (88 bytes, so frames stay
 * 8-byte aligned; the challenge, 72 bytes, likewise on the way back):
 * frames of an 8-byte header (little-endian u32 length of the AM's bytes,
 * u8 am_id, u8 flags, u16 zero) then the AM's bytes, padded with zeros to a
 * multiple of 8 so that every frame, and so every AM handed to the handler,
 * starts 8-byte aligned in the receive buffer.
 *
 * Two frame kinds belong to the transport itself (flags, never handed to
 * the core): a get request (GETREQ: ump_tcp_getreq_t, then its n pieces
 * of the serving side's memory as ump_riov_t) and its reply (GETREP:
 * ump_tcp_getrep_t, and then, outside the frame's length, the `len` bytes
 * asked for and their padding to 8). The reply's bytes leave the serving
 * process from its own memory (the send queue keeps a reference, no copy)
 * and the asking side reads them from the socket into the get's local
 * buffers (no copy out of a receive buffer): a rendezvous over TCP costs
 * the kernel's two copies and no more.
 */
#ifndef UMP_XPORT_TCP_H
#define UMP_XPORT_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "rt/rt.h"
#include "util/auth.h"
#include "util/util.h"
#include "xport/xport.h"

/* --- wire format --------------------------------------------------------- */

#define UMP_TCP_MAGIC       0x544d5055u /* "UMPT" little-endian */
#define UMP_TCP_VERSION     5           /* 5: get requests and replies */
#define UMP_TCP_FRAME_HDR   8
#define UMP_TCP_FRAME_ALIGN 8
#define UMP_TCP_FLAG_BYE    0x01 /* sender closes cleanly; no AM bytes */
#define UMP_TCP_FLAG_GETREQ 0x02 /* a get request (tcp_get.c), not an AM */
#define UMP_TCP_FLAG_GETREP 0x04 /* a get's reply; its data follow the frame */
#define UMP_TCP_FLAGS       (UMP_TCP_FLAG_BYE | UMP_TCP_FLAG_GETREQ | UMP_TCP_FLAG_GETREP)
#define UMP_TCP_MAX_IOV     64  /* caps.max_iov */
#define UMP_TCP_GATHER_MAX  256 /* frames up to this size are copied together and sent whole */
#define UMP_TCP_EPOLL_EVERY 8   /* progress calls per epoll_wait while a connection is hot */

#define UMP_TCP_AUTH_LABEL "ump-tcp"
#define UMP_TCP_PROOF_LEN  UMP_AUTH_MAC_LEN

/* The first bytes a connector writes; all integers little-endian. */
typedef struct ump_tcp_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t reserved;
    uint32_t rank;  /* the connector's rank in its job */
    uint32_t size;  /* the connector's job size (must match when the job does) */
    uint8_t job[8]; /* the connector's job id (its 16 hex digits as bytes) */
    uint8_t nonce[UMP_AUTH_NONCE_LEN];
} ump_tcp_hello_t;
_Static_assert(sizeof(ump_tcp_hello_t) == 56, "hello is 56 bytes on the wire");

/* The acceptor's answer to a hello. */
typedef struct ump_tcp_challenge {
    uint32_t magic;
    uint32_t rank; /* the acceptor's rank in its job */
    uint8_t nonce[UMP_AUTH_NONCE_LEN];
    uint8_t proof[UMP_AUTH_MAC_LEN];
} ump_tcp_challenge_t;
_Static_assert(sizeof(ump_tcp_challenge_t) == 72, "challenge is 72 bytes on the wire");
_Static_assert((sizeof(ump_tcp_hello_t) + UMP_TCP_PROOF_LEN) % 8 == 0 &&
                   sizeof(ump_tcp_challenge_t) % 8 == 0,
               "frames after the handshake stay 8-byte aligned");

void ump_tcp_hello_encode(ump_tcp_hello_t *h, const uint8_t job[8], int rank, int size,
                          const uint8_t *nonce);
/* UMP_OK with *rank set (the connector's rank in its job: below `size` when
 * the job is `job`, below its own size otherwise), or UMP_ERR_PROTOCOL (bad
 * magic/version/size/rank). */
int ump_tcp_hello_check(const ump_tcp_hello_t *h, const uint8_t job[8], int size, int *rank);
/* The proof context of a connection from (jfrom, from) to (jto, to); extra
 * receives the job ids and ranks. */
ump_auth_ctx_t ump_tcp_auth_ctx(const uint8_t *secret, const uint8_t *nonce_c,
                                const uint8_t *nonce_a, const uint8_t jfrom[8], int from,
                                const uint8_t jto[8], int to, uint8_t extra[24]);

/* A get request's fixed part (little-endian on the wire). */
typedef struct ump_tcp_getreq {
    uint64_t id;  /* the asking side's name for the get */
    uint64_t len; /* bytes asked for: the sum of the pieces */
    uint32_t n;   /* pieces (ump_riov_t) that follow, 1..UMP_TCP_MAX_IOV */
    uint32_t zero;
} ump_tcp_getreq_t;
_Static_assert(sizeof(ump_tcp_getreq_t) == 24, "get request is 24 bytes");

/* A get reply's header; `len` data bytes follow it, all that was asked
 * for. A request that cannot be served gets no reply: the serving side
 * drops the connection instead (tcp_get.c). */
typedef struct ump_tcp_getrep {
    uint64_t id;
    uint64_t len;
    uint64_t zero;
} ump_tcp_getrep_t;
_Static_assert(sizeof(ump_tcp_getrep_t) == 24, "get reply header is 24 bytes");

/* Padding that follows `len` AM bytes on the wire. */
static inline size_t ump_tcp_pad(size_t len)
{
    return UMP_ALIGN_UP(len, UMP_TCP_FRAME_ALIGN) - len;
}

/*
 * Builds the iovec of one frame into out[] (room for iovcnt + 3 entries):
 * the 8 header bytes (written into hbuf), hdr, iov, padding. Returns the
 * number of entries; *total gets the frame's byte count.
 */
int ump_tcp_frame_iov(uint8_t hbuf[UMP_TCP_FRAME_HDR], uint8_t am_id, uint8_t flags,
                      const void *hdr, size_t hlen, const struct iovec *iov, int iovcnt,
                      struct iovec *out, size_t *total);

/* --- receive parser -------------------------------------------------------
 * A growable buffer holding bytes read but not yet delivered. start is
 * always a frame boundary (a multiple of 8 from the stream start), so
 * compaction to offset 0 keeps frames aligned. */
typedef struct ump_tcp_rx {
    uint8_t *buf;
    size_t cap, start, end;
    size_t max_frame; /* largest AM (hlen + payload) accepted */
} ump_tcp_rx_t;

void ump_tcp_rx_init(ump_tcp_rx_t *rx, size_t max_am);
void ump_tcp_rx_fini(ump_tcp_rx_t *rx);
/* Room to read into (at least 1 byte): compacts or grows to hold the frame
 * under way. NULL when out of memory. */
uint8_t *ump_tcp_rx_space(ump_tcp_rx_t *rx, size_t *room);
static inline void ump_tcp_rx_commit(ump_tcp_rx_t *rx, size_t n)
{
    rx->end += n;
}
/* The AM length the header of the frame under way declares (0 until its
 * length field is in). */
size_t ump_tcp_rx_head_len(const ump_tcp_rx_t *rx);
/* Next complete frame: 1 with the fields set (data valid until the next
 * rx call), 0 when more bytes are needed, UMP_ERR_PROTOCOL on a bad header. */
int ump_tcp_rx_next(ump_tcp_rx_t *rx, uint8_t *am_id, uint8_t *flags, const void **data,
                    size_t *len);
static inline size_t ump_tcp_rx_pending(const ump_tcp_rx_t *rx)
{
    return rx->end - rx->start;
}

/* --- send queue ----------------------------------------------------------
 * Bytes taken by am_send that the socket did not accept yet, in order;
 * among them references to memory that is sent from where it lies (a get
 * reply's data), each placed at a position of the byte stream. */
typedef struct ump_tcp_ref {
    struct ump_tcp_ref *next;
    uint64_t pos; /* sent once the queue's bytes before it (sent counts) are out */
    size_t left;  /* bytes of iov[i..] not yet sent, from iov[i] + off */
    int n, i;
    size_t off;
    struct iovec iov[];
} ump_tcp_ref_t;

typedef struct ump_tcp_txq {
    uint8_t *buf;
    size_t cap, head, tail;
    uint64_t pushed, sent;        /* bytes ever queued and ever written from buf */
    ump_tcp_ref_t *refs, **rtail; /* in stream order */
    size_t ref_bytes;             /* referenced bytes not yet sent */
} ump_tcp_txq_t;

void ump_tcp_txq_init(ump_tcp_txq_t *q);
void ump_tcp_txq_fini(ump_tcp_txq_t *q);
/* Everything still to be written, copied or referenced. */
static inline size_t ump_tcp_txq_len(const ump_tcp_txq_t *q)
{
    return q->tail - q->head + q->ref_bytes;
}
/* The copied bytes only (what the queue's bound counts). */
static inline size_t ump_tcp_txq_bytes(const ump_tcp_txq_t *q)
{
    return q->tail - q->head;
}
/* Queues a reference to the n buffers of iov, from byte `skip` of them on,
 * at the current end of the stream. UMP_OK or NO_MEMORY. */
int ump_tcp_txq_push_ref(ump_tcp_txq_t *q, const struct iovec *iov, int n, size_t skip);
/* Appends the bytes of iov[] from byte `skip` on. UMP_OK or NO_MEMORY. */
int ump_tcp_txq_push(ump_tcp_txq_t *q, const struct iovec *iov, int n, size_t skip);
/* Appends n bytes of room to the queue and returns it for the caller to
 * fill, or NULL when out of memory. */
uint8_t *ump_tcp_txq_reserve(ump_tcp_txq_t *q, size_t n);
/*
 * Sends a frame on fd: when the queue is empty, one sendmsg() and the
 * unsent rest is queued; otherwise all of it is queued behind. Entries
 * [ref, ref + nref) of iov are sent by reference: what the socket does not
 * take of them is queued as a reference, not copied, and their memory must
 * stay unchanged until the queue has written them; the other entries are
 * copied. UMP_OK, UMP_ERR_NO_MEMORY, UMP_ERR_INVALID (an entry is not
 * readable memory) or UMP_ERR_PEER_DEAD (the socket failed; errno kept).
 * `fd` < 0 queues without sending (connection not open yet).
 */
int ump_tcp_tx_send_ref(ump_tcp_txq_t *q, int fd, const struct iovec *iov, int n, size_t total,
                        int ref, int nref);
/* ump_tcp_tx_send_ref with every entry copied. */
static inline int ump_tcp_tx_send(ump_tcp_txq_t *q, int fd, const struct iovec *iov, int n,
                                  size_t total)
{
    return ump_tcp_tx_send_ref(q, fd, iov, n, total, n, 0);
}
/* Writes queued bytes until the queue is empty or the socket is full.
 * Returns bytes written (>= 0) or UMP_ERR_PEER_DEAD (UMP_ERR_INVALID when
 * a referenced buffer is not readable memory). */
ssize_t ump_tcp_tx_drain(ump_tcp_txq_t *q, int fd);

/* --- connections and the transport --------------------------------------- */

typedef enum {
    UMP_TCP_CONNECTING, /* outgoing, connect() under way */
    UMP_TCP_AUTH_WAIT,  /* outgoing, hello sent, the acceptor's challenge not read */
    UMP_TCP_HELLO_WAIT, /* incoming, hello not read completely */
    UMP_TCP_PROOF_WAIT, /* incoming, challenge sent, the connector's proof not read */
    UMP_TCP_OPEN,
    UMP_TCP_CLOSED, /* fd closed; struct freed at the end of progress */
} ump_tcp_state_t;

typedef struct ump_tcp_conn {
    LIST_ENTRY(ump_tcp_conn) link; /* xp->conns or xp->zombies */
    int fd;
    int peer;        /* -1 until an incoming connection's proof checks out */
    int hello_rank;  /* incoming: the peer index its hello claims */
    uint8_t rjob[8]; /* the other end's job id and rank there (the proofs cover them) */
    int rrank;
    bool parked;         /* incoming: a hello from a process not (yet) added */
    uint64_t park_until; /* refused when still unknown then */
    uint8_t nonce_c[UMP_AUTH_NONCE_LEN], nonce_a[UMP_AUTH_NONCE_LEN];
    bool outgoing;
    bool bye; /* the other side said BYE: its EOF is a clean close */
    ump_tcp_state_t state;
    uint32_t events; /* epoll mask registered (wanted, while unwatched) */
    bool unwatched;  /* out of the epoll set while progress reads it directly */
    char addr[80];   /* "ip:port" of the other end, for log lines */
    ump_tcp_rx_t rx;
    ump_tcp_txq_t txq;
    /* A get reply whose data are being read from the socket straight into
     * the get's buffers (tcp_get.c): dleft data bytes, then dpad padding. */
    struct ump_tcp_get *dget;
    size_t dleft, dpad;
} ump_tcp_conn_t;

/* A get this process asked for (tcp_get.c). */
typedef struct ump_tcp_get {
    LIST_ENTRY(ump_tcp_get) link;
    uint64_t id;
    int peer;
    bool failed; /* the peer died: completed from progress */
    size_t len;  /* bytes asked for */
    size_t done; /* bytes placed */
    ump_xp_comp_t *comp;
    int n;
    struct iovec iov[]; /* where the bytes go */
} ump_tcp_get_t;

typedef struct ump_tcp_peer {
    ump_tcp_conn_t *out; /* the connection this rank sends on (may be `in`) */
    ump_tcp_conn_t *in;  /* the connection the peer opened to this rank */
    bool dead;           /* am_send fails with PEER_DEAD */
    bool report;         /* peer_failed still to be called (from progress) */
    bool gone;           /* closed cleanly (BYE): dead, never reported */
} ump_tcp_peer_t;

typedef struct ump_tcp_xp {
    ump_xp_t base; /* first: the core sees only this */
    int rank, size;
    int npeers;     /* entries of peers: the job's ranks, then processes added */
    int nparked;    /* connections with parked set */
    uint8_t job[8]; /* this job's id as bytes */
    int lfd;        /* listening socket */
    int epfd;       /* listener + every connection */
    char addr[80];  /* published "ip:port" */
    uint8_t secret[UMP_RT_SECRET_LEN];
    ump_tcp_peer_t *peers;
    LIST_HEAD(, ump_tcp_conn) conns;
    LIST_HEAD(, ump_tcp_conn) zombies;
    int nreport; /* peers with report set */
    /* The open connection that delivered last: progress reads it directly
     * and asks epoll only every UMP_TCP_EPOLL_EVERY calls, since a thread
     * spinning in epoll_wait contends with the sender's wake-up for the
     * epoll lock (a ping-pong pays for it in every message). */
    ump_tcp_conn_t *hot;
    bool armed; /* between arm and disarm: hot stays in the epoll set */
    unsigned polls;
    int nout; /* connections registered for EPOLLOUT (a send queue waits) */
    /* Connections refused because the other end failed authentication
     * (accepted ones with a bad proof, made ones with a bad challenge). */
    unsigned long auth_refused;
    size_t queue_max, sndbuf, rcvbuf;
    size_t sndbuf_local;           /* SO_SNDBUF of a connection within the host (0: leave it) */
    LIST_HEAD(, ump_tcp_get) gets; /* asked for, reply not complete */
    uint64_t next_get;
    int ngets_failed; /* gets with failed set */
} ump_tcp_xp_t;

/* tcp_iface.c */
/* Picks the IPv4 address to listen on: UMP_TCP_IF's, else the runtime's. */
int ump_tcp_pick_addr(ump_rt_t *rt, const char *ifname, char *ip, size_t len);
/* Non-blocking listener on ip, port 0; writes "ip:port" into addr. */
int ump_tcp_listen(const char *ip, char *addr, size_t alen);
/* Splits "ip:port" (IPv4 or IPv6; the port follows the last colon) into a
 * socket address; UMP_ERR_INVALID if malformed. */
int ump_tcp_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sl);
/* Writes "ip:port" of sa into buf. */
void ump_tcp_format_addr(const struct sockaddr *sa, char *buf, size_t len);
void ump_tcp_sock_opts(int fd, size_t sndbuf, size_t rcvbuf);
/* Once fd is connected: SO_SNDBUF sndbuf when both ends are this host's
 * (0: nothing). */
void ump_tcp_sock_local(int fd, size_t sndbuf);

/* tcp_conn.c */
int ump_tcp_conn_connect(ump_tcp_xp_t *xp, int peer, ump_tcp_conn_t **out);
int ump_tcp_conn_accept(ump_tcp_xp_t *xp);
/* Takes up the hellos that waited for their process to be added. */
void ump_tcp_conn_unpark(ump_tcp_xp_t *xp);
/* Handles epoll events of one connection; returns events handled or error. */
int ump_tcp_conn_event(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, uint32_t ev);
/* Updates the epoll mask to what the state and queue need. */
void ump_tcp_conn_rearm(ump_tcp_xp_t *xp, ump_tcp_conn_t *c);
/* The connection progress reads directly (xp->hot) leaves the epoll set
 * while it only waits for input, and comes back before anything sleeps on
 * the set, when it needs EPOLLOUT, or when another connection takes its
 * place: a socket in an epoll set makes every sender's wake-up run
 * epoll's callback (0.35-0.4 us of a loopback half round trip). */
void ump_tcp_conn_unwatch(ump_tcp_xp_t *xp, ump_tcp_conn_t *c);
void ump_tcp_conn_watch(ump_tcp_xp_t *xp, ump_tcp_conn_t *c);
/* Closes fd now, frees later (it may be on the stack of a delivery). */
void ump_tcp_conn_close(ump_tcp_xp_t *xp, ump_tcp_conn_t *c);
/* The peer is gone: closes both of its connections, drops its queue, and
 * schedules the peer_failed call unless it left cleanly. */
void ump_tcp_peer_fail(ump_tcp_xp_t *xp, int peer, bool clean);
void ump_tcp_free_zombies(ump_tcp_xp_t *xp);

/* tcp_xport.c */
/* The connection AMs to `peer` go on (the channel rule), made on first use. */
int ump_tcp_send_conn(ump_tcp_xp_t *xp, int peer, ump_tcp_conn_t **out);
/* Sends one frame (an AM when flags is 0): am_send's contract. */
int ump_tcp_send_frame(ump_tcp_xp_t *xp, int peer, uint8_t am_id, uint8_t flags, const void *hdr,
                       size_t hlen, const struct iovec *iov, int iovcnt);

/* tcp_get.c */
int ump_tcp_get(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp);
/* A GETREQ frame arrived on c: queues its reply. <0: the frame is malformed. */
int ump_tcp_get_serve(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, const void *data, size_t len);
/* A GETREP header arrived on c: takes its data (from the receive buffer as
 * far as they are there); c->dget set while more must come from the socket.
 * <0: malformed or unknown. */
int ump_tcp_get_reply(ump_tcp_xp_t *xp, ump_tcp_conn_t *c, const void *data, size_t len);
/* Reads c->dget's data from the socket: 1 when it progressed, 2 when it
 * progressed and emptied the socket, 0 when the socket had nothing, <0
 * (errno set) when the connection failed. */
int ump_tcp_get_read(ump_tcp_xp_t *xp, ump_tcp_conn_t *c);
/* The peer died: its gets fail (completed by ump_tcp_get_fail_report). */
void ump_tcp_get_peer_failed(ump_tcp_xp_t *xp, int peer);
/* From progress: completes the failed gets; returns how many. */
int ump_tcp_get_fail_report(ump_tcp_xp_t *xp);
/* At close: frees every get (their owners are gone). */
void ump_tcp_get_fini(ump_tcp_xp_t *xp);

extern const ump_xp_ops_t ump_xp_tcp_ops;

#endif /* UMP_XPORT_TCP_H */
