/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory transport "shm": ops table, wireup, send, progress and
 * sleeping. See shm.h for the segment layout and the ordering rule.
 *
 * Doorbells. A receiver about to sleep sets `sleeping` in its control block;
 * a sender that finds it set after publishing rings the receiver's doorbell.
 * The doorbell is an abstract-namespace AF_UNIX datagram socket per rank
 * ("\0ump-<job id>-<rank>"): eventfds would be cheaper, but an eventfd can
 * reach another process only by fd passing (or pidfd_getfd, which needs
 * ptrace rights), and the ranks are unrelated processes started by the
 * launcher. An abstract name needs no file (nothing to clean up), is
 * reachable by every process of the node's network namespace, and the
 * socket is an fd the core can poll. Datagrams are one byte; a full queue
 * (EAGAIN) already means "awake", so it is ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "xport/shm/shm.h"

UMP_CFG(shm_cfg_ring_size, "UMP_SHM_RING_SIZE", UMP_CFG_SIZE, "256k",
        "bytes per shm ring, one per ordered pair of local ranks (power of two; halved "
        "automatically, down to 16k, until all rings fit in 256 MiB)");
UMP_CFG(shm_cfg_eager, "UMP_SHM_EAGER_LIMIT", UMP_CFG_SIZE, "8k",
        "largest message the core sends eagerly over shm");
UMP_CFG(shm_cfg_seg, "UMP_SHM_SEG_SIZE", UMP_CFG_SIZE, "32k",
        "payload per DATA AM of a pipelined rendezvous over shm (capped by the ring size)");
UMP_CFG(shm_cfg_cma_min, "UMP_SHM_CMA_MIN", UMP_CFG_SIZE, "0",
        "smallest message read single-copy with process_vm_readv; 0 = never; unset: above the "
        "eager limit each receiver times both the single copy and the pipelined ring copy "
        "per size class and keeps the faster (which wins depends on the machine)");
UMP_CFG(shm_cfg_cma_skew, "UMP_SHM_CMA_SKEW", UMP_CFG_SIZE, "32",
        "a contiguous message whose receive buffer lies 1 to this many bytes minus one past "
        "the send buffer, modulo 4 KiB, is streamed, not read: the kernel's copy for "
        "process_vm_readv runs about 5 times slower at such distances on some CPUs (measured "
        "on AMD EPYC: 0.6 ns/byte against 0.12); 0: read at any distance");
UMP_CFG(shm_cfg_cma, "UMP_SHM_CMA", UMP_CFG_BOOL, "yes",
        "allow cross-memory attach (process_vm_readv) for single-copy reads");
UMP_CFG_ENUM_(shm_cfg_membarrier, "UMP_SHM_MEMBARRIER", "auto", "auto|yes|no",
              "a receiver going to sleep runs membarrier() so that senders need no memory fence "
              "per message: auto (when the node has a CPU per rank), yes (also when "
              "oversubscribed), no");
UMP_CFG(shm_cfg_poll_max, "UMP_SHM_POLL_MAX", UMP_CFG_INT, "16",
        "up to this many local ranks a receiver polls every peer's fastbox and ring directly; "
        "above it senders flag their ring in the receiver's pending bitmap");

#define RING_BUDGET     (256ull << 20) /* all rings of a node together */
#define RING_MIN        (16ull << 10)
#define DRAIN_BUDGET    64 /* messages per peer per progress: bounds a handler storm */
#define LIVENESS_NS     (100 * 1000 * 1000ull)
#define CMA_PROBE_MAGIC 0x5ca1ab1e0ddba11ull

/* What each rank publishes under "shm.ep". */
typedef struct shm_ep_addr {
    int32_t local_rank;
    int32_t pid;
    uint64_t probe_addr; /* a word holding CMA_PROBE_MAGIC ^ pid */
    int32_t asym;        /* registered for membarrier(GLOBAL_EXPEDITED) */
    int32_t poll_all;    /* wants direct polling (UMP_SHM_POLL_MAX) */
} shm_ep_addr_t;

