/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Single-copy reads and writes with cross-memory attach: process_vm_readv
 * copies straight from the peer's pages into ours, process_vm_writev from
 * ours into the peer's, gathering and scattering on both sides in one call. The kernel caps each
 * call at IOV_MAX entries per side and may stop early, so we walk both lists with cursors.
 */
#include <errno.h>
#include <limits.h>
#include <sys/uio.h>

#include "xport/shm/shm.h"

/* Entries per side per call: the kernel's limit, so a scatter/gather list
 * of a datatype costs as few calls as it can. The lists are static (the
 * transport is called by one thread at a time) to keep 32 KiB off the stack. */
#define CMA_IOV_BATCH IOV_MAX

/* A position inside an iovec list. */
struct cursor {
    int idx;
    size_t off;
};

int ump_shm_cma_xfer(pid_t pid, bool write, const struct iovec *local, int nlocal,
                     const ump_riov_t *remote, int nremote)
{
    static struct iovec l[CMA_IOV_BATCH], r[CMA_IOV_BATCH];
    struct cursor lc = {0, 0}, rc = {0, 0};
    _Static_assert(CMA_IOV_BATCH <= IOV_MAX, "batch above IOV_MAX");

    for (;;) {
        /* Skip empty or finished entries on both sides. */
        while (lc.idx < nlocal && lc.off == local[lc.idx].iov_len) {
            lc.idx++;
            lc.off = 0;
        }
        while (rc.idx < nremote && rc.off == remote[rc.idx].len) {
            rc.idx++;
            rc.off = 0;
        }
        if (lc.idx == nlocal || rc.idx == nremote) break;

        /* Build one batch from the cursors; both batches cover the same
         * number of bytes so a full transfer leaves both cursors aligned. */
        size_t lbytes = 0, rbytes = 0;
        int nl = 0, nr = 0;
        for (int i = lc.idx; i < nlocal && nl < CMA_IOV_BATCH; i++) {
            size_t off = i == lc.idx ? lc.off : 0;
            if (local[i].iov_len == off) continue;
            l[nl].iov_base = (char *)local[i].iov_base + off;
            l[nl].iov_len = local[i].iov_len - off;
            lbytes += l[nl++].iov_len;
        }
        for (int i = rc.idx; i < nremote && nr < CMA_IOV_BATCH; i++) {
            size_t off = i == rc.idx ? rc.off : 0;
            if (remote[i].len == off) continue;
            r[nr].iov_base = (void *)(uintptr_t)(remote[i].addr + off);
            r[nr].iov_len = remote[i].len - off;
            rbytes += r[nr++].iov_len;
        }
        /* Trim the longer side so the kernel sees equal totals. */
        size_t want = UMP_MIN(lbytes, rbytes);
        for (size_t sum = 0, i = 0; i < (size_t)nl; i++) {
            if (sum + l[i].iov_len >= want) {
                l[i].iov_len = want - sum;
                nl = (int)i + 1;
                break;
            }
            sum += l[i].iov_len;
        }
        for (size_t sum = 0, i = 0; i < (size_t)nr; i++) {
            if (sum + r[i].iov_len >= want) {
                r[i].iov_len = want - sum;
                nr = (int)i + 1;
                break;
            }
            sum += r[i].iov_len;
        }

        ssize_t n = write ? process_vm_writev(pid, l, (unsigned long)nl, r, (unsigned long)nr, 0)
                          : process_vm_readv(pid, l, (unsigned long)nl, r, (unsigned long)nr, 0);
        if (n < 0) {
            if (errno == EINTR) /* a signal before any byte moved: retry */
                continue;
            if (errno == EPERM || errno == ENOSYS || errno == EACCES) return UMP_ERR_UNSUPPORTED;
            if (errno == ESRCH) return UMP_ERR_PEER_DEAD;
            ump_error("shm: process_vm_%s with pid %d failed: %m", write ? "writev" : "readv",
                      (int)pid);
            return errno == EFAULT ? UMP_ERR_BUFFER : UMP_ERR_IO;
        }
        if (n == 0) {
            ump_error("shm: process_vm_%s with pid %d made no progress", write ? "writev" : "readv",
                      (int)pid);
            return UMP_ERR_IO;
        }
        /* Advance both cursors by n bytes (a partial read stops at a page
         * the kernel could not reach; we retry from there and fail on 0). */
        size_t left = (size_t)n;
        while (left) {
            size_t room = local[lc.idx].iov_len - lc.off;
            size_t step = UMP_MIN(room, left);
            lc.off += step;
            left -= step;
            if (lc.off == local[lc.idx].iov_len && left) {
                lc.idx++;
                lc.off = 0;
            }
        }
        left = (size_t)n;
        while (left) {
            size_t room = remote[rc.idx].len - rc.off;
            size_t step = UMP_MIN(room, left);
            rc.off += step;
            left -= step;
            if (rc.off == remote[rc.idx].len && left) {
                rc.idx++;
                rc.off = 0;
            }
        }
    }
    /* Both lists must end together. */
    if (lc.idx != nlocal || rc.idx != nremote) return UMP_ERR_INVALID;
    return UMP_OK;
}
