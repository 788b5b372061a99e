/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predefined reduction kernels: one plain loop per (operation, machine
 * type) over restrict pointers, which gcc and clang turn into SIMD code.
 * GCC's -O2 vectorizes only loops whose trip count it knows, so this file
 * asks GCC for the loop vectorizer with the dynamic cost model; clang
 * vectorizes these loops at -O2 already and has no such pragma.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-loop-vectorize", "vect-cost-model=dynamic")
#endif

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coll/op_kernels.h"

/* Signed sums and products wrap like the hardware instead of being
 * undefined behaviour: the arithmetic is done on the unsigned twin. */
#define ARITH_WRAP(name, T, UT, OPER)                                                              \
    static void name(const void *in_, void *inout_, size_t n)                                      \
    {                                                                                              \
        const T *restrict in = in_;                                                                \
        T *restrict io = inout_;                                                                   \
        for (size_t i = 0; i < n; i++)                                                             \
            io[i] = (T)((UT)in[i] OPER(UT) io[i]);                                                 \
    }
#define ARITH(name, T, OPER)                                                                       \
    static void name(const void *in_, void *inout_, size_t n)                                      \
    {                                                                                              \
        const T *restrict in = in_;                                                                \
        T *restrict io = inout_;                                                                   \
        for (size_t i = 0; i < n; i++)                                                             \
            io[i] = in[i] OPER io[i];                                                              \
    }
#define MAXMIN(name, T, CMP)                                                                       \
    static void name(const void *in_, void *inout_, size_t n)                                      \
    {                                                                                              \
        const T *restrict in = in_;                                                                \
        T *restrict io = inout_;                                                                   \
        for (size_t i = 0; i < n; i++)                                                             \
            io[i] = in[i] CMP io[i] ? in[i] : io[i];                                               \
    }
#define LOGIC(name, T, EXPR)                                                                       \
    static void name(const void *in_, void *inout_, size_t n)                                      \
    {                                                                                              \
        const T *restrict in = in_;                                                                \
        T *restrict io = inout_;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            T a = in[i], b = io[i];                                                                \
            io[i] = (T)(EXPR);                                                                     \
        }                                                                                          \
    }

