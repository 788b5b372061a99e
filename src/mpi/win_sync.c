/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Synchronisation of windows: fence, passive target (locks, flushes) and
 * post-start-complete-wait.
 *
 * Completion at the target rests on one fact: the target applies the
 * messages of one origin in the order they were sent (win_am.c). So a
 * control message answered by the target (flush, unlock) proves that
 * every operation the origin sent before it was applied, and a COMPLETE
 * message counted by the target closes an access epoch. A fence instead
 * counts: every origin says how many operations it sent to each target
 * (one reduce-scatter), each target drives progress until it applied
 * that many, and a barrier keeps the next epoch's operations out until
 * every target is done.
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

static bool fence_applied(MPI_Win w)
{
    return w->applied_counted >= w->expect_counted;
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
    rc = ump_win_batch_send_all(win);
    if (rc == MPI_SUCCESS) rc = ump_win_pend_wait(win);
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "an operation failed");
    if (win->direct) {
        /* Every operation is done at its target already: make this
         * rank's stores visible, wait for the others', see theirs. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        rc = PMPI_Barrier(win->comm);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (rc != MPI_SUCCESS) return rc;
        win->epoch = (assert &MPI_MODE_NOSUCCEED) ? UMP_WIN_EPOCH_NONE : UMP_WIN_EPOCH_FENCE;
        return MPI_SUCCESS;
    }
    unsigned expected = 0;
    rc = PMPI_Reduce_scatter_block(win->fence_sent, &expected, 1, MPI_UNSIGNED, MPI_SUM, win->comm);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < win->size; i++)
        win->fence_sent[i] = 0;
    win->expect_counted += expected;
    ump_win_progress_until(win, fence_applied);
    rc = PMPI_Barrier(win->comm);
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
static int lock_one(MPI_Win w, int rank, int lock_type, int mode)
{
    int rc = MPI_SUCCESS;
    bool nocheck = mode & MPI_MODE_NOCHECK;
    if (nocheck)
        ;
    else if (w->direct)
        ump_win_direct_lock(w, rank, lock_type);
    else
        rc = ump_win_ctrl(w, rank, UMP_WIN_LOCK, lock_type, true);
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
    rc = lock_one(win, rank, lock_type, assert);
    if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot lock rank %d", rank);
    return MPI_SUCCESS;
}

static int unlock_one(MPI_Win w, int rank)
{
    int rc = MPI_SUCCESS;
    if (w->nocheck[rank]) {
        /* No lock to give back: the operations must only be complete. */
        if (w->direct)
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
        else if (w->unproven[rank])
            rc = ump_win_ctrl(w, rank, UMP_WIN_FLUSH, 0, true);
    } else if (w->direct) {
        /* The operations are done; the release orders them before the
         * lock is seen free. */
        ump_win_direct_unlock(w, rank, w->locked[rank]);
    } else {
        rc = ump_win_ctrl(w, rank, UMP_WIN_UNLOCK, 0, true);
    }
    w->locked[rank] = 0;
    w->nocheck[rank] = 0;
    w->nlocked--;
    return rc;
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
    rc = ump_win_pend_wait(win);
    int rc2 = unlock_one(win, rank);
    if (rc == MPI_SUCCESS) rc = rc2;
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
    for (int r = 0; r < win->size; r++) {
        rc = lock_one(win, r, MPI_LOCK_SHARED, assert);
        if (rc != MPI_SUCCESS) return ump_win_error(win, rc, call, "cannot lock rank %d", r);
    }
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
    int rc = ump_win_pend_wait(win);
    for (int r = 0; r < win->size; r++) {
        int rc2 = unlock_one(win, r);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
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
    rc = ump_win_pend_wait(w);
    /* A direct window's operations are done when their calls return. */
    if (w->direct)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else if (rc == MPI_SUCCESS && remote && w->unproven[rank])
        rc = ump_win_ctrl(w, rank, UMP_WIN_FLUSH, 0, true);
    if (rc != MPI_SUCCESS) return ump_win_error(w, rc, call, "cannot flush rank %d", rank);
    return MPI_SUCCESS;
}

static int flush_all(MPI_Win w, const char *call, bool remote)
{
    if (!w->nlocked)
        return ump_win_error(w, MPI_ERR_RMA_SYNC, call,
                             "no rank is locked (flushes belong to passive target epochs)");
    for (int r = 0; r < w->size; r++) {
        if (!w->locked[r]) continue;
        int rc = flush(w, call, r, remote);
        if (rc) return rc;
    }
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
 * have arrived; every message is a copy, so that is the sends done. */
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
        rc = ump_win_ctrl(win, r[i], UMP_WIN_POST, 0, false);
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
        rc = ump_win_ctrl(win, win->start_group[i], UMP_WIN_COMPLETE, 0, false);
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
