/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.c - loading, MPI.Init/Finalize and the environment queries, the
 * predefined handles, and MPIException: the one place where an MPI error
 * code becomes a Java exception.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ujava.h"

JavaVM *uj_vm;
static jclass exc_class;
static jmethodID exc_ctor;

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    JNIEnv *env;
    uj_vm = vm;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass c = (*env)->FindClass(env, "mpi/MPIException");
    if (!c) return JNI_ERR;
    exc_class = (*env)->NewGlobalRef(env, c);
    exc_ctor = (*env)->GetMethodID(env, c, "<init>", "(IILjava/lang/String;)V");
    if (!exc_ctor) return JNI_ERR;
    return JNI_VERSION_1_8;
}

static void throw_exc(JNIEnv *env, int code, int cls, const char *msg)
{
    if ((*env)->ExceptionCheck(env)) return; /* the first failure is the one to report */
    jstring s = (*env)->NewStringUTF(env, msg);
    if (!s) return;
    jobject e = (*env)->NewObject(env, exc_class, exc_ctor, code, cls, s);
    if (e) (*env)->Throw(env, e);
}

int uj_throw(JNIEnv *env, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = rc;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof(msg), "MPI error %d", rc);
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = MPI_ERR_UNKNOWN;
    throw_exc(env, rc, cls, msg);
    return rc;
}

void uj_throw_msg(JNIEnv *env, int cls, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    throw_exc(env, cls, cls, msg);
}

void uj_status_out(JNIEnv *env, jlongArray st, const MPI_Status *s, int index)
{
    if (!st) return;
    jlong v[UJ_ST_LEN] = {
        [UJ_ST_SOURCE] = s->MPI_SOURCE, [UJ_ST_TAG] = s->MPI_TAG,
        [UJ_ST_ERROR] = s->MPI_ERROR,   [UJ_ST_CANCELLED] = s->ump_cancelled,
        [UJ_ST_COUNT] = s->ump_count,   [UJ_ST_INDEX] = index,
    };
    (*env)->SetLongArrayRegion(env, st, 0, UJ_ST_LEN, v);
}

void uj_status_in(JNIEnv *env, jlongArray st, MPI_Status *s)
{
    jlong v[UJ_ST_LEN];
    (*env)->GetLongArrayRegion(env, st, 0, UJ_ST_LEN, v);
    s->MPI_SOURCE = (int)v[UJ_ST_SOURCE];
    s->MPI_TAG = (int)v[UJ_ST_TAG];
    s->MPI_ERROR = (int)v[UJ_ST_ERROR];
    s->ump_cancelled = (int)v[UJ_ST_CANCELLED];
    s->ump_count = v[UJ_ST_COUNT];
}

int *uj_ints(JNIEnv *env, jintArray a, int *n)
{
    *n = 0;
    if (!a) return NULL;
    *n = (*env)->GetArrayLength(env, a);
    int *p = malloc(sizeof(int) * (size_t)(*n > 0 ? *n : 1));
    if (!p) {
        uj_throw_msg(env, MPI_ERR_NO_MEM, "out of memory copying an int[%d]", *n);
        return NULL;
    }
    (*env)->GetIntArrayRegion(env, a, 0, *n, (jint *)p);
    return p;
}

void uj_ints_free(int *p)
{
    free(p);
}

/* Predefined objects, by the indices MPI.java uses (kind, which). */
static void *predefined(int kind, int which)
{
    static void *types[] = {
        MPI_DATATYPE_NULL,
        MPI_UINT8_T,
        MPI_UINT16_T,
        MPI_INT16_T,
        MPI_UINT8_T /* boolean: one byte in the JVM */,
        MPI_INT32_T,
        MPI_INT64_T,
        MPI_FLOAT,
        MPI_DOUBLE,
        MPI_PACKED,
        MPI_2INT,
        MPI_SHORT_INT,
        MPI_LONG_INT,
        MPI_FLOAT_INT,
        MPI_DOUBLE_INT,
        MPI_C_FLOAT_COMPLEX,
        MPI_C_DOUBLE_COMPLEX,
    };
    static void *ops[] = {MPI_OP_NULL, MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD,
                          MPI_LAND,    MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR,
                          MPI_BXOR,    MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    static void *comms[] = {MPI_COMM_NULL, MPI_COMM_WORLD, MPI_COMM_SELF};
    static void *errhs[] = {MPI_ERRHANDLER_NULL, MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN};
    static void *groups[] = {MPI_GROUP_NULL, MPI_GROUP_EMPTY};
    static void *infos[] = {MPI_INFO_NULL, MPI_INFO_ENV};
    static void *msgs[] = {MPI_MESSAGE_NULL, MPI_MESSAGE_NO_PROC};
    struct {
        void **v;
        int n;
    } k[] = {{types, sizeof(types) / sizeof(*types)},
             {ops, sizeof(ops) / sizeof(*ops)},
             {comms, 3},
             {errhs, 3},
             {groups, 2},
             {infos, 2},
             {msgs, 2}};
    if (kind < 0 || kind >= (int)(sizeof(k) / sizeof(*k)) || which < 0 || which >= k[kind].n)
        return NULL;
    return k[kind].v[which];
}

JNIEXPORT jlong JNICALL Java_mpi_MPI_predefined(JNIEnv *env, jclass c, jint kind, jint which)
{
    return UJ_H(predefined(kind, which));
}

JNIEXPORT jint JNICALL Java_mpi_MPI_initNative(JNIEnv *env, jclass c, jint required)
{
    int provided = MPI_THREAD_SINGLE, rc;
    /* Errors of MPI_Init itself are fatal by the standard; anything later
     * comes back through MPI_ERRORS_RETURN, set below. */
    rc = MPI_Init_thread(NULL, NULL, required, &provided);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), provided;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    uj_pin_allowed = provided < MPI_THREAD_MULTIPLE;
    return provided;
}

