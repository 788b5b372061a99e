/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * win.c - window objects (MPI 3.1 11.2, 11.2.6-11.2.7, 6.8, 8.3):
 * Win_create over user memory (with a zero-size rank), Win_allocate,
 * Win_allocate_shared with Win_shared_query and direct loads and stores
 * of the other ranks' parts (which lie one after the other), RMA calls on
 * a shared window, Win_create_dynamic with Win_attach/Win_detach, and the
 * predefined attributes, names, info, the window's group and error
 * handlers of a window.
 */
#include "mt.h"

static int right(void)
{
    return (mt_rank + 1) % mt_size;
}

static int left(void)
{
    return (mt_rank + mt_size - 1) % mt_size;
}

static MPI_Win handler_win = MPI_WIN_NULL;
static int handler_code = 0, handler_calls = 0;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_win = *win;
    handler_code = *code;
    handler_calls++;
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int unit, int flavor)
{
    void *v = NULL;
    int flag = 0;
    CALL(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == base, "MPI_WIN_BASE: flag %d %p want %p", flag, v, base);
    CALL(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    CHECK(flag && *(MPI_Aint *)v == size, "MPI_WIN_SIZE %ld want %ld", (long)*(MPI_Aint *)v,
          (long)size);
    CALL(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK(flag && *(int *)v == unit, "MPI_WIN_DISP_UNIT %d want %d", *(int *)v, unit);
    CALL(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int *)v == flavor, "MPI_WIN_CREATE_FLAVOR %d want %d", *(int *)v, flavor);
    CALL(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && *(int *)v == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *(int *)v);
}

static void test_create(void)
{
    /* Rank 1 (when there is one) exposes no memory. */
    int n = mt_rank == 1 ? 0 : 100;
    int *mem = mt_xmalloc(100 * sizeof(int));
    for (int i = 0; i < 100; i++)
        mem[i] = -1;
    MPI_Win win;
    CALL(MPI_Win_create(n ? mem : NULL, n * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &win));
    check_attrs(win, n ? mem : NULL, n * (MPI_Aint)sizeof(int), sizeof(int), MPI_WIN_FLAVOR_CREATE);

    /* Group: the communicator's. */
    MPI_Group wg, cg;
    int res = -1;
    CALL(MPI_Win_get_group(win, &wg));
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &cg));
    CALL(MPI_Group_compare(wg, cg, &res));
    CHECK(res == MPI_IDENT, "window group compares %d to the communicator's", res);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);

    /* Names (an unnamed window's name is implementation-defined: Open MPI
     * gives one). */
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CALL(MPI_Win_set_name(win, "halo window"));
    CALL(MPI_Win_get_name(win, name, &len));
    CHECK(len == 11 && strcmp(name, "halo window") == 0, "window name '%s' (%d)", name, len);

    /* Info. */
    MPI_Info info, used;
    CALL(MPI_Info_create(&info));
    CALL(MPI_Info_set(info, "no_locks", "true"));
    CALL(MPI_Win_set_info(win, info));
    CALL(MPI_Info_free(&info));
    CALL(MPI_Win_get_info(win, &used));
    char val[32] = "";
    int flag = 0;
    CALL(MPI_Info_get(used, "no_locks", sizeof(val) - 1, val, &flag));
    /* Which hints come back is the implementation's choice (ump keeps
     * them all); one that does must keep its value. */
    int nkeys = -1;
    CALL(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys >= 0 && (!flag || strcmp(val, "true") == 0), "info no_locks: flag %d '%s'", flag,
          val);
    CALL(MPI_Info_free(&used));

    /* Error handlers: fatal by default; a user one gets the window. */
    MPI_Errhandler eh, got;
    CALL(MPI_Win_get_errhandler(win, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "default window error handler is not fatal");
    MPI_Errhandler_free(&got);
    CALL(MPI_Win_create_errhandler(win_handler, &eh));
    CALL(MPI_Win_set_errhandler(win, eh));
    CALL(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "MPI_Win_get_errhandler does not return the handler set");
    MPI_Errhandler_free(&got);
    CALL(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_win == win && handler_code == MPI_ERR_OTHER,
          "user window handler: %d calls, window %s, code %d", handler_calls,
          handler_win == win ? "right" : "wrong", handler_code);
    /* A real error goes to it too, and the call returns the error. */
    int x = 0;
    int rc = MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* no epoch */
    CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC && handler_calls == 2 && handler_win == win,
          "Put outside an epoch: class %d, %d handler calls", mt_class(rc), handler_calls);
    CALL(MPI_Errhandler_free(&eh));

    /* Put into every rank that has memory, at my slot. */
    CALL(MPI_Win_fence(0, win));
    int me = 1000 + mt_rank;
    for (int t = 0; t < mt_size; t++)
        if (t != 1) CALL(MPI_Put(&me, 1, MPI_INT, t, mt_rank, 1, MPI_INT, win));
    CALL(MPI_Win_fence(0, win));
    if (n)
        for (int i = 0; i < 100; i++) {
            int want = i < mt_size ? 1000 + i : -1;
            CHECK(mem[i] == want, "MPI_Win_create window [%d] = %d want %d", i, mem[i], want);
        }
    CALL(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    free(mem);
}

