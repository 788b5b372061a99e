/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_rndv: the rendezvous schemes (read, write, stream) with contiguous and
 * derived types on either side, checked byte for byte and by the core's
 * counters.
 *
 * Rank 0 sends to rank 1 every pair of (sender type, receiver type) from
 * {int, vector, indexed, struct, resized vector}, at message sizes just
 * below, at and above the eager limit and the segment size of the pair's
 * transport and at about 1 MiB. The receiver's whole buffer, guard zone
 * included, must equal its background fill with the sender's bytes placed
 * into the receiver's blocks, computed here from the layouts' arithmetic
 * (not by the engine under test).
 *
 * With --expect LLLL (one letter per pair class: contiguous to contiguous,
 * contiguous to derived, derived to contiguous, derived to derived; r =
 * read, w = write, s = stream, - = any) every rendezvous message of that
 * class whose layouts have few enough blocks to stay within the transport's
 * iovec and operation limits must have gone by that scheme (the receiver's
 * per-scheme message counter grew by one), and by read or write the core
 * must have copied no byte on either side (UMP_STATS's copy counters).
 * The scheme itself is forced by the ctest entry (UMP_RNDV_SCHEME).
 *
 *   dt_rndv [--expect LLLL] [--max BYTES]     (2 ranks; --max skips larger
 *   messages, for slow providers)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ump.h"

#define CTX   0x7d1u
#define GUARD 512

static int me;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "[dt_rndv rank %d] FAIL %s:%d: ", me, __FILE__, __LINE__);                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        ump_abort(1, "dt_rndv failed");                                                            \
    } while (0)
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) FAIL(__VA_ARGS__);                                                               \
    } while (0)

/* One element's blocks (byte offset, length) and extent, as built. */
typedef struct {
    const char *name;
    struct ump_dt *dt; /* NULL: UMP_INT */
    int nruns;
    size_t off[4], len[4];
    size_t extent, size;
} ty_t;

enum { T_INT, T_VEC, T_IDX, T_STRUCT, T_RESIZED, NT };
static ty_t ty[NT];

static void make_types(void)
{
    ty[T_INT] = (ty_t){"int", NULL, 1, {0}, {4}, 4, 4};

    /* 4 blocks of 256 ints, 384 ints apart. */
    CHECK(ump_dt_vector(4, 256, 384, UMP_INT, &ty[T_VEC].dt) == UMP_OK, "vector");
    ty[T_VEC] = (ty_t){"vector",
                       ty[T_VEC].dt,
                       4,
                       {0, 1536, 3072, 4608},
                       {1024, 1024, 1024, 1024},
                       (3 * 384 + 256) * 4,
                       4096};

    int bl[3] = {100, 300, 624}, dp[3] = {0, 150, 500};
    CHECK(ump_dt_indexed(3, bl, dp, UMP_INT, &ty[T_IDX].dt) == UMP_OK, "indexed");
    ty[T_IDX] = (ty_t){"indexed", ty[T_IDX].dt, 3, {0, 600, 2000}, {400, 1200, 2496}, 4496, 4096};

    int sbl[2] = {512, 512};
    ptrdiff_t sdp[2] = {0, 3000};
    ump_dt_t st[2] = {UMP_INT, UMP_INT};
    CHECK(ump_dt_struct(2, sbl, sdp, st, &ty[T_STRUCT].dt) == UMP_OK, "struct");
    ty[T_STRUCT] = (ty_t){"struct", ty[T_STRUCT].dt, 2, {0, 3000}, {2048, 2048}, 5048, 4096};

    struct ump_dt *v2;
    CHECK(ump_dt_vector(2, 512, 768, UMP_INT, &v2) == UMP_OK, "vector for resized");
    CHECK(ump_dt_resized(v2, 0, 8192, &ty[T_RESIZED].dt) == UMP_OK, "resized");
    ump_dt_free(&v2);
    ty[T_RESIZED] = (ty_t){"resized", ty[T_RESIZED].dt, 2, {0, 3072}, {2048, 2048}, 8192, 4096};

    for (int t = 1; t < NT; t++) {
        CHECK(ump_dt_commit(ty[t].dt) == UMP_OK, "commit %s", ty[t].name);
        ptrdiff_t lb, ext;
        ump_dt_get_extent(ty[t].dt, &lb, &ext);
        CHECK(lb == 0 && (size_t)ext == ty[t].extent, "%s: extent %td, expected %zu", ty[t].name,
              ext, ty[t].extent);
    }
}

static ump_dt_t dt_of(int t)
{
    return ty[t].dt ? ty[t].dt : UMP_INT;
}

/* Bytes a buffer of n elements of t spans. */
static size_t span(int t, size_t n)
{
    const ty_t *y = &ty[t];
    return n ? (n - 1) * y->extent + y->off[y->nruns - 1] + y->len[y->nruns - 1] : 0;
}

/* Visits the data bytes of n elements of t in stream order: calls
 * f(arg, buffer offset, stream offset, length) per block. */
static void walk(int t, size_t n, void (*f)(void *, size_t, size_t, size_t), void *arg)
{
    size_t pos = 0;
    for (size_t e = 0; e < n; e++)
        for (int i = 0; i < ty[t].nruns; i++) {
            f(arg, e * ty[t].extent + ty[t].off[i], pos, ty[t].len[i]);
            pos += ty[t].len[i];
        }
}

static void gather_cb(void *arg, size_t boff, size_t soff, size_t len)
{
    void **a = arg; /* {stream, buffer} */
    memcpy((char *)a[0] + soff, (char *)a[1] + boff, len);
}

static void scatter_cb(void *arg, size_t boff, size_t soff, size_t len)
{
    void **a = arg; /* {stream, buffer} */
    memcpy((char *)a[1] + boff, (char *)a[0] + soff, len);
}

