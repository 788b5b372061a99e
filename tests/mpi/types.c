/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * types.c - derived datatypes in communication (MPI 3.1 chapter 4): vector
 * (a matrix column), indexed, struct with holes, subarray (C and Fortran
 * order), resized; sender and receiver using different layouts of the same
 * type signature; MPI_PACKED messages received as typed data; Pack / Unpack /
 * Pack_size; size and extents; get_envelope / get_contents; Type_match_size;
 * Get_address / Aint_add / Aint_diff. Every rank exchanges with its partner
 * (itself when unpaired) through Sendrecv, both sides sending the same data.
 */
#include "mt.h"

enum { R = 8, C = 10 };

static int partner(void)
{
    int p = mt_rank ^ 1;
    return p < mt_size ? p : mt_rank;
}

static void xchg(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                 int want_bytes, const char *what)
{
    MPI_Status status;
    int p = partner(), n = -1, tsize = 0;
    CALL(MPI_Sendrecv(s, sc, st, p, 1, r, rc, rt, p, 1, MPI_COMM_WORLD, &status));
    /* Get_count takes the receive's datatype (MPI 3.1 §3.2.5). */
    CALL(MPI_Type_size(rt, &tsize));
    CALL(MPI_Get_count(&status, rt, &n));
    CHECK(tsize > 0 && want_bytes % tsize == 0 && n == want_bytes / tsize,
          "%s: MPI_Get_count gave %d elements of %d bytes, want %d bytes", what, n, tsize,
          want_bytes);
}

static void check_extent(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb,
                         MPI_Aint text, const char *what)
{
    int s = -1;
    MPI_Aint l, e, tl, te;
    MPI_Count sx = -1;
    CALL(MPI_Type_size(t, &s));
    CALL(MPI_Type_size_x(t, &sx));
    CALL(MPI_Type_get_extent(t, &l, &e));
    CALL(MPI_Type_get_true_extent(t, &tl, &te));
    CHECK(s == size && sx == size, "%s: size %d (x %lld), want %d", what, s, (long long)sx, size);
    CHECK(l == lb && e == ext, "%s: lb %ld extent %ld, want %ld %ld", what, (long)l, (long)e,
          (long)lb, (long)ext);
    CHECK(tl == tlb && te == text, "%s: true lb %ld extent %ld, want %ld %ld", what, (long)tl,
          (long)te, (long)tlb, (long)text);
}