static void test_allocate(void)
{
    double *base = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                          &win));
    CHECK(base != NULL && ((uintptr_t)base % sizeof(double)) == 0, "MPI_Win_allocate base %p",
          (void *)base);
    check_attrs(win, base, 64 * sizeof(double), sizeof(double), MPI_WIN_FLAVOR_ALLOCATE);
    for (int i = 0; i < 64; i++)
        base[i] = mt_rank + i / 64.0;
    CALL(MPI_Win_fence(0, win));
    double got[64];
    CALL(MPI_Get(got, 64, MPI_DOUBLE, left(), 0, 64, MPI_DOUBLE, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < 64; i++)
        CHECK(got[i] == left() + i / 64.0, "MPI_Get of doubles [%d] = %g", i, got[i]);
    /* Several windows live at once stay apart. */
    int *b2 = NULL;
    MPI_Win w2;
    CALL(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &w2));
    *b2 = 7;
    CALL(MPI_Win_fence(0, w2));
    int v = 100 + mt_rank;
    CALL(MPI_Put(&v, 1, MPI_INT, right(), 0, 1, MPI_INT, w2));
    CALL(MPI_Win_fence(0, w2));
    CHECK(*b2 == 100 + left(), "second window holds %d", *b2);
    CHECK(base[0] == mt_rank, "first window changed by the second's Put: %g", base[0]);
    CALL(MPI_Win_free(&w2));
    CALL(MPI_Win_free(&win));
}

