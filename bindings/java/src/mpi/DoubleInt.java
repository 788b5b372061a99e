// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The (value, index) pair of MPI.DOUBLE_INT, for MAXLOC and MINLOC: MPI.doubleInt. */
public final class DoubleInt extends Struct {
    private final int value = addDouble(), index = addInt();

    DoubleInt() {}

    @Override
    protected Data newData() {
        return new Data();
    }

    /** The predefined pair datatype, which MAXLOC and MINLOC accept. */
    @Override
    public Datatype getType() {
        return MPI.DOUBLE_INT;
    }

    public final class Data extends Struct.Data {
        public double getValue() {
            return getDouble(value);
        }

        public int getIndex() {
            return getInt(index);
        }

        public void putValue(double v) {
            putDouble(value, v);
        }

        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}
