/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c - a token goes around all ranks LAPS times; every rank adds its
 * rank + 1. Rank 0 prints the token after each lap and checks it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, laps = argc > 1 ? atoi(argv[1]) : 10;
    long token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long per_lap = (long)size * (size + 1) / 2;

    if (rank == 0) printf("ring: %d ranks, %d laps\n", size, laps);
    for (int lap = 0; lap < laps; lap++) {
        MPI_Request r;
        if (rank == 0) {
            token += 1;
            MPI_Isend(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD, &r);
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            printf("lap %d: token %ld\n", lap, token);
            if (token != per_lap * (lap + 1)) {
                fprintf(stderr, "ring: token %ld after lap %d, want %ld\n", token, lap,
                        per_lap * (lap + 1));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank + 1;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("ring: done, token %ld\n", token);
    MPI_Finalize();
    return 0;
}
