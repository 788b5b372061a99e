/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * types31.c - the Fortran and C++ predefined datatypes a C program names
 * (names, sizes, point-to-point and reductions on them: SUM on MPI_REAL
 * and MPI_DOUBLE_COMPLEX, LAND on MPI_LOGICAL, MAXLOC on MPI_2INTEGER,
 * MINLOC / MAXLOC on MPI_2REAL and MPI_2DOUBLE_PRECISION with ties,
 * LOR on MPI_CXX_BOOL); MPI_LAND / LOR / LXOR on MPI_AINT, MPI_OFFSET and
 * MPI_COUNT; MPI_Type_create_f90_integer / real / complex and
 * MPI_Type_match_size; and the handle conversions MPI_*_c2f / f2c of every
 * kind (a handle converted and back is the same handle, null is null)
 * with MPI_Status_c2f / f2c.
 */
#include "mt.h"

#include <complex.h>
#include <stdbool.h>

static void check_name(MPI_Datatype t, const char *want, int size)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, sz;
    CALL(MPI_Type_get_name(t, name, &len));
    CHECK(!strcmp(name, want), "name '%s', want '%s'", name, want);
    CALL(MPI_Type_size(t, &sz));
    CHECK(sz == size, "%s has size %d, want %d", want, sz, size);
}

static void test_names(void)
{
    check_name(MPI_INTEGER, "MPI_INTEGER", 4);
    check_name(MPI_REAL, "MPI_REAL", 4);
    check_name(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8);
    check_name(MPI_COMPLEX, "MPI_COMPLEX", 8);
    check_name(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16);
    check_name(MPI_LOGICAL, "MPI_LOGICAL", 4);
    check_name(MPI_CHARACTER, "MPI_CHARACTER", 1);
    check_name(MPI_INTEGER1, "MPI_INTEGER1", 1);
    check_name(MPI_INTEGER2, "MPI_INTEGER2", 2);
    check_name(MPI_INTEGER4, "MPI_INTEGER4", 4);
    check_name(MPI_INTEGER8, "MPI_INTEGER8", 8);
    check_name(MPI_REAL4, "MPI_REAL4", 4);
    check_name(MPI_REAL8, "MPI_REAL8", 8);
    check_name(MPI_COMPLEX8, "MPI_COMPLEX8", 8);
    check_name(MPI_COMPLEX16, "MPI_COMPLEX16", 16);
    check_name(MPI_2INTEGER, "MPI_2INTEGER", 8);
    check_name(MPI_2REAL, "MPI_2REAL", 8);
    check_name(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16);
    MPI_Aint lb, ext, xsize;
    CALL(MPI_Type_get_extent(MPI_2DOUBLE_PRECISION, &lb, &ext));
    CHECK(lb == 0 && ext == 16, "MPI_2DOUBLE_PRECISION: lb %ld extent %ld", (long)lb, (long)ext);
    CALL(MPI_Pack_external_size("external32", 3, MPI_2REAL, &xsize));
    CHECK(xsize == 24, "external32 size of 3 MPI_2REAL: %ld", (long)xsize);
    check_name(MPI_CXX_BOOL, "MPI_CXX_BOOL", (int)sizeof(bool));
    check_name(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8);
    check_name(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16);
    check_name(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
               (int)sizeof(long double _Complex));
    check_name(MPI_C_BOOL, "MPI_C_BOOL", (int)sizeof(bool));
}

