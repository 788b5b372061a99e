/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Synchronisation of windows: fence, passive target (locks, flushes) and
 * post-start-complete-wait.
 *
 * Completion at the target rests on one fact: the target applies the
 * messages of one origin in the order they were sent (win_am.c). So any
 * reply (fetched data, a lock grant, the answer to a flush or unlock)
 * proves that every operation the origin sent before it was applied, and
 * a COMPLETE message counted by the target closes an access epoch. An
 * origin asks a target (a FLUSH) only when something went there since the
 * last reply, and asks every such target at once. A fence is that
 * completion of this rank's operations, then a barrier: past it, every
 * operation of the epoch, from every origin, is applied.
 *
 * A direct window (win_direct.c) needs none of that: its operations are
 * done when their calls return, so a fence is a memory fence and a
 * barrier, a flush a memory fence, and its locks are words in the shared
 * segment that the origin takes itself.
 */
#include <stdlib.h>

#include "mpi/win.h"

#define MODE_ALL                                                                                   \
    (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static int check_assert(MPI_Win w, const char *call, int assert)
{
    if (assert & ~MODE_ALL)
        return ump_win_error(w, MPI_ERR_ASSERT, call,
                             "assert %#x has bits that are no MPI_MODE_* assertion", assert);
    return MPI_SUCCESS;
}

/* Remote completion at `rank`: asks the target only when something went
 * to it that no reply has proven applied; the question's reply is waited
 * for with everything else in flight (ump_win_pend_wait). */
static int flush_ask(MPI_Win w, int rank)
{
    if (w->direct || !w->unproven[rank]) return MPI_SUCCESS;
    return ump_win_ctrl(w, rank, UMP_WIN_FLUSH, 0, UMP_WIN_REPLY_PEND);
}

/* Waits for what flush_ask left in flight; a direct window's operations
 * are done when their calls return, so a memory fence orders them (none
 * when no operation ran since the last). */
static int flush_wait(MPI_Win w)
{
    if (w->direct_since) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        w->direct_since = false;
    }
    return w->npend || w->batch_replies ? ump_win_pend_wait(w) : MPI_SUCCESS;
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_fence";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_assert(win, call, assert);
    if (rc) return rc;
    if (win->nlocked || win->start_group || win->post_group)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "a lock or post/start epoch is open on this window");
    /* This rank's operations complete at their targets: asked where no
     * reply proved it (every target at once), or already done (direct). */
    int bad = -1;
    for (int r = 0; r < win->size && rc == MPI_SUCCESS; r++)
        if ((rc = flush_ask(win, r)) != MPI_SUCCESS) bad = r;
    int rc2 = flush_wait(win);
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot reach rank %d", bad);
    if (rc2 != MPI_SUCCESS) return ump_win_error(win, rc2, call, "an operation failed");
    /* Once every rank is past that, every operation of the epoch is
     * applied; the memory fences make a direct window's stores seen. */
    rc = PMPI_Barrier(win->comm);
    if (win->direct) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (rc != MPI_SUCCESS) return rc;
    win->epoch = (assert &MPI_MODE_NOSUCCEED) ? UMP_WIN_EPOCH_NONE : UMP_WIN_EPOCH_FENCE;
    return MPI_SUCCESS;
}

/* --- passive target ------------------------------------------------------------------ */

static int check_rank(MPI_Win w, const char *call, int rank)
{
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w->size)) return MPI_SUCCESS;
    return ump_win_error(w, MPI_ERR_RANK, call, "rank %d is out of range [0, %d)", rank, w->size);
}

/* Takes the lock at the target, unless MPI_MODE_NOCHECK says no other
 * process holds or asks for a conflicting one meanwhile: then the epoch
 * opens at once, with no message and no lock word taken. */
static int lock_one(MPI_Win w, int rank, int lock_type, int mode, ump_win_reply_t reply)
{
    int rc = MPI_SUCCESS;
    bool nocheck = mode & MPI_MODE_NOCHECK;
    if (!nocheck && w->direct)
        ump_win_direct_lock(w, rank, lock_type);
    else if (!nocheck)
        rc = ump_win_ctrl(w, rank, UMP_WIN_LOCK, lock_type, reply);
    if (rc != MPI_SUCCESS) return rc;
    w->locked[rank] = (uint8_t)lock_type;
    w->nocheck[rank] = nocheck;
    w->nlocked++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_lock";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_assert(win, call, assert);
    if (!rc) rc = check_rank(win, call, rank);
    if (rc) return rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return ump_win_error(win, MPI_ERR_LOCKTYPE, call,
                             "lock_type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
                             lock_type);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (win->lock_all || win->locked[rank])
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call, "rank %d is already locked", rank);
    rc = lock_one(win, rank, lock_type, assert, UMP_WIN_REPLY_WAIT);
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot lock rank %d", rank);
    return MPI_SUCCESS;
}

