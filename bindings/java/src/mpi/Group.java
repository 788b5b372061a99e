// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** A group of processes. */
public final class Group implements Freeable {
    long handle;

    Group(long handle) {
        this.handle = handle;
    }

    private static native int sizeNative(long g) throws MPIException;
    private static native int rankNative(long g) throws MPIException;
    private static native long inclNative(long g, int[] ranks, boolean excl) throws MPIException;
    private static native long rangeNative(long g, int[][] ranges, boolean excl)
            throws MPIException;
    // which: 0 union, 1 intersection, 2 difference
    private static native long setOpNative(long g1, long g2, int which) throws MPIException;
    private static native int[] translateNative(long g1, int[] ranks, long g2)
            throws MPIException;
    private static native int compareNative(long g1, long g2) throws MPIException;
    private static native void freeNative(long g) throws MPIException;

    public int getSize() throws MPIException {
        MPI.check();
        return sizeNative(handle);
    }

    /** This process's rank in the group, or MPI.UNDEFINED. */
    public int getRank() throws MPIException {
        MPI.check();
        return rankNative(handle);
    }

    /** The same as getSize, under the short name. */
    public int size() throws MPIException {
        return getSize();
    }

    public int rank() throws MPIException {
        return getRank();
    }

    public boolean isNull() {
        return handle == 0;
    }

    @Override
    public void free() throws MPIException {
        MPI.check();
        freeNative(handle);
        handle = 0;
    }

    public static int[] translateRanks(Group group1, int[] ranks1, Group group2)
            throws MPIException {
        MPI.check();
        return translateNative(group1.handle, ranks1, group2.handle);
    }

    /** MPI.IDENT, SIMILAR or UNEQUAL. */
    public static int compare(Group group1, Group group2) throws MPIException {
        MPI.check();
        return compareNative(group1.handle, group2.handle);
    }

    public static Group union(Group group1, Group group2) throws MPIException {
        MPI.check();
        return new Group(setOpNative(group1.handle, group2.handle, 0));
    }

    public static Group intersection(Group group1, Group group2) throws MPIException {
        MPI.check();
        return new Group(setOpNative(group1.handle, group2.handle, 1));
    }

    public static Group difference(Group group1, Group group2) throws MPIException {
        MPI.check();
        return new Group(setOpNative(group1.handle, group2.handle, 2));
    }

    public Group incl(int[] ranks) throws MPIException {
        MPI.check();
        return new Group(inclNative(handle, ranks, false));
    }

    public Group excl(int[] ranks) throws MPIException {
        MPI.check();
        return new Group(inclNative(handle, ranks, true));
    }

    /** Ranges of {first, last, stride}. */
    public Group rangeIncl(int[][] ranges) throws MPIException {
        MPI.check();
        return new Group(rangeNative(handle, ranges, false));
    }

    public Group rangeExcl(int[][] ranges) throws MPIException {
        MPI.check();
        return new Group(rangeNative(handle, ranges, true));
    }
}
