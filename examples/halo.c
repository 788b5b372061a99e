/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * halo.c - a 1D heat-diffusion stencil with a nonblocking halo exchange.
 *
 * A rod of N cells, its middle third hot at first, is cut into one slab per
 * rank. Each step every cell
 * becomes the mean of itself and its two neighbours, so a rank needs one
 * cell from each neighbouring rank: a "halo" (or ghost) cell kept at both
 * ends of its slab. The exchange is nonblocking: a rank posts its receives
 * and sends (MPI_Irecv, MPI_Isend), updates the interior cells, which need
 * no halo, while the messages travel, and only then waits (MPI_Waitall) and
 * updates the two edge cells. The ends of the rod are held at fixed
 * temperatures; MPI_PROC_NULL stands for the missing neighbour there, so
 * the first and last ranks need no special case in the exchange.
 *
 * At the end rank 0 gathers the rod and compares it cell by cell with the
 * same computation done by one process: the results are identical, not
 * just close, because every cell sees the same additions in the same order.
 *
 *   mpicc -o halo halo.c && mpiexec -n 4 ./halo [cells] [steps]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEFT_END  100.0 /* fixed temperature left of cell 0 */
#define RIGHT_END 0.0   /* and right of cell N-1 */

/* The temperature of cell g (of N) at the start. */
static double initial(int g, int N)
{
    return g >= N / 3 && g < 2 * N / 3 ? 50.0 : 0.0;
}

/* One step on cells 1..n of u (u[0] and u[n+1] are the halo), into v. */
static void step_range(const double *u, double *v, int from, int to)
{
    for (int i = from; i <= to; i++)
        v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int N = argc > 1 ? atoi(argv[1]) : 240;
    int steps = argc > 2 ? atoi(argv[2]) : 300;
    if (N < size) N = size; /* at least one cell each */
    if (steps < 0) steps = 0;

    /* Slab sizes differ by at most one when N is not a multiple of size. */
    int n = N / size + (rank < N % size);
    int first = rank * (N / size) + (rank < N % size ? rank : N % size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double *u = calloc((size_t)n + 2, sizeof(double));
    double *v = calloc((size_t)n + 2, sizeof(double));
    if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
    /* The halo at the rod's ends holds the fixed temperatures for good:
     * receives from MPI_PROC_NULL complete at once and change nothing. */
    u[0] = v[0] = LEFT_END;
    u[n + 1] = v[n + 1] = RIGHT_END;
    for (int i = 1; i <= n; i++)
        u[i] = initial(first + i - 1, N);

    for (int s = 0; s < steps; s++) {
        MPI_Request req[4];
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);

        step_range(u, v, 2, n - 1); /* the interior, while the halo travels */
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        step_range(u, v, 1, 1); /* the edges, now that the halo is here */
        if (n > 1) step_range(u, v, n, n);

        double *t = u; /* v is the new state; keep the ends' halo in both */
        u = v;
        v = t;
    }

    /* Rank 0 collects every slab (they differ in size: MPI_Gatherv). */
    int *counts = NULL, *displs = NULL;
    double *rod = NULL;
    if (rank == 0) {
        counts = malloc(sizeof(int) * (size_t)size);
        displs = malloc(sizeof(int) * (size_t)size);
        rod = malloc(sizeof(double) * (size_t)N);
        if (!counts || !displs || !rod) MPI_Abort(MPI_COMM_WORLD, 1);
        for (int r = 0, off = 0; r < size; r++) {
            counts[r] = N / size + (r < N % size);
            displs[r] = off;
            off += counts[r];
        }
    }
    MPI_Gatherv(&u[1], n, MPI_DOUBLE, rod, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        /* The same rod on one process. */
        double *a = calloc((size_t)N + 2, sizeof(double));
        double *b = calloc((size_t)N + 2, sizeof(double));
        if (!a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
        a[0] = b[0] = LEFT_END;
        a[N + 1] = b[N + 1] = RIGHT_END;
        for (int i = 1; i <= N; i++)
            a[i] = initial(i - 1, N);
        for (int s = 0; s < steps; s++) {
            step_range(a, b, 1, N);
            double *t = a;
            a = b;
            b = t;
        }
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += memcmp(&rod[i], &a[i + 1], sizeof(double)) != 0;
        ok = bad == 0;
        printf("halo: %d cells on %d ranks, %d steps, cell %d is %.6f; %d cells differ from "
               "one process: %s\n",
               N, size, steps, N / 3, rod[N / 3], bad, ok ? "ok" : "FAILED");
        free(a);
        free(b);
        free(counts);
        free(displs);
        free(rod);
    }
    free(u);
    free(v);
    MPI_Finalize();
    return ok ? 0 : 1;
}
