// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The (value, index) pair of MPI.INT2, for MAXLOC and MINLOC: MPI.int2. */
public final class Int2 extends Struct {
    private final int value = addInt(), index = addInt();

    Int2() {}

    @Override
    protected Data newData() {
        return new Data();
    }

    /** The predefined pair datatype, which MAXLOC and MINLOC accept. */
    @Override
    public Datatype getType() {
        return MPI.INT2;
    }

    public final class Data extends Struct.Data {
        public int getValue() {
            return getInt(value);
        }

        public int getIndex() {
            return getInt(index);
        }

        public void putValue(int v) {
            putInt(value, v);
        }

        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}
