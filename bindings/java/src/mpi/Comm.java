// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.lang.ref.Reference;
import java.nio.Buffer;

/**
 * A communicator: point-to-point, the collectives (here, as in Open MPI's
 * binding) and the communicator's own queries.
 *
 * Buffers: blocking calls take a primitive array, a heap buffer (from
 * MPI.slice(array, offset)) or a direct buffer; non-blocking and persistent
 * calls take direct buffers only. A buffer is used from its first element
 * (its position is ignored; MPI.slice makes a buffer that starts further in).
 * Counts are in elements of the datatype.
 */
public class Comm implements Freeable, Cloneable {
    long handle;
    private Request request; // of the iDup that made this communicator

    static final int STD = 0, SYNC = 1, READY = 2, BUFFERED = 3;

    Comm(long handle) {
        this.handle = handle;
    }

    /** From iDupNative: the handle; req[0] the request. */
    Comm(long handle, long[] req) {
        this.handle = handle;
        request = new Request(req[0]);
    }

    // ---- native calls (p2p.c, comm.c, coll.c) ----
    private static native void sendNative(long comm, Object buf, boolean d, int off, long len,
            int count, long type, int dest, int tag, int mode) throws MPIException;
    // The fast path (Direct.java): a direct buffer by address, a datatype
    // whose span Java knows; recvFast returns the status packed
    // (Status.unpack), or -1 when it did not fit: then lastStatus has it.
    private static native void sendFast(long comm, long addr, int count, long type, int dest,
            int tag, int mode) throws MPIException;
    private static native long recvFast(long comm, long addr, int count, long type, int src,
            int tag) throws MPIException;
    private static native void lastStatus(long[] st);
    private static native void recvNative(long comm, Object buf, boolean d, int off, long len,
            int count, long type, int src, int tag, long[] st) throws MPIException;
    private static native void sendRecvNative(long comm, Object sb, boolean sd, int soff,
            long slen, int scount, long stype, int dest, int stag, Object rb, boolean rd,
            int roff, long rlen, int rcount, long rtype, int src, int rtag, long[] st)
            throws MPIException;
    private static native void sendRecvReplaceNative(long comm, Object b, boolean d, int off,
            long len, int count, long type, int dest, int stag, int src, int rtag, long[] st)
            throws MPIException;
    // Non-blocking and persistent: the fast path (Buf.fast's address, which
    // Java has checked, and primitives only) or the general one (C checks
    // the buffer and reports what is wrong with it). Both return the handle.
    private static native long iSendFast(long comm, long addr, int count, long type, int dest,
            int tag, int mode, boolean persistent) throws MPIException;
    private static native long iRecvFast(long comm, long addr, int count, long type, int src,
            int tag, boolean persistent) throws MPIException;
    private static native long iSendNative(long comm, Buffer buf, long len, int count,
            long type, int dest, int tag, int mode, boolean persistent) throws MPIException;
    private static native long iRecvNative(long comm, Buffer buf, long len, int count,
            long type, int src, int tag, boolean persistent) throws MPIException;
    private static native void probeNative(long comm, int src, int tag, long[] st)
            throws MPIException;
    private static native boolean iProbeNative(long comm, int src, int tag, long[] st)
            throws MPIException;

    static native int rankNative(long comm) throws MPIException;
    static native int sizeNative(long comm) throws MPIException;
    static native long dupNative(long comm) throws MPIException;
    private static native void freeNative(long comm) throws MPIException;
    private static native int compareNative(long c1, long c2) throws MPIException;
    private static native long groupNative(long comm) throws MPIException;
    private static native boolean isInterNative(long comm) throws MPIException;
    static native int remoteSizeNative(long comm) throws MPIException;
    private static native long createIntercommNative(long peer, long local, int localLeader,
            int remoteLeader, int tag) throws MPIException;
    private static native void setNameNative(long comm, String name) throws MPIException;
    private static native String getNameNative(long comm) throws MPIException;
    private static native void setErrhNative(long comm, long errh) throws MPIException;
    private static native long getErrhNative(long comm) throws MPIException;
    private static native void callErrhNative(long comm, int code) throws MPIException;
    private static native void abortNative(long comm, int code) throws MPIException;
    private static native Object getAttrNative(long comm, int keyval) throws MPIException;
    static native long dupWithInfoNative(long comm, long info) throws MPIException;
    static native long iDupNative(long comm, long[] req) throws MPIException;
    private static native void setInfoNative(long comm, long info) throws MPIException;
    private static native long getInfoNative(long comm) throws MPIException;

