/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errh.c - error handling (MPI 3.1 §8.3-8.4): under MPI_ERRORS_RETURN every
 * bad argument returns its error class and the program goes on; user error
 * handlers are called with the communicator and the code; the handler is
 * inherited by Comm_dup; Comm_call_errhandler.
 *
 * ump also promises that the string of a returned error code names the call
 * and the offending argument (ARCHITECTURE.md, "Errors"); that is checked
 * only when not built with another MPI, since the standard does not ask it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "mt.h"

#ifdef OPEN_MPI
#define NAMES_CALL 0
#else
#define NAMES_CALL 1
#endif

/* Under MPI_ERRORS_RETURN: call fails with class `want`, and (ump) its string
 * names `callname` and contains one of the words in `arg` ("a|b"). */
#define EXPECT_ERR(call, want, callname, arg)                                                      \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(mt_class(rc_) == (want), "%s returned %d (class %d: %s), want class %s", #call, rc_, \
              mt_class(rc_), mt_errstr(rc_), #want);                                               \
        if (NAMES_CALL) check_names(rc_, callname, arg, #call);                                    \
    } while (0)

static void check_names(int rc, const char *callname, const char *args, const char *expr)
{
    char s[MPI_MAX_ERROR_STRING], words[128];
    int len = 0;
    CALL(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, callname) != NULL, "%s: error string \"%s\" does not name %s", expr, s,
          callname);
    snprintf(words, sizeof(words), "%s", args);
    for (char *save = NULL, *w = strtok_r(words, "|", &save); w; w = strtok_r(NULL, "|", &save))
        if (strcasestr(s, w)) return;
    CHECK(0, "%s: error string \"%s\" names none of the argument words \"%s\"", expr, s, args);
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    handler_code = *code;
}

/* After the errors, the communicator still works. */
static void still_works(MPI_Comm c, const char *after)
{
    int size, rank, right, left, x, y = -1;
    CALL(MPI_Comm_size(c, &size));
    CALL(MPI_Comm_rank(c, &rank));
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    x = 1000 + rank;
    CALL(MPI_Sendrecv(&x, 1, MPI_INT, right, 3, &y, 1, MPI_INT, left, 3, c, MPI_STATUS_IGNORE));
    CHECK(y == 1000 + left, "after %s: ring exchange gave %d, want %d", after, y, 1000 + left);
    CALL(MPI_Barrier(c));
}

