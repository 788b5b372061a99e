/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rndv_measure - the measured choice between reading and streaming a
 * contiguous rendezvous (rndv.c, caps.get_measure; shm by default), with
 * 2 ranks:
 *
 *   rndv_measure measure   shm as shipped: each fresh size class is timed
 *                          in blocks of 6 messages (read, stream, read,
 *                          stream; one message at a time), then keeps one
 *                          scheme; a class is timed again after 1024
 *                          messages; windows of messages in flight at once
 *                          arrive whole
 *   rndv_measure drift     UMP_RNDV_DRIFT=2 (off as shipped): a timed class
 *                          whose kept scheme then costs far more than both
 *                          figures (the test lowers them, as if they had
 *                          been timed in a cheaper pattern) times the other
 *                          scheme again after 4 messages watched alone, the
 *                          next time after 8; a window with one slow message
 *                          (the sender sleeps) does not
 *   rndv_measure skew      UMP_SHM_CMA_MIN set (read above it): a message
 *                          whose receive buffer lies 1 to 31 bytes past the
 *                          send buffer modulo 4 KiB is streamed (the
 *                          kernel's copy crawls there), all others read;
 *                          with UMP_SHM_CMA_SKEW=0 all read
 *   rndv_measure stream    a transport or setting that does not measure
 *                          (UMP_SHM_CMA_MIN set to 0, or UMP_SHM_CMA=0):
 *                          every message is streamed
 *
 * Every message is checked byte for byte, with guard bytes after it, and
 * which scheme moved it by the core's counters. Exit 77 when the kernel
 * refuses cross-memory attach (then shm cannot read, and measures nothing).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "ump.h"

#define CTX   0x7d3u
#define GUARD 64

static int me;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "[rndv_measure rank %d] FAIL %s:%d: ", me, __FILE__, __LINE__);            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        ump_abort(1, "rndv_measure failed");                                                       \
    } while (0)
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) FAIL(__VA_ARGS__);                                                               \
    } while (0)

static unsigned char pat(size_t size, int i, size_t j)
{
    return (unsigned char)(size * 3 + (size_t)i * 131 + j * 7 + 1);
}

/* The timings the core keeps for the class of `size` over the peer's
 * transport (the class as rndv.c computes it). */
static const ump_rndv_class_t *times_of(size_t size)
{
    const ump_xp_t *xp = ump_core.peers[1 - me].xp;
    int c = 0;
    for (size_t s = size >> 13; s > 1 && c < UMP_RNDV_CLASSES - 1; s >>= 1)
        c++;
    for (int i = 0; i < ump_core.nxps; i++)
        if (ump_core.xps[i] == xp) return &ump_core.rndv_times[i].cls[c];
    FAIL("the peer's transport is not among the core's");
    return NULL;
}

/* n messages of `size` bytes from rank 0 to rank 1, one at a time (rank 1
 * answers each, so every receive runs alone); rank 1 checks each and
 * returns how many the core read with get() and how many it streamed. */
/* Page-aligned on both ranks: every message meets its receive buffer at
 * the same page offset (distances of 1-31 bytes are streamed; see skew). */
static unsigned char *page_alloc(size_t n)
{
    void *p = NULL;
    CHECK(posix_memalign(&p, 4096, n) == 0, "out of memory");
    return p;
}

static int slow_msg = -1; /* rank 0 sleeps SLOW_US in this message's send */
#define SLOW_US     1500000
#define SLOW_FIGURE 500.0f /* ns/byte: kept scheme's figure in the slow window */

