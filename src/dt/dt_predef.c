/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_predef.c - the predefined datatypes as static objects: committed,
 * named (by their ump.h constant), never freed. Each is one contiguous run (a LEAF), except the
 * pair types, laid out as the C struct {T v; int i;} with its padding.
 */
#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#include "dt/dt_int.h"

const ump_dt_dl_t ump_dt_empty_leaf = {.kind = UMP_DL_LEAF, .size = 0};

/* The kind of an integer type of this C implementation, by size and sign. */
#define SKIND(t)                                                                                   \
    (sizeof(t) == 1   ? UMP_DT_INT8                                                                \
     : sizeof(t) == 2 ? UMP_DT_INT16                                                               \
     : sizeof(t) == 4 ? UMP_DT_INT32                                                               \
                      : UMP_DT_INT64)
#define UKIND(t)                                                                                   \
    (sizeof(t) == 1   ? UMP_DT_UINT8                                                               \
     : sizeof(t) == 2 ? UMP_DT_UINT16                                                              \
     : sizeof(t) == 4 ? UMP_DT_UINT32                                                              \
                      : UMP_DT_UINT64)
#define WKIND ((wchar_t)-1 < 0 ? SKIND(wchar_t) : UKIND(wchar_t))

#define BASIC(var, nm, ctype, kind_)                                                               \
    static const ump_dt_dl_t leaf_##var = {                                                        \
        .kind = UMP_DL_LEAF, .size = sizeof(ctype), .nruns = 1};                                   \
    struct ump_dt ump_dt_##var = {                                                                 \
        .size = sizeof(ctype),                                                                     \
        .extent = sizeof(ctype),                                                                   \
        .contiguous = true,                                                                        \
        .name = nm,                                                                                \
        .magic = UMP_DT_MAGIC,                                                                     \
        .refs = 1,                                                                                 \
        .predefined = true,                                                                        \
        .committed = true,                                                                         \
        .is_contig = true,                                                                         \
        .kind = (kind_),                                                                           \
        .combiner = UMP_DT_COMBINER_NAMED,                                                         \
        .align = _Alignof(ctype),                                                                  \
        .ub = sizeof(ctype),                                                                       \
        .true_ub = sizeof(ctype),                                                                  \
        .nblocks = 1,                                                                              \
        .min_blk = sizeof(ctype),                                                                  \
        .median_blk = sizeof(ctype),                                                               \
        .avg_blk = sizeof(ctype),                                                                  \
        .nbasic = 1,                                                                               \
        .sig = UMP_DT_SIG_CODE(kind_),                                                             \
        .sig_pow = UMP_DT_SIG_B,                                                                   \
        .dl = &leaf_##var,                                                                         \
    };

BASIC(char, "UMP_CHAR", char, UMP_DT_CHAR)
BASIC(short, "UMP_SHORT", short, SKIND(short))
BASIC(int, "UMP_INT", int, SKIND(int))
BASIC(long, "UMP_LONG", long, SKIND(long))
BASIC(long_long_int, "UMP_LONG_LONG", long long, SKIND(long long))
BASIC(signed_char, "UMP_SIGNED_CHAR", signed char, UMP_DT_INT8)
BASIC(unsigned_char, "UMP_UNSIGNED_CHAR", unsigned char, UMP_DT_UINT8)
BASIC(unsigned_short, "UMP_UNSIGNED_SHORT", unsigned short, UKIND(unsigned short))
BASIC(unsigned, "UMP_UNSIGNED", unsigned, UKIND(unsigned))
BASIC(unsigned_long, "UMP_UNSIGNED_LONG", unsigned long, UKIND(unsigned long))
BASIC(unsigned_long_long, "UMP_UNSIGNED_LONG_LONG", unsigned long long, UKIND(unsigned long long))
BASIC(float, "UMP_FLOAT", float, UMP_DT_FLOAT)
BASIC(double, "UMP_DOUBLE", double, UMP_DT_DOUBLE)
BASIC(long_double, "UMP_LONG_DOUBLE", long double, UMP_DT_LONG_DOUBLE)
BASIC(wchar, "UMP_WCHAR", wchar_t, WKIND)
BASIC(c_bool, "UMP_C_BOOL", _Bool, UMP_DT_C_BOOL)
BASIC(int8_t, "UMP_INT8", int8_t, UMP_DT_INT8)
BASIC(int16_t, "UMP_INT16", int16_t, UMP_DT_INT16)
BASIC(int32_t, "UMP_INT32", int32_t, UMP_DT_INT32)
BASIC(int64_t, "UMP_INT64", int64_t, UMP_DT_INT64)
BASIC(uint8_t, "UMP_UINT8", uint8_t, UMP_DT_UINT8)
BASIC(uint16_t, "UMP_UINT16", uint16_t, UMP_DT_UINT16)
BASIC(uint32_t, "UMP_UINT32", uint32_t, UMP_DT_UINT32)
BASIC(uint64_t, "UMP_UINT64", uint64_t, UMP_DT_UINT64)
/* An address-sized integer, and 64-bit integers for counts and file
 * offsets: objects of their own, so a face can name them apart from the C
 * types of the same size. */
