// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A reduction operation: a predefined one (MPI.SUM, ...) or a UserFunction. */
public final class Op implements Freeable {
    long handle;
    private final UserFunction uf;
    private final boolean commute;
    // What the next callback works on; set before each reduction (as in Open
    // MPI's binding, an Op runs one reduction at a time).
    private Datatype datatype;
    private boolean arrays;
    private Throwable failure;

    Op(int which) {
        handle = MPI.predefined(MPI.K_OP, which);
        uf = null;
        commute = true;
    }

    public Op(UserFunction function, boolean commute) {
        uf = function;
        this.commute = commute;
    }

    private native long createNative(boolean commute) throws MPIException;
    private native void freeNative(long h) throws MPIException;

    boolean isUser() {
        return uf != null;
    }

    public boolean isCommutative() {
        return commute;
    }

    public boolean isNull() {
        return handle == 0 && uf == null;
    }

    /** Before a reduction: the datatype and whether the caller gave arrays. */
    void prepare(Datatype type, boolean arrays) throws MPIException {
        if (uf == null) return;
        synchronized (this) {
            if (handle == 0) handle = createNative(commute);
        }
        datatype = type;
        this.arrays = arrays;
        failure = null;
    }

    /** After a reduction: the first exception the user function threw, as MPIException. */
    void rethrow() throws MPIException {
        Throwable t = failure;
        failure = null;
        if (t == null) return;
        if (t instanceof MPIException) throw (MPIException) t;
        throw new MPIException(t);
    }

    @Override
    public void free() throws MPIException {
        if (uf == null) throw new MPIException("Op.free: a predefined operation cannot be freed");
        if (handle != 0) {
            MPI.check();
            freeNative(handle);
        }
        handle = 0;
    }

    /** Called by C (op.c) for each chunk of the reduction. */
    private void callback(ByteBuffer in, ByteBuffer inOut, int count) {
        if (failure != null) return;
        in.order(ByteOrder.nativeOrder());
        inOut.order(ByteOrder.nativeOrder());
        try {
            if (!arrays) {
                uf.call(in, inOut, count, datatype);
                return;
            }
            Object a = toArray(in), b = toArray(inOut);
            uf.call(a, b, count, datatype);
            fromArray(b, inOut);
        } catch (Throwable t) {
            failure = t;
        }
    }

    private Object toArray(ByteBuffer bb) {
        int n = bb.capacity();
        switch (datatype.baseType) {
        case Datatype.CHAR: {
            char[] a = new char[n / 2];
            bb.asCharBuffer().get(a);
            return a;
        }
        case Datatype.SHORT: {
            short[] a = new short[n / 2];
            bb.asShortBuffer().get(a);
            return a;
        }
        case Datatype.BOOLEAN: {
            boolean[] a = new boolean[n];
            for (int i = 0; i < n; i++)
                a[i] = bb.get(i) != 0;
            return a;
        }
        case Datatype.INT:
        case Datatype.INT2: {
            int[] a = new int[n / 4];
            bb.asIntBuffer().get(a);
            return a;
        }
        case Datatype.LONG: {
            long[] a = new long[n / 8];
            bb.asLongBuffer().get(a);
            return a;
        }
        case Datatype.FLOAT:
        case Datatype.FLOAT_COMPLEX: {
            float[] a = new float[n / 4];
            bb.asFloatBuffer().get(a);
            return a;
        }
        case Datatype.DOUBLE:
        case Datatype.DOUBLE_COMPLEX: {
            double[] a = new double[n / 8];
            bb.asDoubleBuffer().get(a);
            return a;
        }
        default: {
            byte[] a = new byte[n];
            bb.get(0, a);
            return a;
        }
        }
    }

    private static void fromArray(Object a, ByteBuffer bb) {
        if (a instanceof char[]) bb.asCharBuffer().put((char[]) a);
        else if (a instanceof short[]) bb.asShortBuffer().put((short[]) a);
        else if (a instanceof int[]) bb.asIntBuffer().put((int[]) a);
        else if (a instanceof long[]) bb.asLongBuffer().put((long[]) a);
        else if (a instanceof float[]) bb.asFloatBuffer().put((float[]) a);
        else if (a instanceof double[]) bb.asDoubleBuffer().put((double[]) a);
        else if (a instanceof boolean[]) {
            boolean[] z = (boolean[]) a;
            for (int i = 0; i < z.length; i++)
                bb.put(i, (byte) (z[i] ? 1 : 0));
        } else bb.put(0, (byte[]) a);
    }
}
