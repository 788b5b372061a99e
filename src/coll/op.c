/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which predefined op applies to which datatype (MPI 3.1 §5.9.2), and the
 * application of an op to packed elements.
 */
#include <complex.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

/* Type classes of MPI 3.1 §5.9.2. */
enum {
    CLS_CINT = 1 << 0,
    CLS_MULTI = 1 << 1, /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    CLS_FLOAT = 1 << 2,
    CLS_COMPLEX = 1 << 3,
    CLS_LOGICAL = 1 << 4,
    CLS_BYTE = 1 << 5,
    CLS_PAIR = 1 << 6,
    CLS_OTHER = 1 << 7, /* MPI_CHAR, MPI_WCHAR, MPI_PACKED: no arithmetic */
};

static const unsigned op_classes[UMP_OPK_COUNT_] = {
    [UMP_OPK_MAX] = CLS_CINT | CLS_MULTI | CLS_FLOAT,
    [UMP_OPK_MIN] = CLS_CINT | CLS_MULTI | CLS_FLOAT,
    [UMP_OPK_SUM] = CLS_CINT | CLS_MULTI | CLS_FLOAT | CLS_COMPLEX,
    [UMP_OPK_PROD] = CLS_CINT | CLS_MULTI | CLS_FLOAT | CLS_COMPLEX,
    [UMP_OPK_LAND] = CLS_CINT | CLS_LOGICAL,
    [UMP_OPK_LOR] = CLS_CINT | CLS_LOGICAL,
    [UMP_OPK_LXOR] = CLS_CINT | CLS_LOGICAL,
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

static const struct basic {
    MPI_Datatype dt;
    ump_kind_t kind;
    unsigned cls;
} basics[] = {
    {MPI_SHORT, SKIND(short), CLS_CINT},
    {MPI_INT, SKIND(int), CLS_CINT},
    {MPI_LONG, SKIND(long), CLS_CINT},
    {MPI_LONG_LONG_INT, SKIND(long long), CLS_CINT},
    {MPI_SIGNED_CHAR, SKIND(signed char), CLS_CINT},
    {MPI_UNSIGNED_CHAR, UKIND(unsigned char), CLS_CINT},
    {MPI_UNSIGNED_SHORT, UKIND(unsigned short), CLS_CINT},
    {MPI_UNSIGNED, UKIND(unsigned), CLS_CINT},
    {MPI_UNSIGNED_LONG, UKIND(unsigned long), CLS_CINT},
    {MPI_UNSIGNED_LONG_LONG, UKIND(unsigned long long), CLS_CINT},
    {MPI_INT8_T, UMP_KIND_I8, CLS_CINT},
    {MPI_INT16_T, UMP_KIND_I16, CLS_CINT},
    {MPI_INT32_T, UMP_KIND_I32, CLS_CINT},
    {MPI_INT64_T, UMP_KIND_I64, CLS_CINT},
    {MPI_UINT8_T, UMP_KIND_U8, CLS_CINT},
    {MPI_UINT16_T, UMP_KIND_U16, CLS_CINT},
    {MPI_UINT32_T, UMP_KIND_U32, CLS_CINT},
    {MPI_UINT64_T, UMP_KIND_U64, CLS_CINT},
    {MPI_AINT, SKIND(MPI_Aint), CLS_MULTI},
    {MPI_COUNT, SKIND(MPI_Count), CLS_MULTI},
    {MPI_OFFSET, SKIND(MPI_Offset), CLS_MULTI},
    {MPI_FLOAT, UMP_KIND_FLOAT, CLS_FLOAT},
    {MPI_DOUBLE, UMP_KIND_DOUBLE, CLS_FLOAT},
    {MPI_LONG_DOUBLE, UMP_KIND_LDOUBLE, CLS_FLOAT},
    {MPI_C_FLOAT_COMPLEX, UMP_KIND_CFLOAT, CLS_COMPLEX},
    {MPI_C_DOUBLE_COMPLEX, UMP_KIND_CDOUBLE, CLS_COMPLEX},
    {MPI_C_LONG_DOUBLE_COMPLEX, UMP_KIND_CLDOUBLE, CLS_COMPLEX},
    {MPI_C_BOOL, UMP_KIND_BOOL, CLS_LOGICAL},
    {MPI_BYTE, UMP_KIND_U8, CLS_BYTE},
    {MPI_FLOAT_INT, UMP_KIND_FLOAT_INT, CLS_PAIR},
    {MPI_DOUBLE_INT, UMP_KIND_DOUBLE_INT, CLS_PAIR},
    {MPI_LONG_INT, UMP_KIND_LONG_INT, CLS_PAIR},
    {MPI_2INT, UMP_KIND_2INT, CLS_PAIR},
    {MPI_SHORT_INT, UMP_KIND_SHORT_INT, CLS_PAIR},
    {MPI_LONG_DOUBLE_INT, UMP_KIND_LDOUBLE_INT, CLS_PAIR},
    /* Last: a derived type of ints must match MPI_INT, not MPI_WCHAR of the
     * same representation. */
    {MPI_CHAR, CHAR_MIN < 0 ? SKIND(char) : UKIND(char), CLS_OTHER},
    {MPI_WCHAR, UMP_KIND_I32, CLS_OTHER},
    {MPI_PACKED, UMP_KIND_U8, CLS_OTHER},
};

static const struct basic *basic_of(MPI_Datatype dt)
{
    for (size_t i = 0; i < sizeof(basics) / sizeof(basics[0]); i++)
        if (basics[i].dt == dt) return &basics[i];
    return NULL;
}

/* The predefined type whose repetition has the signature of dt: dt
 * itself when predefined, else the basic type a derived type is made of
 * (signatures compose, so contiguous(4, MPI_INT) and a vector of ints
 * both match MPI_INT); NULL when it mixes basic types. */
static const struct basic *homogeneous(MPI_Datatype dt)
{
    const struct basic *b = basic_of(dt);
    if (b || !dt->nbasic) return b;
    uint64_t sig = ump_dt_sig(dt, 1);
    for (size_t i = 0; i < sizeof(basics) / sizeof(basics[0]); i++) {
        MPI_Datatype p = basics[i].dt;
        size_t reps = dt->nbasic / p->nbasic;
        if (reps * p->nbasic != dt->nbasic || reps * p->size != dt->size) continue;
        if (ump_dt_sig(p, reps) == sig) return &basics[i];
    }
    return NULL;
}

static const MPI_Op predefined[UMP_OPK_COUNT_] = {
    MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
    MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP,
};

int ump_coll_opk(MPI_Op op)
{
    for (int i = 0; i < UMP_OPK_COUNT_; i++)
        if (predefined[i] == op) return i;
    return -1;
}

int ump_coll_red_prepare(ump_coll_red_t *r, MPI_Op op, MPI_Datatype dt)
{
    memset(r, 0, sizeof(*r));
    r->op = op;
    r->dt = dt;
    r->commutative = op->commutative;
    int k = ump_coll_opk(op);
    if (k < 0) {
        r->user_contig = ump_coll_dt_contig(dt);
        return MPI_SUCCESS;
    }
    /* A derived type takes the op when all its elements are one basic type. */
    const struct basic *b = homogeneous(dt);
    if (!b) return MPI_ERR_OP;
    if (!(op_classes[k] & b->cls)) return MPI_ERR_OP;
    r->kernel = ump_coll_kernel((ump_opk_t)k, b->kind);
    if (!r->kernel) return MPI_ERR_OP;
    size_t bsz = ump_coll_kind_size(b->kind);
    r->per_elem = bsz ? dt->size / bsz : 0;
    return MPI_SUCCESS;
}

/* Predefined ops on predefined types never change, so their checks are
 * done once. Not at MPI_THREAD_MULTIPLE, where two threads could fill one
 * slot at once. */
#define RCACHE 32
static struct {
    MPI_Op op;
    MPI_Datatype dt;
    int rc;
    ump_coll_red_t r;
} rcache[RCACHE];

int ump_coll_red_lookup(ump_coll_red_t *r, MPI_Op op, MPI_Datatype dt)
{
    if (!op->predefined || !dt->predefined || ump_mpi_thread_level == MPI_THREAD_MULTIPLE)
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

/* User functions take an int count: long vectors go in slices. */
static void user_apply(const ump_coll_red_t *r, const void *in, void *inout, size_t count,
                       size_t stride)
{
    MPI_Datatype dt = r->dt;
    while (count) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        r->op->user_fn((void *)in, inout, &len, &dt);
        in = (const char *)in + (size_t)len * stride;
        inout = (char *)inout + (size_t)len * stride;
        count -= (size_t)len;
    }
}

void ump_coll_red_apply(const ump_coll_red_t *r, const void *in, void *inout, size_t count)
{
    if (!count) return;
    if (r->kernel) {
        r->kernel(in, inout, count * r->per_elem);
        return;
    }
    if (r->user_contig) {
        user_apply(r, in, inout, count, r->dt->size);
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
    user_apply(r, a - lb, b - lb, count, r->dt->extent);
    ump_coll_pack(inout, b - lb, count, r->dt);
    free(a);
    free(b);
}
