/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives at MPI_THREAD_MULTIPLE: blocking and nonblocking ones from
 * the main thread must complete (the nonblocking ones cannot be advanced
 * by the core's progress hooks there and run at their start).
 */
#include "coll_common.h"

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    tcase("thread level %d", provided);
    for (int it = 0; it < 50; it++) {
        int v = T_rank + it, s = -1, b = T_rank == 0 ? it : -1;
        MPI_Request q[3];
        TMPI(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
        TMPI(MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &q[1]));
        TMPI(MPI_Ibarrier(MPI_COMM_WORLD, &q[2]));
        TMPI(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        TCHECK(s == T_size * (T_size - 1) / 2 + T_size * it, "iallreduce %d", s);
        TCHECK(b == it, "ibcast %d", b);
        int w = -1;
        TMPI(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        TCHECK(w == T_size - 1 + it, "allreduce %d", w);
    }
    if (T_rank == 0) printf("coll_threads: %d ranks OK (thread level %d)\n", T_size, provided);
    MPI_Finalize();
    return 0;
}
