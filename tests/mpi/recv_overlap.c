/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * recv_overlap.c - datatypes with overlapping entries (MPI 3.1 §4.1.1:
 * sending from such a type is fine, receiving into it is erroneous). Under
 * MPI_ERRORS_RETURN every receive path refuses an overlapping receive type
 * with MPI_ERR_TYPE before anything moves: the buffer stays as it was, no
 * message is consumed or sent (Sendrecv), and the communicator stays
 * usable. The same types work as send types and deliver their bytes in
 * type-map order; the transpose type, whose elements interleave without
 * sharing a byte, receives a matrix transposed. Two ranks.
 */
#include "mt.h"

#ifdef OPEN_MPI
#define NAMES_OVERLAP 0
#else
#define NAMES_OVERLAP 1 /* ump's message says why */
#endif

enum { NI = 6 };                 /* ints in one element of the overlapping type */
enum { TAG_LATE = 9, TAG = 20 }; /* TAG .. TAG + 3 for the send-type checks */

static MPI_Datatype ovl;  /* blocks of 2 ints every int: [0,8) [4,12) [8,16) */
static MPI_Datatype ovl2; /* 4 ints resized to 2 ints of extent: overlaps from count 2 */
static int peer;

/* The refused call returned MPI_ERR_TYPE (and, in ump, says why). */
#define EXPECT_TYPE_ERR(call)                                                                      \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(mt_class(rc_) == MPI_ERR_TYPE, "%s returned %d (class %d: %s), want MPI_ERR_TYPE",   \
              #call, rc_, mt_class(rc_), mt_errstr(rc_));                                          \
        if (NAMES_OVERLAP)                                                                         \
            CHECK(strstr(mt_errstr(rc_), "overlapping") != NULL,                                   \
                  "%s: error string \"%s\" does not mention overlapping entries", #call,           \
                  mt_errstr(rc_));                                                                 \
    } while (0)

static void make_types(void)
{
    MPI_Datatype c4;
    CALL(MPI_Type_create_hvector(3, 2, (MPI_Aint)sizeof(int), MPI_INT, &ovl));
    CALL(MPI_Type_commit(&ovl));
    CALL(MPI_Type_contiguous(4, MPI_INT, &c4));
    CALL(MPI_Type_create_resized(c4, 0, 2 * (MPI_Aint)sizeof(int), &ovl2));
    CALL(MPI_Type_commit(&ovl2));
    CALL(MPI_Type_free(&c4));
}

/* What an element of ovl sends from src: ints 0 1 1 2 2 3. */
static void ovl_packed(const int *src, int *out)
{
    static const int idx[NI] = {0, 1, 1, 2, 2, 3};
    for (int i = 0; i < NI; i++)
        out[i] = src[idx[i]];
}

