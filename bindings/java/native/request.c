/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.c - mpi.Request and mpi.Prequest: wait, test and their array
 * forms. Java passes the address of a per-thread direct buffer
 * (ReqScratch.java): n handles, which are the MPI_Request array MPI reads
 * and updates in place (a completed request becomes MPI_REQUEST_NULL),
 * then n status records of UJ_ST_LEN longs, which C fills. No Java array
 * crosses and nothing is allocated for the usual window of requests.
 */
#include <stdlib.h>

#include "ujava.h"

_Static_assert(sizeof(MPI_Request) == sizeof(jlong), "a handle is one jlong in the scratch");

/* Statuses on the stack up to this many requests; more are allocated. */
enum { STACK_STATUSES = 64 };

static MPI_Request *reqs(jlong addr)
{
    return (MPI_Request *)(intptr_t)addr;
}

/* Record i of a scratch of n requests. */
static jlong *record(jlong addr, int n, int i)
{
    return (jlong *)(intptr_t)addr + n + (size_t)i * UJ_ST_LEN;
}

static void put_status(jlong *v, const MPI_Status *s, int index)
{
    v[UJ_ST_SOURCE] = s->MPI_SOURCE;
    v[UJ_ST_TAG] = s->MPI_TAG;
    v[UJ_ST_ERROR] = s->MPI_ERROR;
    v[UJ_ST_CANCELLED] = s->ump_cancelled;
    v[UJ_ST_COUNT] = s->ump_count;
    v[UJ_ST_INDEX] = index;
}

/* n statuses: on the stack when few, else allocated (NULL with an
 * exception pending when that fails). MPI sets a status's MPI_ERROR only
 * when it returns MPI_ERR_IN_STATUS: until then it says MPI_SUCCESS. */
static MPI_Status *statuses(JNIEnv *env, MPI_Status *stack, int n)
{
    MPI_Status *s = n <= STACK_STATUSES ? stack : malloc(sizeof(MPI_Status) * (size_t)n);
    if (!s) {
        uj_throw_msg(env, MPI_ERR_NO_MEM, "Request: no memory for %d statuses", n);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        s[i].MPI_ERROR = MPI_SUCCESS;
    return s;
}

static void statuses_free(MPI_Status *s, MPI_Status *stack)
{
    if (s != stack) free(s);
}

JNIEXPORT void JNICALL Java_mpi_Request_waitNative(JNIEnv *env, jclass c, jlong addr)
{
    MPI_Status s = {.MPI_ERROR = MPI_SUCCESS}; /* MPI_Wait need not set it */
    int rc = MPI_Wait(reqs(addr), &s);
    put_status(record(addr, 1, 0), &s, MPI_UNDEFINED);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jboolean JNICALL Java_mpi_Request_testNative(JNIEnv *env, jclass c, jlong addr)
{
    MPI_Status s = {.MPI_ERROR = MPI_SUCCESS};
    int flag = 0, rc = MPI_Test(reqs(addr), &flag, &s);
    if (flag) put_status(record(addr, 1, 0), &s, MPI_UNDEFINED);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return flag != 0;
}

JNIEXPORT jboolean JNICALL Java_mpi_Request_getStatusNative(JNIEnv *env, jclass c, jlong addr)
{
    MPI_Status s = {.MPI_ERROR = MPI_SUCCESS};
    int flag = 0, rc = MPI_Request_get_status(*reqs(addr), &flag, &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), JNI_FALSE;
    if (flag) put_status(record(addr, 1, 0), &s, MPI_UNDEFINED);
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

JNIEXPORT void JNICALL Java_mpi_Request_startAllNative(JNIEnv *env, jclass c, jlong addr, jint n)
{
    int rc = MPI_Startall(n, reqs(addr));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* waitAll (want false: no statuses, MPI_STATUSES_IGNORE) and
 * waitAllStatus (want true: record i gets request i's, index i). */
JNIEXPORT void JNICALL Java_mpi_Request_waitAllNative(JNIEnv *env, jclass c, jlong addr, jint n,
                                                      jboolean want)
{
    if (!want) {
        int rc = MPI_Waitall(n, reqs(addr), MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) uj_throw(env, rc);
        return;
    }
    MPI_Status stack[STACK_STATUSES], *s = statuses(env, stack, n);
    if (!s) return;
    int rc = MPI_Waitall(n, reqs(addr), s);
    for (int i = 0; i < n; i++)
        put_status(record(addr, n, i), &s[i], i);
    statuses_free(s, stack);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jboolean JNICALL Java_mpi_Request_testAllNative(JNIEnv *env, jclass c, jlong addr, jint n,
                                                          jboolean want)
{
    MPI_Status stack[STACK_STATUSES], *s = want ? statuses(env, stack, n) : MPI_STATUSES_IGNORE;
    if (want && !s) return JNI_FALSE;
    int flag = 0, rc = MPI_Testall(n, reqs(addr), &flag, s);
    if (flag && want)
        for (int i = 0; i < n; i++)
            put_status(record(addr, n, i), &s[i], i);
    if (want) statuses_free(s, stack);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return flag != 0;
}

/* waitAny (test false) / testAny (test true): the index, MPI_UNDEFINED when
 * every request is null, -1 when testAny found nothing complete; the
 * status, with its index, in record 0. */
JNIEXPORT jint JNICALL Java_mpi_Request_anyNative(JNIEnv *env, jclass c, jlong addr, jint n,
                                                  jboolean test)
{
    int idx = MPI_UNDEFINED, flag = 1;
    MPI_Status s = {.MPI_ERROR = MPI_SUCCESS};
    int rc =
        test ? MPI_Testany(n, reqs(addr), &idx, &flag, &s) : MPI_Waitany(n, reqs(addr), &idx, &s);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), MPI_UNDEFINED;
    if (!flag) return -1;
    if (idx != MPI_UNDEFINED) put_status(record(addr, n, 0), &s, idx);
    return idx;
}

/* waitSome / testSome: the number done (MPI_UNDEFINED if all are null);
 * their statuses in records 0 ... done - 1, each with its request's index. */
JNIEXPORT jint JNICALL Java_mpi_Request_someNative(JNIEnv *env, jclass c, jlong addr, jint n,
                                                   jboolean test)
{
    int outc = 0, idx_stack[STACK_STATUSES];
    MPI_Status stack[STACK_STATUSES], *s = statuses(env, stack, n);
    int *idx = n <= STACK_STATUSES ? idx_stack : malloc(sizeof(int) * (size_t)n);
    if (!s || !idx) {
        if (s && !idx) uj_throw_msg(env, MPI_ERR_NO_MEM, "Request: no memory for %d indices", n);
        if (s) statuses_free(s, stack);
        return 0;
    }
    int rc = test ? MPI_Testsome(n, reqs(addr), &outc, idx, s)
                  : MPI_Waitsome(n, reqs(addr), &outc, idx, s);
    if (rc == MPI_SUCCESS && outc != MPI_UNDEFINED)
        for (int i = 0; i < outc; i++)
            put_status(record(addr, n, i), &s[i], idx[i]);
    statuses_free(s, stack);
    if (idx != idx_stack) free(idx);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return outc;
}
