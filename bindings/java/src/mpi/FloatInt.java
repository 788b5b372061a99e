// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The (value, index) pair of MPI.FLOAT_INT, for MAXLOC and MINLOC: MPI.floatInt. */
public final class FloatInt extends Struct {
    private final int value = addFloat(), index = addInt();

    FloatInt() {}

    @Override
    protected Data newData() {
        return new Data();
    }

    /** The predefined pair datatype, which MAXLOC and MINLOC accept. */
    @Override
    public Datatype getType() {
        return MPI.FLOAT_INT;
    }

    public final class Data extends Struct.Data {
        public float getValue() {
            return getFloat(value);
        }

        public int getIndex() {
            return getInt(index);
        }

        public void putValue(float v) {
            putFloat(value, v);
        }

        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}
