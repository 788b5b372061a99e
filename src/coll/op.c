/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction operations: the predefined ops and user ops (ump_redop_t),
 * which predefined op applies to which datatype (the rules of MPI 3.1
 * §5.9.2), and the application of an op to packed elements.
 */
#include <complex.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

/* Type classes of MPI 3.1 §5.9.2. */
enum {
    CLS_CINT = 1 << 0,
    CLS_MULTI = 1 << 1, /* address, offset and count integers (MPI's AINT, OFFSET, COUNT) */
    CLS_FLOAT = 1 << 2,
    CLS_COMPLEX = 1 << 3,
    CLS_LOGICAL = 1 << 4,
    CLS_BYTE = 1 << 5,
    CLS_PAIR = 1 << 6,
    CLS_OTHER = 1 << 7, /* characters, wide characters, packed bytes: no arithmetic */
};

static const unsigned op_classes[UMP_OPK_COUNT_] = {
    [UMP_OPK_MAX] = CLS_CINT | CLS_MULTI | CLS_FLOAT,
    [UMP_OPK_MIN] = CLS_CINT | CLS_MULTI | CLS_FLOAT,
    [UMP_OPK_SUM] = CLS_CINT | CLS_MULTI | CLS_FLOAT | CLS_COMPLEX,
    [UMP_OPK_PROD] = CLS_CINT | CLS_MULTI | CLS_FLOAT | CLS_COMPLEX,
    /* MPI_AINT, MPI_OFFSET and MPI_COUNT are C integers too. */
    [UMP_OPK_LAND] = CLS_CINT | CLS_MULTI | CLS_LOGICAL,
    [UMP_OPK_LOR] = CLS_CINT | CLS_MULTI | CLS_LOGICAL,
    [UMP_OPK_LXOR] = CLS_CINT | CLS_MULTI | CLS_LOGICAL,
    [UMP_OPK_BAND] = CLS_CINT | CLS_MULTI | CLS_BYTE,
    [UMP_OPK_BOR] = CLS_CINT | CLS_MULTI | CLS_BYTE,
    [UMP_OPK_BXOR] = CLS_CINT | CLS_MULTI | CLS_BYTE,
    [UMP_OPK_MAXLOC] = CLS_PAIR,
    [UMP_OPK_MINLOC] = CLS_PAIR,
    [UMP_OPK_REPLACE] = ~0u,
    [UMP_OPK_NO_OP] = ~0u,
};

/* Kind of a C integer type from its size and signedness. */
#define SKIND(T)                                                                                   \
    (sizeof(T) == 1   ? UMP_KIND_I8                                                                \
     : sizeof(T) == 2 ? UMP_KIND_I16                                                               \
     : sizeof(T) == 4 ? UMP_KIND_I32                                                               \
                      : UMP_KIND_I64)
#define UKIND(T)                                                                                   \
    (sizeof(T) == 1   ? UMP_KIND_U8                                                                \
     : sizeof(T) == 2 ? UMP_KIND_U16                                                               \
     : sizeof(T) == 4 ? UMP_KIND_U32                                                               \
                      : UMP_KIND_U64)

/* Predefined types that only the MPI interface names (src/dt defines them
 * all); their C types are the MPI interface's address type (intptr_t) and
 * its count and offset types (long long). */
extern struct ump_dt ump_dt_aint, ump_dt_count, ump_dt_offset, ump_dt_packed;
/* The Fortran and C++ types MPI C programs may name (src/dt/dt_predef.c). */
extern struct ump_dt ump_dt_integer, ump_dt_real, ump_dt_double_precision, ump_dt_complex,
    ump_dt_double_complex, ump_dt_logical, ump_dt_character, ump_dt_integer1, ump_dt_integer2,
    ump_dt_integer4, ump_dt_integer8, ump_dt_real4, ump_dt_real8, ump_dt_complex8, ump_dt_complex16,
    ump_dt_cxx_bool, ump_dt_cxx_float_complex, ump_dt_cxx_double_complex,
    ump_dt_cxx_long_double_complex, ump_dt_2integer, ump_dt_2real, ump_dt_2double_precision;

