/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mp_common.h - shared helpers for the multi-process tests.
 *
 * Every payload is a seeded pattern that depends on (src, dst, tag, index), so
 * a message delivered to the wrong receive, from the wrong sender or out of
 * order fails the byte-for-byte check instead of passing by accident.
 * Any failure prints "[mp rank R] FAIL file:line: ..." and ends the job with a
 * non-zero status, which the launcher turns into a failed test.
 */
#ifndef UMP_MP_COMMON_H
#define UMP_MP_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ump.h"

/* A context no test uses for its payload traffic: barriers and go-messages. */
#define MP_CTX_CTRL 0x7a11u

static const char *mp_prog = "mp";

static inline int mp_rank_or_neg(void)
{
    return ump_initialized() ? ump_rank() : -1;
}

/* `what` is the text of the failed check, or NULL. */
__attribute__((format(printf, 4, 5), noreturn)) static void
mp_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%s rank %d] FAIL %s:%d: %s%s%s%s\n", mp_prog, mp_rank_or_neg(), file, line,
            what ? "check '" : "", what ? what : "", what ? "' failed: " : "", msg);
    fflush(stderr);
    /* ump_abort stops the whole job at once, so peers blocked on us do not
     * wait for the timeout; if the library is not up, a plain exit does. */
    if (ump_initialized() && !ump_finalized()) ump_abort(1, msg);
    _exit(1);
}

#define MP_FAIL(...) mp_fail(__FILE__, __LINE__, NULL, __VA_ARGS__)
#define MP_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) mp_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                              \
    } while (0)
/* A call that must return UMP_OK. */
#define MP_CALL(call)                                                                              \
    do {                                                                                           \
        int mp_rc_ = (call);                                                                       \
        if (mp_rc_ != UMP_OK)                                                                      \
            MP_FAIL("%s returned %d (%s: %s)", #call, mp_rc_, ump_status_name(mp_rc_),             \
                    ump_strerror(mp_rc_));                                                         \
    } while (0)

static inline uint64_t mp_mix64(uint64_t x)
{
    /* splitmix64 finaliser: every input bit affects every output bit. */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t mp_seed(int src, int dst, int tag, uint64_t idx)
{
    uint64_t s = mp_mix64((uint64_t)(uint32_t)src << 32 | (uint32_t)dst);
    s = mp_mix64(s ^ (uint64_t)(uint32_t)tag);
    return mp_mix64(s ^ idx);
}

/* Fills buf[0..n) with the pattern of message (src, dst, tag, idx). */
static inline void mp_fill(void *buf, size_t n, int src, int dst, int tag, uint64_t idx)
{
    uint64_t seed = mp_seed(src, dst, tag, idx);
    unsigned char *p = buf;
    size_t w = 0;
    for (; w + 8 <= n; w += 8) {
        uint64_t v = mp_mix64(seed + w);
        memcpy(p + w, &v, 8);
    }
    if (w < n) {
        uint64_t v = mp_mix64(seed + w);
        memcpy(p + w, &v, n - w);
    }
}

/* Offset of the first byte of buf[0..n) that differs from the pattern, or -1. */
static inline long mp_diff(const void *buf, size_t n, int src, int dst, int tag, uint64_t idx)
{
    uint64_t seed = mp_seed(src, dst, tag, idx);
    const unsigned char *p = buf;
    for (size_t w = 0; w < n; w += 8) {
        uint64_t v = mp_mix64(seed + w);
        size_t k = n - w < 8 ? n - w : 8;
        if (memcmp(p + w, &v, k) != 0) {
            for (size_t j = 0; j < k; j++)
                if (p[w + j] != ((unsigned char *)&v)[j]) return (long)(w + j);
        }
    }
    return -1;
}

#define MP_CHECK_DATA(buf, n, src, dst, tag, idx)                                                  \
    do {                                                                                           \
        long mp_off_ = mp_diff((buf), (n), (src), (dst), (tag), (idx));                            \
        if (mp_off_ >= 0)                                                                          \
            MP_FAIL("data mismatch at byte %ld of %zu (src %d dst %d tag %d idx %llu)", mp_off_,   \
                    (size_t)(n), (int)(src), (int)(dst), (int)(tag), (unsigned long long)(idx));   \
    } while (0)

static inline void *mp_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) MP_FAIL("out of memory allocating %zu bytes", n);
    return p;
}

static inline void mp_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) /* EINTR: sleep the rest */
        ;
}

static inline double mp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Drives ump's progress for `sec` seconds without posting anything, so what
 * arrives meanwhile is really taken in (as unexpected) rather than left in
 * a ring or a socket buffer, as it would be if we just slept. */
static inline void mp_progress_for(double sec)
{
    for (double t0 = mp_now(); mp_now() - t0 < sec;) {
        int rc = ump_progress();
        if (rc < 0) MP_FAIL("ump_progress returned %d (%s)", rc, ump_status_name(rc));
        usleep(100);
    }
}

/* Every rank reports to rank 0, rank 0 releases everyone: a barrier on the
 * control context, built only from point-to-point calls under test. */
static inline void mp_barrier(void)
{
    int r = ump_rank(), n = ump_size();
    char b = 0;
    if (r == 0) {
        for (int i = 1; i < n; i++)
            MP_CALL(ump_recv(&b, 1, UMP_BYTE, i, 1, MP_CTX_CTRL, UMP_STATUS_IGNORE));
        for (int i = 1; i < n; i++)
            MP_CALL(ump_send(&b, 1, UMP_BYTE, i, 2, MP_CTX_CTRL));
    } else {
        MP_CALL(ump_send(&b, 1, UMP_BYTE, 0, 1, MP_CTX_CTRL));
        MP_CALL(ump_recv(&b, 1, UMP_BYTE, 0, 2, MP_CTX_CTRL, UMP_STATUS_IGNORE));
    }
}

/* A zero-byte go-message on the control context (tag 3). */
static inline void mp_send_go(int dst)
{
    MP_CALL(ump_send(NULL, 0, UMP_BYTE, dst, 3, MP_CTX_CTRL));
}
static inline void mp_recv_go(int src)
{
    MP_CALL(ump_recv(NULL, 0, UMP_BYTE, src, 3, MP_CTX_CTRL, UMP_STATUS_IGNORE));
}

/* Size tunable from the environment, with k/m/g suffixes as ump reads them. */
static inline size_t mp_parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        break;
    default:
        break;
    }
    return (size_t)v;
}

static inline size_t mp_env_size(const char *name, size_t dflt)
{
    const char *s = getenv(name);
    return s && *s ? mp_parse_size(s) : dflt;
}

static inline void mp_init(const char *prog, int *argc, char ***argv)
{
    int provided = -1;
    mp_prog = prog;
    setvbuf(stdout, NULL, _IOLBF, 0);
    MP_CALL(ump_init(argc, argv, UMP_THREAD_SINGLE, &provided));
    MP_CHECK(provided == UMP_THREAD_SINGLE, "provided thread level %d", provided);
}

static inline void mp_finalize(void)
{
    MP_CALL(ump_finalize());
}

#endif /* UMP_MP_COMMON_H */
