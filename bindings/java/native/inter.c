/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inter.c - intercommunicators of mpi.Comm / mpi.Intercomm: making one
 * from two intracommunicators, its remote group, merging it into an
 * intracommunicator.
 */
#include "ujava.h"

JNIEXPORT jlong JNICALL Java_mpi_Comm_createIntercommNative(JNIEnv *env, jclass c, jlong peer,
                                                            jlong local, jint localLeader,
                                                            jint remoteLeader, jint tag)
{
    MPI_Comm out = MPI_COMM_NULL;
    int rc =
        MPI_Intercomm_create(UJ_COMM(local), localLeader, UJ_COMM(peer), remoteLeader, tag, &out);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(out);
}

JNIEXPORT jint JNICALL Java_mpi_Comm_remoteSizeNative(JNIEnv *env, jclass c, jlong comm)
{
    int n = 0;
    int rc = MPI_Comm_remote_size(UJ_COMM(comm), &n);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return n;
}

JNIEXPORT jlong JNICALL Java_mpi_Intercomm_remoteGroupNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Group g = MPI_GROUP_NULL;
    int rc = MPI_Comm_remote_group(UJ_COMM(comm), &g);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(g);
}

JNIEXPORT jlong JNICALL Java_mpi_Intercomm_mergeNative(JNIEnv *env, jclass c, jlong comm,
                                                       jboolean high)
{
    MPI_Comm out = MPI_COMM_NULL;
    int rc = MPI_Intercomm_merge(UJ_COMM(comm), high ? 1 : 0, &out);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(out);
}