static void test_reductions(void)
{
    float r[3] = {1.5f * (float)mt_rank, 2.0f, -0.25f}, rs[3];
    CALL(MPI_Allreduce(r, rs, 3, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
    float tri = 1.5f * (float)(mt_size * (mt_size - 1) / 2);
    CHECK(rs[0] == tri && rs[1] == 2.0f * (float)mt_size && rs[2] == -0.25f * (float)mt_size,
          "SUM on MPI_REAL: %g %g %g", rs[0], rs[1], rs[2]);
    double _Complex z = (double)mt_rank + 2.0 * I, zs;
    CALL(MPI_Allreduce(&z, &zs, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(zs) == (double)(mt_size * (mt_size - 1) / 2) && cimag(zs) == 2.0 * mt_size,
          "SUM on MPI_DOUBLE_COMPLEX: %g%+gi", creal(zs), cimag(zs));
    int lg[2] = {1, mt_rank != 0}, lgr[2];
    CALL(MPI_Allreduce(lg, lgr, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(lgr[0] && lgr[1] == (mt_size == 1 ? 0 : 0), "LAND on MPI_LOGICAL: %d %d", lgr[0], lgr[1]);
    int pair[2] = {(mt_rank * 5) % 7, mt_rank}, best[2];
    CALL(MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    int bv = -1, bi = -1;
    for (int k = 0; k < mt_size; k++)
        if ((k * 5) % 7 > bv) bv = (k * 5) % 7, bi = k;
    CHECK(best[0] == bv && best[1] == bi, "MAXLOC on MPI_2INTEGER: %d at %d, want %d at %d",
          best[0], best[1], bv, bi);
    /* Pairs of reals: values rank / 2, so ranks 2k and 2k+1 tie and the
     * smaller index wins. */
    float fp[2][2] = {{(float)(mt_rank / 2), (float)mt_rank}, {(float)(-mt_rank), (float)mt_rank}},
          fr[2][2];
    CALL(MPI_Allreduce(fp, fr, 2, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(fr[0][0] == 0.0f && fr[0][1] == 0.0f, "MINLOC on MPI_2REAL: %g at %g", fr[0][0],
          fr[0][1]);
    CHECK(fr[1][0] == (float)(1 - mt_size) && fr[1][1] == (float)(mt_size - 1),
          "MINLOC on MPI_2REAL: %g at %g", fr[1][0], fr[1][1]);
    double dpair[2] = {(double)(mt_rank / 2), (double)mt_rank}, dbest[2];
    CALL(MPI_Allreduce(dpair, dbest, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    int top = (mt_size - 1) / 2;
    CHECK(dbest[0] == (double)top && dbest[1] == (double)(2 * top),
          "MAXLOC on MPI_2DOUBLE_PRECISION: %g at %g, want %d at %d", dbest[0], dbest[1], top,
          2 * top);
    bool b = mt_rank == mt_size - 1, bo;
    CALL(MPI_Allreduce(&b, &bo, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(bo, "LOR on MPI_CXX_BOOL");
    /* Point to point on a Fortran type, checked byte for byte. */
    double dp[100], dq[100];
    for (int i = 0; i < 100; i++)
        dp[i] = mt_rank * 1000.0 + i + 0.125;
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    CALL(MPI_Sendrecv(dp, 100, MPI_DOUBLE_PRECISION, to, 1, dq, 100, MPI_REAL8, from, 1,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 100; i++)
        CHECK(dq[i] == from * 1000.0 + i + 0.125, "DOUBLE_PRECISION element %d: %g", i, dq[i]);
    /* The logical ops on the multi-language integers. */
    MPI_Aint a = mt_rank + 1, ar;
    MPI_Offset o = mt_rank % 2, orr;
    MPI_Count c = 1, cr;
    CALL(MPI_Allreduce(&a, &ar, 1, MPI_AINT, MPI_LAND, MPI_COMM_WORLD));
    CHECK(ar == 1, "LAND on MPI_AINT: %ld", (long)ar);
    CALL(MPI_Allreduce(&o, &orr, 1, MPI_OFFSET, MPI_LOR, MPI_COMM_WORLD));
    CHECK(orr == (mt_size > 1), "LOR on MPI_OFFSET: %lld", (long long)orr);
    CALL(MPI_Allreduce(&c, &cr, 1, MPI_COUNT, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(cr == (mt_size % 2), "LXOR on MPI_COUNT: %lld", (long long)cr);
    CALL(MPI_Reduce_local(&a, &ar, 1, MPI_AINT, MPI_LOR));
    CHECK(ar == 1, "Reduce_local LOR on MPI_AINT");
    /* Still refused: arithmetic on characters. */
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    char ch = 'a', chr;
    EXPECT_CLASS(MPI_Allreduce(&ch, &chr, 1, MPI_CHARACTER, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* A parameterized type: behaves as `want` (same size, name, extent), but
 * its envelope is `comb` with the arguments as integers, it has no
 * datatypes, and the same arguments give the same handle. */
static int ints_dummy[2];

static void check_param(MPI_Datatype t, MPI_Datatype want, int comb, int ni, int a0, int a1)
{
    int sz, wsz, ni_, na, nd, c;
    CALL(MPI_Type_size(t, &sz));
    CALL(MPI_Type_size(want, &wsz));
    CHECK(sz == wsz, "combiner %d (%d, %d): size %d, want %d", comb, a0, a1, sz, wsz);
    MPI_Aint lb, ext, wlb, wext;
    CALL(MPI_Type_get_extent(t, &lb, &ext));
    CALL(MPI_Type_get_extent(want, &wlb, &wext));
    CHECK(lb == wlb && ext == wext, "combiner %d: extent", comb);
    char n1[MPI_MAX_OBJECT_NAME], n2[MPI_MAX_OBJECT_NAME];
    int l1, l2;
    CALL(MPI_Type_get_name(t, n1, &l1));
    CALL(MPI_Type_get_name(want, n2, &l2));
    CHECK(!strcmp(n1, n2), "combiner %d: name %s, want %s", comb, n1, n2);
    CALL(MPI_Type_get_envelope(t, &ni_, &na, &nd, &c));
    CHECK(c == comb && ni_ == ni && na == 0 && nd == 0, "envelope %d %d %d %d, want %d %d 0 0", c,
          ni_, na, nd, comb, ni);
    int ints[2] = {-7, -7};
    CALL(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    CHECK(ints[0] == a0 && (ni < 2 || ints[1] == a1), "contents %d %d, want %d %d", ints[0],
          ints[1], a0, a1);
}

static void test_f90(void)
{
    MPI_Datatype t, t2;
    static const struct {
        int r;
        MPI_Datatype want;
    } ints[] = {{1, MPI_INTEGER1},
                {2, MPI_INTEGER1},
                {3, MPI_INTEGER2},
                {9, MPI_INTEGER4},
                {10, MPI_INTEGER8},
                {18, MPI_INTEGER8},
                {MPI_UNDEFINED, MPI_INTEGER1}};
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
        CALL(MPI_Type_create_f90_integer(ints[k].r, &t));
        check_param(t, ints[k].want, MPI_COMBINER_F90_INTEGER, 1, ints[k].r, 0);
        CALL(MPI_Type_create_f90_integer(ints[k].r, &t2));
        CHECK(t == t2, "f90_integer(%d) twice gave two handles", ints[k].r);
    }
    CALL(MPI_Type_create_f90_real(6, 37, &t));
    check_param(t, MPI_REAL4, MPI_COMBINER_F90_REAL, 2, 6, 37);
    CALL(MPI_Type_create_f90_real(7, MPI_UNDEFINED, &t));
    check_param(t, MPI_REAL8, MPI_COMBINER_F90_REAL, 2, 7, MPI_UNDEFINED);
    CALL(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t));
    check_param(t, MPI_REAL8, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 300);
    CALL(MPI_Type_create_f90_complex(15, 307, &t));
    check_param(t, MPI_COMPLEX16, MPI_COMBINER_F90_COMPLEX, 2, 15, 307);

    /* It moves and reduces as the named type does. */
    MPI_Datatype r8;
    CALL(MPI_Type_create_f90_real(15, 300, &r8));
    int rank, size;
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &size));
    double in[5], out[5], back[5];
    for (int i = 0; i < 5; i++)
        in[i] = rank * 10.0 + i + 0.25;
    CALL(MPI_Allreduce(in, out, 5, r8, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 5; i++) {
        double want = 10.0 * size * (size - 1) / 2 + size * (i + 0.25);
        CHECK(out[i] == want, "allreduce on f90_real(15, 300)[%d]: %g, want %g", i, out[i], want);
    }
    CALL(MPI_Sendrecv(in, 5, r8, rank, 3, back, 5, MPI_REAL8, rank, 3, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    CHECK(!memcmp(in, back, sizeof(in)), "sendrecv of f90_real(15, 300) to self");
    MPI_Aint psz;
    CALL(MPI_Pack_external_size("external32", 5, r8, &psz));
    CHECK(psz == 40, "external32 size of 5 f90_real(15, 300): %ld", (long)psz);
    char pk[40];
    MPI_Aint pos = 0;
    CALL(MPI_Pack_external("external32", in, 5, r8, pk, sizeof(pk), &pos));
    CHECK(pos == 40, "pack_external position %ld", (long)pos);
    /* A duplicate is an ordinary derived type whose old type is this one. */
    MPI_Datatype d, old;
    int ni, na, nd, c;
    CALL(MPI_Type_dup(r8, &d));
    CALL(MPI_Type_get_envelope(d, &ni, &na, &nd, &c));
    CHECK(c == MPI_COMBINER_DUP && nd == 1, "dup of a f90 type: combiner %d", c);
    CALL(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, &old));
    CHECK(old == r8, "dup's old type is not the f90 handle");
    CALL(MPI_Type_free(&d));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Type_free(&r8), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_get_contents(MPI_REAL8, 2, 0, 0, ints_dummy, NULL, NULL), MPI_ERR_TYPE);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    CALL(MPI_Type_create_f90_complex(3, MPI_UNDEFINED, &t));
    check_param(t, MPI_COMPLEX8, MPI_COMBINER_F90_COMPLEX, 2, 3, MPI_UNDEFINED);
    int sz;
    CALL(MPI_Type_size(t, &sz));
    CHECK(sz == 8, "COMPLEX8 size %d", sz);
    CALL(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CALL(MPI_Type_size(t, &sz));
    CHECK(sz == 8, "match_size(REAL, 8) has size %d", sz);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_real(16, 10, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_complex(6, 400, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_real(6, 10, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_free(&(MPI_Datatype){MPI_REAL8}), MPI_ERR_TYPE);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Type_create_f90_integer(40, &t), s, &len);
    CHECK(strstr(s, "MPI_Type_create_f90_integer") != NULL, "message: %s", s);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void user_op(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)in, (void)io, (void)len, (void)dt;
}

static void test_handles(void)
{
    MPI_Comm dup;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF, dup, MPI_COMM_NULL};
    MPI_Fint seen[4];
    for (int i = 0; i < 4; i++) {
        MPI_Fint f = MPI_Comm_c2f(comms[i]);
        seen[i] = f;
        CHECK(MPI_Comm_f2c(f) == comms[i], "Comm %d: c2f then f2c is another handle", i);
        CHECK(MPI_Comm_c2f(comms[i]) == f, "Comm %d: a second c2f differs", i);
        for (int j = 0; j < i; j++)
            CHECK(seen[j] != f, "Comms %d and %d share Fortran handle %d", j, i, (int)f);
    }
    int flag;
    CALL(MPI_Comm_test_inter(MPI_Comm_f2c(MPI_Comm_c2f(dup)), &flag)); /* usable */
    MPI_Datatype vec;
    CALL(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_INTEGER, vec, MPI_DATATYPE_NULL};
    for (int i = 0; i < 5; i++)
        CHECK(MPI_Type_f2c(MPI_Type_c2f(types[i])) == types[i], "Type %d round trip", i);
    MPI_Group g;
    CALL(MPI_Comm_group(dup, &g));
    CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g, "Group round trip");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "GROUP_EMPTY");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_NULL)) == MPI_GROUP_NULL, "GROUP_NULL");
    MPI_Op op;
    CALL(MPI_Op_create(user_op, 1, &op));
    CHECK(MPI_Op_f2c(MPI_Op_c2f(op)) == op && MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM &&
              MPI_Op_f2c(MPI_Op_c2f(MPI_OP_NULL)) == MPI_OP_NULL,
          "Op round trips");
    MPI_Info info;
    CALL(MPI_Info_create(&info));
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info &&
              MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL &&
              MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV,
          "Info round trips");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN &&
              MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL)) ==
                  MPI_ERRORS_ARE_FATAL &&
              MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRHANDLER_NULL)) == MPI_ERRHANDLER_NULL,
          "Errhandler round trips");
    /* A request through Fortran and back is waited for as itself. */
    int x = mt_rank, y = -1;
    MPI_Request q;
    CALL(MPI_Irecv(&y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &q));
    MPI_Fint fq = MPI_Request_c2f(q);
    CALL(MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF));
    MPI_Request q2 = MPI_Request_f2c(fq);
    CHECK(q2 == q, "Request round trip");
    MPI_Status st;
    CALL(MPI_Wait(&q2, &st));
    CHECK(y == mt_rank, "request waited through its Fortran handle: %d", y);
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "REQUEST_NULL");
    /* A message. */
    MPI_Message m;
    CALL(MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_SELF));
    CALL(MPI_Mprobe(0, 4, MPI_COMM_SELF, &m, MPI_STATUS_IGNORE));
    MPI_Message m2 = MPI_Message_f2c(MPI_Message_c2f(m));
    CHECK(m2 == m, "Message round trip");
    y = -1;
    CALL(MPI_Mrecv(&y, 1, MPI_INT, &m2, MPI_STATUS_IGNORE));
    CHECK(y == mt_rank && m2 == MPI_MESSAGE_NULL, "Mrecv through the converted message");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL &&
              MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC,
          "MESSAGE_NULL / NO_PROC");
    /* Status. */
    MPI_Fint fs[MPI_F_STATUS_SIZE];
    MPI_Status back;
    CALL(MPI_Status_c2f(&st, fs));
    CHECK(fs[MPI_F_SOURCE] == 0 && fs[MPI_F_TAG] == 3, "Fortran status source %d tag %d",
          (int)fs[MPI_F_SOURCE], (int)fs[MPI_F_TAG]);
    CALL(MPI_Status_f2c(fs, &back));
    int n1, n2;
    CALL(MPI_Get_count(&st, MPI_INT, &n1));
    CALL(MPI_Get_count(&back, MPI_INT, &n2));
    CHECK(back.MPI_SOURCE == st.MPI_SOURCE && back.MPI_TAG == st.MPI_TAG && n1 == n2 && n1 == 1,
          "status round trip: count %d vs %d", n1, n2);
    /* Integers no conversion gave out are null. */
    CHECK(MPI_Comm_f2c(0) == MPI_COMM_NULL && MPI_Comm_f2c(-7) == MPI_COMM_NULL &&
              MPI_Comm_f2c(1 << 30) == MPI_COMM_NULL,
          "unknown Fortran handles are not null");
    CALL(MPI_Info_free(&info));
    CALL(MPI_Op_free(&op));
    CALL(MPI_Group_free(&g));
    CALL(MPI_Type_free(&vec));
    CALL(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "types31");
    test_names();
    test_reductions();
    test_f90();
    test_handles();
    return mt_done();
}
