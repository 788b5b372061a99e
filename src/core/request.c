/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests and completion: wait, test and their -all/-any forms, peek, and
 * the wait policy (spin, then sleep on the transports' wait fds).
 */
#include <errno.h>
#include <sched.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

void ump_core_req_complete(struct ump_request *r, int error)
{
    if (r->flags & UMP_RF_COMPLETE) return;
    /* A timed rendezvous that ends here failed before its data were in. */
    if (UMP_UNLIKELY(r->timed)) ump_core_rndv_timed(r, false);
    if (r->dt) ump_core_dt_release(r); /* nothing moves its data any more */
    if (r->mr) ump_core_mr_release(r);
    r->status.error = error;
    r->flags |= UMP_RF_COMPLETE;
    if (r->flags & UMP_RF_ACTIVE) {
        TAILQ_REMOVE(&ump_core.active, r, active);
        r->flags &= ~UMP_RF_ACTIVE;
    }
    TAILQ_INSERT_TAIL(&ump_core.complq, r, complq);
    r->flags |= UMP_RF_IN_COMPLQ;
    if (ump_core.cond_waiters) pthread_cond_broadcast(&ump_core.cond);
    /* MULTIPLE: the thread sleeping on the fds may be waiting for this very
     * request, completed by another thread's progress: wake it. */
    if (ump_core.sleeping && !ump_core.wake_sent && ump_core.wake_fd >= 0) {
        uint64_t one = 1;
        ump_core.wake_sent = true;
        if (write(ump_core.wake_fd, &one, sizeof(one)) < 0) ump_debug("core wake-up: %m");
    }
}

/* Hands the final status out and returns the request to its free list. */
static UMP_INLINE_PATH int release(ump_req_t *req, ump_status_t *st)
{
    struct ump_request *r = *req;
    int err = r->status.error;
    if (st) *st = r->status;
    if (r->flags & UMP_RF_IN_COMPLQ) TAILQ_REMOVE(&ump_core.complq, r, complq);
    ump_freelist_put(&ump_core.req_fl, r);
    ump_core.outstanding--;
    *req = UMP_REQ_NULL;
    return err;
}

static void empty_status(ump_status_t *st)
{
    if (st) {
        st->source = UMP_ANY_SOURCE;
        st->tag = UMP_ANY_TAG;
        st->error = UMP_OK;
        st->cancelled = 0;
        st->count = 0;
        st->msg_len = 0;
    }
}

/* With MULTIPLE, one thread at a time sleeps on the transports' fds; the
 * others sleep on a condition variable that is signalled when that thread
 * wakes and whenever a request completes, since the event a thread waits
 * for may be taken in by another thread's progress. */
static void wait_for_sleeper(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1000000; /* bounds the cost of a missed signal */
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    ump_core.cond_waiters++;
    pthread_cond_timedwait(&ump_core.cond, &ump_core.lock, &ts);
    ump_core.cond_waiters--;
}

/* Ends the sleep prepared by arm() in the first n transports. */
static void disarm(int n)
{
    for (int i = 0; i < n; i++)
        if (ump_core.xps[i]->ops->disarm) ump_core.xps[i]->ops->disarm(ump_core.xps[i]);
}

/* Sleeps until a transport has an event, or briefly when one cannot wake us. */
static void sleep_once(void)
{
    bool multiple = ump_core.thread_level == UMP_THREAD_MULTIPLE;
    if (multiple && ump_core.sleeping) {
        wait_for_sleeper();
        return;
    }
    bool poll_only = ump_core.blocked_sends > 0 || ump_core.epfd < 0;
    for (int i = 0; i < ump_core.nxps && !poll_only; i++) {
        ump_xp_t *xp = ump_core.xps[i];
        if (xp->ops->wait_fd(xp) < 0) {
            poll_only = true;
        } else if (xp->ops->arm(xp) == UMP_ERR_BUSY) {
            disarm(i + 1);
            return; /* work arrived while arming: progress instead */
        }
    }
    ump_core.sleeping = true;
    ump_core_unlock();
    if (poll_only) {
        /* A transport refused a send for lack of room and will not signal
         * when room appears: look again soon, without burning the core. */
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    } else {
        struct epoll_event ev[8];
        /* The timeout only bounds the cost of a missed wake-up. */
        (void)epoll_wait(ump_core.epfd, ev, 8, 100);
    }
    ump_core_lock();
    disarm(ump_core.nxps);
    ump_core.sleeping = false;
    if (ump_core.wake_sent) {
        uint64_t v;
        ump_core.wake_sent = false;
        if (read(ump_core.wake_fd, &v, sizeof(v)) < 0) ump_debug("core wake-up drain: %m");
    }
    if (multiple && ump_core.cond_waiters) pthread_cond_broadcast(&ump_core.cond);
}

void ump_core_wait_until(bool (*done)(void *), void *arg)
{
    uint64_t start = 0;
    unsigned iter = 0;
    for (;;) {
        ump_core_progress();
        if (done(arg)) return;
        if (!ump_core.block) {
            /* Spin policy: never sleep; let other threads at the lock. */
            if (ump_core.thread_level == UMP_THREAD_MULTIPLE) {
                ump_core_unlock();
                ump_cpu_relax();
                ump_core_lock();
            }
            /* A rank with a core to itself polls flat out: a pause per
             * pass delays noticing a message by half a pause on average. */
            continue;
        }
        if ((++iter & 15) == 0 || !start) {
            uint64_t now = ump_time_ns();
            if (!start) start = now;
            if (now - start >= ump_core.spin_ns) {
                sleep_once();
                continue;
            }
        }
        if (ump_core.oversubscribed) {
            ump_core_unlock();
            sched_yield();
            ump_core_lock();
        } else {
            ump_cpu_relax();
        }
    }
}

static bool req_done(void *arg)
{
    return ((struct ump_request *)arg)->flags & UMP_RF_COMPLETE;
}

int ump_wait(ump_req_t *req, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if (!req) return UMP_ERR_INVALID;
    if (*req == UMP_REQ_NULL) {
        empty_status(st);
        return UMP_OK;
    }
    ump_core_lock();
    /* One pass of progress first, here: the message is often there. */
    if (!((*req)->flags & UMP_RF_COMPLETE)) {
        ump_core_progress();
        if (!((*req)->flags & UMP_RF_COMPLETE)) ump_core_wait_until(req_done, *req);
    }
    int rc = release(req, st);
    ump_core_unlock();
    return rc;
}

int ump_test(ump_req_t *req, int *done, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if (!req || !done) return UMP_ERR_INVALID;
    if (*req == UMP_REQ_NULL) {
        *done = 1;
        empty_status(st);
        return UMP_OK;
    }
    ump_core_lock();
    if (!((*req)->flags & UMP_RF_COMPLETE)) ump_core_progress();
    int rc = UMP_OK;
    *done = ((*req)->flags & UMP_RF_COMPLETE) != 0;
    if (*done) rc = release(req, st);
    ump_core_unlock();
    return rc;
}

struct reqs {
    size_t n;
    ump_req_t *reqs;
};

static bool all_done(void *arg)
{
    struct reqs *a = arg;
    for (size_t i = 0; i < a->n; i++)
        if (a->reqs[i] && !(a->reqs[i]->flags & UMP_RF_COMPLETE)) return false;
    return true;
}

int ump_waitall(size_t n, ump_req_t *reqs, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if (n && !reqs) return UMP_ERR_INVALID;
    struct reqs a = {n, reqs};
    int first_err = UMP_OK;
    ump_core_lock();
    ump_core_wait_until(all_done, &a);
    for (size_t i = 0; i < n; i++) {
        ump_status_t *s = st ? &st[i] : NULL;
        if (!reqs[i]) {
            empty_status(s);
            continue;
        }
        int rc = release(&reqs[i], s);
        if (rc != UMP_OK && first_err == UMP_OK) first_err = rc;
    }
    ump_core_unlock();
    return first_err;
}

static int find_done(size_t n, ump_req_t *reqs, bool *any_active)
{
    *any_active = false;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        *any_active = true;
        if (reqs[i]->flags & UMP_RF_COMPLETE) return (int)i;
    }
    return -1;
}

