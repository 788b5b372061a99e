/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the reduction kernels: every predefined op on every kind it
 * applies to, against a scalar reference written here element by element,
 * at lengths around the vector widths (0, 1, 3, 17, 1000); and the table of
 * which (op, kind) pairs exist.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll/op_kernels.h"

static const size_t lens[] = {0, 1, 3, 17, 1000};
#define MAXN 1000

static unsigned seed = 12345;
static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) & 0xffffff;
}

/* Integers: random values including negatives and overflow-prone ones. */
#define INT_TEST(name, T, K, UT)                                                                   \
    static void name(void **state)                                                                 \
    {                                                                                              \
        static T in[MAXN], io[MAXN], ref[MAXN];                                                    \
        for (int op = 0; op < UMP_OPK_COUNT_; op++) {                                              \
            if (op == UMP_OPK_MAXLOC || op == UMP_OPK_MINLOC) {                                    \
                assert_null(ump_coll_kernel(op, K));                                               \
                continue;                                                                          \
            }                                                                                      \
            ump_kernel_fn_t fn = ump_coll_kernel(op, K);                                           \
            assert_non_null(fn);                                                                   \
            for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {                       \
                size_t n = lens[li];                                                               \
                for (size_t i = 0; i < n; i++) {                                                   \
                    in[i] = (T)(rnd() % 7 == 0 ? 0 : (UT)rnd() * (UT)rnd());                       \
                    io[i] = (T)(rnd() % 5 == 0 ? 0 : (T)(UT)rnd());                                \
                    if (i % 11 == 3) io[i] = in[i];                                                \
                }                                                                                  \
                for (size_t i = 0; i < n; i++) {                                                   \
                    T a = in[i], b = io[i];                                                        \
                    T r;                                                                           \
                    switch (op) {                                                                  \
                    case UMP_OPK_MAX:                                                              \
                        r = a > b ? a : b;                                                         \
                        break;                                                                     \
                    case UMP_OPK_MIN:                                                              \
                        r = a < b ? a : b;                                                         \
                        break;                                                                     \
                    case UMP_OPK_SUM:                                                              \
                        r = (T)((UT)a + (UT)b);                                                    \
                        break;                                                                     \
                    case UMP_OPK_PROD:                                                             \
                        r = (T)((UT)a * (UT)b);                                                    \
                        break;                                                                     \
                    case UMP_OPK_LAND:                                                             \
                        r = (a && b) ? 1 : 0;                                                      \
                        break;                                                                     \
                    case UMP_OPK_LOR:                                                              \
                        r = (a || b) ? 1 : 0;                                                      \
                        break;                                                                     \
                    case UMP_OPK_LXOR:                                                             \
                        r = (!a != !b) ? 1 : 0;                                                    \
                        break;                                                                     \
                    case UMP_OPK_BAND:                                                             \
                        r = a & b;                                                                 \
                        break;                                                                     \
                    case UMP_OPK_BOR:                                                              \
                        r = a | b;                                                                 \
                        break;                                                                     \
                    case UMP_OPK_BXOR:                                                             \
                        r = a ^ b;                                                                 \
                        break;                                                                     \
                    case UMP_OPK_REPLACE:                                                          \
                        r = a;                                                                     \
                        break;                                                                     \
                    default:                                                                       \
                        r = b;                                                                     \
                        break;                                                                     \
                    }                                                                              \
                    ref[i] = r;                                                                    \
                }                                                                                  \
                fn(in, io, n);                                                                     \
                for (size_t i = 0; i < n; i++)                                                     \
                    assert_true(io[i] == ref[i]);                                                  \
            }                                                                                      \
        }                                                                                          \
    }

