// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;

import mpi.*;

/**
 * Collectives against serial references, on heap arrays and direct buffers,
 * regular, in-place, v- and non-blocking forms, predefined and user
 * operations (array and buffer forms). Values depend on rank and index so a
 * misplaced block shows.
 */
public class Coll {
    static Intracomm w = MPI.COMM_WORLD;
    static int me, np;

    static int v(int rank, int i) {
        return rank * 1000 + i * 7 + 1;
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = w.getRank();
        np = w.getSize();
        T.rank = me;
        for (int n : new int[] {1, 1000, 70000}) {
            bcast(n);
            reductions(n);
            gathers(n);
            nbReductions(n);
        }
        vforms();
        userOps();
        nonblocking();
        w.barrier();
        if (me == 0) System.out.println("Coll OK on " + np + " ranks");
        MPI.Finalize();
    }

    static void bcast(int n) throws MPIException {
        for (int root = 0; root < np; root++) {
            int[] a = new int[n];
            IntBuffer b = MPI.newIntBuffer(n);
            if (me == root)
                for (int i = 0; i < n; i++) {
                    a[i] = v(root, i);
                    b.put(i, v(root, i) + 1);
                }
            w.bcast(a, n, MPI.INT, root);
            w.bcast(b, n, MPI.INT, root);
            for (int i = 0; i < n; i++) {
                T.eq(a[i], v(root, i), "bcast array n " + n + " root " + root + " i " + i);
                T.eq(b.get(i), v(root, i) + 1, "bcast direct n " + n + " i " + i);
            }
        }
    }

