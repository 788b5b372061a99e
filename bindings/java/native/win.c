/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * win.c - one-sided communication on mpi.Win: windows over a direct
 * buffer, allocated by MPI (private or shared) or dynamic; put, get, the
 * accumulates and their request forms on direct buffers only (an RMA call
 * returns before its data have moved, so the collector must not move
 * them: Win.java refuses heap buffers and keeps the origin buffers
 * reachable until the synchronisation that completes them); every
 * synchronisation mode. A window the binding makes returns its errors
 * (MPI_ERRORS_RETURN), so they become MPIException.
 */
#include "ujava.h"

#define UJ_WIN(h) ((MPI_Win)(intptr_t)(h))

/* A new window reports to the binding instead of aborting the job. */
static jlong made(JNIEnv *env, int rc, MPI_Win w)
{
    if (rc == MPI_SUCCESS) rc = MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        if (w != MPI_WIN_NULL) MPI_Win_free(&w);
        return uj_throw(env, rc), 0;
    }
    return UJ_H(w);
}

/* The start of a direct buffer that holds at least `bytes`, or NULL with
 * an exception pending. */
static void *region(JNIEnv *env, jobject buf, jlong bytes, const char *what)
{
    void *p = buf ? (*env)->GetDirectBufferAddress(env, buf) : NULL;
    jlong cap = buf ? (*env)->GetDirectBufferCapacity(env, buf) : -1;
    if (!p || cap < 0) {
        uj_throw_msg(env, MPI_ERR_BUFFER, "%s: the buffer must be a direct buffer", what);
        return NULL;
    }
    if (bytes < 0) {
        uj_throw_msg(env, MPI_ERR_SIZE, "%s: size %lld is negative", what, (long long)bytes);
        return NULL;
    }
    return p;
}

JNIEXPORT jlong JNICALL Java_mpi_Win_createNative(JNIEnv *env, jclass c, jobject base, jlong bytes,
                                                  jint disp, jlong info, jlong comm)
{
    void *p = region(env, base, bytes, "Win (MPI_Win_create)");
    if (!p) return 0;
    MPI_Win w = MPI_WIN_NULL;
    int rc = MPI_Win_create(p, (MPI_Aint)bytes, disp, UJ_INFO(info), UJ_COMM(comm), &w);
    return made(env, rc, w);
}

JNIEXPORT jlong JNICALL Java_mpi_Win_allocateNative(JNIEnv *env, jclass c, jlong bytes, jint disp,
                                                    jlong info, jlong comm, jboolean shared)
{
    MPI_Win w = MPI_WIN_NULL;
    void *p = NULL;
    int rc = shared ? MPI_Win_allocate_shared((MPI_Aint)bytes, disp, UJ_INFO(info), UJ_COMM(comm),
                                              &p, &w)
                    : MPI_Win_allocate((MPI_Aint)bytes, disp, UJ_INFO(info), UJ_COMM(comm), &p, &w);
    return made(env, rc, w);
}

JNIEXPORT jlong JNICALL Java_mpi_Win_createDynamicNative(JNIEnv *env, jclass c, jlong info,
                                                         jlong comm)
{
    MPI_Win w = MPI_WIN_NULL;
    int rc = MPI_Win_create_dynamic(UJ_INFO(info), UJ_COMM(comm), &w);
    return made(env, rc, w);
}

/* The memory of this rank's part of the window as a direct buffer, or
 * NULL when it has none (a dynamic window, size 0). */
JNIEXPORT jobject JNICALL Java_mpi_Win_baseNative(JNIEnv *env, jclass c, jlong win)
{
    void *base = NULL;
    MPI_Aint *size = NULL;
    int flag = 0;
    UJ_CHECK(MPI_Win_get_attr(UJ_WIN(win), MPI_WIN_BASE, &base, &flag));
    if (!flag || !base) return NULL;
    UJ_CHECK(MPI_Win_get_attr(UJ_WIN(win), MPI_WIN_SIZE, &size, &flag));
    if (!flag || !size || *size <= 0) return NULL;
    return (*env)->NewDirectByteBuffer(env, base, (jlong)*size);
}

/* Rank's segment of a shared window; du[0] gets its displacement unit. */
JNIEXPORT jobject JNICALL Java_mpi_Win_sharedQueryNative(JNIEnv *env, jclass c, jlong win,
                                                         jint rank, jintArray du)
{
    MPI_Aint size = 0;
    int unit = 0;
    void *p = NULL;
    UJ_CHECK(MPI_Win_shared_query(UJ_WIN(win), rank, &size, &unit, &p));
    if (du) (*env)->SetIntArrayRegion(env, du, 0, 1, &unit);
    if (!p || size <= 0) return NULL;
    return (*env)->NewDirectByteBuffer(env, p, (jlong)size);
}

