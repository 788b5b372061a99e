/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Meeting other processes (ump.h, "meeting other processes"): the core's
 * face of the runtime's ports and name service. While a call waits for the
 * other side, this process's communication goes on (the runtime calls back
 * into progress), so the ranks that wait on this one are not stuck. And the
 * processes of other jobs a meeting introduces: their peer index and the
 * transport that reaches them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/core.h"

_Static_assert(UMP_PORT_NAME_MAX == UMP_RT_PORT_NAME_MAX, "one port name limit");

static void idle(void *arg)
{
    (void)arg;
    ump_progress();
}

int ump_port_open(char *name, size_t len)
{
    UMP_CORE_CHECK_INIT();
    if (!name) return UMP_ERR_INVALID;
    ump_core_lock();
    int rc = ump_rt_port_open(ump_core.rt, name, len);
    ump_core_unlock();
    return rc;
}

int ump_port_close(const char *name)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_port_close(ump_core.rt, name);
    ump_core_unlock();
    return rc;
}

int ump_port_accept(const char *name, const void *mine, size_t mlen, void **theirs, size_t *tlen)
{
    UMP_CORE_CHECK_INIT();
    if (!theirs || !tlen || (mlen && !mine)) return UMP_ERR_INVALID;
    return ump_rt_port_accept(ump_core.rt, name, mine, mlen, theirs, tlen, idle, NULL);
}

int ump_port_connect(const char *name, const void *mine, size_t mlen, void **theirs, size_t *tlen,
                     int timeout_s)
{
    UMP_CORE_CHECK_INIT();
    if (!theirs || !tlen || (mlen && !mine)) return UMP_ERR_INVALID;
    return ump_rt_port_connect(ump_core.rt, name, mine, mlen, theirs, tlen, timeout_s, idle, NULL);
}

int ump_join(int fd, const void *mine, size_t mlen, void **theirs, size_t *tlen)
{
    UMP_CORE_CHECK_INIT();
    if (fd < 0 || !theirs || !tlen || (mlen && !mine)) return UMP_ERR_INVALID;
    return ump_rt_join(ump_core.rt, fd, mine, mlen, theirs, tlen, idle, NULL);
}

int ump_name_publish(const char *service, const char *port)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_name_publish(ump_core.rt, service, port);
    ump_core_unlock();
    return rc;
}

int ump_name_unpublish(const char *service, const char *port)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_name_unpublish(ump_core.rt, service, port);
    ump_core_unlock();
    return rc;
}

int ump_name_lookup(const char *service, char *port, size_t len)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_name_lookup(ump_core.rt, service, port, len);
    ump_core_unlock();
    return rc;
}

const char *ump_job_id(void)
{
    return ump_core.rt ? ump_rt_info(ump_core.rt)->job_id : "";
}

_Static_assert(UMP_CARD_MAX == UMP_RT_CARD_MAX, "one card limit");

int ump_peer_card(void *buf, size_t len, size_t *out_len)
{
    UMP_CORE_CHECK_INIT();
    if (!buf || !out_len) return UMP_ERR_INVALID;
    ump_core_lock();
    int rc = ump_rt_card(ump_core.rt, buf, len, out_len);
    ump_core_unlock();
    return rc;
}

int ump_npeers(void)
{
    return ump_core.initialized ? ump_core.npeers : -1;
}

/* The first transport, busy or idle, that reaches the new peer; an idle one
 * joins progress (and the sleeping set) from now on. */
static ump_xp_t *reach(int peer)
{
    for (int i = 0; i < ump_core.nxps; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        if (!xp->ops->process_local && xp->ops->add_peer && xp->ops->add_peer(xp, peer) == UMP_OK)
            return xp;
    }
    for (int i = 0; i < ump_core.nidle; i++) {
        ump_xp_t *xp = ump_core.idle_xps[i];
        if (xp->ops->add_peer(xp, peer) != UMP_OK) continue;
        if (ump_core.nxps == (int)UMP_ARRAY_SIZE(ump_core.xps)) return NULL;
        ump_core.idle_xps[i] = ump_core.idle_xps[--ump_core.nidle];
        ump_core.xps[ump_core.nxps++] = xp;
        int fd = xp->ops->wait_fd(xp);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)(ump_core.nxps - 1)};
        if (fd >= 0 && ump_core.epfd >= 0 && epoll_ctl(ump_core.epfd, EPOLL_CTL_ADD, fd, &ev))
            ump_warn("epoll_ctl on the %s transport's wait fd: %m", xp->ops->name);
        ump_debug("transport %s is in use from now on (a process of another job)", xp->ops->name);
        return xp;
    }
    return NULL;
}

int ump_peer_add(const void *card, size_t len, int *peer)
{
    UMP_CORE_CHECK_INIT();
    if (!card || !peer) return UMP_ERR_INVALID;
    ump_core_lock();
    int idx, rc = UMP_OK;
    if (ump_core.npeers == ump_core.size + UMP_CORE_MAX_MET) {
        ump_error("ump_peer_add: this process has met %d processes of other jobs, the most it can "
                  "keep (rank %d)",
                  UMP_CORE_MAX_MET, ump_core.rank);
        rc = UMP_ERR_NO_RESOURCE;
        goto out;
    }
    rc = ump_rt_peer_add(ump_core.rt, card, len, &idx);
    if (rc != UMP_OK || idx < ump_core.npeers) goto out;
    /* A new process: the runtime numbers them in order. */
    ump_peer_t *p = &ump_core.peers[idx];
    ump_core_peer_init(p);
    ump_core.npeers = idx + 1;
    p->xp = reach(idx);
    if (!p->xp) {
        char job[17] = {0};
        int r = -1;
        ump_rt_peer_name(ump_core.rt, idx, job, &r);
        ump_error("ump_peer_add: no transport reaches rank %d of job %s (processes of other jobs "
                  "meet over tcp: let UMP_TRANSPORTS include it) (rank %d)",
                  r, job, ump_core.rank);
        rc = UMP_ERR_NO_TRANSPORT;
    } else {
        char job[17] = {0};
        int r = -1;
        ump_rt_peer_name(ump_core.rt, idx, job, &r);
        ump_debug("rank %d of job %s is peer %d, over %s", r, job, idx, p->xp->ops->name);
    }
out:
    if (rc == UMP_OK) *peer = idx;
    ump_core_unlock();
    return rc;
}
