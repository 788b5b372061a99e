/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * win.h - MPI windows (one-sided communication), shared by win*.c.
 *
 * Every operation is an active message: the origin sends one message
 * (header, the target layout as (offset, length) runs, the data) on the
 * window's private communicator, a duplicate of the one it was created
 * on, so RMA traffic never matches user messages; the target applies it
 * from a progress hook (win_am.c), one message at a time in arrival
 * order, which makes accumulates atomic per element and keeps the order
 * of the operations of one origin. Replies (get data, fetched values,
 * lock grants, flush acknowledgements) come back on tags the origin
 * chose per operation.
 *
 * Threads: the window state is touched by the MPI calls and by the hook,
 * which runs inside the core's progress under the core's lock; see
 * UMP_WIN_GUARD below for MPI_THREAD_MULTIPLE.
 */
#ifndef UMP_MPI_WIN_H
#define UMP_MPI_WIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi/mpi_impl.h"

enum { UMP_MPI_MAGIC_WIN = 0x77696e64 /* "wind" */ };

/* Message kinds (header op). */
enum {
    UMP_WIN_PUT = 1,
    UMP_WIN_GET,
    UMP_WIN_ACC,
    UMP_WIN_GACC, /* get_accumulate, fetch_and_op */
    UMP_WIN_CAS,
    UMP_WIN_LOCK,
    UMP_WIN_UNLOCK,
    UMP_WIN_FLUSH,
    UMP_WIN_POST,     /* target -> origin: exposure epoch opened */
    UMP_WIN_COMPLETE, /* origin -> target: access epoch closed */
    UMP_WIN_BATCH,    /* several of the above, each 8-byte aligned, as its data */
};
/* Small operations wait in a per-target batch until the next operation or
 * control message to that target, a synchronisation call, or a full batch
 * sends them as one message (win_batch.c). Over tcp a message costs a
 * system call of some microseconds, so up to 16 KiB of data an operation
 * is worth the copy into the batch (64 puts of 4 KiB then a flush: 6
 * messages, not 65). A batch's buffer grows to what it holds. */
#define UMP_WIN_BATCH_OP_MAX                                                                       \
    (16384 + 256) /* largest operation message batched (16 KiB of data and its header) */
#define UMP_WIN_BATCH_CAP 49152 /* a batch is sent before it grows past this */

/* The largest message a target receives into its window's scratch
 * buffer: a full batch (its header, up to UMP_WIN_BATCH_CAP bytes and one
 * last operation). */
#define UMP_WIN_IN_SCRATCH (64 + UMP_WIN_BATCH_CAP + UMP_WIN_BATCH_OP_MAX + 8)

/* Header flags. A put or accumulate of at least UMP_WIN_SPLIT_MIN bytes
 * into one run of a window that is not dynamic sends its data as a message
 * of their own, from the origin's buffer (its layout, not packed first):
 * the header's reply_tag is that message's tag. A put's data are received
 * straight into the window, an accumulate's into a buffer of the target's
 * that is then reduced into the window. */
enum { UMP_WIN_F_DATA = 1, UMP_WIN_F_JOIN = 2 };
/* A get of up to UMP_WIN_JOIN_MAX bytes that waits in a batch has its data
 * come back in the batch's one reply (UMP_WIN_F_JOIN on the get; on the
 * batch, whose reply_tag and tlen are then that reply's), while the
 * batch's joined gets come to at most UMP_WIN_JOIN_CAP bytes; the origin
 * unpacks each from there. Over tcp the reply of 64 small gets is then
 * one message, not 64. */
#define UMP_WIN_JOIN_MAX  16384
#define UMP_WIN_JOIN_CAP  32768
#define UMP_WIN_SPLIT_MIN (64 * 1024)
/* A get of more than UMP_WIN_JOIN_MAX bytes from one run of a window
 * that is not dynamic is read by the origin itself where the pair's
 * transport reads a peer's memory with no key and faster than it copies
 * (ump_rget: tcp): one read request, no message to the target's hook and
 * no rendezvous of a reply. An unlock after such reads waits for them
 * first, since the target, which never saw them, cannot hold its lock
 * for them. Smaller gets keep joining their batch's reply. */
