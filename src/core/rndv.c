/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous scheme choice, memory registration and the copy counters.
 *
 * When an RTS meets its receive, the receiver knows both layouts (the RTS
 * says whether the sender's data are one range) and picks, per message,
 * like MPICH's `auto`:
 *
 *   read    the receiver reads the sender's buffer with get() and answers
 *           FIN (rma.c): chosen when the sender's data are contiguous, so
 *           only the receiver has a layout to follow (it scatters the read
 *           into its runs: P-RRS);
 *   write   the receiver answers CTSW with its buffer (key, and its layout
 *           when not contiguous) and the sender writes with put(), then
 *           WFIN (rput.c): chosen when only the sender is non-contiguous
 *           (it gathers its runs into one write: RWG-UP);
 *   stream  CTS, and the sender pipelines DATA segments through the
 *           transport's buffers (proto.c, dtx.c): when both sides are
 *           non-contiguous (or the transport has neither get nor put).
 *
 * UMP_RNDV_SCHEME forces one: read and write then also take messages
 * below the transport's single-copy threshold, and a forced write into a
 * non-contiguous receive writes into the receiver's runs (Multi-W). A
 * scheme the pair's transport cannot run falls back to streaming, and so
 * does any failure before data moved, so the choice is only ever about
 * speed.
 *
 * Read or stream, measured: where a transport cannot say in advance
 * whether its get() beats streaming through its buffers (shm: one copy by
 * process_vm_readv on the receiver's core against two copies overlapped on
 * both cores; which wins depends on the machine, by 2x either way), it
 * sets caps.get_measure and the receiver times both on contiguous
 * messages, per power-of-two size class, in blocks: UMP_RNDV_BLOCK
 * consecutive messages of one scheme, begun only when no measured receive
 * is under way; the first message meets the caches the other scheme left
 * and is not timed. Messages that run one at a time (a ping-pong) are
 * timed each from its choice to its data in place, so the work between
 * them does not count; when they overlap (a window of receives) the block
 * is timed from its second choice to its last message's data in place,
 * which is what the scheme costs in that pattern. Per byte either way.
 * While a block's messages are under way, further messages of the class
 * take its scheme untimed. With UMP_RNDV_BLOCKS blocks of each, the class
 * keeps the faster; after UMP_RNDV_LEARN messages without them, the one
 * scheme it timed, or streaming when it timed neither (never drained).
 * Each class is timed again after UMP_RNDV_RETIME messages, so a machine
 * whose speeds change (a VM moved between cores) is followed. With
 * UMP_RNDV_DRIFT set (off by default), once a class is timed, the kept
 * scheme's messages that run alone are watched, timed like a block's, in
 * windows of UMP_RNDV_WATCH (doubled at each retiming, so two alternating
 * patterns cannot keep the class learning); when the least cost in a
 * window is above UMP_RNDV_DRIFT times the figure that chose the scheme
 * and above the other scheme's figure, it becomes the kept scheme's
 * figure and the other scheme is timed again at once (a program whose
 * pattern changed). It was built for reads that crawled in one collective
 * and not in another; the cause was the distance between the buffers
 * (caps.get_skew, rma.c), and with that handled it no longer paid
 * (docs/design.md). UMP_STATS prints the timings.
 *
 * Registration: every buffer the core hands to a transport that needs
 * registered memory goes through ump_core_mr_reg (one place to put a
 * registration cache behind). A non-contiguous buffer is registered as
 * one region from its first to its last byte when that span is at most
 * UMP_RNDV_REG_SPREAD times its data ("optimistic group registration":
 * one registration instead of one per block); a sparser one is streamed.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/core.h"

UMP_CFG_ENUM_(core_cfg_rndv_scheme, "UMP_RNDV_SCHEME", "auto", "auto|read|write|stream",
              "rendezvous scheme: auto (per message: read when the sender's data are contiguous, "
              "write when only the sender's are not, streamed when neither side's are), read "
              "(the receiver reads with get()), write (the sender writes with put()), stream "
              "(DATA segments through the transport's buffers); a scheme the transport cannot "
              "run streams");
UMP_CFG(core_cfg_rndv_spread, "UMP_RNDV_REG_SPREAD", UMP_CFG_SIZE, "4",
        "a non-contiguous buffer is registered as one region for RDMA when its span is at most "
        "this many times its data bytes (optimistic group registration); sparser buffers are "
        "streamed over transports that need registered memory (0: never)");
UMP_CFG(core_cfg_rndv_drift, "UMP_RNDV_DRIFT", UMP_CFG_DOUBLE, "0",
        "where the core times reading against streaming (shm), a size class is timed again "
        "when the scheme it kept costs, at least over a window of messages that run alone, "
        "more than this many times the figure it was kept for and more than the other scheme's "
        "figure (the pattern changed); "
        "0: only every 1024 messages");
UMP_CFG(core_cfg_rndv_max_ops, "UMP_RNDV_MAX_OPS", UMP_CFG_SIZE, "256",
        "most get() or put() operations one non-contiguous rendezvous may take (runs divided "
        "by the transport's iovec limit); larger layouts are streamed");

int ump_core_rndv_forced(void)
{
    return core_cfg_rndv_scheme.v.e;
}

size_t ump_core_rndv_max_ops(void)
{
    return core_cfg_rndv_max_ops.v.sz;
}

int ump_core_rndv_choose(ump_xp_t *xp, const struct ump_request *r, bool sender_contig, size_t take)
{
    bool can_read = xp->caps.rma_get && xp->ops->get;
    bool can_write = xp->caps.rma_put && xp->ops->put;
    switch (core_cfg_rndv_scheme.v.e) {
    case UMP_RNDV_READ:
        return can_read ? UMP_RNDV_READ : UMP_RNDV_STREAM;
    case UMP_RNDV_WRITE:
        return can_write ? UMP_RNDV_WRITE : UMP_RNDV_STREAM;
    case UMP_RNDV_STREAM:
        return UMP_RNDV_STREAM;
    default:
        break;
    }
    /* Auto. A contiguous sender: read (rma.c and dtx.c apply the
     * transport's threshold and stream below it). */
    if (sender_contig) return can_read ? UMP_RNDV_READ : UMP_RNDV_STREAM;
    /* Only the sender packs: let it gather into our one range. Its runs
     * are checked by the sender, which streams when they are too short. */
    if (!r->dt && can_write && take >= xp->caps.get_min && !ump_core_dt_pipeline_forced())
        return UMP_RNDV_WRITE;
    /* Both non-contiguous: the pipeline, or a scatter/gather read where
     * the transport reads without registration and the layouts are worth
     * it (dtx.c decides). */
    return can_read ? UMP_RNDV_READ : UMP_RNDV_STREAM;
}

#define UMP_RNDV_BLOCKS 2    /* timed blocks per scheme */
#define UMP_RNDV_BLOCK  6    /* messages per block, the first untimed */
#define UMP_RNDV_LEARN  128  /* messages a class may take to time its blocks */
#define UMP_RNDV_RETIME 1024 /* messages after which a class is timed again */
#define UMP_RNDV_CLASS0 13   /* the first class: up to 16 KiB */
#define UMP_RNDV_WATCH  4    /* kept-scheme messages watched before drift counts */

/* r->timed: every measured receive has T_ON; one timed in a block also
 * T_SAMPLE and the block's number (T_GEN bits). */
enum { T_ON = 1 << 15, T_SAMPLE = 1 << 14, T_GEN_SHIFT = 8, T_GEN = 0x3f, T_SCHEME = 1 };

/* Index of xp in ump_core.xps and the class of `take` bytes in it, as
 * (transport * UMP_RNDV_CLASSES + class); -1 for a transport not there. */
static int rndv_class(const ump_xp_t *xp, size_t take)
{
    int c = 0;
    for (size_t s = take >> UMP_RNDV_CLASS0; s > 1 && c < UMP_RNDV_CLASSES - 1; s >>= 1)
        c++;
    for (int i = 0; i < ump_core.nxps && i < UMP_RNDV_XPS; i++)
        if (ump_core.xps[i] == xp) return i * UMP_RNDV_CLASSES + c;
    return -1;
}

static ump_rndv_class_t *rndv_times(int ci)
{
    return &ump_core.rndv_times[ci / UMP_RNDV_CLASSES].cls[ci % UMP_RNDV_CLASSES];
}

/* Forget the class's timings (completions of its blocks under way are
 * then stale: gen); how often it was retimed for drift is kept. */
static void rndv_retime(ump_rndv_class_t *c)
{
    *c = (ump_rndv_class_t){.msgs = 1, .gen = c->gen + 1, .drifts = c->drifts};
}

/* A watched message of the kept scheme s ended. The watched are taken in
 * windows of `need`; the least per-byte cost of a window is what the
 * scheme costs now (one slow message, its process descheduled, cannot
 * move it). When a full window's least is well above the figure the
 * scheme was kept for and above the other scheme's, it becomes the kept
 * scheme's figure and only the other is timed again; otherwise the next
 * window begins. */
static void rndv_watched(ump_rndv_class_t *c, int s, bool done, size_t bytes)
{
    c->watching = false;
    if (!done || !bytes || ump_core.rndv_begun != c->w_begun)
        return; /* it failed, or another measured receive overlapped it */
    float x = (float)(ump_time_ns() - c->w_t0) / (float)bytes;
    c->watch = c->watched && c->watch < x ? c->watch : x;
    c->watched++;
    unsigned need = (unsigned)UMP_RNDV_WATCH << (c->drifts < 7 ? c->drifts : 7);
    if (c->watched < need) return;
    if (!(c->watch > core_cfg_rndv_drift.v.d * c->best[s]) || !(c->watch > c->best[!s])) {
        c->watched = 0; /* no drift: a new window */
        return;
    }
    ump_debug(
        "rendezvous %s: at least %.3f ns/byte over the last messages, timed %.3f (%s %.3f): %s "
        "timed again",
        s ? "stream" : "read", (double)c->watch, (double)c->best[s], s ? "read" : "stream",
        (double)c->best[!s], s ? "read" : "stream");
    float now = c->watch;
    if (c->drifts < UINT8_MAX) c->drifts++;
    rndv_retime(c);
    c->best[s] = now;
    c->got[s] = c->tries[s] = UMP_RNDV_BLOCKS;
}

enum { RNDV_INDICES = UMP_RNDV_CLASSES * UMP_RNDV_XPS };
_Static_assert(RNDV_INDICES <= 128, "a class index fits r->timed's 7 bits");

bool ump_core_rndv_measure(ump_xp_t *xp, struct ump_request *r, size_t take)
{
    int ci = rndv_class(xp, take);
    if (ci < 0) return false;
    ump_rndv_class_t *c = rndv_times(ci);
    if (++c->msgs >= UMP_RNDV_RETIME) rndv_retime(c);
    unsigned flags = T_ON;
    int s;
    if (c->left || c->pending) {
        /* A block is being chosen, or its messages are under way: its
         * scheme (timed while choices are left). */
        s = c->cur;
        if (c->left) {
            c->left--;
            if (c->left < UMP_RNDV_BLOCK - 1) {
                uint64_t now = ump_time_ns();
                if (c->left == UMP_RNDV_BLOCK - 2) c->t0 = now;
                if (ump_core.rndv_begun != ump_core.rndv_ended) c->overlap = true;
                c->msg_t0 = now;
                flags |= T_SAMPLE;
                c->pending++;
            }
        }
    } else if ((c->got[0] < UMP_RNDV_BLOCKS || c->got[1] < UMP_RNDV_BLOCKS) &&
               c->msgs <= UMP_RNDV_LEARN && ump_core.rndv_begun == ump_core.rndv_ended) {
        /* Nothing under way: a new block, of the scheme with fewer (read
         * first); its first message runs untimed. */
        s = c->got[1] < c->got[0] || (c->got[1] == c->got[0] && c->tries[1] < c->tries[0]);
        c->cur = (uint8_t)s;
        c->tries[s]++;
        c->left = UMP_RNDV_BLOCK - 1;
        c->bytes = 0;
        c->busy = 0;
        c->spoiled = false;
        c->overlap = false;
        c->gen++;
    } else if (c->best[0] && c->best[1]) {
        s = c->best[1] < c->best[0];
        if (core_cfg_rndv_drift.v.d > 0 && !c->watching &&
            ump_core.rndv_begun == ump_core.rndv_ended) {
            /* Alone, and drift is looked for: watched (rndv_watched). */
            c->watching = true;
            c->w_begun = ump_core.rndv_begun + 1;
            c->w_t0 = ump_time_ns();
            flags |= T_SAMPLE;
        }
    } else if (c->best[0] || c->best[1]) {
        s = !c->best[0]; /* the one timed so far, until the other is */
    } else {
        s = 1; /* never timed: the pipeline */
    }
    r->timed = (uint16_t)(flags | (unsigned)(c->gen & T_GEN) << T_GEN_SHIFT | (unsigned)ci << 1 |
                          (unsigned)s);
    ump_core.rndv_begun++;
    return s == 0;
}

void ump_core_rndv_timed(struct ump_request *r, bool done)
{
    unsigned v = r->timed;
    r->timed = 0;
    ump_core.rndv_ended++;
    if (!(v & T_SAMPLE)) return;
    ump_rndv_class_t *c = rndv_times((int)((v >> 1) & 0x7f));
    if (((v >> T_GEN_SHIFT) & T_GEN) != (c->gen & T_GEN))
        return; /* of a block before the class was timed again */
    if (c->watching && !c->left && !c->pending) {
        rndv_watched(c, (int)(v & T_SCHEME), done, r->expected);
        return;
    }
    if (!c->pending) return;
    c->pending--;
    if (!done) c->spoiled = true; /* a failed transfer: the block times nothing */
    c->bytes += r->expected;
    uint64_t now = ump_time_ns();
    if (!c->overlap) c->busy += now - c->msg_t0; /* it ran alone */
    if (c->left || c->pending || c->spoiled || !c->bytes) return;
    /* The block's last message: its messages' own times, or the span from
     * its second choice to now where they overlapped; per byte. */
    int s = c->cur;
    float per_byte = (float)(c->overlap ? now - c->t0 : c->busy) / (float)c->bytes;
    c->got[s]++;
    if (!c->best[s] || per_byte < c->best[s]) c->best[s] = per_byte;
}

size_t ump_core_rma_min(const ump_xp_t *xp)
{
    int s = core_cfg_rndv_scheme.v.e;
    return s == UMP_RNDV_READ || s == UMP_RNDV_WRITE ? 1 : xp->caps.get_min;
}

int ump_core_mr_reg(ump_xp_t *xp, struct ump_request *r, size_t len)
{
    if (!xp->caps.mr_required || r->mr) return UMP_OK;
    if (!xp->ops->mem_reg || !len) return UMP_ERR_UNSUPPORTED;
    char *addr = r->buf;
    size_t span = len;
    if (r->dt) {
        /* One region over every block of count elements, when they lie
         * close enough that pinning the gaps costs little. */
        ump_dt_t dt = r->dt;
        ptrdiff_t ext = ump_dt_extent(dt);
        size_t n = r->count;
        size_t aext = (size_t)(ext < 0 ? -ext : ext);
        if (!n || (aext && n - 1 > (SIZE_MAX / 2) / aext)) return UMP_ERR_UNSUPPORTED;
        ptrdiff_t lo = dt->true_lb, hi = dt->true_ub;
        if (ext > 0) hi += (ptrdiff_t)(n - 1) * ext;
        if (ext < 0) lo += (ptrdiff_t)(n - 1) * ext;
        span = (size_t)(hi - lo);
        size_t spread = core_cfg_rndv_spread.v.sz;
        if (!spread || span / spread > r->len) {
            ump_debug("a %zu-byte non-contiguous buffer spans %zu bytes (UMP_RNDV_REG_SPREAD "
                      "%zu): not registered, streamed",
                      r->len, span, core_cfg_rndv_spread.v.sz);
            return UMP_ERR_UNSUPPORTED;
        }
        addr += lo;
    }
    int rc = ump_mem_reg(xp, addr, span, &r->mr); /* through the registration cache */
    if (rc != UMP_OK) {
        r->mr = NULL;
        ump_debug("registering %zu bytes failed (%s): streamed instead", span, ump_strerror(rc));
    }
    return rc;
}

void ump_core_stats_print(void)
{
    static const char *const name[UMP_XFER_N] = {"eager", "read", "write", "stream"};
    const ump_core_stats_t *s = &ump_core.xfer;
    for (int i = 0; i < UMP_XFER_N; i++)
        fprintf(stderr,
                "ump stats rank %d core %s: messages=%llu bytes=%llu copied_send=%llu "
                "copied_recv=%llu\n",
                ump_core.rank, name[i], (unsigned long long)s->msgs[i],
                (unsigned long long)s->bytes[i], (unsigned long long)s->copied_send[i],
                (unsigned long long)s->copied_recv[i]);
}

void ump_core_rndv_stats_print(void)
{
    for (int i = 0; i < ump_core.nxps && i < UMP_RNDV_XPS; i++) {
        for (int k = 0; k < UMP_RNDV_CLASSES; k++) {
            const ump_rndv_class_t *c = &ump_core.rndv_times[i].cls[k];
            if (!c->tries[0] && !c->tries[1]) continue;
            size_t lo = k ? (size_t)1 << (UMP_RNDV_CLASS0 + k) : 0;
            fprintf(
                stderr,
                "ump stats rank %d core %s rendezvous from %zu bytes: read %.3f ns/byte "
                "(%u blocks timed of %u), stream %.3f ns/byte (%u of %u), %u messages since "
                "timed, %u watched alone at least %.3f ns/byte, timed again %u times for drift\n",
                ump_core.rank, ump_core.xps[i]->ops->name, lo, (double)c->best[0], c->got[0],
                c->tries[0], (double)c->best[1], c->got[1], c->tries[1], c->msgs, c->watched,
                (double)c->watch, c->drifts);
        }
    }
}
