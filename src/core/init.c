/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up and shut-down: the runtime, the transports, the choice of one
 * transport per peer, and the wait policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/core.h"

ump_core_t ump_core = {.epfd = -1, .wake_fd = -1};

UMP_CFG(cfg_transports, "UMP_TRANSPORTS", UMP_CFG_STRING, "shm,tcp",
        "transports ump may use, comma-separated, in order of preference (self is always used "
        "for a rank's own messages)");
UMP_CFG_ENUM_(cfg_wait, "UMP_WAIT", "auto", "spin|block|auto",
              "how blocking calls wait: spin, block (spin briefly then sleep), or auto (block "
              "when this node has more ranks than cores)");
UMP_CFG(cfg_spin_us, "UMP_WAIT_SPIN_US", UMP_CFG_INT, "50",
        "microseconds a blocking call polls before it sleeps (block mode)");
UMP_CFG(cfg_credits, "UMP_CREDITS", UMP_CFG_SIZE, "2m",
        "eager bytes a sender may have unmatched at one receiver; past it messages go by "
        "rendezvous, so a flood of unmatched sends cannot fill the receiver's memory (default: "
        "2m per peer up to 32m in all, so less per peer from 18 ranks on, at least 512k)");

/* Unset, the credits a receiver gives each peer: a window of 64 sends of
 * 16 KiB (1 MiB and its headers) fits in CREDITS_PEER, so it goes eagerly
 * instead of about a quarter by rendezvous (over tcp;ofi_rxm, 64 sends of
 * 16 KiB both ways: 0.96-1.03 GB/s with 512 KiB, 1.12-1.23 with 2 MiB; over
 * tcp, far placement, 64 KiB both ways 1.44-1.58 -> 1.92-2.11 GB/s). What a
 * receiver may be asked to hold stays within CREDITS_ALL until the peers'
 * share falls to CREDITS_MIN. */
#define CREDITS_PEER ((int64_t)2 << 20)
#define CREDITS_ALL  ((int64_t)32 << 20)
#define CREDITS_MIN  ((int64_t)512 << 10)

UMP_CFG(cfg_credit_wait_us, "UMP_CREDIT_WAIT_US", UMP_CFG_INT, "200",
        "microseconds a sender short of credits for a small eager message keeps progressing "
        "for the receiver's CREDIT before it sends a rendezvous instead (0: one look only; "
        "none when the node is oversubscribed)");

static bool allowed(const ump_xp_ops_t *ops)
{
    if (ops->process_local) return true;
    const char *name = ops->name;
    const char *list = cfg_transports.v.s;
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

static void warn_unknown_transports(void)
{
    const ump_xp_ops_t *const *reg = ump_xp_registry();
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", cfg_transports.v.s);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        bool found = false;
        for (int i = 0; reg[i]; i++)
            found |= !strcmp(reg[i]->name, tok);
        if (!found)
            ump_warn("UMP_TRANSPORTS names '%s', which this build does not have (ump_info lists "
                     "the built transports)",
                     tok);
    }
}

static int open_transports(void)
{
    const ump_xp_ops_t *const *reg = ump_xp_registry();
    ump_xp_params_t params = {.rt = ump_core.rt,
                              .am_handler = ump_core_am_handler,
                              .peer_failed = ump_core_peer_failed,
                              .arg = NULL};
    warn_unknown_transports();
    for (int i = 0; reg[i]; i++) {
        if (!allowed(reg[i])) continue;
        if (ump_core.nxps == (int)UMP_ARRAY_SIZE(ump_core.xps)) break;
        ump_xp_t *xp;
        int rc = reg[i]->open(&params, &xp);
        if (rc == UMP_ERR_UNSUPPORTED) {
            ump_info("transport %s is not usable here; going on without it", reg[i]->name);
            continue;
        }
        if (rc != UMP_OK) {
            ump_error("transport %s failed to open: %s", reg[i]->name, ump_strerror(rc));
            return rc;
        }
        ump_core.xps[ump_core.nxps++] = xp;
    }
    return UMP_OK;
}

