/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma_direct.c - windows of MPI_Win_allocate on one node are direct: the
 * origin loads and stores the target's memory itself and takes the
 * target's locks in the shared segment, so a target that makes no MPI
 * call at all still sees lock/put/flush/get/unlock, fetch-and-op
 * counters and compare-and-swap locks of every other rank complete
 * (with messages it would wait for ever: a bounded wait fails instead).
 * Also derived datatypes on both sides around the direct path's scratch
 * size (256 bytes), accumulates and get-accumulates from all ranks
 * against a serial reference, and the request forms complete at once.
 *
 * Needs every rank on one node (as umprun runs it) and the direct path
 * on (not UMP_WIN_DIRECT=0).
 */
#include <time.h>

#include "mt.h"

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Window of rank 0 (longs): [0] counter, [1] done, [2] CAS lock word,
 * [3] guarded sum, [4 ..) one slot of SLOT longs per rank. */
enum { M = 100, SLOT = 16, HDR = 4 };

/* Waits, with no MPI call, until *p reaches want; a hang guard, not a
 * timing: 100 s is far past any loaded machine. */
static void wait_for(const long *p, long want, const char *what)
{
    double t0 = now();
    while (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want) {
        CHECK(now() - t0 < 100,
              "%s is %ld after 100 s, want %ld: the origins' operations "
              "needed this target's progress (not the direct path)",
              what, __atomic_load_n(p, __ATOMIC_ACQUIRE), want);
    }
}

static void test_silent_target(void)
{
    long *base = NULL;
    MPI_Win win;
    MPI_Aint n = HDR + SLOT * (MPI_Aint)mt_size;
    CALL(MPI_Win_allocate(n * (MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &base, &win));
    int flavor = 0, *fp = NULL, flag = 0;
    CALL(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fp, &flag));
    if (flag) flavor = *fp;
    CHECK(flag && flavor == MPI_WIN_FLAVOR_ALLOCATE, "flavor %d", flavor);
    for (MPI_Aint i = 0; i < n; i++)
        base[i] = 0;
    long fetched[M];
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        /* No MPI call until every origin is done. */
        wait_for(&base[1], mt_size - 1, "the done count");
        CHECK(base[0] == (long)M * (mt_size - 1), "counter %ld, want %ld", base[0],
              (long)M * (mt_size - 1));
        CHECK(base[3] == (long)M * (mt_size - 1), "sum guarded by the CAS lock %ld, want %ld",
              base[3], (long)M * (mt_size - 1));
        CHECK(base[2] == 0, "CAS lock word left at %ld", base[2]);
        for (int r = 1; r < mt_size; r++)
            for (int i = 0; i < SLOT; i++) {
                /* Origin r put r*1000+j into slot entries in reverse order. */
                long want = r * 1000L + (SLOT - 1 - i);
                CHECK(base[HDR + SLOT * r + i] == want, "slot of rank %d entry %d: %ld, want %ld",
                      r, i, base[HDR + SLOT * r + i], want);
            }
        for (int i = 0; i < M; i++)
            fetched[i] = -1;
    } else {
        /* Exclusive: a put through a reversed target layout, flushed, read
         * back through another layout. */
        MPI_Datatype rev, pairs;
        int bl[SLOT], disp[SLOT];
        for (int i = 0; i < SLOT; i++)
            bl[i] = 1, disp[i] = SLOT - 1 - i;
        CALL(MPI_Type_indexed(SLOT, bl, disp, MPI_LONG, &rev));
        CALL(MPI_Type_commit(&rev));
        CALL(MPI_Type_vector(SLOT / 2, 1, 2, MPI_LONG, &pairs));
        CALL(MPI_Type_commit(&pairs));
        long src[SLOT], back[SLOT];
        for (int i = 0; i < SLOT; i++)
            src[i] = mt_rank * 1000L + i;
        MPI_Aint at = HDR + SLOT * (MPI_Aint)mt_rank;
        CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CALL(MPI_Put(src, SLOT, MPI_LONG, 0, at, 1, rev, win));
        CALL(MPI_Win_flush(0, win));
        for (int i = 0; i < SLOT; i++)
            back[i] = -1;
        CALL(MPI_Get(back, SLOT / 2, MPI_LONG, 0, at, 1, pairs, win));
        CALL(MPI_Win_unlock(0, win));
        for (int i = 0; i < SLOT / 2; i++)
            CHECK(back[i] == mt_rank * 1000L + (SLOT - 1 - 2 * i), "get back[%d] = %ld", i,
                  back[i]);
        CALL(MPI_Type_free(&rev));
        CALL(MPI_Type_free(&pairs));

        /* Shared: a fetch-and-op counter and a compare-and-swap lock
         * guarding a get-increment-put, contended by every origin. */
        long one = 1, zero = 0, me = mt_rank, old, v;
        CALL(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int i = 0; i < M; i++) {
            CALL(MPI_Fetch_and_op(&one, &fetched[i], MPI_LONG, 0, 0, MPI_SUM, win));
            do {
                CALL(MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG, 0, 2, win));
            } while (old != 0);
            CALL(MPI_Get(&v, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win));
            CALL(MPI_Win_flush(0, win));
            v++;
            CALL(MPI_Put(&v, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win));
            CALL(MPI_Win_flush(0, win));
            CALL(MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG, 0, 2, win));
            CHECK(old == me, "CAS unlock found %ld, want %ld", old, me);
        }
        CALL(MPI_Accumulate(&one, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win));
        CALL(MPI_Win_unlock(0, win));
    }
    /* Every fetched counter value exactly once. */
    long long mine[M], *all = mt_xmalloc(sizeof(long long) * M * (size_t)mt_size);
    for (int i = 0; i < M; i++)
        mine[i] = fetched[i];
    CALL(MPI_Allgather(mine, M, MPI_LONG_LONG, all, M, MPI_LONG_LONG, MPI_COMM_WORLD));
    qsort(all, (size_t)M * (size_t)mt_size, sizeof(long long), cmp_ll);
    for (long long i = 0; i < (long long)M * (mt_size - 1); i++)
        CHECK(all[M + i] == i, "fetched counter values: position %lld holds %lld", i, all[M + i]);
    free(all);
    CALL(MPI_Win_free(&win));
}