/* Integers: every operation but the pair ones. */
#define INT_KERNELS(sfx, T, UT)                                                                    \
    MAXMIN(max_##sfx, T, >)                                                                        \
    MAXMIN(min_##sfx, T, <)                                                                        \
    ARITH_WRAP(sum_##sfx, T, UT, +)                                                                \
    ARITH_WRAP(prod_##sfx, T, UT, *)                                                               \
    LOGIC(land_##sfx, T, (a != 0) && (b != 0))                                                     \
    LOGIC(lor_##sfx, T, (a != 0) || (b != 0))                                                      \
    LOGIC(lxor_##sfx, T, (a != 0) != (b != 0))                                                     \
    LOGIC(band_##sfx, T, a &b)                                                                     \
    LOGIC(bor_##sfx, T, a | b)                                                                     \
    LOGIC(bxor_##sfx, T, a ^ b)

INT_KERNELS(i8, int8_t, uint8_t)
INT_KERNELS(i16, int16_t, uint16_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u8, uint8_t, uint8_t)
INT_KERNELS(u16, uint16_t, uint16_t)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(u64, uint64_t, uint64_t)

/* Floating point: MAX, MIN, SUM, PROD. */
#define FLOAT_KERNELS(sfx, T)                                                                      \
    MAXMIN(max_##sfx, T, >)                                                                        \
    MAXMIN(min_##sfx, T, <)                                                                        \
    ARITH(sum_##sfx, T, +)                                                                         \
    ARITH(prod_##sfx, T, *)

FLOAT_KERNELS(f, float)
FLOAT_KERNELS(d, double)
FLOAT_KERNELS(ld, long double)

/* Complex: SUM adds the interleaved real and imaginary parts as one flat
 * array; PROD is the textbook formula (C's operator would call a library
 * routine per element for the corner cases of infinities). */
#define COMPLEX_KERNELS(sfx, T)                                                                    \
    static void sum_##sfx(const void *in_, void *inout_, size_t n)                                 \
    {                                                                                              \
        const T *restrict in = in_;                                                                \
        T *restrict io = inout_;                                                                   \
        for (size_t i = 0; i < 2 * n; i++)                                                         \
            io[i] = in[i] + io[i];                                                                 \
    }                                                                                              \
    static void prod_##sfx(const void *in_, void *inout_, size_t n)                                \
    {                                                                                              \
        const T *restrict in = in_;                                                                \
        T *restrict io = inout_;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            T a = in[2 * i], b = in[2 * i + 1], c = io[2 * i], d = io[2 * i + 1];                  \
            io[2 * i] = a * c - b * d;                                                             \
            io[2 * i + 1] = a * d + b * c;                                                         \
        }                                                                                          \
    }

COMPLEX_KERNELS(cf, float)
COMPLEX_KERNELS(cd, double)
COMPLEX_KERNELS(cld, long double)

/* C _Bool: the logical operations only. */
LOGIC(land_b, bool, a &&b)
LOGIC(lor_b, bool, a || b)
LOGIC(lxor_b, bool, a != b)

/* Pairs (value, index) in their packed form: the value, then the int,
 * with no padding (how the pair types UMP_DOUBLE_INT and friends pack), so
 * fields are read with memcpy. The larger (smaller) value wins; on a tie
 * the smaller index, as MPI 3.1 §5.9.4 defines it. */
#define LOC_KERNEL(name, VT, CMP)                                                                  \
    static void name(const void *in_, void *inout_, size_t n)                                      \
    {                                                                                              \
        const char *in = in_;                                                                      \
        char *io = inout_;                                                                         \
        const size_t stride = sizeof(VT) + sizeof(int);                                            \
        for (size_t k = 0; k < n; k++, in += stride, io += stride) {                               \
            VT a, b;                                                                               \
            int ia, ib;                                                                            \
            memcpy(&a, in, sizeof(VT));                                                            \
            memcpy(&b, io, sizeof(VT));                                                            \
            memcpy(&ia, in + sizeof(VT), sizeof(int));                                             \
            memcpy(&ib, io + sizeof(VT), sizeof(int));                                             \
            if (a CMP b)                                                                           \
                memcpy(io, in, stride);                                                            \
            else if (a == b && ia < ib)                                                            \
                memcpy(io + sizeof(VT), &ia, sizeof(int));                                         \
        }                                                                                          \
    }
#define LOC_KERNELS(sfx, VT)                                                                       \
    LOC_KERNEL(maxloc_##sfx, VT, >)                                                                \
    LOC_KERNEL(minloc_##sfx, VT, <)

LOC_KERNELS(fi, float)
LOC_KERNELS(di, double)
LOC_KERNELS(li, long)
LOC_KERNELS(ii, int)
LOC_KERNELS(si, short)
LOC_KERNELS(ldi, long double)

/* The Fortran pairs whose index is a real too (MPI_2REAL,
 * MPI_2DOUBLE_PRECISION): the same rule, the index compared as a value. */
#define TWIN_KERNEL(name, VT, CMP)                                                                 \
    static void name(const void *in_, void *inout_, size_t n)                                      \
    {                                                                                              \
        const char *in = in_;                                                                      \
        char *io = inout_;                                                                         \
        for (size_t k = 0; k < n; k++, in += 2 * sizeof(VT), io += 2 * sizeof(VT)) {               \
            VT a[2], b[2];                                                                         \
            memcpy(a, in, sizeof(a));                                                              \
            memcpy(b, io, sizeof(b));                                                              \
            if (a[0] CMP b[0])                                                                     \
                memcpy(io, a, sizeof(a));                                                          \
            else if (a[0] == b[0] && a[1] < b[1])                                                  \
                memcpy(io + sizeof(VT), &a[1], sizeof(VT));                                        \
        }                                                                                          \
    }
TWIN_KERNEL(maxloc_ff, float, >)
TWIN_KERNEL(minloc_ff, float, <)
TWIN_KERNEL(maxloc_dd, double, >)
TWIN_KERNEL(minloc_dd, double, <)

static const size_t kind_size[UMP_KIND_COUNT_] = {
    [UMP_KIND_I8] = 1,
    [UMP_KIND_I16] = 2,
    [UMP_KIND_I32] = 4,
    [UMP_KIND_I64] = 8,
    [UMP_KIND_U8] = 1,
    [UMP_KIND_U16] = 2,
    [UMP_KIND_U32] = 4,
    [UMP_KIND_U64] = 8,
    [UMP_KIND_FLOAT] = sizeof(float),
    [UMP_KIND_DOUBLE] = sizeof(double),
    [UMP_KIND_LDOUBLE] = sizeof(long double),
    [UMP_KIND_CFLOAT] = 2 * sizeof(float),
    [UMP_KIND_CDOUBLE] = 2 * sizeof(double),
    [UMP_KIND_CLDOUBLE] = 2 * sizeof(long double),
    [UMP_KIND_BOOL] = sizeof(bool),
    [UMP_KIND_FLOAT_INT] = sizeof(float) + sizeof(int),
    [UMP_KIND_DOUBLE_INT] = sizeof(double) + sizeof(int),
    [UMP_KIND_LONG_INT] = sizeof(long) + sizeof(int),
    [UMP_KIND_2INT] = 2 * sizeof(int),
    [UMP_KIND_SHORT_INT] = sizeof(short) + sizeof(int),
    [UMP_KIND_LDOUBLE_INT] = sizeof(long double) + sizeof(int),
    [UMP_KIND_2FLOAT] = 2 * sizeof(float),
    [UMP_KIND_2DOUBLE] = 2 * sizeof(double),
};

#define INT_ROW(K, sfx)                                                                            \
    [K] = {[UMP_OPK_MAX] = max_##sfx,   [UMP_OPK_MIN] = min_##sfx,   [UMP_OPK_SUM] = sum_##sfx,    \
           [UMP_OPK_PROD] = prod_##sfx, [UMP_OPK_LAND] = land_##sfx, [UMP_OPK_LOR] = lor_##sfx,    \
           [UMP_OPK_LXOR] = lxor_##sfx, [UMP_OPK_BAND] = band_##sfx, [UMP_OPK_BOR] = bor_##sfx,    \
           [UMP_OPK_BXOR] = bxor_##sfx}
#define FLOAT_ROW(K, sfx)                                                                          \
    [K] = {[UMP_OPK_MAX] = max_##sfx,                                                              \
           [UMP_OPK_MIN] = min_##sfx,                                                              \
           [UMP_OPK_SUM] = sum_##sfx,                                                              \
           [UMP_OPK_PROD] = prod_##sfx}
#define COMPLEX_ROW(K, sfx) [K] = {[UMP_OPK_SUM] = sum_##sfx, [UMP_OPK_PROD] = prod_##sfx}
#define LOC_ROW(K, sfx)     [K] = {[UMP_OPK_MAXLOC] = maxloc_##sfx, [UMP_OPK_MINLOC] = minloc_##sfx}

static const ump_kernel_fn_t kernels[UMP_KIND_COUNT_][UMP_OPK_COUNT_] = {
    INT_ROW(UMP_KIND_I8, i8),
    INT_ROW(UMP_KIND_I16, i16),
    INT_ROW(UMP_KIND_I32, i32),
    INT_ROW(UMP_KIND_I64, i64),
    INT_ROW(UMP_KIND_U8, u8),
    INT_ROW(UMP_KIND_U16, u16),
    INT_ROW(UMP_KIND_U32, u32),
    INT_ROW(UMP_KIND_U64, u64),
    FLOAT_ROW(UMP_KIND_FLOAT, f),
    FLOAT_ROW(UMP_KIND_DOUBLE, d),
    FLOAT_ROW(UMP_KIND_LDOUBLE, ld),
    COMPLEX_ROW(UMP_KIND_CFLOAT, cf),
    COMPLEX_ROW(UMP_KIND_CDOUBLE, cd),
    COMPLEX_ROW(UMP_KIND_CLDOUBLE, cld),
    [UMP_KIND_BOOL] = {[UMP_OPK_LAND] = land_b, [UMP_OPK_LOR] = lor_b, [UMP_OPK_LXOR] = lxor_b},
    LOC_ROW(UMP_KIND_FLOAT_INT, fi),
    LOC_ROW(UMP_KIND_DOUBLE_INT, di),
    LOC_ROW(UMP_KIND_LONG_INT, li),
    LOC_ROW(UMP_KIND_2INT, ii),
    LOC_ROW(UMP_KIND_SHORT_INT, si),
    LOC_ROW(UMP_KIND_LDOUBLE_INT, ldi),
    LOC_ROW(UMP_KIND_2FLOAT, ff),
    LOC_ROW(UMP_KIND_2DOUBLE, dd),
};

/* REPLACE and NO_OP do not look at the values, so one kernel per element
 * size serves every kind. */
#define REPLACE(sz)                                                                                \
    static void replace_##sz(const void *in, void *inout, size_t n)                                \
    {                                                                                              \
        memcpy(inout, in, n *sz);                                                                  \
    }
REPLACE(1)
REPLACE(2)
REPLACE(4)
REPLACE(8)
REPLACE(12)
REPLACE(16)
REPLACE(24)
REPLACE(32)
REPLACE(6)
REPLACE(20)

static void no_op(const void *in, void *inout, size_t n) {}

static ump_kernel_fn_t replace_for(size_t sz)
{
    switch (sz) {
    case 1:
        return replace_1;
    case 2:
        return replace_2;
    case 4:
        return replace_4;
    case 8:
        return replace_8;
    case 12:
        return replace_12;
    case 16:
        return replace_16;
    case 24:
        return replace_24;
    case 32:
        return replace_32;
    case 6:
        return replace_6;
    case 20:
        return replace_20;
    default:
        return NULL;
    }
}

ump_kernel_fn_t ump_coll_kernel(ump_opk_t op, ump_kind_t kind)
{
    if ((unsigned)op >= UMP_OPK_COUNT_ || (unsigned)kind >= UMP_KIND_COUNT_) return NULL;
    if (op == UMP_OPK_NO_OP) return no_op;
    if (op == UMP_OPK_REPLACE) return replace_for(kind_size[kind]);
    return kernels[kind][op];
}

size_t ump_coll_kind_size(ump_kind_t kind)
{
    return (unsigned)kind < UMP_KIND_COUNT_ ? kind_size[kind] : 0;
}
