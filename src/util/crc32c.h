/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of iSCSI, SCTP and ext4.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at
 * run time), else a table. Both give identical results.
 */
#ifndef UMP_UTIL_CRC32C_H
#define UMP_UTIL_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Extends `crc` (0 to start, or the result of a previous call) over n bytes.
 * crc32c(crc32c(0, a, n), b, m) equals the CRC of a followed by b. The
 * standard check value: ump_crc32c(0, "123456789", 9) == 0xe3069283.
 */
uint32_t ump_crc32c(uint32_t crc, const void *buf, size_t n);

/* Whether ump_crc32c uses the hardware instruction. */
bool ump_crc32c_hw(void);

/* The table version, whatever the CPU has (for tests). */
uint32_t ump_crc32c_sw(uint32_t crc, const void *buf, size_t n);

#endif /* UMP_UTIL_CRC32C_H */