static const struct basic {
    ump_dt_t dt;
    ump_kind_t kind;
    unsigned cls;
} basics[] = {
    {UMP_SHORT, SKIND(short), CLS_CINT},
    {UMP_INT, SKIND(int), CLS_CINT},
    {UMP_LONG, SKIND(long), CLS_CINT},
    {UMP_LONG_LONG, SKIND(long long), CLS_CINT},
    {UMP_SIGNED_CHAR, SKIND(signed char), CLS_CINT},
    {UMP_UNSIGNED_CHAR, UKIND(unsigned char), CLS_CINT},
    {UMP_UNSIGNED_SHORT, UKIND(unsigned short), CLS_CINT},
    {UMP_UNSIGNED, UKIND(unsigned), CLS_CINT},
    {UMP_UNSIGNED_LONG, UKIND(unsigned long), CLS_CINT},
    {UMP_UNSIGNED_LONG_LONG, UKIND(unsigned long long), CLS_CINT},
    {UMP_INT8, UMP_KIND_I8, CLS_CINT},
    {UMP_INT16, UMP_KIND_I16, CLS_CINT},
    {UMP_INT32, UMP_KIND_I32, CLS_CINT},
    {UMP_INT64, UMP_KIND_I64, CLS_CINT},
    {UMP_UINT8, UMP_KIND_U8, CLS_CINT},
    {UMP_UINT16, UMP_KIND_U16, CLS_CINT},
    {UMP_UINT32, UMP_KIND_U32, CLS_CINT},
    {UMP_UINT64, UMP_KIND_U64, CLS_CINT},
    {&ump_dt_aint, SKIND(intptr_t), CLS_MULTI},
    {&ump_dt_count, SKIND(long long), CLS_MULTI},
    {&ump_dt_offset, SKIND(long long), CLS_MULTI},
    {UMP_FLOAT, UMP_KIND_FLOAT, CLS_FLOAT},
    {UMP_DOUBLE, UMP_KIND_DOUBLE, CLS_FLOAT},
    {UMP_LONG_DOUBLE, UMP_KIND_LDOUBLE, CLS_FLOAT},
    {UMP_C_FLOAT_COMPLEX, UMP_KIND_CFLOAT, CLS_COMPLEX},
    {UMP_C_DOUBLE_COMPLEX, UMP_KIND_CDOUBLE, CLS_COMPLEX},
    {UMP_C_LONG_DOUBLE_COMPLEX, UMP_KIND_CLDOUBLE, CLS_COMPLEX},
    {UMP_C_BOOL, UMP_KIND_BOOL, CLS_LOGICAL},
    {UMP_BYTE, UMP_KIND_U8, CLS_BYTE},
    {UMP_FLOAT_INT, UMP_KIND_FLOAT_INT, CLS_PAIR},
    {UMP_DOUBLE_INT, UMP_KIND_DOUBLE_INT, CLS_PAIR},
    {UMP_LONG_INT, UMP_KIND_LONG_INT, CLS_PAIR},
    {UMP_2INT, UMP_KIND_2INT, CLS_PAIR},
    {UMP_SHORT_INT, UMP_KIND_SHORT_INT, CLS_PAIR},
    {UMP_LONG_DOUBLE_INT, UMP_KIND_LDOUBLE_INT, CLS_PAIR},
    /* After the C types of the same representation, which derived types
     * of them match first. Fortran integers take the C integer ops. */
    {&ump_dt_integer, SKIND(int), CLS_CINT},
    {&ump_dt_integer1, UMP_KIND_I8, CLS_CINT},
    {&ump_dt_integer2, UMP_KIND_I16, CLS_CINT},
    {&ump_dt_integer4, UMP_KIND_I32, CLS_CINT},
    {&ump_dt_integer8, UMP_KIND_I64, CLS_CINT},
    {&ump_dt_real, UMP_KIND_FLOAT, CLS_FLOAT},
    {&ump_dt_real4, UMP_KIND_FLOAT, CLS_FLOAT},
    {&ump_dt_double_precision, UMP_KIND_DOUBLE, CLS_FLOAT},
    {&ump_dt_real8, UMP_KIND_DOUBLE, CLS_FLOAT},
    {&ump_dt_complex, UMP_KIND_CFLOAT, CLS_COMPLEX},
    {&ump_dt_complex8, UMP_KIND_CFLOAT, CLS_COMPLEX},
    {&ump_dt_cxx_float_complex, UMP_KIND_CFLOAT, CLS_COMPLEX},
    {&ump_dt_double_complex, UMP_KIND_CDOUBLE, CLS_COMPLEX},
    {&ump_dt_complex16, UMP_KIND_CDOUBLE, CLS_COMPLEX},
    {&ump_dt_cxx_double_complex, UMP_KIND_CDOUBLE, CLS_COMPLEX},
    {&ump_dt_cxx_long_double_complex, UMP_KIND_CLDOUBLE, CLS_COMPLEX},
    {&ump_dt_logical, SKIND(int), CLS_LOGICAL},
    {&ump_dt_cxx_bool, UMP_KIND_BOOL, CLS_LOGICAL},
    {&ump_dt_2integer, UMP_KIND_2INT, CLS_PAIR},
    {&ump_dt_2real, UMP_KIND_2FLOAT, CLS_PAIR},
    {&ump_dt_2double_precision, UMP_KIND_2DOUBLE, CLS_PAIR},
    {&ump_dt_character, CHAR_MIN < 0 ? SKIND(char) : UKIND(char), CLS_OTHER},
    /* Last: a derived type of ints must match UMP_INT, not UMP_WCHAR of the
     * same representation. */
    {UMP_CHAR, CHAR_MIN < 0 ? SKIND(char) : UKIND(char), CLS_OTHER},
    {UMP_WCHAR, UMP_KIND_I32, CLS_OTHER},
    {&ump_dt_packed, UMP_KIND_U8, CLS_OTHER},
};

