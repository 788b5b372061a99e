/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz.h - shared by the fuzz harnesses (tests/fuzz/fuzz_*.c).
 *
 * Every harness defines LLVMFuzzerTestOneInput. Built with clang
 * -fsanitize=fuzzer it is a libFuzzer target; built with the project's
 * compiler and replay.c it runs saved inputs (seed corpus, crash
 * regressions) as a plain unit test. A harness checks what the parser
 * promises (bounds, lengths) and calls fuzz_fail() when a promise breaks,
 * so a wrong answer is a finding just like a crash.
 */
#ifndef UMP_FUZZ_H
#define UMP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_fail(...)                                                                             \
    do {                                                                                           \
        fprintf(stderr, "fuzz: %s:%d: ", __FILE__, __LINE__);                                      \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        abort();                                                                                   \
    } while (0)

/* A cursor over the fuzzer's bytes; reads past the end give zeros. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t len, off;
} fuzz_in_t;

static inline size_t fuzz_left(const fuzz_in_t *in)
{
    return in->len - in->off;
}

static inline uint8_t fuzz_u8(fuzz_in_t *in)
{
    return in->off < in->len ? in->p[in->off++] : 0;
}

static inline uint16_t fuzz_u16(fuzz_in_t *in)
{
    uint16_t v = fuzz_u8(in);
    return (uint16_t)(v | fuzz_u8(in) << 8);
}

/* Up to n bytes (fewer at the end); *got says how many. */
static inline const uint8_t *fuzz_bytes(fuzz_in_t *in, size_t n, size_t *got)
{
    if (n > fuzz_left(in)) n = fuzz_left(in);
    const uint8_t *p = in->p + in->off;
    in->off += n;
    *got = n;
    return p;
}

#endif /* UMP_FUZZ_H */
