// SPDX-License-Identifier: BSD-3-Clause
import mpi.*;

/**
 * Run as a source file (`umprun -n 2 java Smoke.java`) with no class path
 * set: umprun gives java ranks ump.jar, the jar finds libump_java.so.
 */
public class Smoke {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank(), np = MPI.COMM_WORLD.getSize();
        int[] x = {me + 1};
        MPI.COMM_WORLD.allReduce(x, 1, MPI.INT, MPI.SUM);
        if (x[0] != np * (np + 1) / 2) {
            System.err.println("Smoke: allReduce gave " + x[0]);
            System.exit(1);
        }
        if (me == 0) System.out.println("Smoke OK on " + np + " ranks");
        MPI.Finalize();
    }
}
