/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libfabric transport's endpoint: provider choice, fabric, domain,
 * endpoint, address vector and completion queue; address exchange through
 * the runtime; shutdown. See ofi.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xport/ofi/ofi.h"

UMP_CFG(ofi_cfg_provider, "UMP_OFI_PROVIDER", UMP_CFG_STRING, "",
        "libfabric provider of the ofi transport, as fi_info names it (\"tcp;ofi_rxm\", \"shm\", "
        "\"sockets\", \"verbs;ofi_rxm\", ...); empty: the first that offers reliable ordered "
        "messages and RDMA");
UMP_CFG(ofi_cfg_eager, "UMP_OFI_EAGER_LIMIT", UMP_CFG_SIZE, "8k",
        "largest message sent eagerly over the ofi transport (default 64k over tcp;ofi_rxm of "
        "libfabric 1.13-1.17, net and tcp alone, 32k over other ofi_rxm, whose limits ump raises "
        "to match, 8k otherwise)");

/*
 * Over rxm, a message larger than rxm's eager limit goes by rxm's own
 * rendezvous, which costs more than ump's eager copy (16 KiB ping-pong over
 * tcp;ofi_rxm: 29 us by rxm's rendezvous, 12 us eager). rxm's eager limit
 * is its buffer size (FI_OFI_RXM_BUFFER_SIZE, 16 KiB by default, headers
 * included), except over the tcp provider of libfabric 1.13 to 1.17, where
 * rxm hands the sender's buffer to tcp and tcp reads into the posted
 * receive buffer (rxm's direct send and dynamic receive buffers, both on by
 * default): there the limit is FI_OFI_RXM_EAGER_LIMIT and costs no memory.
 * So ump raises both, unless the user set them, to hold its largest AM: 64
 * KiB eager messages over that tcp, as ump's own tcp transport (a 64 KiB
 * ping-pong takes one sendmsg and two or three recvfrom a message instead
 * of the rendezvous' RTS, read request, data and FIN: 13 to 15 system
 * calls a round trip instead of 25 to 30), 32 KiB over other cores (verbs,
 * the later tcp), whose buffers are posted at that size.
 */
/* libfabric 1.17's `net` provider (the tcp provider's successor, which
 * later releases call tcp: the only tcp that offers reliable endpoints
 * without rxm) is reliable on its own and reads a message from
 * the socket straight into the posted receive buffer, with no bounce buffer
 * and no limit of its own: ump sends 64 KiB eagerly there too (a 16 KiB
 * ping-pong then takes 1 sendmsg, 2 recvfrom and 0.1 send a message on each
 * rank, besides polling, instead of the rendezvous' 1 sendmsg, 3 send and
 * 4.3 recvfrom). */
#define OFI_NET_EAGER       (64 * 1024)
#define OFI_RXM_EAGER       (32 * 1024)
#define OFI_RXM_TCP_EAGER   (64 * 1024)
#define OFI_RXM_BUF_ENV     "FI_OFI_RXM_BUFFER_SIZE"
#define OFI_RXM_EAGER_ENV   "FI_OFI_RXM_EAGER_LIMIT"
#define OFI_RXM_DYN_RBUF    "FI_OFI_RXM_ENABLE_DYN_RBUF"
#define OFI_RXM_DIRECT_SEND "FI_OFI_RXM_ENABLE_DIRECT_SEND"
UMP_CFG(ofi_cfg_seg, "UMP_OFI_SEG_SIZE", UMP_CFG_SIZE, "64k",
        "payload per DATA message of a pipelined rendezvous over the ofi transport");
UMP_CFG(ofi_cfg_rma, "UMP_OFI_RMA", UMP_CFG_BOOL, "on",
        "rendezvous over the ofi transport by RDMA read and write (off: the data are streamed in "
        "segments)");
UMP_CFG(ofi_cfg_zc_min, "UMP_OFI_ZC_MIN", UMP_CFG_SIZE, "4k",
        "smallest eager message the ofi transport sends from the application's buffer, with no "
        "copy into its own (0: always copied)");
