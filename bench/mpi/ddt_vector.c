/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ddt_vector - x columns of a 128 x 4096 int array sent between ranks 0 and
 * 1 four ways (seed 002 §3.2): "datatype" MPI_Type_vector(128, x, 4096,
 * MPI_INT); "manual" pack into a contiguous buffer, send, unpack; "multiple"
 * one send per row; "contig" the same bytes already contiguous. x = 1 ...
 * 2048 columns. time_us is the half round trip of a ping-pong; MB/s is the
 * payload (128 * x * 4 bytes) over that time.
 *   mpirun -n 2 ddt_vector [--quick] [--time S] [--csv F]
 */
#include "bench.h"

#define ROWS 128
#define COLS 4096

enum { DATATYPE, MANUAL, MULTIPLE, CONTIG, NVAR };
static const char *names[NVAR] = {"datatype", "manual", "multiple", "contig"};

struct dv {
    int *sa, *ra;     /* the 128 x 4096 arrays */
    int *pack, *unpk; /* contiguous buffers for manual */
    int *cont;        /* contig sends from here (pack gets overwritten) */
    int x, how;
    MPI_Datatype vec;
};

static void send_one(struct dv *d, int peer)
{
    int x = d->x;
    switch (d->how) {
    case DATATYPE:
        MPI_Send(d->sa, 1, d->vec, peer, 4, MPI_COMM_WORLD);
        break;
    case MANUAL:
        for (int r = 0; r < ROWS; r++)
            memcpy(d->pack + (size_t)r * x, d->sa + (size_t)r * COLS, (size_t)x * sizeof(int));
        MPI_Send(d->pack, ROWS * x, MPI_INT, peer, 4, MPI_COMM_WORLD);
        break;
    case MULTIPLE:
        for (int r = 0; r < ROWS; r++)
            MPI_Send(d->sa + (size_t)r * COLS, x, MPI_INT, peer, 4, MPI_COMM_WORLD);
        break;
    default:
        MPI_Send(d->cont, ROWS * x, MPI_INT, peer, 4, MPI_COMM_WORLD);
        break;
    }
}

static void recv_one(struct dv *d, int peer)
{
    int x = d->x;
    switch (d->how) {
    case DATATYPE:
        MPI_Recv(d->ra, 1, d->vec, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case MANUAL:
        MPI_Recv(d->unpk, ROWS * x, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int r = 0; r < ROWS; r++)
            memcpy(d->ra + (size_t)r * COLS, d->unpk + (size_t)r * x, (size_t)x * sizeof(int));
        break;
    case MULTIPLE:
        for (int r = 0; r < ROWS; r++)
            MPI_Recv(d->ra + (size_t)r * COLS, x, MPI_INT, peer, 4, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        break;
    default:
        MPI_Recv(d->unpk, ROWS * x, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    }
}

static void pingpong(void *c, long iters)
{
    struct dv *d = c;
    for (long i = 0; i < iters; i++) {
        if (B.rank == 0) {
            send_one(d, 1);
            recv_one(d, 1);
        } else if (B.rank == 1) {
            recv_one(d, 0);
            send_one(d, 0);
        }
    }
}

static int val(size_t i, int salt)
{
    return (int)(i * 2654435761u) ^ salt;
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 1, COLS / 2, NULL);
    if (B.size < 2) b_die("needs 2 ranks");
    size_t n = (size_t)ROWS * COLS;
    struct dv d = {b_alloc(n * sizeof(int)),
                   b_alloc(n * sizeof(int)),
                   b_alloc(n * sizeof(int)),
                   b_alloc(n * sizeof(int)),
                   b_alloc(n * sizeof(int)),
                   0,
                   0,
                   MPI_DATATYPE_NULL};
    for (size_t i = 0; i < n; i++)
        d.sa[i] = val(i, B.rank), d.cont[i] = val(i, B.rank);
    for (size_t x = B.min < 1 ? 1 : B.min; x <= B.max && x <= COLS; x = b_next(x)) {
        d.x = (int)x;
        MPI_Type_vector(ROWS, d.x, COLS, MPI_INT, &d.vec);
        MPI_Type_commit(&d.vec);
        for (d.how = 0; d.how < NVAR; d.how++) {
            /* Verify once: the received columns hold the peer's values. */
            memset(d.ra, 0, n * sizeof(int));
            memset(d.unpk, 0, n * sizeof(int));
            pingpong(&d, 1);
            if (B.rank < 2) {
                int peer = 1 - B.rank;
                for (size_t r = 0; r < ROWS; r++)
                    for (size_t c = 0; c < x; c++) {
                        size_t k = d.how == CONTIG ? r * x + c : r * COLS + c;
                        int got = d.how == CONTIG ? d.unpk[k] : d.ra[k];
                        if (got != val(k, peer)) b_die("wrong data");
                    }
            }
            double t = b_time(MPI_COMM_WORLD, pingpong, &d) / 2;
            size_t bytes = (size_t)ROWS * x * sizeof(int);
            b_row("ddt_vector", names[d.how], 2, bytes, t, (double)bytes);
        }
        MPI_Type_free(&d.vec);
    }
    free(d.sa);
    free(d.ra);
    free(d.pack);
    free(d.unpk);
    free(d.cont);
    b_end();
    return 0;
}