/* Every point-to-point receive path refuses the types, on both ranks. */
static void test_p2p_refused(void)
{
    unsigned char buf[256];
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    int x = 13;

    mt_fill(buf, sizeof(buf), 1);
    EXPECT_TYPE_ERR(MPI_Recv(buf, 1, ovl, peer, TAG_LATE, MPI_COMM_WORLD, &st));
    EXPECT_TYPE_ERR(MPI_Irecv(buf, 1, ovl, peer, TAG_LATE, MPI_COMM_WORLD, &r));
    EXPECT_TYPE_ERR(MPI_Irecv(buf, 5, ovl, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    EXPECT_TYPE_ERR(MPI_Recv_init(buf, 1, ovl, peer, TAG_LATE, MPI_COMM_WORLD, &r));
    EXPECT_TYPE_ERR(MPI_Recv(buf, 1, ovl, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    /* ovl2 alone is fine (received below); two of it share bytes. */
    EXPECT_TYPE_ERR(MPI_Recv(buf, 2, ovl2, peer, TAG_LATE, MPI_COMM_WORLD, &st));
    /* The send half must not leave either: the int would arrive first below. */
    EXPECT_TYPE_ERR(MPI_Sendrecv(&x, 1, MPI_INT, peer, TAG_LATE, buf, 1, ovl, peer, TAG_LATE,
                                 MPI_COMM_WORLD, &st));
    EXPECT_TYPE_ERR(
        MPI_Sendrecv_replace(buf, 1, ovl, peer, TAG_LATE, peer, TAG_LATE, MPI_COMM_WORLD, &st));
    CHECK_DATA(buf, sizeof(buf), 1, "buffer after refused receives");

    /* Nothing was sent or consumed: the next message on the tag is this one. */
    int mine = 1000 + mt_rank, got = -1;
    CALL(MPI_Sendrecv(&mine, 1, MPI_INT, peer, TAG_LATE, &got, 1, MPI_INT, peer, TAG_LATE,
                      MPI_COMM_WORLD, &st));
    CHECK(got == 1000 + peer, "after the refused calls the peer's int is %d, want %d", got,
          1000 + peer);
}

/* Overlapping send types are legal: rank 0 sends through them, rank 1
 * refuses them for matched receives and takes the data as plain ints. */
static void test_send_types(void)
{
    int src[8], want[NI], got[NI + 2];
    for (int i = 0; i < 8; i++)
        src[i] = 100 + i;
    ovl_packed(src, want);
    if (mt_rank == 0) {
        for (int t = 0; t < 3; t++)
            CALL(MPI_Send(src, 1, ovl, 1, TAG + t, MPI_COMM_WORLD));
        CALL(MPI_Send(src, 4, MPI_INT, 1, TAG + 3, MPI_COMM_WORLD));
        return;
    }
    MPI_Status st;
    int n = -1;
    memset(got, 0, sizeof(got));
    CALL(MPI_Recv(got, NI, MPI_INT, 0, TAG, MPI_COMM_WORLD, &st));
    CALL(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == NI, "send through the overlapping type delivered %d ints, want %d", n, NI);
    CHECK(!memcmp(got, want, sizeof(want)), "send through the overlapping type: wrong bytes");

    /* Matched receive: refused, and the message stays for another try. */
    MPI_Message m = MPI_MESSAGE_NULL;
    CALL(MPI_Mprobe(0, TAG + 1, MPI_COMM_WORLD, &m, &st));
    mt_fill(got, sizeof(got), 2);
    EXPECT_TYPE_ERR(MPI_Mrecv(got, 1, ovl, &m, &st));
    CHECK(m != MPI_MESSAGE_NULL, "a refused MPI_Mrecv consumed the message");
    CHECK_DATA(got, sizeof(got), 2, "buffer after a refused MPI_Mrecv");
    CALL(MPI_Mrecv(got, NI, MPI_INT, &m, &st));
    CHECK(!memcmp(got, want, sizeof(want)), "MPI_Mrecv after the refusal: wrong bytes");

    MPI_Request r = MPI_REQUEST_NULL;
    CALL(MPI_Mprobe(0, TAG + 2, MPI_COMM_WORLD, &m, &st));
    mt_fill(got, sizeof(got), 3);
    EXPECT_TYPE_ERR(MPI_Imrecv(got, 1, ovl, &m, &r));
    CHECK(m != MPI_MESSAGE_NULL, "a refused MPI_Imrecv consumed the message");
    CHECK_DATA(got, sizeof(got), 3, "buffer after a refused MPI_Imrecv");
    CALL(MPI_Imrecv(got, NI, MPI_INT, &m, &r));
    CALL(MPI_Wait(&r, &st));
    CHECK(!memcmp(got, want, sizeof(want)), "MPI_Imrecv after the refusal: wrong bytes");

    /* One element of ovl2 does not overlap: a legal receive. */
    memset(got, 0, sizeof(got));
    CALL(MPI_Recv(got, 1, ovl2, 0, TAG + 3, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == src[i], "receive into one resized element: int %d is %d, want %d", i,
              got[i], src[i]);
}

/* Columns of an n x n matrix, one double apart: count n interleaves them
 * into the whole matrix without overlap. */
static void test_transpose(int n)
{
    MPI_Datatype col, tr;
    CALL(MPI_Type_vector(n, 1, n, MPI_DOUBLE, &col));
    CALL(MPI_Type_create_resized(col, 0, (MPI_Aint)sizeof(double), &tr));
    CALL(MPI_Type_commit(&tr));
    CALL(MPI_Type_free(&col));
    size_t nn = (size_t)n * (size_t)n;
    double *a = mt_xmalloc(nn * sizeof(double)), *b = mt_xmalloc(nn * sizeof(double));
    for (size_t i = 0; i < nn; i++)
        a[i] = (double)i + 0.25;
    MPI_Status st;
    if (mt_rank == 0) {
        CALL(MPI_Send(a, n * n, MPI_DOUBLE, 1, TAG, MPI_COMM_WORLD));
        /* Back through the transpose type as send type: a transposed twice. */
        memset(b, 0, nn * sizeof(double));
        CALL(MPI_Recv(b, n * n, MPI_DOUBLE, 1, TAG + 1, MPI_COMM_WORLD, &st));
        CHECK(!memcmp(a, b, nn * sizeof(double)), "n=%d: matrix transposed twice differs", n);
    } else {
        mt_fill(b, nn * sizeof(double), 4);
        CALL(MPI_Recv(b, n, tr, 0, TAG, MPI_COMM_WORLD, &st));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                CHECK(!memcmp(&b[(size_t)j * n + i], &a[(size_t)i * n + j], sizeof(double)),
                      "n=%d: received b[%d][%d] = %g, want a[%d][%d] = %g", n, j, i,
                      b[(size_t)j * n + i], i, j, a[(size_t)i * n + j]);
        CALL(MPI_Send(b, n, tr, 0, TAG + 1, MPI_COMM_WORLD));
    }
    /* One column more wraps onto row 1 of column 0: refused. */
    EXPECT_TYPE_ERR(MPI_Recv(b, n + 1, tr, peer, TAG, MPI_COMM_WORLD, &st));
    free(a);
    free(b);
    CALL(MPI_Type_free(&tr));
}

/* Collectives refuse an overlapping receive type where the rank receives;
 * the refusal happens before any traffic, so the same rank may call again
 * with a proper type and the collective completes with its peers. */
static void test_collectives(void)
{
    int src[16], want[NI], rbuf[4 * NI];
    for (int i = 0; i < 16; i++)
        src[i] = 10 * mt_rank + i;
    MPI_Comm c;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CALL(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));

    /* Every rank receives: both refuse, then both do it right. */
    mt_fill(rbuf, sizeof(rbuf), 5);
    EXPECT_TYPE_ERR(MPI_Allgather(src, NI, MPI_INT, rbuf, 1, ovl, c));
    EXPECT_TYPE_ERR(MPI_Alltoall(src, 8, MPI_INT, rbuf, 2, ovl2, c));
    CHECK_DATA(rbuf, sizeof(rbuf), 5, "buffer after refused MPI_Allgather / MPI_Alltoall");
    CALL(MPI_Allgather(src, 1, ovl, rbuf, NI, MPI_INT, c)); /* ovl as send type */
    for (int r = 0; r < 2; r++) {
        int s[8];
        for (int i = 0; i < 8; i++)
            s[i] = 10 * r + i;
        ovl_packed(s, want);
        CHECK(!memcmp(&rbuf[r * NI], want, sizeof(want)), "MPI_Allgather: block of rank %d wrong",
              r);
    }

    /* Bcast: rank 1 receives (refused once), the root sends through ovl. */
    int bsrc[8] = {7, 8, 9, 10, 11, 12, 13, 14};
    ovl_packed(bsrc, want);
    if (mt_rank == 0) {
        CALL(MPI_Bcast(bsrc, 1, ovl, 0, c)); /* the root only sends: legal */
    } else {
        mt_fill(rbuf, sizeof(rbuf), 6);
        EXPECT_TYPE_ERR(MPI_Bcast(rbuf, 1, ovl, 0, c));
        CHECK_DATA(rbuf, sizeof(rbuf), 6, "buffer after a refused MPI_Bcast");
        CALL(MPI_Bcast(rbuf, NI, MPI_INT, 0, c));
        CHECK(!memcmp(rbuf, want, sizeof(want)), "MPI_Bcast after the refusal: wrong data");
    }

    /* Gather: the root receives (refused once), rank 1 sends through ovl. */
    if (mt_rank == 0) {
        mt_fill(rbuf, sizeof(rbuf), 7);
        EXPECT_TYPE_ERR(MPI_Gather(src, NI, MPI_INT, rbuf, 1, ovl, 0, c));
        CHECK_DATA(rbuf, sizeof(rbuf), 7, "buffer after a refused MPI_Gather");
        CALL(MPI_Gather(src, NI, MPI_INT, rbuf, NI, MPI_INT, 0, c));
        CHECK(!memcmp(rbuf, src, NI * sizeof(int)), "MPI_Gather: the root's own block is wrong");
        int s1[8];
        for (int i = 0; i < 8; i++)
            s1[i] = 10 + i;
        ovl_packed(s1, want);
        CHECK(!memcmp(&rbuf[NI], want, sizeof(want)), "MPI_Gather: rank 1's block is wrong");
    } else {
        CALL(MPI_Gather(src, 1, ovl, NULL, 0, MPI_INT, 0, c));
    }
    CALL(MPI_Barrier(c));
    CALL(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "recv_overlap");
    CHECK(mt_size == 2, "run on 2 ranks (got %d)", mt_size);
    peer = 1 - mt_rank;
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    make_types();
    test_p2p_refused();
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    test_send_types();
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    int sizes[] = {3, 16, 120}; /* the last one past the eager limits */
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        test_transpose(sizes[i]);
    test_collectives();
    CALL(MPI_Type_free(&ovl));
    CALL(MPI_Type_free(&ovl2));
    return mt_done();
}
