/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stencil.c - a 2D Jacobi solver on a Cartesian process grid.
 *
 * The N x N plate has its top edge held at 1.0 and the other edges at 0.0;
 * each iteration replaces every interior value by the mean of its four
 * neighbours. The plate is split into blocks over a process grid chosen by
 * MPI_Dims_create; each process keeps its block with a one-cell halo, and
 * one MPI_Neighbor_alltoallw per iteration fills the halos straight from
 * the neighbours' edge rows and columns (described by datatypes, so
 * nothing is packed by hand). Processes on the plate's edge have
 * MPI_PROC_NULL neighbours there: nothing arrives and the halo keeps the
 * boundary value.
 *
 * The answer does not depend on the number of processes: every value is
 * computed by the same arithmetic in the same order, so the printed centre
 * value and checksum (of the bits of every value, exact in any order) are
 * the same for 1 or 64 processes.
 *
 *   umpcc -O2 -o stencil examples/stencil.c
 *   umprun -n 4 ./stencil [N] [iterations]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First row (or column) of block `c` of `p` when n rows are split evenly. */
static int block_start(int n, int p, int c)
{
    return (int)((long long)n * c / p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int iters = argc > 2 ? atoi(argv[2]) : 500;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* A 2D process grid, not periodic: the plate has edges. */
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    MPI_Dims_create(size, 2, dims);
    if (n < dims[0] || n < dims[1]) {
        fprintf(stderr, "stencil: N = %d is too small for a %d x %d process grid\n", n, dims[0],
                dims[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);

    /* This process's block: rows [i0, i0 + nx), columns [j0, j0 + ny). */
    int i0 = block_start(n, dims[0], coords[0]), nx = block_start(n, dims[0], coords[0] + 1) - i0;
    int j0 = block_start(n, dims[1], coords[1]), ny = block_start(n, dims[1], coords[1] + 1) - j0;
    int ld = ny + 2; /* row length with the halo */
    double *u = calloc((size_t)(nx + 2) * ld, sizeof(double));
    double *v = calloc((size_t)(nx + 2) * ld, sizeof(double));
#define AT(a, i, j) (a)[(size_t)(i)*ld + (j)]

    /* The top edge of the plate is hot: the north halo of the top row of
     * processes (those without a north neighbour) holds 1.0 for good. */
    int north, south;
    MPI_Cart_shift(grid, 0, 1, &north, &south);
    if (north == MPI_PROC_NULL)
        for (int j = 1; j <= ny; j++)
            AT(u, 0, j) = AT(v, 0, j) = 1.0;

    /* Halo exchange: the neighbour order is north, south (dimension 0),
     * west, east (dimension 1). We send our first row north, last row
     * south, first column west, last column east, and receive into the
     * halo on the same side. */
    MPI_Datatype row, col;
    MPI_Type_contiguous(ny, MPI_DOUBLE, &row);
    MPI_Type_vector(nx, 1, ld, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    MPI_Datatype types[4] = {row, row, col, col};
    int counts[4] = {1, 1, 1, 1};
    const MPI_Aint d = sizeof(double);
    MPI_Aint send_at[4] = {(1 * ld + 1) * d, ((MPI_Aint)nx * ld + 1) * d, (1 * ld + 1) * d,
                           (1 * ld + ny) * d};
    MPI_Aint recv_at[4] = {(0 * ld + 1) * d, ((MPI_Aint)(nx + 1) * ld + 1) * d, (1 * ld + 0) * d,
                           (1 * ld + ny + 1) * d};

    for (int it = 0; it < iters; it++) {
        MPI_Neighbor_alltoallw(u, counts, send_at, types, u, counts, recv_at, types, grid);
        for (int i = 1; i <= nx; i++)
            for (int j = 1; j <= ny; j++)
                AT(v, i, j) =
                    0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1));
        double *t = u;
        u = v;
        v = t;
    }

    /* Results: the value at the centre of the plate (from its owner) and a
     * checksum of the bits of every value weighted by its position. */
    int ci = n / 2, cj = n / 2;
    double centre = -1.0, c_all;
    if (ci >= i0 && ci < i0 + nx && cj >= j0 && cj < j0 + ny)
        centre = AT(u, ci - i0 + 1, cj - j0 + 1);
    uint64_t sum = 0, sum_all;
    for (int i = 1; i <= nx; i++)
        for (int j = 1; j <= ny; j++) {
            uint64_t bits;
            memcpy(&bits, &AT(u, i, j), sizeof(bits));
            sum += bits * (uint64_t)((i0 + i - 1) * (long long)n + (j0 + j - 1) + 1);
        }
    MPI_Reduce(&centre, &c_all, 1, MPI_DOUBLE, MPI_MAX, 0, grid);
    MPI_Reduce(&sum, &sum_all, 1, MPI_UINT64_T, MPI_SUM, 0, grid);
    if (rank == 0) {
        printf("stencil: %d x %d plate, %d iterations, %d processes as %d x %d\n", n, n, iters,
               size, dims[0], dims[1]);
        printf("u(%d,%d) = %.15f\n", ci, cj, c_all);
        printf("checksum %016llx\n", (unsigned long long)sum_all);
    }

    MPI_Type_free(&row);
    MPI_Type_free(&col);
    MPI_Comm_free(&grid);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
