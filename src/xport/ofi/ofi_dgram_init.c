/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ofiud transport's setup (ofi_dgram.h): provider choice, fabric,
 * domain, completion queue with its wait fd, endpoints, the registered
 * buffer pool, the published names and the address vector; teardown.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "xport/ofi/ofi_dgram.h"

UMP_CFG(ud_provider, "UMP_OFIUD_PROVIDER", UMP_CFG_STRING, "",
        "libfabric provider of the ofiud transport, as fi_info names it (\"udp\", \"verbs\", "
        "\"efa\", ...); empty: the first that offers datagram endpoints (FI_EP_DGRAM)");
UMP_CFG(ud_domain, "UMP_OFIUD_DOMAIN", UMP_CFG_STRING, "",
        "libfabric domain (or fabric) of the ofiud transport, as fi_info names it (an interface "
        "such as \"lo\" or a network such as \"127.0.0.1/32\" for udp, an adapter such as "
        "\"mlx5_0\" for verbs); empty: the provider's first");
UMP_CFG(ud_stripes, "UMP_OFIUD_STRIPES", UMP_CFG_INT, "4",
        "datagram endpoints of the ofiud transport used in turn for sending (striping), 1..16");
UMP_CFG(ud_mtu, "UMP_OFIUD_MTU", UMP_CFG_SIZE, "0",
        "largest datagram the ofiud transport sends (0: the provider's max_msg_size, at most "
        "64k)");
UMP_CFG(ud_rx, "UMP_OFIUD_RX", UMP_CFG_INT, "256",
        "receive buffers the ofiud transport keeps posted (capped by the provider's queue)");
UMP_CFG(ud_tx, "UMP_OFIUD_TX", UMP_CFG_INT, "64",
        "send buffers of the ofiud transport for datagrams too large to inject");
UMP_CFG(ud_wait_fd, "UMP_OFIUD_WAIT_FD", UMP_CFG_BOOL, "on",
        "let a waiting rank sleep on the ofiud completion queue's fd where the provider gives "
        "one (off: waits poll the transport)");
UMP_CFG(ud_inject, "UMP_OFIUD_INJECT", UMP_CFG_BOOL, "on",
        "send datagrams no larger than the provider's inject size with fi_inject (off: every "
        "datagram goes from a registered send buffer)");
UMP_CFG(ud_eager_limit, "UMP_OFIUD_EAGER_LIMIT", UMP_CFG_SIZE, "64k",
        "largest message sent eagerly over the ofiud transport");
UMP_CFG(ud_seg_size, "UMP_OFIUD_SEG_SIZE", UMP_CFG_SIZE, "0",
        "payload per DATA message of a pipelined rendezvous over the ofiud transport (0: one "
        "datagram's worth when datagrams are large, else 64k)");

/* The mr_mode bits honoured: only local descriptors are ever used. */
#define UD_MR_MODES (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY)
/* A published name: u32 mtu, u8 count, then per endpoint u8 length and bytes. */
#define NAME_MAX_LEN 255

static struct fi_info *make_hints(const char *prov, const char *domain, bool source)
{
    struct fi_info *h = ump_ofi_lib.dupinfo(NULL);
    if (!h) return NULL;
    h->caps = FI_MSG | FI_SEND | FI_RECV | (source ? FI_SOURCE : 0);
    h->ep_attr->type = FI_EP_DGRAM;
    h->mode = FI_CONTEXT | FI_CONTEXT2 | FI_MSG_PREFIX;
    h->domain_attr->mr_mode = UD_MR_MODES;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (prov && *prov) h->fabric_attr->prov_name = strdup(prov);
    if (domain && *domain) h->domain_attr->name = strdup(domain);
    return h;
}

/* The provider's list, with source addressing if any entry offers it. */
static int get_list(const char *prov, const char *domain, struct fi_info **list)
{
    int ret = -FI_ENODATA;
    for (int source = 1; source >= 0; source--) {
        struct fi_info *hints = make_hints(prov, domain, source);
        if (!hints) return -FI_ENOMEM;
        ret = ump_ofi_lib.getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, list);
        ump_ofi_lib.freeinfo(hints);
        if (ret == 0 && *list) return 0;
        *list = NULL;
    }
    return ret ? ret : -FI_ENODATA;
}