UMP_CFG(ofi_cfg_get_min, "UMP_OFI_GET_MIN", UMP_CFG_SIZE, "0",
        "smallest rendezvous message the receiver reads with RDMA over the ofi transport");

/*
 * Over a provider that moves data through kernel sockets, an RDMA read or
 * write is one message on the connection, which the provider hands the
 * kernel in one sendmsg when the socket takes it (4 MiB at once on
 * loopback, where the socket's buffer grows that far): the copy into the
 * socket then runs far ahead of the receiver's copy out of it and the
 * bytes leave the caches between the two. Reads and writes of at most
 * UMP_OFI_RMA_CHUNK bytes, at most UMP_OFI_RMA_WINDOW of them under way to
 * a peer (the core issues the rest as earlier ones complete), keep the two
 * copies close: over tcp;ofi_rxm on one node a 1-4 MiB window runs 1.6-1.8
 * times as fast and a 1 MiB ping-pong a fifth faster (docs/ofi.md has the
 * figures and the sizes tried).
 */
UMP_CFG(ofi_cfg_rma_chunk, "UMP_OFI_RMA_CHUNK", UMP_CFG_SIZE, "512k",
        "most bytes of one RDMA read or write over an ofi provider that moves data through "
        "kernel sockets (tcp, net, sockets); larger transfers take several (0: one however "
        "large; set, it applies to every provider)");
UMP_CFG(ofi_cfg_rma_window, "UMP_OFI_RMA_WINDOW", UMP_CFG_SIZE, "1m",
        "bytes of RDMA reads and writes under way to one peer over such a provider; later "
        "ones wait for earlier ones (0: no limit; set, it applies to every provider)");

/* Whether the provider's data go through kernel sockets: its core
 * provider (the name before any ";ofi_rxm") is tcp, net or sockets. */
static bool sock_provider(const char *name)
{
    size_t n = strcspn(name, ";");
    return (n == 3 && !strncmp(name, "tcp", 3)) || (n == 3 && !strncmp(name, "net", 3)) ||
           (n == 7 && !strncmp(name, "sockets", 7));
}

/* Room the core gets for its own header in front of a segment. */
#define AM_HDR_ROOM 1024

/* The mr_mode bits this transport knows how to honour. */
#define OFI_MR_MODES                                                                               \
    (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT)

int ump_ofi_status(const char *what, ssize_t ret)
{
    if (ret == -FI_EAGAIN) return UMP_ERR_NO_RESOURCE;
    ump_error("ofi: %s: %s", what, ump_ofi_strerror((int)-ret));
    if (ret == -FI_ENOMEM) return UMP_ERR_NO_MEMORY;
    return UMP_ERR_IO;
}

/* A libfabric boolean variable set to off (0, off, false, no). */
static bool env_off(const char *name)
{
    const char *v = getenv(name);
    if (!v) return false;
    return !strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "false") ||
           !strcasecmp(v, "no");
}

/* A size variable of libfabric's, 0 when unset or not a number. */
static size_t env_size(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long long n = v ? strtoll(v, &end, 10) : 0;
    return v && end != v && n > 0 ? (size_t)n : 0;
}

/* Largest payload ump hands rxm for one AM when its eager limit is `eager`. */
static size_t rxm_am_bytes(size_t eager)
{
    return sizeof(ofi_am_hdr_t) + UMP_MAX(ofi_cfg_seg.v.sz, eager) + AM_HDR_ROOM;
}

