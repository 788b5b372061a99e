// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/**
 * Streaming bandwidth from rank 0 to rank 1 through the Java binding:
 * bench/mpi/bandwidth.c's window of 64 iSend into 64 distinct iRecv slots on
 * direct buffers (variant uni), closed by a 0-byte reply; with --array, heap
 * byte[] arrays, which non-blocking calls refuse, so the window is 64
 * blocking sends and receives (variant uni-array). time_us is per window.
 */
public class Bandwidth {
    static final int WINDOW = 64;

    public static void main(String[] args) throws MPIException {
        Bench b = new Bench(args, 1, 4 << 20);
        if (b.size < 2) b.die("needs 2 ranks");
        if (b.min == 0) b.min = 1;
        Intracomm w = MPI.COMM_WORLD;
        int max = (int) b.max;
        ByteBuffer dsb = Bench.alloc(max);
        ByteBuffer all = b.rank == 1 && !b.array ? Bench.alloc(max * WINDOW) : null;
        // The receive slots of the current size, sliced before the timing
        // as C computes its addresses: a slice is two objects.
        ByteBuffer[] slot = new ByteBuffer[WINDOW];
        byte[] asb = new byte[max], arb = b.rank == 1 && b.array ? new byte[max * WINDOW] : null;
        byte[] none = new byte[0];
        int[] n = new int[1];
        Request[] rq = new Request[WINDOW];
        Bench.Loop win = iters -> {
            if (b.rank > 1) return;
            for (long it = 0; it < iters; it++) {
                if (b.array) {
                    for (int k = 0; k < WINDOW; k++) {
                        if (b.rank == 0) w.send(asb, n[0], MPI.BYTE, 1, 2);
                        else w.recv(MPI.slice(arb, k * n[0]), n[0], MPI.BYTE, 0, 2);
                    }
                } else {
                    for (int k = 0; k < WINDOW; k++)
                        rq[k] = b.rank == 0 ? w.iSend(dsb, n[0], MPI.BYTE, 1, 2)
                                            : w.iRecv(slot[k], n[0], MPI.BYTE, 0, 2);
                    Request.waitAll(rq);
                }
                if (b.rank == 0) w.recv(none, 0, MPI.BYTE, 1, 3);
                else w.send(none, 0, MPI.BYTE, 0, 3);
            }
        };
        for (long s = b.min; s <= b.max; s = b.next(s)) {
            n[0] = (int) s;
            for (int k = 0; all != null && k < WINDOW; k++)
                slot[k] = MPI.slice(all, k * (int) s);
            for (int i = 0; i < s; i++) {
                dsb.put(i, Bench.pat(i, s));
                asb[i] = Bench.pat(i, s);
            }
            win.run(1);
            if (b.rank == 1)
                for (int k = 0; k < WINDOW; k++)
                    for (int i = 0; i < s; i++) {
                        byte got = b.array ? arb[k * (int) s + i] : all.get(k * (int) s + i);
                        if (got != Bench.pat(i, s)) b.die("wrong data in slot " + k + " at " + i);
                    }
            double t = b.time(w, win);
            b.row("bandwidth", b.array ? "uni-array" : "uni", 2, s, t, (double) s * WINDOW);
        }
        b.end();
    }
}
