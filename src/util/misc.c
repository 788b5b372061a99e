/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/random.h>
#include <unistd.h>

#include "util/util.h"

int ump_num_cpus(void)
{
    /* The node's CPUs, not this process's affinity mask: a launcher that
     * pins each rank to one core must not make every rank believe the node
     * is oversubscribed. */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0) return (int)n;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
    return 1;
}

int ump_random_bytes(void *out, size_t n)
{
    char *p = out;
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR) /* interrupted before any bytes: ask again */
                continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

void ump_hex_encode(const void *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = in;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int ump_hex_decode(const char *s, void *out, size_t n)
{
    unsigned char *b = out;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}
