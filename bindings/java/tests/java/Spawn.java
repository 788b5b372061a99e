// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.IntBuffer;

import mpi.*;

/**
 * Dynamic processes: the parents (the umprun job) spawn 3 Java children
 * (this class, argument "child") that answer point to point and in
 * collectives over the intercommunicator, merge with them, meet them again
 * through a published port, and disconnect; then spawnMultiple starts two
 * commands (1 and 2 children) in one group.
 */
public class Spawn {
    static final int NCHILD = 3, N = 70000;
    static final String SERVICE = "ump-java-spawn-test";

    static int v(int rank, int i) {
        return rank * 1000 + i * 7 + 1;
    }

    static String[] javaCommand(String... args) {
        String[] a = new String[3 + args.length];
        a[0] = "-cp";
        a[1] = System.getProperty("java.class.path");
        a[2] = "Spawn";
        System.arraycopy(args, 0, a, 3, args.length);
        return a;
    }

    static String java() {
        return System.getProperty("java.home") + "/bin/java";
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        if (args.length > 0 && args[0].equals("child"))
            child();
        else if (args.length > 0 && args[0].equals("multi"))
            multiChild(args[1]);
        else
            parent();
        MPI.Finalize();
    }

    static void parent() throws MPIException {
        Intracomm w = MPI.COMM_WORLD;
        int me = w.getRank(), np = w.getSize(), root = np - 1;
        T.rank = me;
        T.check(Comm.getParent().isNull(), "the first group has no parent");
        int[] codes = new int[NCHILD];
        java.util.Arrays.fill(codes, -1);
        // only the root's command, arguments and count matter: the others pass none
        Intercomm ic = me == root
                ? w.spawn(java(), javaCommand("child"), NCHILD, MPI.INFO_NULL, root, codes)
                : w.spawn(null, null, 0, MPI.INFO_NULL, root, codes);
        for (int i = 0; i < NCHILD; i++)
            T.eq(codes[i], MPI.SUCCESS, "spawn error code " + i);
        T.check(ic.isInter(), "spawn gives an intercommunicator");
        T.eq(ic.getRemoteSize(), NCHILD, "children");
        // bcast a task from the parents' root: each child sums the ints times its rank + 1
        int[] task = new int[N];
        for (int i = 0; i < N; i++)
            task[i] = v(7, i);
        ic.bcast(task, N, MPI.INT, me == root ? MPI.ROOT : MPI.PROC_NULL);
        long want = 0;
        for (int i = 0; i < N; i++)
            want += task[i];
        long[] sums = new long[NCHILD];
        ic.gather(null, 0, MPI.LONG, sums, 1, MPI.LONG, me == root ? MPI.ROOT : MPI.PROC_NULL);
        if (me == root)
            for (int c = 0; c < NCHILD; c++)
                T.eq(sums[c], want * (c + 1), "answer of child " + c);
        // point to point: child c sends N bytes to parent c % np
        for (int c = me; c < NCHILD; c += np) {
            ByteBuffer b = MPI.newByteBuffer(N);
            Status s = ic.recv(b, N, MPI.BYTE, c, 3);
            T.eq(s.getSource(), c, "source of the child's message");
            T.verify(b, 100 + c, N, "bytes from child " + c);
        }
        // merged: parents first
        Intracomm m = ic.merge(false);
        T.eq(m.getSize(), np + NCHILD, "merged size");
        T.eq(m.getRank(), me, "parents come first");
        int[] x = {m.getRank()};
        m.allReduce(x, 1, MPI.INT, MPI.SUM);
        T.eq(x[0], (np + NCHILD) * (np + NCHILD - 1) / 2, "allReduce over parents and children");
        m.free();
        // a port published by the parents' root; the children look it up and connect
        String port = null;
        if (me == root) {
            port = MPI.openPort();
            Intracomm.publishName(SERVICE, port);
        }
        ic.barrier(); // the name is published before the children look
        Intercomm again = w.accept(port, root);
        T.eq(again.getRemoteSize(), NCHILD, "accepted the children");
        IntBuffer one = MPI.newIntBuffer(1);
        if (me == 0) {
            again.iRecv(one, 1, MPI.INT, 0, 9).waitFor();
            T.eq(one.get(0), 4242, "message over the accepted intercommunicator");
        }
        again.disconnect();
        T.check(again.isNull(), "disconnect nulls the communicator");
        if (me == root) {
            Intracomm.unpublishName(SERVICE, port);
            Intracomm.closePort(port);
        }
        ic.disconnect();

        // spawnMultiple: 1 child of role A, 2 of role B, in one group
        int[] mcodes = new int[3];
        Intercomm mc = me == 0
                ? w.spawnMultiple(new String[] {java(), java()},
                        new String[][] {javaCommand("multi", "A"), javaCommand("multi", "B")},
                        new int[] {1, 2}, new Info[] {MPI.INFO_NULL, MPI.INFO_NULL}, 0, mcodes)
                : w.spawnMultiple(null, null, null, null, 0, null);
        T.eq(mc.getRemoteSize(), 3, "spawnMultiple children");
        if (me == 0)
            for (int i = 0; i < 3; i++)
                T.eq(mcodes[i], MPI.SUCCESS, "spawnMultiple error code " + i);
        int[] roles = new int[3];
        mc.gather(null, 0, MPI.INT, roles, 1, MPI.INT, me == 0 ? MPI.ROOT : MPI.PROC_NULL);
        if (me == 0) {
            T.eq(roles[0], 'A', "role of child 0");
            T.eq(roles[1], 'B', "role of child 1");
            T.eq(roles[2], 'B', "role of child 2");
        }
        mc.disconnect();
        // a program that is not there: an exception, nothing started
        boolean threw = false;
        try {
            w.spawn("./no-such-program-here", null, 2, MPI.INFO_NULL, 0, null);
        } catch (MPIException e) {
            threw = true;
        }
        T.check(threw, "spawning a missing program throws");
        w.barrier();
        if (me == 0) System.out.println("Spawn OK on " + np + " ranks");
    }

