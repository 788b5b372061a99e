/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_rt MODE [NODES [TOKEN]]: the runtime calls ump_init makes, under a PMIx
 * launcher (srun --mpi=pmix, mpirun). Each rank prints one line
 *   "rt rank R size S node N/NN local L/LS host H job J addr A backend B"
 * for the test script to check the placement, and checks by itself:
 *   - the backend is pmix; the job id is 16 hex digits;
 *   - values put by every rank (sizes 0..1000 bytes, seeded patterns) read
 *     back byte for byte on every rank, over two fence epochs;
 *   - every rank holds the same job id and secret (each publishes its own
 *     copy and compares it with every other rank's);
 *   - node_of agrees with local_rank/local_size and, with NODES given, the
 *     job spans that many nodes; ump_rt_local_addr is 127.0.0.1 exactly
 *     when the job is on one node;
 *   - an absent key is UMP_ERR_INVALID (no hang), a small buffer
 *     UMP_ERR_NO_RESOURCE.
 * MODE: info      only the line, then fini; exit 0
 *       ok        the above, then fini; exit 0
 *       exit3     rank 1 exits 3 after init while the others fence
 *       exit0     rank 1 exits 0 after init without fini while the others fence
 *       abort     rank 1 calls ump_rt_abort(rt, 5, ...) while the others fence
 *       kill9     rank 1 kills itself with SIGKILL while the others fence
 * With PMIX_RT_SLEEP set, the others sleep instead of waiting in a fence.
 * A waiting rank whose fence fails exits 4 (9 if it succeeded).
 * TOKEN is unused: it makes the processes findable with pgrep -f.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt.h"
#include "util/util.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "pmix_rt rank %d: CHECK FAILED %s:%d: ", me, __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int me = -1;

static void pattern(int rank, int epoch, unsigned char *buf, size_t n)
{
    uint32_t x = 2654435761u * (uint32_t)(rank + 1) ^ (uint32_t)epoch * 40503u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
}

static size_t len_of(int rank, int epoch)
{
    return (size_t)((rank * 131 + epoch * 17) % 1001); /* 0..1000, zero too */
}

static void exchange(ump_rt_t *rt, int epoch)
{
    const ump_rt_info_t *in = ump_rt_info(rt);
    unsigned char mine[1024], got[1024], want[1024];
    char key[32];
    snprintf(key, sizeof(key), "t.val%d", epoch);
    size_t n = len_of(in->rank, epoch);
    pattern(in->rank, epoch, mine, n);
    CHECK(ump_rt_put(rt, key, mine, n) == UMP_OK, "put");
    CHECK(ump_rt_fence(rt) == UMP_OK, "fence %d", epoch);
    for (int r = 0; r < in->size; r++) {
        size_t len = sizeof(got), wn = len_of(r, epoch);
        int rc = ump_rt_get(rt, r, key, got, &len);
        pattern(r, epoch, want, wn);
        CHECK(rc == UMP_OK && len == wn && !memcmp(got, want, wn),
              "epoch %d: rank %d's value: rc %d len %zu (want %zu)", epoch, r, rc, len, wn);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int want_nodes = argc > 2 ? atoi(argv[2]) : 0;
    ump_rt_t *rt;
    int rc = ump_rt_init(&rt);
    if (rc) {
        fprintf(stderr, "pmix_rt: ump_rt_init: %s\n", ump_strerror(rc));
        return 2;
    }
    const ump_rt_info_t *in = ump_rt_info(rt);
    me = in->rank;
    char addr[64] = "";
    CHECK(ump_rt_local_addr(rt, addr, sizeof(addr)) == UMP_OK, "local_addr");
    printf("rt rank %d size %d node %d/%d local %d/%d host %s job %s addr %s backend %s\n",
           in->rank, in->size, in->node_id, in->num_nodes, in->local_rank, in->local_size,
           in->hostname, in->job_id, addr, in->backend);
    fflush(stdout);

    if (!strcmp(mode, "info")) {
        ump_rt_fini(rt);
        return 0;
    }
    if (strcmp(mode, "ok") != 0) {
        if (in->rank == 1) {
            usleep(300 * 1000); /* let the others reach the fence */
            if (!strcmp(mode, "exit3")) exit(3);
            if (!strcmp(mode, "exit0")) exit(0);
            if (!strcmp(mode, "abort")) ump_rt_abort(rt, 5, "pmix_rt test abort");
            if (!strcmp(mode, "kill9")) raise(SIGKILL);
        }
        if (getenv("PMIX_RT_SLEEP")) sleep(30); /* wait outside a fence */
        /* Cannot complete: rank 1 is gone. Either the launcher ends us
         * here, or the fence fails and we leave as a program would. */
        rc = ump_rt_fence(rt);
        fprintf(stderr, "pmix_rt rank %d: fence returned %d in mode %s\n", me, rc, mode);
        return rc ? 4 : 9;
    }

    CHECK(!strcmp(in->backend, "pmix"), "backend %s", in->backend);
    CHECK(strlen(in->job_id) == 16 && strspn(in->job_id, "0123456789abcdef") == 16, "job id '%s'",
          in->job_id);
    CHECK(in->size >= 1 && in->rank >= 0 && in->rank < in->size, "rank %d size %d", in->rank,
          in->size);
    if (want_nodes)
        CHECK(in->num_nodes == want_nodes, "%d nodes, want %d", in->num_nodes, want_nodes);
    CHECK(!strcmp(addr, "127.0.0.1") == (in->num_nodes == 1), "address %s with %d nodes", addr,
          in->num_nodes);

    /* node_of against the local facts */
    int local = 0, below = 0;
    for (int r = 0; r < in->size; r++) {
        int nd = ump_rt_node_of(rt, r);
        CHECK(nd >= 0 && nd < in->num_nodes, "node_of(%d) = %d", r, nd);
        if (nd == in->node_id) {
            local++;
            below += r < in->rank;
        }
    }
    CHECK(ump_rt_node_of(rt, in->rank) == in->node_id, "own node");
    CHECK(local == in->local_size && below == in->local_rank, "local %d/%d vs node_of %d/%d",
          in->local_rank, in->local_size, below, local);

    /* same job id and secret everywhere */
    unsigned char ident[16 + UMP_RT_SECRET_LEN], other[sizeof(ident)];
    memcpy(ident, in->job_id, 16);
    memcpy(ident + 16, in->secret, UMP_RT_SECRET_LEN);
    CHECK(ump_rt_put(rt, "t.ident", ident, sizeof(ident)) == UMP_OK, "put ident");
    exchange(rt, 1); /* its fence carries t.ident too */
    for (int r = 0; r < in->size; r++) {
        size_t len = sizeof(other);
        rc = ump_rt_get(rt, r, "t.ident", other, &len);
        CHECK(rc == UMP_OK && len == sizeof(ident) && !memcmp(other, ident, len),
              "rank %d has another job id or secret (rc %d)", r, rc);
    }
    exchange(rt, 2);

    size_t len = 4;
    unsigned char small[4];
    int peer = (in->rank + 1) % in->size;
    CHECK(ump_rt_get(rt, peer, "t.absent", small, &len) == UMP_ERR_INVALID, "absent key");
    len = 4;
    rc = ump_rt_get(rt, peer, "t.val1", small, &len);
    CHECK(len_of(peer, 1) <= 4 ? rc == UMP_OK
                               : (rc == UMP_ERR_NO_RESOURCE && len == len_of(peer, 1)),
          "small buffer: rc %d len %zu", rc, len);

    ump_rt_fini(rt);
    if (failures) fprintf(stderr, "pmix_rt rank %d: %d failures\n", me, failures);
    return failures ? 1 : 0;
}
