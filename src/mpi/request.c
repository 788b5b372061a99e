/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI requests and their completion: Wait/Test and their all/any/some
 * forms, Cancel, Request_free, Request_get_status, Start/Startall.
 *
 * An MPI request wraps at most one core request (->core). Requests that
 * complete without the core (MPI_PROC_NULL peers, buffered sends, which
 * are complete once copied) carry ->complete and their final status. A
 * receive of a non-contiguous type arrives in ->packbuf and is unpacked
 * into the user's buffer when the request completes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_p2p.h"
#include "util/util.h"

struct ump_mpi_request ump_mpi_request_null = {.magic = UMP_MPI_MAGIC_DEAD};

ump_freelist_t ump_mpi_req_fl;
/* Requests freed by MPI_Request_free while still active. */
static MPI_Request *orphans;
static size_t orphans_cap;
size_t ump_mpi_norphans; /* read without the lock by ump_mpi_req_reap (mpi_impl.h) */

void ump_mpi_status_empty(MPI_Status *st)
{
    if (!st) return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->ump_count = 0;
    st->ump_cancelled = 0;
}

void ump_mpi_status_proc_null(MPI_Status *st)
{
    if (!st) return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->ump_count = 0;
    st->ump_cancelled = 0;
}

void ump_mpi_status_from_core(MPI_Comm comm, const ump_status_t *u, MPI_Status *st)
{
    if (!st) return;
    st->MPI_SOURCE = u->source < 0 ? MPI_ANY_SOURCE : ump_mpi_comm_rank_of(comm, u->source);
    st->MPI_TAG = u->tag;
    st->ump_count = (MPI_Count)u->count;
    st->ump_cancelled = u->cancelled;
}

int ump_mpi_raise_status(MPI_Comm comm, const char *call, int cls, const ump_status_t *u)
{
    if (cls == MPI_ERR_TRUNCATE)
        return ump_mpi_error(comm, cls, call,
                             "message of %zu bytes from rank %d (tag %d) truncated to the %zu "
                             "bytes of the receive buffer",
                             u->msg_len, ump_mpi_comm_rank_of(comm, u->source), u->tag, u->count);
    if (u->error == UMP_OK)
        return ump_mpi_error(comm, cls, call, "unpacking the received message failed");
    if (u->source >= 0)
        return ump_mpi_error(comm, cls, call, "operation failed: %s (peer rank %d)",
                             ump_strerror(u->error), ump_mpi_comm_rank_of(comm, u->source));
    return ump_mpi_error(comm, cls, call, "operation failed: %s", ump_strerror(u->error));
}

/* The error of a completed request: a generalized request's is what its
 * query callback returned. */
static int raise_done(MPI_Comm comm, const char *call, int cls, const ump_status_t *u, bool greq)
{
    if (greq)
        return ump_mpi_error(comm, cls, call,
                             "the query callback of the generalized request returned error %d",
                             cls);
    return ump_mpi_raise_status(comm, call, cls, u);
}

/* Finishes r whose core part completed with *u: unpacks a non-contiguous
 * receive, fills *st, makes r inactive. Returns the MPI error class. */
static UMP_INLINE_PATH int finish(MPI_Request r, const ump_status_t *u, MPI_Status *st)
{
    r->core = UMP_REQ_NULL;
    r->core_status = *u;
    if (r->kind == UMP_MPI_REQ_GREQ) return ump_mpi_greq_finish(r, st);
    int cls = ump_mpi_class_of_fast(u->error);
    if (r->kind == UMP_MPI_REQ_RECV && r->packbuf) {
        int rc = ump_mpi_unpack_recv(r, u->count);
        if (rc != MPI_SUCCESS && cls == MPI_SUCCESS) cls = rc;
        free(r->packbuf);
        r->packbuf = NULL;
    } else if (r->packbuf) {
        free(r->packbuf);
        r->packbuf = NULL;
    }
    if (r->kind == UMP_MPI_REQ_SEND) {
        /* A send's status says only whether it was cancelled (never, here). */
        if (st) {
            st->MPI_SOURCE = r->peer;
            st->MPI_TAG = r->tag;
            st->ump_count = (MPI_Count)u->count;
            st->ump_cancelled = 0;
        }
    } else {
        if (st) ump_mpi_status_from_core(r->comm, u, st);
    }
    r->status.MPI_ERROR = cls;
    r->active = false;
    return cls;
}

