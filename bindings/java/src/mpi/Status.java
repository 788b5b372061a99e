// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The status of a received message or a completed request. */
public final class Status {
    // Field indices of the long[] C fills (ujava.h: UJ_ST_*).
    static final int SOURCE = 0, TAG = 1, ERROR = 2, CANCELLED = 3, COUNT = 4, INDEX = 5, LEN = 6;

    final long[] data;

    Status() {
        data = new long[LEN];
    }

    Status(long[] data) {
        this.data = data;
    }

    /** A status packed by p2p.c's recvFast (a value of at least 0). */
    static Status unpack(long p) {
        // Constant indices: the JIT keeps a status the caller drops, or
        // only reads, in registers instead of allocating it.
        long[] d = new long[LEN];
        d[SOURCE] = (p >>> 47) - 2;
        d[TAG] = ((p >>> 23) & 0xffffff) - 1;
        d[COUNT] = p & 0x7fffff;
        d[INDEX] = MPI.UNDEFINED;
        return new Status(d);
    }

    private static native int countNative(long[] data, long type, boolean elements)
            throws MPIException;

    /** Number of received elements of the datatype, or MPI.UNDEFINED. */
    public int getCount(Datatype datatype) throws MPIException {
        return countNative(data, datatype.handle, false);
    }

    /** Number of received basic elements of the datatype. */
    public int getElements(Datatype datatype) throws MPIException {
        return countNative(data, datatype.handle, true);
    }

    public boolean isCancelled() throws MPIException {
        return data[CANCELLED] != 0;
    }

    public void setCancelled(boolean flag) throws MPIException {
        data[CANCELLED] = flag ? 1 : 0;
    }

    public int getSource() {
        return (int) data[SOURCE];
    }

    public int getTag() {
        return (int) data[TAG];
    }

    public int getError() {
        return (int) data[ERROR];
    }

    /** Index of the request in waitAny/testAny (else MPI.UNDEFINED). */
    public int getIndex() {
        return (int) data[INDEX];
    }

    @Override
    public String toString() {
        return "Status(source=" + getSource() + ", tag=" + getTag() + ", error=" + getError()
                + ", bytes=" + data[COUNT] + ")";
    }
}