BASIC(aint, "UMP_AINT", intptr_t, SKIND(intptr_t))
BASIC(count, "UMP_COUNT", long long, SKIND(long long))
BASIC(offset, "UMP_OFFSET", long long, SKIND(long long))
BASIC(c_float_complex, "UMP_C_FLOAT_COMPLEX", float _Complex, UMP_DT_C_FLOAT_COMPLEX)
BASIC(c_double_complex, "UMP_C_DOUBLE_COMPLEX", double _Complex, UMP_DT_C_DOUBLE_COMPLEX)
BASIC(c_long_double_complex, "UMP_C_LONG_DOUBLE_COMPLEX", long double _Complex,
      UMP_DT_C_LONG_DOUBLE_COMPLEX)
BASIC(byte, "UMP_BYTE", unsigned char, UMP_DT_BYTE)
BASIC(packed, "UMP_PACKED", unsigned char, UMP_DT_PACKED)

/* {T v; int i;}: one run when the int follows v without padding, else two. */
#define PAIR(var, nm, vtype, kind_, vkind)                                                         \
    struct pair_##var {                                                                            \
        vtype v;                                                                                   \
        int i;                                                                                     \
    };                                                                                             \
    static const ptrdiff_t disps_##var[2] = {0, offsetof(struct pair_##var, i)};                   \
    static const size_t lens_##var[2] = {sizeof(vtype), sizeof(int)};                              \
    static const size_t pfx_##var[3] = {0, sizeof(vtype), sizeof(vtype) + sizeof(int)};            \
    static const ump_dt_dl_t dl_##var = {                                                          \
        .kind = offsetof(struct pair_##var, i) == sizeof(vtype) ? UMP_DL_LEAF : UMP_DL_IDX,        \
        .count = offsetof(struct pair_##var, i) == sizeof(vtype) ? 0 : 2,                          \
        .depth = offsetof(struct pair_##var, i) == sizeof(vtype) ? 0 : 1,                          \
        .nruns = offsetof(struct pair_##var, i) == sizeof(vtype) ? 1 : 2,                          \
        .size = sizeof(vtype) + sizeof(int),                                                       \
        .disps = disps_##var,                                                                      \
        .lens = lens_##var,                                                                        \
        .pfx = pfx_##var,                                                                          \
    };                                                                                             \
    struct ump_dt ump_dt_##var = {                                                                 \
        .size = sizeof(vtype) + sizeof(int),                                                       \
        .extent = sizeof(struct pair_##var),                                                       \
        .contiguous = offsetof(struct pair_##var, i) == sizeof(vtype) &&                           \
                      sizeof(struct pair_##var) == sizeof(vtype) + sizeof(int),                    \
        .name = nm,                                                                                \
        .magic = UMP_DT_MAGIC,                                                                     \
        .refs = 1,                                                                                 \
        .predefined = true,                                                                        \
        .committed = true,                                                                         \
        .is_contig = offsetof(struct pair_##var, i) == sizeof(vtype) &&                            \
                     sizeof(struct pair_##var) == sizeof(vtype) + sizeof(int),                     \
        .kind = (kind_),                                                                           \
        .combiner = UMP_DT_COMBINER_NAMED,                                                         \
        .align = _Alignof(struct pair_##var),                                                      \
        .ub = sizeof(struct pair_##var),                                                           \
        .true_ub = offsetof(struct pair_##var, i) + sizeof(int),                                   \
        .nblocks = offsetof(struct pair_##var, i) == sizeof(vtype) ? 1 : 2,                        \
        .depth = offsetof(struct pair_##var, i) == sizeof(vtype) ? 0 : 1,                          \
        .min_blk = offsetof(struct pair_##var, i) == sizeof(vtype) ? sizeof(vtype) + sizeof(int)   \
                   : sizeof(vtype) < sizeof(int)                   ? sizeof(vtype)                 \
                                                                   : sizeof(int),                                    \
        .median_blk = offsetof(struct pair_##var, i) == sizeof(vtype)                              \
                          ? sizeof(vtype) + sizeof(int)                                            \
                      : sizeof(vtype) < sizeof(int) ? sizeof(vtype)                                \
                                                    : sizeof(int),                                 \
        .avg_blk = offsetof(struct pair_##var, i) == sizeof(vtype) ? sizeof(vtype) + sizeof(int)   \
                                                                   : (sizeof(vtype) + 4) / 2,      \
        .nbasic = 2,                                                                               \
        .sig = UMP_DT_SIG_CODE(vkind) * UMP_DT_SIG_B + UMP_DT_SIG_CODE(SKIND(int)),                \
        .sig_pow = UMP_DT_SIG_B * UMP_DT_SIG_B,                                                    \
        .dl = &dl_##var,                                                                           \
    };

PAIR(float_int, "UMP_FLOAT_INT", float, UMP_DT_FLOAT_INT, UMP_DT_FLOAT)
PAIR(double_int, "UMP_DOUBLE_INT", double, UMP_DT_DOUBLE_INT, UMP_DT_DOUBLE)
PAIR(long_int, "UMP_LONG_INT", long, UMP_DT_LONG_INT, SKIND(long))
PAIR(2int, "UMP_2INT", int, UMP_DT_2INT, SKIND(int))
PAIR(short_int, "UMP_SHORT_INT", short, UMP_DT_SHORT_INT, SKIND(short))
PAIR(long_double_int, "UMP_LONG_DOUBLE_INT", long double, UMP_DT_LONG_DOUBLE_INT,
     UMP_DT_LONG_DOUBLE)

/* The Fortran and C++ types a C program may name (MPI 3.1 3.2.2, 17.2):
 * objects of their own, named apart, with the representation of the C
 * type gfortran and g++ use for them (INTEGER and LOGICAL: int; REAL:
 * float; DOUBLE PRECISION: double; CHARACTER: char; bool: _Bool). Only the
 * MPI interface names them. */
BASIC(integer, "UMP_INTEGER", int, SKIND(int))
BASIC(real, "UMP_REAL", float, UMP_DT_FLOAT)
BASIC(double_precision, "UMP_DOUBLE_PRECISION", double, UMP_DT_DOUBLE)
BASIC(complex, "UMP_COMPLEX", float _Complex, UMP_DT_C_FLOAT_COMPLEX)
BASIC(double_complex, "UMP_DOUBLE_COMPLEX", double _Complex, UMP_DT_C_DOUBLE_COMPLEX)
BASIC(logical, "UMP_LOGICAL", int, SKIND(int))
BASIC(character, "UMP_CHARACTER", char, UMP_DT_CHAR)
BASIC(integer1, "UMP_INTEGER1", int8_t, UMP_DT_INT8)
BASIC(integer2, "UMP_INTEGER2", int16_t, UMP_DT_INT16)
BASIC(integer4, "UMP_INTEGER4", int32_t, UMP_DT_INT32)
BASIC(integer8, "UMP_INTEGER8", int64_t, UMP_DT_INT64)
BASIC(real4, "UMP_REAL4", float, UMP_DT_FLOAT)
BASIC(real8, "UMP_REAL8", double, UMP_DT_DOUBLE)
BASIC(complex8, "UMP_COMPLEX8", float _Complex, UMP_DT_C_FLOAT_COMPLEX)
BASIC(complex16, "UMP_COMPLEX16", double _Complex, UMP_DT_C_DOUBLE_COMPLEX)
BASIC(cxx_bool, "UMP_CXX_BOOL", _Bool, UMP_DT_C_BOOL)
BASIC(cxx_float_complex, "UMP_CXX_FLOAT_COMPLEX", float _Complex, UMP_DT_C_FLOAT_COMPLEX)
BASIC(cxx_double_complex, "UMP_CXX_DOUBLE_COMPLEX", double _Complex, UMP_DT_C_DOUBLE_COMPLEX)
BASIC(cxx_long_double_complex, "UMP_CXX_LONG_DOUBLE_COMPLEX", long double _Complex,
      UMP_DT_C_LONG_DOUBLE_COMPLEX)
PAIR(2integer, "UMP_2INTEGER", int, UMP_DT_2INT, SKIND(int))

/* MPI_2REAL and MPI_2DOUBLE_PRECISION: a value and its index, both of the
 * Fortran real type ({T v; T i;}, no padding): one run of two elements. */
#define TWIN(var, nm, vtype, kind_, vkind)                                                         \
    static const ump_dt_dl_t leaf_##var = {                                                        \
        .kind = UMP_DL_LEAF, .size = 2 * sizeof(vtype), .nruns = 1};                               \
    struct ump_dt ump_dt_##var = {                                                                 \
        .size = 2 * sizeof(vtype),                                                                 \
        .extent = 2 * sizeof(vtype),                                                               \
        .contiguous = true,                                                                        \
        .name = nm,                                                                                \
        .magic = UMP_DT_MAGIC,                                                                     \
        .refs = 1,                                                                                 \
        .predefined = true,                                                                        \
        .committed = true,                                                                         \
        .is_contig = true,                                                                         \
        .kind = (kind_),                                                                           \
        .combiner = UMP_DT_COMBINER_NAMED,                                                         \
        .align = _Alignof(vtype),                                                                  \
        .ub = 2 * sizeof(vtype),                                                                   \
        .true_ub = 2 * sizeof(vtype),                                                              \
        .nblocks = 1,                                                                              \
        .min_blk = 2 * sizeof(vtype),                                                              \
        .median_blk = 2 * sizeof(vtype),                                                           \
        .avg_blk = 2 * sizeof(vtype),                                                              \
        .nbasic = 2,                                                                               \
        .sig = UMP_DT_SIG_CODE(vkind) * UMP_DT_SIG_B + UMP_DT_SIG_CODE(vkind),                     \
        .sig_pow = UMP_DT_SIG_B * UMP_DT_SIG_B,                                                    \
        .dl = &leaf_##var,                                                                         \
    };
TWIN(2real, "UMP_2REAL", float, UMP_DT_2FLOAT, UMP_DT_FLOAT)
TWIN(2double_precision, "UMP_2DOUBLE_PRECISION", double, UMP_DT_2DOUBLE, UMP_DT_DOUBLE)

size_t ump_dt_kind_size(ump_dt_kind_t kind)
{
    static const size_t sizes[UMP_DT_NKINDS] = {
        [UMP_DT_CHAR] = 1,
        [UMP_DT_INT8] = 1,
        [UMP_DT_INT16] = 2,
        [UMP_DT_INT32] = 4,
        [UMP_DT_INT64] = 8,
        [UMP_DT_UINT8] = 1,
        [UMP_DT_UINT16] = 2,
        [UMP_DT_UINT32] = 4,
        [UMP_DT_UINT64] = 8,
        [UMP_DT_FLOAT] = sizeof(float),
        [UMP_DT_DOUBLE] = sizeof(double),
        [UMP_DT_LONG_DOUBLE] = sizeof(long double),
        [UMP_DT_C_FLOAT_COMPLEX] = sizeof(float _Complex),
        [UMP_DT_C_DOUBLE_COMPLEX] = sizeof(double _Complex),
        [UMP_DT_C_LONG_DOUBLE_COMPLEX] = sizeof(long double _Complex),
        [UMP_DT_C_BOOL] = sizeof(_Bool),
        [UMP_DT_BYTE] = 1,
        [UMP_DT_PACKED] = 1,
        [UMP_DT_FLOAT_INT] = sizeof(struct pair_float_int),
        [UMP_DT_DOUBLE_INT] = sizeof(struct pair_double_int),
        [UMP_DT_LONG_INT] = sizeof(struct pair_long_int),
        [UMP_DT_2INT] = sizeof(struct pair_2int),
        [UMP_DT_SHORT_INT] = sizeof(struct pair_short_int),
        [UMP_DT_LONG_DOUBLE_INT] = sizeof(struct pair_long_double_int),
        [UMP_DT_2FLOAT] = 2 * sizeof(float),
        [UMP_DT_2DOUBLE] = 2 * sizeof(double),
    };
    return (unsigned)kind < UMP_DT_NKINDS ? sizes[kind] : 0;
}
