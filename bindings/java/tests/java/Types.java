// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.IntBuffer;

import mpi.*;

/**
 * Derived datatypes on direct buffers (and one on an array): vector, hvector,
 * indexed, indexed block, struct, subarray, resized; the receiver's layout
 * differs from the sender's, holes stay untouched, extents match C's.
 */
public class Types {
    static Intracomm w = MPI.COMM_WORLD;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = w.getRank();
        T.rank = me;
        T.check(w.getSize() >= 2, "needs 2 ranks");
        queries();
        if (me < 2) exchange(me);
        w.barrier();
        if (me == 0) System.out.println("Types OK");
        MPI.Finalize();
    }

    static void queries() throws MPIException {
        Datatype vec = Datatype.createVector(3, 2, 5, MPI.INT);
        vec.commit();
        T.eq(vec.getSize(), 6, "vector size in ints");
        T.eq(vec.getExtent(), 12, "vector extent in ints");
        T.eq(vec.getByteExtent(), 48, "vector extent in bytes");
        T.eq(vec.getLb(), 0, "vector lb");
        Datatype res = Datatype.createResized(vec, 0, 80);
        res.commit();
        T.eq(res.getExtent(), 20, "resized extent");
        T.eq(res.getTrueExtent(), 12, "resized true extent");
        res.setName("resized vector");
        T.check(res.getName().equals("resized vector"), "datatype name");
        Datatype d = vec.dup();
        T.eq(d.getSize(), 6, "dup size");
        d.free();
        T.check(d.isNull(), "freed");
        res.free();
        vec.free();
        boolean threw = false;
        try {
            MPI.INT.free();
        } catch (MPIException e) {
            threw = true;
        }
        T.check(threw, "freeing a predefined type throws");
    }

    static void exchange(int me) throws MPIException {
        int n = 64 * 64;
        // vector: every other column of a 64x64 int matrix (64 rows, 32 columns... as blocks of 1)
        Datatype col = Datatype.createVector(64, 1, 64, MPI.INT);
        col.commit();
        Datatype hv = Datatype.createHVector(64, 2, 64 * 4, MPI.INT);
        hv.commit();
        Datatype idx = Datatype.createIndexed(new int[] {3, 1, 7, 2}, new int[] {0, 10, 20, 100},
                MPI.INT);
        idx.commit();
        Datatype blk = Datatype.createIndexedBlock(4, new int[] {1, 50, 900, 4000}, MPI.INT);
        blk.commit();
        // struct of {int at 0, double at 8, 3 shorts at 24}, resized to 32 bytes
        Datatype st = Datatype.createStruct(new int[] {1, 1, 3}, new int[] {0, 8, 24},
                new Datatype[] {MPI.INT, MPI.DOUBLE, MPI.SHORT});
        Datatype st32 = Datatype.createResized(st, 0, 32);
        st32.commit();
        Datatype sub = Datatype.createSubarray(new int[] {64, 64}, new int[] {10, 20},
                new int[] {5, 7}, MPI.ORDER_C, MPI.INT);
        sub.commit();
        Datatype[] types = {col, hv, idx, blk, sub};
        int[] elems = {64, 128, 13, 16, 200};
        for (int k = 0; k < types.length; k++) {
            IntBuffer m = MPI.newIntBuffer(n);
            if (me == 0) {
                for (int i = 0; i < n; i++)
                    m.put(i, i * 11 + k);
                w.send(m, 1, types[k], 1, k);
            } else {
                // receive contiguous, then again into the same layout over a marked matrix
                IntBuffer c = MPI.newIntBuffer(elems[k]);
                Status s = w.recv(c, elems[k], MPI.INT, 0, k);
                T.eq(s.getCount(MPI.INT), elems[k], "type " + k + " element count");
                int[] where = layout(k);
                for (int i = 0; i < where.length; i++)
                    T.eq(c.get(i), where[i] * 11 + k, "type " + k + " element " + i);
            }
            // and back: contiguous sent, scattered into the derived layout
            if (me == 1) {
                IntBuffer c = MPI.newIntBuffer(elems[k]);
                for (int i = 0; i < elems[k]; i++)
                    c.put(i, -i - 1);
                w.send(c, elems[k], MPI.INT, 0, 100 + k);
            } else {
                for (int i = 0; i < n; i++)
                    m.put(i, 12345);
                Status s = w.recv(m, 1, types[k], 1, 100 + k);
                T.eq(s.getCount(types[k]), 1, "type " + k + " count 1");
                int[] where = layout(k);
                boolean[] hit = new boolean[n];
                for (int i = 0; i < where.length; i++) {
                    T.eq(m.get(where[i]), -i - 1, "scatter type " + k + " element " + i);
                    hit[where[i]] = true;
                }
                for (int i = 0; i < n; i++)
                    if (!hit[i]) T.eq(m.get(i), 12345, "type " + k + " hole " + i + " untouched");
            }
        }
        // struct, two elements, on a direct ByteBuffer; and the same type on a byte[]
        if (me == 0) {
            ByteBuffer b = MPI.newByteBuffer(64);
            for (int e = 0; e < 2; e++) {
                b.putInt(e * 32, 7 + e);
                b.putDouble(e * 32 + 8, 2.5 * (e + 1));
                for (int j = 0; j < 3; j++)
                    b.putShort(e * 32 + 24 + 2 * j, (short) (100 * e + j));
            }
            w.send(b, 2, st32, 1, 50);
            byte[] a = new byte[64];
            b.get(0, a);
            w.send(a, 2, st32, 1, 51);
        } else {
            for (int tag = 50; tag <= 51; tag++) {
                ByteBuffer b = MPI.newByteBuffer(64);
                byte[] a = new byte[64];
                java.util.Arrays.fill(a, (byte) 0x5a);
                for (int i = 0; i < 64; i++)
                    b.put(i, (byte) 0x5a);
                if (tag == 50)
                    w.recv(b, 2, st32, 0, tag);
                else {
                    w.recv(a, 2, st32, 0, tag);
                    b.put(0, a);
                }
                for (int e = 0; e < 2; e++) {
                    T.eq(b.getInt(e * 32), 7 + e, "struct int " + e);
                    T.check(b.getDouble(e * 32 + 8) == 2.5 * (e + 1), "struct double " + e);
                    for (int j = 0; j < 3; j++)
                        T.eq(b.getShort(e * 32 + 24 + 2 * j), 100 * e + j, "struct short");
                    for (int g = 4; g < 8; g++)
                        T.eq(b.get(e * 32 + g), 0x5a, "struct gap byte " + g + " untouched");
                    for (int g = 30; g < 32; g++)
                        T.eq(b.get(e * 32 + g), 0x5a, "struct tail byte " + g + " untouched");
                }
            }
        }
        // pack / unpack: ints from an array, a column from a direct buffer, doubles.
        int psize = w.packSize(3, MPI.INT) + w.packSize(1, col) + w.packSize(2, MPI.DOUBLE);
        byte[] packed = new byte[psize];
        if (me == 0) {
            IntBuffer m = MPI.newIntBuffer(n);
            for (int i = 0; i < n; i++)
                m.put(i, i * 3);
            int pos = w.pack(new int[] {5, 6, 7}, 3, MPI.INT, packed, 0);
            pos = w.pack(m, 1, col, packed, pos);
            pos = w.pack(new double[] {0.25, -8}, 2, MPI.DOUBLE, packed, pos);
            w.send(packed, pos, MPI.PACKED, 1, 60);
        } else {
            Status s = w.recv(packed, psize, MPI.PACKED, 0, 60);
            int got = s.getCount(MPI.PACKED);
            int[] three = new int[3];
            int pos = w.unpack(packed, 0, three, 3, MPI.INT);
            T.check(three[0] == 5 && three[1] == 6 && three[2] == 7, "unpack ints");
            int[] c = new int[64];
            pos = w.unpack(packed, pos, c, 64, MPI.INT);
            for (int r = 0; r < 64; r++)
                T.eq(c[r], r * 64 * 3, "unpacked column row " + r);
            double[] d = new double[2];
            pos = w.unpack(packed, pos, d, 2, MPI.DOUBLE);
            T.check(d[0] == 0.25 && d[1] == -8, "unpack doubles");
            T.eq(pos, got, "unpack consumed the message");
        }
        // A user Struct: {short, double, int[3]} sent as its own datatype.
        Rec rec = new Rec();
        T.eq(rec.getExtent(), 32, "Rec extent (C layout)");
        ByteBuffer rb = MPI.newByteBuffer(3 * rec.getExtent());
        if (me == 0) {
            for (int e = 0; e < 3; e++) {
                Rec.Data d = rec.getData(rb, e);
                d.set((short) (e + 1), e * 0.5, 10 * e);
            }
            w.send(rb, 3, rec.getType(), 1, 70);
        } else {
            w.recv(rb, 3, rec.getType(), 0, 70);
            for (int e = 0; e < 3; e++) {
                Rec.Data d = rec.getData(rb, e);
                T.check(d.s() == e + 1 && d.d() == e * 0.5 && d.i(2) == 10 * e + 2, "Rec " + e);
            }
        }
        for (Datatype t : types)
            t.free();
        st32.free();
        st.free();
    }

    /** Element indices (in ints) each test type covers, in type order. */
    static int[] layout(int k) {
        java.util.ArrayList<Integer> l = new java.util.ArrayList<>();
        switch (k) {
        case 0:
            for (int r = 0; r < 64; r++)
                l.add(r * 64);
            break;
        case 1:
            for (int r = 0; r < 64; r++) {
                l.add(r * 64);
                l.add(r * 64 + 1);
            }
            break;
        case 2: {
            int[] bl = {3, 1, 7, 2}, d = {0, 10, 20, 100};
            for (int b = 0; b < 4; b++)
                for (int j = 0; j < bl[b]; j++)
                    l.add(d[b] + j);
            break;
        }
        case 3:
            for (int d : new int[] {1, 50, 900, 4000})
                for (int j = 0; j < 4; j++)
                    l.add(d + j);
            break;
        default:
            for (int r = 5; r < 15; r++)
                for (int c = 7; c < 27; c++)
                    l.add(r * 64 + c);
        }
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    static final class Rec extends Struct {
        final int fs = addShort(), fd = addDouble(), fi = addInt(3);

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            void set(short a, double b, int c) {
                putShort(fs, a);
                putDouble(fd, b);
                for (int k = 0; k < 3; k++)
                    putInt(fi + 4 * k, c + k);
            }

            short s() {
                return getShort(fs);
            }

            double d() {
                return getDouble(fd);
            }

            int i(int k) {
                return getInt(fi + 4 * k);
            }
        }
    }
}