typedef struct shm_peer {
    int rank; /* global rank */
    pid_t pid;
    uint64_t probe_addr;
    ump_shm_ring_t tx;       /* me -> peer (I produce) */
    ump_shm_ring_t rx;       /* peer -> me (I consume) */
    ump_shm_fbq_t tx_fb;     /* me -> peer */
    ump_shm_fbq_t rx_fb;     /* peer -> me */
    uint32_t tx_seq, rx_seq; /* next number to send / to deliver */
    uint32_t burst;          /* messages sent since the last one received */
    ump_shm_ctl_t *ctl;      /* the peer's control block */
    struct sockaddr_un bell; /* the peer's doorbell */
    socklen_t bell_len;
    bool dead, dead_reported;
    uint64_t alive_checked; /* ns; liveness is checked at most every LIVENESS_NS */
} shm_peer_t;

typedef struct shm_xp {
    ump_xp_t base;
    ump_rt_t *rt;
    int rank, size, node;
    int me, local_size; /* my slot, number of slots */
    int *slot_of;       /* global rank -> slot, -1 when not local */
    shm_peer_t *peers;  /* by slot */
    ump_shm_ctl_t *my_ctl;
    uint64_t ring_size;
    void *seg;
    size_t seg_len;
    char seg_name[96];
    bool creator;
    int bell_fd; /* my doorbell, bound */
    int ring_fd; /* unbound, for ringing others */
    bool armed;
    bool poll_all; /* poll every peer; no pending bitmap (small nodes) */
    bool asym_me;  /* this process is registered for membarrier */
    bool asym;     /* every local rank is: senders skip the fence */
    bool cma;
    bool protocol_error_logged;
    bool dead_pending; /* a peer died and progress() has not reported it */
    volatile uint64_t probe_word;
} shm_xp_t;

static void bell_addr(const char *job_id, int rank, struct sockaddr_un *sa, socklen_t *len)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    /* sun_path[0] = '\0' selects the abstract namespace. */
    int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "ump-%s-%d", job_id, rank);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static uint64_t pick_ring_size(int local_size)
{
    uint64_t r = shm_cfg_ring_size.v.sz;
    if (r < RING_MIN) r = RING_MIN;
    /* Round down to a power of two: positions are counter & (size - 1). */
    while (r & (r - 1))
        r &= r - 1;
    uint64_t pairs = (uint64_t)local_size * (uint64_t)local_size;
    while (r > RING_MIN && pairs * r > RING_BUDGET)
        r /= 2;
    return r;
}

static void shm_close(ump_xp_t *xp_);

