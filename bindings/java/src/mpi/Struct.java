// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;

/**
 * A C-like struct laid over a ByteBuffer or byte[]: a subclass adds its
 * fields (addInt, addDouble, ...; each returns the field's byte offset,
 * aligned as a C compiler would), and its Data class reads and writes them.
 * getType() is the matching MPI datatype (a struct resized to the extent).
 */
public abstract class Struct {
    private int extent, align = 1;
    private boolean sealed;
    private final ArrayList<Integer> lens = new ArrayList<>(), offs = new ArrayList<>();
    private final ArrayList<Datatype> types = new ArrayList<>();
    private Datatype type;

    /** A new Data view for this struct (subclasses return their own Data). */
    protected abstract Data newData();

    private int add(Datatype t, int size, int alignment, int length) {
        if (sealed) throw new IllegalStateException("Struct: fields are added before first use");
        int off = (extent + alignment - 1) / alignment * alignment;
        extent = off + size * length;
        align = Math.max(align, alignment);
        lens.add(length);
        offs.add(off);
        types.add(t);
        return off;
    }

    public final int addByte() { return addByte(1); }
    public final int addByte(int length) { return add(MPI.BYTE, 1, 1, length); }
    public final int addChar() { return addChar(1); }
    public final int addChar(int length) { return add(MPI.CHAR, 2, 2, length); }
    public final int addShort() { return addShort(1); }
    public final int addShort(int length) { return add(MPI.SHORT, 2, 2, length); }
    public final int addInt() { return addInt(1); }
    public final int addInt(int length) { return add(MPI.INT, 4, 4, length); }
    public final int addLong() { return addLong(1); }
    public final int addLong(int length) { return add(MPI.LONG, 8, 8, length); }
    public final int addFloat() { return addFloat(1); }
    public final int addFloat(int length) { return add(MPI.FLOAT, 4, 4, length); }
    public final int addDouble() { return addDouble(1); }
    public final int addDouble(int length) { return add(MPI.DOUBLE, 8, 8, length); }

    /** Size of one struct in bytes, padded to its alignment. */
    public final int getExtent() throws MPIException {
        sealed = true;
        return (extent + align - 1) / align * align;
    }

    /** The MPI datatype of one struct (committed, built on first use). */
    public Datatype getType() throws MPIException {
        if (type == null) {
            int n = types.size();
            int[] l = new int[n], o = new int[n];
            for (int i = 0; i < n; i++) {
                l[i] = lens.get(i);
                o[i] = offs.get(i);
            }
            Datatype s = Datatype.createStruct(l, o, types.toArray(new Datatype[0]));
            type = Datatype.createResized(s, 0, getExtent());
            type.commit();
            s.free();
        }
        return type;
    }

    public final <T extends Data> T getData(ByteBuffer buffer) throws MPIException {
        return getData(buffer, 0);
    }

    /** The struct at index (in structs) of buffer. */
    @SuppressWarnings("unchecked")
    public final <T extends Data> T getData(ByteBuffer buffer, int index) throws MPIException {
        Data d = newData();
        d.buffer = buffer.duplicate().order(ByteOrder.nativeOrder());
        d.offset = index * getExtent();
        return (T) d;
    }

    public final <T extends Data> T getData(byte[] array) throws MPIException {
        return getData(ByteBuffer.wrap(array), 0);
    }

    public final <T extends Data> T getData(byte[] array, int index) throws MPIException {
        return getData(ByteBuffer.wrap(array), index);
    }

    /** One struct in a buffer; subclasses add typed accessors over these. */
    public abstract class Data {
        ByteBuffer buffer;
        int offset;

        public final ByteBuffer getBuffer() {
            return buffer;
        }

        protected final byte getByte(int field) { return buffer.get(offset + field); }
        protected final void putByte(int field, byte v) { buffer.put(offset + field, v); }
        protected final char getChar(int field) { return buffer.getChar(offset + field); }
        protected final void putChar(int field, char v) { buffer.putChar(offset + field, v); }
        protected final short getShort(int field) { return buffer.getShort(offset + field); }
        protected final void putShort(int field, short v) { buffer.putShort(offset + field, v); }
        protected final int getInt(int field) { return buffer.getInt(offset + field); }
        protected final void putInt(int field, int v) { buffer.putInt(offset + field, v); }
        protected final long getLong(int field) { return buffer.getLong(offset + field); }
        protected final void putLong(int field, long v) { buffer.putLong(offset + field, v); }
        protected final float getFloat(int field) { return buffer.getFloat(offset + field); }
        protected final void putFloat(int field, float v) { buffer.putFloat(offset + field, v); }
        protected final double getDouble(int field) { return buffer.getDouble(offset + field); }
        protected final void putDouble(int field, double v) { buffer.putDouble(offset + field, v); }
    }
}