/* Drives r once (or until done when `block`): *done says whether it
 * completed; then *st holds its status and the result is its class. */
static UMP_INLINE_PATH int progress_one(MPI_Request r, bool block, bool *done, MPI_Status *st)
{
    if (r->complete || (r->persistent && !r->active) || r->core == UMP_REQ_NULL) {
        *done = true;
        if (r->complete) {
            if (st) {
                int e = st->MPI_ERROR;
                *st = r->status;
                st->MPI_ERROR = e;
            }
            int cls = r->status.MPI_ERROR;
            r->complete = !r->persistent ? r->complete : false;
            r->active = false;
            return cls;
        }
        ump_mpi_status_empty(st);
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    int flag = 1, rc;
    if (block)
        rc = ump_wait(&r->core, &u);
    else
        rc = ump_test(&r->core, &flag, &u);
    if (!flag) {
        *done = false;
        return MPI_SUCCESS;
    }
    (void)rc; /* the operation's error is in u.error */
    *done = true;
    return finish(r, &u, st);
}

/* Releases a completed non-persistent request and nulls the handle. */
static UMP_INLINE_PATH void settle(MPI_Request *rp)
{
    MPI_Request r = *rp;
    if (!r->persistent) {
        ump_mpi_req_release(r);
        *rp = MPI_REQUEST_NULL;
    } else {
        r->complete = false;
        r->active = false;
    }
}

static UMP_INLINE_PATH bool req_ok(MPI_Request r)
{
    return r && r->magic == UMP_MPI_MAGIC_REQ;
}

static bool inactive(MPI_Request r)
{
    return !r || (r->persistent && !r->active && !r->complete);
}

#define CHECK_REQ_ARRAY(call, n, reqs)                                                             \
    do {                                                                                           \
        if ((n) < 0)                                                                               \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "count %d is negative", n);   \
        if ((n) > 0 && !(reqs))                                                                    \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,                             \
                                 "array of requests is NULL");                                     \
        for (int i_ = 0; i_ < (n); i_++)                                                           \
            if ((reqs)[i_] && !req_ok((reqs)[i_]))                                                 \
                return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,                         \
                                     "request %d is invalid or already freed", i_);                \
    } while (0)

int ump_mpi_complete(const char *call, MPI_Request *request, bool block, int *flag,
                     MPI_Status *status)
{
    UMP_MPI_CHECK_INIT(call);
    if (!request)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call, "request pointer is NULL");
    ump_mpi_req_reap(false);
    MPI_Request r = *request;
    if (!r) {
        ump_mpi_status_empty(status);
        if (flag) *flag = 1;
        return MPI_SUCCESS;
    }
    if (!req_ok(r))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "request is invalid or already freed");
    bool done;
    int cls = progress_one(r, block, &done, status);
    if (flag) *flag = done;
    if (!done) return MPI_SUCCESS;
    MPI_Comm comm = r->comm;
    ump_mpi_comm_ref(comm);
    ump_status_t u = r->core_status;
    bool greq = r->kind == UMP_MPI_REQ_GREQ;
    settle(request);
    int rc = MPI_SUCCESS;
    if (cls != MPI_SUCCESS) rc = raise_done(comm, call, cls, &u, greq);
    ump_mpi_comm_unref(comm);
    return rc;
}

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return ump_mpi_complete("MPI_Wait", request, true, NULL, status);
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test", "flag is NULL");
    return ump_mpi_complete("MPI_Test", request, false, flag, status);
}

/* For the multi-completion calls: records each request's class and raises
 * MPI_ERR_IN_STATUS once at the end when any failed. */