static int shm_xp_open(const ump_xp_params_t *params, ump_xp_t **out)
{
    ump_cfg_load(false);
    const ump_rt_info_t *info = ump_rt_info(params->rt);
    if (info->local_size < 2) {
        ump_debug("shm: no other rank on this node");
        return UMP_ERR_UNSUPPORTED;
    }
    if (info->local_size > UMP_SHM_MAX_LOCAL) {
        ump_warn("shm: %d local ranks exceed the supported %d", info->local_size,
                 UMP_SHM_MAX_LOCAL);
        return UMP_ERR_UNSUPPORTED;
    }
    shm_xp_t *xp = calloc(1, sizeof(*xp));
    if (!xp) return UMP_ERR_NO_MEMORY;
    xp->base.ops = &ump_xp_shm_ops;
    xp->base.params = *params;
    xp->rt = params->rt;
    xp->rank = info->rank;
    xp->size = info->size;
    xp->node = info->node_id;
    xp->me = info->local_rank;
    xp->local_size = info->local_size;
    xp->bell_fd = xp->ring_fd = -1;
    xp->ring_size = pick_ring_size(info->local_size);
    xp->probe_word = CMA_PROBE_MAGIC ^ (uint64_t)getpid();
    int rc = UMP_ERR_IO;

    xp->bell_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    xp->ring_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (xp->bell_fd < 0 || xp->ring_fd < 0) {
        ump_error("shm: socket(AF_UNIX) failed: %m");
        goto err_close;
    }
    struct sockaddr_un sa;
    socklen_t salen;
    bell_addr(info->job_id, info->rank, &sa, &salen);
    if (bind(xp->bell_fd, (struct sockaddr *)&sa, salen) != 0) {
        ump_error("shm: bind of doorbell @%s failed: %m", sa.sun_path + 1);
        goto err_close;
    }

    if (xp->me == 0) {
        uint8_t rnd[8];
        char hex[17];
        if (ump_random_bytes(rnd, sizeof(rnd)) != 0) goto err_close;
        ump_hex_encode(rnd, sizeof(rnd), hex);
        snprintf(xp->seg_name, sizeof(xp->seg_name), "/ump-%s-%d-%s", info->job_id, info->node_id,
                 hex);
        rc =
            ump_shm_seg_create(xp->seg_name, xp->local_size, xp->ring_size, &xp->seg, &xp->seg_len);
        if (rc != UMP_OK) goto err_close;
        xp->creator = true;
        rc = ump_rt_put(xp->rt, "shm.seg", xp->seg_name, strlen(xp->seg_name) + 1);
        if (rc != UMP_OK) goto err_close;
    }
    xp->poll_all = info->local_size <= shm_cfg_poll_max.v.i;
    /* membarrier interrupts the CPUs that run the other ranks: worth it
     * where sleeping is rarer than sending. */
    int cpus = ump_num_cpus();
    int mb = shm_cfg_membarrier.v.e; /* 0 auto, 1 yes, 2 no */
    if (xp->poll_all && (mb == 1 || (mb == 0 && cpus > 0 && info->local_size <= cpus)))
        xp->asym_me = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
    shm_ep_addr_t ep = {.local_rank = xp->me,
                        .pid = (int32_t)getpid(),
                        .probe_addr = (uint64_t)(uintptr_t)&xp->probe_word,
                        .asym = xp->asym_me,
                        .poll_all = xp->poll_all};
    rc = ump_rt_put(xp->rt, "shm.ep", &ep, sizeof(ep));
    if (rc != UMP_OK) goto err_close;

    size_t max_am = ump_shm_ring_max_payload(xp->ring_size);
    ump_xp_caps_t *c = &xp->base.caps;
    c->reliable = true;
    c->ordered = true;
    c->am_cost = UMP_XP_AM_MEMORY;
    c->rma_get = shm_cfg_cma.v.b;
    c->max_am = max_am;
    c->max_iov = IOV_MAX;
    c->seg_size = UMP_MIN(shm_cfg_seg.v.sz, max_am - 64);
    c->eager_limit = UMP_MIN(shm_cfg_eager.v.sz, max_am - 64);
    c->get_min = c->rma_get && shm_cfg_cma_min.v.sz ? shm_cfg_cma_min.v.sz : SIZE_MAX;
    c->get_measure = c->rma_get && !shm_cfg_cma_min.from_env;
    c->get_skew = shm_cfg_cma_skew.v.sz;
    c->get_max_iov = SIZE_MAX; /* ump_shm_cma_xfer batches by IOV_MAX itself */
    c->rma_put = c->rma_get;   /* process_vm_writev, under the same permission */
    c->put_max_iov = SIZE_MAX;
    xp->cma = c->rma_get;
    *out = &xp->base;
    return UMP_OK;

err_close:
    shm_close(&xp->base);
    return rc;
}

/* Reads a peer's probe word: proves process_vm_readv works towards it. */
static int cma_probe(shm_xp_t *xp, shm_peer_t *p)
{
    uint64_t v = 0;
    struct iovec l = {&v, sizeof(v)};
    ump_riov_t r = {p->probe_addr, sizeof(v)};
    int rc = ump_shm_cma_xfer(p->pid, false, &l, 1, &r, 1);
    if (rc == UMP_OK && v != (CMA_PROBE_MAGIC ^ (uint64_t)p->pid))
        rc = UMP_ERR_UNSUPPORTED; /* a different address space (pid namespace?) */
    return rc;
}

