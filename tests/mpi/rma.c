/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma.c - one-sided communication calls (MPI 3.1 chapter 11): Put and Get
 * at sizes around the transports' eager limits, derived datatypes on the
 * origin and the target, Accumulate with every predefined op that applies
 * to integers, doubles and MPI_2INT pairs (plus MPI_REPLACE) from all ranks
 * at once checked against a serial reference, Get_accumulate (MPI_NO_OP as
 * an atomic read), a Fetch_and_op counter under contention, a spin lock
 * made of Compare_and_swap guarding a read-modify-write, and the request
 * forms Rput, Rget, Raccumulate, Rget_accumulate, and large gets the origin
 * reads itself. Every rank is origin and target; data are checked byte for
 * byte.
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

/* Put my pattern into my right neighbour's window, then Get it back from
 * there (fence epochs). */
static void test_put_get(size_t n)
{
    unsigned char *base = NULL, *src = mt_xmalloc(n), *back = mt_xmalloc(n);
    MPI_Win win;
    CALL(MPI_Win_allocate((MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, n);
    mt_fill(src, n, (unsigned)mt_rank + 1);
    CALL(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    CALL(MPI_Put(src, (int)n, MPI_BYTE, right(), 0, (int)n, MPI_BYTE, win));
    CALL(MPI_Win_fence(0, win));
    char what[64];
    snprintf(what, sizeof(what), "window after MPI_Put of %zu bytes", n);
    CHECK_DATA(base, n, (unsigned)left() + 1, what);
    memset(back, 0, n);
    CALL(MPI_Get(back, (int)n, MPI_BYTE, right(), 0, (int)n, MPI_BYTE, win));
    CALL(MPI_Win_fence(0, win));
    snprintf(what, sizeof(what), "MPI_Get of %zu bytes", n);
    CHECK_DATA(back, n, (unsigned)mt_rank + 1, what);
    /* Accumulate (BXOR of bytes) of the same size, read back atomically;
     * then a one-byte MPI_REPLACE of its last byte in the same epoch,
     * which accumulate ordering applies after it (a large accumulate's
     * data travel apart from its header). */
    mt_fill(src, n, 77u + (unsigned)mt_rank);
    CALL(MPI_Accumulate(src, (int)n, MPI_BYTE, right(), 0, (int)n, MPI_BYTE, MPI_BXOR, win));
    unsigned char last = 0x5a;
    CALL(MPI_Accumulate(&last, 1, MPI_BYTE, right(), (MPI_Aint)n - 1, 1, MPI_BYTE, MPI_REPLACE,
                        win));
    CALL(MPI_Win_fence(0, win));
    for (size_t i = 0; i < n; i++) {
        unsigned char want = mt_byte(i, (unsigned)left() + 1) ^ mt_byte(i, 77u + (unsigned)left());
        if (i == n - 1) want = last;
        CHECK(base[i] == want, "MPI_Accumulate BXOR of %zu bytes: byte %zu is 0x%02x want 0x%02x",
              n, i, base[i], want);
    }
    memset(back, 0, n);
    CALL(MPI_Get_accumulate(NULL, 0, MPI_BYTE, back, (int)n, MPI_BYTE, left(), 0, (int)n, MPI_BYTE,
                            MPI_NO_OP, win));
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    int l2 = (mt_rank + 2 * mt_size - 2) % mt_size;
    for (size_t i = 0; i < n; i++) {
        unsigned char want = mt_byte(i, (unsigned)l2 + 1) ^ mt_byte(i, 77u + (unsigned)l2);
        if (i == n - 1) want = last;
        CHECK(back[i] == want, "MPI_Get_accumulate MPI_NO_OP of %zu bytes: byte %zu", n, i);
    }
    CALL(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");
    free(src);
    free(back);
}

/* Strided and indexed layouts on either side; displacement units of an int. */
static void test_derived(void)
{
    enum { N = 300 }; /* ints moved; the window holds 3N */
    int *base = NULL, src[2 * N], got[2 * N], want[3 * N];
    MPI_Win win;
    CALL(MPI_Win_allocate(3 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                          &win));
    for (int i = 0; i < 3 * N; i++)
        base[i] = -1;
    for (int i = 0; i < 2 * N; i++)
        src[i] = mt_rank * 100000 + i;
    MPI_Datatype every2, every3, idx, ovec;
    CALL(MPI_Type_vector(N, 1, 2, MPI_INT, &every2)); /* N ints at stride 2 */
    CALL(MPI_Type_commit(&every2));
    CALL(MPI_Type_vector(N / 3, 3, 9, MPI_INT, &every3)); /* blocks of 3 at stride 9 */
    CALL(MPI_Type_commit(&every3));
    int bl[3] = {N / 2, 1, N / 2 - 1}, dis[3] = {2 * N, 0, N};
    CALL(MPI_Type_indexed(3, bl, dis, MPI_INT, &idx)); /* out of order blocks */
    CALL(MPI_Type_commit(&idx));
    CALL(MPI_Type_vector(N / 2, 2, 4, MPI_INT, &ovec));
    CALL(MPI_Type_commit(&ovec));

    /* Contiguous origin to a strided target at displacement 5. */
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Put(src, N, MPI_INT, right(), 5, 1, every2, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < 3 * N; i++)
        want[i] = -1;
    for (int i = 0; i < N; i++)
        want[5 + 2 * i] = left() * 100000 + i;
    CHECK(memcmp(base, want, sizeof(want)) == 0, "MPI_Put to a vector target: window differs");

    /* Strided origin (2 of every 4) to an indexed target. */
    for (int i = 0; i < 3 * N; i++)
        base[i] = -1;
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Put(src, 1, ovec, right(), 0, 1, idx, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < 3 * N; i++)
        want[i] = -1;
    int k = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < bl[b]; j++, k++)
            want[dis[b] + j] = left() * 100000 + (k / 2) * 4 + k % 2;
    CHECK(memcmp(base, want, sizeof(want)) == 0, "MPI_Put vector to indexed: window differs");

    /* Get a block-strided target layout into a strided origin. */
    for (int i = 0; i < 3 * N; i++)
        base[i] = mt_rank * 7 + i;
    for (int i = 0; i < 2 * N; i++)
        got[i] = -2;
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Get(got, 1, every2, right(), 1, 1, every3, win));
    CALL(MPI_Win_fence(0, win));
    /* every3 reads N ints in blocks of 3 at stride 9; every2 lays them
     * out at stride 2. */
    int w[2 * N];
    for (int i = 0; i < 2 * N; i++)
        w[i] = -2;
    k = 0;
    for (int b = 0; b < N / 3; b++)
        for (int j = 0; j < 3; j++, k++)
            w[2 * k] = right() * 7 + 1 + 9 * b + j;
    CHECK(memcmp(got, w, sizeof(w)) == 0, "MPI_Get vector target to vector origin differs");

    /* Accumulate through derived types on both sides. */
    for (int i = 0; i < 3 * N; i++)
        base[i] = i;
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Accumulate(src, 1, ovec, right(), 0, 1, idx, MPI_SUM, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < 3 * N; i++)
        want[i] = i;
    k = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < bl[b]; j++, k++)
            want[dis[b] + j] += left() * 100000 + (k / 2) * 4 + k % 2;
    CHECK(memcmp(base, want, sizeof(want)) == 0, "MPI_Accumulate vector to indexed differs");
    CALL(MPI_Win_free(&win));
    MPI_Type_free(&every2);
    MPI_Type_free(&every3);
    MPI_Type_free(&idx);
    MPI_Type_free(&ovec);
}

/* Value rank r contributes to element i (small, so products stay exact). */
static int contrib(int r, int i)
{
    return (r * 31 + i * 7) % 3 + 1 + ((r + i) % 5 == 0 ? 8 : 0);
}

static int apply_int(MPI_Op op, int a, int b)
{
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    if (op == MPI_BXOR) return a ^ b;
    if (op == MPI_LAND) return a && b;
    if (op == MPI_LOR) return a || b;
    if (op == MPI_LXOR) return !a != !b;
    return b; /* MPI_REPLACE */
}

/* Every rank accumulates into every rank's window at once; the result
 * must equal the serial reduction of the contributions. */
static void test_accumulate_ops(void)
{
    enum { K = 1000 };
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN, MPI_BAND,
                    MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    const char *names[] = {"SUM", "PROD", "MAX",  "MIN", "BAND",
                           "BOR", "BXOR", "LAND", "LOR", "LXOR"};
    int *base = NULL, *src = mt_xmalloc(K * sizeof(int));
    MPI_Win win;
    CALL(
        MPI_Win_allocate(K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
        for (int i = 0; i < K; i++)
            base[i] = 5 + i % 4;
        for (int i = 0; i < K; i++)
            src[i] = contrib(mt_rank, i);
        CALL(MPI_Win_fence(0, win));
        for (int t = 0; t < mt_size; t++)
            CALL(MPI_Accumulate(src, K, MPI_INT, (mt_rank + t) % mt_size, 0, K, MPI_INT, ops[o],
                                win));
        CALL(MPI_Win_fence(0, win));
        for (int i = 0; i < K; i++) {
            int want = 5 + i % 4;
            for (int r = 0; r < mt_size; r++)
                want = apply_int(ops[o], want, contrib(r, i));
            CHECK(base[i] == want, "MPI_Accumulate MPI_%s element %d: got %d want %d", names[o], i,
                  base[i], want);
        }
    }
    /* MPI_REPLACE from one origin per element (the last fence orders nothing
     * between origins, so each element has one writer). */
    for (int i = 0; i < K; i++)
        base[i] = -1;
    CALL(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++) {
        int lo = K * mt_rank / mt_size, hi = K * (mt_rank + 1) / mt_size;
        for (int i = lo; i < hi; i++)
            src[i] = t * 1000 + i;
        CALL(MPI_Accumulate(src + lo, hi - lo, MPI_INT, t, lo, hi - lo, MPI_INT, MPI_REPLACE, win));
        CALL(MPI_Win_fence(0, win)); /* src is reused for the next target */
    }
    for (int i = 0; i < K; i++)
        CHECK(base[i] == mt_rank * 1000 + i, "MPI_REPLACE element %d: got %d want %d", i, base[i],
              mt_rank * 1000 + i);
    CALL(MPI_Win_free(&win));

    /* Doubles: SUM of integer-valued doubles is exact in any order. */
    double *db = NULL, dsrc[K];
    CALL(MPI_Win_allocate(K * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &db,
                          &win));
    for (int i = 0; i < K; i++) {
        db[i] = 0.5 * i;
        dsrc[i] = contrib(mt_rank, i);
    }
    CALL(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++)
        CALL(MPI_Accumulate(dsrc, K, MPI_DOUBLE, t, 0, K, MPI_DOUBLE, MPI_SUM, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < K; i++) {
        double want = 0.5 * i;
        for (int r = 0; r < mt_size; r++)
            want += contrib(r, i);
        CHECK(db[i] == want, "MPI_Accumulate MPI_DOUBLE SUM element %d: got %g want %g", i, db[i],
              want);
    }
    CALL(MPI_Win_free(&win));
    free(src);

    /* MAXLOC and MINLOC on (value, index) pairs: ties go to the lowest
     * index, whatever order the contributions arrive in. */
    struct pair {
        int v, i;
    } *pb = NULL, psrc[K];
    MPI_Op locs[2] = {MPI_MAXLOC, MPI_MINLOC};
    CALL(MPI_Win_allocate(K * sizeof(struct pair), sizeof(struct pair), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &pb, &win));
    for (int o = 0; o < 2; o++) {
        for (int i = 0; i < K; i++) {
            pb[i].v = o ? 1000 : -1000;
            pb[i].i = -1;
            psrc[i].v = contrib(mt_rank, i);
            psrc[i].i = mt_rank;
        }
        CALL(MPI_Win_fence(0, win));
        for (int t = 0; t < mt_size; t++)
            CALL(MPI_Accumulate(psrc, K, MPI_2INT, (mt_rank + t) % mt_size, 0, K, MPI_2INT, locs[o],
                                win));
        CALL(MPI_Win_fence(0, win));
        for (int i = 0; i < K; i++) {
            int bv = contrib(0, i), bi = 0;
            for (int r = 1; r < mt_size; r++) {
                int v = contrib(r, i);
                if (o ? v < bv : v > bv) bv = v, bi = r;
            }
            CHECK(pb[i].v == bv && pb[i].i == bi, "MPI_%s element %d: (%d, %d) want (%d, %d)",
                  o ? "MINLOC" : "MAXLOC", i, pb[i].v, pb[i].i, bv, bi);
        }
    }
    CALL(MPI_Win_free(&win));
}

/* Get_accumulate returns the value before the op; MPI_NO_OP reads. */
static void test_get_accumulate(void)
{
    long long *base = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &base, &win));
    for (int i = 0; i < 4; i++)
        base[i] = 1000 * mt_rank + i;
    CALL(MPI_Win_fence(0, win));
    long long add[4] = {1, 2, 3, 4}, old[4] = {0}, now[4] = {0};
    /* Only my right neighbour's window gets my op: one writer per window. */
    CALL(MPI_Get_accumulate(add, 4, MPI_LONG_LONG, old, 4, MPI_LONG_LONG, right(), 0, 4,
                            MPI_LONG_LONG, MPI_SUM, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++) {
        CHECK(old[i] == 1000LL * right() + i, "MPI_Get_accumulate old value %d: got %lld", i,
              old[i]);
        CHECK(base[i] == 1000LL * mt_rank + i + add[i], "after MPI_Get_accumulate: %lld", base[i]);
    }
    CALL(MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, now, 4, MPI_LONG_LONG, right(), 0, 4,
                            MPI_LONG_LONG, MPI_NO_OP, win));
    CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++)
        CHECK(now[i] == 1000LL * right() + i + add[i], "MPI_NO_OP read %d: got %lld", i, now[i]);
    /* Fetch_and_op with MPI_REPLACE swaps, with MPI_NO_OP reads. */
    long long val = -mt_rank - 1, got = 0;
    CALL(MPI_Fetch_and_op(&val, &got, MPI_LONG_LONG, right(), 3, MPI_REPLACE, win));
    CALL(MPI_Win_fence(0, win));
    CHECK(got == 1000LL * right() + 3 + 4, "MPI_Fetch_and_op MPI_REPLACE fetched %lld", got);
    CHECK(base[3] == -left() - 1, "MPI_Fetch_and_op MPI_REPLACE stored %lld", base[3]);
    CALL(MPI_Fetch_and_op(NULL, &got, MPI_LONG_LONG, right(), 3, MPI_NO_OP, win));
    CALL(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(got == -mt_rank - 1, "MPI_Fetch_and_op MPI_NO_OP read %lld", got);
    CALL(MPI_Win_free(&win));
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* A counter on rank 0 incremented M times by every rank in a shared lock:
 * the fetched values are exactly 0 .. P*M-1. */
static void test_fetch_and_op_counter(void)
{
    enum { M = 150 };
    long long *base = NULL, one = 1, mine[M];
    MPI_Win win;
    CALL(MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &base, &win));
    *base = 0;
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int i = 0; i < M; i++) {
        CALL(MPI_Fetch_and_op(&one, &mine[i], MPI_LONG_LONG, 0, 0, MPI_SUM, win));
        CALL(MPI_Win_flush(0, win));
    }
    CALL(MPI_Win_unlock(0, win));
    long long *all = mt_xmalloc(sizeof(long long) * M * (size_t)mt_size);
    CALL(MPI_Allgather(mine, M, MPI_LONG_LONG, all, M, MPI_LONG_LONG, MPI_COMM_WORLD));
    qsort(all, (size_t)M * (size_t)mt_size, sizeof(long long), cmp_ll);
    for (long long i = 0; i < (long long)M * mt_size; i++)
        CHECK(all[i] == i, "fetched counter values: position %lld holds %lld", i, all[i]);
    if (mt_rank == 0)
        CHECK(*base == (long long)M * mt_size, "counter is %lld, want %lld", *base,
              (long long)M * mt_size);
    free(all);
    CALL(MPI_Win_free(&win));
}

