// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.io.File;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * The MPI environment: initialization, the predefined communicators,
 * datatypes, operations and constants, and the allocators of direct
 * buffers (the buffers ump moves without copying).
 */
public final class MPI {
    private MPI() {}

    private static volatile boolean initialized, finalized;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    static {
        loadNative();
        String t = System.getProperty("ump.java.pinThreshold");
        if (t != null) setPinThresholdNative(Long.parseLong(t.trim()));
        pinThreshold = getPinThresholdNative();
    }

    /** Loads libump_java: java.library.path, then beside ump.jar, then the build tree. */
    private static void loadNative() {
        try {
            System.loadLibrary("ump_java");
            return;
        } catch (UnsatisfiedLinkError e) {
            // fall through: not on java.library.path
        }
        String name = System.mapLibraryName("ump_java");
        try {
            File jar = new File(MPI.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            File beside = new File(jar.getParentFile(), name);
            if (beside.isFile()) {
                System.load(beside.getAbsolutePath());
                return;
            }
        } catch (Exception | LinkageError e) {
            // fall through to the build tree
        }
        System.load(Build.NATIVE_LIBRARY);
    }

    // Kinds and indices of predefined handles (native predefined()).
    static final int K_TYPE = 0, K_OP = 1, K_COMM = 2, K_ERRH = 3, K_GROUP = 4, K_INFO = 5,
            K_MSG = 6;

    static native long predefined(int kind, int which);

    public static final int THREAD_SINGLE = 0, THREAD_FUNNELED = 1, THREAD_SERIALIZED = 2,
            THREAD_MULTIPLE = 3;
    public static final int ANY_SOURCE = -1, ANY_TAG = -1, PROC_NULL = -2, ROOT = -3;
    public static final int UNDEFINED = -32766, KEYVAL_INVALID = -1;
    public static final int IDENT = 0, CONGRUENT = 1, SIMILAR = 2, UNEQUAL = 3;
    public static final int TAG_UB = 1, HOST = 2, IO = 3, WTIME_IS_GLOBAL = 4;
    public static final int VERSION = 3, SUBVERSION = 1;
    public static final int BSEND_OVERHEAD = 64;
    public static final int MAX_OBJECT_NAME = 128, MAX_PROCESSOR_NAME = 256;
    public static final int MAX_INFO_KEY = 255, MAX_INFO_VAL = 1024;
    public static final int MAX_ERROR_STRING = 512;
    public static final int ORDER_C = 56, ORDER_FORTRAN = 57;
    public static final int COMM_TYPE_SHARED = 1;
    public static final int GRAPH = 1, CART = 2, DIST_GRAPH = 3;

    public static final int SUCCESS = 0, ERR_BUFFER = 1, ERR_COUNT = 2, ERR_TYPE = 3,
            ERR_TAG = 4, ERR_COMM = 5, ERR_RANK = 6, ERR_REQUEST = 7, ERR_ROOT = 8,
            ERR_GROUP = 9, ERR_OP = 10, ERR_TOPOLOGY = 11, ERR_DIMS = 12, ERR_ARG = 13,
            ERR_UNKNOWN = 14, ERR_TRUNCATE = 15, ERR_OTHER = 16, ERR_INTERN = 17,
            ERR_IN_STATUS = 18, ERR_PENDING = 19, ERR_ACCESS = 20, ERR_INFO_KEY = 31,
            ERR_INFO_NOKEY = 32, ERR_INFO_VALUE = 33, ERR_INFO = 34, ERR_KEYVAL = 36,
            ERR_NAME = 38, ERR_NO_MEM = 39, ERR_NOT_SAME = 40, ERR_UNSUPPORTED_OPERATION = 52,
            ERR_LASTCODE = 79;
    // One-sided: error classes, lock types and assertions (Win).
    public static final int ERR_ASSERT = 22, ERR_BASE = 24, ERR_DISP = 26, ERR_LOCKTYPE = 37,
            ERR_RMA_CONFLICT = 46, ERR_RMA_SYNC = 47, ERR_SIZE = 49, ERR_WIN = 53,
            ERR_RMA_RANGE = 54, ERR_RMA_ATTACH = 55, ERR_RMA_SHARED = 56, ERR_RMA_FLAVOR = 57;
    public static final int LOCK_EXCLUSIVE = 234, LOCK_SHARED = 235;
    public static final int MODE_NOCHECK = 1024, MODE_NOSTORE = 2048, MODE_NOPUT = 4096,
            MODE_NOPRECEDE = 8192, MODE_NOSUCCEED = 16384;

    public static final Intracomm COMM_WORLD = new Intracomm(predefined(K_COMM, 1));
    public static final Intracomm COMM_SELF = new Intracomm(predefined(K_COMM, 2));

    public static final Datatype DATATYPE_NULL = Datatype.basic(Datatype.NULL);
    public static final Datatype BYTE = Datatype.basic(Datatype.BYTE);
    public static final Datatype CHAR = Datatype.basic(Datatype.CHAR);
    public static final Datatype SHORT = Datatype.basic(Datatype.SHORT);
    public static final Datatype BOOLEAN = Datatype.basic(Datatype.BOOLEAN);
    public static final Datatype INT = Datatype.basic(Datatype.INT);
    public static final Datatype LONG = Datatype.basic(Datatype.LONG);
    public static final Datatype FLOAT = Datatype.basic(Datatype.FLOAT);
    public static final Datatype DOUBLE = Datatype.basic(Datatype.DOUBLE);
    public static final Datatype PACKED = Datatype.basic(Datatype.PACKED);
    public static final Datatype INT2 = Datatype.basic(Datatype.INT2);
    public static final Datatype SHORT_INT = Datatype.basic(Datatype.SHORT_INT);
    public static final Datatype LONG_INT = Datatype.basic(Datatype.LONG_INT);
    public static final Datatype FLOAT_INT = Datatype.basic(Datatype.FLOAT_INT);
    public static final Datatype DOUBLE_INT = Datatype.basic(Datatype.DOUBLE_INT);
    public static final Datatype FLOAT_COMPLEX = Datatype.basic(Datatype.FLOAT_COMPLEX);
    public static final Datatype DOUBLE_COMPLEX = Datatype.basic(Datatype.DOUBLE_COMPLEX);

    /** Layouts of the pair types, for reading and writing them in a buffer. */
    public static final Int2 int2 = new Int2();
    public static final ShortInt shortInt = new ShortInt();
    public static final LongInt longInt = new LongInt();
    public static final FloatInt floatInt = new FloatInt();
    public static final DoubleInt doubleInt = new DoubleInt();

    public static final Op MAX = new Op(1), MIN = new Op(2), SUM = new Op(3), PROD = new Op(4),
            LAND = new Op(5), BAND = new Op(6), LOR = new Op(7), BOR = new Op(8),
            LXOR = new Op(9), BXOR = new Op(10), MINLOC = new Op(11), MAXLOC = new Op(12),
            REPLACE = new Op(13), NO_OP = new Op(14);

    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler(predefined(K_ERRH, 1));
    public static final Errhandler ERRORS_RETURN = new Errhandler(predefined(K_ERRH, 2));
    /** ump has no MPI_ERRORS_ABORT: this is ERRORS_ARE_FATAL. */
    public static final Errhandler ERRORS_ABORT = ERRORS_ARE_FATAL;

    public static final Request REQUEST_NULL = new Request(0);
    public static final Group GROUP_EMPTY = new Group(predefined(K_GROUP, 1));
    public static final Info INFO_NULL = new Info(0);
    public static final Info INFO_ENV = new Info(predefined(K_INFO, 1));

    private static native int initNative(int required) throws MPIException;
    private static native void finalizeNative() throws MPIException;
    private static native boolean initialized();
    private static native boolean finalized();
    private static native int queryThreadNative() throws MPIException;
    private static native boolean isThreadMainNative() throws MPIException;
    private static native double wtimeNative();
    private static native double wtickNative();
    private static native String processorName() throws MPIException;
    private static native String libVersion();
    private static native void setPinThresholdNative(long bytes);
    private static native long getPinThresholdNative();
    private static native void attachNative(ByteBuffer buf, int size) throws MPIException;
    private static native void detachNative() throws MPIException;
    static native int errorClass(int code);
    static native String errorString(int code);

    /** Initializes MPI (thread level SINGLE); returns the arguments unchanged. */
    public static String[] Init(String[] args) throws MPIException {
        InitThread(args, THREAD_SINGLE);
        return args;
    }

    /** Initializes MPI with a thread level; returns the level provided. */
    public static int InitThread(String[] args, int required) throws MPIException {
        if (initialized) throw new MPIException("MPI.Init: MPI is already initialized");
        int provided = initNative(required);
        initialized = true;
        pinAllowed = provided < THREAD_MULTIPLE;
        for (Datatype t : new Datatype[] {BYTE, CHAR, SHORT, BOOLEAN, INT, LONG, FLOAT, DOUBLE,
                PACKED, INT2, SHORT_INT, LONG_INT, FLOAT_INT, DOUBLE_INT, FLOAT_COMPLEX,
                DOUBLE_COMPLEX})
            t.learnSpan();
        return provided;
    }

    /** The name under which some programs call InitThread. */
    public static int Init_thread(String[] args, int required) throws MPIException {
        return InitThread(args, required);
    }

    public static void Finalize() throws MPIException {
        check();
        finalizeNative();
        finalized = true;
    }

    public static boolean isInitialized() throws MPIException {
        return initialized();
    }

    public static boolean isFinalized() throws MPIException {
        return finalized();
    }

    public static int queryThread() throws MPIException {
        check();
        return queryThreadNative();
    }

    public static boolean isThreadMain() throws MPIException {
        check();
        return isThreadMainNative();
    }

    public static double wtime() throws MPIException {
        return wtimeNative();
    }

    public static double wtick() throws MPIException {
        return wtickNative();
    }

    public static String getProcessorName() throws MPIException {
        return processorName();
    }

    public static String getLibVersion() {
        return libVersion();
    }

    /**
     * The copy/pin crossover of heap arrays in blocking calls (ump's
     * addition): an array span of at least this many bytes is pinned with
     * GetPrimitiveArrayCritical for the call, a smaller one is copied
     * through a per-thread pool of native buffers. 0 pins every array,
     * Long.MAX_VALUE copies every one. The default is the crossover
     * measured by bench/java/Crossover (docs/java.md); the property
     * -Dump.java.pinThreshold=BYTES sets it at start-up. Direct buffers are
     * never copied, whatever this says.
     */
    public static void setPinThreshold(long bytes) {
        setPinThresholdNative(bytes);
        pinThreshold = getPinThresholdNative();
    }

    /** Java's copy of the threshold (the copy path in Java reads it per call). */
    static volatile long pinThreshold;
    /** False at THREAD_MULTIPLE: arrays are copied whatever their size (buf.c). */
    static volatile boolean pinAllowed = true;

    /** The current copy/pin crossover in bytes (see setPinThreshold). */
    public static long getPinThreshold() {
        return getPinThresholdNative();
    }

    /** MPI_Buffer_attach: the buffer for bSend, a direct ByteBuffer. */
    public static void attachBuffer(ByteBuffer buffer) throws MPIException {
        check();
        if (!buffer.isDirect())
            throw new MPIException("MPI.attachBuffer: the buffer must be direct (MPI.newByteBuffer)");
        attachedBuffer = buffer;
        attachNative(buffer, buffer.capacity());
    }

    /** MPI_Buffer_detach: waits for buffered sends and returns the buffer. */
    public static ByteBuffer detachBuffer() throws MPIException {
        check();
        detachNative();
        ByteBuffer b = attachedBuffer;
        attachedBuffer = null;
        return b;
    }

    private static ByteBuffer attachedBuffer; // reachable while MPI may write into it

    public static void pControl(int level, Object obj) {}

    /** Throws unless MPI is initialized and not finalized. */
    static void check() throws MPIException {
        if (!initialized) throw new MPIException("MPI is not initialized (call MPI.Init first)");
        if (finalized) throw new MPIException("MPI is finalized");
    }

    // Direct buffers in the native byte order: what ump moves without a copy.

    public static ByteBuffer newByteBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(NATIVE);
    }

