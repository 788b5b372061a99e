/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * op.c - user-defined reduction operations (mpi.Op with a UserFunction).
 *
 * MPI calls an MPI_User_function without saying which MPI_Op it belongs
 * to, so each Java Op takes one slot of a fixed table, and each slot has
 * its own C function (a trampoline) that knows its index and calls back
 * into that Op's Java object. The callback runs on whichever thread drives
 * the reduction; it attaches to the JVM if needed. Arrays are never pinned
 * around a reduction with a user operation (no JNI while pinned), see
 * Comm.reduceLike.
 */
#include <pthread.h>

#include "ujava.h"

#define UJ_OP_SLOTS 64

static struct {
    jobject op; /* global reference to the mpi.Op, NULL when free */
} slots[UJ_OP_SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static jmethodID op_callback;

static void dispatch(int slot, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    JNIEnv *env;
    bool attached = false;
    if ((*uj_vm)->GetEnv(uj_vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) {
        if ((*uj_vm)->AttachCurrentThread(uj_vm, (void **)&env, NULL) != JNI_OK) return;
        attached = true;
    }
    MPI_Aint lb = 0, ext = 0;
    MPI_Type_get_extent(*dt, &lb, &ext);
    jlong bytes = (jlong)*len * ext;
    /* An exception still pending from an earlier chunk: skip the rest; the
     * Java side reports the first failure once the MPI call returns. */
    if (!(*env)->ExceptionCheck(env) && slots[slot].op) {
        jobject a = (*env)->NewDirectByteBuffer(env, in, bytes);
        jobject b = (*env)->NewDirectByteBuffer(env, inout, bytes);
        if (a && b) (*env)->CallVoidMethod(env, slots[slot].op, op_callback, a, b, *len);
        if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
        if (a) (*env)->DeleteLocalRef(env, a);
        if (b) (*env)->DeleteLocalRef(env, b);
    }
    if (attached) (*uj_vm)->DetachCurrentThread(uj_vm);
}

/* Trampolines tramp00 ... tramp77: the two digits are the slot in octal
 * (0##i reads "12" as 012 = 10), so tramps[k] calls dispatch(k). */
// clang-format off
#define T(i) static void tramp##i(void *in, void *inout, int *len, MPI_Datatype *dt) \
             { dispatch(0##i, in, inout, len, dt); }
#define T8(i) T(i##0) T(i##1) T(i##2) T(i##3) T(i##4) T(i##5) T(i##6) T(i##7)
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#undef T
#define T(i) tramp##i,
static MPI_User_function *const tramps[UJ_OP_SLOTS] = {
    T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
};
#undef T
#undef T8
// clang-format on

JNIEXPORT jlong JNICALL Java_mpi_Op_createNative(JNIEnv *env, jobject self, jboolean commute)
{
    if (!op_callback) {
        jclass c = (*env)->GetObjectClass(env, self);
        op_callback = (*env)->GetMethodID(env, c, "callback",
                                          "(Ljava/nio/ByteBuffer;Ljava/nio/ByteBuffer;I)V");
        if (!op_callback) return 0;
    }
    int slot = -1;
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < UJ_OP_SLOTS && slot < 0; i++) {
        if (!slots[i].op) {
            slot = i;
            slots[i].op = (*env)->NewGlobalRef(env, self);
        }
    }
    pthread_mutex_unlock(&slots_lock);
    if (slot < 0) {
        uj_throw_msg(env, MPI_ERR_OP,
                     "Op: more than %d user operations exist at once; free some (MPI_ERR_OP)",
                     UJ_OP_SLOTS);
        return 0;
    }
    MPI_Op op = MPI_OP_NULL;
    int rc = MPI_Op_create(tramps[slot], commute, &op);
    if (rc != MPI_SUCCESS) {
        pthread_mutex_lock(&slots_lock);
        (*env)->DeleteGlobalRef(env, slots[slot].op);
        slots[slot].op = NULL;
        pthread_mutex_unlock(&slots_lock);
        uj_throw(env, rc);
        return 0;
    }
    return UJ_H(op);
}

JNIEXPORT void JNICALL Java_mpi_Op_freeNative(JNIEnv *env, jobject self, jlong h)
{
    MPI_Op op = UJ_OP(h);
    int rc = MPI_Op_free(&op);
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < UJ_OP_SLOTS; i++) {
        if (slots[i].op && (*env)->IsSameObject(env, slots[i].op, self)) {
            (*env)->DeleteGlobalRef(env, slots[i].op);
            slots[i].op = NULL;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}
