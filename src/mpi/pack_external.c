/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size with
 * the one data representation MPI defines, "external32" (MPI 3.1 13.5.2):
 * big-endian IEEE values of fixed sizes, whatever the host's. MPI_LONG and
 * MPI_UNSIGNED_LONG are 4 bytes there and MPI_WCHAR 2, so a value that
 * does not fit is refused with MPI_ERR_CONVERSION; long double is IEEE
 * binary128 (16 bytes).
 *
 * The data goes through the host's packed stream (MPI_Pack's: the type
 * map's basic elements in order, no padding), converted element by
 * element. The order and kinds of those elements come from the datatype's
 * construction (MPI_Type_get_envelope / get_contents down to predefined
 * types), as a list of runs (basic type, repetitions).
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

typedef enum { CV_COPY, CV_SWAP, CV_NARROW_S, CV_NARROW_U, CV_LDOUBLE } cv_t;

typedef struct {
    MPI_Datatype dt;
    cv_t cv;
    uint8_t ns, es; /* one component's native and external32 size */
    uint8_t parts;  /* components: 2 for complex types */
} basic_t;

/* Pair types become two runs; see expand(). */
static const basic_t basics[] = {
    {MPI_CHAR, CV_COPY, 1, 1, 1},
    {MPI_SIGNED_CHAR, CV_COPY, 1, 1, 1},
    {MPI_UNSIGNED_CHAR, CV_COPY, 1, 1, 1},
    {MPI_BYTE, CV_COPY, 1, 1, 1},
    {MPI_PACKED, CV_COPY, 1, 1, 1},
    {MPI_CHARACTER, CV_COPY, 1, 1, 1},
    {MPI_C_BOOL, CV_COPY, sizeof(_Bool), 1, 1},
    {MPI_CXX_BOOL, CV_COPY, sizeof(_Bool), 1, 1},
    {MPI_INT8_T, CV_COPY, 1, 1, 1},
    {MPI_UINT8_T, CV_COPY, 1, 1, 1},
    {MPI_INTEGER1, CV_COPY, 1, 1, 1},
    {MPI_SHORT, CV_SWAP, 2, 2, 1},
    {MPI_UNSIGNED_SHORT, CV_SWAP, 2, 2, 1},
    {MPI_INT16_T, CV_SWAP, 2, 2, 1},
    {MPI_UINT16_T, CV_SWAP, 2, 2, 1},
    {MPI_INTEGER2, CV_SWAP, 2, 2, 1},
    {MPI_INT, CV_SWAP, sizeof(int), 4, 1},
    {MPI_UNSIGNED, CV_SWAP, sizeof(unsigned), 4, 1},
    {MPI_INT32_T, CV_SWAP, 4, 4, 1},
    {MPI_UINT32_T, CV_SWAP, 4, 4, 1},
    {MPI_INTEGER, CV_SWAP, sizeof(int), 4, 1},
    {MPI_INTEGER4, CV_SWAP, 4, 4, 1},
    {MPI_LOGICAL, CV_SWAP, sizeof(int), 4, 1},
    {MPI_LONG, CV_NARROW_S, sizeof(long), 4, 1},
    {MPI_UNSIGNED_LONG, CV_NARROW_U, sizeof(unsigned long), 4, 1},
    {MPI_WCHAR, CV_NARROW_U, sizeof(wchar_t), 2, 1},
    {MPI_LONG_LONG_INT, CV_SWAP, 8, 8, 1},
    {MPI_UNSIGNED_LONG_LONG, CV_SWAP, 8, 8, 1},
    {MPI_INT64_T, CV_SWAP, 8, 8, 1},
    {MPI_UINT64_T, CV_SWAP, 8, 8, 1},
    {MPI_INTEGER8, CV_SWAP, 8, 8, 1},
    {MPI_AINT, CV_SWAP, sizeof(MPI_Aint), 8, 1},
    {MPI_OFFSET, CV_SWAP, 8, 8, 1},
    {MPI_COUNT, CV_SWAP, 8, 8, 1},
    {MPI_FLOAT, CV_SWAP, 4, 4, 1},
    {MPI_REAL, CV_SWAP, 4, 4, 1},
    {MPI_REAL4, CV_SWAP, 4, 4, 1},
    {MPI_DOUBLE, CV_SWAP, 8, 8, 1},
    {MPI_DOUBLE_PRECISION, CV_SWAP, 8, 8, 1},
    {MPI_REAL8, CV_SWAP, 8, 8, 1},
    {MPI_LONG_DOUBLE, CV_LDOUBLE, sizeof(long double), 16, 1},
    {MPI_C_FLOAT_COMPLEX, CV_SWAP, 4, 4, 2},
    {MPI_COMPLEX, CV_SWAP, 4, 4, 2},
    {MPI_COMPLEX8, CV_SWAP, 4, 4, 2},
    {MPI_CXX_FLOAT_COMPLEX, CV_SWAP, 4, 4, 2},
    {MPI_C_DOUBLE_COMPLEX, CV_SWAP, 8, 8, 2},
    {MPI_DOUBLE_COMPLEX, CV_SWAP, 8, 8, 2},
    {MPI_COMPLEX16, CV_SWAP, 8, 8, 2},
    {MPI_CXX_DOUBLE_COMPLEX, CV_SWAP, 8, 8, 2},
    {MPI_C_LONG_DOUBLE_COMPLEX, CV_LDOUBLE, sizeof(long double), 16, 2},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, CV_LDOUBLE, sizeof(long double), 16, 2},
};

