/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Argument checking and error handling of the MPI layer in a one-rank job:
 * every error class a bad argument raises under MPI_ERRORS_RETURN (and the
 * error string naming the call), user error handlers, inheritance by dup,
 * MPI_Error_string/MPI_Error_class, and the fatal handler ending the
 * process with the message on stderr.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_mpi_common.h"

#define EXPECT(call_expr, cls, name)                                                               \
    do {                                                                                           \
        assert_int_equal((call_expr), (cls));                                                      \
        assert_error_names((cls), (name));                                                         \
    } while (0)

static void test_send_recv_args(void **state)
{
    int x = 0;
    MPI_Request r;
    MPI_Comm w = MPI_COMM_WORLD;
    EXPECT(MPI_Send(&x, 1, MPI_INT, 1, 0, w), MPI_ERR_RANK, "MPI_Send");
    assert_error_names(MPI_ERR_RANK, "destination rank 1 is out of range [0, 1)");
    assert_error_names(MPI_ERR_RANK, "MPI_COMM_WORLD");
    EXPECT(MPI_Send(&x, 1, MPI_INT, -7, 0, w), MPI_ERR_RANK, "MPI_Send");
    EXPECT(MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, w), MPI_ERR_RANK, "MPI_Send");
    EXPECT(MPI_Send(&x, 1, MPI_INT, 0, -1, w), MPI_ERR_TAG, "MPI_Send");
    EXPECT(MPI_Send(&x, 1, MPI_INT, 0, MPI_ANY_TAG, w), MPI_ERR_TAG, "MPI_Send");
    EXPECT(MPI_Send(&x, -1, MPI_INT, 0, 0, w), MPI_ERR_COUNT, "MPI_Send");
    EXPECT(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, w), MPI_ERR_TYPE, "MPI_Send");
    EXPECT(MPI_Send(NULL, 1, MPI_INT, 0, 0, w), MPI_ERR_BUFFER, "MPI_Send");
    EXPECT(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send");
    /* A null buffer with count 0 is fine. */
    assert_int_equal(MPI_Send(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, w), MPI_SUCCESS);

    EXPECT(MPI_Recv(&x, 1, MPI_INT, 3, 0, w, MPI_STATUS_IGNORE), MPI_ERR_RANK, "MPI_Recv");
    EXPECT(MPI_Recv(&x, 1, MPI_INT, 0, -5, w, MPI_STATUS_IGNORE), MPI_ERR_TAG, "MPI_Recv");
    EXPECT(MPI_Recv(&x, -2, MPI_INT, 0, 0, w, MPI_STATUS_IGNORE), MPI_ERR_COUNT, "MPI_Recv");
    EXPECT(MPI_Irecv(&x, 1, MPI_INT, 0, 0, w, NULL), MPI_ERR_REQUEST, "MPI_Irecv");
    EXPECT(MPI_Isend(&x, 1, MPI_INT, 5, 0, w, &r), MPI_ERR_RANK, "MPI_Isend");
    EXPECT(MPI_Issend(&x, 1, MPI_INT, 0, -3, w, &r), MPI_ERR_TAG, "MPI_Issend");
    EXPECT(MPI_Irsend(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM, "MPI_Irsend");
    EXPECT(MPI_Ssend(&x, -1, MPI_INT, 0, 0, w), MPI_ERR_COUNT, "MPI_Ssend");
    EXPECT(MPI_Rsend(&x, 1, MPI_INT, 2, 0, w), MPI_ERR_RANK, "MPI_Rsend");
    EXPECT(MPI_Sendrecv(&x, 1, MPI_INT, 0, 0, &x, 1, MPI_INT, 9, 0, w, MPI_STATUS_IGNORE),
           MPI_ERR_RANK, "MPI_Sendrecv");
    EXPECT(MPI_Sendrecv_replace(&x, 1, MPI_INT, 0, -1, 0, 0, w, MPI_STATUS_IGNORE), MPI_ERR_TAG,
           "MPI_Sendrecv_replace");
    EXPECT(MPI_Probe(4, 0, w, MPI_STATUS_IGNORE), MPI_ERR_RANK, "MPI_Probe");
    int flag;
    EXPECT(MPI_Iprobe(0, -9, w, &flag, MPI_STATUS_IGNORE), MPI_ERR_TAG, "MPI_Iprobe");
    MPI_Message m = MPI_MESSAGE_NULL;
    EXPECT(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &m, MPI_STATUS_IGNORE), MPI_ERR_COMM,
           "MPI_Improbe");
    EXPECT(MPI_Mrecv(&x, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Mrecv");
    EXPECT(MPI_Send_init(&x, 1, MPI_INT, 0, -2, w, &r), MPI_ERR_TAG, "MPI_Send_init");
    EXPECT(MPI_Recv_init(&x, 1, MPI_INT, 7, 0, w, &r), MPI_ERR_RANK, "MPI_Recv_init");
    /* Receives accept the wildcards. */
    assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Cancel(&r), MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

static void test_request_args(void **state)
{
    int x = 1;
    MPI_Request r = MPI_REQUEST_NULL;
    EXPECT(MPI_Wait(NULL, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait");
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST, "MPI_Start");
    assert_int_equal(MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST, "MPI_Start"); /* not persistent */
    MPI_Request stale = r;
    assert_int_equal(MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
    assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* The freed object is caught by its magic number. */
    EXPECT(MPI_Wait(&stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait");
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST, "MPI_Request_free");
    EXPECT(MPI_Waitall(-1, &r, MPI_STATUSES_IGNORE), MPI_ERR_COUNT, "MPI_Waitall");
    int idx;
    EXPECT(MPI_Waitany(1, NULL, &idx, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Waitany");
    EXPECT(MPI_Testany(1, &r, NULL, &idx, MPI_STATUS_IGNORE), MPI_ERR_ARG, "MPI_Testany");
    EXPECT(MPI_Startall(-1, &r), MPI_ERR_COUNT, "MPI_Startall");
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel");
    MPI_Request p;
    assert_int_equal(MPI_Recv_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &p), MPI_SUCCESS);
    EXPECT(MPI_Cancel(&p), MPI_ERR_REQUEST, "MPI_Cancel"); /* inactive */
    assert_int_equal(MPI_Request_free(&p), MPI_SUCCESS);
}

static void test_comm_group_args(void **state)
{
    MPI_Comm c;
    int v;
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &v), MPI_ERR_COMM, "MPI_Comm_size");
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_rank");
    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "MPI_Comm_dup");
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -4, 0, &c), MPI_ERR_ARG, "MPI_Comm_split");
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
           "MPI_Comm_split_type");
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP, "MPI_Comm_create");
    c = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free");
    MPI_Group g;
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &v), MPI_ERR_GROUP, "MPI_Group_size");
    assert_int_equal(MPI_Comm_group(MPI_COMM_WORLD, &g), MPI_SUCCESS);
    int bad[] = {1}, dup[] = {0, 0};
    MPI_Group ng;
    EXPECT(MPI_Group_incl(g, 1, bad, &ng), MPI_ERR_RANK, "MPI_Group_incl");
    EXPECT(MPI_Group_incl(g, 2, dup, &ng), MPI_ERR_ARG, "MPI_Group_incl"); /* n > size */
    int range[1][3] = {{0, 0, 0}};
    EXPECT(MPI_Group_range_incl(g, 1, range, &ng), MPI_ERR_ARG, "MPI_Group_range_incl");
    int out;
    EXPECT(MPI_Group_translate_ranks(g, 1, bad, g, &out), MPI_ERR_RANK,
           "MPI_Group_translate_ranks");
    assert_int_equal(MPI_Group_free(&g), MPI_SUCCESS);
    EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP, "MPI_Group_free");
    int kv = 999;
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL), MPI_ERR_KEYVAL, "MPI_Comm_set_attr");
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL,
           "MPI_Comm_set_attr");
    EXPECT(MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL, "MPI_Comm_free_keyval");
    MPI_Info info;
    EXPECT(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO, "MPI_Info_set");
    assert_int_equal(MPI_Info_create(&info), MPI_SUCCESS);
    EXPECT(MPI_Info_set(info, "", "b"), MPI_ERR_INFO_KEY, "MPI_Info_set");
    char longkey[MPI_MAX_INFO_KEY + 2];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = 0;
    EXPECT(MPI_Info_set(info, longkey, "b"), MPI_ERR_INFO_KEY, "MPI_Info_set");
    EXPECT(MPI_Info_set(info, "a", ""), MPI_ERR_INFO_VALUE, "MPI_Info_set");
    EXPECT(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY, "MPI_Info_delete");
    EXPECT(MPI_Info_get_nthkey(info, 0, longkey), MPI_ERR_ARG, "MPI_Info_get_nthkey");
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
    assert_ptr_equal(info, MPI_INFO_NULL);
    MPI_Info env = MPI_INFO_ENV;
    EXPECT(MPI_Info_free(&env), MPI_ERR_INFO, "MPI_Info_free");
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG,
           "MPI_Comm_set_errhandler");
    EXPECT(MPI_Buffer_attach(NULL, -1), MPI_ERR_ARG, "MPI_Buffer_attach");
    EXPECT(MPI_Error_class(1000, &v), MPI_ERR_ARG, "MPI_Error_class");
}

