// SPDX-License-Identifier: BSD-3-Clause
import java.io.File;
import java.nio.ByteBuffer;

import mpi.*;

/**
 * Java and C over ump timed in one job, in alternation: what the binding
 * adds, measured without the run-to-run drift of this machine. For each
 * size, --rounds times (4), the Java loop of Latency (or with --bandwidth
 * the window of Bandwidth) and the same loop in C (native/paired.c, called
 * once per timed run with the Java program's direct buffers) are timed one
 * after the other, the order swapped every round, each with its own
 * warm-up, calibration and cache-line hop (Bench.time). Rows: bench
 * java_paired, variants pingpong-java / pingpong-c (half round trip, sizes
 * 0 ... --max, 1 MiB by default) or uni-java / uni-c (per window of 64,
 * --min 64 KiB ... --max 4 MiB).
 *   umprun -n 2 java -cp ump.jar:ump_bench.jar Paired [--bandwidth] [--rounds R] ...
 */
public class Paired {
    static final int WINDOW = 64;

    static native void cPingpong(ByteBuffer sb, ByteBuffer rb, int n, int rank, long iters);

    static native void cWindow(ByteBuffer sb, ByteBuffer rall, int n, int rank, long iters);

    /** libump_bench_java beside ump_bench.jar (the build tree's bench/java). */
    static void loadNative() {
        String name = System.mapLibraryName("ump_bench_java");
        try {
            File jar = new File(Paired.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI());
            System.load(new File(jar.getParentFile(), name).getAbsolutePath());
        } catch (java.net.URISyntaxException e) {
            throw new UnsatisfiedLinkError("cannot locate " + name + ": " + e.getMessage());
        }
    }

    public static void main(String[] args) throws MPIException {
        boolean bw = false;
        int rounds = 4;
        java.util.ArrayList<String> rest = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--bandwidth")) bw = true;
            else if (args[i].equals("--rounds") && i + 1 < args.length)
                rounds = Integer.parseInt(args[++i]);
            else rest.add(args[i]);
        }
        Bench b = bw ? new Bench(rest.toArray(new String[0]), 64 << 10, 4 << 20)
                     : new Bench(rest.toArray(new String[0]), 0, 1 << 20);
        if (b.size < 2) b.die("needs 2 ranks");
        if (b.array) b.die("--array is not paired: direct buffers only");
        loadNative();
        Intracomm w = MPI.COMM_WORLD;
        int max = (int) b.max;
        ByteBuffer sb = Bench.alloc(max), rb = Bench.alloc(max);
        ByteBuffer all = bw && b.rank == 1 ? Bench.alloc(max * WINDOW) : null;
        ByteBuffer[] slot = new ByteBuffer[WINDOW];
        Request[] rq = new Request[WINDOW];
        byte[] none = new byte[0];
        int[] n = new int[1];
        int rank = b.rank;
        Bench.Loop javaLoop = bw ? iters -> {
            if (rank > 1) return;
            for (long it = 0; it < iters; it++) {
                for (int k = 0; k < WINDOW; k++)
                    rq[k] = rank == 0 ? w.iSend(sb, n[0], MPI.BYTE, 1, 2)
                                      : w.iRecv(slot[k], n[0], MPI.BYTE, 0, 2);
                Request.waitAll(rq);
                if (rank == 0) w.recv(none, 0, MPI.BYTE, 1, 3);
                else w.send(none, 0, MPI.BYTE, 0, 3);
            }
        } : iters -> {
            for (long i = 0; i < iters; i++) {
                if (rank == 0) {
                    w.send(sb, n[0], MPI.BYTE, 1, 1);
                    w.recv(rb, n[0], MPI.BYTE, 1, 1);
                } else if (rank == 1) {
                    w.recv(rb, n[0], MPI.BYTE, 0, 1);
                    w.send(sb, n[0], MPI.BYTE, 0, 1);
                }
            }
        };
        Bench.Loop cLoop = bw ? iters -> cWindow(sb, all, n[0], rank, iters)
                              : iters -> cPingpong(sb, rb, n[0], rank, iters);
        String bench = "java_paired", base = bw ? "uni" : "pingpong";
        for (long s = bw ? Math.max(1, b.min) : b.min; s <= b.max; s = b.next(s)) {
            n[0] = (int) s;
            for (int k = 0; all != null && k < WINDOW; k++)
                slot[k] = MPI.slice(all, k * (int) s);
            check(b, w, s, bw, sb, rb, all, javaLoop, "Java");
            check(b, w, s, bw, sb, rb, all, cLoop, "C");
            for (int r = 0; r < rounds; r++) {
                for (int half = 0; half < 2; half++) {
                    boolean java = (r + half) % 2 == 0;
                    double t = b.time(w, java ? javaLoop : cLoop);
                    if (!bw) t /= 2;
                    b.row(bench, base + (java ? "-java" : "-c"), 2, s, t,
                            bw ? (double) s * WINDOW : (double) s);
                }
            }
        }
        b.end();
    }

    /** One iteration of loop with fresh patterns, the receiver checking every byte. */
    static void check(Bench b, Intracomm w, long s, boolean bw, ByteBuffer sb, ByteBuffer rb,
            ByteBuffer all, Bench.Loop loop, String who) throws MPIException {
        long salt = s + (who.equals("C") ? 101 : 0);
        for (int i = 0; i < s; i++) {
            sb.put(i, Bench.pat(i, salt + b.rank));
            rb.put(i, (byte) 0);
        }
        for (int i = 0; all != null && i < s * WINDOW; i++)
            all.put(i, (byte) 0);
        loop.run(1);
        if (b.rank > 1) return;
        if (bw) {
            if (b.rank != 1) return;
            for (int k = 0; k < WINDOW; k++)
                for (int i = 0; i < s; i++)
                    if (all.get(k * (int) s + i) != Bench.pat(i, salt))
                        b.die(who + " window: wrong data in slot " + k + " at " + i);
        } else {
            for (int i = 0; i < s; i++)
                if (rb.get(i) != Bench.pat(i, salt + 1 - b.rank))
                    b.die(who + " ping-pong: wrong data at " + i);
        }
    }
}
