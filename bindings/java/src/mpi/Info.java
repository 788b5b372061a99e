// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** An info object: string keys and values. */
public final class Info implements Freeable, Cloneable {
    long handle;

    public Info() throws MPIException {
        MPI.check();
        handle = createNative();
    }

    Info(long handle) {
        this.handle = handle;
    }

    private static native long createNative() throws MPIException;
    private static native void setNative(long h, String key, String value) throws MPIException;
    private static native String getNative(long h, String key) throws MPIException;
    private static native void deleteNative(long h, String key) throws MPIException;
    private static native int sizeNative(long h) throws MPIException;
    private static native String keyNative(long h, int i) throws MPIException;
    private static native long dupNative(long h) throws MPIException;
    private static native void freeNative(long h) throws MPIException;

    public void set(String key, String value) throws MPIException {
        MPI.check();
        setNative(handle, key, value);
    }

    /** The value, or null when the key is not set. */
    public String get(String key) throws MPIException {
        MPI.check();
        return getNative(handle, key);
    }

    public void delete(String key) throws MPIException {
        MPI.check();
        deleteNative(handle, key);
    }

    public int size() throws MPIException {
        MPI.check();
        return sizeNative(handle);
    }

    public String getKey(int i) throws MPIException {
        MPI.check();
        return keyNative(handle, i);
    }

    public Info dup() throws MPIException {
        MPI.check();
        return new Info(dupNative(handle));
    }

    @Override
    public Info clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void free() throws MPIException {
        MPI.check();
        freeNative(handle);
        handle = 0;
    }

    public boolean isNull() {
        return handle == 0;
    }
}
