/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct windows: one-sided operations done by the origin itself with
 * loads and stores, on a window whose parts all lie in one shared segment
 * (MPI_Win_allocate_shared, and MPI_Win_allocate on one node; win_shm.c).
 *
 * Nothing is sent and the target's progress is never needed: Put and Get
 * copy between the origin layout and the target layout's runs at once,
 * so every operation is complete at the target when its call returns
 * (which is what makes fences and flushes a memory fence, win_sync.c).
 * Accumulates to one rank (Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap) hold that rank's spinlock, kept in the segment, for
 * their read-modify-write: atomic with respect to each other, whichever
 * process or thread issues them (MPI 3.1 11.7.1). Put and Get take no
 * lock, as the standard gives them no atomicity.
 *
 * The passive-target lock of a rank is a word in the segment too: the
 * exclusive holder's mark, or the count of shared holders, changed by
 * compare-and-swap, so locking needs nothing from the target either.
 */
#include <sched.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/win.h"
#include "util/util.h"

enum { LOCK_EXCL = 1u << 31 };

/* Waits a little, politely: the holder may share our core. */
static void backoff(unsigned *spins)
{
    if (++*spins < 64)
        ump_cpu_relax();
    else
        sched_yield();
}

static void acc_lock(uint32_t *l)
{
    unsigned spins = 0;
    for (;;) {
        if (!__atomic_load_n(l, __ATOMIC_RELAXED) && !__atomic_exchange_n(l, 1u, __ATOMIC_ACQUIRE))
            return;
        backoff(&spins);
    }
}

static void acc_unlock(uint32_t *l)
{
    __atomic_store_n(l, 0u, __ATOMIC_RELEASE);
}

