// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * The copy path of heap arrays in blocking send and receive (and bcast and
 * allReduce), done in Java:
 * a per-thread direct buffer the array is copied into (send) or out of
 * (receive) with the JDK's bulk copies, the call itself then taking the
 * direct-buffer fast path (Comm.sendFast, recvFast). Below the pin
 * threshold this costs a copy of the message and no JNI array access at
 * all, where pinning costs GetPrimitiveArrayCritical and its release (two
 * entries into the VM) and holds off the garbage collector while the call
 * waits; bench/java/Crossover measures where the two meet.
 */
final class Scratch {
    private static final ThreadLocal<Scratch> MINE = ThreadLocal.withInitial(Scratch::new);
    // A second one for the calls that take two arrays at once (allReduce).
    private static final ThreadLocal<Scratch> OTHER = ThreadLocal.withInitial(Scratch::new);

    private ByteBuffer bytes;
    private ShortBuffer shorts;
    private CharBuffer chars;
    private IntBuffer ints;
    private LongBuffer longs;
    private FloatBuffer floats;
    private DoubleBuffer doubles;
    long address;

    private Scratch() {
        grow(4096);
    }

    /** This thread's scratch, at least n bytes long. */
    static Scratch of(long n) {
        return sized(MINE, n);
    }

    /** This thread's second scratch, at least n bytes long. */
    static Scratch other(long n) {
        return sized(OTHER, n);
    }

    private static Scratch sized(ThreadLocal<Scratch> which, long n) {
        Scratch s = which.get();
        if (s.bytes.capacity() < n) s.grow(n);
        return s;
    }

    private void grow(long n) {
        long cap = Math.max(4096, Long.highestOneBit(Math.max(n - 1, 1)) << 1);
        bytes = MPI.newByteBuffer((int) Math.min(cap, Integer.MAX_VALUE - 8));
        shorts = bytes.asShortBuffer();
        chars = bytes.asCharBuffer();
        ints = bytes.asIntBuffer();
        longs = bytes.asLongBuffer();
        floats = bytes.asFloatBuffer();
        doubles = bytes.asDoubleBuffer();
        address = Direct.address(bytes);
    }

    /** Whether copy in/out takes array a (not boolean[]: no buffer view). */
    static boolean takes(Object a) {
        return a instanceof byte[] || a instanceof int[] || a instanceof double[]
                || a instanceof long[] || a instanceof float[] || a instanceof short[]
                || a instanceof char[];
    }

    /** Copies the first n bytes of array a in; n is whole elements of a. */
    void in(Object a, int n) {
        if (a instanceof byte[]) bytes.put(0, (byte[]) a, 0, n);
        else if (a instanceof int[]) ints.put(0, (int[]) a, 0, n >> 2);
        else if (a instanceof double[]) doubles.put(0, (double[]) a, 0, n >> 3);
        else if (a instanceof long[]) longs.put(0, (long[]) a, 0, n >> 3);
        else if (a instanceof float[]) floats.put(0, (float[]) a, 0, n >> 2);
        else if (a instanceof short[]) shorts.put(0, (short[]) a, 0, n >> 1);
        else chars.put(0, (char[]) a, 0, n >> 1);
    }

    /** Copies the first n bytes out to array a (one in() takes); n is whole elements of a. */
    void out(Object a, int n) {
        if (a instanceof byte[]) bytes.get(0, (byte[]) a, 0, n);
        else if (a instanceof int[]) ints.get(0, (int[]) a, 0, n >> 2);
        else if (a instanceof double[]) doubles.get(0, (double[]) a, 0, n >> 3);
        else if (a instanceof long[]) longs.get(0, (long[]) a, 0, n >> 3);
        else if (a instanceof float[]) floats.get(0, (float[]) a, 0, n >> 2);
        else if (a instanceof short[]) shorts.get(0, (short[]) a, 0, n >> 1);
        else chars.get(0, (char[]) a, 0, n >> 1);
    }

    /** Keeps the scratch reachable until the native call that used its address returned. */
    void fence() {
        java.lang.ref.Reference.reachabilityFence(bytes);
    }
}
