/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errh_fatal.c - MPI_ERRORS_ARE_FATAL, the default handler, aborts the whole
 * job: the last rank sends to a rank that does not exist while the others
 * wait in a receive that never completes. fatal.sh checks that the launcher
 * exits non-zero and that the output names the call. With --abort the last
 * rank calls MPI_Abort(MPI_COMM_WORLD, 7) instead.
 */
#include "mt.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    int x = 1;
    mt_init(&argc, &argv, "errh_fatal");
    if (mt_rank == mt_size - 1) {
        usleep(100 * 1000);
        if (argc > 1 && !strcmp(argv[1], "--abort")) {
            MPI_Abort(MPI_COMM_WORLD, 7);
            printf("errh_fatal: MPI_Abort returned under MPI_ERRORS_ARE_FATAL\n");
            return 3;
        }
        MPI_Send(&x, 1, MPI_INT, mt_size + 3, 0, MPI_COMM_WORLD);
        printf("errh_fatal: MPI_Send with a bad rank returned under MPI_ERRORS_ARE_FATAL\n");
        fflush(stdout);
        return 3;
    }
    /* Never matched: only the abort ends this. */
    MPI_Recv(&x, 1, MPI_INT, mt_size - 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("errh_fatal: rank %d was not aborted\n", mt_rank);
    return 4;
}
