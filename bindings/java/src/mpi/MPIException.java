// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** An MPI call failed: the MPI error class, the code and ump's message. */
public final class MPIException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int errorCode, errorClass;

    MPIException(int code, int clazz, String message) {
        super(message);
        errorCode = code;
        errorClass = clazz;
    }

    public MPIException(String message) {
        super(message);
        errorCode = errorClass = MPI.ERR_UNKNOWN;
    }

    public MPIException(Throwable cause) {
        super(cause);
        errorCode = errorClass = MPI.ERR_UNKNOWN;
    }

    public int getErrorCode() {
        return errorCode;
    }

    public int getErrorClass() {
        return errorClass;
    }
}
