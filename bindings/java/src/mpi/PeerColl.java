// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.Buffer;

/**
 * The collectives of Comm with a count and displacement (and for
 * alltoallw a datatype) per peer that are not rooted: the neighbourhood
 * collectives and alltoallw. Their non-blocking forms copy those arrays
 * into a direct buffer the Request holds, since MPI reads them until the
 * operation completes.
 */
final class PeerColl {
    private PeerColl() {}

    // which: 0 allgather, 1 alltoall, 2 allgatherv, 3 alltoallv; blocking when req is null
    private static native void neighborNative(int which, long comm, Object sb, boolean sd,
            int soff, long slen, int scount, int[] scounts, int[] sdispls, long stype, Object rb,
            boolean rd, int roff, long rlen, int rcount, int[] rcounts, int[] rdispls,
            long rtype, java.nio.IntBuffer keep, long[] req) throws MPIException;
    // 2 x (in-degree + out-degree): the ints a non-blocking v-form keeps
    private static native int neighborSlots(long comm) throws MPIException;
    private static native void allToAllwNative(long comm, Object sb, boolean sd, int soff,
            long slen, int[] scounts, int[] sdispls, long[] stypes, Object rb, boolean rd,
            int roff, long rlen, int[] rcounts, int[] rdispls, long[] rtypes, Buffer keep,
            long[] req) throws MPIException;

    static void neighbor(Comm c, int which, Object sb, int scount, int[] scounts,
            int[] sdispls, Datatype stype, Object rb, int rcount, int[] rcounts, int[] rdispls,
            Datatype rtype) throws MPIException {
        MPI.check();
        neighborNative(which, c.handle, Buf.base(sb), Buf.direct(sb), Buf.off(sb), Buf.len(sb),
                scount, scounts, sdispls, stype.handle, Buf.base(rb), Buf.direct(rb), Buf.off(rb),
                Buf.len(rb), rcount, rcounts, rdispls, rtype.handle, null, null);
    }

    static Request iNeighbor(Comm c, int which, Buffer sb, int scount, int[] scounts,
            int[] sdispls, Datatype stype, Buffer rb, int rcount, int[] rcounts, int[] rdispls,
            Datatype rtype, String name) throws MPIException {
        MPI.check();
        Buf.needDirect(sb, name);
        Buf.needDirect(rb, name);
        java.nio.IntBuffer keep = MPI.newIntBuffer(Math.max(1, neighborSlots(c.handle)));
        long[] req = new long[1];
        neighborNative(which, c.handle, sb, true, 0, Buf.len(sb), scount, scounts, sdispls,
                stype.handle, rb, true, 0, Buf.len(rb), rcount, rcounts, rdispls, rtype.handle,
                keep, req);
        return new Request(req[0], new Object[] {sb, keep}, rb);
    }

    private static long[] handles(Datatype[] types) {
        if (types == null) return null;
        long[] h = new long[types.length];
        for (int i = 0; i < types.length; i++)
            h[i] = types[i] == null ? 0 : types[i].handle;
        return h;
    }

    static void allToAllw(Comm c, Object sb, int[] scounts, int[] sdispls, Datatype[] stypes,
            Object rb, int[] rcounts, int[] rdispls, Datatype[] rtypes) throws MPIException {
        allToAllwNative(c.handle, Buf.base(sb), Buf.direct(sb), Buf.off(sb), Buf.len(sb),
                scounts, sdispls, handles(stypes), Buf.base(rb), Buf.direct(rb), Buf.off(rb),
                Buf.len(rb), rcounts, rdispls, handles(rtypes), null, null);
    }

    static Request iAllToAllw(Comm c, Buffer sb, int[] scounts, int[] sdispls,
            Datatype[] stypes, Buffer rb, int[] rcounts, int[] rdispls, Datatype[] rtypes)
            throws MPIException {
        Buf.needDirect(sb, "Comm.iAllToAllw");
        Buf.needDirect(rb, "Comm.iAllToAllw");
        // 2n datatype handles and 4n ints
        java.nio.ByteBuffer keep = MPI.newByteBuffer(32 * Math.max(1, c.peerCount()));
        long[] req = new long[1];
        allToAllwNative(c.handle, sb, true, 0, Buf.len(sb), scounts, sdispls, handles(stypes),
                rb, true, 0, Buf.len(rb), rcounts, rdispls, handles(rtypes), keep, req);
        // the datatypes too: MPI uses them until completion
        return new Request(req[0], new Object[] {sb, keep, stypes, rtypes}, rb);
    }
}
