/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unmap monitor: userfaultfd in its non-cooperative mode.
 *
 * Every region a cache keeps is registered with one userfaultfd of the
 * process in write-protect mode. We never write-protect a page, so no
 * access to the memory ever faults into us; the registration only makes
 * the kernel report what happens to the mapping: UFFD_EVENT_UNMAP
 * (munmap, brk shrinking, and free() of an mmap'd chunk), UFFD_EVENT_REMOVE
 * (madvise DONTNEED/REMOVE, as malloc uses when it trims) and
 * UFFD_EVENT_REMAP (mremap). The kernel makes the thread that changed
 * the mapping wait until the event has been read, and the watch dies with
 * the mapping, so memory mapped again later is not watched until a cache
 * registers it again.
 *
 * A thread of ours reads the events (the thread that unmaps is blocked
 * until somebody does, so it cannot be the core's). It must not take the
 * core's lock (a thread holding it may be the one blocked in munmap), nor
 * malloc (free could unmap watched memory and wait for us), so it only
 * appends ranges to a fixed ring that the caches drain under the core's
 * lock before every lookup. The race that remains is closed by `busy`:
 * the thread raises it before every read() and lowers it after the ranges
 * read are in the ring; the unmapping thread resumes only inside a read(),
 * so by the time its munmap returned, `busy` is up or its range is in the
 * ring, and a drain that waits for `busy` to fall sees it.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem/mem_int.h"
#include "util/util.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define RING 4096 /* ranges held between two drains; more and caches flush */

static struct {
    int state; /* 0 not tried, 1 running, -1 unavailable */
    int fd;
    uintptr_t page; /* the page size */
    int stop[2];    /* a pipe whose write end stops the thread */
    pthread_t thread;
    atomic_int busy;
    atomic_bool lost;
    _Atomic uint64_t head; /* ranges written by the thread */
    _Atomic uint64_t tail; /* ranges drained (under the core's lock); read by the thread */
    struct {
        uintptr_t start, end;
    } ring[RING];
} mon = {.fd = -1, .stop = {-1, -1}};

static void push(uintptr_t start, uintptr_t end)
{
    uint64_t h = atomic_load_explicit(&mon.head, memory_order_relaxed);
    /* Acquire: the drain has read the slots below tail before it moved it. */
    if (h - atomic_load_explicit(&mon.tail, memory_order_acquire) >= RING) {
        /* tail may lag: the drain side reads `lost` after the ring, and a
         * lost range makes it drop everything, which is always safe. */
        atomic_store(&mon.lost, true);
        return;
    }
    mon.ring[h % RING].start = start;
    mon.ring[h % RING].end = end;
    atomic_store_explicit(&mon.head, h + 1, memory_order_release);
}

static void handle(const struct uffd_msg *m)
{
    switch (m->event) {
    case UFFD_EVENT_UNMAP:
    case UFFD_EVENT_REMOVE:
        push((uintptr_t)m->arg.remove.start, (uintptr_t)m->arg.remove.end);
        break;
    case UFFD_EVENT_REMAP:
        /* The old range is gone; the new one is not watched. */
        push((uintptr_t)m->arg.remap.from, (uintptr_t)(m->arg.remap.from + m->arg.remap.len));
        break;
    case UFFD_EVENT_PAGEFAULT: {
        /* Only write-protected pages fault in this mode and we protect
         * none; should one arrive anyway, let the faulting thread go on by
         * no longer watching that page (this wakes it). */
        uintptr_t page = (uintptr_t)m->arg.pagefault.address & ~(mon.page - 1);
        struct uffdio_range r = {.start = page, .len = mon.page};
        ioctl(mon.fd, UFFDIO_UNREGISTER, &r);
        push(page, page + mon.page);
        break;
    }
    default:
        break;
    }
}

static void *monitor_main(void *arg)
{
    (void)arg;
    struct uffd_msg msgs[32];
    for (;;) {
        struct pollfd p[2] = {{.fd = mon.fd, .events = POLLIN},
                              {.fd = mon.stop[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0) continue; /* EINTR: signals are blocked, but be safe */
        if (p[1].revents) return NULL;
        if (p[0].revents & (POLLERR | POLLNVAL)) return NULL;
        atomic_store(&mon.busy, 1);
        for (;;) {
            ssize_t n = read(mon.fd, msgs, sizeof(msgs));
            if (n <= 0) break; /* EAGAIN: everything queued has been read */
            for (size_t i = 0; i < (size_t)n / sizeof(msgs[0]); i++)
                handle(&msgs[i]);
        }
        atomic_store(&mon.busy, 0);
    }
}

static int open_uffd(void)
{
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    /* Unprivileged processes may only watch their user-mode faults (the
     * default since Linux 5.11 lets them do that much), which is all we
     * need: the events come either way. */
    if (fd < 0 && (errno == EPERM || errno == EACCES))
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    return fd;
}

int ump_mem_monitor_start(void)
{
    if (mon.state) return mon.state > 0 ? UMP_OK : UMP_ERR_UNSUPPORTED;
    mon.state = -1;
    mon.page = (uintptr_t)sysconf(_SC_PAGESIZE);
    mon.fd = open_uffd();
    if (mon.fd < 0) {
        ump_info("registration cache off: userfaultfd is not available (%m); "
                 "every rendezvous registers its buffers afresh");
        return UMP_ERR_UNSUPPORTED;
    }
    uint64_t need = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
                    UFFD_FEATURE_EVENT_REMAP | UFFD_FEATURE_PAGEFAULT_FLAG_WP;
    struct uffdio_api api = {.api = UFFD_API, .features = need & ~UFFD_FEATURE_PAGEFAULT_FLAG_WP};
    if (ioctl(mon.fd, UFFDIO_API, &api) != 0 || (api.features & need) != need) {
        ump_info("registration cache off: this kernel's userfaultfd lacks unmap events or "
                 "write-protect mode (features %#llx)",
                 (unsigned long long)api.features);
        goto err_fd;
    }
    if (pipe2(mon.stop, O_CLOEXEC) != 0) {
        ump_info("registration cache off: pipe: %m");
        goto err_fd;
    }
    /* The thread takes no signal meant for the application. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&mon.thread, NULL, monitor_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        ump_info("registration cache off: cannot start its monitor thread: %s", strerror(rc));
        goto err_pipe;
    }
    mon.state = 1;
    return UMP_OK;

err_pipe:
    close(mon.stop[0]);
    close(mon.stop[1]);
    mon.stop[0] = mon.stop[1] = -1;
err_fd:
    close(mon.fd);
    mon.fd = -1;
    return UMP_ERR_UNSUPPORTED;
}

int ump_mem_monitor_watch(uintptr_t start, size_t len)
{
    if (mon.state <= 0) return UMP_ERR_UNSUPPORTED;
    struct uffdio_register r = {.range = {.start = start, .len = len},
                                .mode = UFFDIO_REGISTER_MODE_WP};
    if (ioctl(mon.fd, UFFDIO_REGISTER, &r) != 0) {
        /* EINVAL: a file mapping or hugetlbfs the kernel cannot watch;
         * ENOMEM: a hole in the range; EBUSY: another userfaultfd has it. */
        ump_debug("registration cache: cannot watch %#lx+%zu (%m); not caching it",
                  (unsigned long)start, len);
        return UMP_ERR_UNSUPPORTED;
    }
    return UMP_OK;
}

bool ump_mem_monitor_drain(void (*fn)(void *arg, uintptr_t start, uintptr_t end), void *arg)
{
    if (mon.state <= 0) return true;
    /* An unmap that has returned to its caller is in the ring once busy
     * falls (see the top of this file); the wait is as long as the
     * thread takes to copy a few ranges. */
    while (atomic_load(&mon.busy))
        sched_yield();
    uint64_t h = atomic_load_explicit(&mon.head, memory_order_acquire);
    uint64_t t = atomic_load_explicit(&mon.tail, memory_order_relaxed);
    for (; t != h; t++)
        fn(arg, mon.ring[t % RING].start, mon.ring[t % RING].end);
    atomic_store_explicit(&mon.tail, t, memory_order_release);
    return !atomic_exchange(&mon.lost, false);
}

void ump_mem_monitor_stop(void)
{
    if (mon.state > 0) {
        ssize_t w;
        do
            w = write(mon.stop[1], "x", 1);
        while (w < 0 && errno == EINTR);
        pthread_join(mon.thread, NULL);
        close(mon.stop[0]);
        close(mon.stop[1]);
        mon.stop[0] = mon.stop[1] = -1;
        /* Closing the descriptor drops every watch. */
        close(mon.fd);
        mon.fd = -1;
        atomic_store(&mon.head, 0);
        atomic_store(&mon.tail, 0);
        atomic_store(&mon.lost, false);
    }
    mon.state = 0;
}

const char *ump_mem_monitor_name(void)
{
    return mon.state > 0 ? "userfaultfd" : "none";
}
