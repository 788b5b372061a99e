/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ddt_vector_bw - streaming bandwidth of a vector datatype between ranks 0
 * and 1: x columns of a 128 x 4096 int array, MPI_Type_vector(128, x, 4096,
 * MPI_INT), sent as a window of 64 MPI_Isend (like bandwidth's uni) and
 * closed by a 0-byte acknowledgement. "datatype" receives with the same
 * vector type; "contig" sends and receives the same number of bytes as one
 * contiguous range, the bound for the datatype. The window's receives land
 * in distinct columns (slot w takes columns w*x ... of a stack of arrays),
 * so, as in bandwidth, large windows stream to memory. x = 1 ... 2048
 * columns; time_us is per window, MB/s counts the payload of the window.
 *   mpirun -n 2 ddt_vector_bw [--quick] [--time S] [--min X] [--max X] [--csv F]
 */
#include "bench.h"

#define ROWS   128
#define COLS   4096
#define WINDOW 64

enum { DATATYPE, CONTIG, NVAR };
static const char *names[NVAR] = {"datatype", "contig"};

struct vb {
    int *sa;   /* the sender's 128 x 4096 array */
    int *ra;   /* the receiver's stack of arrays, WINDOW * x columns in all */
    int *cont; /* contiguous source of "contig" */
    int *crb;  /* contiguous receive slots of "contig" */
    int x, how;
    MPI_Datatype vec;
};

/* Slot w of the window starts at column w * x of the stack of arrays. */
static int *slot(struct vb *v, int w)
{
    size_t col = (size_t)w * (size_t)v->x;
    return v->ra + col / COLS * (size_t)ROWS * COLS + col % COLS;
}

static void window(void *c, long iters)
{
    struct vb *v = c;
    MPI_Request rq[WINDOW];
    size_t n = (size_t)ROWS * (size_t)v->x;
    if (B.rank > 1) return;
    for (long it = 0; it < iters; it++) {
        for (int w = 0; w < WINDOW; w++) {
            if (B.rank == 1) {
                if (v->how == DATATYPE)
                    MPI_Irecv(slot(v, w), 1, v->vec, 0, 2, MPI_COMM_WORLD, &rq[w]);
                else
                    MPI_Irecv(v->crb + (size_t)w * n, (int)n, MPI_INT, 0, 2, MPI_COMM_WORLD,
                              &rq[w]);
            } else {
                if (v->how == DATATYPE)
                    MPI_Isend(v->sa, 1, v->vec, 1, 2, MPI_COMM_WORLD, &rq[w]);
                else
                    MPI_Isend(v->cont, (int)n, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[w]);
            }
        }
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        /* The acknowledgement closes the window for the timer. */
        if (B.rank == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
}

static int val(size_t i)
{
    return (int)(i * 2654435761u) ^ 0x5a5a;
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 1, COLS / 2, NULL);
    if (B.size < 2) b_die("needs 2 ranks");
    if (B.min < 1) B.min = 1;
    if (B.max > COLS / 2) B.max = COLS / 2;
    size_t arr = (size_t)ROWS * COLS, maxc = (size_t)WINDOW * B.max;
    size_t stack = (maxc + COLS - 1) / COLS;
    struct vb v = {b_alloc(arr * sizeof(int)),
                   b_alloc(stack * arr * sizeof(int)),
                   b_alloc((size_t)ROWS * B.max * sizeof(int)),
                   b_alloc((size_t)WINDOW * ROWS * B.max * sizeof(int)),
                   0,
                   0,
                   MPI_DATATYPE_NULL};
    for (size_t i = 0; i < arr; i++)
        v.sa[i] = val(i);
    for (size_t i = 0; i < (size_t)ROWS * B.max; i++)
        v.cont[i] = val(i);
    /* Powers of two divide COLS, so no slot straddles two arrays. */
    for (size_t x = B.min; x <= B.max; x = b_next(x)) {
        if (COLS % x) continue;
        v.x = (int)x;
        size_t n = (size_t)ROWS * x;
        MPI_Type_vector(ROWS, v.x, COLS, MPI_INT, &v.vec);
        MPI_Type_commit(&v.vec);
        for (v.how = 0; v.how < NVAR; v.how++) {
            /* Verify once: every slot holds the sender's columns. */
            if (B.rank == 1) {
                memset(v.ra, 0, stack * arr * sizeof(int));
                memset(v.crb, 0, (size_t)WINDOW * n * sizeof(int));
            }
            window(&v, 1);
            if (B.rank == 1)
                for (int w = 0; w < WINDOW; w++)
                    for (size_t r = 0; r < ROWS; r++)
                        for (size_t c = 0; c < x; c++) {
                            int want = v.how == DATATYPE ? val(r * COLS + c) : val(r * x + c);
                            int got = v.how == DATATYPE ? slot(&v, w)[r * COLS + c]
                                                        : v.crb[(size_t)w * n + r * x + c];
                            if (got != want) b_die("wrong data");
                        }
            double t = b_time(MPI_COMM_WORLD, window, &v);
            size_t bytes = n * sizeof(int);
            b_row("ddt_vector_bw", names[v.how], 2, bytes, t, (double)bytes * WINDOW);
        }
        MPI_Type_free(&v.vec);
    }
    free(v.sa);
    free(v.ra);
    free(v.cont);
    free(v.crb);
    b_end();
    return 0;
}
