/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * grequest.c - generalized requests (MPI 3.1 12.2): a request completed by
 * another thread with MPI_Grequest_complete while the main thread waits
 * (MPI_Wait) or polls (MPI_Test); the query callback's status (source,
 * tag, count, cancelled) and error reach the caller; the free callback
 * runs once, after the query; MPI_Cancel calls the cancel callback with
 * whether the request completed; MPI_Waitall over a generalized request
 * and a receive; errors: not a generalized request, completed twice,
 * missing callbacks.
 */
#include "mt.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

typedef struct {
    int queries, frees, cancels, cancel_complete;
    int result[4];   /* written by the worker before it completes */
    int query_error; /* what the query callback returns */
    MPI_Request req;
    volatile int go; /* the worker may complete */
} job_t;

static int query(void *extra, MPI_Status *st)
{
    job_t *j = extra;
    j->queries++;
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 44;
    MPI_Status_set_elements(st, MPI_INT, 4);
    MPI_Status_set_cancelled(st, j->cancels > 0);
    return j->query_error;
}

static int free_fn(void *extra)
{
    job_t *j = extra;
    CHECK(j->queries >= 1 || j->cancels, "free callback before the query callback");
    j->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    job_t *j = extra;
    j->cancels++;
    j->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void *worker(void *arg)
{
    job_t *j = arg;
    while (!__atomic_load_n(&j->go, __ATOMIC_ACQUIRE))
        usleep(100);
    usleep(2000); /* let the main thread block in MPI_Wait first, most of the time */
    for (int i = 0; i < 4; i++)
        j->result[i] = mt_rank * 10 + i;
    CALL(MPI_Grequest_complete(j->req));
    return NULL;
}

static void run_one(bool poll)
{
    job_t j = {0};
    CALL(MPI_Grequest_start(query, free_fn, cancel_fn, &j, &j.req));
    MPI_Request r = j.req;
    int flag = 1;
    MPI_Status st;
    CALL(MPI_Test(&r, &flag, &st));
    CHECK(!flag && r != MPI_REQUEST_NULL, "a generalized request completed by itself");
    CHECK(j.queries == 0, "query callback ran before completion");
    pthread_t th;
    CHECK(pthread_create(&th, NULL, worker, &j) == 0, "pthread_create");
    __atomic_store_n(&j.go, 1, __ATOMIC_RELEASE);
    if (poll) {
        flag = 0;
        while (!flag)
            CALL(MPI_Test(&r, &flag, &st));
    } else {
        CALL(MPI_Wait(&r, &st));
    }
    pthread_join(th, NULL);
    CHECK(r == MPI_REQUEST_NULL, "completed generalized request not freed");
    for (int i = 0; i < 4; i++)
        CHECK(j.result[i] == mt_rank * 10 + i, "worker's result %d: %d", i, j.result[i]);
    CHECK(j.queries == 1 && j.frees == 1, "query ran %d times, free %d times (want 1, 1)",
          j.queries, j.frees);
    int count = -1, canc = 1;
    CALL(MPI_Get_count(&st, MPI_INT, &count));
    CALL(MPI_Test_cancelled(&st, &canc));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44 && count == 4 && !canc,
          "status from the query: source %d tag %d count %d cancelled %d", st.MPI_SOURCE,
          st.MPI_TAG, count, canc);
}

static void test_cancel_and_error(void)
{
    job_t j = {0};
    CALL(MPI_Grequest_start(query, free_fn, cancel_fn, &j, &j.req));
    MPI_Request r = j.req;
    CALL(MPI_Cancel(&r));
    CHECK(j.cancels == 1 && j.cancel_complete == 0, "cancel callback: %d calls, complete %d",
          j.cancels, j.cancel_complete);
    CALL(MPI_Grequest_complete(r));
    MPI_Status st;
    CALL(MPI_Wait(&r, &st));
    int canc = 0;
    CALL(MPI_Test_cancelled(&st, &canc));
    CHECK(canc, "the query's cancelled flag did not reach the status");
    CHECK(j.frees == 1, "free ran %d times", j.frees);

    /* The query's error is the request's error. */
    job_t e = {.query_error = MPI_ERR_OTHER};
    CALL(MPI_Grequest_start(query, free_fn, cancel_fn, &e, &e.req));
    r = e.req;
    CALL(MPI_Grequest_complete(r));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Grequest_complete(r), MPI_ERR_REQUEST); /* twice */
    char qs[MPI_MAX_ERROR_STRING];
    int qlen;
    int qrc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(mt_class(qrc) == MPI_ERR_OTHER, "Wait returned class %d, want the query's", qrc);
    MPI_Error_string(qrc, qs, &qlen);
    CHECK(strstr(qs, "MPI_Wait") && strstr(qs, "query callback"), "message: %s", qs);
    CHECK(r == MPI_REQUEST_NULL && e.frees == 1, "failed generalized request not released");

    MPI_Request other;
    int x = 0;
    CALL(MPI_Irecv(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &other));
    EXPECT_CLASS(MPI_Grequest_complete(other), MPI_ERR_REQUEST);
    EXPECT_CLASS(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    EXPECT_CLASS(MPI_Grequest_start(NULL, free_fn, cancel_fn, NULL, &r), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Grequest_start(query, free_fn, cancel_fn, NULL, NULL), MPI_ERR_REQUEST);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Grequest_complete(other), s, &len);
    CHECK(strstr(s, "MPI_Grequest_complete") != NULL, "message does not name the call: %s", s);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));

    /* Waitall over a generalized request and a receive. */
    job_t w = {0};
    MPI_Request rs[2];
    CALL(MPI_Grequest_start(query, free_fn, cancel_fn, &w, &w.req));
    rs[0] = w.req;
    rs[1] = other;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, worker, &w) == 0, "pthread_create");
    __atomic_store_n(&w.go, 1, __ATOMIC_RELEASE);
    int y = 1234;
    CALL(MPI_Send(&y, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
    MPI_Status sts[2];
    CALL(MPI_Waitall(2, rs, sts));
    pthread_join(th, NULL);
    CHECK(x == 1234 && sts[0].MPI_TAG == 44 && sts[1].MPI_TAG == 9 && w.frees == 1,
          "Waitall: x %d tags %d %d frees %d", x, sts[0].MPI_TAG, sts[1].MPI_TAG, w.frees);
}

int main(int argc, char **argv)
{
    int provided;
    mt_prog = "grequest";
    CALL(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    for (int i = 0; i < 5; i++) {
        run_one(false);
        run_one(true);
    }
    test_cancel_and_error();
    return mt_done();
}
