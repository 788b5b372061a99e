/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pack_ext.c - MPI_Pack_external / Unpack_external / Pack_external_size
 * with "external32": the exact big-endian bytes of known values (int,
 * short, MPI_LONG in 4 bytes, double, float complex, long double as IEEE
 * binary128, MPI_WCHAR in 2 bytes, a pair type), round trips of derived
 * types (vector, struct with gaps, resized) byte for byte, data packed on
 * rank 0 and unpacked on every rank, and the errors: another datarep, a
 * value too wide for its external size, a buffer too small.
 */
#include "mt.h"

#include <wchar.h>

static void expect_bytes(MPI_Datatype t, const void *val, int count, const unsigned char *want,
                         int wantlen, const char *what)
{
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    CALL(MPI_Pack_external_size("external32", count, t, &size));
    CHECK(size == wantlen, "%s: Pack_external_size %ld, want %d", what, (long)size, wantlen);
    memset(buf, 0xaa, sizeof(buf));
    CALL(MPI_Pack_external("external32", val, count, t, buf, sizeof(buf), &pos));
    CHECK(pos == wantlen, "%s: position %ld, want %d", what, (long)pos, wantlen);
    for (int i = 0; i < wantlen; i++)
        CHECK(buf[i] == want[i], "%s: byte %d is %02x, want %02x", what, i, buf[i], want[i]);
    CHECK(buf[wantlen] == 0xaa, "%s: wrote past its bytes", what);
    /* And back. */
    unsigned char back[64];
    memset(back, 0, sizeof(back));
    pos = 0;
    CALL(MPI_Unpack_external("external32", buf, wantlen, &pos, back, count, t));
    int sz;
    CALL(MPI_Type_size(t, &sz));
    CHECK(pos == wantlen && !memcmp(back, val, (size_t)sz * (size_t)count),
          "%s: unpacked value differs", what);
}

static void test_known(void)
{
    int i = 0x01020304;
    expect_bytes(MPI_INT, &i, 1, (const unsigned char[]){1, 2, 3, 4}, 4, "MPI_INT");
    short sh[2] = {-2, 0x1234};
    expect_bytes(MPI_SHORT, sh, 2, (const unsigned char[]){0xff, 0xfe, 0x12, 0x34}, 4, "MPI_SHORT");
    long l[2] = {5, -3};
    expect_bytes(MPI_LONG, l, 2, (const unsigned char[]){0, 0, 0, 5, 0xff, 0xff, 0xff, 0xfd}, 8,
                 "MPI_LONG");
    double d = 1.0;
    expect_bytes(MPI_DOUBLE, &d, 1, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8,
                 "MPI_DOUBLE");
    float fc[2] = {1.0f, -2.0f};
    expect_bytes(MPI_C_FLOAT_COMPLEX, fc, 1,
                 (const unsigned char[]){0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0}, 8,
                 "MPI_C_FLOAT_COMPLEX");
    long double ld = -1.5L;
    unsigned char q[16] = {0xbf, 0xff, 0x80};
    /* long double's padding bytes are not data; compare only through a round trip. */
    {
        unsigned char buf[16];
        MPI_Aint pos = 0;
        CALL(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf, 16, &pos));
        CHECK(pos == 16 && !memcmp(buf, q, 16), "MPI_LONG_DOUBLE as binary128: %02x %02x %02x",
              buf[0], buf[1], buf[2]);
        long double back = 0;
        pos = 0;
        CALL(MPI_Unpack_external("external32", buf, 16, &pos, &back, 1, MPI_LONG_DOUBLE));
        CHECK(back == ld, "MPI_LONG_DOUBLE round trip: %Lg", back);
    }
    wchar_t w = L'A';
    expect_bytes(MPI_WCHAR, &w, 1, (const unsigned char[]){0, 0x41}, 2, "MPI_WCHAR");
    struct {
        double v;
        int i;
    } di = {2.0, 7};
    expect_bytes(MPI_DOUBLE_INT, &di, 1,
                 (const unsigned char[]){0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}, 12,
                 "MPI_DOUBLE_INT");
    long long ll = 0x0102030405060708LL;
    expect_bytes(MPI_LONG_LONG, &ll, 1, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8,
                 "MPI_LONG_LONG");
    char c[3] = {'x', 'y', 'z'};
    expect_bytes(MPI_CHAR, c, 3, (const unsigned char[]){'x', 'y', 'z'}, 3, "MPI_CHAR");
}

struct rec {
    char tag;
    long n;
    double v[2];
    short s;
};

static MPI_Datatype rec_type(void)
{
    int bl[4] = {1, 1, 2, 1};
    MPI_Aint disp[4] = {offsetof(struct rec, tag), offsetof(struct rec, n), offsetof(struct rec, v),
                        offsetof(struct rec, s)};
    MPI_Datatype ts[4] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_SHORT}, t, r;
    CALL(MPI_Type_create_struct(4, bl, disp, ts, &t));
    CALL(MPI_Type_create_resized(t, 0, sizeof(struct rec), &r));
    CALL(MPI_Type_free(&t));
    CALL(MPI_Type_commit(&r));
    return r;
}

