/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bandwidth - streaming bandwidth between ranks 0 and 1: a window of 64
 * MPI_Isend of one size, then a 0-byte acknowledgement (uni); "bi" has both
 * ranks send a window to each other at once and counts both directions.
 * time_us is per window.
 * --msgrate measures the message rate instead (osu_mbw_mr's measure): the
 * same unidirectional windows at 1 B - 8 KiB, rows "msgrate uni" whose
 * time_us is per message and whose last column is millions of messages
 * per second.
 *   mpirun -n 2 bandwidth [--msgrate] [--quick] [--time S] [--min B] [--max B] [--csv F]
 */
#include "bench.h"

#define WINDOW 64

struct bw {
    unsigned char *sb, *rb; /* rb holds WINDOW slots so receives do not overlap */
    size_t n;
    int bi;
};

static void window(void *c, long iters)
{
    struct bw *p = c;
    MPI_Request rq[2 * WINDOW];
    int peer = 1 - B.rank;
    if (B.rank > 1) return;
    for (long it = 0; it < iters; it++) {
        int k = 0;
        int sends = p->bi || B.rank == 0, recvs = p->bi || B.rank == 1;
        if (recvs)
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(p->rb + (size_t)w * p->n, (int)p->n, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                          &rq[k++]);
        if (sends)
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(p->sb, (int)p->n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[k++]);
        MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
        /* The acknowledgement closes the window for the timer. */
        if (B.rank == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
}

static int msgrate;

static int opt(int argc, char **argv, int *i)
{
    if (strcmp(argv[*i], "--msgrate")) return 0;
    msgrate = 1;
    return 1;
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 1, 4 << 20, opt);
    if (B.size < 2) b_die("needs 2 ranks");
    if (B.min == 0) B.min = 1;
    if (msgrate && B.max > 8192) B.max = 8192;
    struct bw p = {b_alloc(B.max), b_alloc(B.max * WINDOW), 0, 0};
    for (int bi = 0; bi < 2 - msgrate; bi++) {
        for (size_t s = B.min; s <= B.max; s = b_next(s)) {
            p.n = s;
            p.bi = bi;
            b_fill(p.sb, s, s + (size_t)B.rank);
            memset(p.rb, 0, s * WINDOW);
            window(&p, 1);
            if (B.rank < 2 && (bi || B.rank == 1))
                for (int w = 0; w < WINDOW; w++)
                    if (b_check(p.rb + (size_t)w * s, s, s + (size_t)(1 - B.rank)))
                        b_die("wrong data");
            double t = b_time(MPI_COMM_WORLD, window, &p);
            if (msgrate) /* per message; "MB/s" = messages per microsecond */
                b_row("msgrate", "uni", 2, s, t / WINDOW, 1);
            else
                b_row("bandwidth", bi ? "bi" : "uni", 2, s, t, (double)s * WINDOW * (bi ? 2 : 1));
        }
    }
    free(p.sb);
    free(p.rb);
    b_end();
    return 0;
}
