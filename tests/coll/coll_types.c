/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every predefined op on every predefined type through MPI_Allreduce and
 * MPI_Reduce_local: the result when MPI 3.1 §5.9.2 says the op applies,
 * MPI_ERR_OP when it does not; MAXLOC/MINLOC on the pair types in their C
 * layouts. Then derived datatypes (vectors with holes, resized types) in
 * the collectives, sub-communicators from MPI_Comm_split and MPI_Comm_dup
 * with collectives in flight on both, and argument errors.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_common.h"

enum {
    C_INT = 1,
    C_MULTI = 2,
    C_FLOAT = 4,
    C_COMPLEX = 8,
    C_LOGICAL = 16,
    C_BYTE = 32,
    C_OTHER = 64
};

static const struct tinfo {
    const char *name;
    MPI_Datatype dt;
    int cls;
} types[] = {
#define T(dt, c)                                                                                   \
    {                                                                                              \
#dt, dt, c                                                                                 \
    }
    T(MPI_CHAR, C_OTHER),
    T(MPI_WCHAR, C_OTHER),
    T(MPI_SHORT, C_INT),
    T(MPI_INT, C_INT),
    T(MPI_LONG, C_INT),
    T(MPI_LONG_LONG, C_INT),
    T(MPI_SIGNED_CHAR, C_INT),
    T(MPI_UNSIGNED_CHAR, C_INT),
    T(MPI_UNSIGNED_SHORT, C_INT),
    T(MPI_UNSIGNED, C_INT),
    T(MPI_UNSIGNED_LONG, C_INT),
    T(MPI_UNSIGNED_LONG_LONG, C_INT),
    T(MPI_INT8_T, C_INT),
    T(MPI_INT16_T, C_INT),
    T(MPI_INT32_T, C_INT),
    T(MPI_INT64_T, C_INT),
    T(MPI_UINT8_T, C_INT),
    T(MPI_UINT16_T, C_INT),
    T(MPI_UINT32_T, C_INT),
    T(MPI_UINT64_T, C_INT),
    T(MPI_AINT, C_MULTI),
    T(MPI_COUNT, C_MULTI),
    T(MPI_OFFSET, C_MULTI),
    T(MPI_FLOAT, C_FLOAT),
    T(MPI_DOUBLE, C_FLOAT),
    T(MPI_LONG_DOUBLE, C_FLOAT),
    T(MPI_C_FLOAT_COMPLEX, C_COMPLEX),
    T(MPI_C_DOUBLE_COMPLEX, C_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX, C_COMPLEX),
    T(MPI_C_BOOL, C_LOGICAL),
    T(MPI_BYTE, C_BYTE),
#undef T
};

static const struct {
    const char *name;
    MPI_Op op;
    int cls;
} ops[] = {
    {"MAX", MPI_MAX, C_INT | C_MULTI | C_FLOAT},
    {"MIN", MPI_MIN, C_INT | C_MULTI | C_FLOAT},
    {"SUM", MPI_SUM, C_INT | C_MULTI | C_FLOAT | C_COMPLEX},
    {"PROD", MPI_PROD, C_INT | C_MULTI | C_FLOAT | C_COMPLEX},
    {"LAND", MPI_LAND, C_INT | C_MULTI | C_LOGICAL},
    {"LOR", MPI_LOR, C_INT | C_MULTI | C_LOGICAL},
    {"LXOR", MPI_LXOR, C_INT | C_MULTI | C_LOGICAL},
    {"BAND", MPI_BAND, C_INT | C_MULTI | C_BYTE},
    {"BOR", MPI_BOR, C_INT | C_MULTI | C_BYTE},
    {"BXOR", MPI_BXOR, C_INT | C_MULTI | C_BYTE},
    {"MAXLOC", MPI_MAXLOC, 0},
    {"MINLOC", MPI_MINLOC, 0},
};

