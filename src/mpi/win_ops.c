/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided communication calls at the origin: Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap and their request forms.
 *
 * Each call checks its arguments here, where the error can name the call
 * and the argument (the origin knows every rank's window size, so a
 * displacement outside the target's window is caught before anything is
 * sent), then sends one message: a header, the target layout flattened to
 * (offset, length) runs, and the origin data packed in stream order. The
 * target applies it (win_am.c); a reply, when the call fetches data, is
 * received straight into the origin's layout. On a direct window the
 * origin does the operation itself instead (win_direct.c), and a large
 * get it reads itself where the transport can (read_get).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "mpi/win.h"
#include "util/util.h"

typedef struct {
    const char *call;
    int op; /* UMP_WIN_PUT, ... */
    const void *oaddr;
    int ocount;
    MPI_Datatype odt;
    void *raddr; /* where a reply lands (GET: oaddr) */
    int rcount;
    MPI_Datatype rdt;
    int target;
    MPI_Aint tdisp;
    int tcount;
    MPI_Datatype tdt;
    MPI_Op redop;
    const void *compare; /* CAS */
    MPI_Request *request;
    /* Fetch_and_op and Compare_and_swap: the reply is awaited before the
     * call returns. Their result is one element, so this costs the round
     * trip a flush would wait for anyway, and a program that frees or
     * reuses the result buffer before the epoch ends (which MPI forbids,
     * but programs and other MPIs' tests do) finds it written already. */
    bool wait_reply;
} rma_args_t;

/* The predefined type a type is a repetition of (signatures compose, so a
 * vector of ints is made of MPI_INT); NULL when it mixes basic types. */
static MPI_Datatype basic_of(MPI_Datatype dt)
{
    if (dt->predefined) return dt;
    if (!dt->nbasic) return NULL;
    uint64_t sig = ump_dt_sig(dt, 1);
    MPI_Datatype p;
    for (int i = 0; (p = ump_win_dt_at(i)) != MPI_DATATYPE_NULL; i++) {
        if (!p->nbasic) continue;
        size_t reps = dt->nbasic / p->nbasic;
        if (reps * p->nbasic != dt->nbasic || reps * p->size != dt->size) continue;
        if (ump_dt_sig(p, reps) == sig) return p;
    }
    return NULL;
}

static const char *dt_name(MPI_Datatype dt)
{
    return dt->name && *dt->name ? dt->name : "(derived)";
}

static bool in_access_epoch(MPI_Win w, int target)
{
    if (w->epoch == UMP_WIN_EPOCH_FENCE || w->locked[target]) return true;
    for (int i = 0; i < w->nstart; i++)
        if (w->start_group[i] == target) return true;
    return false;
}

static int check_dt(MPI_Win w, const char *call, const char *what, MPI_Datatype dt, int count)
{
    if (count < 0)
        return ump_win_error(w, MPI_ERR_COUNT, call, "%s count %d is negative", what, count);
    if (!ump_mpi_dt_ok(dt))
        return ump_win_error(w, MPI_ERR_TYPE, call, "%s datatype is null, freed or not committed",
                             what);
    return MPI_SUCCESS;
}

/* A request already complete (the data were copied, or nothing to do). */
static int done_request(MPI_Win w, const char *call, MPI_Request *request, ump_req_t *g)
{
    ump_req_t greq;
    int rc = ump_greq_start(&greq);
    if (rc != UMP_OK) return ump_win_error(w, ump_mpi_class_of(rc), call, "no request");
    MPI_Request r = ump_mpi_req_new(UMP_MPI_REQ_COLL, w->comm);
    if (!r) {
        ump_greq_complete(greq, UMP_OK);
        ump_wait(&greq, UMP_STATUS_IGNORE);
        return ump_win_error(w, MPI_ERR_NO_MEM, call, "out of memory for the request");
    }
    r->core = greq;
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    *request = r;
    if (g)
        *g = greq;
    else
        ump_greq_complete(greq, UMP_OK);
    return MPI_SUCCESS;
}

