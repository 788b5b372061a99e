// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/**
 * Windows of non-blocking calls, as bench/java/Bandwidth posts them, and
 * every array form of Request over them: rank 0 sends W messages of
 * different sizes and tags from slices of one direct buffer, rank 1
 * receives them into slices of another, with null requests among them;
 * waitAllStatus, testAllStatus, waitSomeStatus, testSomeStatus,
 * waitAnyStatus and testAnyStatus must give each request's own source, tag,
 * count and index, and the data must arrive byte for byte. Windows longer
 * than the per-thread handle scratch (64, then past the 4096 it keeps),
 * PROC_NULL windows, an error inside a window (truncation: the other
 * requests still finish), and a request wait inside a user operation
 * run by a pending reduction (the scratch is in use then).
 */
public class Windows {
    static Intracomm w = MPI.COMM_WORLD;
    static int me, seed = 700;

    interface Finish {
        /** Completes every request of rs and returns the statuses by array index. */
        Status[] run(Request[] rs) throws MPIException;
    }

    static int size(int i) {
        return (i * 977) % 3001; // 0 ... 3000 bytes, in no order
    }

    /** W messages from 0 to 1 (tag 1000 + i), finished by f on the receiver. */
    static void window(int nmsg, String how, Finish f) throws MPIException {
        int base = seed;
        seed += nmsg;
        int[] off = new int[nmsg + 1];
        for (int i = 0; i < nmsg; i++)
            off[i + 1] = off[i] + size(i);
        ByteBuffer all = MPI.newByteBuffer(off[nmsg] + 1);
        // Receiver's array: a null every 7th entry, so indices and requests differ.
        int slots = nmsg + nmsg / 5 + 2;
        Request[] rs = new Request[me == 0 ? nmsg : slots];
        int[] which = new int[slots]; // message of array entry j, or -1
        if (me == 0) {
            for (int i = 0; i < nmsg; i++)
                T.fill(MPI.slice(all, off[i]), base + i, size(i));
            for (int i = 0; i < nmsg; i++)
                rs[i] = w.iSend(MPI.slice(all, off[i]), size(i), MPI.BYTE, 1, 1000 + i);
            Request.waitAll(rs);
        } else {
            int i = 0;
            for (int j = 0; j < slots; j++) {
                if (j % 7 == 3 || i == nmsg) {
                    which[j] = -1;
                    continue;
                }
                which[j] = i;
                rs[j] = w.iRecv(MPI.slice(all, off[i]), size(i), MPI.BYTE, 0, 1000 + i);
                i++;
            }
            T.eq(i, nmsg, how + ": messages posted");
            Status[] st = f.run(rs);
            for (int j = 0; j < slots; j++) {
                String what = how + " (" + nmsg + " messages), entry " + j;
                if (which[j] < 0) {
                    T.check(rs[j] == null, what + ": a null entry stays null");
                    continue;
                }
                int m = which[j];
                T.check(rs[j].isNull(), what + ": request finished");
                T.check(st[j] != null, what + ": a status");
                T.eq(st[j].getSource(), 0, what + ": source");
                T.eq(st[j].getTag(), 1000 + m, what + ": tag");
                T.eq(st[j].getCount(MPI.BYTE), size(m), what + ": count");
                T.eq(st[j].getError(), MPI.SUCCESS, what + ": error");
                T.verify(MPI.slice(all, off[m]), base + m, size(m), what + ": data");
            }
        }
        w.barrier();
    }

    /** The statuses by index, from statuses that each carry their index. */
    static void byIndex(Status[] into, Status[] got, String what) {
        for (Status s : got) {
            int i = s.getIndex();
            T.check(i >= 0 && i < into.length && into[i] == null, what + ": index " + i);
            into[i] = s;
        }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = w.getRank();
        T.rank = me;
        T.check(w.getSize() == 2, "needs 2 ranks");
        for (int n : new int[] {1, 64, 65, 300}) {
            window(n, "waitAllStatus", rs -> {
                Status[] st = Request.waitAllStatus(rs);
                T.eq(st.length, rs.length, "waitAllStatus: one status per entry");
                for (int j = 0; j < rs.length; j++)
                    if (rs[j] != null) T.eq(st[j].getIndex(), j, "waitAllStatus index");
                return st;
            });
            window(n, "testAllStatus", rs -> {
                Status[] st;
                while ((st = Request.testAllStatus(rs)) == null)
                    Thread.onSpinWait();
                return st;
            });
            window(n, "waitSomeStatus", rs -> {
                Status[] st = new Status[rs.length], got;
                while ((got = Request.waitSomeStatus(rs)) != null) {
                    T.check(got.length > 0, "waitSomeStatus: at least one");
                    byIndex(st, got, "waitSomeStatus");
                }
                return st;
            });
            window(n, "testSomeStatus", rs -> {
                Status[] st = new Status[rs.length], got;
                while ((got = Request.testSomeStatus(rs)) != null)
                    byIndex(st, got, "testSomeStatus");
                return st;
            });
            window(n, "waitAnyStatus", rs -> {
                Status[] st = new Status[rs.length];
                Status s;
                while ((s = Request.waitAnyStatus(rs)) != null)
                    byIndex(st, new Status[] {s}, "waitAnyStatus");
                return st;
            });
            window(n, "testAnyStatus, then waitStatus", rs -> {
                Status[] st = new Status[rs.length];
                for (int k = 0; k < 3; k++) {
                    Status s = Request.testAnyStatus(rs);
                    if (s != null) byIndex(st, new Status[] {s}, "testAnyStatus");
                }
                for (int j = 0; j < rs.length; j++)
                    if (rs[j] != null && !rs[j].isNull()) {
                        st[j] = rs[j].waitStatus();
                        T.eq(st[j].getIndex(), MPI.UNDEFINED, "waitStatus index");
                    }
                return st;
            });
        }
        procNull();
        truncated();
        inUserOp();
        w.barrier();
        if (me == 0) System.out.println("Windows OK on " + w.getSize() + " ranks");
        MPI.Finalize();
    }