static void test_error_strings(void **state)
{
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    for (int c = MPI_SUCCESS; c <= MPI_ERR_RMA_FLAVOR; c++) {
        assert_int_equal(MPI_Error_string(c, s, &len), MPI_SUCCESS);
        assert_true(len > 0);
        assert_int_equal(MPI_Error_class(c, &cls), MPI_SUCCESS);
        assert_int_equal(cls, c);
    }
    assert_int_equal(MPI_Error_string(MPI_ERR_LASTCODE, s, &len), MPI_SUCCESS);
    /* A class never raised reads as its text and name. */
    assert_int_equal(MPI_Error_string(MPI_ERR_RMA_SYNC, s, &len), MPI_SUCCESS);
    assert_non_null(strstr(s, "MPI_ERR_RMA_SYNC"));
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

static void test_user_handler(void **state)
{
    MPI_Errhandler eh, got;
    assert_int_equal(MPI_Comm_create_errhandler(my_handler, &eh), MPI_SUCCESS);
    MPI_Comm c;
    assert_int_equal(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    /* The dup inherited ERRORS_RETURN. */
    assert_int_equal(MPI_Comm_get_errhandler(c, &got), MPI_SUCCESS);
    assert_ptr_equal(got, MPI_ERRORS_RETURN);
    assert_int_equal(MPI_Comm_set_errhandler(c, eh), MPI_SUCCESS);
    assert_int_equal(MPI_Errhandler_free(&eh), MPI_SUCCESS); /* still used by c */
    assert_ptr_equal(eh, MPI_ERRHANDLER_NULL);
    int x = 0;
    handler_calls = 0;
    assert_int_equal(MPI_Send(&x, 1, MPI_INT, 2, 0, c), MPI_ERR_RANK);
    assert_int_equal(handler_calls, 1);
    assert_int_equal(handler_code, MPI_ERR_RANK);
    assert_ptr_equal(handler_comm, c);
    assert_int_equal(MPI_Comm_call_errhandler(c, MPI_ERR_OTHER), MPI_SUCCESS);
    assert_int_equal(handler_calls, 2);
    assert_int_equal(handler_code, MPI_ERR_OTHER);
    /* A dup of c inherits the user handler. */
    MPI_Comm c2;
    assert_int_equal(MPI_Comm_dup(c, &c2), MPI_SUCCESS);
    assert_int_equal(MPI_Recv(&x, 1, MPI_INT, 0, -3, c2, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    assert_int_equal(handler_calls, 3);
    assert_ptr_equal(handler_comm, c2);
    assert_int_equal(MPI_Comm_get_errhandler(c2, &got), MPI_SUCCESS);
    assert_int_equal(MPI_Errhandler_free(&got), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_free(&c2), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_free(&c), MPI_SUCCESS);
    /* World still returns codes. */
    assert_int_equal(MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    assert_int_equal(handler_calls, 3);
}

/* Runs fn in a child; returns its exit status and what it wrote to stderr. */
static int in_child(void (*fn)(void), char *err, size_t errlen)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        fn();
        _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < errlen && (k = read(p[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)k;
    err[n] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void fatal_send(void)
{
    int x = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
}

static void fatal_on_dup(void)
{
    /* A communicator made from SELF (fatal by default) is fatal too. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_SELF, &c);
    MPI_Comm_set_name(c, "my comm");
    int x = 0;
    MPI_Recv(&x, -1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE);
}

static void test_fatal(void **state)
{
    char err[4096];
    int code = in_child(fatal_send, err, sizeof(err));
    assert_int_equal(code, MPI_ERR_RANK);
    if (!strstr(err, "ump: MPI error on rank 0: MPI_Send: destination rank 7 is out of range [0, "
                     "1) in communicator MPI_COMM_WORLD (MPI_ERR_RANK)"))
        fail_msg("unexpected stderr: %s", err);
    code = in_child(fatal_on_dup, err, sizeof(err));
    assert_int_equal(code, MPI_ERR_COUNT);
    if (!strstr(err, "MPI_Recv: count -1 is negative in communicator my comm (MPI_ERR_COUNT)"))
        fail_msg("unexpected stderr: %s", err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_recv_args),  cmocka_unit_test(test_request_args),
        cmocka_unit_test(test_comm_group_args), cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_user_handler),    cmocka_unit_test(test_fatal),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
