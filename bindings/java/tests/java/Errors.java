// SPDX-License-Identifier: BSD-3-Clause
import java.nio.ByteBuffer;

import mpi.*;

/** MPI errors become MPIException with the right error class and ump's message. */
public class Errors {
    interface Call {
        void run() throws MPIException;
    }

    static void expect(int cls, String what, Call c) {
        try {
            c.run();
        } catch (MPIException e) {
            if (e.getErrorClass() != cls)
                T.fail(what + ": error class " + e.getErrorClass() + " (" + e.getMessage()
                        + "), want " + cls);
            if (e.getMessage() == null || e.getMessage().isEmpty()) T.fail(what + ": no message");
            return;
        }
        T.fail(what + ": no exception");
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int me = w.getRank(), np = w.getSize();
        T.rank = me;
        byte[] a = new byte[16];
        expect(MPI.ERR_RANK, "send to a bad rank", () -> w.send(a, 1, MPI.BYTE, np + 5, 0));
        expect(MPI.ERR_TAG, "send with a bad tag", () -> w.send(a, 1, MPI.BYTE, me, -7));
        expect(MPI.ERR_BUFFER, "count past the array",
                () -> w.send(a, 17, MPI.BYTE, me, 0));
        expect(MPI.ERR_BUFFER, "count past a direct buffer",
                () -> w.send(MPI.newIntBuffer(4), 5, MPI.INT, me, 0));
        expect(MPI.ERR_COUNT, "negative count", () -> w.send(a, -1, MPI.BYTE, me, 0));
        expect(MPI.ERR_UNKNOWN, "iSend on a heap array",
                () -> w.iSend(java.nio.ByteBuffer.wrap(a), 1, MPI.BYTE, me, 0));
        // Non-blocking calls the fast path declines: C checks and names them.
        expect(MPI.ERR_BUFFER, "iSend: count past a direct buffer",
                () -> w.iSend(MPI.newIntBuffer(4), 5, MPI.INT, me, 0));
        expect(MPI.ERR_BUFFER, "iRecv: count past a slice",
                () -> w.iRecv(MPI.slice(MPI.newByteBuffer(8), 4), 5, MPI.BYTE, me, 0));
        expect(MPI.ERR_COUNT, "iRecv: negative count",
                () -> w.iRecv(MPI.newByteBuffer(8), -1, MPI.BYTE, me, 0));
        expect(MPI.ERR_UNKNOWN, "recvInit on a heap buffer",
                () -> w.recvInit(java.nio.ByteBuffer.wrap(a), 1, MPI.BYTE, me, 0));
        expect(MPI.ERR_RANK, "iSend (fast path) to a bad rank",
                () -> w.iSend(MPI.newByteBuffer(8), 8, MPI.BYTE, np + 5, 0));
        expect(MPI.ERR_TAG, "iRecv (fast path) with a bad tag",
                () -> w.iRecv(MPI.newByteBuffer(8), 8, MPI.BYTE, me, -7));
        expect(MPI.ERR_ROOT, "bcast with a bad root", () -> w.bcast(a, 1, MPI.BYTE, -4));
        expect(MPI.ERR_ROOT, "bcast (fast path) with a bad root",
                () -> w.bcast(MPI.newByteBuffer(8), 1, MPI.BYTE, np + 2));
        expect(MPI.ERR_BUFFER, "allReduce into a direct buffer too small",
                () -> w.allReduce(MPI.newIntBuffer(4), MPI.newIntBuffer(3), 4, MPI.INT,
                        MPI.SUM));
        expect(MPI.ERR_ROOT, "reduce (fast path) with a bad root",
                () -> w.reduce(MPI.newIntBuffer(1), MPI.newIntBuffer(1), 1, MPI.INT, MPI.SUM,
                        -3));
        expect(MPI.ERR_ARG, "iReduceScatter with a count per rank missing",
                () -> w.iReduceScatter(MPI.newIntBuffer(4 * np), MPI.newIntBuffer(4),
                        new int[np - 1], MPI.INT, MPI.SUM));
        expect(MPI.ERR_UNKNOWN, "iScan on a heap buffer",
                () -> w.iScan(java.nio.IntBuffer.wrap(new int[1]), MPI.newIntBuffer(1), 1,
                        MPI.INT, MPI.SUM));
        // topologies, intercommunicators, dynamic processes, attributes
        expect(MPI.ERR_TOPOLOGY, "createCart over more ranks than the communicator",
                () -> w.createCart(new int[] {np + 1}, new boolean[] {false}, false));
        expect(MPI.ERR_ARG, "createCart: dims and periods differ in length",
                () -> w.createCart(new int[] {np}, new boolean[] {false, true}, false));
        CartComm c = w.createCart(new int[] {np}, new boolean[] {false}, false);
        expect(MPI.ERR_RANK, "getCoords of a bad rank", () -> c.getCoords(np + 3));
        expect(MPI.ERR_ARG, "shift along a missing dimension", () -> c.shift(2, 1));
        expect(MPI.ERR_ARG, "getRank with too few coordinates", () -> c.getRank(new int[0]));
        expect(MPI.ERR_BUFFER, "neighborAllGather into a short array",
                () -> c.neighborAllGather(new int[1], 1, MPI.INT, new int[1], 1, MPI.INT));
        c.free();
        expect(MPI.ERR_TOPOLOGY, "neighborAllGather without a topology",
                () -> w.neighborAllGather(new int[1], 1, MPI.INT, new int[2], 1, MPI.INT));
        expect(MPI.ERR_ARG, "createGraph: index past the edges",
                () -> w.createGraph(new int[] {3}, new int[] {0}, false));
        expect(MPI.ERR_RANK, "createIntercomm with a bad remote leader",
                () -> MPI.COMM_SELF.createIntercomm(MPI.COMM_SELF, 0, 5, 1));
        expect(MPI.ERR_NAME, "lookupName of an unpublished service",
                () -> Intracomm.lookupName("no-such-service"));
        expect(MPI.ERR_ARG, "spawn with no command",
                () -> MPI.COMM_SELF.spawn(null, null, 1, MPI.INFO_NULL, 0, null));
        expect(MPI.ERR_KEYVAL, "getAttr with a key never created", () -> w.getAttr(12345));
        expect(MPI.ERR_ARG, "allToAllw with a type per rank missing",
                () -> w.allToAllw(new byte[8], new int[np], new int[np], new Datatype[0],
                        new byte[8], new int[np], new int[np], new Datatype[0]));
        // Truncation: a 100-byte message into a 10-byte receive.
        if (np >= 2 && me < 2) {
            if (me == 0) {
                w.send(new byte[100], 100, MPI.BYTE, 1, 3);
                w.send(new byte[100], 100, MPI.BYTE, 1, 4);
            } else {
                expect(MPI.ERR_TRUNCATE, "truncation into an array",
                        () -> w.recv(new byte[10], 10, MPI.BYTE, 0, 3));
                ByteBuffer b = MPI.newByteBuffer(10);
                expect(MPI.ERR_TRUNCATE, "truncation into a direct buffer",
                        () -> w.recv(b, 10, MPI.BYTE, 0, 4));
            }
        }
        // The binding still works after errors.
        int[] x = {1};
        w.allReduce(x, 1, MPI.INT, MPI.SUM);
        T.eq(x[0], np, "allReduce after errors");
        w.barrier();
        if (me == 0) System.out.println("Errors OK on " + np + " ranks");
        MPI.Finalize();
        boolean threw = false;
        try {
            w.barrier();
        } catch (MPIException e) {
            threw = true;
        }
        T.check(threw, "a call after Finalize throws");
    }
}
