/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Point-to-point: the send modes, receives, probes, matched probes,
 * Sendrecv and persistent requests, on the core's tagged messaging.
 *
 * Every message moves on the communicator's point-to-point context with
 * the user's buffer, count and datatype handed straight to the core (an
 * MPI datatype is the core's ump_dt), which packs non-contiguous data into
 * its transports and unpacks them from there (src/core/dtx.c). The byte
 * count of a status (ump_count) is the packed size. Ranks are translated to
 * MPI_COMM_WORLD ranks for the core and back in statuses. Buffered sends and
 * Sendrecv_replace pack into a buffer of their own: the user may reuse a
 * buffered send's buffer at once, and Sendrecv_replace receives into the
 * buffer it sends from, so that copy is the one their semantics need.
 *
 * Send modes: standard and ready map to the core's standard send (a ready
 * send needs the receive posted; the standard protocol is correct then
 * too), synchronous to the core's synchronous send, buffered to a copy
 * into the attached buffer (bsend.c).
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_p2p.h"
#include "util/util.h"

enum { MODE_STANDARD = 0, MODE_SYNC = 1, MODE_READY = 2, MODE_BUFFERED = 3 };

struct ump_mpi_message ump_mpi_message_null = {.magic = UMP_MPI_MAGIC_DEAD};
struct ump_mpi_message ump_mpi_message_no_proc = {.magic = UMP_MPI_MAGIC_MSG};

/* --- message buffers --------------------------------------------------------- */

static bool dt_contig(MPI_Datatype dt)
{
    return ump_dt_is_contig(dt);
}

/* First data byte of a contiguous message: the type's data may start
 * before or after buf (true_lb), e.g. resized types or MPI_BOTTOM with
 * absolute addresses. */
static void *data_start(const void *buf, MPI_Datatype dt)
{
    return (char *)buf + dt->true_lb;
}

int ump_mpi_msg_bytes(const char *call, MPI_Comm comm, int count, MPI_Datatype dt, size_t *len)
{
    size_t n = (size_t)count;
    if (dt->size && n > SIZE_MAX / dt->size)
        return ump_mpi_error(comm, MPI_ERR_COUNT, call, "count %d of a %zu-byte type overflows",
                             count, dt->size);
    *len = n * dt->size;
    return MPI_SUCCESS;
}

int ump_mpi_pack_into(const char *call, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                      void *out, size_t len)
{
    if (!len) return MPI_SUCCESS;
    if (dt_contig(dt)) {
        memcpy(out, data_start(buf, dt), len);
        return MPI_SUCCESS;
    }
    int rc = ump_dt_pack(buf, (size_t)count, dt, 0, out, len);
    if (rc < 0)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "packing the message failed: %s",
                             ump_strerror(rc));
    return MPI_SUCCESS;
}

int ump_mpi_msg_pack(const char *call, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                     ump_mpi_msgbuf_t *mb)
{
    mb->tmp = NULL;
    int rc = ump_mpi_msg_bytes(call, comm, count, dt, &mb->len);
    if (rc != MPI_SUCCESS) return rc;
    if (!mb->len) {
        mb->p = buf;
        return MPI_SUCCESS;
    }
    if (dt_contig(dt)) {
        mb->p = data_start(buf, dt);
        return MPI_SUCCESS;
    }
    mb->tmp = malloc(mb->len);
    if (!mb->tmp)
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "no memory to pack %zu bytes", mb->len);
    rc = ump_mpi_pack_into(call, comm, buf, count, dt, mb->tmp, mb->len);
    if (rc != MPI_SUCCESS) {
        free(mb->tmp);
        mb->tmp = NULL;
        return rc;
    }
    mb->p = mb->tmp;
    return MPI_SUCCESS;
}

