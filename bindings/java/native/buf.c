/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * buf.c - handing Java buffers to MPI calls (see ujava.h): direct buffers
 * by address, heap arrays pinned or copied through a per-thread scratch
 * pool, every buffer checked against the bytes the call will touch so a
 * wrong count is an MPIException rather than a write past a Java array.
 */
#include <stdlib.h>
#include <string.h>

#include "ujava.h"

/* Heap arrays spanning at least this many bytes are pinned, smaller ones
 * copied: the measured copy/pin crossover (docs/java.md). bench/java Calls
 * --pin measured the work of one call: pinning costs two entries into the
 * VM (about 45 ns here) whatever the size, the Java copy ~16 ns up to
 * 256 B and then the memcpy; copying is cheaper up to 2 KiB and dearer from
 * 4 KiB on, in every run. bench/java Crossover (bench/compare --bench
 * java_pin) checks it against the ping-pong on a quiet machine. Below the
 * crossover copying also keeps the collector free while the call waits.
 * MPI.setPinThreshold and -Dump.java.pinThreshold=N change it. */
jlong uj_pin_threshold = 4096;

/* A pinned array holds off the collector (GCLocker on JDK 17). Under
 * THREAD_MULTIPLE a thread blocked in MPI with a pinned array could wait
 * for a message that another thread of the same process cannot send until
 * a collection completes: a deadlock. So MULTIPLE copies always. */
bool uj_pin_allowed = true;

/* The copy path's pool: a few growable buffers per thread (sendRecv and
 * the collectives need two at once), kept for the thread's life so the
 * steady state allocates nothing. */
#define UJ_SCRATCH_SLOTS 4
static __thread struct {
    void *p;
    size_t cap;
    bool busy;
} scratch[UJ_SCRATCH_SLOTS];

int uj_span(MPI_Datatype dt, MPI_Count count, MPI_Aint *lo, MPI_Aint *hi)
{
    *lo = *hi = 0;
    if (count <= 0) return MPI_SUCCESS;
    MPI_Aint lb, ext, tlb, text;
    int rc = MPI_Type_get_extent(dt, &lb, &ext);
    if (rc == MPI_SUCCESS) rc = MPI_Type_get_true_extent(dt, &tlb, &text);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Aint first = 0, last = (MPI_Aint)(count - 1) * ext; /* element origins */
    if (ext < 0) {
        first = last;
        last = 0;
    }
    *lo = first + tlb;
    *hi = last + tlb + text;
    return MPI_SUCCESS;
}

static bool too_small(JNIEnv *env, const char *what, jint off, jlong len, MPI_Aint lo, MPI_Aint hi)
{
    if (off + lo >= 0 && off + hi <= len) return false;
    uj_throw_msg(env, MPI_ERR_BUFFER,
                 "%s: the buffer holds %lld bytes from its start, but count and datatype "
                 "need bytes [%lld, %lld) (MPI_ERR_BUFFER)",
                 what, (long long)(len - off), (long long)lo, (long long)hi);
    return true;
}

static int scratch_get(size_t n)
{
    for (int i = 0; i < UJ_SCRATCH_SLOTS; i++) {
        if (scratch[i].busy) continue;
        if (scratch[i].cap < n) {
            size_t cap = scratch[i].cap ? scratch[i].cap : 4096;
            while (cap < n)
                cap *= 2;
            void *p = realloc(scratch[i].p, cap);
            if (!p) return -1;
            scratch[i].p = p;
            scratch[i].cap = cap;
        }
        scratch[i].busy = true;
        return i;
    }
    return -1;
}

/* Copies between a heap array and scratch. The array is pinned only for
 * the memcpy, so no other JNI call happens while it is held. */
static bool copy_array(JNIEnv *env, jarray arr, jint at, void *mem, size_t n, bool to_array)
{
    if (n == 0) return true;
    char *a = (*env)->GetPrimitiveArrayCritical(env, arr, NULL);
    if (!a) return false;
    if (to_array)
        memcpy(a + at, mem, n);
    else
        memcpy(mem, a + at, n);
    (*env)->ReleasePrimitiveArrayCritical(env, arr, a, to_array ? 0 : JNI_ABORT);
    return true;
}