static int raise_in_status(const char *call, MPI_Comm comm, int failed)
{
    return ump_mpi_error(comm, MPI_ERR_IN_STATUS, call,
                         "%d request(s) failed; see the MPI_ERROR field of their statuses", failed);
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    static const char call[] = "MPI_Waitall";
    UMP_MPI_CHECK_INIT(call);
    CHECK_REQ_ARRAY(call, count, reqs);
    ump_mpi_req_reap(false);
    int failed = 0;
    MPI_Comm errcomm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        if (!reqs[i]) {
            ump_mpi_status_empty(st);
            if (failed && st) st->MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        bool done;
        int cls = progress_one(reqs[i], true, &done, st);
        if (cls != MPI_SUCCESS && !failed++) {
            errcomm = reqs[i]->comm;
            ump_mpi_comm_ref(errcomm);
            /* MPI_ERR_IN_STATUS from here: every status names its outcome,
             * the ones before this one succeeded. With no failure the
             * MPI_ERROR fields stay as they were (MPI 3.1 3.2.5). */
            for (int j = 0; statuses && j < i; j++)
                statuses[j].MPI_ERROR = MPI_SUCCESS;
        }
        if (failed && st) st->MPI_ERROR = cls;
        settle(&reqs[i]);
    }
    if (!failed) return MPI_SUCCESS;
    int rc = raise_in_status(call, errcomm, failed);
    ump_mpi_comm_unref(errcomm);
    return rc;
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    static const char call[] = "MPI_Testall";
    UMP_MPI_CHECK_INIT(call);
    CHECK_REQ_ARRAY(call, count, reqs);
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "flag is NULL");
    ump_mpi_req_reap(false);
    /* Nothing completes unless everything can (MPI 3.1 3.7.5). */
    for (int pass = 0; pass < 2; pass++) {
        bool all = true;
        for (int i = 0; i < count && all; i++) {
            MPI_Request r = reqs[i];
            if (inactive(r) || r->complete || !r->core) continue;
            int f = 0;
            ump_request_get_status(r->core, &f, NULL);
            if (!f) all = false;
        }
        if (all) {
            *flag = 1;
            return PMPI_Waitall(count, reqs, statuses);
        }
        if (pass == 0) ump_progress();
    }
    *flag = 0;
    return MPI_SUCCESS;
}

/* Index of a request completed outside the core, or -1; *any_active says
 * whether some request can still complete. */
static int find_ready(int n, MPI_Request reqs[], bool *any_active)
{
    *any_active = false;
    for (int i = 0; i < n; i++) {
        MPI_Request r = reqs[i];
        if (inactive(r)) continue;
        *any_active = true;
        if (r->complete || !r->core) return i;
    }
    return -1;
}

/* Completes one active request (waiting when `block`) without releasing
 * it: returns its index, -1 when none completed, MPI_UNDEFINED when none
 * is active. *cls receives its error class. */
static int complete_any(int count, MPI_Request reqs[], bool block, MPI_Status *status, int *cls)
{
    bool active;
    int i = find_ready(count, reqs, &active);
    *cls = MPI_SUCCESS;
    if (!active) return MPI_UNDEFINED;
    if (i >= 0) {
        bool done;
        *cls = progress_one(reqs[i], true, &done, status);
        return i;
    }
    ump_req_t stackv[32], *cores = stackv;
    if (count > 32 && !(cores = malloc(sizeof(ump_req_t) * (size_t)count))) {
        *cls = MPI_ERR_NO_MEM;
        return -1;
    }
    for (int k = 0; k < count; k++)
        cores[k] = inactive(reqs[k]) ? UMP_REQ_NULL : reqs[k]->core;
    ump_status_t u = {0};
    int done = 1;
    if (block)
        ump_waitany((size_t)count, cores, &i, &u);
    else
        ump_testany((size_t)count, cores, &i, &done, &u);
    if (cores != stackv) free(cores);
    if (i >= 0) *cls = finish(reqs[i], &u, status);
    return i;
}

