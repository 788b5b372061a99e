/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launch_output MODE [ARG]: an MPI program whose output must reach the user
 * through umprun whatever happens to the job (tests/launch/output.sh).
 *   abort      every rank prints 3 stdout lines; after a barrier rank 0
 *              writes a stderr line and calls MPI_Abort(5), the others block
 *   fatal      the same, but rank 1 makes an invalid MPI call under
 *              MPI_ERRORS_ARE_FATAL
 *   live FIFO  rank 0 prints a line, then waits to read FIFO before it goes
 *              on: the test sees the line while the rank still runs
 *   lines N    each rank prints N numbered lines
 *   name       each rank prints MPI_Get_processor_name's answer
 * Nothing here calls fflush: the point is that the user need not.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: launch_output abort|fatal|live FIFO|lines N|name\n");
        return 2;
    }
    const char *mode = argv[1];
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "abort") || !strcmp(mode, "fatal")) {
        for (int i = 1; i <= 3; i++)
            printf("rank %d step %d\n", rank, i);
        MPI_Barrier(MPI_COMM_WORLD);
        int victim = !strcmp(mode, "abort") ? 0 : 1 % size;
        if (rank == victim) {
            fprintf(stderr, "rank %d says goodbye on stderr\n", rank);
            if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, 5);
            int x = 0;
            MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD); /* no such rank: fatal */
            fprintf(stderr, "rank %d: the invalid send returned\n", rank);
            return 3;
        }
        int x;
        MPI_Recv(&x, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
    } else if (!strcmp(mode, "live") && argc > 2) {
        if (rank == 0) {
            printf("rank 0 is alive\n");
            FILE *f = fopen(argv[2], "r"); /* blocks until the test opens it to write */
            char buf[16] = "";
            if (!f || !fgets(buf, sizeof(buf), f)) {
                fprintf(stderr, "rank 0: cannot read %s\n", argv[2]);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
            fclose(f);
            printf("rank 0 was released\n");
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(mode, "lines") && argc > 2) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++)
            printf("rank %d line %ld\n", rank, i);
    } else if (!strcmp(mode, "name")) {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = -1;
        MPI_Get_processor_name(name, &len);
        printf("rank %d name %s len %d\n", rank, name, len);
    } else {
        fprintf(stderr, "launch_output: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
