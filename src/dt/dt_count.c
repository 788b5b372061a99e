/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_count.c - element counts: how many basic elements a number of stream
 * bytes holds, and the other way round, including partial elements of
 * structs and pair types.
 */
#include "dt/dt_int.h"

/* Basic elements in 0 < rem < size bytes of one element, -1 if not whole. */
static long long part_elems(ump_dt_t t, size_t rem)
{
    if (t->predefined) {
        if (t->nbasic == 2 && t->size - sizeof(int) == rem) return 1;
        return -1;
    }
    switch (t->combiner) {
    case UMP_DT_COMBINER_STRUCT: {
        long long n = 0;
        for (int k = 0; k < t->nd; k++) {
            ump_dt_t c = t->types[k];
            size_t s = (size_t)t->ints[1 + k] * c->size;
            if (rem >= s) {
                rem -= s;
                n += (long long)((size_t)t->ints[1 + k] * c->nbasic);
                continue;
            }
            long long r = ump_dt_elements(c, rem);
            return r < 0 ? -1 : n + r;
        }
        return n;
    }
    case UMP_DT_COMBINER_SUBARRAY:
    case UMP_DT_COMBINER_DARRAY:
        return ump_dt_elements(t->impl, rem);
    default: /* every other constructor repeats its one old type */
        return t->nd == 1 ? ump_dt_elements(t->types[0], rem) : -1;
    }
}

long long ump_dt_elements(ump_dt_t dt, size_t bytes)
{
    if (dt->size == 0) return 0;
    size_t full = bytes / dt->size, rem = bytes % dt->size;
    long long n = (long long)(full * dt->nbasic);
    if (!rem) return n;
    long long r = part_elems(dt, rem);
    return r < 0 ? -1 : n + r;
}

static long long part_bytes(ump_dt_t t, size_t elems)
{
    if (t->predefined)
        return t->nbasic == 2 && elems == 1 ? (long long)(t->size - sizeof(int)) : -1;
    switch (t->combiner) {
    case UMP_DT_COMBINER_STRUCT: {
        long long b = 0;
        for (int k = 0; k < t->nd; k++) {
            ump_dt_t c = t->types[k];
            size_t e = (size_t)t->ints[1 + k] * c->nbasic;
            if (elems >= e) {
                elems -= e;
                b += (long long)((size_t)t->ints[1 + k] * c->size);
                continue;
            }
            long long r = ump_dt_elements_bytes(c, elems);
            return r < 0 ? -1 : b + r;
        }
        return b;
    }
    case UMP_DT_COMBINER_SUBARRAY:
    case UMP_DT_COMBINER_DARRAY:
        return ump_dt_elements_bytes(t->impl, elems);
    default:
        return t->nd == 1 ? ump_dt_elements_bytes(t->types[0], elems) : -1;
    }
}

long long ump_dt_elements_bytes(ump_dt_t dt, size_t elems)
{
    if (dt->nbasic == 0) return elems ? -1 : 0;
    size_t full = elems / dt->nbasic, rem = elems % dt->nbasic;
    long long b = (long long)(full * dt->size);
    if (!rem) return b;
    long long r = part_bytes(dt, rem);
    return r < 0 ? -1 : b + r;
}
