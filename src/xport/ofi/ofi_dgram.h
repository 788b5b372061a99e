/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofi_dgram.h - the ofiud transport: the reliability engine (src/xport/rel)
 * over libfabric FI_EP_DGRAM endpoints (the udp provider here, InfiniBand
 * UD or EFA datagrams on clusters).
 *
 *   ofi_dgram_init.c  provider, endpoints, buffer pool, address vector,
 *                     wireup, close
 *   ofi_dgram.c       rel's lower layer (send, receive), progress, waiting,
 *                     the ops table
 *
 * The udp transport's design on a fabric: K endpoints (UMP_OFIUD_STRIPES)
 * send in turn (striping); the first also receives every peer's datagrams
 * into buffers posted from one registered pool (a shared receive queue, so
 * receive buffers do not grow with the job). rel gives reliability, order,
 * fragmentation and flow control; this layer only moves datagrams of up to
 * the provider's max_msg_size (or UMP_OFIUD_MTU, if smaller).
 *
 * Each rank publishes ("ofiud.addr") its MTU and the names of its K
 * endpoints; at wireup every peer's names go into one address vector
 * (FI_AV_TABLE), so an fi_addr_t names a peer's endpoint and, through
 * rank_of[], the rank that owns it.
 *
 * Wire format: an 8-byte header, then the rel datagram.
 *   u32 magic   UMP_OFIUD_MAGIC
 *   u32 tag     ump_rel_tag() under the CRC32C of the job secret (rel.h)
 * A datagram that fails the tag is dropped and counted ("foreign"). Where
 * the provider reports source addresses (FI_SOURCE), a datagram must also
 * come from an endpoint of the rank its rel header names: one from an
 * address not in the job, or from another rank's, is dropped and counted
 * ("foreign", "spoofed").
 *
 * Provider rules kept: FI_MR_LOCAL (the pool is registered and its
 * descriptor passed with every buffer), FI_MSG_PREFIX (msg_prefix_size
 * bytes of room in front of every send and receive buffer, and a received
 * length that counts them), FI_CONTEXT/FI_CONTEXT2 (each buffer starts
 * with a context the provider owns while the operation runs). Sends no
 * larger than the inject size go by fi_inject, with no buffer.
 */
#ifndef UMP_XPORT_OFI_DGRAM_H
#define UMP_XPORT_OFI_DGRAM_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "rt/rt.h"
#include "util/util.h"
#include "xport/ofi/ofi.h"
#include "xport/rel/rel.h"
#include "xport/xport.h"

#define UMP_OFIUD_MAGIC   0x55504d55u /* "UMPU" little-endian */
#define UMP_OFIUD_HDR     8
#define UMP_OFIUD_MAX_EP  16
#define UMP_OFIUD_MAX_IOV 64    /* caps.max_iov */
#define UMP_OFIUD_MAX_MTU 65535 /* rel's datagrams are at most this, header included */

typedef struct ofiud_hdr {
    uint32_t magic;
    uint32_t tag;
} ofiud_hdr_t;
_Static_assert(sizeof(ofiud_hdr_t) == UMP_OFIUD_HDR, "ofiud header is 8 bytes");

/* A buffer of the pool: the first nrx receive, the rest send. */
typedef struct ofiud_buf {
    struct fi_context2 ctx; /* first: the provider owns it while the op runs */
    struct ofiud_buf *next; /* free list (send) or the unposted list (receive) */
    char *mem;              /* the prefix room, then our header and the rel datagram */
} ofiud_buf_t;

typedef struct ofiud_xp {
    ump_xp_t base; /* first: the core sees only this */
    int rank, size;
    ump_rt_t *rt;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep[UMP_OFIUD_MAX_EP]; /* ep[0] receives; all send, in turn */
    int nep;
    unsigned next_ep;
    bool source;   /* FI_SOURCE: completions name the sender's endpoint */
    size_t prefix; /* FI_MSG_PREFIX room in front of every buffer (0: none) */
    size_t mtu;    /* largest datagram: our header + the rel datagram */
    size_t inject; /* largest datagram fi_inject takes (0: none) */
    size_t slot;   /* bytes of one pool buffer */
    size_t rx_len; /* bytes posted per receive: prefix + mtu (+ 1 when allowed) */
    uint32_t key;  /* CRC32C of the job secret */
    /* The pool: one allocation, one registration (FI_MR_LOCAL). */
    char *pool;
    struct fid_mr *pool_mr;
    void *desc;
    ofiud_buf_t *bufs;
    int nrx, ntx;
    ofiud_buf_t *tx_free;
    ofiud_buf_t *rx_unposted; /* receive buffers the provider had no room for */
    int tx_out;
    char *scratch; /* one datagram assembled for fi_inject */
    /* Addresses: rank r's endpoint j is fi_addr av[av_base[r] + j]. */
    fi_addr_t *av_addr;
    int *av_base, *av_count;
    size_t *peer_mtu;
    int *rank_of; /* by fi_addr_t (FI_AV_TABLE numbers them from 0) */
    size_t nav;
    bool wired;
    /* Waiting: an epoll set of the CQ's fd (when the provider gives one)
     * and a timerfd for rel's deadlines. */
    int cq_fd, epfd, tfd;
    uint64_t timer_at;
    ump_rel_t *rel;
    bool stats;
    uint64_t foreign, spoofed, truncated, send_errors, no_buf, injects, sends, recvs;
} ofiud_xp_t;

extern const ump_xp_ops_t ump_xp_ofiud_ops;

/* ofi_dgram_init.c */
int ump_ofiud_open(const ump_xp_params_t *params, ump_xp_t **out);
int ump_ofiud_wireup(ump_xp_t *xp);
void ump_ofiud_free(ofiud_xp_t *xp);
/* Posts a receive buffer on ep[0] (or queues it to post again later). */
void ump_ofiud_post_recv(ofiud_xp_t *xp, ofiud_buf_t *b);

/* ofi_dgram.c: rel's lower callbacks. */
int ump_ofiud_peer_open(void *ctx, int peer, size_t *mtu);
int ump_ofiud_send(void *ctx, const ump_rel_dgram_t *d, int n);
void ump_ofiud_peer_name(void *ctx, int peer, char *buf, size_t len);

#endif /* UMP_XPORT_OFI_DGRAM_H */
