/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ump.h - the core messaging API of ump.
 *
 * A small tagged-messaging interface in the spirit of IBV eXpress: point-to-
 * point sends and receives matched on (source, tag, context), blocking and
 * non-blocking, with probe and a completion "peek".
 *
 * Life cycle: ump_init() once per process, then any number of operations,
 * then ump_finalize(). Every call returns UMP_OK (0) or a negative UMP_ERR_*
 * code; ump_strerror() turns a code into words.
 *
 * Requests: a non-blocking call hands back a ump_req_t owned by the caller
 * until ump_wait()/ump_test() reports it complete, which releases it and
 * sets the handle to UMP_REQ_NULL. The buffer of an operation belongs to ump
 * from the call until that completion.
 *
 * Matching keeps MPI's rules: messages from one source on one context match
 * receives in the order they were sent (non-overtaking); UMP_ANY_SOURCE and
 * UMP_ANY_TAG are wildcards; a message longer than the receive buffer is
 * truncated, the data that fit are delivered and the status error is
 * UMP_ERR_TRUNCATE.
 */
#ifndef UMP_H
#define UMP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UMP_VERSION_MAJOR  0
#define UMP_VERSION_MINOR  1
#define UMP_VERSION_PATCH  0
#define UMP_VERSION_STRING "0.1.0"

/*
 * Status codes: one list makes the enum, the names and the strings.
 * UMP_OK is 0, UMP_INPROGRESS is positive, every error is negative.
 */
#define UMP_FOREACH_STATUS(X)                                                                      \
    X(UMP_OK, 0, "success")                                                                        \
    X(UMP_INPROGRESS, 1, "operation in progress")                                                  \
    X(UMP_ERR_NO_RESOURCE, -1, "resources temporarily exhausted, try again")                       \
    X(UMP_ERR_NO_MEMORY, -2, "out of memory")                                                      \
    X(UMP_ERR_INVALID, -3, "invalid argument")                                                     \
    X(UMP_ERR_RANK, -4, "invalid rank")                                                            \
    X(UMP_ERR_TAG, -5, "invalid tag")                                                              \
    X(UMP_ERR_COUNT, -6, "invalid count")                                                          \
    X(UMP_ERR_BUFFER, -7, "invalid buffer")                                                        \
    X(UMP_ERR_DATATYPE, -8, "invalid datatype")                                                    \
    X(UMP_ERR_REQUEST, -9, "invalid request")                                                      \
    X(UMP_ERR_TRUNCATE, -10, "message truncated: receive buffer too small")                        \
    X(UMP_ERR_PEER_DEAD, -11, "peer process is unreachable or dead")                               \
    X(UMP_ERR_NOT_INIT, -12, "ump is not initialized")                                             \
    X(UMP_ERR_ALREADY_INIT, -13, "ump is already initialized")                                     \
    X(UMP_ERR_UNSUPPORTED, -14, "operation not supported")                                         \
    X(UMP_ERR_NO_TRANSPORT, -15, "no transport reaches the peer")                                  \
    X(UMP_ERR_IO, -16, "input/output error")                                                       \
    X(UMP_ERR_TIMEOUT, -17, "operation timed out")                                                 \
    X(UMP_ERR_PROTOCOL, -18, "protocol violation or corrupted message")                            \
    X(UMP_ERR_AUTH, -19, "authentication failed")                                                  \
    X(UMP_ERR_BOOTSTRAP, -20, "bootstrap (launcher key-value service) failed")                     \
    X(UMP_ERR_CANCELLED, -21, "operation cancelled")                                               \
    X(UMP_ERR_BUSY, -22, "resource busy")                                                          \
    X(UMP_ERR_INTERNAL, -23, "internal error")                                                     \
    X(UMP_ERR_OP, -24, "reduction operation does not apply to the datatype")                       \
    X(UMP_ERR_ROOT, -25, "invalid root rank")

typedef enum {
#define UMP_X_ENUM(name, value, text) name = value,
    UMP_FOREACH_STATUS(UMP_X_ENUM)
#undef UMP_X_ENUM
} ump_status_code_t;

/* Text for a status code; never NULL. */
const char *ump_strerror(int code);
/* Symbolic name of a status code ("UMP_ERR_TRUNCATE"); never NULL. */
const char *ump_status_name(int code);

