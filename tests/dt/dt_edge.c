/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_edge: corner cases of moving non-contiguous data between processes.
 *
 *   dt_edge <case>
 *   anysrc    every other rank sends to rank 0, which receives with
 *             MPI_ANY_SOURCE: long-run and short-run senders at once (with
 *             a low single-copy threshold they take different schemes)
 *   rotate    each rank sends to the next 100 types in rotation (more
 *             than the 64 layout slots per peer, ids colliding modulo 64),
 *             three rounds with new types each round; the receiver lets
 *             every RTS wait as unexpected (holding its layout while the
 *             slots are overwritten) and takes them in reverse order
 *   typefree  types freed by the user while sends and receives using them
 *             are in flight; MPI_Request_free of an active send
 *   cancel    a posted non-contiguous receive cancelled, then one matched
 *   odd       zero counts, zero-size types, negative lb and true_lb,
 *             send types whose elements overlap (extent < true extent)
 *   threads   MPI_THREAD_MULTIPLE: four threads per rank echo
 *             non-contiguous messages at once, each on its own communicator
 *   big       one message of more than 2 GiB (4 GiB of memory per rank):
 *             sizes and offsets past 32 bits in every scheme
 *   nomem     (with UMP_DT_FAIL_CURSOR set on one rank) a cursor allocation
 *             fails in a pipelined transfer: both requests fail with
 *             MPI_ERR_NO_MEM and nothing hangs; the other messages arrive
 *
 * The receiver checks what it got against the sender's stream, which it
 * computes itself (MPI_Pack of the same buffer the sender filled).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, np;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "[dt_edge rank %d] FAIL %s:%d: ", me, __FILE__, __LINE__);                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) FAIL(__VA_ARGS__);                                                               \
    } while (0)
#define CALL(x)                                                                                    \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #x, rc_);                                      \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void fill(void *buf, size_t n, uint64_t seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(mix(seed * 7919 + i / 8) >> ((i % 8) * 8));
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p, "out of memory (%zu bytes)", n);
    return p;
}

/* Bytes a buffer for count elements of t needs, and the offset of buf in it
 * (types may reach below buf). */
static size_t span(MPI_Datatype t, int count, size_t *off)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    if (count == 0) {
        *off = 0;
        return 1;
    }
    MPI_Aint lo = tlb, hi = tlb + text;
    MPI_Aint last = (MPI_Aint)(count - 1) * ext;
    if (last < 0)
        lo += last;
    else
        hi += last;
    *off = lo < 0 ? (size_t)-lo : 0;
    return (size_t)(hi - (lo < 0 ? lo : 0)) + 16;
}

/* The packed stream of count elements of t over a buffer filled from seed. */
static char *stream_of(MPI_Datatype t, int count, uint64_t seed, int *bytes)
{
    size_t off, n = span(t, count, &off);
    char *mem = xmalloc(n);
    fill(mem, n, seed);
    int sz;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &sz);
    char *out = xmalloc((size_t)sz);
    int pos = 0;
    CALL(MPI_Pack(mem + off, count, t, out, sz, &pos, MPI_COMM_WORLD));
    free(mem);
    *bytes = pos;
    return out;
}

/* Checks that count elements of rt at buf hold the sender's stream (st, n). */
static void check_recv(const char *what, const void *buf, MPI_Datatype rt, int count,
                       const char *want, int n)
{
    int sz;
    MPI_Pack_size(count, rt, MPI_COMM_WORLD, &sz);
    char *got = xmalloc((size_t)sz);
    int pos = 0;
    CALL(MPI_Pack(buf, count, rt, got, sz, &pos, MPI_COMM_WORLD));
    CHECK(pos >= n, "%s: receive type holds %d bytes, message %d", what, pos, n);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: byte %d of %d differs", what, i, n);
    free(got);
}

/* A sending buffer for count elements of t filled from seed; *base is the
 * allocation. */
static char *send_buf(MPI_Datatype t, int count, uint64_t seed, char **base)
{
    size_t off, n = span(t, count, &off);
    *base = xmalloc(n);
    fill(*base, n, seed);
    return *base + off;
}

static char *recv_buf(MPI_Datatype t, int count, char **base)
{
    size_t off, n = span(t, count, &off);
    *base = xmalloc(n);
    memset(*base, 0xee, n);
    return *base + off;
}