static int any(const char *call, int count, MPI_Request reqs[], int *index, bool block, int *flag,
               MPI_Status *status)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_REQ_ARRAY(call, count, reqs);
    if (!index) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "index is NULL");
    ump_mpi_req_reap(false);
    int cls;
    int i = complete_any(count, reqs, block, status, &cls);
    if (i < 0) {
        if (cls != MPI_SUCCESS) return ump_mpi_error(MPI_COMM_NULL, cls, call, "out of memory");
        *index = MPI_UNDEFINED;
        /* No active request counts as done (flag true); none finished yet does not. */
        if (flag) *flag = i == MPI_UNDEFINED;
        ump_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    *index = i;
    if (flag) *flag = 1;
    MPI_Comm comm = reqs[i]->comm;
    ump_mpi_comm_ref(comm);
    ump_status_t u = reqs[i]->core_status;
    bool greq = reqs[i]->kind == UMP_MPI_REQ_GREQ;
    settle(&reqs[i]);
    int rc = MPI_SUCCESS;
    if (cls != MPI_SUCCESS) rc = raise_done(comm, call, cls, &u, greq);
    ump_mpi_comm_unref(comm);
    return rc;
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any("MPI_Waitany", count, reqs, index, true, NULL, status);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Testany", "flag is NULL");
    return any("MPI_Testany", count, reqs, index, false, flag, status);
}

static int some(const char *call, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], bool block)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_REQ_ARRAY(call, incount, reqs);
    if (!outcount || (incount > 0 && !indices))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "outcount or indices is NULL");
    ump_mpi_req_reap(false);
    bool active = false;
    for (int i = 0; i < incount; i++)
        if (!inactive(reqs[i])) active = true;
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n = 0, failed = 0, first = -1;
    MPI_Comm errcomm = MPI_COMM_NULL;
    int *cls = calloc((size_t)incount, sizeof(int));
    if (!cls) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    MPI_Status st0 = {0};
    int cls0 = MPI_SUCCESS;
    if (block) {
        /* Block for the first completion, then collect whatever else is done. */
        first = complete_any(incount, reqs, true, &st0, &cls0);
        if (first < 0 && cls0 != MPI_SUCCESS) {
            free(cls);
            return ump_mpi_error(MPI_COMM_NULL, cls0, call, "out of memory");
        }
    }
    for (int i = 0; i < incount; i++) {
        MPI_Request r = reqs[i];
        if (i != first && inactive(r)) continue;
        bool done = true;
        MPI_Status *st = statuses ? &statuses[n] : NULL;
        int c;
        if (i == first) {
            c = cls0;
            if (st) {
                int e = st->MPI_ERROR;
                *st = st0;
                st->MPI_ERROR = e;
            }
        } else {
            c = progress_one(r, false, &done, st);
        }
        if (!done) continue;
        indices[n] = i;
        cls[n] = c;
        n++;
        if (c != MPI_SUCCESS && !failed++ && reqs[i]) {
            errcomm = reqs[i]->comm;
            ump_mpi_comm_ref(errcomm);
        }
        if (reqs[i]) settle(&reqs[i]);
    }
    *outcount = n;
    int rc = MPI_SUCCESS;
    if (failed) {
        if (statuses)
            for (int k = 0; k < n; k++)
                statuses[k].MPI_ERROR = cls[k];
        rc = raise_in_status(call, errcomm, failed);
        ump_mpi_comm_unref(errcomm);
    }
    free(cls);
    return rc;
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    return some("MPI_Waitsome", incount, reqs, outcount, indices, statuses, true);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    return some("MPI_Testsome", incount, reqs, outcount, indices, statuses, false);
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    static const char call[] = "MPI_Cancel";
    UMP_MPI_CHECK_INIT(call);
    if (!request || !req_ok(*request))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "request is null, invalid or already freed");
    MPI_Request r = *request;
    if (inactive(r))
        return ump_mpi_error(r->comm, MPI_ERR_REQUEST, call,
                             "persistent request is not active (MPI_Start it first)");
    if (r->kind == UMP_MPI_REQ_GREQ) return ump_mpi_greq_cancel(r);
    r->cancelled = true;
    /* Receives not yet matched are cancelled by the core. Sends in ump are
     * never cancelled: they complete normally and MPI_Test_cancelled says
     * false, which MPI 3.1 3.8.4 allows. */
    if (r->kind == UMP_MPI_REQ_RECV && r->core) ump_cancel(&r->core);
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    static const char call[] = "MPI_Test_cancelled";
    if (!status || !flag)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "status or flag is NULL");
    *flag = status->ump_cancelled != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    static const char call[] = "MPI_Status_set_cancelled";
    if (!status) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "status is NULL");
    status->ump_cancelled = flag != 0;
    return MPI_SUCCESS;
}

