/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mt.h - helpers shared by the MPI conformance programs in tests/mpi.
 *
 * The programs are written against the MPI 3.1 standard only (no ump
 * extensions), so the same source builds with any MPI's mpicc; that is how
 * they are validated against another implementation before ump runs them.
 * A failed check prints one line naming the program, rank, source line and
 * what was expected, then aborts the whole job with MPI_Abort.
 */
#ifndef MT_H
#define MT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_rank = -1, mt_size = 0;
static const char *mt_prog = "?";

static inline void mt_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
static inline void mt_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s rank %d (%s:%d): %s [check: %s]\n", mt_prog, mt_rank, file, line, msg,
            expr);
    fflush(stderr);
    fflush(stdout);
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down) exit(1); /* MPI_Abort is only allowed between init and finalize */
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort does not return; if it does, still fail */
}

/* CHECK(cond, "fmt", ...): fail the job with a message when cond is false. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) mt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                              \
    } while (0)

/* Error text for a return code, safe to call with any integer. */
static inline const char *mt_errstr(int rc)
{
    static char s[MPI_MAX_ERROR_STRING + 32];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof(s), "(no string)");
    return s;
}

/* CALL(MPI_X(...)): the call must return MPI_SUCCESS. */
#define CALL(call)                                                                                 \
    do {                                                                                           \
        int mt_rc_ = (call);                                                                       \
        if (mt_rc_ != MPI_SUCCESS)                                                                 \
            mt_fail(__FILE__, __LINE__, #call, "returned %d: %s", mt_rc_, mt_errstr(mt_rc_));      \
    } while (0)

/* Error class of a return code. */
static inline int mt_class(int rc)
{
    int cls = -1;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) return -1;
    return cls;
}

/* EXPECT_CLASS(MPI_X(...), MPI_ERR_Y): under MPI_ERRORS_RETURN the call fails with class Y. */
#define EXPECT_CLASS(call, want)                                                                   \
    do {                                                                                           \
        int mt_rc_ = (call);                                                                       \
        if (mt_class(mt_rc_) != (want))                                                            \
            mt_fail(__FILE__, __LINE__, #call, "returned %d (class %d: %s), want class %s (%d)",   \
                    mt_rc_, mt_class(mt_rc_), mt_errstr(mt_rc_), #want, (want));                   \
    } while (0)

static inline void mt_init(int *argc, char ***argv, const char *prog)
{
    mt_prog = prog;
    CALL(MPI_Init(argc, argv));
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
}

/* All ranks reach the end: a barrier, then rank 0 reports. */
static inline int mt_done(void)
{
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) printf("PASS %s (%d ranks)\n", mt_prog, mt_size);
    fflush(stdout);
    CALL(MPI_Finalize());
    return 0;
}

/* Seeded byte pattern: differs per seed and per position (period > 64 KiB). */
static inline unsigned char mt_byte(size_t i, unsigned seed)
{
    return (unsigned char)(i * 7u + (i >> 8) * 13u + (i >> 16) * 29u + seed * 101u + 1u);
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_byte(i, seed);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_byte(i, seed)) return (long)i;
    return -1;
}

#define CHECK_DATA(buf, n, seed, what)                                                             \
    do {                                                                                           \
        long mt_bad_ = mt_verify((buf), (n), (seed));                                              \
        CHECK(mt_bad_ < 0, "%s: %zu bytes, first wrong byte at %ld: got 0x%02x want 0x%02x",       \
              (what), (size_t)(n), mt_bad_,                                                        \
              mt_bad_ < 0 ? 0 : ((const unsigned char *)(buf))[mt_bad_],                           \
              mt_bad_ < 0 ? 0 : mt_byte((size_t)mt_bad_, (seed)));                                 \
    } while (0)

static inline void *mt_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p != NULL, "malloc(%zu) failed", n);
    return p;
}

#endif /* MT_H */
