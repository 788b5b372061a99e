/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.c - mpi.Request and mpi.Prequest: wait, test and their array
 * forms. Handles travel as long[]; MPI may replace a handle (a completed
 * request becomes MPI_REQUEST_NULL), so every call writes them back.
 * A result array res holds the status (UJ_ST_LEN longs) then the handle.
 */
#include <stdlib.h>

#include "ujava.h"

static void out(JNIEnv *env, jlongArray res, const MPI_Status *s, MPI_Request r)
{
    uj_status_out(env, res, s, MPI_UNDEFINED);
    jlong h = UJ_H(r);
    (*env)->SetLongArrayRegion(env, res, UJ_ST_LEN, 1, &h);
}

JNIEXPORT void JNICALL Java_mpi_Request_waitNative(JNIEnv *env, jclass c, jlong h, jlongArray res)
{
    MPI_Request r = UJ_REQ(h);
    MPI_Status s;
    int rc = MPI_Wait(&r, &s);
    out(env, res, &s, r);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jboolean JNICALL Java_mpi_Request_testNative(JNIEnv *env, jclass c, jlong h,
                                                       jlongArray res)
{
    MPI_Request r = UJ_REQ(h);
    MPI_Status s;
    int flag = 0, rc = MPI_Test(&r, &flag, &s);
    if (flag) out(env, res, &s, r);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return flag != 0;
}

JNIEXPORT jboolean JNICALL Java_mpi_Request_getStatusNative(JNIEnv *env, jclass c, jlong h,
                                                            jlongArray res)
{
    MPI_Status s;
    int flag = 0, rc = MPI_Request_get_status(UJ_REQ(h), &flag, &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), JNI_FALSE;
    if (flag) out(env, res, &s, UJ_REQ(h));
    return flag != 0;
}

JNIEXPORT void JNICALL Java_mpi_Request_cancelNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Request r = UJ_REQ(h);
    int rc = MPI_Cancel(&r);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Request_freeNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Request r = UJ_REQ(h);
    int rc = MPI_Request_free(&r);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Prequest_startNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Request r = UJ_REQ(h);
    int rc = MPI_Start(&r);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* Request arrays: handles in, C array out; written back by put_reqs. */
static MPI_Request *get_reqs(JNIEnv *env, jlongArray hs, int *n)
{
    *n = (*env)->GetArrayLength(env, hs);
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)(*n > 0 ? *n : 1));
    jlong *h = malloc(sizeof(jlong) * (size_t)(*n > 0 ? *n : 1));
    if (!r || !h) {
        free(r);
        free(h);
        uj_throw_msg(env, MPI_ERR_NO_MEM, "Request: no memory for %d requests", *n);
        return NULL;
    }
    (*env)->GetLongArrayRegion(env, hs, 0, *n, h);
    for (int i = 0; i < *n; i++)
        r[i] = UJ_REQ(h[i]);
    free(h);
    return r;
}

static void put_reqs(JNIEnv *env, jlongArray hs, MPI_Request *r, int n)
{
    for (int i = 0; i < n; i++) {
        jlong h = UJ_H(r[i]);
        (*env)->SetLongArrayRegion(env, hs, i, 1, &h);
    }
    free(r);
}

static MPI_Status *get_sts(JNIEnv *env, int n)
{
    MPI_Status *s = calloc((size_t)(n > 0 ? n : 1), sizeof(MPI_Status));
    if (!s) uj_throw_msg(env, MPI_ERR_NO_MEM, "Request: no memory for %d statuses", n);
    return s;
}

static void put_sts(JNIEnv *env, jlongArray flat, MPI_Status *s, const int *which, int n)
{
    for (int i = 0; i < n; i++) {
        const MPI_Status *x = &s[i];
        jlong v[UJ_ST_LEN] = {x->MPI_SOURCE,    x->MPI_TAG,   x->MPI_ERROR,
                              x->ump_cancelled, x->ump_count, which ? which[i] : i};
        (*env)->SetLongArrayRegion(env, flat, i * UJ_ST_LEN, UJ_ST_LEN, v);
    }
}

JNIEXPORT void JNICALL Java_mpi_Request_startAllNative(JNIEnv *env, jclass c, jlongArray hs)
{
    int n;
    MPI_Request *r = get_reqs(env, hs, &n);
    if (!r) return;
    int rc = MPI_Startall(n, r);
    put_reqs(env, hs, r, n);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Request_waitAllNative(JNIEnv *env, jclass c, jlongArray hs,
                                                      jlongArray sts)
{
    int n;
    MPI_Request *r = get_reqs(env, hs, &n);
    if (!r) return;
    MPI_Status *s = get_sts(env, n);
    if (!s) return free(r);
    int rc = MPI_Waitall(n, r, s);
    put_reqs(env, hs, r, n);
    if (sts) put_sts(env, sts, s, NULL, n);
    free(s);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jboolean JNICALL Java_mpi_Request_testAllNative(JNIEnv *env, jclass c, jlongArray hs,
                                                          jlongArray sts)
{
    int n, flag = 0;
    MPI_Request *r = get_reqs(env, hs, &n);
    if (!r) return JNI_FALSE;
    MPI_Status *s = get_sts(env, n);
    if (!s) return free(r), JNI_FALSE;
    int rc = MPI_Testall(n, r, &flag, s);
    put_reqs(env, hs, r, n);
    if (flag && sts) put_sts(env, sts, s, NULL, n);
    free(s);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return flag != 0;
}

/* waitAny (test false) / testAny (test true): the index, MPI_UNDEFINED when
 * every request is null, -1 when testAny found nothing complete. */
JNIEXPORT jint JNICALL Java_mpi_Request_anyNative(JNIEnv *env, jclass c, jlongArray hs,
                                                  jlongArray st, jboolean test)
{
    int n, idx = MPI_UNDEFINED, flag = 1, rc;
    MPI_Status s;
    MPI_Request *r = get_reqs(env, hs, &n);
    if (!r) return MPI_UNDEFINED;
    rc = test ? MPI_Testany(n, r, &idx, &flag, &s) : MPI_Waitany(n, r, &idx, &s);
    put_reqs(env, hs, r, n);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), MPI_UNDEFINED;
    if (!flag) return -1;
    if (idx != MPI_UNDEFINED) uj_status_out(env, st, &s, idx);
    return idx;
}

/* waitSome / testSome: the number done (MPI_UNDEFINED if all null); their
 * indices in idx, their statuses in sts. */
JNIEXPORT jint JNICALL Java_mpi_Request_someNative(JNIEnv *env, jclass c, jlongArray hs,
                                                   jintArray jidx, jlongArray sts, jboolean test)
{
    int n, outc = 0;
    MPI_Request *r = get_reqs(env, hs, &n);
    if (!r) return 0;
    MPI_Status *s = get_sts(env, n);
    int *idx = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!s || !idx) {
        free(s);
        free(idx);
        free(r);
        return 0;
    }
    int rc = test ? MPI_Testsome(n, r, &outc, idx, s) : MPI_Waitsome(n, r, &outc, idx, s);
    put_reqs(env, hs, r, n);
    if (rc == MPI_SUCCESS && outc != MPI_UNDEFINED) {
        (*env)->SetIntArrayRegion(env, jidx, 0, outc, (jint *)idx);
        put_sts(env, sts, s, idx, outc);
    }
    free(s);
    free(idx);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return outc;
}