static int check(MPI_Win w, const rma_args_t *a, MPI_Datatype *basic)
{
    const char *call = a->call;
    int rc;
    bool has_origin = a->op != UMP_WIN_GET && !(a->op == UMP_WIN_GACC && a->redop == MPI_NO_OP);
    bool has_result = a->op == UMP_WIN_GET || a->op == UMP_WIN_GACC || a->op == UMP_WIN_CAS;
    if (has_origin && (rc = check_dt(w, call, "origin", a->odt, a->ocount))) return rc;
    if (a->op == UMP_WIN_GACC && (rc = check_dt(w, call, "result", a->rdt, a->rcount))) return rc;
    if ((rc = check_dt(w, call, "target", a->tdt, a->tcount))) return rc;
    if (a->target != MPI_PROC_NULL && (a->target < 0 || a->target >= w->size))
        return ump_win_error(w, MPI_ERR_RANK, call, "target rank %d is out of range [0, %d)",
                             a->target, w->size);
    if (has_origin && !ump_mpi_buf_ok(a->oaddr, a->ocount, a->odt))
        return ump_win_error(w, MPI_ERR_BUFFER, call, "origin buffer is NULL with count %d",
                             a->ocount);
    if (has_result && !ump_mpi_buf_ok(a->raddr, a->rcount, a->rdt))
        return ump_win_error(w, MPI_ERR_BUFFER, call, "result buffer is NULL with count %d",
                             a->rcount);
    if (has_result && ump_dt_overlaps(a->rdt, (size_t)a->rcount))
        return ump_win_error(w, MPI_ERR_TYPE, call, "result datatype '%s' has overlapping entries",
                             dt_name(a->rdt));
    if (a->op != UMP_WIN_GET && a->op != UMP_WIN_PUT && ump_dt_overlaps(a->tdt, (size_t)a->tcount))
        return ump_win_error(w, MPI_ERR_TYPE, call, "target datatype '%s' has overlapping entries",
                             dt_name(a->tdt));
    size_t tbytes = (size_t)a->tcount * a->tdt->size;
    if (has_origin && (size_t)a->ocount * a->odt->size != tbytes)
        return ump_win_error(w, MPI_ERR_TYPE, call,
                             "origin data (%d x %s, %zu bytes) and target data (%d x %s, %zu "
                             "bytes) differ in length",
                             a->ocount, dt_name(a->odt), (size_t)a->ocount * a->odt->size,
                             a->tcount, dt_name(a->tdt), tbytes);
    if (has_result && (size_t)a->rcount * a->rdt->size != tbytes)
        return ump_win_error(w, MPI_ERR_TYPE, call,
                             "result buffer (%d x %s) and target data (%d x %s) differ in length",
                             a->rcount, dt_name(a->rdt), a->tcount, dt_name(a->tdt));
    *basic = MPI_DATATYPE_NULL;
    if (a->op == UMP_WIN_ACC || a->op == UMP_WIN_GACC || a->op == UMP_WIN_CAS) {
        if (a->op != UMP_WIN_CAS && (!ump_mpi_op_ok(a->redop) || !a->redop->predefined))
            return ump_win_error(w, MPI_ERR_OP, call,
                                 "op is invalid or user-defined (one-sided accumulates take "
                                 "predefined ops only)");
        MPI_Datatype tb = basic_of(a->tdt);
        MPI_Datatype ob = has_origin ? basic_of(a->odt) : tb;
        if (!tb || !ob || tb->kind != ob->kind)
            return ump_win_error(w, MPI_ERR_TYPE, call,
                                 "origin (%s) and target (%s) datatypes must be made of one "
                                 "and the same predefined type",
                                 dt_name(a->odt ? a->odt : a->tdt), dt_name(a->tdt));
        /* Nothing moves with a zero count: the op need not suit the type
         * (as other MPIs accept it). */
        if (a->op != UMP_WIN_CAS && a->redop != MPI_REPLACE && a->redop != MPI_NO_OP && tbytes) {
            ump_coll_red_t r;
            if (ump_coll_red_prepare(&r, a->redop->uop, tb) != UMP_OK)
                return ump_win_error(w, MPI_ERR_OP, call, "%s does not apply to datatype %s",
                                     a->redop->name, dt_name(tb));
        }
        *basic = tb;
    }
    if (a->target == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!in_access_epoch(w, a->target))
        return ump_win_error(w, MPI_ERR_RMA_SYNC, call,
                             "no access epoch to target rank %d is open (call MPI_Win_fence, "
                             "MPI_Win_lock, MPI_Win_lock_all or MPI_Win_start first)",
                             a->target);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !a->tcount || !tbytes) return MPI_SUCCESS;
    /* The bytes the target layout touches, from the window's base. */
    long long unit = w->peers[a->target].disp_unit;
    long long ext = (long long)ump_dt_extent(a->tdt) * (a->tcount - 1);
    long long at = (long long)a->tdisp * unit;
    long long lo = at + ump_dt_true_lb(a->tdt) + (ext < 0 ? ext : 0);
    long long hi = at + a->tdt->true_ub + (ext > 0 ? ext : 0);
    if (a->tdisp < 0 || lo < 0 || hi > (long long)w->peers[a->target].size)
        return ump_win_error(w, MPI_ERR_RMA_RANGE, call,
                             "target displacement %ld (x unit %lld) with %d x %s touches bytes "
                             "[%lld, %lld), outside rank %d's window of %ld bytes",
                             (long)a->tdisp, unit, a->tcount, dt_name(a->tdt), lo, hi, a->target,
                             (long)w->peers[a->target].size);
    return MPI_SUCCESS;
}

