/* SPDX-License-Identifier: BSD-3-Clause */
/* CRC-32C with the SSE4.2 instruction when present, else a table. */
#include <string.h>

#include "util/crc32c.h"

#define POLY 0x82f63b78u /* Castagnoli, bit-reversed */

static uint32_t table[8][256];
static int hw = -1; /* -1 unknown, 0 table, 1 instruction */

static void init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (POLY & (0u - (c & 1)));
        table[0][i] = c;
    }
    /* Slicing-by-8: table[k][i] is the CRC of byte i followed by k zeros. */
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    hw = 0;
#endif
}

uint32_t ump_crc32c_sw(uint32_t crc, const void *buf, size_t n)
{
    if (hw < 0) init();
    const uint8_t *p = buf;
    crc = ~crc;
    while (n && ((uintptr_t)p & 7)) {
        crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
        n--;
    }
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= crc; /* little-endian: the low 4 bytes take the running CRC */
        crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
              table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
              table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
    return ~crc;
}

#if defined(__x86_64__)
static uint32_t crc_hw1(uint32_t crc, const void *buf, size_t n);
#endif

/* a * b modulo the polynomial, bit-reflected (bit 31 is x^0). */
static uint32_t mulmod(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (uint32_t m = 1u << 31; m; m >>= 1) {
        if (a & m) p ^= b;
        b = (b & 1) ? (b >> 1) ^ POLY : b >> 1;
    }
    return p;
}

/* x^(8n) modulo the polynomial: what n zero bytes do to a CRC register. */
static uint32_t xpow8n(size_t n)
{
    uint32_t r = 1u << 31, sq = 1u << 23; /* x^0, x^8 */
    for (; n; n >>= 1) {
        if (n & 1) r = mulmod(r, sq);
        sq = mulmod(sq, sq);
    }
    return r;
}

#if defined(__x86_64__)
/* One chain of 8-byte steps. */
__attribute__((target("sse4.2"))) static uint64_t chain(uint64_t c, const uint8_t *p, size_t n)
{
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    return c;
}

/* The instruction takes 3 cycles but starts one per cycle, so a long
 * buffer is cut in three parts whose CRCs run interleaved; the register
 * is linear, so the parts are joined by moving each across the bytes
 * that follow it (a multiplication by x^(8n)). */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const void *buf, size_t n)
{
    const uint8_t *q = buf;
    if (n >= 3072) {
        uint64_t c = ~crc;
        while ((uintptr_t)q & 7) {
            c = __builtin_ia32_crc32qi((uint32_t)c, *q++);
            n--;
        }
        size_t part = (n / 3) & ~(size_t)7;
        const uint8_t *a = q, *b = q + part, *d = q + 2 * part;
        uint64_t c1 = c, c2 = 0, c3 = 0;
        for (size_t i = 0; i < part; i += 8) {
            uint64_t w1, w2, w3;
            memcpy(&w1, a + i, 8);
            memcpy(&w2, b + i, 8);
            memcpy(&w3, d + i, 8);
            c1 = __builtin_ia32_crc32di(c1, w1);
            c2 = __builtin_ia32_crc32di(c2, w2);
            c3 = __builtin_ia32_crc32di(c3, w3);
        }
        uint32_t shift = xpow8n(part);
        c = mulmod(shift, mulmod(shift, (uint32_t)c1) ^ (uint32_t)c2) ^ (uint32_t)c3;
        q += 3 * part;
        n -= 3 * part;
        c = chain(c, q, n & ~(size_t)7);
        q += n & ~(size_t)7;
        for (n &= 7; n--;)
            c = __builtin_ia32_crc32qi((uint32_t)c, *q++);
        return ~(uint32_t)c;
    }
    return crc_hw1(crc, buf, n);
}
#endif

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw1(uint32_t crc, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint64_t c = ~crc;
    while (n && ((uintptr_t)p & 7)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        n--;
    }
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
        p += 8;
        n -= 8;
    }
    while (n--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return ~(uint32_t)c;
}
#endif

uint32_t ump_crc32c(uint32_t crc, const void *buf, size_t n)
{
    if (__builtin_expect(hw < 0, 0)) init();
#if defined(__x86_64__)
    if (hw) return crc_hw(crc, buf, n);
#endif
    return ump_crc32c_sw(crc, buf, n);
}

bool ump_crc32c_hw(void)
{
    if (hw < 0) init();
    return hw == 1;
}
