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
 * messages, from its choice to the data in place, UMP_RNDV_TRIES of each
 * per power-of-two size class, alternating; then every message of the
 * class takes the faster (best sample per byte). Each class is timed
 * again after UMP_RNDV_RETIME messages, so a machine whose speeds change
 * (a VM moved between cores) is followed. UMP_STATS prints the timings.
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

#define UMP_RNDV_SAMPLES 3    /* quiet timed messages per scheme */
#define UMP_RNDV_BLOCK   4    /* consecutive choices of one scheme while timing */
#define UMP_RNDV_LEARN   64   /* messages a class may take to gather its samples */
#define UMP_RNDV_RETIME  1024 /* messages after which a class is timed again */
#define UMP_RNDV_CLASS0  13   /* the first class: up to 16 KiB */

/* r->timed: every measured receive has T_ON; a sample also T_SAMPLE, and
 * T_QUIET when no other measured receive was under way as it began. */
enum { T_ON = 1 << 15, T_SAMPLE = 1 << 14, T_QUIET = 1 << 13, T_SCHEME = 1 };

/* Index of xp in ump_core.xps and the class of `take` bytes in it, as
 * (transport * UMP_RNDV_CLASSES + class); -1 for a transport not there. */
static int rndv_class(const ump_xp_t *xp, size_t take)
{
    int c = 0;
    for (size_t s = take >> UMP_RNDV_CLASS0; s > 1 && c < UMP_RNDV_CLASSES - 1; s >>= 1)
        c++;
    for (int i = 0; i < ump_core.nxps && i < (int)UMP_ARRAY_SIZE(ump_core.rndv_times); i++)
        if (ump_core.xps[i] == xp) return i * UMP_RNDV_CLASSES + c;
    return -1;
}

static ump_rndv_class_t *rndv_times(int ci)
{
    return &ump_core.rndv_times[ci / UMP_RNDV_CLASSES].cls[ci % UMP_RNDV_CLASSES];
}

bool ump_core_rndv_measure(ump_xp_t *xp, struct ump_request *r, size_t take)
{
    int ci = rndv_class(xp, take);
    if (ci < 0) return false;
    ump_rndv_class_t *c = rndv_times(ci);
    if (++c->msgs >= UMP_RNDV_RETIME) *c = (ump_rndv_class_t){.msgs = 1};
    int s;
    unsigned flags = T_ON;
    if ((c->got[0] < UMP_RNDV_SAMPLES || c->got[1] < UMP_RNDV_SAMPLES) &&
        c->msgs <= UMP_RNDV_LEARN) {
        /* Blocks of one scheme, the one with fewer samples (read first);
         * the first of a block runs untimed: it meets the caches the
         * other scheme left. */
        if (!c->left) {
            c->cur = c->got[1] < c->got[0] || (c->got[1] == c->got[0] && c->tries[1] < c->tries[0]);
            c->left = UMP_RNDV_BLOCK;
        }
        s = c->cur;
        if (c->left-- != UMP_RNDV_BLOCK) flags |= T_SAMPLE;
        c->tries[s]++;
    } else if (c->best[0] && c->best[1]) {
        s = c->best[1] < c->best[0];
    } else {
        /* Never timed quietly (every message overlapped others): the
         * pipeline, which overlaps the two sides' copies. */
        s = 1;
    }
    if (ump_core.rndv_begun == ump_core.rndv_ended) flags |= T_QUIET;
    r->timed = (uint16_t)(flags | (unsigned)ci << 1 | (unsigned)s);
    r->seq = ++ump_core.rndv_begun;
    if ((flags & (T_SAMPLE | T_QUIET)) == (T_SAMPLE | T_QUIET)) ump_core.rndv_t0 = ump_time_ns();
    return s == 0;
}

void ump_core_rndv_timed(struct ump_request *r, bool done)
{
    unsigned v = r->timed;
    r->timed = 0;
    ump_core.rndv_ended++;
    /* A sample counts when it ran alone: nothing under way as it began,
     * nothing begun since (so rndv_t0 is still its own). */
    if (!done || !(v & T_SAMPLE) || !(v & T_QUIET) || r->seq != ump_core.rndv_begun ||
        !r->expected)
        return;
    ump_rndv_class_t *c = rndv_times((int)((v & (T_QUIET - 1)) >> 1));
    int s = v & T_SCHEME;
    float per_byte = (float)(ump_time_ns() - ump_core.rndv_t0) / (float)r->expected;
    if (c->got[s] < UINT8_MAX) c->got[s]++;
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
    for (int i = 0; i < ump_core.nxps && i < (int)UMP_ARRAY_SIZE(ump_core.rndv_times); i++) {
        for (int k = 0; k < UMP_RNDV_CLASSES; k++) {
            const ump_rndv_class_t *c = &ump_core.rndv_times[i].cls[k];
            if (!c->tries[0] && !c->tries[1]) continue;
            size_t lo = k ? (size_t)1 << (UMP_RNDV_CLASS0 + k) : 0;
            fprintf(stderr,
                    "ump stats rank %d core %s rendezvous from %zu bytes: read %.3f ns/byte "
                    "(%u of %u timed alone), stream %.3f ns/byte (%u of %u), %u messages since timed\n",
                    ump_core.rank, ump_core.xps[i]->ops->name, lo, (double)c->best[0],
                    c->got[0], c->tries[0], (double)c->best[1], c->got[1], c->tries[1], c->msgs);
        }
    }
}