static bool try_lock(uint32_t *l, int lock_type)
{
    uint32_t v = __atomic_load_n(l, __ATOMIC_RELAXED);
    if (lock_type == MPI_LOCK_EXCLUSIVE)
        return v == 0 && __atomic_compare_exchange_n(l, &v, (uint32_t)LOCK_EXCL, false,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    return !(v & LOCK_EXCL) &&
           __atomic_compare_exchange_n(l, &v, v + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void ump_win_direct_lock(MPI_Win w, int r, int lock_type)
{
    uint32_t *l = &w->ctl[r].lock;
    unsigned spins = 0;
    /* Progress meanwhile: the holder may be waiting for a message of ours
     * (a post/start epoch, a collective) before it unlocks. */
    while (!try_lock(l, lock_type)) {
        if (spins > 64 && ump_progress() > 0) continue;
        backoff(&spins);
    }
}

void ump_win_direct_unlock(MPI_Win w, int r, int lock_type)
{
    uint32_t *l = &w->ctl[r].lock;
    if (lock_type == MPI_LOCK_EXCLUSIVE)
        __atomic_store_n(l, 0u, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(l, 1u, __ATOMIC_RELEASE);
}

/* Copies the target layout's stream between `s` and the target memory. */
static void runs_copy(const ump_win_direct_op_t *d, char *s, bool to_target)
{
    for (size_t i = 0; i < d->nruns; i++) {
        char *p = d->tbase + d->runs[i].off;
        if (to_target)
            memcpy(p, s, d->runs[i].len);
        else
            memcpy(s, p, d->runs[i].len);
        s += d->runs[i].len;
    }
}

/* A scratch stream of len bytes, aligned for any element type (long
 * double wants 16): the small one when it fits. */
enum { SMALL = 256 };
static char *scratch(char *small, size_t len)
{
    return len <= SMALL ? small : aligned_alloc(16, (len + 15) & ~(size_t)15);
}

static void scratch_free(char *small, char *p)
{
    if (p != small) free(p);
}

static int put(const ump_win_direct_op_t *d)
{
    /* One run: pack straight into the target. */
    if (d->nruns == 1) {
        ump_dt_pack(d->oaddr, (size_t)d->ocount, d->odt, 0, d->tbase + d->runs[0].off, d->tbytes);
        return MPI_SUCCESS;
    }
    alignas(16) char small[SMALL];
    char *s = scratch(small, d->tbytes);
    if (!s) return MPI_ERR_NO_MEM;
    ump_dt_pack(d->oaddr, (size_t)d->ocount, d->odt, 0, s, d->tbytes);
    runs_copy(d, s, true);
    scratch_free(small, s);
    return MPI_SUCCESS;
}

static int get(const ump_win_direct_op_t *d)
{
    if (d->nruns == 1) {
        ump_dt_unpack(d->raddr, (size_t)d->rcount, d->rdt, 0, d->tbase + d->runs[0].off, d->tbytes);
        return MPI_SUCCESS;
    }
    alignas(16) char small[SMALL];
    char *s = scratch(small, d->tbytes);
    if (!s) return MPI_ERR_NO_MEM;
    runs_copy(d, s, false);
    ump_dt_unpack(d->raddr, (size_t)d->rcount, d->rdt, 0, s, d->tbytes);
    scratch_free(small, s);
    return MPI_SUCCESS;
}

/* Where the origin's elements lie as the target layout's stream, when
 * the reduction can read them there and work on the target's one run in
 * place: both aligned for the element type, not overlapping; else NULL. */
static const char *in_place(const ump_win_direct_op_t *d)
{
    if (d->nruns != 1 || !ump_dt_is_contig(d->odt)) return NULL;
    const char *o = (const char *)d->oaddr + ump_dt_true_lb(d->odt);
    const char *t = d->tbase + d->runs[0].off;
    size_t sz = d->basic->size, align = sz & -sz;
    if (align > 16) align = 16;
    if ((uintptr_t)o % align || (uintptr_t)t % align) return NULL;
    if (o < t + d->tbytes && t < o + d->tbytes) return NULL;
    return o;
}

/* Accumulate and Get_accumulate, under the target's accumulate lock. */
static int accumulate(MPI_Win w, int target, const ump_win_direct_op_t *d, bool fetch)
{
    bool noop = d->redop == MPI_NO_OP, replace = d->redop == MPI_REPLACE;
    if (noop && !fetch) return MPI_SUCCESS;
    const char *in = noop || replace ? NULL : in_place(d);
    if (in) {
        /* One run on each side: no stream of either is made. */
        char *p = d->tbase + d->runs[0].off;
        uint32_t *l = &w->ctl[target].acc;
        acc_lock(l);
        if (fetch) ump_dt_unpack(d->raddr, (size_t)d->rcount, d->rdt, 0, p, d->tbytes);
        PMPI_Reduce_local(in, p, (int)(d->tbytes / d->basic->size), d->basic, d->redop);
        acc_unlock(l);
        return MPI_SUCCESS;
    }
    alignas(16) char small_o[SMALL], small_t[SMALL];
    char *o = NULL, *t = NULL;
    /* The origin's data and the target's old values as streams, made
     * before the lock is taken where they can be. */
    if (!noop && !(o = scratch(small_o, d->tbytes))) return MPI_ERR_NO_MEM;
    if ((fetch || !replace) && !(t = scratch(small_t, d->tbytes))) {
        if (o) scratch_free(small_o, o);
        return MPI_ERR_NO_MEM;
    }
    if (o) ump_dt_pack(d->oaddr, (size_t)d->ocount, d->odt, 0, o, d->tbytes);
    uint32_t *l = &w->ctl[target].acc;
    acc_lock(l);
    if (t) runs_copy(d, t, false);
    if (fetch) ump_dt_unpack(d->raddr, (size_t)d->rcount, d->rdt, 0, t, d->tbytes);
    if (replace) {
        runs_copy(d, o, true);
    } else if (!noop) {
        PMPI_Reduce_local(o, t, (int)(d->tbytes / d->basic->size), d->basic, d->redop);
        runs_copy(d, t, true);
    }
    acc_unlock(l);
    if (o) scratch_free(small_o, o);
    if (t) scratch_free(small_t, t);
    return MPI_SUCCESS;
}

static int cas(MPI_Win w, int target, const ump_win_direct_op_t *d)
{
    /* One predefined element, so one run. */
    char *p = d->tbase + d->runs[0].off;
    alignas(16) char old[64];
    size_t n = d->tbytes;
    if (n > sizeof(old)) return MPI_ERR_TYPE;
    uint32_t *l = &w->ctl[target].acc;
    acc_lock(l);
    memcpy(old, p, n);
    if (memcmp(old, d->compare, n) == 0) memcpy(p, d->oaddr, n);
    acc_unlock(l);
    memcpy(d->raddr, old, n);
    return MPI_SUCCESS;
}

int ump_win_direct_op(MPI_Win w, int target, const ump_win_direct_op_t *d)
{
    switch (d->op) {
    case UMP_WIN_PUT:
        return put(d);
    case UMP_WIN_GET:
        return get(d);
    case UMP_WIN_ACC:
        return accumulate(w, target, d, false);
    case UMP_WIN_GACC:
        return accumulate(w, target, d, true);
    case UMP_WIN_CAS:
        return cas(w, target, d);
    default:
        return MPI_ERR_INTERN;
    }
}