/* The eager limit over rxm, from rxm's limits as they are now set. */
static size_t rxm_eager(const char *prov_name)
{
    /* rxm over tcp places eager messages directly: its own eager limit
     * (libfabric 1.13 to 1.17; from 1.18 tcp is the former net provider,
     * which rxm cannot place into, and the buffer is the limit again). */
    uint32_t v = ump_ofi_lib.version ? ump_ofi_lib.version() : 0;
    if (!strncmp(prov_name, "tcp;", 4) && v >= FI_VERSION(1, 13) && v < FI_VERSION(1, 18) &&
        !env_off(OFI_RXM_DYN_RBUF) && !env_off(OFI_RXM_DIRECT_SEND)) {
        size_t lim = env_size(OFI_RXM_EAGER_ENV);
        if (lim > sizeof(ofi_am_hdr_t) + AM_HDR_ROOM)
            return UMP_MIN((size_t)OFI_RXM_TCP_EAGER, lim - sizeof(ofi_am_hdr_t) - AM_HDR_ROOM);
        /* Not set by anyone: rxm's eager limit is its buffer. */
    }
    /* Elsewhere the buffer is the limit: rxm's header (under 1 KiB) and
     * ump's AM header room come out of it. */
    size_t bs = env_size(OFI_RXM_BUF_ENV);
    if (bs > (size_t)AM_HDR_ROOM + 1024)
        return UMP_MIN((size_t)OFI_RXM_EAGER, bs - AM_HDR_ROOM - 1024);
    return ofi_cfg_eager.v.sz;
}

static struct fi_info *make_hints(const char *prov)
{
    struct fi_info *h = ump_ofi_lib.dupinfo(NULL);
    if (!h) return NULL;
    h->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE;
    h->ep_attr->type = FI_EP_RDM;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->mr_mode = OFI_MR_MODES;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    /* The core relies on AMs to one peer arriving in send order. */
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    if (prov && *prov) h->fabric_attr->prov_name = strdup(prov);
    return h;
}

static int open_endpoint(ofi_xp_t *xp, struct fi_info *fi)
{
    int ret;
    if ((ret = ump_ofi_lib.fabric(fi->fabric_attr, &xp->fabric, NULL)) != 0)
        return ump_ofi_status("fi_fabric", ret);
    if ((ret = fi_domain(xp->fabric, fi, &xp->domain, NULL)) != 0)
        return ump_ofi_status("fi_domain", ret);
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE};
    cq.size = (size_t)(xp->nrx + xp->ntx) * 2 + 64;
    if ((ret = fi_cq_open(xp->domain, &cq, &xp->cq, NULL)) != 0)
        return ump_ofi_status("fi_cq_open", ret);
    struct fi_av_attr av = {.type = FI_AV_TABLE, .count = (size_t)xp->size};
    if ((ret = fi_av_open(xp->domain, &av, &xp->av, NULL)) != 0)
        return ump_ofi_status("fi_av_open", ret);
    if ((ret = fi_endpoint(xp->domain, fi, &xp->ep, NULL)) != 0)
        return ump_ofi_status("fi_endpoint", ret);
    if ((ret = fi_ep_bind(xp->ep, &xp->av->fid, 0)) != 0)
        return ump_ofi_status("binding the address vector", ret);
    if ((ret = fi_ep_bind(xp->ep, &xp->cq->fid, FI_TRANSMIT | FI_RECV)) != 0)
        return ump_ofi_status("binding the completion queue", ret);
    if ((ret = fi_enable(xp->ep)) != 0) return ump_ofi_status("fi_enable", ret);
    return UMP_OK;
}

static void close_fids(ofi_xp_t *xp)
{
    if (xp->ep) fi_close(&xp->ep->fid);
    xp->ep = NULL;
    ump_ofi_pools_close(xp);
    if (xp->av) fi_close(&xp->av->fid);
    if (xp->cq) fi_close(&xp->cq->fid);
    if (xp->domain) fi_close(&xp->domain->fid);
    if (xp->fabric) fi_close(&xp->fabric->fid);
    xp->av = NULL;
    xp->cq = NULL;
    xp->domain = NULL;
    xp->fabric = NULL;
}

