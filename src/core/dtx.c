/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype transfer schemes: how the core moves a message whose bytes are
 * not one contiguous range (seed 002). Contiguous data never come here.
 *
 *   eager      the sender packs straight into the transport's send buffer
 *              (am_send_pack), or hands the runs as iovecs, or packs into a
 *              pooled bounce buffer; the receiver unpacks straight from the
 *              receive buffer (or from the unexpected record).
 *   pipeline   rendezvous RTS / CTS / DATA segments: the sender packs
 *              segment k+1 into the transport while the receiver unpacks
 *              segment k (BC-SPUP; shm rings, tcp socket queue). The first
 *              segment is packed while the RTS waits for its CTS
 *              (UMP_DT_PREPACK), so DATA leave as soon as CTS comes.
 *   sg         rendezvous over a transport with get() (shm: process_vm_readv):
 *              the receiver reads the sender's runs into its own runs in one
 *              scatter/gather copy, no packing on either side (Multi-W /
 *              P-RRS family), batched by IOV_MAX entries per side (or the
 *              transport's get_max_iov); the batches may complete later,
 *              all on the request's one completion object (rma.c).
 *
 * The receiver chooses pipeline or sg when the RTS meets its receive, from
 * both layouts' facts; the thresholds are tunables. For sg it needs the
 * sender's layout: the RTS carries it the first time a sender uses a type
 * with a receiver and afterwards only the type's id (a process-unique
 * number that is never reused, so a freed type cannot alias a new one).
 * Both sides keep LAY_SLOTS direct-mapped slots per peer indexed the same
 * way, so the sender knows which layouts the receiver still has; a receiver
 * that does not know an id streams the message instead, so the cache is
 * only ever an optimisation.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

UMP_CFG_ENUM_(core_cfg_dt_scheme, "UMP_DT_SCHEME", "auto", "auto|pipeline|sg",
              "rendezvous scheme for non-contiguous data: auto (chosen per message from the "
              "layouts), pipeline (segment pack/unpack), sg (scatter/gather read with get(), "
              "where the transport has it)");
UMP_CFG_ENUM_(core_cfg_dt_pack, "UMP_DT_PACK", "auto", "auto|direct|iov|bounce",
              "how a non-contiguous payload enters the transport: auto, direct (packed into the "
              "transport's buffer), iov (runs handed as iovecs), bounce (packed into a pooled "
              "buffer first)");
UMP_CFG(core_cfg_dt_sg_min, "UMP_DT_SG_MIN", UMP_CFG_SIZE, "0",
        "smallest non-contiguous message the auto scheme reads with scatter/gather get(); 0 = "
        "the transport's own single-copy threshold (UMP_SHM_CMA_MIN for shm)");
UMP_CFG(core_cfg_dt_sg_run, "UMP_DT_SG_MIN_RUN", UMP_CFG_SIZE, "0",
        "smallest average contiguous run (on both sides) for the auto scheme to use "
        "scatter/gather get(), below it runs are packed and pipelined; 0 = the transport's own "
        "single-copy threshold");
UMP_CFG(core_cfg_dt_iov_run, "UMP_DT_IOV_MIN_RUN", UMP_CFG_SIZE, "0",
        "smallest average run the auto pack mode hands to the transport as iovecs instead of "
        "packing it; 0 = 1k on socket transports (tcp: the kernel then copies straight from "
        "the runs), 16k on memory transports (shm)");
UMP_CFG(core_cfg_dt_direct_max, "UMP_DT_DIRECT_MAX", UMP_CFG_SIZE, "4k",
        "largest payload the auto pack mode packs in place in the transport's buffer; larger "
        "ones are packed into a cache-resident pooled buffer and handed over in one copy");
UMP_CFG(core_cfg_dt_direct_run, "UMP_DT_DIRECT_MIN_RUN", UMP_CFG_SIZE, "4k",
        "average run from which the auto pack mode packs any payload in place (each run is "
        "then one bulk copy into the transport's buffer)");