    private static native void barrierNative(long comm) throws MPIException;
    private static native long iBarrierNative(long comm) throws MPIException;
    private static native void bcastNative(long comm, Object b, boolean d, int off, long len,
            int count, long type, int root, boolean nb, long[] req) throws MPIException;
    // Blocking bcast, reduce (which 0) and allReduce (1) on direct buffers
    // Java checked (Buf.fast): one JNI call with primitive arguments.
    // saddr 0 is MPI_IN_PLACE, raddr 0 no receive buffer (reduce off the root).
    private static native void bcastFast(long comm, long addr, int count, long type, int root)
            throws MPIException;
    private static native void reduceFast(int which, long comm, long saddr, long raddr,
            int count, long type, long op, int root) throws MPIException;
    // which: 0 gather, 1 scatter, 2 allgather, 3 alltoall
    private static native void gatherNative(int which, long comm, boolean sInPlace, Object sb,
            boolean sd, int soff, long slen, int scount, long stype, Object rb, boolean rd,
            int roff, long rlen, int rcount, long rtype, int root, boolean nb, long[] req)
            throws MPIException;
    // which: 0 gatherv, 1 scatterv, 2 allgatherv, 3 alltoallv
    private static native void gathervNative(int which, long comm, boolean sInPlace, Object sb,
            boolean sd, int soff, long slen, int scount, int[] scounts, int[] sdispls,
            long stype, boolean rInPlace, Object rb, boolean rd, int roff, long rlen, int rcount,
            int[] rcounts, int[] rdispls, long rtype, int root, java.nio.IntBuffer keep,
            long[] req) throws MPIException;
    // which: 0 reduce, 1 allreduce, 2 reduce_scatter, 3 reduce_scatter_block, 4 scan,
    // 5 exscan, 6 reduce_local
    private static native int topologyNative(long comm) throws MPIException;
    private static native long parentNative() throws MPIException;
    private static native void disconnectNative(long comm) throws MPIException;
    static native void reduceNative(int which, long comm, boolean sInPlace, Object sb,
            boolean sd, int soff, long slen, Object rb, boolean rd, int roff, long rlen,
            int count, int[] counts, long type, long op, boolean userOp, int root, boolean nb,
            java.nio.IntBuffer keep, long[] req) throws MPIException;

    // ---- the communicator ----

    public Comm dup() throws MPIException {
        MPI.check();
        return new Comm(dupNative(handle));
    }

    @Override
    public Comm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    public final int getSize() throws MPIException {
        MPI.check();
        return sizeNative(handle);
    }

    public final int getRank() throws MPIException {
        MPI.check();
        return rankNative(handle);
    }

    /** MPI.IDENT, CONGRUENT, SIMILAR or UNEQUAL. */
    public static int compare(Comm comm1, Comm comm2) throws MPIException {
        MPI.check();
        return compareNative(comm1.handle, comm2.handle);
    }

    @Override
    public void free() throws MPIException {
        MPI.check();
        freeNative(handle);
        handle = 0;
    }

    public final boolean isNull() {
        return handle == 0;
    }

    public final Group getGroup() throws MPIException {
        MPI.check();
        return new Group(groupNative(handle));
    }

    public final boolean isInter() throws MPIException {
        MPI.check();
        return isInterNative(handle);
    }

    /**
     * An intercommunicator between localComm's group and another one,
     * called on the peer communicator through which the two leaders
     * (localLeader in localComm, remoteLeader in this one) talk.
     */
    public final Intercomm createIntercomm(Comm localComm, int localLeader, int remoteLeader,
            int tag) throws MPIException {
        MPI.check();
        return new Intercomm(createIntercommNative(handle, localComm.handle, localLeader,
                remoteLeader, tag));
    }