static void one_by_one(size_t size, int n, uint64_t *read, uint64_t *stream)
{
    unsigned char *b = page_alloc(size + GUARD);
    CHECK(b, "out of memory");
    uint64_t r0 = ump_core.xfer.msgs[UMP_XFER_READ], s0 = ump_core.xfer.msgs[UMP_XFER_STREAM];
    for (int i = 0; i < n; i++) {
        int ack = 0;
        if (me == 0) {
            for (size_t j = 0; j < size; j++)
                b[j] = pat(size, i, j);
            ump_req_t q;
            CHECK(ump_isend(b, size, UMP_BYTE, 1, i, CTX, &q) == UMP_OK, "send of %zu bytes", size);
            if (i == slow_msg) usleep(SLOW_US); /* the rendezvous waits for us */
            CHECK(ump_wait(&q, NULL) == UMP_OK, "send of %zu bytes", size);
            CHECK(ump_recv(&ack, 1, UMP_INT, 1, i, CTX + 1, NULL) == UMP_OK, "ack");
        } else {
            memset(b, 0xEE, size + GUARD);
            ump_status_t st;
            CHECK(ump_recv(b, size, UMP_BYTE, 0, i, CTX, &st) == UMP_OK, "recv of %zu bytes", size);
            CHECK(st.count == size, "%zu bytes, message %d: received %zu", size, i,
                  (size_t)st.count);
            for (size_t j = 0; j < size; j++)
                CHECK(b[j] == pat(size, i, j), "%zu bytes, message %d: byte %zu is 0x%02x", size, i,
                      j, b[j]);
            for (size_t j = size; j < size + GUARD; j++)
                CHECK(b[j] == 0xEE, "%zu bytes, message %d: guard byte %zu overwritten", size, i,
                      j - size);
            CHECK(ump_send(&ack, 1, UMP_INT, 0, i, CTX + 1) == UMP_OK, "ack");
        }
    }
    *read = ump_core.xfer.msgs[UMP_XFER_READ] - r0;
    *stream = ump_core.xfer.msgs[UMP_XFER_STREAM] - s0;
    free(b);
}

/* A window of n messages of `size` in flight at once, each checked. */
static void window(size_t size, int n)
{
    unsigned char *b = page_alloc((size + GUARD) * (size_t)n);
    ump_req_t *req = malloc(sizeof(*req) * (size_t)n);
    CHECK(b && req, "out of memory");
    uint64_t r0 = ump_core.xfer.msgs[UMP_XFER_READ], s0 = ump_core.xfer.msgs[UMP_XFER_STREAM];
    for (int i = 0; i < n; i++) {
        unsigned char *m = b + (size + GUARD) * (size_t)i;
        if (me == 0) {
            for (size_t j = 0; j < size; j++)
                m[j] = pat(size, i, j);
            CHECK(ump_isend(m, size, UMP_BYTE, 1, 7, CTX + 2, &req[i]) == UMP_OK, "isend");
        } else {
            memset(m, 0xEE, size + GUARD);
            CHECK(ump_irecv(m, size, UMP_BYTE, 0, 7, CTX + 2, &req[i]) == UMP_OK, "irecv");
        }
    }
    CHECK(ump_waitall((size_t)n, req, NULL) == UMP_OK, "waitall");
    if (me == 1) {
        for (int i = 0; i < n; i++) {
            const unsigned char *m = b + (size + GUARD) * (size_t)i;
            for (size_t j = 0; j < size; j++)
                CHECK(m[j] == pat(size, i, j),
                      "window of %zu bytes, message %d: byte %zu is 0x%02x", size, i, j, m[j]);
            for (size_t j = size; j < size + GUARD; j++)
                CHECK(m[j] == 0xEE, "window of %zu bytes, message %d: guard byte overwritten", size,
                      i);
        }
        uint64_t r = ump_core.xfer.msgs[UMP_XFER_READ] - r0;
        uint64_t s = ump_core.xfer.msgs[UMP_XFER_STREAM] - s0;
        CHECK(r + s == (uint64_t)n, "window of %zu bytes: %llu read + %llu streamed of %d", size,
              (unsigned long long)r, (unsigned long long)s, n);
    }
    free(b);
    free(req);
}

/* Rank 1: the class of `size` has kept a scheme; lower both figures a
 * thousandfold, as if they had been timed in a far cheaper pattern, so the
 * messages watched from now on cost more than either. Returns the kept
 * scheme (0 read, 1 stream). */
static int lower_figures(size_t size)
{
    ump_rndv_class_t *c = (ump_rndv_class_t *)times_of(size);
    CHECK(c->best[0] > 0 && c->best[1] > 0, "%zu bytes: the class is not timed (%g, %g)", size,
          (double)c->best[0], (double)c->best[1]);
    int kept = c->best[1] < c->best[0];
    c->best[0] /= 1000;
    c->best[1] /= 1000;
    return kept;
}

/* One size class trained, its kept scheme made to drift: after 4 watched
 * messages the other scheme is timed again (2 blocks of 6), the kept
 * one's figure is what the watched messages cost. */
