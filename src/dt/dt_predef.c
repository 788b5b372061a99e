/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_predef.c - the predefined MPI datatypes as static objects: committed,
 * named, never freed. Each is one contiguous run (a LEAF), except the pair
 * types, laid out as the C struct {T v; int i;} with its padding.
 */
#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#include "dt/dt_int.h"
#include "mpi.h"

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

#define BASIC(var, mpiname, ctype, kind_)                                                          \
    static const ump_dt_dl_t leaf_##var = {                                                        \
        .kind = UMP_DL_LEAF, .size = sizeof(ctype), .nruns = 1};                                   \
    struct ump_dt ump_dt_##var = {                                                                 \
        .size = sizeof(ctype),                                                                     \
        .extent = sizeof(ctype),                                                                   \
        .contiguous = true,                                                                        \
        .name = mpiname,                                                                           \
        .magic = UMP_DT_MAGIC,                                                                     \
        .refs = 1,                                                                                 \
        .predefined = true,                                                                        \
        .committed = true,                                                                         \
        .is_contig = true,                                                                         \
        .kind = (kind_),                                                                           \
        .combiner = MPI_COMBINER_NAMED,                                                            \
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

BASIC(char, "MPI_CHAR", char, UMP_DT_CHAR)
BASIC(short, "MPI_SHORT", short, SKIND(short))
BASIC(int, "MPI_INT", int, SKIND(int))
BASIC(long, "MPI_LONG", long, SKIND(long))
BASIC(long_long_int, "MPI_LONG_LONG_INT", long long, SKIND(long long))
BASIC(signed_char, "MPI_SIGNED_CHAR", signed char, UMP_DT_INT8)
BASIC(unsigned_char, "MPI_UNSIGNED_CHAR", unsigned char, UMP_DT_UINT8)
BASIC(unsigned_short, "MPI_UNSIGNED_SHORT", unsigned short, UKIND(unsigned short))
BASIC(unsigned, "MPI_UNSIGNED", unsigned, UKIND(unsigned))
BASIC(unsigned_long, "MPI_UNSIGNED_LONG", unsigned long, UKIND(unsigned long))
BASIC(unsigned_long_long, "MPI_UNSIGNED_LONG_LONG", unsigned long long, UKIND(unsigned long long))
BASIC(float, "MPI_FLOAT", float, UMP_DT_FLOAT)
BASIC(double, "MPI_DOUBLE", double, UMP_DT_DOUBLE)
BASIC(long_double, "MPI_LONG_DOUBLE", long double, UMP_DT_LONG_DOUBLE)
BASIC(wchar, "MPI_WCHAR", wchar_t, WKIND)
BASIC(c_bool, "MPI_C_BOOL", _Bool, UMP_DT_C_BOOL)
BASIC(int8_t, "MPI_INT8_T", int8_t, UMP_DT_INT8)
BASIC(int16_t, "MPI_INT16_T", int16_t, UMP_DT_INT16)
BASIC(int32_t, "MPI_INT32_T", int32_t, UMP_DT_INT32)
BASIC(int64_t, "MPI_INT64_T", int64_t, UMP_DT_INT64)
BASIC(uint8_t, "MPI_UINT8_T", uint8_t, UMP_DT_UINT8)
BASIC(uint16_t, "MPI_UINT16_T", uint16_t, UMP_DT_UINT16)
BASIC(uint32_t, "MPI_UINT32_T", uint32_t, UMP_DT_UINT32)
BASIC(uint64_t, "MPI_UINT64_T", uint64_t, UMP_DT_UINT64)
BASIC(aint, "MPI_AINT", MPI_Aint, SKIND(MPI_Aint))
BASIC(count, "MPI_COUNT", MPI_Count, SKIND(MPI_Count))
BASIC(offset, "MPI_OFFSET", MPI_Offset, SKIND(MPI_Offset))
BASIC(c_float_complex, "MPI_C_FLOAT_COMPLEX", float _Complex, UMP_DT_C_FLOAT_COMPLEX)
BASIC(c_double_complex, "MPI_C_DOUBLE_COMPLEX", double _Complex, UMP_DT_C_DOUBLE_COMPLEX)
BASIC(c_long_double_complex, "MPI_C_LONG_DOUBLE_COMPLEX", long double _Complex,
      UMP_DT_C_LONG_DOUBLE_COMPLEX)
BASIC(byte, "MPI_BYTE", unsigned char, UMP_DT_BYTE)
BASIC(packed, "MPI_PACKED", unsigned char, UMP_DT_PACKED)


/* {T v; int i;}: one run when the int follows v without padding, else two. */
#define PAIR(var, mpiname, vtype, kind_, vkind)                                                    \
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
        .name = mpiname,                                                                           \
        .magic = UMP_DT_MAGIC,                                                                     \
        .refs = 1,                                                                                 \
        .predefined = true,                                                                        \
        .committed = true,                                                                         \
        .is_contig = offsetof(struct pair_##var, i) == sizeof(vtype) &&                            \
                     sizeof(struct pair_##var) == sizeof(vtype) + sizeof(int),                     \
        .kind = (kind_),                                                                           \
        .combiner = MPI_COMBINER_NAMED,                                                            \
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

PAIR(float_int, "MPI_FLOAT_INT", float, UMP_DT_FLOAT_INT, UMP_DT_FLOAT)
PAIR(double_int, "MPI_DOUBLE_INT", double, UMP_DT_DOUBLE_INT, UMP_DT_DOUBLE)
PAIR(long_int, "MPI_LONG_INT", long, UMP_DT_LONG_INT, SKIND(long))
PAIR(2int, "MPI_2INT", int, UMP_DT_2INT, SKIND(int))
PAIR(short_int, "MPI_SHORT_INT", short, UMP_DT_SHORT_INT, SKIND(short))
PAIR(long_double_int, "MPI_LONG_DOUBLE_INT", long double, UMP_DT_LONG_DOUBLE_INT,
     UMP_DT_LONG_DOUBLE)

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
    };
    return (unsigned)kind < UMP_DT_NKINDS ? sizes[kind] : 0;
}