/* A spin lock of Compare_and_swap on rank 0's word 0 guards a plain
 * Get-increment-Put of word 1 on the last rank. */
static void test_cas_lock(void)
{
    enum { M = 40 };
    int *base = NULL;
    MPI_Win win;
    CALL(
        MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    base[0] = base[1] = 0;
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    int owner = mt_size - 1, me = mt_rank + 1, zero = 0;
    CALL(MPI_Win_lock_all(0, win));
    for (int i = 0; i < M; i++) {
        int prev = -1;
        do {
            CALL(MPI_Compare_and_swap(&me, &zero, &prev, MPI_INT, 0, 0, win));
            CALL(MPI_Win_flush(0, win));
        } while (prev != 0);
        int c = -1;
        CALL(MPI_Get(&c, 1, MPI_INT, owner, 1, 1, MPI_INT, win));
        CALL(MPI_Win_flush(owner, win));
        c++;
        CALL(MPI_Put(&c, 1, MPI_INT, owner, 1, 1, MPI_INT, win));
        CALL(MPI_Win_flush(owner, win));
        CALL(MPI_Compare_and_swap(&zero, &me, &prev, MPI_INT, 0, 0, win));
        CALL(MPI_Win_flush(0, win));
        CHECK(prev == me, "lock word was %d while rank %d held the lock", prev, mt_rank);
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == owner)
        CHECK(base[1] == M * mt_size, "counter under the CAS lock is %d, want %d", base[1],
              M * mt_size);
    if (mt_rank == 0) CHECK(base[0] == 0, "lock word left at %d", base[0]);
    CALL(MPI_Win_free(&win));
}

/* Request forms in a lock_all epoch. */
static void test_requests(void)
{
    enum { N = 5000 };
    int *base = NULL, *src = mt_xmalloc(N * sizeof(int)), *got = mt_xmalloc(N * sizeof(int));
    MPI_Win win;
    CALL(
        MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    for (int i = 0; i < N; i++) {
        base[i] = 0;
        src[i] = mt_rank * N + i;
    }
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock_all(0, win));
    MPI_Request r[2];
    CALL(MPI_Rput(src, N / 2, MPI_INT, right(), 0, N / 2, MPI_INT, win, &r[0]));
    CALL(MPI_Raccumulate(src + N / 2, N - N / 2, MPI_INT, right(), N / 2, N - N / 2, MPI_INT,
                         MPI_SUM, win, &r[1]));
    CALL(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "requests not freed by Waitall");
    CALL(MPI_Win_flush(right(), win));
    CALL(MPI_Rget(got, N, MPI_INT, right(), 0, N, MPI_INT, win, &r[0]));
    CALL(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(got[i] == mt_rank * N + i, "MPI_Rget after Rput/Raccumulate: [%d] = %d", i, got[i]);
    int add[3] = {1, 1, 1}, old[3] = {0};
    CALL(MPI_Rget_accumulate(add, 3, MPI_INT, old, 3, MPI_INT, right(), 10, 3, MPI_INT, MPI_SUM,
                             win, &r[0]));
    int flag = 0;
    while (!flag)
        CALL(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++)
        CHECK(old[i] == mt_rank * N + 10 + i, "MPI_Rget_accumulate fetched %d", old[i]);
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        int want = left() * N + i + (i >= 10 && i < 13);
        CHECK(base[i] == want, "window after request forms: [%d] = %d want %d", i, base[i], want);
    }
    /* Request forms to MPI_PROC_NULL complete at once. */
    CALL(MPI_Win_lock_all(0, win));
    CALL(MPI_Rput(src, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &r[0]));
    CALL(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Win_free(&win));
    free(src);
    free(got);
}

/* Gets of more than 16 KiB from one run of the target's window, which
 * the origin reads itself where its transport can (tcp; the others send
 * messages): sizes around that limit and the transports' eager
 * limits at an odd displacement, into a strided origin layout, and by an
 * Rget waited on alone, under lock_all and under an exclusive lock. */
static void test_large_get(void)
{
    enum { N = 300000, VB = 100, VS = 200, VN = 1000 };
    unsigned char *base = NULL, *want = mt_xmalloc(N), *got = mt_xmalloc(N); /* >= VN * VS */
    MPI_Win win;
    CALL(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    mt_fill(base, N, 77u + (unsigned)mt_rank);
    int t = right();
    mt_fill(want, N, 77u + (unsigned)t);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    size_t sizes[] = {16384, 16385, 65535, 65536, 65537, 262144, N - 3};
    CALL(MPI_Win_lock_all(0, win));
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        memset(got, 0, n);
        CALL(MPI_Get(got, (int)n, MPI_BYTE, t, 3, (int)n, MPI_BYTE, win));
        CALL(MPI_Win_flush(t, win));
        CHECK(memcmp(got, want + 3, n) == 0, "MPI_Get of %zu bytes from rank %d differs", n, t);
    }
    MPI_Datatype v;
    CALL(MPI_Type_vector(VN, VB, VS, MPI_BYTE, &v));
    CALL(MPI_Type_commit(&v));
    memset(got, 0, VN * VS);
    MPI_Request rq;
    CALL(MPI_Rget(got, 1, v, t, 11, VN * VB, MPI_BYTE, win, &rq));
    CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < VN; i++) {
        CHECK(memcmp(got + (size_t)i * VS, want + 11 + (size_t)i * VB, VB) == 0,
              "MPI_Rget into a vector: block %d differs", i);
        for (int k = VB; k < VS; k++)
            CHECK(got[(size_t)i * VS + (size_t)k] == 0, "MPI_Rget into a vector wrote gap %d", i);
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    memset(got, 0, N);
    CALL(MPI_Get(got, N, MPI_BYTE, t, 0, N, MPI_BYTE, win));
    CALL(MPI_Win_unlock(t, win));
    CHECK(memcmp(got, want, N) == 0, "MPI_Get of the whole window of rank %d differs", t);
    CALL(MPI_Type_free(&v));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_free(&win));
    free(want);
    free(got);
}