JNIEXPORT void JNICALL Java_mpi_Win_attachNative(JNIEnv *env, jclass c, jlong win, jobject buf,
                                                 jlong bytes)
{
    void *p = region(env, buf, bytes, "Win.attach");
    if (!p) return;
    int rc = MPI_Win_attach(UJ_WIN(win), p, (MPI_Aint)bytes);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Win_detachNative(JNIEnv *env, jclass c, jlong win, jobject buf)
{
    void *p = region(env, buf, 0, "Win.detach");
    if (!p) return;
    int rc = MPI_Win_detach(UJ_WIN(win), p);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* The origin side of an RMA call: count elements of dt in a direct buffer
 * (NULL when count is 0 and there is none), or false with an exception. */
static bool origin(JNIEnv *env, jobject buf, jlong len, jint count, jlong type, const char *what,
                   void **p)
{
    *p = uj_direct(env, buf, len, count, UJ_TYPE(type), what);
    return !(*env)->ExceptionCheck(env);
}

enum { RMA_PUT, RMA_GET, RMA_ACC };

/* put, get, accumulate and their request forms; returns the request (0 for
 * the plain forms) or 0 with an exception pending. */
JNIEXPORT jlong JNICALL Java_mpi_Win_rmaNative(JNIEnv *env, jclass c, jlong win, jint kind,
                                               jboolean req, jobject obuf, jlong olen, jint ocount,
                                               jlong otype, jint rank, jint disp, jint tcount,
                                               jlong ttype, jlong op)
{
    static const char *names[2][3] = {{"Win.put", "Win.get", "Win.accumulate"},
                                      {"Win.rPut", "Win.rGet", "Win.rAccumulate"}};
    void *p;
    if (!origin(env, obuf, olen, ocount, otype, names[req != 0][kind], &p)) return 0;
    MPI_Datatype ot = UJ_TYPE(otype), tt = UJ_TYPE(ttype);
    MPI_Win w = UJ_WIN(win);
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    switch (kind) {
    case RMA_PUT:
        rc = req ? MPI_Rput(p, ocount, ot, rank, disp, tcount, tt, w, &r)
                 : MPI_Put(p, ocount, ot, rank, disp, tcount, tt, w);
        break;
    case RMA_GET:
        rc = req ? MPI_Rget(p, ocount, ot, rank, disp, tcount, tt, w, &r)
                 : MPI_Get(p, ocount, ot, rank, disp, tcount, tt, w);
        break;
    default:
        rc = req ? MPI_Raccumulate(p, ocount, ot, rank, disp, tcount, tt, UJ_OP(op), w, &r)
                 : MPI_Accumulate(p, ocount, ot, rank, disp, tcount, tt, UJ_OP(op), w);
        break;
    }
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(r);
}

JNIEXPORT jlong JNICALL Java_mpi_Win_getAccNative(JNIEnv *env, jclass c, jlong win, jboolean req,
                                                  jobject obuf, jlong olen, jint ocount,
                                                  jlong otype, jobject rbuf, jlong rlen,
                                                  jint rcount, jlong rtype, jint rank, jint disp,
                                                  jint tcount, jlong ttype, jlong op)
{
    const char *what = req ? "Win.rGetAccumulate" : "Win.getAccumulate";
    void *o, *res;
    if (!origin(env, obuf, olen, ocount, otype, what, &o) ||
        !origin(env, rbuf, rlen, rcount, rtype, what, &res))
        return 0;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = req ? MPI_Rget_accumulate(o, ocount, UJ_TYPE(otype), res, rcount, UJ_TYPE(rtype), rank,
                                       disp, tcount, UJ_TYPE(ttype), UJ_OP(op), UJ_WIN(win), &r)
                 : MPI_Get_accumulate(o, ocount, UJ_TYPE(otype), res, rcount, UJ_TYPE(rtype), rank,
                                      disp, tcount, UJ_TYPE(ttype), UJ_OP(op), UJ_WIN(win));
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(r);
}

JNIEXPORT void JNICALL Java_mpi_Win_fetchAndOpNative(JNIEnv *env, jclass c, jlong win, jobject obuf,
                                                     jlong olen, jobject rbuf, jlong rlen,
                                                     jlong type, jint rank, jint disp, jlong op)
{
    void *o, *res;
    if (!origin(env, obuf, olen, 1, type, "Win.fetchAndOp (origin)", &o) ||
        !origin(env, rbuf, rlen, 1, type, "Win.fetchAndOp (result)", &res))
        return;
    int rc = MPI_Fetch_and_op(o, res, UJ_TYPE(type), rank, disp, UJ_OP(op), UJ_WIN(win));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Win_compareAndSwapNative(JNIEnv *env, jclass c, jlong win,
                                                         jobject obuf, jlong olen, jobject cbuf,
                                                         jlong clen, jobject rbuf, jlong rlen,
                                                         jlong type, jint rank, jint disp)
{
    void *o, *cmp, *res;
    if (!origin(env, obuf, olen, 1, type, "Win.compareAndSwap (origin)", &o) ||
        !origin(env, cbuf, clen, 1, type, "Win.compareAndSwap (compare)", &cmp) ||
        !origin(env, rbuf, rlen, 1, type, "Win.compareAndSwap (result)", &res))
        return;
    int rc = MPI_Compare_and_swap(o, cmp, res, UJ_TYPE(type), rank, disp, UJ_WIN(win));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* Synchronisation: one entry for the calls of a window, with a rank or a
 * group handle (a) and up to two integers: the assertion (b), or for a
 * lock its type (b) and assertion (d). */
enum {
    S_FENCE,
    S_START,
    S_COMPLETE,
    S_POST,
    S_WAIT,
    S_LOCK,
    S_UNLOCK,
    S_LOCK_ALL,
    S_UNLOCK_ALL,
    S_SYNC,
    S_FLUSH,
    S_FLUSH_ALL,
    S_FLUSH_LOCAL,
    S_FLUSH_LOCAL_ALL
};

JNIEXPORT void JNICALL Java_mpi_Win_syncNative(JNIEnv *env, jclass c, jlong win, jint what, jlong a,
                                               jint b, jint d)
{
    MPI_Win w = UJ_WIN(win);
    int rc;
    switch (what) {
    case S_FENCE:
        rc = MPI_Win_fence(b, w);
        break;
    case S_START:
        rc = MPI_Win_start(UJ_GRP(a), b, w);
        break;
    case S_COMPLETE:
        rc = MPI_Win_complete(w);
        break;
    case S_POST:
        rc = MPI_Win_post(UJ_GRP(a), b, w);
        break;
    case S_WAIT:
        rc = MPI_Win_wait(w);
        break;
    case S_LOCK:
        rc = MPI_Win_lock(b, (int)a, d, w);
        break;
    case S_UNLOCK:
        rc = MPI_Win_unlock((int)a, w);
        break;
    case S_LOCK_ALL:
        rc = MPI_Win_lock_all(b, w);
        break;
    case S_UNLOCK_ALL:
        rc = MPI_Win_unlock_all(w);
        break;
    case S_SYNC:
        rc = MPI_Win_sync(w);
        break;
    case S_FLUSH:
        rc = MPI_Win_flush((int)a, w);
        break;
    case S_FLUSH_ALL:
        rc = MPI_Win_flush_all(w);
        break;
    case S_FLUSH_LOCAL:
        rc = MPI_Win_flush_local((int)a, w);
        break;
    default:
        rc = MPI_Win_flush_local_all(w);
        break;
    }
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jboolean JNICALL Java_mpi_Win_testNative(JNIEnv *env, jclass c, jlong win)
{
    int flag = 0;
    UJ_CHECK(MPI_Win_test(UJ_WIN(win), &flag));
    return flag != 0;
}

JNIEXPORT jlong JNICALL Java_mpi_Win_groupNative(JNIEnv *env, jclass c, jlong win)
{
    MPI_Group g = MPI_GROUP_NULL;
    UJ_CHECK(MPI_Win_get_group(UJ_WIN(win), &g));
    return UJ_H(g);
}

JNIEXPORT void JNICALL Java_mpi_Win_setNameNative(JNIEnv *env, jclass c, jlong win, jstring name)
{
    const char *s = (*env)->GetStringUTFChars(env, name, NULL);
    if (!s) return;
    int rc = MPI_Win_set_name(UJ_WIN(win), s);
    (*env)->ReleaseStringUTFChars(env, name, s);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jstring JNICALL Java_mpi_Win_getNameNative(JNIEnv *env, jclass c, jlong win)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    UJ_CHECK(MPI_Win_get_name(UJ_WIN(win), name, &len));
    return (*env)->NewStringUTF(env, name);
}

JNIEXPORT void JNICALL Java_mpi_Win_setInfoNative(JNIEnv *env, jclass c, jlong win, jlong info)
{
    int rc = MPI_Win_set_info(UJ_WIN(win), UJ_INFO(info));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jlong JNICALL Java_mpi_Win_getInfoNative(JNIEnv *env, jclass c, jlong win)
{
    MPI_Info i = MPI_INFO_NULL;
    UJ_CHECK(MPI_Win_get_info(UJ_WIN(win), &i));
    return UJ_H(i);
}

JNIEXPORT void JNICALL Java_mpi_Win_setErrhNative(JNIEnv *env, jclass c, jlong win, jlong e)
{
    int rc = MPI_Win_set_errhandler(UJ_WIN(win), UJ_ERRH(e));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jlong JNICALL Java_mpi_Win_getErrhNative(JNIEnv *env, jclass c, jlong win)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    UJ_CHECK(MPI_Win_get_errhandler(UJ_WIN(win), &e));
    return UJ_H(e); /* predefined handlers only in the binding */
}

JNIEXPORT void JNICALL Java_mpi_Win_callErrhNative(JNIEnv *env, jclass c, jlong win, jint code)
{
    int rc = MPI_Win_call_errhandler(UJ_WIN(win), code);
    if (rc != MPI_SUCCESS) uj_throw(env, code);
}

JNIEXPORT void JNICALL Java_mpi_Win_freeNative(JNIEnv *env, jclass c, jlong win)
{
    MPI_Win w = UJ_WIN(win);
    int rc = MPI_Win_free(&w);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}
