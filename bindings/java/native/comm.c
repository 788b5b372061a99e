/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm.c - communicators (queries, dup/split/create/free, names, error
 * handlers, predefined attributes), groups and info objects.
 */
#include <stdlib.h>
#include <string.h>

#include "ujava.h"

JNIEXPORT jint JNICALL Java_mpi_Comm_rankNative(JNIEnv *env, jclass c, jlong comm)
{
    int r = 0;
    UJ_CHECK(MPI_Comm_rank(UJ_COMM(comm), &r));
    return r;
}

JNIEXPORT jint JNICALL Java_mpi_Comm_sizeNative(JNIEnv *env, jclass c, jlong comm)
{
    int n = 0;
    UJ_CHECK(MPI_Comm_size(UJ_COMM(comm), &n));
    return n;
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_dupNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Comm n = MPI_COMM_NULL;
    UJ_CHECK(MPI_Comm_dup(UJ_COMM(comm), &n));
    return UJ_H(n);
}

JNIEXPORT void JNICALL Java_mpi_Comm_freeNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Comm cm = UJ_COMM(comm);
    int rc = MPI_Comm_free(&cm);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jint JNICALL Java_mpi_Comm_compareNative(JNIEnv *env, jclass c, jlong a, jlong b)
{
    int r = 0;
    UJ_CHECK(MPI_Comm_compare(UJ_COMM(a), UJ_COMM(b), &r));
    return r;
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_groupNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Group g = MPI_GROUP_NULL;
    UJ_CHECK(MPI_Comm_group(UJ_COMM(comm), &g));
    return UJ_H(g);
}

JNIEXPORT jboolean JNICALL Java_mpi_Comm_isInterNative(JNIEnv *env, jclass c, jlong comm)
{
    int f = 0;
    UJ_CHECK(MPI_Comm_test_inter(UJ_COMM(comm), &f));
    return f != 0;
}

JNIEXPORT void JNICALL Java_mpi_Comm_setNameNative(JNIEnv *env, jclass c, jlong comm, jstring name)
{
    const char *s = (*env)->GetStringUTFChars(env, name, NULL);
    if (!s) return;
    int rc = MPI_Comm_set_name(UJ_COMM(comm), s);
    (*env)->ReleaseStringUTFChars(env, name, s);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jstring JNICALL Java_mpi_Comm_getNameNative(JNIEnv *env, jclass c, jlong comm)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    UJ_CHECK(MPI_Comm_get_name(UJ_COMM(comm), name, &len));
    return (*env)->NewStringUTF(env, name);
}

JNIEXPORT void JNICALL Java_mpi_Comm_setErrhNative(JNIEnv *env, jclass c, jlong comm, jlong e)
{
    int rc = MPI_Comm_set_errhandler(UJ_COMM(comm), UJ_ERRH(e));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_getErrhNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    UJ_CHECK(MPI_Comm_get_errhandler(UJ_COMM(comm), &e));
    /* Predefined handlers only here, so no reference is leaked by not freeing. */
    return UJ_H(e);
}

JNIEXPORT void JNICALL Java_mpi_Comm_callErrhNative(JNIEnv *env, jclass c, jlong comm, jint code)
{
    int rc = MPI_Comm_call_errhandler(UJ_COMM(comm), code);
    if (rc != MPI_SUCCESS) uj_throw(env, code);
}