/* Parts of different sizes (one empty), one after the other. */
static void test_shared(void)
{
    MPI_Comm node;
    CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    CALL(MPI_Comm_rank(node, &nr));
    CALL(MPI_Comm_size(node, &ns));
    MPI_Aint mysize = nr == 1 ? 0 : (MPI_Aint)(nr + 1) * 24;
    char *mine = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate_shared(mysize, 1, MPI_INFO_NULL, node, &mine, &win));
    check_attrs(win, mine, mysize, 1, MPI_WIN_FLAVOR_SHARED);
    char *prev_end = NULL;
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz = -1;
        int du = 0;
        char *b = NULL;
        CALL(MPI_Win_shared_query(win, r, &sz, &du, &b));
        MPI_Aint want = r == 1 ? 0 : (MPI_Aint)(r + 1) * 24;
        CHECK(sz == want && du == 1, "shared_query(%d): size %ld unit %d", r, (long)sz, du);
        if (sz) {
            CHECK(!prev_end || b == prev_end, "part of rank %d at %p, previous part ends at %p", r,
                  (void *)b, (void *)prev_end);
            prev_end = b + sz;
        }
        if (r == nr && sz) CHECK(b == mine, "shared_query of myself: %p, mine %p", b, mine);
    }
    MPI_Aint sz = -1;
    int du = 0;
    char *first = NULL, *b0 = NULL;
    CALL(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &first));
    CALL(MPI_Win_shared_query(win, 0, &sz, &du, &b0));
    CHECK(first == b0, "shared_query(MPI_PROC_NULL) is not rank 0's part");
    /* Direct stores into the next rank's part, direct loads after. */
    for (MPI_Aint i = 0; i < mysize; i++)
        mine[i] = 0;
    CALL(MPI_Win_fence(0, win));
    int nx = (nr + 1) % ns;
    char *nb = NULL;
    CALL(MPI_Win_shared_query(win, nx, &sz, &du, &nb));
    for (MPI_Aint i = 0; i < sz; i++)
        nb[i] = (char)(nr * 10 + i);
    CALL(MPI_Win_fence(0, win));
    int pv = (nr + ns - 1) % ns;
    for (MPI_Aint i = 0; i < mysize; i++)
        CHECK(mine[i] == (char)(pv * 10 + i), "direct store [%ld] = %d", (long)i, mine[i]);
    /* RMA calls work on a shared window too. */
    if (mysize) {
        CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, nr, 0, win));
        signed char one = 1;
        CALL(MPI_Accumulate(&one, 1, MPI_SIGNED_CHAR, nr, 0, 1, MPI_SIGNED_CHAR, MPI_SUM, win));
        CALL(MPI_Win_unlock(nr, win));
        CHECK(mine[0] == (char)(pv * 10 + 1), "accumulate on a shared window: %d", mine[0]);
    }
    CALL(MPI_Win_free(&win));
    CALL(MPI_Comm_free(&node));
}

static void test_dynamic(void)
{
    MPI_Win win;
    CALL(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    void *v = NULL;
    int flag = 0;
    CALL(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int *)v == MPI_WIN_FLAVOR_DYNAMIC, "dynamic flavor %d", *(int *)v);
    enum { N = 3000 };
    int *a = mt_xmalloc(N * sizeof(int)), *b = mt_xmalloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        a[i] = b[i] = -1;
    CALL(MPI_Win_attach(win, a, N * sizeof(int)));
    CALL(MPI_Win_attach(win, b, N * sizeof(int)));
    MPI_Aint mine[2], *all = mt_xmalloc(2 * sizeof(MPI_Aint) * (size_t)mt_size);
    CALL(MPI_Get_address(a, &mine[0]));
    CALL(MPI_Get_address(b, &mine[1]));
    CALL(MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD));
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = mt_rank * N + i;
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Put(src, N, MPI_INT, right(), all[2 * right()], N, MPI_INT, win));
    CALL(MPI_Put(src, 10, MPI_INT, right(), all[2 * right() + 1] + 5 * sizeof(int), 10, MPI_INT,
                 win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        CHECK(a[i] == left() * N + i, "dynamic window region a [%d] = %d", i, a[i]);
        int wb = i >= 5 && i < 15 ? left() * N + i - 5 : -1;
        CHECK(b[i] == wb, "dynamic window region b [%d] = %d want %d", i, b[i], wb);
    }
    int got[N];
    CALL(MPI_Get(got, N, MPI_INT, right(), all[2 * right()], N, MPI_INT, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        CHECK(got[i] == mt_rank * N + i, "Get from a dynamic window [%d] = %d", i, got[i]);
    CALL(MPI_Win_detach(win, b));
    CALL(MPI_Win_detach(win, a));
    CALL(MPI_Win_free(&win));
    free(a);
    free(b);
    free(all);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "win");
    test_create();
    test_allocate();
    test_shared();
    test_dynamic();
    return mt_done();
}
