/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * halo.c - Jacobi iterations on a 24 x 24 grid split over a px x py process
 * grid (neighbours computed by hand, no Cartesian topology). Each step
 * exchanges one halo row with the north and south neighbours (contiguous)
 * and one halo column with the west and east neighbours (MPI_Type_vector).
 * The first exchange is checked cell by cell; the printed samples are exact
 * and the same for every process count.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 24, NY = 24, STEPS = 50 };

static double init(int gi, int gj)
{
    return gi * 1000.0 + gj;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* px x py = size with px >= py as close as possible */
    int py = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0) py = d;
    int px = size / py;
    if (NX % px || NY % py) {
        if (rank == 0)
            fprintf(stderr, "halo: %d ranks do not divide the %dx%d grid\n", size, NX, NY);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int ri = rank / py, rj = rank % py; /* my place in the process grid */
    int lr = NX / px, lc = NY / py, w = lc + 2;
    int north = ri > 0 ? rank - py : MPI_PROC_NULL;
    int south = ri < px - 1 ? rank + py : MPI_PROC_NULL;
    int west = rj > 0 ? rank - 1 : MPI_PROC_NULL;
    int east = rj < py - 1 ? rank + 1 : MPI_PROC_NULL;

    double *a = calloc((size_t)(lr + 2) * w, sizeof(double));
    double *b = calloc((size_t)(lr + 2) * w, sizeof(double));
#define A(p, i, j) (p)[(size_t)(i)*w + (j)]
    for (int i = 1; i <= lr; i++)
        for (int j = 1; j <= lc; j++)
            A(a, i, j) = init(ri * lr + i - 1, rj * lc + j - 1);

    MPI_Datatype column;
    MPI_Type_vector(lr, 1, w, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    for (int step = 0; step <= STEPS; step++) {
        /* rows north/south, columns west/east */
        MPI_Sendrecv(&A(a, 1, 1), lc, MPI_DOUBLE, north, 0, &A(a, lr + 1, 1), lc, MPI_DOUBLE, south,
                     0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&A(a, lr, 1), lc, MPI_DOUBLE, south, 1, &A(a, 0, 1), lc, MPI_DOUBLE, north, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&A(a, 1, 1), 1, column, west, 2, &A(a, 1, lc + 1), 1, column, east, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&A(a, 1, lc), 1, column, east, 3, &A(a, 1, 0), 1, column, west, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (step == 0) { /* every halo cell holds the neighbour's value, or 0 at the border */
            for (int i = 0; i <= lr + 1; i++)
                for (int j = 0; j <= lc + 1; j++) {
                    int edge_i = i == 0 || i == lr + 1, edge_j = j == 0 || j == lc + 1;
                    if (!(edge_i ^ edge_j)) continue; /* interior or corner */
                    int gi = ri * lr + i - 1, gj = rj * lc + j - 1;
                    double want = gi < 0 || gi >= NX || gj < 0 || gj >= NY ? 0.0 : init(gi, gj);
                    if (A(a, i, j) != want) {
                        fprintf(stderr, "halo: rank %d halo (%d,%d) is %g, want %g\n", rank, i, j,
                                A(a, i, j), want);
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                }
        }
        if (step == STEPS) break;
        for (int i = 1; i <= lr; i++)
            for (int j = 1; j <= lc; j++)
                A(b, i, j) =
                    (A(a, i - 1, j) + A(a, i + 1, j) + A(a, i, j - 1) + A(a, i, j + 1)) / 4.0;
        double *t = a;
        a = b;
        b = t;
    }

    /* Samples: the owner contributes the value, everyone else 0, so the sum is exact. */
    enum { NS = 5 };
    const int si[NS] = {0, 5, 11, 17, 23}, sj[NS] = {0, 7, 12, 3, 23};
    double mine[NS + 1] = {0}, all[NS + 1];
    for (int s = 0; s < NS; s++) {
        int li = si[s] - ri * lr + 1, lj = sj[s] - rj * lc + 1;
        if (li >= 1 && li <= lr && lj >= 1 && lj <= lc) mine[s] = A(a, li, lj);
    }
    for (int i = 1; i <= lr; i++)
        for (int j = 1; j <= lc; j++)
            mine[NS] += A(a, i, j);
    MPI_Reduce(mine, all, NS + 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("halo: %dx%d grid, %d steps\n", NX, NY, STEPS);
        for (int s = 0; s < NS; s++)
            printf("u(%d,%d) = %.9f\n", si[s], sj[s], all[s]);
        printf("sum = %.6e\n", all[NS]);
    }
    MPI_Type_free(&column);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
