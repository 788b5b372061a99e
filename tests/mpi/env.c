/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.c - environment management (MPI 3.1 chapter 8): Init / Init_thread,
 * Initialized / Finalized before and after, thread level queries, versions,
 * processor name, Wtime / Wtick, error strings and classes.
 *
 * Options: --thread=single|funneled|serialized|multiple  use MPI_Init_thread
 *          --expect-size=N                               COMM_WORLD has N ranks
 */
#include "mt.h"

#include <pthread.h>
#include <time.h>

/*
 * Open MPI 4.1 counts the terminating NUL in MPI_Get_library_version's
 * resultlen; MPI 3.1 §8.1.1 says resultlen is the length in printable
 * characters. Tolerated only when built with Open MPI, to validate the rest.
 */
#ifdef OPEN_MPI
#define LIBVER_SLACK 1
#else
#define LIBVER_SLACK 0
#endif

static const struct {
    int cls;
    const char *name;
} classes[] = {
#define C(x)                                                                                       \
    {                                                                                              \
        x, #x                                                                                      \
    }
    C(MPI_SUCCESS),
    C(MPI_ERR_BUFFER),
    C(MPI_ERR_COUNT),
    C(MPI_ERR_TYPE),
    C(MPI_ERR_TAG),
    C(MPI_ERR_COMM),
    C(MPI_ERR_RANK),
    C(MPI_ERR_REQUEST),
    C(MPI_ERR_ROOT),
    C(MPI_ERR_GROUP),
    C(MPI_ERR_OP),
    C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS),
    C(MPI_ERR_ARG),
    C(MPI_ERR_UNKNOWN),
    C(MPI_ERR_TRUNCATE),
    C(MPI_ERR_OTHER),
    C(MPI_ERR_INTERN),
    C(MPI_ERR_IN_STATUS),
    C(MPI_ERR_PENDING),
    C(MPI_ERR_ACCESS),
    C(MPI_ERR_AMODE),
    C(MPI_ERR_ASSERT),
    C(MPI_ERR_BAD_FILE),
    C(MPI_ERR_BASE),
    C(MPI_ERR_CONVERSION),
    C(MPI_ERR_DISP),
    C(MPI_ERR_DUP_DATAREP),
    C(MPI_ERR_FILE_EXISTS),
    C(MPI_ERR_FILE_IN_USE),
    C(MPI_ERR_FILE),
    C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_NOKEY),
    C(MPI_ERR_INFO_VALUE),
    C(MPI_ERR_INFO),
    C(MPI_ERR_IO),
    C(MPI_ERR_KEYVAL),
    C(MPI_ERR_LOCKTYPE),
    C(MPI_ERR_NAME),
    C(MPI_ERR_NO_MEM),
    C(MPI_ERR_NOT_SAME),
    C(MPI_ERR_NO_SPACE),
    C(MPI_ERR_NO_SUCH_FILE),
    C(MPI_ERR_PORT),
    C(MPI_ERR_QUOTA),
    C(MPI_ERR_READ_ONLY),
    C(MPI_ERR_RMA_CONFLICT),
    C(MPI_ERR_RMA_SYNC),
    C(MPI_ERR_SERVICE),
    C(MPI_ERR_SIZE),
    C(MPI_ERR_SPAWN),
    C(MPI_ERR_UNSUPPORTED_DATAREP),
    C(MPI_ERR_UNSUPPORTED_OPERATION),
    C(MPI_ERR_WIN),
    C(MPI_ERR_RMA_RANGE),
    C(MPI_ERR_RMA_ATTACH),
    C(MPI_ERR_RMA_SHARED),
    C(MPI_ERR_RMA_FLAVOR),
#undef C
};

static void *other_thread(void *arg)
{
    int *flag = arg;
    if (MPI_Is_thread_main(flag) != MPI_SUCCESS) *flag = -1;
    return NULL;
}

static void check_version_calls(const char *when)
{
    int v = 0, sv = 0, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    CALL(MPI_Get_version(&v, &sv));
    CHECK(v == 3 && sv == 1, "%s: MPI_Get_version gave %d.%d, want 3.1", when, v, sv);
    CHECK(MPI_VERSION == 3 && MPI_SUBVERSION == 1, "%s: MPI_VERSION.MPI_SUBVERSION %d.%d", when,
          MPI_VERSION, MPI_SUBVERSION);
    memset(lib, 'x', sizeof(lib));
    CALL(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING,
          "%s: MPI_Get_library_version resultlen %d", when, len);
    CHECK(memchr(lib, 0, sizeof(lib)) != NULL &&
              ((int)strlen(lib) == len || (int)strlen(lib) + LIBVER_SLACK == len),
          "%s: MPI_Get_library_version string not terminated at resultlen %d", when, len);
}