/* Stores the small integer v in an element of dt (complex: real part). */
static void put(MPI_Datatype dt, void *p, long v)
{
    // clang-format off
#define P(D, CT)                                                                                   \
    if (dt == D) {                                                                                 \
        CT x = (CT)v;                                                                              \
        memcpy(p, &x, sizeof(x));                                                                  \
        return;                                                                                    \
    }
    P(MPI_CHAR, char)
    P(MPI_WCHAR, int)
    P(MPI_SHORT, short)
    P(MPI_INT, int)
    P(MPI_LONG, long)
    P(MPI_LONG_LONG, long long)
    P(MPI_SIGNED_CHAR, signed char)
    P(MPI_UNSIGNED_CHAR, unsigned char)
    P(MPI_UNSIGNED_SHORT, unsigned short)
    P(MPI_UNSIGNED, unsigned)
    P(MPI_UNSIGNED_LONG, unsigned long)
    P(MPI_UNSIGNED_LONG_LONG, unsigned long long)
    P(MPI_INT8_T, int8_t)
    P(MPI_INT16_T, int16_t)
    P(MPI_INT32_T, int32_t)
    P(MPI_INT64_T, int64_t)
    P(MPI_UINT8_T, uint8_t)
    P(MPI_UINT16_T, uint16_t)
    P(MPI_UINT32_T, uint32_t)
    P(MPI_UINT64_T, uint64_t)
    P(MPI_AINT, MPI_Aint)
    P(MPI_COUNT, MPI_Count)
    P(MPI_OFFSET, MPI_Offset)
    P(MPI_FLOAT, float)
    P(MPI_DOUBLE, double)
    P(MPI_LONG_DOUBLE, long double)
    P(MPI_C_FLOAT_COMPLEX, float _Complex)
    P(MPI_C_DOUBLE_COMPLEX, double _Complex)
    P(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)
    P(MPI_C_BOOL, bool)
    P(MPI_BYTE, unsigned char)
#undef P
    // clang-format on
    TFAIL("put: unknown type");
}

static long get(MPI_Datatype dt, const void *p)
{
    // clang-format off
#define G(D, CT)                                                                                   \
    if (dt == D) {                                                                                 \
        CT x;                                                                                      \
        memcpy(&x, p, sizeof(x));                                                                  \
        return (long)x;                                                                            \
    }
#define GC(D, CT)                                                                                  \
    if (dt == D) {                                                                                 \
        CT x;                                                                                      \
        memcpy(&x, p, sizeof(x));                                                                  \
        if (cimagl(x) != 0) return -12345;                                                         \
        return (long)creall(x);                                                                    \
    }
    G(MPI_CHAR, char)
    G(MPI_WCHAR, int)
    G(MPI_SHORT, short)
    G(MPI_INT, int)
    G(MPI_LONG, long)
    G(MPI_LONG_LONG, long long)
    G(MPI_SIGNED_CHAR, signed char)
    G(MPI_UNSIGNED_CHAR, unsigned char)
    G(MPI_UNSIGNED_SHORT, unsigned short)
    G(MPI_UNSIGNED, unsigned)
    G(MPI_UNSIGNED_LONG, unsigned long)
    G(MPI_UNSIGNED_LONG_LONG, unsigned long long)
    G(MPI_INT8_T, int8_t)
    G(MPI_INT16_T, int16_t)
    G(MPI_INT32_T, int32_t)
    G(MPI_INT64_T, int64_t)
    G(MPI_UINT8_T, uint8_t)
    G(MPI_UINT16_T, uint16_t)
    G(MPI_UINT32_T, uint32_t)
    G(MPI_UINT64_T, uint64_t)
    G(MPI_AINT, MPI_Aint)
    G(MPI_COUNT, MPI_Count)
    G(MPI_OFFSET, MPI_Offset)
    G(MPI_FLOAT, float)
    G(MPI_DOUBLE, double)
    G(MPI_LONG_DOUBLE, long double)
    GC(MPI_C_FLOAT_COMPLEX, float _Complex)
    GC(MPI_C_DOUBLE_COMPLEX, double _Complex)
    GC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)
    G(MPI_C_BOOL, bool)
    G(MPI_BYTE, unsigned char)
