/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * umprun's command line: the option parser (main.c's parse_args), then the
 * host setup it feeds, as umprun's main() runs them.
 *
 * Input: the arguments, separated by NUL bytes (argv[0] is "umprun").
 */
#include <string.h>

#include "fuzz.h"
#include "umprun_fuzz.h"

#define MAXARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[MAXARGS + 2] = {"umprun"};
    int argc = 1;
    for (char *p = copy; p <= copy + size && argc <= MAXARGS; p += strlen(p) + 1) {
        /* --help and --version print and exit, as they should (in any of
         * their spellings: -h, -help, --help, -V, -version, --version):
         * not a finding. */
        const char *o = p + strspn(p, "-");
        if (o > p &&
            (!strcmp(o, "h") || !strcmp(o, "help") || !strcmp(o, "V") || !strcmp(o, "version")))
            goto out;
        argv[argc++] = p;
    }
    argv[argc] = NULL;

    umprun_reset();
    if (umprun_parse_args(argc, argv) == 0) {
        if (!job.argv || !job.argv[0]) fuzz_fail("accepted without a program");
        if (job.n < 0 || job.n > 1 << 20) fuzz_fail("rank count %d accepted", job.n);
        if (job.timeout_s < 0 || job.timeout_s > 1e9) fuzz_fail("timeout %g", job.timeout_s);
        /* A hostfile named by the input is not read: it could be any file. */
        job.hostfile = NULL;
        /* Placement is linear in the ranks; keep executions fast. */
        if (job.n <= 4096 && hosts_setup() == 0 && job.n < 1) fuzz_fail("no ranks placed");
    }
    umprun_reset();
out:
    free(copy);
    return 0;
}
