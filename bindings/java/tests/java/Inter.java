// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.IntBuffer;

import mpi.*;

/**
 * Intercommunicators: even and odd world ranks form the two groups.
 * Point-to-point between them at sizes across the protocol thresholds, the
 * collectives with MPI.ROOT / PROC_NULL roots, merge, dup.
 */
public class Inter {
    static int me, np, colour, lrank, lsize, rsize;

    /** The world rank of rank r of the group of colour c. */
    static int world(int c, int r) {
        return 2 * r + c;
    }

    static int v(int worldRank, int i) {
        return worldRank * 1000 + i * 7 + 1;
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        me = w.getRank();
        np = w.getSize();
        T.rank = me;
        T.check(np >= 2, "needs 2 ranks or more");
        T.check(!w.isInter(), "COMM_WORLD is no intercommunicator");
        colour = me % 2;
        Intracomm local = w.split(colour, me);
        lrank = local.getRank();
        lsize = local.getSize();
        Intercomm ic = w.createIntercomm(local, 0, colour == 0 ? 1 : 0, 7);
        T.check(ic.isInter(), "isInter");
        rsize = ic.getRemoteSize();
        T.eq(rsize, colour == 0 ? np / 2 : (np + 1) / 2, "remote size");
        T.eq(ic.getSize(), lsize, "local size");
        T.eq(ic.getRank(), lrank, "local rank");
        Group rg = ic.getRemoteGroup();
        T.eq(rg.getSize(), rsize, "remote group size");
        int[] tr = Group.translateRanks(rg, new int[] {0, rsize - 1}, w.getGroup());
        T.eq(tr[0], world(1 - colour, 0), "remote group rank 0 in world");
        T.eq(tr[1], world(1 - colour, rsize - 1), "remote group last rank in world");

        p2p(ic);
        for (int n : new int[] {1, 1000, 70000})
            colls(ic, n);
        for (int k : new int[] {1, 500, 20000})
            reduceScatters(ic, k);
        vforms(ic);

        // dup keeps the class and both groups
        Intercomm d = ic.dup();
        T.eq(Comm.compare(d, ic), MPI.CONGRUENT, "dup congruent");
        T.eq(d.getRemoteSize(), rsize, "dup remote size");
        Intercomm id = ic.iDup();
        id.getRequest().waitFor();
        T.eq(id.getRemoteSize(), rsize, "iDup remote size");
        Intercomm di = ic.dupWithInfo(MPI.INFO_NULL);
        int[] one = {me};
        int[] got = new int[rsize];
        di.allGather(one, 1, MPI.INT, got, 1, MPI.INT);
        for (int q = 0; q < rsize; q++)
            T.eq(got[q], world(1 - colour, q), "allGather over dupWithInfo");
        di.free();
        id.free();
        Intercomm cl = ic.clone();
        T.check(cl.isInter(), "clone is an intercommunicator");
        cl.free();

        // merge: the odd group asks to be high, so the evens come first
        Intracomm m = d.merge(colour == 1);
        T.check(!m.isInter(), "merged is an intracommunicator");
        T.eq(m.getSize(), np, "merged size");
        T.eq(m.getRank(), colour == 0 ? lrank : (np + 1) / 2 + lrank, "merged rank");
        int[] x = {me};
        m.allReduce(x, 1, MPI.INT, MPI.SUM);
        T.eq(x[0], np * (np - 1) / 2, "allReduce over merged");
        m.free();
        d.free();
        ic.barrier();
        ic.free();
        local.free();
        w.barrier();
        if (me == 0) System.out.println("Inter OK on " + np + " ranks");
        MPI.Finalize();
    }

