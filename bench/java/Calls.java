// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/**
 * What the binding itself costs per call: blocking send to and receive from
 * MPI.PROC_NULL, which ump completes at once, so the time is the Java side,
 * the JNI transition, the checks, the status and the return, with no
 * transport and no waiting for a peer. Direct buffers and byte[] arrays at
 * a few small sizes, every variant timed in turn (A B C ... A B C ...) for
 * --reps rounds of --iters calls; the median per call (time_us).
 * One process is enough (umprun -n 1). This counts work, not latency: it
 * is how a change to the small-message path is compared with the one
 * before it on a loaded machine (run both builds alternately).
 *
 * The non-blocking variants time what bench/java/Bandwidth does per
 * message: a window of 64 iSend (or iRecv) to MPI.PROC_NULL, then
 * Request.waitAll on the 64 requests; time_us is per message (the window's
 * time over 64). "isend-direct" sends from one direct buffer, "isend-slice"
 * and "irecv-slice" from/into MPI.slice(buffer, k * bytes) for slot k (a
 * new slice per call, as Bandwidth's receiver makes them), "irecv-direct"
 * into one buffer. --nb runs only these, --blocking only the blocking ones.
 *
 * With --pin: the work side of the copy/pin crossover of heap arrays. A
 * blocking send of a byte[] to PROC_NULL, 0 B ... --max (4 MiB), with the
 * array copied (in Java, into the per-thread scratch) and pinned
 * (GetPrimitiveArrayCritical and its release in C), the two in turn; the
 * crossover is the smallest size from which pinning costs less than
 * copying at that size and every larger one (by the minimum over the
 * rounds, which load on the machine can only raise). A receive copies the
 * same bytes out again, so this is half the difference a ping-pong sees.
 *   umprun -n 1 java -cp ump.jar:ump_bench.jar Calls [--iters N] [--reps R]
 *          [--nb | --blocking | --pin]
 */
public class Calls {
    static void pinCrossover(Bench b, int reps) throws MPIException {
        Intracomm w = MPI.COMM_WORLD;
        long saved = MPI.getPinThreshold();
        byte[] a = new byte[(int) b.max];
        long cross = -1;
        java.util.List<Long> sizes = new java.util.ArrayList<>();
        java.util.List<double[]> mins = new java.util.ArrayList<>();
        for (long s = b.min; s <= b.max; s = b.next(s)) {
            int n = (int) s;
            long iters = Math.max(10, (b.quick ? 2_000_000L : 40_000_000L) / (2000 + n));
            Op op = it -> {
                for (long i = 0; i < it; i++)
                    w.send(a, n, MPI.BYTE, MPI.PROC_NULL, 1);
            };
            double[][] t = new double[2][reps];
            for (int v = 0; v < 2; v++) { // warm-up of both paths at this size
                MPI.setPinThreshold(v == 0 ? Long.MAX_VALUE : 0);
                op.run(iters);
            }
            for (int r = 0; r < reps; r++)
                for (int v = 0; v < 2; v++) {
                    MPI.setPinThreshold(v == 0 ? Long.MAX_VALUE : 0);
                    long t0 = System.nanoTime();
                    op.run(iters);
                    t[v][r] = (double) (System.nanoTime() - t0) / iters;
                }
            double[] m = new double[2];
            for (int v = 0; v < 2; v++) {
                double[] x = t[v].clone();
                java.util.Arrays.sort(x);
                m[v] = x[0];
                b.row("calls_pin", v == 0 ? "send-copy" : "send-pin", b.size, s, x[0] * 1e-9, s);
            }
            sizes.add(s);
            mins.add(m);
        }
        MPI.setPinThreshold(saved);
        for (int i = sizes.size() - 1; i >= 0 && mins.get(i)[1] < mins.get(i)[0]; i--)
            cross = sizes.get(i);
        if (b.rank == 0)
            System.out.println(cross < 0 ? "crossover (work): copying never cost more than pinning"
                    : "crossover (work): pin from " + cross + " bytes (copy below)");
        b.end();
    }

    static final int WINDOW = 64;

    interface Op {
        void run(long iters) throws MPIException;
    }

    /**
     * it messages in windows of WINDOW to or from MPI.PROC_NULL, then
     * Request.waitAll: iSend (or iRecv) on d, or on a new slice of all per
     * call when all is given.
     */
    static Op window(Intracomm w, boolean send, ByteBuffer all, ByteBuffer d, int n, Request[] rq) {
        return it -> {
            for (long i = 0; i < it; i += WINDOW) {
                for (int k = 0; k < WINDOW; k++) {
                    ByteBuffer buf = all != null ? MPI.slice(all, k * n) : d;
                    rq[k] = send ? w.iSend(buf, n, MPI.BYTE, MPI.PROC_NULL, 1)
                                 : w.iRecv(buf, n, MPI.BYTE, MPI.PROC_NULL, 1);
                }
                Request.waitAll(rq);
            }
            for (Request r : rq) // waitAll finished them all
                if (!r.isNull()) throw new MPIException("a request not finished");
        };
    }

    public static void main(String[] args) throws MPIException {
        Bench b = new Bench(args, 0, 4 << 20);
        long iters = 2_000_000;
        int reps = b.quick ? 3 : 15;
        boolean pin = false, blocking = true, nb = true;
        for (int i = 0; i < b.rest.length; i++) {
            if (b.rest[i].equals("--iters")) iters = Long.parseLong(b.rest[++i]);
            else if (b.rest[i].equals("--reps")) reps = Integer.parseInt(b.rest[++i]);
            else if (b.rest[i].equals("--pin")) pin = true;
            else if (b.rest[i].equals("--nb")) blocking = false;
            else if (b.rest[i].equals("--blocking")) nb = false;
            else b.die("unknown option " + b.rest[i] + " (--iters N, --reps R, --nb, --blocking, "
                    + "--pin, and Bench's)");
        }
        if (pin) {
            pinCrossover(b, reps);
            return;
        }
        if (b.quick) iters = Math.min(iters, 20_000);
        Intracomm w = MPI.COMM_WORLD;
        ByteBuffer d = MPI.newByteBuffer(64);
        ByteBuffer all = MPI.newByteBuffer(16 * WINDOW);
        byte[] a = new byte[64];
        Request[] rq = new Request[WINDOW];
        int[] sizes = {0, 4, 16};
        java.util.List<String> names = new java.util.ArrayList<>();
        java.util.List<Integer> bytes = new java.util.ArrayList<>();
        java.util.List<Op> ops = new java.util.ArrayList<>();
        for (int n : sizes) {
            if (blocking) {
                names.add("send-direct");
                ops.add(it -> {
                    for (long i = 0; i < it; i++)
                        w.send(d, n, MPI.BYTE, MPI.PROC_NULL, 1);
                });
                names.add("recv-direct");
                ops.add(it -> {
                    for (long i = 0; i < it; i++) {
                        Status s = w.recv(d, n, MPI.BYTE, MPI.PROC_NULL, 1);
                        if (s.getSource() != MPI.PROC_NULL) throw new MPIException("bad status");
                    }
                });
                names.add("send-array");
                ops.add(it -> {
                    for (long i = 0; i < it; i++)
                        w.send(a, n, MPI.BYTE, MPI.PROC_NULL, 1);
                });
                names.add("recv-array");
                ops.add(it -> {
                    for (long i = 0; i < it; i++) {
                        Status s = w.recv(a, n, MPI.BYTE, MPI.PROC_NULL, 1);
                        if (s.getSource() != MPI.PROC_NULL) throw new MPIException("bad status");
                    }
                });
            }
            if (nb) { // it messages, in windows of WINDOW
                for (String kind : new String[] {"isend", "irecv"})
                    for (boolean slice : new boolean[] {false, true}) {
                        names.add(kind + (slice ? "-slice" : "-direct"));
                        ops.add(window(w, kind.equals("isend"), slice ? all : null, d, n, rq));
                    }
            }
            for (int j = bytes.size(); j < ops.size(); j++)
                bytes.add(n);
        }
        iters = (iters + WINDOW - 1) / WINDOW * WINDOW; // whole windows
        for (Op op : ops) // warm-up: let the JIT compile every loop first
            op.run(Math.max(iters / 4, 1000));
        double[][] t = new double[ops.size()][reps];
        for (int r = 0; r < reps; r++)
            for (int j = 0; j < ops.size(); j++) {
                long t0 = System.nanoTime();
                ops.get(j).run(iters);
                t[j][r] = (double) (System.nanoTime() - t0) / iters;
            }
        for (int j = 0; j < ops.size(); j++) {
            double[] x = t[j].clone();
            java.util.Arrays.sort(x);
            b.row("calls", names.get(j), b.size, bytes.get(j), x[x.length / 2] * 1e-9, 0);
        }
        b.end();
    }
}
