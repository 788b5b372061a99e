// SPDX-License-Identifier: BSD-3-Clause
import java.nio.IntBuffer;

import mpi.*;

/**
 * Process topologies: cartesian (dims, coordinates, shifts, sub-grids,
 * map), graph and distributed graph communicators, and the neighbourhood
 * collectives on them, blocking (arrays) and non-blocking (direct buffers),
 * against what each rank's neighbours must have sent.
 */
public class Topo {
    static Intracomm w = MPI.COMM_WORLD;
    static int me, np;

    static int v(int rank, int block, int i) {
        return rank * 100000 + block * 1000 + i + 1;
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = w.getRank();
        np = w.getSize();
        T.rank = me;
        T.check(np >= 3, "needs 3 ranks or more");
        T.eq(w.getTopology(), MPI.UNDEFINED, "COMM_WORLD has no topology");
        dims();
        grid();
        for (int n : new int[] {1, 1000, 70000})
            ring(n);
        graph();
        distGraph();
        w.barrier();
        if (me == 0) System.out.println("Topo OK on " + np + " ranks");
        MPI.Finalize();
    }

    static void dims() throws MPIException {
        int[] d = {0, 0};
        CartComm.createDims(12, d);
        T.check(d[0] == 4 && d[1] == 3, "createDims(12, 2) = 4 x 3, got " + d[0] + " x " + d[1]);
        int[] e = {0, 2, 0};
        CartComm.createDims(12, e);
        T.check(e[0] * e[2] == 6 && e[1] == 2 && e[0] >= e[2], "createDims keeps a fixed extent");
        boolean threw = false;
        try {
            CartComm.createDims(7, new int[] {2, 0});
        } catch (MPIException x) {
            threw = x.getErrorClass() == MPI.ERR_DIMS || x.getErrorClass() == MPI.ERR_ARG;
        }
        T.check(threw, "createDims(7, {2, 0}) fails");
    }

    /** A non-periodic 2-D grid over all ranks: coordinates, ranks, sub-grids, shifts at edges. */
    static void grid() throws MPIException {
        int[] d = {0, 0};
        CartComm.createDims(np, d);
        CartComm c = w.createCart(d, new boolean[] {false, true}, false);
        T.eq(c.getTopology(), MPI.CART, "getTopology");
        CartParms p = c.getTopo();
        T.eq(p.getDimCount(), 2, "dims");
        T.eq(p.getDim(0), d[0], "dim 0");
        T.eq(p.getDim(1), d[1], "dim 1");
        T.check(!p.getPeriod(0) && p.getPeriod(1), "periods");
        int r = c.getRank();
        // row-major: rank = x * d1 + y
        T.eq(p.getCoord(0), r / d[1], "coord 0");
        T.eq(p.getCoord(1), r % d[1], "coord 1");
        for (int q = 0; q < np; q++) {
            int[] co = c.getCoords(q);
            T.eq(co[0] * d[1] + co[1], q, "getCoords " + q);
            T.eq(c.getRank(co), q, "getRank of getCoords " + q);
        }
        ShiftParms s0 = c.shift(0, 1);
        int x = p.getCoord(0), y = p.getCoord(1);
        T.eq(s0.getRankSource(), x == 0 ? MPI.PROC_NULL : r - d[1], "shift 0 source");
        T.eq(s0.getRankDest(), x == d[0] - 1 ? MPI.PROC_NULL : r + d[1], "shift 0 dest");
        ShiftParms s1 = c.shift(1, 1);
        T.eq(s1.getRankSource(), x * d[1] + (y + d[1] - 1) % d[1], "shift 1 source (periodic)");
        T.eq(s1.getRankDest(), x * d[1] + (y + 1) % d[1], "shift 1 dest (periodic)");
        CartComm row = c.sub(new boolean[] {false, true});
        T.eq(row.getSize(), d[1], "sub size");
        T.eq(row.getRank(), y, "sub rank");
        T.eq(row.getTopo().getDimCount(), 1, "sub dims");
        int[] sum = {r};
        row.allReduce(sum, 1, MPI.INT, MPI.SUM);
        T.eq(sum[0], x * d[1] * d[1] + d[1] * (d[1] - 1) / 2, "allReduce over a row");
        int m = c.map(d, new boolean[] {false, true});
        T.check(m >= 0 && m < np, "map gives a rank");
        CartComm dc = c.dup();
        T.eq(dc.getTopo().getDim(0), d[0], "dup keeps the topology");
        dc.free();
        CartComm ic = c.iDup();
        ic.getRequest().waitFor();
        T.eq(ic.getTopo().getDim(1), d[1], "iDup keeps the topology");
        ic.free();
        row.free();
        // a grid smaller than the communicator: the rest get a null one
        CartComm small = w.createCart(new int[] {np - 1}, new boolean[] {false}, false);
        T.check(me < np - 1 ? !small.isNull() : small.isNull(), "createCart on fewer ranks");
        if (!small.isNull()) small.free();
        boolean threw = false;
        try {
            w.createCart(new int[] {np}, new boolean[] {false, false}, false);
        } catch (MPIException e) {
            threw = e.getErrorClass() == MPI.ERR_ARG && e.getMessage().contains("createCart");
        }
        T.check(threw, "createCart: dims and periods of different lengths");
        c.free();
    }

