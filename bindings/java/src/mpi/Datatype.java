// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/**
 * A datatype. Counts, displacements and extents are in elements of the
 * base type (the Java primitive type the datatype is built from), as in
 * Open MPI's binding; the "H" constructors, createStruct and createResized
 * take bytes.
 */
public final class Datatype implements Freeable, Cloneable {
    // Base types, the indices native predefined() knows.
    static final int NULL = 0, BYTE = 1, CHAR = 2, SHORT = 3, BOOLEAN = 4, INT = 5, LONG = 6,
            FLOAT = 7, DOUBLE = 8, PACKED = 9, INT2 = 10, SHORT_INT = 11, LONG_INT = 12,
            FLOAT_INT = 13, DOUBLE_INT = 14, FLOAT_COMPLEX = 15, DOUBLE_COMPLEX = 16;
    private static final int[] SIZES = {1, 1, 2, 2, 1, 4, 8, 4, 8, 1, 8, 6, 12, 8, 12, 8, 16};

    long handle;
    final int baseType, baseSize;
    private final boolean predefined;
    /**
     * Bytes per element when count elements span exactly [0, count * span)
     * (lower bounds 0, extent equal to true extent), else 0. The fast path
     * (Buf.fast) checks a buffer against count * span in Java; 0 leaves the
     * check, and the call, to the general path. Learned from C once the
     * library is initialized (predefined types) or the type is made.
     */
    long span;
    /** Whether the span is all data (size equals span): no holes to preserve. */
    boolean dense;

    private Datatype(long handle, int baseType, int baseSize, boolean predefined) {
        this.handle = handle;
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.predefined = predefined;
    }

    static Datatype basic(int type) {
        return new Datatype(MPI.predefined(MPI.K_TYPE, type), type, SIZES[type], true);
    }

    private static Datatype derived(Datatype base, long handle) throws MPIException {
        Datatype t = new Datatype(handle, base.baseType, base.baseSize, false);
        t.learnSpan();
        return t;
    }

    /** Sets span from the extents in C (MPI must be initialized). */
    void learnSpan() throws MPIException {
        long[] e = new long[4];
        extents(handle, e);
        span = e[0] == 0 && e[2] == 0 && e[1] > 0 && e[1] == e[3] ? e[1] : 0;
        dense = span != 0 && sizeNative(handle) == span;
    }

    private static native long contiguous(int count, long old) throws MPIException;
    private static native long vector(int count, int bl, long stride, long old, boolean bytes)
            throws MPIException;
    private static native long indexed(int[] bls, int[] disps, long old, int kind, int bl)
            throws MPIException;
    private static native long struct(int[] bls, int[] disps, long[] types) throws MPIException;
    private static native long subarray(int[] sizes, int[] subsizes, int[] starts, int order,
            long old) throws MPIException;
    private static native long resized(long old, long lb, long extent) throws MPIException;
    private static native long dupNative(long h) throws MPIException;
    private static native void commitNative(long h) throws MPIException;
    private static native void freeNative(long h) throws MPIException;
    private static native void extents(long h, long[] out) throws MPIException;
    private static native int sizeNative(long h) throws MPIException;
    private static native void setNameNative(long h, String name) throws MPIException;
    private static native String getNameNative(long h) throws MPIException;

    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        MPI.check();
        return derived(oldType, contiguous(count, oldType.handle));
    }

    /** Stride in elements of oldType. */
    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType)
            throws MPIException {
        MPI.check();
        return derived(oldType, vector(count, blockLength, stride, oldType.handle, false));
    }

    /** Stride in bytes. */
    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType)
            throws MPIException {
        MPI.check();
        return derived(oldType, vector(count, blockLength, stride, oldType.handle, true));
    }

    /** Displacements in elements of oldType. */
    public static Datatype createIndexed(int[] blockLengths, int[] displacements, Datatype oldType)
            throws MPIException {
        MPI.check();
        return derived(oldType, indexed(blockLengths, displacements, oldType.handle, 0, 0));
    }

    /** Displacements in bytes. */
    public static Datatype createHIndexed(int[] blockLengths, int[] displacements,
            Datatype oldType) throws MPIException {
        MPI.check();
        return derived(oldType, indexed(blockLengths, displacements, oldType.handle, 1, 0));
    }

    /** Blocks of one length at displacements in elements of oldType. */
    public static Datatype createIndexedBlock(int blockLength, int[] displacements,
            Datatype oldType) throws MPIException {
        MPI.check();
        return derived(oldType, indexed(null, displacements, oldType.handle, 2, blockLength));
    }

    /** Blocks of one length at displacements in bytes. */
    public static Datatype createHIndexedBlock(int blockLength, int[] displacements,
            Datatype oldType) throws MPIException {
        MPI.check();
        return derived(oldType, indexed(null, displacements, oldType.handle, 3, blockLength));
    }

    /** Displacements in bytes; the result's base type is BYTE. */
    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types)
            throws MPIException {
        MPI.check();
        long[] h = new long[types.length];
        for (int i = 0; i < types.length; i++)
            h[i] = types[i].handle;
        return derived(MPI.BYTE, struct(blockLengths, displacements, h));
    }

    /** A sub-array of an n-dimensional array (order MPI.ORDER_C or MPI.ORDER_FORTRAN). */
    public static Datatype createSubarray(int[] sizes, int[] subSizes, int[] starts, int order,
            Datatype oldType) throws MPIException {
        MPI.check();
        return derived(oldType, subarray(sizes, subSizes, starts, order, oldType.handle));
    }

    /** Lower bound and extent in bytes. */
    public static Datatype createResized(Datatype oldType, int lb, int extent)
            throws MPIException {
        MPI.check();
        return derived(oldType, resized(oldType.handle, lb, extent));
    }

    public Datatype dup() throws MPIException {
        MPI.check();
        return derived(this, dupNative(handle));
    }

    @Override
    public Datatype clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    public void commit() throws MPIException {
        MPI.check();
        commitNative(handle);
    }

    @Override
    public void free() throws MPIException {
        MPI.check();
        if (predefined) throw new MPIException("Datatype.free: a predefined datatype cannot be freed");
        freeNative(handle);
        handle = 0;
        span = 0;
        dense = false;
    }

    public boolean isNull() {
        return handle == 0;
    }

    private long[] ext() throws MPIException {
        MPI.check();
        long[] e = new long[4];
        extents(handle, e);
        return e;
    }

    /** Lower bound in base elements. */
    public int getLb() throws MPIException {
        return (int) (ext()[0] / baseSize);
    }

    /** Extent in base elements. */
    public int getExtent() throws MPIException {
        return (int) (ext()[1] / baseSize);
    }

    public int getTrueLb() throws MPIException {
        return (int) (ext()[2] / baseSize);
    }

    public int getTrueExtent() throws MPIException {
        return (int) (ext()[3] / baseSize);
    }

    /** Size in base elements. */
    public int getSize() throws MPIException {
        MPI.check();
        return sizeNative(handle) / baseSize;
    }

    /** Size in bytes (ump's addition). */
    public int getByteSize() throws MPIException {
        MPI.check();
        return sizeNative(handle);
    }

    /** Extent in bytes (ump's addition). */
    public int getByteExtent() throws MPIException {
        return (int) ext()[1];
    }

    public void setName(String name) throws MPIException {
        MPI.check();
        setNameNative(handle, name);
    }

    public String getName() throws MPIException {
        MPI.check();
        return getNameNative(handle);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Datatype && ((Datatype) o).handle == handle;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(handle);
    }
}
