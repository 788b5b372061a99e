// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The (value, index) pair of MPI.SHORT_INT, for MAXLOC and MINLOC: MPI.shortInt. */
public final class ShortInt extends Struct {
    private final int value = addShort(), index = addInt();

    ShortInt() {}

    @Override
    protected Data newData() {
        return new Data();
    }

    /** The predefined pair datatype, which MAXLOC and MINLOC accept. */
    @Override
    public Datatype getType() {
        return MPI.SHORT_INT;
    }

    public final class Data extends Struct.Data {
        public short getValue() {
            return getShort(value);
        }

        public int getIndex() {
            return getInt(index);
        }

        public void putValue(short v) {
            putShort(value, v);
        }

        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}
