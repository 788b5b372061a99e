// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/**
 * Ping-pong between ranks 0 and 1 through the Java binding, half the round
 * trip, 0 B ... --max (4 MiB): bench/mpi/latency.c in Java. Direct buffers
 * (variant pingpong, moved without a copy) or, with --array, byte[] arrays
 * (variant pingpong-array: pinned or copied by size).
 *   umprun -n 2 java -cp ump.jar:ump_bench.jar Latency [--array] [--quick] ...
 */
public class Latency {
    public static void main(String[] args) throws MPIException {
        Bench b = new Bench(args, 0, 4 << 20);
        if (b.size < 2) b.die("needs 2 ranks");
        Intracomm w = MPI.COMM_WORLD;
        int max = (int) b.max;
        ByteBuffer dsb = Bench.alloc(max), drb = Bench.alloc(max);
        byte[] asb = new byte[max], arb = new byte[max];
        Object sb = b.array ? asb : dsb, rb = b.array ? arb : drb;
        int[] n = new int[1];
        Bench.Loop pp = iters -> {
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
        for (long s = b.min; s <= b.max; s = b.next(s)) {
            n[0] = (int) s;
            // Verify once: each side sends its own pattern, the other checks.
            for (int i = 0; i < s; i++) {
                dsb.put(i, Bench.pat(i, s + b.rank));
                asb[i] = Bench.pat(i, s + b.rank);
                drb.put(i, (byte) 0);
                arb[i] = 0;
            }
            pp.run(1);
            if (b.rank < 2)
                for (int i = 0; i < s; i++) {
                    byte got = b.array ? arb[i] : drb.get(i);
                    if (got != Bench.pat(i, s + 1 - b.rank)) b.die("wrong data at " + i);
                }
            double t = b.time(w, pp) / 2;
            b.row("latency", b.array ? "pingpong-array" : "pingpong", 2, s, t, (double) s);
        }
        b.end();
    }
}