static int open_cq(ofiud_xp_t *xp, size_t size)
{
    /* A wait fd lets a sleeping rank wake on a datagram; providers without
     * one are polled. */
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_FD, .size = size};
    int ret = ud_wait_fd.v.b ? fi_cq_open(xp->domain, &cq, &xp->cq, NULL) : -FI_ENOSYS;
    if (ret == 0 && fi_control(&xp->cq->fid, FI_GETWAIT, &xp->cq_fd) == 0 && xp->cq_fd >= 0)
        return UMP_OK;
    if (ret == 0) fi_close(&xp->cq->fid);
    xp->cq = NULL;
    xp->cq_fd = -1;
    cq.wait_obj = FI_WAIT_NONE;
    if ((ret = fi_cq_open(xp->domain, &cq, &xp->cq, NULL)) != 0)
        return ump_ofi_status("fi_cq_open", ret);
    ump_debug("ofiud: no wait fd (the provider has none, or UMP_OFIUD_WAIT_FD=off): a waiting rank "
              "polls");
    return UMP_OK;
}

static int open_endpoints(ofiud_xp_t *xp, struct fi_info *fi, int nep)
{
    int ret;
    if ((ret = ump_ofi_lib.fabric(fi->fabric_attr, &xp->fabric, NULL)) != 0)
        return ump_ofi_status("fi_fabric", ret);
    if ((ret = fi_domain(xp->fabric, fi, &xp->domain, NULL)) != 0)
        return ump_ofi_status("fi_domain", ret);
    int rc = open_cq(xp, (size_t)(xp->nrx + xp->ntx) * 2 + 64);
    if (rc) return rc;
    struct fi_av_attr av = {.type = FI_AV_TABLE, .count = (size_t)xp->size * (size_t)nep};
    if ((ret = fi_av_open(xp->domain, &av, &xp->av, NULL)) != 0)
        return ump_ofi_status("fi_av_open", ret);
    for (xp->nep = 0; xp->nep < nep;) {
        struct fid_ep *ep;
        if ((ret = fi_endpoint(xp->domain, fi, &ep, NULL)) != 0)
            return ump_ofi_status("fi_endpoint", ret);
        xp->ep[xp->nep] = ep;
        xp->nep++; /* closed by close_fids() from here on */
        if ((ret = fi_ep_bind(ep, &xp->av->fid, 0)) != 0)
            return ump_ofi_status("binding the address vector", ret);
        if ((ret = fi_ep_bind(ep, &xp->cq->fid, FI_TRANSMIT | FI_RECV)) != 0)
            return ump_ofi_status("binding the completion queue", ret);
        if ((ret = fi_enable(ep)) != 0) return ump_ofi_status("fi_enable", ret);
    }
    return UMP_OK;
}

static void close_fids(ofiud_xp_t *xp)
{
    for (int i = 0; i < xp->nep; i++)
        fi_close(&xp->ep[i]->fid);
    xp->nep = 0;
    if (xp->pool_mr) fi_close(&xp->pool_mr->fid);
    if (xp->av) fi_close(&xp->av->fid);
    if (xp->cq) fi_close(&xp->cq->fid);
    if (xp->domain) fi_close(&xp->domain->fid);
    if (xp->fabric) fi_close(&xp->fabric->fid);
    xp->pool_mr = NULL;
    xp->av = NULL;
    xp->cq = NULL;
    xp->domain = NULL;
    xp->fabric = NULL;
    xp->cq_fd = -1;
}

void ump_ofiud_post_recv(ofiud_xp_t *xp, ofiud_buf_t *b)
{
    ssize_t ret = fi_recv(xp->ep[0], b->mem, xp->rx_len, xp->desc, FI_ADDR_UNSPEC, &b->ctx);
    if (ret == 0) return;
    if (ret != -FI_EAGAIN) ump_debug("ofiud: fi_recv: %s", ump_ofi_strerror((int)-ret));
    b->next = xp->rx_unposted; /* posted again by the next progress() */
    xp->rx_unposted = b;
}

