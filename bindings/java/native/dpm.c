/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpm.c - dynamic processes of mpi.Intracomm / Comm: spawning (one or
 * several programs), the parent communicator, ports (open, close, accept,
 * connect), the name service and disconnecting. Java strings are copied to
 * C strings (strs) for the call and freed after it.
 */
#include <stdlib.h>
#include <string.h>

#include "ujava.h"

/* A copy of a Java string (NULL for null, or with an exception pending). */
static char *str(JNIEnv *env, jstring s)
{
    if (!s) return NULL;
    const char *u = (*env)->GetStringUTFChars(env, s, NULL);
    if (!u) return NULL;
    char *c = strdup(u);
    (*env)->ReleaseStringUTFChars(env, s, u);
    if (!c) uj_throw_msg(env, MPI_ERR_NO_MEM, "out of memory copying a string");
    return c;
}

/* A NULL-terminated C copy of a String[] (NULL for null). */
static char **strs(JNIEnv *env, jobjectArray a)
{
    if (!a) return NULL;
    int n = (*env)->GetArrayLength(env, a);
    char **v = calloc((size_t)n + 1, sizeof(char *));
    if (!v) return uj_throw_msg(env, MPI_ERR_NO_MEM, "out of memory copying a String[]"), NULL;
    for (int i = 0; i < n && !(*env)->ExceptionCheck(env); i++) {
        jstring s = (*env)->GetObjectArrayElement(env, a, i);
        v[i] = s ? str(env, s) : strdup("");
        if (s) (*env)->DeleteLocalRef(env, s);
    }
    return v;
}

