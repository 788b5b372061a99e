/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll - latency and aggregated bandwidth of MPI_Bcast, MPI_Allgather,
 * MPI_Reduce, MPI_Allreduce (MPI_DOUBLE, MPI_SUM), MPI_Alltoall and
 * MPI_Barrier on all ranks of MPI_COMM_WORLD. bytes = the message of one
 * rank (per peer for alltoall, the contribution for allgather); time_us per
 * call (slowest rank); MB/s = the bytes the ranks receive in total over that
 * time: (P-1)*bytes for bcast and reduce, P*(P-1)*bytes for allgather,
 * allreduce and alltoall.
 *   mpirun -n P coll [--quick] [--time S] [--min B] [--max B] [--csv F]
 *                    [--ops bcast,allgather,reduce,allreduce,alltoall,barrier]
 *                    [--sizes 8,1k,64k,1m]
 * --sizes measures exactly the listed sizes (k/m suffixes) instead of the
 * powers from --min to --max.
 */
#include "bench.h"

enum { BCAST, ALLGATHER, REDUCE, ALLREDUCE, ALLTOALL, BARRIER, NOPS };
static const char *names[NOPS] = {"bcast",     "allgather", "reduce",
                                  "allreduce", "alltoall",  "barrier"};
static const char *ops = "bcast,allgather,reduce,allreduce,alltoall,barrier";
static size_t sizes[32];
static int nsizes;

static int extra(int argc, char **argv, int *i)
{
    if (!strcmp(argv[*i], "--ops") && *i + 1 < argc) {
        ops = argv[++*i];
        return 1;
    }
    if (!strcmp(argv[*i], "--sizes") && *i + 1 < argc) {
        for (char *p = argv[++*i]; *p && nsizes < 32;) {
            sizes[nsizes++] = b_parse_size(p);
            p = strchr(p, ',');
            if (!p) break;
            p++;
        }
        return 1;
    }
    return 0;
}

struct cl {
    int op;
    size_t n;
    unsigned char *sb, *rb;
};

static void run(void *c, long iters)
{
    struct cl *a = c;
    int cnt = (int)a->n, dbl = (int)(a->n / sizeof(double));
    for (long i = 0; i < iters; i++) {
        switch (a->op) {
        case BCAST:
            MPI_Bcast(a->sb, cnt, MPI_BYTE, 0, MPI_COMM_WORLD);
            break;
        case ALLGATHER:
            MPI_Allgather(a->sb, cnt, MPI_BYTE, a->rb, cnt, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case REDUCE:
            MPI_Reduce(a->sb, a->rb, dbl, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            break;
        case ALLREDUCE:
            MPI_Allreduce(a->sb, a->rb, dbl, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case ALLTOALL:
            MPI_Alltoall(a->sb, cnt, MPI_BYTE, a->rb, cnt, MPI_BYTE, MPI_COMM_WORLD);
            break;
        default:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        }
    }
}

/* Sets up the data of one call and checks what it delivered. */
static void verify(struct cl *a)
{
    int P = B.size, me = B.rank;
    size_t n = a->n;
    double *sd = (double *)(void *)a->sb, *rd = (double *)(void *)a->rb;
    size_t nd = n / sizeof(double);
    switch (a->op) {
    case BCAST:
        if (me == 0)
            b_fill(a->sb, n, 1);
        else
            memset(a->sb, 0, n);
        run(a, 1);
        if (b_check(a->sb, n, 1)) b_die("bcast: wrong data");
        b_fill(a->sb, n, 1); /* later rounds: every rank holds the same bytes */
        break;
    case ALLGATHER:
        b_fill(a->sb, n, (size_t)me);
        run(a, 1);
        for (int r = 0; r < P; r++)
            if (b_check(a->rb + (size_t)r * n, n, (size_t)r)) b_die("allgather: wrong data");
        break;
    case REDUCE:
    case ALLREDUCE:
        for (size_t i = 0; i < nd; i++)
            sd[i] = (double)(i % 1000) + me;
        memset(a->rb, 0, n);
        run(a, 1);
        if (a->op == ALLREDUCE || me == 0)
            for (size_t i = 0; i < nd; i++)
                if (rd[i] != (double)P * (double)(i % 1000) + (double)P * (P - 1) / 2)
                    b_die("reduce: wrong sum");
        break;
    case ALLTOALL:
        for (int r = 0; r < P; r++)
            b_fill(a->sb + (size_t)r * n, n, (size_t)(me * P + r));
        run(a, 1);
        for (int r = 0; r < P; r++)
            if (b_check(a->rb + (size_t)r * n, n, (size_t)(r * P + me)))
                b_die("alltoall: wrong data");
        break;
    default:
        run(a, 1);
        break;
    }
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 8, 1 << 20, extra);
    int P = B.size;
    if (!nsizes)
        for (size_t s = B.min < 8 ? 8 : B.min; s <= B.max && nsizes < 32; s = b_next(s))
            sizes[nsizes++] = s;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > B.max) B.max = sizes[i];
    struct cl a = {0, 0, b_alloc(B.max * (size_t)P), b_alloc(B.max * (size_t)P)};
    for (int op = 0; op < NOPS; op++) {
        /* Whole-word match in the comma list. */
        const char *m = strstr(ops, names[op]);
        size_t ln = strlen(names[op]);
        while (m && ((m != ops && m[-1] != ',') || (m[ln] != ',' && m[ln] != 0)))
            m = strstr(m + 1, names[op]);
        if (!m) continue;
        a.op = op;
        for (int si = 0; si < nsizes; si++) {
            size_t s = op == BARRIER ? 0 : sizes[si];
            a.n = op == REDUCE || op == ALLREDUCE ? s / 8 * 8 : s;
            verify(&a);
            double t = b_time(MPI_COMM_WORLD, run, &a);
            double agg = op == BCAST || op == REDUCE ? (double)(P - 1) * (double)s
                                                     : (double)P * (P - 1) * (double)s;
            b_row("coll", names[op], P, op == BARRIER ? 0 : s, t, op == BARRIER ? 0 : agg);
            if (op == BARRIER) break;
        }
    }
    free(a.sb);
    free(a.rb);
    b_end();
    return 0;
}
