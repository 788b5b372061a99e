// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** The result of CartComm.shift: the ranks to receive from and to send to. */
public final class ShiftParms {
    private final int source, dest;

    ShiftParms(int rankSource, int rankDest) {
        source = rankSource;
        dest = rankDest;
    }

    public int getRankSource() {
        return source;
    }

    public int getRankDest() {
        return dest;
    }
}
