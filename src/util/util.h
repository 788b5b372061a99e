/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.h - the bottom layer: logging, tunables, clocks, free lists.
 * Every other layer may include this; it includes nothing of ump but ump.h.
 */
#ifndef UMP_UTIL_H
#define UMP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "ump.h"

#define UMP_CACHELINE                     64
#define UMP_ALIGNED(n)                    __attribute__((aligned(n)))
#define UMP_LIKELY(x)                     __builtin_expect(!!(x), 1)
#define UMP_UNLIKELY(x)                   __builtin_expect(!!(x), 0)
#define UMP_ARRAY_SIZE(a)                 (sizeof(a) / sizeof((a)[0]))
#define UMP_MIN(a, b)                     ((a) < (b) ? (a) : (b))
#define UMP_MAX(a, b)                     ((a) > (b) ? (a) : (b))
#define UMP_ALIGN_UP(x, a)                (((x) + ((a)-1)) & ~((size_t)(a)-1))
#define UMP_CONTAINER_OF(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))
/* For the steps of one message's path that are split into functions for
 * reading but called from a few places: folded into their callers, as a
 * call's prologue and epilogue cost as much as the step itself. */
#define UMP_INLINE_PATH inline __attribute__((always_inline))

/* --- logging ------------------------------------------------------------- */

typedef enum {
    UMP_LOG_ERROR = 0,
    UMP_LOG_WARN,
    UMP_LOG_INFO,
    UMP_LOG_DEBUG,
    UMP_LOG_TRACE,
} ump_log_level_t;

/* Levels above this are compiled out. */
#ifndef UMP_LOG_CEILING
#define UMP_LOG_CEILING UMP_LOG_TRACE
#endif

extern int ump_log_level; /* runtime level, from UMP_LOG (default warn) */