#define UMP_WIN_READ_MIN (UMP_WIN_JOIN_MAX + 1)
/* A data message's tag, from the origin's reply tags (below 2^30) moved
 * above them: the target's own replies to that origin use tags of the
 * target's choosing, which must never match a data message. */
#define UMP_WIN_DATA_TAG(t) (0x40000000 | (t))

/* Tag of messages to a window's hook; replies use tags from 1 up. */
#define UMP_WIN_TAG_REQ 0

typedef struct {
    uint8_t op, flags, lock_type, pad;
    int32_t reply_tag; /* tag of the reply, 0 when none (UMP_WIN_F_DATA: of the data) */
    int32_t origin;    /* origin's rank in the window */
    int32_t redop;     /* index of the MPI_Op (accumulates) */
    int32_t basic;     /* index of the element type (accumulates) */
    int32_t pad2;
    uint64_t disp;    /* byte offset of the target layout's origin in the window */
    uint64_t nruns;   /* (offset, length) pairs after the header */
    uint64_t datalen; /* data bytes after the runs */
    uint64_t tlen;    /* bytes of the target layout's stream (what a reply carries) */
} ump_win_hdr_t;

typedef struct {
    int64_t off;
    uint64_t len;
} ump_win_run_t;

/* Something in flight the window must see complete: a request message
 * being sent (buf freed after), a reply being received (greq completed
 * after, for the request forms), or a reply being sent by the target. */
typedef struct {
    ump_req_t req;
    void *buf;
    ump_req_t greq;
    bool reply;    /* a reply receive only ump_win_pend_wait completes */
    bool from_win; /* a target's reply sent from its window memory (win_reads) */
    bool spare;    /* buf is a joined reply's buffer: kept for the next */
    /* A batch's joined reply (buf): the gets it holds, unpacked from buf
     * once it arrived. */
    struct ump_win_join *join;
    size_t njoin;
} ump_win_pending_t;

/* A get whose data come back in its batch's reply, at off. */
typedef struct ump_win_join {
    void *addr;
    size_t count;
    MPI_Datatype dt; /* a reference held until unpacked */
    uint64_t off, len;
    size_t at; /* where its header is in the batch's operations */
} ump_win_join_t;

/* An incoming message being received by the target. */
typedef struct ump_win_in {
    struct ump_win_in *next;
    ump_req_t req;
    char *buf;
    size_t len;
    int src;   /* core rank */
    bool data; /* a split operation whose data are being received */
    char *acc; /* where a split accumulate's data are received */
} ump_win_in_t;

/* A lock request the target could not grant yet. */
typedef struct ump_win_waiter {
    struct ump_win_waiter *next;
    int origin, lock_type, reply_tag;
} ump_win_waiter_t;

typedef enum { UMP_WIN_EPOCH_NONE = 0, UMP_WIN_EPOCH_FENCE } ump_win_epoch_t;

/* The words a direct window keeps per rank at the start of its segment,
 * one cache line each so ranks spinning on different targets do not
 * share a line (win_direct.c). */
typedef struct {
    uint32_t lock; /* passive-target lock: UMP_WIN_LOCK_EXCL or a count of shared holders */
    uint32_t acc;  /* spinlock serialising accumulates to this rank */
    char pad[56];
} ump_win_ctl_t;