/* The target layout as (offset, length) runs, adjacent ones merged;
 * false when it has more than maxruns. */
static bool flatten(const rma_args_t *a, size_t tbytes, ump_win_run_t *runs, size_t maxruns,
                    size_t *nruns)
{
    size_t n = 0;
    if (ump_dt_is_contig(a->tdt)) {
        runs[0].off = ump_dt_true_lb(a->tdt);
        runs[0].len = tbytes;
        *nruns = 1;
        return true;
    }
    ump_dt_cursor_t cur;
    ump_dt_cursor_init(&cur, NULL, (size_t)a->tcount, a->tdt, 0);
    struct iovec iov[64];
    while (!ump_dt_cursor_done(&cur)) {
        int niov = 0;
        ump_dt_cursor_iov(&cur, tbytes, iov, 64, &niov);
        if (niov == 0) break;
        for (int i = 0; i < niov; i++) {
            if (n &&
                runs[n - 1].off + (int64_t)runs[n - 1].len == (int64_t)(intptr_t)iov[i].iov_base) {
                runs[n - 1].len += iov[i].iov_len;
                continue;
            }
            if (n == maxruns) return false;
            runs[n].off = (int64_t)(intptr_t)iov[i].iov_base;
            runs[n].len = iov[i].iov_len;
            n++;
        }
    }
    *nruns = n;
    return true;
}

/* A direct window: the origin does the operation itself (win_direct.c),
 * complete when this returns, so a request form's request is too. */
static int direct(MPI_Win w, const rma_args_t *a, MPI_Datatype basic, size_t tbytes, size_t maxruns)
{
    const char *call = a->call;
    ump_win_run_t one, *runs = maxruns == 1 ? &one : malloc(maxruns * sizeof(*runs));
    if (!runs)
        return ump_win_error(w, MPI_ERR_NO_MEM, call, "out of memory for %zu target runs", maxruns);
    size_t nruns = 0;
    int rc = MPI_SUCCESS;
    if (!flatten(a, tbytes, runs, maxruns, &nruns)) {
        rc = ump_win_error(w, MPI_ERR_INTERN, call, "target datatype has more runs than expected");
    } else {
        ump_win_direct_op_t d = {
            .op = a->op,
            .redop = a->redop,
            .basic = basic,
            .oaddr = a->oaddr,
            .ocount = a->ocount,
            .odt = a->odt,
            .raddr = a->raddr,
            .rcount = a->rcount,
            .rdt = a->rdt,
            .compare = a->compare,
            .tbase = ump_win_direct_base(w, a->target) +
                     (long long)a->tdisp * w->peers[a->target].disp_unit,
            .runs = runs,
            .nruns = nruns,
            .tbytes = tbytes,
        };
        w->direct_since = true;
        rc = ump_win_direct_op(w, a->target, &d);
        if (rc != MPI_SUCCESS)
            rc = ump_win_error(w, rc, call, "cannot operate on rank %d's window", a->target);
    }
    if (runs != &one) free(runs);
    if (rc == MPI_SUCCESS && a->request) rc = done_request(w, call, a->request, NULL);
    return rc;
}