static const struct basic *basic_of(ump_dt_t dt)
{
    for (size_t i = 0; i < sizeof(basics) / sizeof(basics[0]); i++)
        if (basics[i].dt == dt) return &basics[i];
    return NULL;
}

/* The predefined type whose repetition has the signature of dt: dt
 * itself when predefined, else the basic type a derived type is made of
 * (signatures compose, so contiguous(4, UMP_INT) and a vector of ints
 * both match UMP_INT); NULL when it mixes basic types. */
static const struct basic *homogeneous(ump_dt_t dt)
{
    const struct basic *b = basic_of(dt);
    if (b || !dt->nbasic) return b;
    uint64_t sig = ump_dt_sig(dt, 1);
    for (size_t i = 0; i < sizeof(basics) / sizeof(basics[0]); i++) {
        ump_dt_t p = basics[i].dt;
        size_t reps = dt->nbasic / p->nbasic;
        if (reps * p->nbasic != dt->nbasic || reps * p->size != dt->size) continue;
        if (ump_dt_sig(p, reps) == sig) return &basics[i];
    }
    return NULL;
}

/* The predefined ops: static objects, never freed. */
#define OP(nm, K)                                                                                  \
    const struct ump_redop ump_redop_##nm = {                                                      \
        .kind = UMP_OPK_##K, .commutative = true, .predefined = true, .name = "UMP_OP_" #K};
OP(max, MAX)
OP(min, MIN)
OP(sum, SUM)
OP(prod, PROD)
OP(land, LAND)
OP(band, BAND)
OP(lor, LOR)
OP(bor, BOR)
OP(lxor, LXOR)
OP(bxor, BXOR)
OP(maxloc, MAXLOC)
OP(minloc, MINLOC)
OP(replace, REPLACE)
OP(no_op, NO_OP)
#undef OP

int ump_coll_red_prepare(ump_coll_red_t *r, ump_redop_t op, ump_dt_t dt)
{
    memset(r, 0, sizeof(*r));
    r->op = op;
    r->dt = dt;
    r->commutative = op->commutative;
    int k = ump_coll_opk(op);
    if (k < 0) {
        r->user_contig = ump_coll_dt_contig(dt);
        return UMP_OK;
    }
    /* A derived type takes the op when all its elements are one basic type. */
    const struct basic *b = homogeneous(dt);
    if (!b) return UMP_ERR_OP;
    if (!(op_classes[k] & b->cls)) return UMP_ERR_OP;
    r->kernel = ump_coll_kernel((ump_opk_t)k, b->kind);
    if (!r->kernel) return UMP_ERR_OP;
    size_t bsz = ump_coll_kind_size(b->kind);
    r->per_elem = bsz ? dt->size / bsz : 0;
    return UMP_OK;
}

/* Predefined ops on predefined types never change, so their checks are
 * done once. Not at UMP_THREAD_MULTIPLE, where two threads could fill one
 * slot at once. */
#define RCACHE 32
static struct {
    ump_redop_t op;
    ump_dt_t dt;
    int rc;
    ump_coll_red_t r;
} rcache[RCACHE];

int ump_coll_red_lookup(ump_coll_red_t *r, ump_redop_t op, ump_dt_t dt)
{
    if (!op->predefined || !dt->predefined || ump_query_thread() == UMP_THREAD_MULTIPLE)
        return ump_coll_red_prepare(r, op, dt);
    size_t i = (((uintptr_t)op >> 4) * 31 + ((uintptr_t)dt >> 4)) % RCACHE;
    if (rcache[i].op != op || rcache[i].dt != dt) {
        rcache[i].rc = ump_coll_red_prepare(&rcache[i].r, op, dt);
        rcache[i].op = op;
        rcache[i].dt = dt;
    }
    *r = rcache[i].r;
    return rcache[i].rc;
}

