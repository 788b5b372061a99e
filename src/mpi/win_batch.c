/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batches of one-sided operations (win.h): over a transport where every
 * message costs a system call, a run of small puts, accumulates and gets
 * to one target goes as one message. An operation is copied into its
 * target's batch (a put or accumulate is complete at the origin at once; a
 * get's reply receive is posted and kept in flight, and waiting for what
 * is in flight sends the batches first); the batch leaves before the next
 * message of any other kind to that target
 * (so one origin's operations still reach a target in issue order), with
 * the next control message (a flush or an unlock travels inside it: one
 * message and one reply), at a fence or a window's end, or when full. The
 * target applies a batch's operations in order, each as if alone.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/win.h"

/* Most a batch holds: its own header, up to UMP_WIN_BATCH_CAP bytes of
 * operations, and one more operation of up to UMP_WIN_BATCH_OP_MAX. Its
 * buffer starts at BATCH_MIN and doubles as operations come, so a target
 * sent only small ones keeps a small buffer. */
#define BATCH_BUF (sizeof(ump_win_hdr_t) + UMP_WIN_BATCH_CAP + UMP_WIN_BATCH_OP_MAX + 8)
#define BATCH_MIN 4096

void *ump_win_batch_room(MPI_Win w, int target, size_t len, uint64_t join, int *rc)
{
    *rc = MPI_SUCCESS;
    if (!w->batch && !(w->batch = calloc((size_t)w->size, sizeof(*w->batch)))) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    struct ump_win_batch *b = &w->batch[target];
    size_t room = (len + 7) & ~(size_t)7;
    bool full = b->len + room > UMP_WIN_BATCH_CAP ||
                (join && b->join_len + ((join + 7) & ~(uint64_t)7) > UMP_WIN_JOIN_CAP);
    if (b->len && full && (*rc = ump_win_batch_send(w, target))) return NULL;
    size_t need = sizeof(ump_win_hdr_t) + b->len + room;
    if (!b->buf || need > b->cap) {
        size_t cap = b->buf ? b->cap : BATCH_MIN;
        while (cap < need)
            cap *= 2;
        if (cap > BATCH_BUF) cap = BATCH_BUF;
        char *p = realloc(b->buf, cap);
        if (!p) {
            *rc = MPI_ERR_NO_MEM;
            return NULL;
        }
        b->buf = p;
        b->cap = cap;
    }
    return b->buf + sizeof(ump_win_hdr_t) + b->len;
}

void ump_win_batch_commit(MPI_Win w, int target, size_t len)
{
    struct ump_win_batch *b = &w->batch[target];
    size_t room = (len + 7) & ~(size_t)7;
    memset(b->buf + sizeof(ump_win_hdr_t) + b->len + len, 0, room - len);
    b->len += room;
}

int ump_win_batch_add(MPI_Win w, int target, const void *msg, size_t len)
{
    int rc;
    void *at = ump_win_batch_room(w, target, len, 0, &rc);
    if (!at) return rc;
    memcpy(at, msg, len);
    ump_win_batch_commit(w, target, len);
    return MPI_SUCCESS;
}

bool ump_win_batch_join(MPI_Win w, int target, void *addr, size_t count, MPI_Datatype dt,
                        uint64_t len)
{
    struct ump_win_batch *b = &w->batch[target];
    if (len > UMP_WIN_JOIN_MAX || b->join_len + ((len + 7) & ~(uint64_t)7) > UMP_WIN_JOIN_CAP)
        return false;
    if (b->njoin == b->cjoin) {
        size_t c = b->cjoin ? 2 * b->cjoin : 16;
        ump_win_join_t *j = realloc(b->join, c * sizeof(*j));
        if (!j) return false; /* the get replies on its own */
        b->join = j;
        b->cjoin = c;
    }
    ump_dt_ref(dt);
    b->join[b->njoin++] = (ump_win_join_t){
        .addr = addr, .count = count, .dt = dt, .off = b->join_len, .len = len, .at = b->len};
    b->join_len += (len + 7) & ~(uint64_t)7;
    return true;
}

/* Forgets the joined gets of a batch (sent, or that cannot go). */
static void join_drop(struct ump_win_batch *b)
{
    for (size_t i = 0; i < b->njoin; i++)
        ump_dt_unref(b->join[i].dt);
    b->njoin = 0;
    b->join_len = 0;
}

/* Posts the receive of the batch's joined reply into a buffer of its own,
 * kept with its gets among what the window has in flight; MPI class. */
static int join_recv(MPI_Win w, int target, ump_win_hdr_t *h)
{
    struct ump_win_batch *b = &w->batch[target];
    if (b->njoin == 1) {
        /* One get alone: its reply comes on its own, straight into its
         * layout and, from a window of one run, from the window itself. */
        ump_win_join_t *j = &b->join[0];
        ump_win_hdr_t *g = (ump_win_hdr_t *)(b->buf + sizeof(*h) + j->at);
        ump_req_t rr = UMP_REQ_NULL;
        g->flags &= (uint8_t)~UMP_WIN_F_JOIN;
        g->reply_tag = ump_win_tag(w);
        int urc = ump_irecv(j->addr, j->count, j->dt, ump_win_world(w, target), g->reply_tag,
                            w->comm->ctx_p2p, &rr);
        int rc = urc == UMP_OK ? ump_win_pend_add_reply(w, rr) : ump_mpi_class_of(urc);
        if (urc == UMP_OK && rc != MPI_SUCCESS) {
            ump_cancel(&rr);
            ump_wait(&rr, UMP_STATUS_IGNORE);
        }
        join_drop(b);
        return rc;
    }
    char *buf = ump_win_join_buf(w);
    ump_win_join_t *join = malloc(b->njoin * sizeof(*join));
    ump_req_t rr = UMP_REQ_NULL;
    int rc = buf && join ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    h->flags = UMP_WIN_F_JOIN;
    h->reply_tag = ump_win_tag(w);
    h->tlen = b->join_len;
    if (rc == MPI_SUCCESS) {
        int urc = ump_irecv(buf, b->join_len, UMP_BYTE, ump_win_world(w, target), h->reply_tag,
                            w->comm->ctx_p2p, &rr);
        rc = urc == UMP_OK ? MPI_SUCCESS : ump_mpi_class_of(urc);
    }
    if (rc == MPI_SUCCESS) {
        memcpy(join, b->join, b->njoin * sizeof(*join));
        rc = ump_win_pend_add_join(w, rr, buf, join, b->njoin);
        if (rc == MPI_SUCCESS) {
            b->njoin = 0;
            b->join_len = 0;
            return MPI_SUCCESS;
        }
        ump_cancel(&rr);
        ump_wait(&rr, UMP_STATUS_IGNORE);
    }
    free(buf); /* not kept: the error ends the batch */
    free(join);
    return rc;
}

int ump_win_batch_send(MPI_Win w, int target)
{
    if (!ump_win_batch_held(w, target)) return MPI_SUCCESS;
    struct ump_win_batch *b = &w->batch[target];
    ump_win_hdr_t *h = (ump_win_hdr_t *)b->buf;
    memset(h, 0, sizeof(*h));
    h->op = UMP_WIN_BATCH;
    h->origin = w->rank;
    h->datalen = b->len;
    size_t len = sizeof(*h) + b->len;
    if (b->njoin) {
        int jrc = join_recv(w, target, h);
        if (jrc != MPI_SUCCESS) {
            /* Its gets' replies could never be received: it stays
             * unsent, as a batch whose send failed. */
            join_drop(b);
            w->batch_replies -= b->replies;
            b->replies = 0;
            b->len = 0;
            return jrc;
        }
    }
    /* The buffer leaves the batch while it is being sent: the request
     * may run progress, which may start this target's next batch. */
    char *msg = b->buf;
    size_t msg_cap = b->cap;
    b->buf = NULL;
    b->len = 0;
    b->cap = 0;
    w->batch_replies -= b->replies;
    b->replies = 0;
    ump_req_t sr = UMP_REQ_NULL;
    int rc = ump_isend(msg, len, UMP_BYTE, ump_win_world(w, target), UMP_WIN_TAG_REQ,
                       w->comm->ctx_p2p, &sr);
    if (rc != UMP_OK) {
        free(msg);
        return ump_mpi_class_of(rc);
    }
    /* Sent already (an eager message the transport took): the buffer
     * serves the next batch; else it goes with the send, freed once it
     * completed, and the next batch takes a new one. */
    int done = 0;
    rc = ump_test(&sr, &done, UMP_STATUS_IGNORE);
    if (done) {
        if (!b->buf) {
            b->buf = msg;
            b->cap = msg_cap;
        } else {
            free(msg);
        }
        return rc == UMP_OK ? MPI_SUCCESS : ump_mpi_class_of(rc);
    }
    int mrc = ump_win_pend_add(w, sr, msg, UMP_REQ_NULL);
    if (mrc != MPI_SUCCESS) {
        ump_wait(&sr, UMP_STATUS_IGNORE);
        free(msg);
    }
    return mrc;
}

int ump_win_batch_send_all(MPI_Win w)
{
    int rc = MPI_SUCCESS;
    for (int t = 0; w->batch && t < w->size; t++) {
        int r = ump_win_batch_send(w, t);
        if (rc == MPI_SUCCESS) rc = r;
    }
    return rc;
}

void ump_win_batch_free(MPI_Win w)
{
    for (int t = 0; w->batch && t < w->size; t++) {
        join_drop(&w->batch[t]);
        free(w->batch[t].join);
        free(w->batch[t].buf);
    }
    free(w->batch);
    w->batch = NULL;
}
