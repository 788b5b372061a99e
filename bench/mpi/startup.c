/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * startup - MPI_Init and MPI_Finalize, nothing else; bench/compare times the
 * launcher running it with N ranks (wall time of the whole job). Rank 0
 * checks that the world has the size the launcher was asked for (argv[1]).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    int size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = argc > 1 && size != atoi(argv[1]);
    if (bad) fprintf(stderr, "startup: %d ranks, expected %s\n", size, argv[1]);
    MPI_Finalize();
    return bad;
}