    /** The intercommunicator to the processes that spawned this one; a null one if none did. */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm(parentNative());
    }

    /** Frees the communicator once every pending communication on it is done. */
    public final void disconnect() throws MPIException {
        MPI.check();
        disconnectNative(handle);
        handle = 0;
    }

    /** MPI.CART, MPI.GRAPH, MPI.DIST_GRAPH or MPI.UNDEFINED. */
    public final int getTopology() throws MPIException {
        MPI.check();
        return topologyNative(handle);
    }

    /** Ranks a collective's blocks go to or come from: the remote group's on an intercomm. */
    final int peerCount() throws MPIException {
        return isInterNative(handle) ? remoteSizeNative(handle) : sizeNative(handle);
    }

    public final void setName(String name) throws MPIException {
        MPI.check();
        setNameNative(handle, name);
    }

    public final String getName() throws MPIException {
        MPI.check();
        return getNameNative(handle);
    }

    public final void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        setErrhNative(handle, errhandler.handle);
    }

    public final Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return new Errhandler(getErrhNative(handle));
    }

    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        callErrhNative(handle, errorCode);
    }

    public final void abort(int errorcode) throws MPIException {
        MPI.check();
        abortNative(handle, errorcode);
    }

    /**
     * A predefined attribute (MPI.TAG_UB, HOST, IO, WTIME_IS_GLOBAL) as an
     * Integer, or a copy of the value set under a key of createKeyval; null
     * when the communicator has none.
     */
    public final Object getAttr(int keyval) throws MPIException {
        MPI.check();
        if (keyval == MPI.TAG_UB || keyval == MPI.HOST || keyval == MPI.IO
                || keyval == MPI.WTIME_IS_GLOBAL)
            return getAttrNative(handle, keyval);
        return Attrs.get(handle, keyval);
    }

    /**
     * A key for user attributes. A value is stored serialized (it must be
     * java.io.Serializable): getAttr returns a copy, and a duplicated
     * communicator gets its own copy.
     */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attrs.createKeyvalNative();
    }

    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attrs.freeKeyvalNative(keyval);
    }

    public final void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        Attrs.set(handle, keyval, value);
    }

    public final void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        Attrs.deleteNative(handle, keyval);
    }

    /** A duplicate with the hints of info. */
    public Comm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new Comm(dupWithInfoNative(handle, info.handle));
    }

    /** A duplicate made without blocking; use it once getRequest() has completed. */
    public Comm iDup() throws MPIException {
        MPI.check();
        long[] req = new long[1];
        return new Comm(iDupNative(handle, req), req);
    }

    /** Sets the communicator's hints. */
    public final void setInfo(Info info) throws MPIException {
        MPI.check();
        setInfoNative(handle, info.handle);
    }

    /** A new Info (free it) with the hints in use. */
    public final Info getInfo() throws MPIException {
        MPI.check();
        return new Info(getInfoNative(handle));
    }

    /** The request of the iDup that made this communicator, else null. */
    public final Request getRequest() {
        return request;
    }

    // ---- blocking point-to-point ----

    private void send(Object buf, int count, Datatype type, int dest, int tag, int mode)
            throws MPIException {
        MPI.check();
        long a = Buf.fast(buf, count, type);
        if (a != 0) {
            sendFast(handle, a, count, type.handle, dest, tag, mode);
            Reference.reachabilityFence(buf); // C read its memory by address
            return;
        }
        long n = Buf.copied(buf, count, type);
        if (n >= 0) { // a small array: copied in Java, sent from the scratch
            Scratch s = Scratch.of(n);
            s.in(buf, (int) n);
            sendFast(handle, s.address, count, type.handle, dest, tag, mode);
            s.fence();
            return;
        }
        sendNative(handle, Buf.base(buf), Buf.direct(buf), Buf.off(buf), Buf.len(buf), count,
                type.handle, dest, tag, mode);
    }

    public final void send(Object buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        send(buf, count, type, dest, tag, STD);
    }

    public final void sSend(Object buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        send(buf, count, type, dest, tag, SYNC);
    }

    public final void rSend(Object buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        send(buf, count, type, dest, tag, READY);
    }

    /** Buffered send: needs MPI.attachBuffer first. */
    public final void bSend(Object buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        send(buf, count, type, dest, tag, BUFFERED);
    }

    public final Status recv(Object buf, int count, Datatype type, int source, int tag)
            throws MPIException {
        MPI.check();
        long a = Buf.fast(buf, count, type);
        if (a != 0) {
            long st = recvFast(handle, a, count, type.handle, source, tag);
            Reference.reachabilityFence(buf); // C wrote its memory by address
            if (st >= 0) return Status.unpack(st);
            Status s = new Status();
            lastStatus(s.data);
            return s;
        }
        long n = buf instanceof byte[] ? Buf.copied(buf, count, type) : -1;
        if (n >= 0) { // a small byte[]: received in the scratch, copied out in Java
            Scratch sc = Scratch.of(n);
            long st = recvFast(handle, sc.address, count, type.handle, source, tag);
            Status s;
            if (st >= 0) {
                s = Status.unpack(st);
            } else {
                s = new Status();
                lastStatus(s.data);
            }
            sc.out((byte[]) buf, (int) Math.min(s.data[Status.COUNT], n));
            sc.fence();
            return s;
        }
        Status s = new Status();
        recvNative(handle, Buf.base(buf), Buf.direct(buf), Buf.off(buf), Buf.len(buf), count,
                type.handle, source, tag, s.data);
        return s;
    }

    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest,
            int sendtag, Object recvbuf, int recvcount, Datatype recvtype, int source,
            int recvtag) throws MPIException {
        MPI.check();
        Status s = new Status();
        sendRecvNative(handle, Buf.base(sendbuf), Buf.direct(sendbuf), Buf.off(sendbuf),
                Buf.len(sendbuf), sendcount, sendtype.handle, dest, sendtag, Buf.base(recvbuf),
                Buf.direct(recvbuf), Buf.off(recvbuf), Buf.len(recvbuf), recvcount,
                recvtype.handle, source, recvtag, s.data);
        return s;
    }

    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest,
            int sendtag, int source, int recvtag) throws MPIException {
        MPI.check();
        Status s = new Status();
        sendRecvReplaceNative(handle, Buf.base(buf), Buf.direct(buf), Buf.off(buf), Buf.len(buf),
                count, type.handle, dest, sendtag, source, recvtag, s.data);
        return s;
    }

    // ---- non-blocking and persistent point-to-point (direct buffers) ----

    /** The handle of a non-blocking or persistent send of buf (a direct buffer). */
    private long iSendHandle(Buffer buf, int count, Datatype type, int dest, int tag, int mode,
            boolean persistent, String name) throws MPIException {
        MPI.check();
        long a = Buf.fast(buf, count, type); // non-zero only for a direct buffer
        if (a != 0) // buf stays reachable: the caller's Request holds it
            return iSendFast(handle, a, count, type.handle, dest, tag, mode, persistent);
        Buf.needDirect(buf, name);
        return iSendNative(handle, buf, Buf.len(buf), count, type.handle, dest, tag, mode,
                persistent);
    }

    private long iRecvHandle(Buffer buf, int count, Datatype type, int source, int tag,
            boolean persistent, String name) throws MPIException {
        MPI.check();
        long a = Buf.fast(buf, count, type);
        if (a != 0) return iRecvFast(handle, a, count, type.handle, source, tag, persistent);
        Buf.needDirect(buf, name);
        return iRecvNative(handle, buf, Buf.len(buf), count, type.handle, source, tag,
                persistent);
    }

    private Request iSend(Buffer buf, int count, Datatype type, int dest, int tag, int mode,
            String name) throws MPIException {
        return new Request(iSendHandle(buf, count, type, dest, tag, mode, false, name), buf,
                null);
    }

    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return iSend(buf, count, type, dest, tag, STD, "Comm.iSend");
    }

    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return iSend(buf, count, type, dest, tag, SYNC, "Comm.isSend");
    }

    /** The same as isSend, under the name some programs use. */
    public final Request iSSend(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return iSend(buf, count, type, dest, tag, SYNC, "Comm.iSSend");
    }

    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return iSend(buf, count, type, dest, tag, READY, "Comm.irSend");
    }

    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return iSend(buf, count, type, dest, tag, BUFFERED, "Comm.ibSend");
    }

    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag)
            throws MPIException {
        return new Request(iRecvHandle(buf, count, type, source, tag, false, "Comm.iRecv"),
                null, buf);
    }

    private Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag, int mode,
            String name) throws MPIException {
        return new Prequest(iSendHandle(buf, count, type, dest, tag, mode, true, name), buf);
    }

    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return sendInit(buf, count, type, dest, tag, STD, "Comm.sendInit");
    }

    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return sendInit(buf, count, type, dest, tag, SYNC, "Comm.sSendInit");
    }

    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return sendInit(buf, count, type, dest, tag, READY, "Comm.rSendInit");
    }

    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        return sendInit(buf, count, type, dest, tag, BUFFERED, "Comm.bSendInit");
    }

    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag)
            throws MPIException {
        return new Prequest(iRecvHandle(buf, count, type, source, tag, true, "Comm.recvInit"),
                buf);
    }

    // ---- probes ----

    public final Status probe(int source, int tag) throws MPIException {
        MPI.check();
        Status s = new Status();
        probeNative(handle, source, tag, s.data);
        return s;
    }

    /** The status of a matching message, or null if none has arrived. */
    public final Status iProbe(int source, int tag) throws MPIException {
        MPI.check();
        Status s = new Status();
        return iProbeNative(handle, source, tag, s.data) ? s : null;
    }

    // ---- pack / unpack ----

    private static native int packNative(long comm, Object in, boolean ind, int inoff,
            long inlen, int count, long type, Object out, boolean outd, int outoff, long outlen,
            int position) throws MPIException;
    private static native int unpackNative(long comm, Object in, boolean ind, int inoff,
            long inlen, int position, Object out, boolean outd, int outoff, long outlen,
            int count, long type) throws MPIException;
    private static native int packSizeNative(long comm, int count, long type)
            throws MPIException;

    /** Packs incount elements of inbuf into outbuf at position; returns the new position. */
    public final int pack(Object inbuf, int incount, Datatype type, byte[] outbuf, int position)
            throws MPIException {
        MPI.check();
        return packNative(handle, Buf.base(inbuf), Buf.direct(inbuf), Buf.off(inbuf),
                Buf.len(inbuf), incount, type.handle, outbuf, false, 0, Buf.len(outbuf),
                position);
    }

    /** Unpacks outcount elements from inbuf at position into outbuf; returns the new position. */
    public final int unpack(byte[] inbuf, int position, Object outbuf, int outcount,
            Datatype type) throws MPIException {
        MPI.check();
        return unpackNative(handle, inbuf, false, 0, Buf.len(inbuf), position, Buf.base(outbuf),
                Buf.direct(outbuf), Buf.off(outbuf), Buf.len(outbuf), outcount, type.handle);
    }

    /** Upper bound of the bytes pack needs for incount elements. */
    public final int packSize(int incount, Datatype type) throws MPIException {
        MPI.check();
        return packSizeNative(handle, incount, type.handle);
    }

    // ---- collectives ----

    public final void barrier() throws MPIException {
        MPI.check();
        barrierNative(handle);
    }

    public final Request iBarrier() throws MPIException {
        MPI.check();
        return new Request(iBarrierNative(handle));
    }

    public final void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        long a = Buf.fast(buf, count, type);
        if (a != 0) {
            bcastFast(handle, a, count, type.handle, root);
            Reference.reachabilityFence(buf); // C used its memory by address
            return;
        }
        long n = Buf.copied(buf, count, type);
        if (n >= 0) { // a small array through the scratch: the root's copy comes back unchanged
            Scratch s = Scratch.of(n);
            s.in(buf, (int) n);
            bcastFast(handle, s.address, count, type.handle, root);
            s.out(buf, (int) n);
            s.fence();
            return;
        }
        bcastNative(handle, Buf.base(buf), Buf.direct(buf), Buf.off(buf), Buf.len(buf), count,
                type.handle, root, false, null);
    }

    public final Request iBcast(Buffer buf, int count, Datatype type, int root)
            throws MPIException {
        MPI.check();
        Buf.needDirect(buf, "Comm.iBcast");
        long[] req = new long[1];
        bcastNative(handle, buf, true, 0, Buf.len(buf), count, type.handle, root, true, req);
        return new Request(req[0], buf, null);
    }

    private void gatherLike(int which, boolean sInPlace, Object sb, int scount, Datatype stype,
            Object rb, int rcount, Datatype rtype, int root) throws MPIException {
        MPI.check();
        gatherNative(which, handle, sInPlace, Buf.base(sb), Buf.direct(sb), Buf.off(sb),
                Buf.len(sb), scount, stype == null ? 0 : stype.handle, Buf.base(rb),
                Buf.direct(rb), Buf.off(rb), Buf.len(rb), rcount,
                rtype == null ? 0 : rtype.handle, root, false, null);
    }

    private Request iGatherLike(int which, boolean sInPlace, Buffer sb, int scount,
            Datatype stype, Buffer rb, int rcount, Datatype rtype, int root, String name)
            throws MPIException {
        MPI.check();
        Buf.needDirect(sb, name);
        Buf.needDirect(rb, name);
        long[] req = new long[1];
        gatherNative(which, handle, sInPlace, sb, true, 0, Buf.len(sb), scount,
                stype == null ? 0 : stype.handle, rb, true, 0, Buf.len(rb), rcount,
                rtype == null ? 0 : rtype.handle, root, true, req);
        return new Request(req[0], sb, rb);
    }

    public final void gather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype, int root) throws MPIException {
        gatherLike(0, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    }

    /** In place: the root's contribution is already in buf; other ranks send from buf. */
    public final void gather(Object buf, int count, Datatype type, int root) throws MPIException {
        if (getRank() == root)
            gatherLike(0, true, null, 0, null, buf, count, type, root);
        else
            gatherLike(0, false, buf, count, type, null, 0, type, root);
    }

    public final Request iGather(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        return iGatherLike(0, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                root, "Comm.iGather");
    }

    public final Request iGather(Buffer buf, int count, Datatype type, int root)
            throws MPIException {
        if (getRank() == root)
            return iGatherLike(0, true, null, 0, null, buf, count, type, root, "Comm.iGather");
        return iGatherLike(0, false, buf, count, type, null, 0, type, root, "Comm.iGather");
    }

    public final void scatter(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype, int root) throws MPIException {
        gatherLike(1, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    }

    /** In place: the root keeps its own block in buf; other ranks receive into buf. */
    public final void scatter(Object buf, int count, Datatype type, int root)
            throws MPIException {
        if (getRank() == root)
            gatherLike(1, true, buf, count, type, null, 0, type, root);
        else
            gatherLike(1, false, null, 0, type, buf, count, type, root);
    }

    public final Request iScatter(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        return iGatherLike(1, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                root, "Comm.iScatter");
    }

    public final Request iScatter(Buffer buf, int count, Datatype type, int root)
            throws MPIException {
        if (getRank() == root)
            return iGatherLike(1, true, buf, count, type, null, 0, type, root, "Comm.iScatter");
        return iGatherLike(1, false, null, 0, type, buf, count, type, root, "Comm.iScatter");
    }

    public final void allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        gatherLike(2, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0);
    }

    /** In place: each rank's block is already at its place in buf. */
    public final void allGather(Object buf, int count, Datatype type) throws MPIException {
        gatherLike(2, true, null, 0, null, buf, count, type, 0);
    }

    public final Request iAllGather(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        return iGatherLike(2, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                0, "Comm.iAllGather");
    }

    public final Request iAllGather(Buffer buf, int count, Datatype type) throws MPIException {
        return iGatherLike(2, true, null, 0, null, buf, count, type, 0, "Comm.iAllGather");
    }

    public final void allToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        gatherLike(3, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0);
    }

    public final Request iAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        return iGatherLike(3, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                0, "Comm.iAllToAll");
    }

    private void vLike(int which, boolean sInPlace, Object sb, int scount, int[] scounts,
            int[] sdispls, Datatype stype, boolean rInPlace, Object rb, int rcount,
            int[] rcounts, int[] rdispls, Datatype rtype, int root) throws MPIException {
        MPI.check();
        gathervNative(which, handle, sInPlace, Buf.base(sb), Buf.direct(sb), Buf.off(sb),
                Buf.len(sb), scount, scounts, sdispls, stype == null ? 0 : stype.handle,
                rInPlace, Buf.base(rb), Buf.direct(rb), Buf.off(rb), Buf.len(rb), rcount,
                rcounts, rdispls, rtype == null ? 0 : rtype.handle, root, null, null);
    }

    /**
     * Block i of sendBuf (sendCount[i] of sendTypes[i], sDispls[i] BYTES in)
     * goes to rank i; the one from rank i lands as recvCount[i] of
     * recvTypes[i] at rDispls[i] bytes.
     */
    public final void allToAllw(Object sendBuf, int[] sendCount, int[] sDispls,
            Datatype[] sendTypes, Object recvBuf, int[] recvCount, int[] rDispls,
            Datatype[] recvTypes) throws MPIException {
        MPI.check();
        PeerColl.allToAllw(this, sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount,
                rDispls, recvTypes);
    }

    public final Request iAllToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls,
            Datatype[] sendTypes, Buffer recvBuf, int[] recvCount, int[] rDispls,
            Datatype[] recvTypes) throws MPIException {
        MPI.check();
        return PeerColl.iAllToAllw(this, sendBuf, sendCount, sDispls, sendTypes, recvBuf,
                recvCount, rDispls, recvTypes);
    }

    private Request iVLike(int which, boolean sInPlace, Buffer sb, int scount, int[] scounts,
            int[] sdispls, Datatype stype, boolean rInPlace, Buffer rb, int rcount,
            int[] rcounts, int[] rdispls, Datatype rtype, int root, String name)
            throws MPIException {
        MPI.check();
        Buf.needDirect(sb, name);
        Buf.needDirect(rb, name);
        // MPI reads the counts until completion: they live in a direct buffer the request holds.
        java.nio.IntBuffer keep = MPI.newIntBuffer(4 * Math.max(1, peerCount()));
        long[] req = new long[1];
        gathervNative(which, handle, sInPlace, sb, true, 0, Buf.len(sb), scount, scounts,
                sdispls, stype == null ? 0 : stype.handle, rInPlace, rb, true, 0, Buf.len(rb),
                rcount, rcounts, rdispls, rtype == null ? 0 : rtype.handle, root, keep, req);
        return new Request(req[0], new Object[] {sb, keep}, rb);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        return iVLike(0, false, sendbuf, sendcount, null, null, sendtype, false, recvbuf, 0,
                recvcount, displs, recvtype, root, "Comm.iGatherv");
    }

    /** At the root, in place. */
    public final Request iGatherv(Buffer recvbuf, int[] recvcount, int[] displs,
            Datatype recvtype, int root) throws MPIException {
        return iVLike(0, true, null, 0, null, null, null, false, recvbuf, 0, recvcount, displs,
                recvtype, root, "Comm.iGatherv");
    }

    /** At the other ranks, with an in-place root. */
    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, int root)
            throws MPIException {
        return iVLike(0, false, sendbuf, sendcount, null, null, sendtype, false, null, 0, null,
                null, sendtype, root, "Comm.iGatherv");
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs,
            Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        return iVLike(1, false, sendbuf, 0, sendcount, displs, sendtype, false, recvbuf,
                recvcount, null, null, recvtype, root, "Comm.iScatterv");
    }

    /** At the root, in place. */
    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs,
            Datatype sendtype, int root) throws MPIException {
        return iVLike(1, false, sendbuf, 0, sendcount, displs, sendtype, true, null, 0, null,
                null, sendtype, root, "Comm.iScatterv");
    }

    /** At the other ranks, with an in-place root. */
    public final Request iScatterv(Buffer recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        return iVLike(1, false, null, 0, null, null, recvtype, false, recvbuf, recvcount, null,
                null, recvtype, root, "Comm.iScatterv");
    }

    public final Request iAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        return iVLike(2, false, sendbuf, sendcount, null, null, sendtype, false, recvbuf, 0,
                recvcount, displs, recvtype, 0, "Comm.iAllGatherv");
    }

    /** In place. */
    public final Request iAllGatherv(Buffer buf, int[] count, int[] displs, Datatype type)
            throws MPIException {
        return iVLike(2, true, null, 0, null, null, null, false, buf, 0, count, displs, type, 0,
                "Comm.iAllGatherv");
    }

    public final Request iAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls,
            Datatype sendtype, Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        return iVLike(3, false, sendbuf, 0, sendcount, sdispls, sendtype, false, recvbuf, 0,
                recvcount, rdispls, recvtype, 0, "Comm.iAllToAllv");
    }

    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        vLike(0, false, sendbuf, sendcount, null, null, sendtype, false, recvbuf, 0, recvcount,
                displs, recvtype, root);
    }

    /** At the root, in place: its own block is already in recvbuf. */
    public final void gatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype,
            int root) throws MPIException {
        vLike(0, true, null, 0, null, null, null, false, recvbuf, 0, recvcount, displs, recvtype,
                root);
    }

    /** At the other ranks, with an in-place root. */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, int root)
            throws MPIException {
        vLike(0, false, sendbuf, sendcount, null, null, sendtype, false, null, 0, null, null,
                sendtype, root);
    }

    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
            Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        vLike(1, false, sendbuf, 0, sendcount, displs, sendtype, false, recvbuf, recvcount, null,
                null, recvtype, root);
    }

    /** At the root, in place: it keeps its own block in sendbuf. */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
            int root) throws MPIException {
        vLike(1, false, sendbuf, 0, sendcount, displs, sendtype, true, null, 0, null, null,
                sendtype, root);
    }

    /** At the other ranks, with an in-place root. */
    public final void scatterv(Object recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        vLike(1, false, null, 0, null, null, recvtype, false, recvbuf, recvcount, null, null,
                recvtype, root);
    }

    public final void allGatherv(Object sendbuf, int sendcount, Datatype sendtype,
            Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        vLike(2, false, sendbuf, sendcount, null, null, sendtype, false, recvbuf, 0, recvcount,
                displs, recvtype, 0);
    }

    /** In place: each rank's block is already at its place in recvbuf. */
    public final void allGatherv(Object recvbuf, int[] recvcount, int[] displs,
            Datatype recvtype) throws MPIException {
        vLike(2, true, null, 0, null, null, null, false, recvbuf, 0, recvcount, displs, recvtype,
                0);
    }

    public final void allToAllv(Object sendbuf, int[] sendcount, int[] sdispls,
            Datatype sendtype, Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        vLike(3, false, sendbuf, 0, sendcount, sdispls, sendtype, false, recvbuf, 0, recvcount,
                rdispls, recvtype, 0);
    }

    void reduceLike(int which, boolean sInPlace, Object sb, Object rb, int count, int[] counts,
            Datatype type, Op op, int root) throws MPIException {
        MPI.check();
        if (which <= 1 && !op.isUser()) {
            long s = sInPlace ? 0 : Buf.fast(sb, count, type);
            long r = rb == null ? 0 : Buf.fast(rb, count, type);
            if ((sInPlace || s != 0) && (r != 0 || (rb == null && which == 0))) {
                reduceFast(which, handle, s, r, count, type.handle, op.handle, root);
                Reference.reachabilityFence(sb); // C used their memory by address
                Reference.reachabilityFence(rb);
                return;
            }
            // allReduce of small arrays: copied through the scratches in Java
            long n = which == 1 ? Buf.copied(rb, count, type) : -1;
            if (n >= 0 && (sInPlace || Buf.copied(sb, count, type) == n)) {
                Scratch out = Scratch.other(n), in = sInPlace ? out : Scratch.of(n);
                in.in(sInPlace ? rb : sb, (int) n);
                reduceFast(1, handle, sInPlace ? 0 : in.address, out.address, count, type.handle,
                        op.handle, 0);
                out.out(rb, (int) n);
                in.fence();
                out.fence();
                return;
            }
        }
        op.prepare(type, !(Buf.direct(sb) || Buf.direct(rb)));
        reduceNative(which, handle, sInPlace, Buf.base(sb), Buf.direct(sb), Buf.off(sb),
                Buf.len(sb), Buf.base(rb), Buf.direct(rb), Buf.off(rb), Buf.len(rb), count,
                counts, type.handle, op.handle, op.isUser(), root, false, null, null);
        op.rethrow();
    }

    Request iReduceLike(int which, boolean sInPlace, Buffer sb, Buffer rb, int count,
            Datatype type, Op op, int root, String name) throws MPIException {
        return iReduceLike(which, sInPlace, sb, rb, count, null, type, op, root, name);
    }

    Request iReduceLike(int which, boolean sInPlace, Buffer sb, Buffer rb, int count,
            int[] counts, Datatype type, Op op, int root, String name) throws MPIException {
        MPI.check();
        Buf.needDirect(sb, name);
        Buf.needDirect(rb, name);
        op.prepare(type, false);
        long[] req = new long[1];
        // MPI reads the counts until completion: they live in a direct buffer the request holds.
        java.nio.IntBuffer keep = counts == null ? null : MPI.newIntBuffer(Math.max(1, getSize()));
        reduceNative(which, handle, sInPlace, sb, true, 0, Buf.len(sb), rb, true, 0, Buf.len(rb),
                count, counts, type.handle, op.handle, op.isUser(), root, true, keep, req);
        return new Request(req[0], keep == null ? sb : new Object[] {sb, keep}, rb);
    }

    public final void reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op,
            int root) throws MPIException {
        reduceLike(0, false, sendbuf, recvbuf, count, null, type, op, root);
    }

    /** In place at the root (buf holds its input and gets the result); others send buf. */
    public final void reduce(Object buf, int count, Datatype type, Op op, int root)
            throws MPIException {
        if (getRank() == root)
            reduceLike(0, true, null, buf, count, null, type, op, root);
        else
            reduceLike(0, false, buf, null, count, null, type, op, root);
    }

    public final Request iReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op,
            int root) throws MPIException {
        return iReduceLike(0, false, sendbuf, recvbuf, count, type, op, root, "Comm.iReduce");
    }

    public final Request iReduce(Buffer buf, int count, Datatype type, Op op, int root)
            throws MPIException {
        if (getRank() == root)
            return iReduceLike(0, true, null, buf, count, type, op, root, "Comm.iReduce");
        return iReduceLike(0, false, buf, null, count, type, op, root, "Comm.iReduce");
    }

    public final void allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        reduceLike(1, false, sendbuf, recvbuf, count, null, type, op, 0);
    }

    public final void allReduce(Object buf, int count, Datatype type, Op op)
            throws MPIException {
        reduceLike(1, true, null, buf, count, null, type, op, 0);
    }

    public final Request iAllReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type,
            Op op) throws MPIException {
        return iReduceLike(1, false, sendbuf, recvbuf, count, type, op, 0, "Comm.iAllReduce");
    }

    public final Request iAllReduce(Buffer buf, int count, Datatype type, Op op)
            throws MPIException {
        return iReduceLike(1, true, null, buf, count, type, op, 0, "Comm.iAllReduce");
    }

    public final void reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts,
            Datatype type, Op op) throws MPIException {
        reduceLike(2, false, sendbuf, recvbuf, 0, recvcounts, type, op, 0);
    }

    public final void reduceScatter(Object buf, int[] counts, Datatype type, Op op)
            throws MPIException {
        reduceLike(2, true, null, buf, 0, counts, type, op, 0);
    }

    public final Request iReduceScatter(Buffer sendbuf, Buffer recvbuf, int[] recvcounts,
            Datatype type, Op op) throws MPIException {
        return iReduceLike(2, false, sendbuf, recvbuf, 0, recvcounts, type, op, 0,
                "Comm.iReduceScatter");
    }

    public final Request iReduceScatter(Buffer buf, int[] counts, Datatype type, Op op)
            throws MPIException {
        return iReduceLike(2, true, null, buf, 0, counts, type, op, 0, "Comm.iReduceScatter");
    }

    public final Request iReduceScatterBlock(Buffer sendbuf, Buffer recvbuf, int recvcount,
            Datatype type, Op op) throws MPIException {
        return iReduceLike(3, false, sendbuf, recvbuf, recvcount, type, op, 0,
                "Comm.iReduceScatterBlock");
    }

    public final Request iReduceScatterBlock(Buffer buf, int count, Datatype type, Op op)
            throws MPIException {
        return iReduceLike(3, true, null, buf, count, type, op, 0, "Comm.iReduceScatterBlock");
    }

    public final void reduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount,
            Datatype type, Op op) throws MPIException {
        reduceLike(3, false, sendbuf, recvbuf, recvcount, null, type, op, 0);
    }

    public final void reduceScatterBlock(Object buf, int count, Datatype type, Op op)
            throws MPIException {
        reduceLike(3, true, null, buf, count, null, type, op, 0);
    }

    /** inoutbuf = inbuf op inoutbuf, locally. */
    public static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type,
            Op op) throws MPIException {
        MPI.COMM_SELF.reduceLike(6, false, inBuf, inOutBuf, count, null, type, op, 0);
    }

    // ---- neighbourhood collectives (on a cartesian or graph communicator) ----

    /** Each out-neighbour gets sendbuf; block i of recvbuf comes from in-neighbour i. */
    public final void neighborAllGather(Object sendbuf, int sendcount, Datatype sendtype,
            Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        PeerColl.neighbor(this, 0, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null,
                recvtype);
    }

    public final Request iNeighborAllGather(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        return PeerColl.iNeighbor(this, 0, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null,
                null, recvtype, "Comm.iNeighborAllGather");
    }

    public final void neighborAllGatherv(Object sendbuf, int sendcount, Datatype sendtype,
            Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        PeerColl.neighbor(this, 2, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs,
                recvtype);
    }

    public final Request iNeighborAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        return PeerColl.iNeighbor(this, 2, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount,
                displs, recvtype, "Comm.iNeighborAllGatherv");
    }

    /** Block i of sendbuf goes to out-neighbour i; block i of recvbuf comes from in-neighbour i. */
    public final void neighborAllToAll(Object sendbuf, int sendcount, Datatype sendtype,
            Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        PeerColl.neighbor(this, 1, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null,
                recvtype);
    }

    public final Request iNeighborAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        return PeerColl.iNeighbor(this, 1, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null,
                null, recvtype, "Comm.iNeighborAllToAll");
    }

    public final void neighborAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls,
            Datatype sendtype, Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        PeerColl.neighbor(this, 3, sendbuf, 0, sendcount, sdispls, sendtype, recvbuf, 0, recvcount, rdispls,
                recvtype);
    }

    public final Request iNeighborAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls,
            Datatype sendtype, Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        return PeerColl.iNeighbor(this, 3, sendbuf, 0, sendcount, sdispls, sendtype, recvbuf, 0, recvcount,
                rdispls, recvtype, "Comm.iNeighborAllToAllv");
    }
}