UMP_CFG(ump_win_cfg_read, "UMP_WIN_READ", UMP_CFG_BOOL, "1",
        "a get of more than 16 KiB from one run of a window is read by the origin itself where "
        "the transport reads a peer's memory with no key and faster than it copies (tcp); 0 "
        "sends it as a message the target answers");

/* A large get of one run the origin reads itself (win.h,
 * UMP_WIN_READ_MIN): false, nothing done, when the pair's transport
 * cannot; else true, with *rc the call's result. */
static bool read_get(MPI_Win w, const rma_args_t *a, size_t tbytes, int *rc)
{
    if (ump_win_cfg_read.loaded && !ump_win_cfg_read.v.b) return false;
    ump_win_run_t run;
    size_t n = 0;
    if (!flatten(a, tbytes, &run, 1, &n) || n != 1) return false;
    uint64_t addr = w->peers[a->target].base +
                    (uint64_t)((long long)a->tdisp * w->peers[a->target].disp_unit) +
                    (uint64_t)run.off;
    int tw = ump_win_world(w, a->target);
    ump_req_t req = UMP_REQ_NULL;
    int urc = ump_rget(a->raddr, (size_t)a->rcount, a->rdt, tw, addr, &req);
    if (urc == UMP_ERR_UNSUPPORTED) return false;
    if (urc != UMP_OK) {
        *rc = ump_win_error(w, ump_mpi_class_of(urc), a->call, "cannot read rank %d's window",
                            a->target);
        return true;
    }
    /* The request form's request completes with the read. */
    ump_req_t g = UMP_REQ_NULL;
    *rc = a->request ? done_request(w, a->call, a->request, &g) : MPI_SUCCESS;
    if (*rc == MPI_SUCCESS)
        *rc = g ? ump_win_pend_add(w, req, NULL, g) : ump_win_pend_add_reply(w, req);
    if (*rc != MPI_SUCCESS) {
        ump_wait(&req, UMP_STATUS_IGNORE);
        if (g) ump_greq_complete(g, UMP_OK);
        return true;
    }
    w->reads++;
    return true;
}

