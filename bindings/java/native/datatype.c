/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datatype.c - mpi.Datatype constructors and queries, and Status counts.
 */
#include <stdlib.h>
#include <string.h>

#include "ujava.h"

/* Call as `int rc = MPI_Type_...(..., &t); return done(env, rc, t);`: the
 * call must be sequenced before t is read. */
static jlong done(JNIEnv *env, int rc, MPI_Datatype t)
{
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(t);
}

JNIEXPORT jlong JNICALL Java_mpi_Datatype_contiguous(JNIEnv *env, jclass c, jint count, jlong old)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_contiguous(count, UJ_TYPE(old), &t);
    return done(env, rc, t);
}

JNIEXPORT jlong JNICALL Java_mpi_Datatype_vector(JNIEnv *env, jclass c, jint count, jint bl,
                                                 jlong stride, jlong old, jboolean bytes)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = bytes ? MPI_Type_create_hvector(count, bl, (MPI_Aint)stride, UJ_TYPE(old), &t)
                   : MPI_Type_vector(count, bl, (int)stride, UJ_TYPE(old), &t);
    return done(env, rc, t);
}

/* kind: 0 indexed, 1 hindexed, 2 indexed block, 3 hindexed block. */
JNIEXPORT jlong JNICALL Java_mpi_Datatype_indexed(JNIEnv *env, jclass c, jintArray jbl,
                                                  jintArray jdisp, jlong old, jint kind, jint bl)
{
    int nb = 0, nd = 0, rc;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    if (!jdisp) return uj_throw_msg(env, MPI_ERR_ARG, "Datatype: displacements are null"), 0;
    int *bls = kind < 2 ? uj_ints(env, jbl, &nb) : NULL;
    int *disp = uj_ints(env, jdisp, &nd);
    if ((*env)->ExceptionCheck(env)) goto out;
    if (kind < 2 && (!bls || nb != nd)) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "Datatype: %d block lengths for %d displacements (MPI_ERR_ARG)", nb, nd);
        goto out;
    }
    MPI_Aint *adisp = malloc(sizeof(MPI_Aint) * (size_t)(nd > 0 ? nd : 1));
    if (!adisp) goto out;
    for (int i = 0; i < nd; i++)
        adisp[i] = disp[i];
    switch (kind) {
    case 0:
        rc = MPI_Type_indexed(nd, bls, disp, UJ_TYPE(old), &t);
        break;
    case 1:
        rc = MPI_Type_create_hindexed(nd, bls, adisp, UJ_TYPE(old), &t);
        break;
    case 2:
        rc = MPI_Type_create_indexed_block(nd, bl, disp, UJ_TYPE(old), &t);
        break;
    default:
        rc = MPI_Type_create_hindexed_block(nd, bl, adisp, UJ_TYPE(old), &t);
        break;
    }
    free(adisp);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
out:
    uj_ints_free(bls);
    uj_ints_free(disp);
    return UJ_H(t);
}

JNIEXPORT jlong JNICALL Java_mpi_Datatype_struct(JNIEnv *env, jclass c, jintArray jbl,
                                                 jintArray jdisp, jlongArray jtypes)
{
    int nb = 0, nd = 0;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int *bls = uj_ints(env, jbl, &nb), *disp = uj_ints(env, jdisp, &nd);
    int nt = jtypes ? (*env)->GetArrayLength(env, jtypes) : 0;
    MPI_Aint *adisp = NULL;
    jlong *types = NULL;
    if ((*env)->ExceptionCheck(env)) goto out;
    if (!bls || !disp || nb != nd || nt != nd) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "Datatype.createStruct: %d block lengths, %d displacements, %d types "
                     "(MPI_ERR_ARG)",
                     nb, nd, nt);
        goto out;
    }
    adisp = malloc(sizeof(MPI_Aint) * (size_t)(nd + 1));
    types = malloc(sizeof(jlong) * (size_t)(nd + 1));
    MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    if (!adisp || !types || !ts) {
        free(ts);
        goto out;
    }
    (*env)->GetLongArrayRegion(env, jtypes, 0, nt, types);
    for (int i = 0; i < nd; i++) {
        adisp[i] = disp[i];
        ts[i] = UJ_TYPE(types[i]);
    }
    int rc = MPI_Type_create_struct(nd, bls, adisp, ts, &t);
    free(ts);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