/* The pool: nrx receive buffers then ntx send buffers, registered once. */
static int open_pool(ofiud_xp_t *xp)
{
    /* A byte to spare where the provider allows it: a datagram that fills
     * it is longer than any peer sends, so one the provider truncated to
     * the buffer is told from a whole one. */
    xp->rx_len = xp->prefix + xp->mtu;
    if (xp->mtu < xp->info->ep_attr->max_msg_size) xp->rx_len++;
    xp->slot = UMP_ALIGN_UP(xp->rx_len, 64);
    size_t n = (size_t)(xp->nrx + xp->ntx);
    xp->pool = aligned_alloc(64, xp->slot * n);
    xp->bufs = calloc(n, sizeof(*xp->bufs));
    xp->scratch = aligned_alloc(64, xp->slot);
    if (!xp->pool || !xp->bufs || !xp->scratch) return UMP_ERR_NO_MEMORY;
    if (xp->info->domain_attr->mr_mode & FI_MR_LOCAL) {
        int ret = fi_mr_reg(xp->domain, xp->pool, xp->slot * n, FI_SEND | FI_RECV, 0, 1, 0,
                            &xp->pool_mr, NULL);
        if (ret != 0) {
            struct rlimit rl;
            bool limited = getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
            ump_error("ofiud: registering the %zu-byte buffer pool failed: %s%s", xp->slot * n,
                      ump_ofi_strerror(-ret),
                      limited ? "; if the locked-memory limit is too low, raise it (`ulimit -l "
                                "unlimited`, or memlock in the batch system's settings)"
                              : "");
            xp->pool_mr = NULL;
            return ret == -FI_ENOMEM ? UMP_ERR_NO_MEMORY : UMP_ERR_IO;
        }
        xp->desc = fi_mr_desc(xp->pool_mr);
    }
    for (size_t i = 0; i < n; i++)
        xp->bufs[i].mem = xp->pool + i * xp->slot;
    for (int i = xp->nrx + xp->ntx - 1; i >= xp->nrx; i--) {
        xp->bufs[i].next = xp->tx_free;
        xp->tx_free = &xp->bufs[i];
    }
    for (int i = 0; i < xp->nrx; i++)
        ump_ofiud_post_recv(xp, &xp->bufs[i]);
    return UMP_OK;
}

/* "ofiud.addr": our MTU and every endpoint's name. */
static int publish(ofiud_xp_t *xp)
{
    uint8_t val[UMP_RT_VAL_MAX];
    uint32_t mtu = htole32((uint32_t)xp->mtu);
    memcpy(val, &mtu, 4);
    val[4] = (uint8_t)xp->nep;
    size_t off = 5;
    for (int i = 0; i < xp->nep; i++) {
        size_t len = UMP_MIN((size_t)NAME_MAX_LEN, sizeof(val) - off - 1);
        int ret = fi_getname(&xp->ep[i]->fid, val + off + 1, &len);
        if (ret == -FI_ETOOSMALL) {
            ump_error("ofiud: the names of %d endpoints do not fit in %d bytes; lower "
                      "UMP_OFIUD_STRIPES",
                      xp->nep, UMP_RT_VAL_MAX);
            return UMP_ERR_UNSUPPORTED;
        }
        if (ret != 0) return ump_ofi_status("fi_getname", ret);
        val[off] = (uint8_t)len;
        off += 1 + len;
    }
    int rc = ump_rt_put(xp->rt, "ofiud.addr", val, off);
    if (rc) ump_error("ofiud: cannot publish the endpoint names: %s", ump_strerror(rc));
    return rc;
}

static int not_found(const char *prov, const char *domain, int ret)
{
    if (domain && *domain) {
        ump_error("ofiud: no datagram provider%s%s offers domain \"%s\" (UMP_OFIUD_DOMAIN) (%s); "
                  "`fi_info -t FI_EP_DGRAM` lists the domains",
                  prov && *prov ? " named " : "", prov && *prov ? prov : "", domain,
                  ump_ofi_strerror(-ret));
        return UMP_ERR_IO;
    }
    if (prov && *prov) {
        ump_error("ofiud: provider \"%s\" (UMP_OFIUD_PROVIDER) is not available here or offers "
                  "no datagram endpoint (FI_EP_DGRAM) (%s); `fi_info -t FI_EP_DGRAM` lists the "
                  "providers that do",
                  prov, ump_ofi_strerror(-ret));
        return UMP_ERR_IO;
    }
    ump_info("ofiud: no libfabric provider offers datagram endpoints (FI_EP_DGRAM) (%s)",
             ump_ofi_strerror(-ret));
    return UMP_ERR_UNSUPPORTED;
}

/* The reliability engine over the endpoints, and the capabilities it gives. */
static int open_rel(ofiud_xp_t *xp)
{
    ump_rel_lower_t lower = {.ctx = xp,
                             .mtu = xp->mtu - UMP_OFIUD_HDR,
                             .peer_open = ump_ofiud_peer_open,
                             .send = ump_ofiud_send,
                             .peer_name = ump_ofiud_peer_name};
    return ump_rel_xp_open(&xp->base, xp->rank, xp->size, &lower, ud_seg_size.v.sz,
                           ud_eager_limit.v.sz, UMP_OFIUD_MAX_IOV, &xp->stats, &xp->rel);
}

