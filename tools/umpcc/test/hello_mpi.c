/* SPDX-License-Identifier: BSD-3-Clause */
/* An ordinary MPI program for the install test: a ring exchange and a split. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, got = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, &st);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    MPI_Comm_free(&half);
    int ok = got == (rank + size - 1) % size && st.MPI_SOURCE == got && hsize >= 1;
    printf("rank %d of %d: %s\n", rank, size, ok ? "ok" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