    /** Windows from and to PROC_NULL, past the scratch this thread keeps, then short again. */
    static void procNull() throws MPIException {
        ByteBuffer b = MPI.newByteBuffer(16);
        for (int n : new int[] {5000, 64, 4097, 3}) {
            Request[] rs = new Request[n];
            for (int i = 0; i < n; i++)
                rs[i] = i % 2 == 0 ? w.iRecv(MPI.slice(b, i % 16), 0, MPI.BYTE, MPI.PROC_NULL, i)
                                   : w.iSend(b, 16, MPI.BYTE, MPI.PROC_NULL, i);
            Status[] st = Request.waitAllStatus(rs);
            for (int i = 0; i < n; i++) {
                T.check(rs[i].isNull(), "PROC_NULL window of " + n + ": finished " + i);
                if (i % 2 == 0) {
                    T.eq(st[i].getSource(), MPI.PROC_NULL, "PROC_NULL receive source " + i);
                    T.eq(st[i].getTag(), MPI.ANY_TAG, "PROC_NULL receive tag " + i);
                    T.eq(st[i].getCount(MPI.BYTE), 0, "PROC_NULL receive count " + i);
                }
                T.eq(st[i].getIndex(), i, "PROC_NULL window index " + i);
            }
            for (int i = 0; i < n; i++)
                rs[i] = w.iSend(b, 16, MPI.BYTE, MPI.PROC_NULL, i);
            T.check(Request.testAll(rs), "PROC_NULL sends test complete");
            for (Request r : rs)
                T.check(r.isNull(), "PROC_NULL send finished by testAll");
        }
    }

    /** One receive of a window truncates: waitAll throws, and every request is finished. */
    static void truncated() throws MPIException {
        int n = 10, bad = 6;
        ByteBuffer b = MPI.newByteBuffer(100 * n);
        Request[] rs = new Request[n];
        for (int i = 0; i < n; i++)
            rs[i] = me == 0 ? w.iSend(MPI.slice(b, 100 * i), i == bad ? 100 : 50, MPI.BYTE, 1, i)
                            : w.iRecv(MPI.slice(b, 100 * i), 50, MPI.BYTE, 0, i);
        if (me == 0) {
            Request.waitAll(rs);
        } else {
            try {
                Request.waitAll(rs);
                T.fail("a truncated receive in waitAll: no exception");
            } catch (MPIException e) {
                T.eq(e.getErrorClass(), MPI.ERR_IN_STATUS, "truncation in waitAll: class ("
                        + e.getMessage() + ")");
            }
            for (int i = 0; i < n; i++)
                T.check(rs[i].isNull(), "after the error, request " + i + " is finished");
        }
        w.barrier();
    }

    /**
     * A user operation of a pending iAllReduce that itself waits on a
     * window: it runs inside the wait of the reduction's request, while
     * this thread's handle scratch holds that wait's handles.
     */
    static void inUserOp() throws MPIException {
        ByteBuffer b = MPI.newByteBuffer(8);
        int[] calls = {0};
        Op op = new Op(new UserFunction() {
            @Override
            public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype t)
                    throws MPIException {
                Request[] rs = new Request[70];
                for (int i = 0; i < rs.length; i++)
                    rs[i] = w.iSend(b, 8, MPI.BYTE, MPI.PROC_NULL, i);
                Request.waitAll(rs);
                for (Request r : rs)
                    T.check(r.isNull(), "window in a user operation finished");
                for (int i = 0; i < count; i++)
                    inOut.putInt(4 * i, inOut.getInt(4 * i) + in.getInt(4 * i));
                calls[0]++;
            }
        }, true);
        java.nio.IntBuffer x = MPI.newIntBuffer(4), y = MPI.newIntBuffer(4);
        for (int i = 0; i < 4; i++)
            x.put(i, (me + 1) * (i + 1));
        Request other = w.iRecv(MPI.newByteBuffer(1), 1, MPI.BYTE, MPI.PROC_NULL, 0);
        Request red = w.iAllReduce(x, y, 4, MPI.INT, op);
        Status[] st = Request.waitAllStatus(new Request[] {other, red});
        T.eq(st[0].getSource(), MPI.PROC_NULL, "the other request's status");
        T.check(other.isNull() && red.isNull(), "both requests finished");
        for (int i = 0; i < 4; i++)
            T.eq(y.get(i), 3 * (i + 1), "iAllReduce with a waiting user operation, element " + i);
        int[] ran = {calls[0]};
        w.allReduce(ran, 1, MPI.INT, MPI.SUM);
        T.check(ran[0] >= 1, "the user operation ran");
        op.free();
    }
}
