/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2p.c - point-to-point on mpi.Comm and mpi.Message: blocking calls on
 * any buffer (direct, pinned or copied), non-blocking and persistent calls
 * on direct buffers only (Java refuses heap ones before coming here), the
 * probes and the matched probes.
 */
#include "ujava.h"

enum { MODE_STD, MODE_SYNC, MODE_READY, MODE_BUFFERED };

static const char *send_name[] = {"Comm.send", "Comm.sSend", "Comm.rSend", "Comm.bSend"};

JNIEXPORT void JNICALL Java_mpi_Comm_sendNative(JNIEnv *env, jclass c, jlong comm, jobject buf,
                                                jboolean d, jint off, jlong len, jint count,
                                                jlong type, jint dest, jint tag, jint mode)
{
    uj_buf_t b;
    if (!uj_buf_count(env, &b, buf, d, off, len, count, UJ_TYPE(type), UJ_IN, true,
                      send_name[mode & 3]))
        return;
    int rc;
    switch (mode) {
    case MODE_SYNC:
        rc = MPI_Ssend(b.ptr, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    case MODE_READY:
        rc = MPI_Rsend(b.ptr, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    case MODE_BUFFERED:
        rc = MPI_Bsend(b.ptr, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    default:
        rc = MPI_Send(b.ptr, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    }
    uj_buf_put(env, &b);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* The fast path (Direct.java, Buf.fast): Java has checked that the direct
 * buffer at addr holds count elements of type, so a blocking send or
 * receive is one JNI call with primitive arguments and the MPI call.
 *
 * The receive's status comes back in the return value, packed (see
 * Status.unpack): source + 2 in bits 47-62, tag + 1 in bits 23-46, the byte
 * count in bits 0-22, error MPI_SUCCESS and not cancelled implied. A status
 * that does not fit (a large rank, tag or message) returns -1 and waits in
 * a per-thread copy for Comm.lastStatus. So the common receive writes no
 * Java array through JNI and allocates nothing the JIT cannot remove. */
static __thread MPI_Status last_status;

JNIEXPORT void JNICALL Java_mpi_Comm_sendFast(JNIEnv *env, jclass c, jlong comm, jlong addr,
                                              jint count, jlong type, jint dest, jint tag,
                                              jint mode)
{
    void *p = (void *)(intptr_t)addr;
    int rc;
    switch (mode) {
    case MODE_SYNC:
        rc = MPI_Ssend(p, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    case MODE_READY:
        rc = MPI_Rsend(p, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    case MODE_BUFFERED:
        rc = MPI_Bsend(p, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    default:
        rc = MPI_Send(p, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm));
        break;
    }
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_recvFast(JNIEnv *env, jclass c, jlong comm, jlong addr,
                                               jint count, jlong type, jint src, jint tag)
{
    MPI_Status s;
    s.MPI_ERROR = MPI_SUCCESS; /* MPI_Recv need not set it */
    int rc = MPI_Recv((void *)(intptr_t)addr, count, UJ_TYPE(type), src, tag, UJ_COMM(comm), &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    uint64_t from = (uint64_t)((int64_t)s.MPI_SOURCE + 2), t = (uint64_t)((int64_t)s.MPI_TAG + 1),
             n = (uint64_t)s.ump_count;
    if (from < (1u << 16) && t < (1u << 24) && n < (1u << 23) && s.MPI_ERROR == MPI_SUCCESS &&
        !s.ump_cancelled)
        return (jlong)(from << 47 | t << 23 | n);
    last_status = s;
    return -1;
}

JNIEXPORT void JNICALL Java_mpi_Comm_lastStatus(JNIEnv *env, jclass c, jlongArray st)
{
    uj_status_out(env, st, &last_status, MPI_UNDEFINED);
}

JNIEXPORT void JNICALL Java_mpi_Comm_recvNative(JNIEnv *env, jclass c, jlong comm, jobject buf,
                                                jboolean d, jint off, jlong len, jint count,
                                                jlong type, jint src, jint tag, jlongArray st)
{
    uj_buf_t b;
    MPI_Status s;
    if (!uj_buf_count(env, &b, buf, d, off, len, count, UJ_TYPE(type), UJ_OUT, true, "Comm.recv"))
        return;
    int rc = MPI_Recv(b.ptr, count, UJ_TYPE(type), src, tag, UJ_COMM(comm), &s);
    uj_buf_put(env, &b);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    uj_status_out(env, st, &s, MPI_UNDEFINED);
}

JNIEXPORT void JNICALL Java_mpi_Comm_sendRecvNative(JNIEnv *env, jclass c, jlong comm, jobject sbuf,
                                                    jboolean sd, jint soff, jlong slen, jint scount,
                                                    jlong stype, jint dest, jint stag, jobject rbuf,
                                                    jboolean rd, jint roff, jlong rlen, jint rcount,
                                                    jlong rtype, jint src, jint rtag, jlongArray st)
{
    uj_buf_t sb, rb;
    MPI_Status s;
    if (!uj_buf_count(env, &sb, sbuf, sd, soff, slen, scount, UJ_TYPE(stype), UJ_IN, true,
                      "Comm.sendRecv (send buffer)"))
        return;
    if (!uj_buf_count(env, &rb, rbuf, rd, roff, rlen, rcount, UJ_TYPE(rtype), UJ_OUT, true,
                      "Comm.sendRecv (receive buffer)")) {
        uj_buf_put(env, &sb);
        return;
    }
    int rc = MPI_Sendrecv(sb.ptr, scount, UJ_TYPE(stype), dest, stag, rb.ptr, rcount,
                          UJ_TYPE(rtype), src, rtag, UJ_COMM(comm), &s);
    uj_buf_put(env, &rb);
    uj_buf_put(env, &sb);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    uj_status_out(env, st, &s, MPI_UNDEFINED);
}

JNIEXPORT void JNICALL Java_mpi_Comm_sendRecvReplaceNative(JNIEnv *env, jclass c, jlong comm,
                                                           jobject buf, jboolean d, jint off,
                                                           jlong len, jint count, jlong type,
                                                           jint dest, jint stag, jint src,
                                                           jint rtag, jlongArray st)
{
    uj_buf_t b;
    MPI_Status s;
    if (!uj_buf_count(env, &b, buf, d, off, len, count, UJ_TYPE(type), UJ_INOUT, true,
                      "Comm.sendRecvReplace"))
        return;
    int rc =
        MPI_Sendrecv_replace(b.ptr, count, UJ_TYPE(type), dest, stag, src, rtag, UJ_COMM(comm), &s);
    uj_buf_put(env, &b);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    uj_status_out(env, st, &s, MPI_UNDEFINED);
}

static const char *isend_name[] = {"Comm.iSend", "Comm.isSend", "Comm.irSend", "Comm.ibSend"};
static const char *init_name[] = {"Comm.sendInit", "Comm.sSendInit", "Comm.rSendInit",
                                  "Comm.bSendInit"};

/* A non-blocking (or, persistent, an inactive persistent) send of the
 * given mode from p; returns the handle, or 0 with an exception pending. */
static jlong isend(JNIEnv *env, void *p, jint count, MPI_Datatype t, jint dest, jint tag,
                   MPI_Comm cm, jint mode, jboolean persistent)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    if (persistent) {
        switch (mode) {
        case MODE_SYNC:
            rc = MPI_Ssend_init(p, count, t, dest, tag, cm, &r);
            break;
        case MODE_READY:
            rc = MPI_Rsend_init(p, count, t, dest, tag, cm, &r);
            break;
        case MODE_BUFFERED:
            rc = MPI_Bsend_init(p, count, t, dest, tag, cm, &r);
            break;
        default:
            rc = MPI_Send_init(p, count, t, dest, tag, cm, &r);
            break;
        }
    } else {
        switch (mode) {
        case MODE_SYNC:
            rc = MPI_Issend(p, count, t, dest, tag, cm, &r);
            break;
        case MODE_READY:
            rc = MPI_Irsend(p, count, t, dest, tag, cm, &r);
            break;
        case MODE_BUFFERED:
            rc = MPI_Ibsend(p, count, t, dest, tag, cm, &r);
            break;
        default:
            rc = MPI_Isend(p, count, t, dest, tag, cm, &r);
            break;
        }
    }
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(r);
}

static jlong irecv(JNIEnv *env, void *p, jint count, MPI_Datatype t, jint src, jint tag,
                   MPI_Comm cm, jboolean persistent)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = persistent ? MPI_Recv_init(p, count, t, src, tag, cm, &r)
                        : MPI_Irecv(p, count, t, src, tag, cm, &r);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(r);
}

/* The non-blocking fast path, as the blocking one: Java checked the direct
 * buffer at addr (Buf.fast) and passes primitives only, so the JVM makes no
 * local reference and C checks nothing again. */
JNIEXPORT jlong JNICALL Java_mpi_Comm_iSendFast(JNIEnv *env, jclass c, jlong comm, jlong addr,
                                                jint count, jlong type, jint dest, jint tag,
                                                jint mode, jboolean persistent)
{
    return isend(env, (void *)(intptr_t)addr, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm), mode,
                 persistent);
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_iRecvFast(JNIEnv *env, jclass c, jlong comm, jlong addr,
                                                jint count, jlong type, jint src, jint tag,
                                                jboolean persistent)
{
    return irecv(env, (void *)(intptr_t)addr, count, UJ_TYPE(type), src, tag, UJ_COMM(comm),
                 persistent);
}

/* The general path: C checks buf (direct, large enough) and names the call
 * in what it reports. */
JNIEXPORT jlong JNICALL Java_mpi_Comm_iSendNative(JNIEnv *env, jclass c, jlong comm, jobject buf,
                                                  jlong len, jint count, jlong type, jint dest,
                                                  jint tag, jint mode, jboolean persistent)
{
    void *p = uj_direct(env, buf, len, count, UJ_TYPE(type),
                        persistent ? init_name[mode & 3] : isend_name[mode & 3]);
    if ((*env)->ExceptionCheck(env)) return 0;
    return isend(env, p, count, UJ_TYPE(type), dest, tag, UJ_COMM(comm), mode, persistent);
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_iRecvNative(JNIEnv *env, jclass c, jlong comm, jobject buf,
                                                  jlong len, jint count, jlong type, jint src,
                                                  jint tag, jboolean persistent)
{
    void *p =
        uj_direct(env, buf, len, count, UJ_TYPE(type), persistent ? "Comm.recvInit" : "Comm.iRecv");
    if ((*env)->ExceptionCheck(env)) return 0;
    return irecv(env, p, count, UJ_TYPE(type), src, tag, UJ_COMM(comm), persistent);
}

JNIEXPORT void JNICALL Java_mpi_Comm_probeNative(JNIEnv *env, jclass c, jlong comm, jint src,
                                                 jint tag, jlongArray st)
{
    MPI_Status s;
    int rc = MPI_Probe(src, tag, UJ_COMM(comm), &s);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    uj_status_out(env, st, &s, MPI_UNDEFINED);
}

JNIEXPORT jboolean JNICALL Java_mpi_Comm_iProbeNative(JNIEnv *env, jclass c, jlong comm, jint src,
                                                      jint tag, jlongArray st)
{
    MPI_Status s;
    int flag = 0, rc = MPI_Iprobe(src, tag, UJ_COMM(comm), &flag, &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), JNI_FALSE;
    if (flag) uj_status_out(env, st, &s, MPI_UNDEFINED);
    return flag != 0;
}

JNIEXPORT jlong JNICALL Java_mpi_Message_mProbeNative(JNIEnv *env, jclass c, jlong comm, jint src,
                                                      jint tag, jlongArray st)
{
    MPI_Status s;
    MPI_Message m = MPI_MESSAGE_NULL;
    int rc = MPI_Mprobe(src, tag, UJ_COMM(comm), &m, &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    uj_status_out(env, st, &s, MPI_UNDEFINED);
    return UJ_H(m);
}

/* Returns 0 (MPI_MESSAGE_NULL) when nothing matched. */
JNIEXPORT jlong JNICALL Java_mpi_Message_imProbeNative(JNIEnv *env, jclass c, jlong comm, jint src,
                                                       jint tag, jlongArray st)
{
    MPI_Status s;
    MPI_Message m = MPI_MESSAGE_NULL;
    int flag = 0, rc = MPI_Improbe(src, tag, UJ_COMM(comm), &flag, &m, &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    if (!flag) return 0;
    uj_status_out(env, st, &s, MPI_UNDEFINED);
    return UJ_H(m);
}

JNIEXPORT void JNICALL Java_mpi_Message_mRecvNative(JNIEnv *env, jclass c, jlong msg, jobject buf,
                                                    jboolean d, jint off, jlong len, jint count,
                                                    jlong type, jlongArray st)
{
    uj_buf_t b;
    MPI_Status s;
    MPI_Message m = UJ_MSG(msg);
    if (!uj_buf_count(env, &b, buf, d, off, len, count, UJ_TYPE(type), UJ_OUT, true,
                      "Message.mRecv"))
        return;
    int rc = MPI_Mrecv(b.ptr, count, UJ_TYPE(type), &m, &s);
    uj_buf_put(env, &b);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    uj_status_out(env, st, &s, MPI_UNDEFINED);
}

JNIEXPORT jlong JNICALL Java_mpi_Message_imRecvNative(JNIEnv *env, jclass c, jlong msg, jobject buf,
                                                      jlong len, jint count, jlong type)
{
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Message m = UJ_MSG(msg);
    void *p = uj_direct(env, buf, len, count, UJ_TYPE(type), "Message.imRecv");
    if ((*env)->ExceptionCheck(env)) return 0;
    int rc = MPI_Imrecv(p, count, UJ_TYPE(type), &m, &r);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(r);
}
