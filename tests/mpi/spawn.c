/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c - starting processes (MPI 3.1 §10.3): the parents (this program
 * run by umprun on 1..n ranks) spawn 3 copies of it, which compute and
 * answer over the parent intercommunicator:
 *   - point-to-point both ways, every parent with every child, at sizes
 *     around the eager limits (shm 8 KiB, tcp 64 KiB) and large, checked
 *     byte for byte;
 *   - intercommunicator collectives: a bcast from a parent root
 *     (MPI_ROOT/MPI_PROC_NULL), an allreduce across the groups, an
 *     allgather;
 *   - MPI_Intercomm_merge (children high) and an allreduce and a bcast on
 *     the merged communicator;
 *   - MPI_Comm_disconnect, after which the children's parent is gone.
 * Then MPI_Comm_spawn_multiple of two commands (1 and 2 processes; each
 * child checks MPI_APPNUM and its argv), and spawns that must fail with
 * MPI_ERR_SPAWN on every parent (a missing program, maxprocs all 0) while
 * the job goes on. With --spawn-true it spawns a program that never calls
 * MPI_Init, and umprun must end the job.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "mt.h"

static const size_t sizes[] = {0, 1, 8191, 8192, 8193, 65535, 65536, 65537, (1u << 20) + 3};
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]), NCHILD = 3 };

/* The seed of a message from parent p to child c at size index k (and
 * back, +1). */
static unsigned seed_of(int p, int c, int k)
{
    return (unsigned)(p * 131 + c * 17 + k * 3);
}

/* Point-to-point over the intercommunicator: each side sends to every
 * remote rank, then receives from every remote rank. */
static void exchange(MPI_Comm inter, bool parent)
{
    int me, rsize;
    CALL(MPI_Comm_rank(inter, &me));
    CALL(MPI_Comm_remote_size(inter, &rsize));
    for (int k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned char *out = mt_xmalloc(n * (size_t)rsize), *in = mt_xmalloc(n * (size_t)rsize);
        MPI_Request *rq = mt_xmalloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
        for (int r = 0; r < rsize; r++) {
            int p = parent ? me : r, c = parent ? r : me;
            mt_fill(out + n * (size_t)r, n, seed_of(p, c, k) + (parent ? 0 : 1));
            CALL(MPI_Irecv(in + n * (size_t)r, (int)n, MPI_BYTE, r, k, inter, &rq[r]));
        }
        for (int r = 0; r < rsize; r++)
            CALL(MPI_Isend(out + n * (size_t)r, (int)n, MPI_BYTE, r, k, inter, &rq[rsize + r]));
        MPI_Status st[2 * NCHILD + 64];
        CHECK(2 * rsize <= (int)(sizeof(st) / sizeof(st[0])), "too many ranks");
        CALL(MPI_Waitall(2 * rsize, rq, st));
        for (int r = 0; r < rsize; r++) {
            int p = parent ? me : r, c = parent ? r : me, cnt = -1;
            CALL(MPI_Get_count(&st[r], MPI_BYTE, &cnt));
            CHECK(cnt == (int)n && st[r].MPI_SOURCE == r, "size %zu from %d: count %d source %d", n,
                  r, cnt, st[r].MPI_SOURCE);
            char what[64];
            snprintf(what, sizeof(what), "%zu bytes from remote rank %d", n, r);
            CHECK_DATA(in + n * (size_t)r, n, seed_of(p, c, k) + (parent ? 1 : 0), what);
        }
        free(out);
        free(in);
        free(rq);
    }
}

