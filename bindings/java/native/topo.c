/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo.c - process topologies of mpi.Intracomm, CartComm and GraphComm:
 * making cartesian, graph and distributed graph communicators and asking
 * them about their shape. Java's int[] and boolean[] arguments are copied
 * in (uj_ints, bools) and results copied out; the array lengths are the
 * counts MPI takes, checked against each other here.
 */
#include <stdlib.h>

#include "ujava.h"

/* A Java boolean[] as C ints (malloc'd; NULL with *n = 0 for null). */
static int *bools(JNIEnv *env, jbooleanArray a, int *n)
{
    *n = 0;
    if (!a) return NULL;
    *n = (*env)->GetArrayLength(env, a);
    int *p = malloc(sizeof(int) * (size_t)(*n > 0 ? *n : 1));
    jboolean *b = malloc(sizeof(jboolean) * (size_t)(*n > 0 ? *n : 1));
    if (!p || !b) {
        free(p);
        free(b);
        uj_throw_msg(env, MPI_ERR_NO_MEM, "out of memory copying a boolean[%d]", *n);
        return NULL;
    }
    (*env)->GetBooleanArrayRegion(env, a, 0, *n, b);
    for (int i = 0; i < *n; i++)
        p[i] = b[i] != 0;
    free(b);
    return p;
}

static jintArray int_array(JNIEnv *env, const int *v, int n)
{
    jintArray a = (*env)->NewIntArray(env, n);
    if (a && n > 0) (*env)->SetIntArrayRegion(env, a, 0, n, (const jint *)v);
    return a;
}

/* dims and periods of the same length; false with an exception pending otherwise. */
static bool same_len(JNIEnv *env, const char *what, const char *a, int na, const char *b, int nb)
{
    if (!(*env)->ExceptionCheck(env) && na != nb)
        uj_throw_msg(env, MPI_ERR_ARG, "%s: %s has %d entries but %s has %d (MPI_ERR_ARG)", what, a,
                     na, b, nb);
    return !(*env)->ExceptionCheck(env);
}

