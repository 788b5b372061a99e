// SPDX-License-Identifier: BSD-3-Clause
package mpi;

/** This rank's neighbours in a distributed graph topology, with their weights if it has any. */
public final class DistGraphNeighbors {
    private final int[] sources, sourceWeights, destinations, destWeights;
    private final boolean weighted;

    DistGraphNeighbors(int[] sources, int[] sourceWeights, int[] destinations,
            int[] destWeights, boolean weighted) {
        this.sources = sources;
        this.sourceWeights = sourceWeights;
        this.destinations = destinations;
        this.destWeights = destWeights;
        this.weighted = weighted;
    }

    public int getInDegree() {
        return sources.length;
    }

    public int getOutDegree() {
        return destinations.length;
    }

    public boolean isWeighted() {
        return weighted;
    }

    public int getSource(int i) {
        return sources[i];
    }

    /** The weight of edge i in; 0 on an unweighted graph. */
    public int getSourceWeight(int i) {
        return weighted ? sourceWeights[i] : 0;
    }

    public int getDestination(int i) {
        return destinations[i];
    }

    public int getDestinationWeight(int i) {
        return weighted ? destWeights[i] : 0;
    }
}
