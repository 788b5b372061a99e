// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.util.function.IntUnaryOperator;

import mpi.*;

/**
 * One-sided communication through mpi.Win on every rank of COMM_WORLD:
 * fence epochs of puts and gets at 1, 7, 1000 and 300000 ints (past the
 * rendezvous thresholds) into every rank's window, itself included; a
 * vector datatype on the target side of puts and on the origin side of gets
 * (holes untouched); accumulate with SUM (ints and doubles) and REPLACE,
 * getAccumulate with SUM and NO_OP; a fetchAndOp counter under shared locks
 * (each rank's fetches increase, all of them are 0..P*N-1 once each); a
 * compareAndSwap spin lock and an exclusive lock guarding a get/put
 * increment; lockAll with flushAll, sync, flushLocal and flushLocalAll;
 * post/start/complete/wait (and test) both ways; rPut, rGet, rAccumulate
 * and rGetAccumulate; allocated and shared windows (getBase, sharedQuery);
 * a large put whose origin only the epoch references across collections;
 * errors as MPIException with the window still usable after them; dynamic
 * attach/detach; names, group, info, error handler, byte windows with a
 * displacement unit of 4. Every element is checked; every window is freed.
 */
public class Rma {
    static Intracomm w = MPI.COMM_WORLD;
    static int me, np;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = w.getRank();
        np = w.getSize();
        T.rank = me;
        T.check(np >= 2, "needs 2 ranks");
        fences();
        vectors();
        accumulates();
        counter();
        spinLock();
        locks();
        pscw();
        requests();
        allocated();
        shared();
        collected();
        errors();
        dynamic();
        misc();
        w.barrier();
        if (me == 0) System.out.println("Rma OK on " + np + " ranks");
        MPI.Finalize();
    }

    /** The int rank a sends to rank b at element i (b may be a tag below 0). */
    static int val(int a, int b, int i) {
        return a * 1000003 + b * 7919 + i * 31 + 1;
    }

    static IntBuffer ints(int n, IntUnaryOperator f) {
        IntBuffer b = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++)
            b.put(i, f.applyAsInt(i));
        return b;
    }

    static void fill(IntBuffer b, int from, int n, int v) {
        for (int i = from; i < from + n; i++)
            b.put(i, v);
    }

    /** b[off + i] == want(i) for i < n, else a failure naming what and i (built only then). */
    static void same(IntBuffer b, int off, int n, IntUnaryOperator want, String what) {
        for (int i = 0; i < n; i++) {
            int got = b.get(off + i), exp = want.applyAsInt(i);
            if (got != exp) T.fail(what + ": element " + i + " is " + got + ", want " + exp);
        }
    }

    static void free(Win win, String what) throws MPIException {
        win.free();
        T.check(win.isNull(), what + ": isNull() after free()");
    }

    interface Call {
        void run() throws MPIException;
    }

    /** c must throw an MPIException with a class (want, or any error when want < 0) and a message. */
    static void fails(String what, int want, Call c) {
        try {
            c.run();
        } catch (MPIException e) {
            T.check(e.getErrorClass() != MPI.SUCCESS, what + ": error class is SUCCESS");
            T.check(e.getMessage() != null && !e.getMessage().isEmpty(), what + ": empty message");
            if (want >= 0)
                T.eq(e.getErrorClass(), want, what + ": error class (message: " + e.getMessage() + ")");
            return;
        }
        T.fail(what + ": no MPIException");
    }

    /** Puts into every rank's slice me (itself included), then gets from every rank, fenced. */
    static void fences() throws MPIException {
        int max = 300000;
        IntBuffer mem = MPI.newIntBuffer(np * max);
        Win win = new Win(mem, np * max, 1, MPI.INFO_NULL, w);
        IntBuffer got = MPI.newIntBuffer(np * max);
        for (int n : new int[] {1, 7, 1000, max}) {
            fill(mem, 0, np * n, -1);
            win.fence(MPI.MODE_NOPRECEDE);
            for (int t = 0; t < np; t++) {
                int tt = t;
                win.put(ints(n, i -> val(me, tt, i)), n, MPI.INT, t, me * n, n, MPI.INT);
            }
            win.fence(MPI.MODE_NOSTORE);
            for (int s = 0; s < np; s++) {
                int ss = s;
                same(mem, s * n, n, i -> val(ss, me, i), "fence put of " + n + " ints from rank " + s);
            }
            for (int j = 0; j < np * n; j++)
                mem.put(j, val(me, -1, j));
            fill(got, 0, np * n, -7);
            win.fence(MPI.MODE_NOPUT);
            for (int t = 0; t < np; t++)
                win.get(MPI.slice(got, t * n), n, MPI.INT, t, me * n, n, MPI.INT);
            win.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
            for (int t = 0; t < np; t++) {
                int tt = t;
                same(got, t * n, n, i -> val(tt, -1, me * n + i),
                        "fence get of " + n + " ints from rank " + t);
            }
        }
        free(win, "fence window");
    }

    /** Contiguous origin into a strided target (stride P+1: a hole column), and back. */
    static void vectors() throws MPIException {
        int stride = np + 1;
        for (int n : new int[] {5, 40000}) {
            IntBuffer mem = MPI.newIntBuffer(stride * n);
            fill(mem, 0, stride * n, -1);
            Win win = new Win(mem, stride * n, 1, MPI.INFO_NULL, w);
            Datatype vec = Datatype.createVector(n, 1, stride, MPI.INT);
            vec.commit();
            win.fence(MPI.MODE_NOPRECEDE);
            for (int t = 0; t < np; t++) {
                int tt = t;
                win.put(ints(n, i -> val(me, tt, i)), n, MPI.INT, t, me, 1, vec);
            }
            win.fence(MPI.MODE_NOSTORE);
            same(mem, 0, stride * n, k -> vecWant(me, k, stride), "put into a vector of " + n
                    + " (stride " + stride + ", every " + stride + "th element from " + np
                    + " a hole)");
            // get: the next rank's first n ints, scattered by the vector from slice 1
            int t = (me + 1) % np;
            IntBuffer got = MPI.newIntBuffer(stride * n + 1);
            fill(got, 0, stride * n + 1, -7);
            win.get(MPI.slice(got, 1), 1, vec, t, 0, n, MPI.INT);
            win.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
            same(got, 0, stride * n + 1, j -> j >= 1 && (j - 1) % stride == 0
                    ? vecWant(t, (j - 1) / stride, stride) : -7, "get of " + n
                    + " ints into a vector (stride " + stride + " from element 1) from rank " + t);
            vec.free();
            free(win, "vector window");
        }
    }

    /** Element k of rank r's window after the vector puts. */
    static int vecWant(int r, int k, int stride) {
        int c = k % stride;
        return c < np ? val(c, r, k / stride) : -1;
    }

    /** SUM of ints and doubles into rank 0, REPLACE, then getAccumulate SUM and NO_OP. */
    static void accumulates() throws MPIException {
        for (int n : new int[] {1000, 200000}) {
            int size = (1 + np) * n;
            IntBuffer mem = ints(size, j -> j < n ? j : -1);
            DoubleBuffer dmem = MPI.newDoubleBuffer(n);
            for (int i = 0; i < n; i++)
                dmem.put(i, 1.0);
            Win iw = new Win(mem, size, 1, MPI.INFO_NULL, w);
            Win dw = new Win(dmem, n, 1, MPI.INFO_NULL, w);
            iw.fence(MPI.MODE_NOPRECEDE);
            dw.fence(MPI.MODE_NOPRECEDE);
            iw.accumulate(ints(n, i -> (me + 1) * i + me), n, MPI.INT, 0, 0, n, MPI.INT, MPI.SUM);
            iw.accumulate(ints(n, i -> val(me, 0, i)), n, MPI.INT, 0, n + me * n, n, MPI.INT,
                    MPI.REPLACE);
            DoubleBuffer d = MPI.newDoubleBuffer(n);
            for (int i = 0; i < n; i++)
                d.put(i, me * 0.5 + i * 0.25);
            dw.accumulate(d, n, MPI.DOUBLE, 0, 0, n, MPI.DOUBLE, MPI.SUM);
            iw.fence(MPI.MODE_NOSTORE);
            dw.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
            if (me == 0) {
                same(mem, 0, n, Rma::sumWant, "accumulate SUM of " + n + " ints");
                for (int i = 0; i < n; i++) {
                    double want = 1.0;
                    for (int r = 0; r < np; r++)
                        want += r * 0.5 + i * 0.25;
                    if (dmem.get(i) != want)
                        T.fail("accumulate SUM of " + n + " doubles: element " + i + " is "
                                + dmem.get(i) + ", want " + want);
                }
                for (int r = 0; r < np; r++) {
                    int rr = r;
                    same(mem, n + r * n, n, i -> val(rr, 0, i), "accumulate REPLACE of " + n
                            + " ints from rank " + r);
                }
            }
            iw.fence(MPI.MODE_NOPRECEDE | MPI.MODE_NOSTORE); // rank 0 read the slots
            IntBuffer res = ints(n, i -> -7);
            iw.getAccumulate(ints(n, i -> 1), n, MPI.INT, res, n, MPI.INT, 0, n + me * n, n,
                    MPI.INT, MPI.SUM);
            iw.fence(0);
            same(res, 0, n, i -> val(me, 0, i), "getAccumulate SUM of " + n + ": result");
            IntBuffer sums = ints(n, i -> -7), slot = ints(n, i -> -7);
            IntBuffer unused = MPI.newIntBuffer(n);
            iw.getAccumulate(unused, n, MPI.INT, sums, n, MPI.INT, 0, 0, n, MPI.INT, MPI.NO_OP);
            iw.getAccumulate(unused, n, MPI.INT, slot, n, MPI.INT, 0, n + me * n, n, MPI.INT,
                    MPI.NO_OP);
            iw.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
            same(sums, 0, n, Rma::sumWant, "getAccumulate NO_OP of " + n + " sums");
            same(slot, 0, n, i -> val(me, 0, i) + 1, "getAccumulate NO_OP of " + n + " after SUM");
            free(iw, "accumulate int window");
            free(dw, "accumulate double window");
        }
    }

    static int sumWant(int i) {
        int s = i;
        for (int r = 0; r < np; r++)
            s += (r + 1) * i + r;
        return s;
    }

    /** fetchAndOp(SUM) on one counter at rank 0 under shared locks: every value fetched once. */
    static void counter() throws MPIException {
        int nops = 200;
        IntBuffer c = MPI.newIntBuffer(1);
        Win win = new Win(c, 1, 1, MPI.INFO_NULL, w);
        IntBuffer one = ints(1, i -> 1), res = MPI.newIntBuffer(1);
        int[] mine = new int[nops];
        for (int k = 0; k < nops; k++) {
            res.put(0, -1);
            win.lock(MPI.LOCK_SHARED, 0, 0);
            win.fetchAndOp(one, res, MPI.INT, 0, 0, MPI.SUM);
            win.unlock(0);
            mine[k] = res.get(0);
            T.check(mine[k] >= 0 && mine[k] < np * nops, "fetchAndOp " + k + " fetched " + mine[k]);
            if (k > 0)
                T.check(mine[k] > mine[k - 1], "fetchAndOp " + k + " fetched " + mine[k]
                        + " after " + mine[k - 1] + ": not increasing");
        }
        int[] all = new int[np * nops];
        w.gather(mine, nops, MPI.INT, all, nops, MPI.INT, 0);
        if (me == 0) {
            java.util.Arrays.sort(all);
            for (int i = 0; i < all.length; i++)
                T.eq(all[i], i, "sorted fetched counter values, index " + i);
            win.lock(MPI.LOCK_SHARED, 0, 0);
            win.fetchAndOp(one, res, MPI.INT, 0, 0, MPI.NO_OP);
            win.unlock(0);
            T.eq(res.get(0), np * nops, "counter read with fetchAndOp NO_OP");
            T.eq(c.get(0), np * nops, "counter in rank 0's memory");
        }
        free(win, "counter window");
    }

    /**
     * A lock word at rank 0 taken with compareAndSwap(1, expect 0) inside
     * lockAll, guarding a get/put increment of the int after it. It is
     * released with accumulate(REPLACE), atomic with the others' CAS on
     * the same word (a put there would be a conflicting access).
     */
    static void spinLock() throws MPIException {
        int rounds = 50;
        IntBuffer m = MPI.newIntBuffer(2);
        Win win = new Win(m, 2, 1, MPI.INFO_NULL, w);
        IntBuffer one = ints(1, i -> 1), zero = ints(1, i -> 0);
        IntBuffer res = MPI.newIntBuffer(1), tmp = MPI.newIntBuffer(1);
        win.lockAll(0);
        for (int k = 0; k < rounds; k++) {
            for (;;) {
                res.put(0, -1);
                win.compareAndSwap(one, zero, res, MPI.INT, 0, 0);
                win.flush(0);
                if (res.get(0) == 0) break;
                T.eq(res.get(0), 1, "compareAndSwap on the lock word, round " + k);
                Thread.yield();
            }
            win.get(tmp, 1, MPI.INT, 0, 1, 1, MPI.INT);
            win.flush(0);
            int before = tmp.get(0);
            T.check(before >= k && before < np * rounds, "count " + before + " in round " + k);
            tmp.put(0, before + 1);
            win.put(tmp, 1, MPI.INT, 0, 1, 1, MPI.INT);
            win.flush(0);
            win.accumulate(zero, 1, MPI.INT, 0, 0, 1, MPI.INT, MPI.REPLACE);
            win.flush(0);
        }
        win.unlockAll();
        w.barrier();
        if (me == 0) {
            win.lock(MPI.LOCK_SHARED, 0, 0);
            T.eq(m.get(1), np * rounds, "count under the compareAndSwap lock");
            T.eq(m.get(0), 0, "lock word released");
            win.unlock(0);
        }
        free(win, "spin lock window");
    }

    /** Exclusive locks, lockAll + flushAll + sync, flushLocal/flushLocalAll. */
    static void locks() throws MPIException {
        int m = 20000, pm = np * m, size = 4 * pm + 1, cnt = 4 * pm, rounds = 30;
        IntBuffer mem = MPI.newIntBuffer(size);
        fill(mem, 0, size, -1);
        mem.put(cnt, 0);
        Win win = new Win(mem, size, 1, MPI.INFO_NULL, w);
        int t = (me + 1) % np, from = (me + np - 1) % np;
        win.lock(MPI.LOCK_EXCLUSIVE, t, 0);
        win.put(ints(m, i -> val(me, t, i)), m, MPI.INT, t, me * m, m, MPI.INT);
        win.unlock(t);
        w.barrier();
        win.lock(MPI.LOCK_SHARED, me, 0);
        for (int s = 0; s < np; s++)
            same(mem, s * m, m, s == from ? i -> val(from, me, i) : i -> -1,
                    "put under an exclusive lock, slot " + s);
        win.unlock(me);
        // An exclusive lock on rank 0 guards a get-increment-put of one int.
        IntBuffer tmp = MPI.newIntBuffer(1);
        for (int k = 0; k < rounds; k++) {
            win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            win.get(tmp, 1, MPI.INT, 0, cnt, 1, MPI.INT);
            win.flush(0);
            tmp.put(0, tmp.get(0) + 1);
            win.put(tmp, 1, MPI.INT, 0, cnt, 1, MPI.INT);
            win.unlock(0);
        }
        // lockAll: puts to all, flushAll, then everyone reads its own after barrier + sync
        // (the first barrier: no exclusive request waits on a lockAll held over the second).
        w.barrier();
        win.lockAll(0);
        IntBuffer[] o = new IntBuffer[np];
        for (int r = 0; r < np; r++) {
            int rr = r;
            o[r] = ints(m, i -> val(me, rr, i) + 1);
            win.put(o[r], m, MPI.INT, r, pm + me * m, m, MPI.INT);
        }
        win.flushAll();
        w.barrier();
        win.sync();
        for (int s = 0; s < np; s++) {
            int ss = s;
            same(mem, pm + s * m, m, i -> val(ss, me, i) + 1,
                    "put inside lockAll + flushAll + barrier + sync from rank " + s);
        }
        win.unlockAll();
        // flushLocal: the origin buffer may be refilled once it returns.
        win.lockAll(MPI.MODE_NOCHECK);
        IntBuffer b = MPI.newIntBuffer(m);
        for (int r = 0; r < np; r++) {
            for (int i = 0; i < m; i++)
                b.put(i, val(me, r, i) + 2);
            win.put(b, m, MPI.INT, r, 2 * pm + me * m, m, MPI.INT);
            win.flushLocal(r);
            for (int i = 0; i < m; i++)
                b.put(i, val(me, r, i) + 3);
            win.put(b, m, MPI.INT, r, 3 * pm + me * m, m, MPI.INT);
            win.flushLocalAll();
        }
        win.unlockAll();
        w.barrier();
        win.lock(MPI.LOCK_SHARED, me, 0);
        for (int s = 0; s < np; s++) {
            int ss = s;
            same(mem, 2 * pm + s * m, m, i -> val(ss, me, i) + 2,
                    "put before flushLocal from rank " + s);
            same(mem, 3 * pm + s * m, m, i -> val(ss, me, i) + 3,
                    "put after flushLocal (origin refilled) from rank " + s);
        }
        if (me == 0) T.eq(mem.get(cnt), np * rounds, "count under exclusive locks");
        win.unlock(me);
        free(win, "lock window");
    }

    /** Rank 0 exposes to the others (waitFor, then test()), then accesses them. */
    static void pscw() throws MPIException {
        int n = 5000;
        IntBuffer mem = ints(np * n, j -> me == 0 ? -1 : val(me, -2, j));
        Win win = new Win(mem, np * n, 1, MPI.INFO_NULL, w);
        Group wg = w.getGroup(), others = wg.excl(new int[] {0}), zero = wg.incl(new int[] {0});
        for (int round = 0; round < 2; round++) {
            int rd = round;
            if (me == 0) {
                win.post(others, 0);
                if (round == 0) {
                    win.waitFor();
                } else {
                    while (!win.test())
                        Thread.yield();
                }
                for (int s = 0; s < np; s++) {
                    int ss = s;
                    same(mem, s * n, n, s == 0 ? i -> -1 : i -> val(ss, 0, i) + rd, "put in "
                            + "start/complete, round " + round + " (" + (round == 0 ? "waitFor"
                            : "test") + "), slot of rank " + s);
                }
            } else {
                win.start(zero, 0);
                win.put(ints(n, i -> val(me, 0, i) + rd), n, MPI.INT, 0, me * n, n, MPI.INT);
                win.complete();
            }
        }
        if (me == 0) {
            IntBuffer got = ints(np * n, j -> -7);
            win.start(others, 0);
            for (int s = 1; s < np; s++)
                win.get(MPI.slice(got, s * n), n, MPI.INT, s, 0, n, MPI.INT);
            win.complete();
            for (int s = 0; s < np; s++) {
                int ss = s;
                same(got, s * n, n, s == 0 ? i -> -7 : i -> val(ss, -2, i),
                        "get in start/complete, slot of rank " + s);
            }
        } else {
            win.post(zero, MPI.MODE_NOPUT);
            win.waitFor();
        }
        others.free();
        zero.free();
        wg.free();
        free(win, "post/start window");
    }

    /** rPut, rGet, rAccumulate, rGetAccumulate inside lockAll, each waited for. */
    static void requests() throws MPIException {
        for (int n : new int[] {3, 70000}) {
            int size = (2 * np + 2) * n, r1 = np * n, r2 = (np + 1) * n, r3 = (np + 2) * n;
            IntBuffer mem = ints(size, j -> val(me, -3, j));
            Win win = new Win(mem, size, 1, MPI.INFO_NULL, w);
            int t = (me + 1) % np, g = (me + np - 1) % np;
            w.barrier();
            win.lockAll(0);
            Request rp = win.rPut(ints(n, i -> val(me, t, i)), n, MPI.INT, t, me * n, n, MPI.INT);
            IntBuffer gb = ints(n, i -> -7);
            Request rg = win.rGet(gb, n, MPI.INT, g, r1, n, MPI.INT);
            Request ra = win.rAccumulate(ints(n, i -> me * 3 + i), n, MPI.INT, 0, r2, n, MPI.INT,
                    MPI.SUM);
            IntBuffer gr = ints(n, i -> -7);
            Request rga = win.rGetAccumulate(ints(n, i -> me + 1), n, MPI.INT, gr, n, MPI.INT, 0,
                    r3 + me * n, n, MPI.INT, MPI.SUM);
            rg.waitFor();
            same(gb, 0, n, i -> val(g, -3, r1 + i), "rGet of " + n + " from rank " + g);
            rga.waitFor();
            same(gr, 0, n, i -> val(0, -3, r3 + me * n + i), "rGetAccumulate of " + n + ": result");
            rp.waitFor();
            ra.waitFor();
            T.check(rp.isNull() && rg.isNull() && ra.isNull() && rga.isNull(),
                    "RMA requests null after waitFor");
            win.flushAll();
            win.unlockAll();
            w.barrier();
            win.lock(MPI.LOCK_SHARED, me, 0);
            same(mem, 0, size, j -> {
                int want = val(me, -3, j);
                if (j < r1 && j / n == g) want = val(g, me, j % n);
                if (me == 0 && j >= r2 && j < r3)
                    for (int r = 0; r < np; r++)
                        want += r * 3 + (j - r2);
                if (me == 0 && j >= r3) want += (j - r3) / n + 1;
                return want;
            }, "window after rPut (slots " + n + " ints), rAccumulate and rGetAccumulate into rank 0");
            win.unlock(me);
            free(win, "request window");
        }
    }

    /** Win.allocate: getBase is the window, puts and gets through it. */
    static void allocated() throws MPIException {
        int m = 50000, n = np * m;
        Win win = new Win(n, 1, MPI.INFO_NULL, w, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE);
        ByteBuffer base = win.getBase();
        T.eq(base.capacity(), 4L * n, "allocated window's base capacity in bytes");
        T.check(base.isDirect(), "allocated window's base is direct");
        T.check(base.order() == ByteOrder.nativeOrder(), "allocated window's base in native order");
        IntBuffer bi = base.asIntBuffer();
        fill(bi, 0, n, -1);
        win.fence(MPI.MODE_NOPRECEDE);
        for (int t = 0; t < np; t++) {
            int tt = t;
            win.put(ints(m, i -> val(me, tt, i)), m, MPI.INT, t, me * m, m, MPI.INT);
        }
        win.fence(MPI.MODE_NOSTORE);
        for (int s = 0; s < np; s++) {
            int ss = s;
            same(bi, s * m, m, i -> val(ss, me, i), "put into an allocated window from rank " + s);
        }
        T.eq(base.getInt(4 * (n - 1)), val(np - 1, me, m - 1), "last int read from the base bytes");
        int t = (me + 1) % np;
        IntBuffer got = ints(m, i -> -7);
        win.get(got, m, MPI.INT, t, me * m, m, MPI.INT);
        win.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
        same(got, 0, m, i -> val(me, t, i), "get from the allocated window of rank " + t);
        free(win, "allocated window");
    }

    /** Win.allocate_shared with a size per rank: loads and stores through sharedQuery. */
    static void shared() throws MPIException {
        int n = 1000 + 10 * me;
        Win win = new Win(n, 1, MPI.INFO_NULL, w, MPI.newIntBuffer(1), Win.FLAVOR_SHARED);
        ByteBuffer base = win.getBase();
        T.eq(base.capacity(), 4L * n, "shared window's own segment capacity");
        IntBuffer bi = base.asIntBuffer();
        for (int i = 0; i < n; i++)
            bi.put(i, val(me, 7, i));
        win.fence(0);
        for (int r = 0; r < np; r++) {
            ByteBuffer s = win.sharedQuery(r);
            T.eq(s.capacity(), 4L * (1000 + 10 * r), "sharedQuery(" + r + ") capacity");
            T.check(s.isDirect() && s.order() == ByteOrder.nativeOrder(),
                    "sharedQuery(" + r + ") is direct, in native order");
            int rr = r;
            same(s.asIntBuffer(), 0, 1000 + 10 * r, i -> val(rr, 7, i),
                    "load from rank " + r + "'s segment after a fence");
        }
        win.fence(MPI.MODE_NOSUCCEED);
        win.lockAll(MPI.MODE_NOCHECK);
        for (int i = 0; i < n; i++)
            bi.put(i, val(me, 8, i));
        win.sync();
        w.barrier();
        win.sync();
        for (int r = 0; r < np; r++) {
            int rr = r;
            same(win.sharedQuery(r).asIntBuffer(), 0, 1000 + 10 * r, i -> val(rr, 8, i),
                    "load from rank " + r + "'s segment after sync + barrier + sync");
        }
        w.barrier();
        win.unlockAll();
        int t = (me + 1) % np, from = (me + np - 1) % np;
        win.fence(MPI.MODE_NOPRECEDE);
        win.put(ints(10, i -> val(me, 9, i)), 10, MPI.INT, t, 0, 10, MPI.INT);
        win.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
        IntUnaryOperator want = i -> i < 10 ? val(from, 9, i) : val(me, 8, i);
        same(bi, 0, n, want, "shared window (getBase) after a put from rank " + from);
        same(win.sharedQuery(me).asIntBuffer(), 0, n, want, "sharedQuery(self) after a put");
        free(win, "shared window");
    }

    /** A large put whose origin buffer only the pending epoch references, across collections. */
    static void collected() throws MPIException {
        int n = 1 << 20;
        IntBuffer mem = MPI.newIntBuffer(n);
        fill(mem, 0, n, -1);
        Win win = new Win(mem, n, 1, MPI.INFO_NULL, w);
        int t = (me + 1) % np, from = (me + np - 1) % np;
        win.fence(MPI.MODE_NOPRECEDE);
        putFresh(win, t, n, 11);
        churn(n);
        win.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
        same(mem, 0, n, i -> val(from, 11, i), "fenced put across System.gc()");
        w.barrier(); // every rank checked before the next put overwrites
        win.lock(MPI.LOCK_EXCLUSIVE, t, 0);
        putFresh(win, t, n, 12);
        churn(n);
        win.unlock(t);
        w.barrier();
        win.lock(MPI.LOCK_SHARED, me, 0);
        same(mem, 0, n, i -> val(from, 12, i), "locked put across System.gc()");
        win.unlock(me);
        free(win, "collection window");
    }

    static void putFresh(Win win, int t, int n, int tag) throws MPIException {
        win.put(ints(n, i -> val(me, tag, i)), n, MPI.INT, t, 0, n, MPI.INT);
    }

    /** Collections, and fresh direct memory written over what they may have freed. */
    static void churn(int n) {
        for (int k = 0; k < 4; k++) {
            System.gc();
            ByteBuffer junk = MPI.newByteBuffer(4 * n);
            for (int j = 0; j < 4 * n; j += 8)
                junk.putLong(j, 0x5555555555555555L);
        }
        System.gc();
    }

    /** Erroneous calls throw MPIException; the window works after them. */
    static void errors() throws MPIException {
        int n = 10, t = (me + 1) % np, from = (me + np - 1) % np;
        IntBuffer mem = ints(n, i -> -1);
        Win win = new Win(mem, n, 1, MPI.INFO_NULL, w);
        IntBuffer four = ints(4, i -> val(me, 14, i));
        fails("put outside any epoch", MPI.ERR_RMA_SYNC,
                () -> win.put(four, 1, MPI.INT, t, 0, 1, MPI.INT));
        fails("lock with lock type 12345", MPI.ERR_LOCKTYPE, () -> win.lock(12345, t, 0));
        fails("unlock of a rank not locked", MPI.ERR_RMA_SYNC, () -> win.unlock(t));
        fails("flush of a rank not locked", -1, () -> win.flush(t));
        win.fence(MPI.MODE_NOPRECEDE);
        fails("put at displacement " + (n + 5) + " of a " + n + "-int window", MPI.ERR_RMA_RANGE,
                () -> win.put(four, 1, MPI.INT, t, n + 5, 1, MPI.INT));
        fails("put of 4 ints at displacement " + (n - 2), MPI.ERR_RMA_RANGE,
                () -> win.put(four, 4, MPI.INT, t, n - 2, 4, MPI.INT));
        fails("put to rank " + np, MPI.ERR_RANK, () -> win.put(four, 1, MPI.INT, np, 0, 1, MPI.INT));
        fails("get from rank -5", MPI.ERR_RANK, () -> win.get(four, 1, MPI.INT, -5, 0, 1, MPI.INT));
        fails("put from a heap array slice", -1,
                () -> win.put(MPI.slice(new int[4], 0), 4, MPI.INT, t, 0, 4, MPI.INT));
        fails("put from IntBuffer.wrap", -1,
                () -> win.put(IntBuffer.wrap(new int[4]), 4, MPI.INT, t, 0, 4, MPI.INT));
        fails("get into a heap array", -1,
                () -> win.get(MPI.slice(new int[4], 0), 4, MPI.INT, t, 0, 4, MPI.INT));
        fails("fetchAndOp into a heap result", -1, () -> win.fetchAndOp(four,
                IntBuffer.wrap(new int[1]), MPI.INT, t, 0, MPI.SUM));
        win.fence(0);
        win.put(four, 4, MPI.INT, t, 3, 4, MPI.INT);
        win.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
        same(mem, 0, n, i -> i >= 3 && i < 7 ? val(from, 14, i - 3) : -1, "put after the errors");
        free(win, "error window");
    }

    /** Dynamic windows: attach and detach direct buffers; detaching a stranger fails. */
    static void dynamic() throws MPIException {
        Win win = new Win(MPI.INFO_NULL, w);
        IntBuffer a = MPI.newIntBuffer(100);
        ByteBuffer b = MPI.newByteBuffer(64);
        DoubleBuffer d = MPI.newDoubleBuffer(16);
        win.attach(a, 100);
        win.attach(b, 64);
        win.attach(d, 16);
        win.detach(b);
        win.detach(a);
        fails("detach of a buffer already detached", -1, () -> win.detach(a));
        fails("detach of a buffer never attached", -1, () -> win.detach(MPI.newIntBuffer(10)));
        win.detach(d);
        w.barrier();
        free(win, "dynamic window");
    }

    /** Group, name, info, error handler; a byte window with 4-byte displacement units. */
    static void misc() throws MPIException {
        IntBuffer mem = MPI.newIntBuffer(8);
        Info info = new Info();
        info.set("no_locks", "false");
        Win win = new Win(mem, 8, 1, info, w);
        info.free();
        Group g = win.getGroup(), wg = w.getGroup();
        T.eq(g.getSize(), np, "window group size");
        T.eq(g.getRank(), me, "rank in the window group");
        T.eq(Group.compare(g, wg), MPI.IDENT, "window group is COMM_WORLD's");
        g.free();
        wg.free();
        String name = "rma window of rank " + me;
        win.setName(name);
        T.check(name.equals(win.getName()), "window name: got '" + win.getName() + "'");
        Info used = win.getInfo();
        T.check(used != null, "getInfo returns an Info");
        used.free();
        Info set = new Info();
        set.set("accumulate_ordering", "rar,raw,war,waw");
        win.setInfo(set);
        set.free();
        T.check(win.getErrhandler().equals(MPI.ERRORS_RETURN), "a new window returns errors");
        win.setErrhandler(MPI.ERRORS_RETURN);
        T.check(win.getErrhandler().equals(MPI.ERRORS_RETURN), "ERRORS_RETURN set");
        try {
            win.callErrhandler(MPI.ERR_OTHER); // ERRORS_RETURN: returns (or reports the code)
        } catch (MPIException e) {
            T.eq(e.getErrorClass(), MPI.ERR_OTHER, "callErrhandler(ERR_OTHER) class");
        }
        free(win, "misc window");
        // size and unit counted in bytes for a ByteBuffer: 2 ints of rank r at bytes 8r..8r+7.
        ByteBuffer bb = MPI.newByteBuffer(8 * np);
        for (int i = 0; i < 8 * np; i++)
            bb.put(i, (byte) -1);
        Win bw = new Win(bb, 8 * np, 4, MPI.INFO_NULL, w);
        bw.fence(MPI.MODE_NOPRECEDE);
        bw.put(ints(2, i -> val(me, 13, i)), 2, MPI.INT, 0, 2 * me, 2, MPI.INT);
        fails("put past a byte window counted in 4-byte units", MPI.ERR_RMA_RANGE,
                () -> bw.put(ints(2, i -> 0), 2, MPI.INT, 0, 2 * np - 1, 2, MPI.INT));
        bw.fence(MPI.MODE_NOSTORE | MPI.MODE_NOSUCCEED);
        if (me == 0)
            for (int r = 0; r < np; r++)
                for (int k = 0; k < 2; k++)
                    T.eq(bb.getInt(8 * r + 4 * k), val(r, 13, k), "byte window (unit 4) int "
                            + k + " from rank " + r);
        free(bw, "byte window");
    }
}