static void test_return(void)
{
    int buf[8] = {0}, tag_ub, *ip, flag;
    int bad = mt_size + 1000;
    char badstr[16];
    MPI_Request r;
    MPI_Datatype unc;
    snprintf(badstr, sizeof(badstr), "%d", bad);
    char rankwords[64];
    snprintf(rankwords, sizeof(rankwords), "dest|rank %d|%d", bad, bad);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag));
    tag_ub = *ip;

    MPI_Errhandler eh;
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_Comm_get_errhandler did not give MPI_ERRORS_RETURN");
    CALL(MPI_Errhandler_free(&eh));

    /* bad rank */
    EXPECT_ERR(MPI_Send(buf, 1, MPI_INT, bad, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send",
               rankwords);
    EXPECT_ERR(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send",
               "dest|rank|-7");
    snprintf(rankwords, sizeof(rankwords), "source|rank %d|%d", bad, bad);
    EXPECT_ERR(MPI_Recv(buf, 1, MPI_INT, bad, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK,
               "MPI_Recv", rankwords);
    snprintf(rankwords, sizeof(rankwords), "dest|rank %d|%d", bad, bad);
    EXPECT_ERR(MPI_Isend(buf, 1, MPI_INT, bad, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK, "MPI_Isend",
               rankwords);
    /* bad tag: negative (not MPI_ANY_TAG) and above MPI_TAG_UB */
    EXPECT_ERR(MPI_Send(buf, 1, MPI_INT, mt_rank, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send",
               "tag");
    if (tag_ub < 0x7fffffff)
        EXPECT_ERR(MPI_Send(buf, 1, MPI_INT, mt_rank, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG,
                   "MPI_Send", "tag");
    EXPECT_ERR(MPI_Send(buf, 1, MPI_INT, mt_rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG,
               "MPI_Send", "tag");
    EXPECT_ERR(MPI_Irecv(buf, 1, MPI_INT, mt_rank, -5, MPI_COMM_WORLD, &r), MPI_ERR_TAG,
               "MPI_Irecv", "tag");
    /* negative count */
    EXPECT_ERR(MPI_Send(buf, -3, MPI_INT, mt_rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send",
               "count");
    EXPECT_ERR(MPI_Recv(buf, -3, MPI_INT, mt_rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
               MPI_ERR_COUNT, "MPI_Recv", "count");
    /* uncommitted and null datatypes */
    CALL(MPI_Type_contiguous(2, MPI_INT, &unc));
    EXPECT_ERR(MPI_Send(buf, 1, unc, mt_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", "type");
    EXPECT_ERR(MPI_Send(buf, 1, MPI_DATATYPE_NULL, mt_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "MPI_Send", "type");
    EXPECT_ERR(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast",
               "type");
    CALL(MPI_Type_free(&unc));
    /* null communicator: raised on MPI_COMM_WORLD, which returns */
    EXPECT_ERR(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send", "comm");
    EXPECT_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier", "comm");
    /* bad root: every rank passes the same bad root, so nobody waits */
    EXPECT_ERR(MPI_Bcast(buf, 1, MPI_INT, mt_size, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast",
               "root");
    EXPECT_ERR(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT,
               "MPI_Reduce", "root");
    /* null buffer with a count and a basic type */
    EXPECT_ERR(MPI_Send(NULL, 4, MPI_INT, mt_rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send",
               "buf");
    /* ... but a null buffer with count 0 is fine */
    CALL(MPI_Sendrecv(NULL, 0, MPI_INT, mt_rank, 9, NULL, 0, MPI_INT, mt_rank, 9, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));

    /* errors of calls without a communicator are raised on MPI_COMM_WORLD */
    MPI_Group wg, ng;
    MPI_Datatype nt;
    MPI_Info info;
    int out_of_range[1] = {mt_size + 5}, size = -1;
    char longkey[MPI_MAX_INFO_KEY + 16];
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    EXPECT_ERR(MPI_Group_incl(wg, 1, out_of_range, &ng), MPI_ERR_RANK, "MPI_Group_incl", "rank");
    CALL(MPI_Group_free(&wg));
    EXPECT_ERR(MPI_Type_contiguous(-1, MPI_INT, &nt), MPI_ERR_COUNT, "MPI_Type_contiguous",
               "count");
    CALL(MPI_Info_create(&info));
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = 0;
    EXPECT_ERR(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY, "MPI_Info_set", "key");
    CALL(MPI_Info_free(&info));
    EXPECT_ERR(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM, "MPI_Comm_size", "comm");
    EXPECT_ERR(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
               "MPI_Allreduce", "op");

    still_works(MPI_COMM_WORLD, "argument errors under MPI_ERRORS_RETURN");
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void test_user_handler(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm c, c2;
    int buf = 0;
    CALL(MPI_Comm_create_errhandler(my_handler, &eh));
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CALL(MPI_Comm_set_errhandler(c, eh));
    CALL(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == eh, "MPI_Comm_get_errhandler did not give the handler set");
    CALL(MPI_Errhandler_free(&got));

    handler_calls = 0;
    int rc = MPI_Send(&buf, 1, MPI_INT, mt_size + 5, 0, c);
    CHECK(handler_calls == 1, "user handler called %d times for a bad rank, want 1", handler_calls);
    CHECK(handler_comm == c, "user handler got another communicator");
    CHECK(mt_class(handler_code) == MPI_ERR_RANK,
          "user handler got code %d (class %d), want "
          "class MPI_ERR_RANK",
          handler_code, mt_class(handler_code));
    CHECK(rc == handler_code, "the call returned %d after the handler, handler got %d", rc,
          handler_code);

    /* Comm_call_errhandler invokes it with the code given. */
    handler_calls = 0;
    rc = MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_call_errhandler returned %d", rc);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_comm == c,
          "MPI_Comm_call_errhandler: %d calls, code %d", handler_calls, handler_code);

    /* Comm_dup inherits the handler. */
    CALL(MPI_Comm_dup(c, &c2));
    CALL(MPI_Comm_get_errhandler(c2, &got));
    CHECK(got == eh, "MPI_Comm_dup did not inherit the error handler");
    CALL(MPI_Errhandler_free(&got));
    handler_calls = 0;
    rc = MPI_Send(&buf, -1, MPI_INT, mt_rank, 0, c2);
    CHECK(handler_calls == 1 && handler_comm == c2 && mt_class(handler_code) == MPI_ERR_COUNT,
          "handler on the dup: %d calls, class %d", handler_calls, mt_class(handler_code));
    CALL(MPI_Comm_free(&c2));

    /* The handler survives Errhandler_free while it is still set on c. */
    CALL(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");
    handler_calls = 0;
    rc = MPI_Comm_call_errhandler(c, MPI_ERR_TAG);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_TAG,
          "handler after MPI_Errhandler_free: %d calls", handler_calls);

    /* MPI_ERRORS_RETURN through Comm_call_errhandler returns success. */
    CALL(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    handler_calls = 0;
    rc = MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    CHECK(handler_calls == 0, "old handler called after MPI_ERRORS_RETURN was set");
    still_works(c, "user error handlers");
    CALL(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "errh");
    MPI_Errhandler eh;
    CALL(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler of MPI_COMM_WORLD is not "
                                      "MPI_ERRORS_ARE_FATAL");
    CALL(MPI_Errhandler_free(&eh));
    test_return();
    test_user_handler();
    return mt_done();
}
