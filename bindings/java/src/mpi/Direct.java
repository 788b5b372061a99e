// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The small-message fast path's view of a direct buffer: its address, read
 * in Java so that a blocking send or receive needs one JNI call with
 * primitive arguments and nothing else (no GetDirectBufferAddress, which
 * enters the VM twice, and no object handles).
 *
 * The read goes through sun.misc.Unsafe (module jdk.unsupported, open to
 * every program without flags): the address is java.nio.Buffer's own
 * field, the one GetDirectBufferAddress reads. The handle is a static
 * final, so the JIT folds it into a plain load. If any of this is missing,
 * or the
 * address it reads disagrees with GetDirectBufferAddress on a test buffer,
 * OK is false and every call takes the general path (p2p.c's *Native).
 */
final class Direct {
    private Direct() {}

    static final boolean OK;
    private static final MethodHandle GET_FIELD; // (Object, long) -> long
    private static final long ADDRESS;           // offset of Buffer.address

    static {
        MethodHandle field = null;
        long off = -1;
        boolean ok = false;
        try {
            // The native library (addressNative) comes with class MPI.
            Class.forName("mpi.MPI", true, Direct.class.getClassLoader());
            Class<?> uc = Class.forName("sun.misc.Unsafe");
            Field f = uc.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            Object u = f.get(null);
            MethodHandles.Lookup l = MethodHandles.lookup();
            field = l.findVirtual(uc, "getLong",
                    MethodType.methodType(long.class, Object.class, long.class)).bindTo(u);
            off = (long) l.findVirtual(uc, "objectFieldOffset",
                    MethodType.methodType(long.class, Field.class))
                    .bindTo(u).invoke(Buffer.class.getDeclaredField("address"));
            ByteBuffer probe = ByteBuffer.allocateDirect(64);
            ByteBuffer mid = probe.slice(24, 8);
            ok = off >= 0 && (long) field.invokeExact((Object) probe, off) == addressNative(probe)
                    && (long) field.invokeExact((Object) mid, off) == addressNative(mid);
        } catch (Throwable e) {
            ok = false; // no Unsafe here: the general path serves every call
        }
        OK = ok;
        GET_FIELD = field;
        ADDRESS = off;
    }

    /** GetDirectBufferAddress: what the fast path is checked against. */
    private static native long addressNative(Buffer b);

    /** GetDirectBufferAddress, for buffers made once (ReqScratch): works without OK. */
    static long addressOf(Buffer b) {
        return addressNative(b);
    }

    /** The address of element 0 of a direct buffer (only when OK). */
    static long address(Buffer b) {
        try {
            return (long) GET_FIELD.invokeExact((Object) b, ADDRESS);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
