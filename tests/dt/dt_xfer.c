/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_xfer: random nested derived datatypes moved between processes.
 *
 * Every case builds two random layouts from seeds both ranks know: the
 * sender's (Ts, count) and the receiver's (Tr, rcount), over the same basic
 * type, so the two sides use different layouts of one signature. The
 * message size is steered around the eager limit and the rendezvous and
 * scheme thresholds. The receiver computes what its whole buffer must hold
 * afterwards — its background pattern with the sender's packed stream
 * unpacked into Tr's bytes, as far as they fit — and compares the whole
 * allocation, guard zones included, byte for byte: so data in the wrong
 * place, gaps written, or writes past the buffer all fail. Some cases give
 * the receiver less room than the message: MPI_ERR_TRUNCATE, the bytes that
 * fit are right, nothing else is touched.
 *
 * Receive modes rotate: blocking receive with the send already under way,
 * Irecv posted before the send, message probed first (so it waits as an
 * unexpected message or RTS), matched probe + Mrecv. One case in four
 * uses the core API (ump_isend/ump_irecv) directly with the same types.
 * Rank 0 sends to the last rank; on one rank it sends to itself.
 *
 *   dt_xfer [--cases N] [--seed S] [--max BYTES]
 * The scheme and pack mode are forced from the environment by the ctest
 * entries (UMP_DT_SCHEME, UMP_DT_PACK, UMP_TRANSPORTS, ...).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "dt/dt.h"
#include "ump.h"

#define GUARD 256
#define MAXT  64 /* types one case may create */

static int me, np;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "[dt_xfer rank %d] FAIL %s:%d: ", me, __FILE__, __LINE__);                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) FAIL(__VA_ARGS__);                                                               \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct {
    uint64_t s;
    MPI_Datatype made[MAXT];
    int nmade;
} gen_t;

static unsigned rnd(gen_t *g, unsigned n)
{
    g->s = mix(g->s);
    return n ? (unsigned)(g->s % n) : 0;
}

static MPI_Datatype keep(gen_t *g, MPI_Datatype t)
{
    if (g->nmade < MAXT) g->made[g->nmade++] = t;
    return t;
}

/* A random type over `base`, nesting at most `depth` levels. Every layout
 * is free of overlaps (MPI forbids overlapping receive types), so each
 * constructor leaves gaps >= 0 between the blocks it places. */