static int shm_wireup(ump_xp_t *xp_)
{
    shm_xp_t *xp = (shm_xp_t *)xp_;
    const ump_rt_info_t *info = ump_rt_info(xp->rt);
    int rc;
    xp->slot_of = malloc(sizeof(int) * (size_t)xp->size);
    xp->peers = calloc((size_t)xp->local_size, sizeof(shm_peer_t));
    if (!xp->slot_of || !xp->peers) return UMP_ERR_NO_MEMORY;
    for (int r = 0; r < xp->size; r++)
        xp->slot_of[r] = -1;

    int found = 0;
    xp->asym = xp->asym_me;
    for (int r = 0; r < xp->size; r++) {
        if (ump_rt_node_of(xp->rt, r) != xp->node) continue;
        shm_ep_addr_t ep;
        size_t len = sizeof(ep);
        rc = ump_rt_get(xp->rt, r, "shm.ep", &ep, &len);
        if (rc != UMP_OK || len != sizeof(ep) || ep.local_rank < 0 ||
            ep.local_rank >= xp->local_size || xp->peers[ep.local_rank].pid) {
            ump_error("shm: rank %d published no valid shm address", r);
            return rc != UMP_OK ? rc : UMP_ERR_PROTOCOL;
        }
        shm_peer_t *p = &xp->peers[ep.local_rank];
        p->rank = r;
        p->pid = ep.pid;
        p->probe_addr = ep.probe_addr;
        if (!ep.asym) xp->asym = false;
        /* Senders of the bitmap mode flag their rings; a receiver that
         * polls directly ignores the flags, one that waits for them needs
         * every sender to set them: one rank that wants the bitmap (its
         * own UMP_SHM_POLL_MAX) makes every rank use it. */
        if (!ep.poll_all) xp->poll_all = false;
        xp->slot_of[r] = ep.local_rank;
        found++;
    }
    if (found != xp->local_size || xp->slot_of[xp->rank] != xp->me) {
        ump_error("shm: found %d ranks on node %d, expected %d", found, xp->node, xp->local_size);
        return UMP_ERR_PROTOCOL;
    }

    if (!xp->creator) {
        size_t len = sizeof(xp->seg_name) - 1;
        rc = ump_rt_get(xp->rt, xp->peers[0].rank, "shm.seg", xp->seg_name, &len);
        if (rc != UMP_OK) {
            ump_error("shm: local rank 0 (rank %d) published no segment", xp->peers[0].rank);
            return rc;
        }
        xp->seg_name[len] = '\0';
        rc = ump_shm_seg_attach(xp->seg_name, xp->local_size, &xp->seg, &xp->seg_len);
        if (rc != UMP_OK) return rc;
        if (((ump_shm_seg_hdr_t *)xp->seg)->ring_size != xp->ring_size) {
            ump_error("shm: ring size differs between local ranks (UMP_SHM_RING_SIZE must "
                      "be the same for all)");
            return UMP_ERR_INVALID;
        }
    }

    xp->my_ctl = ump_shm_seg_ctl(xp->seg, xp->me);
    for (int s = 0; s < xp->local_size; s++) {
        if (s == xp->me) continue;
        shm_peer_t *p = &xp->peers[s];
        ump_shm_pair_t *tx = ump_shm_seg_pair(xp->seg, xp->local_size, xp->ring_size, xp->me, s);
        ump_shm_pair_t *rx = ump_shm_seg_pair(xp->seg, xp->local_size, xp->ring_size, s, xp->me);
        ump_shm_ring_attach(&p->tx, &tx->ring, ump_shm_pair_data(tx), xp->ring_size);
        ump_shm_ring_attach(&p->rx, &rx->ring, ump_shm_pair_data(rx), xp->ring_size);
        ump_shm_fbq_attach(&p->tx_fb, &tx->fb);
        ump_shm_fbq_attach(&p->rx_fb, &rx->fb);
        p->ctl = ump_shm_seg_ctl(xp->seg, s);
        bell_addr(info->job_id, p->rank, &p->bell, &p->bell_len);
    }

    if (xp->cma) {
        for (int s = 0; s < xp->local_size && xp->cma; s++) {
            if (s == xp->me) continue;
            rc = cma_probe(xp, &xp->peers[s]);
            if (rc != UMP_OK) {
                ump_info("shm: cross-memory attach to rank %d refused (%s): the copy path "
                         "serves every message size",
                         xp->peers[s].rank, ump_strerror(rc));
                xp->cma = false;
            }
        }
        if (!xp->cma) {
            xp->base.caps.rma_get = false;
            xp->base.caps.rma_put = false;
            xp->base.caps.get_min = SIZE_MAX;
            xp->base.caps.get_measure = false;
        }
    }
    ump_debug("shm: %d local ranks, ring %llu bytes, segment %s (%zu bytes), cma %s, "
              "%s, sender fences %s",
              xp->local_size, (unsigned long long)xp->ring_size, xp->seg_name, xp->seg_len,
              xp->cma ? "on" : "off", xp->poll_all ? "polling every peer" : "pending bitmap",
              xp->asym ? "off (membarrier)" : "on");
    return UMP_OK;
}