    public static CharBuffer newCharBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asCharBuffer();
    }

    public static ShortBuffer newShortBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asShortBuffer();
    }

    public static IntBuffer newIntBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asIntBuffer();
    }

    public static LongBuffer newLongBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asLongBuffer();
    }

    public static FloatBuffer newFloatBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asFloatBuffer();
    }

    public static DoubleBuffer newDoubleBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asDoubleBuffer();
    }

    // slice: a buffer that starts offset elements into buf and shares its
    // content. MPI calls take a buffer from its first element (never from
    // its position), so this is how a call addresses the middle of one;
    // buf's position and limit matter to neither (nor are they changed).

    public static ByteBuffer slice(ByteBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset).order(NATIVE);
    }

    public static CharBuffer slice(CharBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    public static ShortBuffer slice(ShortBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    public static IntBuffer slice(IntBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    public static LongBuffer slice(LongBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    public static FloatBuffer slice(FloatBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    public static DoubleBuffer slice(DoubleBuffer buf, int offset) {
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    public static ByteBuffer slice(byte[] buf, int offset) {
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static CharBuffer slice(char[] buf, int offset) {
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static ShortBuffer slice(short[] buf, int offset) {
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static IntBuffer slice(int[] buf, int offset) {
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static LongBuffer slice(long[] buf, int offset) {
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static FloatBuffer slice(float[] buf, int offset) {
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static DoubleBuffer slice(double[] buf, int offset) {
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    static boolean isDirectBuffer(Object o) {
        return o instanceof Buffer && ((Buffer) o).isDirect();
    }

    // Ports and names, here too (Open MPI's binding has them in Intracomm).

    public static String openPort() throws MPIException {
        return Intracomm.openPort();
    }

    public static String openPort(Info info) throws MPIException {
        return Intracomm.openPort(info);
    }

    public static void closePort(String name) throws MPIException {
        Intracomm.closePort(name);
    }

    public static void publishName(String service, String port) throws MPIException {
        Intracomm.publishName(service, port);
    }

    public static void publishName(String service, Info info, String port)
            throws MPIException {
        Intracomm.publishName(service, info, port);
    }

    public static void unpublishName(String service, String port) throws MPIException {
        Intracomm.unpublishName(service, port);
    }

    public static void unpublishName(String service, Info info, String port)
            throws MPIException {
        Intracomm.unpublishName(service, info, port);
    }

    public static String lookupName(String service) throws MPIException {
        return Intracomm.lookupName(service);
    }

    public static String lookupName(String service, Info info) throws MPIException {
        return Intracomm.lookupName(service, info);
    }
}
