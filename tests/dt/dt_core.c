/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_core: derived datatypes through the core API alone (ump.h, no mpi.h).
 *
 * Every rank first checks the public datatype queries on types it builds
 * (sizes, bounds, true bounds, envelope and contents, names, error codes).
 * Then rank 0 sends `count` elements of a vector type and of a struct type
 * to rank 1 with ump_send, for counts that put the packed message just
 * below, at and just above each protocol threshold (the transports' eager
 * limits, read from the same variables ump reads, and the credit window),
 * and a few MiB for a many-segment rendezvous:
 *
 *   0 -> 1  the typed buffer, received with the same type: every data byte
 *           must match the sender's pattern and every gap byte must keep
 *           the receiver's fill;
 *   1 -> 0  the received buffer sent back with the type, received as
 *           UMP_BYTE: the packed stream must equal a pack done by hand
 *           from the C layout (type-map order).
 *
 * The layouts are known from C (the vector's block arithmetic, the struct's
 * offsetof), so the reference does not use the engine under test.
 *
 * usage: dt_core (2 ranks)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ump.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "[dt_core rank %d] FAIL %s:%d: ", ump_rank(), __FILE__, __LINE__);         \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        ump_abort(1, "dt_core failed");                                                            \
    } while (0)
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "[dt_core rank %d] check '%s' failed\n", ump_rank(), #c);              \
            FAIL(__VA_ARGS__);                                                                     \
        }                                                                                          \
    } while (0)
#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == (want), "%s returned %s, expected %s", #call, ump_status_name(rc_),           \
              ump_status_name(want));                                                              \
    } while (0)

#define CTX 0x5d7u

/* The vector: 4 blocks of 2 ints, block starts 3 ints apart. */
enum { V_BLOCKS = 4, V_BLK = 2, V_STRIDE = 3 };
#define V_SIZE   ((size_t)V_BLOCKS * V_BLK * sizeof(int))
#define V_EXTENT ((size_t)((V_BLOCKS - 1) * V_STRIDE + V_BLK) * sizeof(int))

/* The struct: padding after c and before e, so it is not one run. */
struct particle {
    double d;
    char c[3];
    int i;
    short s[2];
    double e[2];
};
#define P_FIELDS 5
static const ptrdiff_t p_disp[P_FIELDS] = {
    offsetof(struct particle, d), offsetof(struct particle, c), offsetof(struct particle, i),
    offsetof(struct particle, s), offsetof(struct particle, e)};
static const size_t p_len[P_FIELDS] = {sizeof(double), 3, sizeof(int), 2 * sizeof(short),
                                       2 * sizeof(double)};
static const int p_bl[P_FIELDS] = {1, 3, 1, 2, 2};
#define P_SIZE (sizeof(double) + 3 + sizeof(int) + 2 * sizeof(short) + 2 * sizeof(double))

/* One element's data runs (offset, length) in type-map order. */
typedef struct {
    const char *what;
    struct ump_dt *dt;
    size_t size, extent;
    int nruns;
    ptrdiff_t off[P_FIELDS > V_BLOCKS ? P_FIELDS : V_BLOCKS];
    size_t len[P_FIELDS > V_BLOCKS ? P_FIELDS : V_BLOCKS];
} layout_t;

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    switch (*end) {
    case 'k':
    case 'K':
        n <<= 10;
        break;
    case 'm':
    case 'M':
        n <<= 20;
        break;
    case 'g':
    case 'G':
        n <<= 30;
        break;
    default:
        break;
    }
    return (size_t)n;
}

static uint8_t pattern(uint64_t seed, size_t i)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + i;
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
    return (uint8_t)(x >> 56);
}

/* --- the public queries ------------------------------------------------------ */

