// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The (value, index) pair of MPI.LONG_INT, for MAXLOC and MINLOC: MPI.longInt. */
public final class LongInt extends Struct {
    private final int value = addLong(), index = addInt();

    LongInt() {}

    @Override
    protected Data newData() {
        return new Data();
    }

    /** The predefined pair datatype, which MAXLOC and MINLOC accept. */
    @Override
    public Datatype getType() {
        return MPI.LONG_INT;
    }

    public final class Data extends Struct.Data {
        public long getValue() {
            return getLong(value);
        }

        public int getIndex() {
            return getInt(index);
        }

        public void putValue(long v) {
            putLong(value, v);
        }

        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}