static void orphan_add(MPI_Request r)
{
    ump_mpi_lock();
    if (ump_mpi_norphans == orphans_cap) {
        size_t cap = orphans_cap ? orphans_cap * 2 : 16;
        MPI_Request *o = realloc(orphans, cap * sizeof(*o));
        if (!o) {
            ump_mpi_unlock();
            /* Cannot track it: finish it now rather than leak a core request. */
            bool done;
            progress_one(r, true, &done, NULL);
            ump_mpi_req_release(r);
            return;
        }
        orphans = o;
        orphans_cap = cap;
    }
    orphans[ump_mpi_norphans++] = r;
    ump_mpi_unlock();
}

void ump_mpi_req_reap_some(bool finalizing)
{
    if (!__atomic_load_n(&ump_mpi_norphans, __ATOMIC_RELAXED)) return;
    /* Take the list, so no lock is held while driving progress (which may
     * run src/coll's hooks, which create requests). */
    ump_mpi_lock();
    MPI_Request *list = orphans;
    size_t n = ump_mpi_norphans;
    orphans = NULL;
    ump_mpi_norphans = orphans_cap = 0;
    ump_mpi_unlock();
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        MPI_Request r = list[i];
        bool done;
        if (finalizing && r->kind == UMP_MPI_REQ_RECV && r->core) ump_cancel(&r->core);
        progress_one(r, finalizing, &done, NULL);
        if (done)
            ump_mpi_req_release(r);
        else
            list[keep++] = r;
    }
    for (size_t i = 0; i < keep; i++)
        orphan_add(list[i]);
    free(list);
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    static const char call[] = "MPI_Request_free";
    UMP_MPI_CHECK_INIT(call);
    if (!request || !req_ok(*request))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "request is null, invalid or already freed");
    MPI_Request r = *request;
    *request = MPI_REQUEST_NULL;
    if (r->core && !r->complete) {
        /* Still running: it completes on its own and is released then. */
        r->freed = true;
        r->persistent = false;
        orphan_add(r);
    } else {
        ump_mpi_req_release(r);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request r, int *flag, MPI_Status *status)
{
    static const char call[] = "MPI_Request_get_status";
    UMP_MPI_CHECK_INIT(call);
    if (!flag) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "flag is NULL");
    if (!r || inactive(r)) {
        *flag = 1;
        ump_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!req_ok(r))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "request is invalid or already freed");
    if (r->complete || !r->core) {
        *flag = 1;
        if (status) {
            int e = status->MPI_ERROR;
            *status = r->status;
            status->MPI_ERROR = e;
        }
        return MPI_SUCCESS;
    }
    ump_status_t u = {0};
    int rc = ump_request_get_status(r->core, flag, &u);
    if (rc != UMP_OK)
        return ump_mpi_error(r->comm, ump_mpi_class_of(rc), call, "%s", ump_strerror(rc));
    if (*flag) {
        /* The data must be in the user's buffer once the request reads as complete. */
        if (r->kind == UMP_MPI_REQ_RECV && r->packbuf) ump_mpi_unpack_recv(r, u.count);
        if (r->kind == UMP_MPI_REQ_GREQ) {
            /* The query callback gives the status (the request stays). */
            ump_mpi_greq_query(r, status);
        } else if (r->kind == UMP_MPI_REQ_SEND && status) {
            status->MPI_SOURCE = r->peer;
            status->MPI_TAG = r->tag;
            status->ump_count = (MPI_Count)u.count;
            status->ump_cancelled = 0;
        } else {
            ump_mpi_status_from_core(r->comm, &u, status);
        }
    }
    return MPI_SUCCESS;
}