UMP_CFG(core_cfg_dt_seg, "UMP_DT_SEG_SIZE", UMP_CFG_SIZE, "0",
        "payload per DATA segment of a pipelined non-contiguous transfer; 0 = chosen from the "
        "message size");
UMP_CFG(core_cfg_dt_layout_max, "UMP_DT_LAYOUT_MAX", UMP_CFG_SIZE, "4096",
        "most runs per element of a layout sent to a receiver for scatter/gather (larger "
        "layouts are pipelined)");
UMP_CFG(core_cfg_dt_pool, "UMP_DT_POOL", UMP_CFG_SIZE, "4",
        "bounce buffers kept pooled for packing when a transport cannot pack in place");
UMP_CFG(core_cfg_dt_prepack, "UMP_DT_PREPACK", UMP_CFG_SIZE, "16k",
        "bytes of a pipelined non-contiguous send packed ahead while its RTS waits for the "
        "receiver's answer, at most its first segment (0 = none)");
UMP_CFG(core_cfg_dt_fail_cursor, "UMP_DT_FAIL_CURSOR", UMP_CFG_SIZE, "0",
        "testing: every Nth cursor allocation of a pipelined non-contiguous transfer fails as out "
        "of memory (0 = never)");

enum { SCHEME_AUTO, SCHEME_PIPELINE, SCHEME_SG };
enum { PACK_AUTO, PACK_DIRECT, PACK_IOV, PACK_BOUNCE };

#define LAY_SLOTS   64           /* layouts kept per peer, both sides */
#define IOV_STACK   128          /* iovec entries the iov pack mode builds on the stack */
#define BOUNCE_SIZE (256u << 10) /* the largest segment size of the transports */

/* --- bounce buffers --------------------------------------------------------
 * Pre-allocated segment buffers; when all are out, one is allocated and
 * freed again on return (the pool never grows past its size). With today's
 * transports a buffer comes back as soon as am_send returns (they copy or
 * send), so one is ever out at a time, but nothing relies on that. */
typedef struct bounce {
    struct bounce *next;
    size_t cap;
    char data[];
} bounce_t;

static struct {
    bounce_t *free;
    size_t nfree, keep;
    size_t out; /* buffers handed out and not returned */
} pool;

static bounce_t *bounce_get(size_t n)
{
    bounce_t *b = pool.free;
    if (b && b->cap >= n) {
        pool.free = b->next;
        pool.nfree--;
        pool.out++;
        return b;
    }
    /* One size fits every segment of today's transports, so a pooled
     * buffer is never too small; only the bytes used get touched. */
    size_t cap = UMP_MAX(n, BOUNCE_SIZE);
    b = malloc(sizeof(*b) + cap);
    if (b) {
        b->cap = cap;
        pool.out++;
    }
    return b;
}

static void bounce_put(bounce_t *b)
{
    pool.out--;
    if (pool.nfree < pool.keep && b->cap == BOUNCE_SIZE) {
        b->next = pool.free;
        pool.free = b;
        pool.nfree++;
    } else {
        free(b); /* trimmed: the pool keeps at most `keep` */
    }
}

/* What r->cur points to: the stream cursor, and the bytes a sender packed
 * ahead of its CTS (stream offsets [0, pre_len)). */
typedef struct {
    ump_dt_cursor_t c; /* first: r->cur points here */
    bounce_t *pre;
    size_t pre_len;
} xcur_t;

void ump_core_dt_init(void)
{
    pool.keep = core_cfg_dt_pool.v.sz;
    ump_freelist_init(&ump_core.cur_fl, sizeof(xcur_t), 8);
}