static void fill(struct rec *r, int n, int seed)
{
    memset(r, 0, sizeof(*r) * (size_t)n);
    for (int i = 0; i < n; i++) {
        r[i].tag = (char)('a' + (i + seed) % 26);
        r[i].n = (long)(i * 1000 - 50000 + seed);
        r[i].v[0] = i * 0.5 + seed;
        r[i].v[1] = -i * 0.25;
        r[i].s = (short)(i - 300);
    }
}

static void test_derived(void)
{
    MPI_Datatype rt = rec_type();
    enum { N = 50 };
    struct rec a[N], b[N];
    fill(a, N, 1);
    MPI_Aint size;
    CALL(MPI_Pack_external_size("external32", N, rt, &size));
    CHECK(size == N * (1 + 4 + 16 + 2), "struct: Pack_external_size %ld", (long)size);
    unsigned char *buf = malloc((size_t)size);
    MPI_Aint pos = 0;
    CALL(MPI_Pack_external("external32", a, N, rt, buf, size, &pos));
    CHECK(pos == size, "struct: position %ld of %ld", (long)pos, (long)size);
    /* The third record's long, at its external offset: big-endian 4 bytes. */
    long n2 = a[2].n;
    const unsigned char *p = buf + 2 * 23 + 1;
    long got =
        (long)(int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
    CHECK(got == n2, "struct: record 2's long in external32 is %ld, want %ld", got, n2);
    memset(b, 0, sizeof(b));
    pos = 0;
    CALL(MPI_Unpack_external("external32", buf, size, &pos, b, N, rt));
    CHECK(!memcmp(a, b, sizeof(a)), "struct round trip differs");
    /* A vector of ints: only its elements, in order. */
    MPI_Datatype vec;
    CALL(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    CALL(MPI_Type_commit(&vec));
    int v[12], w[12];
    for (int i = 0; i < 12; i++)
        v[i] = i * 0x01010101, w[i] = -1;
    unsigned char vb[24];
    pos = 0;
    CALL(MPI_Pack_external("external32", v, 1, vec, vb, 24, &pos));
    CHECK(pos == 24 && vb[3] == 0 && vb[7] == 1 && vb[11] == 4 && vb[23] == 9,
          "vector: bytes %d %d %d %d", vb[3], vb[7], vb[11], vb[23]);
    pos = 0;
    CALL(MPI_Unpack_external("external32", vb, 24, &pos, w, 1, vec));
    for (int i = 0; i < 12; i++)
        CHECK(w[i] == (i % 4 < 2 ? v[i] : -1), "vector unpack element %d: %d", i, w[i]);
    /* Rank 0 packs, everyone unpacks what it sent as bytes. */
    fill(a, N, 0);
    if (mt_rank == 0) {
        pos = 0;
        CALL(MPI_Pack_external("external32", a, N, rt, buf, size, &pos));
    }
    CALL(MPI_Bcast(buf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD));
    memset(b, 0, sizeof(b));
    pos = 0;
    CALL(MPI_Unpack_external("external32", buf, size, &pos, b, N, rt));
    CHECK(!memcmp(a, b, sizeof(a)), "records packed on rank 0 differ here");
    free(buf);
    CALL(MPI_Type_free(&vec));
    CALL(MPI_Type_free(&rt));
}

static void test_errors(void)
{
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 1;
    unsigned char buf[16];
    MPI_Aint pos = 0, size;
    EXPECT_CLASS(MPI_Pack_external("native", &x, 1, MPI_INT, buf, 16, &pos),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    EXPECT_CLASS(MPI_Pack_external_size("external64", 1, MPI_INT, &size),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    if (sizeof(long) > 4) {
        long big = 1L << 40;
        pos = 0;
        EXPECT_CLASS(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, 16, &pos),
                     MPI_ERR_CONVERSION);
        CHECK(pos == 0, "a failed pack moved the position");
    }
    pos = 0;
    EXPECT_CLASS(MPI_Pack_external("external32", &x, 1, MPI_DOUBLE, buf, 4, &pos),
                 MPI_ERR_TRUNCATE);
    pos = 12;
    EXPECT_CLASS(MPI_Unpack_external("external32", buf, 16, &pos, &x, 1, MPI_DOUBLE),
                 MPI_ERR_TRUNCATE);
    EXPECT_CLASS(MPI_Pack_external("external32", &x, -1, MPI_INT, buf, 16, &pos), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack_external("external32", &x, 1, MPI_DATATYPE_NULL, buf, 16, &pos),
                 MPI_ERR_TYPE);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Pack_external_size("xdr", 1, MPI_INT, &size), s, &len);
    CHECK(strstr(s, "MPI_Pack_external_size") != NULL, "message: %s", s);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "pack_ext");
    test_known();
    test_derived();
    test_errors();
    return mt_done();
}