static void drift(void)
{
    size_t size = 524301; /* a class of its own */
    uint64_t r, s;
    one_by_one(size, 24, &r, &s);
    int kept = 0;
    if (me == 1) {
        CHECK(r == 12 && s == 12, "%zu bytes: while timing, %llu read and %llu streamed", size,
              (unsigned long long)r, (unsigned long long)s);
        kept = lower_figures(size);
    }
    one_by_one(size, 4 + 12, &r, &s);
    if (me == 1) {
        const ump_rndv_class_t *c = times_of(size);
        CHECK(c->drifts == 1 && c->got[0] == 2 && c->got[1] == 2 && c->msgs == 13,
              "%zu bytes: timed again %u times for drift (expected 1), blocks timed %u and %u, "
              "%u messages since; expected 2 and 2, 13",
              size, c->drifts, c->got[0], c->got[1], c->msgs);
        uint64_t want_r = kept ? 12 : 4;
        CHECK(r == want_r && s == 16 - want_r,
              "%zu bytes: %llu read and %llu streamed around the retiming (kept %s); expected "
              "%llu read",
              size, (unsigned long long)r, (unsigned long long)s, kept ? "stream" : "read",
              (unsigned long long)want_r);
        CHECK(c->best[kept] > 0 && c->best[!kept] > 0, "%zu bytes: figures %g and %g", size,
              (double)c->best[0], (double)c->best[1]);
        printf("rndv_measure drift: %zu bytes kept %s, drifted to %.3f ns/byte, %s timed again "
               "at %.3f\n",
               size, kept ? "stream" : "read", (double)c->best[kept], kept ? "read" : "stream",
               (double)c->best[!kept]);
        kept = lower_figures(size);
    }
    /* The second retiming waits for 8 watched: 7 leave the class alone,
     * the 8th retimes it. */
    one_by_one(size, 7, &r, &s);
    if (me == 1) {
        const ump_rndv_class_t *c = times_of(size);
        CHECK(c->drifts == 1 && c->watched == 7,
              "%zu bytes: after 7 watched, timed again %u times, %u watched; expected 1, 7", size,
              c->drifts, c->watched);
        CHECK(r == (kept ? 0 : 7) && s == (kept ? 7 : 0), "%zu bytes: %llu read, %llu streamed",
              size, (unsigned long long)r, (unsigned long long)s);
    }
    one_by_one(size, 1, &r, &s);
    if (me == 1) {
        const ump_rndv_class_t *c = times_of(size);
        CHECK(c->drifts == 2 && c->got[kept] == 2 && c->got[!kept] == 0 && c->watched == 0,
              "%zu bytes: after 8 watched, timed again %u times (expected 2), blocks %u, %u", size,
              c->drifts, c->got[0], c->got[1]);
    }
    /* One slow message does not drift: the other scheme's blocks timed,
     * streaming is kept with figures set to 500 and 1000 ns/byte (a
     * retiming takes a window whose least is above 1000: 524 ms for one
     * message of this size, which an ordinary message stays far below even
     * on a loaded machine, where figures scaled from the ones just timed
     * were not: every message of a window once took 20 ms), and in the
     * next window of 16 watched the sender sleeps 1.5 s in the 15th
     * (about 2900 ns/byte, above the threshold). The window's least is an
     * ordinary message: no retiming, a new window. */
    one_by_one(size, 12, &r, &s);
    if (me == 1) {
        ump_rndv_class_t *c = (ump_rndv_class_t *)times_of(size);
        CHECK(c->got[0] == 2 && c->got[1] == 2 && c->watched == 0,
              "%zu bytes: after the retiming's blocks, %u and %u timed, %u watched", size,
              c->got[0], c->got[1], c->watched);
        c->best[1] = SLOW_FIGURE;
        c->best[0] = 2 * SLOW_FIGURE;
    }
    slow_msg = 14;
    one_by_one(size, 16, &r, &s);
    slow_msg = -1;
    if (me == 1) {
        const ump_rndv_class_t *c = times_of(size);
        CHECK(r == 0 && s == 16, "%zu bytes: %llu read, %llu streamed; expected all streamed", size,
              (unsigned long long)r, (unsigned long long)s);
        CHECK(c->drifts == 2 && c->watched == 0,
              "%zu bytes: a window with one slow message timed the class again (%u times, "
              "expected 2; %u watched, least %.3f ns/byte against %.3f)",
              size, c->drifts, c->watched, (double)c->watch, (double)c->best[1]);
    }
}

