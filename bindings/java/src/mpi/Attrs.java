// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

/**
 * User attributes of communicators, kept as Open MPI's binding keeps them:
 * serialized, so getAttr returns a copy and a duplicated communicator gets
 * its own copy (native/attr.c keeps the bytes).
 */
final class Attrs {
    private Attrs() {}

    static native int createKeyvalNative() throws MPIException;
    static native void freeKeyvalNative(int keyval) throws MPIException;
    private static native void setNative(long comm, int keyval, byte[] value)
            throws MPIException;
    private static native byte[] getNative(long comm, int keyval) throws MPIException;
    static native void deleteNative(long comm, int keyval) throws MPIException;

    static void set(long comm, int keyval, Object value) throws MPIException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new MPIException(e);
        }
        setNative(comm, keyval, b.toByteArray());
    }

    static Object get(long comm, int keyval) throws MPIException {
        byte[] b = getNative(comm, keyval);
        if (b == null) return null;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new MPIException(e);
        }
    }
}
