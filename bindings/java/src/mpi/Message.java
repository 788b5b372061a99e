// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.Buffer;

/** A message matched by mProbe/imProbe, received later by mRecv/imRecv. */
public final class Message {
    long handle;
    private static final long NO_PROC = MPI.predefined(MPI.K_MSG, 1);

    public Message() {
        handle = 0;
    }

    private static native long mProbeNative(long comm, int src, int tag, long[] st)
            throws MPIException;
    private static native long imProbeNative(long comm, int src, int tag, long[] st)
            throws MPIException;
    private static native void mRecvNative(long msg, Object buf, boolean d, int off, long len,
            int count, long type, long[] st) throws MPIException;
    private static native long imRecvNative(long msg, Buffer buf, long len, int count, long type)
            throws MPIException;

    public boolean isNull() {
        return handle == 0;
    }

    public boolean isNoProc() {
        return handle == NO_PROC;
    }

    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        MPI.check();
        Status s = new Status();
        handle = mProbeNative(comm.handle, source, tag, s.data);
        return s;
    }

    /** The status of a matched message (now held by this Message), or null. */
    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        MPI.check();
        Status s = new Status();
        long h = imProbeNative(comm.handle, source, tag, s.data);
        if (h == 0) return null;
        handle = h;
        return s;
    }

    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        Status s = new Status();
        mRecvNative(handle, Buf.base(buf), Buf.direct(buf), Buf.off(buf), Buf.len(buf), count,
                type.handle, s.data);
        handle = 0;
        return s;
    }

    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        Buf.needDirect(buf, "Message.imRecv");
        long r = imRecvNative(handle, buf, Buf.len(buf), count, type.handle);
        handle = 0;
        return new Request(r, null, buf);
    }
}
