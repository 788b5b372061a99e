/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ujava.h - what the JNI files of the Java binding share.
 *
 * The binding is thin: Java objects hold the C handle (a pointer to one of
 * ump's MPI objects) as a long, the C side calls the MPI C interface, and a
 * failed call becomes an mpi.MPIException in one place (uj_throw). The
 * communicators the binding hands out carry MPI_ERRORS_RETURN unless the
 * program sets another handler, so failures come back as codes.
 *
 * Buffers (uj_buf_*): a direct java.nio buffer is passed by address, with
 * no copy, for blocking and non-blocking calls alike. A heap array in a
 * blocking call is either pinned (GetPrimitiveArrayCritical, for spans of
 * at least the pin threshold) or copied through a per-thread scratch pool
 * (the copy path of Javia-I). While an array is pinned no JNI function may
 * be called, so every native call acquires its buffers, calls MPI, releases
 * them, and only then throws.
 */
#ifndef UJAVA_H
#define UJAVA_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#define UJ_H(x)    ((jlong)(intptr_t)(x))
#define UJ_COMM(h) ((MPI_Comm)(intptr_t)(h))
#define UJ_TYPE(h) ((MPI_Datatype)(intptr_t)(h))
#define UJ_OP(h)   ((MPI_Op)(intptr_t)(h))
#define UJ_REQ(h)  ((MPI_Request)(intptr_t)(h))
#define UJ_GRP(h)  ((MPI_Group)(intptr_t)(h))
#define UJ_INFO(h) ((MPI_Info)(intptr_t)(h))
#define UJ_MSG(h)  ((MPI_Message)(intptr_t)(h))
#define UJ_ERRH(h) ((MPI_Errhandler)(intptr_t)(h))

/* Status is carried to Java in a long[UJ_ST_LEN]. */
enum { UJ_ST_SOURCE, UJ_ST_TAG, UJ_ST_ERROR, UJ_ST_CANCELLED, UJ_ST_COUNT, UJ_ST_INDEX, UJ_ST_LEN };

/* Direction of a buffer: what the MPI call does with it. */
enum { UJ_IN = 1, UJ_OUT = 2, UJ_INOUT = 3 };

typedef struct uj_buf {
    void *ptr;    /* what MPI gets: the element at the buffer's start */
    jarray arr;   /* a heap array (pinned or copied), else NULL */
    void *pinned; /* GetPrimitiveArrayCritical's pointer */
    int slot;     /* scratch slot of the copy path, or -1 */
    jint off;     /* byte offset of the start in the array */
    MPI_Aint lo;  /* bytes touched, relative to the start: [lo, hi) */
    MPI_Aint hi;
    int dir;
} uj_buf_t;

/* Throws an MPIException for an MPI error code rc (class, code and ump's
 * message). Returns rc so callers can `return uj_throw(...)`. */
int uj_throw(JNIEnv *env, int rc);
/* In a native method returning a number or handle: a failed MPI call
 * throws and returns 0 (`env` must be in scope). */
#define UJ_CHECK(call)                                                                             \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            uj_throw(env, rc_);                                                                    \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)
/* Throws an MPIException of class cls with a message of the binding's own. */
void uj_throw_msg(JNIEnv *env, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The byte range [lo, hi) that count elements of dt touch from their start.
 * Returns MPI_SUCCESS or the MPI error of the extent queries. */
int uj_span(MPI_Datatype dt, MPI_Count count, MPI_Aint *lo, MPI_Aint *hi);

/* Makes b ready for a call: obj is a direct buffer (direct true), a
 * primitive array or NULL; off/len are the start and the length in bytes
 * (Java checked them against the array); [lo, hi) the bytes the call
 * touches. allow_pin false forces the copy path (calls that run Java code,
 * such as reductions with a user operation). Returns false with an
 * exception pending when the buffer is too small or the copy fails; `what`
 * names the call and the argument in that message. */
bool uj_buf_get(JNIEnv *env, uj_buf_t *b, jobject obj, jboolean direct, jint off, jlong len,
                MPI_Aint lo, MPI_Aint hi, int dir, bool allow_pin, const char *what);
/* Copies results back (copy path, UJ_OUT) and unpins or frees the scratch. */
void uj_buf_put(JNIEnv *env, uj_buf_t *b);
/* uj_span + uj_buf_get: the common case of count elements of dt. */
bool uj_buf_count(JNIEnv *env, uj_buf_t *b, jobject obj, jboolean direct, jint off, jlong len,
                  int count, MPI_Datatype dt, int dir, bool allow_pin, const char *what);

/* uj_buf_get for count elements of dt, where count may be an MPI_Count;
 * a negative count is an MPI_ERR_COUNT naming `what`. */
bool uj_buf_n(JNIEnv *env, uj_buf_t *b, jobject obj, jboolean d, jint off, jlong len,
              MPI_Count count, MPI_Datatype dt, int dir, bool pin, const char *what);
/* The span [lo, hi) of a v-collective buffer: blocks of counts[i] elements
 * of dt at displs[i] extents, i < n; nc and nd are the arrays' lengths.
 * Returns 0, or -1 with an exception pending. */
int uj_vspan(JNIEnv *env, MPI_Datatype dt, const int *counts, const int *displs, int n, int nc,
             int nd, MPI_Aint *lo, MPI_Aint *hi, const char *what);

/* The address of a direct buffer (non-blocking calls), or NULL with an
 * exception pending when it is not direct or too small for count of dt. */
void *uj_direct(JNIEnv *env, jobject buf, jlong len, int count, MPI_Datatype dt, const char *what);

/* Writes an MPI_Status into a Java long[UJ_ST_LEN] (st may be NULL). */
void uj_status_out(JNIEnv *env, jlongArray st, const MPI_Status *s, int index);
/* Rebuilds an MPI_Status from the Java long[]. */
void uj_status_in(JNIEnv *env, jlongArray st, MPI_Status *s);

/* Java int[] -> C int array (malloc'd) and back; NULL arrays give NULL. */
int *uj_ints(JNIEnv *env, jintArray a, int *n);
void uj_ints_free(int *p);

/* Pin threshold in bytes: heap arrays of at least this span are pinned. */
extern jlong uj_pin_threshold;
/* False under MPI_THREAD_MULTIPLE: heap arrays are then always copied. */
extern bool uj_pin_allowed;

extern JavaVM *uj_vm;

#endif