/* Collectives across the groups and on the merged communicator. */
static void collectives(MPI_Comm inter, bool parent)
{
    int me, lsize, rsize;
    CALL(MPI_Comm_rank(inter, &me));
    CALL(MPI_Comm_size(inter, &lsize));
    CALL(MPI_Comm_remote_size(inter, &rsize));
    int nparents = parent ? lsize : rsize;

    /* bcast from parent 0 to the children. */
    int v[4] = {0, 0, 0, 0};
    if (parent) {
        if (me == 0) {
            int w[4] = {11, 22, 33, nparents};
            CALL(MPI_Bcast(w, 4, MPI_INT, MPI_ROOT, inter));
        } else {
            CALL(MPI_Bcast(v, 4, MPI_INT, MPI_PROC_NULL, inter));
        }
    } else {
        CALL(MPI_Bcast(v, 4, MPI_INT, 0, inter));
        CHECK(v[0] == 11 && v[1] == 22 && v[2] == 33 && v[3] == nparents, "bcast gave %d %d %d %d",
              v[0], v[1], v[2], v[3]);
    }
    /* allreduce: each side gets the sum over the other group. */
    int mine = parent ? 1000 + me : me + 1, got = -1;
    CALL(MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, inter));
    int want = 0;
    for (int r = 0; r < rsize; r++)
        want += parent ? r + 1 : 1000 + r;
    CHECK(got == want, "intercommunicator allreduce %d, want %d", got, want);
    /* allgather: the other group's values in rank order. */
    int *all = mt_xmalloc(sizeof(int) * (size_t)rsize);
    CALL(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, inter));
    for (int r = 0; r < rsize; r++)
        CHECK(all[r] == (parent ? r + 1 : 1000 + r), "allgather[%d] = %d", r, all[r]);
    free(all);

    /* Merged: parents first (low), then children. */
    MPI_Comm merged;
    CALL(MPI_Intercomm_merge(inter, parent ? 0 : 1, &merged));
    int mrank, msize, flag = 1;
    CALL(MPI_Comm_rank(merged, &mrank));
    CALL(MPI_Comm_size(merged, &msize));
    CALL(MPI_Comm_test_inter(merged, &flag));
    CHECK(!flag && msize == nparents + NCHILD, "merged: inter %d size %d", flag, msize);
    CHECK(mrank == (parent ? me : nparents + me), "merged rank %d", mrank);
    long sum = 0, one = mrank;
    CALL(MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, merged));
    CHECK(sum == (long)msize * (msize - 1) / 2, "merged allreduce %ld", sum);
    /* A large bcast from the last child, byte for byte. */
    size_t n = (1u << 18) + 5;
    unsigned char *b = mt_xmalloc(n);
    if (mrank == msize - 1)
        mt_fill(b, n, 77);
    else
        memset(b, 0, n);
    CALL(MPI_Bcast(b, (int)n, MPI_BYTE, msize - 1, merged));
    CHECK_DATA(b, n, 77, "merged bcast");
    free(b);
    CALL(MPI_Barrier(merged));
    CALL(MPI_Comm_free(&merged));
}