static void test_vector(void)
{
    double m[R][C], col[R], m2[R][C];
    MPI_Datatype column, colr;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            m[i][j] = i * 100 + j;
    CALL(MPI_Type_vector(R, 1, C, MPI_DOUBLE, &column));
    CALL(MPI_Type_commit(&column));
    check_extent(column, R * 8, 0, ((R - 1) * C + 1) * 8, 0, ((R - 1) * C + 1) * 8, "column");

    /* column -> contiguous */
    memset(col, 0, sizeof(col));
    xchg(&m[0][3], 1, column, col, R, MPI_DOUBLE, R * 8, "vector column to contiguous");
    for (int i = 0; i < R; i++)
        CHECK(col[i] == i * 100 + 3, "column 3 row %d arrived as %g", i, col[i]);

    /* contiguous -> column 5 of another matrix; the rest untouched */
    for (int i = 0; i < R; i++)
        col[i] = -i - 1;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            m2[i][j] = 7777;
    xchg(col, R, MPI_DOUBLE, &m2[0][5], 1, column, R * 8, "contiguous to vector column");
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            CHECK(m2[i][j] == (j == 5 ? -i - 1 : 7777), "receive into column 5: m[%d][%d] = %g", i,
                  j, m2[i][j]);

    /* resized column: count 2 sends two adjacent columns */
    CALL(MPI_Type_create_resized(column, 0, sizeof(double), &colr));
    CALL(MPI_Type_commit(&colr));
    check_extent(colr, R * 8, 0, 8, 0, ((R - 1) * C + 1) * 8, "resized column");
    double two[2 * R];
    xchg(&m[0][1], 2, colr, two, 2 * R, MPI_DOUBLE, 2 * R * 8, "two resized columns");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < R; i++)
            CHECK(two[k * R + i] == i * 100 + 1 + k,
                  "resized columns: element %d of column %d is "
                  "%g",
                  i, 1 + k, two[k * R + i]);

    /* envelope / contents of the vector */
    int ni, na, nd, comb, ints[3];
    MPI_Aint addrs[1];
    MPI_Datatype dts[1];
    CALL(MPI_Type_get_envelope(column, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1,
          "vector envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    CALL(MPI_Type_get_contents(column, 3, 0, 1, ints, addrs, dts));
    CHECK(ints[0] == R && ints[1] == 1 && ints[2] == C && dts[0] == MPI_DOUBLE,
          "vector contents: %d %d %d", ints[0], ints[1], ints[2]);
    CALL(MPI_Type_get_envelope(colr, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1,
          "resized envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    MPI_Aint a2[2];
    CALL(MPI_Type_get_contents(colr, 0, 2, 1, ints, a2, dts));
    CHECK(a2[0] == 0 && a2[1] == sizeof(double), "resized contents: lb %ld extent %ld", (long)a2[0],
          (long)a2[1]);
    /* dts[0] is the (derived) column: a new handle the caller frees */
    int dni, dna, dnd, dcomb;
    CALL(MPI_Type_get_envelope(dts[0], &dni, &dna, &dnd, &dcomb));
    CHECK(dcomb == MPI_COMBINER_VECTOR, "resized contents: inner type combiner %d", dcomb);
    CALL(MPI_Type_free(&dts[0]));
    CALL(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED, "MPI_INT envelope combiner %d, want NAMED", comb);

    CALL(MPI_Type_free(&colr));
    CALL(MPI_Type_free(&column));
}

static void test_indexed(void)
{
    int src[12], dst[12];
    for (int i = 0; i < 12; i++)
        src[i] = 10 + i;
    int bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
    MPI_Datatype idx, vec, blk;
    CALL(MPI_Type_indexed(3, bl, dp, MPI_INT, &idx));
    CALL(MPI_Type_commit(&idx));
    check_extent(idx, 24, 0, 48, 0, 48, "indexed");
    memset(dst, 0, sizeof(dst));
    xchg(src, 1, idx, dst, 6, MPI_INT, 24, "indexed to contiguous");
    int want[6] = {10, 11, 15, 19, 20, 21};
    for (int i = 0; i < 6; i++)
        CHECK(dst[i] == want[i], "indexed: element %d is %d, want %d", i, dst[i], want[i]);

    /* 10 contiguous ints received as vector(5 blocks of 2, stride 3) */
    int big[15];
    for (int i = 0; i < 15; i++)
        big[i] = -1;
    CALL(MPI_Type_vector(5, 2, 3, MPI_INT, &vec));
    CALL(MPI_Type_commit(&vec));
    xchg(src, 10, MPI_INT, big, 1, vec, 40, "contiguous to vector");
    for (int i = 0, k = 0; i < 15; i++) {
        if (i % 3 == 2)
            CHECK(big[i] == -1, "vector receive wrote the gap at %d", i);
        else {
            CHECK(big[i] == 10 + k, "vector receive: element %d is %d, want %d", i, big[i], 10 + k);
            k++;
        }
    }

    /* indexed_block, and the contents of the indexed type */
    int bdp[3] = {7, 1, 4};
    CALL(MPI_Type_create_indexed_block(3, 1, bdp, MPI_INT, &blk));
    CALL(MPI_Type_commit(&blk));
    xchg(src, 1, blk, dst, 3, MPI_INT, 12, "indexed_block");
    CHECK(dst[0] == 17 && dst[1] == 11 && dst[2] == 14, "indexed_block gave %d %d %d", dst[0],
          dst[1], dst[2]);
    int ni, na, nd, comb, ints[7];
    MPI_Datatype dts[1];
    CALL(MPI_Type_get_envelope(idx, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_INDEXED && ni == 7 && na == 0 && nd == 1,
          "indexed envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    CALL(MPI_Type_get_contents(idx, 7, 0, 1, ints, NULL, dts));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 1 && ints[3] == 3 && ints[4] == 0 &&
              ints[5] == 5 && ints[6] == 9 && dts[0] == MPI_INT,
          "indexed contents: %d | %d %d %d | %d %d %d", ints[0], ints[1], ints[2], ints[3], ints[4],
          ints[5], ints[6]);
    CALL(MPI_Type_free(&idx));
    CALL(MPI_Type_free(&vec));
    CALL(MPI_Type_free(&blk));
}

struct rec {
    char c;
    double d;
    int i[3];
};
/* Same signature (char, double, 3 int), another layout. */
struct rec2 {
    int i[3];
    double d;
    short pad;
    char c;
};

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t, tr;
    int bl[3] = {1, 1, 3};
    MPI_Aint dp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CALL(MPI_Type_create_struct(3, bl, dp, ty, &t));
    CALL(MPI_Type_create_resized(t, 0, sizeof(struct rec), &tr));
    CALL(MPI_Type_free(&t));
    CALL(MPI_Type_commit(&tr));
    return tr;
}

static void test_struct(void)
{
    enum { N = 5 };
    struct rec s[N], r[N];
    struct rec2 r2[N];
    MPI_Datatype t = rec_type(), t2, t2r;
    memset(s, 0x11, sizeof(s));
    for (int k = 0; k < N; k++) {
        s[k].c = (char)('a' + k);
        s[k].d = k + 0.25;
        for (int j = 0; j < 3; j++)
            s[k].i[j] = k * 10 + j;
    }
    check_extent(t, 1 + 8 + 12, 0, sizeof(struct rec), 0, offsetof(struct rec, i) + 12,
                 "struct with holes");
    memset(r, 0x5A, sizeof(r));
    xchg(s, N, t, r, N, t, N * 21, "struct with holes");
    for (int k = 0; k < N; k++) {
        CHECK(r[k].c == 'a' + k && r[k].d == k + 0.25 && r[k].i[0] == k * 10 &&
                  r[k].i[2] == k * 10 + 2,
              "struct %d arrived as {%c, %g, %d..%d}", k, r[k].c, r[k].d, r[k].i[0], r[k].i[2]);
        /* the holes of the receive buffer are not written */
        const unsigned char *b = (const unsigned char *)&r[k];
        for (size_t o = 1; o < offsetof(struct rec, d); o++)
            CHECK(b[o] == 0x5A, "struct %d: hole byte %zu was written", k, o);
        for (size_t o = offsetof(struct rec, i) + 12; o < sizeof(struct rec); o++)
            CHECK(b[o] == 0x5A, "struct %d: tail hole byte %zu was written", k, o);
    }

    /* The receiver's type has another layout of the same signature. */
    int bl[3] = {1, 1, 3};
    MPI_Aint dp[3] = {offsetof(struct rec2, c), offsetof(struct rec2, d), offsetof(struct rec2, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CALL(MPI_Type_create_struct(3, bl, dp, ty, &t2));
    CALL(MPI_Type_create_resized(t2, 0, sizeof(struct rec2), &t2r));
    CALL(MPI_Type_commit(&t2r));
    memset(r2, 0, sizeof(r2));
    xchg(s, N, t, r2, N, t2r, N * 21, "struct to a struct of another layout");
    for (int k = 0; k < N; k++)
        CHECK(r2[k].c == 'a' + k && r2[k].d == k + 0.25 && r2[k].i[0] == k * 10 &&
                  r2[k].i[1] == k * 10 + 1 && r2[k].i[2] == k * 10 + 2 && r2[k].pad == 0,
              "rec2 %d arrived as {%c, %g, %d %d %d}", k, r2[k].c, r2[k].d, r2[k].i[0], r2[k].i[1],
              r2[k].i[2]);

    /* struct envelope / contents */
    int ni, na, nd, comb, ints[4];
    MPI_Aint ad[3];
    MPI_Datatype dts[3];
    CALL(MPI_Type_get_envelope(t2, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3,
          "struct envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    CALL(MPI_Type_get_contents(t2, 4, 3, 3, ints, ad, dts));
    CHECK(ints[0] == 3 && ints[1] == 1 && ints[2] == 1 && ints[3] == 3 && ad[0] == dp[0] &&
              ad[1] == dp[1] && ad[2] == dp[2] && dts[0] == MPI_CHAR && dts[1] == MPI_DOUBLE &&
              dts[2] == MPI_INT,
          "struct contents differ from the constructor's arguments");

    /* Pack / Unpack round trip, and a packed message received as typed data. */
    int psize = -1, pos = 0;
    CALL(MPI_Pack_size(N, t, MPI_COMM_WORLD, &psize));
    CHECK(psize >= N * 21, "MPI_Pack_size %d < the data size %d", psize, N * 21);
    char *pk = mt_xmalloc((size_t)psize);
    CALL(MPI_Pack(s, N, t, pk, psize, &pos, MPI_COMM_WORLD));
    CHECK(pos > 0 && pos <= psize, "MPI_Pack position %d (Pack_size %d)", pos, psize);
    int packed = pos;
    int extra = 12345, pos2 = pos;
    int psize2 = 0;
    CALL(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &psize2));
    char *pk2 = mt_xmalloc((size_t)(psize + psize2));
    memcpy(pk2, pk, (size_t)pos);
    CALL(MPI_Pack(&extra, 1, MPI_INT, pk2, psize + psize2, &pos2, MPI_COMM_WORLD));
    CHECK(pos2 > pos, "packing one more int did not advance the position");
    memset(r, 0, sizeof(r));
    pos = 0;
    int extra_out = 0;
    CALL(MPI_Unpack(pk2, pos2, &pos, r, N, t, MPI_COMM_WORLD));
    CHECK(pos == packed, "MPI_Unpack stopped at %d, MPI_Pack ended at %d", pos, packed);
    CALL(MPI_Unpack(pk2, pos2, &pos, &extra_out, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK(pos == pos2 && extra_out == 12345, "second MPI_Unpack: position %d value %d", pos,
          extra_out);
    for (int k = 0; k < N; k++)
        CHECK(r[k].c == 'a' + k && r[k].d == k + 0.25 && r[k].i[1] == k * 10 + 1,
              "unpacked struct %d is {%c, %g, %d}", k, r[k].c, r[k].d, r[k].i[1]);
    memset(r2, 0, sizeof(r2));
    xchg(pk, packed, MPI_PACKED, r2, N, t2r, N * 21, "MPI_PACKED received as struct");
    for (int k = 0; k < N; k++)
        CHECK(r2[k].c == 'a' + k && r2[k].d == k + 0.25 && r2[k].i[2] == k * 10 + 2,
              "packed message: rec2 %d arrived as {%c, %g, %d}", k, r2[k].c, r2[k].d, r2[k].i[2]);
    free(pk);
    free(pk2);

    CALL(MPI_Type_free(&t2));
    CALL(MPI_Type_free(&t2r));
    CALL(MPI_Type_free(&t));
}

static void test_subarray(void)
{
    enum { NR = 6, NC = 8 };
    int a[NR][NC], b[NR][NC], sub[12];
    int sizes[2] = {NR, NC}, subs[2] = {3, 4}, starts[2] = {2, 3};
    MPI_Datatype t, tf;
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++)
            a[i][j] = i * 100 + j;
    CALL(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t));
    CALL(MPI_Type_commit(&t));
    /* true extent: from element (2,3) to element (4,6) inclusive */
    check_extent(t, 48, 0, NR * NC * 4, (2 * NC + 3) * 4, ((4 * NC + 6) - (2 * NC + 3) + 1) * 4,
                 "subarray");
    memset(sub, 0, sizeof(sub));
    xchg(a, 1, t, sub, 12, MPI_INT, 48, "C-order subarray to contiguous");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            CHECK(sub[i * 4 + j] == (2 + i) * 100 + 3 + j, "subarray (%d,%d) is %d", i, j,
                  sub[i * 4 + j]);

    /* Fortran order: dimension 0 varies fastest. The same memory block seen as
     * an NC x NR Fortran array, sub-block rows 3..6 (dim 0), cols 2..4 (dim 1). */
    int fsizes[2] = {NC, NR}, fsubs[2] = {4, 3}, fstarts[2] = {3, 2};
    CALL(MPI_Type_create_subarray(2, fsizes, fsubs, fstarts, MPI_ORDER_FORTRAN, MPI_INT, &tf));
    CALL(MPI_Type_commit(&tf));
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++)
            b[i][j] = -1;
    xchg(a, 1, t, b, 1, tf, 48, "C subarray to Fortran subarray");
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++) {
            int in = i >= 2 && i < 5 && j >= 3 && j < 7;
            CHECK(b[i][j] == (in ? a[i][j] : -1), "Fortran subarray receive: b[%d][%d] = %d", i, j,
                  b[i][j]);
        }
    int ni, na, nd, comb;
    CALL(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 3 * 2 + 2 && na == 0 && nd == 1,
          "subarray envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    int ints[8];
    MPI_Datatype dts[1];
    CALL(MPI_Type_get_contents(t, 8, 0, 1, ints, NULL, dts));
    CHECK(ints[0] == 2 && ints[1] == NR && ints[2] == NC && ints[3] == 3 && ints[4] == 4 &&
              ints[5] == 2 && ints[6] == 3 && ints[7] == MPI_ORDER_C,
          "subarray contents: ndims %d sizes %d %d subsizes %d %d starts %d %d order %d", ints[0],
          ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7]);
    CALL(MPI_Type_free(&t));
    CALL(MPI_Type_free(&tf));
}

static void test_misc(void)
{
    MPI_Datatype t, d;
    int s = -1;
    CALL(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    CALL(MPI_Type_size(t, &s));
    CHECK(s == 4, "Type_match_size(INTEGER, 4) gave a type of size %d", s);
    CALL(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
    CALL(MPI_Type_size(t, &s));
    CHECK(s == 8, "Type_match_size(INTEGER, 8) gave a type of size %d", s);
    CALL(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CALL(MPI_Type_size(t, &s));
    CHECK(s == 8, "Type_match_size(REAL, 8) gave a type of size %d", s);
    CALL(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t));
    CALL(MPI_Type_size(t, &s));
    CHECK(s == 4, "Type_match_size(REAL, 4) gave a type of size %d", s);
    CALL(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    CALL(MPI_Type_size(t, &s));
    CHECK(s == 16, "Type_match_size(COMPLEX, 16) gave a type of size %d", s);

    /* Get_address, Aint_add, Aint_diff */
    double arr[10];
    MPI_Aint a0, a7;
    CALL(MPI_Get_address(&arr[0], &a0));
    CALL(MPI_Get_address(&arr[7], &a7));
    CHECK(MPI_Aint_diff(a7, a0) == 7 * (MPI_Aint)sizeof(double), "MPI_Aint_diff gave %ld",
          (long)MPI_Aint_diff(a7, a0));
    CHECK(MPI_Aint_add(a0, 7 * (MPI_Aint)sizeof(double)) == a7, "MPI_Aint_add mismatch");

    /* Absolute addresses with MPI_BOTTOM: a struct of two scattered variables. */
    static int x = 41;
    static double y = 2.5;
    int bl[2] = {1, 1};
    MPI_Aint dp[2];
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    CALL(MPI_Get_address(&x, &dp[0]));
    CALL(MPI_Get_address(&y, &dp[1]));
    CALL(MPI_Type_create_struct(2, bl, dp, ty, &t));
    CALL(MPI_Type_commit(&t));
    struct {
        int i;
        double d;
    } got = {0, 0};
    MPI_Aint gd[2] = {offsetof(__typeof__(got), i), offsetof(__typeof__(got), d)};
    MPI_Datatype gt;
    CALL(MPI_Type_create_struct(2, bl, gd, ty, &gt));
    CALL(MPI_Type_commit(&gt));
    xchg(MPI_BOTTOM, 1, t, &got, 1, gt, 12, "MPI_BOTTOM with absolute addresses");
    CHECK(got.i == 41 && got.d == 2.5, "MPI_BOTTOM struct arrived as {%d, %g}", got.i, got.d);
    CALL(MPI_Type_free(&t));
    CALL(MPI_Type_free(&gt));

    /* Type_dup and contiguous */
    CALL(MPI_Type_contiguous(3, MPI_SHORT, &t));
    CALL(MPI_Type_dup(t, &d));
    CALL(MPI_Type_commit(&d));
    int ni, na, nd, comb;
    CALL(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1,
          "dup envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    short sv[6] = {1, 2, 3, 4, 5, 6}, rv[6] = {0};
    xchg(sv, 2, d, rv, 6, MPI_SHORT, 12, "dup of contiguous");
    CHECK(rv[0] == 1 && rv[5] == 6, "dup of contiguous gave %d..%d", rv[0], rv[5]);
    CALL(MPI_Type_free(&d));
    CALL(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not set MPI_DATATYPE_NULL");
}

/*
 * Large non-contiguous messages (past any eager limit): a vector with
 * stride 2 received as a vector with stride 3, and an hvector of struct
 * blocks received contiguous, so packing and unpacking run in pieces.
 */
static void test_large(void)
{
    enum { NB = 150000 };
    double *s = mt_xmalloc(sizeof(double) * 2 * NB), *r = mt_xmalloc(sizeof(double) * 3 * NB);
    MPI_Datatype v2, v3;
    for (int i = 0; i < 2 * NB; i++)
        s[i] = i % 2 ? -1.0 : i / 2 + 0.5;
    for (int i = 0; i < 3 * NB; i++)
        r[i] = -2.0;
    CALL(MPI_Type_vector(NB, 1, 2, MPI_DOUBLE, &v2));
    CALL(MPI_Type_vector(NB, 1, 3, MPI_DOUBLE, &v3));
    CALL(MPI_Type_commit(&v2));
    CALL(MPI_Type_commit(&v3));
    xchg(s, 1, v2, r, 1, v3, NB * 8, "large vector stride 2 to stride 3");
    for (int i = 0; i < 3 * NB; i++)
        CHECK(r[i] == (i % 3 ? -2.0 : i / 3 + 0.5), "large vector: element %d is %g", i, r[i]);

    /* count > 1 of a vector: blocks of 3 of every 5 ints, 40000 times */
    enum { NV = 40000 };
    int *si = mt_xmalloc(sizeof(int) * 5 * NV), *ri = mt_xmalloc(sizeof(int) * 3 * NV);
    MPI_Datatype blk, blkr;
    CALL(MPI_Type_vector(1, 3, 5, MPI_INT, &blk));
    CALL(MPI_Type_create_resized(blk, 0, 5 * sizeof(int), &blkr));
    CALL(MPI_Type_commit(&blkr));
    for (int i = 0; i < 5 * NV; i++)
        si[i] = i % 5 < 3 ? i : -1;
    memset(ri, 0, sizeof(int) * 3 * NV);
    xchg(si, NV, blkr, ri, 3 * NV, MPI_INT, NV * 12, "40000 resized blocks to contiguous");
    for (int k = 0; k < NV; k++)
        for (int j = 0; j < 3; j++)
            CHECK(ri[3 * k + j] == 5 * k + j, "resized blocks: element %d is %d, want %d",
                  3 * k + j, ri[3 * k + j], 5 * k + j);
    CALL(MPI_Type_free(&blk));
    CALL(MPI_Type_free(&blkr));
    CALL(MPI_Type_free(&v2));
    CALL(MPI_Type_free(&v3));
    free(s);
    free(r);
    free(si);
    free(ri);
}

/* Byte-displacement constructors, and a resized type with a non-zero lower bound. */
static void test_hconstructors(void)
{
    struct cell {
        double v;
        int id;
        char pad[4];
    } cells[12];
    for (int i = 0; i < 12; i++) {
        cells[i].v = i * 1.5;
        cells[i].id = 100 + i;
    }
    MPI_Datatype hv, hi, hb, shifted;
    /* hvector: the v field of every third cell */
    CALL(MPI_Type_create_hvector(4, 1, 3 * (MPI_Aint)sizeof(struct cell), MPI_DOUBLE, &hv));
    CALL(MPI_Type_commit(&hv));
    double got[4] = {0};
    xchg(&cells[0].v, 1, hv, got, 4, MPI_DOUBLE, 32, "hvector of struct fields");
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == 3 * i * 1.5, "hvector: element %d is %g", i, got[i]);
    /* hindexed: ids of cells 5, 0 and 11 (displacements need not increase) */
    int bl[3] = {1, 1, 1};
    MPI_Aint dp[3] = {5 * (MPI_Aint)sizeof(struct cell), 0, 11 * (MPI_Aint)sizeof(struct cell)};
    CALL(MPI_Type_create_hindexed(3, bl, dp, MPI_INT, &hi));
    CALL(MPI_Type_commit(&hi));
    int ids[3] = {0};
    xchg(&cells[0].id, 1, hi, ids, 3, MPI_INT, 12, "hindexed with decreasing displacements");
    CHECK(ids[0] == 105 && ids[1] == 100 && ids[2] == 111, "hindexed gave %d %d %d", ids[0], ids[1],
          ids[2]);
    int ni, na, nd, comb;
    CALL(MPI_Type_get_envelope(hi, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_HINDEXED && ni == 4 && na == 3 && nd == 1,
          "hindexed envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
    /* hindexed_block on the receive side */
    MPI_Aint bd[2] = {(MPI_Aint)sizeof(struct cell), 0};
    CALL(MPI_Type_create_hindexed_block(2, 1, bd, MPI_INT, &hb));
    CALL(MPI_Type_commit(&hb));
    struct cell out[2];
    memset(out, 0, sizeof(out));
    int two[2] = {7, 8};
    xchg(two, 2, MPI_INT, &out[0].id, 1, hb, 8, "receive into hindexed_block");
    CHECK(out[1].id == 7 && out[0].id == 8, "hindexed_block receive gave %d %d", out[0].id,
          out[1].id);

    /* resized with lb = -4, extent 12 over an int at displacement 0: count 3 takes
     * the ints at byte offsets 0, 12 and 24 of the buffer */
    MPI_Datatype one;
    CALL(MPI_Type_contiguous(1, MPI_INT, &one));
    CALL(MPI_Type_create_resized(one, -4, 12, &shifted));
    CALL(MPI_Type_commit(&shifted));
    check_extent(shifted, 4, -4, 12, 0, 4, "resized with negative lb");
    int arr[9], res[3] = {0};
    for (int i = 0; i < 9; i++)
        arr[i] = 50 + i;
    xchg(arr, 3, shifted, res, 3, MPI_INT, 12, "resized type with negative lb");
    CHECK(res[0] == 50 && res[1] == 53 && res[2] == 56, "negative lb resized gave %d %d %d", res[0],
          res[1], res[2]);
    CALL(MPI_Type_free(&one));
    CALL(MPI_Type_free(&shifted));
    CALL(MPI_Type_free(&hv));
    CALL(MPI_Type_free(&hi));
    CALL(MPI_Type_free(&hb));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "types");
    test_vector();
    test_indexed();
    test_struct();
    test_subarray();
    test_misc();
    test_large();
    test_hconstructors();
    return mt_done();
}