JNIEXPORT void JNICALL Java_mpi_MPI_finalizeNative(JNIEnv *env, jclass c)
{
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jboolean JNICALL Java_mpi_MPI_initialized(JNIEnv *env, jclass c)
{
    int flag = 0;
    MPI_Initialized(&flag);
    return flag != 0;
}

JNIEXPORT jboolean JNICALL Java_mpi_MPI_finalized(JNIEnv *env, jclass c)
{
    int flag = 0;
    MPI_Finalized(&flag);
    return flag != 0;
}

JNIEXPORT jint JNICALL Java_mpi_MPI_queryThreadNative(JNIEnv *env, jclass c)
{
    int p = 0, rc = MPI_Query_thread(&p);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return p;
}

JNIEXPORT jboolean JNICALL Java_mpi_MPI_isThreadMainNative(JNIEnv *env, jclass c)
{
    int f = 0, rc = MPI_Is_thread_main(&f);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return f != 0;
}

JNIEXPORT jdouble JNICALL Java_mpi_MPI_wtimeNative(JNIEnv *env, jclass c)
{
    return MPI_Wtime();
}

JNIEXPORT jdouble JNICALL Java_mpi_MPI_wtickNative(JNIEnv *env, jclass c)
{
    return MPI_Wtick();
}

JNIEXPORT jstring JNICALL Java_mpi_MPI_processorName(JNIEnv *env, jclass c)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0, rc = MPI_Get_processor_name(name, &len);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), NULL;
    return (*env)->NewStringUTF(env, name);
}

JNIEXPORT jstring JNICALL Java_mpi_MPI_libVersion(JNIEnv *env, jclass c)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return (*env)->NewStringUTF(env, v);
}

/* Relaxed atomics: a program may change the threshold while other threads
 * are in calls; each call reads it once. */
JNIEXPORT void JNICALL Java_mpi_MPI_setPinThresholdNative(JNIEnv *env, jclass c, jlong bytes)
{
    __atomic_store_n(&uj_pin_threshold, bytes < 0 ? 0 : bytes, __ATOMIC_RELAXED);
}

JNIEXPORT jlong JNICALL Java_mpi_MPI_getPinThresholdNative(JNIEnv *env, jclass c)
{
    return __atomic_load_n(&uj_pin_threshold, __ATOMIC_RELAXED);
}

JNIEXPORT void JNICALL Java_mpi_MPI_attachNative(JNIEnv *env, jclass c, jobject buf, jint len)
{
    void *p = (*env)->GetDirectBufferAddress(env, buf);
    if (!p) return uj_throw_msg(env, MPI_ERR_BUFFER, "MPI.attachBuffer: not a direct buffer");
    int rc = MPI_Buffer_attach(p, len);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_MPI_detachNative(JNIEnv *env, jclass c)
{
    void *p = NULL;
    int n = 0, rc = MPI_Buffer_detach(&p, &n);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jint JNICALL Java_mpi_MPI_errorClass(JNIEnv *env, jclass c, jint code)
{
    int cls = MPI_ERR_UNKNOWN;
    MPI_Error_class(code, &cls);
    return cls;
}

JNIEXPORT jstring JNICALL Java_mpi_MPI_errorString(JNIEnv *env, jclass c, jint code)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof(msg), "%d", code);
    return (*env)->NewStringUTF(env, msg);
}