static MPI_Datatype rtype(gen_t *g, MPI_Datatype base, int depth)
{
    if (depth == 0 || rnd(g, 5) == 0) return base;
    MPI_Datatype c = rtype(g, base, depth - 1), t;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(c, &lb, &ext);
    MPI_Type_get_true_extent(c, &tlb, &text);
    /* Children placed side by side must not overlap: step by the larger of
     * extent and true extent. */
    MPI_Aint step = ext > text ? ext : text;
    int bsz;
    MPI_Type_size(base, &bsz);
    switch (rnd(g, 8)) {
    case 0: {
        int n = 1 + (int)rnd(g, 4);
        if (step != ext) {
            MPI_Type_create_hvector(n, 1, step, c, &t);
        } else {
            MPI_Type_contiguous(n, c, &t);
        }
        break;
    }
    case 1: {
        int n = 1 + (int)rnd(g, 6), bl = 1 + (int)rnd(g, 3);
        MPI_Aint stride = (MPI_Aint)bl * step + (MPI_Aint)rnd(g, 3) * bsz;
        if (rnd(g, 4) == 0) stride = -stride;
        MPI_Type_create_hvector(n, 1, stride, c, &t); /* blocks of 1: no overlap inside */
        if (bl > 1) {
            MPI_Datatype v = keep(g, t);
            MPI_Type_contiguous(bl, v, &t);
            (void)v;
        }
        break;
    }
    case 2:
    case 3: {
        int n = 1 + (int)rnd(g, 5), bl[8];
        MPI_Aint d[8], at = (MPI_Aint)rnd(g, 3) * bsz;
        for (int i = 0; i < n; i++) {
            bl[i] = (int)rnd(g, 3);
            d[i] = at;
            at += (MPI_Aint)(bl[i] ? bl[i] : 1) * step + (MPI_Aint)rnd(g, 4) * bsz;
        }
        if (rnd(g, 2)) {
            MPI_Type_create_hindexed(n, bl, d, c, &t);
        } else {
            MPI_Aint one[8];
            for (int i = 0; i < n; i++)
                one[i] = d[i];
            MPI_Type_create_hindexed_block(n, 1, one, c, &t);
        }
        break;
    }
    case 4: {
        /* int indexed on a plain base type: displacements in elements */
        int n = 1 + (int)rnd(g, 6), bl[8], d[8], at = (int)rnd(g, 3);
        for (int i = 0; i < n; i++) {
            bl[i] = 1 + (int)rnd(g, 4);
            d[i] = at;
            at += bl[i] + (int)rnd(g, 3);
        }
        MPI_Type_indexed(n, bl, d, base, &t);
        break;
    }
    case 5: {
        int n = 1 + (int)rnd(g, 3), bl[3];
        MPI_Aint d[3], at = 0;
        MPI_Datatype ty[3];
        for (int i = 0; i < n; i++) {
            ty[i] = i == 0 ? c : rtype(g, base, depth - 1);
            MPI_Aint l2, e2, tl2, te2;
            MPI_Type_get_extent(ty[i], &l2, &e2);
            MPI_Type_get_true_extent(ty[i], &tl2, &te2);
            bl[i] = 1;
            d[i] = at - tl2; /* true data starts at `at` */
            at += te2 + (MPI_Aint)rnd(g, 3) * bsz;
        }
        MPI_Type_create_struct(n, bl, d, ty, &t);
        /* A field with explicit bounds (resized, subarray) alone sets the
         * struct's bounds (MPI's sticky markers), which may then cover less
         * than the data and make elements overlap, which a receive type
         * must not: widen them to the data. */
        MPI_Aint sl, se, stl, ste;
        MPI_Type_get_extent(t, &sl, &se);
        MPI_Type_get_true_extent(t, &stl, &ste);
        if (se < ste) {
            MPI_Datatype s = keep(g, t);
            MPI_Type_create_resized(s, stl, ste, &t);
        }
        break;
    }
    case 6: {
        /* resized: a larger extent leaves a gap between elements */
        MPI_Aint lo = tlb - (MPI_Aint)rnd(g, 3) * bsz;
        MPI_Aint e = tlb + text - lo + (MPI_Aint)rnd(g, 4) * bsz;
        MPI_Type_create_resized(c, lo, e, &t);
        break;
    }
    default: {
        int sizes[2] = {2 + (int)rnd(g, 5), 2 + (int)rnd(g, 6)};
        int sub[2] = {1 + (int)rnd(g, (unsigned)sizes[0]), 1 + (int)rnd(g, (unsigned)sizes[1])};
        int st[2] = {(int)rnd(g, (unsigned)(sizes[0] - sub[0] + 1)),
                     (int)rnd(g, (unsigned)(sizes[1] - sub[1] + 1))};
        MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, base, &t);
        break;
    }
    }
    return keep(g, t);
}

static void free_types(gen_t *g)
{
    for (int i = 0; i < g->nmade; i++)
        MPI_Type_free(&g->made[i]);
    g->nmade = 0;
}

/* An allocation that holds `count` elements of t with GUARD bytes around. */
typedef struct {
    unsigned char *mem;
    size_t len;
    char *buf; /* the origin handed to MPI */
} area_t;

static void area(area_t *a, MPI_Datatype t, size_t count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    /* Elements go from tlb to (count-1)*ext + tlb + text (ext >= 0 here);
     * with a negative-stride child the true bounds cover it. */
    size_t span = count ? (size_t)((MPI_Aint)(count - 1) * ext + text) : 0;
    a->len = span + 2 * GUARD;
    a->mem = malloc(a->len);
    CHECK(a->mem, "out of memory (%zu bytes)", a->len);
    a->buf = (char *)a->mem + GUARD - tlb;
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(mix(seed + i / 8) >> (8 * (i % 8)));
}

