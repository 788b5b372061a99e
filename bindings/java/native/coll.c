/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll.c - the collectives of mpi.Comm / mpi.Intracomm. Each native entry
 * works out which bytes of each buffer the collective touches on this rank
 * (nothing for the arguments MPI ignores there, such as the receive buffer
 * of a gather off the root), acquires the buffers, calls MPI, releases.
 * The non-blocking forms get direct buffers only (checked in Java) and
 * return the request through req[0].
 */
#include <stdlib.h>

#include "ujava.h"

int uj_vspan(JNIEnv *env, MPI_Datatype dt, const int *counts, const int *displs, int n, int nc,
             int nd, MPI_Aint *lo, MPI_Aint *hi, const char *what)
{
    *lo = *hi = 0;
    if (!counts || !displs || nc < n || nd < n) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "%s: counts and displacements need %d entries (one per rank), got %d and %d "
                     "(MPI_ERR_ARG)",
                     what, n, counts ? nc : 0, displs ? nd : 0);
        return -1;
    }
    MPI_Aint lb, ext;
    int rc = MPI_Type_get_extent(dt, &lb, &ext);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), -1;
    bool any = false;
    for (int i = 0; i < n; i++) {
        MPI_Aint l, h;
        if (counts[i] <= 0) continue;
        rc = uj_span(dt, counts[i], &l, &h);
        if (rc != MPI_SUCCESS) return uj_throw(env, rc), -1;
        l += (MPI_Aint)displs[i] * ext;
        h += (MPI_Aint)displs[i] * ext;
        if (!any || l < *lo) *lo = l;
        if (!any || h > *hi) *hi = h;
        any = true;
    }
    return 0;
}

bool uj_buf_n(JNIEnv *env, uj_buf_t *b, jobject obj, jboolean d, jint off, jlong len,
              MPI_Count count, MPI_Datatype dt, int dir, bool pin, const char *what)
{
    MPI_Aint lo, hi;
    *b = (uj_buf_t){.slot = -1};
    if (count < 0) {
        uj_throw_msg(env, MPI_ERR_COUNT, "%s: count %lld is negative (MPI_ERR_COUNT)", what,
                     (long long)count);
        return false;
    }
    if (count == 0 || dt == MPI_DATATYPE_NULL)
        return uj_buf_get(env, b, obj, d, off, len, 0, 0, dir, pin, what);
    int rc = uj_span(dt, count, &lo, &hi);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), false;
    return uj_buf_get(env, b, obj, d, off, len, lo, hi, dir, pin, what);
}

/* Who this rank is in a collective. On an intercommunicator the blocks
 * count per member of the other group, the root passes MPI_ROOT, the rest
 * of its group MPI_PROC_NULL (they pass no buffer), and the other group
 * the root's rank there (their send buffers are read, as at non-roots of
 * an intracommunicator). */
typedef struct shape {
    int rank, size; /* in the local group */
    int peers;      /* ranks a block goes to or comes from: the remote group's size */
    bool root;      /* this rank is the root of a rooted collective */
    bool sends;     /* this rank's send side of a rooted collective is used */
} shape_t;

static int comm_shape(JNIEnv *env, MPI_Comm comm, int root, shape_t *sh)
{
    int inter = 0;
    int rc = MPI_Comm_rank(comm, &sh->rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(comm, &sh->size);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_test_inter(comm, &inter);
    sh->peers = sh->size;
    if (rc == MPI_SUCCESS && inter) rc = MPI_Comm_remote_size(comm, &sh->peers);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc);
    sh->root = inter ? root == MPI_ROOT : sh->rank == root;
    sh->sends = inter ? root >= 0 : true;
    return rc;
}

static void finish(JNIEnv *env, int rc, uj_buf_t *s, uj_buf_t *r, jlongArray req, MPI_Request q)
{
    if (r) uj_buf_put(env, r);
    if (s) uj_buf_put(env, s);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    if (req) {
        jlong h = UJ_H(q);
        (*env)->SetLongArrayRegion(env, req, 0, 1, &h);
    }
}

