// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** A communicator with a graph or distributed graph topology. */
public final class GraphComm extends Intracomm {
    GraphComm(long handle) {
        super(handle);
    }

    GraphComm(long handle, long[] req) {
        super(handle, req);
    }

    private static native int[][] getNative(long comm) throws MPIException;
    private static native int[] neighborsNative(long comm, int rank) throws MPIException;
    private static native int[][] distNeighborsNative(long comm) throws MPIException;
    private static native int mapNative(long comm, int[] index, int[] edges) throws MPIException;

    @Override
    public GraphComm dup() throws MPIException {
        MPI.check();
        return new GraphComm(dupNative(handle));
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new GraphComm(dupWithInfoNative(handle, info.handle));
    }

    @Override
    public GraphComm iDup() throws MPIException {
        MPI.check();
        long[] req = new long[1];
        return new GraphComm(iDupNative(handle, req), req);
    }

    @Override
    public GraphComm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The index and edges of a graph topology (createGraph). */
    public GraphParms getDims() throws MPIException {
        MPI.check();
        int[][] g = getNative(handle);
        return new GraphParms(g[0], g[1]);
    }

    /** The neighbours of a rank in a graph topology, in the order of its edges. */
    public int[] getNeighbors(int rank) throws MPIException {
        MPI.check();
        return neighborsNative(handle, rank);
    }

    /** This rank's neighbours in a distributed graph topology. */
    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        MPI.check();
        int[][] n = distNeighborsNative(handle);
        return new DistGraphNeighbors(n[0], n[1], n[2], n[3], n[4][0] != 0);
    }

    /** This rank's rank in an optimal placement on such a graph, or MPI.UNDEFINED. */
    public int map(int[] index, int[] edges) throws MPIException {
        MPI.check();
        return mapNative(handle, index, edges);
    }
}