out:
    free(adisp);
    free(types);
    uj_ints_free(bls);
    uj_ints_free(disp);
    return UJ_H(t);
}

JNIEXPORT jlong JNICALL Java_mpi_Datatype_subarray(JNIEnv *env, jclass c, jintArray jsizes,
                                                   jintArray jsub, jintArray jstarts, jint order,
                                                   jlong old)
{
    int n1 = 0, n2 = 0, n3 = 0;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int *sizes = uj_ints(env, jsizes, &n1), *sub = uj_ints(env, jsub, &n2),
        *starts = uj_ints(env, jstarts, &n3);
    if ((*env)->ExceptionCheck(env)) goto out;
    if (!sizes || !sub || !starts || n1 != n2 || n1 != n3) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "Datatype.createSubarray: sizes, subSizes and starts differ in length "
                     "(MPI_ERR_ARG)");
        goto out;
    }
    int rc = MPI_Type_create_subarray(n1, sizes, sub, starts, order, UJ_TYPE(old), &t);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
out:
    uj_ints_free(sizes);
    uj_ints_free(sub);
    uj_ints_free(starts);
    return UJ_H(t);
}

JNIEXPORT jlong JNICALL Java_mpi_Datatype_resized(JNIEnv *env, jclass c, jlong old, jlong lb,
                                                  jlong ext)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_resized(UJ_TYPE(old), (MPI_Aint)lb, (MPI_Aint)ext, &t);
    return done(env, rc, t);
}

JNIEXPORT jlong JNICALL Java_mpi_Datatype_dupNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_dup(UJ_TYPE(h), &t);
    return done(env, rc, t);
}

JNIEXPORT void JNICALL Java_mpi_Datatype_commitNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Datatype t = UJ_TYPE(h);
    int rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Datatype_freeNative(JNIEnv *env, jclass c, jlong h)
{
    MPI_Datatype t = UJ_TYPE(h);
    int rc = MPI_Type_free(&t);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Datatype_extents(JNIEnv *env, jclass c, jlong h, jlongArray out)
{
    MPI_Aint lb, ext, tlb, text;
    int rc = MPI_Type_get_extent(UJ_TYPE(h), &lb, &ext);
    if (rc == MPI_SUCCESS) rc = MPI_Type_get_true_extent(UJ_TYPE(h), &tlb, &text);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    jlong v[4] = {lb, ext, tlb, text};
    (*env)->SetLongArrayRegion(env, out, 0, 4, v);
}

JNIEXPORT jint JNICALL Java_mpi_Datatype_sizeNative(JNIEnv *env, jclass c, jlong h)
{
    int size = 0, rc = MPI_Type_size(UJ_TYPE(h), &size);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return size;
}

JNIEXPORT void JNICALL Java_mpi_Datatype_setNameNative(JNIEnv *env, jclass c, jlong h, jstring name)
{
    const char *s = (*env)->GetStringUTFChars(env, name, NULL);
    if (!s) return;
    int rc = MPI_Type_set_name(UJ_TYPE(h), s);
    (*env)->ReleaseStringUTFChars(env, name, s);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jstring JNICALL Java_mpi_Datatype_getNameNative(JNIEnv *env, jclass c, jlong h)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0, rc = MPI_Type_get_name(UJ_TYPE(h), name, &len);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), NULL;
    return (*env)->NewStringUTF(env, name);
}

JNIEXPORT jint JNICALL Java_mpi_Status_countNative(JNIEnv *env, jclass c, jlongArray data,
                                                   jlong type, jboolean elements)
{
    MPI_Status s;
    int n = 0, rc;
    uj_status_in(env, data, &s);
    rc = elements ? MPI_Get_elements(&s, UJ_TYPE(type), &n) : MPI_Get_count(&s, UJ_TYPE(type), &n);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return n;
}