JNIEXPORT void JNICALL Java_mpi_Comm_barrierNative(JNIEnv *env, jclass c, jlong comm)
{
    int rc = MPI_Barrier(UJ_COMM(comm));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jlong JNICALL Java_mpi_Comm_iBarrierNative(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = MPI_Ibarrier(UJ_COMM(comm), &q);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return UJ_H(q);
}

JNIEXPORT void JNICALL Java_mpi_Comm_bcastNative(JNIEnv *env, jclass c, jlong comm, jobject buf,
                                                 jboolean d, jint off, jlong len, jint count,
                                                 jlong type, jint root, jboolean nb, jlongArray req)
{
    uj_buf_t b;
    MPI_Request q = MPI_REQUEST_NULL;
    /* MPI_PROC_NULL: the rest of the root's group on an intercommunicator
     * passes no buffer (on an intracommunicator MPI refuses the root). */
    MPI_Count n = root == MPI_PROC_NULL ? 0 : count;
    if (!uj_buf_n(env, &b, buf, d, off, len, n, UJ_TYPE(type), UJ_INOUT, true, "Comm.bcast"))
        return;
    int rc = nb ? MPI_Ibcast(b.ptr, count, UJ_TYPE(type), root, UJ_COMM(comm), &q)
                : MPI_Bcast(b.ptr, count, UJ_TYPE(type), root, UJ_COMM(comm));
    finish(env, rc, NULL, &b, nb ? req : NULL, q);
}

/* The fast paths of blocking bcast, reduce and allreduce: Java checked that
 * each direct buffer holds count elements of type (Buf.fast), so the call
 * needs no buffer handling here; 0 as the send address is MPI_IN_PLACE, as
 * the receive address no buffer (a reduce's other ranks). */
JNIEXPORT void JNICALL Java_mpi_Comm_bcastFast(JNIEnv *env, jclass c, jlong comm, jlong addr,
                                               jint count, jlong type, jint root)
{
    int rc = MPI_Bcast((void *)(intptr_t)addr, count, UJ_TYPE(type), root, UJ_COMM(comm));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT void JNICALL Java_mpi_Comm_reduceFast(JNIEnv *env, jclass c, jint which, jlong comm,
                                                jlong saddr, jlong raddr, jint count, jlong type,
                                                jlong op, jint root)
{
    const void *s = saddr ? (const void *)(intptr_t)saddr : MPI_IN_PLACE;
    void *r = (void *)(intptr_t)raddr;
    int rc = which ? MPI_Allreduce(s, r, count, UJ_TYPE(type), UJ_OP(op), UJ_COMM(comm))
                   : MPI_Reduce(s, r, count, UJ_TYPE(type), UJ_OP(op), root, UJ_COMM(comm));
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

static const char *g_name[] = {"Comm.gather", "Comm.scatter", "Comm.allGather", "Comm.allToAll"};

/* which: 0 gather, 1 scatter, 2 allgather, 3 alltoall. inPlace: the send
 * buffer is MPI_IN_PLACE (gather, allgather) or the receive buffer is
 * (scatter, at the root). */
JNIEXPORT void JNICALL Java_mpi_Comm_gatherNative(JNIEnv *env, jclass c, jint which, jlong comm,
                                                  jboolean inPlace, jobject sbuf, jboolean sd,
                                                  jint soff, jlong slen, jint scount, jlong stype,
                                                  jobject rbuf, jboolean rd, jint roff, jlong rlen,
                                                  jint rcount, jlong rtype, jint root, jboolean nb,
                                                  jlongArray req)
{
    shape_t sh;
    MPI_Comm cm = UJ_COMM(comm);
    MPI_Datatype st = UJ_TYPE(stype), rt = UJ_TYPE(rtype);
    MPI_Request q = MPI_REQUEST_NULL;
    const char *what = g_name[which & 3];
    if (comm_shape(env, cm, root, &sh) != MPI_SUCCESS) return;
    MPI_Count sn = 0, rn = 0;
    switch (which) {
    case 0:
        sn = inPlace || !sh.sends ? 0 : scount;
        rn = sh.root ? (MPI_Count)rcount * sh.peers : 0;
        break;
    case 1:
        sn = sh.root ? (MPI_Count)scount * sh.peers : 0;
        rn = inPlace || !sh.sends ? 0 : rcount;
        break;
    case 2:
        sn = inPlace ? 0 : scount;
        rn = (MPI_Count)rcount * sh.peers;
        break;
    default:
        sn = (MPI_Count)scount * sh.peers;
        rn = (MPI_Count)rcount * sh.peers;
        break;
    }
    bool s_ip = inPlace && which != 1, r_ip = inPlace && which == 1;
    uj_buf_t sb, rb;
    if (!uj_buf_n(env, &sb, sbuf, sd, soff, slen, sn, st, UJ_IN, true, what)) return;
    if (!uj_buf_n(env, &rb, rbuf, rd, roff, rlen, rn, rt, UJ_OUT, true, what)) {
        uj_buf_put(env, &sb);
        return;
    }
    void *sp = s_ip ? MPI_IN_PLACE : sb.ptr, *rp = r_ip ? MPI_IN_PLACE : rb.ptr;
    int rc;
    if (s_ip) st = MPI_DATATYPE_NULL;
    switch (which * 2 + (nb ? 1 : 0)) {
    case 0:
        rc = MPI_Gather(sp, scount, st, rp, rcount, rt, root, cm);
        break;
    case 1:
        rc = MPI_Igather(sp, scount, st, rp, rcount, rt, root, cm, &q);
        break;
    case 2:
        rc = MPI_Scatter(sp, scount, st, rp, rcount, rt, root, cm);
        break;
    case 3:
        rc = MPI_Iscatter(sp, scount, st, rp, rcount, rt, root, cm, &q);
        break;
    case 4:
        rc = MPI_Allgather(sp, scount, st, rp, rcount, rt, cm);
        break;
    case 5:
        rc = MPI_Iallgather(sp, scount, st, rp, rcount, rt, cm, &q);
        break;
    case 6:
        rc = MPI_Alltoall(sp, scount, st, rp, rcount, rt, cm);
        break;
    default:
        rc = MPI_Ialltoall(sp, scount, st, rp, rcount, rt, cm, &q);
        break;
    }
    finish(env, rc, &sb, &rb, nb ? req : NULL, q);
}

static const char *v_name[] = {"Comm.gatherv", "Comm.scatterv", "Comm.allGatherv",
                               "Comm.allToAllv"};

/* which: 0 gatherv, 1 scatterv, 2 allgatherv, 3 alltoallv. Non-blocking
 * when keep is not NULL: a direct int buffer of 4 x size entries, held by
 * the Java Request, into which the counts and displacements are copied,
 * since MPI reads them until the operation completes. */
JNIEXPORT void JNICALL Java_mpi_Comm_gathervNative(
    JNIEnv *env, jclass c, jint which, jlong comm, jboolean sInPlace, jobject sbuf, jboolean sd,
    jint soff, jlong slen, jint scount, jintArray jscounts, jintArray jsdispls, jlong stype,
    jboolean rInPlace, jobject rbuf, jboolean rd, jint roff, jlong rlen, jint rcount,
    jintArray jrcounts, jintArray jrdispls, jlong rtype, jint root, jobject keep, jlongArray req)
{
    int nsc, nsd, nrc, nrd;
    shape_t sh;
    MPI_Comm cm = UJ_COMM(comm);
    MPI_Datatype st = UJ_TYPE(stype), rt = UJ_TYPE(rtype);
    const char *what = v_name[which & 3];
    if (comm_shape(env, cm, root, &sh) != MPI_SUCCESS) return;
    bool is_root = sh.root;
    int size = sh.peers;
    int *scounts = uj_ints(env, jscounts, &nsc), *sdispls = uj_ints(env, jsdispls, &nsd);
    int *rcounts = uj_ints(env, jrcounts, &nrc), *rdispls = uj_ints(env, jrdispls, &nrd);
    uj_buf_t sb = {.slot = -1}, rb = {.slot = -1};
    bool have_s = false, have_r = false;
    MPI_Aint lo = 0, hi = 0;
    int rc = MPI_SUCCESS;
    if ((*env)->ExceptionCheck(env)) goto out;

    /* send side */
    bool sv = which == 3 || (which == 1 && is_root);
    if (sv) {
        if (uj_vspan(env, st, scounts, sdispls, size, nsc, nsd, &lo, &hi, what)) goto out;
        if (!uj_buf_get(env, &sb, sbuf, sd, soff, slen, lo, hi, UJ_IN, true, what)) goto out;
    } else {
        MPI_Count n = (sInPlace || which == 1 || (which == 0 && !sh.sends)) ? 0 : scount;
        if (!uj_buf_n(env, &sb, sbuf, sd, soff, slen, n, st, UJ_IN, true, what)) goto out;
    }
    have_s = true;
    /* receive side */
    bool rv = which == 3 || which == 2 || (which == 0 && is_root);
    if (rv) {
        if (uj_vspan(env, rt, rcounts, rdispls, size, nrc, nrd, &lo, &hi, what)) goto out;
        if (!uj_buf_get(env, &rb, rbuf, rd, roff, rlen, lo, hi, sInPlace ? UJ_INOUT : UJ_OUT, true,
                        what))
            goto out;
    } else {
        MPI_Count n = (rInPlace || which == 0 || !sh.sends) ? 0 : rcount;
        if (!uj_buf_n(env, &rb, rbuf, rd, roff, rlen, n, rt, UJ_OUT, true, what)) goto out;
    }
    have_r = true;

    void *sp = sInPlace ? MPI_IN_PLACE : sb.ptr, *rp = rInPlace ? MPI_IN_PLACE : rb.ptr;
    if (keep) {
        int *k = (*env)->GetDirectBufferAddress(env, keep);
        if (!k || (*env)->GetDirectBufferCapacity(env, keep) < 4L * size) {
            uj_throw_msg(env, MPI_ERR_INTERN, "%s: no room for the counts", what);
            goto out;
        }
        const int *src[4] = {scounts, sdispls, rcounts, rdispls};
        const int nsrc[4] = {nsc, nsd, nrc, nrd};
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < size; i++)
                k[a * size + i] = src[a] && i < nsrc[a] ? src[a][i] : 0;
        int *ksc = src[0] ? k : NULL, *ksd = src[1] ? k + size : NULL;
        int *krc = src[2] ? k + 2 * size : NULL, *krd = src[3] ? k + 3 * size : NULL;
        MPI_Request q = MPI_REQUEST_NULL;
        switch (which) {
        case 0:
            rc = MPI_Igatherv(sp, scount, st, rp, krc, krd, rt, root, cm, &q);
            break;
        case 1:
            rc = MPI_Iscatterv(sp, ksc, ksd, st, rp, rcount, rt, root, cm, &q);
            break;
        case 2:
            rc = MPI_Iallgatherv(sp, scount, st, rp, krc, krd, rt, cm, &q);
            break;
        default:
            rc = MPI_Ialltoallv(sp, ksc, ksd, st, rp, krc, krd, rt, cm, &q);
            break;
        }
        if (rc == MPI_SUCCESS) {
            jlong h = UJ_H(q);
            (*env)->SetLongArrayRegion(env, req, 0, 1, &h);
        }
        goto out;
    }
    switch (which) {
    case 0:
        rc = MPI_Gatherv(sp, scount, st, rp, rcounts, rdispls, rt, root, cm);
        break;
    case 1:
        rc = MPI_Scatterv(sp, scounts, sdispls, st, rp, rcount, rt, root, cm);
        break;
    case 2:
        rc = MPI_Allgatherv(sp, scount, st, rp, rcounts, rdispls, rt, cm);
        break;
    default:
        rc = MPI_Alltoallv(sp, scounts, sdispls, st, rp, rcounts, rdispls, rt, cm);
        break;
    }
out:
    if (have_r) uj_buf_put(env, &rb);
    if (have_s) uj_buf_put(env, &sb);
    uj_ints_free(scounts);
    uj_ints_free(sdispls);
    uj_ints_free(rcounts);
    uj_ints_free(rdispls);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

static const char *r_name[] = {
    "Comm.reduce",    "Comm.allReduce",   "Comm.reduceScatter", "Comm.reduceScatterBlock",
    "Intracomm.scan", "Intracomm.exScan", "Comm.reduceLocal"};
static const char *ir_name[] = {
    "Comm.iReduce",    "Comm.iAllReduce",   "Comm.iReduceScatter", "Comm.iReduceScatterBlock",
    "Intracomm.iScan", "Intracomm.iExScan", "Comm.reduceLocal"};

/* which: 0 reduce, 1 allreduce, 2 reduce_scatter, 3 reduce_scatter_block,
 * 4 scan, 5 exscan, 6 reduce_local. With a user operation nothing is
 * pinned: the operation calls back into Java. */
JNIEXPORT void JNICALL Java_mpi_Comm_reduceNative(JNIEnv *env, jclass c, jint which, jlong comm,
                                                  jboolean inPlace, jobject sbuf, jboolean sd,
                                                  jint soff, jlong slen, jobject rbuf, jboolean rd,
                                                  jint roff, jlong rlen, jint count,
                                                  jintArray jcounts, jlong type, jlong op,
                                                  jboolean userOp, jint root, jboolean nb,
                                                  jobject keep, jlongArray req)
{
    int ncounts = 0;
    shape_t sh;
    MPI_Comm cm = UJ_COMM(comm);
    MPI_Datatype dt = UJ_TYPE(type);
    MPI_Request q = MPI_REQUEST_NULL;
    const char *what = (nb ? ir_name : r_name)[which >= 0 && which <= 6 ? which : 0];
    bool pin = !userOp;
    if (comm_shape(env, cm, which == 0 ? root : 0, &sh) != MPI_SUCCESS) return;
    int rank = sh.rank, size = sh.size; /* the counts of a reduce-scatter are per local rank */
    int *counts = NULL;
    MPI_Count total = count, mine = count;
    if (which == 2) {
        counts = uj_ints(env, jcounts, &ncounts);
        if (!counts || ncounts < size) {
            if (!(*env)->ExceptionCheck(env))
                uj_throw_msg(env, MPI_ERR_ARG,
                             "%s: recvcounts needs %d entries (one per rank), got %d "
                             "(MPI_ERR_ARG)",
                             what, size, ncounts);
            uj_ints_free(counts);
            return;
        }
        total = 0;
        for (int i = 0; i < size; i++)
            total += counts[i];
        mine = counts[rank];
    } else if (which == 3) {
        total = (MPI_Count)count * size;
    }
    MPI_Count sn = inPlace || !sh.sends ? 0 : total;
    MPI_Count rn = which == 0 ? (sh.root ? count : 0) : (inPlace ? total : mine);
    if (which == 6) sn = rn = count;
    uj_buf_t sb, rb;
    if (!uj_buf_n(env, &sb, sbuf, sd, soff, slen, sn, dt, UJ_IN, pin, what)) {
        uj_ints_free(counts);
        return;
    }
    if (!uj_buf_n(env, &rb, rbuf, rd, roff, rlen, rn, dt, inPlace || which == 6 ? UJ_INOUT : UJ_OUT,
                  pin, what)) {
        uj_buf_put(env, &sb);
        uj_ints_free(counts);
        return;
    }
    void *sp = inPlace ? MPI_IN_PLACE : sb.ptr;
    MPI_Op o = UJ_OP(op);
    int rc;
    if (nb && counts) {
        /* MPI reads the counts until completion: they go to a direct
         * buffer the Java Request holds. */
        int *k = keep ? (*env)->GetDirectBufferAddress(env, keep) : NULL;
        if (!k || (*env)->GetDirectBufferCapacity(env, keep) < size) {
            finish(env, MPI_SUCCESS, &sb, &rb, NULL, q);
            uj_ints_free(counts);
            uj_throw_msg(env, MPI_ERR_INTERN, "%s: no room for the counts", what);
            return;
        }
        for (int i = 0; i < size; i++)
            k[i] = counts[i];
        uj_ints_free(counts);
        counts = k;
    }
    int *own = nb ? NULL : counts; /* the malloc'd copy, when counts is not the request's */
    switch (which * 2 + (nb ? 1 : 0)) {
    case 0:
        rc = MPI_Reduce(sp, rb.ptr, count, dt, o, root, cm);
        break;
    case 1:
        rc = MPI_Ireduce(sp, rb.ptr, count, dt, o, root, cm, &q);
        break;
    case 2:
        rc = MPI_Allreduce(sp, rb.ptr, count, dt, o, cm);
        break;
    case 3:
        rc = MPI_Iallreduce(sp, rb.ptr, count, dt, o, cm, &q);
        break;
    case 4:
        rc = MPI_Reduce_scatter(sp, rb.ptr, counts, dt, o, cm);
        break;
    case 5:
        rc = MPI_Ireduce_scatter(sp, rb.ptr, counts, dt, o, cm, &q);
        break;
    case 6:
        rc = MPI_Reduce_scatter_block(sp, rb.ptr, count, dt, o, cm);
        break;
    case 7:
        rc = MPI_Ireduce_scatter_block(sp, rb.ptr, count, dt, o, cm, &q);
        break;
    case 8:
        rc = MPI_Scan(sp, rb.ptr, count, dt, o, cm);
        break;
    case 9:
        rc = MPI_Iscan(sp, rb.ptr, count, dt, o, cm, &q);
        break;
    case 10:
        rc = MPI_Exscan(sp, rb.ptr, count, dt, o, cm);
        break;
    case 11:
        rc = MPI_Iexscan(sp, rb.ptr, count, dt, o, cm, &q);
        break;
    case 12:
        rc = MPI_Reduce_local(sb.ptr, rb.ptr, count, dt, o);
        break;
    default:
        finish(env, MPI_SUCCESS, &sb, &rb, NULL, q);
        uj_ints_free(own);
        uj_throw_msg(env, MPI_ERR_UNSUPPORTED_OPERATION,
                     "%s: no non-blocking form in ump (MPI_ERR_UNSUPPORTED_OPERATION)", what);
        return;
    }
    finish(env, rc, &sb, &rb, nb ? req : NULL, q);
    uj_ints_free(own);
}

/* The span of an alltoallw buffer: counts[i] elements of types[i] at
 * displs[i] bytes, i < n. Returns 0, or -1 with an exception pending. */
static int wspan(JNIEnv *env, const int *counts, const int *displs, const jlong *types, int n,
                 int nc, int nd, int nt, MPI_Aint *lo, MPI_Aint *hi, const char *what)
{
    *lo = *hi = 0;
    if (!counts || !displs || !types || nc < n || nd < n || nt < n) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "%s: counts, displacements and types need %d entries (one per rank), got "
                     "%d, %d and %d (MPI_ERR_ARG)",
                     what, n, counts ? nc : 0, displs ? nd : 0, types ? nt : 0);
        return -1;
    }
    bool any = false;
    for (int i = 0; i < n; i++) {
        MPI_Aint l, h;
        if (counts[i] <= 0) continue;
        int rc = uj_span(UJ_TYPE(types[i]), counts[i], &l, &h);
        if (rc != MPI_SUCCESS) return uj_throw(env, rc), -1;
        l += displs[i];
        h += displs[i];
        if (!any || l < *lo) *lo = l;
        if (!any || h > *hi) *hi = h;
        any = true;
    }
    return 0;
}

/* Alltoallw; non-blocking when req is not NULL: then keep is a direct
 * buffer of at least 32 x n bytes the Java Request holds, into which the
 * types (2n), counts and displacements (4n ints) are copied. */
JNIEXPORT void JNICALL Java_mpi_PeerColl_allToAllwNative(
    JNIEnv *env, jclass c, jlong comm, jobject sbuf, jboolean sd, jint soff, jlong slen,
    jintArray jsc, jintArray jsd, jlongArray jst, jobject rbuf, jboolean rd, jint roff, jlong rlen,
    jintArray jrc, jintArray jrd, jlongArray jrt, jobject keep, jlongArray req)
{
    const char *what = req ? "Comm.iAllToAllw" : "Comm.allToAllw";
    shape_t sh;
    MPI_Comm cm = UJ_COMM(comm);
    if (comm_shape(env, cm, 0, &sh) != MPI_SUCCESS) return;
    int n = sh.peers, nsc, nsd, nrc, nrd, nst = 0, nrt = 0;
    int *sc = uj_ints(env, jsc, &nsc), *sdp = uj_ints(env, jsd, &nsd);
    int *rc_ = uj_ints(env, jrc, &nrc), *rdp = uj_ints(env, jrd, &nrd);
    jlong *st = NULL, *rt = NULL;
    MPI_Datatype *types = NULL;
    uj_buf_t sb = {.slot = -1}, rb = {.slot = -1};
    bool have_s = false, have_r = false;
    MPI_Aint lo, hi;
    int rc = MPI_SUCCESS;
    if ((*env)->ExceptionCheck(env)) goto out;
    if (jst) nst = (*env)->GetArrayLength(env, jst);
    if (jrt) nrt = (*env)->GetArrayLength(env, jrt);
    st = malloc(sizeof(jlong) * (size_t)(nst + 1));
    rt = malloc(sizeof(jlong) * (size_t)(nrt + 1));
    if (!st || !rt) {
        uj_throw_msg(env, MPI_ERR_NO_MEM, "%s: out of memory", what);
        goto out;
    }
    if (jst) (*env)->GetLongArrayRegion(env, jst, 0, nst, st);
    if (jrt) (*env)->GetLongArrayRegion(env, jrt, 0, nrt, rt);
    if (wspan(env, sc, sdp, jst ? st : NULL, n, nsc, nsd, nst, &lo, &hi, what)) goto out;
    if (!uj_buf_get(env, &sb, sbuf, sd, soff, slen, lo, hi, UJ_IN, true, what)) goto out;
    have_s = true;
    if (wspan(env, rc_, rdp, jrt ? rt : NULL, n, nrc, nrd, nrt, &lo, &hi, what)) goto out;
    if (!uj_buf_get(env, &rb, rbuf, rd, roff, rlen, lo, hi, UJ_OUT, true, what)) goto out;
    have_r = true;
    if (req) {
        unsigned char *k = keep ? (*env)->GetDirectBufferAddress(env, keep) : NULL;
        if (!k || (*env)->GetDirectBufferCapacity(env, keep) < 32L * n) {
            uj_throw_msg(env, MPI_ERR_INTERN, "%s: no room for the counts", what);
            goto out;
        }
        types = (MPI_Datatype *)k; /* a direct buffer is at least 8-byte aligned */
        int *ints = (int *)(k + 2 * sizeof(MPI_Datatype) * (size_t)n);
        for (int i = 0; i < n; i++) {
            types[i] = UJ_TYPE(st[i]);
            types[n + i] = UJ_TYPE(rt[i]);
            ints[i] = sc[i];
            ints[n + i] = sdp[i];
            ints[2 * n + i] = rc_[i];
            ints[3 * n + i] = rdp[i];
        }
        MPI_Request q = MPI_REQUEST_NULL;
        rc = MPI_Ialltoallw(sb.ptr, ints, ints + n, types, rb.ptr, ints + 2 * n, ints + 3 * n,
                            types + n, cm, &q);
        if (rc == MPI_SUCCESS) {
            jlong h = UJ_H(q);
            (*env)->SetLongArrayRegion(env, req, 0, 1, &h);
        }
        types = NULL; /* the request's */
        goto out;
    }
    types = malloc(sizeof(MPI_Datatype) * 2 * (size_t)(n > 0 ? n : 1));
    if (!types) {
        uj_throw_msg(env, MPI_ERR_NO_MEM, "%s: out of memory", what);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        types[i] = UJ_TYPE(st[i]);
        types[n + i] = UJ_TYPE(rt[i]);
    }
    rc = MPI_Alltoallw(sb.ptr, sc, sdp, types, rb.ptr, rc_, rdp, types + n, cm);
out:
    if (have_r) uj_buf_put(env, &rb);
    if (have_s) uj_buf_put(env, &sb);
    free(types);
    free(st);
    free(rt);
    uj_ints_free(sc);
    uj_ints_free(sdp);
    uj_ints_free(rc_);
    uj_ints_free(rdp);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}