INT_TEST(test_i8, int8_t, UMP_KIND_I8, uint8_t)
INT_TEST(test_i16, int16_t, UMP_KIND_I16, uint16_t)
INT_TEST(test_i32, int32_t, UMP_KIND_I32, uint32_t)
INT_TEST(test_i64, int64_t, UMP_KIND_I64, uint64_t)
INT_TEST(test_u8, uint8_t, UMP_KIND_U8, uint8_t)
INT_TEST(test_u16, uint16_t, UMP_KIND_U16, uint16_t)
INT_TEST(test_u32, uint32_t, UMP_KIND_U32, uint32_t)
INT_TEST(test_u64, uint64_t, UMP_KIND_U64, uint64_t)

/* Floating point: MAX MIN SUM PROD exist, the logical and bitwise do not. */
#define FLOAT_TEST(name, T, K)                                                                     \
    static void name(void **state)                                                                 \
    {                                                                                              \
        static T in[MAXN], io[MAXN], ref[MAXN];                                                    \
        for (int op = 0; op < UMP_OPK_COUNT_; op++) {                                              \
            ump_kernel_fn_t fn = ump_coll_kernel(op, K);                                           \
            bool applies = op == UMP_OPK_MAX || op == UMP_OPK_MIN || op == UMP_OPK_SUM ||          \
                           op == UMP_OPK_PROD || op == UMP_OPK_REPLACE || op == UMP_OPK_NO_OP;     \
            if (!applies) {                                                                        \
                assert_null(fn);                                                                   \
                continue;                                                                          \
            }                                                                                      \
            assert_non_null(fn);                                                                   \
            for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {                       \
                size_t n = lens[li];                                                               \
                for (size_t i = 0; i < n; i++) {                                                   \
                    in[i] = (T)((int)(rnd() % 2001) - 1000) / (T)8;                                \
                    io[i] = (T)((int)(rnd() % 2001) - 1000) / (T)16;                               \
                }                                                                                  \
                for (size_t i = 0; i < n; i++) {                                                   \
                    T a = in[i], b = io[i];                                                        \
                    ref[i] = op == UMP_OPK_MAX       ? (a > b ? a : b)                             \
                             : op == UMP_OPK_MIN     ? (a < b ? a : b)                             \
                             : op == UMP_OPK_SUM     ? a + b                                       \
                             : op == UMP_OPK_PROD    ? a * b                                       \
                             : op == UMP_OPK_REPLACE ? a                                           \
                                                     : b;                                          \
                }                                                                                  \
                fn(in, io, n);                                                                     \
                for (size_t i = 0; i < n; i++)                                                     \
                    assert_true(io[i] == ref[i]);                                                  \
            }                                                                                      \
        }                                                                                          \
    }

FLOAT_TEST(test_float, float, UMP_KIND_FLOAT)
FLOAT_TEST(test_double, double, UMP_KIND_DOUBLE)
FLOAT_TEST(test_ldouble, long double, UMP_KIND_LDOUBLE)

/* Complex, as (re, im) pairs: SUM and PROD only. */
#define COMPLEX_TEST(name, T, K)                                                                   \
    static void name(void **state)                                                                 \
    {                                                                                              \
        static T in[2 * MAXN], io[2 * MAXN], ref[2 * MAXN];                                        \
        for (int op = 0; op < UMP_OPK_COUNT_; op++) {                                              \
            ump_kernel_fn_t fn = ump_coll_kernel(op, K);                                           \
            bool applies = op == UMP_OPK_SUM || op == UMP_OPK_PROD || op == UMP_OPK_REPLACE ||     \
                           op == UMP_OPK_NO_OP;                                                    \
            if (!applies) {                                                                        \
                assert_null(fn);                                                                   \
                continue;                                                                          \
            }                                                                                      \
            assert_non_null(fn);                                                                   \
            for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {                       \
                size_t n = lens[li];                                                               \
                for (size_t i = 0; i < 2 * n; i++) {                                               \
                    in[i] = (T)((int)(rnd() % 201) - 100) / (T)4;                                  \
                    io[i] = (T)((int)(rnd() % 201) - 100) / (T)2;                                  \
                }                                                                                  \
                for (size_t i = 0; i < n; i++) {                                                   \
                    T a = in[2 * i], b = in[2 * i + 1], c = io[2 * i], d = io[2 * i + 1];          \
                    if (op == UMP_OPK_SUM) {                                                       \
                        ref[2 * i] = a + c;                                                        \
                        ref[2 * i + 1] = b + d;                                                    \
                    } else if (op == UMP_OPK_PROD) {                                               \
                        ref[2 * i] = a * c - b * d;                                                \
                        ref[2 * i + 1] = a * d + b * c;                                            \
                    } else if (op == UMP_OPK_REPLACE) {                                            \
                        ref[2 * i] = a;                                                            \
                        ref[2 * i + 1] = b;                                                        \
                    } else {                                                                       \
                        ref[2 * i] = c;                                                            \
                        ref[2 * i + 1] = d;                                                        \
                    }                                                                              \
                }                                                                                  \
                fn(in, io, n);                                                                     \
                for (size_t i = 0; i < 2 * n; i++)                                                 \
                    assert_true(io[i] == ref[i]);                                                  \
            }                                                                                      \
        }                                                                                          \
    }