static const basic_t *basic_of(MPI_Datatype dt)
{
    for (size_t k = 0; k < sizeof(basics) / sizeof(basics[0]); k++)
        if (basics[k].dt == dt) return &basics[k];
    return NULL;
}

typedef struct {
    const basic_t *b;
    size_t n;
} run_t;

typedef struct {
    run_t *runs;
    size_t nruns, cap;
    size_t esize; /* external32 bytes of one instance */
    int err;      /* MPI class of a failure */
    MPI_Datatype bad;
} sig_t;

static void add_run(sig_t *s, MPI_Datatype dt, size_t n)
{
    const basic_t *b = basic_of(dt);
    if (!b) {
        s->err = MPI_ERR_TYPE;
        s->bad = dt;
        return;
    }
    if (!n) return;
    if (s->nruns && s->runs[s->nruns - 1].b == b) {
        s->runs[s->nruns - 1].n += n;
    } else {
        if (s->nruns == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 8;
            run_t *t = realloc(s->runs, sizeof(*t) * cap);
            if (!t) {
                s->err = MPI_ERR_NO_MEM;
                return;
            }
            s->runs = t;
            s->cap = cap;
        }
        s->runs[s->nruns++] = (run_t){b, n};
    }
    s->esize += n * b->es * b->parts;
}

/* Appends n instances of dt's basic elements, in type-map order. */
static void expand(sig_t *s, MPI_Datatype dt, size_t n)
{
    if (s->err || !n) return;
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS) {
        s->err = MPI_ERR_TYPE;
        return;
    }
    if (comb == MPI_COMBINER_F90_REAL || comb == MPI_COMBINER_F90_COMPLEX ||
        comb == MPI_COMBINER_F90_INTEGER)
        dt = (MPI_Datatype)ump_dt_param_base(dt), comb = MPI_COMBINER_NAMED;
    if (comb == MPI_COMBINER_NAMED) {
        /* The pair types: a value and an index, one after the other. */
        static const struct {
            MPI_Datatype pair, first, second;
        } pairs[] = {{MPI_FLOAT_INT, MPI_FLOAT, MPI_INT},
                     {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT},
                     {MPI_LONG_INT, MPI_LONG, MPI_INT},
                     {MPI_2INT, MPI_INT, MPI_INT},
                     {MPI_SHORT_INT, MPI_SHORT, MPI_INT},
                     {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT},
                     {MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER},
                     {MPI_2REAL, MPI_REAL, MPI_REAL},
                     {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION}};
        for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
            if (pairs[k].pair == dt) {
                for (size_t i = 0; i < n && !s->err; i++) {
                    add_run(s, pairs[k].first, 1);
                    add_run(s, pairs[k].second, 1);
                }
                return;
            }
        add_run(s, dt, n);
        return;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    if (!ints || !addrs || !types ||
        PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
        s->err = MPI_ERR_NO_MEM;
        goto out;
    }
    for (size_t rep = 0; rep < n && !s->err; rep++) {
        if (comb == MPI_COMBINER_STRUCT) {
            for (int i = 0; i < ints[0] && !s->err; i++)
                expand(s, types[i], (size_t)ints[1 + i]);
            continue;
        }
        /* One old type: the type holds size / size(old) of its elements,
         * in order (every other constructor repeats oldtype). */
        MPI_Count sz, osz;
        PMPI_Type_size_x(dt, &sz);
        PMPI_Type_size_x(types[0], &osz);
        size_t m = osz ? (size_t)(sz / osz) : 0;
        if (rep == 0 && m && n > 1) {
            /* Identical instances: expand the first, then all at once. */
            expand(s, types[0], m * n);
            break;
        }
        expand(s, types[0], m);
    }
    for (int i = 0; i < nd; i++)
        if (!types[i]->predefined) PMPI_Type_free(&types[i]);
out:
    free(ints);
    free(addrs);
    free(types);
}

