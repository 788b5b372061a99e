/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_int.h - inside src/mem: the unmap monitor the caches share.
 *
 * One monitor per process (mem_monitor.c). A cache asks it to watch each
 * region it keeps; the monitor records every range of watched memory the
 * process unmaps, remaps or discards, and a cache drains those ranges
 * before each lookup (ump_mem_monitor_drain). The monitor guarantees that
 * a range unmapped before the drain began is in the drain: a buffer freed
 * and allocated again at the same address is never found in the cache.
 */
#ifndef UMP_MEM_INT_H
#define UMP_MEM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Starts the monitor (once per process; later calls return the first
 * result): UMP_OK, or UMP_ERR_UNSUPPORTED when the kernel refuses
 * userfaultfd (logged at info with the reason). */
int ump_mem_monitor_start(void);
/* Watches the page-aligned [start, start+len): UMP_OK, or
 * UMP_ERR_UNSUPPORTED when this memory cannot be watched (a file mapping,
 * a hole); such a region must not be cached. */
int ump_mem_monitor_watch(uintptr_t start, size_t len);
/* Calls fn(arg, start, end) for every range unmapped since the last drain.
 * Returns false when ranges were lost (the ring overflowed): the caller
 * must then drop everything it caches. */
bool ump_mem_monitor_drain(void (*fn)(void *arg, uintptr_t start, uintptr_t end), void *arg);
/* Stops the thread and closes the descriptor (after the last cache went). */
void ump_mem_monitor_stop(void);
/* "userfaultfd" when running, else "none". */
const char *ump_mem_monitor_name(void);

#endif /* UMP_MEM_INT_H */
