// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** An MPI object the program frees explicitly. */
public interface Freeable {
    void free() throws MPIException;
}
