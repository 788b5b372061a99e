/* SPDX-License-Identifier: BSD-3-Clause */
/* dt_int.h - what the files of src/dt share and nobody else needs. */
#ifndef UMP_DT_INT_H
#define UMP_DT_INT_H

#include "dt/dt.h"

/* --- signature algebra (dt_sig.c) ------------------------------------------
 *
 * Signature hash: H(s0..sn-1) = sum s_k * B^(n-1-k) mod 2^64, each basic
 * kind coded by a spread-out odd constant. Unsigned wrap-around is the
 * modulus, so the constants of the predefined types are constant
 * expressions. */
#define UMP_DT_SIG_B       0x100000001b3ull
#define UMP_DT_SIG_CODE(k) ((uint64_t)(k)*0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull)

/* b^n mod 2^64. */
uint64_t ump_dt_sig_pow(uint64_t b, size_t n);
/* 1 + p + ... + p^(n-1) mod 2^64: the hash factor of n repeats of a part
 * whose length factor is p. */
uint64_t ump_dt_sig_geom(uint64_t p, size_t n);

/* --- objects (dt_ref.c) ------------------------------------------------------ */

/* A new derived type object: one reference and one user handle, empty
 * layout, a fresh id. NULL when memory is short. */
struct ump_dt *ump_dt_new(int combiner);
/* A new type with old's facts and layout but its own id, no contents and
 * no cached runs (dup, resized, and the wrapper of subarray/darray around
 * the type they build). NULL when memory is short. */
struct ump_dt *ump_dt_copy(int combiner, ump_dt_t old);
/* Frees t and drops the references it holds (the last unref, or a
 * constructor undoing its work). */
void ump_dt_release(struct ump_dt *t);

/* --- layout building (dt_layout.c) -----------------------------------------
 *
 * Nodes are allocated with and owned by the type t being built; NULL means
 * memory ran short (a NULL kid is passed through as NULL). */

/* The empty layout (size 0), shared by every type without data. */
extern const ump_dt_dl_t ump_dt_empty_leaf;

/* One block of a general constructor: bl copies of type at disp. */
typedef struct {
    ptrdiff_t disp;
    size_t bl;
    ump_dt_t type;
} ump_dt_blk_t;

/* count copies of kid at off + i * stride, merged where the copies touch. */
const ump_dt_dl_t *ump_dt_dl_vec(struct ump_dt *t, size_t count, ptrdiff_t stride, ptrdiff_t off,
                                 const ump_dt_dl_t *kid);
/* Layout of n blocks (in stream order). */
const ump_dt_dl_t *ump_dt_dl_blocks(struct ump_dt *t, size_t n, const ump_dt_blk_t *b);

/* --- facts (dt_facts.c) ------------------------------------------------------
 *
 * Bounds, size and signature gathered over the blocks of a constructor,
 * with explicit (resized) bounds acting as sticky lb/ub markers: when any
 * part carries one, the markers alone decide that bound. */
typedef struct {
    bool lb_set, ub_set, mlb_set, mub_set, data, overflow;
    ptrdiff_t lb, ub, mlb, mub, tlb, tub;
    size_t size, nbasic;
    uint64_t sig, pow;
    uint16_t align;
} ump_dt_acc_t;

void ump_dt_acc_init(ump_dt_acc_t *a);
/* n_out * n_in copies of c at disp + i*stride + j*step (i < n_out,
 * j < n_in), in the order i-major. */
void ump_dt_acc_add(ump_dt_acc_t *a, ump_dt_t c, size_t n_out, ptrdiff_t stride, size_t n_in,
                    ptrdiff_t step, ptrdiff_t disp);
/* Sets t's facts from the accumulator and its layout dl (pad: round the
 * extent up to the alignment, for structs). UMP_ERR_COUNT on overflow,
 * UMP_ERR_NO_MEMORY for a NULL dl, UMP_ERR_UNSUPPORTED past
 * UMP_DT_MAX_DEPTH. */
int ump_dt_acc_finish(struct ump_dt *t, const ump_dt_acc_t *a, const ump_dt_dl_t *dl, bool pad);

/* --- constructors (dt_ctor.c, dt_contents.c) ------------------------------- */

/* UMP_OK for a type a constructor may build on (live, not freed). */
int ump_dt_check_old(ump_dt_t old);
/* A new type of n blocks under `combiner`, without contents. */
int ump_dt_make_blocks(int combiner, size_t n, const ump_dt_blk_t *b, bool pad,
                       struct ump_dt **out);
/* Records the constructor arguments of t and takes a reference on each
 * type in them. */
int ump_dt_set_contents(struct ump_dt *t, int ni, const int *ints, int na, const ptrdiff_t *aints,
                        int nd, ump_dt_t const *types);
/* When rc is UMP_OK, records the contents of *t; on failure releases *t
 * and sets it to NULL. Returns the outcome. */
int ump_dt_with_contents(int rc, struct ump_dt **t, int ni, const int *ints, int na,
                         const ptrdiff_t *aints, int nd, ump_dt_t const *types);

#endif /* UMP_DT_INT_H */