void ump_core_dt_fini(void)
{
    while (pool.free) {
        bounce_t *b = pool.free;
        pool.free = b->next;
        free(b);
    }
    pool.nfree = 0;
    for (int p = 0; ump_core.peers && p < ump_core.npeers; p++) {
        ump_peer_t *pe = &ump_core.peers[p];
        if (pe->lay_rx)
            for (int i = 0; i < LAY_SLOTS; i++)
                if (pe->lay_rx[i]) ump_core_dt_lay_unref(pe->lay_rx[i]);
        if (pe->wlay_rx)
            for (int i = 0; i < LAY_SLOTS; i++)
                if (pe->wlay_rx[i]) ump_core_dt_lay_unref(pe->wlay_rx[i]);
        free(pe->lay_rx);
        free(pe->lay_sent);
        free(pe->wlay_rx);
        free(pe->wlay_sent);
        pe->lay_rx = NULL;
        pe->lay_sent = NULL;
        pe->wlay_rx = NULL;
        pe->wlay_sent = NULL;
    }
    ump_freelist_destroy(&ump_core.cur_fl);
}

int ump_core_dt_cursor(struct ump_request *r)
{
    static size_t calls;
    if (UMP_UNLIKELY(core_cfg_dt_fail_cursor.v.sz) && ++calls % core_cfg_dt_fail_cursor.v.sz == 0)
        return UMP_ERR_NO_MEMORY; /* injected, to test the failure paths */
    xcur_t *x = (xcur_t *)r->cur;
    if (x && x->pre) return UMP_OK; /* a sender that packed ahead: the cursor is past that */
    if (!x) {
        x = ump_freelist_get(&ump_core.cur_fl);
        if (!x) return UMP_ERR_NO_MEMORY;
        x->pre = NULL;
        x->pre_len = 0;
        r->cur = &x->c;
    }
    return ump_dt_cursor_init(r->cur, r->buf, r->count, r->dt, 0);
}

void ump_core_dt_cursor_put(struct ump_request *r)
{
    xcur_t *x = (xcur_t *)r->cur;
    if (x->pre) bounce_put(x->pre);
    ump_freelist_put(&ump_core.cur_fl, x);
    r->cur = NULL;
}

void ump_core_dt_prepack(ump_xp_t *xp, struct ump_request *r)
{
    /* The receiver answers an RTS after a one-way trip at best: packing
     * the first segments meanwhile takes the sender's packing of them off
     * the critical path (the DATA then leave like contiguous ones). Only
     * while fewer than all but one of the pool's buffers are out (one stays
     * for streaming): a burst of sends holds at most the pool. */
    /* At most the first segment: the receiver unpacks it while we pack the
     * next (measured on shm, 32 KiB of 256-byte runs: 16 KiB ahead 2.2 us,
     * none 2.4 us, all 32 KiB 2.5 us; 128 KiB: 16 KiB ahead within 5%). */
    size_t n =
        UMP_MIN(UMP_MIN(core_cfg_dt_prepack.v.sz, ump_core_dt_seg(xp, r->len, true)), r->len);
    if (!n || r->cur || pool.out + 1 >= pool.keep || core_cfg_dt_scheme.v.e == SCHEME_SG) return;
    /* Oversubscribed, the receiver answers only when it next gets a core:
     * the packing it would hide is no longer on the critical path, and a
     * burst of sends (alltoall) would pack a first segment for each, one
     * copy more for the caches (measured: 8 ranks on 2 cores, struct
     * alltoall 5-25% faster without). */
    if (ump_core.oversubscribed && !core_cfg_dt_prepack.from_env) return;
    /* A receiver that may read the data itself, or have us write them,
     * would waste the packing. */
    int rndv = ump_core_rndv_forced();
    if (rndv == UMP_RNDV_READ || rndv == UMP_RNDV_WRITE) return;
    if (xp->caps.rma_get && xp->caps.get_min <= r->len && core_cfg_dt_scheme.v.e != SCHEME_PIPELINE)
        return;
    xcur_t *x = ump_freelist_get(&ump_core.cur_fl);
    if (!x) return;
    x->pre = bounce_get(n);
    x->pre_len = n;
    r->cur = &x->c;
    if (!x->pre) {
        ump_core_dt_cursor_put(r);
        return;
    }
    if (ump_dt_cursor_init(r->cur, r->buf, r->count, r->dt, 0) != UMP_OK) {
        ump_core_dt_cursor_put(r);
        return;
    }
    ump_dt_cursor_pack(r->cur, x->pre->data, n);
    ump_core.xfer.copied_send[UMP_XFER_STREAM] += n;
}

