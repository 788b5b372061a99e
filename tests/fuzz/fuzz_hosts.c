/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * umprun's host lists (tools/umprun/hosts.c): a --host spec or a hostfile,
 * then rank placement, as hosts_setup() does them for umprun.
 *
 * Input: u8 mode (bit 0: hostfile, else --host), u8 rank count (0: the
 * hosts' slots), then the spec or the file's bytes.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "umprun_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size, 0};
    uint8_t mode = fuzz_u8(&in);
    int n = fuzz_u8(&in);
    size_t len;
    const uint8_t *text = fuzz_bytes(&in, fuzz_left(&in), &len);

    umprun_reset();
    job.n = n;
    char path[64] = "";
    char *spec = NULL;
    int fd = -1;
    if (mode & 1) {
        fd = memfd_create("hostfile", MFD_CLOEXEC);
        if (fd < 0 || (len && write(fd, text, len) != (ssize_t)len)) fuzz_fail("memfd");
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        job.hostfile = path;
    } else {
        spec = strndup((const char *)text, len);
        if (!spec) return 0;
        job.hostspecs = malloc(sizeof(char *));
        if (!job.hostspecs) fuzz_fail("out of memory");
        job.hostspecs[0] = spec;
        job.nhostspecs = 1;
    }
    if (hosts_setup() == 0) {
        if (job.n < 1 || !job.ranks) fuzz_fail("placement of %d ranks", job.n);
        long total = 0;
        for (int i = 0; i < job.nhosts; i++) {
            if (job.hosts[i].slots < 1 || job.hosts[i].slots > 1 << 20)
                fuzz_fail("host %s has %d slots", job.hosts[i].name, job.hosts[i].slots);
            total += job.hosts[i].slots;
        }
        if (total > 1 << 20) fuzz_fail("%ld slots in all", total);
        for (int r = 0; r < job.n; r++) {
            struct rank *rk = &job.ranks[r];
            if (rk->node < 0 || rk->node >= job.nhosts || rk->host != &job.hosts[rk->node])
                fuzz_fail("rank %d placed on node %d of %d", r, rk->node, job.nhosts);
            if (rk->local_rank < 0 || rk->local_rank >= rk->local_size ||
                rk->local_size > rk->host->slots)
                fuzz_fail("rank %d local rank %d of %d", r, rk->local_rank, rk->local_size);
        }
    }
    umprun_reset();
    free(spec);
    if (fd >= 0) close(fd);
    return 0;
}