    static void child() throws MPIException {
        Intracomm w = MPI.COMM_WORLD;
        int me = w.getRank();
        T.rank = 1000 + me;
        T.eq(w.getSize(), NCHILD, "children's world");
        Intercomm p = Comm.getParent();
        T.check(!p.isNull() && p.isInter(), "a child has a parent intercommunicator");
        int np = p.getRemoteSize(), proot = np - 1;
        int[] task = new int[N];
        p.bcast(task, N, MPI.INT, proot);
        long sum = 0;
        for (int i = 0; i < N; i++) {
            T.eq(task[i], v(7, i), "task i " + i);
            sum += task[i];
        }
        long[] answer = {sum * (me + 1)};
        p.gather(answer, 1, MPI.LONG, null, 0, MPI.LONG, proot);
        ByteBuffer b = MPI.newByteBuffer(N);
        T.fill(b, 100 + me, N);
        p.send(b, N, MPI.BYTE, me % np, 3);
        Intracomm m = p.merge(true);
        T.eq(m.getRank(), np + me, "children come last");
        int[] x = {m.getRank()};
        m.allReduce(x, 1, MPI.INT, MPI.SUM);
        m.free();
        p.barrier();
        String port = me == 0 ? Intracomm.lookupName(SERVICE) : null;
        Intercomm again = w.connect(port, 0);
        T.eq(again.getRemoteSize(), np, "connected to the parents");
        if (me == 0) {
            IntBuffer one = MPI.newIntBuffer(1);
            one.put(0, 4242);
            again.send(one, 1, MPI.INT, 0, 9);
        }
        again.disconnect();
        p.disconnect();
    }

    static void multiChild(String role) throws MPIException {
        Intercomm p = Comm.getParent();
        T.rank = 2000 + MPI.COMM_WORLD.getRank();
        T.eq(MPI.COMM_WORLD.getSize(), 3, "spawnMultiple children's world");
        int[] r = {role.charAt(0)};
        p.gather(r, 1, MPI.INT, null, 0, MPI.INT, 0);
        p.disconnect();
    }
}
