// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;

/**
 * A window of one-sided communication (MPI_Win), with Open MPI's Java API:
 * created over a direct buffer, allocated by MPI (private or shared
 * memory) or dynamic; put, get, the accumulates, fetch-and-op and
 * compare-and-swap; fence, post-start-complete-wait and passive target.
 *
 * Sizes and displacement units of the constructors and attach count
 * elements of the buffer given (an IntBuffer's are 4 bytes). An RMA call
 * returns before its data have moved, so origin, result and compare
 * buffers must be direct (a heap one is refused with an MPIException), and
 * the window keeps them reachable until the synchronisation that completes
 * them: fence, complete, unlock or flush of their target (unlockAll and the
 * all-target flushes for every target); a request form's Request holds its
 * own until it completes.
 *
 * A new window returns its errors (MPI_ERRORS_RETURN): they become
 * MPIException.
 */
public final class Win implements Freeable {
    public static final int WIN_NULL = 0;
    public static final int FLAVOR_PRIVATE = 0, FLAVOR_SHARED = 1;

    private long handle;
    private ByteBuffer base; // this rank's memory (created over a buffer, or allocated)
    private Buffer given;    // the buffer a created window is over: reachable while it lives
    private final IdentityHashMap<Buffer, Boolean> attached = new IdentityHashMap<>();
    // Origin and result buffers of calls not yet completed, by target rank.
    private final HashMap<Integer, ArrayList<Object>> pending = new HashMap<>();

    // win.c
    private static native long createNative(Buffer base, long bytes, int disp, long info,
            long comm) throws MPIException;
    private static native long allocateNative(long bytes, int disp, long info, long comm,
            boolean shared) throws MPIException;
    private static native long createDynamicNative(long info, long comm) throws MPIException;
    private static native ByteBuffer baseNative(long win) throws MPIException;
    private static native ByteBuffer sharedQueryNative(long win, int rank, int[] du)
            throws MPIException;
    private static native void attachNative(long win, Buffer buf, long bytes)
            throws MPIException;
    private static native void detachNative(long win, Buffer buf) throws MPIException;
    private static native long rmaNative(long win, int kind, boolean req, Buffer o, long olen,
            int ocount, long otype, int rank, int disp, int tcount, long ttype, long op)
            throws MPIException;
    private static native long getAccNative(long win, boolean req, Buffer o, long olen,
            int ocount, long otype, Buffer r, long rlen, int rcount, long rtype, int rank,
            int disp, int tcount, long ttype, long op) throws MPIException;
    private static native void fetchAndOpNative(long win, Buffer o, long olen, Buffer r,
            long rlen, long type, int rank, int disp, long op) throws MPIException;
    private static native void compareAndSwapNative(long win, Buffer o, long olen, Buffer c,
            long clen, Buffer r, long rlen, long type, int rank, int disp) throws MPIException;
    private static native void syncNative(long win, int what, long a, int b, int d)
            throws MPIException;
    private static native boolean testNative(long win) throws MPIException;
    private static native long groupNative(long win) throws MPIException;
    private static native void setNameNative(long win, String name) throws MPIException;
    private static native String getNameNative(long win) throws MPIException;
    private static native void setInfoNative(long win, long info) throws MPIException;
    private static native long getInfoNative(long win) throws MPIException;
    private static native void setErrhNative(long win, long e) throws MPIException;
    private static native long getErrhNative(long win) throws MPIException;
    private static native void callErrhNative(long win, int code) throws MPIException;
    private static native void freeNative(long win) throws MPIException;

    private static final int PUT = 0, GET = 1, ACC = 2;
    private static final int S_FENCE = 0, S_START = 1, S_COMPLETE = 2, S_POST = 3, S_WAIT = 4,
            S_LOCK = 5, S_UNLOCK = 6, S_LOCK_ALL = 7, S_UNLOCK_ALL = 8, S_SYNC = 9, S_FLUSH = 10,
            S_FLUSH_ALL = 11, S_FLUSH_LOCAL = 12, S_FLUSH_LOCAL_ALL = 13;