int ump_ofi_open(const ump_xp_params_t *params, ump_xp_t **out)
{
    ump_cfg_load(false);
    const ump_rt_info_t *info = ump_rt_info(params->rt);
    const char *prov = ofi_cfg_provider.v.s;
    /* Read by rxm when it opens an endpoint: set before, and only where
     * the user left them unset. */
    char rxmbuf[32];
    snprintf(rxmbuf, sizeof(rxmbuf), "%d", OFI_RXM_EAGER + AM_HDR_ROOM + 1024);
    setenv(OFI_RXM_BUF_ENV, rxmbuf, 0);
    /* rxm refuses connections between endpoints of different eager limits
     * (and retries for ever): lowering UMP_OFI_EAGER_LIMIT on some ranks
     * only leaves this alike on all (wireup checks it). */
    snprintf(rxmbuf, sizeof(rxmbuf), "%zu",
             rxm_am_bytes(UMP_MAX(ofi_cfg_eager.from_env ? ofi_cfg_eager.v.sz : 0,
                                  (size_t)OFI_RXM_TCP_EAGER)));
    setenv(OFI_RXM_EAGER_ENV, rxmbuf, 0);
    int lrc = ump_ofi_lib_load();
    if (lrc != UMP_OK) return lrc;
    struct fi_info *hints = make_hints(prov), *list = NULL;
    if (!hints) return UMP_ERR_NO_MEMORY;
    int ret = ump_ofi_lib.getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &list);
    ump_ofi_lib.freeinfo(hints);
    if (ret != 0 || !list) {
        if (prov && *prov)
            ump_error("ofi: provider \"%s\" (UMP_OFI_PROVIDER) is not available here or offers "
                      "no reliable ordered endpoint with RDMA (%s); `fi_info -l` lists the "
                      "providers",
                      prov, ump_ofi_strerror(-ret));
        else
            ump_info("ofi: no libfabric provider offers a reliable ordered endpoint with RDMA "
                     "(%s)",
                     ump_ofi_strerror(-ret));
        return prov && *prov ? UMP_ERR_IO : UMP_ERR_UNSUPPORTED;
    }

    ofi_xp_t *xp = calloc(1, sizeof(*xp));
    if (!xp) {
        ump_ofi_lib.freeinfo(list);
        return UMP_ERR_NO_MEMORY;
    }
    xp->base.ops = &ump_xp_ofi_ops;
    xp->base.params = *params;
    xp->rank = info->rank;
    xp->size = info->size;
    xp->nrx = 64;
    xp->ntx = 64;

    /* The first entry that opens: the list is in the library's order of
     * preference (fastest provider, then interfaces). */
    int rc = UMP_ERR_UNSUPPORTED;
    for (struct fi_info *fi = list; fi; fi = fi->next) {
        if ((fi->tx_attr->msg_order & FI_ORDER_SAS) == 0) continue;
        rc = open_endpoint(xp, fi);
        if (rc == UMP_OK) {
            xp->info = ump_ofi_lib.dupinfo(fi);
            break;
        }
        close_fids(xp);
    }
    ump_ofi_lib.freeinfo(list);
    if (rc != UMP_OK || !xp->info) {
        ump_error("ofi: no provider could open an endpoint");
        free(xp);
        return rc == UMP_OK ? UMP_ERR_NO_MEMORY : rc;
    }
    struct fi_info *fi = xp->info;
    xp->mr_mode = fi->domain_attr->mr_mode;
    xp->inject_size = fi->tx_attr->inject_size;
    xp->iov_limit = UMP_MAX(fi->tx_attr->iov_limit, (size_t)1);
    xp->rma_iov_limit = UMP_MAX(fi->tx_attr->rma_iov_limit, (size_t)1);
    if (fi->domain_attr->mr_key_size > sizeof(uint64_t)) {
        ump_error("ofi: provider %s uses raw memory keys (%zu bytes), which ump does not carry",
                  fi->fabric_attr->prov_name, fi->domain_attr->mr_key_size);
        rc = UMP_ERR_UNSUPPORTED;
        goto err;
    }

    size_t seg = ofi_cfg_seg.v.sz, eager = ofi_cfg_eager.v.sz;
    if (!ofi_cfg_eager.from_env && strstr(fi->fabric_attr->prov_name, "ofi_rxm"))
        eager = rxm_eager(fi->fabric_attr->prov_name);
    else if (!ofi_cfg_eager.from_env && (!strcmp(fi->fabric_attr->prov_name, "net") ||
                                         !strcmp(fi->fabric_attr->prov_name, "tcp")))
        eager = OFI_NET_EAGER;
    size_t max_am = UMP_MAX(seg, eager) + AM_HDR_ROOM;
    if (fi->ep_attr->max_msg_size < max_am + sizeof(ofi_am_hdr_t)) {
        max_am = fi->ep_attr->max_msg_size - sizeof(ofi_am_hdr_t);
        seg = UMP_MIN(seg, max_am - AM_HDR_ROOM);
        eager = UMP_MIN(eager, max_am - AM_HDR_ROOM);
    }
    xp->buf_size = sizeof(ofi_am_hdr_t) + max_am;
    bool rma = ofi_cfg_rma.v.b;
    xp->base.caps = (ump_xp_caps_t){
        .reliable = true,
        .ordered = true,
        .am_cost = UMP_XP_AM_MEMORY, /* copied into a pool buffer by us */
        .rma_get = rma,
        .max_am = max_am,
        .max_iov = 64,
        .eager_limit = eager,
        .seg_size = seg,
        .get_min = rma ? ofi_cfg_get_min.v.sz : SIZE_MAX,
        .rma_put = rma,
        .get_max_iov = UMP_MIN(xp->iov_limit, xp->rma_iov_limit),
        .put_max_iov = UMP_MIN(xp->iov_limit, xp->rma_iov_limit),
        .mr_required = true,
        .rkey_size = sizeof(ofi_rkey_t),
        .zc_min = ofi_cfg_zc_min.v.sz ? ofi_cfg_zc_min.v.sz : SIZE_MAX,
    };
    bool sock = sock_provider(fi->fabric_attr->prov_name);
    if (rma && (sock || ofi_cfg_rma_chunk.from_env)) xp->base.caps.rma_max = ofi_cfg_rma_chunk.v.sz;
    if (rma && (sock || ofi_cfg_rma_window.from_env)) xp->rma_window = ofi_cfg_rma_window.v.sz;
    xp->addrs = calloc((size_t)xp->size, sizeof(*xp->addrs));
    xp->rma_bytes = calloc((size_t)xp->size, sizeof(*xp->rma_bytes));
    if (!xp->addrs || !xp->rma_bytes) {
        rc = UMP_ERR_NO_MEMORY;
        goto err;
    }
    if ((rc = ump_ofi_pools_open(xp)) != UMP_OK) goto err;

    /* The endpoint's name, then this rank's message sizes (wireup). */
    char name[OFI_NAME_MAX + sizeof(ofi_sizes_t)];
    size_t len = OFI_NAME_MAX;
    if ((ret = fi_getname(&xp->ep->fid, name, &len)) != 0) {
        rc = ump_ofi_status("fi_getname", ret);
        goto err;
    }
    ofi_sizes_t mine = {.max_am = max_am, .eager = eager, .seg = seg};
    if (strstr(fi->fabric_attr->prov_name, "ofi_rxm")) mine.rxm_eager = env_size(OFI_RXM_EAGER_ENV);
    xp->rxm_eager = mine.rxm_eager;
    memcpy(name + len, &mine, sizeof(mine));
    if ((rc = ump_rt_put(params->rt, "ofi.addr", name, len + sizeof(mine))) != UMP_OK) goto err;
    ump_debug("ofi: provider %s, fabric %s, mr_mode 0x%llx, inject %zu, iov %zu/%zu, eager %zu, "
              "segment %zu, rdma chunk %zu, window %zu",
              fi->fabric_attr->prov_name, fi->fabric_attr->name, (unsigned long long)xp->mr_mode,
              xp->inject_size, xp->iov_limit, xp->rma_iov_limit, eager, seg, xp->base.caps.rma_max,
              xp->rma_window);
    *out = &xp->base;
    return UMP_OK;
