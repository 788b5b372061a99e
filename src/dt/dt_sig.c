/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_sig.c - the signature algebra: the polynomial hash of a type's
 * sequence of basic kinds (see dt.h and dt_int.h), computed for repeats
 * and concatenations from the parts' hashes, never by walking elements.
 */
#include <limits.h>

#include "dt/dt_int.h"

uint64_t ump_dt_sig_pow(uint64_t b, size_t n)
{
    uint64_t r = 1;
    for (; n; n >>= 1, b *= b)
        if (n & 1) r *= b;
    return r;
}

/* 1 + p + ... + p^(n-1), by doubling: S(2m) = S(m)(1 + p^m), S(m+1) = S(m) + p^m. */
uint64_t ump_dt_sig_geom(uint64_t p, size_t n)
{
    uint64_t s = 0, pm = 1;
    for (int bit = (int)(sizeof(size_t) * CHAR_BIT) - 1; bit >= 0; bit--) {
        s *= 1 + pm;
        pm *= pm;
        if ((n >> bit) & 1) {
            s += pm;
            pm *= p;
        }
    }
    return s;
}

uint64_t ump_dt_sig(ump_dt_t dt, size_t count)
{
    return dt->sig * ump_dt_sig_geom(dt->sig_pow, count);
}
