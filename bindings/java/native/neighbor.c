/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neighbor.c - the neighbourhood collectives of mpi.Comm, blocking and
 * not. A rank sends to its out-neighbours and receives from its
 * in-neighbours (2 x ndims of each on a cartesian communicator, a graph
 * node's neighbours, or a distributed graph's in- and out-edges), so the
 * spans of the buffers follow from those degrees. On a communicator
 * without a topology the degrees are 0 and MPI reports the error.
 */
#include "ujava.h"

static int degrees(MPI_Comm cm, int *in, int *out)
{
    int t = MPI_UNDEFINED, rank, w;
    *in = *out = 0;
    int rc = MPI_Topo_test(cm, &t);
    if (rc != MPI_SUCCESS) return rc;
    switch (t) {
    case MPI_CART:
        rc = MPI_Cartdim_get(cm, in);
        *in *= 2;
        *out = *in;
        return rc;
    case MPI_GRAPH:
        rc = MPI_Comm_rank(cm, &rank);
        if (rc == MPI_SUCCESS) rc = MPI_Graph_neighbors_count(cm, rank, in);
        *out = *in;
        return rc;
    case MPI_DIST_GRAPH:
        return MPI_Dist_graph_neighbors_count(cm, in, out, &w);
    default:
        return MPI_SUCCESS;
    }
}

JNIEXPORT jint JNICALL Java_mpi_PeerColl_neighborSlots(JNIEnv *env, jclass c, jlong comm)
{
    int in, out, rc = degrees(UJ_COMM(comm), &in, &out);
    if (rc != MPI_SUCCESS) return uj_throw(env, rc), 0;
    return 2 * (in + out);
}

static const char *n_name[2][4] = {{"Comm.neighborAllGather", "Comm.neighborAllToAll",
                                    "Comm.neighborAllGatherv", "Comm.neighborAllToAllv"},
                                   {"Comm.iNeighborAllGather", "Comm.iNeighborAllToAll",
                                    "Comm.iNeighborAllGatherv", "Comm.iNeighborAllToAllv"}};

/* which: 0 allgather, 1 alltoall, 2 allgatherv, 3 alltoallv. Non-blocking
 * when req is not NULL; then keep is a direct int buffer the Java Request
 * holds, into which the counts and displacements are copied (MPI reads
 * them until completion): out-degree send counts and displacements, then
 * in-degree receive counts and displacements. */