/* Picks one transport per peer: a process-local one for our own rank,
 * otherwise the first allowed transport (in registry order) that reaches it. */
void ump_core_peer_init(ump_peer_t *p)
{
    TAILQ_INIT(&p->ctrl);
    TAILQ_INIT(&p->match);
    p->credits = ump_core.credits_init;
}

static void choose_transports(void)
{
    for (int peer = 0; peer < ump_core.size; peer++) {
        ump_peer_t *p = &ump_core.peers[peer];
        ump_core_peer_init(p);
        for (int i = 0; i < ump_core.nxps && !p->xp; i++) {
            ump_xp_t *xp = ump_core.xps[i];
            bool local = xp->ops->process_local;
            if (local != (peer == ump_core.rank)) continue;
            if (local || xp->ops->reaches(xp, peer)) p->xp = xp;
        }
        if (!p->xp)
            ump_debug("no transport reaches rank %d", peer);
        else
            ump_trace("rank %d over %s", peer, p->xp->ops->name);
    }
}

/* Takes the transports no peer uses out of progress, so it never polls
 * them (a tcp endpoint would cost a system call on every pass of a shm-only
 * job). The choice is symmetric (both ends of a pair pick alike), so no rank
 * of the job will ever reach us through them. One that can reach processes
 * of other jobs (add_peer) stays open, idle, until such a process is met
 * (ump_peer_add); the others are closed. */
static void drop_unused_transports(void)
{
    int kept = 0;
    for (int i = 0; i < ump_core.nxps; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        bool used = false;
        for (int peer = 0; peer < ump_core.size && !used; peer++)
            used = ump_core.peers[peer].xp == xp;
        if (used) {
            ump_core.xps[kept++] = xp;
        } else if (xp->ops->add_peer && !xp->ops->process_local) {
            ump_debug("transport %s reaches no rank of the job; kept idle for processes of other "
                      "jobs",
                      xp->ops->name);
            ump_core.idle_xps[ump_core.nidle++] = xp;
        } else {
            ump_debug("transport %s reaches no peer here; closing it", xp->ops->name);
            xp->ops->close(xp);
        }
    }
    ump_core.nxps = kept;
}