/* Writes one line to stderr, prefixed "[ump host:pid rank N] level: ". */
void ump_log_write(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The rank shown in log prefixes (-1 until known). */
void ump_log_set_rank(int rank);

#define ump_log(level, ...)                                                                        \
    do {                                                                                           \
        if ((level) <= UMP_LOG_CEILING && (level) <= ump_log_level)                                \
            ump_log_write((level), __FILE__, __LINE__, __VA_ARGS__);                               \
    } while (0)
#define ump_error(...) ump_log(UMP_LOG_ERROR, __VA_ARGS__)
#define ump_warn(...)  ump_log(UMP_LOG_WARN, __VA_ARGS__)
#define ump_info(...)  ump_log(UMP_LOG_INFO, __VA_ARGS__)
#define ump_debug(...) ump_log(UMP_LOG_DEBUG, __VA_ARGS__)
#define ump_trace(...) ump_log(UMP_LOG_TRACE, __VA_ARGS__)

/* --- tunables -----------------------------------------------------------
 *
 * Each tunable is declared once, next to the code that uses it, with
 * UMP_CFG(); the linker gathers the declarations so ump_info can print them
 * all. Values are parsed from the environment by ump_cfg_load() (called by
 * ump_init and by ump_info) and read through the variable's `v` member.
 * Sizes accept k/m/g suffixes (powers of 1024). Variables the launcher sets
 * for its ranks start with UMP_JOB_ and are not tunables.
 */
typedef enum {
    UMP_CFG_INT,    /* v.i */
    UMP_CFG_SIZE,   /* v.sz, accepts 64k, 4m, 1g */
    UMP_CFG_BOOL,   /* v.b: 1/0, yes/no, on/off, true/false */
    UMP_CFG_DOUBLE, /* v.d */
    UMP_CFG_STRING, /* v.s (points into the environment or the default) */
    UMP_CFG_ENUM,   /* v.e: index into `choices`, "a|b|c" */
} ump_cfg_type_t;

typedef struct ump_cfg {
    const char *name; /* environment variable, UMP_<COMPONENT>_<NAME> */
    ump_cfg_type_t type;
    const char *defval;  /* default, as text */
    const char *choices; /* UMP_CFG_ENUM only */
    const char *doc;     /* one line */
    union {
        long long i;
        size_t sz;
        int b;
        double d;
        const char *s;
        int e;
    } v;
    bool from_env; /* value came from the environment */
    bool loaded;
} ump_cfg_t;

#define UMP_CFG_SECTION "ump_cfg"
#define UMP_CFG_DECLARE(var, envname, type, def, choices, doc)                                     \
    ump_cfg_t var = {envname, type, def, choices, doc, {0}, false, false};                         \
    static ump_cfg_t *const var##_entry_ __attribute__((used, section(UMP_CFG_SECTION))) = &var
#define UMP_CFG(var, envname, type, def, doc) UMP_CFG_DECLARE(var, envname, type, def, NULL, doc)
#define UMP_CFG_ENUM_(var, envname, def, choices, doc)                                             \
    UMP_CFG_DECLARE(var, envname, UMP_CFG_ENUM, def, choices, doc)

/* Parses every declared tunable from the environment (idempotent unless
 * `force`). Bad values fall back to the default with a warning; unknown
 * UMP_* variables draw a warning. Returns UMP_OK. */
int ump_cfg_load(bool force);
/* Iterates the table: returns entry i or NULL past the end. Sorted by name. */
const ump_cfg_t *ump_cfg_at(size_t i);
/* Finds a tunable by name, or NULL. */
ump_cfg_t *ump_cfg_find(const char *name);
/* Formats the current value of `c` into buf. */
void ump_cfg_format(const ump_cfg_t *c, char *buf, size_t len);
/* Parses "64k", "4m", "1g", "123"; returns 0 on success. */
int ump_parse_size(const char *s, size_t *out);

/* --- copies ------------------------------------------------------------- */

/* Copies n bytes, w <= n <= 2w (w at most 8), as the first w and the last
 * w bytes: two loads and two stores that may overlap. */
static inline void ump_copy_ends(char *d, const char *s, size_t n, size_t w)
{
    uint64_t a, b;
    memcpy(&a, s, w);
    memcpy(&b, s + n - w, w);
    memcpy(d, &a, w);
    memcpy(d + n - w, &b, w);
}

/* Copies n bytes (no overlap), for payloads that are mostly a few words:
 * up to 16 bytes with no call (a library memcpy of 4 bytes costs about
 * three times the copy), longer ones through memcpy. */
static inline void ump_copy_short(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        ump_copy_ends(d, s, n, 8);
    } else if (n >= 4) {
        ump_copy_ends(d, s, n, 4);
    } else if (n) {
        char a = s[0], b = s[n / 2], c = s[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

/* --- clocks -------------------------------------------------------------- */

static inline uint64_t ump_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Asks for the line at p with the intent to write it (prefetchw where the
 * processor has it; older x86 processors execute it as a no-op). */
static inline void ump_prefetch_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1);
#endif
}

static inline void ump_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* --- free lists ----------------------------------------------------------
 *
 * Fixed-size objects carved from chunks that are kept until destroy, so the
 * fast path never calls malloc once warm. Not thread-safe: callers hold the
 * core lock when running MULTIPLE.
 */
typedef struct ump_freelist {
    size_t obj_size; /* rounded up to 16 */
    size_t per_chunk;
    void *free;       /* singly linked through the first word */
    void *chunks;     /* singly linked list of chunks */
    size_t allocated; /* objects ever carved */
    size_t in_use;
} ump_freelist_t;

void ump_freelist_init(ump_freelist_t *fl, size_t obj_size, size_t per_chunk);
void ump_freelist_destroy(ump_freelist_t *fl);
/* Returns zeroed memory of obj_size, or NULL when out of memory. */
void *ump_freelist_get(ump_freelist_t *fl);
/* Carves a new chunk onto the free list (ump_freelist_take's slow path). */
int ump_freelist_grow(ump_freelist_t *fl);
/* Like ump_freelist_get, without zeroing: for objects whose every field
 * the caller sets (a zeroed 16 KiB buffer per message is wasted time, and
 * so is zeroing a whole request per message). Inline: it is a pop, on
 * every message's path. */
static inline void *ump_freelist_take(ump_freelist_t *fl)
{
    if (UMP_UNLIKELY(!fl->free) && ump_freelist_grow(fl) != UMP_OK) return NULL;
    void *obj = fl->free;
    fl->free = *(void **)obj;
    fl->in_use++;
    return obj;
}
static inline void ump_freelist_put(ump_freelist_t *fl, void *obj)
{
    *(void **)obj = fl->free;
    fl->free = obj;
    fl->in_use--;
}

/* --- misc ---------------------------------------------------------------- */

/* Number of online CPUs of this node. */
int ump_num_cpus(void);
/* Fills `out` with `n` cryptographically random bytes; 0 on success. */
int ump_random_bytes(void *out, size_t n);
/* Hex-encodes n bytes into out (2n+1 chars). */
void ump_hex_encode(const void *in, size_t n, char *out);
/* Decodes the first 2n hex digits of s into n bytes; 0, or -1 at a
 * character that is not a hex digit (the string's end included). */
int ump_hex_decode(const char *s, void *out, size_t n);

#endif /* UMP_UTIL_H */
