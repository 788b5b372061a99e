// SPDX-License-Identifier: BSD-3-Clause
import java.nio.IntBuffer;

import mpi.*;

/** InitThread levels: the level asked is provided; under MULTIPLE two threads exchange at once. */
public class Threads {
    public static void main(String[] args) throws Exception {
        int want = Integer.parseInt(args[0]);
        int got = MPI.InitThread(args, want);
        Intracomm w = MPI.COMM_WORLD;
        int me = w.getRank(), np = w.getSize();
        T.rank = me;
        T.eq(got, want, "provided level");
        T.eq(MPI.queryThread(), want, "queryThread");
        T.check(MPI.isThreadMain(), "isThreadMain");
        if (want == MPI.THREAD_MULTIPLE && np >= 2 && me < 2) {
            int peer = 1 - me;
            Thread[] ts = new Thread[2];
            for (int t = 0; t < 2; t++) {
                final int tag = t;
                ts[t] = new Thread(() -> {
                    try {
                        IntBuffer out = MPI.newIntBuffer(10000), in = MPI.newIntBuffer(10000);
                        for (int round = 0; round < 20; round++) {
                            for (int i = 0; i < 10000; i++)
                                out.put(i, me * 1000000 + tag * 100000 + round * 1000 + i % 1000);
                            w.sendRecv(out, 10000, MPI.INT, peer, tag, in, 10000, MPI.INT, peer, tag);
                            for (int i = 0; i < 10000; i++)
                                T.eq(in.get(i), peer * 1000000 + tag * 100000 + round * 1000 + i % 1000,
                                        "thread " + tag + " round " + round);
                        }
                    } catch (MPIException e) {
                        T.fail("thread " + tag + ": " + e);
                    }
                });
                ts[t].start();
            }
            for (Thread t : ts)
                t.join();
        }
        w.barrier();
        if (me == 0) System.out.println("Threads OK at level " + got);
        MPI.Finalize();
    }
}