struct ump_mpi_win {
    uint32_t magic;
    pthread_mutex_t mu; /* recursive; taken only under MPI_THREAD_MULTIPLE */
    MPI_Comm comm;      /* private duplicate: RMA traffic and fences */
    int rank, size;
    void *base;
    MPI_Aint win_size;
    int disp_unit;
    int flavor, model;
    bool owns_base; /* Win_allocate: base freed with the window */
    struct {
        MPI_Aint size;
        int disp_unit;
        uint64_t base; /* its address there (0: dynamic) */
    } * peers;         /* every rank's window (origin-side range checks, reads) */
    MPI_Errhandler errh;
    MPI_Info info;
    char name[MPI_MAX_OBJECT_NAME];

    /* origin side */
    int epoch;       /* ump_win_epoch_t: fence epoch open */
    uint8_t *locked; /* per target: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE */
    /* Per target: a message went (or waits in the batch) that no reply has
     * shown applied yet. A reply shows its message and, the target applying
     * an origin's messages in order, every earlier one applied; so a flush
     * asks the target only when this is set. */
    uint8_t *unproven;
    /* Per target: locked with MPI_MODE_NOCHECK, so no lock is held there
     * (the caller promised no conflicting one) and unlocking only
     * completes the operations. */
    uint8_t *nocheck;
    int nlocked;      /* targets locked (lock_all counts every rank) */
    bool lock_all;    /* in a lock_all epoch */
    int *start_group; /* PSCW access group (window ranks), NULL when none */
    int nstart;
    int *post_seen; /* per target: POST messages received and not yet consumed */
    ump_win_pending_t *pend;
    size_t npend, cpend;
    uint32_t next_tag;
    struct ump_win_batch {
        char *buf;
        size_t len;
        size_t cap;           /* bytes buf holds, its header included */
        int replies;          /* operations in it whose reply is awaited (gets) */
        ump_win_join_t *join; /* its joined gets */
        size_t njoin, cjoin;
        uint64_t join_len; /* bytes of their reply */
    } * batch;             /* per target, NULL until the first batched operation */
    int batch_replies;     /* replies awaited of operations still in a batch:
                            * ump_win_pend_wait sends every batch first */
    int reads;             /* gets read by the origin since the last ump_win_pend_wait */

    /* target side */
    ump_win_in_t *in_head, *in_tail;
    /* A message up to UMP_WIN_IN_SCRATCH bytes that arrives with nothing
     * queued before it is received here and, complete at once, applied
     * at once (win_am.c); else it waits, holding this, at the queue's head. */
    char *in_scratch;
    /* Buffers of UMP_WIN_JOIN_CAP bytes for joined replies, sent or
     * received, kept for the next (a batch of gets each allocating and
     * freeing 32 KiB made the C library grow and trim its heap each time). */
    char *join_spare[4];
    int njoin_spare;
    int lock_excl;   /* origin holding the exclusive lock, -1 when none */
    int lock_shared; /* holders of the shared lock */
    ump_win_waiter_t *waiters, *waiters_tail;
    /* Gets answered from the window memory whose bytes have not all left
     * yet (a rendezvous reads them after the reply was started). An
     * UNLOCK waits meanwhile in `unlocks` (its origin the waiter's), so
     * no lock goes to another origin while the window is still read for
     * the epoch that ended. */
    int win_reads;
    ump_win_waiter_t *unlocks, *unlocks_tail;
    int *post_group; /* PSCW exposure group (window ranks), NULL when none */
    int npost;
    int completes; /* COMPLETE messages received and not yet consumed by wait */

    /* shared windows (allocate_shared, and allocate on one node) */
    bool direct;        /* the origin loads and stores the target's part itself */
    bool direct_since;  /* a direct operation ran since the last flush's fence */
    ump_win_ctl_t *ctl; /* per rank, at the start of the segment */
    void *shm_map;
    size_t shm_len;
    MPI_Aint *shm_offs; /* per rank: offset of its part in the mapping */

    /* dynamic windows: the attached memory (the target checks every access) */
    struct {
        char *base;
        size_t len;
    } * regions;
    int nregions, cregions;

    struct ump_mpi_win *next;
};