/* Every rank accumulates k*(rank+1) into element k of every other rank's
 * window through an origin vector (stride 2) and a target indexed type
 * (every other int, backwards), and get-accumulates with MPI_SUM, for
 * counts whose streams fall around 256 bytes. */
static void test_derived_accumulate(int cnt)
{
    int *base = NULL;
    MPI_Win win;
    MPI_Aint n = 2 * (MPI_Aint)cnt;
    CALL(MPI_Win_allocate(n * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &base, &win));
    for (MPI_Aint i = 0; i < n; i++)
        base[i] = 0;
    MPI_Datatype ovec, tidx;
    CALL(MPI_Type_vector(cnt, 1, 2, MPI_INT, &ovec));
    CALL(MPI_Type_commit(&ovec));
    int *bl = mt_xmalloc(sizeof(int) * (size_t)cnt), *disp = mt_xmalloc(sizeof(int) * (size_t)cnt);
    for (int k = 0; k < cnt; k++)
        bl[k] = 1, disp[k] = 2 * (cnt - 1 - k);
    CALL(MPI_Type_indexed(cnt, bl, disp, MPI_INT, &tidx));
    CALL(MPI_Type_commit(&tidx));
    int *src = mt_xmalloc(sizeof(int) * 2 * (size_t)cnt);
    int *res = mt_xmalloc(sizeof(int) * 2 * (size_t)cnt);
    for (int k = 0; k < cnt; k++)
        src[2 * k] = k * (mt_rank + 1), src[2 * k + 1] = -7;
    CALL(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++)
        CALL(MPI_Accumulate(src, 1, ovec, t, 0, 1, tidx, MPI_SUM, win));
    CALL(MPI_Win_fence(0, win));
    /* Element k lives at int 2*(cnt-1-k); the odd ints are untouched. */
    int tri = mt_size * (mt_size + 1) / 2;
    for (int k = 0; k < cnt; k++) {
        CHECK(base[2 * (cnt - 1 - k)] == k * tri, "count %d: element %d is %d, want %d", cnt, k,
              base[2 * (cnt - 1 - k)], k * tri);
        CHECK(base[2 * (cnt - 1 - k) + 1] == 0, "count %d: gap after element %d is %d", cnt, k,
              base[2 * (cnt - 1 - k) + 1]);
    }
    /* Get_accumulate into a strided result through the request form, to
     * rank 0, one rank after the other: fetches the value before the sum
     * of this and the lower ranks. */
    for (int r = 0; r < mt_size; r++) {
        if (r == mt_rank) {
            for (int k = 0; k < 2 * cnt; k++)
                res[k] = -1;
            MPI_Request req;
            CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CALL(
                MPI_Rget_accumulate(src, 1, ovec, res, 1, ovec, 0, 0, 1, tidx, MPI_SUM, win, &req));
            CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CALL(MPI_Win_unlock(0, win));
        }
        CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int k = 0; k < cnt; k++) {
        int want = k * tri + k * (mt_rank * (mt_rank + 1) / 2);
        CHECK(res[2 * k] == want, "count %d: fetched element %d is %d, want %d", cnt, k, res[2 * k],
              want);
        CHECK(res[2 * k + 1] == -1, "count %d: result gap %d written (%d)", cnt, k, res[2 * k + 1]);
    }
    CALL(MPI_Win_fence(0, win));
    if (mt_rank == 0)
        for (int k = 0; k < cnt; k++)
            CHECK(base[2 * (cnt - 1 - k)] == 2 * k * tri,
                  "count %d: element %d is %d after "
                  "the get-accumulates, want %d",
                  cnt, k, base[2 * (cnt - 1 - k)], 2 * k * tri);
    CALL(MPI_Win_fence(0, win));
    free(src);
    free(res);
    free(bl);
    free(disp);
    CALL(MPI_Type_free(&ovec));
    CALL(MPI_Type_free(&tidx));
    CALL(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rma_direct");
    test_silent_target();
    int counts[] = {1, 63, 64, 65, 200};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        test_derived_accumulate(counts[i]);
    return mt_done();
}