/* Ends the epoch at `rank`, its reply (if any) kept in flight. */
static int unlock_one(MPI_Win w, int rank)
{
    int rc = MPI_SUCCESS;
    if (w->nocheck[rank]) {
        /* No lock to give back: the operations must only be complete. */
        if (w->direct) __atomic_thread_fence(__ATOMIC_SEQ_CST);
        rc = flush_ask(w, rank);
    } else if (w->direct) {
        /* The operations are done; the release orders them before the
         * lock is seen free. */
        ump_win_direct_unlock(w, rank, w->locked[rank]);
    } else {
        rc = ump_win_ctrl(w, rank, UMP_WIN_UNLOCK, 0, UMP_WIN_REPLY_PEND);
    }
    w->locked[rank] = 0;
    w->nocheck[rank] = 0;
    w->nlocked--;
    return rc;
}

/* Unlocks `rank` (every rank when -1) once what is in flight completed:
 * on the message path the unlocks go at once behind the operations (the
 * target applies them in order) and every answer is waited for together;
 * a direct window's operations are already done. */
static int unlock_all_pending(MPI_Win w, int rank)
{
    /* The target never saw the gets this origin read itself: they end
     * before the lock goes back (win.h, UMP_WIN_READ_MIN). */
    int rc = w->direct || w->reads ? ump_win_pend_wait(w) : MPI_SUCCESS;
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++) {
        int rc2 = unlock_one(w, r);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    int rc2 = ump_win_pend_wait(w);
    return rc == MPI_SUCCESS ? rc2 : rc;
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char call[] = "MPI_Win_unlock";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_rank(win, call, rank);
    if (rc || rank == MPI_PROC_NULL) return rc;
    if (win->lock_all || !win->locked[rank])
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "rank %d is not locked by MPI_Win_lock on this window", rank);
    rc = unlock_all_pending(win, rank);
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot unlock rank %d", rank);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_lock_all";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_assert(win, call, assert);
    if (rc) return rc;
    if (win->nlocked)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call, "a lock is already held on this window");
    /* Every request at once; the grants are waited for together. */
    for (int r = 0; r < win->size; r++) {
        rc = lock_one(win, r, MPI_LOCK_SHARED, assert, UMP_WIN_REPLY_PEND);
        if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot lock rank %d", r);
    }
    rc = ump_win_pend_wait(win);
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot lock every rank");
    win->lock_all = true;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char call[] = "MPI_Win_unlock_all";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!win->lock_all)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call, "no MPI_Win_lock_all epoch is open");
    int rc = unlock_all_pending(win, -1);
    win->lock_all = false;
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot unlock every rank");
    return MPI_SUCCESS;
}

static int flush(MPI_Win w, const char *call, int rank, bool remote)
{
    int rc = check_rank(w, call, rank);
    if (rc || rank == MPI_PROC_NULL) return rc;
    if (!w->locked[rank])
        return ump_win_error(w, MPI_ERR_RMA_SYNC, call,
                             "rank %d is not locked (flushes belong to passive target epochs)",
                             rank);
    if (remote) rc = flush_ask(w, rank);
    int rc2 = flush_wait(w);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc != MPI_SUCCESS) return ump_win_error(w, rc, call, "cannot flush rank %d", rank);
    return MPI_SUCCESS;
}

/* Every locked target asked at once, the answers waited for together. */
static int flush_all(MPI_Win w, const char *call, bool remote)
{
    if (!w->nlocked)
        return ump_win_error(w, MPI_ERR_RMA_SYNC, call,
                             "no rank is locked (flushes belong to passive target epochs)");
    int rc = MPI_SUCCESS, bad = -1;
    for (int r = 0; remote && r < w->size && rc == MPI_SUCCESS; r++)
        if (w->locked[r] && (rc = flush_ask(w, r)) != MPI_SUCCESS) bad = r;
    int rc2 = flush_wait(w);
    if (rc != MPI_SUCCESS) return ump_win_error(w, rc, call, "cannot flush rank %d", bad);
    if (rc2 != MPI_SUCCESS) return ump_win_error(w, rc2, call, "cannot flush every locked rank");
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    static const char call[] = "MPI_Win_flush";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    return flush(win, call, rank, true);
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    static const char call[] = "MPI_Win_flush_all";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    return flush_all(win, call, true);
}

