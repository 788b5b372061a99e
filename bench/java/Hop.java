// SPDX-License-Identifier: BSD-3-Clause
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import mpi.*;

/**
 * bench/mpi/hop.h in Java: one cache line, shared by the two ranks of a
 * two-rank job on one node through a file in /dev/shm, ping-ponged to time
 * one one-way hop between the ranks' cores. The VM's two vCPUs flip between
 * a near and a far placement from one second to the next, and a JVM run
 * lasts longer than a C one (start-up, JIT warm-up), so each Java point
 * records the hop just before and after its timed part (the rows' hop0_ns,
 * hop1_ns), as the C programs do, and bench/compare places it by them.
 *
 * The line holds a counter: the follower writes 1 when it is ready; the
 * leader writes even numbers, the follower answers each with the next odd
 * one, until the leader writes STOP.
 */
final class Hop {
    private static final VarHandle LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final long STOP = -1L; // hop.h's UINT64_MAX
    private static final int NAME = 128;
    private final MappedByteBuffer line;

    private Hop(MappedByteBuffer line) {
        this.line = line;
    }

    /**
     * The line of a two-rank job whose ranks share /dev/shm (rank 0 makes
     * the file, rank 1 opens it by the name it is sent), or null (more
     * ranks, no /dev/shm, another node). Both ranks call it.
     */
    static Hop open(Intracomm w, int rank, int size) throws MPIException {
        if (size != 2) return null;
        byte[] name = new byte[NAME];
        Path file = null;
        MappedByteBuffer m = null;
        if (rank == 0) {
            try {
                file = Files.createTempFile(Path.of("/dev/shm"), "bench-hop-", "");
                byte[] s = file.toString().getBytes(StandardCharsets.UTF_8);
                if (s.length < NAME) System.arraycopy(s, 0, name, 0, s.length);
            } catch (IOException | UnsupportedOperationException e) {
                file = null;
            }
        }
        w.bcast(name, NAME, MPI.BYTE, 0);
        int len = 0;
        while (len < NAME && name[len] != 0) len++;
        if (len > 0) m = map(Path.of(new String(name, 0, len, StandardCharsets.UTF_8)));
        int[] ok = {m != null ? 1 : 0}, all = new int[1];
        w.allReduce(ok, all, 1, MPI.INT, MPI.MIN);
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a leftover 64-byte file in /dev/shm
            }
        }
        if (all[0] == 0) return null;
        Hop h = new Hop(m);
        /* A JVM runs these loops interpreted until it has counted enough
         * passes, tens of ns slower a hop than compiled: far from near.
         * So the probe runs a few times, untimed, before it counts. */
        for (int i = 0; i < 4; i++) h.probe(w, rank, 50000, 0.2);
        return h;
    }

    private static MappedByteBuffer map(Path p) {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            if (f.length() < 64) f.setLength(64);
            return f.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, 64);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private long load() {
        return (long) LONG.getAcquire(line, 0);
    }

    private void store(long v) {
        LONG.setRelease(line, 0, v);
    }

    /** Waits for the counter to read want or STOP (the value read), 0 after 5 s. */
    private long await(long want) {
        long t0 = 0;
        for (long spins = 0;; spins++) {
            long v = load();
            if (v == want || v == STOP) return v;
            if ((spins & 0xfffff) == 0xfffff) {
                if (t0 == 0)
                    t0 = System.nanoTime();
                else if (System.nanoTime() - t0 > 5_000_000_000L)
                    return 0;
            }
        }
    }

    private void follow() {
        store(1);
        for (long i = 0;; i++) {
            long v = await(2 * i + 2);
            if (v == STOP || v == 0) return;
            store(2 * i + 3);
        }
    }

    /** n round trips, the first tenth warming up, or fewer after maxSec: ns a hop, or -1. */
    private double lead(long n, double maxSec) {
        if (await(1) != 1) return -1;
        long warm = n / 10, i = 0;
        long start = System.nanoTime(), t0 = start, max = (long) (maxSec * 1e9);
        boolean bad = false;
        for (; i < n; i++) {
            if (i == warm) t0 = System.nanoTime();
            if ((i & 255) == 255 && System.nanoTime() - start > max) break;
            store(2 * i + 2);
            if (await(2 * i + 3) != 2 * i + 3) {
                bad = true;
                break;
            }
        }
        long dt = System.nanoTime() - t0;
        store(STOP);
        long timed = i - warm;
        return bad || timed < 100 ? -1 : (double) dt / timed / 2;
    }

    /**
     * The hop between the two ranks' cores now, in ns: rank 0's answer, -1
     * on rank 1 or when unknown. Both ranks call it.
     */
    double probe(Intracomm w, int rank, long n, double maxSec) throws MPIException {
        // Rank 1 is past the last probe's STOP at the first barrier and
        // announces itself only after the second.
        w.barrier();
        if (rank == 0) store(0);
        w.barrier();
        if (rank == 1) {
            follow();
            return -1;
        }
        return lead(n, maxSec);
    }
}