#undef G
#undef GC
    // clang-format on
    TFAIL("get: unknown type");
    return 0;
}

/* Input of rank r, element i, for op k: small enough that no type overflows. */
static long inval(int k, int r, int i)
{
    if (ops[k].op == MPI_PROD) return (r == i % T_size) ? 2 : 1;
    if (ops[k].op == MPI_SUM) return (r + i) % 3;
    if (ops[k].op == MPI_MAX || ops[k].op == MPI_MIN) return (r * 3 + i) % 5;
    return (r + i) % 2 ? ((r + 2 * i) % 4 + 1) : 0; /* logical and bitwise: zeros and small */
}

static long refval(int k, int i, int nranks)
{
    long acc = inval(k, 0, i);
    for (int r = 1; r < nranks; r++) {
        long v = inval(k, r, i);
        MPI_Op op = ops[k].op;
        if (op == MPI_MAX) acc = acc > v ? acc : v;
        if (op == MPI_MIN) acc = acc < v ? acc : v;
        if (op == MPI_SUM) acc += v;
        if (op == MPI_PROD) acc *= v;
        if (op == MPI_LAND) acc = acc && v;
        if (op == MPI_LOR) acc = acc || v;
        if (op == MPI_LXOR) acc = !acc != !v;
        if (op == MPI_BAND) acc &= v;
        if (op == MPI_BOR) acc |= v;
        if (op == MPI_BXOR) acc ^= v;
    }
    return acc;
}

static void t_op_types(void)
{
    enum { N = 5 };
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        MPI_Datatype dt = types[t].dt;
        MPI_Aint lb, ext;
        MPI_Type_get_extent(dt, &lb, &ext);
        for (int k = 0; k < (int)(sizeof(ops) / sizeof(ops[0])); k++) {
            tcase("%s on %s", ops[k].name, types[t].name);
            char in[N * 32], out[N * 32], loc[N * 32];
            for (int i = 0; i < N; i++) {
                put(dt, in + i * ext, inval(k, T_rank, i));
                put(dt, loc + i * ext, inval(k, (T_rank + 1) % T_size, i));
            }
            bool ok = (ops[k].cls & types[t].cls) != 0;
            int rc = MPI_Allreduce(in, out, N, dt, ops[k].op, MPI_COMM_WORLD);
            if (!ok) {
                int cls;
                MPI_Error_class(rc, &cls);
                TCHECK(cls == MPI_ERR_OP, "want MPI_ERR_OP, got %d", rc);
                rc = MPI_Reduce_local(in, loc, N, dt, ops[k].op);
                MPI_Error_class(rc, &cls);
                TCHECK(cls == MPI_ERR_OP, "Reduce_local: want MPI_ERR_OP, got %d", rc);
                continue;
            }
            TCHECK(rc == MPI_SUCCESS, "allreduce failed: %d", rc);
            long want_bool;
            for (int i = 0; i < N; i++) {
                long want = refval(k, i, T_size);
                if (dt == MPI_C_BOOL) {
                    want_bool = want != 0;
                    /* C_BOOL carries truth values: reference on 0/1 inputs. */
                    long a = inval(k, 0, i) != 0;
                    for (int r = 1; r < T_size; r++) {
                        long v = inval(k, r, i) != 0;
                        if (ops[k].op == MPI_LAND) a = a && v;
                        if (ops[k].op == MPI_LOR) a = a || v;
                        if (ops[k].op == MPI_LXOR) a = !a != !v;
                    }
                    want = a;
                    (void)want_bool;
                }
                long got = get(dt, out + i * ext);
                TCHECK(got == want, "[%d]=%ld want %ld", i, got, want);
            }
            /* Reduce_local: loc = in op loc, the user's layout. */
            TMPI(MPI_Reduce_local(in, loc, N, dt, ops[k].op));
        }
    }
    /* MAXLOC / MINLOC on the pair types, in their C layouts. */
