/* SPDX-License-Identifier: BSD-3-Clause */
/* CRC32C: the standard check values, and the instruction path equal to the
 * table path on every length and alignment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/crc32c.h"

static void test_check_values(void **state)
{
    assert_int_equal(ump_crc32c(0, "123456789", 9), 0xe3069283u);
    assert_int_equal(ump_crc32c_sw(0, "123456789", 9), 0xe3069283u);
    assert_int_equal(ump_crc32c(0, "", 0), 0);
    /* RFC 3720 B.4: 32 bytes of zeros, of ones. */
    uint8_t z[32] = {0}, o[32];
    memset(o, 0xff, sizeof(o));
    assert_int_equal(ump_crc32c(0, z, 32), 0x8a9136aau);
    assert_int_equal(ump_crc32c(0, o, 32), 0x62a8ab43u);
}

static void test_hw_equals_sw(void **state)
{
    uint8_t buf[4096 + 16];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (size_t off = 0; off < 9; off++)
        for (size_t n = 0; n < 300; n += 1 + n / 8) {
            assert_int_equal(ump_crc32c(0, buf + off, n), ump_crc32c_sw(0, buf + off, n));
            assert_int_equal(ump_crc32c(0xdeadbeef, buf + off, n),
                             ump_crc32c_sw(0xdeadbeef, buf + off, n));
        }
    assert_int_equal(ump_crc32c(0, buf, 4096), ump_crc32c_sw(0, buf, 4096));
    /* Chaining: the CRC of a+b continues the CRC of a. */
    assert_int_equal(ump_crc32c(ump_crc32c(0, buf, 1000), buf + 1000, 3000),
                     ump_crc32c(0, buf, 4000));
    /* Any single flipped bit changes it. */
    uint32_t c = ump_crc32c(0, buf, 1500);
    for (size_t i = 0; i < 1500 * 8; i += 37) {
        buf[i / 8] ^= (uint8_t)(1u << (i % 8));
        assert_int_not_equal(ump_crc32c(0, buf, 1500), c);
        buf[i / 8] ^= (uint8_t)(1u << (i % 8));
    }
    /* Long buffers take the interleaved path: every length and alignment
     * around its thresholds and a few far beyond. */
    static uint8_t big[70000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(i * 131 + (i >> 7));
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 3000; n < 3200; n++)
            assert_int_equal(ump_crc32c(7, big + off, n), ump_crc32c_sw(7, big + off, n));
    for (size_t n = 4000; n < sizeof(big) - 8; n += 997)
        assert_int_equal(ump_crc32c(0, big + 3, n), ump_crc32c_sw(0, big + 3, n));
    print_message("crc32c: %s\n", ump_crc32c_hw() ? "SSE4.2 instruction" : "table");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_values),
        cmocka_unit_test(test_hw_equals_sw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
