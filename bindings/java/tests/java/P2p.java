// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.DoubleBuffer;

import mpi.*;

/**
 * Point-to-point between ranks 0 and 1 (others wait at the barriers): every
 * send mode on direct buffers and heap arrays, at sizes around the eager and
 * rendezvous thresholds; non-blocking, persistent, sendRecv(Replace), probes,
 * matched probes, slices, status counts. Every byte checked.
 */
public class P2p {
    static final int[] SIZES = {0, 1, 7, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20,
            (1 << 20) + 3};
    static Intracomm w = MPI.COMM_WORLD;
    static int me, peer;
    static int seed = 1;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = w.getRank();
        T.rank = me;
        T.check(w.getSize() >= 2, "needs 2 ranks");
        peer = 1 - me;
        if (me < 2) {
            blocking();
            statuses();
            nonblocking();
            persistent();
            combined();
            probes();
            typed();
        }
        w.barrier();
        if (me == 0) System.out.println("P2p OK on " + w.getSize() + " ranks");
        MPI.Finalize();
    }

    /**
     * Blocking receives into direct buffers return their status packed in
     * one value when source, tag and size are small (the fast path) and
     * through a second call when not: both ways, with slices and int views
     * (the address and the bounds the fast path works out in Java), a
     * buffer one element short (the general path's error), PROC_NULL.
     */
    static void statuses() throws MPIException {
        int ub = (Integer) w.getAttr(MPI.TAG_UB);
        int big = (8 << 20) + 5; // over the 23 bits of a packed count
        int[][] cases = {{5, ub}, {5, 0}, {big, 7}, {big, ub}, {0, (1 << 24) - 2},
                {3, (1 << 24) - 1}};
        for (int[] c : cases) {
            int n = c[0], tag = c[1], s = seed++;
            String what = "status of " + n + " bytes with tag " + tag;
            if (me == 0) {
                ByteBuffer b = MPI.newByteBuffer(n + 3);
                T.fill(MPI.slice(b, 3), s, n);
                w.send(MPI.slice(b, 3), n, MPI.BYTE, 1, tag);
            } else {
                ByteBuffer b = MPI.newByteBuffer(n + 16);
                Status st = w.recv(MPI.slice(b, 16), n, MPI.BYTE, 0, MPI.ANY_TAG);
                for (int i = 0; i < 16; i++)
                    T.eq(b.get(i), 0, what + ": byte before the slice");
                T.verify(MPI.slice(b, 16), s, n, what);
                T.eq(st.getCount(MPI.BYTE), n, what + ": count");
                T.eq(st.getSource(), 0, what + ": source");
                T.eq(st.getTag(), tag, what + ": tag");
                T.eq(st.getError(), MPI.SUCCESS, what + ": error");
                T.check(!st.isCancelled(), what + ": not cancelled");
            }
        }
        // An int view: counts in ints, bounds in bytes.
        IntBuffer v = MPI.newIntBuffer(40);
        if (me == 0) {
            for (int i = 0; i < 40; i++)
                v.put(i, i * 7 + 1);
            w.send(MPI.slice(v, 2), 38, MPI.INT, 1, 3);
        } else {
            Status st = w.recv(v, 40, MPI.INT, MPI.ANY_SOURCE, 3);
            T.eq(st.getCount(MPI.INT), 38, "int view count");
            for (int i = 0; i < 38; i++)
                T.eq(v.get(i), (i + 2) * 7 + 1, "int view element " + i);
            try {
                w.recv(MPI.slice(v, 1), 40, MPI.INT, 0, 3);
                T.fail("a receive one int past the buffer did not throw");
            } catch (MPIException e) {
                T.eq(e.getErrorClass(), MPI.ERR_BUFFER, "one int past the buffer: class");
            }
        }
        // A slice ignores its buffer's position and limit (a flipped
        // buffer's limit lies before the slice) and leaves them as they were.
        ByteBuffer fb = MPI.newByteBuffer(64);
        IntBuffer fi = MPI.newIntBuffer(32);
        for (int i = 0; me == 0 && i < 40; i++)
            fb.put(20 + i, (byte) (i + 1));
        for (int i = 0; me == 0 && i < 24; i++)
            fi.put(8 + i, i * 11);
        fb.position(10).flip();
        fi.position(3).flip();
        if (me == 0) {
            w.send(MPI.slice(fb, 20), 40, MPI.BYTE, 1, 4);
            w.send(MPI.slice(fi, 8), 24, MPI.INT, 1, 4);
        } else {
            w.recv(MPI.slice(fb, 20), 40, MPI.BYTE, 0, 4);
            w.recv(MPI.slice(fi, 8), 24, MPI.INT, 0, 4);
            ByteBuffer ab = fb.duplicate().clear();
            IntBuffer ai = fi.duplicate().clear();
            for (int i = 0; i < 40; i++)
                T.eq(ab.get(20 + i), i + 1, "slice of a flipped byte buffer, byte " + i);
            for (int i = 0; i < 24; i++)
                T.eq(ai.get(8 + i), i * 11, "slice of a flipped int buffer, element " + i);
        }
        T.eq(fb.limit(), 10, "the byte buffer's limit after slicing");
        T.eq(fi.limit(), 3, "the int buffer's limit after slicing");
        // A datatype with holes into a small byte[] (below the pin
        // threshold): the holes keep their bytes, the blocks get the data.
        Datatype vec = Datatype.createVector(3, 2, 5, MPI.BYTE); // 2 of every 5, extent 12
        vec.commit();
        for (int cnt : new int[] {1, 4}) {
            int span = 12 * cnt, s = seed++;
            byte[] a = new byte[span + 4];
            if (me == 0) {
                T.fill(a, s, a.length);
                w.send(a, cnt, vec, 1, 4);
            } else {
                java.util.Arrays.fill(a, (byte) 0x5a);
                Status vs = w.recv(a, cnt, vec, 0, 4);
                T.eq(vs.getCount(vec), cnt, "vector into byte[] count");
                for (int i = 0; i < a.length; i++) {
                    boolean data = i < span && (i % 12) % 5 < 2;
                    T.eq(a[i], data ? T.pat(s, i) : 0x5a, "vector into byte[] " + cnt
                            + ": byte " + i + (data ? " (data)" : " (hole)"));
                }
            }
        }
        vec.free();
        Status st = w.recv(MPI.newByteBuffer(4), 4, MPI.BYTE, MPI.PROC_NULL, 1);
        T.eq(st.getSource(), MPI.PROC_NULL, "PROC_NULL source");
        T.eq(st.getTag(), MPI.ANY_TAG, "PROC_NULL tag");
        T.eq(st.getCount(MPI.BYTE), 0, "PROC_NULL count");
    }

    /** send/sSend/rSend/bSend, direct and heap, into direct and heap. */
    static void blocking() throws MPIException {
        ByteBuffer attach = MPI.newByteBuffer(8 << 20);
        MPI.attachBuffer(attach);
        for (int n : SIZES) {
            for (int mode = 0; mode < 4; mode++) {
                for (int kind = 0; kind < 4; kind++) { // bit 0: send direct, bit 1: recv direct
                    int s = seed++;
                    boolean sd = (kind & 1) != 0, rd = (kind & 2) != 0;
                    String what = "blocking mode " + mode + " size " + n + " send "
                            + (sd ? "direct" : "array") + " recv " + (rd ? "direct" : "array");
                    if (me == 0) {
                        Object buf;
                        if (sd) {
                            ByteBuffer b = MPI.newByteBuffer(n);
                            T.fill(b, s, n);
                            buf = b;
                        } else {
                            byte[] a = new byte[n];
                            T.fill(a, s, n);
                            buf = a;
                        }
                        if (mode == 2) w.recv(new byte[0], 0, MPI.BYTE, 1, 999); // receiver posted
                        switch (mode) {
                        case 0: w.send(buf, n, MPI.BYTE, 1, s & 0x7fff); break;
                        case 1: w.sSend(buf, n, MPI.BYTE, 1, s & 0x7fff); break;
                        case 2: w.rSend(buf, n, MPI.BYTE, 1, s & 0x7fff); break;
                        default: w.bSend(buf, n, MPI.BYTE, 1, s & 0x7fff); break;
                        }
                    } else {
                        Status st;
                        if (mode == 2) {
                            ByteBuffer b = MPI.newByteBuffer(n + 8);
                            Request r = w.iRecv(b, n + 8, MPI.BYTE, 0, s & 0x7fff);
                            w.send(new byte[0], 0, MPI.BYTE, 0, 999);
                            st = r.waitStatus();
                            T.verify(b, s, n, what);
                        } else if (rd) {
                            ByteBuffer b = MPI.newByteBuffer(n + 8);
                            st = w.recv(b, n + 8, MPI.BYTE, 0, s & 0x7fff);
                            T.verify(b, s, n, what);
                        } else {
                            byte[] a = new byte[n + 8];
                            st = w.recv(a, n + 8, MPI.BYTE, MPI.ANY_SOURCE, MPI.ANY_TAG);
                            T.verify(a, 0, s, n, what);
                            for (int i = n; i < n + 8; i++)
                                T.eq(a[i], 0, what + ": byte past the message");
                        }
                        T.eq(st.getCount(MPI.BYTE), n, what + " count");
                        T.eq(st.getSource(), 0, what + " source");
                        T.eq(st.getTag(), s & 0x7fff, what + " tag");
                    }
                }
            }
        }
        MPI.detachBuffer();
        // Typed arrays and heap slices: int[] with an offset, double[].
        int n = 5000;
        if (me == 0) {
            int[] a = new int[n + 10];
            for (int i = 0; i < a.length; i++)
                a[i] = i * 3 - 7;
            w.send(MPI.slice(a, 10), n, MPI.INT, 1, 5);
            double[] d = new double[n];
            for (int i = 0; i < n; i++)
                d[i] = i / 3.0;
            w.send(d, n, MPI.DOUBLE, 1, 6);
        } else {
            int[] a = new int[n + 4];
            w.recv(MPI.slice(a, 4), n, MPI.INT, 0, 5);
            for (int i = 0; i < 4; i++)
                T.eq(a[i], 0, "int slice: before the offset");
            for (int i = 0; i < n; i++)
                T.eq(a[i + 4], (i + 10) * 3 - 7, "int slice element " + i);
            DoubleBuffer d = MPI.newDoubleBuffer(n);
            Status st = w.recv(d, n, MPI.DOUBLE, 0, 6);
            T.eq(st.getCount(MPI.DOUBLE), n, "double count");
            for (int i = 0; i < n; i++)
                T.check(d.get(i) == i / 3.0, "double element " + i);
        }
    }

    /** iSend/isSend/iRecv on direct buffers, several in flight, waitAll/waitAny/testAll. */
    static void nonblocking() throws MPIException {
        int k = SIZES.length;
        ByteBuffer[] bufs = new ByteBuffer[k];
        Request[] reqs = new Request[k];
        int base = seed;
        seed += k;
        for (int i = 0; i < k; i++) {
            int n = SIZES[i];
            bufs[i] = MPI.newByteBuffer(n);
            if (me == 0) {
                T.fill(bufs[i], base + i, n);
                reqs[i] = (i % 2 == 0) ? w.iSend(bufs[i], n, MPI.BYTE, 1, i)
                                       : w.isSend(bufs[i], n, MPI.BYTE, 1, i);
            } else {
                reqs[i] = w.iRecv(bufs[i], n, MPI.BYTE, 0, i);
            }
        }
        if (me == 0) {
            Request.waitAll(reqs);
        } else {
            int done = 0;
            boolean[] seen = new boolean[k];
            while (done < k) {
                int i = Request.waitAny(reqs);
                T.check(i >= 0 && i < k && !seen[i], "waitAny index " + i);
                seen[i] = true;
                done++;
            }
            T.eq(Request.waitAny(reqs), MPI.UNDEFINED, "waitAny on all-null requests");
            for (int i = 0; i < k; i++)
                T.verify(bufs[i], base + i, SIZES[i], "nonblocking size " + SIZES[i]);
        }
        for (Request r : reqs)
            T.check(r.isNull(), "request null after completion");
        // A receive nobody matches, cancelled.
        Request c = w.iRecv(MPI.newByteBuffer(8), 8, MPI.BYTE, peer, 12345);
        c.cancel();
        Status cs = c.waitStatus();
        T.check(cs.isCancelled(), "cancelled receive reports isCancelled");
        T.check(c.isNull(), "cancelled request is finished");
        // testAll / testAny / testSome / waitSome on a pair of exchanges.
        IntBuffer x = MPI.newIntBuffer(4), y = MPI.newIntBuffer(4);
        for (int i = 0; i < 4; i++)
            x.put(i, me * 10 + i);
        Request[] two = {w.iRecv(y, 4, MPI.INT, peer, 55), w.iSend(x, 4, MPI.INT, peer, 55)};
        while (!Request.testAll(two))
            Thread.onSpinWait();
        for (int i = 0; i < 4; i++)
            T.eq(y.get(i), peer * 10 + i, "testAll data " + i);
        T.eq(Request.testAny(two), MPI.UNDEFINED, "testAny with all null");
        Request[] more = {w.iRecv(y, 4, MPI.INT, peer, 56), w.iSend(x, 4, MPI.INT, peer, 56)};
        int done = 0;
        while (done < 2) {
            int[] idx = Request.waitSome(more);
            T.check(idx != null && idx.length >= 1, "waitSome returns completions");
            done += idx.length;
        }
        T.check(Request.waitSome(more) == null, "waitSome with all null");
        // test() loop and getStatus.
        IntBuffer ib = MPI.newIntBuffer(100);
        if (me == 0) {
            for (int i = 0; i < 100; i++)
                ib.put(i, i * i);
            sync();
            w.send(ib, 100, MPI.INT, 1, 77);
        } else {
            Request r = w.iRecv(ib, 100, MPI.INT, 0, 77);
            sync();
            Status st;
            while ((st = r.testStatus()) == null)
                Thread.onSpinWait();
            T.eq(st.getCount(MPI.INT), 100, "test count");
            for (int i = 0; i < 100; i++)
                T.eq(ib.get(i), i * i, "test element " + i);
        }
    }

    /** A handshake between ranks 0 and 1 only. */
    static void sync() throws MPIException {
        w.sendRecv(new byte[0], 0, MPI.BYTE, peer, 90, new byte[0], 0, MPI.BYTE, peer, 90);
    }

    /** sendInit/recvInit started several times, startAll. */
    static void persistent() throws MPIException {
        int n = 70000;
        ByteBuffer b = MPI.newByteBuffer(n);
        Prequest p = me == 0 ? w.sendInit(b, n, MPI.BYTE, 1, 3) : w.recvInit(b, n, MPI.BYTE, 0, 3);
        for (int round = 0; round < 5; round++) {
            int s = seed++;
            if (me == 0) T.fill(b, s, n);
            p.start();
            Status st = p.waitStatus();
            if (me == 1) {
                T.verify(b, s, n, "persistent round " + round);
                T.eq(st.getCount(MPI.BYTE), n, "persistent count");
            }
            T.check(!p.isNull(), "a persistent request stays after wait");
        }
        ByteBuffer c = MPI.newByteBuffer(10);
        Prequest q = me == 0 ? w.sSendInit(c, 10, MPI.BYTE, 1, 4) : w.recvInit(c, 10, MPI.BYTE, 0, 4);
        int s = seed++;
        if (me == 0) T.fill(c, s, 10);
        Prequest.startAll(new Prequest[] {p, q});
        Request.waitAll(new Request[] {p, q});
        if (me == 1) T.verify(c, s, 10, "startAll ssend");
        p.free();
        q.free();
    }

    /** sendRecv and sendRecvReplace, both ranks at once. */
    static void combined() throws MPIException {
        for (int n : new int[] {0, 3, 4096, 100000}) {
            int s0 = seed++, s1 = seed++;
            int mine = me == 0 ? s0 : s1, theirs = me == 0 ? s1 : s0;
            byte[] out = new byte[n];
            T.fill(out, mine, n);
            ByteBuffer in = MPI.newByteBuffer(n);
            Status st = w.sendRecv(out, n, MPI.BYTE, peer, 11, in, n, MPI.BYTE, peer, 11);
            T.verify(in, theirs, n, "sendRecv " + n);
            T.eq(st.getCount(MPI.BYTE), n, "sendRecv count");
            ByteBuffer x = MPI.newByteBuffer(n);
            T.fill(x, mine, n);
            w.sendRecvReplace(x, n, MPI.BYTE, peer, 12, peer, 12);
            T.verify(x, theirs, n, "sendRecvReplace direct " + n);
            byte[] y = new byte[n];
            T.fill(y, mine, n);
            w.sendRecvReplace(y, n, MPI.BYTE, peer, 13, peer, 13);
            T.verify(y, 0, theirs, n, "sendRecvReplace array " + n);
        }
    }

    /** probe, iProbe, mProbe/mRecv, imProbe/imRecv. */
    static void probes() throws MPIException {
        int n = 3000;
        if (me == 0) {
            for (int t = 20; t < 24; t++) {
                byte[] a = new byte[n + t];
                T.fill(a, t, n + t);
                w.send(a, n + t, MPI.BYTE, 1, t);
            }
        } else {
            Status st = w.probe(0, 20);
            T.eq(st.getCount(MPI.BYTE), n + 20, "probe count");
            byte[] a = new byte[st.getCount(MPI.BYTE)];
            w.recv(a, a.length, MPI.BYTE, 0, 20);
            T.verify(a, 0, 20, n + 20, "after probe");
            Status s2;
            while ((s2 = w.iProbe(MPI.ANY_SOURCE, 21)) == null)
                Thread.onSpinWait();
            T.eq(s2.getTag(), 21, "iProbe tag");
            T.eq(s2.getSource(), 0, "iProbe source");
            w.recv(a = new byte[n + 21], n + 21, MPI.BYTE, 0, 21);
            T.verify(a, 0, 21, n + 21, "after iProbe");
            Message m = new Message();
            Status s3 = m.mProbe(0, 22, w);
            T.eq(s3.getCount(MPI.BYTE), n + 22, "mProbe count");
            ByteBuffer b = MPI.newByteBuffer(n + 22);
            m.mRecv(b, n + 22, MPI.BYTE);
            T.check(m.isNull(), "message consumed");
            T.verify(b, 22, n + 22, "mRecv");
            Message m2 = new Message();
            Status s4;
            while ((s4 = m2.imProbe(0, 23, w)) == null)
                Thread.onSpinWait();
            ByteBuffer c = MPI.newByteBuffer(s4.getCount(MPI.BYTE));
            m2.imRecv(c, n + 23, MPI.BYTE).waitFor();
            T.verify(c, 23, n + 23, "imRecv");
            T.check(w.iProbe(0, 24) == null, "iProbe with no message");
        }
    }

    /** getCount with a type that does not divide the message; getElements. */
    static void typed() throws MPIException {
        if (me == 0) {
            w.send(new int[] {1, 2, 3}, 3, MPI.INT, 1, 30);
        } else {
            ByteBuffer b = MPI.newByteBuffer(64);
            Status st = w.recv(b, 64, MPI.BYTE, 0, 30);
            T.eq(st.getCount(MPI.BYTE), 12, "bytes");
            T.eq(st.getCount(MPI.INT), 3, "ints");
            T.eq(st.getCount(MPI.LONG), MPI.UNDEFINED, "longs of 12 bytes");
            T.eq(st.getElements(MPI.BYTE), 12, "elements");
        }
    }
}