    static void reductions(int n) throws MPIException {
        int root = np - 1;
        int[] in = new int[n], out = new int[n];
        for (int i = 0; i < n; i++)
            in[i] = v(me, i);
        // serial references
        long[] sum = new long[n];
        int[] max = new int[n];
        for (int r = 0; r < np; r++)
            for (int i = 0; i < n; i++) {
                sum[i] += v(r, i);
                max[i] = Math.max(max[i], v(r, i));
            }
        w.reduce(in, out, n, MPI.INT, MPI.SUM, root);
        if (me == root)
            for (int i = 0; i < n; i++)
                T.eq(out[i], sum[i], "reduce sum i " + i);
        w.allReduce(in, out, n, MPI.INT, MPI.MAX);
        for (int i = 0; i < n; i++)
            T.eq(out[i], max[i], "allReduce max i " + i);
        // in place, direct
        DoubleBuffer d = MPI.newDoubleBuffer(n);
        for (int i = 0; i < n; i++)
            d.put(i, v(me, i) * 0.5);
        w.allReduce(d, n, MPI.DOUBLE, MPI.SUM);
        for (int i = 0; i < n; i++)
            T.check(d.get(i) == sum[i] * 0.5, "allReduce in place double i " + i);
        int[] ip = in.clone();
        w.reduce(ip, n, MPI.INT, MPI.SUM, root);
        if (me == root)
            for (int i = 0; i < n; i++)
                T.eq(ip[i], sum[i], "reduce in place i " + i);
        // arrays: in place, and of doubles (the Java copy path below the pin
        // threshold, pinned above it)
        int[] ia = in.clone();
        w.allReduce(ia, n, MPI.INT, MPI.SUM);
        double[] da = new double[n], dr = new double[n];
        for (int i = 0; i < n; i++)
            da[i] = v(me, i) * 0.25;
        w.allReduce(da, dr, n, MPI.DOUBLE, MPI.SUM);
        for (int i = 0; i < n; i++) {
            T.eq(ia[i], sum[i], "allReduce array in place i " + i);
            T.check(dr[i] == sum[i] * 0.25, "allReduce double array i " + i);
            T.check(da[i] == v(me, i) * 0.25, "allReduce left its input alone i " + i);
        }
        // direct buffers (the fast path): no receive buffer off the root, in
        // place at the root, and a separate send and receive buffer
        IntBuffer xi = MPI.newIntBuffer(n), xo = MPI.newIntBuffer(n), xp = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++) {
            xi.put(i, v(me, i));
            xp.put(i, v(me, i));
        }
        w.reduce(xi, me == root ? xo : null, n, MPI.INT, MPI.SUM, root);
        w.reduce(xp, n, MPI.INT, MPI.SUM, root);
        for (int i = 0; i < n && me == root; i++) {
            T.eq(xo.get(i), sum[i], "reduce direct i " + i);
            T.eq(xp.get(i), sum[i], "reduce direct in place i " + i);
        }
        w.allReduce(xi, xo, n, MPI.INT, MPI.MAX);
        for (int i = 0; i < n; i++)
            T.eq(xo.get(i), max[i], "allReduce direct max i " + i);
        // scan / exScan
        int[] sc = new int[n];
        w.scan(in, sc, n, MPI.INT, MPI.SUM);
        int[] ex = new int[n];
        w.exScan(in, ex, n, MPI.INT, MPI.SUM);
        for (int i = 0; i < n; i++) {
            long s = 0;
            for (int r = 0; r < me; r++)
                s += v(r, i);
            T.eq(sc[i], s + v(me, i), "scan i " + i);
            if (me > 0) T.eq(ex[i], s, "exScan i " + i);
        }
        // reduceScatterBlock and reduceScatter
        int[] big = new int[n * np];
        for (int i = 0; i < big.length; i++)
            big[i] = v(me, i);
        int[] part = new int[n];
        w.reduceScatterBlock(big, part, n, MPI.INT, MPI.SUM);
        for (int i = 0; i < n; i++) {
            long s = 0;
            for (int r = 0; r < np; r++)
                s += v(r, me * n + i);
            T.eq(part[i], s, "reduceScatterBlock i " + i);
        }
        int[] counts = new int[np];
        int total = 0;
        for (int r = 0; r < np; r++)
            total += counts[r] = r + 1;
        int[] src = new int[total];
        for (int i = 0; i < total; i++)
            src[i] = v(me, i);
        int[] got = new int[me + 1];
        w.reduceScatter(src, got, counts, MPI.INT, MPI.SUM);
        int start = me * (me + 1) / 2;
        for (int i = 0; i <= me; i++) {
            long s = 0;
            for (int r = 0; r < np; r++)
                s += v(r, start + i);
            T.eq(got[i], s, "reduceScatter i " + i);
        }
        // MAXLOC on INT2 pairs
        int[] pair = {me % 2 == 0 ? 100 : me, me};
        int[] res = new int[2];
        w.allReduce(pair, res, 1, MPI.INT2, MPI.MAXLOC);
        T.eq(res[0], np > 1 && np - 1 > 100 ? np - 1 : 100, "maxloc value");
        T.eq(res[1], 0, "maxloc index (lowest of equal values)");
        // MINLOC on DOUBLE_INT through the Struct view, on a direct buffer
        DoubleInt di = MPI.doubleInt;
        ByteBuffer pb = MPI.newByteBuffer(2 * di.getExtent()), pr = MPI.newByteBuffer(2 * di.getExtent());
        for (int e = 0; e < 2; e++) {
            DoubleInt.Data dd = di.getData(pb, e);
            dd.putValue(e == 0 ? 5.0 - me : 1.5 + me);
            dd.putIndex(me);
        }
        w.allReduce(pb, pr, 2, di.getType(), MPI.MINLOC);
        DoubleInt.Data r0 = di.getData(pr, 0), r1 = di.getData(pr, 1);
        T.check(r0.getValue() == 5.0 - (np - 1) && r0.getIndex() == np - 1, "minloc element 0");
        T.check(r1.getValue() == 1.5 && r1.getIndex() == 0, "minloc element 1");
        T.eq(di.getExtent(), 16, "DoubleInt extent");
        // reduceLocal
        int[] a = {1, 2, 3}, b = {10, 20, 30};
        Comm.reduceLocal(a, b, 3, MPI.INT, MPI.PROD);
        T.eq(b[2], 90, "reduceLocal");
    }

    /** iScan, iExScan, iReduceScatter(Block), regular and in place, on direct buffers. */
    static void nbReductions(int n) throws MPIException {
        IntBuffer in = MPI.newIntBuffer(n), sc = MPI.newIntBuffer(n), ex = MPI.newIntBuffer(n);
        IntBuffer scIp = MPI.newIntBuffer(n), exIp = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++) {
            in.put(i, v(me, i));
            scIp.put(i, v(me, i));
            exIp.put(i, v(me, i));
        }
        Request[] rs = {w.iScan(in, sc, n, MPI.INT, MPI.SUM), w.iExScan(in, ex, n, MPI.INT, MPI.SUM),
                        w.iScan(scIp, n, MPI.INT, MPI.SUM), w.iExScan(exIp, n, MPI.INT, MPI.SUM)};
        Request.waitAll(rs);
        for (int i = 0; i < n; i++) {
            long s = 0;
            for (int r = 0; r < me; r++)
                s += v(r, i);
            T.eq(sc.get(i), s + v(me, i), "iScan i " + i);
            T.eq(scIp.get(i), s + v(me, i), "iScan in place i " + i);
            if (me > 0) {
                T.eq(ex.get(i), s, "iExScan i " + i);
                T.eq(exIp.get(i), s, "iExScan in place i " + i);
            }
        }
        // iReduceScatterBlock: n per rank; regular and in place
        IntBuffer big = MPI.newIntBuffer(n * np), bigIp = MPI.newIntBuffer(n * np);
        for (int i = 0; i < n * np; i++) {
            big.put(i, v(me, i));
            bigIp.put(i, v(me, i));
        }
        IntBuffer part = MPI.newIntBuffer(n);
        Request a = w.iReduceScatterBlock(big, part, n, MPI.INT, MPI.SUM);
        Request b = w.iReduceScatterBlock(bigIp, n, MPI.INT, MPI.SUM);
        Request.waitAll(new Request[] {a, b});
        for (int i = 0; i < n; i++) {
            long s = 0;
            for (int r = 0; r < np; r++)
                s += v(r, me * n + i);
            T.eq(part.get(i), s, "iReduceScatterBlock i " + i);
            T.eq(bigIp.get(i), s, "iReduceScatterBlock in place i " + i);
        }
        // iReduceScatter: rank r gets n/np + r elements; the counts array is
        // overwritten right after the call, which must not matter.
        int[] counts = new int[np];
        int total = 0;
        for (int r = 0; r < np; r++)
            total += counts[r] = n / np + r;
        int[] keep = counts.clone();
        int start = 0;
        for (int r = 0; r < me; r++)
            start += keep[r];
        IntBuffer src = MPI.newIntBuffer(total), srcIp = MPI.newIntBuffer(total);
        for (int i = 0; i < total; i++) {
            src.put(i, v(me, i));
            srcIp.put(i, v(me, i));
        }
        IntBuffer got = MPI.newIntBuffer(keep[me] + 1);
        got.put(keep[me], -77); // just past the block: must stay
        a = w.iReduceScatter(src, got, counts, MPI.INT, MPI.SUM);
        b = w.iReduceScatter(srcIp, counts, MPI.INT, MPI.SUM);
        java.util.Arrays.fill(counts, 0);
        Request.waitAll(new Request[] {a, b});
        for (int i = 0; i < keep[me]; i++) {
            long s = 0;
            for (int r = 0; r < np; r++)
                s += v(r, start + i);
            T.eq(got.get(i), s, "iReduceScatter i " + i);
            T.eq(srcIp.get(i), s, "iReduceScatter in place i " + i);
        }
        T.eq(got.get(keep[me]), -77, "iReduceScatter wrote past its block");
    }

    static void gathers(int n) throws MPIException {
        int root = 0;
        int[] mine = new int[n];
        for (int i = 0; i < n; i++)
            mine[i] = v(me, i);
        int[] all = new int[n * np];
        w.gather(mine, n, MPI.INT, all, n, MPI.INT, root);
        if (me == root) checkAll(all, n, "gather");
        // in place gather: root's block already placed
        int[] g = new int[n * np];
        if (me == root) {
            System.arraycopy(mine, 0, g, me * n, n);
            w.gather(g, n, MPI.INT, root);
            checkAll(g, n, "gather in place");
        } else {
            w.gather(mine, n, MPI.INT, root);
        }
        // allGather direct
        IntBuffer sb = MPI.newIntBuffer(n), rb = MPI.newIntBuffer(n * np);
        sb.put(0, mine);
        w.allGather(sb, n, MPI.INT, rb, n, MPI.INT);
        int[] x = new int[n * np];
        rb.get(0, x);
        checkAll(x, n, "allGather direct");
        int[] ag = new int[n * np];
        System.arraycopy(mine, 0, ag, me * n, n);
        w.allGather(ag, n, MPI.INT);
        checkAll(ag, n, "allGather in place");
        // scatter
        int[] sc = new int[n];
        int[] src = null;
        if (me == root) {
            src = new int[n * np];
            for (int r = 0; r < np; r++)
                for (int i = 0; i < n; i++)
                    src[r * n + i] = v(r, i);
        }
        w.scatter(src, n, MPI.INT, sc, n, MPI.INT, root);
        for (int i = 0; i < n; i++)
            T.eq(sc[i], v(me, i), "scatter i " + i);
        // allToAll: block r of rank s is v(s, r*n+i)
        int[] a2 = new int[n * np], b2 = new int[n * np];
        for (int i = 0; i < n * np; i++)
            a2[i] = v(me, i);
        w.allToAll(a2, n, MPI.INT, b2, n, MPI.INT);
        for (int r = 0; r < np; r++)
            for (int i = 0; i < n; i++)
                T.eq(b2[r * n + i], v(r, me * n + i), "allToAll from " + r + " i " + i);
    }

    static void checkAll(int[] all, int n, String what) {
        for (int r = 0; r < np; r++)
            for (int i = 0; i < n; i++)
                T.eq(all[r * n + i], v(r, i), what + " block " + r + " i " + i);
    }

    /** gatherv/scatterv/allGatherv/allToAllv: rank r contributes r+1 elements, blocks spaced. */
    static void vforms() throws MPIException {
        int[] counts = new int[np], displs = new int[np];
        int at = 0;
        for (int r = 0; r < np; r++) {
            counts[r] = r + 1;
            displs[r] = at + 2; // a gap of two elements before each block
            at = displs[r] + counts[r];
        }
        int total = at;
        int[] mine = new int[me + 1];
        for (int i = 0; i <= me; i++)
            mine[i] = v(me, i);
        int[] all = new int[total];
        java.util.Arrays.fill(all, -5);
        w.gatherv(mine, me + 1, MPI.INT, all, counts, displs, MPI.INT, 0);
        if (me == 0) checkV(all, counts, displs, "gatherv");
        int[] ag = new int[total];
        java.util.Arrays.fill(ag, -5);
        w.allGatherv(mine, me + 1, MPI.INT, ag, counts, displs, MPI.INT);
        checkV(ag, counts, displs, "allGatherv");
        int[] sc = new int[me + 1];
        w.scatterv(ag, counts, displs, MPI.INT, sc, me + 1, MPI.INT, 0);
        for (int i = 0; i <= me; i++)
            T.eq(sc[i], v(me, i), "scatterv i " + i);
        // allToAllv: rank s sends s+1 copies... to r: (r+1) elements of v(s, r*10+i)
        int[] scounts = new int[np], sdispls = new int[np], rcounts = new int[np],
              rdispls = new int[np];
        int so = 0, ro = 0;
        for (int r = 0; r < np; r++) {
            scounts[r] = r + 1;
            sdispls[r] = so;
            so += r + 1;
            rcounts[r] = me + 1;
            rdispls[r] = ro;
            ro += me + 1;
        }
        int[] sbuf = new int[so], rbuf = new int[ro];
        for (int r = 0; r < np; r++)
            for (int i = 0; i < r + 1; i++)
                sbuf[sdispls[r] + i] = v(me, r * 10 + i);
        w.allToAllv(sbuf, scounts, sdispls, MPI.INT, rbuf, rcounts, rdispls, MPI.INT);
        for (int s = 0; s < np; s++)
            for (int i = 0; i <= me; i++)
                T.eq(rbuf[rdispls[s] + i], v(s, me * 10 + i), "allToAllv from " + s);
    }

    static void checkV(int[] all, int[] counts, int[] displs, String what) {
        for (int r = 0; r < np; r++) {
            for (int i = 0; i < counts[r]; i++)
                T.eq(all[displs[r] + i], v(r, i), what + " block " + r + " i " + i);
            T.eq(all[displs[r] - 1], -5, what + " gap before block " + r + " untouched");
        }
    }

    /** 2x2 int matrix m of rank r, element i (row-major). */
    static int[] mat(int r, int i) {
        return new int[] {r + 2, i % 5 + 1, 1, r + i % 3};
    }

    static void mul(int[] a, int ao, int[] b, int bo, int[] out, int oo) {
        int p = a[ao] * b[bo] + a[ao + 1] * b[bo + 2], q = a[ao] * b[bo + 1] + a[ao + 1] * b[bo + 3];
        int u = a[ao + 2] * b[bo] + a[ao + 3] * b[bo + 2], v = a[ao + 2] * b[bo + 1] + a[ao + 3] * b[bo + 3];
        out[oo] = p;
        out[oo + 1] = q;
        out[oo + 2] = u;
        out[oo + 3] = v;
    }

    /**
     * A user operation, associative but not commutative (2x2 matrix product,
     * inOut = in x inOut), on arrays and on direct buffers: the result must be
     * the product in rank order.
     */
    static void userOps() throws MPIException {
        UserFunction f = new UserFunction() {
            @Override
            public void call(Object in, Object inOut, int count, Datatype t) {
                int[] a = (int[]) in, b = (int[]) inOut;
                for (int i = 0; i < count; i++)
                    mul(a, 4 * i, b, 4 * i, b, 4 * i);
            }

            @Override
            public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype t) {
                IntBuffer a = in.asIntBuffer(), b = inOut.asIntBuffer();
                int[] x = new int[4], y = new int[4];
                for (int i = 0; i < count; i++) {
                    a.get(4 * i, x);
                    b.get(4 * i, y);
                    mul(x, 0, y, 0, y, 0);
                    b.put(4 * i, y);
                }
            }
        };
        Op op = new Op(f, false);
        T.check(!op.isCommutative(), "isCommutative");
        Datatype m2 = Datatype.createContiguous(4, MPI.INT);
        m2.commit();
        int n = 300;
        int[] ref = new int[4 * n];
        for (int i = 0; i < n; i++) {
            int[] acc = mat(0, i);
            for (int r = 1; r < np; r++)
                mul(acc, 0, mat(r, i), 0, acc, 0);
            System.arraycopy(acc, 0, ref, 4 * i, 4);
        }
        int[] in = new int[4 * n], out = new int[4 * n];
        for (int i = 0; i < n; i++)
            System.arraycopy(mat(me, i), 0, in, 4 * i, 4);
        w.allReduce(in, out, n, m2, op);
        for (int i = 0; i < 4 * n; i++)
            T.eq(out[i], ref[i], "user op arrays int " + i);
        IntBuffer di = MPI.newIntBuffer(4 * n), dout = MPI.newIntBuffer(4 * n);
        di.put(0, in);
        w.reduce(di, dout, n, m2, op, 0);
        if (me == 0)
            for (int i = 0; i < 4 * n; i++)
                T.eq(dout.get(i), ref[i], "user op buffers int " + i);
        m2.free();
        // Many user operations alive at once: each must reach its own function.
        Op[] ops = new Op[20];
        for (int k = 0; k < ops.length; k++) {
            final int add = k;
            ops[k] = new Op(new UserFunction() {
                @Override
                public void call(Object in2, Object io, int count, Datatype t) {
                    int[] a = (int[]) in2, b = (int[]) io;
                    for (int i = 0; i < count; i++)
                        b[i] = a[i] + b[i] + add;
                }
            }, true);
        }
        for (int k = ops.length - 1; k >= 0; k--) {
            int[] x = {me}, y = new int[1];
            w.allReduce(x, y, 1, MPI.INT, ops[k]);
            T.eq(y[0], np * (np - 1) / 2 + (np - 1) * k, "user op number " + k);
        }
        for (Op o : ops)
            o.free();
        // An exception in the user function reaches the caller.
        Op bad = new Op(new UserFunction() {
            @Override
            public void call(Object in2, Object io, int count, Datatype t) throws MPIException {
                throw new MPIException("deliberate failure in a user operation");
            }
        }, true);
        if (np > 1) {
            boolean threw = false;
            try {
                w.allReduce(in, out, n, MPI.INT, bad);
            } catch (MPIException e) {
                threw = e.getMessage().contains("deliberate");
            }
            int[] flag = {threw ? 1 : 0};
            w.allReduce(flag, 1, MPI.INT, MPI.LOR);
            T.check(flag[0] == 1, "an exception in a user op surfaces on some rank");
        }
        bad.free();
        op.free();
    }

    static void nonblocking() throws MPIException {
        int n = 5000;
        IntBuffer b = MPI.newIntBuffer(n);
        if (me == 0)
            for (int i = 0; i < n; i++)
                b.put(i, v(0, i));
        Request r1 = w.iBcast(b, n, MPI.INT, 0);
        IntBuffer s = MPI.newIntBuffer(n), t = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++)
            s.put(i, v(me, i));
        Request r2 = w.iAllReduce(s, t, n, MPI.INT, MPI.SUM);
        Request r3 = w.iBarrier();
        IntBuffer g = MPI.newIntBuffer(n * np);
        Request r4 = w.iAllGather(s, n, MPI.INT, g, n, MPI.INT);
        Request.waitAll(new Request[] {r1, r2, r3, r4});
        for (int i = 0; i < n; i++) {
            T.eq(b.get(i), v(0, i), "iBcast i " + i);
            long sum = 0;
            for (int r = 0; r < np; r++)
                sum += v(r, i);
            T.eq(t.get(i), sum, "iAllReduce i " + i);
            for (int r = 0; r < np; r++)
                T.eq(g.get(r * n + i), v(r, i), "iAllGather");
        }
        // Non-blocking v-forms: the count arrays are changed right after the
        // call, which must not matter (the request keeps its own copy).
        int[] counts = new int[np], displs = new int[np];
        int at = 0;
        for (int r = 0; r < np; r++) {
            counts[r] = r + 1;
            displs[r] = at + 1;
            at = displs[r] + counts[r];
        }
        IntBuffer mine = MPI.newIntBuffer(me + 1), all = MPI.newIntBuffer(at),
                  root = MPI.newIntBuffer(at);
        for (int i = 0; i <= me; i++)
            mine.put(i, v(me, i));
        Request a = w.iAllGatherv(mine, me + 1, MPI.INT, all, counts, displs, MPI.INT);
        Request gv = w.iGatherv(mine, me + 1, MPI.INT, root, counts, displs, MPI.INT, 0);
        int[] c2 = counts.clone(), d2 = displs.clone();
        java.util.Arrays.fill(counts, 0);
        java.util.Arrays.fill(displs, 0);
        Request.waitAll(new Request[] {a, gv});
        for (int r = 0; r < np; r++)
            for (int i = 0; i < c2[r]; i++) {
                T.eq(all.get(d2[r] + i), v(r, i), "iAllGatherv block " + r);
                if (me == 0) T.eq(root.get(d2[r] + i), v(r, i), "iGatherv block " + r);
            }
        IntBuffer back = MPI.newIntBuffer(me + 1);
        w.iScatterv(all, c2, d2, MPI.INT, back, me + 1, MPI.INT, 0).waitFor();
        for (int i = 0; i <= me; i++)
            T.eq(back.get(i), v(me, i), "iScatterv i " + i);
        int[] ones = new int[np], offs = new int[np];
        for (int r = 0; r < np; r++) {
            ones[r] = 1;
            offs[r] = r;
        }
        IntBuffer sa = MPI.newIntBuffer(np), ra = MPI.newIntBuffer(np);
        for (int r = 0; r < np; r++)
            sa.put(r, v(me, r));
        w.iAllToAllv(sa, ones, offs, MPI.INT, ra, ones, offs, MPI.INT).waitFor();
        for (int r = 0; r < np; r++)
            T.eq(ra.get(r), v(r, me), "iAllToAllv from " + r);
        boolean threw = false;
        try {
            w.iBcast(java.nio.IntBuffer.wrap(new int[4]), 4, MPI.INT, 0);
        } catch (MPIException e) {
            threw = e.getMessage().contains("direct buffer");
        }
        T.check(threw, "iBcast on a heap buffer is refused");
    }
}