/*
 * Under MPI_THREAD_MULTIPLE two threads of every rank talk to the partner
 * rank at once on one communicator, told apart by tag: one with small
 * messages, one with large ones.
 */
struct talk {
    MPI_Comm comm;
    int peer, tag, len, rounds;
    int err;
};

static void *talker(void *arg)
{
    struct talk *t = arg;
    int *s = malloc(sizeof(int) * (size_t)t->len), *r = malloc(sizeof(int) * (size_t)t->len);
    for (int k = 0; k < t->rounds && !t->err; k++) {
        MPI_Status st;
        for (int i = 0; i < t->len; i++) {
            s[i] = t->tag * 1000000 + k * 1000 + i % 1000;
            r[i] = -1;
        }
        if (MPI_Sendrecv(s, t->len, MPI_INT, t->peer, t->tag, r, t->len, MPI_INT, t->peer, t->tag,
                         t->comm, &st) != MPI_SUCCESS)
            t->err = 1;
        for (int i = 0; i < t->len && !t->err; i++)
            if (r[i] != t->tag * 1000000 + k * 1000 + i % 1000) {
                fprintf(stderr,
                        "FAIL env rank %d: thread with tag %d, round %d: element %d is %d\n",
                        mt_rank, t->tag, k, i, r[i]);
                t->err = 2;
            }
    }
    free(s);
    free(r);
    return NULL;
}