    /** Every local rank exchanges a message of each size with every remote rank. */
    static void p2p(Intercomm ic) throws MPIException {
        for (int n : new int[] {0, 1, 4096, 65539, (1 << 20) + 3}) {
            ByteBuffer[] out = new ByteBuffer[rsize], in = new ByteBuffer[rsize];
            Request[] rq = new Request[2 * rsize];
            for (int r = 0; r < rsize; r++) {
                in[r] = MPI.newByteBuffer(n + 1);
                in[r].put(n, (byte) 99); // just past the message: must stay
                rq[r] = ic.iRecv(in[r], n, MPI.BYTE, r, 5);
                out[r] = MPI.newByteBuffer(Math.max(n, 1));
                T.fill(out[r], me * 64 + world(1 - colour, r), n);
                rq[rsize + r] = ic.iSend(out[r], n, MPI.BYTE, r, 5);
            }
            Request.waitAll(rq);
            for (int r = 0; r < rsize; r++) {
                T.verify(in[r], world(1 - colour, r) * 64 + me, n, "iRecv of " + n + " B from " + r);
                T.eq(in[r].get(n), 99, "byte past the message");
            }
            // blocking, heap arrays: local rank i and remote rank i pair up
            if (n <= 65539 && lrank < rsize) {
                byte[] a = new byte[n], b = new byte[n + 1];
                T.fill(a, me, n);
                b[n] = 99;
                Status s = ic.sendRecv(a, n, MPI.BYTE, lrank, 6, b, n, MPI.BYTE, MPI.ANY_SOURCE, 6);
                T.eq(s.getSource(), lrank, "sendRecv source (a remote rank)");
                T.eq(s.getCount(MPI.BYTE), n, "sendRecv count");
                T.verify(b, 0, world(1 - colour, lrank), n, "sendRecv of " + n + " B");
                T.eq(b[n], 99, "sendRecv wrote past the message");
            }
        }
    }

