// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.ByteBuffer;

/**
 * How Request's calls reach C: a per-thread direct buffer, passed by
 * address, that holds the requests' handles as the MPI_Request array C
 * hands to MPI (a handle is the C pointer, 8 bytes), then a status record
 * (Status.LEN longs) per request. MPI writes the handles in place (a finished request
 * becomes MPI_REQUEST_NULL, 0) and C writes the records; Java reads them
 * back. So a waitAll of a window of requests costs one JNI call with
 * primitive arguments, no Java array, no JNI array access and no malloc.
 *
 * One scratch per thread is kept while it is at most KEEP requests long;
 * a longer call, or a call made while this thread's scratch is in use (a
 * user operation run by a pending reduction that itself waits on
 * requests), gets a scratch of its own.
 */
final class ReqScratch {
    private static final int KEEP = 4096;
    private static final int REC = Status.LEN * 8; // bytes of one status record
    private static final ThreadLocal<ReqScratch> MINE =
            ThreadLocal.withInitial(() -> new ReqScratch(64));

    private final ByteBuffer buf;
    private final int cap; // requests
    /** The address of the handles (element 0). */
    final long address;
    private boolean busy;
    private int n; // requests of the current call

    private ReqScratch(int cap) {
        this.cap = cap;
        buf = MPI.newByteBuffer(Math.multiplyExact(cap, 8 + REC));
        address = Direct.addressOf(buf);
    }

    /** This thread's scratch for n requests; release() it after the call. */
    static ReqScratch of(int n) {
        ReqScratch s = MINE.get();
        if (s.busy || s.cap < n) {
            int cap = Math.max(64, Integer.highestOneBit(Math.max(n - 1, 1)) << 1);
            ReqScratch t = new ReqScratch(cap);
            if (!s.busy && n <= KEEP) MINE.set(t);
            s = t;
        }
        s.busy = true;
        s.n = n;
        return s;
    }

    /** The scratch holding the handles of rs (null requests as MPI_REQUEST_NULL). */
    static ReqScratch of(Request[] rs) {
        ReqScratch s = of(rs.length);
        for (int i = 0; i < rs.length; i++)
            s.buf.putLong(i << 3, rs[i] == null ? 0 : rs[i].handle);
        return s;
    }

    /** The scratch holding one handle. */
    static ReqScratch of(long handle) {
        ReqScratch s = of(1);
        s.buf.putLong(0, handle);
        return s;
    }

    long handle(int i) {
        return buf.getLong(i << 3);
    }

    /** Gives each request the handle MPI left for it. */
    void update(Request[] rs) {
        for (int i = 0; i < rs.length; i++)
            if (rs[i] != null) rs[i].setHandle(buf.getLong(i << 3));
    }

    /** A new Status from record i. */
    Status status(int i) {
        long[] d = new long[Status.LEN];
        int at = n * 8 + i * REC;
        for (int f = 0; f < Status.LEN; f++)
            d[f] = buf.getLong(at + f * 8);
        return new Status(d);
    }

    /** Statuses of records 0 ... k-1. */
    Status[] statuses(int k) {
        Status[] r = new Status[k];
        for (int i = 0; i < k; i++)
            r[i] = status(i);
        return r;
    }

    void release() {
        busy = false;
        java.lang.ref.Reference.reachabilityFence(buf); // C used it by address
    }
}
