// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/**
 * A non-blocking operation. The request keeps its buffers reachable until
 * it completes (or, persistent, until freed), so a direct buffer that only
 * the request still names cannot be collected while MPI writes into it.
 */
public class Request implements Freeable {
    long handle;
    private Object buf1, buf2; // kept alive while the operation may touch them

    Request(long handle) {
        this.handle = handle;
    }

    Request(long handle, Object b1, Object b2) {
        this.handle = handle;
        buf1 = b1;
        buf2 = b2;
    }

    boolean persistent() {
        return false;
    }

    /** After MPI changed the handle: a finished request lets go of its buffers. */
    void setHandle(long h) {
        handle = h;
        if (h == 0 && !persistent()) buf1 = buf2 = null;
    }

    private static native void waitNative(long h, long[] res) throws MPIException;
    private static native boolean testNative(long h, long[] res) throws MPIException;
    private static native boolean getStatusNative(long h, long[] res) throws MPIException;
    private static native void cancelNative(long h) throws MPIException;
    private static native void freeNative(long h) throws MPIException;
    static native void startAllNative(long[] hs) throws MPIException;
    private static native void waitAllNative(long[] hs, long[] sts) throws MPIException;
    private static native boolean testAllNative(long[] hs, long[] sts) throws MPIException;
    private static native int anyNative(long[] hs, long[] st, boolean test) throws MPIException;
    private static native int someNative(long[] hs, int[] idx, long[] sts, boolean test)
            throws MPIException;

    private static Status status(long[] res) {
        long[] d = new long[Status.LEN];
        System.arraycopy(res, 0, d, 0, Status.LEN);
        return new Status(d);
    }

    public final boolean isNull() {
        return handle == 0;
    }

    public final void cancel() throws MPIException {
        MPI.check();
        cancelNative(handle);
    }

    @Override
    public void free() throws MPIException {
        MPI.check();
        if (handle != 0) freeNative(handle);
        handle = 0;
        buf1 = buf2 = null;
    }

    /** Waits for completion and returns the status. */
    public final Status waitStatus() throws MPIException {
        MPI.check();
        long[] res = new long[Status.LEN + 1];
        try {
            waitNative(handle, res);
        } finally {
            setHandle(res[Status.LEN]);
        }
        return status(res);
    }

    public final void waitFor() throws MPIException {
        waitStatus();
    }

    /** The status if the operation is complete (the request is then finished), else null. */
    public final Status testStatus() throws MPIException {
        MPI.check();
        long[] res = new long[Status.LEN + 1];
        res[Status.LEN] = handle;
        boolean done;
        try {
            done = testNative(handle, res);
        } finally {
            setHandle(res[Status.LEN]);
        }
        return done ? status(res) : null;
    }

    public final boolean test() throws MPIException {
        return testStatus() != null;
    }

    /** The status if complete, else null; the request stays as it is. */
    public final Status getStatus() throws MPIException {
        MPI.check();
        long[] res = new long[Status.LEN + 1];
        return getStatusNative(handle, res) ? status(res) : null;
    }

    static long[] handles(Request[] rs) {
        long[] h = new long[rs.length];
        for (int i = 0; i < rs.length; i++)
            h[i] = rs[i] == null ? 0 : rs[i].handle;
        return h;
    }

    static void update(Request[] rs, long[] h) {
        for (int i = 0; i < rs.length; i++)
            if (rs[i] != null) rs[i].setHandle(h[i]);
    }

    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), st = new long[Status.LEN];
        int i;
        try {
            i = anyNative(h, st, false);
        } finally {
            update(requests, h);
        }
        if (i == MPI.UNDEFINED) return null;
        return new Status(st);
    }

    /** Index of a completed request, or MPI.UNDEFINED if all are null. */
    public static int waitAny(Request[] requests) throws MPIException {
        Status s = waitAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    /** The status of a completed request (getIndex() says which), or null. */
    public static Status testAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), st = new long[Status.LEN];
        int i;
        try {
            i = anyNative(h, st, true);
        } finally {
            update(requests, h);
        }
        if (i < 0) return null;
        return new Status(st);
    }

    /** Index of a completed request, or MPI.UNDEFINED if none is. */
    public static int testAny(Request[] requests) throws MPIException {
        Status s = testAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), sts = new long[requests.length * Status.LEN];
        try {
            waitAllNative(h, sts);
        } finally {
            update(requests, h);
        }
        Status[] r = new Status[requests.length];
        for (int i = 0; i < r.length; i++)
            r[i] = Status.at(sts, i);
        return r;
    }

    public static void waitAll(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests);
        try {
            waitAllNative(h, null);
        } finally {
            update(requests, h);
        }
    }

    /** Statuses if all are complete, else null. */
    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), sts = new long[requests.length * Status.LEN];
        boolean done;
        try {
            done = testAllNative(h, sts);
        } finally {
            update(requests, h);
        }
        if (!done) return null;
        Status[] r = new Status[requests.length];
        for (int i = 0; i < r.length; i++)
            r[i] = Status.at(sts, i);
        return r;
    }

    public static boolean testAll(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests);
        try {
            return testAllNative(h, null);
        } finally {
            update(requests, h);
        }
    }

    private static Status[] some(Request[] requests, boolean test) throws MPIException {
        MPI.check();
        long[] h = handles(requests), sts = new long[requests.length * Status.LEN];
        int[] idx = new int[requests.length];
        int n;
        try {
            n = someNative(h, idx, sts, test);
        } finally {
            update(requests, h);
        }
        if (n == MPI.UNDEFINED) return null;
        Status[] r = new Status[n];
        for (int i = 0; i < n; i++)
            r[i] = Status.at(sts, i);
        return r;
    }

    /** Statuses of the requests that completed (getIndex() says which); null if all are null. */
    public static Status[] waitSomeStatus(Request[] requests) throws MPIException {
        return some(requests, false);
    }

    public static int[] waitSome(Request[] requests) throws MPIException {
        return indices(some(requests, false));
    }

    public static Status[] testSomeStatus(Request[] requests) throws MPIException {
        return some(requests, true);
    }

    public static int[] testSome(Request[] requests) throws MPIException {
        return indices(some(requests, true));
    }

    private static int[] indices(Status[] s) {
        if (s == null) return null;
        int[] r = new int[s.length];
        for (int i = 0; i < s.length; i++)
            r[i] = s[i].getIndex();
        return r;
    }
}