/* Thread levels, ordered as MPI's. */
enum { UMP_THREAD_SINGLE = 0, UMP_THREAD_FUNNELED, UMP_THREAD_SERIALIZED, UMP_THREAD_MULTIPLE };

#define UMP_ANY_SOURCE (-1)
#define UMP_ANY_TAG    (-1)
/* Largest tag a user may pass; negative tags other than UMP_ANY_TAG are invalid. */
#define UMP_TAG_UB 0x7fffffff

/*
 * Datatypes. A message is `count` elements of a datatype: UMP_BYTE, or any
 * committed MPI datatype (the same object), contiguous or not. Non-contiguous
 * data are packed straight into the transport and unpacked straight out of
 * it, or read scatter/gather; counts in a status are bytes of the packed
 * stream.
 */
typedef const struct ump_dt *ump_dt_t;
extern const struct ump_dt ump_dt_byte_s;
#define UMP_BYTE (&ump_dt_byte_s)
/* Bytes of one element of `dt` (its size, not its extent). */
size_t ump_dt_size(ump_dt_t dt);

/* Predefined element types: the C types, for reductions and typed
 * messages. The MPI interface's MPI_INT, MPI_DOUBLE, ... are these same
 * objects. (UMP_X_DT(ump name, object suffix).) */
#define UMP_FOREACH_PREDEFINED_DT(X)                                                               \
    X(UMP_CHAR, char)                                                                              \
    X(UMP_SHORT, short)                                                                            \
    X(UMP_INT, int)                                                                                \
    X(UMP_LONG, long)                                                                              \
    X(UMP_LONG_LONG, long_long_int)                                                                \
    X(UMP_SIGNED_CHAR, signed_char)                                                                \
    X(UMP_UNSIGNED_CHAR, unsigned_char)                                                            \
    X(UMP_UNSIGNED_SHORT, unsigned_short)                                                          \
    X(UMP_UNSIGNED, unsigned)                                                                      \
    X(UMP_UNSIGNED_LONG, unsigned_long)                                                            \
    X(UMP_UNSIGNED_LONG_LONG, unsigned_long_long)                                                  \
    X(UMP_FLOAT, float)                                                                            \
    X(UMP_DOUBLE, double)                                                                          \
    X(UMP_LONG_DOUBLE, long_double)                                                                \
    X(UMP_WCHAR, wchar)                                                                            \
    X(UMP_C_BOOL, c_bool)                                                                          \
    X(UMP_INT8, int8_t)                                                                            \
    X(UMP_INT16, int16_t)                                                                          \
    X(UMP_INT32, int32_t)                                                                          \
    X(UMP_INT64, int64_t)                                                                          \
    X(UMP_UINT8, uint8_t)                                                                          \
    X(UMP_UINT16, uint16_t)                                                                        \
    X(UMP_UINT32, uint32_t)                                                                        \
    X(UMP_UINT64, uint64_t)                                                                        \
    X(UMP_C_FLOAT_COMPLEX, c_float_complex)                                                        \
    X(UMP_C_DOUBLE_COMPLEX, c_double_complex)                                                      \
    X(UMP_C_LONG_DOUBLE_COMPLEX, c_long_double_complex)                                            \
    X(UMP_FLOAT_INT, float_int)                                                                    \
    X(UMP_DOUBLE_INT, double_int)                                                                  \
    X(UMP_LONG_INT, long_int)                                                                      \
    X(UMP_2INT, 2int)                                                                              \
    X(UMP_SHORT_INT, short_int)                                                                    \
    X(UMP_LONG_DOUBLE_INT, long_double_int)

#define UMP_X_DT_DECL(ump, name) extern struct ump_dt ump_dt_##name;
UMP_FOREACH_PREDEFINED_DT(UMP_X_DT_DECL)
#undef UMP_X_DT_DECL