    /** A periodic ring: neighbour collectives of n ints, arrays and direct buffers. */
    static void ring(int n) throws MPIException {
        CartComm c = w.createCart(new int[] {np}, new boolean[] {true}, false);
        int r = c.getRank(), left = (r + np - 1) % np, right = (r + 1) % np;
        // allGather: block 0 from the left (the -1 neighbour), block 1 from the right
        int[] mine = new int[n], got = new int[2 * n];
        for (int i = 0; i < n; i++)
            mine[i] = v(r, 0, i);
        c.neighborAllGather(mine, n, MPI.INT, got, n, MPI.INT);
        for (int i = 0; i < n; i++) {
            T.eq(got[i], v(left, 0, i), "neighborAllGather from the left");
            T.eq(got[n + i], v(right, 0, i), "neighborAllGather from the right");
        }
        // allToAll: block 0 goes left, block 1 right; so block 0 arrives from
        // the left (its block 1) and block 1 from the right (its block 0)
        IntBuffer sb = MPI.newIntBuffer(2 * n), rb = MPI.newIntBuffer(2 * n + 1);
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < n; i++)
                sb.put(b * n + i, v(r, b, i));
        rb.put(2 * n, -5);
        Request q = c.iNeighborAllToAll(sb, n, MPI.INT, rb, n, MPI.INT);
        q.waitFor();
        for (int i = 0; i < n; i++) {
            T.eq(rb.get(i), v(left, 1, i), "iNeighborAllToAll from the left");
            T.eq(rb.get(n + i), v(right, 0, i), "iNeighborAllToAll from the right");
        }
        T.eq(rb.get(2 * n), -5, "iNeighborAllToAll wrote past its blocks");
        int[] a2 = new int[2 * n];
        c.neighborAllToAll(sb, n, MPI.INT, a2, n, MPI.INT);
        for (int i = 0; i < n; i++)
            T.check(a2[i] == v(left, 1, i) && a2[n + i] == v(right, 0, i), "neighborAllToAll");
        // iNeighborAllGather on direct buffers
        IntBuffer ms = MPI.newIntBuffer(n), g2 = MPI.newIntBuffer(2 * n);
        for (int i = 0; i < n; i++)
            ms.put(i, v(r, 3, i));
        c.iNeighborAllGather(ms, n, MPI.INT, g2, n, MPI.INT).waitFor();
        for (int i = 0; i < n; i++)
            T.check(g2.get(i) == v(left, 3, i) && g2.get(n + i) == v(right, 3, i),
                    "iNeighborAllGather");
        c.free();
    }

    /** A graph: rank r's neighbours are r+1 and r+2 (mod np), both ways. */
    static void graph() throws MPIException {
        int[] index = new int[np];
        int[][] nb = new int[np][];
        java.util.List<Integer> edges = new java.util.ArrayList<>();
        for (int r = 0; r < np; r++) {
            java.util.TreeSet<Integer> s = new java.util.TreeSet<>();
            for (int k : new int[] {1, 2, np - 1, np - 2}) {
                int o = (r + k) % np;
                if (o != r) s.add(o);
            }
            nb[r] = s.stream().mapToInt(Integer::intValue).toArray();
            for (int o : nb[r])
                edges.add(o);
            index[r] = edges.size();
        }
        int[] e = edges.stream().mapToInt(Integer::intValue).toArray();
        GraphComm g = w.createGraph(index, e, false);
        T.eq(g.getTopology(), MPI.GRAPH, "graph topology");
        GraphParms gp = g.getDims();
        T.eq(gp.getIndexCount(), np, "index count");
        T.eq(gp.getEdgeCount(), e.length, "edge count");
        for (int i = 0; i < np; i++)
            T.eq(gp.getIndex(i), index[i], "index " + i);
        for (int i = 0; i < e.length; i++)
            T.eq(gp.getEdge(i), e[i], "edge " + i);
        int[] mn = g.getNeighbors(me);
        T.eq(mn.length, nb[me].length, "neighbour count");
        for (int i = 0; i < mn.length; i++)
            T.eq(mn[i], nb[me][i], "neighbour " + i);
        T.check(g.map(index, e) >= 0, "graph map");
        // allGatherv: neighbour k's block of (its rank + 1) ints at displs
        int deg = mn.length;
        int[] counts = new int[deg], displs = new int[deg];
        int at = 0;
        for (int k = 0; k < deg; k++) {
            counts[k] = mn[k] + 1;
            displs[k] = at + 1; // a gap before each block
            at = displs[k] + counts[k];
        }
        int[] mine = new int[me + 1], got = new int[at];
        for (int i = 0; i <= me; i++)
            mine[i] = v(me, 0, i);
        g.neighborAllGatherv(mine, me + 1, MPI.INT, got, counts, displs, MPI.INT);
        for (int k = 0; k < deg; k++) {
            T.eq(got[displs[k] - 1], 0, "neighborAllGatherv gap " + k);
            for (int i = 0; i < counts[k]; i++)
                T.eq(got[displs[k] + i], v(mn[k], 0, i), "neighborAllGatherv block " + k);
        }
        IntBuffer ms = MPI.newIntBuffer(me + 1), gb = MPI.newIntBuffer(at);
        for (int i = 0; i <= me; i++)
            ms.put(i, v(me, 1, i));
        Request q = g.iNeighborAllGatherv(ms, me + 1, MPI.INT, gb, counts, displs, MPI.INT);
        int[] c2 = counts.clone(), d2 = displs.clone();
        java.util.Arrays.fill(counts, 0); // the request keeps its own copy
        java.util.Arrays.fill(displs, 0);
        q.waitFor();
        for (int k = 0; k < deg; k++)
            for (int i = 0; i < c2[k]; i++)
                T.eq(gb.get(d2[k] + i), v(mn[k], 1, i), "iNeighborAllGatherv block " + k);
        g.free();
    }

    /** Distributed graphs: each rank sends to its next two ranks, weighted. */
    static void distGraph() throws MPIException {
        int p1 = (me + 1) % np, p2 = (me + 2) % np, m1 = (me + np - 1) % np, m2 = (me + np - 2) % np;
        GraphComm g = w.createDistGraphAdjacent(new int[] {m1, m2}, new int[] {10 + m1, 10 + m2},
                new int[] {p1, p2}, new int[] {10 + me, 10 + me}, MPI.INFO_NULL, false);
        T.eq(g.getTopology(), MPI.DIST_GRAPH, "dist graph topology");
        DistGraphNeighbors nb = g.getDistGraphNeighbors();
        T.check(nb.isWeighted(), "weighted");
        T.eq(nb.getInDegree(), 2, "in-degree");
        T.eq(nb.getOutDegree(), 2, "out-degree");
        T.check(nb.getSource(0) == m1 && nb.getSource(1) == m2, "sources");
        T.check(nb.getDestination(0) == p1 && nb.getDestination(1) == p2, "destinations");
        T.eq(nb.getSourceWeight(1), 10 + m2, "source weight");
        T.eq(nb.getDestinationWeight(0), 10 + me, "destination weight");
        // allToAllv: to destination k, (k + 1) * 5 ints; from source k, (k + 1) * 5
        int[] sc = {5, 10}, sd = {0, 5}, rc = {5, 10}, rd = {12, 0};
        int[] s = new int[15], r = new int[22];
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < sc[k]; i++)
                s[sd[k] + i] = v(me, k, i);
        g.neighborAllToAllv(s, sc, sd, MPI.INT, r, rc, rd, MPI.INT);
        int[] src = {m1, m2};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < rc[k]; i++)
                T.eq(r[rd[k] + i], v(src[k], k, i), "neighborAllToAllv from source " + k);
        T.eq(r[10], 0, "neighborAllToAllv gap");
        IntBuffer sbuf = MPI.newIntBuffer(15), rbuf = MPI.newIntBuffer(22);
        for (int i = 0; i < 15; i++)
            sbuf.put(i, s[i] + 7);
        g.iNeighborAllToAllv(sbuf, sc, sd, MPI.INT, rbuf, rc, rd, MPI.INT).waitFor();
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < rc[k]; i++)
                T.eq(rbuf.get(rd[k] + i), v(src[k], k, i) + 7, "iNeighborAllToAllv " + k);
        g.free();
        // createDistGraph: rank r names the edge r -> r+1, unweighted
        GraphComm h = w.createDistGraph(new int[] {me}, new int[] {1}, new int[] {p1},
                MPI.INFO_NULL, false);
        DistGraphNeighbors hn = h.getDistGraphNeighbors();
        T.check(!hn.isWeighted(), "unweighted");
        T.check(hn.getInDegree() == 1 && hn.getSource(0) == m1, "createDistGraph source");
        T.check(hn.getOutDegree() == 1 && hn.getDestination(0) == p1, "createDistGraph destination");
        int[] one = {me}, from = {-1};
        h.neighborAllGather(one, 1, MPI.INT, from, 1, MPI.INT);
        T.eq(from[0], m1, "neighborAllGather on a dist graph");
        h.free();
    }
}