/* Contiguous messages read above UMP_SHM_CMA_MIN (set: no timing), the
 * send buffer at one offset in its page and the receive buffer at
 * another: streamed where the receive buffer lies 1 to 31 bytes past the
 * send buffer modulo 4 KiB (UMP_SHM_CMA_SKEW, 32 as shipped), read
 * elsewhere; with the skew set to 0, read at every distance. */
static void skew(size_t window)
{
    static const size_t offs[][2] = {{0, 0},    {0, 1},       {0, 16},   {0, 31},   {0, 32},
                                     {0, 4095}, {16, 0},      {16, 32},  {16, 47},  {16, 48},
                                     {100, 99}, {4090, 4095}, {4090, 5}, {4090, 26}};
    size_t size = 65536 + 7;
    unsigned char *b = page_alloc(size + 2 * 4096 + GUARD);
    for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
        size_t so = offs[k][0], ro = offs[k][1];
        uint64_t r0 = ump_core.xfer.msgs[UMP_XFER_READ], s0 = ump_core.xfer.msgs[UMP_XFER_STREAM];
        int ack = 0;
        if (me == 0) {
            unsigned char *m = b + so;
            for (size_t j = 0; j < size; j++)
                m[j] = pat(size, (int)k, j);
            CHECK(ump_send(m, size, UMP_BYTE, 1, (int)k, CTX + 3) == UMP_OK, "send");
            CHECK(ump_recv(&ack, 1, UMP_INT, 1, (int)k, CTX + 4, NULL) == UMP_OK, "ack");
            continue;
        }
        unsigned char *m = b + ro;
        memset(m, 0xEE, size + GUARD);
        CHECK(ump_recv(m, size, UMP_BYTE, 0, (int)k, CTX + 3, NULL) == UMP_OK, "recv");
        for (size_t j = 0; j < size; j++)
            CHECK(m[j] == pat(size, (int)k, j),
                  "send at page offset %zu, receive at %zu: byte %zu is 0x%02x", so, ro, j, m[j]);
        for (size_t j = size; j < size + GUARD; j++)
            CHECK(m[j] == 0xEE, "receive at page offset %zu: guard byte %zu overwritten", ro,
                  j - size);
        CHECK(ump_send(&ack, 1, UMP_INT, 0, (int)k, CTX + 4) == UMP_OK, "ack");
        size_t d = (ro - so) & 4095;
        int want_read = !(d && d < window);
        uint64_t r = ump_core.xfer.msgs[UMP_XFER_READ] - r0;
        uint64_t st = ump_core.xfer.msgs[UMP_XFER_STREAM] - s0;
        CHECK(r == (uint64_t)want_read && st == (uint64_t)!want_read,
              "send at page offset %zu, receive at %zu (%zu bytes past, skew window %zu): %llu "
              "read, %llu streamed; expected it %s",
              so, ro, d, window, (unsigned long long)r, (unsigned long long)st,
              want_read ? "read" : "streamed");
    }
    free(b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    bool measure = !strcmp(mode, "measure") || !strcmp(mode, "drift");
    if (!strcmp(mode, "skew")) {
        CHECK(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL) == UMP_OK, "ump_init");
        me = ump_rank();
        CHECK(ump_size() == 2, "run with 2 ranks");
        const ump_xp_caps_t *sc = &ump_core.peers[1 - me].xp->caps;
        const char *w = getenv("UMP_SHM_CMA_SKEW");
        size_t window = w ? strtoul(w, NULL, 0) : 32;
        if (!sc->rma_get) {
            if (me == 0)
                printf("rndv_measure: the kernel refuses cross-memory attach here: skipped\n");
            ump_finalize();
            return 77;
        }
        CHECK(sc->get_skew == window, "the transport's skew window is %zu, expected %zu",
              sc->get_skew, window);
        skew(window);
        ump_finalize();
        if (me == 1) printf("rndv_measure skew (window %zu): passed\n", window);
        return 0;
    }
    if (!measure && strcmp(mode, "stream")) {
        fprintf(stderr, "usage: rndv_measure measure|drift|skew|stream (2 ranks)\n");
        return 2;
    }
    CHECK(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL) == UMP_OK, "ump_init");
    me = ump_rank();
    CHECK(ump_size() == 2, "run with 2 ranks");
    const ump_xp_caps_t *caps = &ump_core.peers[1 - me].xp->caps;
    if (measure && !caps->rma_get) {
        if (me == 0) printf("rndv_measure: the kernel refuses cross-memory attach here: skipped\n");
        ump_finalize();
        return 77;
    }
    CHECK(caps->get_measure == measure, "the transport %s its reads",
          measure ? "does not measure" : "measures");
    size_t eager = caps->eager_limit;
    if (!strcmp(mode, "drift")) {
        const char *d = getenv("UMP_RNDV_DRIFT");
        CHECK(d && atof(d) > 0, "run the drift mode with UMP_RNDV_DRIFT set above 0");
        drift();
        ump_finalize();
        if (me == 1) printf("rndv_measure drift: passed\n");
        return 0;
    }

    /* One size per class, from just past the eager limit: each class is
     * fresh when its messages start. */
    size_t sizes[] = {eager + 1, 16384, 65535, 65536, 262147, 1048576};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t size = sizes[k];
        uint64_t learn_r, learn_s, then_r, then_s;
        one_by_one(size, 24, &learn_r, &learn_s);
        one_by_one(size, 24, &then_r, &then_s);
        if (me != 1) continue;
        if (!measure) {
            CHECK(learn_r + then_r == 0 && learn_s + then_s == 48,
                  "%zu bytes: %llu read, %llu streamed; expected all 48 streamed", size,
                  (unsigned long long)(learn_r + then_r), (unsigned long long)(learn_s + then_s));
            continue;
        }
        const ump_rndv_class_t *c = times_of(size);
        CHECK(learn_r == 12 && learn_s == 12,
              "%zu bytes: while timing, %llu read and %llu streamed; expected 12 and 12", size,
              (unsigned long long)learn_r, (unsigned long long)learn_s);
        CHECK(c->got[0] == 2 && c->got[1] == 2 && c->best[0] > 0 && c->best[1] > 0,
              "%zu bytes: blocks timed %u and %u (expected 2 and 2), best %g and %g ns/byte", size,
              c->got[0], c->got[1], (double)c->best[0], (double)c->best[1]);
        uint64_t want_r = c->best[0] <= c->best[1] ? 24 : 0;
        CHECK(then_r == want_r && then_s == 24 - want_r,
              "%zu bytes: after timing (read %g, stream %g ns/byte), %llu read and %llu streamed; "
              "expected %llu read",
              size, (double)c->best[0], (double)c->best[1], (unsigned long long)then_r,
              (unsigned long long)then_s, (unsigned long long)want_r);
        printf("rndv_measure: %zu bytes: read %.3f, stream %.3f ns/byte: %s\n", size,
               (double)c->best[0], (double)c->best[1], want_r ? "read" : "stream");
    }

    /* Timed again after 1024 messages of a class: 1030 messages leave the
     * class 7 messages into its next timing (a block of 6 reads timed, a
     * block of streams begun). */
    size_t size = 131073; /* a class of its own */
    uint64_t r, s;
    one_by_one(size, 1030, &r, &s);
    if (me == 1 && measure) {
        const ump_rndv_class_t *c = times_of(size);
        CHECK(c->msgs == 7 && c->tries[0] == 1 && c->tries[1] == 1 && c->got[0] == 1 &&
                  c->got[1] == 0,
              "%zu bytes, 1030 messages: %u since timing again, blocks %u and %u begun, %u and "
              "%u timed; expected 7, 1 and 1, 1 and 0",
              size, c->msgs, c->tries[0], c->tries[1], c->got[0], c->got[1]);
    }
    if (me == 1 && !measure)
        CHECK(r == 0 && s == 1030, "%zu bytes: %llu read; expected none", size,
              (unsigned long long)r);

    /* Many in flight at once, in a class still being timed and in one
     * already decided. */
    window(2 * 1048576 + 5, 16);
    window(65536, 64);

    ump_finalize();
    if (me == 1) printf("rndv_measure %s: passed\n", mode);
    return 0;
}
