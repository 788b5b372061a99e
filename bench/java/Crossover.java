// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.util.Arrays;

import mpi.*;

/**
 * The copy/pin crossover of heap arrays: the ping-pong of Latency on byte[]
 * arrays, once with every array copied through the binding's native pool
 * (MPI.setPinThreshold(Long.MAX_VALUE)) and once with every array pinned
 * (setPinThreshold(0)), and on direct buffers for reference, interleaved:
 * at each size the three variants run in turn, --reps rounds (5; 3 with
 * --quick), and the median of each is reported. Sizes 0 B ... --max (4 MiB).
 *
 * The crossover printed at the end is the smallest measured size from which
 * pinning is faster than copying at that size and at every larger one: the
 * default pin threshold of the binding (bindings/java/native/buf.c) is this
 * figure from a quiet machine. Below it the copy costs no more than the pin,
 * and a copied array does not hold off the garbage collector while the call
 * waits for its peer (see docs/java.md).
 *   UMP_TRANSPORTS=shm umprun -n 2 java -cp ump.jar:ump_bench.jar Crossover
 * (bench/compare --bench java_pin runs it over shm and tcp.)
 */
public class Crossover {
    static final String[] VARIANTS = {"heap-copy", "heap-pin", "direct"};

    public static void main(String[] args) throws MPIException {
        Bench b = new Bench(args, 0, 4 << 20);
        if (b.size < 2) b.die("needs 2 ranks");
        int reps = b.quick ? 3 : 5;
        for (int i = 0; i < b.rest.length; i++)
            if (b.rest[i].equals("--reps")) reps = Integer.parseInt(b.rest[++i]);
        Intracomm w = MPI.COMM_WORLD;
        long saved = MPI.getPinThreshold();
        int max = (int) b.max;
        ByteBuffer dsb = MPI.newByteBuffer(max), drb = MPI.newByteBuffer(max);
        byte[] asb = new byte[max], arb = new byte[max];
        int[] n = new int[1];
        boolean[] direct = new boolean[1];
        Bench.Loop pp = iters -> {
            Object sb = direct[0] ? dsb : asb, rb = direct[0] ? drb : arb;
            for (long i = 0; i < iters; i++) {
                if (b.rank == 0) {
                    w.send(sb, n[0], MPI.BYTE, 1, 1);
                    w.recv(rb, n[0], MPI.BYTE, 1, 1);
                } else if (b.rank == 1) {
                    w.recv(rb, n[0], MPI.BYTE, 0, 1);
                    w.send(sb, n[0], MPI.BYTE, 0, 1);
                }
            }
        };
        java.util.List<long[]> sizes = new java.util.ArrayList<>();
        java.util.List<double[]> med = new java.util.ArrayList<>();
        for (long s = b.min; s <= b.max; s = b.next(s)) {
            n[0] = (int) s;
            double[][] t = new double[VARIANTS.length][reps];
            for (int v = 0; v < VARIANTS.length; v++) { // check the data of every variant once
                use(v, direct);
                fill(dsb, asb, drb, arb, s, b.rank);
                pp.run(1);
                if (b.rank < 2)
                    for (int i = 0; i < s; i++) {
                        byte got = direct[0] ? drb.get(i) : arb[i];
                        if (got != Bench.pat(i, s + 1 - b.rank))
                            b.die(VARIANTS[v] + ": wrong data at " + i + " of " + s);
                    }
            }
            use(0, direct);
            long iters = b.iterations(w, pp);
            b.hopNs[0] = b.hop();
            for (int r = 0; r < reps; r++)
                for (int v = 0; v < VARIANTS.length; v++) {
                    use(v, direct);
                    t[v][r] = b.timeIters(w, pp, iters) / 2;
                }
            b.hopNs[1] = b.hop();
            double[] m = new double[VARIANTS.length];
            for (int v = 0; v < VARIANTS.length; v++) {
                Arrays.sort(t[v]);
                m[v] = t[v][reps / 2];
                b.row("java_pin", VARIANTS[v], 2, s, m[v], (double) s);
            }
            sizes.add(new long[] {s});
            med.add(m);
        }
        MPI.setPinThreshold(saved);
        // The smallest size from which pinning wins at every larger size.
        long cross = -1;
        for (int i = sizes.size() - 1; i >= 0 && med.get(i)[1] < med.get(i)[0]; i--)
            cross = sizes.get(i)[0];
        if (b.rank == 0)
            System.out.println(cross < 0 ? "crossover: copying was never slower than pinning up to "
                    + b.max + " bytes" : "crossover: pin from " + cross + " bytes (copy below)");
        b.end();
    }

    /** Variant v: the pin threshold for arrays, or direct buffers. */
    static void use(int v, boolean[] direct) {
        direct[0] = v == 2;
        MPI.setPinThreshold(v == 1 ? 0 : Long.MAX_VALUE);
    }

    static void fill(ByteBuffer dsb, byte[] asb, ByteBuffer drb, byte[] arb, long s, int rank) {
        for (int i = 0; i < s; i++) {
            dsb.put(i, Bench.pat(i, s + rank));
            asb[i] = Bench.pat(i, s + rank);
            drb.put(i, (byte) 0);
            arb[i] = 0;
        }
    }
}