const void *ump_core_dt_prepacked(struct ump_request *r, size_t off, size_t *n)
{
    xcur_t *x = (xcur_t *)r->cur;
    if (!x->pre) return NULL;
    if (off >= x->pre_len) {
        /* All sent: the buffer goes back now (the cursor is at pre_len). */
        bounce_put(x->pre);
        x->pre = NULL;
        return NULL;
    }
    *n = UMP_MIN(*n, x->pre_len - off);
    return x->pre->data + off;
}

/* True for transports where each AM costs system calls and the kernel
 * copies the payload (tcp, udp), as the transport's caps say. */
static bool costly_am(const ump_xp_t *xp)
{
    return xp->caps.am_cost == UMP_XP_AM_SYSCALL;
}

size_t ump_core_dt_seg(ump_xp_t *xp, size_t len, bool dt)
{
    size_t cap = xp->caps.seg_size;
    if (!dt) return cap;
    if (core_cfg_dt_seg.v.sz) return UMP_MIN(core_cfg_dt_seg.v.sz, xp->caps.max_am - 64);
    /* Packing and unpacking run on two cores at once only when there are
     * several segments: at least four, each big enough that the per-AM
     * cost stays small, and never more than the transport's (measured on
     * shm: 8-64 KiB segments within 10% of each other from 32 KiB to
     * 1 MiB messages, the transport's 32 KiB best above 128 KiB). */
    size_t seg = UMP_ALIGN_UP(len / 4, 1024);
    /* An AM costs more on some transports than on others: on a socket
     * transport (system calls per AM) segments are never below half its
     * own segment size (tcp, 128 KiB of 1 KiB runs: 43 us in
     * four segments, 37 us in two, 35 us in one, contiguous 32.5 us). On a
     * memory transport (shm) an AM is a few stores, so even small
     * rendezvous messages get four segments (16 KiB of 128-byte runs with
     * a 16 KiB stride: 4 KiB segments 15-19% faster than one 16 KiB
     * segment; 8 or 16 KiB segments for 32 KiB messages differ by 3%). */
    size_t floor = costly_am(xp) ? UMP_MAX(cap / 2, (size_t)8192) : 4096;
    seg = UMP_MAX(seg, floor);
    return UMP_MIN(seg, cap);
}

/* --- sending a packed payload ----------------------------------------------- */

static void pack_cb(void *arg, void *dst, size_t len)
{
    ump_dt_cursor_pack(arg, dst, len);
}

static void rewind_to(ump_dt_cursor_t *c, size_t pos)
{
    ump_dt_cursor_init(c, c->buf, c->count, c->dt, pos);
}

