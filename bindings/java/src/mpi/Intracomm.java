// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.Buffer;

/** An intra-communicator: making new communicators, and the prefix reductions. */
public class Intracomm extends Comm {
    Intracomm(long handle) {
        super(handle);
    }

    Intracomm(long handle, long[] req) {
        super(handle, req);
    }

    private static native long splitNative(long comm, int colour, int key) throws MPIException;
    private static native long splitTypeNative(long comm, int type, int key, long info)
            throws MPIException;
    private static native long createNative(long comm, long group) throws MPIException;
    private static native long createGroupNative(long comm, long group, int tag)
            throws MPIException;
    private static native long createCartNative(long comm, int[] dims, boolean[] periods,
            boolean reorder) throws MPIException;
    private static native long createGraphNative(long comm, int[] index, int[] edges,
            boolean reorder) throws MPIException;
    private static native long createDistGraphNative(long comm, boolean adjacent, int[] sources,
            int[] degrees, int[] sourceWeights, int[] destinations, int[] weights, long info,
            boolean reorder, boolean weighted) throws MPIException;

    @Override
    public Intracomm dup() throws MPIException {
        MPI.check();
        return new Intracomm(dupNative(handle));
    }

    @Override
    public Intracomm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new Intracomm(dupWithInfoNative(handle, info.handle));
    }

    @Override
    public Intracomm iDup() throws MPIException {
        MPI.check();
        long[] req = new long[1];
        return new Intracomm(iDupNative(handle, req), req);
    }

    @Override
    public Intracomm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Ranks of one colour form a communicator, ordered by key; MPI.UNDEFINED gives a null one. */
    public final Intracomm split(int colour, int key) throws MPIException {
        MPI.check();
        return new Intracomm(splitNative(handle, colour, key));
    }

    public final Intracomm splitType(int splitType, int key, Info info) throws MPIException {
        MPI.check();
        return new Intracomm(splitTypeNative(handle, splitType, key, info.handle));
    }

    /** The communicator of a subgroup (collective; ranks outside it get a null one). */
    public final Intracomm create(Group group) throws MPIException {
        MPI.check();
        return new Intracomm(createNative(handle, group.handle));
    }

    /** The communicator of a subgroup, collective over the group's members only. */
    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        MPI.check();
        return new Intracomm(createGroupNative(handle, group.handle, tag));
    }

    /** A cartesian grid of the given extents; ranks outside it get a null communicator. */
    public final CartComm createCart(int[] dims, boolean[] periods, boolean reorder)
            throws MPIException {
        MPI.check();
        return new CartComm(createCartNative(handle, dims, periods, reorder));
    }

    /** A graph given as MPI's index and edges arrays. */
    public final GraphComm createGraph(int[] index, int[] edges, boolean reorder)
            throws MPIException {
        MPI.check();
        return new GraphComm(createGraphNative(handle, index, edges, reorder));
    }

    /** A distributed graph: edges from sources[i] to the next degrees[i] destinations. */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations,
            int[] weights, Info info, boolean reorder) throws MPIException {
        MPI.check();
        return new GraphComm(createDistGraphNative(handle, false, sources, degrees, null,
                destinations, weights, info.handle, reorder, true));
    }

    /** The same, unweighted. */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations,
            Info info, boolean reorder) throws MPIException {
        MPI.check();
        return new GraphComm(createDistGraphNative(handle, false, sources, degrees, null,
                destinations, null, info.handle, reorder, false));
    }

    /** A distributed graph from each rank's own in- and out-neighbours. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] sourceWeights,
            int[] destinations, int[] destWeights, Info info, boolean reorder)
            throws MPIException {
        MPI.check();
        return new GraphComm(createDistGraphNative(handle, true, sources, null, sourceWeights,
                destinations, destWeights, info.handle, reorder, true));
    }

    /** The same, unweighted. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] destinations, Info info,
            boolean reorder) throws MPIException {
        MPI.check();
        return new GraphComm(createDistGraphNative(handle, true, sources, null, null,
                destinations, null, info.handle, reorder, false));
    }

    // ---- dynamic processes ----

    private static native long spawnNative(long comm, String command, String[] argv,
            int maxprocs, long info, int root, int[] errcodes) throws MPIException;
    private static native long spawnMultipleNative(long comm, String[] commands,
            String[][] argv, int[] maxprocs, long[] info, int root, int[] errcodes)
            throws MPIException;
    private static native String openPortNative(long info) throws MPIException;
    private static native void closePortNative(String port) throws MPIException;
    private static native long meetNative(long comm, boolean accept, String port, long info,
            int root) throws MPIException;
    private static native void nameNative(int op, String service, long info, String port)
            throws MPIException;
    private static native String lookupNative(String service, long info) throws MPIException;

    /**
     * Starts maxprocs copies of command (collective; command, argv, maxprocs
     * and info matter at root only) and returns the intercommunicator to them.
     * argv null: no arguments; errcodes null: the codes are not wanted.
     */
    public final Intercomm spawn(String command, String[] argv, int maxprocs, Info info,
            int root, int[] errcodes) throws MPIException {
        MPI.check();
        return new Intercomm(spawnNative(handle, command, argv, maxprocs,
                info == null ? MPI.INFO_NULL.handle : info.handle, root, errcodes));
    }

    /** Starts several programs as one group of children (their ranks in command order). */
    public final Intercomm spawnMultiple(String[] commands, String[][] argv, int[] maxprocs,
            Info[] info, int root, int[] errcodes) throws MPIException {
        MPI.check();
        long[] ih = null;
        if (info != null) {
            ih = new long[info.length];
            for (int i = 0; i < info.length; i++)
                ih[i] = info[i] == null ? MPI.INFO_NULL.handle : info[i].handle;
        }
        return new Intercomm(spawnMultipleNative(handle, commands, argv, maxprocs, ih, root,
                errcodes));
    }

    public static String openPort() throws MPIException {
        return openPort(MPI.INFO_NULL);
    }

    /** A port another job's (or group's) processes can connect to. */
    public static String openPort(Info info) throws MPIException {
        MPI.check();
        return openPortNative(info.handle);
    }

    public static void closePort(String name) throws MPIException {
        MPI.check();
        closePortNative(name);
    }

    /** Waits for a connect on port (collective; port matters at root only). */
    public final Intercomm accept(String port, int root) throws MPIException {
        return accept(port, MPI.INFO_NULL, root);
    }

    public final Intercomm accept(String port, Info info, int root) throws MPIException {
        MPI.check();
        return new Intercomm(meetNative(handle, true, port, info.handle, root));
    }

    /** Connects to a port another group accepts on (collective; port matters at root only). */
    public final Intercomm connect(String port, int root) throws MPIException {
        return connect(port, MPI.INFO_NULL, root);
    }

    public final Intercomm connect(String port, Info info, int root) throws MPIException {
        MPI.check();
        return new Intercomm(meetNative(handle, false, port, info.handle, root));
    }

    public static void publishName(String service, String port) throws MPIException {
        publishName(service, MPI.INFO_NULL, port);
    }

    public static void publishName(String service, Info info, String port)
            throws MPIException {
        MPI.check();
        nameNative(0, service, info.handle, port);
    }

    public static void unpublishName(String service, String port) throws MPIException {
        unpublishName(service, MPI.INFO_NULL, port);
    }

    public static void unpublishName(String service, Info info, String port)
            throws MPIException {
        MPI.check();
        nameNative(1, service, info.handle, port);
    }

    public static String lookupName(String service) throws MPIException {
        return lookupName(service, MPI.INFO_NULL);
    }

    public static String lookupName(String service, Info info) throws MPIException {
        MPI.check();
        return lookupNative(service, info.handle);
    }

    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        reduceLike(4, false, sendbuf, recvbuf, count, null, type, op, 0);
    }

    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        reduceLike(4, true, null, recvbuf, count, null, type, op, 0);
    }

    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        reduceLike(5, false, sendbuf, recvbuf, count, null, type, op, 0);
    }

    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        reduceLike(5, true, null, buf, count, null, type, op, 0);
    }

    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        return iReduceLike(4, false, sendbuf, recvbuf, count, type, op, 0, "Intracomm.iScan");
    }

    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return iReduceLike(4, true, null, buf, count, type, op, 0, "Intracomm.iScan");
    }

    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        return iReduceLike(5, false, sendbuf, recvbuf, count, type, op, 0, "Intracomm.iExScan");
    }

    public final Request iExScan(Buffer buf, int count, Datatype type, Op op)
            throws MPIException {
        return iReduceLike(5, true, null, buf, count, type, op, 0, "Intracomm.iExScan");
    }
}
