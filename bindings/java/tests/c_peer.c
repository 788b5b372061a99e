/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C side of the mixed job (java/Mixed.java is rank 0): receives the
 * Java rank's messages, checks every element, answers, and joins the same
 * collectives. Exits non-zero on the first wrong value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fails;

static void check(long got, long want, const char *what, int i)
{
    if (got != want && fails++ < 5)
        fprintf(stderr, "c_peer: %s[%d] = %ld, want %ld\n", what, i, got, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int sizes[] = {0, 1, 4096, 65536, 1 << 20};
    for (unsigned k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
        int n = sizes[k];
        int *a = malloc(sizeof(int) * (size_t)(n + 1));
        MPI_Status st;
        MPI_Recv(a, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st);
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check(cnt, n, "count", (int)k);
        for (int i = 0; i < n; i++) {
            check(a[i], (long)i * 5 + (int)k, "from java", i);
            a[i] = -a[i];
        }
        MPI_Send(a, n, MPI_INT, 0, 100 + (int)k, MPI_COMM_WORLD);
        free(a);
    }
    double d[3] = {0.5, 1.5, 2.5}, sum[3];
    MPI_Allreduce(d, sum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        check((long)(sum[i] * 2), (long)((d[i] + i + 10) * 2), "allreduce", i);
    long long b = 0;
    MPI_Bcast(&b, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    check((long)b, 1234567890123L, "bcast", 0);
    MPI_Finalize();
    if (fails) return 1;
    printf("c_peer OK\n");
    return 0;
}
