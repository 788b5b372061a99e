/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rma - one-sided communication between ranks 0 (origin) and 1 (target),
 * the measures of the OSU one-sided benchmarks:
 *   put_fence, get_fence   one Put (Get) and an MPI_Win_fence on both ranks
 *                          per iteration (osu_put_latency -s fence)
 *   put_flush, get_flush   inside one MPI_Win_lock epoch: one Put (Get) and
 *                          an MPI_Win_flush per iteration (osu -s flush)
 *   acc_flush              the same with MPI_Accumulate of MPI_INT, MPI_SUM
 *   put_bw, get_bw         64 Puts (Gets) then one flush, per iteration:
 *                          MB/s (osu_put_bw -s flush)
 *   fop, cas               MPI_Fetch_and_op (MPI_SUM) and
 *                          MPI_Compare_and_swap of one MPI_LONG, with a flush
 * The window is MPI_Win_allocate'd (--max bytes, 1 MiB by default, at least
 * 64). The target spends the passive-target measures inside MPI (the timing
 * loop's allreduce), as the OSU programs' target does.
 *   mpirun -n 2 rma [--quick] [--time S] [--min B] [--max B] [--csv F]
 *                   [--ops put_fence,get_flush,...]
 */
#include <stdbool.h>

#include "bench.h"

#define WINDOW 64

struct rma {
    MPI_Win win;
    unsigned char *base, *buf;
    size_t n;
    int op;
};

enum { PUT_FENCE, GET_FENCE, PUT_FLUSH, GET_FLUSH, ACC_FLUSH, PUT_BW, GET_BW, FOP, CAS, NOPS };
static const char *const names[NOPS] = {"put_fence", "get_fence", "put_flush",
                                        "get_flush", "acc_flush", "put_bw",
                                        "get_bw",    "fop",       "cas"};
static int wanted[NOPS];

static int extra(int argc, char **argv, int *i)
{
    if (strcmp(argv[*i], "--ops") || *i + 1 >= argc) return 0;
    char *list = strdup(argv[++*i]);
    for (char *s, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
        int k = 0;
        while (k < NOPS && strcmp(names[k], t))
            k++;
        if (k == NOPS) {
            free(list);
            return 0;
        }
        wanted[k] = 1;
    }
    free(list);
    return 1;
}

static void run(void *c, long iters)
{
    struct rma *r = c;
    int count = (int)r->n;
    if (r->op == PUT_FENCE || r->op == GET_FENCE) {
        for (long i = 0; i < iters; i++) {
            if (B.rank == 0) {
                if (r->op == PUT_FENCE)
                    MPI_Put(r->buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, r->win);
                else
                    MPI_Get(r->buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, r->win);
            }
            MPI_Win_fence(0, r->win);
        }
        return;
    }
    if (B.rank != 0) return; /* the target waits in the caller's allreduce */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, r->win);
    long v = 1, old = 0, cmp = 0;
    for (long i = 0; i < iters; i++) {
        switch (r->op) {
        case PUT_FLUSH:
            MPI_Put(r->buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, r->win);
            break;
        case GET_FLUSH:
            MPI_Get(r->buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, r->win);
            break;
        case ACC_FLUSH:
            MPI_Accumulate(r->buf, count / 4, MPI_INT, 1, 0, count / 4, MPI_INT, MPI_SUM, r->win);
            break;
        case PUT_BW:
        case GET_BW:
            for (int w = 0; w < WINDOW; w++) {
                size_t at = (size_t)w * r->n;
                if (r->op == PUT_BW)
                    MPI_Put(r->buf + at, count, MPI_BYTE, 1, (MPI_Aint)at, count, MPI_BYTE, r->win);
                else
                    MPI_Get(r->buf + at, count, MPI_BYTE, 1, (MPI_Aint)at, count, MPI_BYTE, r->win);
            }
            break;
        case FOP:
            MPI_Fetch_and_op(&v, &old, MPI_LONG, 1, 0, MPI_SUM, r->win);
            break;
        case CAS:
            MPI_Compare_and_swap(&v, &cmp, &old, MPI_LONG, 1, 0, r->win);
            break;
        }
        MPI_Win_flush(1, r->win);
    }
    MPI_Win_unlock(1, r->win);
}

/* A Put of a pattern and a Get back, checked byte for byte. */
static void verify(struct rma *r, size_t n)
{
    b_fill(r->buf, n, n);
    MPI_Win_fence(0, r->win);
    if (B.rank == 0) MPI_Put(r->buf, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, r->win);
    MPI_Win_fence(0, r->win);
    if (B.rank == 1 && b_check(r->base, n, n)) b_die("wrong data after MPI_Put");
    memset(r->buf, 0, n);
    if (B.rank == 0) MPI_Get(r->buf, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, r->win);
    MPI_Win_fence(0, r->win);
    if (B.rank == 0 && b_check(r->buf, n, n)) b_die("wrong data after MPI_Get");
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 0, 1 << 20, extra);
    if (B.size < 2) b_die("needs 2 ranks");
    int any = 0;
    for (int k = 0; k < NOPS; k++)
        any |= wanted[k];
    if (!any)
        for (int k = 0; k < NOPS; k++)
            wanted[k] = 1;
    size_t bw_max = B.max / WINDOW ? B.max / WINDOW : 1;
    /* Room for the bandwidth measures' WINDOW messages of at least a byte,
     * and for fop's and cas's long, whatever --max says. */
    size_t room = B.max > WINDOW ? B.max : WINDOW;
    struct rma r = {.buf = b_alloc(room)};
    MPI_Win_allocate((MPI_Aint)room, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r.base, &r.win);
    memset(r.base, 0, room);
    MPI_Barrier(MPI_COMM_WORLD);
    verify(&r, B.max);
    /* The fence measures run in the fence epochs verify() left open; the
     * last fence before the first passive-target measure closes them. */
    bool fenced = true;
    for (int k = 0; k < NOPS; k++) {
        if (!wanted[k]) continue;
        r.op = k;
        if (fenced && k != PUT_FENCE && k != GET_FENCE) {
            MPI_Win_fence(MPI_MODE_NOSUCCEED, r.win);
            fenced = false;
        }
        if (k == FOP || k == CAS) {
            r.n = sizeof(long);
            double t = b_time(MPI_COMM_WORLD, run, &r);
            b_row("rma", names[k], 2, sizeof(long), t, sizeof(long));
            continue;
        }
        bool bw = k == PUT_BW || k == GET_BW;
        size_t lo = k == ACC_FLUSH ? (B.min > 4 ? B.min : 4) : (bw && B.min == 0 ? 1 : B.min);
        for (size_t s = lo; s <= (bw ? bw_max : B.max); s = b_next(s)) {
            if (k == ACC_FLUSH && s % 4) continue;
            r.n = s;
            double t = b_time(MPI_COMM_WORLD, run, &r);
            b_row("rma", names[k], 2, s, bw ? t / WINDOW : t, (double)s);
        }
    }
    if (fenced) MPI_Win_fence(MPI_MODE_NOSUCCEED, r.win);
    MPI_Win_free(&r.win);
    free(r.buf);
    b_end();
    return 0;
}
