/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel_xp.c - the engine under a transport's ops table (rel.h): the
 * capabilities such a transport gives the core, the engine's settings, and
 * the upper side that hands AMs and dead peers to the core.
 */
#include "util/util.h"
#include "xport/rel/rel.h"

/* Room kept in max_am for the core's protocol header of an AM. */
#define REL_AM_HDR_ROOM 1024

static void upper_deliver(void *arg, int peer, uint8_t am_id, const void *data, size_t len)
{
    ump_xp_t *xp = arg;
    xp->params.am_handler(xp->params.arg, xp, peer, am_id, data, len);
}

static void upper_peer_failed(void *arg, int peer, int status)
{
    ump_xp_t *xp = arg;
    if (xp->params.peer_failed) xp->params.peer_failed(xp->params.arg, xp, peer, status);
}

int ump_rel_xp_open(ump_xp_t *xp, int rank, int size, const ump_rel_lower_t *lower, size_t seg,
                    size_t eager, size_t max_iov, bool *stats, ump_rel_t **out)
{
    size_t room = lower->mtu - sizeof(ump_rel_hdr_t);
    if (!seg) seg = room >= 16384 ? room - REL_AM_HDR_ROOM : 64 * 1024;
    xp->caps = (ump_xp_caps_t){
        .reliable = true,
        .ordered = true,
        .am_cost = UMP_XP_AM_SYSCALL,
        .rma_get = false,
        .max_am = UMP_MAX(seg, eager) + REL_AM_HDR_ROOM,
        .max_iov = max_iov,
        .eager_limit = eager,
        .seg_size = seg,
        .get_min = SIZE_MAX,
    };
    ump_rel_config_t cfg;
    ump_rel_config_default(&cfg);
    cfg.max_am = xp->caps.max_am;
    *stats = cfg.stats;
    ump_rel_upper_t upper = {.arg = xp, .deliver = upper_deliver, .peer_failed = upper_peer_failed};
    return ump_rel_create(xp->ops->name, rank, size, &cfg, lower, &upper, out);
}
