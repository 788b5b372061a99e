// SPDX-License-Identifier: BSD-3-Clause
import mpi.*;

/** Groups and communicators: split, dup, create, compare, names, info, error handlers. */
public class Comms {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int me = w.getRank(), np = w.getSize();
        T.rank = me;

        Group g = w.getGroup();
        T.eq(g.getSize(), np, "group size");
        T.eq(g.getRank(), me, "group rank");
        int[] evens = new int[(np + 1) / 2];
        for (int i = 0; i < evens.length; i++)
            evens[i] = 2 * i;
        Group ge = g.incl(evens), go = g.excl(evens);
        T.eq(ge.getSize() + go.getSize(), np, "incl + excl sizes");
        T.eq(ge.getRank(), me % 2 == 0 ? me / 2 : MPI.UNDEFINED, "rank in evens");
        Group u = Group.union(go, ge);
        T.eq(u.getSize(), np, "union size");
        T.eq(Group.compare(u, g), np > 2 ? MPI.SIMILAR : (np == 2 ? MPI.SIMILAR : MPI.IDENT),
                "union compare");
        T.eq(Group.intersection(ge, go).getSize(), 0, "intersection of evens and odds");
        T.eq(Group.difference(g, go).getSize(), ge.getSize(), "difference");
        int[] tr = Group.translateRanks(ge, new int[] {0}, g);
        T.eq(tr[0], 0, "translate");
        Group rg = g.rangeIncl(new int[][] {{0, np - 1, 2}});
        T.eq(Group.compare(rg, ge), MPI.IDENT, "rangeIncl equals incl");

        Intracomm d = w.dup();
        T.eq(Comm.compare(d, w), MPI.CONGRUENT, "dup congruent");
        T.eq(Comm.compare(w, w), MPI.IDENT, "ident");
        d.setName("my dup");
        T.check(d.getName().equals("my dup"), "comm name");
        T.check(MPI.COMM_WORLD.getName().equals("MPI_COMM_WORLD"), "world name");

        // split by parity, key reverses order
        Intracomm s = w.split(me % 2, -me);
        int half = me % 2 == 0 ? (np + 1) / 2 : np / 2;
        T.eq(s.getSize(), half, "split size");
        T.eq(s.getRank(), half - 1 - me / 2, "split rank (reversed)");
        int[] x = {me};
        s.allReduce(x, 1, MPI.INT, MPI.SUM);
        int want = 0;
        for (int r = me % 2; r < np; r += 2)
            want += r;
        T.eq(x[0], want, "allReduce in split");
        Intracomm none = w.split(me == 0 ? 0 : MPI.UNDEFINED, 0);
        T.check(me == 0 ? !none.isNull() : none.isNull(), "split with UNDEFINED");

        Intracomm c = w.create(ge);
        T.check(me % 2 == 0 ? !c.isNull() : c.isNull(), "create: members only");
        if (!c.isNull()) {
            T.eq(c.getSize(), ge.getSize(), "create size");
            int[] b = {me == 0 ? 42 : 0};
            c.bcast(b, 1, MPI.INT, 0);
            T.eq(b[0], 42, "bcast in created comm");
            c.free();
        }
        T.check(!w.isInter(), "world is not an inter-communicator");
        Object tagUb = w.getAttr(MPI.TAG_UB);
        T.check(tagUb instanceof Integer && (Integer) tagUb >= 32767, "TAG_UB attribute");

        // error handlers
        T.check(w.getErrhandler().equals(MPI.ERRORS_RETURN), "binding sets ERRORS_RETURN");
        d.setErrhandler(MPI.ERRORS_ARE_FATAL);
        T.check(d.getErrhandler().equals(MPI.ERRORS_ARE_FATAL), "setErrhandler");
        d.setErrhandler(MPI.ERRORS_RETURN);

        // info
        Info info = new Info();
        info.set("alpha", "1");
        info.set("beta", "two");
        T.eq(info.size(), 2, "info size");
        T.check("two".equals(info.get("beta")), "info get");
        T.check(info.get("gamma") == null, "info get missing");
        Info i2 = info.dup();
        info.delete("alpha");
        T.eq(info.size(), 1, "info delete");
        T.eq(i2.size(), 2, "dup is independent");
        T.check(i2.getKey(0).equals("alpha") || i2.getKey(1).equals("alpha"), "info keys");
        info.free();
        i2.free();

        T.check(MPI.getProcessorName().length() > 0, "processor name");
        T.check(MPI.wtime() > 0 && MPI.wtick() > 0, "wtime/wtick");
        T.check(MPI.isInitialized() && !MPI.isFinalized(), "initialized");
        s.free();
        d.free();
        T.check(d.isNull(), "freed comm is null");
        g.free();
        w.barrier();
        if (me == 0) System.out.println("Comms OK on " + np + " ranks");
        MPI.Finalize();
        T.check(MPI.isFinalized(), "finalized");
    }
}