static void check_queries(void)
{
    struct ump_dt *v = NULL, *r = NULL, *d = NULL, *sub = NULL, *da = NULL, *bad = NULL;
    ptrdiff_t lb, ext, tlb, text;

    /* the predefined types */
    CHECK(ump_dt_size(UMP_INT) == sizeof(int), "%zu", ump_dt_size(UMP_INT));
    EXPECT(ump_dt_get_extent(UMP_DOUBLE, &lb, &ext), UMP_OK);
    CHECK(lb == 0 && ext == (ptrdiff_t)sizeof(double), "lb %td extent %td", lb, ext);
    CHECK(!strcmp(ump_dt_name(UMP_INT), "UMP_INT"), "name '%s'", ump_dt_name(UMP_INT));
    int ni, na, nd, comb;
    EXPECT(ump_dt_envelope(UMP_INT, &ni, &na, &nd, &comb), UMP_OK);
    CHECK(comb == UMP_DT_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "combiner %d", comb);

    /* a vector: bounds, envelope, contents, name */
    EXPECT(ump_dt_vector(V_BLOCKS, V_BLK, V_STRIDE, UMP_INT, &v), UMP_OK);
    CHECK(ump_dt_size(v) == V_SIZE, "size %zu", ump_dt_size(v));
    EXPECT(ump_dt_get_extent(v, &lb, &ext), UMP_OK);
    CHECK(lb == 0 && ext == (ptrdiff_t)V_EXTENT, "lb %td extent %td", lb, ext);
    EXPECT(ump_dt_get_true_extent(v, &tlb, &text), UMP_OK);
    CHECK(tlb == 0 && text == (ptrdiff_t)V_EXTENT, "true lb %td extent %td", tlb, text);
    EXPECT(ump_dt_envelope(v, &ni, &na, &nd, &comb), UMP_OK);
    CHECK(comb == UMP_DT_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "combiner %d", comb);
    int ints[3];
    struct ump_dt *types[1];
    EXPECT(ump_dt_contents(v, 3, 0, 1, ints, NULL, types), UMP_OK);
    CHECK(ints[0] == V_BLOCKS && ints[1] == V_BLK && ints[2] == V_STRIDE, "contents");
    CHECK(types[0] == UMP_INT, "old type");
    EXPECT(ump_dt_contents(v, 2, 0, 1, ints, NULL, types), UMP_ERR_INVALID);
    EXPECT(ump_dt_contents(UMP_INT, 3, 0, 1, ints, NULL, types), UMP_ERR_INVALID);
    CHECK(!strcmp(ump_dt_name(v), ""), "unnamed: '%s'", ump_dt_name(v));
    EXPECT(ump_dt_set_name(v, "rows"), UMP_OK);
    CHECK(!strcmp(ump_dt_name(v), "rows"), "'%s'", ump_dt_name(v));

    /* resized: bounds move, data do not; a dup of a committed type is committed */
    EXPECT(ump_dt_resized(v, -4, 64, &r), UMP_OK);
    EXPECT(ump_dt_get_extent(r, &lb, &ext), UMP_OK);
    CHECK(lb == -4 && ext == 64, "lb %td extent %td", lb, ext);
    EXPECT(ump_dt_get_true_extent(r, &tlb, &text), UMP_OK);
    CHECK(tlb == 0 && text == (ptrdiff_t)V_EXTENT, "true lb %td extent %td", tlb, text);
    EXPECT(ump_dt_envelope(r, &ni, &na, &nd, &comb), UMP_OK);
    CHECK(comb == UMP_DT_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1, "combiner %d", comb);
    ptrdiff_t aints[2];
    EXPECT(ump_dt_contents(r, 0, 2, 1, NULL, aints, types), UMP_OK);
    CHECK(aints[0] == -4 && aints[1] == 64 && types[0] == v, "resized contents");
    EXPECT(ump_dt_free(&types[0]), UMP_OK); /* contents gave a new handle to v */
    EXPECT(ump_dt_commit(r), UMP_OK);
    EXPECT(ump_dt_dup(r, &d), UMP_OK);
    EXPECT(ump_dt_get_extent(d, &lb, &ext), UMP_OK);
    CHECK(lb == -4 && ext == 64 && ump_dt_size(d) == V_SIZE, "dup bounds");

    /* subarray: rows 1-2, columns 1-3 of a 4 x 5 int array in C order */
    int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 1};
    EXPECT(ump_dt_subarray(2, sizes, subs, starts, UMP_DT_ORDER_C, UMP_INT, &sub), UMP_OK);
    CHECK(ump_dt_size(sub) == 6 * sizeof(int), "subarray size %zu", ump_dt_size(sub));
    EXPECT(ump_dt_get_extent(sub, &lb, &ext), UMP_OK);
    CHECK(lb == 0 && ext == 20 * (ptrdiff_t)sizeof(int), "subarray extent %td", ext);
    EXPECT(ump_dt_get_true_extent(sub, &tlb, &text), UMP_OK);
    CHECK(tlb == 6 * (ptrdiff_t)sizeof(int) && text == 8 * (ptrdiff_t)sizeof(int),
          "subarray true lb %td extent %td", tlb, text);
    EXPECT(ump_dt_subarray(2, sizes, subs, starts, 3, UMP_INT, &bad), UMP_ERR_INVALID);

    /* darray: 10 ints in blocks over 2 processes, this rank's half */
    int g = 10, dist = UMP_DT_DISTRIBUTE_BLOCK, darg = UMP_DT_DISTRIBUTE_DFLT_DARG, p = 2;
    EXPECT(ump_dt_darray(2, ump_rank() % 2, 1, &g, &dist, &darg, &p, UMP_DT_ORDER_C, UMP_INT, &da),
           UMP_OK);
    CHECK(ump_dt_size(da) == 5 * sizeof(int), "darray size %zu", ump_dt_size(da));
    EXPECT(ump_dt_get_true_extent(da, &tlb, &text), UMP_OK);
    CHECK(tlb == (ump_rank() % 2) * 5 * (ptrdiff_t)sizeof(int), "darray true lb %td", tlb);
    EXPECT(ump_dt_envelope(da, &ni, &na, &nd, &comb), UMP_OK);
    CHECK(comb == UMP_DT_COMBINER_DARRAY, "combiner %d", comb);

    /* bad arguments: clear codes, *out untouched */
    EXPECT(ump_dt_contiguous(-1, UMP_INT, &bad), UMP_ERR_COUNT);
    EXPECT(ump_dt_vector(2, -1, 1, UMP_INT, &bad), UMP_ERR_COUNT);
    EXPECT(ump_dt_contiguous(2, NULL, &bad), UMP_ERR_DATATYPE);
    EXPECT(ump_dt_contiguous(2, UMP_INT, NULL), UMP_ERR_INVALID);
    EXPECT(ump_dt_struct(1, NULL, NULL, NULL, &bad), UMP_ERR_INVALID);
    CHECK(bad == NULL, "a failed constructor wrote *out");
    EXPECT(ump_dt_get_extent(v, NULL, &ext), UMP_ERR_INVALID);
    struct ump_dt *predef = (struct ump_dt *)UMP_INT;
    EXPECT(ump_dt_free(&predef), UMP_ERR_DATATYPE);

    /* free: the handle goes NULL; types built from a freed one live on */
    EXPECT(ump_dt_free(&v), UMP_OK);
    CHECK(v == NULL, "free left the handle");
    EXPECT(ump_dt_get_extent(r, &lb, &ext), UMP_OK);
    EXPECT(ump_dt_get_extent(v, &lb, &ext), UMP_ERR_DATATYPE);
    EXPECT(ump_dt_free(&v), UMP_ERR_DATATYPE);
    EXPECT(ump_dt_free(&r), UMP_OK);
    EXPECT(ump_dt_free(&d), UMP_OK);
    EXPECT(ump_dt_free(&sub), UMP_OK);
    EXPECT(ump_dt_free(&da), UMP_OK);
}

