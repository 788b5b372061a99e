/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_p2p: every pair of ranks exchanges messages of several sizes (empty,
 * eager, rendezvous) in both directions through the core API, and every
 * byte is checked against a pattern seeded by (source, destination, size).
 * Run under a PMIx launcher with UMP_LOG=trace, the core's "rank P over X"
 * lines tell the test script which transport each pair took. Prints
 * "p2p rank R ok" and exits 0 when everything arrived intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ump.h"

static const size_t sizes[] = {0, 1, 100, 4000, 70000, 1 << 20};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void fill(unsigned char *b, size_t n, int src, int dst, size_t size)
{
    uint32_t x = (uint32_t)(src * 7919 + dst * 104729) ^ (uint32_t)size;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        b[i] = (unsigned char)(x >> 24);
    }
}

#define CALL(x)                                                                                    \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ != UMP_OK) {                                                                       \
            fprintf(stderr, "p2p rank %d: %s: %s\n", ump_rank(), #x, ump_strerror(rc_));           \
            ump_abort(1, "pmix_p2p call failed");                                                  \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    CALL(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL));
    int me = ump_rank(), n = ump_size(), bad = 0;
    size_t npeer = (size_t)(n - 1);
    unsigned char **sb = calloc(npeer * NSIZES, sizeof(*sb));
    unsigned char **rb = calloc(npeer * NSIZES, sizeof(*rb));
    ump_req_t *reqs = calloc(2 * npeer * NSIZES, sizeof(*reqs));
    ump_status_t *st = calloc(2 * npeer * NSIZES, sizeof(*st));
    if (!sb || !rb || !reqs || !st) return 2;
    size_t k = 0, q = 0;
    for (int p = 0; p < n; p++) {
        if (p == me) continue;
        for (size_t s = 0; s < NSIZES; s++, k++) {
            sb[k] = malloc(sizes[s] + 1);
            rb[k] = malloc(sizes[s] + 1);
            if (!sb[k] || !rb[k]) return 2;
            fill(sb[k], sizes[s], me, p, sizes[s]);
            memset(rb[k], 0xee, sizes[s] + 1);
            CALL(ump_irecv(rb[k], sizes[s], UMP_BYTE, p, (int)s, 0, &reqs[q++]));
            CALL(ump_isend(sb[k], sizes[s], UMP_BYTE, p, (int)s, 0, &reqs[q++]));
        }
    }
    CALL(ump_waitall(q, reqs, st));
    unsigned char *want = malloc(sizes[NSIZES - 1] + 1);
    k = 0;
    for (int p = 0; p < n; p++) {
        if (p == me) continue;
        for (size_t s = 0; s < NSIZES; s++, k++) {
            const ump_status_t *rs = &st[2 * k];
            fill(want, sizes[s], p, me, sizes[s]);
            if (rs->source != p || rs->count != sizes[s] || memcmp(rb[k], want, sizes[s]) ||
                rb[k][sizes[s]] != 0xee) {
                fprintf(stderr, "p2p rank %d: %zu bytes from rank %d arrived wrong (count %zu)\n",
                        me, sizes[s], p, rs->count);
                bad++;
            }
            free(sb[k]);
            free(rb[k]);
        }
    }
    free(want);
    free(sb);
    free(rb);
    free(reqs);
    free(st);
    CALL(ump_finalize());
    if (!bad) printf("p2p rank %d ok\n", me);
    return bad ? 1 : 0;
}
