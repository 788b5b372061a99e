// SPDX-License-Identifier: BSD-3-Clause
package mpi;

import java.nio.ByteBuffer;

/**
 * A user-defined reduction: inOutVec[i] = inVec[i] op inOutVec[i] for count
 * elements of datatype. Override the array form (called when the reduction
 * was given heap arrays) or the buffer form (direct buffers), or both.
 */
public abstract class UserFunction {
    /** inVec and inOutVec are primitive arrays of the datatype's base type. */
    public void call(Object inVec, Object inOutVec, int count, Datatype datatype)
            throws MPIException {
        throw new MPIException(getClass().getName()
                + " does not implement call(Object, Object, int, Datatype): it was given arrays");
    }

    /** in and inOut are direct buffers in native order, count elements of datatype long. */
    public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype)
            throws MPIException {
        throw new MPIException(getClass().getName()
                + " does not implement call(ByteBuffer, ByteBuffer, int, Datatype): it was given"
                + " direct buffers");
    }
}