/* Under MPI_THREAD_MULTIPLE each window has a recursive lock that every
 * call on it holds from its start to its return (UMP_WIN_GUARD), so the
 * calls of several threads on one window run one at a time and those on
 * different windows side by side. The progress hook, which any thread's
 * progress runs, only try-locks: it skips a window whose lock another
 * thread holds (that thread's own progress serves it meanwhile), so a
 * window call may block holding its lock without waiting for the thread
 * that holds the core's. Nothing at other thread levels. */
static inline bool ump_win_ok(MPI_Win w)
{
    return w && w->magic == UMP_MPI_MAGIC_WIN;
}
/* The lock taken under MPI_THREAD_MULTIPLE (win_am.c). */
MPI_Win ump_win_enter_mt(MPI_Win w);
static inline MPI_Win ump_win_enter(MPI_Win w)
{
    if (__builtin_expect(ump_mpi_thread_level != MPI_THREAD_MULTIPLE, 1)) return NULL;
    return ump_win_enter_mt(w);
}
static inline void ump_win_leave(MPI_Win *held)
{
    if (*held) pthread_mutex_unlock(&(*held)->mu);
}
#define UMP_WIN_GUARD(w)                                                                           \
    MPI_Win ump_win_guard_ __attribute__((cleanup(ump_win_leave), unused)) = ump_win_enter(w)

/* Raises errclass on the window (its error handler), naming the call and
 * this rank; returns errclass. */
int ump_win_error(MPI_Win w, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* User attributes (win_attr.c): MPI_Win_get_attr of a user keyval, and the
 * delete callbacks MPI_Win_free runs; MPI class. */
int ump_win_attr_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int ump_win_attr_delete_all(MPI_Win win);

#define UMP_WIN_CHECK(call, w)                                                                     \
    do {                                                                                           \
        UMP_MPI_CHECK_INIT(call);                                                                  \
        if (!ump_win_ok(w))                                                                        \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_WIN, call,                                 \
                                 "rank %d: invalid window (null, freed or not a window)",          \
                                 ump_rank());                                                      \
    } while (0)

/* Builds a window over [base, base + size) on a duplicate of comm
 * (collective); *out is the window or the error is returned. */
int ump_win_setup(const char *call, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                  MPI_Comm comm, int flavor, MPI_Win *out);

/* Progress (win_am.c). */
int ump_win_am_attach(MPI_Win w);
void ump_win_am_detach(MPI_Win w);
/* Keeps something in flight for the window (see ump_win_pending_t). */
int ump_win_pend_add(MPI_Win w, ump_req_t req, void *buf, ump_req_t greq);
/* Keeps the receive of a reply the origin waits for only at
 * ump_win_pend_wait (the progress hook leaves it alone). */
int ump_win_pend_add_reply(MPI_Win w, ump_req_t req);
/* A batch's joined reply being received into buf (freed after), its gets
 * unpacked from there by ump_win_pend_wait; takes join (n entries). */
int ump_win_pend_add_join(MPI_Win w, ump_req_t req, void *buf, ump_win_join_t *join, size_t n);
/* A buffer of UMP_WIN_JOIN_CAP bytes for a joined reply (NULL when out of
 * memory); a pending entry marked spare gives it back. */
char *ump_win_join_buf(MPI_Win w);
/* Waits until everything the window has in flight completed. */
int ump_win_pend_wait(MPI_Win w);
/* A fresh reply tag. */
int ump_win_tag(MPI_Win w);
/* Core rank of window rank r. */
static inline int ump_win_world(MPI_Win w, int r)
{
    return ump_mpi_world_rank(w->comm, r);
}
/* Sends a header-only control message to window rank `target`: with no
 * reply, waiting for its (empty) reply, or keeping the reply's receive
 * among what the window has in flight, for ump_win_pend_wait (so several
 * targets answer at once). */