JNIEXPORT void JNICALL Java_mpi_Comm_abortNative(JNIEnv *env, jclass c, jlong comm, jint code)
{
    int rc = MPI_Abort(UJ_COMM(comm), code);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jobject JNICALL Java_mpi_Comm_getAttrNative(JNIEnv *env, jclass c, jlong comm,
                                                      jint keyval)
{
    void *v = NULL;
    int flag = 0;
    UJ_CHECK(MPI_Comm_get_attr(UJ_COMM(comm), keyval, &v, &flag));
    if (!flag || !v) return NULL;
    jclass ic = (*env)->FindClass(env, "java/lang/Integer");
    jmethodID of =
        ic ? (*env)->GetStaticMethodID(env, ic, "valueOf", "(I)Ljava/lang/Integer;") : NULL;
    if (!of) return NULL;
    return (*env)->CallStaticObjectMethod(env, ic, of, (jint) * (int *)v);
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_splitNative(JNIEnv *env, jclass c, jlong comm,
                                                       jint colour, jint key)
{
    MPI_Comm n = MPI_COMM_NULL;
    UJ_CHECK(MPI_Comm_split(UJ_COMM(comm), colour, key, &n));
    return UJ_H(n);
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_splitTypeNative(JNIEnv *env, jclass c, jlong comm,
                                                           jint type, jint key, jlong info)
{
    MPI_Comm n = MPI_COMM_NULL;
    UJ_CHECK(MPI_Comm_split_type(UJ_COMM(comm), type, key, UJ_INFO(info), &n));
    return UJ_H(n);
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_createNative(JNIEnv *env, jclass c, jlong comm,
                                                        jlong group)
{
    MPI_Comm n = MPI_COMM_NULL;
    UJ_CHECK(MPI_Comm_create(UJ_COMM(comm), UJ_GRP(group), &n));
    return UJ_H(n);
}

/* ---- groups ---- */

JNIEXPORT jint JNICALL Java_mpi_Group_sizeNative(JNIEnv *env, jclass c, jlong g)
{
    int n = 0;
    UJ_CHECK(MPI_Group_size(UJ_GRP(g), &n));
    return n;
}

JNIEXPORT jint JNICALL Java_mpi_Group_rankNative(JNIEnv *env, jclass c, jlong g)
{
    int r = 0;
    UJ_CHECK(MPI_Group_rank(UJ_GRP(g), &r));
    return r;
}

JNIEXPORT jlong JNICALL Java_mpi_Group_inclNative(JNIEnv *env, jclass c, jlong g, jintArray jranks,
                                                  jboolean excl)
{
    int n = 0;
    MPI_Group ng = MPI_GROUP_NULL;
    int *ranks = uj_ints(env, jranks, &n);
    if ((*env)->ExceptionCheck(env)) return 0;
    int rc =
        excl ? MPI_Group_excl(UJ_GRP(g), n, ranks, &ng) : MPI_Group_incl(UJ_GRP(g), n, ranks, &ng);
    uj_ints_free(ranks);
    UJ_CHECK(rc);
    return UJ_H(ng);
}

JNIEXPORT jlong JNICALL Java_mpi_Group_rangeNative(JNIEnv *env, jclass c, jlong g,
                                                   jobjectArray jranges, jboolean excl)
{
    int n = (*env)->GetArrayLength(env, jranges);
    MPI_Group ng = MPI_GROUP_NULL;
    int(*r)[3] = malloc(sizeof(int[3]) * (size_t)(n > 0 ? n : 1));
    if (!r) return uj_throw_msg(env, MPI_ERR_NO_MEM, "Group: no memory"), 0;
    for (int i = 0; i < n; i++) {
        jintArray t = (*env)->GetObjectArrayElement(env, jranges, i);
        if (!t || (*env)->GetArrayLength(env, t) != 3) {
            free(r);
            uj_throw_msg(env, MPI_ERR_ARG,
                         "Group.rangeIncl/rangeExcl: range %d is not {first, last, stride} "
                         "(MPI_ERR_ARG)",
                         i);
            return 0;
        }
        (*env)->GetIntArrayRegion(env, t, 0, 3, r[i]);
        (*env)->DeleteLocalRef(env, t);
    }
    int rc = excl ? MPI_Group_range_excl(UJ_GRP(g), n, r, &ng)
                  : MPI_Group_range_incl(UJ_GRP(g), n, r, &ng);
    free(r);
    UJ_CHECK(rc);
    return UJ_H(ng);
}

JNIEXPORT jlong JNICALL Java_mpi_Group_setOpNative(JNIEnv *env, jclass c, jlong a, jlong b,
                                                   jint which)
{
    MPI_Group ng = MPI_GROUP_NULL;
    int rc = which == 0   ? MPI_Group_union(UJ_GRP(a), UJ_GRP(b), &ng)
             : which == 1 ? MPI_Group_intersection(UJ_GRP(a), UJ_GRP(b), &ng)
                          : MPI_Group_difference(UJ_GRP(a), UJ_GRP(b), &ng);
    UJ_CHECK(rc);
    return UJ_H(ng);
}

JNIEXPORT jintArray JNICALL Java_mpi_Group_translateNative(JNIEnv *env, jclass c, jlong a,
                                                           jintArray jranks, jlong b)
{
    int n = 0;
    int *r1 = uj_ints(env, jranks, &n);
    if ((*env)->ExceptionCheck(env)) return NULL;
    int *r2 = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!r2) {
        uj_ints_free(r1);
        return uj_throw_msg(env, MPI_ERR_NO_MEM, "Group: no memory"), NULL;
    }
    int rc = MPI_Group_translate_ranks(UJ_GRP(a), n, r1, UJ_GRP(b), r2);
    uj_ints_free(r1);
    jintArray out = NULL;
    if (rc != MPI_SUCCESS) {
        uj_throw(env, rc);
    } else if ((out = (*env)->NewIntArray(env, n))) {
        (*env)->SetIntArrayRegion(env, out, 0, n, (jint *)r2);
    }
    free(r2);
    return out;
}

JNIEXPORT jint JNICALL Java_mpi_Group_compareNative(JNIEnv *env, jclass c, jlong a, jlong b)
{
    int r = 0;
    UJ_CHECK(MPI_Group_compare(UJ_GRP(a), UJ_GRP(b), &r));
    return r;
}

JNIEXPORT void JNICALL Java_mpi_Group_freeNative(JNIEnv *env, jclass c, jlong g)
{
    MPI_Group grp = UJ_GRP(g);
    int rc = MPI_Group_free(&grp);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* ---- info ---- */

JNIEXPORT jlong JNICALL Java_mpi_Info_createNative(JNIEnv *env, jclass c)
{
    MPI_Info i = MPI_INFO_NULL;
    UJ_CHECK(MPI_Info_create(&i));
    return UJ_H(i);
}

JNIEXPORT void JNICALL Java_mpi_Info_setNative(JNIEnv *env, jclass c, jlong h, jstring jk,
                                               jstring jv)
{
    const char *k = (*env)->GetStringUTFChars(env, jk, NULL);
    const char *v = k ? (*env)->GetStringUTFChars(env, jv, NULL) : NULL;
    int rc = MPI_SUCCESS;
    if (k && v) rc = MPI_Info_set(UJ_INFO(h), k, v);
    if (v) (*env)->ReleaseStringUTFChars(env, jv, v);
    if (k) (*env)->ReleaseStringUTFChars(env, jk, k);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jstring JNICALL Java_mpi_Info_getNative(JNIEnv *env, jclass c, jlong h, jstring jk)
{
    const char *k = (*env)->GetStringUTFChars(env, jk, NULL);
    if (!k) return NULL;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0, rc = MPI_Info_get(UJ_INFO(h), k, MPI_MAX_INFO_VAL, v, &flag);
    (*env)->ReleaseStringUTFChars(env, jk, k);
    UJ_CHECK(rc);
    return flag ? (*env)->NewStringUTF(env, v) : NULL;
}

JNIEXPORT void JNICALL Java_mpi_Info_deleteNative(JNIEnv *env, jclass c, jlong h, jstring jk)
{
    const char *k = (*env)->GetStringUTFChars(env, jk, NULL);
    if (!k) return;
    int rc = MPI_Info_delete(UJ_INFO(h), k);
    (*env)->ReleaseStringUTFChars(env, jk, k);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jint JNICALL Java_mpi_Info_sizeNative(JNIEnv *env, jclass c, jlong h)
{
    int n = 0;
    UJ_CHECK(MPI_Info_get_nkeys(UJ_INFO(h), &n));
    return n;
}

JNIEXPORT jstring JNICALL Java_mpi_Info_keyNative(JNIEnv *env, jclass c, jlong h, jint i)
{
    char k[MPI_MAX_INFO_KEY + 1];
    UJ_CHECK(MPI_Info_get_nthkey(UJ_INFO(h), i, k));
    return (*env)->NewStringUTF(env, k);
}

JNIEXPORT jlong JNICALL Java_mpi_Info_dupNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Info i = MPI_INFO_NULL;
    UJ_CHECK(MPI_Info_dup(UJ_INFO(h), &i));
    return UJ_H(i);
}

JNIEXPORT void JNICALL Java_mpi_Info_freeNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Info i = UJ_INFO(h);
    int rc = MPI_Info_free(&i);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* ---- duplicates with info, non-blocking; communicators of a group ---- */

JNIEXPORT jlong JNICALL Java_mpi_Comm_dupWithInfoNative(JNIEnv *env, jclass c, jlong comm,
                                                        jlong info)
{
    MPI_Comm n = MPI_COMM_NULL;
    UJ_CHECK(MPI_Comm_dup_with_info(UJ_COMM(comm), UJ_INFO(info), &n));
    return UJ_H(n);
}

/* The new communicator's handle; the request through req[0]. */
JNIEXPORT jlong JNICALL Java_mpi_Comm_iDupNative(JNIEnv *env, jclass c, jlong comm, jlongArray req)
{
    MPI_Comm n = MPI_COMM_NULL;
    MPI_Request q = MPI_REQUEST_NULL;
    UJ_CHECK(MPI_Comm_idup(UJ_COMM(comm), &n, &q));
    jlong h = UJ_H(q);
    (*env)->SetLongArrayRegion(env, req, 0, 1, &h);
    return UJ_H(n);
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_createGroupNative(JNIEnv *env, jclass c, jlong comm,
                                                             jlong group, jint tag)
{
    MPI_Comm n = MPI_COMM_NULL;
    UJ_CHECK(MPI_Comm_create_group(UJ_COMM(comm), UJ_GRP(group), tag, &n));
    return UJ_H(n);
}

JNIEXPORT void JNICALL Java_mpi_Comm_setInfoNative(JNIEnv *env, jclass c, jlong comm, jlong info)
{
    int rc = MPI_Comm_set_info(UJ_COMM(comm), UJ_INFO(info));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* A new info object (the caller frees it) with the hints in use. */
JNIEXPORT jlong JNICALL Java_mpi_Comm_getInfoNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Info i = MPI_INFO_NULL;
    UJ_CHECK(MPI_Comm_get_info(UJ_COMM(comm), &i));
    return UJ_H(i);
}
