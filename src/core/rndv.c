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
