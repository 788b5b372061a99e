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

    // request.c. addr is a ReqScratch's (the handles, then a status
    // record and an index per request); MPI updates the handles in place.
    private static native void waitNative(long addr) throws MPIException;
    private static native boolean testNative(long addr) throws MPIException;
    private static native boolean getStatusNative(long addr) throws MPIException;
    private static native void cancelNative(long h) throws MPIException;
    private static native void freeNative(long h) throws MPIException;
    static native void startAllNative(long addr, int n) throws MPIException;
    private static native void waitAllNative(long addr, int n, boolean statuses)
            throws MPIException;
    private static native boolean testAllNative(long addr, int n, boolean statuses)
            throws MPIException;
    private static native int anyNative(long addr, int n, boolean test) throws MPIException;
    private static native int someNative(long addr, int n, boolean test) throws MPIException;

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
        ReqScratch s = ReqScratch.of(handle);
        try {
            waitNative(s.address);
            return s.status(0);
        } finally {
            setHandle(s.handle(0));
            s.release();
        }
    }

    public final void waitFor() throws MPIException {
        waitStatus();
    }

    /** The status if the operation is complete (the request is then finished), else null. */
    public final Status testStatus() throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(handle);
        try {
            return testNative(s.address) ? s.status(0) : null;
        } finally {
            setHandle(s.handle(0));
            s.release();
        }
    }

    public final boolean test() throws MPIException {
        return testStatus() != null;
    }

    /** The status if complete, else null; the request stays as it is. */
    public final Status getStatus() throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(handle);
        try {
            return getStatusNative(s.address) ? s.status(0) : null;
        } finally {
            s.release();
        }
    }

    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        return any(requests, false);
    }

    /** Index of a completed request, or MPI.UNDEFINED if all are null. */
    public static int waitAny(Request[] requests) throws MPIException {
        Status s = waitAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    /** The status of a completed request (getIndex() says which), or null. */
    public static Status testAnyStatus(Request[] requests) throws MPIException {
        return any(requests, true);
    }

    /** Index of a completed request, or MPI.UNDEFINED if none is. */
    public static int testAny(Request[] requests) throws MPIException {
        Status s = testAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    /** waitAny and testAny: the completed request's status, null if none. */
    private static Status any(Request[] requests, boolean test) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            int i = anyNative(s.address, requests.length, test);
            return i < 0 || i == MPI.UNDEFINED ? null : s.status(0);
        } finally {
            s.update(requests);
            s.release();
        }
    }

    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            waitAllNative(s.address, requests.length, true);
            return s.statuses(requests.length);
        } finally {
            s.update(requests);
            s.release();
        }
    }

    public static void waitAll(Request[] requests) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            waitAllNative(s.address, requests.length, false);
        } finally {
            s.update(requests);
            s.release();
        }
    }

    /** Statuses if all are complete, else null. */
    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            return testAllNative(s.address, requests.length, true)
                    ? s.statuses(requests.length) : null;
        } finally {
            s.update(requests);
            s.release();
        }
    }

    public static boolean testAll(Request[] requests) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            return testAllNative(s.address, requests.length, false);
        } finally {
            s.update(requests);
            s.release();
        }
    }

    private static Status[] some(Request[] requests, boolean test) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            int n = someNative(s.address, requests.length, test);
            return n == MPI.UNDEFINED ? null : s.statuses(n);
        } finally {
            s.update(requests);
            s.release();
        }
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