bool uj_buf_get(JNIEnv *env, uj_buf_t *b, jobject obj, jboolean direct, jint off, jlong len,
                MPI_Aint lo, MPI_Aint hi, int dir, bool allow_pin, const char *what)
{
    *b = (uj_buf_t){.slot = -1, .off = off, .lo = lo, .hi = hi, .dir = dir};
    if (!obj) {
        if (hi > lo) {
            uj_throw_msg(env, MPI_ERR_BUFFER, "%s: the buffer is null (MPI_ERR_BUFFER)", what);
            return false;
        }
        return true;
    }
    if (hi > lo && too_small(env, what, off, len, lo, hi)) return false;
    if (direct) {
        char *p = (*env)->GetDirectBufferAddress(env, obj);
        if (!p) {
            uj_throw_msg(env, MPI_ERR_BUFFER, "%s: not a direct buffer (MPI_ERR_BUFFER)", what);
            return false;
        }
        b->ptr = p + off;
        return true;
    }
    b->arr = (jarray)obj;
    size_t n = (size_t)(hi - lo);
    if (allow_pin && uj_pin_allowed &&
        (jlong)n >= __atomic_load_n(&uj_pin_threshold, __ATOMIC_RELAXED)) {
        b->pinned = (*env)->GetPrimitiveArrayCritical(env, b->arr, NULL);
        if (!b->pinned) return false; /* OutOfMemoryError pending */
        b->ptr = (char *)b->pinned + off;
        return true;
    }
    b->slot = scratch_get(n);
    if (b->slot < 0) {
        uj_throw_msg(env, MPI_ERR_NO_MEM, "%s: no memory for a %zu-byte copy of the array", what,
                     n);
        return false;
    }
    char *mem = scratch[b->slot].p;
    b->ptr = mem - lo;
    /* An output buffer is copied in too: a derived datatype with holes must
     * leave the array's bytes in the holes as they were. */
    if (!copy_array(env, b->arr, off + (jint)lo, mem, n, false)) {
        scratch[b->slot].busy = false;
        b->slot = -1;
        return false;
    }
    return true;
}

void uj_buf_put(JNIEnv *env, uj_buf_t *b)
{
    if (b->pinned) {
        (*env)->ReleasePrimitiveArrayCritical(env, b->arr, b->pinned,
                                              b->dir == UJ_IN ? JNI_ABORT : 0);
        b->pinned = NULL;
    } else if (b->slot >= 0) {
        if (b->dir & UJ_OUT)
            copy_array(env, b->arr, b->off + (jint)b->lo, scratch[b->slot].p,
                       (size_t)(b->hi - b->lo), true);
        scratch[b->slot].busy = false;
        b->slot = -1;
    }
}

bool uj_buf_count(JNIEnv *env, uj_buf_t *b, jobject obj, jboolean direct, jint off, jlong len,
                  int count, MPI_Datatype dt, int dir, bool allow_pin, const char *what)
{
    MPI_Aint lo = 0, hi = 0;
    *b = (uj_buf_t){.slot = -1};
    if (count < 0) {
        uj_throw_msg(env, MPI_ERR_COUNT, "%s: count %d is negative (MPI_ERR_COUNT)", what, count);
        return false;
    }
    int rc = uj_span(dt, count, &lo, &hi);
    if (rc != MPI_SUCCESS) {
        uj_throw(env, rc);
        return false;
    }
    return uj_buf_get(env, b, obj, direct, off, len, lo, hi, dir, allow_pin, what);
}

void *uj_direct(JNIEnv *env, jobject buf, jlong len, int count, MPI_Datatype dt, const char *what)
{
    uj_buf_t b;
    if (!buf) {
        if (count == 0) return NULL;
    }
    if (!uj_buf_count(env, &b, buf, JNI_TRUE, 0, len, count, dt, UJ_INOUT, false, what))
        return NULL;
    return b.ptr;
}

/* Direct.java checks its own reading of a buffer's address against this. */
JNIEXPORT jlong JNICALL Java_mpi_Direct_addressNative(JNIEnv *env, jclass c, jobject buf)
{
    return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buf);
}