typedef enum { UMP_WIN_REPLY_NONE, UMP_WIN_REPLY_WAIT, UMP_WIN_REPLY_PEND } ump_win_reply_t;
int ump_win_ctrl(MPI_Win w, int target, int op, int lock_type, ump_win_reply_t reply);
/* Batches (win_batch.c). add: takes a copy of msg (len <=
 * UMP_WIN_BATCH_OP_MAX) into target's batch, sending the batch first when
 * it would not fit; MPI class. send: sends target's batch if it holds
 * anything; send_all: every target's. free: at the window's end. */
int ump_win_batch_add(MPI_Win w, int target, const void *msg, size_t len);
/* room: where an operation of up to len (<= UMP_WIN_BATCH_OP_MAX) bytes
 * is written into target's batch (sent first when it would not fit, or
 * when a get's `join` bytes would not fit its reply; 0 for any other
 * operation); NULL with *rc an MPI class on failure. commit: adds the len bytes written
 * there to the batch (nothing is added without it). */
void *ump_win_batch_room(MPI_Win w, int target, size_t len, uint64_t join, int *rc);
void ump_win_batch_commit(MPI_Win w, int target, size_t len);
int ump_win_batch_send(MPI_Win w, int target);
int ump_win_batch_send_all(MPI_Win w);
void ump_win_batch_free(MPI_Win w);
/* Whether a get of len bytes may join target's batch, which holds room
 * for it (ump_win_batch_room), and if so records it there. */
bool ump_win_batch_join(MPI_Win w, int target, void *addr, size_t count, MPI_Datatype dt,
                        uint64_t len);
static inline bool ump_win_batch_held(MPI_Win w, int target)
{
    return w->batch && w->batch[target].len;
}
/* Drives progress until cond(w) holds. */
void ump_win_progress_until(MPI_Win w, bool (*cond)(MPI_Win w));

/* Predefined element types and ops by index, for the wire. */
int ump_win_dt_index(MPI_Datatype dt);
MPI_Datatype ump_win_dt_at(int i);
int ump_win_op_index(MPI_Op op);
MPI_Op ump_win_op_at(int i);

/* Shared windows (win_shm.c): releases the mapping. */
void ump_win_shm_free(MPI_Win w);
/* Whether every rank of comm runs on this node. */
bool ump_win_one_node(MPI_Comm comm);
/* Builds a window whose parts all lie in one segment every rank maps
 * (collective); *base is this rank's part. Returns MPI_SUCCESS, or an
 * error class: raised already when `why` is empty, else described there
 * and not raised (the segment could not be made). */
int ump_win_shm_setup(const char *call, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      int flavor, void **base, MPI_Win *out, char *why, size_t whylen);

/* Direct windows (win_direct.c). One operation, checked already, done by
 * the origin on the target's memory at tbase through the target layout's
 * runs; op is UMP_WIN_PUT, ... ; basic the accumulates' element type. */
typedef struct {
    int op;
    MPI_Op redop;
    MPI_Datatype basic;
    const void *oaddr;
    int ocount;
    MPI_Datatype odt;
    void *raddr;
    int rcount;
    MPI_Datatype rdt;
    const void *compare;
    char *tbase;
    const ump_win_run_t *runs;
    size_t nruns, tbytes;
} ump_win_direct_op_t;
/* Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int ump_win_direct_op(MPI_Win w, int target, const ump_win_direct_op_t *d);
/* Where window rank r's part starts in this process. */
static inline char *ump_win_direct_base(MPI_Win w, int r)
{
    return (char *)w->shm_map + w->shm_offs[r];
}
/* The passive-target lock of window rank r, taken in the segment
 * (waits, driving progress, while another holder excludes it). */
void ump_win_direct_lock(MPI_Win w, int r, int lock_type);
void ump_win_direct_unlock(MPI_Win w, int r, int lock_type);
/* Dynamic windows (win_dyn.c): whether [addr, addr + len) is attached. */
bool ump_win_dyn_covers(MPI_Win w, const char *addr, size_t len);

#endif /* UMP_MPI_WIN_H */
