// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** A communicator with a cartesian topology (Intracomm.createCart). */
public final class CartComm extends Intracomm {
    CartComm(long handle) {
        super(handle);
    }

    CartComm(long handle, long[] req) {
        super(handle, req);
    }

    private static native int dimNative(long comm) throws MPIException;
    private static native void getNative(long comm, int[] dims, int[] periods, int[] coords)
            throws MPIException;
    private static native int rankNative(long comm, int[] coords) throws MPIException;
    private static native int[] coordsNative(long comm, int rank) throws MPIException;
    private static native int[] shiftNative(long comm, int direction, int disp)
            throws MPIException;
    private static native long subNative(long comm, boolean[] remainDims) throws MPIException;
    private static native int mapNative(long comm, int[] dims, boolean[] periods)
            throws MPIException;
    private static native void dimsCreateNative(int nnodes, int[] dims) throws MPIException;

    @Override
    public CartComm dup() throws MPIException {
        MPI.check();
        return new CartComm(dupNative(handle));
    }

    @Override
    public CartComm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new CartComm(dupWithInfoNative(handle, info.handle));
    }

    @Override
    public CartComm iDup() throws MPIException {
        MPI.check();
        long[] req = new long[1];
        return new CartComm(iDupNative(handle, req), req);
    }

    @Override
    public CartComm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The extents, periodicity and this rank's coordinates. */
    public CartParms getTopo() throws MPIException {
        MPI.check();
        int n = dimNative(handle);
        int[] dims = new int[n], per = new int[n], coords = new int[n];
        getNative(handle, dims, per, coords);
        boolean[] periods = new boolean[n];
        for (int i = 0; i < n; i++)
            periods[i] = per[i] != 0;
        return new CartParms(dims, periods, coords);
    }

    /** The rank at the given coordinates. */
    public int getRank(int[] coords) throws MPIException {
        MPI.check();
        return rankNative(handle, coords);
    }

    public int[] getCoords(int rank) throws MPIException {
        MPI.check();
        return coordsNative(handle, rank);
    }

    /** The ranks disp steps back (source) and forward (dest) along a dimension. */
    public ShiftParms shift(int direction, int disp) throws MPIException {
        MPI.check();
        int[] r = shiftNative(handle, direction, disp);
        return new ShiftParms(r[0], r[1]);
    }

    /** The sub-grid through this rank that keeps the dimensions marked true. */
    public CartComm sub(boolean[] remainDims) throws MPIException {
        MPI.check();
        return new CartComm(subNative(handle, remainDims));
    }

    /** This rank's rank in an optimal placement on such a grid, or MPI.UNDEFINED. */
    public int map(int[] dims, boolean[] periods) throws MPIException {
        MPI.check();
        return mapNative(handle, dims, periods);
    }

    /** Fills the zero entries of dims with a balanced factorisation of nnodes. */
    public static void createDims(int nnodes, int[] dims) throws MPIException {
        MPI.check();
        dimsCreateNative(nnodes, dims);
    }
}
