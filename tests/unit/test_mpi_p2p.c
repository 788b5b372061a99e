/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI point-to-point in a one-rank job: self-sends in every mode,
 * statuses, MPI_PROC_NULL, probes, matched probes, truncation, persistent
 * requests, the Wait/Test families, cancel, and buffered sends.
 */
#include "test_mpi_common.h"

static void fill(int *v, int n, int seed)
{
    for (int i = 0; i < n; i++)
        v[i] = i * 7 + seed;
}

static void test_singleton(void **state)
{
    int rank = -1, size = -1, flag = 0;
    assert_int_equal(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_size(MPI_COMM_WORLD, &size), MPI_SUCCESS);
    assert_int_equal(rank, 0);
    assert_int_equal(size, 1);
    assert_int_equal(MPI_Comm_size(MPI_COMM_SELF, &size), MPI_SUCCESS);
    assert_int_equal(size, 1);
    MPI_Initialized(&flag);
    assert_true(flag);
    MPI_Finalized(&flag);
    assert_false(flag);
    int v, sv;
    MPI_Get_version(&v, &sv);
    assert_int_equal(v, 3);
    assert_int_equal(sv, 1);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    assert_true(strncmp(lib, "ump 0.1.0", 9) == 0);
    char host[MPI_MAX_PROCESSOR_NAME];
    assert_int_equal(MPI_Get_processor_name(host, &len), MPI_SUCCESS);
    assert_true(len > 0);
    assert_int_equal((int)strlen(host), len);
    MPI_Is_thread_main(&flag);
    assert_true(flag);
    int provided = -1;
    MPI_Query_thread(&provided);
    assert_int_equal(provided, MPI_THREAD_SINGLE);
    double t0 = MPI_Wtime();
    assert_true(MPI_Wtick() > 0 && MPI_Wtick() < 1e-3);
    assert_true(MPI_Wtime() >= t0);
    /* Init twice is an error. */
    assert_int_equal(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
}

static void test_self_send_recv(void **state)
{
    int s[100], r[100];
    MPI_Status st;
    fill(s, 100, 3);
    MPI_Request req;
    /* The receive is posted first, then a blocking send completes it. */
    assert_int_equal(MPI_Irecv(r, 100, MPI_INT, 0, 42, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 100, MPI_INT, 0, 42, MPI_COMM_WORLD), MPI_SUCCESS);
    st.MPI_ERROR = 12345;
    assert_int_equal(MPI_Wait(&req, &st), MPI_SUCCESS);
    assert_ptr_equal(req, MPI_REQUEST_NULL);
    assert_memory_equal(s, r, sizeof(s));
    assert_int_equal(st.MPI_SOURCE, 0);
    assert_int_equal(st.MPI_TAG, 42);
    assert_int_equal(st.ump_count, (MPI_Count)sizeof(s));
    assert_int_equal(st.MPI_ERROR, 12345); /* single completion leaves MPI_ERROR alone */

    /* Isend then Recv with wildcards. */
    memset(r, 0, sizeof(r));
    assert_int_equal(MPI_Isend(s, 50, MPI_INT, 0, 7, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(r, 100, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_memory_equal(s, r, 50 * sizeof(int));
    assert_int_equal(st.MPI_TAG, 7);
    assert_int_equal(st.ump_count, 50 * (MPI_Count)sizeof(int));

    /* Synchronous and ready modes. */
    assert_int_equal(MPI_Irecv(r, 100, MPI_INT, 0, 1, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    assert_int_equal(MPI_Ssend(s, 10, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&req, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Irecv(r, 100, MPI_INT, 0, 2, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    assert_int_equal(MPI_Rsend(s, 11, MPI_INT, 0, 2, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&req, &st), MPI_SUCCESS);
    assert_int_equal(st.ump_count, 11 * (MPI_Count)sizeof(int));
    MPI_Request rs[2];
    assert_int_equal(MPI_Issend(s, 5, MPI_INT, 0, 3, MPI_COMM_WORLD, &rs[0]), MPI_SUCCESS);
    int flag = 1;
    assert_int_equal(MPI_Test(&rs[0], &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_false(flag); /* not matched yet */
    assert_int_equal(MPI_Irecv(r, 5, MPI_INT, 0, 3, MPI_COMM_WORLD, &rs[1]), MPI_SUCCESS);
    assert_int_equal(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    assert_ptr_equal(rs[0], MPI_REQUEST_NULL);
    assert_ptr_equal(rs[1], MPI_REQUEST_NULL);
    assert_memory_equal(s, r, 5 * sizeof(int));
}

static void test_large_message(void **state)
{
    int n = 1 << 20;
    int *s = malloc(sizeof(int) * (size_t)n), *r = calloc((size_t)n, sizeof(int));
    fill(s, n, 11);
    MPI_Request req;
    MPI_Status st;
    assert_int_equal(MPI_Isend(s, n, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(r, n, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_memory_equal(s, r, sizeof(int) * (size_t)n);
    free(s);
    free(r);
}

static void test_proc_null(void **state)
{
    int x = 5;
    MPI_Status st;
    assert_int_equal(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(st.MPI_SOURCE, MPI_PROC_NULL);
    assert_int_equal(st.MPI_TAG, MPI_ANY_TAG);
    assert_int_equal(st.ump_count, 0);
    assert_int_equal(x, 5);
    MPI_Request r[2];
    assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r[0]),
                     MPI_SUCCESS);
    assert_int_equal(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r[1]),
                     MPI_SUCCESS);
    MPI_Status sts[2];
    assert_int_equal(MPI_Waitall(2, r, sts), MPI_SUCCESS);
    assert_int_equal(sts[0].MPI_SOURCE, MPI_PROC_NULL);
    assert_int_equal(sts[0].MPI_TAG, MPI_ANY_TAG);
    int flag = 0;
    assert_int_equal(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    assert_true(flag);
    assert_int_equal(st.MPI_SOURCE, MPI_PROC_NULL);
    assert_int_equal(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    MPI_Message m;
    assert_int_equal(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st), MPI_SUCCESS);
    assert_ptr_equal(m, MPI_MESSAGE_NO_PROC);
    assert_int_equal(MPI_Mrecv(&x, 1, MPI_INT, &m, &st), MPI_SUCCESS);
    assert_ptr_equal(m, MPI_MESSAGE_NULL);
    assert_int_equal(st.MPI_SOURCE, MPI_PROC_NULL);
    assert_int_equal(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL,
                                  0, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    assert_int_equal(st.MPI_SOURCE, MPI_PROC_NULL);
}

static void test_probe_mprobe(void **state)
{
    int s[4] = {1, 2, 3, 4}, r[4] = {0};
    MPI_Status st;
    int flag = 1;
    assert_int_equal(MPI_Iprobe(0, 77, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    assert_false(flag);
    MPI_Request sr;
    assert_int_equal(MPI_Isend(s, 4, MPI_INT, 0, 77, MPI_COMM_WORLD, &sr), MPI_SUCCESS);
    assert_int_equal(MPI_Probe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(st.MPI_SOURCE, 0);
    assert_int_equal(st.ump_count, (MPI_Count)sizeof(s));
    MPI_Message m = MPI_MESSAGE_NULL;
    assert_int_equal(MPI_Improbe(0, 77, MPI_COMM_WORLD, &flag, &m, &st), MPI_SUCCESS);
    assert_true(flag);
    assert_non_null(m);
    /* Taken off the queue: a plain probe no longer sees it. */
    assert_int_equal(MPI_Iprobe(0, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_false(flag);
    MPI_Request rr;
    assert_int_equal(MPI_Imrecv(r, 4, MPI_INT, &m, &rr), MPI_SUCCESS);
    assert_ptr_equal(m, MPI_MESSAGE_NULL);
    assert_int_equal(MPI_Wait(&rr, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&sr, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_memory_equal(s, r, sizeof(s));
    assert_int_equal(st.MPI_TAG, 77);
    /* Mprobe + Mrecv. */
    memset(r, 0, sizeof(r));
    assert_int_equal(MPI_Send(s, 3, MPI_INT, 0, 78, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st), MPI_SUCCESS);
    assert_int_equal(st.MPI_TAG, 78);
    assert_int_equal(MPI_Mrecv(r, 4, MPI_INT, &m, &st), MPI_SUCCESS);
    assert_int_equal(st.ump_count, 3 * (MPI_Count)sizeof(int));
    assert_memory_equal(s, r, 3 * sizeof(int));
    /* A used message handle is refused. */
    assert_int_equal(MPI_Mrecv(r, 4, MPI_INT, &m, &st), MPI_ERR_REQUEST);
    assert_error_names(MPI_ERR_REQUEST, "MPI_Mrecv");
}

static void test_truncate(void **state)
{
    int s[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8] = {0};
    MPI_Status st;
    assert_int_equal(MPI_Send(s, 8, MPI_INT, 0, 5, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(r, 4, MPI_INT, 0, 5, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    assert_error_names(MPI_ERR_TRUNCATE, "MPI_Recv");
    assert_memory_equal(s, r, 4 * sizeof(int)); /* the data that fit */
    assert_int_equal(r[4], 0);
    /* Through a request. */
    MPI_Request req;
    assert_int_equal(MPI_Irecv(r, 2, MPI_INT, 0, 6, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 8, MPI_INT, 0, 6, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&req, &st), MPI_ERR_TRUNCATE);
    assert_error_names(MPI_ERR_TRUNCATE, "MPI_Wait");
    assert_ptr_equal(req, MPI_REQUEST_NULL);
    /* In a multi-completion call: MPI_ERR_IN_STATUS with the class in the status. */
    MPI_Request rs[2];
    MPI_Status sts[2];
    assert_int_equal(MPI_Irecv(r, 2, MPI_INT, 0, 8, MPI_COMM_WORLD, &rs[0]), MPI_SUCCESS);
    assert_int_equal(MPI_Irecv(r + 4, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, &rs[1]), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 3, MPI_INT, 0, 8, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 3, MPI_INT, 0, 9, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Waitall(2, rs, sts), MPI_ERR_IN_STATUS);
    assert_int_equal(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
    assert_int_equal(sts[1].MPI_ERROR, MPI_SUCCESS);
    assert_error_names(MPI_ERR_IN_STATUS, "MPI_Waitall");
    /* Waitsome likewise; Waitany returns the class itself. */
    assert_int_equal(MPI_Irecv(r, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &rs[0]), MPI_SUCCESS);
    assert_int_equal(MPI_Irecv(r + 4, 4, MPI_INT, 0, 11, MPI_COMM_WORLD, &rs[1]), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 3, MPI_INT, 0, 10, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 3, MPI_INT, 0, 11, MPI_COMM_WORLD), MPI_SUCCESS);
    int out = 0, idx[2];
    int rc = MPI_Waitsome(2, rs, &out, idx, sts);
    if (out == 1) { /* the second may not have been delivered yet */
        assert_int_equal(rc, MPI_ERR_IN_STATUS);
        assert_int_equal(idx[0], 0);
        assert_int_equal(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        assert_int_equal(MPI_Wait(&rs[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
        assert_int_equal(out, 2);
        assert_int_equal(rc, MPI_ERR_IN_STATUS);
        assert_int_equal(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        assert_int_equal(sts[1].MPI_ERROR, MPI_SUCCESS);
    }
    assert_int_equal(MPI_Irecv(r, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &rs[0]), MPI_SUCCESS);
    assert_int_equal(MPI_Send(s, 3, MPI_INT, 0, 12, MPI_COMM_WORLD), MPI_SUCCESS);
    int k = -1;
    assert_int_equal(MPI_Waitany(1, rs, &k, &st), MPI_ERR_TRUNCATE);
    assert_int_equal(k, 0);
    assert_ptr_equal(rs[0], MPI_REQUEST_NULL);
    assert_error_names(MPI_ERR_TRUNCATE, "MPI_Waitany");
}

static void test_sendrecv(void **state)
{
    int a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
    MPI_Status st;
    assert_int_equal(MPI_Sendrecv(a, 6, MPI_INT, 0, 1, b, 6, MPI_INT, 0, 1, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    assert_memory_equal(a, b, sizeof(a));
    assert_int_equal(st.MPI_SOURCE, 0);
    /* Sendrecv_replace to self: the buffer ends with what was sent. */
    int c[6] = {9, 8, 7, 6, 5, 4}, d[6];
    memcpy(d, c, sizeof(c));
    assert_int_equal(MPI_Sendrecv_replace(c, 6, MPI_INT, 0, 2, 0, 2, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    assert_memory_equal(c, d, sizeof(c));
    assert_int_equal(st.ump_count, (MPI_Count)sizeof(c));
}

static void test_persistent(void **state)
{
    int s = 0, r = -1;
    MPI_Request req[2];
    assert_int_equal(MPI_Recv_init(&r, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req[0]), MPI_SUCCESS);
    assert_int_equal(MPI_Send_init(&s, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req[1]), MPI_SUCCESS);
    /* Inactive persistent requests complete at once with an empty status. */
    MPI_Status st;
    assert_int_equal(MPI_Wait(&req[0], &st), MPI_SUCCESS);
    assert_non_null(req[0]);
    assert_int_equal(st.MPI_SOURCE, MPI_ANY_SOURCE);
    for (int i = 0; i < 5; i++) {
        s = i * 10;
        assert_int_equal(MPI_Startall(2, req), MPI_SUCCESS);
        assert_int_equal(MPI_Start(&req[0]), MPI_ERR_REQUEST); /* already active */
        assert_int_equal(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        assert_non_null(req[0]);
        assert_non_null(req[1]);
        assert_int_equal(r, i * 10);
    }
    /* Ssend_init, Rsend_init, Bsend_init too. */
    MPI_Request q[3];
    char bbuf[1024];
    assert_int_equal(MPI_Buffer_attach(bbuf, sizeof(bbuf)), MPI_SUCCESS);
    assert_int_equal(MPI_Ssend_init(&s, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &q[0]), MPI_SUCCESS);
    assert_int_equal(MPI_Rsend_init(&s, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &q[1]), MPI_SUCCESS);
    assert_int_equal(MPI_Bsend_init(&s, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &q[2]), MPI_SUCCESS);
    for (int k = 0; k < 2; k++) {
        s = 100 + k;
        assert_int_equal(MPI_Startall(3, q), MPI_SUCCESS);
        for (int j = 0; j < 3; j++) {
            r = -1;
            assert_int_equal(MPI_Recv(&r, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &st), MPI_SUCCESS);
            assert_int_equal(r, 100 + k);
        }
        assert_int_equal(MPI_Waitall(3, q, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }
    for (int j = 0; j < 3; j++) {
        assert_int_equal(MPI_Request_free(&q[j]), MPI_SUCCESS);
        assert_ptr_equal(q[j], MPI_REQUEST_NULL);
    }
    void *b;
    int bsize;
    assert_int_equal(MPI_Buffer_detach(&b, &bsize), MPI_SUCCESS);
    assert_ptr_equal(b, bbuf);
    assert_int_equal(bsize, (int)sizeof(bbuf));
    assert_int_equal(MPI_Request_free(&req[0]), MPI_SUCCESS);
    assert_int_equal(MPI_Request_free(&req[1]), MPI_SUCCESS);
}

static void test_wait_any_some(void **state)
{
    int v[4] = {0}, s[4] = {10, 11, 12, 13};
    MPI_Request r[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(MPI_Irecv(&v[i], 1, MPI_INT, 0, 20 + i, MPI_COMM_WORLD, &r[i]),
                         MPI_SUCCESS);
    int idx = -5, flag = 1;
    MPI_Status st;
    assert_int_equal(MPI_Testany(4, r, &idx, &flag, &st), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(idx, MPI_UNDEFINED);
    assert_int_equal(MPI_Send(&s[2], 1, MPI_INT, 0, 22, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Waitany(4, r, &idx, &st), MPI_SUCCESS);
    assert_int_equal(idx, 2);
    assert_int_equal(v[2], 12);
    assert_int_equal(st.MPI_TAG, 22);
    assert_ptr_equal(r[2], MPI_REQUEST_NULL);
    assert_int_equal(MPI_Send(&s[0], 1, MPI_INT, 0, 20, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Send(&s[3], 1, MPI_INT, 0, 23, MPI_COMM_WORLD), MPI_SUCCESS);
    int out = 0, idxs[4];
    MPI_Status sts[4];
    assert_int_equal(MPI_Waitsome(4, r, &out, idxs, sts), MPI_SUCCESS);
    assert_int_equal(out, 2);
    assert_int_equal(idxs[0], 0);
    assert_int_equal(idxs[1], 3);
    assert_int_equal(sts[1].MPI_TAG, 23);
    assert_int_equal(MPI_Testsome(4, r, &out, idxs, sts), MPI_SUCCESS);
    assert_int_equal(out, 0);
    assert_int_equal(MPI_Testall(4, r, &flag, sts), MPI_SUCCESS);
    assert_false(flag);
    assert_non_null(r[1]); /* Testall completes nothing unless all are done */
    assert_int_equal(MPI_Send(&s[1], 1, MPI_INT, 0, 21, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Testall(4, r, &flag, sts), MPI_SUCCESS);
    assert_true(flag);
    assert_int_equal(v[1], 11);
    /* All null now. */
    assert_int_equal(MPI_Waitany(4, r, &idx, &st), MPI_SUCCESS);
    assert_int_equal(idx, MPI_UNDEFINED);
    assert_int_equal(MPI_Waitsome(4, r, &out, idxs, sts), MPI_SUCCESS);
    assert_int_equal(out, MPI_UNDEFINED);
    assert_int_equal(MPI_Wait(&r[0], &st), MPI_SUCCESS);
    assert_int_equal(st.MPI_SOURCE, MPI_ANY_SOURCE);
}

static void test_cancel_and_status(void **state)
{
    int x = 0, y = 3;
    MPI_Request r;
    MPI_Status st;
    assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    int flag = 1;
    assert_int_equal(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Cancel(&r), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    assert_true(flag);
    /* Sends are not cancelled: they complete normally. */
    assert_int_equal(MPI_Isend(&y, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Cancel(&r), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Recv(&x, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(x, 3);
    /* get_status does not free; the data is there when it says complete. */
    assert_int_equal(MPI_Isend(&y, 1, MPI_INT, 0, 97, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MPI_Request rr;
    x = 0;
    assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 97, MPI_COMM_WORLD, &rr), MPI_SUCCESS);
    for (int i = 0; i < 1000 && !flag; i++)
        MPI_Request_get_status(rr, &flag, &st);
    flag = 0;
    while (!flag)
        assert_int_equal(MPI_Request_get_status(rr, &flag, &st), MPI_SUCCESS);
    assert_int_equal(x, 3);
    assert_int_equal(st.MPI_TAG, 97);
    assert_non_null(rr);
    assert_int_equal(MPI_Wait(&rr, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Status_set_cancelled(&st, 1);
    MPI_Test_cancelled(&st, &flag);
    assert_true(flag);
    /* Request_free on an active receive: it completes later on its own. */
    assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 96, MPI_COMM_WORLD, &rr), MPI_SUCCESS);
    assert_int_equal(MPI_Request_free(&rr), MPI_SUCCESS);
    assert_ptr_equal(rr, MPI_REQUEST_NULL);
    y = 44;
    assert_int_equal(MPI_Send(&y, 1, MPI_INT, 0, 96, MPI_COMM_WORLD), MPI_SUCCESS);
    /* Completion calls reap freed requests; give it a bounded number of tries. */
    for (int i = 0; i < 100000 && x != 44; i++)
        assert_int_equal(MPI_Wait(&rr, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(x, 44);
}

static void test_bsend(void **state)
{
    /* Messages above the eager limit stay in the buffer until received, so
     * the buffer runs out; small ones complete at once and free their space. */
    enum { N = 16384 };
    int *x = malloc(sizeof(int) * N), *orig = malloc(sizeof(int) * N), *y = malloc(sizeof(int) * N);
    fill(x, N, 1);
    memcpy(orig, x, sizeof(int) * N);
    /* No buffer attached. */
    assert_int_equal(MPI_Bsend(x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    assert_error_names(MPI_ERR_BUFFER, "MPI_Bsend");
    /* Sized by the standard's rule for exactly two messages, and not aligned. */
    int size = 2 * (MPI_BSEND_OVERHEAD + N * (int)sizeof(int));
    char *mem = malloc((size_t)size + 1), *buf = mem + 1;
    assert_int_equal(MPI_Buffer_attach(buf, size), MPI_SUCCESS);
    assert_int_equal(MPI_Buffer_attach(buf, size), MPI_ERR_BUFFER); /* twice */
    /* Two messages fit; the third exhausts the buffer (nobody received yet). */
    assert_int_equal(MPI_Bsend(x, N, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Request r;
    assert_int_equal(MPI_Ibsend(x, N, MPI_INT, 0, 1, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    int flag = 0;
    assert_int_equal(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_true(flag); /* complete once copied */
    assert_int_equal(MPI_Bsend(x, N, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    assert_error_names(MPI_ERR_BUFFER, "MPI_Bsend");
    /* Not even a small one fits now. */
    assert_int_equal(MPI_Bsend(x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* The copies are what is delivered, whatever happens to x. */
    memset(x, 0, sizeof(int) * N);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(MPI_Recv(y, N, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
        assert_memory_equal(y, orig, sizeof(int) * N);
    }
    /* Received: the space comes back. */
    for (int k = 0; k < 2; k++)
        assert_int_equal(MPI_Bsend(orig, N, MPI_INT, 0, 2, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 2; k++)
        assert_int_equal(MPI_Recv(y, N, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
    /* Many small ones in a row: eager sends complete and recycle their blocks. */
    for (int k = 0; k < 100; k++)
        assert_int_equal(MPI_Bsend(&k, 1, MPI_INT, 0, 3, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 100; k++) {
        int v = -1;
        assert_int_equal(MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
        assert_int_equal(v, k);
    }
    void *b;
    int bs;
    assert_int_equal(MPI_Buffer_detach(&b, &bs), MPI_SUCCESS);
    assert_ptr_equal(b, buf);
    assert_int_equal(bs, size);
    free(mem);
    free(x);
    free(orig);
    free(y);
}

static void test_comm_isolation(void **state)
{
    MPI_Comm dup;
    assert_int_equal(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    int a = 1, b = 2, got = 0;
    assert_int_equal(MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Send(&b, 1, MPI_INT, 0, 0, dup), MPI_SUCCESS);
    /* Same source and tag, different communicators: each gets its own. */
    assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(got, 2);
    int flag = 0;
    assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &flag, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
    assert_int_equal(got, 1);
    /* A request outlives the communicator's handle. */
    MPI_Request r;
    assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 5, dup, &r), MPI_SUCCESS);
    MPI_Comm keep = dup;
    assert_int_equal(MPI_Send(&a, 1, MPI_INT, 0, 5, keep), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_free(&dup), MPI_SUCCESS);
    assert_ptr_equal(dup, MPI_COMM_NULL);
    assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(got, 1);
    /* A receive pending on a freed communicator keeps its context: a newer
     * communicator's traffic does not match it. */
    assert_int_equal(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    got = -1;
    assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 6, dup, &r), MPI_SUCCESS);
    MPI_Comm old = dup;
    assert_int_equal(MPI_Comm_free(&dup), MPI_SUCCESS);
    MPI_Comm fresh;
    assert_int_equal(MPI_Comm_dup(MPI_COMM_WORLD, &fresh), MPI_SUCCESS);
    assert_int_not_equal(fresh->ctx_p2p, old->ctx_p2p);
    assert_int_equal(MPI_Send(&b, 1, MPI_INT, 0, 6, fresh), MPI_SUCCESS);
    int flag2 = 1;
    assert_int_equal(MPI_Test(&r, &flag2, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_false(flag2);
    assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 6, fresh, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(MPI_Cancel(&r), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_free(&fresh), MPI_SUCCESS);
}

static void test_derived_types(void **state)
{
    /* A vector of 4 blocks of 2 ints, stride 3: a non-contiguous type. */
    MPI_Datatype vec, shifted;
    assert_int_equal(MPI_Type_vector(4, 2, 3, MPI_INT, &vec), MPI_SUCCESS);
    int x;
    /* Uncommitted types are refused. */
    assert_int_equal(MPI_Send(&x, 1, vec, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    assert_error_names(MPI_ERR_TYPE, "MPI_Send");
    assert_int_equal(MPI_Type_commit(&vec), MPI_SUCCESS);
    int src[24], dst[24], packed[16];
    fill(src, 24, 5);
    /* vector -> contiguous: the receiver sees the packed elements. */
    MPI_Status st;
    assert_int_equal(MPI_Send(src, 2, vec, 0, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(packed, 16, MPI_INT, 0, 1, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(st.ump_count, 16 * (MPI_Count)sizeof(int));
    int count;
    assert_int_equal(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    assert_int_equal(count, 16);
    /* Element e of the stream is int (e/2)*3 + e%2 of the first vector,
     * the second vector starting at the extent (11 ints). */
    for (int e = 0; e < 16; e++) {
        int v = e / 8, k = e % 8;
        assert_int_equal(packed[e], src[v * 11 + (k / 2) * 3 + k % 2]);
    }
    /* contiguous -> vector through a request: holes stay untouched. */
    for (int i = 0; i < 24; i++)
        dst[i] = -1;
    MPI_Request r;
    assert_int_equal(MPI_Irecv(dst, 2, vec, 0, 2, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Send(packed, 16, MPI_INT, 0, 2, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Get_count(&st, vec, &count), MPI_SUCCESS);
    assert_int_equal(count, 2);
    for (int i = 0; i < 22; i++) {
        int k = i % 11;
        bool data = k % 3 < 2;
        assert_int_equal(dst[i], data ? src[i] : -1);
    }
    /* Truncation into a vector: the data that fit are unpacked. */
    for (int i = 0; i < 24; i++)
        dst[i] = -1;
    assert_int_equal(MPI_Send(src, 2, vec, 0, 3, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(dst, 1, vec, 0, 3, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    assert_int_equal(dst[0], src[0]);
    assert_int_equal(dst[7], src[7]);
    assert_int_equal(dst[11], -1);
    /* Freeing the type while a request uses it is fine. */
    MPI_Datatype tmp;
    MPI_Type_dup(vec, &tmp);
    for (int i = 0; i < 24; i++)
        dst[i] = -1;
    assert_int_equal(MPI_Irecv(dst, 1, tmp, 0, 4, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Type_free(&tmp), MPI_SUCCESS);
    assert_int_equal(MPI_Send(src, 1, vec, 0, 4, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, &st), MPI_SUCCESS);
    assert_int_equal(dst[6], src[6]);
    assert_int_equal(dst[2], -1);
    /* Sendrecv_replace, Bsend, persistent and matched receives with a vector. */
    int rep[11];
    memcpy(rep, src, sizeof(rep));
    assert_int_equal(MPI_Sendrecv_replace(rep, 1, vec, 0, 5, 0, 5, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
    assert_memory_equal(rep, src, sizeof(rep));
    char bbuf[1024];
    MPI_Buffer_attach(bbuf, sizeof(bbuf));
    assert_int_equal(MPI_Bsend(src, 1, vec, 0, 6, MPI_COMM_WORLD), MPI_SUCCESS);
    void *bp;
    int bs;
    MPI_Buffer_detach(&bp, &bs);
    assert_int_equal(MPI_Recv(packed, 8, MPI_INT, 0, 6, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(packed[2], src[3]);
    MPI_Request pr;
    assert_int_equal(MPI_Recv_init(dst, 1, vec, 0, 7, MPI_COMM_WORLD, &pr), MPI_SUCCESS);
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 24; i++)
            dst[i] = -1;
        assert_int_equal(MPI_Start(&pr), MPI_SUCCESS);
        assert_int_equal(MPI_Send(src + k, 1, vec, 0, 7, MPI_COMM_WORLD), MPI_SUCCESS);
        assert_int_equal(MPI_Wait(&pr, MPI_STATUS_IGNORE), MPI_SUCCESS);
        assert_int_equal(dst[3], src[3 + k]);
        assert_int_equal(dst[5], -1);
    }
    MPI_Request_free(&pr);
    MPI_Message m;
    assert_int_equal(MPI_Send(src, 1, vec, 0, 8, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Mprobe(0, 8, MPI_COMM_WORLD, &m, &st), MPI_SUCCESS);
    for (int i = 0; i < 24; i++)
        dst[i] = -1;
    assert_int_equal(MPI_Mrecv(dst, 1, vec, &m, &st), MPI_SUCCESS);
    assert_int_equal(dst[7], src[7]);
    assert_int_equal(dst[8], -1);
    /* A contiguous type whose data start before buf (lb -8 via resize of a struct). */
    int blens[1] = {2};
    MPI_Aint disps[1] = {-2 * (MPI_Aint)sizeof(int)};
    MPI_Datatype types[1] = {MPI_INT};
    assert_int_equal(MPI_Type_create_struct(1, blens, disps, types, &shifted), MPI_SUCCESS);
    MPI_Type_commit(&shifted);
    int two[2] = {0, 0};
    assert_int_equal(MPI_Send(src + 4, 1, shifted, 0, 9, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(two, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(two[0], src[2]);
    assert_int_equal(two[1], src[3]);
    MPI_Type_free(&shifted);
    MPI_Type_free(&vec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_singleton),     cmocka_unit_test(test_self_send_recv),
        cmocka_unit_test(test_large_message), cmocka_unit_test(test_proc_null),
        cmocka_unit_test(test_probe_mprobe),  cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_sendrecv),      cmocka_unit_test(test_persistent),
        cmocka_unit_test(test_wait_any_some), cmocka_unit_test(test_cancel_and_status),
        cmocka_unit_test(test_bsend),         cmocka_unit_test(test_comm_isolation),
        cmocka_unit_test(test_derived_types),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