JNIEXPORT void JNICALL Java_mpi_PeerColl_neighborNative(
    JNIEnv *env, jclass c, jint which, jlong comm, jobject sbuf, jboolean sd, jint soff, jlong slen,
    jint scount, jintArray jscounts, jintArray jsdispls, jlong stype, jobject rbuf, jboolean rd,
    jint roff, jlong rlen, jint rcount, jintArray jrcounts, jintArray jrdispls, jlong rtype,
    jobject keep, jlongArray req)
{
    MPI_Comm cm = UJ_COMM(comm);
    MPI_Datatype st = UJ_TYPE(stype), rt = UJ_TYPE(rtype);
    const char *what = n_name[req != NULL][which & 3];
    int in, out, nsc, nsd, nrc, nrd;
    int rc = degrees(cm, &in, &out);
    if (rc != MPI_SUCCESS) return (void)uj_throw(env, rc);
    int *scounts = uj_ints(env, jscounts, &nsc), *sdispls = uj_ints(env, jsdispls, &nsd);
    int *rcounts = uj_ints(env, jrcounts, &nrc), *rdispls = uj_ints(env, jrdispls, &nrd);
    uj_buf_t sb = {.slot = -1}, rb = {.slot = -1};
    bool have_s = false, have_r = false;
    MPI_Aint lo, hi;
    int *sc = scounts, *sdp = sdispls, *rc_ = rcounts, *rdp = rdispls;
    MPI_Request q = MPI_REQUEST_NULL;
    if ((*env)->ExceptionCheck(env)) goto out;
    if ((which == 3 && (nsc < out || nsd < out)) || (which >= 2 && (nrc < in || nrd < in))) {
        uj_throw_msg(env, MPI_ERR_ARG,
                     "%s: counts and displacements need an entry per neighbour (%d out, %d in), "
                     "got %d and %d to send, %d and %d to receive (MPI_ERR_ARG)",
                     what, out, in, nsc, nsd, nrc, nrd);
        goto out;
    }
    if (which == 3) {
        if (uj_vspan(env, st, scounts, sdispls, out, nsc, nsd, &lo, &hi, what)) goto out;
        if (!uj_buf_get(env, &sb, sbuf, sd, soff, slen, lo, hi, UJ_IN, true, what)) goto out;
    } else {
        MPI_Count n = which == 1 ? (MPI_Count)scount * out : scount;
        if (!uj_buf_n(env, &sb, sbuf, sd, soff, slen, n, st, UJ_IN, true, what)) goto out;
    }
    have_s = true;
    if (which >= 2) {
        if (uj_vspan(env, rt, rcounts, rdispls, in, nrc, nrd, &lo, &hi, what)) goto out;
        if (!uj_buf_get(env, &rb, rbuf, rd, roff, rlen, lo, hi, UJ_OUT, true, what)) goto out;
    } else {
        if (!uj_buf_n(env, &rb, rbuf, rd, roff, rlen, (MPI_Count)rcount * in, rt, UJ_OUT, true,
                      what))
            goto out;
    }
    have_r = true;
    if (req) {
        int *k = keep ? (*env)->GetDirectBufferAddress(env, keep) : NULL;
        if (!k || (*env)->GetDirectBufferCapacity(env, keep) < 2L * (in + out)) {
            uj_throw_msg(env, MPI_ERR_INTERN, "%s: no room for the counts", what);
            goto out;
        }
        if (which == 3)
            for (int i = 0; i < out; i++) {
                k[i] = scounts[i];
                k[out + i] = sdispls[i];
            }
        if (which >= 2)
            for (int i = 0; i < in; i++) {
                k[2 * out + i] = rcounts[i];
                k[2 * out + in + i] = rdispls[i];
            }
        sc = k;
        sdp = k + out;
        rc_ = k + 2 * out;
        rdp = k + 2 * out + in;
    }
    switch (which * 2 + (req ? 1 : 0)) {
    case 0:
        rc = MPI_Neighbor_allgather(sb.ptr, scount, st, rb.ptr, rcount, rt, cm);
        break;
    case 1:
        rc = MPI_Ineighbor_allgather(sb.ptr, scount, st, rb.ptr, rcount, rt, cm, &q);
        break;
    case 2:
        rc = MPI_Neighbor_alltoall(sb.ptr, scount, st, rb.ptr, rcount, rt, cm);
        break;
    case 3:
        rc = MPI_Ineighbor_alltoall(sb.ptr, scount, st, rb.ptr, rcount, rt, cm, &q);
        break;
    case 4:
        rc = MPI_Neighbor_allgatherv(sb.ptr, scount, st, rb.ptr, rc_, rdp, rt, cm);
        break;
    case 5:
        rc = MPI_Ineighbor_allgatherv(sb.ptr, scount, st, rb.ptr, rc_, rdp, rt, cm, &q);
        break;
    case 6:
        rc = MPI_Neighbor_alltoallv(sb.ptr, sc, sdp, st, rb.ptr, rc_, rdp, rt, cm);
        break;
    default:
        rc = MPI_Ineighbor_alltoallv(sb.ptr, sc, sdp, st, rb.ptr, rc_, rdp, rt, cm, &q);
        break;
    }
    if (rc == MPI_SUCCESS && req) {
        jlong h = UJ_H(q);
        (*env)->SetLongArrayRegion(env, req, 0, 1, &h);
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
