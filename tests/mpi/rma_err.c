/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma_err.c - erroneous use of windows returns the MPI error class the
 * standard names (under MPI_ERRORS_RETURN), never a crash or a hang:
 * displacements outside the target's window, calls outside or against
 * the synchronisation sequence, bad window handles, bad ranks, lock
 * types, assertions, datatypes and ops, and flavour-specific calls on the
 * wrong flavour. After every error the window still works. With --fatal,
 * a range error under the default MPI_ERRORS_ARE_FATAL must end the job
 * (tests/mpi/fatal.sh checks the message names the call); with
 * --fatal-dynamic, so must an access to memory a dynamic window's target
 * did not attach.
 */
#include "mt.h"

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
}

static void test_range(MPI_Win win, int *base)
{
    enum { N = 16 };
    int src[2 * N] = {0};
    int t = (mt_rank + 1) % mt_size;
    CALL(MPI_Win_fence(0, win));
    EXPECT_CLASS(MPI_Put(src, 1, MPI_INT, t, N, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(src, 2, MPI_INT, t, N - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(src, 1, MPI_INT, t, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Get(src, N + 1, MPI_INT, t, 0, N + 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Accumulate(src, 1, MPI_INT, t, 1000000, 1, MPI_INT, MPI_SUM, win),
                 MPI_ERR_RMA_RANGE);
    int r = 0;
    EXPECT_CLASS(MPI_Fetch_and_op(src, &r, MPI_INT, t, N, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    MPI_Datatype vec;
    CALL(MPI_Type_vector(2, 1, N, MPI_INT, &vec)); /* second element past the end */
    CALL(MPI_Type_commit(&vec));
    EXPECT_CLASS(MPI_Put(src, 2, MPI_INT, t, 0, 1, vec, win), MPI_ERR_RMA_RANGE);
    MPI_Type_free(&vec);
    /* The last element exactly fits. */
    src[0] = 4242 + mt_rank;
    CALL(MPI_Put(src, 1, MPI_INT, t, N - 1, 1, MPI_INT, win));
    CALL(MPI_Win_fence(0, win));
    int from = (mt_rank + mt_size - 1) % mt_size;
    CHECK(base[N - 1] == 4242 + from, "last element after the range errors: %d", base[N - 1]);
    for (int i = 0; i < N - 1; i++)
        CHECK(base[i] == -1, "element %d changed by a refused operation: %d", i, base[i]);
}

static void test_sync(MPI_Win win)
{
    int x = 1, y = 0, t = (mt_rank + 1) % mt_size;
    /* No epoch open (the previous fence opened one: close it). */
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Get(&y, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Compare_and_swap(&x, &y, &y, MPI_INT, t, 0, win), MPI_ERR_RMA_SYNC);
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT_CLASS(MPI_Rput(&x, 1, MPI_INT, t, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_flush_local(t, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    int flag = 0;
    EXPECT_CLASS(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);
    /* Inside a lock epoch: a second lock of the same rank, a fence, a
     * free, and an access to a rank not locked. */
    CALL(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    MPI_Win copy = win;
    EXPECT_CLASS(MPI_Win_free(&copy), MPI_ERR_RMA_SYNC);
    CHECK(copy == win, "a refused MPI_Win_free changed the handle");
    if (mt_size > 1)
        EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, mt_rank, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CALL(MPI_Win_unlock(t, win));
    /* lock_all then a single unlock. */
    CALL(MPI_Win_lock_all(0, win));
    EXPECT_CLASS(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), MPI_ERR_RMA_SYNC);
    CALL(MPI_Win_unlock_all(win));
    /* A second start or post before the epoch ended. */
    MPI_Group world;
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CALL(MPI_Win_post(world, 0, win));
    EXPECT_CLASS(MPI_Win_post(world, 0, win), MPI_ERR_RMA_SYNC);
    CALL(MPI_Win_start(world, 0, win));
    EXPECT_CLASS(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    CALL(MPI_Win_complete(win));
    CALL(MPI_Win_wait(win));
    MPI_Group_free(&world);
}

static void test_args(MPI_Win win)
{
    int x = 1, y = 0, t = (mt_rank + 1) % mt_size;
    EXPECT_CLASS(MPI_Win_lock(99, t, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, mt_size, 0, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Win_fence(0x7, win), MPI_ERR_ASSERT);
    CALL(MPI_Win_fence(0, win));
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, mt_size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, -5, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Put(&x, -1, MPI_INT, t, 0, -1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_DATATYPE_NULL, t, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    /* Origin and target data of different lengths. */
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, t, 0, 2, MPI_INT, win), MPI_ERR_TYPE);
    /* Accumulate with a user op, or a type the op does not take. */
    MPI_Op uop;
    CALL(MPI_Op_create(user_op, 1, &uop));
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, t, 0, 1, MPI_INT, uop, win), MPI_ERR_OP);
    MPI_Op_free(&uop);
    float f = 1;
    EXPECT_CLASS(MPI_Accumulate(&f, 1, MPI_FLOAT, t, 0, 1, MPI_FLOAT, MPI_BAND, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, t, 0, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE);
    /* Compare_and_swap takes one predefined element. */
    MPI_Datatype two;
    CALL(MPI_Type_contiguous(2, MPI_INT, &two));
    CALL(MPI_Type_commit(&two));
    int xx[2] = {0}, yy[2] = {0}, rr[2];
    EXPECT_CLASS(MPI_Compare_and_swap(xx, yy, rr, two, t, 0, win), MPI_ERR_TYPE);
    MPI_Type_free(&two);
    EXPECT_CLASS(MPI_Compare_and_swap(&x, NULL, &y, MPI_INT, t, 0, win), MPI_ERR_BUFFER);
    /* Flavour-specific calls on a window of another flavour. */
    MPI_Aint sz;
    int du;
    void *b;
    EXPECT_CLASS(MPI_Win_shared_query(win, 0, &sz, &du, &b), MPI_ERR_RMA_FLAVOR);
    EXPECT_CLASS(MPI_Win_attach(win, &x, sizeof(x)), MPI_ERR_RMA_FLAVOR);
    EXPECT_CLASS(MPI_Win_detach(win, &x), MPI_ERR_RMA_FLAVOR);
    void *v;
    int flag;
    EXPECT_CLASS(MPI_Win_get_attr(win, 12345, &v, &flag), MPI_ERR_KEYVAL);
    CALL(MPI_Win_fence(0, win));
}

static void test_dynamic_errors(void)
{
    MPI_Win dw;
    CALL(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
    CALL(MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN));
    char mem[64];
    CALL(MPI_Win_attach(dw, mem, 32));
    EXPECT_CLASS(MPI_Win_attach(dw, mem + 16, 32), MPI_ERR_RMA_ATTACH);
    EXPECT_CLASS(MPI_Win_detach(dw, mem + 1), MPI_ERR_RMA_ATTACH);
    CALL(MPI_Win_detach(dw, mem));
    EXPECT_CLASS(MPI_Win_detach(dw, mem), MPI_ERR_RMA_ATTACH);
    CALL(MPI_Win_free(&dw));
}

static void test_handles(void)
{
    int x = 0;
    MPI_Win null = MPI_WIN_NULL;
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT_CLASS(MPI_Win_free(&null), MPI_ERR_WIN);
    /* A handle of another kind is refused, not taken for a window. */
    MPI_Win wrong = (MPI_Win)(void *)MPI_COMM_WORLD;
    EXPECT_CLASS(MPI_Win_fence(0, wrong), MPI_ERR_WIN);
    EXPECT_CLASS(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, wrong), MPI_ERR_WIN);
    /* Bad creation arguments, on every rank alike. */
    MPI_Win w;
    int mem[4];
    EXPECT_CLASS(MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w), MPI_ERR_SIZE);
    EXPECT_CLASS(MPI_Win_create(mem, sizeof(mem), 0, MPI_INFO_NULL, MPI_COMM_WORLD, &w),
                 MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Win_create(mem, sizeof(mem), 1, MPI_INFO_NULL, MPI_COMM_NULL, &w),
                 MPI_ERR_COMM);
    void *p;
    EXPECT_CLASS(MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &w), MPI_ERR_SIZE);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma_err");
    enum { N = 16 };
    int *base = NULL;
    MPI_Win win;
    CALL(
        MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    for (int i = 0; i < N; i++)
        base[i] = -1;
    if (argc > 1 && !strcmp(argv[1], "--fatal")) {
        /* Default handler: the out of range Put ends the job. */
        int x = 0;
        CALL(MPI_Win_fence(0, win));
        if (mt_rank == 0) {
            MPI_Put(&x, 1, MPI_INT, mt_size - 1, N, 1, MPI_INT, win);
            printf("rma_err: rank %d returned under MPI_ERRORS_ARE_FATAL\n", mt_rank);
        }
        CALL(MPI_Win_fence(0, win));
        printf("rma_err: rank %d was not aborted\n", mt_rank);
        fflush(stdout);
        CALL(MPI_Barrier(MPI_COMM_WORLD));
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--fatal-dynamic")) {
        /* An access to memory the target did not attach: the target
         * refuses it and ends the job (the origin cannot check). */
        MPI_Win dw;
        int mem[4], x = 5;
        CALL(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
        CALL(MPI_Win_attach(dw, mem, sizeof(mem)));
        MPI_Aint at;
        CALL(MPI_Get_address(mem + 4, &at)); /* just past the attached bytes */
        CALL(MPI_Bcast(&at, 1, MPI_AINT, mt_size - 1, MPI_COMM_WORLD));
        CALL(MPI_Win_fence(0, dw));
        if (mt_rank == 0) CALL(MPI_Put(&x, 1, MPI_INT, mt_size - 1, at, 1, MPI_INT, dw));
        CALL(MPI_Win_fence(0, dw));
        printf("rma_err: rank %d was not aborted\n", mt_rank);
        fflush(stdout);
        CALL(MPI_Barrier(MPI_COMM_WORLD));
        return 0;
    }
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    test_range(win, base);
    test_sync(win);
    test_args(win);
    test_dynamic_errors();
    test_handles();
    /* The window still works after all that. */
    int v = 77 + mt_rank, got = -1;
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Put(&v, 1, MPI_INT, (mt_rank + 1) % mt_size, 0, 1, MPI_INT, win));
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Get(&got, 1, MPI_INT, mt_rank, 0, 1, MPI_INT, win));
    CALL(MPI_Win_fence(0, win));
    CHECK(got == 77 + (mt_rank + mt_size - 1) % mt_size, "window after the errors holds %d", got);
    CALL(MPI_Win_free(&win));
    return mt_done();
}