int ump_core_dt_am_send(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                        ump_dt_cursor_t *cur, size_t n)
{
    const ump_xp_ops_t *ops = xp->ops;
    int mode = core_cfg_dt_pack.v.e;
    size_t start = cur->pos;
    int rc;

    if (mode == PACK_AUTO) {
        /* Long runs: let the transport gather them (tcp's writev reads them
         * with no copy of ours). Otherwise pack, in place when small; a
         * larger payload is packed into a pooled buffer that stays in this
         * core's cache and then copied in bulk. Measured on shm: packing
         * run by run into ring lines that the receiving core last held
         * pays an ownership transfer per line, and was 2-4x slower for
         * 16-32 KiB segments than packing privately and copying once
         * (a bulk copy moves whole lines without reading them first);
         * from 4 KiB runs on, each run is such a bulk copy and packing in
         * place wins (1 MiB of 8 KiB runs: 23 us in place, 30 us through
         * the pooled buffer). Up to 4 KiB the few lines are worth packing
         * in place whatever the runs (128 runs of 16 or 32 bytes with a
         * 16 KiB stride: 3-5% faster than through the pooled buffer, 8 KiB
         * no better). */
        size_t avg = cur->dt->avg_blk;
        size_t runs = avg ? n / avg + 2 : SIZE_MAX;
        size_t iov_run = core_cfg_dt_iov_run.v.sz;
        /* A socket transport copies anyway (tcp: the kernel copies from
         * the iovecs), so our packing is one copy too many: hand it runs
         * from 1 KiB (tcp, 512 KiB of 4 KiB runs: 6% faster than packing
         * into its send queue; 1 KiB runs even). A memory transport takes
         * long runs only (each iovec costs the shm ring a bounds check and
         * a copy call, the same as packing them). */
        if (!iov_run) iov_run = costly_am(xp) ? 1024 : 16384;
        if (avg >= iov_run && runs <= UMP_MIN(xp->caps.max_iov, IOV_STACK))
            mode = PACK_IOV;
        else if ((n <= core_cfg_dt_direct_max.v.sz || avg >= core_cfg_dt_direct_run.v.sz) &&
                 ops->am_send_pack)
            mode = PACK_DIRECT;
        else
            mode = PACK_BOUNCE;
    }
    if (mode == PACK_DIRECT && !ops->am_send_pack) mode = PACK_BOUNCE;
    /* The copies we make (packing), for UMP_STATS. */
    uint64_t *copied =
        &ump_core.xfer.copied_send[am_id == UMP_AM_DATA ? UMP_XFER_STREAM : UMP_XFER_EAGER];

    if (mode == PACK_DIRECT) {
        rc = ops->am_send_pack(xp, peer, am_id, hdr, hlen, n, pack_cb, cur);
        if (rc == UMP_OK) *copied += n;
        return rc;
    }

    if (mode == PACK_IOV) {
        struct iovec iov[IOV_STACK];
        int max = (int)UMP_MIN(xp->caps.max_iov, (size_t)IOV_STACK), niov = 0;
        if (ump_dt_cursor_iov(cur, n, iov, max, &niov) == n) {
            rc = ops->am_send(xp, peer, am_id, hdr, hlen, iov, niov);
            if (rc != UMP_OK) rewind_to(cur, start);
            return rc;
        }
        rewind_to(cur, start); /* more runs than entries: pack this one */
    }

    bounce_t *b = bounce_get(n);
    if (!b) return UMP_ERR_NO_RESOURCE;
    ump_dt_cursor_pack(cur, b->data, n);
    struct iovec v = {b->data, n};
    rc = ops->am_send(xp, peer, am_id, hdr, hlen, &v, n ? 1 : 0);
    bounce_put(b);
    if (rc != UMP_OK) rewind_to(cur, start);
    if (rc == UMP_OK) *copied += n;
    return rc;
}

/* --- layouts on the wire ---------------------------------------------------- */

static unsigned slot_of(uint64_t id)
{
    return (unsigned)(id % LAY_SLOTS);
}