#define PAIR(D, VT)                                                                                \
    do {                                                                                           \
        struct {                                                                                   \
            VT v;                                                                                  \
            int i;                                                                                 \
        } a[N], b[N];                                                                              \
        for (int m = 0; m < 2; m++) {                                                              \
            tcase("%s on %s", m ? "MINLOC" : "MAXLOC", #D);                                        \
            for (int i = 0; i < N; i++) {                                                          \
                a[i].v = (VT)((T_rank * 3 + i) % 4);                                               \
                a[i].i = T_rank;                                                                   \
            }                                                                                      \
            TMPI(MPI_Allreduce(a, b, N, D, m ? MPI_MINLOC : MPI_MAXLOC, MPI_COMM_WORLD));          \
            for (int i = 0; i < N; i++) {                                                          \
                int bi = 0;                                                                        \
                for (int r = 1; r < T_size; r++) {                                                 \
                    int v = (r * 3 + i) % 4, bv = (bi * 3 + i) % 4;                                \
                    if (m ? v < bv : v > bv) bi = r;                                               \
                }                                                                                  \
                TCHECK(b[i].v == (VT)((bi * 3 + i) % 4) && b[i].i == bi,                           \
                       "[%d] = (%g, %d) want "                                                     \
                       "rank %d",                                                                  \
                       i, (double)b[i].v, b[i].i, bi);                                             \
            }                                                                                      \
            int rc = MPI_Allreduce(a, b, N, D, MPI_SUM, MPI_COMM_WORLD), cls;                      \
            MPI_Error_class(rc, &cls);                                                             \
            TCHECK(cls == MPI_ERR_OP, "SUM on a pair type: want MPI_ERR_OP, got %d", rc);          \
        }                                                                                          \
    } while (0)
    PAIR(MPI_FLOAT_INT, float);
    PAIR(MPI_DOUBLE_INT, double);
    PAIR(MPI_LONG_INT, long);
    PAIR(MPI_2INT, int);
    PAIR(MPI_SHORT_INT, short);
    PAIR(MPI_LONG_DOUBLE_INT, long double);
#undef PAIR
}

/* --- derived datatypes ---------------------------------------------------- */