static MPI_Datatype vec(int n, int blk, int stride, MPI_Datatype base)
{
    MPI_Datatype t;
    CALL(MPI_Type_vector(n, blk, stride, base, &t));
    CALL(MPI_Type_commit(&t));
    return t;
}

/* --- anysrc ---------------------------------------------------------------- */

#define ANY_MSGS 10

static MPI_Datatype any_type(int src)
{
    /* odd senders: 8 KiB runs; even: 12-byte runs */
    return src % 2 ? vec(4, 2048, 3000, MPI_INT) : vec(64, 3, 7, MPI_INT);
}

static int any_count(int src, int k)
{
    int elem = src % 2 ? 4 * 2048 * 4 : 64 * 12; /* bytes per element */
    size_t bytes = (size_t)(mix((uint64_t)src * 100 + (uint64_t)k) % (1u << 20)) + 1;
    if (k % 3 == 0) bytes %= 2000; /* some eager */
    return (int)(bytes / (size_t)elem) + 1;
}

static void case_anysrc(void)
{
    CHECK(np >= 3, "anysrc needs at least 3 ranks");
    if (me != 0) {
        MPI_Datatype t = any_type(me);
        MPI_Request rq[ANY_MSGS];
        char *bases[ANY_MSGS];
        for (int k = 0; k < ANY_MSGS; k++) {
            char *b = send_buf(t, any_count(me, k), (uint64_t)me * 1000 + (uint64_t)k, &bases[k]);
            CALL(MPI_Isend(b, any_count(me, k), t, 0, k, MPI_COMM_WORLD, &rq[k]));
        }
        CALL(MPI_Waitall(ANY_MSGS, rq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < ANY_MSGS; k++)
            free(bases[k]);
        MPI_Type_free(&t);
        return;
    }
    int total = (np - 1) * ANY_MSGS, rcount = (1 << 20) / 20 + 100;
    MPI_Datatype rt = vec(1, 5, 9, MPI_INT), rr;
    CALL(MPI_Type_create_resized(rt, 0, 5 * 4, &rr)); /* 20 data bytes per element, packed */
    CALL(MPI_Type_commit(&rr));
    MPI_Type_free(&rt);
    MPI_Request *rq = xmalloc(sizeof(*rq) * (size_t)total);
    char **bases = xmalloc(sizeof(char *) * (size_t)total),
         **bufs = xmalloc(sizeof(char *) * (size_t)total);
    for (int i = 0; i < total; i++) {
        bufs[i] = recv_buf(rr, rcount, &bases[i]);
        CALL(MPI_Irecv(bufs[i], rcount, rr, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]));
    }
    int *seen = calloc((size_t)total, sizeof(int));
    for (int i = 0; i < total; i++) {
        int idx;
        MPI_Status st;
        CALL(MPI_Waitany(total, rq, &idx, &st));
        int src = st.MPI_SOURCE, k = st.MPI_TAG;
        CHECK(src >= 1 && src < np && k >= 0 && k < ANY_MSGS, "status %d/%d", src, k);
        CHECK(!seen[(src - 1) * ANY_MSGS + k]++, "message %d from %d twice", k, src);
        MPI_Datatype t = any_type(src);
        int n, c = any_count(src, k), bytes;
        char *want = stream_of(t, c, (uint64_t)src * 1000 + (uint64_t)k, &n);
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(bytes == n, "message %d from %d: %d bytes, want %d", k, src, bytes, n);
        char what[64];
        snprintf(what, sizeof(what), "message %d from rank %d", k, src);
        check_recv(what, bufs[idx], rr, rcount, want, n);
        free(want);
        MPI_Type_free(&t);
    }
    for (int i = 0; i < total; i++)
        free(bases[i]);
    free(seen);
    free(rq);
    free(bases);
    free(bufs);
    MPI_Type_free(&rr);
}

/* --- rotate ------------------------------------------------------------------ */

#define ROT_TYPES  100
#define ROT_ROUNDS 3

static MPI_Datatype rot_type(int round, int i)
{
    /* Runs of 4-12 KiB, so a low single-copy threshold makes them travel
     * as layouts for scatter/gather. */
    int blk = 1024 + 256 * ((i + round) % 32);
    return vec(4, blk, blk + 16 + i, MPI_INT);
}