static bool any_done(void *arg)
{
    struct reqs *a = arg;
    bool active;
    return find_done(a->n, a->reqs, &active) >= 0 || !active;
}

/* Releases reqs[i] when one completed (i >= 0), else reports an empty status. */
static int finish_any(ump_req_t *reqs, int i, int *index, ump_status_t *st)
{
    *index = i;
    if (i >= 0) return release(&reqs[i], st);
    empty_status(st);
    return UMP_OK;
}

int ump_waitany(size_t n, ump_req_t *reqs, int *index, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if ((n && !reqs) || !index) return UMP_ERR_INVALID;
    struct reqs a = {n, reqs};
    bool active;
    ump_core_lock();
    ump_core_wait_until(any_done, &a);
    int i = find_done(n, reqs, &active);
    int rc = finish_any(reqs, i, index, st);
    ump_core_unlock();
    return rc;
}

int ump_testany(size_t n, ump_req_t *reqs, int *index, int *done, ump_status_t *st)
{
    UMP_CORE_CHECK_INIT();
    if ((n && !reqs) || !index || !done) return UMP_ERR_INVALID;
    bool active;
    ump_core_lock();
    int i = find_done(n, reqs, &active);
    if (i < 0 && active) {
        ump_core_progress();
        i = find_done(n, reqs, &active);
    }
    *done = i >= 0 || !active;
    int rc = finish_any(reqs, i, index, st);
    ump_core_unlock();
    return rc;
}

