// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * How a buffer argument reaches C: a direct buffer by itself (C takes its
 * address, from element 0), a heap buffer as its backing array plus the
 * array offset, a primitive array as itself. Lengths are in bytes, so C can
 * check that count elements of a datatype fit before it touches memory.
 */
final class Buf {
    private Buf() {}

    /** log2 of the element size of a buffer or a primitive array; -1 if neither. */
    static int shift(Object o) {
        if (o instanceof ByteBuffer || o instanceof byte[] || o instanceof boolean[]) return 0;
        if (o instanceof IntBuffer || o instanceof int[] || o instanceof FloatBuffer
                || o instanceof float[])
            return 2;
        if (o instanceof DoubleBuffer || o instanceof double[] || o instanceof LongBuffer
                || o instanceof long[])
            return 3;
        if (o instanceof CharBuffer || o instanceof char[] || o instanceof ShortBuffer
                || o instanceof short[])
            return 1;
        return -1;
    }

    static boolean direct(Object o) {
        return o instanceof Buffer && ((Buffer) o).isDirect();
    }

    /** What C gets: the direct buffer, the array behind a heap buffer, or the array. */
    static Object base(Object o) throws MPIException {
        if (o == null) return null;
        if (o instanceof Buffer) {
            Buffer b = (Buffer) o;
            if (b.isDirect()) return b;
            if (!b.hasArray())
                throw new MPIException("the buffer is neither direct nor backed by an accessible array");
            return b.array();
        }
        if (shift(o) < 0)
            throw new MPIException("a buffer must be a java.nio buffer or a primitive array, not "
                    + o.getClass().getName());
        return o;
    }

    /** Byte offset of the buffer's first element in what base() returned. */
    static int off(Object o) {
        if (o instanceof Buffer && !((Buffer) o).isDirect())
            return ((Buffer) o).arrayOffset() << shift(o);
        return 0;
    }

    /** Bytes available from base() + off(): what C checks the call against. */
    static long len(Object o) {
        if (o == null) return 0;
        if (o instanceof Buffer) {
            Buffer b = (Buffer) o;
            if (b.isDirect()) return (long) b.capacity() << shift(o);
            return (long) (java.lang.reflect.Array.getLength(b.array())) << shift(o);
        }
        return (long) java.lang.reflect.Array.getLength(o) << shift(o);
    }

    /**
     * The address of a direct buffer that holds count elements of type, when
     * the fast path can take the call (Direct.OK, a datatype whose span Java
     * knows, a count that fits); 0 sends the call the general way, which
     * also reports whatever is wrong with it.
     */
    static long fast(Object o, int count, Datatype type) {
        if (!Direct.OK || !(o instanceof Buffer)) return 0;
        Buffer b = (Buffer) o;
        long span = type.span;
        if (span == 0 || count < 0 || !b.isDirect()) return 0;
        if (count * span > ((long) b.capacity() << shift(b))) return 0;
        return Direct.address(b);
    }

    /**
     * The bytes to copy when a blocking call can take heap array o through
     * the Java copy path (Scratch): a primitive array that holds count
     * elements of a datatype whose span Java knows and which has no holes
     * (a receive copies out only the bytes that arrived), whole elements of
     * the array, below the pin threshold (or pinning not allowed); else -1.
     */
    static long copied(Object o, int count, Datatype type) {
        if (!Direct.OK || o == null || !Scratch.takes(o)) return -1;
        long span = type.span;
        int sh = shift(o);
        if (!type.dense || count < 0 || (span & ((1 << sh) - 1)) != 0) return -1;
        long n = count * span;
        if (n > ((long) java.lang.reflect.Array.getLength(o) << sh)) return -1;
        if (n >= MPI.pinThreshold && MPI.pinAllowed) return -1;
        return n <= Integer.MAX_VALUE - 8 ? n : -1; // larger: C's pool (a long index)
    }

    /** Non-blocking calls take direct buffers only: the collector may move arrays. */
    static Buffer needDirect(Buffer b, String call) throws MPIException {
        if (b != null && !b.isDirect())
            throw new MPIException(call + ": a non-blocking call needs a direct buffer "
                    + "(MPI.newByteBuffer, MPI.newIntBuffer, ...), not a heap buffer or array: "
                    + "the garbage collector may move a heap array while the call is pending");
        return b;
    }
}