/* A user function over count elements at in and inout, laid out as dt. */
static void user_apply(const ump_coll_red_t *r, const void *in, void *inout, size_t count)
{
    r->op->fn(in, inout, count, r->dt, r->op->arg);
}

void ump_coll_red_apply(const ump_coll_red_t *r, const void *in, void *inout, size_t count)
{
    if (!count) return;
    if (r->kernel) {
        r->kernel(in, inout, count * r->per_elem);
        return;
    }
    if (r->user_contig) {
        user_apply(r, in, inout, count);
        return;
    }
    /* A user op on a non-contiguous type sees the type's layout: unpack
     * both operands into scratch layouts, apply, pack the result back. */
    ptrdiff_t lb;
    size_t span = ump_coll_dt_span(r->dt, count, &lb);
    char *a = malloc(span ? span : 1), *b = malloc(span ? span : 1);
    if (!a || !b) {
        ump_error("reduction: out of memory for %zu bytes of scratch", span);
        free(a);
        free(b);
        return;
    }
    ump_coll_unpack(a - lb, in, count, r->dt);
    ump_coll_unpack(b - lb, inout, count, r->dt);
    user_apply(r, a - lb, b - lb, count);
    ump_coll_pack(inout, b - lb, count, r->dt);
    free(a);
    free(b);
}

/* --- op objects --------------------------------------------------------------- */

int ump_redop_create(ump_user_op_fn fn, int commutative, void *arg, void (*free_arg)(void *arg),
                     ump_redop_t *op)
{
    if (!fn || !op) {
        ump_error("ump_redop_create: %s is NULL (rank %d)", fn ? "op" : "fn", ump_rank());
        return UMP_ERR_INVALID;
    }
    struct ump_redop *o = calloc(1, sizeof(*o));
    if (!o) return UMP_ERR_NO_MEMORY;
    o->kind = -1;
    o->commutative = commutative != 0;
    o->refcount = 1;
    o->fn = fn;
    o->arg = arg;
    o->free_arg = free_arg;
    o->name = "user op";
    *op = o;
    return UMP_OK;
}

void ump_coll_op_retain(ump_redop_t op)
{
    if (!op->predefined)
        __atomic_add_fetch(&((struct ump_redop *)op)->refcount, 1, __ATOMIC_RELAXED);
}

void ump_coll_op_release(ump_redop_t op)
{
    if (op->predefined) return;
    struct ump_redop *o = (struct ump_redop *)op;
    if (__atomic_sub_fetch(&o->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
    if (o->free_arg) o->free_arg(o->arg);
    free(o);
}

int ump_redop_free(ump_redop_t *op)
{
    if (!op || !*op || (*op)->predefined) {
        ump_error("ump_redop_free: %s (rank %d)",
                  !op || !*op ? "the op is NULL" : "a predefined op cannot be freed", ump_rank());
        return UMP_ERR_OP;
    }
    /* A pending nonblocking collective holds its own reference. */
    ump_coll_op_release(*op);
    *op = NULL;
    return UMP_OK;
}

int ump_redop_commutative(ump_redop_t op)
{
    return op ? op->commutative : UMP_ERR_OP;
}

int ump_redop_check(ump_redop_t op, ump_dt_t dt)
{
    if (!op) return UMP_ERR_OP;
    if (!ump_dt_valid(dt)) return UMP_ERR_DATATYPE;
    ump_coll_red_t r;
    return ump_coll_red_lookup(&r, op, dt);
}

int ump_reduce_local(const void *in, void *inout, size_t count, ump_dt_t dt, ump_redop_t op)
{
    int rc = ump_redop_check(op, dt);
    if (rc != UMP_OK) {
        ump_error("ump_reduce_local: %s does not apply to datatype %s (rank %d)",
                  op ? op->name : "(null op)", ump_dt_valid(dt) && dt->name ? dt->name : "?",
                  ump_rank());
        return rc;
    }
    if (!count) return UMP_OK;
    if (op->kind < 0) {
        /* User functions see the buffers in the type's own layout. */
        op->fn(in, inout, count, dt, op->arg);
        return UMP_OK;
    }
    ump_coll_red_t r;
    ump_coll_red_lookup(&r, op, dt);
    if (ump_coll_dt_contig(dt)) {
        ump_coll_red_apply(&r, in, inout, count);
        return UMP_OK;
    }
    size_t bytes = count * dt->size;
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return UMP_ERR_NO_MEMORY;
    }
    ump_coll_pack(a, in, count, dt);
    ump_coll_pack(b, inout, count, dt);
    ump_coll_red_apply(&r, a, b, count);
    rc = ump_coll_unpack(inout, b, count, dt);
    free(a);
    free(b);
    return rc;
}