/* Large accumulates from every rank into every rank's window at once,
 * checked against the serial sum: their data travel apart from the header
 * (win.h, UMP_WIN_SPLIT_MIN) and are reduced once in. Ints at 512 KiB
 * -4/0/+4 bytes and past 4 MiB, a target one byte off the ints' alignment
 * (reduced through a copy), a strided origin, 256 KiB + 68 at 4 bytes in, and
 * doubles under lock_all + flush; then a one-element MPI_REPLACE from one
 * origin to the last element of a large accumulate from the same origin,
 * in the same epoch, which must land after it. */
static void test_large_accumulate(void)
{
    enum { P = 65536 }; /* ints in 256 KiB */
    static const struct {
        size_t n, disp;
        int strided;
    } cases[] = {{2 * P - 1, 0, 0}, {2 * P, 0, 0},     {2 * P + 1, 0, 0}, {16 * P + 3, 0, 0},
                 {2 * P + 1, 1, 0}, {2 * P + 1, 0, 1}, {P + 17, 4, 0}};
    size_t wsize = (16 * P + 3) * sizeof(int) + 64;
    unsigned char *base = NULL;
    MPI_Win win;
    CALL(MPI_Win_allocate((MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    int *src = mt_xmalloc(2 * (16 * P + 3) * sizeof(int));
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        size_t n = cases[c].n, d = cases[c].disp;
        for (size_t i = 0; i < n; i++) {
            int v = 5 + (int)(i % 7);
            memcpy(base + d + i * sizeof(int), &v, sizeof(v));
            src[cases[c].strided ? 2 * i : i] = contrib(mt_rank, (int)i);
        }
        MPI_Datatype odt = MPI_INT;
        int ocount = (int)n;
        if (cases[c].strided) {
            CALL(MPI_Type_vector((int)n, 1, 2, MPI_INT, &odt));
            CALL(MPI_Type_commit(&odt));
            ocount = 1;
        }
        CALL(MPI_Win_fence(0, win));
        for (int t = 0; t < mt_size; t++)
            CALL(MPI_Accumulate(src, ocount, odt, (mt_rank + t) % mt_size, (MPI_Aint)d, (int)n,
                                MPI_INT, MPI_SUM, win));
        CALL(MPI_Win_fence(0, win));
        if (cases[c].strided) CALL(MPI_Type_free(&odt));
        for (size_t i = 0; i < n; i++) {
            int got, want = 5 + (int)(i % 7);
            memcpy(&got, base + d + i * sizeof(int), sizeof(got));
            for (int r = 0; r < mt_size; r++)
                want += contrib(r, (int)i);
            CHECK(got == want,
                  "MPI_Accumulate SUM of %zu ints at byte %zu%s: element %zu is %d, "
                  "want %d",
                  n, d, cases[c].strided ? " from a strided origin" : "", i, got, want);
        }
    }
    /* Ordering within one origin: the large accumulate's last element is
     * replaced by the next operation. */
    size_t n = 4 * P + 5;
    int *ib = (int *)base;
    for (size_t i = 0; i < n; i++) {
        ib[i] = 1;
        src[i] = (int)(i % 100);
    }
    int last = -12345;
    CALL(MPI_Win_fence(0, win));
    CALL(MPI_Accumulate(src, (int)n, MPI_INT, right(), 0, (int)n, MPI_INT, MPI_SUM, win));
    CALL(MPI_Accumulate(&last, 1, MPI_INT, right(), (MPI_Aint)((n - 1) * sizeof(int)), 1, MPI_INT,
                        MPI_REPLACE, win));
    CALL(MPI_Win_fence(0, win));
    for (size_t i = 0; i < n; i++) {
        int want = i == n - 1 ? last : 1 + (int)(i % 100);
        CHECK(ib[i] == want,
              "large MPI_Accumulate then MPI_REPLACE: element %zu of %zu is %d, "
              "want %d",
              i, n, ib[i], want);
    }
    CALL(MPI_Win_free(&win));

    /* Doubles (integer-valued: exact in any order), under a lock. */
    size_t nd = 2 * P + 3;
    double *db = NULL, *dsrc = mt_xmalloc(nd * sizeof(double));
    CALL(MPI_Win_allocate((MPI_Aint)(nd * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &db, &win));
    for (size_t i = 0; i < nd; i++) {
        db[i] = 0.5 * (double)(i % 9);
        dsrc[i] = contrib(mt_rank, (int)i);
    }
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock_all(0, win));
    for (int t = 0; t < mt_size; t++) {
        CALL(MPI_Accumulate(dsrc, (int)nd, MPI_DOUBLE, (mt_rank + t) % mt_size, 0, (int)nd,
                            MPI_DOUBLE, MPI_SUM, win));
        CALL(MPI_Win_flush((mt_rank + t) % mt_size, win));
    }
    CALL(MPI_Win_unlock_all(win));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    CALL(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (size_t i = 0; i < nd; i++) {
        double want = 0.5 * (double)(i % 9);
        for (int r = 0; r < mt_size; r++)
            want += contrib(r, (int)i);
        CHECK(db[i] == want, "MPI_Accumulate SUM of %zu doubles: element %zu is %g, want %g", nd, i,
              db[i], want);
    }
    CALL(MPI_Win_unlock(mt_rank, win));
    CALL(MPI_Win_free(&win));
    free(dsrc);
    free(src);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma");
    /* The message is the data plus 72 bytes (header and one run), the
     * reply the data alone: sizes on both sides of the shm (8 KiB) and
     * tcp/udp (64 KiB) eager limits for each. */
    size_t sizes[] = {1,     8,     4095,  8119,  8120,  8121,   8192,   8193,
                      65463, 65464, 65465, 65536, 65537, 300000, 1 << 20};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        test_put_get(sizes[i]);
    test_derived();
    test_accumulate_ops();
    test_get_accumulate();
    test_fetch_and_op_counter();
    test_cas_lock();
    test_requests();
    test_large_get();
    test_large_accumulate();
    return mt_done();
}