static void shm_close(ump_xp_t *xp_)
{
    shm_xp_t *xp = (shm_xp_t *)xp_;
    if (!xp) return;
    if (xp->seg) {
        ump_shm_seg_hdr_t *h = xp->seg;
        /* Someone never attached (failed start): the name is still there. */
        if (atomic_load(&h->attached) < xp->local_size) shm_unlink(xp->seg_name);
        munmap(xp->seg, xp->seg_len);
    }
    if (xp->bell_fd >= 0) close(xp->bell_fd);
    if (xp->ring_fd >= 0) close(xp->ring_fd);
    free(xp->slot_of);
    free(xp->peers);
    free(xp);
}

/* The record of local rank `peer` other than this one, or NULL. */
static UMP_INLINE_PATH shm_peer_t *peer_of(shm_xp_t *xp, int peer)
{
    if (UMP_UNLIKELY(!xp->slot_of || (unsigned)peer >= (unsigned)xp->size)) return NULL;
    int s = xp->slot_of[peer];
    return s >= 0 && s != xp->me ? &xp->peers[s] : NULL;
}

static bool shm_reaches(ump_xp_t *xp_, int peer)
{
    return peer_of((shm_xp_t *)xp_, peer) != NULL;
}

static void mark_dead(shm_xp_t *xp, shm_peer_t *p, const char *why)
{
    if (p->dead) return;
    ump_warn("shm: rank %d (pid %d) is gone: %s", p->rank, (int)p->pid, why);
    p->dead = true;
    xp->dead_pending = true;
}

/* A full ring may mean a dead receiver: rings cannot tell, so look at the
 * process, at most every LIVENESS_NS (the launcher reaps its ranks, so a
 * dead one does not linger as a zombie). */
static bool peer_dead(shm_xp_t *xp, shm_peer_t *p)
{
    uint64_t now = ump_time_ns();
    if (!p->dead && now - p->alive_checked >= LIVENESS_NS) {
        p->alive_checked = now;
        if (kill(p->pid, 0) != 0 && errno == ESRCH) mark_dead(xp, p, "process exited");
    }
    return p->dead;
}

/* Wakes receiver p, which said it sleeps: one datagram to its doorbell. */
static void ring_bell(shm_xp_t *xp, shm_peer_t *p)
{
    char b = 1;
    if (sendto(xp->ring_fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&p->bell,
               p->bell_len) < 0 &&
        errno != EAGAIN && errno != EWOULDBLOCK) {
        /* Refused: the socket is closed, so is the process (or its
         * transport, which no one sends to after the final fence). */
        if (errno == ECONNREFUSED)
            mark_dead(xp, p, "doorbell closed");
        else
            ump_debug("shm: doorbell of rank %d: %m", p->rank);
    }
}

