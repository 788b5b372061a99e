/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The self transport: a rank's messages to itself. AMs are copied into a
 * FIFO and delivered by the next progress(); get() is a memcpy, so large
 * self-sends are one copy from the send buffer into the receive buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/queue.h>
#include <unistd.h>

#include "util/util.h"
#include "xport/xport.h"

#define SELF_MAX_AM (64 * 1024 + 64)

struct self_am {
    STAILQ_ENTRY(self_am) link;
    uint8_t am_id;
    size_t len;
    char data[];
};

typedef struct {
    ump_xp_t base;
    STAILQ_HEAD(, self_am) q;
    size_t queued;
    int efd; /* wakes a thread sleeping while another one sends to self */
    bool armed;
} self_xp_t;

static int self_open(const ump_xp_params_t *params, ump_xp_t **out)
{
    self_xp_t *s = calloc(1, sizeof(*s));
    if (!s) return UMP_ERR_NO_MEMORY;
    s->base.ops = &ump_xp_self_ops;
    s->base.params = *params;
    s->base.caps = (ump_xp_caps_t){
        .reliable = true,
        .ordered = true,
        .am_cost = UMP_XP_AM_MEMORY,
        .rma_get = true,
        .max_am = SELF_MAX_AM,
        .max_iov = 16,
        .eager_limit = 4096,
        .seg_size = 64 * 1024,
        .get_min = 0,
        .get_max_iov = SIZE_MAX,
    };
    STAILQ_INIT(&s->q);
    s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    *out = &s->base;
    return UMP_OK;
}

static void self_close(ump_xp_t *xp)
{
    self_xp_t *s = (self_xp_t *)xp;
    while (!STAILQ_EMPTY(&s->q)) {
        struct self_am *am = STAILQ_FIRST(&s->q);
        STAILQ_REMOVE_HEAD(&s->q, link);
        free(am);
    }
    if (s->efd >= 0) close(s->efd);
    free(s);
}

static bool self_reaches(ump_xp_t *xp, int peer)
{
    return peer == ump_rt_info(xp->params.rt)->rank;
}

static int self_am_send(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                        const struct iovec *iov, int iovcnt)
{
    self_xp_t *s = (self_xp_t *)xp;
    size_t len = hlen;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > SELF_MAX_AM) return UMP_ERR_INVALID;
    struct self_am *am = malloc(sizeof(*am) + len);
    if (!am) return UMP_ERR_NO_RESOURCE;
    am->am_id = am_id;
    am->len = len;
    memcpy(am->data, hdr, hlen);
    char *p = am->data + hlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    STAILQ_INSERT_TAIL(&s->q, am, link);
    s->queued++;
    xp->idle = false;
    if (s->armed && s->efd >= 0) {
        uint64_t one = 1;
        if (write(s->efd, &one, sizeof(one)) < 0) ump_debug("self transport wake-up: %m");
    }
    return UMP_OK;
}

static int self_get(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                    const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp)
{
    (void)lmr, (void)rkey, (void)comp; /* no registration; always done at once */
    /* Both lists describe our own memory: copy piece by piece. */
    int li = 0, ri = 0;
    size_t loff = 0, roff = 0;
    while (li < nlocal && ri < nremote) {
        size_t n = UMP_MIN(local[li].iov_len - loff, remote[ri].len - roff);
        memcpy((char *)local[li].iov_base + loff, (const char *)(uintptr_t)remote[ri].addr + roff,
               n);
        loff += n;
        roff += n;
        if (loff == local[li].iov_len) {
            li++;
            loff = 0;
        }
        if (roff == remote[ri].len) {
            ri++;
            roff = 0;
        }
    }
    return UMP_OK;
}

static int self_progress(ump_xp_t *xp)
{
    self_xp_t *s = (self_xp_t *)xp;
    /* Deliver only what was queued on entry: handlers may queue replies,
     * which wait for the next call. */
    size_t n = s->queued;
    for (size_t i = 0; i < n; i++) {
        struct self_am *am = STAILQ_FIRST(&s->q);
        STAILQ_REMOVE_HEAD(&s->q, link);
        s->queued--;
        xp->params.am_handler(xp->params.arg, xp, ump_rt_info(xp->params.rt)->rank, am->am_id,
                              am->data, am->len);
        free(am);
    }
    if (s->armed) {
        uint64_t v;
        s->armed = false;
        if (read(s->efd, &v, sizeof(v)) < 0) {
            /* EAGAIN: nobody woke us; nothing to clear. */
        }
    }
    /* Nothing queued (handlers' replies are) and nothing to clear: no
     * need to be called until a send or arm. */
    xp->idle = !s->queued;
    return (int)n;
}

static int self_arm(ump_xp_t *xp)
{
    self_xp_t *s = (self_xp_t *)xp;
    if (s->queued) return UMP_ERR_BUSY;
    s->armed = true;
    xp->idle = false; /* the next progress() reads the eventfd */
    return UMP_OK;
}

static int self_wait_fd(ump_xp_t *xp)
{
    return ((self_xp_t *)xp)->efd;
}

static int self_flush(ump_xp_t *xp)
{
    return UMP_OK;
}

const ump_xp_ops_t ump_xp_self_ops = {
    .name = "self",
    .process_local = true,
    .open = self_open,
    .wireup = NULL,
    .close = self_close,
    .reaches = self_reaches,
    .am_send = self_am_send,
    .get = self_get,
    .progress = self_progress,
    .arm = self_arm,
    .wait_fd = self_wait_fd,
    .flush = self_flush,
};
