// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** A graph topology as GraphComm.getDims sees it: MPI's index and edges arrays. */
public final class GraphParms {
    private final int[] index, edges;

    GraphParms(int[] index, int[] edges) {
        this.index = index;
        this.edges = edges;
    }

    public int getIndexCount() {
        return index.length;
    }

    public int getIndex(int i) {
        return index[i];
    }

    public int getEdgeCount() {
        return edges.length;
    }

    public int getEdge(int i) {
        return edges[i];
    }
}