static int rma(MPI_Win w, const rma_args_t *a)
{
    const char *call = a->call;
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    int rc = check(w, a, &basic);
    if (rc != MPI_SUCCESS) return rc;
    bool fetches = a->op == UMP_WIN_GET || a->op == UMP_WIN_GACC || a->op == UMP_WIN_CAS;
    size_t tbytes = (size_t)a->tcount * a->tdt->size;
    if (a->target == MPI_PROC_NULL || tbytes == 0)
        return a->request ? done_request(w, call, a->request, NULL) : MPI_SUCCESS;

    /* The target layout as runs: at most nblocks per element. */
    size_t maxruns = ump_dt_is_contig(a->tdt) ? 1 : (size_t)a->tcount * ump_dt_nblocks(a->tdt);
    if (w->direct) return direct(w, a, basic, tbytes, maxruns);
    if (a->op == UMP_WIN_GET && maxruns == 1 && tbytes >= UMP_WIN_READ_MIN &&
        w->peers[a->target].base && read_get(w, a, tbytes, &rc))
        return rc;
    /* Not the request form, whose request is complete at once. */
    bool split = (a->op == UMP_WIN_PUT || a->op == UMP_WIN_ACC) && !a->request && maxruns == 1 &&
                 tbytes >= UMP_WIN_SPLIT_MIN && w->flavor != MPI_WIN_FLAVOR_DYNAMIC;
    size_t datalen = 0;
    if (split)
        datalen = 0; /* the data follow as their own message */
    else if (a->op == UMP_WIN_PUT || a->op == UMP_WIN_ACC ||
             (a->op == UMP_WIN_GACC && a->redop != MPI_NO_OP))
        datalen = tbytes;
    else if (a->op == UMP_WIN_CAS)
        datalen = 2 * tbytes;
    size_t cap = sizeof(ump_win_hdr_t) + maxruns * sizeof(ump_win_run_t) + datalen;
    /* A small operation that may wait in the target's batch: not a
     * request form (its request is complete at once) nor one awaited
     * before the call returns. When even its largest layout fits, it is
     * written straight into the batch, else built apart and copied there
     * if its runs merged enough. */
    bool batchable = !split && !a->request && !a->wait_reply;
    bool in_place = batchable && cap <= UMP_WIN_BATCH_OP_MAX;
    /* A get whose data may join the batch's reply (win.h) starts a new
     * batch when the reply would grow too large for them. */
    uint64_t join = a->op == UMP_WIN_GET && tbytes <= UMP_WIN_JOIN_MAX ? tbytes : 0;
    char *msg = in_place ? ump_win_batch_room(w, a->target, cap, join, &rc) : malloc(cap);
    if (!msg && in_place)
        return ump_win_error(w, rc, call, "cannot operate on rank %d's window", a->target);
    if (!msg) return ump_win_error(w, MPI_ERR_NO_MEM, call, "out of memory for %zu bytes", cap);
    ump_win_hdr_t *h = (ump_win_hdr_t *)msg;
    memset(h, 0, sizeof(*h));
    ump_win_run_t *runs = (ump_win_run_t *)(h + 1);
    size_t nruns = 0;
    if (!flatten(a, tbytes, runs, maxruns, &nruns)) {
        if (!in_place) free(msg);
        return ump_win_error(w, MPI_ERR_INTERN, call,
                             "target datatype has more runs than expected");
    }
    char *data = (char *)(runs + nruns);
    if (datalen) ump_dt_pack(a->oaddr, (size_t)a->ocount, a->odt, 0, data, tbytes);
    if (a->op == UMP_WIN_CAS) memcpy(data + tbytes, a->compare, tbytes);
    h->op = (uint8_t)a->op;
    h->origin = w->rank;
    h->redop = a->redop ? ump_win_op_index(a->redop) : -1;
    h->basic = basic ? ump_win_dt_index(basic) : -1;
    h->disp = (uint64_t)((long long)a->tdisp * w->peers[a->target].disp_unit);
    h->nruns = nruns;
    h->datalen = datalen;
    h->tlen = tbytes;
    size_t len = sizeof(*h) + nruns * sizeof(ump_win_run_t) + datalen;
    int tw = ump_win_world(w, a->target);
    uint32_t ctx = w->comm->ctx_p2p;
    ump_req_t g = UMP_REQ_NULL;
    if (a->request) {
        rc = done_request(w, call, a->request, fetches ? &g : NULL);
        if (rc != MPI_SUCCESS) {
            free(msg);
            return rc;
        }
    }
    w->unproven[a->target] = !fetches;
    /* A small operation waits in the target's batch, a get's reply
     * received straight into the origin's layout once the batch went; a
     * request form, or one awaited before the call returns, goes after the
     * batch, in order. */
    if (in_place || (batchable && len <= UMP_WIN_BATCH_OP_MAX)) {
        ump_req_t rr = UMP_REQ_NULL;
        int urc = UMP_OK;
        bool joined = in_place && join &&
                      ump_win_batch_join(w, a->target, a->raddr, (size_t)a->rcount, a->rdt, tbytes);
        if (joined) {
            h->flags |= UMP_WIN_F_JOIN; /* its data come in the batch's reply */
            w->batch[a->target].replies++;
            w->batch_replies++;
        } else if (fetches) {
            h->reply_tag = ump_win_tag(w);
            urc = ump_irecv(a->raddr, (size_t)a->rcount, a->rdt, tw, h->reply_tag, ctx, &rr);
        }
        if (urc != UMP_OK) {
            rc = ump_mpi_class_of(urc);
        } else if (in_place) {
            ump_win_batch_commit(w, a->target, len);
            rc = MPI_SUCCESS;
        } else {
            rc = ump_win_batch_add(w, a->target, msg, len);
        }
        if (!in_place) free(msg);
        if (rc == MPI_SUCCESS && rr) {
            rc = ump_win_pend_add_reply(w, rr);
            if (rc == MPI_SUCCESS) {
                w->batch[a->target].replies++;
                w->batch_replies++;
            }
        }
        if (rc != MPI_SUCCESS) {
            if (rr) ump_cancel(&rr), ump_wait(&rr, UMP_STATUS_IGNORE);
            return ump_win_error(w, rc, call, "cannot operate on rank %d's window", a->target);
        }
        return MPI_SUCCESS;
    }
    if ((rc = ump_win_batch_send(w, a->target)) != MPI_SUCCESS) {
        free(msg);
        return ump_win_error(w, rc, call, "cannot reach target rank %d", a->target);
    }
    int urc = UMP_OK;
    ump_req_t reply = UMP_REQ_NULL;
    if (fetches) {
        ump_req_t rr;
        h->reply_tag = ump_win_tag(w);
        urc = ump_irecv(a->raddr, (size_t)a->rcount, a->rdt, tw, h->reply_tag, ctx, &rr);
        if (a->wait_reply)
            reply = rr;
        else if (urc == UMP_OK && (g ? ump_win_pend_add(w, rr, NULL, g)
                                     : ump_win_pend_add_reply(w, rr)) != MPI_SUCCESS)
            urc = UMP_ERR_NO_MEMORY;
    }
    int dtag = 0;
    if (split) {
        h->flags |= UMP_WIN_F_DATA;
        h->reply_tag = dtag = UMP_WIN_DATA_TAG(ump_win_tag(w));
    }
    ump_req_t sr = UMP_REQ_NULL;
    if (urc == UMP_OK) urc = ump_isend(msg, len, UMP_BYTE, tw, UMP_WIN_TAG_REQ, ctx, &sr);
    if (urc == UMP_OK && ump_win_pend_add(w, sr, msg, UMP_REQ_NULL) != MPI_SUCCESS) {
        ump_wait(&sr, UMP_STATUS_IGNORE);
        free(msg);
        urc = UMP_ERR_NO_MEMORY;
    }
    if (urc == UMP_OK && split) {
        /* The origin's buffer goes as it is; the epoch's end waits for it. */
        ump_req_t dr = UMP_REQ_NULL;
        urc = ump_isend(a->oaddr, (size_t)a->ocount, a->odt, tw, dtag, ctx, &dr);
        if (urc == UMP_OK && ump_win_pend_add(w, dr, NULL, UMP_REQ_NULL) != MPI_SUCCESS) {
            ump_wait(&dr, UMP_STATUS_IGNORE);
            urc = UMP_ERR_NO_MEMORY;
        }
    }
    if (urc == UMP_OK && reply) urc = ump_wait(&reply, UMP_STATUS_IGNORE);
    if (urc != UMP_OK) {
        if (!sr) free(msg);
        if (reply) { /* the message never left: nothing will answer */
            ump_cancel(&reply);
            ump_wait(&reply, UMP_STATUS_IGNORE);
        }
        return ump_win_error(w, ump_mpi_class_of(urc), call, "cannot reach target rank %d: %s",
                             a->target, ump_strerror(urc));
    }
    return MPI_SUCCESS;
}

