// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/**
 * An inter-communicator: two disjoint groups. Point-to-point ranks and
 * collective roots name processes of the other (remote) group; in a rooted
 * collective the root passes MPI.ROOT, the rest of its group MPI.PROC_NULL.
 */
public final class Intercomm extends Comm {
    Intercomm(long handle) {
        super(handle);
    }

    Intercomm(long handle, long[] req) {
        super(handle, req);
    }

    private static native long remoteGroupNative(long comm) throws MPIException;
    private static native long mergeNative(long comm, boolean high) throws MPIException;

    @Override
    public Intercomm dup() throws MPIException {
        MPI.check();
        return new Intercomm(dupNative(handle));
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new Intercomm(dupWithInfoNative(handle, info.handle));
    }

    @Override
    public Intercomm iDup() throws MPIException {
        MPI.check();
        long[] req = new long[1];
        return new Intercomm(iDupNative(handle, req), req);
    }

    @Override
    public Intercomm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The size of the other group. */
    public int getRemoteSize() throws MPIException {
        MPI.check();
        return remoteSizeNative(handle);
    }

    public Group getRemoteGroup() throws MPIException {
        MPI.check();
        return new Group(remoteGroupNative(handle));
    }

    /** Both groups in one intracommunicator; the group passing high = true is ordered last. */
    public Intracomm merge(boolean high) throws MPIException {
        MPI.check();
        return new Intracomm(mergeNative(handle, high));
    }
}
