/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm31.c - the MPI 3.x communicator and environment calls: attributes
 * MPI_UNIVERSE_SIZE, MPI_APPNUM and MPI_LASTUSEDCODE on MPI_COMM_WORLD;
 * MPI_Comm_create_group (only the group's members call it), MPI_Comm_idup,
 * MPI_Comm_dup_with_info, MPI_Comm_set_info / get_info; MPI_Alloc_mem /
 * MPI_Free_mem; MPI_Pcontrol; error classes and codes added at run time
 * (MPI_Add_error_class / code / string, then MPI_Error_class, _string and
 * MPI_LASTUSEDCODE on them); the accessors refusing MPI_COMM_NULL with
 * MPI_ERR_COMM. Communicators made are checked by communicating on them.
 */
#include "mt.h"

/* --expect-universe=N: the launcher was given N slots. */
static int expect_universe = -1;

static void test_attrs(void)
{
    int *v, flag = 0;
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(flag && *v >= mt_size, "MPI_UNIVERSE_SIZE: flag %d value %d (size %d)", flag,
          flag ? *v : -1, mt_size);
    if (expect_universe >= 0)
        CHECK(*v == expect_universe, "MPI_UNIVERSE_SIZE is %d, want %d", *v, expect_universe);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    CHECK(flag && *v == 0, "MPI_APPNUM: flag %d value %d", flag, flag ? *v : -1);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE: flag %d value %d", flag,
          flag ? *v : -1);
    /* All ranks agree on the universe. */
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    int mine = *v, maxu = 0;
    CALL(MPI_Allreduce(&mine, &maxu, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(maxu == mine, "MPI_UNIVERSE_SIZE differs between ranks: %d here, %d elsewhere", mine,
          maxu);
    /* Read-only. */
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &mine), MPI_ERR_KEYVAL);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Each rank sends its world rank around the ring of c; checks the neighbours. */
static void ring_check(MPI_Comm c, const char *what)
{
    int r, n;
    CALL(MPI_Comm_rank(c, &r));
    CALL(MPI_Comm_size(c, &n));
    int out[2] = {r, mt_rank}, in[2] = {-1, -1};
    CALL(MPI_Sendrecv(out, 2, MPI_INT, (r + 1) % n, 5, in, 2, MPI_INT, (r - 1 + n) % n, 5, c,
                      MPI_STATUS_IGNORE));
    CHECK(in[0] == (r - 1 + n) % n, "%s: ring neighbour sent rank %d, want %d", what, in[0],
          (r - 1 + n) % n);
    int sum = 0;
    CALL(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n * (n - 1) / 2, "%s: sum of ranks %d, want %d", what, sum, n * (n - 1) / 2);
}

static void test_create_group(void)
{
    MPI_Group world, evens;
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int ne = (mt_size + 1) / 2, ranks[64];
    for (int i = 0; i < ne; i++)
        ranks[i] = 2 * i;
    CALL(MPI_Group_incl(world, ne, ranks, &evens));
    MPI_Comm c = MPI_COMM_NULL;
    if (mt_rank % 2 == 0) {
        /* Odd ranks do not take part: they are busy elsewhere. */
        CALL(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c));
        CHECK(c != MPI_COMM_NULL, "MPI_Comm_create_group gave MPI_COMM_NULL to a member");
        int r, n;
        CALL(MPI_Comm_rank(c, &r));
        CALL(MPI_Comm_size(c, &n));
        CHECK(r == mt_rank / 2 && n == ne, "create_group: rank %d size %d, want %d %d", r, n,
              mt_rank / 2, ne);
        ring_check(c, "MPI_Comm_create_group");
        /* A second one on the same group gets its own context. */
        MPI_Comm c2;
        CALL(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 8, &c2));
        int a = 100 + r, b = -1;
        if (n > 1) {
            MPI_Request q;
            CALL(MPI_Irecv(&b, 1, MPI_INT, (r + n - 1) % n, 0, c, &q));
            int x = 200 + r, y = -1;
            CALL(MPI_Sendrecv(&x, 1, MPI_INT, (r + 1) % n, 0, &y, 1, MPI_INT, (r + n - 1) % n, 0,
                              c2, MPI_STATUS_IGNORE));
            CALL(MPI_Send(&a, 1, MPI_INT, (r + 1) % n, 0, c));
            CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
            CHECK(y == 200 + (r + n - 1) % n && b == 100 + (r + n - 1) % n,
                  "traffic of two create_group communicators mixed: %d %d", y, b);
        }
        CALL(MPI_Comm_free(&c2));
        CALL(MPI_Comm_free(&c));
    }
    /* A process outside the group gets MPI_COMM_NULL without communicating. */
    if (mt_rank % 2 == 1) {
        CALL(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c));
        CHECK(c == MPI_COMM_NULL, "a non-member got a communicator");
    }
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c), MPI_ERR_GROUP);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, evens, -3, &c), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_NULL, evens, 0, &c), MPI_ERR_COMM);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CALL(MPI_Group_free(&evens));
    CALL(MPI_Group_free(&world));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_info_dup(void)
{
    MPI_Info in, got;
    CALL(MPI_Info_create(&in));
    CALL(MPI_Info_set(in, "ump_test_hint", "blue"));
    MPI_Comm c, d;
    CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &c));
    CALL(MPI_Info_set(in, "ump_test_hint", "changed after the call"));
    ring_check(c, "MPI_Comm_dup_with_info");
    CALL(MPI_Comm_get_info(c, &got));
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CALL(MPI_Info_get(got, "ump_test_hint", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && !strcmp(val, "blue"), "Comm_get_info after dup_with_info: flag %d '%s'", flag,
          flag ? val : "");
    CALL(MPI_Info_free(&got));
    /* MPI_Comm_dup passes the hints on. */
    CALL(MPI_Comm_dup(c, &d));
    CALL(MPI_Comm_get_info(d, &got));
    CALL(MPI_Info_get(got, "ump_test_hint", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && !strcmp(val, "blue"), "hints after MPI_Comm_dup: flag %d", flag);
    CALL(MPI_Info_free(&got));
    /* set_info replaces them; MPI_INFO_NULL clears them. */
    CALL(MPI_Comm_set_info(d, in));
    CALL(MPI_Comm_get_info(d, &got));
    CALL(MPI_Info_get(got, "ump_test_hint", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && !strcmp(val, "changed after the call"), "Comm_set_info: '%s'", val);
    CALL(MPI_Info_free(&got));
    MPI_Comm e;
    CALL(MPI_Comm_dup_with_info(d, MPI_INFO_NULL, &e));
    CALL(MPI_Comm_free(&d));
    d = e;
    CALL(MPI_Comm_get_info(d, &got));
    int nkeys = -1;
    CALL(MPI_Info_get_nkeys(got, &nkeys));
    CHECK(nkeys == 0, "dup_with_info(MPI_INFO_NULL) kept %d hints", nkeys);
    CALL(MPI_Info_free(&got));
    CALL(MPI_Comm_free(&d));
    CALL(MPI_Comm_free(&c));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Comm_get_info(MPI_COMM_NULL, &got), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)(void *)&flag), MPI_ERR_INFO);
    EXPECT_CLASS(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CALL(MPI_Info_free(&in));
}