static bool complq_nonempty(void *arg)
{
    return !TAILQ_EMPTY(&ump_core.complq);
}

int ump_peek(ump_req_t *req)
{
    UMP_CORE_CHECK_INIT();
    if (!req) return UMP_ERR_INVALID;
    ump_core_lock();
    if (TAILQ_EMPTY(&ump_core.complq) && TAILQ_EMPTY(&ump_core.active)) {
        ump_core_unlock();
        return UMP_ERR_INVALID; /* nothing outstanding could ever complete */
    }
    ump_core_wait_until(complq_nonempty, NULL);
    struct ump_request *r = TAILQ_FIRST(&ump_core.complq);
    TAILQ_REMOVE(&ump_core.complq, r, complq);
    r->flags &= ~UMP_RF_IN_COMPLQ;
    r->flags |= UMP_RF_PEEKED;
    *req = r;
    ump_core_unlock();
    return UMP_OK;
}

int ump_cancel(ump_req_t *req)
{
    UMP_CORE_CHECK_INIT();
    if (!req || !*req) return UMP_ERR_REQUEST;
    struct ump_request *r = *req;
    if (r->kind == UMP_REQ_SEND) return UMP_ERR_UNSUPPORTED;
    ump_core_lock();
    if ((r->flags & UMP_RF_POSTED) && !(r->flags & UMP_RF_COMPLETE)) {
        ump_ctxq_t *q = ump_core_ctxq(r->ctx, false);
        TAILQ_REMOVE(&q->posted, r, link);
        r->flags &= ~UMP_RF_POSTED;
        r->status.cancelled = 1;
        r->status.source = UMP_ANY_SOURCE;
        r->status.tag = UMP_ANY_TAG;
        ump_core_req_complete(r, UMP_OK);
    }
    ump_core_unlock();
    return UMP_OK;
}

int ump_progress(void)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int n = ump_core_progress();
    ump_core_unlock();
    return n;
}
