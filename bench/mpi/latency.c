/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency - ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv), half the
 * round trip, 0 B ... --max (4 MiB). Bandwidth column = bytes / half trip.
 *   mpirun -n 2 latency [--quick] [--time S] [--min B] [--max B] [--csv F]
 */
#include "bench.h"

struct pp {
    unsigned char *sb, *rb;
    size_t n;
};

static void pingpong(void *c, long iters)
{
    struct pp *p = c;
    for (long i = 0; i < iters; i++) {
        if (B.rank == 0) {
            MPI_Send(p->sb, (int)p->n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(p->rb, (int)p->n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (B.rank == 1) {
            MPI_Recv(p->rb, (int)p->n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(p->sb, (int)p->n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 0, 4 << 20, NULL);
    if (B.size < 2) b_die("needs 2 ranks");
    struct pp p = {b_alloc(B.max), b_alloc(B.max), 0};
    for (size_t s = B.min; s <= B.max; s = b_next(s)) {
        p.n = s;
        /* Verify once: each side sends its own pattern, the other checks. */
        b_fill(p.sb, s, s + (size_t)B.rank);
        memset(p.rb, 0, s);
        pingpong(&p, 1);
        if (B.rank < 2 && b_check(p.rb, s, s + (size_t)(1 - B.rank))) b_die("wrong data");
        double t = b_time(MPI_COMM_WORLD, pingpong, &p) / 2;
        b_row("latency", "pingpong", 2, s, t, (double)s);
    }
    free(p.sb);
    free(p.rb);
    b_end();
    return 0;
}