static void setup_waiting(const ump_rt_info_t *info)
{
    int cpus = ump_num_cpus();
    ump_core.oversubscribed = info->local_size > cpus;
    switch (cfg_wait.v.e) {
    case UMP_WAIT_SPIN:
        ump_core.block = false;
        break;
    case UMP_WAIT_BLOCK:
        ump_core.block = true;
        break;
    default:
        ump_core.block = ump_core.oversubscribed;
        break;
    }
    ump_core.spin_ns = (uint64_t)(cfg_spin_us.v.i > 0 ? cfg_spin_us.v.i : 0) * 1000;
    ump_core.credit_wait_ns =
        ump_core.oversubscribed ? 0 : (uint64_t)UMP_MAX(cfg_credit_wait_us.v.i, 0) * 1000;
    if (ump_core.oversubscribed && !cfg_spin_us.from_env)
        ump_core.spin_ns = 5000; /* others want this core: give it up quickly */
    ump_core.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ump_core.epfd < 0) {
        ump_warn("epoll_create1: %m; waiting will poll");
        return;
    }
    if (ump_core.thread_level == UMP_THREAD_MULTIPLE) {
        ump_core.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
        if (ump_core.wake_fd >= 0 &&
            epoll_ctl(ump_core.epfd, EPOLL_CTL_ADD, ump_core.wake_fd, &ev) != 0)
            ump_warn("epoll_ctl on the core's wake-up fd: %m");
    }
    for (int i = 0; i < ump_core.nxps; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        int fd = xp->ops->wait_fd(xp);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (fd >= 0 && epoll_ctl(ump_core.epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
            ump_warn("epoll_ctl on the %s transport's wait fd: %m", xp->ops->name);
    }
}

int ump_init(int *argc, char ***argv, int thread_level, int *provided)
{
    int rc;
    if (ump_core.initialized) return UMP_ERR_ALREADY_INIT;
    ump_cfg_load(false);
    /* Recursive: progress hooks run under the lock and post operations
     * (ump_isend, ...) that take it again. */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&ump_core.lock, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_cond_init(&ump_core.cond, NULL);
    TAILQ_INIT(&ump_core.active);
    TAILQ_INIT(&ump_core.complq);
    TAILQ_INIT(&ump_core.pending_peers);
    ump_freelist_init(&ump_core.req_fl, sizeof(struct ump_request), 128);
    ump_freelist_init(&ump_core.op_fl, sizeof(ump_op_t), 128);
    ump_core_dt_init();

    rc = ump_rt_init(&ump_core.rt);
    if (rc != UMP_OK) goto err;
    const ump_rt_info_t *info = ump_rt_info(ump_core.rt);
    ump_core.rank = info->rank;
    ump_core.size = info->size;
    ump_log_set_rank(info->rank);
    ump_core.credits_init = (int64_t)cfg_credits.v.sz;
    if (!cfg_credits.from_env) {
        int64_t share = CREDITS_ALL / (info->size > 1 ? info->size - 1 : 1);
        ump_core.credits_init = UMP_MAX(CREDITS_MIN, UMP_MIN(CREDITS_PEER, share));
    }

    /* Room for the processes of other jobs met later, so that a peer never
     * moves (the pending list links peers); untouched room costs no memory. */
    ump_core.npeers = ump_core.size;
    ump_core.peers = calloc((size_t)ump_core.size + UMP_CORE_MAX_MET, sizeof(ump_peer_t));
    if (!ump_core.peers) {
        rc = UMP_ERR_NO_MEMORY;
        goto err_rt;
    }
    rc = open_transports();
    if (rc != UMP_OK) goto err_xps;
    rc = ump_rt_fence(ump_core.rt);
    if (rc != UMP_OK) goto err_xps;
    for (int i = 0; i < ump_core.nxps; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        if (xp->ops->wireup && (rc = xp->ops->wireup(xp)) != UMP_OK) {
            ump_error("transport %s failed to connect: %s", xp->ops->name, ump_strerror(rc));
            goto err_xps;
        }
        /* Every matching AM must fit in the credit window, or it would wait
         * for credits forever. */
        size_t need = 4 * (xp->caps.eager_limit + sizeof(ump_hdr_rts_t));
        if ((size_t)ump_core.credits_init < need) {
            ump_warn("UMP_CREDITS=%lld is too small for %s's eager limit; using %zu",
                     (long long)ump_core.credits_init, xp->ops->name, need);
            ump_core.credits_init = (int64_t)need;
        }
        /* Without am_send_zc no payload is large enough for it: one
         * comparison then decides on the send path. */
        if (!xp->ops->am_send_zc) xp->caps.zc_min = SIZE_MAX;
    }
    choose_transports();
    drop_unused_transports();
    ump_core.thread_level = UMP_MIN(UMP_MAX(thread_level, UMP_THREAD_SINGLE), UMP_THREAD_MULTIPLE);
    setup_waiting(info);
    if (provided) *provided = ump_core.thread_level;
    ump_core.initialized = true;
    ump_debug("initialized: rank %d of %d over %d transport(s), %s waits", ump_core.rank,
              ump_core.size, ump_core.nxps, ump_core.block ? "blocking" : "spinning");
    return UMP_OK;

err_xps:
    while (ump_core.nxps > 0) {
        ump_xp_t *xp = ump_core.xps[--ump_core.nxps];
        xp->ops->close(xp);
    }
    free(ump_core.peers);
    ump_core.peers = NULL;
err_rt:
    ump_rt_fini(ump_core.rt);
    ump_core.rt = NULL;
err:
    ump_core_dt_fini();
    ump_freelist_destroy(&ump_core.req_fl);
    ump_freelist_destroy(&ump_core.op_fl);
    ump_error("ump_init failed: %s", ump_strerror(rc));
    return rc;
}

static void finalize_idle(void *arg)
{
    ump_core_progress();
}

static bool quiet(void *arg)
{
    if (ump_core_sends_pending()) return false;
    /* ump.h promises that outstanding sends finish before finalize returns:
     * a rendezvous send needs our progress until the receiver has the data. */
    struct ump_request *r;
    TAILQ_FOREACH(r, &ump_core.active, active)
    {
        if (r->kind == UMP_REQ_SEND) return false;
    }
    for (int i = 0; i < ump_core.nxps; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        if (xp->ops->flush(xp) != UMP_OK) return false;
    }
    return true;
}

int ump_finalize(void)
{
    if (!ump_core.initialized || ump_core.finalized) return UMP_ERR_NOT_INIT;
    ump_core_lock();
    struct ump_request *r;
    TAILQ_FOREACH(r, &ump_core.active, active)
    {
        if (r->kind == UMP_REQ_RECV) {
            ump_warn("ump_finalize: receives are still outstanding; they will not complete");
            break;
        }
    }
    /* Our queued messages must leave before the peers close their ends. */
    ump_core_wait_until(quiet, NULL);
    /* Progress goes on while the others arrive: over a provider that
     * acknowledges a send or serves a read only when its owner polls, a
     * slower rank's last messages need ours. Once every rank is quiet and
     * fenced, none needs another. */
    int rc = ump_rt_fence_idle(ump_core.rt, finalize_idle, NULL);
    if (rc != UMP_OK) ump_warn("ump_finalize: final fence failed: %s", ump_strerror(rc));
    /* Cached registrations go before the transports that made them. */
    ump_mem_fini(ump_core.rank);
    /* The counters outlive the transports (MPI_T reads them after
     * MPI_Finalize): keep what the closing ones counted. */
    for (int i = 0; i < ump_core.nxps; i++)
        if (ump_core.xps[i]->ops->stats)
            ump_core.xps[i]->ops->stats(ump_core.xps[i], &ump_core.xp_retired);
    ump_cfg_t *stats = ump_cfg_find("UMP_STATS");
    if (stats && stats->v.b) ump_core_rndv_stats_print();
    for (int i = ump_core.nxps - 1; i >= 0; i--)
        ump_core.xps[i]->ops->close(ump_core.xps[i]);
    ump_core.nxps = 0;
    while (ump_core.nidle > 0) {
        ump_xp_t *xp = ump_core.idle_xps[--ump_core.nidle];
        xp->ops->close(xp);
    }
    if (ump_core.epfd >= 0) close(ump_core.epfd);
    ump_core.epfd = -1;
    if (ump_core.wake_fd >= 0) close(ump_core.wake_fd);
    ump_core.wake_fd = -1;
    ump_rt_fini(ump_core.rt);
    ump_core.rt = NULL;
    ump_core_ctxq_destroy_all();
    ump_core_dt_fini();
    if (stats && stats->v.b) ump_core_stats_print();
    free(ump_core.peers);
    ump_core.peers = NULL;
    ump_freelist_destroy(&ump_core.req_fl);
    ump_freelist_destroy(&ump_core.op_fl);
    for (size_t i = 0; i < UMP_ARRAY_SIZE(ump_core.unexp_fl); i++)
        ump_freelist_destroy(&ump_core.unexp_fl[i]);
    ump_core.finalized = true;
    ump_core_unlock();
    return rc;
}

int ump_initialized(void)
{
    return ump_core.initialized;
}
int ump_finalized(void)
{
    return ump_core.finalized;
}
int ump_rank(void)
{
    return ump_core.initialized ? ump_core.rank : -1;
}
int ump_size(void)
{
    return ump_core.initialized ? ump_core.size : -1;
}

const char *ump_hostname(void)
{
    return ump_core.rt ? ump_rt_info(ump_core.rt)->hostname : "";
}

double ump_wtime(void)
{
    return (double)ump_time_ns() * 1e-9;
}

void ump_abort(int code, const char *msg)
{
    if (ump_core.rt) ump_rt_abort(ump_core.rt, code, msg);
    fprintf(stderr, "ump_abort (code %d): %s\n", code, msg ? msg : "");
    _exit(code ? code : 1);
}

int ump_query_thread(void)
{
    return ump_core.thread_level;
}
