/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * master_worker.c - rank 0 hands out tasks to whichever worker answers
 * first (MPI_ANY_SOURCE) until all are done, then stops the workers. The
 * result of a task is the Collatz step count of a number derived from it;
 * the master prints results sorted by task, so the output is deterministic.
 * With one rank, the master does the work itself.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NTASKS = 60, TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

static long work(int task)
{
    unsigned long long x = (unsigned long long)task * 7919ull + 27ull;
    long steps = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
    }
    return steps;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        long result[NTASKS];
        int done = 0, next = 0, *per_worker = calloc((size_t)size, sizeof(int));
        for (int i = 0; i < NTASKS; i++)
            result[i] = -1;
        if (size == 1) {
            for (; next < NTASKS; next++)
                result[next] = work(next);
            done = NTASKS;
        }
        /* prime every worker with one task (or stop it if none are left) */
        for (int w = 1; w < size; w++) {
            if (next < NTASKS) {
                MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
                next++;
            } else
                MPI_Send(&next, 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        }
        while (done < NTASKS) {
            long msg[2];
            MPI_Status st;
            MPI_Recv(msg, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
            if (msg[0] < 0 || msg[0] >= NTASKS || result[msg[0]] != -1) {
                fprintf(stderr, "master: bad or repeated result for task %ld\n", msg[0]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            result[msg[0]] = msg[1];
            per_worker[st.MPI_SOURCE]++;
            done++;
            if (next < NTASKS) {
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
                next++;
            } else
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
        long total = 0;
        printf("master_worker: %d tasks\n", NTASKS);
        for (int i = 0; i < NTASKS; i++) {
            printf("task %2d: %ld steps\n", i, result[i]);
            if (result[i] != work(i)) {
                fprintf(stderr, "master: task %d result %ld is wrong\n", i, result[i]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            total += result[i];
        }
        printf("total: %ld steps\n", total);
        free(per_worker);
    } else {
        for (;;) {
            int task;
            MPI_Status st;
            MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP) break;
            long msg[2] = {task, work(task)};
            MPI_Send(msg, 2, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