/* Every other int of a strided buffer: vector(count, 1, 2, MPI_INT). */
static void t_derived(size_t count)
{
    int n = T_size, me = T_rank;
    MPI_Datatype vec, rsz;
    TMPI(MPI_Type_vector((int)count ? (int)count : 1, 1, 2, MPI_INT, &vec));
    TMPI(MPI_Type_commit(&vec));
    /* One int followed by a 4-byte hole, as an element type. */
    TMPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &rsz));
    TMPI(MPI_Type_commit(&rsz));
    size_t c = count;
    int *x = calloc(2 * c * (size_t)n + 2, sizeof(int)),
        *y = calloc(2 * c * (size_t)n + 2, sizeof(int));

    tcase("derived bcast count %zu", c);
    for (size_t i = 0; i < 2 * c; i++)
        x[i] = (i % 2) ? -1 : (me == 1 % n ? (int)i * 3 : 0);
    TMPI(MPI_Bcast(x, (int)c, rsz, 1 % n, MPI_COMM_WORLD));
    for (size_t i = 0; i < 2 * c; i += 2)
        TCHECK(x[i] == (int)i * 3, "bcast [%zu]=%d", i, x[i]);
    for (size_t i = 1; i < 2 * c; i += 2)
        TCHECK(x[i] == -1, "bcast wrote a hole [%zu]", i);

    tcase("derived allreduce (predefined op on a vector of ints) count %zu", c);
    for (size_t i = 0; i < 2 * c; i++) {
        x[i] = (int)i + me;
        y[i] = -3;
    }
    TMPI(MPI_Allreduce(x, y, (int)c, rsz, MPI_SUM, MPI_COMM_WORLD));
    for (size_t i = 0; i < 2 * c; i++) {
        int want = (i % 2) ? -3 : (int)i * n + n * (n - 1) / 2;
        TCHECK(y[i] == want, "allreduce [%zu]=%d want %d", i, y[i], want);
    }
    if (c) {
        tcase("derived reduce with vec count 1, root %d", n - 1);
        for (size_t i = 0; i < 2 * c; i++)
            y[i] = -3;
        TMPI(MPI_Reduce(x, y, 1, vec, MPI_MAX, n - 1, MPI_COMM_WORLD));
        if (me == n - 1)
            for (size_t i = 0; i < 2 * c; i++) {
                int want = (i % 2) ? -3 : (int)i + n - 1;
                TCHECK(y[i] == want, "reduce [%zu]=%d want %d", i, y[i], want);
            }
    }

    tcase("derived allgather count %zu", c);
    /* Send c contiguous ints, receive them into every other slot. */
    for (size_t i = 0; i < c; i++)
        x[i] = me * 1000 + (int)i;
    for (size_t i = 0; i < 2 * c * (size_t)n; i++)
        y[i] = -9;
    TMPI(MPI_Allgather(x, (int)c, MPI_INT, y, (int)c, rsz, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < c; i++) {
            size_t j = 2 * ((size_t)r * c + i);
            TCHECK(y[j] == r * 1000 + (int)i && y[j + 1] == -9, "allgather r %d [%zu]", r, i);
        }

    tcase("derived alltoall count %zu", c);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < c; i++)
            x[2 * ((size_t)r * c + i)] = me * 1000 + r * 10 + (int)i;
    TMPI(MPI_Alltoall(x, (int)c, rsz, y, (int)c, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < c; i++)
            TCHECK(y[(size_t)r * c + i] == r * 1000 + me * 10 + (int)i, "alltoall r %d [%zu]", r,
                   i);

    tcase("derived ialltoall, types freed before the wait, count %zu", c);
    {
        /* Receive side strided too; both types freed while in flight. */
        MPI_Datatype st2, rt2;
        TMPI(MPI_Type_dup(rsz, &st2));
        TMPI(MPI_Type_dup(rsz, &rt2));
        int *z = calloc(2 * c * (size_t)n + 2, sizeof(int));
        for (size_t i = 0; i < 2 * c * (size_t)n; i++)
            z[i] = -9;
        MPI_Request q;
        TMPI(MPI_Ialltoall(x, (int)c, st2, z, (int)c, rt2, MPI_COMM_WORLD, &q));
        TMPI(MPI_Type_free(&st2));
        TMPI(MPI_Type_free(&rt2));
        TMPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < c; i++) {
                size_t j = 2 * ((size_t)r * c + i);
                TCHECK(z[j] == r * 1000 + me * 10 + (int)i && z[j + 1] == -9,
                       "ialltoall r %d [%zu]", r, i);
            }
        free(z);
    }

    tcase("derived gather/scatter count %zu", c);
    for (size_t i = 0; i < 2 * c; i++)
        x[i] = (i % 2) ? -1 : me * 100 + (int)i;
    TMPI(MPI_Gather(x, (int)c, rsz, y, (int)c, MPI_INT, 0, MPI_COMM_WORLD));
    if (me == 0)
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < c; i++)
                TCHECK(y[(size_t)r * c + i] == r * 100 + 2 * (int)i, "gather r %d [%zu]", r, i);
    memset(x, 0, sizeof(int) * 2 * c);
    TMPI(MPI_Scatter(y, (int)c, MPI_INT, x, (int)c, rsz, 0, MPI_COMM_WORLD));
    for (size_t i = 0; i < c; i++)
        TCHECK(x[2 * i] == me * 100 + 2 * (int)i, "scatter [%zu]=%d", i, x[2 * i]);

    tcase("derived scan count %zu", c);
    for (size_t i = 0; i < 2 * c; i++) {
        x[i] = (int)i + me;
        y[i] = -3;
    }
    TMPI(MPI_Scan(x, y, (int)c, rsz, MPI_SUM, MPI_COMM_WORLD));
    for (size_t i = 0; i < 2 * c; i += 2) {
        int want = (int)i * (me + 1) + me * (me + 1) / 2;
        TCHECK(y[i] == want && y[i + 1] == -3, "scan [%zu]=%d want %d", i, y[i], want);
    }
    free(x);
    free(y);
    MPI_Type_free(&vec);
    MPI_Type_free(&rsz);
}