    /** Bytes of one element of buf (a java.nio buffer). */
    private static int unit(Buffer buf, String call) throws MPIException {
        int sh = Buf.shift(buf);
        if (sh < 0) throw new MPIException(MPI.ERR_BUFFER, MPI.ERR_BUFFER, call + ": not a buffer of a primitive type");
        return 1 << sh;
    }

    private static Buffer direct(Buffer b, String call) throws MPIException {
        if (b == null) throw new MPIException(MPI.ERR_BUFFER, MPI.ERR_BUFFER, call + ": the buffer is null");
        if (!b.isDirect())
            throw new MPIException(MPI.ERR_BUFFER, MPI.ERR_BUFFER, call + ": the buffer must be direct (MPI.newByteBuffer, "
                    + "MPI.newIntBuffer, ...): an RMA call returns before its data move, and the "
                    + "garbage collector may move a heap array meanwhile");
        return b;
    }

    /** MPI_Win_create over base: size and dispUnit in elements of base. */
    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        MPI.check();
        String call = "Win (MPI_Win_create)";
        direct(base, call);
        int u = unit(base, call);
        if (size < 0 || size > base.capacity())
            throw new MPIException(MPI.ERR_SIZE, MPI.ERR_SIZE, call + ": size " + size + " is not within the buffer's "
                    + base.capacity() + " elements");
        handle = createNative(base, (long) size * u, dispUnit * u, info.handle, comm.handle);
        given = base;
        this.base = baseNative(handle);
        if (this.base != null) this.base.order(ByteOrder.nativeOrder());
    }

    /**
     * MPI_Win_allocate (FLAVOR_PRIVATE) or MPI_Win_allocate_shared
     * (FLAVOR_SHARED) of size elements of base's type, displacement unit
     * dispUnit elements. base must be direct and names the element type
     * only; the window's memory is getBase() (and, shared, sharedQuery).
     */
    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor)
            throws MPIException {
        MPI.check();
        String call = flavor == FLAVOR_SHARED ? "Win (MPI_Win_allocate_shared)"
                                              : "Win (MPI_Win_allocate)";
        if (flavor != FLAVOR_PRIVATE && flavor != FLAVOR_SHARED)
            throw new MPIException(MPI.ERR_ARG, MPI.ERR_ARG, call + ": flavor " + flavor
                    + " is neither Win.FLAVOR_PRIVATE nor Win.FLAVOR_SHARED");
        direct(base, call);
        int u = unit(base, call);
        handle = allocateNative((long) size * u, dispUnit * u, info.handle, comm.handle,
                flavor == FLAVOR_SHARED);
        this.base = baseNative(handle);
        if (this.base != null) this.base.order(ByteOrder.nativeOrder());
    }

    /** MPI_Win_create_dynamic: memory comes and goes with attach and detach. */
    public Win(Info info, Comm comm) throws MPIException {
        MPI.check();
        handle = createDynamicNative(info.handle, comm.handle);
    }

    /**
     * This rank's memory of the window, in native byte order (capacity: its
     * size in bytes), or null when it has none (size 0, dynamic windows).
     * An allocated window's memory is MPI's: the buffer must not be used
     * after free().
     */
    public ByteBuffer getBase() {
        return base == null ? null : base.duplicate().order(ByteOrder.nativeOrder());
    }

    /**
     * A shared window (FLAVOR_SHARED): rank's segment, which this process
     * loads and stores directly, in native byte order; null when it has
     * none. Like getBase(), not to be used after free().
     */
    public ByteBuffer sharedQuery(int rank) throws MPIException {
        MPI.check();
        ByteBuffer b = sharedQueryNative(handle, rank, null);
        return b == null ? null : b.order(ByteOrder.nativeOrder());
    }

    /** A shared window's displacement unit at rank, in bytes. */
    public int sharedQueryDispUnit(int rank) throws MPIException {
        MPI.check();
        int[] du = new int[1];
        sharedQueryNative(handle, rank, du);
        return du[0];
    }

    public void attach(Buffer base, int size) throws MPIException {
        MPI.check();
        direct(base, "Win.attach");
        int u = unit(base, "Win.attach");
        if (size < 0 || size > base.capacity())
            throw new MPIException(MPI.ERR_SIZE, MPI.ERR_SIZE, "Win.attach: size " + size
                    + " is not within the buffer's " + base.capacity() + " elements");
        attachNative(handle, base, (long) size * u);
        attached.put(base, Boolean.TRUE);
    }

    public void detach(Buffer base) throws MPIException {
        MPI.check();
        direct(base, "Win.detach");
        detachNative(handle, base);
        attached.remove(base);
    }

    public Group getGroup() throws MPIException {
        MPI.check();
        return new Group(groupNative(handle));
    }

    // ---- communication ----

    private void hold(int rank, Object a, Object b) {
        ArrayList<Object> l = pending.computeIfAbsent(rank, k -> new ArrayList<>());
        if (a != null) l.add(a);
        if (b != null) l.add(b);
    }

    private static long op(Op op, String call) throws MPIException {
        if (op == null) throw new MPIException(MPI.ERR_OP, MPI.ERR_OP, call + ": the operation is null");
        if (op.isUser())
            throw new MPIException(MPI.ERR_OP, MPI.ERR_OP, call + ": one-sided accumulates take predefined "
                    + "operations only (MPI.SUM, ..., MPI.REPLACE, MPI.NO_OP), not a user one");
        return op.handle;
    }

    private long rma(int kind, boolean req, Buffer origin, int orgCount, Datatype orgType,
            int targetRank, int targetDisp, int targetCount, Datatype targetType, long op,
            String call) throws MPIException {
        MPI.check();
        direct(origin, call);
        long r = rmaNative(handle, kind, req, origin, Buf.len(origin), orgCount, orgType.handle,
                targetRank, targetDisp, targetCount, targetType.handle, op);
        if (!req) hold(targetRank, origin, null);
        return r;
    }

    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        rma(PUT, false, origin, orgCount, orgType, targetRank, targetDisp, targetCount,
                targetType, 0, "Win.put");
    }

    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        rma(GET, false, origin, orgCount, orgType, targetRank, targetDisp, targetCount,
                targetType, 0, "Win.get");
    }

    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        rma(ACC, false, origin, orgCount, orgType, targetRank, targetDisp, targetCount,
                targetType, op(op, "Win.accumulate"), "Win.accumulate");
    }

    public final Request rPut(Buffer origin, int orgCount, Datatype orgType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        return new Request(rma(PUT, true, origin, orgCount, orgType, targetRank, targetDisp,
                targetCount, targetType, 0, "Win.rPut"), origin, null);
    }

    public final Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        return new Request(rma(GET, true, origin, orgCount, orgType, targetRank, targetDisp,
                targetCount, targetType, 0, "Win.rGet"), origin, null);
    }

    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        return new Request(rma(ACC, true, origin, orgCount, orgType, targetRank, targetDisp,
                targetCount, targetType, op(op, "Win.rAccumulate"), "Win.rAccumulate"), origin,
                null);
    }

    private long getAcc(boolean req, Buffer origin, int orgCount, Datatype orgType,
            Buffer resultAddr, int resultCount, Datatype resultType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType, Op op, String call)
            throws MPIException {
        MPI.check();
        long h = op(op, call);
        // MPI.NO_OP reads no origin: none is needed then.
        if (origin != null || op != MPI.NO_OP) direct(origin, call);
        direct(resultAddr, call);
        long r = getAccNative(handle, req, origin, Buf.len(origin), origin == null ? 0 : orgCount,
                orgType.handle, resultAddr, Buf.len(resultAddr), resultCount, resultType.handle,
                targetRank, targetDisp, targetCount, targetType.handle, h);
        if (!req) hold(targetRank, origin, resultAddr);
        return r;
    }

    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr,
            int resultCount, Datatype resultType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType, Op op) throws MPIException {
        getAcc(false, origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank,
                targetDisp, targetCount, targetType, op, "Win.getAccumulate");
    }

    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType,
            Buffer resultAddr, int resultCount, Datatype resultType, int targetRank,
            int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        return new Request(getAcc(true, origin, orgCount, orgType, resultAddr, resultCount,
                resultType, targetRank, targetDisp, targetCount, targetType, op,
                "Win.rGetAccumulate"), origin, resultAddr);
    }

    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank,
            int targetDisp, Op op) throws MPIException {
        MPI.check();
        long h = op(op, "Win.fetchAndOp");
        direct(origin, "Win.fetchAndOp");
        direct(resultAddr, "Win.fetchAndOp");
        fetchAndOpNative(handle, origin, Buf.len(origin), resultAddr, Buf.len(resultAddr),
                dataType.handle, targetRank, targetDisp, h);
        hold(targetRank, origin, resultAddr);
    }

    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr,
            Datatype targetType, int targetRank, int targetDisp) throws MPIException {
        MPI.check();
        direct(origin, "Win.compareAndSwap");
        direct(compareAddr, "Win.compareAndSwap");
        direct(resultAddr, "Win.compareAndSwap");
        compareAndSwapNative(handle, origin, Buf.len(origin), compareAddr, Buf.len(compareAddr),
                resultAddr, Buf.len(resultAddr), targetType.handle, targetRank, targetDisp);
        hold(targetRank, origin, resultAddr);
        hold(targetRank, compareAddr, null);
    }

    // ---- synchronisation ----

    private void sync(int what, long a, int b, int d) throws MPIException {
        MPI.check();
        syncNative(handle, what, a, b, d);
    }

    public void fence(int assertion) throws MPIException {
        sync(S_FENCE, 0, assertion, 0);
        pending.clear();
    }

    public void start(Group group, int assertion) throws MPIException {
        sync(S_START, group.handle, assertion, 0);
    }

    public void complete() throws MPIException {
        sync(S_COMPLETE, 0, 0, 0);
        pending.clear();
    }

    public void post(Group group, int assertion) throws MPIException {
        sync(S_POST, group.handle, assertion, 0);
    }

    /** MPI_Win_wait (wait is Object's). */
    public void waitFor() throws MPIException {
        sync(S_WAIT, 0, 0, 0);
    }

    public boolean test() throws MPIException {
        MPI.check();
        return testNative(handle);
    }

    public void lock(int lockType, int rank, int assertion) throws MPIException {
        sync(S_LOCK, rank, lockType, assertion);
    }

    public void unlock(int rank) throws MPIException {
        sync(S_UNLOCK, rank, 0, 0);
        pending.remove(rank);
    }

    public void lockAll(int assertion) throws MPIException {
        sync(S_LOCK_ALL, 0, assertion, 0);
    }

    public void unlockAll() throws MPIException {
        sync(S_UNLOCK_ALL, 0, 0, 0);
        pending.clear();
    }

    public void sync() throws MPIException {
        sync(S_SYNC, 0, 0, 0);
    }

    public void flush(int targetRank) throws MPIException {
        sync(S_FLUSH, targetRank, 0, 0);
        pending.remove(targetRank);
    }

    public void flushAll() throws MPIException {
        sync(S_FLUSH_ALL, 0, 0, 0);
        pending.clear();
    }

    public void flushLocal(int targetRank) throws MPIException {
        sync(S_FLUSH_LOCAL, targetRank, 0, 0);
        pending.remove(targetRank);
    }

    public void flushLocalAll() throws MPIException {
        sync(S_FLUSH_LOCAL_ALL, 0, 0, 0);
        pending.clear();
    }

    // ---- names, info, errors ----

    public String getName() throws MPIException {
        MPI.check();
        return getNameNative(handle);
    }

    public void setName(String name) throws MPIException {
        MPI.check();
        setNameNative(handle, name);
    }

    public Info getInfo() throws MPIException {
        MPI.check();
        return new Info(getInfoNative(handle));
    }

    public void setInfo(Info info) throws MPIException {
        MPI.check();
        setInfoNative(handle, info.handle);
    }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        setErrhNative(handle, errhandler.handle);
    }

    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return new Errhandler(getErrhNative(handle));
    }

    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        callErrhNative(handle, errorCode);
    }

    public boolean isNull() {
        return handle == 0;
    }

    /** MPI_Win_free (collective); the buffers of getBase and sharedQuery die with it. */
    @Override
    public void free() throws MPIException {
        MPI.check();
        if (handle == 0) return;
        freeNative(handle);
        handle = 0;
        base = null;
        given = null;
        attached.clear();
        pending.clear();
    }
}