COMPLEX_TEST(test_cfloat, float, UMP_KIND_CFLOAT)
COMPLEX_TEST(test_cdouble, double, UMP_KIND_CDOUBLE)
COMPLEX_TEST(test_cldouble, long double, UMP_KIND_CLDOUBLE)

static void test_bool(void **state)
{
    bool in[4] = {false, false, true, true}, io[4];
    const bool land[4] = {false, false, false, true}, lor[4] = {false, true, true, true},
               lxor[4] = {false, true, true, false};
    for (int op = 0; op < UMP_OPK_COUNT_; op++) {
        ump_kernel_fn_t fn = ump_coll_kernel(op, UMP_KIND_BOOL);
        const bool *want = op == UMP_OPK_LAND   ? land
                           : op == UMP_OPK_LOR  ? lor
                           : op == UMP_OPK_LXOR ? lxor
                                                : NULL;
        if (!want && op != UMP_OPK_REPLACE && op != UMP_OPK_NO_OP) {
            assert_null(fn);
            continue;
        }
        assert_non_null(fn);
        if (!want) continue;
        const bool init[4] = {false, true, false, true};
        memcpy(io, init, sizeof(io));
        fn(in, io, 4);
        for (int i = 0; i < 4; i++)
            assert_int_equal(io[i], want[i]);
    }
}

/* MAXLOC/MINLOC on packed pairs (value then int, no padding): value wins,
 * ties take the smaller index. */
