// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

/** Checks for the Java binding's tests: a failure names what and where, and exits non-zero. */
final class T {
    private T() {}

    static int rank;

    static void fail(String what) {
        System.err.println("FAIL rank " + rank + ": " + what);
        new Throwable().printStackTrace();
        System.exit(1);
    }

    static void check(boolean ok, String what) {
        if (!ok) fail(what);
    }

    static void eq(long got, long want, String what) {
        if (got != want) fail(what + ": got " + got + ", want " + want);
    }

    /** The seeded pattern byte i of message seed. */
    static byte pat(int seed, int i) {
        return (byte) (seed * 31 + i * 7 + (i >>> 8) * 13 + 1);
    }

    static void fill(ByteBuffer b, int seed, int n) {
        for (int i = 0; i < n; i++)
            b.put(i, pat(seed, i));
    }

    static void fill(byte[] b, int seed, int n) {
        for (int i = 0; i < n; i++)
            b[i] = pat(seed, i);
    }

    static void verify(ByteBuffer b, int seed, int n, String what) {
        for (int i = 0; i < n; i++)
            if (b.get(i) != pat(seed, i))
                fail(what + ": byte " + i + " is " + b.get(i) + ", want " + pat(seed, i));
    }

    static void verify(byte[] b, int off, int seed, int n, String what) {
        for (int i = 0; i < n; i++)
            if (b[off + i] != pat(seed, i))
                fail(what + ": byte " + i + " is " + b[off + i] + ", want " + pat(seed, i));
    }
}