int ump_core_dt_send_rts(ump_xp_t *xp, int peer, const ump_hdr_rts_t *h, struct ump_request *r)
{
    ump_dt_t dt = r->dt;
    ump_peer_t *p = &ump_core.peers[peer];
    ump_rts_dt_t ext = {.dtid = dt->uid, .count = r->count, .extent = ump_dt_extent(dt)};
    size_t nruns = 0;
    const struct iovec *flat = NULL;
    bool known = false;

    /* A layout helps only a receiver that can read our memory and that may
     * choose to: our own runs already rule scatter/gather out when they
     * are shorter than the auto threshold. */
    int scheme = core_cfg_dt_scheme.v.e;
    int rndv = ump_core_rndv_forced();
    size_t min_len = core_cfg_dt_sg_min.v.sz ? core_cfg_dt_sg_min.v.sz : xp->caps.get_min;
    size_t min_run = core_cfg_dt_sg_run.v.sz ? core_cfg_dt_sg_run.v.sz : xp->caps.get_min;
    bool useful = rndv == UMP_RNDV_READ || scheme == SCHEME_SG ||
                  (scheme == SCHEME_AUTO && dt->avg_blk >= min_run && r->len >= min_len);
    if (rndv == UMP_RNDV_STREAM || rndv == UMP_RNDV_WRITE) useful = false;
    /* Over a transport that needs registered memory the receiver can read
     * only what we registered: a forced read registers the span of our
     * blocks (when close enough) and sends its key; otherwise such
     * transports write into (auto) or stream from a non-contiguous send. */
    if (xp->caps.mr_required && useful &&
        (rndv != UMP_RNDV_READ || ump_core_mr_reg(xp, r, r->len) != UMP_OK))
        useful = false;
    if (xp->caps.rma_get && useful) {
        unsigned s = slot_of(dt->uid);
        known = dt->uid && p->lay_sent && p->lay_sent[s] == dt->uid;
        if (!known) flat = ump_dt_flat(dt, core_cfg_dt_layout_max.v.sz, &nruns);
        if (flat && !nruns) flat = NULL;
    }
    char buf[sizeof(ump_hdr_rts_t) + sizeof(ump_rts_dt_t)];
    memcpy(buf, h, sizeof(*h));
    /* The key trailer the transport may need: ours when registered. */
    char key[sizeof(ump_rts_key_t) + UMP_XP_RKEY_MAX];
    size_t klen = sizeof(ump_rts_key_t);
    memset(key, 0, sizeof(ump_rts_key_t));
    if (r->mr && (flat || known)) klen = ump_core_rts_key_pack(r->mr, key);
    struct iovec v[3];
    int nv = 1, k = xp->caps.mr_required ? 1 : 0;
    if (flat) {
        ext.nruns = (uint32_t)nruns;
        ext.flags = UMP_RTS_DT_LAYOUT;
        /* struct iovec and ump_riov_t are both two 64-bit words here. */
        _Static_assert(sizeof(struct iovec) == sizeof(ump_riov_t), "run entry layout");
        v[k + 1] = (struct iovec){(void *)flat, nruns * sizeof(ump_riov_t)};
        nv = 2;
        if (sizeof(buf) + k * klen + v[k + 1].iov_len > xp->caps.max_am) {
            /* too big to travel: stream */
            nv = 1;
            ext.nruns = 0;
            ext.flags = 0;
            flat = NULL;
        }
    } else if (!known) {
        ext.dtid = 0; /* nothing for the receiver to look up */
    }
    if (!flat && !known) klen = sizeof(ump_rts_key_t); /* nothing to read: no key */
    memcpy(buf + sizeof(*h), &ext, sizeof(ext));
    v[k] = (struct iovec){buf + sizeof(*h), sizeof(ext)};
    if (k) v[0] = (struct iovec){key, klen};
    int rc = xp->ops->am_send(xp, peer, UMP_AM_RTS, buf, sizeof(*h), v, nv + k);
    if (rc == UMP_OK && flat && dt->uid) {
        if (!p->lay_sent) p->lay_sent = calloc(LAY_SLOTS, sizeof(uint64_t));
        if (p->lay_sent) p->lay_sent[slot_of(dt->uid)] = dt->uid;
    }
    return rc;
}

void ump_core_dt_lay_unref(ump_rlay_t *lay)
{
    if (lay && --lay->refs == 0) free(lay);
}

ump_rlay_t *ump_core_dt_rts_layout(int peer, const void *payload, size_t plen)
{
    return ump_core_dt_lay_parse(peer, &ump_core.peers[peer].lay_rx, payload, plen);
}

bool ump_core_dt_lay_known(uint64_t *const *tab, uint64_t uid)
{
    return uid && *tab && (*tab)[slot_of(uid)] == uid;
}

void ump_core_dt_lay_mark(uint64_t **tab, uint64_t uid)
{
    if (!uid) return;
    if (!*tab) *tab = calloc(LAY_SLOTS, sizeof(uint64_t));
    if (*tab) (*tab)[slot_of(uid)] = uid;
}