JNIEXPORT jint JNICALL Java_mpi_Comm_topologyNative(JNIEnv *env, jclass c, jlong comm)
{
    int t = MPI_UNDEFINED;
    UJ_CHECK(MPI_Topo_test(UJ_COMM(comm), &t));
    return t;
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_createCartNative(JNIEnv *env, jclass c, jlong comm,
                                                            jintArray jdims, jbooleanArray jper,
                                                            jboolean reorder)
{
    int nd, np;
    int *dims = uj_ints(env, jdims, &nd), *per = bools(env, jper, &np);
    MPI_Comm out = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    if (same_len(env, "Intracomm.createCart", "dims", nd, "periods", np))
        rc = MPI_Cart_create(UJ_COMM(comm), nd, dims, per, reorder, &out);
    uj_ints_free(dims);
    free(per);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return UJ_H(out);
}

JNIEXPORT jlong JNICALL Java_mpi_Intracomm_createGraphNative(JNIEnv *env, jclass c, jlong comm,
                                                             jintArray jindex, jintArray jedges,
                                                             jboolean reorder)
{
    int ni, ne;
    int *index = uj_ints(env, jindex, &ni), *edges = uj_ints(env, jedges, &ne);
    MPI_Comm out = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    if (!(*env)->ExceptionCheck(env)) {
        if (ni > 0 && index[ni - 1] > ne)
            uj_throw_msg(env, MPI_ERR_ARG,
                         "Intracomm.createGraph: index says %d edges but edges has %d entries "
                         "(MPI_ERR_ARG)",
                         index[ni - 1], ne);
        else
            rc = MPI_Graph_create(UJ_COMM(comm), ni, index, edges ? edges : (int[]){0}, reorder,
                                  &out);
    }
    uj_ints_free(index);
    uj_ints_free(edges);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return UJ_H(out);
}

/* adjacent: sources/destinations are this rank's in- and out-neighbours;
 * otherwise sources, degrees and destinations give edges of any rank. */
JNIEXPORT jlong JNICALL Java_mpi_Intracomm_createDistGraphNative(
    JNIEnv *env, jclass c, jlong comm, jboolean adjacent, jintArray jsrc, jintArray jdeg,
    jintArray jsw, jintArray jdst, jintArray jdw, jlong info, jboolean reorder, jboolean weighted)
{
    const char *what = adjacent ? "Intracomm.createDistGraphAdjacent" : "Intracomm.createDistGraph";
    int ns, nd, nsw, nt, ndw;
    int *src = uj_ints(env, jsrc, &ns), *deg = uj_ints(env, jdeg, &nd);
    int *sw = uj_ints(env, jsw, &nsw), *dst = uj_ints(env, jdst, &nt);
    int *dw = uj_ints(env, jdw, &ndw);
    MPI_Comm out = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    if ((*env)->ExceptionCheck(env)) goto out;
    if (adjacent) {
        if (weighted && (!same_len(env, what, "sources", ns, "sourceWeights", nsw) ||
                         !same_len(env, what, "destinations", nt, "destWeights", ndw)))
            goto out;
        rc = MPI_Dist_graph_create_adjacent(
            UJ_COMM(comm), ns, src ? src : (int[]){0}, weighted ? sw : MPI_UNWEIGHTED, nt,
            dst ? dst : (int[]){0}, weighted ? dw : MPI_UNWEIGHTED, UJ_INFO(info), reorder, &out);
    } else {
        if (!same_len(env, what, "sources", ns, "degrees", nd)) goto out;
        long edges = 0;
        for (int i = 0; i < nd; i++)
            edges += deg[i] > 0 ? deg[i] : 0;
        if (edges > nt || (weighted && edges > ndw)) {
            uj_throw_msg(env, MPI_ERR_ARG,
                         "%s: degrees sum to %ld edges but destinations has %d entries%s "
                         "(MPI_ERR_ARG)",
                         what, edges, nt, weighted ? " or weights fewer" : "");
            goto out;
        }
        rc = MPI_Dist_graph_create(UJ_COMM(comm), ns, src ? src : (int[]){0},
                                   deg ? deg : (int[]){0}, dst ? dst : (int[]){0},
                                   weighted ? dw : MPI_UNWEIGHTED, UJ_INFO(info), reorder, &out);
    }
out:
    uj_ints_free(src);
    uj_ints_free(deg);
    uj_ints_free(sw);
    uj_ints_free(dst);
    uj_ints_free(dw);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return UJ_H(out);
}

/* ---- CartComm ---- */

JNIEXPORT jint JNICALL Java_mpi_CartComm_dimNative(JNIEnv *env, jclass c, jlong comm)
{
    int n = 0;
    UJ_CHECK(MPI_Cartdim_get(UJ_COMM(comm), &n));
    return n;
}

/* dims, periods (0/1) and coords, each of the cartesian dimension. */
JNIEXPORT void JNICALL Java_mpi_CartComm_getNative(JNIEnv *env, jclass c, jlong comm,
                                                   jintArray jdims, jintArray jper,
                                                   jintArray jcoords)
{
    int n = (*env)->GetArrayLength(env, jdims);
    int *v = malloc(sizeof(int) * 3 * (size_t)(n > 0 ? n : 1));
    if (!v) return uj_throw_msg(env, MPI_ERR_NO_MEM, "CartComm.getTopo: out of memory");
    int rc = MPI_Cart_get(UJ_COMM(comm), n, v, v + n, v + 2 * n);
    if (rc == MPI_SUCCESS && n > 0) {
        (*env)->SetIntArrayRegion(env, jdims, 0, n, (const jint *)v);
        (*env)->SetIntArrayRegion(env, jper, 0, n, (const jint *)v + n);
        (*env)->SetIntArrayRegion(env, jcoords, 0, n, (const jint *)v + 2 * n);
    }
    free(v);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

JNIEXPORT jint JNICALL Java_mpi_CartComm_rankNative(JNIEnv *env, jclass c, jlong comm,
                                                    jintArray jcoords)
{
    int n, r = 0, nd = 0;
    UJ_CHECK(MPI_Cartdim_get(UJ_COMM(comm), &nd));
    int *coords = uj_ints(env, jcoords, &n);
    if ((*env)->ExceptionCheck(env)) return 0;
    int rc = MPI_SUCCESS;
    if (n < nd)
        uj_throw_msg(env, MPI_ERR_ARG,
                     "CartComm.getRank: coords has %d entries, the topology %d dimensions "
                     "(MPI_ERR_ARG)",
                     n, nd);
    else
        rc = MPI_Cart_rank(UJ_COMM(comm), coords, &r);
    uj_ints_free(coords);
    UJ_CHECK(rc);
    return r;
}

JNIEXPORT jintArray JNICALL Java_mpi_CartComm_coordsNative(JNIEnv *env, jclass c, jlong comm,
                                                           jint rank)
{
    int nd = 0;
    UJ_CHECK(MPI_Cartdim_get(UJ_COMM(comm), &nd));
    int *v = malloc(sizeof(int) * (size_t)(nd > 0 ? nd : 1));
    if (!v) return uj_throw_msg(env, MPI_ERR_NO_MEM, "CartComm.getCoords: out of memory"), NULL;
    int rc = MPI_Cart_coords(UJ_COMM(comm), rank, nd, v);
    jintArray a = rc == MPI_SUCCESS ? int_array(env, v, nd) : NULL;
    free(v);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return a;
}

/* {source, dest} */
JNIEXPORT jintArray JNICALL Java_mpi_CartComm_shiftNative(JNIEnv *env, jclass c, jlong comm,
                                                          jint dir, jint disp)
{
    int v[2] = {MPI_PROC_NULL, MPI_PROC_NULL};
    UJ_CHECK(MPI_Cart_shift(UJ_COMM(comm), dir, disp, &v[0], &v[1]));
    return int_array(env, v, 2);
}

JNIEXPORT jlong JNICALL Java_mpi_CartComm_subNative(JNIEnv *env, jclass c, jlong comm,
                                                    jbooleanArray jremain)
{
    int n, nd = 0;
    UJ_CHECK(MPI_Cartdim_get(UJ_COMM(comm), &nd));
    int *remain = bools(env, jremain, &n);
    if ((*env)->ExceptionCheck(env)) return 0;
    MPI_Comm out = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    if (n < nd)
        uj_throw_msg(env, MPI_ERR_ARG,
                     "CartComm.sub: remainDims has %d entries, the topology %d dimensions "
                     "(MPI_ERR_ARG)",
                     n, nd);
    else
        rc = MPI_Cart_sub(UJ_COMM(comm), remain, &out);
    free(remain);
    UJ_CHECK(rc);
    return UJ_H(out);
}

JNIEXPORT jint JNICALL Java_mpi_CartComm_mapNative(JNIEnv *env, jclass c, jlong comm,
                                                   jintArray jdims, jbooleanArray jper)
{
    int nd, np, r = MPI_UNDEFINED;
    int *dims = uj_ints(env, jdims, &nd), *per = bools(env, jper, &np);
    int rc = MPI_SUCCESS;
    if (same_len(env, "CartComm.map", "dims", nd, "periods", np))
        rc = MPI_Cart_map(UJ_COMM(comm), nd, dims, per, &r);
    uj_ints_free(dims);
    free(per);
    UJ_CHECK(rc);
    return r;
}

JNIEXPORT void JNICALL Java_mpi_CartComm_dimsCreateNative(JNIEnv *env, jclass c, jint nnodes,
                                                          jintArray jdims)
{
    int n;
    int *dims = uj_ints(env, jdims, &n);
    if ((*env)->ExceptionCheck(env)) return;
    int rc = MPI_Dims_create(nnodes, n, dims ? dims : (int[]){0});
    if (rc == MPI_SUCCESS && n > 0) (*env)->SetIntArrayRegion(env, jdims, 0, n, (const jint *)dims);
    uj_ints_free(dims);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
}

/* ---- GraphComm ---- */

/* {index[], edges[]} as an int[][] */
JNIEXPORT jobjectArray JNICALL Java_mpi_GraphComm_getNative(JNIEnv *env, jclass c, jlong comm)
{
    int nn = 0, ne = 0;
    UJ_CHECK(MPI_Graphdims_get(UJ_COMM(comm), &nn, &ne));
    int *index = malloc(sizeof(int) * (size_t)(nn + 1)),
        *edges = malloc(sizeof(int) * (size_t)(ne + 1));
    jobjectArray out = NULL;
    int rc = MPI_ERR_NO_MEM;
    if (index && edges) rc = MPI_Graph_get(UJ_COMM(comm), nn, ne, index, edges);
    if (rc == MPI_SUCCESS) {
        jclass ia = (*env)->FindClass(env, "[I");
        out = ia ? (*env)->NewObjectArray(env, 2, ia, NULL) : NULL;
        if (out) {
            (*env)->SetObjectArrayElement(env, out, 0, int_array(env, index, nn));
            (*env)->SetObjectArrayElement(env, out, 1, int_array(env, edges, ne));
        }
    }
    free(index);
    free(edges);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return out;
}

JNIEXPORT jintArray JNICALL Java_mpi_GraphComm_neighborsNative(JNIEnv *env, jclass c, jlong comm,
                                                               jint rank)
{
    int n = 0;
    UJ_CHECK(MPI_Graph_neighbors_count(UJ_COMM(comm), rank, &n));
    int *v = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!v) return uj_throw_msg(env, MPI_ERR_NO_MEM, "GraphComm.getNeighbors: out of memory"), NULL;
    int rc = MPI_Graph_neighbors(UJ_COMM(comm), rank, n, v);
    jintArray a = rc == MPI_SUCCESS ? int_array(env, v, n) : NULL;
    free(v);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return a;
}

/* {sources, sourceWeights, destinations, destWeights, {weighted}} as an
 * int[][]; the weights are null when the graph is unweighted. */
JNIEXPORT jobjectArray JNICALL Java_mpi_GraphComm_distNeighborsNative(JNIEnv *env, jclass c,
                                                                      jlong comm)
{
    int in = 0, out = 0, w = 0;
    UJ_CHECK(MPI_Dist_graph_neighbors_count(UJ_COMM(comm), &in, &out, &w));
    int *v = malloc(sizeof(int) * (size_t)(2 * in + 2 * out + 1));
    if (!v)
        return uj_throw_msg(env, MPI_ERR_NO_MEM, "GraphComm.getDistGraphNeighbors: out of memory"),
               NULL;
    int *src = v, *sw = v + in, *dst = v + 2 * in, *dw = v + 2 * in + out;
    int rc = MPI_Dist_graph_neighbors(UJ_COMM(comm), in, src, w ? sw : MPI_UNWEIGHTED, out, dst,
                                      w ? dw : MPI_UNWEIGHTED);
    jobjectArray a = NULL;
    if (rc == MPI_SUCCESS) {
        jclass ia = (*env)->FindClass(env, "[I");
        a = ia ? (*env)->NewObjectArray(env, 5, ia, NULL) : NULL;
        if (a) {
            (*env)->SetObjectArrayElement(env, a, 0, int_array(env, src, in));
            (*env)->SetObjectArrayElement(env, a, 1, w ? int_array(env, sw, in) : NULL);
            (*env)->SetObjectArrayElement(env, a, 2, int_array(env, dst, out));
            (*env)->SetObjectArrayElement(env, a, 3, w ? int_array(env, dw, out) : NULL);
            (*env)->SetObjectArrayElement(env, a, 4, int_array(env, &w, 1));
        }
    }
    free(v);
    if (rc != MPI_SUCCESS) uj_throw(env, rc);
    return a;
}

JNIEXPORT jint JNICALL Java_mpi_GraphComm_mapNative(JNIEnv *env, jclass c, jlong comm,
                                                    jintArray jindex, jintArray jedges)
{
    int ni, ne, r = MPI_UNDEFINED;
    int *index = uj_ints(env, jindex, &ni), *edges = uj_ints(env, jedges, &ne);
    int rc = MPI_SUCCESS;
    if (!(*env)->ExceptionCheck(env)) {
        if (ni > 0 && index[ni - 1] > ne)
            uj_throw_msg(env, MPI_ERR_ARG,
                         "GraphComm.map: index says %d edges but edges has %d entries "
                         "(MPI_ERR_ARG)",
                         index[ni - 1], ne);
        else
            rc = MPI_Graph_map(UJ_COMM(comm), ni, index, edges ? edges : (int[]){0}, &r);
    }
    uj_ints_free(index);
    uj_ints_free(edges);
    UJ_CHECK(rc);
    return r;
}