enum { MODE_BLOCK, MODE_IRECV, MODE_PROBE, MODE_MPROBE, MODE_CORE, NMODES };

static const MPI_Datatype bases[] = {MPI_INT, MPI_BYTE, MPI_DOUBLE};

static void one_case(int cs, uint64_t seed, size_t max_bytes, int *ntrunc)
{
    int R = np - 1, tag = cs % 30000;
    gen_t gs = {.s = mix(seed ^ (uint64_t)cs * 7919)}, gr = {.s = mix(seed ^ ~(uint64_t)cs)};
    MPI_Datatype base = bases[rnd(&gs, 3)];
    MPI_Datatype ts = rtype(&gs, base, 3), tr = rtype(&gr, base, 3);
    if (ts != base) MPI_Type_commit(&ts);
    if (tr != base) MPI_Type_commit(&tr);
    int ss, rs;
    MPI_Type_size(ts, &ss);
    MPI_Type_size(tr, &rs);
    /* Sizes near the interesting edges: tiny, around the shm eager limit
     * (8k) and tcp's (64k), mid-size rendezvous, large pipelines. */
    static const size_t targets[] = {1,     100,   4000,  8000,   8192,   8300,    20000,
                                     65000, 65536, 70000, 200000, 600000, 1100000, 3000000};
    size_t want = targets[rnd(&gs, sizeof(targets) / sizeof(targets[0]))];
    if (want > max_bytes) want = max_bytes;
    size_t count = ss ? (want + (size_t)ss - 1) / (size_t)ss : 1;
    if (rnd(&gs, 10) == 0) count = 0;
    size_t total = count * (size_t)ss;
    bool trunc = total > 0 && rs > 0 && rnd(&gs, 6) == 0;
    size_t rcount = rs ? (total + (size_t)rs - 1) / (size_t)rs : 0;
    if (trunc) rcount = (total - 1) / (size_t)rs; /* room < total */
    if (!rs) rcount = 1;
    size_t room = rcount * (size_t)rs, take = total < room ? total : room;
    trunc = total > room;
    int mode = (int)rnd(&gs, NMODES);

    area_t sa, ra;
    area(&sa, ts, count);
    fill(sa.mem, sa.len, seed * 31 + (uint64_t)cs);
    /* The send is started first and finished last, so one rank can be
     * both ends (np 1: the self transport). */
    ump_req_t cq = UMP_REQ_NULL;
    MPI_Request mq = MPI_REQUEST_NULL;
    if (me == 0) {
        int rc;
        if (mode == MODE_CORE) {
            rc = ump_isend(sa.buf, count, (ump_dt_t)ts, R, tag, 77, &cq);
            CHECK(rc == UMP_OK, "ump_isend: %s", ump_strerror(rc));
        } else {
            rc = MPI_Isend(sa.buf, (int)count, ts, R, tag, MPI_COMM_WORLD, &mq);
            CHECK(rc == MPI_SUCCESS, "MPI_Isend case %d", cs);
        }
    }
    if (me == R) {
        area(&ra, tr, rcount);
        fill(ra.mem, ra.len, seed * 17 + (uint64_t)cs);
        /* The expected receive buffer: background plus the sender's stream. */
        unsigned char *ref = malloc(ra.len), *stream = malloc(total ? total : 1);
        CHECK(ref && stream, "out of memory");
        memcpy(ref, ra.mem, ra.len);
        char *refbuf = (char *)ref + (ra.buf - (char *)ra.mem);
        CHECK(ump_dt_pack(sa.buf, count, (ump_dt_t)ts, 0, stream, total) == UMP_OK, "pack");
        CHECK(ump_dt_unpack(refbuf, rcount, (ump_dt_t)tr, 0, stream, take) == UMP_OK, "unpack");

        MPI_Status st;
        int rc = MPI_SUCCESS;
        size_t got = 0;
        if (mode == MODE_CORE) {
            ump_req_t q;
            ump_status_t us;
            rc = ump_irecv(ra.buf, rcount, (ump_dt_t)tr, 0, tag, 77, &q);
            CHECK(rc == UMP_OK, "ump_irecv: %s", ump_strerror(rc));
            rc = ump_wait(&q, &us);
            CHECK(rc == (trunc ? UMP_ERR_TRUNCATE : UMP_OK), "case %d core recv: %s", cs,
                  ump_strerror(rc));
            CHECK(us.count == take && us.msg_len == total, "case %d core status %zu/%zu", cs,
                  us.count, us.msg_len);
            got = us.count;
        } else {
            MPI_Request q;
            MPI_Message m;
            switch (mode) {
            case MODE_BLOCK:
                rc = MPI_Recv(ra.buf, (int)rcount, tr, 0, tag, MPI_COMM_WORLD, &st);
                break;
            case MODE_IRECV:
                MPI_Irecv(ra.buf, (int)rcount, tr, 0, tag, MPI_COMM_WORLD, &q);
                rc = MPI_Wait(&q, &st);
                break;
            case MODE_PROBE:
                MPI_Probe(0, tag, MPI_COMM_WORLD, &st);
                rc = MPI_Recv(ra.buf, (int)rcount, tr, 0, tag, MPI_COMM_WORLD, &st);
                break;
            default:
                MPI_Mprobe(0, tag, MPI_COMM_WORLD, &m, &st);
                rc = MPI_Mrecv(ra.buf, (int)rcount, tr, &m, &st);
                break;
            }
            int ec;
            MPI_Error_class(rc, &ec);
            CHECK(ec == (trunc ? MPI_ERR_TRUNCATE : MPI_SUCCESS),
                  "case %d mode %d: error class %d, expected %d (%zu bytes into %zu)", cs, mode, ec,
                  trunc ? MPI_ERR_TRUNCATE : MPI_SUCCESS, total, room);
            int nbytes;
            MPI_Get_count(&st, MPI_BYTE, &nbytes);
            got = (size_t)nbytes;
        }
        CHECK(got == take, "case %d: received %zu bytes, expected %zu", cs, got, take);
        for (size_t i = 0; i < ra.len; i++)
            CHECK(ra.mem[i] == ref[i],
                  "case %d (mode %d, %zu bytes, Ts size %d, Tr size %d, room %zu): byte %zd of "
                  "the receive area (origin at %zd) is %u, expected %u",
                  cs, mode, total, ss, rs, room, (ssize_t)i, (ssize_t)(ra.buf - (char *)ra.mem),
                  ra.mem[i], ref[i]);
        if (trunc) (*ntrunc)++;
        free(ref);
        free(stream);
        free(ra.mem);
    }
    if (me == 0) {
        int rc = mode == MODE_CORE ? ump_wait(&cq, NULL) : MPI_Wait(&mq, MPI_STATUS_IGNORE);
        CHECK(rc == 0, "case %d: completing the send failed (%d)", cs, rc);
    }
    free(sa.mem);
    free_types(&gs); /* every type made, the top ones included */
    free_types(&gr);
}

int main(int argc, char **argv)
{
    int cases = 120;
    uint64_t seed = 12345;
    size_t max_bytes = 4u << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max_bytes = strtoull(argv[++i], NULL, 0);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ntrunc = 0;
    for (int cs = 0; cs < cases; cs++)
        one_case(cs, seed, max_bytes, &ntrunc);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == np - 1) {
        CHECK(cases < 40 || ntrunc > 0, "no case truncated: the generator lost a branch");
        printf("dt_xfer: %d cases passed (%d truncated)\n", cases, ntrunc);
    }
    MPI_Finalize();
    return 0;
}