err:
    ump_ofi_close(&xp->base);
    return rc;
}

/*
 * Every rank posts receive buffers of its own largest AM, and UMP_OFI_EAGER_LIMIT,
 * UMP_OFI_SEG_SIZE and the provider's message size may differ between
 * ranks (an environment set on some ranks only, other NICs): a message
 * larger than the receiver's buffers would be truncated or dropped by the
 * provider, and the job would hang. So each rank takes the smallest sizes
 * any rank published, before the core reads them (its protocol choices
 * follow the transport's caps).
 */
static void agree_sizes(ofi_xp_t *xp, int r, const ofi_sizes_t *p)
{
    ump_xp_caps_t *c = &xp->base.caps;
    if (p->max_am >= c->max_am && p->eager >= c->eager_limit && p->seg >= c->seg_size) return;
    ump_debug("ofi: rank %d receives AMs of at most %llu bytes (eager %llu, segment %llu): "
              "this rank sends no larger ones",
              r, (unsigned long long)p->max_am, (unsigned long long)p->eager,
              (unsigned long long)p->seg);
    c->max_am = UMP_MIN(c->max_am, (size_t)p->max_am);
    c->eager_limit = UMP_MIN(c->eager_limit, (size_t)p->eager);
    c->seg_size = UMP_MIN(c->seg_size, (size_t)p->seg);
}