#define UMP_CHAR                  ((ump_dt_t)&ump_dt_char)
#define UMP_SHORT                 ((ump_dt_t)&ump_dt_short)
#define UMP_INT                   ((ump_dt_t)&ump_dt_int)
#define UMP_LONG                  ((ump_dt_t)&ump_dt_long)
#define UMP_LONG_LONG             ((ump_dt_t)&ump_dt_long_long_int)
#define UMP_SIGNED_CHAR           ((ump_dt_t)&ump_dt_signed_char)
#define UMP_UNSIGNED_CHAR         ((ump_dt_t)&ump_dt_unsigned_char)
#define UMP_UNSIGNED_SHORT        ((ump_dt_t)&ump_dt_unsigned_short)
#define UMP_UNSIGNED              ((ump_dt_t)&ump_dt_unsigned)
#define UMP_UNSIGNED_LONG         ((ump_dt_t)&ump_dt_unsigned_long)
#define UMP_UNSIGNED_LONG_LONG    ((ump_dt_t)&ump_dt_unsigned_long_long)
#define UMP_FLOAT                 ((ump_dt_t)&ump_dt_float)
#define UMP_DOUBLE                ((ump_dt_t)&ump_dt_double)
#define UMP_LONG_DOUBLE           ((ump_dt_t)&ump_dt_long_double)
#define UMP_WCHAR                 ((ump_dt_t)&ump_dt_wchar)
#define UMP_C_BOOL                ((ump_dt_t)&ump_dt_c_bool)
#define UMP_INT8                  ((ump_dt_t)&ump_dt_int8_t)
#define UMP_INT16                 ((ump_dt_t)&ump_dt_int16_t)
#define UMP_INT32                 ((ump_dt_t)&ump_dt_int32_t)
#define UMP_INT64                 ((ump_dt_t)&ump_dt_int64_t)
#define UMP_UINT8                 ((ump_dt_t)&ump_dt_uint8_t)
#define UMP_UINT16                ((ump_dt_t)&ump_dt_uint16_t)
#define UMP_UINT32                ((ump_dt_t)&ump_dt_uint32_t)
#define UMP_UINT64                ((ump_dt_t)&ump_dt_uint64_t)
#define UMP_C_FLOAT_COMPLEX       ((ump_dt_t)&ump_dt_c_float_complex)
#define UMP_C_DOUBLE_COMPLEX      ((ump_dt_t)&ump_dt_c_double_complex)
#define UMP_C_LONG_DOUBLE_COMPLEX ((ump_dt_t)&ump_dt_c_long_double_complex)
#define UMP_FLOAT_INT             ((ump_dt_t)&ump_dt_float_int)
#define UMP_DOUBLE_INT            ((ump_dt_t)&ump_dt_double_int)
#define UMP_LONG_INT              ((ump_dt_t)&ump_dt_long_int)
#define UMP_2INT                  ((ump_dt_t)&ump_dt_2int)
#define UMP_SHORT_INT             ((ump_dt_t)&ump_dt_short_int)
#define UMP_LONG_DOUBLE_INT       ((ump_dt_t)&ump_dt_long_double_int)

typedef struct ump_request *ump_req_t;
#define UMP_REQ_NULL ((ump_req_t)0)

typedef struct {
    int source;     /* rank that sent the matched message */
    int tag;        /* tag of the matched message */
    int error;      /* UMP_OK, UMP_ERR_TRUNCATE, UMP_ERR_PEER_DEAD, ... */
    int cancelled;  /* 1 when a receive was cancelled before it matched */
    size_t count;   /* bytes delivered into the receive buffer */
    size_t msg_len; /* bytes the sender sent (count < msg_len when truncated) */
} ump_status_t;

#define UMP_STATUS_IGNORE ((ump_status_t *)0)

/* --- environment --------------------------------------------------------- */

/* Joins the job. argc/argv may be NULL. `provided` receives the thread level
 * granted (at most the one asked). Started outside a launcher, the process is
 * a one-rank job. */
int ump_init(int *argc, char ***argv, int thread_level, int *provided);
/* The thread level granted by ump_init (UMP_THREAD_SINGLE before it). */
int ump_query_thread(void);
/* Completes the job's part of this process. Outstanding sends are finished
 * first; the launcher is told the process finalized cleanly. */
int ump_finalize(void);
int ump_initialized(void);
int ump_finalized(void);
int ump_rank(void);
int ump_size(void);
/* Ends the whole job: the launcher stops every rank and reports `code` and
 * `msg` (which may be NULL). Does not return. */
void ump_abort(int code, const char *msg);
/* Name of the host this rank runs on (as the launcher knows it). */
const char *ump_hostname(void);
/* Monotonic wall clock in seconds. */
double ump_wtime(void);

/* --- point-to-point ------------------------------------------------------ */

/* Standard-mode send: completes when the buffer may be reused. */
int ump_isend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
              ump_req_t *req);
/* Synchronous send: completes only after the receiver matched the message. */
int ump_issend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
               ump_req_t *req);