/* After publishing a message to `p`: make sure its receiver looks at our
 * ring, and wake it if it sleeps. The fences pair with the exchange in
 * progress() and the store in arm(): either the receiver sees our bit or we
 * see its state (see the comment in progress()). Inline in the sends: on
 * the common path it is a load or two. */
static UMP_INLINE_PATH void notify(shm_xp_t *xp, shm_peer_t *p)
{
    if (!xp->poll_all) {
        _Atomic uint64_t *w = &p->ctl->pending[xp->me / 64];
        uint64_t bit = 1ull << (xp->me % 64);
        atomic_thread_fence(memory_order_seq_cst);
        /* Reading first keeps the line shared while the receiver has not
         * yet consumed our previous bit: streaming senders do not bounce
         * it. */
        if (!(atomic_load_explicit(w, memory_order_relaxed) & bit))
            atomic_fetch_or_explicit(w, bit, memory_order_seq_cst);
    }
    /* Pairs with the barrier in arm(): either the receiver's last look at
     * the rings sees our message or we see it sleeping. With `asym` the
     * receiver's membarrier() makes our store visible before it looks, so
     * the sender pays no fence (a fence here waits for the store's line
     * to arrive from the receiver's cache, on every message). */
    if (xp->asym)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    if (UMP_UNLIKELY(atomic_load_explicit(&p->ctl->sleeping, memory_order_relaxed)) &&
        atomic_exchange_explicit(&p->ctl->sleeping, 0, memory_order_relaxed))
        ring_bell(xp, p);
}

/* After message tx_seq of `total` bytes went to p: the next number, the
 * receiver told, and when this is the second or later message since p last
 * sent us one (a stream, not a ping-pong), the lines of a later message
 * asked for (ump_shm_pair_ahead: with the cores apart the 1-16 B message
 * rate went from 11 to 20 M/s; in a ping-pong the same request cost 3%). */
static UMP_INLINE_PATH void sent(shm_xp_t *xp, shm_peer_t *p, size_t total)
{
    if (p->burst++) ump_shm_pair_ahead(&p->tx, &p->tx_fb, p->tx_seq, total);
    p->tx_seq++;
    notify(xp, p);
}

static int shm_am_send(ump_xp_t *xp_, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                       const struct iovec *iov, int iovcnt)
{
    shm_xp_t *xp = (shm_xp_t *)xp_;
    shm_peer_t *p = peer_of(xp, peer);
    if (UMP_UNLIKELY(!p)) return UMP_ERR_INVALID;
    if (UMP_UNLIKELY(p->dead)) return UMP_ERR_PEER_DEAD;
    size_t total = hlen;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (UMP_UNLIKELY(total > xp->base.caps.max_am)) return UMP_ERR_INVALID;

    /* ump_shm_pair_send, one call shorter: the fastbox when it is free,
     * else the ring (the receiver orders them by sequence number). */
    int rc = total <= UMP_SHM_FB_PAYLOAD
                 ? ump_shm_fb_push(&p->tx_fb, p->tx_seq, am_id, hdr, hlen, iov, iovcnt, total)
                 : UMP_ERR_NO_RESOURCE;
    if (rc == UMP_ERR_NO_RESOURCE)
        rc = ump_shm_ring_push(&p->tx, p->tx_seq, am_id, hdr, hlen, iov, iovcnt, total);
    if (rc == UMP_ERR_NO_RESOURCE && peer_dead(xp, p)) return UMP_ERR_PEER_DEAD;
    if (rc != UMP_OK) return rc;
    sent(xp, p, total);
    return UMP_OK;
}