int ump_ofi_wireup(ump_xp_t *xp_)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    for (int r = 0; r < xp->size; r++) {
        char name[OFI_NAME_MAX + sizeof(ofi_sizes_t)];
        size_t len = sizeof(name);
        int rc = ump_rt_get(xp->base.params.rt, r, "ofi.addr", name, &len);
        if (rc != UMP_OK) {
            ump_error("ofi: no address published by rank %d: %s", r, ump_strerror(rc));
            return rc;
        }
        ofi_sizes_t sz;
        if (len <= sizeof(sz)) {
            ump_error("ofi: rank %d published a %zu-byte address: too short", r, len);
            return UMP_ERR_PROTOCOL;
        }
        len -= sizeof(sz);
        memcpy(&sz, name + len, sizeof(sz));
        if (sz.max_am <= sz.seg || sz.max_am <= sz.eager) {
            ump_error("ofi: rank %d published message sizes that do not fit together (AM %llu, "
                      "eager %llu, segment %llu)",
                      r, (unsigned long long)sz.max_am, (unsigned long long)sz.eager,
                      (unsigned long long)sz.seg);
            return UMP_ERR_PROTOCOL;
        }
        if (sz.rxm_eager != xp->rxm_eager) {
            ump_error("ofi: rank %d's rxm eager limit is %llu bytes, this rank's %llu: rxm does "
                      "not connect such endpoints; set FI_OFI_RXM_EAGER_LIMIT, "
                      "UMP_OFI_EAGER_LIMIT and UMP_OFI_SEG_SIZE alike on every rank",
                      r, (unsigned long long)sz.rxm_eager, (unsigned long long)xp->rxm_eager);
            return UMP_ERR_INVALID;
        }
        agree_sizes(xp, r, &sz);
        int n = fi_av_insert(xp->av, name, 1, &xp->addrs[r], 0, NULL);
        if (n != 1) {
            ump_error("ofi: the address of rank %d does not go into the address vector (%s)", r,
                      n < 0 ? ump_ofi_strerror(-n) : "refused");
            return UMP_ERR_IO;
        }
    }
    return UMP_OK;
}

void ump_ofi_close(ump_xp_t *xp_)
{
    ofi_xp_t *xp = (ofi_xp_t *)xp_;
    if (xp->info)
        ump_debug("ofi: %llu AMs sent from the pool, %llu from the caller's buffer, %llu "
                  "injected, %llu RDMA reads, %llu RDMA writes, %llu waited for the window",
                  (unsigned long long)xp->nsends, (unsigned long long)xp->nsends_zc,
                  (unsigned long long)xp->ninjects, (unsigned long long)xp->nreads,
                  (unsigned long long)xp->nwrites, (unsigned long long)xp->nwindow);
    close_fids(xp);
    if (xp->info) ump_ofi_lib.freeinfo(xp->info);
    free(xp->addrs);
    free(xp->rma_bytes);
    free(xp);
}