/* Local completion: the origin buffers may be reused and fetched data
 * have arrived: the sends done (a large put's data among them, sent from
 * the origin's buffer) and the replies in. */
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    static const char call[] = "MPI_Win_flush_local";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    return flush(win, call, rank, false);
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    static const char call[] = "MPI_Win_flush_local_all";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    return flush_all(win, call, false);
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    static const char call[] = "MPI_Win_sync";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    /* Unified model: one copy of the window; order this process's
     * accesses and let pending operations land. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    ump_progress();
    return MPI_SUCCESS;
}

/* --- post, start, complete, wait ---------------------------------------------------- */

/* Window ranks of a group's members; NULL (error raised) when one is not in the window. */
static int *group_ranks(MPI_Win w, const char *call, MPI_Group g, int *n, int *rc)
{
    *rc = MPI_SUCCESS;
    if (!ump_mpi_group_ok(g) || g == MPI_GROUP_NULL) {
        *rc = ump_win_error(w, MPI_ERR_GROUP, call, "invalid group");
        return NULL;
    }
    int *r = malloc(sizeof(int) * (size_t)(g->size ? g->size : 1));
    if (!r) {
        *rc = ump_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
        return NULL;
    }
    for (int i = 0; i < g->size; i++) {
        r[i] = ump_mpi_group_rank_of(w->comm->group, g->world[i]);
        if (r[i] == MPI_UNDEFINED) {
            free(r);
            *rc = ump_win_error(w, MPI_ERR_GROUP, call,
                                "group member %d (world rank %d) is not in the window", i,
                                g->world[i]);
            return NULL;
        }
    }
    *n = g->size;
    return r;
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_post";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_assert(win, call, assert);
    if (rc) return rc;
    if (win->post_group)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "an exposure epoch is already open (MPI_Win_wait first)");
    int n = 0, *r = group_ranks(win, call, group, &n, &rc);
    if (!r) return rc;
    win->post_group = r;
    win->npost = n;
    /* This rank's stores to a direct window are seen before the POST. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < n; i++) {
        rc = ump_win_ctrl(win, r[i], UMP_WIN_POST, 0, UMP_WIN_REPLY_NONE);
        if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot reach rank %d", r[i]);
    }
    return MPI_SUCCESS;
}

static bool posts_seen(MPI_Win w)
{
    for (int i = 0; i < w->nstart; i++)
        if (w->post_seen[w->start_group[i]] <= 0) return false;
    return true;
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_start";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    int rc = check_assert(win, call, assert);
    if (rc) return rc;
    if (win->start_group)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "an access epoch is already open (MPI_Win_complete first)");
    int n = 0, *r = group_ranks(win, call, group, &n, &rc);
    if (!r) return rc;
    win->start_group = r;
    win->nstart = n;
    /* Operations may go only once every target opened its exposure
     * epoch (MPI_MODE_NOCHECK included: the POST message is consumed
     * either way, so later epochs stay matched). */
    ump_win_progress_until(win, posts_seen);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < n; i++)
        win->post_seen[r[i]]--;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    static const char call[] = "MPI_Win_complete";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!win->start_group)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "no access epoch is open (MPI_Win_start first)");
    int rc = ump_win_pend_wait(win);
    /* A direct window's stores are seen before the COMPLETE message. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < win->nstart && rc == MPI_SUCCESS; i++)
        rc = ump_win_ctrl(win, win->start_group[i], UMP_WIN_COMPLETE, 0, UMP_WIN_REPLY_NONE);
    free(win->start_group);
    win->start_group = NULL;
    win->nstart = 0;
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot complete the epoch");
    return MPI_SUCCESS;
}

static bool completes_seen(MPI_Win w)
{
    return w->completes >= w->npost;
}

static void end_exposure(MPI_Win w)
{
    w->completes -= w->npost;
    free(w->post_group);
    w->post_group = NULL;
    w->npost = 0;
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    static const char call[] = "MPI_Win_wait";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!win->post_group)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "no exposure epoch is open (MPI_Win_post first)");
    ump_win_progress_until(win, completes_seen);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    end_exposure(win);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char call[] = "MPI_Win_test";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (!flag) return ump_win_error(win, MPI_ERR_ARG, call, "flag is NULL");
    if (!win->post_group)
        return ump_win_error(win, MPI_ERR_RMA_SYNC, call,
                             "no exposure epoch is open (MPI_Win_post first)");
    ump_progress();
    *flag = completes_seen(win);
    if (*flag) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        end_exposure(win);
    }
    return MPI_SUCCESS;
}