int ump_irecv(void *buf, size_t count, ump_dt_t dt, int src, int tag, uint32_t ctx, ump_req_t *req);
int ump_send(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx);
int ump_ssend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx);
/* Returns the status error (UMP_ERR_TRUNCATE, ...) as its result too. */
int ump_recv(void *buf, size_t count, ump_dt_t dt, int src, int tag, uint32_t ctx,
             ump_status_t *st);

/* --- completion ---------------------------------------------------------- */

/* Waits for *req, fills *st, releases the request and sets *req to
 * UMP_REQ_NULL. Returns the operation's error (st->error). A null request
 * returns at once with an empty status. */
int ump_wait(ump_req_t *req, ump_status_t *st);
/* Like ump_wait without blocking: *done is 1 when the request completed. */
int ump_test(ump_req_t *req, int *done, ump_status_t *st);
/* Waits for all; st may be UMP_STATUS_IGNORE or an array of n. Returns
 * UMP_OK or the first error met (each status holds its own). */
int ump_waitall(size_t n, ump_req_t *reqs, ump_status_t *st);
/* Waits for any non-null request; *index receives its position, or -1 when
 * every handle is null. */
int ump_waitany(size_t n, ump_req_t *reqs, int *index, ump_status_t *st);
/* Non-blocking ump_waitany: *index is -1 when nothing completed. */
int ump_testany(size_t n, ump_req_t *reqs, int *index, int *done, ump_status_t *st);
/* Cancels a receive that has not matched yet; the request still has to be
 * waited for, and its status says cancelled. Sends cannot be cancelled
 * (UMP_ERR_UNSUPPORTED); cancelling a completed or matched request is a no-op. */
int ump_cancel(ump_req_t *req);
/* Blocks until some outstanding request of this process completes and
 * returns it in *req without releasing it (like IBV_Peek); the caller still
 * waits or tests it. Each completion is reported by ump_peek once. Returns
 * UMP_ERR_INVALID when no request is outstanding. */
int ump_peek(ump_req_t *req);

/* --- probing ------------------------------------------------------------- */

/* Blocks until a message matching (src, tag, ctx) can be received and
 * describes it in *st without receiving it. */
int ump_probe(int src, int tag, uint32_t ctx, ump_status_t *st);
int ump_iprobe(int src, int tag, uint32_t ctx, int *flag, ump_status_t *st);

/* --- matched probe -------------------------------------------------------- */

/* A message taken off the matching queues by ump_improbe/ump_mprobe, to be
 * received only by ump_imrecv (MPI's matched probe, safe with threads). */
typedef struct ump_unexp *ump_msg_t;

int ump_improbe(int src, int tag, uint32_t ctx, int *flag, ump_msg_t *msg, ump_status_t *st);
int ump_mprobe(int src, int tag, uint32_t ctx, ump_msg_t *msg, ump_status_t *st);
/* Receives the message `*msg` (which is consumed: *msg becomes NULL). */
int ump_imrecv(void *buf, size_t count, ump_dt_t dt, ump_msg_t *msg, ump_req_t *req);

/* --- requests for layers above the core ------------------------------------ */

/* The status of a request without releasing it: *flag is 1 when complete. */
int ump_request_get_status(ump_req_t req, int *flag, ump_status_t *st);
/* A generalized request: an operation completed by its owner with
 * ump_greq_complete (nonblocking collectives). Waited for like any other. */
int ump_greq_start(ump_req_t *req);
int ump_greq_complete(ump_req_t req, int error);
/* A function the progress engine calls on every pass (returns events
 * handled), e.g. to advance collective schedules. At most 8. It may post
 * non-blocking operations and test requests, but must never block (no
 * ump_wait, ump_send, ...). */
typedef int (*ump_progress_fn_t)(void *arg);
int ump_progress_register(ump_progress_fn_t fn, void *arg);
int ump_progress_unregister(ump_progress_fn_t fn, void *arg);

/* Index of the node (host) `rank` runs on; ranks with equal indices share
 * memory. */
int ump_node_id(int rank);

/* Drives communication once; returns the number of events handled (>= 0) or
 * an error. */
int ump_progress(void);

#ifdef __cplusplus
}
#endif

/* Collectives over communicators of ranks (ump_comm_t), reduction ops. */
#include "ump_coll.h"

#endif /* UMP_H */
