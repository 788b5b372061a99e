/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generalized requests (MPI 3.1 12.2): MPI_Grequest_start makes an MPI
 * request over a core generalized request (ump_greq_start), which
 * MPI_Grequest_complete completes, from any thread; it is then waited for
 * and tested like any other request. When a wait or test completes it,
 * the query callback fills the status and its return value is the
 * request's error; the free callback runs when the request is released
 * (after the query, or at MPI_Request_free); MPI_Cancel runs the cancel
 * callback with whether the request has completed.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

typedef struct {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    bool completed; /* MPI_Grequest_complete was called */
} greq_t;

static void greq_release(void *arg)
{
    greq_t *g = arg;
    if (g->free) g->free(g->extra);
    free(g);
}

static greq_t *greq_of(MPI_Request r)
{
    return r && r->magic == UMP_MPI_MAGIC_REQ && r->kind == UMP_MPI_REQ_GREQ ? r->free_arg : NULL;
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char call[] = "MPI_Grequest_start";
    UMP_MPI_CHECK_INIT(call);
    if (!request)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call, "request pointer is NULL");
    if (!query_fn || !free_fn || !cancel_fn)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "query_fn, free_fn and cancel_fn must all be given");
    greq_t *g = calloc(1, sizeof(*g));
    MPI_Request r = g ? ump_mpi_req_new(UMP_MPI_REQ_GREQ, MPI_COMM_SELF) : NULL;
    if (!r) {
        free(g);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    int rc = ump_greq_start(&r->core);
    if (rc != UMP_OK) {
        free(g);
        ump_mpi_req_release(r);
        return ump_mpi_error(MPI_COMM_NULL, ump_mpi_class_of(rc), call,
                             "starting the request failed: %s", ump_strerror(rc));
    }
    *g = (greq_t){.query = query_fn, .free = free_fn, .cancel = cancel_fn, .extra = extra_state};
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    r->free_fn = greq_release;
    r->free_arg = g;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    static const char call[] = "MPI_Grequest_complete";
    UMP_MPI_CHECK_INIT(call);
    greq_t *g = greq_of(request);
    if (!g)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "not a generalized request (made by MPI_Grequest_start)");
    if (__atomic_exchange_n(&g->completed, true, __ATOMIC_ACQ_REL))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
                             "the generalized request was already completed");
    int rc = ump_greq_complete(request->core, UMP_OK);
    if (rc != UMP_OK)
        return ump_mpi_error(MPI_COMM_NULL, ump_mpi_class_of(rc), call,
                             "completing the request failed: %s", ump_strerror(rc));
    return MPI_SUCCESS;
}

int ump_mpi_greq_query(MPI_Request r, MPI_Status *st)
{
    greq_t *g = r->free_arg;
    MPI_Status q;
    ump_mpi_status_empty(&q);
    q.MPI_ERROR = MPI_SUCCESS;
    int rc = g->query(g->extra, &q);
    if (st) {
        int e = st->MPI_ERROR;
        *st = q;
        st->MPI_ERROR = e;
    }
    return rc;
}

int ump_mpi_greq_finish(MPI_Request r, MPI_Status *st)
{
    int rc = ump_mpi_greq_query(r, st);
    r->status.MPI_ERROR = rc;
    r->active = false;
    return rc;
}

int ump_mpi_greq_cancel(MPI_Request r)
{
    greq_t *g = r->free_arg;
    int rc = g->cancel(g->extra, __atomic_load_n(&g->completed, __ATOMIC_ACQUIRE));
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, rc, "MPI_Cancel",
                             "the cancel callback of the generalized request failed (%d)", rc);
    return MPI_SUCCESS;
}