static int shm_am_send_pack(ump_xp_t *xp_, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                            size_t len, void (*pack)(void *, void *, size_t), void *arg)
{
    shm_xp_t *xp = (shm_xp_t *)xp_;
    shm_peer_t *p = peer_of(xp, peer);
    if (UMP_UNLIKELY(!p)) return UMP_ERR_INVALID;
    if (UMP_UNLIKELY(p->dead)) return UMP_ERR_PEER_DEAD;
    size_t total = hlen + len;
    if (UMP_UNLIKELY(total > xp->base.caps.max_am)) return UMP_ERR_INVALID;
    int rc = ump_shm_pair_send_pack(&p->tx, &p->tx_fb, p->tx_seq, am_id, hdr, hlen, len, pack, arg);
    if (rc == UMP_ERR_NO_RESOURCE && peer_dead(xp, p)) return UMP_ERR_PEER_DEAD;
    if (rc != UMP_OK) return rc;
    sent(xp, p, total);
    return UMP_OK;
}

/* Delivers up to DRAIN_BUDGET messages from slot s in sequence order.
 * Returns the number delivered; *more is set when the budget ran out. */
static UMP_INLINE_PATH int drain(shm_xp_t *xp, int s, bool *more)
{
    shm_peer_t *p = &xp->peers[s];
    const ump_xp_params_t *prm = &xp->base.params;
    int n = 0;
    for (; n < DRAIN_BUDGET; n++) {
        ump_shm_msg_t m;
        int rc = ump_shm_pair_next(&p->rx, &p->rx_fb, p->rx_seq, &m);
        if (rc <= 0) {
            if (rc < 0 && !xp->protocol_error_logged) {
                ump_error("shm: messages from rank %d out of sequence (expected %u)", p->rank,
                          p->rx_seq);
                xp->protocol_error_logged = true;
            }
            break;
        }
        prm->am_handler(prm->arg, &xp->base, p->rank, m.am_id, m.data, m.len);
        ump_shm_pair_release(&p->rx, &p->rx_fb, &m);
        p->rx_seq++;
    }
    if (n) p->burst = 0;
    *more = n == DRAIN_BUDGET;
    return n;
}