#define LOC_TEST(name, VT, K)                                                                      \
    static void name(void **state)                                                                 \
    {                                                                                              \
        const size_t st = sizeof(VT) + sizeof(int);                                                \
        assert_int_equal(ump_coll_kind_size(K), st);                                               \
        static char in[MAXN * 32 + 1], io[MAXN * 32 + 1];                                          \
        static VT rv[MAXN];                                                                        \
        static int ri[MAXN];                                                                       \
        for (int op = 0; op < UMP_OPK_COUNT_; op++) {                                              \
            ump_kernel_fn_t fn = ump_coll_kernel(op, K);                                           \
            if (op != UMP_OPK_MAXLOC && op != UMP_OPK_MINLOC) {                                    \
                if (op != UMP_OPK_REPLACE && op != UMP_OPK_NO_OP) assert_null(fn);                 \
                continue;                                                                          \
            }                                                                                      \
            assert_non_null(fn);                                                                   \
            for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {                       \
                size_t n = lens[li];                                                               \
                /* Offset by one byte: packed pairs are often unaligned. */                        \
                char *pi = in + 1, *po = io + 1;                                                   \
                for (size_t i = 0; i < n; i++) {                                                   \
                    VT a = (VT)(rnd() % 5), b = (VT)(rnd() % 5);                                   \
                    int ia = (int)(rnd() % 9), ib = (int)(rnd() % 9);                              \
                    memcpy(pi + i * st, &a, sizeof(VT));                                           \
                    memcpy(pi + i * st + sizeof(VT), &ia, sizeof(int));                            \
                    memcpy(po + i * st, &b, sizeof(VT));                                           \
                    memcpy(po + i * st + sizeof(VT), &ib, sizeof(int));                            \
                    bool max = op == UMP_OPK_MAXLOC;                                               \
                    if (a == b) {                                                                  \
                        rv[i] = a;                                                                 \
                        ri[i] = ia < ib ? ia : ib;                                                 \
                    } else if ((a > b) == max) {                                                   \
                        rv[i] = a;                                                                 \
                        ri[i] = ia;                                                                \
                    } else {                                                                       \
                        rv[i] = b;                                                                 \
                        ri[i] = ib;                                                                \
                    }                                                                              \
                }                                                                                  \
                fn(pi, po, n);                                                                     \
                for (size_t i = 0; i < n; i++) {                                                   \
                    VT v;                                                                          \
                    int ix;                                                                        \
                    memcpy(&v, po + i * st, sizeof(VT));                                           \
                    memcpy(&ix, po + i * st + sizeof(VT), sizeof(int));                            \
                    assert_true(v == rv[i]);                                                       \
                    assert_int_equal(ix, ri[i]);                                                   \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

LOC_TEST(test_float_int, float, UMP_KIND_FLOAT_INT)
LOC_TEST(test_double_int, double, UMP_KIND_DOUBLE_INT)
LOC_TEST(test_long_int, long, UMP_KIND_LONG_INT)
LOC_TEST(test_2int, int, UMP_KIND_2INT)
LOC_TEST(test_short_int, short, UMP_KIND_SHORT_INT)
LOC_TEST(test_ldouble_int, long double, UMP_KIND_LDOUBLE_INT)

/* REPLACE copies whole elements for every kind; NO_OP leaves inout alone. */
static void test_replace_noop(void **state)
{
    for (int k = 0; k < UMP_KIND_COUNT_; k++) {
        size_t sz = ump_coll_kind_size(k);
        assert_true(sz > 0);
        unsigned char in[3 * 64], io[3 * 64];
        memset(in, 0xab, sizeof(in));
        memset(io, 0x11, sizeof(io));
        ump_kernel_fn_t rep = ump_coll_kernel(UMP_OPK_REPLACE, k);
        ump_kernel_fn_t nop = ump_coll_kernel(UMP_OPK_NO_OP, k);
        assert_non_null(rep);
        assert_non_null(nop);
        nop(in, io, 3);
        for (size_t i = 0; i < 3 * sz; i++)
            assert_int_equal(io[i], 0x11);
        rep(in, io, 2);
        for (size_t i = 0; i < 2 * sz; i++)
            assert_int_equal(io[i], 0xab);
        for (size_t i = 2 * sz; i < 3 * sz; i++)
            assert_int_equal(io[i], 0x11);
    }
    assert_null(ump_coll_kernel(UMP_OPK_COUNT_, UMP_KIND_I8));
    assert_null(ump_coll_kernel(UMP_OPK_SUM, UMP_KIND_COUNT_));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i8),          cmocka_unit_test(test_i16),
        cmocka_unit_test(test_i32),         cmocka_unit_test(test_i64),
        cmocka_unit_test(test_u8),          cmocka_unit_test(test_u16),
        cmocka_unit_test(test_u32),         cmocka_unit_test(test_u64),
        cmocka_unit_test(test_float),       cmocka_unit_test(test_double),
        cmocka_unit_test(test_ldouble),     cmocka_unit_test(test_cfloat),
        cmocka_unit_test(test_cdouble),     cmocka_unit_test(test_cldouble),
        cmocka_unit_test(test_bool),        cmocka_unit_test(test_float_int),
        cmocka_unit_test(test_double_int),  cmocka_unit_test(test_long_int),
        cmocka_unit_test(test_2int),        cmocka_unit_test(test_short_int),
        cmocka_unit_test(test_ldouble_int), cmocka_unit_test(test_replace_noop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