static bool host_big_endian(void)
{
    return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

/* Copies n bytes, reversed on a little-endian host. */
static void order(unsigned char *to, const unsigned char *from, size_t n)
{
    if (host_big_endian()) {
        memcpy(to, from, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        to[i] = from[n - 1 - i];
}

/* One component, host (h) to external32 (e) or back. MPI class. */
static int convert(const basic_t *b, unsigned char *h, unsigned char *e, bool to_ext)
{
    switch (b->cv) {
    case CV_COPY: /* one byte each way (the table has no wider ones) */
        if (to_ext)
            e[0] = h[0];
        else
            h[0] = e[0];
        return MPI_SUCCESS;
    case CV_SWAP:
        if (to_ext)
            order(e, h, b->es);
        else
            order(h, e, b->es);
        return MPI_SUCCESS;
    case CV_NARROW_S:
    case CV_NARROW_U: {
        bool sgn = b->cv == CV_NARROW_S;
        unsigned bits = 8u * b->es;
        if (to_ext) {
            int64_t v = 0;
            uint64_t u = 0;
            if (b->ns == 8) {
                memcpy(&u, h, 8);
            } else if (b->ns == 4) {
                uint32_t w;
                memcpy(&w, h, 4);
                u = sgn ? (uint64_t)(int64_t)(int32_t)w : w;
            } else {
                uint16_t w;
                memcpy(&w, h, 2);
                u = sgn ? (uint64_t)(int64_t)(int16_t)w : w;
            }
            v = (int64_t)u;
            bool fits = sgn ? v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1))
                            : u < (UINT64_C(1) << bits);
            if (!fits) return MPI_ERR_CONVERSION;
            for (unsigned i = 0; i < b->es; i++)
                e[i] = (unsigned char)(u >> (8 * (b->es - 1 - i)));
            return MPI_SUCCESS;
        }
        uint64_t u = 0;
        for (unsigned i = 0; i < b->es; i++)
            u = u << 8 | e[i];
        if (sgn && (u >> (bits - 1)) & 1) u |= ~UINT64_C(0) << bits;
        if (b->ns == 8) {
            memcpy(h, &u, 8);
        } else if (b->ns == 4) {
            uint32_t w = (uint32_t)u;
            memcpy(h, &w, 4);
        } else {
            uint16_t w = (uint16_t)u;
            memcpy(h, &w, 2);
        }
        return MPI_SUCCESS;
    }
    case CV_LDOUBLE:
#if LDBL_MANT_DIG == 113
        if (to_ext)
            order(e, h, 16);
        else
            order(h, e, 16);
        return MPI_SUCCESS;
#elif defined(__SIZEOF_FLOAT128__)
        if (to_ext) {
            long double x;
            memcpy(&x, h, sizeof(x));
            __float128 q = (__float128)x;
            order(e, (unsigned char *)&q, 16);
        } else {
            __float128 q;
            order((unsigned char *)&q, e, 16);
            long double x = (long double)q;
            memset(h, 0, b->ns);
            memcpy(h, &x, sizeof(x) < b->ns ? sizeof(x) : b->ns);
        }
        return MPI_SUCCESS;
#else
        return MPI_ERR_UNSUPPORTED_DATAREP;
#endif
    }
    return MPI_ERR_INTERN;
}

/* Converts count instances between the host stream h and external32 e. */
static int convert_all(const sig_t *s, size_t count, unsigned char *h, unsigned char *e,
                       bool to_ext)
{
    for (size_t c = 0; c < count; c++)
        for (size_t r = 0; r < s->nruns; r++) {
            const basic_t *b = s->runs[r].b;
            size_t comps = s->runs[r].n * b->parts;
            for (size_t k = 0; k < comps; k++, h += b->ns, e += b->es) {
                int rc = convert(b, h, e, to_ext);
                if (rc != MPI_SUCCESS) return rc;
            }
        }
    return MPI_SUCCESS;
}

/* The signature of dt, or an error raised for call. */
static int signature(const char *call, const char *datarep, MPI_Datatype dt, int count, sig_t *s)
{
    memset(s, 0, sizeof(*s));
    if (!datarep) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_DATAREP, call,
                             "data representation '%.64s' is not supported (only "
                             "\"external32\")",
                             datarep);
    UMP_MPI_CHECK_COUNT(call, MPI_COMM_NULL, count);
    UMP_MPI_CHECK_DT(call, MPI_COMM_NULL, dt);
    expand(s, dt, 1);
    if (s->err == MPI_ERR_TYPE) {
        free(s->runs);
        const char *nm = s->bad ? ump_mpi_dt_name(s->bad) : "";
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                             "datatype contains %s, which has no external32 representation",
                             *nm ? nm : "a type");
    }
    if (s->err) {
        free(s->runs);
        return ump_mpi_error(MPI_COMM_NULL, s->err, call, "reading the datatype failed");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char call[] = "MPI_Pack_external_size";
    UMP_MPI_CHECK_INIT(call);
    if (!size) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "size is NULL");
    sig_t s;
    int rc = signature(call, datarep, datatype, incount, &s);
    if (rc != MPI_SUCCESS) return rc;
    *size = (MPI_Aint)(s.esize * (size_t)incount);
    free(s.runs);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    static const char call[] = "MPI_Pack_external";
    UMP_MPI_CHECK_INIT(call);
    if (!position) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "position is NULL");
    if (outsize < 0 || *position < 0 || *position > outsize)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "position %ld is outside [0, outsize %ld]", (long)*position,
                             (long)outsize);
    sig_t s;
    int rc = signature(call, datarep, datatype, incount, &s);
    if (rc != MPI_SUCCESS) return rc;
    size_t ebytes = s.esize * (size_t)incount, hbytes = datatype->size * (size_t)incount;
    if (ebytes > (size_t)(outsize - *position)) {
        free(s.runs);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TRUNCATE, call,
                             "%zu external32 bytes at position %ld exceed outsize %ld", ebytes,
                             (long)*position, (long)outsize);
    }
    if (ebytes && (!outbuf || !ump_mpi_buf_ok(inbuf, incount, datatype))) {
        free(s.runs);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call, "inbuf or outbuf is NULL");
    }
    unsigned char *tmp = malloc(hbytes ? hbytes : 1);
    if (!tmp) {
        free(s.runs);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = ump_dt_pack(inbuf, (size_t)incount, datatype, 0, tmp, hbytes) == UMP_OK ? MPI_SUCCESS
                                                                                 : MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS)
        rc = convert_all(&s, (size_t)incount, tmp, (unsigned char *)outbuf + *position, true);
    free(tmp);
    free(s.runs);
    if (rc == MPI_ERR_CONVERSION)
        return ump_mpi_error(MPI_COMM_NULL, rc, call,
                             "a value does not fit its external32 size (MPI_LONG and "
                             "MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2)");
    if (rc != MPI_SUCCESS) return ump_mpi_error(MPI_COMM_NULL, rc, call, "packing failed");
    *position += (MPI_Aint)ebytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    static const char call[] = "MPI_Unpack_external";
    UMP_MPI_CHECK_INIT(call);
    if (!position) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "position is NULL");
    if (insize < 0 || *position < 0 || *position > insize)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "position %ld is outside [0, insize %ld]", (long)*position,
                             (long)insize);
    sig_t s;
    int rc = signature(call, datarep, datatype, outcount, &s);
    if (rc != MPI_SUCCESS) return rc;
    UMP_MPI_CHECK_RECV_DT(call, MPI_COMM_NULL, datatype, outcount);
    size_t ebytes = s.esize * (size_t)outcount, hbytes = datatype->size * (size_t)outcount;
    if (ebytes > (size_t)(insize - *position)) {
        free(s.runs);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TRUNCATE, call,
                             "%zu external32 bytes wanted at position %ld but insize is %ld",
                             ebytes, (long)*position, (long)insize);
    }
    if (ebytes && (!inbuf || !ump_mpi_buf_ok(outbuf, outcount, datatype))) {
        free(s.runs);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call, "inbuf or outbuf is NULL");
    }
    unsigned char *tmp = malloc(hbytes ? hbytes : 1);
    if (!tmp) {
        free(s.runs);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = convert_all(&s, (size_t)outcount, tmp, (unsigned char *)inbuf + *position, false);
    if (rc == MPI_SUCCESS &&
        ump_dt_unpack(outbuf, (size_t)outcount, datatype, 0, tmp, hbytes) != UMP_OK)
        rc = MPI_ERR_INTERN;
    free(tmp);
    free(s.runs);
    if (rc != MPI_SUCCESS) return ump_mpi_error(MPI_COMM_NULL, rc, call, "unpacking failed");
    *position += (MPI_Aint)ebytes;
    return MPI_SUCCESS;
}