static void test_threads(void)
{
    MPI_Comm c;
    pthread_t th[2];
    int p = mt_rank ^ 1;
    if (p >= mt_size) p = mt_rank;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    struct talk t[2] = {{c, p, 10, 16, 300, 0}, {c, p, 11, 60000, 20, 0}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, talker, &t[i]) == 0, "pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK(t[0].err == 0 && t[1].err == 0, "threads under MPI_THREAD_MULTIPLE failed (%d, %d)",
          t[0].err, t[1].err);
    CALL(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, required = -1, expect_size = -1;
    mt_prog = "env";

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--thread=", 9)) {
            const char *l = argv[i] + 9;
            required = !strcmp(l, "single")       ? MPI_THREAD_SINGLE
                       : !strcmp(l, "funneled")   ? MPI_THREAD_FUNNELED
                       : !strcmp(l, "serialized") ? MPI_THREAD_SERIALIZED
                       : !strcmp(l, "multiple")   ? MPI_THREAD_MULTIPLE
                                                  : -2;
            if (required == -2) {
                fprintf(stderr, "env: bad thread level %s\n", l);
                return 2;
            }
        } else if (!strncmp(argv[i], "--expect-size=", 14)) {
            expect_size = atoi(argv[i] + 14);
        }
    }

    /* Allowed before MPI_Init (MPI 3.1 §8.7): Initialized, Finalized, versions. */
    CALL(MPI_Initialized(&flag));
    CHECK(flag == 0, "MPI_Initialized before init gave %d, want 0", flag);
    flag = -1;
    CALL(MPI_Finalized(&flag));
    CHECK(flag == 0, "MPI_Finalized before init gave %d, want 0", flag);
    check_version_calls("before MPI_Init");

    if (required >= 0) {
        CALL(MPI_Init_thread(&argc, &argv, required, &provided));
        CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
              "MPI_Init_thread provided %d is not a thread level", provided);
    } else {
        CALL(MPI_Init(&argc, &argv));
    }
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    if (expect_size > 0)
        CHECK(mt_size == expect_size, "MPI_COMM_WORLD size %d, want %d", mt_size, expect_size);

    flag = -1;
    CALL(MPI_Initialized(&flag));
    CHECK(flag != 0, "MPI_Initialized after init gave 0");
    flag = -1;
    CALL(MPI_Finalized(&flag));
    CHECK(flag == 0, "MPI_Finalized after init, before finalize gave %d", flag);

    int q = -1;
    CALL(MPI_Query_thread(&q));
    CHECK(q >= MPI_THREAD_SINGLE && q <= MPI_THREAD_MULTIPLE, "MPI_Query_thread gave %d", q);
    if (required >= 0)
        CHECK(q == provided, "MPI_Query_thread %d differs from Init_thread provided %d", q,
              provided);
    flag = -1;
    CALL(MPI_Is_thread_main(&flag));
    CHECK(flag != 0, "MPI_Is_thread_main on the thread that called init gave 0");
    if (q == MPI_THREAD_MULTIPLE) {
        pthread_t t;
        int other = -2;
        CHECK(pthread_create(&t, NULL, other_thread, &other) == 0, "pthread_create");
        pthread_join(t, NULL);
        CHECK(other == 0, "MPI_Is_thread_main on another thread gave %d, want 0", other);
        test_threads();
    }

    check_version_calls("after MPI_Init");

    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    memset(name, 'x', sizeof(name));
    CALL(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "MPI_Get_processor_name resultlen %d", len);
    CHECK(memchr(name, 0, sizeof(name)) != NULL && (int)strlen(name) == len,
          "MPI_Get_processor_name: string length differs from resultlen %d", len);

    /* Wtime: never goes back, and measures a sleep of 20 ms sensibly. */
    double tick = MPI_Wtick();
    CHECK(tick > 0.0 && tick < 1.0, "MPI_Wtick %g not in (0, 1)", tick);
    double prev = MPI_Wtime();
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        CHECK(now >= prev, "MPI_Wtime went back from %.9f to %.9f", prev, now);
        prev = now;
    }
    double t0 = MPI_Wtime();
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 10.0, "MPI_Wtime measured a 20 ms sleep as %.6f s", dt);

    /* Every error class of the standard: its own class, a non-empty string. */
    int n = (int)(sizeof(classes) / sizeof(classes[0]));
    for (int i = 0; i < n; i++) {
        int c = classes[i].cls, cls = -1;
        char s[MPI_MAX_ERROR_STRING];
        CHECK(c >= 0 && c <= MPI_ERR_LASTCODE, "%s = %d not in [0, MPI_ERR_LASTCODE=%d]",
              classes[i].name, c, MPI_ERR_LASTCODE);
        for (int j = 0; j < i; j++)
            CHECK(classes[j].cls != c, "%s and %s have the same value %d", classes[j].name,
                  classes[i].name, c);
        CALL(MPI_Error_class(c, &cls));
        CHECK(cls == c, "MPI_Error_class(%s=%d) gave %d", classes[i].name, c, cls);
        len = -1;
        memset(s, 'x', sizeof(s));
        CALL(MPI_Error_string(c, s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "MPI_Error_string(%s) resultlen %d",
              classes[i].name, len);
        CHECK(memchr(s, 0, sizeof(s)) != NULL && (int)strlen(s) == len,
              "MPI_Error_string(%s): strlen differs from resultlen %d", classes[i].name, len);
    }
    {
        char s0[MPI_MAX_ERROR_STRING], s1[MPI_MAX_ERROR_STRING];
        CALL(MPI_Error_string(MPI_SUCCESS, s0, &len));
        CALL(MPI_Error_string(MPI_ERR_TRUNCATE, s1, &len));
        CHECK(strcmp(s0, s1) != 0, "MPI_SUCCESS and MPI_ERR_TRUNCATE share the string \"%s\"", s0);
    }

    CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) printf("PASS env (%d ranks, thread level %d)\n", mt_size, q);
    fflush(stdout);
    CALL(MPI_Finalize());

    /* After MPI_Finalize: Initialized and Finalized are both true. */
    flag = -1;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag == 0) {
        fprintf(stderr, "FAIL env rank %d: MPI_Finalized after finalize gave %d\n", mt_rank, flag);
        return 1;
    }
    flag = -1;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag == 0) {
        fprintf(stderr, "FAIL env rank %d: MPI_Initialized after finalize gave %d\n", mt_rank,
                flag);
        return 1;
    }
    int v = 0, sv = 0;
    if (MPI_Get_version(&v, &sv) != MPI_SUCCESS || v != 3 || sv != 1) {
        fprintf(stderr, "FAIL env rank %d: MPI_Get_version after finalize gave %d.%d\n", mt_rank, v,
                sv);
        return 1;
    }
    return 0;
}
