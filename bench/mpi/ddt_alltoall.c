/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ddt_alltoall - MPI_Alltoall of one struct datatype per peer (seed 002
 * §8.3): blocks of 1, 2, 4 ... L ints (4 B up to the last block size), each
 * followed by a gap as large as the first block (4 B). L = --min ... --max
 * (default 2048 ... 131072 ints). Meant for 8 ranks. bytes = the data in one
 * element (sum of the blocks); time_us per MPI_Alltoall; MB/s = the data all
 * ranks receive, ranks * (ranks - 1) * bytes, over that time.
 *   mpirun -n 8 ddt_alltoall [--quick] [--time S] [--min L] [--max L] [--csv F]
 */
#include "bench.h"

struct a2a {
    int *sb, *rb;
    MPI_Datatype t;
};

static void run(void *c, long iters)
{
    struct a2a *a = c;
    for (long i = 0; i < iters; i++)
        MPI_Alltoall(a->sb, 1, a->t, a->rb, 1, a->t, MPI_COMM_WORLD);
}

static int val(size_t k, int from, int to)
{
    return (int)(k * 31 + (size_t)from * 1000003 + (size_t)to * 7);
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 2048, 131072, NULL);
    int P = B.size;
    for (size_t L = B.min; L <= B.max; L = b_next(L)) {
        /* Block i holds 2^i ints; a 1-int gap follows each block. */
        int nb = 0;
        int lens[40];
        MPI_Aint disp[40];
        MPI_Datatype types[40];
        size_t off = 0, data = 0;
        for (size_t len = 1; len <= L; len *= 2, nb++) {
            lens[nb] = (int)len;
            disp[nb] = (MPI_Aint)(off * sizeof(int));
            types[nb] = MPI_INT;
            off += len + 1;
            data += len;
        }
        size_t ext = off; /* ints per element including gaps */
        MPI_Datatype st;
        struct a2a a;
        MPI_Type_create_struct(nb, lens, disp, types, &st);
        MPI_Type_create_resized(st, 0, (MPI_Aint)(ext * sizeof(int)), &a.t);
        MPI_Type_commit(&a.t);
        MPI_Type_free(&st);
        a.sb = b_alloc(ext * (size_t)P * sizeof(int));
        a.rb = b_alloc(ext * (size_t)P * sizeof(int));
        for (int to = 0; to < P; to++)
            for (size_t k = 0; k < ext; k++)
                a.sb[(size_t)to * ext + k] = val(k, B.rank, to);
        /* Verify once: blocks carry the sender's values, gaps stay zero. */
        run(&a, 1);
        for (int from = 0; from < P; from++) {
            size_t k = 0;
            for (int b = 0; b < nb; b++) {
                for (int j = 0; j < lens[b]; j++, k++)
                    if (a.rb[(size_t)from * ext + k] != val(k, from, B.rank)) b_die("wrong data");
                if (a.rb[(size_t)from * ext + k] != 0) b_die("gap overwritten");
                k++;
            }
        }
        double t = b_time(MPI_COMM_WORLD, run, &a);
        size_t bytes = data * sizeof(int);
        b_row("ddt_alltoall", "struct", P, bytes, t, (double)P * (P - 1) * (double)bytes);
        MPI_Type_free(&a.t);
        free(a.sb);
        free(a.rb);
    }
    b_end();
    return 0;
}
