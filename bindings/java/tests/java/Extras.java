// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import mpi.*;

/**
 * User attributes (copied with dup, deleted, keys freed), iDup,
 * dupWithInfo, Intracomm.createGroup and allToAllw / iAllToAllw with a
 * different datatype per peer.
 */
public class Extras {
    static Intracomm w = MPI.COMM_WORLD;
    static int me, np;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = w.getRank();
        np = w.getSize();
        T.rank = me;
        attributes();
        dups();
        createGroup();
        for (int n : new int[] {1, 1000, 70000})
            allToAllw(n);
        w.barrier();
        if (me == 0) System.out.println("Extras OK on " + np + " ranks");
        MPI.Finalize();
    }

    static void attributes() throws MPIException {
        int k = Comm.createKeyval(), k2 = Comm.createKeyval();
        T.check(k != k2 && k != MPI.KEYVAL_INVALID, "two fresh keys");
        Intracomm c = w.dup();
        T.check(c.getAttr(k) == null, "no value before setAttr");
        int[] value = {me, 7, 9};
        c.setAttr(k, value);
        c.setAttr(k2, "rank " + me);
        value[1] = -1; // stored by value: this must not show
        int[] got = (int[]) c.getAttr(k);
        T.check(got.length == 3 && got[0] == me && got[1] == 7 && got[2] == 9, "getAttr value");
        T.check(c.getAttr(k2).equals("rank " + me), "getAttr string");
        Intracomm d = c.dup();
        int[] dv = (int[]) d.getAttr(k);
        T.check(dv != null && dv[0] == me && dv[2] == 9, "dup copies the attribute");
        c.deleteAttr(k);
        T.check(c.getAttr(k) == null, "deleted");
        T.check(d.getAttr(k) != null, "the dup's copy outlives the delete");
        T.check(d.getAttr(k2).equals("rank " + me), "dup string");
        Object tag = c.getAttr(MPI.TAG_UB);
        T.check(tag instanceof Integer && (Integer) tag >= 32767, "predefined TAG_UB still works");
        boolean threw = false;
        try {
            c.setAttr(k, new Object()); // not Serializable
        } catch (MPIException e) {
            threw = true;
        }
        T.check(threw, "a value that cannot be serialized is refused");
        Comm.freeKeyval(k);
        d.free();
        c.free();
        Comm.freeKeyval(k2);
        threw = false;
        try {
            w.setAttr(k2, 1);
        } catch (MPIException e) {
            threw = e.getErrorClass() == MPI.ERR_KEYVAL || e.getErrorClass() == MPI.ERR_ARG;
        }
        T.check(threw, "setAttr with a freed key fails with ERR_KEYVAL");
    }

    static void dups() throws MPIException {
        Intracomm a = w.iDup();
        T.check(a.getRequest() != null, "iDup has a request");
        a.getRequest().waitFor();
        T.eq(Comm.compare(a, w), MPI.CONGRUENT, "iDup congruent");
        int[] x = {me};
        a.allReduce(x, 1, MPI.INT, MPI.SUM);
        T.eq(x[0], np * (np - 1) / 2, "allReduce on the iDup");
        T.check(w.getRequest() == null, "COMM_WORLD has no iDup request");
        Info info = new Info();
        info.set("ump_hint", "1");
        Intracomm b = w.dupWithInfo(info);
        T.eq(Comm.compare(b, w), MPI.CONGRUENT, "dupWithInfo congruent");
        b.barrier();
        b.setInfo(info);
        Info used = b.getInfo();
        T.check(used != null && used.size() >= 0, "getInfo gives an info object");
        used.free();
        info.free();
        b.free();
        a.free();
    }

    /** Only the even ranks call createGroup; the odd ones go on. */
    static void createGroup() throws MPIException {
        int[] evens = new int[(np + 1) / 2];
        for (int i = 0; i < evens.length; i++)
            evens[i] = 2 * i;
        Group g = w.getGroup().incl(evens);
        if (me % 2 == 0) {
            Intracomm c = w.createGroup(g, 11);
            T.eq(c.getSize(), evens.length, "createGroup size");
            T.eq(c.getRank(), me / 2, "createGroup rank");
            int[] x = {me};
            c.allReduce(x, 1, MPI.INT, MPI.SUM);
            int want = 0;
            for (int e : evens)
                want += e;
            T.eq(x[0], want, "allReduce on createGroup's communicator");
            c.free();
        }
        g.free();
        w.barrier();
    }

    /** To rank r: n ints when r is even, n doubles when odd; byte displacements with gaps. */
    static void allToAllw(int n) throws MPIException {
        int[] sc = new int[np], sd = new int[np], rc = new int[np], rd = new int[np];
        Datatype[] st = new Datatype[np], rt = new Datatype[np];
        int sat = 0, rat = 0;
        for (int r = 0; r < np; r++) {
            boolean dbl = r % 2 == 1; // what rank r receives
            sc[r] = n;
            st[r] = dbl ? MPI.DOUBLE : MPI.INT;
            sd[r] = sat;
            sat += n * (dbl ? 8 : 4) + 8;
            boolean mineDbl = me % 2 == 1; // what I receive from everyone
            rc[r] = n;
            rt[r] = mineDbl ? MPI.DOUBLE : MPI.INT;
            rd[r] = rat;
            rat += n * (mineDbl ? 8 : 4) + 8;
        }
        ByteBuffer s = MPI.newByteBuffer(sat).order(ByteOrder.nativeOrder());
        for (int r = 0; r < np; r++)
            for (int i = 0; i < n; i++)
                if (r % 2 == 1)
                    s.putDouble(sd[r] + 8 * i, me * 1000.5 + i);
                else
                    s.putInt(sd[r] + 4 * i, me * 100000 + r * 1000 + i);
        for (int pass = 0; pass < 3; pass++) {
            ByteBuffer rb = MPI.newByteBuffer(rat).order(ByteOrder.nativeOrder());
            byte[] ra = null;
            if (pass == 0) {
                w.allToAllw(s, sc, sd, st, rb, rc, rd, rt);
            } else if (pass == 1) {
                Request q = w.iAllToAllw(s, sc, sd, st, rb, rc, rd, rt);
                java.util.Arrays.fill(rc, 0); // the request keeps its own copies
                java.util.Arrays.fill(rd, 0);
                q.waitFor();
                for (int r = 0, at = 0; r < np; r++) {
                    rc[r] = n;
                    rd[r] = at;
                    at += n * (me % 2 == 1 ? 8 : 4) + 8;
                }
            } else { // heap arrays
                byte[] sa = new byte[sat];
                s.get(0, sa);
                ra = new byte[rat];
                w.allToAllw(sa, sc, sd, st, ra, rc, rd, rt);
                rb.put(0, ra);
            }
            for (int r = 0; r < np; r++)
                for (int i = 0; i < n; i++)
                    if (me % 2 == 1)
                        T.check(rb.getDouble(rd[r] + 8 * i) == r * 1000.5 + i,
                                "allToAllw double from " + r + " pass " + pass);
                    else
                        T.eq(rb.getInt(rd[r] + 4 * i), r * 100000 + me * 1000 + i,
                                "allToAllw int from " + r + " pass " + pass);
            for (int r = 0; r < np; r++) // the gaps after each block stay zero
                T.eq(rb.getLong(rd[r] + n * (me % 2 == 1 ? 8 : 4)), 0, "gap after block " + r);
        }
    }
}
