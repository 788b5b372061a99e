/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attr.c - user attributes on communicators (Comm.createKeyval, setAttr,
 * getAttr, deleteAttr, freeKeyval). As in Open MPI's binding, Java
 * serializes the value and C keeps the bytes: a duplicated communicator
 * gets its own copy of them, getAttr deserializes a new object, and the
 * callbacks never call into the JVM.
 */
#include <stdlib.h>
#include <string.h>

#include "ujava.h"

typedef struct attr {
    jsize n;
    unsigned char bytes[];
} attr_t;

static attr_t *attr_new(jsize n)
{
    attr_t *a = malloc(sizeof(*a) + (size_t)(n > 0 ? n : 1));
    if (a) a->n = n;
    return a;
}

static int attr_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key, (void)extra;
    const attr_t *a = in;
    attr_t *b = attr_new(a->n);
    if (!b) return MPI_ERR_NO_MEM;
    memcpy(b->bytes, a->bytes, (size_t)a->n);
    *(void **)out = b;
    *flag = 1;
    return MPI_SUCCESS;
}

static int attr_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    free(val);
    return MPI_SUCCESS;
}

JNIEXPORT jint JNICALL Java_mpi_Attrs_createKeyvalNative(JNIEnv *env, jclass c)
{
    int key = MPI_KEYVAL_INVALID;
    int rc = MPI_Comm_create_keyval(attr_copy, attr_delete, &key, NULL);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), MPI_KEYVAL_INVALID;
    return key;
}

JNIEXPORT void JNICALL Java_mpi_Attrs_freeKeyvalNative(JNIEnv *env, jclass c, jint key)
{
    int k = key;
    int rc = MPI_Comm_free_keyval(&k);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Attrs_setNative(JNIEnv *env, jclass c, jlong comm, jint key,
                                                jbyteArray val)
{
    jsize n = (*env)->GetArrayLength(env, val);
    attr_t *a = attr_new(n);
    if (!a) return uj_throw_msg(env, MPI_ERR_NO_MEM, "Comm.setAttr: out of memory");
    (*env)->GetByteArrayRegion(env, val, 0, n, (jbyte *)a->bytes);
    int rc = MPI_Comm_set_attr(UJ_COMM(comm), key, a);
    if (rc != MPI_SUCCESS) {
        free(a);
        uj_throw(env, rc);
    }
}

/* The serialized value, or null when the key has none on comm. */
JNIEXPORT jbyteArray JNICALL Java_mpi_Attrs_getNative(JNIEnv *env, jclass c, jlong comm, jint key)
{
    void *v = NULL;
    int flag = 0;
    int rc = MPI_Comm_get_attr(UJ_COMM(comm), key, &v, &flag);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), NULL;
    if (!flag || !v) return NULL;
    const attr_t *a = v;
    jbyteArray out = (*env)->NewByteArray(env, a->n);
    if (out) (*env)->SetByteArrayRegion(env, out, 0, a->n, (const jbyte *)a->bytes);
    return out;
}

JNIEXPORT void JNICALL Java_mpi_Attrs_deleteNative(JNIEnv *env, jclass c, jlong comm, jint key)
{
    int rc = MPI_Comm_delete_attr(UJ_COMM(comm), key);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}