static void test_idup(void)
{
    MPI_Comm c[3];
    MPI_Request q[3];
    for (int i = 0; i < 3; i++)
        CALL(MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &q[i]));
    CALL(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++) {
        CHECK(q[i] == MPI_REQUEST_NULL, "Waitall left an Idup request set");
        int res;
        CALL(MPI_Comm_compare(MPI_COMM_WORLD, c[i], &res));
        CHECK(res == MPI_CONGRUENT, "Idup: compare gives %d, want MPI_CONGRUENT", res);
        ring_check(c[i], "MPI_Comm_idup");
    }
    for (int i = 0; i < 3; i++)
        CALL(MPI_Comm_free(&c[i]));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &c[0], NULL), MPI_ERR_REQUEST);
    EXPECT_CLASS(MPI_Comm_idup(MPI_COMM_NULL, &c[0], &q[0]), MPI_ERR_COMM);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void test_mem(void)
{
    static const MPI_Aint sizes[] = {0, 1, 63, 4096, 1 << 20};
    for (int i = 0; i < 5; i++) {
        unsigned char *p = NULL;
        CALL(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &p));
        CHECK(p != NULL, "MPI_Alloc_mem(%ld) gave NULL", (long)sizes[i]);
        CHECK(((uintptr_t)p & 7) == 0, "MPI_Alloc_mem memory is not aligned for doubles");
        mt_fill(p, (size_t)sizes[i], 3);
        CHECK(mt_verify(p, (size_t)sizes[i], 3) < 0, "MPI_Alloc_mem memory does not hold data");
        /* Usable as a message buffer. */
        if (sizes[i] && mt_size > 1) {
            CALL(MPI_Bcast(p, (int)sizes[i], MPI_BYTE, 0, MPI_COMM_WORLD));
            CHECK(mt_verify(p, (size_t)sizes[i], 3) < 0, "Bcast into MPI_Alloc_mem memory");
        }
        CALL(MPI_Free_mem(p));
    }
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    void *p;
    EXPECT_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_SIZE);
    EXPECT_CLASS(MPI_Alloc_mem(8, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CALL(MPI_Pcontrol(0));
    CALL(MPI_Pcontrol(1));
    CALL(MPI_Pcontrol(2, "extra", 3));
}

static int handler_code = -1;
static void record(MPI_Comm *c, int *code, ...)
{
    (void)c;
    handler_code = *code;
}

static void test_errclass(void)
{
    int *last, flag, cls, code, code2, cls2;
    CALL(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE, "added class %d is not above MPI_ERR_LASTCODE", cls);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= cls, "MPI_LASTUSEDCODE %d is below the added class %d", *last, cls);
    CALL(MPI_Add_error_code(cls, &code));
    CALL(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    CALL(MPI_Add_error_class(&cls2));
    CHECK(code != cls && code2 != code && cls2 != code2 && cls2 != cls,
          "added values repeat: %d %d %d %d", cls, code, code2, cls2);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(*last >= cls2 && *last >= code2 && *last >= code, "MPI_LASTUSEDCODE %d not updated",
          *last);
    int got;
    CALL(MPI_Error_class(code, &got));
    CHECK(got == cls, "class of added code: %d, want %d", got, cls);
    CALL(MPI_Error_class(code2, &got));
    CHECK(got == MPI_ERR_ARG, "class of code added to MPI_ERR_ARG: %d", got);
    CALL(MPI_Error_class(cls, &got));
    CHECK(got == cls, "an added class is its own class: %d", got);
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    CALL(MPI_Error_string(code, s, &len));
    CHECK(len == 0 && s[0] == 0, "string of a code without one: '%s' (%d)", s, len);
    CALL(MPI_Add_error_string(cls, "my library's class"));
    CALL(MPI_Add_error_string(code, "my library failed: disk on fire"));
    CALL(MPI_Error_string(code, s, &len));
    CHECK(!strcmp(s, "my library failed: disk on fire") && len == (int)strlen(s),
          "MPI_Error_string of an added code: '%s'", s);
    CALL(MPI_Add_error_string(code, "replaced"));
    CALL(MPI_Error_string(code, s, &len));
    CHECK(!strcmp(s, "replaced"), "replaced string: '%s'", s);
    CALL(MPI_Error_string(cls, s, &len));
    CHECK(!strcmp(s, "my library's class"), "string of the added class: '%s'", s);
    /* The code reaches an error handler. */
    MPI_Errhandler eh;
    CALL(MPI_Comm_create_errhandler(record, &eh));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CALL(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
    CHECK(handler_code == code, "handler got %d, want %d", handler_code, code);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Errhandler_free(&eh));
    /* Errors. */
    EXPECT_CLASS(MPI_Add_error_code(code, &got), MPI_ERR_ARG); /* a code, not a class */
    EXPECT_CLASS(MPI_Add_error_code(-5, &got), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_string(MPI_ERR_TYPE, "no"), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_string(*last + 100, "no"), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_class(NULL), MPI_ERR_ARG);
    char big[MPI_MAX_ERROR_STRING + 10];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    EXPECT_CLASS(MPI_Add_error_string(code, big), MPI_ERR_ARG);
    int rc = MPI_Add_error_string(MPI_ERR_TYPE, "no");
    CALL(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, "MPI_Add_error_string") != NULL, "message does not name the call: %s", s);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* MPI 3.1 6.4.1: the accessors on MPI_COMM_NULL are erroneous; ump says so. */
static void test_comm_null(void)
{
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x, flag;
    void *v;
    MPI_Group g;
    char name[MPI_MAX_OBJECT_NAME];
    EXPECT_CLASS(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_get_name(MPI_COMM_NULL, name, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &v, &flag), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Topo_test(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    MPI_Errhandler e;
    EXPECT_CLASS(MPI_Comm_get_errhandler(MPI_COMM_NULL, &e), MPI_ERR_COMM);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "comm31");
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--expect-universe=", 18)) expect_universe = atoi(argv[i] + 18);
    test_attrs();
    test_create_group();
    test_info_dup();
    test_idup();
    test_mem();
    test_errclass();
    test_comm_null();
    return mt_done();
}
