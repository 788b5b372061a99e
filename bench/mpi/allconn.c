/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * allconn - every rank sends a 0-byte message to every other rank in ring
 * order (step k: to rank+k, from rank-k), as a job that connects all pairs
 * (seed 004 §5.2.2). Rows: "first" the first all-pairs pass (connections
 * made on demand are paid here), "steady" a later pass, both the slowest
 * rank's time; "rss_kB" and "rss_max_kB" the mean and largest resident
 * memory per rank after the passes, in the bytes column (kB).
 *   mpirun -n P allconn [--quick] [--time S] [--csv F]
 */
#include "bench.h"

static void pass(void *c, long iters)
{
    (void)c;
    int P = B.size, me = B.rank;
    for (long i = 0; i < iters; i++)
        for (int k = 1; k < P; k++)
            MPI_Sendrecv(NULL, 0, MPI_BYTE, (me + k) % P, 5, NULL, 0, MPI_BYTE, (me - k + P) % P, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    b_init(&argc, &argv, 0, 0, NULL);
    int P = B.size;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    /* Verify: the first pass receives from any source; every other rank
     * must have been heard from exactly once. */
    char *seen = calloc((size_t)P, 1);
    for (int k = 1; k < P; k++) {
        MPI_Status st;
        int cnt = -1;
        MPI_Sendrecv(NULL, 0, MPI_BYTE, (B.rank + k) % P, 5, NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 5,
                     MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= P || st.MPI_SOURCE == B.rank || cnt != 0 ||
            seen[st.MPI_SOURCE]++)
            b_die("wrong source or count");
    }
    free(seen);
    double dt = MPI_Wtime() - t0, mx;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double steady = b_time(MPI_COMM_WORLD, pass, NULL);
    long kb = rss_kb(), sum = 0, big = 0;
    MPI_Reduce(&kb, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&kb, &big, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    b_row("allconn", "first", P, 0, mx, 0);
    b_row("allconn", "steady", P, 0, steady, 0);
    b_row("allconn", "rss_kB", P, (size_t)(sum / P), 0, 0);
    b_row("allconn", "rss_max_kB", P, (size_t)big, 0, 0);
    b_end();
    return 0;
}
