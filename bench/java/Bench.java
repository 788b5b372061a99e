// SPDX-License-Identifier: BSD-3-Clause
import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import mpi.*;

/**
 * What the Java benchmarks share, mirroring bench/mpi/bench.h: the options
 * (--quick, --time S, --min/--max BYTES, --csv FILE, --array for heap
 * arrays instead of direct buffers), the timing loop (warm-up, calibration
 * decided by rank 0, a timed run of at least --time seconds, the slowest
 * rank's time) and the rows  bench,variant,ranks,bytes,time_us,MBps,hop0_ns,hop1_ns,
 * the last two the cache-line hop between the ranks of a two-rank job just
 * before and after the point's timed run (Hop), empty when unknown.
 */
final class Bench {
    boolean quick, array;
    double time = -1;
    long min, max;
    String csv;
    int rank, size;
    String[] rest = new String[0];
    /** The hop before and after the last point (ns; < 0: unknown). */
    final double[] hopNs = {-1, -1};
    private PrintWriter out;
    private Hop hop;

    interface Loop {
        void run(long iters) throws MPIException;
    }

    Bench(String[] args, long dmin, long dmax) throws MPIException {
        MPI.Init(args);
        rank = MPI.COMM_WORLD.getRank();
        size = MPI.COMM_WORLD.getSize();
        min = dmin;
        max = dmax;
        java.util.ArrayList<String> extra = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
            case "--quick": quick = true; break;
            case "--array": array = true; break;
            case "--time": time = Double.parseDouble(args[++i]); break;
            case "--min": min = parseSize(args[++i]); break;
            case "--max": max = parseSize(args[++i]); break;
            case "--csv": csv = args[++i]; break;
            default: extra.add(args[i]);
            }
        }
        rest = extra.toArray(rest);
        if (time < 0) time = quick ? 0.05 : 0.2;
        if (rank == 0 && csv != null) {
            try {
                out = new PrintWriter(new FileWriter(csv));
            } catch (IOException e) {
                die("cannot open " + csv + ": " + e.getMessage());
            }
            out.println("bench,variant,ranks,bytes,time_us,MBps,hop0_ns,hop1_ns");
        }
        hop = Hop.open(MPI.COMM_WORLD, rank, size);
        if (rank == 0)
            System.out.printf("%-14s %-12s %6s %10s %12s %12s%n", "bench", "variant", "ranks",
                    "bytes", "time_us", "MB/s");
    }

    static long parseSize(String s) {
        long mul = 1;
        char c = s.charAt(s.length() - 1);
        if (c == 'k' || c == 'K') mul = 1 << 10;
        if (c == 'm' || c == 'M') mul = 1 << 20;
        if (mul > 1) s = s.substring(0, s.length() - 1);
        return Long.decode(s) * mul;
    }

    void die(String what) {
        System.err.println("bench: rank " + rank + ": " + what);
        try {
            MPI.COMM_WORLD.abort(1);
        } catch (MPIException e) {
            // exiting anyway
        }
        System.exit(1);
    }

    /** Sizes 0 (if min is 0), 1, 2, 4 ... max; --quick takes every other power. */
    long next(long s) {
        return s == 0 ? 1 : quick ? s * 4 : s * 2;
    }

    // The loops warmed up so far, by the class of their lambda: each source
    // location's loop (a bcast's, an allReduce's) is JIT-compiled apart.
    private final java.util.Set<Class<?>> warmed = new java.util.HashSet<>();

    /**
     * Seconds per iteration of loop, the slowest rank's (bench.h's b_time),
     * with the hop measured around the timed run (hopNs).
     */
    double time(Intracomm comm, Loop loop) throws MPIException {
        long n = iterations(comm, loop);
        hopNs[0] = hop();
        double t = timeIters(comm, loop, n);
        hopNs[1] = hop();
        return t;
    }

    /**
     * The cache-line hop between the two ranks' cores now (ns, rank 0's
     * answer; -1 when unknown). Every rank of COMM_WORLD calls it.
     */
    double hop() throws MPIException {
        // 4000 round trips: 0.5 ms near, 2 ms far; at most 20 ms.
        return hop == null ? -1 : hop.probe(MPI.COMM_WORLD, rank, 4000, 0.02);
    }

    /**
     * How many iterations of loop last --time seconds: warm-up, then
     * calibration decided by rank 0 (the slowest rank's time) and broadcast.
     */
    long iterations(Intracomm comm, Loop loop) throws MPIException {
        long n = 1;
        double[] dt = new double[1], mx = new double[1];
        /* Warm-up: a JVM runs a loop interpreted, then compiled in tiers,
         * and a size that takes a branch the earlier ones did not (the
         * first non-empty message) makes the JIT drop its code and count
         * calls again before it recompiles. So the loop runs, in doubling
         * rounds, until it no longer gets faster: for a loop's first
         * measure at least 0.2 s and 150000 iterations, then until a round
         * of 5 ms or more is within 10% of the one before and no rank's
         * JIT compiled anything during it, at most 2 s; for a later one
         * (compiled again if its size takes a new branch) at least 0.02 s
         * and 30000 iterations (or 0.2 s), at most 0.3 s.
         * HotSpot compiles a loop by a count of its passes (about 60000
         * for its first tier, 40000 more for the optimising one), not by
         * time: a loop whose iteration takes microseconds (a ping-pong
         * over tcp) runs interpreted for half a second while its rounds
         * already look steady. Every rank decides on the same slowest-rank
         * figures, so they agree. */
        boolean first = warmed.add(loop.getClass());
        double spent = 0, warm = first ? 0.2 : 0.02, cap = first ? 2.0 : 0.3, last = 0;
        long done = 0;
        double[] w = new double[2], wmx = new double[2];
        for (long k = 2;; k *= 2) {
            long jit0 = jitMillis();
            double t0 = MPI.wtime();
            loop.run(k);
            w[0] = MPI.wtime() - t0;
            w[1] = jitMillis() != jit0 ? 1 : 0;
            comm.allReduce(w, wmx, 2, MPI.DOUBLE, MPI.MAX);
            mx[0] = wmx[0];
            spent += mx[0];
            done += k;
            double per = mx[0] / k;
            boolean steady = mx[0] >= 0.005 && per >= 0.9 * last && per <= 1.1 * last &&
                    wmx[1] == 0;
            if (spent >= cap || (spent >= warm && (first ? done >= 150000 : done >= 30000 || spent >= 0.2) && steady))
                break;
            last = per;
        }
        for (;;) {
            comm.barrier();
            double t0 = MPI.wtime();
            loop.run(n);
            dt[0] = MPI.wtime() - t0;
            comm.allReduce(dt, mx, 1, MPI.DOUBLE, MPI.MAX);
            if (mx[0] >= time / 8 || n >= (1L << 24)) {
                n = Math.max(1, (long) (time / (mx[0] / n)) + 1);
                break;
            }
            n *= 4;
        }
        long[] nn = {n};
        comm.bcast(nn, 1, MPI.LONG, 0);
        return nn[0];
    }

    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    /** Milliseconds this JVM's JIT has spent compiling so far (-1: not known). */
    static long jitMillis() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported()
                ? JIT.getTotalCompilationTime()
                : -1;
    }

    /** Seconds per iteration of n iterations of loop, the slowest rank's. */
    double timeIters(Intracomm comm, Loop loop, long n) throws MPIException {
        double[] dt = new double[1], mx = new double[1];
        comm.barrier();
        double t0 = MPI.wtime();
        loop.run(n);
        dt[0] = MPI.wtime() - t0;
        comm.allReduce(dt, mx, 1, MPI.DOUBLE, MPI.MAX);
        return mx[0] / n;
    }

    void row(String bench, String variant, int ranks, long bytes, double sec, double moved) {
        if (rank != 0) return;
        double us = sec * 1e6, mbps = sec > 0 ? moved / sec / 1e6 : 0;
        System.out.printf("%-14s %-12s %6d %10d %12.3f %12.1f%n", bench, variant, ranks, bytes, us,
                mbps);
        System.out.flush();
        if (out != null)
            out.printf(java.util.Locale.ROOT, "%s,%s,%d,%d,%.4f,%.2f,%s,%s%n", bench, variant,
                    ranks, bytes, us, mbps, hopText(hopNs[0]), hopText(hopNs[1]));
    }

    private static String hopText(double ns) {
        return ns < 0 ? "" : String.format(java.util.Locale.ROOT, "%.1f", ns);
    }

    void end() throws MPIException {
        if (out != null) out.close();
        MPI.Finalize();
    }

    /**
     * A direct buffer of n bytes from a page boundary, in native order: what
     * bench/mpi's b_alloc gives the C programs, so Java and C move the same
     * layout (a buffer's offset in its page changes large transfers' and
     * reductions' times by up to 2x between runs).
     */
    static ByteBuffer alloc(int n) {
        ByteBuffer raw = MPI.newByteBuffer(n + 4096);
        int off = raw.alignmentOffset(0, 4096);
        return raw.slice(off == 0 ? 0 : 4096 - off, n).order(ByteOrder.nativeOrder());
    }

    static byte pat(long i, long salt) {
        return (byte) (i * 131 + salt * 7 + 3);
    }
}
