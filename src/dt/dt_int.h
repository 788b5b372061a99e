/* SPDX-License-Identifier: BSD-3-Clause */
/* dt_int.h - what the files of src/dt share and nobody else needs. */
#ifndef UMP_DT_INT_H
#define UMP_DT_INT_H

#include "dt/dt.h"

/* Signature hash: H(s0..sn-1) = sum s_k * B^(n-1-k) mod 2^64, each basic
 * kind coded by a spread-out odd constant. Unsigned wrap-around is the
 * modulus, so the constants of the predefined types are constant
 * expressions. */
#define UMP_DT_SIG_B       0x100000001b3ull
#define UMP_DT_SIG_CODE(k) ((uint64_t)(k)*0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull)

/* The empty layout (size 0), shared by every type without data. */
extern const ump_dt_dl_t ump_dt_empty_leaf;

#endif /* UMP_DT_INT_H */