static int open_waiting(ofiud_xp_t *xp)
{
    if (xp->cq_fd < 0) return UMP_OK;
    xp->epfd = epoll_create1(EPOLL_CLOEXEC);
    xp->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (xp->epfd < 0 || xp->tfd < 0) {
        ump_error("ofiud: epoll/timerfd: %m");
        return UMP_ERR_IO;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = xp->cq_fd};
    struct epoll_event tev = {.events = EPOLLIN, .data.fd = xp->tfd};
    if (epoll_ctl(xp->epfd, EPOLL_CTL_ADD, xp->cq_fd, &ev) ||
        epoll_ctl(xp->epfd, EPOLL_CTL_ADD, xp->tfd, &tev)) {
        ump_error("ofiud: epoll_ctl: %m");
        return UMP_ERR_IO;
    }
    return UMP_OK;
}

int ump_ofiud_open(const ump_xp_params_t *params, ump_xp_t **out)
{
    ump_cfg_load(false);
    const ump_rt_info_t *info = ump_rt_info(params->rt);
    const char *prov = ud_provider.v.s;
    int rc = ump_ofi_lib_load();
    if (rc != UMP_OK) return rc;
    struct fi_info *list = NULL;
    const char *domain = ud_domain.v.s;
    int ret = get_list(prov, domain, &list);
    if (ret != 0) return not_found(prov, domain, ret);

    ofiud_xp_t *xp = calloc(1, sizeof(*xp));
    if (!xp) {
        ump_ofi_lib.freeinfo(list);
        return UMP_ERR_NO_MEMORY;
    }
    xp->base.ops = &ump_xp_ofiud_ops;
    xp->base.params = *params;
    xp->rt = params->rt;
    xp->rank = info->rank;
    xp->size = info->size;
    xp->cq_fd = xp->epfd = xp->tfd = -1;
    xp->key = ump_crc32c(0, info->secret, sizeof(info->secret));
    int nep = (int)UMP_MIN(UMP_MAX(ud_stripes.v.i, 1), (long long)UMP_OFIUD_MAX_EP);

    /* The first entry that opens, in the library's order of preference. */
    rc = UMP_ERR_UNSUPPORTED;
    bool matched = false;
    for (struct fi_info *fi = list; fi; fi = fi->next) {
        /* Some providers (udp) ignore the domain in the hints. */
        if (*domain && strcmp(fi->domain_attr->name, domain) &&
            strcmp(fi->fabric_attr->name, domain))
            continue;
        matched = true;
        xp->nrx = (int)UMP_MIN(UMP_MAX(ud_rx.v.i, 1), (long long)UMP_MAX(fi->rx_attr->size, 1));
        xp->ntx = (int)UMP_MIN(UMP_MAX(ud_tx.v.i, 1), (long long)UMP_MAX(fi->tx_attr->size, 1));
        rc = open_endpoints(xp, fi, nep);
        if (rc == UMP_OK) {
            xp->info = ump_ofi_lib.dupinfo(fi);
            break;
        }
        close_fids(xp);
    }
    ump_ofi_lib.freeinfo(list);
    if (!matched) {
        rc = not_found(prov, domain, -FI_ENODATA);
        goto err;
    }
    if (rc != UMP_OK || !xp->info) {
        ump_error("ofiud: no datagram provider could open %d endpoint(s)", nep);
        if (rc == UMP_OK) rc = UMP_ERR_NO_MEMORY;
        goto err;
    }
    struct fi_info *fi = xp->info;
    xp->source = (fi->caps & FI_SOURCE) != 0;
    xp->prefix = (fi->mode & FI_MSG_PREFIX) ? fi->ep_attr->msg_prefix_size : 0;
    size_t mtu = fi->ep_attr->max_msg_size;
    if (ud_mtu.v.sz) mtu = UMP_MIN(mtu, ud_mtu.v.sz);
    xp->mtu = UMP_MIN(mtu, (size_t)UMP_OFIUD_MAX_MTU + UMP_OFIUD_HDR);
    if (xp->mtu < 256 + UMP_OFIUD_HDR + sizeof(ump_rel_hdr_t)) {
        ump_error("ofiud: provider %s carries datagrams of %zu bytes, too small for the "
                  "reliability engine",
                  fi->fabric_attr->prov_name, xp->mtu);
        rc = UMP_ERR_UNSUPPORTED;
        goto err;
    }
    xp->inject = xp->prefix || !ud_inject.v.b ? 0 : fi->tx_attr->inject_size;
    if ((rc = open_pool(xp)) != UMP_OK) goto err;
    if ((rc = open_waiting(xp)) != UMP_OK) goto err;
    if ((rc = open_rel(xp)) != UMP_OK) goto err;
    if ((rc = publish(xp)) != UMP_OK) goto err;
    ump_debug("ofiud: provider %s, fabric %s, %d endpoint(s), datagrams up to %zu bytes, "
              "prefix %zu, inject %zu, %s, %s",
              fi->fabric_attr->prov_name, fi->fabric_attr->name, xp->nep, xp->mtu, xp->prefix,
              xp->inject, xp->source ? "source addresses checked" : "no source addresses",
              xp->cq_fd >= 0 ? "wait fd" : "polled");
    *out = &xp->base;
    return UMP_OK;
err:
    ump_ofiud_free(xp);
    return rc;
}

