/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c - a token goes round the ranks LAPS times: rank 0 starts it, every
 * rank adds its rank number and passes it to the next, rank 0 receives it
 * back from the last. At the end the token holds LAPS * (0 + 1 + ... +
 * size-1), which rank 0 checks.
 *
 *   mpicc -o ring ring.c && mpiexec -n 4 ./ring [laps]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int laps = argc > 1 ? atoi(argv[1]) : 10;
    if (laps < 1) laps = 1;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    long token = 0;
    for (int lap = 0; lap < laps; lap++) {
        /* Rank 0 sends first and receives last; everyone else waits for
         * the token, adds to it and passes it on. With one rank, rank 0
         * sends to itself: MPI buffers a message this small. */
        if (rank == 0) {
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
        }
    }

    int ok = 1;
    if (rank == 0) {
        long want = (long)laps * size * (size - 1) / 2;
        ok = token == want;
        printf("ring: %d laps round %d ranks, token %ld (expected %ld): %s\n", laps, size, token,
               want, ok ? "ok" : "FAILED");
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
