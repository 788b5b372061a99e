/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofi.h - the libfabric transport's private state (src/xport/ofi).
 *
 * One FI_EP_RDM endpoint with FI_MSG | FI_RMA on the provider the user
 * names (UMP_OFI_PROVIDER, e.g. "tcp;ofi_rxm", "shm", "verbs;ofi_rxm") or
 * the first the fabric offers. Addresses travel through the runtime
 * ("ofi.addr") and go into an address vector at wireup.
 *
 * Active messages go through pools of pre-registered buffers: receives
 * are posted from the receive pool and re-posted once the core's handler
 * returned; a send is copied into a buffer of the send pool (or injected,
 * with no buffer, when it is no larger than the provider's inject size)
 * and the buffer returns to the pool at its completion; from UMP_OFI_ZC_MIN
 * bytes a standard send's payload goes from the caller's registered buffer
 * itself (am_send_zc), behind its header in a pool buffer. Every AM carries
 * an 8-byte prefix naming the sender's rank and the AM id. The endpoint's
 * messages are ordered per peer (FI_ORDER_SAS), which the core needs.
 *
 * Rendezvous: get() is an RDMA read (fi_readmsg), put() an RDMA write
 * (fi_writemsg with FI_DELIVERY_COMPLETE); both complete from progress()
 * through the caller's ump_xp_comp_t. Over socket providers an operation
 * carries at most UMP_OFI_RMA_CHUNK bytes (caps.rma_max) and one is
 * refused while UMP_OFI_RMA_WINDOW bytes are under way to the peer
 * (ofi_init.c). Registered memory keeps the provider's rules (mr_mode):
 * FI_MR_LOCAL (descriptors for the pools and for get()'s local buffer),
 * FI_MR_VIRT_ADDR (remote addresses are virtual, else offsets from the
 * base the rkey carries), FI_MR_PROV_KEY (else distinct keys we choose),
 * FI_MR_ENDPOINT (bind and enable).
 *
 * Files: ofi_init.c (provider, endpoint, wireup, close), ofi_mr.c
 * (registration), ofi_am.c (buffer pools and AM sends), ofi_rma.c
 * (get, put), ofi_progress.c (completion queue), ofi_xport.c (ops table),
 * ofi_lib.c (loading libfabric).
 */
#ifndef UMP_XPORT_OFI_H
#define UMP_XPORT_OFI_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "util/util.h"
#include "xport/xport.h"

/* The libfabric entry points that are real symbols, loaded with the
 * library when the transport opens (ofi_lib.c says why). */
typedef struct ump_ofi_lib {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int err);
    uint32_t (*version)(void); /* fi_version; NULL when the library lacks it */
} ump_ofi_lib_t;
extern ump_ofi_lib_t ump_ofi_lib;
/* UMP_OK once libfabric is loaded; UMP_ERR_UNSUPPORTED when it cannot be. */
int ump_ofi_lib_load(void);
/* fi_strerror, or a fixed text before the library is loaded. */
const char *ump_ofi_strerror(int err);

/* What a completion's context points to: every operation starts with this. */
enum { OFI_OP_SEND = 1, OFI_OP_RECV, OFI_OP_RMA };
typedef struct ofi_op {
    struct fi_context2 ctx; /* first: libfabric owns it while the op runs */
    int kind;
} ofi_op_t;

/* A buffer of the send or receive pool. */
typedef struct ofi_buf {
    ofi_op_t op;
    struct ofi_buf *next; /* send pool: free list */
    int peer;             /* send: destination */
    size_t len;           /* send: bytes to send (backlog) */
    char *data;
    ump_xp_comp_t *comp; /* send: am_send_zc's caller, told at completion; else NULL */
} ofi_buf_t;

/* An RDMA read or write under way. */
typedef struct ofi_rma {
    ofi_op_t op;
    struct ofi_rma *next; /* free list */
    ump_xp_comp_t *comp;
    int peer;
    size_t len;
} ofi_rma_t;

/* The prefix of every AM on the wire. */
typedef struct {
    int32_t src;
    uint8_t am_id;
    uint8_t pad[3];
} ofi_am_hdr_t;

/* The largest endpoint name a rank publishes. */
#define OFI_NAME_MAX 256

/* Published after each rank's endpoint name: the largest AM its receive
 * buffers hold and its eager and segment sizes (wireup takes the smallest),
 * and over rxm rxm's own eager limit (which must be alike; else 0). */
typedef struct {
    uint64_t max_am, eager, seg, rxm_eager;
} ofi_sizes_t;

/* A registration (mem_reg). The packed rkey is ofi_rkey_t. */
typedef struct ofi_mr {
    ump_xp_mr_t base; /* first */
    struct fid_mr *mr;
    void *desc;
} ofi_mr_t;

typedef struct {
    uint64_t key;
    uint64_t base; /* the region's virtual address, for offset addressing */
} ofi_rkey_t;

typedef struct ofi_xp {
    ump_xp_t base;
    int rank, size;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    fi_addr_t *addrs;     /* by rank, after wireup */
    uint64_t mr_mode;     /* the provider's FI_MR_* rules */
    uint64_t next_key;    /* requested keys when the provider does not choose */
    size_t inject_size;   /* largest AM fi_inject takes (0: none) */
    size_t buf_size;      /* bytes of one pool buffer: prefix + max_am */
    uint64_t rxm_eager;   /* rxm's eager limit as it read it (0: not over rxm) */
    size_t iov_limit;     /* local entries per get */
    size_t rma_iov_limit; /* remote entries per get */
    /* Pools: one allocation and one registration each. */
    char *rx_mem, *tx_mem;
    ofi_mr_t *rx_mr, *tx_mr;
    ofi_buf_t *rx, *tx;
    int nrx, ntx;
    ofi_buf_t *tx_free;
    ofi_buf_t *backlog, *backlog_tail; /* taken sends the provider had no room for */
    ofi_buf_t *rx_unposted;            /* receive buffers to post again */
    int tx_out;                        /* send buffers taken and not completed */
    ofi_rma_t *rma_all, *rma_free;
    int nrma;
    int rma_out;                                /* reads and writes under way */
    size_t rma_window;                          /* bytes under way per peer; 0: any */
    size_t *rma_bytes;                          /* by peer: bytes under way */
    uint64_t nwindow;                           /* operations refused for the window */
    uint64_t nreads, nwrites, nsends, ninjects; /* for the debug log at close */
    uint64_t nsends_zc;
    bool posted;
} ofi_xp_t;

extern const ump_xp_ops_t ump_xp_ofi_ops;

/* ofi_init.c */
int ump_ofi_open(const ump_xp_params_t *params, ump_xp_t **out);
int ump_ofi_wireup(ump_xp_t *xp);
void ump_ofi_close(ump_xp_t *xp);
/* A libfabric error code as a ump status, logging what failed. */
int ump_ofi_status(const char *what, ssize_t ret);

/* ofi_mr.c */
int ump_ofi_mr_open(ofi_xp_t *xp, void *addr, size_t len, ofi_mr_t **out);
int ump_ofi_mem_reg(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **mr);
void ump_ofi_mem_dereg(ump_xp_mr_t *mr);

/* ofi_am.c */
int ump_ofi_pools_open(ofi_xp_t *xp);
void ump_ofi_pools_close(ofi_xp_t *xp);
int ump_ofi_post_recv(ofi_xp_t *xp, ofi_buf_t *b);
/* Posts receive buffers and sends AMs the provider had no room for. */
void ump_ofi_retry(ofi_xp_t *xp);
int ump_ofi_am_send(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                    const struct iovec *iov, int iovcnt);
/* The header goes from a pool buffer, the payload from the caller's
 * memory (one fi_sendmsg): UMP_INPROGRESS until the send completes. */
int ump_ofi_am_send_zc(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                       const struct iovec *iov, int iovcnt, ump_xp_mr_t *mr, ump_xp_comp_t *comp);
int ump_ofi_am_send_pack(ump_xp_t *xp, int peer, uint8_t am_id, const void *hdr, size_t hlen,
                         size_t len, void (*pack)(void *arg, void *dst, size_t len), void *arg);

/* ofi_rma.c */
int ump_ofi_get(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp);
int ump_ofi_put(ump_xp_t *xp, int peer, const struct iovec *local, int nlocal, ump_xp_mr_t *lmr,
                const ump_riov_t *remote, int nremote, const void *rkey, ump_xp_comp_t *comp);

/* ofi_progress.c */
int ump_ofi_progress(ump_xp_t *xp);
int ump_ofi_arm(ump_xp_t *xp);
int ump_ofi_wait_fd(ump_xp_t *xp);
int ump_ofi_flush(ump_xp_t *xp);

#endif /* UMP_XPORT_OFI_H */
