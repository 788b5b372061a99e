/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-node segment: created by the lowest local rank in open(), attached
 * by the others in wireup(); the last rank to attach removes the name so no
 * file outlives the job even if it crashes later.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "xport/shm/shm.h"

int ump_shm_seg_create(const char *name, int local_size, uint64_t ring_size, void **base,
                       size_t *len)
{
    size_t size = ump_shm_seg_size(local_size, ring_size);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        ump_error("shm: shm_open(%s) failed: %m", name);
        return UMP_ERR_IO;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        ump_error("shm: ftruncate(%s, %zu) failed: %m", name, size);
        goto err_unlink;
    }
    /* The file is sparse: a /dev/shm without room for it would show up
     * only when a ring is first written, as SIGBUS in the middle of a run.
     * Refuse now, naming the fix. */
    struct statvfs vfs;
    if (fstatvfs(fd, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < size) {
        ump_error("shm: /dev/shm has %llu KiB free, but the shared-memory segment of the %d "
                  "ranks on this node needs %zu KiB: make /dev/shm larger (mount -o "
                  "remount,size=... /dev/shm; docker run --shm-size=...), lower "
                  "UMP_SHM_RING_SIZE (now %llu), run fewer ranks per node, or leave shm out "
                  "(UMP_TRANSPORTS=tcp)",
                  (unsigned long long)vfs.f_bavail * vfs.f_frsize / 1024, local_size, size / 1024,
                  (unsigned long long)ring_size);
        goto err_unlink;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        ump_error("shm: mmap(%s, %zu) failed: %m", name, size);
        goto err_unlink;
    }
    close(fd);

    /* A fresh tmpfs file reads as zeros, which is every counter's and
     * fastbox's initial state; only the header needs writing, so untouched
     * rings cost no memory. */
    ump_shm_seg_hdr_t *h = p;
    h->local_size = (uint64_t)local_size;
    h->ring_size = ring_size;
    h->total_size = size;
    atomic_init(&h->attached, 1);
    atomic_thread_fence(memory_order_release);
    h->magic = UMP_SHM_MAGIC;
    *base = p;
    *len = size;
    return UMP_OK;

err_unlink:
    close(fd);
    shm_unlink(name);
    return UMP_ERR_IO;
}

int ump_shm_seg_attach(const char *name, int local_size, void **base, size_t *len)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        ump_error("shm: shm_open(%s) failed: %m", name);
        return UMP_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(ump_shm_seg_hdr_t)) {
        ump_error("shm: segment %s has a bad size", name);
        close(fd);
        return UMP_ERR_IO;
    }
    size_t size = (size_t)st.st_size;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        ump_error("shm: mmap(%s, %zu) failed: %m", name, size);
        return UMP_ERR_IO;
    }
    ump_shm_seg_hdr_t *h = p;
    if (h->magic != UMP_SHM_MAGIC || h->local_size != (uint64_t)local_size ||
        h->total_size != size || ump_shm_seg_size(local_size, h->ring_size) != size) {
        ump_error("shm: segment %s does not match this job (local size %d)", name, local_size);
        munmap(p, size);
        return UMP_ERR_IO;
    }
    if (atomic_fetch_add(&h->attached, 1) + 1 == local_size) {
        if (shm_unlink(name) != 0) ump_warn("shm: shm_unlink(%s) failed: %m", name);
    }
    *base = p;
    *len = size;
    return UMP_OK;
}
