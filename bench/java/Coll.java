// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/**
 * bcast and allreduce (double sum) through the Java binding, as in
 * bench/mpi/coll.c: the slowest rank's time per call and the aggregated
 * MB/s ((P-1)·n for bcast, P·(P-1)·n for allreduce). Direct buffers, or heap
 * arrays with --array (variants bcast-array, allreduce-array).
 *   umprun -n P java -cp ump.jar:ump_bench.jar Coll [--array] [--sizes 8,1k,64k] ...
 */
public class Coll {
    public static void main(String[] args) throws MPIException {
        Bench b = new Bench(args, 8, 1 << 20);
        Intracomm w = MPI.COMM_WORLD;
        long[] sizes = null;
        for (int i = 0; i < b.rest.length; i++)
            if (b.rest[i].equals("--sizes")) {
                String[] p = b.rest[++i].split(",");
                sizes = new long[p.length];
                for (int j = 0; j < p.length; j++)
                    sizes[j] = Bench.parseSize(p[j]);
            }
        if (sizes == null) {
            java.util.ArrayList<Long> l = new java.util.ArrayList<>();
            for (long s = Math.max(8, b.min); s <= b.max; s = b.next(s))
                l.add(s);
            sizes = l.stream().mapToLong(Long::longValue).toArray();
        }
        int P = b.size;
        String sfx = b.array ? "-array" : "";
        for (long s : sizes) {
            int cnt = (int) (s / 8);
            // Only the variant's own buffers: a large heap array is a humongous
            // object whose collection would slow the direct variant too.
            ByteBuffer ds = b.array ? null : Bench.alloc(cnt * 8);
            ByteBuffer dr = b.array ? null : Bench.alloc(cnt * 8);
            double[] as = b.array ? new double[cnt] : null, ar = b.array ? new double[cnt] : null;
            for (int i = 0; i < cnt; i++) {
                if (b.array) as[i] = i + b.rank;
                else ds.putDouble(i * 8, i + b.rank);
            }
            Object sb = b.array ? as : ds, rb = b.array ? ar : dr;
            // bcast from 0: check once, then time
            w.bcast(sb, cnt, MPI.DOUBLE, 0);
            for (int i = 0; i < cnt; i++) {
                double got = b.array ? as[i] : ds.getDouble(i * 8);
                if (got != i) b.die("bcast: wrong data at " + i);
            }
            double t = b.time(w, it -> {
                for (long k = 0; k < it; k++)
                    w.bcast(sb, cnt, MPI.DOUBLE, 0);
            });
            b.row("coll", "bcast" + sfx, P, s, t, (double) (P - 1) * s);
            w.allReduce(sb, rb, cnt, MPI.DOUBLE, MPI.SUM);
            for (int i = 0; i < cnt; i++) {
                double got = b.array ? ar[i] : dr.getDouble(i * 8);
                if (got != (double) i * P) b.die("allreduce: wrong data at " + i);
            }
            t = b.time(w, it -> {
                for (long k = 0; k < it; k++)
                    w.allReduce(sb, rb, cnt, MPI.DOUBLE, MPI.SUM);
            });
            b.row("coll", "allreduce" + sfx, P, s, t, (double) P * (P - 1) * s);
        }
        b.end();
    }
}
