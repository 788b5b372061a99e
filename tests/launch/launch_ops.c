/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launch_ops: one kind of communication in a loop, for the fault campaign
 * (scripts/fault-campaign.sh), which kills a random rank with SIGKILL while
 * it runs.
 *
 * Usage: launch_ops eager|rndv|coll|mixed SECONDS [TOKEN]
 *   eager   ranks in pairs (0,1), (2,3)... ping-pong 64-byte messages
 *   rndv    the same with 4 MiB messages (far above any eager limit)
 *   coll    every rank: Allreduce, Bcast, Alltoall, Barrier in a loop
 *   mixed   ping-pong alternating 64 B and 256 KiB (for udp under loss)
 * Every message is checked byte for byte (a wrong byte exits 3). Rank 0
 * prints "launch_ops: looping" once every rank finished one round, so the
 * campaign knows the job is inside the loop; after SECONDS the ranks
 * finalize and exit 0. TOKEN is ignored: it marks the job's processes on
 * their command lines.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t pat(uint32_t round, int src, size_t i)
{
    return (uint8_t)(round * 131u + (uint32_t)src * 17u + i * 7u);
}

static void fill(uint8_t *b, size_t n, uint32_t round, int src)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(round, src, i);
}

static void check(const uint8_t *b, size_t n, uint32_t round, int src, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] != pat(round, src, i)) {
            fprintf(stderr,
                    "launch_ops: rank %d: %s round %u byte %zu from rank %d is %u, want %u\n", rank,
                    what, round, i, src, b[i], pat(round, src, i));
            exit(3);
        }
    }
}

#define CALL(x)                                                                                    \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "launch_ops: rank %d: %s failed (%d)\n", rank, #x, rc_);               \
            exit(4);                                                                               \
        }                                                                                          \
    } while (0)

/* One ping-pong of n bytes with the partner; an unpaired rank just waits. */
static void pingpong(uint8_t *sb, uint8_t *rb, size_t n, uint32_t round)
{
    int peer = rank ^ 1;
    if (peer >= size) return;
    fill(sb, n, round, rank);
    if (rank & 1) {
        CALL(MPI_Recv(rb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Send(sb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
    } else {
        CALL(MPI_Send(sb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
        CALL(MPI_Recv(rb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    check(rb, n, round, peer, "ping-pong");
}

static void collectives(uint32_t round)
{
    long mine = (long)rank + round, sum = 0;
    CALL(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    long want = (long)size * (size - 1) / 2 + (long)size * round;
    if (sum != want) {
        fprintf(stderr, "launch_ops: rank %d: allreduce round %u gave %ld, want %ld\n", rank, round,
                sum, want);
        exit(3);
    }
    uint8_t b[1024];
    if (rank == (int)(round % (uint32_t)size)) fill(b, sizeof(b), round, rank);
    CALL(MPI_Bcast(b, sizeof(b), MPI_BYTE, (int)(round % (uint32_t)size), MPI_COMM_WORLD));
    check(b, sizeof(b), round, (int)(round % (uint32_t)size), "bcast");
    int *out = malloc(sizeof(int) * (size_t)size), *in = malloc(sizeof(int) * (size_t)size);
    if (!out || !in) exit(4);
    for (int i = 0; i < size; i++)
        out[i] = rank * 1000 + i + (int)round;
    CALL(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++) {
        if (in[i] != i * 1000 + rank + (int)round) {
            fprintf(stderr, "launch_ops: rank %d: alltoall round %u from %d wrong\n", rank, round,
                    i);
            exit(3);
        }
    }
    free(out);
    free(in);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: launch_ops eager|rndv|coll|mixed SECONDS [TOKEN]\n");
        return 2;
    }
    const char *kind = argv[1];
    double secs = atof(argv[2]);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 4;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t big = 4u << 20;
    uint8_t *sb = malloc(big), *rb = malloc(big);
    if (!sb || !rb) return 4;
    double end = now() + secs;
    int go = 1;
    for (uint32_t round = 0; go; round++) {
        if (!strcmp(kind, "eager")) {
            pingpong(sb, rb, 64, round);
        } else if (!strcmp(kind, "rndv")) {
            pingpong(sb, rb, big, round);
        } else if (!strcmp(kind, "coll")) {
            collectives(round);
        } else if (!strcmp(kind, "mixed")) {
            pingpong(sb, rb, round & 1 ? 256u << 10 : 64, round);
        } else {
            fprintf(stderr, "launch_ops: unknown kind '%s'\n", kind);
            return 2;
        }
        if (round == 0) {
            CALL(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 0) {
                printf("launch_ops: looping\n");
                fflush(stdout);
            }
        }
        /* Rank 0 decides when to stop, so every rank leaves the loop in the
         * same round: every 16 rounds, cheaply. */
        if (round % 16 == 15) {
            go = rank == 0 ? now() < end : 0;
            CALL(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