/* One peer's published names into the address vector. */
static int insert_peer(ofiud_xp_t *xp, int r, const uint8_t *val, size_t len)
{
    uint32_t mtu;
    if (len < 5) goto bad;
    memcpy(&mtu, val, 4);
    xp->peer_mtu[r] = le32toh(mtu);
    int n = val[4];
    size_t off = 5;
    xp->av_base[r] = (int)xp->nav;
    for (int j = 0; j < n; j++) {
        if (off >= len || off + 1 + val[off] > len) goto bad;
        fi_addr_t a;
        int k = fi_av_insert(xp->av, val + off + 1, 1, &a, 0, NULL);
        if (k != 1) {
            ump_error("ofiud: the address of rank %d does not go into the address vector (%s)", r,
                      k < 0 ? ump_ofi_strerror(-k) : "refused");
            return UMP_ERR_IO;
        }
        xp->av_addr[xp->nav] = a;
        xp->rank_of[xp->nav++] = r;
        off += 1 + val[off];
    }
    xp->av_count[r] = n;
    if (n > 0) return UMP_OK;
bad:
    ump_error("ofiud: rank %d published a malformed address (%zu bytes)", r, len);
    return UMP_ERR_PROTOCOL;
}

int ump_ofiud_wireup(ump_xp_t *base)
{
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    size_t total = (size_t)xp->size * UMP_OFIUD_MAX_EP;
    xp->av_addr = calloc(total, sizeof(*xp->av_addr));
    xp->rank_of = calloc(total, sizeof(*xp->rank_of));
    xp->av_base = calloc((size_t)xp->size, sizeof(*xp->av_base));
    xp->av_count = calloc((size_t)xp->size, sizeof(*xp->av_count));
    xp->peer_mtu = calloc((size_t)xp->size, sizeof(*xp->peer_mtu));
    if (!xp->av_addr || !xp->rank_of || !xp->av_base || !xp->av_count || !xp->peer_mtu)
        return UMP_ERR_NO_MEMORY;
    for (int r = 0; r < xp->size; r++) {
        uint8_t val[UMP_RT_VAL_MAX];
        size_t len = sizeof(val);
        int rc = ump_rt_get(xp->rt, r, "ofiud.addr", val, &len);
        if (rc != UMP_OK) {
            ump_error("ofiud: no address published by rank %d: %s", r, ump_strerror(rc));
            return rc;
        }
        if ((rc = insert_peer(xp, r, val, len)) != UMP_OK) return rc;
    }
    /* FI_AV_TABLE numbers addresses from 0 in insertion order, so an
     * fi_addr_t indexes rank_of[]; a provider that does otherwise gets no
     * source check. */
    for (size_t i = 0; i < xp->nav; i++) {
        if (xp->av_addr[i] != (fi_addr_t)i) {
            ump_debug("ofiud: the address vector does not number addresses in order: no source "
                      "check");
            xp->source = false;
            break;
        }
    }
    xp->wired = true;
    return UMP_OK;
}

void ump_ofiud_free(ofiud_xp_t *xp)
{
    if (!xp) return;
    if (xp->rel) ump_rel_destroy(xp->rel);
    close_fids(xp);
    if (xp->tfd >= 0) close(xp->tfd);
    if (xp->epfd >= 0) close(xp->epfd);
    if (xp->info) ump_ofi_lib.freeinfo(xp->info);
    free(xp->pool);
    free(xp->bufs);
    free(xp->scratch);
    free(xp->av_addr);
    free(xp->rank_of);
    free(xp->av_base);
    free(xp->av_count);
    free(xp->peer_mtu);
    free(xp);
}
