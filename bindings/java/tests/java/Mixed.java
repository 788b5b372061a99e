// SPDX-License-Identifier: BSD-3-Clause
import java.nio.IntBuffer;

import mpi.*;

/** Rank 0 in Java, rank 1 the C program c_peer: messages both ways, collectives together. */
public class Mixed {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        T.rank = w.getRank();
        T.eq(w.getRank(), 0, "the Java side is rank 0");
        int[] sizes = {0, 1, 4096, 65536, 1 << 20};
        for (int k = 0; k < sizes.length; k++) {
            int n = sizes[k];
            int[] a = new int[n];
            for (int i = 0; i < n; i++)
                a[i] = i * 5 + k;
            if (k % 2 == 0) w.send(a, n, MPI.INT, 1, k);
            else {
                IntBuffer b = MPI.newIntBuffer(Math.max(n, 1));
                b.put(0, a);
                w.send(b, n, MPI.INT, 1, k);
            }
            IntBuffer back = MPI.newIntBuffer(Math.max(n, 1));
            Status s = w.recv(back, n, MPI.INT, 1, 100 + k);
            T.eq(s.getCount(MPI.INT), n, "count from C");
            for (int i = 0; i < n; i++)
                T.eq(back.get(i), -(i * 5 + k), "from C size " + n + " element " + i);
        }
        double[] d = {10, 11, 12}, sum = new double[3];
        w.allReduce(d, sum, 3, MPI.DOUBLE, MPI.SUM);
        for (int i = 0; i < 3; i++)
            T.check(sum[i] == d[i] + 0.5 + i, "allReduce with C element " + i);
        long[] b = {1234567890123L};
        w.bcast(b, 1, MPI.LONG, 0);
        System.out.println("Mixed OK");
        MPI.Finalize();
    }
}