static int cls(int ts, int tr)
{
    return (ts != T_INT) * 2 + (tr != T_INT);
}

static int scheme_of(char c)
{
    return c == 'r' ? UMP_XFER_READ : c == 'w' ? UMP_XFER_WRITE : UMP_XFER_STREAM;
}

int main(int argc, char **argv)
{
    const char *expect = "----";
    size_t max = SIZE_MAX;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc) expect = argv[++i];
        if (!strcmp(argv[i], "--max") && i + 1 < argc) max = strtoull(argv[++i], NULL, 0);
    }
    if (strlen(expect) != 4) {
        fprintf(stderr, "usage: dt_rndv [--expect LLLL] (letters r, w, s, -)\n");
        return 2;
    }
    CHECK(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL) == UMP_OK, "ump_init");
    me = ump_rank();
    CHECK(ump_size() == 2, "run with 2 ranks");
    make_types();
    const ump_xp_caps_t *caps = &ump_core.peers[1 - me].xp->caps;
    size_t eager = caps->eager_limit, seg = caps->seg_size;

    size_t sizes[16];
    int nsizes = 0;
    size_t base[] = {eager, seg, (size_t)1 << 20};
    for (int b = 0; b < 3; b++) {
        sizes[nsizes++] = base[b] - 4;
        sizes[nsizes++] = base[b];
        sizes[nsizes++] = base[b] + 4;
        /* The same sizes in whole 4 KiB elements of the derived types. */
        sizes[nsizes++] = (base[b] / 4096) * 4096;
        sizes[nsizes++] = (base[b] / 4096 + 1) * 4096;
    }

    int ncases = 0, checked = 0, tag = 0;
    for (int ts = 0; ts < NT; ts++)
        for (int tr = 0; tr < NT; tr++)
            for (int si = 0; si < nsizes; si++) {
                size_t bytes = sizes[si];
                if (bytes % ty[ts].size || bytes % ty[tr].size || !bytes || bytes > max) continue;
                size_t ns = bytes / ty[ts].size, nr = bytes / ty[tr].size;
                size_t slen = span(ts, ns), rlen = span(tr, nr) + GUARD;
                unsigned char *sb = malloc(slen), *rb = malloc(rlen), *want = malloc(rlen),
                              *stream = malloc(bytes);
                CHECK(sb && rb && want && stream, "out of memory");
                for (size_t i = 0; i < slen; i++)
                    sb[i] = (unsigned char)(i * 7 + 13 + (size_t)tag);
                memset(rb, 0xEE, rlen);
                memset(want, 0xEE, rlen);
                void *sa[2] = {stream, sb}, *ra[2] = {stream, want};
                walk(ts, ns, gather_cb, sa);
                walk(tr, nr, scatter_cb, ra);

                ump_core_stats_t before = ump_core.xfer;
                if (me == 0) {
                    CHECK(ump_send(sb, ns, dt_of(ts), 1, tag, CTX) == UMP_OK, "send");
                } else {
                    ump_status_t st;
                    CHECK(ump_recv(rb, nr, dt_of(tr), 0, tag, CTX, &st) == UMP_OK, "recv");
                    CHECK(st.count == bytes, "%s -> %s, %zu bytes: received %zu", ty[ts].name,
                          ty[tr].name, bytes, (size_t)st.count);
                    for (size_t i = 0; i < rlen; i++)
                        CHECK(rb[i] == want[i],
                              "%s -> %s, %zu bytes: byte %zu of the receive buffer is 0x%02x, "
                              "expected 0x%02x",
                              ty[ts].name, ty[tr].name, bytes, i, rb[i], want[i]);
                }
                /* Which scheme moved it, and what the core copied. */
                char x = expect[cls(ts, tr)];
                size_t runs =
                    (ts == T_INT ? 1 : ns * ty[ts].nruns) + (tr == T_INT ? 1 : nr * ty[tr].nruns);
                if (x != '-' && bytes > eager && runs <= 256) {
                    const ump_core_stats_t *now = &ump_core.xfer;
                    int k = scheme_of(x);
                    if (me == 1)
                        CHECK(now->msgs[k] == before.msgs[k] + 1,
                              "%s -> %s, %zu bytes: not moved by the expected scheme '%c'",
                              ty[ts].name, ty[tr].name, bytes, x);
                    /* The sender's own copies, or the receiver's (an ack of
                     * the peer may already be arriving on the other side). */
                    for (int s = 0; x != 's' && s < UMP_XFER_N; s++)
                        CHECK(me == 0 ? now->copied_send[s] == before.copied_send[s]
                                      : now->copied_recv[s] == before.copied_recv[s],
                              "%s -> %s, %zu bytes by '%c': the core copied data", ty[ts].name,
                              ty[tr].name, bytes, x);
                    checked++;
                }
                /* Keep the two ranks in step (and the counters per case). */
                int ok = 1;
                if (me == 1)
                    CHECK(ump_send(&ok, 1, UMP_INT, 0, tag, CTX + 1) == UMP_OK, "ack");
                else
                    CHECK(ump_recv(&ok, 1, UMP_INT, 1, tag, CTX + 1, NULL) == UMP_OK, "ack");
                free(sb);
                free(rb);
                free(want);
                free(stream);
                tag++;
                ncases++;
            }
    for (int t = 1; t < NT; t++)
        ump_dt_free(&ty[t].dt);
    if (me == 1)
        printf("dt_rndv: %d cases passed, %d with the scheme checked (--expect %s)\n", ncases,
               checked, expect);
    CHECK(strcmp(expect, "----") == 0 || checked > 0, "no case checked its scheme");
    ump_finalize();
    return 0;
}