/* --- sub-communicators ------------------------------------------------------ */

static void t_split(void)
{
    int me = T_rank;
    MPI_Comm sub, dup;
    /* Odd and even ranks, in reverse order within each. */
    TMPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &sub));
    TMPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int sr, ss;
    MPI_Comm_rank(sub, &sr);
    MPI_Comm_size(sub, &ss);
    for (int it = 0; it < 3; it++) {
        tcase("split allreduce iteration %d", it);
        /* A nonblocking allreduce on the dup overlaps those on sub and world. */
        int dv = me, dres = -1;
        MPI_Request q;
        TMPI(MPI_Iallreduce(&dv, &dres, 1, MPI_INT, MPI_SUM, dup, &q));
        int v[64], r[64], w[64];
        for (int i = 0; i < 64; i++)
            v[i] = me * 64 + i + it;
        TMPI(MPI_Allreduce(v, r, 64, MPI_INT, MPI_MAX, sub));
        TMPI(MPI_Allreduce(v, w, 64, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
        /* The largest rank of my parity, the smallest rank overall. */
        int top = (T_size - 1) % 2 == me % 2 ? T_size - 1 : T_size - 2;
        for (int i = 0; i < 64; i++) {
            TCHECK(r[i] == top * 64 + i + it, "sub max [%d]=%d", i, r[i]);
            TCHECK(w[i] == i + it, "world min [%d]", i);
        }
        int rootv = sr == 0 ? 77 + it : 0;
        TMPI(MPI_Bcast(&rootv, 1, MPI_INT, 0, sub));
        TCHECK(rootv == 77 + it, "sub bcast");
        int *all = calloc((size_t)ss, sizeof(int));
        TMPI(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, sub));
        for (int k = 0; k < ss; k++) {
            /* Sub rank k is the k-th largest world rank of my parity. */
            int want = top - 2 * k;
            TCHECK(all[k] == want, "sub allgather [%d]=%d want %d", k, all[k], want);
        }
        free(all);
        TMPI(MPI_Barrier(sub));
        TMPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        TCHECK(dres == T_size * (T_size - 1) / 2, "dup iallreduce %d", dres);
    }
    TMPI(MPI_Comm_free(&sub));
    TMPI(MPI_Comm_free(&dup));
}

/* --- argument errors ---------------------------------------------------------- */

