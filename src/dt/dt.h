/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt.h - the datatype engine, for the layers above it: the type object, a
 * compact layout of every type (a "dataloop"), cached facts, a resumable
 * segment cursor that packs, unpacks or lists (iovec) any byte range of a
 * message, the type signature used for matching checks, element counts and
 * the overlap check. The constructors, commit/free and the queries a
 * program uses are public and declared in ump.h (included here).
 *
 * Lifecycle. A type is created by a constructor (reference count 1, not
 * committed), committed by ump_dt_commit() and released by ump_dt_free()
 * (the user's handle) or ump_dt_unref() (any other holder). A derived type
 * holds a reference on every type it was built from, and an operation in
 * flight holds one on its type (ump_dt_ref), so a type the user frees stays
 * alive while something still uses it. Predefined types (UMP_INT, ...) are
 * static objects: committed, never freed, reference calls are no-ops.
 *
 * Layout. Offsets in the dataloop are bytes from the buffer pointer the
 * user passes (the type's origin), so lb, true_lb and displacements may be
 * negative. The packed stream of (buf, count, dt) is the concatenation of
 * the data bytes of the count elements in type-map order; every byte range
 * [first, first + len) of it can be packed or unpacked on its own.
 *
 * Thread safety: constructors, commit and queries on distinct or shared
 * committed types are safe from any thread (reference counts are atomic);
 * setting a name while another thread reads it is not.
 */
#ifndef UMP_DT_H
#define UMP_DT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ump.h"

/* --- basic kinds, for reductions (src/coll) and signatures --------------- */

typedef enum {
    UMP_DT_DERIVED = 0, /* not a predefined type */
    UMP_DT_CHAR,        /* UMP_CHAR: character data, not arithmetic in reductions */
    UMP_DT_INT8,
    UMP_DT_INT16,
    UMP_DT_INT32,
    UMP_DT_INT64,
    UMP_DT_UINT8,
    UMP_DT_UINT16,
    UMP_DT_UINT32,
    UMP_DT_UINT64,
    UMP_DT_FLOAT,
    UMP_DT_DOUBLE,
    UMP_DT_LONG_DOUBLE,
    UMP_DT_C_FLOAT_COMPLEX,
    UMP_DT_C_DOUBLE_COMPLEX,
    UMP_DT_C_LONG_DOUBLE_COMPLEX,
    UMP_DT_C_BOOL,
    UMP_DT_BYTE,
    UMP_DT_PACKED,
    /* pair types for MINLOC/MAXLOC: laid out like struct {T v; int i;} */
    UMP_DT_FLOAT_INT,
    UMP_DT_DOUBLE_INT,
    UMP_DT_LONG_INT,
    UMP_DT_2INT,
    UMP_DT_SHORT_INT,
    UMP_DT_LONG_DOUBLE_INT,
    /* Fortran's pairs of reals for MINLOC/MAXLOC: {T v; T i;} */
    UMP_DT_2FLOAT,
    UMP_DT_2DOUBLE,
    UMP_DT_NKINDS
} ump_dt_kind_t;

/* --- the layout (dataloop) ------------------------------------------------
 *
 * A tree of nodes, each describing one instance placed at some base
 * address. Children of a node have size > 0 (empty parts are dropped at
 * construction), so every node of size > 0 consumes stream bytes.
 */
typedef enum {
    UMP_DL_LEAF,   /* `size` contiguous bytes at base */
    UMP_DL_VEC,    /* count copies of child at base + off + i * stride */
    UMP_DL_BLK,    /* count copies of child at base + disps[i] */
    UMP_DL_IDX,    /* count byte runs [base + disps[i], + lens[i]) */
    UMP_DL_STRUCT, /* kids[i] at base + disps[i] */
} ump_dt_dl_kind_t;

typedef struct ump_dt_dl {
    uint8_t kind;                        /* ump_dt_dl_kind_t */
    uint8_t depth;                       /* non-leaf levels, LEAF 0 (saturates) */
    size_t count;                        /* blocks (not LEAF) */
    size_t size;                         /* packed bytes of one instance */
    size_t nruns;                        /* contiguous runs in one instance */
    ptrdiff_t off, stride;               /* VEC */
    const ptrdiff_t *disps;              /* BLK, IDX, STRUCT */
    const size_t *lens;                  /* IDX */
    const size_t *pfx;                   /* IDX, STRUCT: stream bytes before block i (count+1) */
    const struct ump_dt_dl *child;       /* VEC, BLK */
    const struct ump_dt_dl *const *kids; /* STRUCT */
    struct ump_dt_dl *next_owned;        /* nodes a type allocated, freed with it */
} ump_dt_dl_t;

/* Deepest layout the cursor walks; constructors refuse deeper nesting. */
#define UMP_DT_MAX_DEPTH 32

/* --- the type object ---------------------------------------------------- */

struct ump_dt {
    /* Read by src/core: keep these four first and their meaning. */
    size_t size;     /* bytes of data in one element */
    size_t extent;   /* stride between consecutive elements (ub - lb, as size_t) */
    bool contiguous; /* count elements are exactly [buf, buf + count*size) */
    const char *name;

    uint32_t magic; /* UMP_DT_MAGIC, UMP_DT_MAGIC_DEAD once released */
    int refs;       /* user handles + derived types + operations in flight */
    int handles;    /* handles the user holds (creation, get_contents) */
    bool predefined, committed, user_freed;
    bool is_contig;      /* count elements are one range at buf + true_lb */
    bool has_lb, has_ub; /* explicit bounds (resized) propagate as sticky markers */
    uint8_t kind;        /* ump_dt_kind_t */
    uint8_t combiner;    /* UMP_DT_COMBINER_* */
    uint16_t align;      /* largest alignment of the basic types inside */
    uint8_t depth;       /* dataloop depth, for the cursor */

    ptrdiff_t lb, ub;           /* extent = ub - lb */
    ptrdiff_t true_lb, true_ub; /* first and one-past-last data byte */
    size_t nblocks;             /* contiguous runs per element (after merging) */
    size_t min_blk, median_blk, avg_blk;
    size_t nbasic;         /* basic elements per element (pairs count 2) */
    uint64_t sig, sig_pow; /* signature hash and B^nbasic (see ump_dt_sig) */
    const ump_dt_dl_t *dl; /* layout of one element */
    ump_dt_dl_t *owned;    /* nodes to free with the type */
    struct ump_dt *impl;   /* subarray/darray: the equivalent type built inside */

    /* Transfer: a process-unique id (never reused, 0 for predefined types)
     * that names this layout on the wire, and the runs of one element as
     * (offset, length) pairs, built on first use (ump_dt_flat). */
    uint64_t uid;
    struct iovec *flat;
    size_t nflat;

    /* Overlap of the type map (ump_dt_overlaps), learned on first use and
     * kept: a type is usually received into many times with the same
     * count. Fields change only from "unknown" to a final answer (or
     * grow, ovl_clean_k), through atomic accesses, so readers need no
     * lock. */
    struct ump_dt_ovl *ovl; /* sorted runs of one element, once built */
    uint8_t ovl_elem;       /* UMP_DT_OVL_*: does one element cover a byte twice */
    bool ovl_capped;        /* work budget spent: shifts past ovl_clean_k unchecked */
    size_t ovl_clean_k;     /* elements i and i + k are disjoint for 1 <= k <= this */
    size_t ovl_bad_k;       /* smallest k with elements i and i + k overlapping, 0: none seen */
    size_t ovl_work;        /* run comparisons spent on this type so far */

    /* constructor arguments, for ump_dt_envelope/ump_dt_contents */
    int ni, na, nd;
    int *ints;
    ptrdiff_t *aints;
    struct ump_dt **types;
    char namebuf[128];
};

#define UMP_DT_MAGIC      0x64747970u /* "dtyp" */
#define UMP_DT_MAGIC_DEAD 0x64656164u /* "dead" */

/* Bytes of `count` elements, or UMP_ERR_* (negative) when the product
 * overflows or the type cannot be moved as plain bytes from buf. */
static inline long long ump_dt_bytes(ump_dt_t dt, size_t count, size_t *bytes)
{
    if (!dt) return UMP_ERR_DATATYPE;
    if (!dt->contiguous) return UMP_ERR_UNSUPPORTED;
    if (dt->size && count > (size_t)-1 / dt->size) return UMP_ERR_COUNT;
    *bytes = count * dt->size;
    return UMP_OK;
}

/* True for a live type object (not NULL, not released). */
static inline bool ump_dt_valid(ump_dt_t dt)
{
    return dt && dt->magic == UMP_DT_MAGIC;
}
/* True when count elements form one byte range starting at buf + true_lb
 * (so (buf + true_lb, count * size) may be moved as bytes). */
static inline bool ump_dt_is_contig(ump_dt_t dt)
{
    return dt->is_contig;
}
static inline ptrdiff_t ump_dt_lb(ump_dt_t dt)
{
    return dt->lb;
}
static inline ptrdiff_t ump_dt_extent(ump_dt_t dt)
{
    return dt->ub - dt->lb;
}
static inline ptrdiff_t ump_dt_true_lb(ump_dt_t dt)
{
    return dt->true_lb;
}
static inline ptrdiff_t ump_dt_true_extent(ump_dt_t dt)
{
    return dt->true_ub - dt->true_lb;
}
static inline size_t ump_dt_nblocks(ump_dt_t dt)
{
    return dt->nblocks;
}
/* Basic kind of a predefined type, UMP_DT_DERIVED for the others. */
static inline ump_dt_kind_t ump_dt_basic_kind(ump_dt_t dt)
{
    return (ump_dt_kind_t)dt->kind;
}
/* Bytes of one element of a basic kind (0 for UMP_DT_DERIVED). */
size_t ump_dt_kind_size(ump_dt_kind_t kind);
/* True when the name is one given by ump_dt_set_name, false while a
 * predefined type keeps its built-in name (a face may then use its own
 * spelling of it). */
static inline bool ump_dt_renamed(ump_dt_t dt)
{
    return dt->name == dt->namebuf;
}

/* The named type a parameterized one (ump_dt_param) stands for; dt itself
 * for every other type. */
static inline ump_dt_t ump_dt_param_base(ump_dt_t dt)
{
    return dt->predefined && dt->combiner != UMP_DT_COMBINER_NAMED ? dt->impl : dt;
}

/* --- lifecycle ------------------------------------------------------------ */

/* Take / drop a reference (no-ops on predefined types). The last unref of a
 * derived type releases it and the references it holds. */
void ump_dt_release(struct ump_dt *t);
/* Inline: every message takes and drops one on its type, most often a
 * predefined one, where both are a test. */
static inline void ump_dt_ref(ump_dt_t dt)
{
    if (dt && !dt->predefined)
        __atomic_add_fetch(&((struct ump_dt *)dt)->refs, 1, __ATOMIC_RELAXED);
}
static inline void ump_dt_unref(ump_dt_t dt)
{
    if (!dt || dt->predefined) return;
    struct ump_dt *t = (struct ump_dt *)dt;
    if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) ump_dt_release(t);
}
/* ump_dt_commit, ump_dt_free, ump_dt_set_name, the constructors and
 * ump_dt_envelope / ump_dt_contents are declared in ump.h. */

/* --- signature ------------------------------------------------------------
 *
 * The signature of (count, dt) is the sequence of basic kinds of its
 * elements in order. ump_dt_sig() hashes it with a polynomial hash that
 * composes (concatenation and repetition are computed from the parts), so
 * two layouts of the same sequence hash equal whatever their constructors,
 * e.g. vector(4, 2, 8, INT) and contiguous(8, INT). Pair types are two
 * elements (value, int). Types of the same representation (UMP_INT and
 * UMP_INT32) share a kind and therefore match.
 */
uint64_t ump_dt_sig(ump_dt_t dt, size_t count);

/* Basic elements in the first `bytes` bytes of the packed stream of dt,
 * or -1 when `bytes` ends inside a basic element. */
long long ump_dt_elements(ump_dt_t dt, size_t bytes);
/* Stream bytes holding the first `elems` basic elements (inverse of the
 * above); -1 when the type has none. */
long long ump_dt_elements_bytes(ump_dt_t dt, size_t elems);

/* --- pack / unpack --------------------------------------------------------
 *
 * The stream of (buf, count, dt) has count * size bytes. Both calls move
 * bytes [first, first + len) of it; UMP_ERR_INVALID if the range exceeds
 * the stream. They never allocate.
 */
int ump_dt_pack(const void *buf, size_t count, ump_dt_t dt, size_t first, void *out, size_t len);
int ump_dt_unpack(void *buf, size_t count, ump_dt_t dt, size_t first, const void *in, size_t len);

/* A resumable position in the stream of (buf, count, dt). Caller-owned
 * (stack or request), no allocation; valid while buf and dt are; may be
 * copied or moved between calls. */
typedef struct ump_dt_cursor {
    ump_dt_t dt;
    char *buf;
    size_t count;
    size_t pos, total; /* stream offset reached, and count * size */
    int depth;
    bool whole_run;  /* the elements are one run: top's child is `whole` */
    size_t leaf_off; /* bytes done in the current contiguous run */
    struct {
        const ump_dt_dl_t *node;
        char *base;
        size_t i;
    } fr[UMP_DT_MAX_DEPTH + 1];
    ump_dt_dl_t top, whole; /* the count elements as one VEC (or one run) */
} ump_dt_cursor_t;

/* Positions c at stream offset `first` (<= count * size, else
 * UMP_ERR_INVALID). buf is written only by unpack. */
int ump_dt_cursor_init(ump_dt_cursor_t *c, const void *buf, size_t count, ump_dt_t dt,
                       size_t first);
/* Pack / unpack the next min(n, remaining) bytes; returns bytes moved. */
size_t ump_dt_cursor_pack(ump_dt_cursor_t *c, void *out, size_t n);
size_t ump_dt_cursor_unpack(ump_dt_cursor_t *c, const void *in, size_t n);
/* Describes the next bytes (at most `maxbytes`) as at most `maxiov` memory
 * ranges, adjacent ranges merged, and advances past them. Returns the
 * bytes described (less than maxbytes when the entries ran out); *niov
 * receives the entries used. With buf NULL the bases are the offsets from
 * the origin (as uintptr_t, so negative ones wrap): the flat (offset,
 * length) list a peer needs to write into this layout. */
size_t ump_dt_cursor_iov(ump_dt_cursor_t *c, size_t maxbytes, struct iovec *iov, int maxiov,
                         int *niov);
static inline bool ump_dt_cursor_done(const ump_dt_cursor_t *c)
{
    return c->pos >= c->total;
}

/* --- transfer support -------------------------------------------------------
 *
 * The runs of one element of a committed type, as (offset from the origin,
 * length) pairs in stream order with adjacent runs merged (offsets are
 * stored in iov_base as uintptr_t; negative ones wrap). Built on the first
 * call and kept with the type; NULL when the type has more than `max_runs`
 * runs per element or memory is short. The caller serialises calls on one
 * type (the core calls it under its lock).
 */
const struct iovec *ump_dt_flat(ump_dt_t dt, size_t max_runs, size_t *nruns);

/* --- overlapping entries ------------------------------------------------------
 *
 * True when `count` elements of dt cover some byte more than once (such a
 * type map may be sent from, but receiving into it is erroneous).
 * Overlap can come from inside one element (indexed blocks at the same
 * displacement, an hvector stride shorter than its block) or between
 * elements (an extent shorter than the data span, or zero). A type that
 * interleaves its elements without sharing bytes (the transpose type: a
 * column vector resized to the extent of one entry) does not overlap.
 *
 * The answer is computed once per type and count range and kept with the
 * type, so the usual repeated receive costs a few loads. The search is
 * bounded by UMP_DT_OVERLAP_BUDGET run comparisons per type: a type too
 * large to check within it (more runs per element, or more element
 * shifts, than the budget allows) is taken as not overlapping in the part
 * left unchecked, so the check is best effort for huge types and exact
 * below the budget. Safe from any thread on a valid type.
 */
enum { UMP_DT_OVL_UNKNOWN = 0, UMP_DT_OVL_CLEAN, UMP_DT_OVL_YES, UMP_DT_OVL_UNCHECKED };
bool ump_dt_overlaps(ump_dt_t dt, size_t count);

#endif /* UMP_DT_H */