/* --- transfers ----------------------------------------------------------------- */

/* The stream of count elements packed by hand from the C layout. */
static void pack_ref(const layout_t *L, const uint8_t *buf, size_t count, uint8_t *out)
{
    for (size_t k = 0; k < count; k++)
        for (int j = 0; j < L->nruns; j++) {
            memcpy(out, buf + k * L->extent + L->off[j], L->len[j]);
            out += L->len[j];
        }
}

/* 1 where a byte of the buffer is data of the count elements. */
static void data_mask(const layout_t *L, size_t count, uint8_t *mask)
{
    memset(mask, 0, count * L->extent);
    for (size_t k = 0; k < count; k++)
        for (int j = 0; j < L->nruns; j++)
            memset(mask + k * L->extent + L->off[j], 1, L->len[j]);
}

static void transfer(const layout_t *L, size_t count, int tag, uint64_t seed)
{
    int me = ump_rank();
    size_t bytes = count * L->extent, packed = count * L->size;
    uint8_t *buf = malloc(bytes + 1), *ref = malloc(bytes + 1), *mask = malloc(bytes + 1);
    uint8_t *stream = malloc(packed + 1), *want = malloc(packed + 1);
    CHECK(buf && ref && mask && stream && want, "out of memory for %zu elements", count);
    for (size_t i = 0; i < bytes; i++)
        ref[i] = pattern(seed, i); /* what rank 0 sends from */
    ump_status_t st;
    if (me == 0) {
        memcpy(buf, ref, bytes);
        EXPECT(ump_send(buf, count, L->dt, 1, tag, CTX), UMP_OK);
        CHECK(!memcmp(buf, ref, bytes), "%s: the send buffer changed", L->what);
        /* the stream rank 1 sends back must be the hand-packed one */
        memset(stream, 0xa5, packed + 1);
        EXPECT(ump_recv(stream, packed + 1, UMP_BYTE, 1, tag, CTX, &st), UMP_OK);
        CHECK(st.count == packed && st.msg_len == packed, "%s x %zu: got %zu bytes, expected %zu",
              L->what, count, st.count, packed);
        pack_ref(L, ref, count, want);
        for (size_t i = 0; i < packed; i++)
            CHECK(stream[i] == want[i], "%s x %zu: packed byte %zu is 0x%02x, expected 0x%02x",
                  L->what, count, i, stream[i], want[i]);
        CHECK(stream[packed] == 0xa5, "%s x %zu: byte past the stream written", L->what, count);
    } else if (me == 1) {
        memset(buf, 0xee, bytes);
        EXPECT(ump_recv(buf, count, L->dt, 0, tag, CTX, &st), UMP_OK);
        CHECK(st.source == 0 && st.tag == tag && st.count == packed,
              "%s x %zu: status source %d tag %d count %zu, expected %zu", L->what, count,
              st.source, st.tag, st.count, packed);
        data_mask(L, count, mask);
        for (size_t i = 0; i < bytes; i++) {
            uint8_t exp = mask[i] ? ref[i] : 0xee;
            CHECK(buf[i] == exp, "%s x %zu: byte %zu (%s) is 0x%02x, expected 0x%02x", L->what,
                  count, i, mask[i] ? "data" : "gap", buf[i], exp);
        }
        EXPECT(ump_send(buf, count, L->dt, 0, tag, CTX), UMP_OK);
    }
    free(buf);
    free(ref);
    free(mask);
    free(stream);
    free(want);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Counts whose packed size brackets each threshold: n * size <= t < (n+1) * size. */
static size_t counts_for(size_t elem, size_t *out, size_t max)
{
    const size_t thr[] = {
        env_size("UMP_SHM_EAGER_LIMIT", 8 << 10), env_size("UMP_TCP_EAGER_LIMIT", 64 << 10),
        env_size("UMP_SHM_SEG_SIZE", 32 << 10),   env_size("UMP_TCP_SEG_SIZE", 256 << 10),
        env_size("UMP_CREDITS", 2 << 20),
    };
    size_t n = 0;
    out[n++] = 0;
    out[n++] = 1;
    out[n++] = 2;
    for (size_t k = 0; k < sizeof(thr) / sizeof(thr[0]); k++) {
        size_t below = thr[k] / elem;
        for (size_t c = below ? below - 1 : 0; c <= below + 1 && n < max; c++)
            out[n++] = c;
    }
    out[n++] = ((size_t)3 << 20) / elem + 7; /* a rendezvous of many segments */
    qsort(out, n, sizeof(*out), cmp_size);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (!m || out[k] != out[m - 1]) out[m++] = out[k];
    return m;
}

int main(int argc, char **argv)
{
    int provided;
    if (ump_init(&argc, &argv, UMP_THREAD_SINGLE, &provided) != UMP_OK) return 1;
    if (ump_size() != 2) FAIL("run with 2 ranks, not %d", ump_size());
    check_queries();

    layout_t vec = {.what = "vector", .size = V_SIZE, .extent = V_EXTENT, .nruns = V_BLOCKS};
    EXPECT(ump_dt_vector(V_BLOCKS, V_BLK, V_STRIDE, UMP_INT, &vec.dt), UMP_OK);
    for (int j = 0; j < V_BLOCKS; j++) {
        vec.off[j] = (ptrdiff_t)(j * V_STRIDE * sizeof(int));
        vec.len[j] = V_BLK * sizeof(int);
    }
    layout_t par = {
        .what = "struct", .size = P_SIZE, .extent = sizeof(struct particle), .nruns = P_FIELDS};
    const ump_dt_t ptypes[P_FIELDS] = {UMP_DOUBLE, UMP_CHAR, UMP_INT, UMP_SHORT, UMP_DOUBLE};
    EXPECT(ump_dt_struct(P_FIELDS, p_bl, p_disp, ptypes, &par.dt), UMP_OK);
    for (int j = 0; j < P_FIELDS; j++) {
        par.off[j] = p_disp[j];
        par.len[j] = p_len[j];
    }
    const layout_t *types[2] = {&vec, &par};
    for (int t = 0; t < 2; t++) {
        /* the engine's facts agree with the C layout */
        ptrdiff_t lb, ext;
        CHECK(ump_dt_size(types[t]->dt) == types[t]->size, "%s size %zu", types[t]->what,
              ump_dt_size(types[t]->dt));
        EXPECT(ump_dt_get_extent(types[t]->dt, &lb, &ext), UMP_OK);
        CHECK(lb == 0 && ext == (ptrdiff_t)types[t]->extent, "%s extent %td", types[t]->what, ext);
        EXPECT(ump_dt_commit(types[t]->dt), UMP_OK);
    }

    int tag = 0;
    for (int t = 0; t < 2; t++) {
        size_t counts[32];
        size_t n = counts_for(types[t]->size, counts, 24);
        for (size_t k = 0; k < n; k++, tag++)
            transfer(types[t], counts[k], tag, (uint64_t)tag * 1000003u + 17);
    }
    if (ump_rank() == 0) printf("dt_core: %d transfers checked\n", tag);

    EXPECT(ump_dt_free(&vec.dt), UMP_OK);
    EXPECT(ump_dt_free(&par.dt), UMP_OK);
    return ump_finalize() == UMP_OK ? 0 : 1;
}
