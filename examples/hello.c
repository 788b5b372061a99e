/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello.c - the smallest MPI program: every rank says who it is and where it
 * runs. Rank order on the screen is whatever order the lines arrive in.
 *
 *   mpicc -o hello hello.c && mpiexec -n 4 ./hello
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    printf("Hello from rank %d of %d on %s\n", rank, size, host);

    MPI_Finalize();
    return 0;
}
