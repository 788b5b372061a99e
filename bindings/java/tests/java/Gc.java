// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/**
 * A large iRecv into a direct buffer that only the Request still references,
 * while the receiver forces garbage collections and churns the heap: the
 * request must keep the buffer alive, the data must arrive intact.
 */
public class Gc {
    static final int N = 8 << 20;

    public static void main(String[] args) throws MPIException, InterruptedException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int me = w.getRank();
        T.rank = me;
        if (me == 1) {
            // Only the request references the buffer; a weak reference watches it.
            java.lang.ref.WeakReference<ByteBuffer> weak =
                    new java.lang.ref.WeakReference<>(MPI.newByteBuffer(N));
            Request r = w.iRecv(weak.get(), N, MPI.BYTE, 0, 1);
            java.lang.ref.WeakReference<Object> probe = new java.lang.ref.WeakReference<>(new Object());
            for (int i = 0; i < 20; i++) {
                byte[][] junk = new byte[64][];
                for (int j = 0; j < junk.length; j++)
                    junk[j] = new byte[64 << 10];
                System.gc();
            }
            T.check(probe.get() == null, "the collector ran");
            ByteBuffer b = weak.get();
            T.check(b != null, "the pending request kept its buffer reachable");
            w.send(new byte[0], 0, MPI.BYTE, 0, 2); // now the sender may send
            Status s = r.waitStatus();
            T.eq(s.getCount(MPI.BYTE), N, "count");
            T.verify(b, 9, N, "large iRecv across collections");
            // The request let go of the buffer once complete; receive again into a kept one.
            ByteBuffer keep = MPI.newByteBuffer(N);
            Request r2 = w.iRecv(keep, N, MPI.BYTE, 0, 3);
            System.gc();
            r2.waitFor();
            T.verify(keep, 9, N, "second large iRecv");
        } else if (me == 0) {
            ByteBuffer b = MPI.newByteBuffer(N);
            T.fill(b, 9, N);
            w.recv(new byte[0], 0, MPI.BYTE, 1, 2);
            w.send(b, N, MPI.BYTE, 1, 1);
            w.send(b, N, MPI.BYTE, 1, 3);
        }
        w.barrier();
        if (me == 0) System.out.println("Gc OK");
        MPI.Finalize();
    }
}