int ump_mpi_msg_recvbuf(const char *call, MPI_Comm comm, void *buf, int count, MPI_Datatype dt,
                        ump_mpi_msgbuf_t *mb)
{
    mb->tmp = NULL;
    int rc = ump_mpi_msg_bytes(call, comm, count, dt, &mb->len);
    if (rc != MPI_SUCCESS) return rc;
    if (!mb->len) {
        mb->p = buf;
        return MPI_SUCCESS;
    }
    if (dt_contig(dt)) {
        mb->p = data_start(buf, dt);
        return MPI_SUCCESS;
    }
    mb->tmp = malloc(mb->len);
    if (!mb->tmp)
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "no memory to receive %zu bytes", mb->len);
    mb->p = mb->tmp;
    return MPI_SUCCESS;
}

static int unpack(MPI_Comm comm, const char *call, void *buf, int count, MPI_Datatype dt,
                  const void *in, size_t bytes)
{
    if (!bytes) return MPI_SUCCESS;
    int rc = ump_dt_unpack(buf, (size_t)count, dt, 0, in, bytes);
    if (rc < 0)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "unpacking the message failed: %s",
                             ump_strerror(rc));
    return MPI_SUCCESS;
}

int ump_mpi_unpack_recv(MPI_Request r, size_t bytes)
{
    return unpack(r->comm, "MPI_Wait", (void *)r->buf, r->count, r->dt, r->packbuf, bytes);
}

/* --- argument checks --------------------------------------------------------- */

static UMP_INLINE_PATH int check_send(const char *call, const void *buf, int count, MPI_Datatype dt,
                                      int dest, int tag, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    UMP_MPI_CHECK_BUF(call, comm, buf, count, dt);
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= ump_mpi_peer_size(comm)))
        return ump_mpi_error(comm, MPI_ERR_RANK, call,
                             "destination rank %d is out of range [0, %d)%s", dest,
                             ump_mpi_peer_size(comm), comm->rgroup ? " of the remote group" : "");
    if (tag < 0 || tag > UMP_TAG_UB)
        return ump_mpi_error(comm, MPI_ERR_TAG, call, "tag %d is out of range [0, MPI_TAG_UB=%d]",
                             tag, UMP_TAG_UB);
    return MPI_SUCCESS;
}

static UMP_INLINE_PATH int check_source_tag(const char *call, int source, int tag, MPI_Comm comm)
{
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
        (source < 0 || source >= ump_mpi_peer_size(comm)))
        return ump_mpi_error(comm, MPI_ERR_RANK, call,
                             "source rank %d is out of range [0, %d)%s (nor MPI_ANY_SOURCE or "
                             "MPI_PROC_NULL)",
                             source, ump_mpi_peer_size(comm),
                             comm->rgroup ? " of the remote group" : "");
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > UMP_TAG_UB))
        return ump_mpi_error(comm, MPI_ERR_TAG, call,
                             "tag %d is out of range [0, MPI_TAG_UB=%d] (nor MPI_ANY_TAG)", tag,
                             UMP_TAG_UB);
    return MPI_SUCCESS;
}

static UMP_INLINE_PATH int check_recv(const char *call, void *buf, int count, MPI_Datatype dt,
                                      int source, int tag, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    UMP_MPI_CHECK_BUF(call, comm, buf, count, dt);
    return check_source_tag(call, source, tag, comm);
}

static UMP_INLINE_PATH int core_src(MPI_Comm comm, int source)
{
    return source == MPI_ANY_SOURCE ? UMP_ANY_SOURCE : ump_mpi_world_rank(comm, source);
}

static int raise_core(MPI_Comm comm, const char *call, int rc, int peer)
{
    return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "%s (peer rank %d)", ump_strerror(rc),
                         peer);
}

/* --- starting requests ------------------------------------------------------- */

static UMP_INLINE_PATH void complete_now(MPI_Request r, int source, int tag, size_t bytes, int cls)
{
    r->complete = true;
    r->status.MPI_SOURCE = source;
    r->status.MPI_TAG = tag;
    r->status.ump_count = (MPI_Count)bytes;
    r->status.ump_cancelled = 0;
    r->status.MPI_ERROR = cls;
}