/* --- the calls ---------------------------------------------------------------------- */

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    static const char call[] = "MPI_Put";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    rma_args_t a = {
        call,        UMP_WIN_PUT, origin_addr,  origin_count,    origin_datatype, NULL, 0,   NULL,
        target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL,     NULL, NULL};
    return rma(win, &a);
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    static const char call[] = "MPI_Rput";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!request) return ump_win_error(win, MPI_ERR_ARG, call, "request is NULL");
    rma_args_t a = {
        call,        UMP_WIN_PUT, origin_addr, origin_count, origin_datatype, NULL,
        0,           NULL,        target_rank, target_disp,  target_count,    target_datatype,
        MPI_OP_NULL, NULL,        request};
    return rma(win, &a);
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    static const char call[] = "MPI_Get";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_dt(win, call, "origin", origin_datatype, origin_count);
    if (rc) return rc;
    rma_args_t a = {call,         UMP_WIN_GET,     origin_addr,     origin_count, origin_datatype,
                    origin_addr,  origin_count,    origin_datatype, target_rank,  target_disp,
                    target_count, target_datatype, MPI_OP_NULL,     NULL,         NULL};
    return rma(win, &a);
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    static const char call[] = "MPI_Rget";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!request) return ump_win_error(win, MPI_ERR_ARG, call, "request is NULL");
    int rc = check_dt(win, call, "origin", origin_datatype, origin_count);
    if (rc) return rc;
    rma_args_t a = {call,         UMP_WIN_GET,     origin_addr,     origin_count, origin_datatype,
                    origin_addr,  origin_count,    origin_datatype, target_rank,  target_disp,
                    target_count, target_datatype, MPI_OP_NULL,     NULL,         request};
    return rma(win, &a);
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    static const char call[] = "MPI_Accumulate";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    rma_args_t a = {call, UMP_WIN_ACC, origin_addr, origin_count, origin_datatype, NULL,
                    0,    NULL,        target_rank, target_disp,  target_count,    target_datatype,
                    op,   NULL,        NULL};
    return rma(win, &a);
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    static const char call[] = "MPI_Raccumulate";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!request) return ump_win_error(win, MPI_ERR_ARG, call, "request is NULL");
    rma_args_t a = {call, UMP_WIN_ACC, origin_addr, origin_count, origin_datatype, NULL,
                    0,    NULL,        target_rank, target_disp,  target_count,    target_datatype,
                    op,   NULL,        request};
    return rma(win, &a);
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    static const char call[] = "MPI_Get_accumulate";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    rma_args_t a = {call,
                    UMP_WIN_GACC,
                    origin_addr,
                    origin_count,
                    origin_datatype,
                    result_addr,
                    result_count,
                    result_datatype,
                    target_rank,
                    target_disp,
                    target_count,
                    target_datatype,
                    op,
                    NULL,
                    NULL};
    return rma(win, &a);
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    static const char call[] = "MPI_Rget_accumulate";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!request) return ump_win_error(win, MPI_ERR_ARG, call, "request is NULL");
    rma_args_t a = {call,
                    UMP_WIN_GACC,
                    origin_addr,
                    origin_count,
                    origin_datatype,
                    result_addr,
                    result_count,
                    result_datatype,
                    target_rank,
                    target_disp,
                    target_count,
                    target_datatype,
                    op,
                    NULL,
                    request};
    return rma(win, &a);
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    static const char call[] = "MPI_Fetch_and_op";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    rma_args_t a = {call, UMP_WIN_GACC, origin_addr, 1,           datatype, result_addr,
                    1,    datatype,     target_rank, target_disp, 1,        datatype,
                    op,   NULL,         NULL,        true};
    return rma(win, &a);
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    static const char call[] = "MPI_Compare_and_swap";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!compare_addr) return ump_win_error(win, MPI_ERR_BUFFER, call, "compare_addr is NULL");
    if (ump_mpi_dt_ok(datatype) && !datatype->predefined)
        return ump_win_error(win, MPI_ERR_TYPE, call,
                             "datatype must be predefined (an integer, logical or byte type)");
    rma_args_t a = {call,        UMP_WIN_CAS,  origin_addr, 1,           datatype, result_addr,
                    1,           datatype,     target_rank, target_disp, 1,        datatype,
                    MPI_OP_NULL, compare_addr, NULL,        true};
    return rma(win, &a);
}