    /** Root of the evens: its local rank 0. The root's group passes ROOT / PROC_NULL. */
    static int rootArg() {
        return colour == 0 ? (lrank == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0;
    }

    static void colls(Intercomm ic, int n) throws MPIException {
        boolean root = colour == 0 && lrank == 0, rootGroup = colour == 0;
        // bcast from the evens' rank 0 to every odd rank
        int[] b = rootGroup && !root ? null : new int[n]; // PROC_NULL ranks pass no buffer
        if (root)
            for (int i = 0; i < n; i++)
                b[i] = v(me, i);
        ic.bcast(b, n, MPI.INT, rootArg());
        if (!rootGroup)
            for (int i = 0; i < n; i++)
                T.eq(b[i], v(0, i), "bcast i " + i);
        // gather from the odds to the evens' root; scatter back
        int[] mine = new int[n];
        for (int i = 0; i < n; i++)
            mine[i] = v(me, i);
        int[] all = root ? new int[n * rsize] : null;
        ic.gather(mine, n, MPI.INT, all, n, MPI.INT, rootArg());
        if (root)
            for (int r = 0; r < rsize; r++)
                for (int i = 0; i < n; i++)
                    T.eq(all[r * n + i], v(world(1, r), i), "gather block " + r);
        int[] back = new int[n];
        if (root)
            for (int i = 0; i < all.length; i++)
                all[i] += 3;
        ic.scatter(all, n, MPI.INT, back, n, MPI.INT, rootArg());
        if (!rootGroup)
            for (int i = 0; i < n; i++)
                T.eq(back[i], v(me, i) + 3, "scatter i " + i);
        // allGather and allReduce: each group gets the other's data
        IntBuffer s = MPI.newIntBuffer(n), g = MPI.newIntBuffer(n * rsize),
                  red = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++)
            s.put(i, v(me, i));
        Request r1 = ic.iAllGather(s, n, MPI.INT, g, n, MPI.INT);
        Request r2 = ic.iAllReduce(s, red, n, MPI.INT, MPI.SUM);
        Request.waitAll(new Request[] {r1, r2});
        for (int i = 0; i < n; i++) {
            long sum = 0;
            for (int r = 0; r < rsize; r++) {
                T.eq(g.get(r * n + i), v(world(1 - colour, r), i), "iAllGather block " + r);
                sum += v(world(1 - colour, r), i);
            }
            T.eq(red.get(i), sum, "iAllReduce i " + i);
        }
        // allToAll: block r of mine goes to remote rank r
        int[] sa = new int[n * rsize], ra = new int[n * rsize];
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < n; i++)
                sa[r * n + i] = v(me, i) + r;
        ic.allToAll(sa, n, MPI.INT, ra, n, MPI.INT);
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < n; i++)
                T.eq(ra[r * n + i], v(world(1 - colour, r), i) + lrank, "allToAll from " + r);
        // reduce to the evens' root
        int[] rr = root ? new int[n] : null;
        ic.reduce(mine, rr, n, MPI.INT, MPI.MAX, rootArg());
        if (root)
            for (int i = 0; i < n; i++)
                T.eq(rr[i], v(world(1, rsize - 1), i), "reduce max i " + i);
    }

    /** Each group's result is the other group's vectors summed, scattered k x rsize per rank. */
    static void reduceScatters(Intercomm ic, int k) throws MPIException {
        int per = k * rsize, total = per * lsize; // the same total in both groups
        IntBuffer s = MPI.newIntBuffer(total), r = MPI.newIntBuffer(per), r2 = MPI.newIntBuffer(per);
        for (int i = 0; i < total; i++)
            s.put(i, v(me, i));
        int[] counts = new int[lsize];
        java.util.Arrays.fill(counts, per);
        Request a = ic.iReduceScatterBlock(s, r, per, MPI.INT, MPI.SUM);
        Request b = ic.iReduceScatter(s, r2, counts, MPI.INT, MPI.SUM);
        Request.waitAll(new Request[] {a, b});
        int[] blk = new int[per];
        ic.reduceScatterBlock(s, blk, per, MPI.INT, MPI.SUM);
        for (int i = 0; i < per; i++) {
            long sum = 0;
            for (int q = 0; q < rsize; q++)
                sum += v(world(1 - colour, q), lrank * per + i);
            T.eq(r.get(i), sum, "iReduceScatterBlock i " + i);
            T.eq(r2.get(i), sum, "iReduceScatter i " + i);
            T.eq(blk[i], sum, "reduceScatterBlock i " + i);
        }
    }

    /** v-forms: remote rank q contributes q + 1 ints; gaps between blocks stay untouched. */
    static void vforms(Intercomm ic) throws MPIException {
        int[] counts = new int[rsize], displs = new int[rsize];
        int at = 0;
        for (int q = 0; q < rsize; q++) {
            counts[q] = q + 1;
            displs[q] = at + 1;
            at = displs[q] + counts[q];
        }
        int[] mine = new int[lrank + 1];
        for (int i = 0; i <= lrank; i++)
            mine[i] = v(me, i);
        int[] all = new int[at];
        ic.allGatherv(mine, lrank + 1, MPI.INT, all, counts, displs, MPI.INT);
        for (int q = 0; q < rsize; q++) {
            T.eq(all[displs[q] - 1], 0, "allGatherv gap " + q);
            for (int i = 0; i <= q; i++)
                T.eq(all[displs[q] + i], v(world(1 - colour, q), i), "allGatherv block " + q);
        }
        // gatherv to the evens' root from the odds
        boolean root = colour == 0 && lrank == 0;
        int rootArg = rootArg();
        int[] g = root ? new int[at] : null;
        IntBuffer gs = MPI.newIntBuffer(lrank + 1), gr = MPI.newIntBuffer(Math.max(1, at));
        for (int i = 0; i <= lrank; i++)
            gs.put(i, mine[i]);
        ic.gatherv(mine, lrank + 1, MPI.INT, g, counts, displs, MPI.INT, rootArg);
        ic.iGatherv(gs, lrank + 1, MPI.INT, gr, counts, displs, MPI.INT, rootArg).waitFor();
        if (root)
            for (int q = 0; q < rsize; q++)
                for (int i = 0; i <= q; i++) {
                    T.eq(g[displs[q] + i], v(world(1, q), i), "gatherv block " + q);
                    T.eq(gr.get(displs[q] + i), v(world(1, q), i), "iGatherv block " + q);
                }
        // alltoallv: q + 1 ints to remote rank q; lrank + 1 from each
        int[] sc = new int[rsize], sd = new int[rsize], rc = new int[rsize], rd = new int[rsize];
        int sat = 0, rat = 0;
        for (int q = 0; q < rsize; q++) {
            sc[q] = q + 1;
            sd[q] = sat;
            sat += sc[q];
            rc[q] = lrank + 1;
            rd[q] = rat;
            rat += rc[q];
        }
        IntBuffer sa = MPI.newIntBuffer(sat), ra = MPI.newIntBuffer(rat);
        for (int q = 0; q < rsize; q++)
            for (int i = 0; i < sc[q]; i++)
                sa.put(sd[q] + i, v(me, i) + q);
        ic.iAllToAllv(sa, sc, sd, MPI.INT, ra, rc, rd, MPI.INT).waitFor();
        for (int q = 0; q < rsize; q++)
            for (int i = 0; i <= lrank; i++)
                T.eq(ra.get(rd[q] + i), v(world(1 - colour, q), i) + lrank, "iAllToAllv from " + q);
    }
}