static void t_errors(void)
{
    int x = 1, y, cls;
    tcase("errors");
    int rc = MPI_Bcast(&x, 1, MPI_INT, T_size, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    TCHECK(cls == MPI_ERR_ROOT, "root out of range: %d", rc);
    rc = MPI_Allreduce(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    TCHECK(cls == MPI_ERR_COUNT, "negative count: %d", rc);
    rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    TCHECK(cls == MPI_ERR_OP, "null op: %d", rc);
    rc = MPI_Barrier(MPI_COMM_NULL);
    MPI_Error_class(rc, &cls);
    TCHECK(cls == MPI_ERR_COMM, "null comm: %d", rc);
    rc = MPI_Allreduce(&x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    TCHECK(cls == MPI_ERR_BUFFER, "in-place receive buffer: %d", rc);
    MPI_Op sum = MPI_SUM;
    rc = MPI_Op_free(&sum);
    MPI_Error_class(rc, &cls);
    TCHECK(cls == MPI_ERR_OP, "freeing a predefined op: %d", rc);
    int commute = 0;
    TMPI(MPI_Op_commutative(MPI_SUM, &commute));
    TCHECK(commute == 1, "SUM commutes");
    /* Still in step after the errors. */
    TMPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TCHECK(y == T_size, "allreduce after errors");
}

/* Ranks describe the same bytes with different types: rank 0 a strided
 * vector, the others plain ints. Collectives must pick the same message
 * pattern on every rank whatever its own layout. */
static void t_mixed_layouts(size_t count)
{
    tcase("mixed layouts, count %zu", count);
    int n = T_size, me = T_rank, c = (int)count;
    MPI_Datatype vec;
    TMPI(MPI_Type_vector(c ? c : 1, 1, 2, MPI_INT, &vec));
    TMPI(MPI_Type_commit(&vec));
    bool strided = me == 0;
    /* One block of `count` ints per rank, strided (x2) on rank 0. */
    size_t span = 2 * count * (size_t)n + 2;
    int *a = calloc(span, sizeof(int)), *b = calloc(span, sizeof(int));
    MPI_Datatype t = strided ? vec : MPI_INT;
    int tc = strided ? (c ? 1 : 0) : c;
    size_t stride = strided ? 2 : 1; /* ints between consecutive values */
    /* Block i of a buffer starts at i * count * stride ints (the vector's
     * extent is 2*count-1 ints: resize so blocks sit back to back). */
    MPI_Datatype tt = t;
    if (strided) {
        TMPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * count * sizeof(int)), &tt));
        TMPI(MPI_Type_commit(&tt));
    }
#define AT(buf, blk, i) (buf)[((size_t)(blk)*count + (i)) * stride]
    /* bcast from rank 1 (or 0 on one rank) */
    int root = n > 1 ? 1 : 0;
    for (size_t i = 0; i < count; i++)
        AT(a, 0, i) = me == root ? tval(root, i, 1) : -99;
    TMPI(MPI_Bcast(a, tc, tt, root, MPI_COMM_WORLD));
    for (size_t i = 0; i < count; i++)
        TCHECK(AT(a, 0, i) == tval(root, i, 1), "bcast value %zu", i);
    /* allgather */
    memset(a, 0, span * sizeof(int));
    for (size_t i = 0; i < count; i++)
        AT(a, 0, i) = tval(me, i, 2);
    TMPI(MPI_Allgather(a, tc, tt, b, tc, tt, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            TCHECK(AT(b, r, i) == tval(r, i, 2), "allgather from %d value %zu", r, i);
    /* alltoall */
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            AT(a, r, i) = tval(me * n + r, i, 3);
    TMPI(MPI_Alltoall(a, tc, tt, b, tc, tt, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            TCHECK(AT(b, r, i) == tval(r * n + me, i, 3), "alltoall from %d value %zu", r, i);
#undef AT
    if (strided) MPI_Type_free(&tt);
    MPI_Type_free(&vec);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    t_op_types();
    static const size_t counts[] = {0, 1, 5, 300, 5000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        t_derived(counts[c]);
        t_mixed_layouts(counts[c]);
    }
    /* Again with the long-message algorithms. */
    set_enum("UMP_COLL_ALLREDUCE_ALGO", "rabenseifner");
    set_enum("UMP_COLL_BCAST_ALGO", "scatter_allgather");
    set_enum("UMP_COLL_ALLGATHER_ALGO", "ring");
    set_enum("UMP_COLL_ALLTOALL_ALGO", "pairwise");
    set_enum("UMP_COLL_GATHER_ALGO", "binomial");
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
        t_derived(counts[c]);
    t_split();
    /* Again with node-aware algorithms: pretend nodes of 2 ranks. */
    set_enum("UMP_COLL_ALLREDUCE_ALGO", "auto");
    set_enum("UMP_COLL_BCAST_ALGO", "auto");
    set_fake_ppn(MPI_COMM_WORLD, 2);
    t_split();
    set_fake_ppn(MPI_COMM_WORLD, 0);
    t_errors();
    if (T_rank == 0) printf("coll_types: %d ranks OK\n", T_size);
    MPI_Finalize();
    return 0;
}
