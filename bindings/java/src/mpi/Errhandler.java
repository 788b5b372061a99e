// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** An error handler: MPI.ERRORS_RETURN (errors become MPIException) or MPI.ERRORS_ARE_FATAL. */
public final class Errhandler {
    final long handle;

    Errhandler(long handle) {
        this.handle = handle;
    }

    public boolean isNull() {
        return handle == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Errhandler && ((Errhandler) o).handle == handle;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(handle);
    }
}