static void case_rotate(void)
{
    int to = (me + 1) % np, from = (me + np - 1) % np;
    for (int round = 0; round < ROT_ROUNDS; round++) {
        MPI_Datatype st[ROT_TYPES], rt[ROT_TYPES];
        MPI_Request sq[ROT_TYPES], rq[ROT_TYPES];
        char *sb[ROT_TYPES], *rb[ROT_TYPES], *rbase[ROT_TYPES];
        for (int i = 0; i < ROT_TYPES; i++) {
            st[i] = rot_type(round, i);
            int c = 1 + i % 3;
            char *b = send_buf(st[i], c, (uint64_t)(round * 1000 + i) * 31 + (uint64_t)me, &sb[i]);
            CALL(MPI_Isend(b, c, st[i], to, i, MPI_COMM_WORLD, &sq[i]));
        }
        /* Let every RTS arrive unexpected. */
        int flag = 0;
        while (!flag)
            CALL(MPI_Iprobe(from, ROT_TYPES - 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        for (int i = ROT_TYPES - 1; i >= 0; i--) {
            rt[i] = rot_type(round, i); /* the sender's layout, its own id here */
            int c = 1 + i % 3;
            char *b = recv_buf(rt[i], c, &rbase[i]);
            rb[i] = b;
            CALL(MPI_Irecv(b, c, rt[i], from, i, MPI_COMM_WORLD, &rq[i]));
        }
        CALL(MPI_Waitall(ROT_TYPES, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < ROT_TYPES; i++) {
            int n, c = 1 + i % 3;
            char *want =
                stream_of(rt[i], c, (uint64_t)(round * 1000 + i) * 31 + (uint64_t)from, &n);
            char what[64];
            snprintf(what, sizeof(what), "round %d type %d", round, i);
            check_recv(what, rb[i], rt[i], c, want, n);
            free(want);
            free(rbase[i]);
            MPI_Type_free(&rt[i]);
        }
        CALL(MPI_Waitall(ROT_TYPES, sq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < ROT_TYPES; i++) {
            free(sb[i]);
            MPI_Type_free(&st[i]);
        }
    }
}

/* --- typefree ------------------------------------------------------------------ */

static void case_typefree(void)
{
    CHECK(np >= 2, "typefree needs 2 ranks");
    if (me > 1) return;
    int peer = 1 - me;
    static const int counts[] = {1, 40, 2000, 30000};
    for (int k = 0; k < 4; k++) {
        int c = counts[k];
        MPI_Datatype t = vec(3, 5, 11, MPI_DOUBLE), keep = vec(3, 5, 11, MPI_DOUBLE);
        MPI_Request rq;
        char *base;
        if (me == 0) {
            char *b = send_buf(t, c, (uint64_t)k + 77, &base);
            CALL(MPI_Isend(b, c, t, peer, k, MPI_COMM_WORLD, &rq));
            CALL(MPI_Type_free(&t));
            CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free left the handle");
            CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            char *b = recv_buf(t, c, &base);
            CALL(MPI_Irecv(b, c, t, peer, k, MPI_COMM_WORLD, &rq));
            CALL(MPI_Type_free(&t));
            CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            int n;
            char *want = stream_of(keep, c, (uint64_t)k + 77, &n);
            check_recv("type freed in flight", b, keep, c, want, n);
            free(want);
        }
        free(base);
        MPI_Type_free(&keep);
    }
    /* MPI_Request_free of an active rendezvous send whose type is freed too;
     * the receive comes late. */
    MPI_Datatype t = vec(100, 7, 13, MPI_INT), keep = vec(100, 7, 13, MPI_INT);
    int c = 500;
    char *base;
    if (me == 0) {
        MPI_Request rq;
        char *b = send_buf(t, c, 4242, &base);
        CALL(MPI_Isend(b, c, t, 1, 50, MPI_COMM_WORLD, &rq));
        CALL(MPI_Request_free(&rq));
        CALL(MPI_Type_free(&t));
        /* The buffer stays ours until the receiver says it has the data. */
        CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        usleep(50000);
        char *b = recv_buf(t, c, &base);
        CALL(MPI_Recv(b, c, t, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int n;
        char *want = stream_of(keep, c, 4242, &n);
        check_recv("request freed in flight", b, keep, c, want, n);
        free(want);
        CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 51, MPI_COMM_WORLD));
        MPI_Type_free(&t);
    }
    free(base);
    MPI_Type_free(&keep);
}

/* --- cancel ---------------------------------------------------------------------- */

static void case_cancel(void)
{
    if (me > 1) return;
    MPI_Datatype t = vec(50, 3, 8, MPI_INT);
    int c = 400;
    char *base;
    if (me == 1) {
        char *b = recv_buf(t, c, &base);
        MPI_Request rq;
        MPI_Status st;
        int flag;
        CALL(MPI_Irecv(b, c, t, 0, 99, MPI_COMM_WORLD, &rq));
        CALL(MPI_Cancel(&rq));
        CALL(MPI_Wait(&rq, &st));
        CALL(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "posted receive not cancelled");
        MPI_Barrier(MPI_COMM_WORLD);
        CALL(MPI_Irecv(b, c, t, 0, 99, MPI_COMM_WORLD, &rq));
        CALL(MPI_Wait(&rq, &st));
        CALL(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "matched receive reported cancelled");
        int n;
        char *want = stream_of(t, c, 99, &n);
        check_recv("after cancel", b, t, c, want, n);
        free(want);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        char *b = send_buf(t, c, 99, &base);
        CALL(MPI_Send(b, c, t, 1, 99, MPI_COMM_WORLD));
    }
    free(base);
    MPI_Type_free(&t);
}

/* --- odd layouts ------------------------------------------------------------------- */

/* Sends count elements of st from rank 0, received as rcount of rt on rank 1;
 * checks the stream and the status count. */
static void xfer(const char *what, MPI_Datatype st, int count, MPI_Datatype rt, int rcount, int tag)
{
    char *base;
    int n;
    if (me == 0) {
        char *b = send_buf(st, count, (uint64_t)tag, &base);
        CALL(MPI_Send(b, count, st, 1, tag, MPI_COMM_WORLD));
    } else if (me == 1) {
        char *b = recv_buf(rt, rcount, &base);
        MPI_Status s;
        CALL(MPI_Recv(b, rcount, rt, 0, tag, MPI_COMM_WORLD, &s));
        char *want = stream_of(st, count, (uint64_t)tag, &n);
        int got;
        MPI_Get_count(&s, MPI_BYTE, &got);
        CHECK(got == n, "%s: %d bytes received, %d sent", what, got, n);
        check_recv(what, b, rt, rcount, want, n);
        free(want);
    } else {
        return;
    }
    free(base);
}

static void case_odd(void)
{
    if (me > 1) return;
    MPI_Datatype v = vec(3, 2, 5, MPI_INT), z, zz, neg, negr, ovl, tmp, contig;
    int tag = 0;
    /* zero counts */
    xfer("zero count", v, 0, v, 10, tag++);
    /* zero-size types */
    z = vec(0, 2, 5, MPI_INT);
    CALL(MPI_Type_contiguous(0, MPI_DOUBLE, &zz));
    CALL(MPI_Type_commit(&zz));
    xfer("zero-size type", z, 1000, zz, 3, tag++);
    /* negative displacements and lb: blocks below and above buf */
    int bl[3] = {100, 1, 3000};
    MPI_Aint dis[3] = {-8192, 40, 16384};
    CALL(MPI_Type_create_hindexed(3, bl, dis, MPI_INT, &tmp));
    CALL(MPI_Type_create_resized(tmp, -20000, 60000, &neg));
    CALL(MPI_Type_commit(&neg));
    MPI_Type_free(&tmp);
    CALL(MPI_Type_create_resized(v, -100, 64, &negr)); /* true_lb 0, lb -100 */
    CALL(MPI_Type_commit(&negr));
    CALL(MPI_Type_contiguous(7, MPI_INT, &contig));
    CALL(MPI_Type_commit(&contig));
    static const int ncs[] = {1, 3, 40};
    for (int i = 0; i < 3; i++) {
        int c = ncs[i], bytes = c * (100 + 1 + 3000) * 4;
        xfer("negative lb (send)", neg, c, v, bytes / 24 + 1, tag++);
        xfer("negative lb (receive)", v, bytes / 24, neg, c, tag++);
        xfer("negative lb, resized", negr, 2000 * c, neg, c * 20, tag++);
    }
    /* Overlapping send elements: extent 256 < true extent 768. Legal to send. */
    MPI_Datatype ov = vec(2, 64, 128, MPI_INT);
    CALL(MPI_Type_create_resized(ov, 0, 256, &ovl));
    CALL(MPI_Type_commit(&ovl));
    static const int ocs[] = {1, 7, 500, 4000};
    for (int i = 0; i < 4; i++)
        xfer("overlapping send elements", ovl, ocs[i], contig, ocs[i] * 512 / 28 + 1, tag++);
    MPI_Type_free(&v);
    MPI_Type_free(&z);
    MPI_Type_free(&zz);
    MPI_Type_free(&neg);
    MPI_Type_free(&negr);
    MPI_Type_free(&ov);
    MPI_Type_free(&ovl);
    MPI_Type_free(&contig);
}

/* --- threads --------------------------------------------------------------------- */

#define NTHREADS 4
#define TMSGS    40
static MPI_Comm tcomm[NTHREADS];

static void *thr(void *arg)
{
    int t = (int)(intptr_t)arg, peer = 1 - me;
    MPI_Datatype st = vec(16, 3 + t, 9 + t, MPI_INT), rt = vec(8, 5, 11, MPI_INT);
    int sel = (3 + t) * 16 * 4, rel = 5 * 8 * 4;
    for (int k = 0; k < TMSGS; k++) {
        size_t bytes = (size_t)(mix((uint64_t)t * 1000 + (uint64_t)k) % 400000) + 1;
        if (k % 2) bytes %= 3000;
        int c = (int)(bytes / (size_t)sel) + 1, n;
        int rc = (c * sel) / rel + 1;
        char *sbase, *rbase;
        char *want = stream_of(st, c, (uint64_t)t * 100 + (uint64_t)k, &n);
        char *rb = recv_buf(rt, rc, &rbase);
        char *sb = send_buf(st, c, (uint64_t)t * 100 + (uint64_t)k, &sbase);
        if (me == 0) {
            CALL(MPI_Send(sb, c, st, peer, k, tcomm[t]));
            CALL(MPI_Recv(rb, rc, rt, peer, k, tcomm[t], MPI_STATUS_IGNORE));
        } else {
            MPI_Request q;
            CALL(MPI_Irecv(rb, rc, rt, peer, k, tcomm[t], &q));
            CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
            check_recv("thread message", rb, rt, rc, want, n);
            CALL(MPI_Send(sb, c, st, peer, k, tcomm[t]));
        }
        if (me == 0) check_recv("thread echo", rb, rt, rc, want, n);
        free(want);
        free(sbase);
        free(rbase);
    }
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    return NULL;
}

static void case_threads(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        if (me == 0) printf("dt_edge threads: MPI_THREAD_MULTIPLE not provided\n");
        return;
    }
    for (int t = 0; t < NTHREADS; t++)
        CALL(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
    if (me <= 1) {
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++)
            CHECK(!pthread_create(&th[t], NULL, thr, (void *)(intptr_t)t), "pthread_create");
        for (int t = 0; t < NTHREADS; t++)
            pthread_join(th[t], NULL);
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&tcomm[t]);
}

/* --- nomem ------------------------------------------------------------------------ */

static void case_nomem(void)
{
    if (me > 1) return;
    MPI_Datatype t = vec(64, 3, 7, MPI_INT);
    int c = 2000, nfail = 0;
    for (int k = 0; k < 12; k++) {
        char *base;
        int rc;
        if (me == 0) {
            char *b = send_buf(t, c, (uint64_t)k, &base);
            rc = MPI_Send(b, c, t, 1, k, MPI_COMM_WORLD);
        } else {
            char *b = recv_buf(t, c, &base);
            rc = MPI_Recv(b, c, t, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) {
                int n;
                char *want = stream_of(t, c, (uint64_t)k, &n);
                check_recv("after a failed transfer", b, t, c, want, n);
                free(want);
            }
        }
        free(base);
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_NO_MEM, "message %d: error class %d", k, cls);
        /* Both sides agree on the outcome. */
        int mine = rc != MPI_SUCCESS, theirs;
        CALL(MPI_Sendrecv(&mine, 1, MPI_INT, 1 - me, 1000 + k, &theirs, 1, MPI_INT, 1 - me,
                          1000 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mine == theirs, "message %d: this side %s, the other %s", k, mine ? "failed" : "ok",
              theirs ? "failed" : "ok");
        nfail += mine;
    }
    CHECK(nfail > 0, "no transfer failed: is UMP_DT_FAIL_CURSOR set on a rank?");
    MPI_Type_free(&t);
}

/* --- big ------------------------------------------------------------------------- */

/* The stream in 4 KiB chunks: chunk c holds its index in its first 8 bytes
 * and (c * 131 + 7) mod 256 in the rest (cheap to write and to check). */
#define CHUNK 4096
static unsigned char tmpl[256][CHUNK];

static void big_fill(char *run, size_t first, size_t n)
{
    for (size_t o = 0; o < n; o += CHUNK) {
        uint64_t c = (first + o) / CHUNK;
        memcpy(run + o, tmpl[(c * 131 + 7) % 256], CHUNK);
        memcpy(run + o, &c, sizeof(c));
    }
}

static void big_check(const char *run, size_t first, size_t n)
{
    for (size_t o = 0; o < n; o += CHUNK) {
        uint64_t c = (first + o) / CHUNK, got;
        memcpy(&got, run + o, sizeof(got));
        CHECK(got == c, "chunk %llu holds chunk %llu", (unsigned long long)c,
              (unsigned long long)got);
        CHECK(!memcmp(run + o + 8, tmpl[(c * 131 + 7) % 256] + 8, CHUNK - 8), "chunk %llu differs",
              (unsigned long long)c);
    }
}

static void case_big(void)
{
    if (me > 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    for (int v = 0; v < 256; v++)
        memset(tmpl[v], v, CHUNK);
    /* Sender: 2 runs of 1.07 GB, 4 KiB apart; receiver: 4 runs of 0.54 GB,
     * 64 bytes apart; 2.15 GB in all (past 2^31). */
    const size_t sblk = (size_t)262208 * CHUNK, rblk = sblk / 2, total = 2 * sblk;
    MPI_Datatype st = vec(2, (int)sblk, (int)sblk + 4096, MPI_CHAR);
    MPI_Datatype rt = vec(4, (int)rblk, (int)rblk + 64, MPI_CHAR);
    if (me == 0) {
        char *b = malloc(2 * sblk + 4096);
        CHECK(b, "no memory for the big case");
        for (size_t k = 0; k < 2; k++)
            big_fill(b + k * (sblk + 4096), k * sblk, sblk);
        MPI_Barrier(MPI_COMM_WORLD);
        CALL(MPI_Send(b, 1, st, 1, 7, MPI_COMM_WORLD));
        free(b);
    } else {
        char *b = malloc(4 * (rblk + 64));
        CHECK(b, "no memory for the big case");
        MPI_Status s;
        memset(b, 0, 4 * (rblk + 64));
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        CALL(MPI_Recv(b, 1, rt, 0, 7, MPI_COMM_WORLD, &s));
        printf("dt_edge big: %zu bytes in %.2f s\n", total, MPI_Wtime() - t0);
        int n;
        MPI_Get_count(&s, MPI_BYTE, &n);
        CHECK(n == MPI_UNDEFINED, "byte count of a %zu-byte message: %d", total, n);
        MPI_Get_count(&s, rt, &n);
        CHECK(n == 1, "count in receive types: %d", n);
        for (size_t k = 0; k < 4; k++)
            big_check(b + k * (rblk + 64), k * rblk, rblk);
        free(b);
    }
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    int provided = MPI_THREAD_SINGLE;
    if (!strcmp(which, "nomem")) {
        /* The injected failure is on one side only: rank 0 (sender) with
         * argument "send", else rank 1 (receiver). */
        const char *r = getenv("UMP_JOB_RANK");
        int side = argc > 2 && !strcmp(argv[2], "send") ? 0 : 1;
        if (!r || atoi(r) != side) unsetenv("UMP_DT_FAIL_CURSOR");
    }
    if (!strcmp(which, "threads"))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (!strcmp(which, "anysrc"))
        case_anysrc();
    else if (!strcmp(which, "rotate"))
        case_rotate();
    else if (!strcmp(which, "typefree"))
        case_typefree();
    else if (!strcmp(which, "cancel"))
        case_cancel();
    else if (!strcmp(which, "odd"))
        case_odd();
    else if (!strcmp(which, "threads"))
        case_threads(provided);
    else if (!strcmp(which, "nomem"))
        case_nomem();
    else if (!strcmp(which, "big"))
        case_big();
    else
        FAIL("unknown case '%s'", which);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("dt_edge %s: passed\n", which);
    MPI_Finalize();
    return 0;
}