static int shm_progress(ump_xp_t *xp_)
{
    shm_xp_t *xp = (shm_xp_t *)xp_;
    if (UMP_UNLIKELY(!xp->peers || !xp->my_ctl)) return 0;
    if (xp->armed) {
        xp->armed = false;
        atomic_store_explicit(&xp->my_ctl->sleeping, 0, memory_order_relaxed);
        char buf[64];
        /* Bounded by the socket queue, which only senders that saw us
         * sleeping fill. */
        while (recv(xp->bell_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
            ;
    }
    int events = 0;
    if (UMP_UNLIKELY(xp->dead_pending)) {
        xp->dead_pending = false;
        for (int s = 0; s < xp->local_size; s++) {
            shm_peer_t *p = &xp->peers[s];
            if (p->dead && !p->dead_reported) {
                p->dead_reported = true;
                events++;
                if (xp->base.params.peer_failed)
                    xp->base.params.peer_failed(xp->base.params.arg, &xp->base, p->rank,
                                                UMP_ERR_PEER_DEAD);
            }
        }
    }
    if (xp->poll_all) {
        /* Few peers: an idle peer costs two loads of lines that stay
         * cached until it writes them, cheaper than the pending word's
         * exchange and the extra line transfers it causes per message. */
        for (int s = 0; s < xp->local_size; s++) {
            bool more;
            if (s != xp->me) events += drain(xp, s, &more);
        }
        return events;
    }
    int words = (xp->local_size + 63) / 64;
    for (int w = 0; w < words; w++) {
        _Atomic uint64_t *pw = &xp->my_ctl->pending[w];
        /* A plain load first: idle peers cost one shared line, no RMW. */
        if (!atomic_load_explicit(pw, memory_order_relaxed)) continue;
        /* Clear before reading the rings: a sender publishing after this
         * exchange sets its bit again (it reads the cleared word after its
         * fence), one publishing before is seen by the reads below (our
         * fence is ordered after its fence). */
        uint64_t bits = atomic_exchange_explicit(pw, 0, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        uint64_t again = 0;
        while (bits) {
            int b = __builtin_ctzll(bits);
            bits &= bits - 1;
            bool more;
            events += drain(xp, w * 64 + b, &more);
            if (more) again |= 1ull << b;
        }
        if (again) atomic_fetch_or_explicit(pw, again, memory_order_relaxed);
    }
    return events;
}

static int shm_arm(ump_xp_t *xp_)
{
    shm_xp_t *xp = (shm_xp_t *)xp_;
    if (!xp->my_ctl) return UMP_OK;
    atomic_store_explicit(&xp->my_ctl->sleeping, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    if (xp->asym && syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0) {
        /* Without the barrier a sender's store may still be on its way:
         * stay awake. */
        atomic_store_explicit(&xp->my_ctl->sleeping, 0, memory_order_relaxed);
        return UMP_ERR_BUSY;
    }
    if (xp->poll_all) {
        for (int s = 0; s < xp->local_size; s++) {
            shm_peer_t *p = &xp->peers[s];
            ump_shm_msg_t m;
            if (s != xp->me && ump_shm_pair_next(&p->rx, &p->rx_fb, p->rx_seq, &m) != 0) {
                atomic_store_explicit(&xp->my_ctl->sleeping, 0, memory_order_relaxed);
                return UMP_ERR_BUSY;
            }
        }
        xp->armed = true;
        return UMP_OK;
    }
    int words = (xp->local_size + 63) / 64;
    for (int w = 0; w < words; w++) {
        if (atomic_load_explicit(&xp->my_ctl->pending[w], memory_order_seq_cst)) {
            atomic_store_explicit(&xp->my_ctl->sleeping, 0, memory_order_relaxed);
            return UMP_ERR_BUSY;
        }
    }
    xp->armed = true;
    return UMP_OK;
}

static int shm_wait_fd(ump_xp_t *xp_)
{
    return ((shm_xp_t *)xp_)->bell_fd;
}

/* process_vm_readv needs no registration and is done when it returns:
 * get() always completes at once (UMP_OK) and never takes `comp`. */
static int shm_get(ump_xp_t *xp_, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                   const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    (void)lmr, (void)rkey, (void)comp;
    shm_xp_t *xp = (shm_xp_t *)xp_;
    if (!xp->cma) return UMP_ERR_UNSUPPORTED;
    if (UMP_UNLIKELY(!shm_reaches(xp_, peer))) return UMP_ERR_INVALID;
    return ump_shm_cma_xfer(xp->peers[xp->slot_of[peer]].pid, false, local, nlocal, remote,
                            nremote);
}

static int shm_put(ump_xp_t *xp_, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                   const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    (void)lmr, (void)rkey, (void)comp;
    shm_xp_t *xp = (shm_xp_t *)xp_;
    if (!xp->cma) return UMP_ERR_UNSUPPORTED;
    if (UMP_UNLIKELY(!shm_reaches(xp_, peer))) return UMP_ERR_INVALID;
    return ump_shm_cma_xfer(xp->peers[xp->slot_of[peer]].pid, true, local, nlocal, remote, nremote);
}

/* Rings live in shared memory: once am_send returned, the bytes are there. */
static int shm_flush(ump_xp_t *xp_)
{
    return UMP_OK;
}

const ump_xp_ops_t ump_xp_shm_ops = {
    .name = "shm",
    .open = shm_xp_open,
    .wireup = shm_wireup,
    .close = shm_close,
    .reaches = shm_reaches,
    .am_send = shm_am_send,
    .am_send_pack = shm_am_send_pack,
    .get = shm_get,
    .put = shm_put,
    .progress = shm_progress,
    .arm = shm_arm,
    .wait_fd = shm_wait_fd,
    .flush = shm_flush,
};