ump_rlay_t *ump_core_dt_lay_parse(int peer, ump_rlay_t ***tab, const void *payload, size_t plen)
{
    ump_rts_dt_t ext;
    if (plen < sizeof(ext)) return NULL;
    memcpy(&ext, payload, sizeof(ext));
    unsigned s = slot_of(ext.dtid);
    if (!(ext.flags & UMP_RTS_DT_LAYOUT)) {
        /* Named by id only: a layout we kept, or nothing (then the message
         * is streamed; the peer's cache may be ahead of ours). */
        ump_rlay_t *l = ext.dtid && *tab ? (*tab)[s] : NULL;
        if (!l || l->dtid != ext.dtid) return NULL;
        l->refs++;
        return l;
    }
    size_t bytes = (size_t)ext.nruns * sizeof(ump_riov_t);
    if (!ext.nruns || plen < sizeof(ext) + bytes) {
        ump_error("protocol: a layout from rank %d is short: dropped", peer);
        return NULL;
    }
    ump_rlay_t *l = malloc(sizeof(*l) + bytes);
    if (!l) return NULL;
    l->refs = 1;
    l->dtid = ext.dtid;
    l->extent = ext.extent;
    l->nruns = ext.nruns;
    memcpy(l->run, (const char *)payload + sizeof(ext), bytes);
    l->size = 0;
    for (uint32_t i = 0; i < l->nruns; i++)
        l->size += l->run[i].len;
    l->avg_run = l->size / l->nruns;
    if (ext.dtid) {
        if (!*tab) *tab = calloc(LAY_SLOTS, sizeof(**tab));
        if (*tab) {
            ump_core_dt_lay_unref((*tab)[s]);
            (*tab)[s] = l;
            l->refs++;
        }
    }
    return l;
}

/* --- scatter/gather with get() and put() (sg.c moves the bytes) ------------- */

static bool want_sg(ump_xp_t *xp, const ump_rlay_t *lay, const ump_rts_dt_t *ext,
                    struct ump_request *r, size_t take)
{
    int scheme = core_cfg_dt_scheme.v.e;
    int rndv = ump_core_rndv_forced();
    if (rndv == UMP_RNDV_STREAM) return false;
    if (ext && !lay) return false; /* the sender's layout is unknown here */
    if (rndv == UMP_RNDV_READ) return true;
    if (scheme == SCHEME_PIPELINE) return false;
    if (scheme == SCHEME_SG) return true;
    /* Each run is read like a contiguous message of its length: by default
     * the transport's measured crossover for those applies to the runs. */
    size_t min_len = core_cfg_dt_sg_min.v.sz ? core_cfg_dt_sg_min.v.sz : xp->caps.get_min;
    size_t min_run = core_cfg_dt_sg_run.v.sz ? core_cfg_dt_sg_run.v.sz : xp->caps.get_min;
    size_t s_run = lay ? lay->avg_run : take;
    size_t r_run = r->dt ? r->dt->avg_blk : take;
    return take >= min_len && UMP_MIN(s_run, r_run) >= min_run;
}

size_t ump_core_dt_layout_max(void)
{
    return core_cfg_dt_layout_max.v.sz;
}

size_t ump_core_dt_min_run(const ump_xp_t *xp)
{
    return core_cfg_dt_sg_run.v.sz ? core_cfg_dt_sg_run.v.sz : xp->caps.get_min;
}

bool ump_core_dt_pipeline_forced(void)
{
    return core_cfg_dt_scheme.v.e == SCHEME_PIPELINE;
}

int ump_core_dt_get(ump_xp_t *xp, int src, struct ump_request *r, uint64_t addr,
                    const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey)
{
    if (!xp->caps.rma_get || !xp->ops->get || !want_sg(xp, lay, ext, r, take))
        return UMP_ERR_UNSUPPORTED;
    return ump_core_sg_rma(xp, src, r, addr, ext, lay, take, rkey, false);
}

int ump_core_dt_put(ump_xp_t *xp, int dst, struct ump_request *r, uint64_t addr,
                    const ump_rts_dt_t *ext, const ump_rlay_t *lay, size_t take, const void *rkey)
{
    if (!xp->caps.rma_put || !xp->ops->put) return UMP_ERR_UNSUPPORTED;
    return ump_core_sg_rma(xp, dst, r, addr, ext, lay, take, rkey, true);
}