static int child(int argc, char **argv, MPI_Comm parent)
{
    int appnum = -1, *val = NULL, flag = 0;
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag));
    CHECK(flag, "MPI_APPNUM is not set in a spawned process");
    appnum = *val;
    int flag_inter = 0, rsize = 0;
    CALL(MPI_Comm_test_inter(parent, &flag_inter));
    CALL(MPI_Comm_remote_size(parent, &rsize));
    CHECK(flag_inter && rsize >= 1, "parent: inter %d remote size %d", flag_inter, rsize);
    if (!strcmp(argv[1], "child")) {
        CHECK(argc == 3 && !strcmp(argv[2], "two words"), "argv[2] is '%s'",
              argc > 2 ? argv[2] : "(none)");
        CHECK(mt_size == NCHILD && appnum == 0, "child world %d appnum %d", mt_size, appnum);
        exchange(parent, false);
        collectives(parent, false);
    } else {
        /* spawn_multiple: app 0 ("multi-a") has 1 process, app 1 two. */
        int want = !strcmp(argv[1], "multi-a") ? 0 : 1;
        CHECK(appnum == want && mt_size == 3, "%s: appnum %d world %d", argv[1], appnum, mt_size);
        CHECK((appnum == 0) == (mt_rank == 0), "%s is rank %d", argv[1], mt_rank);
        int a[2] = {mt_rank, appnum};
        CALL(MPI_Send(a, 2, MPI_INT, 0, 5, parent));
    }
    CALL(MPI_Comm_disconnect(&parent));
    CALL(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "the parent is still there after MPI_Comm_disconnect");
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Finalize());
    return 0;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "spawn");
    MPI_Comm parent;
    CALL(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        CHECK(argc >= 2, "a spawned process without its role argument");
        return child(argc, argv, parent);
    }
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    if (argc > 1 && !strcmp(argv[1], "--spawn-true")) {
        /* A program that never calls MPI_Init: umprun ends the job when it
         * exits (the parents would wait for it for ever); this returns only
         * if it did not. */
        MPI_Comm inter;
        MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        CHECK(0, "spawning 'true' returned");
    }

    /* One spawn: 3 children, collective over the world, root the last rank. */
    char *cargv[] = {"child", "two words", NULL};
    int codes[NCHILD] = {-1, -1, -1};
    MPI_Comm inter = MPI_COMM_NULL;
    CALL(MPI_Comm_spawn(argv[0], cargv, NCHILD, MPI_INFO_NULL, mt_size - 1, MPI_COMM_WORLD, &inter,
                        codes));
    for (int i = 0; i < NCHILD; i++)
        CHECK(codes[i] == MPI_SUCCESS, "errcode %d is %d", i, codes[i]);
    int flag = 0, rsize = 0, lsize = 0;
    CALL(MPI_Comm_test_inter(inter, &flag));
    CALL(MPI_Comm_remote_size(inter, &rsize));
    CALL(MPI_Comm_size(inter, &lsize));
    CHECK(flag && rsize == NCHILD && lsize == mt_size, "inter %d remote %d local %d", flag, rsize,
          lsize);
    exchange(inter, true);
    collectives(inter, true);
    CALL(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");

    /* spawn_multiple from rank 0 alone (MPI_COMM_SELF), with an info. */
    if (mt_rank == 0) {
        /* The children of app 0 start in /tmp: name the program absolutely. */
        char *self = realpath(argv[0], NULL);
        CHECK(self != NULL, "realpath(%s) failed", argv[0]);
        char *cmds[2] = {self, argv[0]};
        char *a0[] = {"multi-a", NULL}, *a1[] = {"multi-b", NULL};
        char **argvs[2] = {a0, a1};
        int np[2] = {1, 2}, mcodes[3] = {-1, -1, -1};
        MPI_Info infos[2];
        CALL(MPI_Info_create(&infos[0]));
        CALL(MPI_Info_set(infos[0], "wdir", "/tmp"));
        infos[1] = MPI_INFO_NULL;
        CALL(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_SELF, &inter, mcodes));
        CALL(MPI_Info_free(&infos[0]));
        free(self);
        for (int i = 0; i < 3; i++)
            CHECK(mcodes[i] == MPI_SUCCESS, "multiple: errcode %d is %d", i, mcodes[i]);
        CALL(MPI_Comm_remote_size(inter, &rsize));
        CHECK(rsize == 3, "spawn_multiple: remote size %d", rsize);
        for (int r = 0; r < 3; r++) {
            int a[2];
            CALL(MPI_Recv(a, 2, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE));
            CHECK(a[0] == r && a[1] == (r == 0 ? 0 : 1), "child %d says rank %d appnum %d", r, a[0],
                  a[1]);
        }
        CALL(MPI_Comm_disconnect(&inter));
    }

    /* Failures: nothing is started, every parent sees MPI_ERR_SPAWN. */
    int bad[2] = {-1, -1};
    inter = MPI_COMM_WORLD;
    EXPECT_CLASS(MPI_Comm_spawn("./no-such-program-here", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                                MPI_COMM_WORLD, &inter, bad),
                 MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn left an intercommunicator");
    CHECK(bad[0] == MPI_ERR_SPAWN && bad[1] == MPI_ERR_SPAWN, "failed spawn codes %d %d", bad[0],
          bad[1]);
    char *cmds[1] = {argv[0]};
    int zero[1] = {0};
    EXPECT_CLASS(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, zero, NULL, 0, MPI_COMM_SELF,
                                         &inter, MPI_ERRCODES_IGNORE),
                 MPI_ERR_SPAWN);
    return mt_done();
}
