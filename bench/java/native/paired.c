/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * paired.c - the C loops of bench/java/Paired: bench/mpi/latency.c's
 * ping-pong and bench/mpi/bandwidth.c's window, called from the Java
 * program between its own Java loops, so that C over ump and Java over ump
 * are timed in one process, on the same cores, moments apart. The buffers
 * are the Java program's direct buffers; one JNI call runs `iters`
 * iterations.
 */
#include <jni.h>
#include <mpi.h>

#define WINDOW 64

static void *addr(JNIEnv *env, jobject buf)
{
    return (*env)->GetDirectBufferAddress(env, buf);
}

JNIEXPORT void JNICALL Java_Paired_cPingpong(JNIEnv *env, jclass cls, jobject sb, jobject rb,
                                             jint n, jint rank, jlong iters)
{
    (void)cls;
    void *s = addr(env, sb), *r = addr(env, rb);
    for (jlong i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(s, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(r, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
}

JNIEXPORT void JNICALL Java_Paired_cWindow(JNIEnv *env, jclass cls, jobject sb, jobject rall,
                                           jint n, jint rank, jlong iters)
{
    (void)cls;
    char *s = addr(env, sb), *r = rank == 1 ? addr(env, rall) : NULL;
    MPI_Request rq[WINDOW];
    if (rank > 1) return;
    for (jlong it = 0; it < iters; it++) {
        for (int k = 0; k < WINDOW; k++) {
            if (rank == 0)
                MPI_Isend(s, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[k]);
            else
                MPI_Irecv(r + (size_t)k * (size_t)n, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[k]);
        }
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        if (rank == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
}