static UMP_INLINE_PATH int start_send(const char *call, MPI_Request r)
{
    MPI_Comm comm = r->comm;
    r->active = true;
    r->complete = false;
    if (r->peer == MPI_PROC_NULL) {
        complete_now(r, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    if (r->mode == MODE_BUFFERED) {
        int rc = ump_mpi_bsend(call, r->buf, r->count, r->dt, r->peer, r->tag, comm);
        size_t len = (size_t)r->count * r->dt->size;
        if (rc != MPI_SUCCESS) {
            r->active = false;
            return rc;
        }
        complete_now(r, r->peer, r->tag, len, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    int rc, w = ump_mpi_world_rank(comm, r->peer);
    if (r->mode == MODE_SYNC)
        rc = ump_issend(r->buf, (size_t)r->count, r->dt, w, r->tag, comm->ctx_p2p, &r->core);
    else
        rc = ump_isend_inline(r->buf, (size_t)r->count, r->dt, w, r->tag, comm->ctx_p2p, &r->core);
    if (rc != UMP_OK) {
        r->active = false;
        return raise_core(comm, call, rc, r->peer);
    }
    /* The transport took the message: complete already, with no core
     * request to wait for, test or release. */
    if (r->core == UMP_REQ_NULL)
        complete_now(r, r->peer, r->tag, (size_t)r->count * r->dt->size, MPI_SUCCESS);
    return MPI_SUCCESS;
}

static UMP_INLINE_PATH int start_recv(const char *call, MPI_Request r)
{
    MPI_Comm comm = r->comm;
    r->active = true;
    r->complete = false;
    if (r->peer == MPI_PROC_NULL) {
        complete_now(r, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    int rc = ump_irecv((void *)r->buf, (size_t)r->count, r->dt, core_src(comm, r->peer), r->tag,
                       comm->ctx_p2p, &r->core);
    if (rc != UMP_OK) {
        r->active = false;
        return raise_core(comm, call, rc, r->peer);
    }
    return MPI_SUCCESS;
}

static UMP_INLINE_PATH int new_req(const char *call, int kind, const void *buf, int count,
                                   MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int mode,
                                   bool persistent, MPI_Request *out)
{
    if (!out) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    MPI_Request r = ump_mpi_req_new(kind, comm);
    if (!r) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a request");
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    ump_dt_ref(dt); /* the type stays alive while the request may use it */
    r->peer = peer;
    r->tag = tag;
    r->mode = mode;
    r->persistent = persistent;
    *out = r;
    return MPI_SUCCESS;
}

static UMP_INLINE_PATH int isend_mode(const char *call, const void *buf, int count, MPI_Datatype dt,
                                      int dest, int tag, MPI_Comm comm, int mode,
                                      MPI_Request *request)
{
    int rc = check_send(call, buf, count, dt, dest, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    MPI_Request r = MPI_REQUEST_NULL;
    rc = new_req(call, UMP_MPI_REQ_SEND, buf, count, dt, dest, tag, comm, mode, false, &r);
    if (rc != MPI_SUCCESS) return rc;
    rc = start_send(call, r);
    if (rc != MPI_SUCCESS) {
        ump_mpi_req_release(r);
        return rc;
    }
    *request = r;
    return MPI_SUCCESS;
}

static int send_mode(const char *call, const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, int mode)
{
    int rc = check_send(call, buf, count, dt, dest, tag, comm);
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL) return rc;
    if (mode == MODE_BUFFERED) return ump_mpi_bsend(call, buf, count, dt, dest, tag, comm);
    int w = ump_mpi_world_rank(comm, dest);
    if (mode == MODE_SYNC)
        rc = ump_ssend(buf, (size_t)count, dt, w, tag, comm->ctx_p2p);
    else
        rc = ump_send(buf, (size_t)count, dt, w, tag, comm->ctx_p2p);
    return rc == UMP_OK ? MPI_SUCCESS : raise_core(comm, call, rc, dest);
}

/* A blocking receive, with errors reported as `call`. */
static int recv_impl(const char *call, void *buf, int count, MPI_Datatype dt, int source, int tag,
                     MPI_Comm comm, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        ump_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    int urc = ump_recv(buf, (size_t)count, dt, core_src(comm, source), tag, comm->ctx_p2p, &u);
    int cls = ump_mpi_class_of(urc);
    ump_mpi_status_from_core(comm, &u, status);
    if (cls == MPI_SUCCESS) return MPI_SUCCESS;
    if (urc == UMP_ERR_TRUNCATE || u.error != UMP_OK)
        return ump_mpi_raise_status(comm, call, cls, &u);
    return raise_core(comm, call, urc, source);
}

/* --- MPI functions ------------------------------------------------------------ */

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Send", buf, count, dt, dest, tag, comm, MODE_STANDARD);
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Ssend", buf, count, dt, dest, tag, comm, MODE_SYNC);
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Rsend", buf, count, dt, dest, tag, comm, MODE_READY);
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Bsend", buf, count, dt, dest, tag, comm, MODE_BUFFERED);
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend_mode("MPI_Isend", buf, count, dt, dest, tag, comm, MODE_STANDARD, request);
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Issend", buf, count, dt, dest, tag, comm, MODE_SYNC, request);
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Irsend", buf, count, dt, dest, tag, comm, MODE_READY, request);
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Ibsend", buf, count, dt, dest, tag, comm, MODE_BUFFERED, request);
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    static const char call[] = "MPI_Recv";
    int rc = check_recv(call, buf, count, dt, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    return recv_impl(call, buf, count, dt, source, tag, comm, status);
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    static const char call[] = "MPI_Irecv";
    int rc = check_recv(call, buf, count, dt, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!request) return ump_mpi_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    MPI_Request r = MPI_REQUEST_NULL;
    rc = new_req(call, UMP_MPI_REQ_RECV, buf, count, dt, source, tag, comm, 0, false, &r);
    if (rc != MPI_SUCCESS) return rc;
    rc = start_recv(call, r);
    if (rc != MPI_SUCCESS) {
        ump_mpi_req_release(r);
        return rc;
    }
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    static const char call[] = "MPI_Sendrecv";
    int rc = check_send(call, sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (rc == MPI_SUCCESS)
        rc = check_recv(call, recvbuf, recvcount, recvtype, source, recvtag, comm);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Request r = MPI_REQUEST_NULL;
    rc = new_req(call, UMP_MPI_REQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm, 0,
                 false, &r);
    if (rc != MPI_SUCCESS) return rc;
    rc = start_recv(call, r);
    if (rc != MPI_SUCCESS) {
        ump_mpi_req_release(r);
        return rc;
    }
    int src = send_mode(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, MODE_STANDARD);
    rc = ump_mpi_complete(call, &r, true, NULL, status);
    return src != MPI_SUCCESS ? src : rc;
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char call[] = "MPI_Sendrecv_replace";
    int rc = check_send(call, buf, count, dt, dest, sendtag, comm);
    if (rc == MPI_SUCCESS) rc = check_source_tag(call, source, recvtag, comm);
    if (rc != MPI_SUCCESS) return rc;
    /* The same type receives: refuse it before the send leaves. */
    UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    /* The outgoing data leave from a packed copy, so the receive may land in buf. */
    size_t len;
    rc = ump_mpi_msg_bytes(call, comm, count, dt, &len);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Request s = MPI_REQUEST_NULL;
    if (dest != MPI_PROC_NULL) {
        rc = new_req(call, UMP_MPI_REQ_SEND, buf, count, dt, dest, sendtag, comm, 0, false, &s);
        if (rc != MPI_SUCCESS) return rc;
        s->packbuf = malloc(len ? len : 1);
        if (!s->packbuf) {
            ump_mpi_req_release(s);
            return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %zu bytes", len);
        }
        rc = ump_mpi_pack_into(call, comm, buf, count, dt, s->packbuf, len);
        if (rc == MPI_SUCCESS) {
            int urc = ump_isend(s->packbuf, len, UMP_BYTE, ump_mpi_world_rank(comm, dest), sendtag,
                                comm->ctx_p2p, &s->core);
            if (urc != UMP_OK) rc = raise_core(comm, call, urc, dest);
        }
        if (rc != MPI_SUCCESS) {
            ump_mpi_req_release(s);
            return rc;
        }
        s->active = true;
    }
    rc = recv_impl(call, buf, count, dt, source, recvtag, comm, status);
    int src = s ? ump_mpi_complete(call, &s, true, NULL, MPI_STATUS_IGNORE) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : src;
}

/* --- probes ------------------------------------------------------------------ */

static int check_probe(const char *call, int source, int tag, MPI_Comm comm)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    return check_source_tag(call, source, tag, comm);
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    static const char call[] = "MPI_Probe";
    int rc = check_probe(call, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (source == MPI_PROC_NULL) {
        ump_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    rc = ump_probe(core_src(comm, source), tag, comm->ctx_p2p, &u);
    if (rc != UMP_OK) return raise_core(comm, call, rc, source);
    ump_mpi_status_from_core(comm, &u, status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    static const char call[] = "MPI_Iprobe";
    int rc = check_probe(call, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!flag) return ump_mpi_error(comm, MPI_ERR_ARG, call, "flag is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        ump_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    rc = ump_iprobe(core_src(comm, source), tag, comm->ctx_p2p, flag, &u);
    if (rc != UMP_OK) return raise_core(comm, call, rc, source);
    if (*flag) ump_mpi_status_from_core(comm, &u, status);
    return MPI_SUCCESS;
}

static int new_message(const char *call, MPI_Comm comm, ump_msg_t m, MPI_Message *message)
{
    MPI_Message msg = calloc(1, sizeof(*msg));
    if (!msg) {
        /* The message is already off the queues: receive it nowhere rather than leak it. */
        ump_req_t r;
        if (ump_imrecv(NULL, 0, UMP_BYTE, &m, &r) == UMP_OK) ump_wait(&r, NULL);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a message handle");
    }
    msg->magic = UMP_MPI_MAGIC_MSG;
    msg->msg = m;
    msg->comm = comm;
    ump_mpi_comm_ref(comm);
    *message = msg;
    return MPI_SUCCESS;
}

static void free_message(MPI_Message m)
{
    m->magic = UMP_MPI_MAGIC_DEAD;
    ump_mpi_comm_unref(m->comm);
    free(m);
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    static const char call[] = "MPI_Mprobe";
    int rc = check_probe(call, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!message) return ump_mpi_error(comm, MPI_ERR_ARG, call, "message pointer is NULL");
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        ump_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    ump_msg_t m;
    rc = ump_mprobe(core_src(comm, source), tag, comm->ctx_p2p, &m, &u);
    if (rc != UMP_OK) return raise_core(comm, call, rc, source);
    ump_mpi_status_from_core(comm, &u, status);
    return new_message(call, comm, m, message);
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    static const char call[] = "MPI_Improbe";
    int rc = check_probe(call, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!message || !flag)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "flag or message pointer is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        ump_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    ump_msg_t m = NULL;
    rc = ump_improbe(core_src(comm, source), tag, comm->ctx_p2p, flag, &m, &u);
    if (rc != UMP_OK) return raise_core(comm, call, rc, source);
    if (!*flag) return MPI_SUCCESS;
    ump_mpi_status_from_core(comm, &u, status);
    return new_message(call, comm, m, message);
}

static int check_mrecv(const char *call, void *buf, int count, MPI_Datatype dt,
                       MPI_Message *message)
{
    UMP_MPI_CHECK_INIT(call);
    if (!message || !*message || (*message)->magic != UMP_MPI_MAGIC_MSG)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "message is MPI_MESSAGE_NULL, invalid or already received");
    MPI_Comm comm = *message == MPI_MESSAGE_NO_PROC ? MPI_COMM_NULL : (*message)->comm;
    UMP_MPI_CHECK_COUNT(call, comm, count);
    UMP_MPI_CHECK_DT(call, comm, dt);
    UMP_MPI_CHECK_RECV_DT(call, comm, dt, count);
    UMP_MPI_CHECK_BUF(call, comm, buf, count, dt);
    return MPI_SUCCESS;
}

static int imrecv(const char *call, void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                  MPI_Request *request)
{
    int rc = check_mrecv(call, buf, count, dt, message);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Message m = *message;
    MPI_Comm comm = m == MPI_MESSAGE_NO_PROC ? MPI_COMM_SELF : m->comm;
    MPI_Request r = MPI_REQUEST_NULL;
    rc = new_req(call, UMP_MPI_REQ_RECV, buf, count, dt,
                 m == MPI_MESSAGE_NO_PROC ? MPI_PROC_NULL : MPI_ANY_SOURCE, MPI_ANY_TAG, comm, 0,
                 false, &r);
    if (rc != MPI_SUCCESS) return rc;
    if (m == MPI_MESSAGE_NO_PROC) {
        complete_now(r, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        *message = MPI_MESSAGE_NULL;
        *request = r;
        return MPI_SUCCESS;
    }
    rc = ump_imrecv(buf, (size_t)count, dt, &m->msg, &r->core);
    if (rc != UMP_OK) {
        ump_mpi_req_release(r);
        return raise_core(comm, call, rc, MPI_ANY_SOURCE);
    }
    r->active = true;
    free_message(m);
    *message = MPI_MESSAGE_NULL;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
    if (!request)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, "MPI_Imrecv",
                             "request pointer is NULL");
    return imrecv("MPI_Imrecv", buf, count, dt, message, request);
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    static const char call[] = "MPI_Mrecv";
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = imrecv(call, buf, count, dt, message, &r);
    if (rc != MPI_SUCCESS) return rc;
    return ump_mpi_complete(call, &r, true, NULL, status);
}

/* --- persistent requests ---------------------------------------------------- */

static int send_init(const char *call, const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    int rc = check_send(call, buf, count, dt, dest, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    return new_req(call, UMP_MPI_REQ_SEND, buf, count, dt, dest, tag, comm, mode, true, request);
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return send_init("MPI_Send_init", buf, count, dt, dest, tag, comm, MODE_STANDARD, request);
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return send_init("MPI_Ssend_init", buf, count, dt, dest, tag, comm, MODE_SYNC, request);
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return send_init("MPI_Rsend_init", buf, count, dt, dest, tag, comm, MODE_READY, request);
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return send_init("MPI_Bsend_init", buf, count, dt, dest, tag, comm, MODE_BUFFERED, request);
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    static const char call[] = "MPI_Recv_init";
    int rc = check_recv(call, buf, count, dt, source, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    return new_req(call, UMP_MPI_REQ_RECV, buf, count, dt, source, tag, comm, 0, true, request);
}

static int start(const char *call, MPI_Request *request)
{
    if (!request || !*request || (*request)->magic != UMP_MPI_MAGIC_REQ)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "request is null, invalid or already freed");
    MPI_Request r = *request;
    if (!r->persistent)
        return ump_mpi_error(r->comm, MPI_ERR_REQUEST, call, "request is not persistent");
    if (r->active || r->complete)
        return ump_mpi_error(r->comm, MPI_ERR_REQUEST, call,
                             "persistent request is still active (wait for it first)");
    if (!ump_mpi_comm_ok(r->comm))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call,
                             "the request's communicator is no longer valid");
    return r->kind == UMP_MPI_REQ_SEND ? start_send(call, r) : start_recv(call, r);
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    static const char call[] = "MPI_Start";
    UMP_MPI_CHECK_INIT(call);
    return start(call, request);
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request reqs[])
{
    static const char call[] = "MPI_Startall";
    UMP_MPI_CHECK_INIT(call);
    if (count < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "count %d is negative", count);
    if (count > 0 && !reqs)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call, "array of requests is NULL");
    for (int i = 0; i < count; i++) {
        int rc = start(call, &reqs[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
