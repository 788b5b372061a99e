/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pack.c - Comm.pack / unpack / packSize: MPI_Pack into and MPI_Unpack
 * from a byte[] (or direct ByteBuffer), for messages sent as MPI.PACKED.
 */
#include "ujava.h"

JNIEXPORT jint JNICALL Java_mpi_Comm_packNative(JNIEnv *env, jclass c, jlong comm, jobject in,
                                                jboolean ind, jint inoff, jlong inlen, jint count,
                                                jlong type, jobject out, jboolean outd, jint outoff,
                                                jlong outlen, jint position)
{
    uj_buf_t ib, ob;
    if (position < 0 || position > outlen - outoff) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "Comm.pack: position %d is outside the %lld-byte output buffer (MPI_ERR_ARG)",
                     position, (long long)(outlen - outoff));
        return position;
    }
    if (!uj_buf_count(env, &ib, in, ind, inoff, inlen, count, UJ_TYPE(type), UJ_IN, true,
                      "Comm.pack (input)"))
        return position;
    if (!uj_buf_get(env, &ob, out, outd, outoff, outlen, position, outlen - outoff, UJ_INOUT, true,
                    "Comm.pack (output)")) {
        uj_buf_put(env, &ib);
        return position;
    }
    int pos = position;
    int rc =
        MPI_Pack(ib.ptr, count, UJ_TYPE(type), ob.ptr, (int)(outlen - outoff), &pos, UJ_COMM(comm));
    uj_buf_put(env, &ob);
    uj_buf_put(env, &ib);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return pos;
}

JNIEXPORT jint JNICALL Java_mpi_Comm_unpackNative(JNIEnv *env, jclass c, jlong comm, jobject in,
                                                  jboolean ind, jint inoff, jlong inlen,
                                                  jint position, jobject out, jboolean outd,
                                                  jint outoff, jlong outlen, jint count, jlong type)
{
    uj_buf_t ib, ob;
    if (position < 0 || position > inlen - inoff) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "Comm.unpack: position %d is outside the %lld-byte input buffer "
                     "(MPI_ERR_ARG)",
                     position, (long long)(inlen - inoff));
        return position;
    }
    if (!uj_buf_get(env, &ib, in, ind, inoff, inlen, position, inlen - inoff, UJ_IN, true,
                    "Comm.unpack (input)"))
        return position;
    if (!uj_buf_count(env, &ob, out, outd, outoff, outlen, count, UJ_TYPE(type), UJ_OUT, true,
                      "Comm.unpack (output)")) {
        uj_buf_put(env, &ib);
        return position;
    }
    int pos = position;
    int rc =
        MPI_Unpack(ib.ptr, (int)(inlen - inoff), &pos, ob.ptr, count, UJ_TYPE(type), UJ_COMM(comm));
    uj_buf_put(env, &ob);
    uj_buf_put(env, &ib);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return pos;
}

JNIEXPORT jint JNICALL Java_mpi_Comm_packSizeNative(JNIEnv *env, jclass c, jlong comm, jint count,
                                                    jlong type)
{
    int size = 0, rc = MPI_Pack_size(count, UJ_TYPE(type), UJ_COMM(comm), &size);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return size;
}
