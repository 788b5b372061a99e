// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** A persistent request: started any number of times, freed once. */
public final class Prequest extends Request {
    Prequest(long handle, Object buf) {
        super(handle, buf, null);
    }

    @Override
    boolean persistent() {
        return true;
    }

    private static native void startNative(long h) throws MPIException;

    public void start() throws MPIException {
        MPI.check();
        startNative(handle);
    }

    public static void startAll(Prequest[] requests) throws MPIException {
        MPI.check();
        ReqScratch s = ReqScratch.of(requests);
        try {
            startAllNative(s.address, requests.length);
        } finally {
            s.update(requests);
            s.release();
        }
    }
}