static void strs_free(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

/* ump starts all of a spawn's processes or none: on success every error
 * code is MPI_SUCCESS, on failure the call throws. So C gets
 * MPI_ERRCODES_IGNORE (at a rank other than the root the count of codes
 * MPI would write is the root's, unknown here) and the Java array, when
 * there is one, is filled here. */
static jlong spawned(JNIEnv *env, int rc, MPI_Comm inter, jintArray jerr)
{
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    if (jerr) {
        int len = (*env)->GetArrayLength(env, jerr);
        for (int i = 0; i < len; i++) {
            jint ok = MPI_SUCCESS;
            (*env)->SetIntArrayRegion(env, jerr, i, 1, &ok);
        }
    }
    return UJ_H(inter);
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_spawnNative(JNIEnv *env, jclass c, jlong comm,
                                                       jstring jcmd, jobjectArray jargv,
                                                       jint maxprocs, jlong info, jint root,
                                                       jintArray jerr)
{
    char *cmd = str(env, jcmd), **argv = strs(env, jargv);
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    bool ok = !(*env)->ExceptionCheck(env);
    if (ok)
        rc = MPI_Comm_spawn(cmd, argv ? argv : MPI_ARGV_NULL, maxprocs, UJ_INFO(info), root,
                            UJ_COMM(comm), &inter, MPI_ERRCODES_IGNORE);
    free(cmd);
    strs_free(argv);
    return ok ? spawned(env, rc, inter, jerr) : 0;
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_spawnMultipleNative(JNIEnv *env, jclass c, jlong comm,
                                                               jobjectArray jcmds,
                                                               jobjectArray jargvs, jintArray jmax,
                                                               jlongArray jinfos, jint root,
                                                               jintArray jerr)
{
    const char *what = "Intracomm.spawnMultiple";
    int count = jcmds ? (*env)->GetArrayLength(env, jcmds) : 0, nmax = 0;
    char **cmds = strs(env, jcmds);
    int *maxprocs = uj_ints(env, jmax, &nmax);
    char ***argvs = NULL;
    MPI_Info *infos = NULL;
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    jlong h = 0;
    if ((*env)->ExceptionCheck(env)) goto out;
    if (nmax < count || (jinfos && (*env)->GetArrayLength(env, jinfos) < count) ||
        (jargvs && (*env)->GetArrayLength(env, jargvs) < count)) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "%s: maxprocs, info and argv need an entry per command (%d) (MPI_ERR_ARG)",
                     what, count);
        goto out;
    }
    infos = calloc((size_t)count + 1, sizeof(MPI_Info));
    if (!infos) goto nomem;
    for (int i = 0; i < count; i++) {
        jlong ih = 0;
        if (jinfos) (*env)->GetLongArrayRegion(env, jinfos, i, 1, &ih);
        infos[i] = jinfos ? UJ_INFO(ih) : MPI_INFO_NULL;
    }
    if (jargvs) {
        argvs = calloc((size_t)count + 1, sizeof(char **));
        if (!argvs) goto nomem;
        for (int i = 0; i < count && !(*env)->ExceptionCheck(env); i++) {
            jobjectArray a = (*env)->GetObjectArrayElement(env, jargvs, i);
            argvs[i] = a ? strs(env, a) : calloc(1, sizeof(char *));
            if (a) (*env)->DeleteLocalRef(env, a);
            if (!argvs[i] && !(*env)->ExceptionCheck(env)) goto nomem;
        }
        if ((*env)->ExceptionCheck(env)) goto out;
    }
    rc = MPI_Comm_spawn_multiple(count, cmds ? cmds : (char *[]){NULL},
                                 argvs ? argvs : MPI_ARGVS_NULL, maxprocs ? maxprocs : (int[]){0},
                                 infos, root, UJ_COMM(comm), &inter, MPI_ERRCODES_IGNORE);
    h = spawned(env, rc, inter, jerr);
    goto out;
nomem:
    uj_throw_msg(env, MPI_ERR_NO_MEM, "%s: out of memory", what);
out:
    for (int i = 0; argvs && i < count; i++)
        strs_free(argvs[i]);
    free(argvs);
    free(infos);
    strs_free(cmds);
    uj_ints_free(maxprocs);
    return h;
}

/* The parent intercommunicator (null when not spawned). Its failures come
 * back as exceptions, as on every communicator the binding hands out. */
JNIEXPORT jlong JNICALL Java_mpi_Comm_parentNative(JNIEnv *env, jclass c)
{
    MPI_Comm p = MPI_COMM_NULL;
    int rc = MPI_Comm_get_parent(&p);
    if (rc == MPI_SUCCESS && p != MPI_COMM_NULL) rc = MPI_Comm_set_errhandler(p, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(p);
}

JNIEXPORT void JNICALL Java_mpi_Comm_disconnectNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Comm cm = UJ_COMM(comm);
    int rc = MPI_Comm_disconnect(&cm);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jstring JNICALL Java_mpi_Intracomm_openPortNative(JNIEnv *env, jclass c, jlong info)
{
    char port[MPI_MAX_PORT_NAME + 1] = {0};
    int rc = MPI_Open_port(UJ_INFO(info), port);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), NULL;
    return (*env)->NewStringUTF(env, port);
}

JNIEXPORT void JNICALL Java_mpi_Intracomm_closePortNative(JNIEnv *env, jclass c, jstring jport)
{
    char *port = str(env, jport);
    if ((*env)->ExceptionCheck(env)) return;
    int rc = MPI_Close_port(port);
    free(port);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* accept or connect; port matters at the root only. */
JNIEXPORT jlong JNICALL Java_mpi_Intracomm_meetNative(JNIEnv *env, jclass c, jlong comm,
                                                      jboolean accept, jstring jport, jlong info,
                                                      jint root)
{
    char *port = str(env, jport);
    if ((*env)->ExceptionCheck(env)) return 0;
    MPI_Comm out = MPI_COMM_NULL;
    int rc = accept ? MPI_Comm_accept(port, UJ_INFO(info), root, UJ_COMM(comm), &out)
                    : MPI_Comm_connect(port, UJ_INFO(info), root, UJ_COMM(comm), &out);
    free(port);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(out);
}

/* op: 0 publish, 1 unpublish */
JNIEXPORT void JNICALL Java_mpi_Intracomm_nameNative(JNIEnv *env, jclass c, jint op,
                                                     jstring jservice, jlong info, jstring jport)
{
    char *service = str(env, jservice), *port = str(env, jport);
    int rc = MPI_SUCCESS;
    if (!(*env)->ExceptionCheck(env))
        rc = op == 0 ? MPI_Publish_name(service, UJ_INFO(info), port)
                     : MPI_Unpublish_name(service, UJ_INFO(info), port);
    free(service);
    free(port);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jstring JNICALL Java_mpi_Intracomm_lookupNative(JNIEnv *env, jclass c, jstring jservice,
                                                          jlong info)
{
    char port[MPI_MAX_PORT_NAME + 1] = {0};
    char *service = str(env, jservice);
    if ((*env)->ExceptionCheck(env)) return NULL;
    int rc = MPI_Lookup_name(service, UJ_INFO(info), port);
    free(service);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), NULL;
    return (*env)->NewStringUTF(env, port);
}
