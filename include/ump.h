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
 * Datatypes. A message is `count` elements of a datatype: UMP_BYTE, a
 * predefined element type (below), or a committed derived type built with
 * the constructors further below (MPI datatypes are the same objects),
 * contiguous or not. Non-contiguous data are packed straight into the
 * transport and unpacked straight out of it, or read scatter/gather; counts
 * in a status are bytes of the packed stream.
 */
typedef const struct ump_dt *ump_dt_t;
extern struct ump_dt ump_dt_byte;
#define UMP_BYTE ((ump_dt_t)&ump_dt_byte)
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

/* --- derived datatypes ------------------------------------------------------
 *
 * Types built from other types, for messages whose data are not one run of
 * one element type: the rows of a matrix (vector), a C struct (struct), a
 * block of a larger array (subarray), ... They follow MPI's type model (a
 * type map of basic elements at byte displacements, bounds lb and ub,
 * extent = ub - lb), so a type built here is a valid MPI datatype too and
 * the other way round.
 *
 * Life cycle: a constructor hands back a new type in *out, owned by the
 * caller as a `struct ump_dt *` (it converts to ump_dt_t wherever a type is
 * only read). ump_dt_commit() makes it usable in messages; ump_dt_free()
 * drops the caller's handle. A type stays alive while a type built from it
 * or an operation in flight uses it, so the caller may free it as soon as
 * it no longer names it. Predefined types are never freed.
 *
 * Arguments: counts and block lengths >= 0; strides and displacements are
 * in extents of the old type (int forms) or in bytes (ptrdiff_t, the "h"
 * forms) and may be negative. Explicit bounds set by ump_dt_resized are
 * sticky: a type built from a resized type takes its bounds from them. A
 * struct without an explicit upper bound is padded to the alignment of its
 * most aligned basic element, as the C compiler pads the matching struct.
 *
 * Errors (every constructor): UMP_ERR_DATATYPE when an old type is invalid
 * or freed, UMP_ERR_COUNT for a negative count or block length or a type
 * larger than memory, UMP_ERR_NO_MEMORY, UMP_ERR_UNSUPPORTED when types
 * nest more than 32 levels deep, UMP_ERR_INVALID for any other bad argument
 * (a NULL array or `out`). On error *out is untouched and nothing leaks.
 *
 * These calls need no ump_init() and may be made from any thread, on shared
 * types too, except that ump_dt_set_name must not race with a reader of the
 * same type's name.
 */

/* How a type was built, as ump_dt_envelope reports it. The values are MPI's. */
enum {
    UMP_DT_COMBINER_NAMED = 1, /* a predefined type */
    UMP_DT_COMBINER_DUP = 2,
    UMP_DT_COMBINER_CONTIGUOUS = 3,
    UMP_DT_COMBINER_VECTOR = 4,
    UMP_DT_COMBINER_HVECTOR = 5,
    UMP_DT_COMBINER_INDEXED = 6,
    UMP_DT_COMBINER_HINDEXED = 7,
    UMP_DT_COMBINER_INDEXED_BLOCK = 8,
    UMP_DT_COMBINER_HINDEXED_BLOCK = 9,
    UMP_DT_COMBINER_STRUCT = 10,
    UMP_DT_COMBINER_SUBARRAY = 11,
    UMP_DT_COMBINER_DARRAY = 12,
    /* A predefined type chosen by parameters (ump_dt_param): its integers
     * are the parameters (precision and range, or range). */
    UMP_DT_COMBINER_F90_REAL = 13,
    UMP_DT_COMBINER_F90_COMPLEX = 14,
    UMP_DT_COMBINER_F90_INTEGER = 15,
    UMP_DT_COMBINER_RESIZED = 16,
};

/* Storage order of a multi-dimensional array (subarray, darray): C (last
 * index fastest) or Fortran (first index fastest). */
enum { UMP_DT_ORDER_C = 56, UMP_DT_ORDER_FORTRAN = 57 };

/* How darray spreads one dimension over the processes of that dimension:
 * in blocks, cyclically in blocks of darg elements, or not at all (one
 * process holds the whole dimension). UMP_DT_DISTRIBUTE_DFLT_DARG asks for
 * the default block (an even split for BLOCK, 1 for CYCLIC). */
enum {
    UMP_DT_DISTRIBUTE_BLOCK = 121,
    UMP_DT_DISTRIBUTE_CYCLIC = 122,
    UMP_DT_DISTRIBUTE_NONE = 123,
    UMP_DT_DISTRIBUTE_DFLT_DARG = -49767,
};

/* count copies of old, one after the other (each at old's extent). */
int ump_dt_contiguous(int count, ump_dt_t old, struct ump_dt **out);
/* count blocks of blocklen copies of old; block i starts i * stride
 * extents of old from the origin (vector) or i * stride bytes (hvector). */
int ump_dt_vector(int count, int blocklen, int stride, ump_dt_t old, struct ump_dt **out);
int ump_dt_hvector(int count, int blocklen, ptrdiff_t stride, ump_dt_t old, struct ump_dt **out);
/* count blocks, block i of blocklens[i] copies of old at disps[i] extents
 * of old (indexed) or disps[i] bytes (hindexed). */
int ump_dt_indexed(int count, const int blocklens[], const int disps[], ump_dt_t old,
                   struct ump_dt **out);
int ump_dt_hindexed(int count, const int blocklens[], const ptrdiff_t disps[], ump_dt_t old,
                    struct ump_dt **out);
/* As indexed / hindexed with one block length for every block. */
int ump_dt_indexed_block(int count, int blocklen, const int disps[], ump_dt_t old,
                         struct ump_dt **out);
int ump_dt_hindexed_block(int count, int blocklen, const ptrdiff_t disps[], ump_dt_t old,
                          struct ump_dt **out);
/* count blocks, block i of blocklens[i] copies of types[i] at disps[i]
 * bytes: a C struct, with disps from offsetof(). */
int ump_dt_struct(int count, const int blocklens[], const ptrdiff_t disps[], const ump_dt_t types[],
                  struct ump_dt **out);
/* The block subsizes[] at starts[] of an ndims-dimensional array of
 * sizes[] elements of old stored in `order` (UMP_DT_ORDER_*); the type's
 * extent is the whole array's. UMP_ERR_INVALID unless ndims > 0,
 * 0 < subsizes[k] <= sizes[k] and 0 <= starts[k] <= sizes[k] - subsizes[k]. */
int ump_dt_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                    int order, ump_dt_t old, struct ump_dt **out);
/* The part process `rank` of `size` holds of an ndims-dimensional array of
 * gsizes[] elements of old, distributed over a psizes[] process grid
 * (row-major ranks) by distribs[] (UMP_DT_DISTRIBUTE_*) with block sizes
 * dargs[] (or UMP_DT_DISTRIBUTE_DFLT_DARG); the extent is the whole
 * array's. UMP_ERR_INVALID when the grid does not have `size` processes,
 * a NONE dimension has more than one process, or explicit BLOCK blocks do
 * not cover their dimension. */
int ump_dt_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                  const int dargs[], const int psizes[], int order, ump_dt_t old,
                  struct ump_dt **out);
/* old's type map with the bounds set to lb and lb + extent. */
int ump_dt_resized(ump_dt_t old, ptrdiff_t lb, ptrdiff_t extent, struct ump_dt **out);
/* A new handle for the same type map; committed when old is. */
int ump_dt_dup(ump_dt_t old, struct ump_dt **out);

/* Makes dt usable in messages (idempotent). UMP_ERR_DATATYPE when dt is
 * invalid or freed. */
int ump_dt_commit(struct ump_dt *dt);
/* Drops the caller's handle *dt and sets it to NULL; the type lives on
 * while others use it. UMP_ERR_DATATYPE for a predefined type, an invalid
 * one or one already freed. */
int ump_dt_free(struct ump_dt **dt);

/* Bounds: *lb and *extent = ub - lb, the stride between consecutive
 * elements of a message. UMP_ERR_DATATYPE for an invalid or freed type,
 * UMP_ERR_INVALID for a NULL output. */
int ump_dt_get_extent(ump_dt_t dt, ptrdiff_t *lb, ptrdiff_t *extent);
/* The bytes one element's data really span: from its first data byte
 * (*true_lb, from the origin) to one past its last. Errors as above. */
int ump_dt_get_true_extent(ump_dt_t dt, ptrdiff_t *true_lb, ptrdiff_t *true_extent);
/* A name for messages: the predefined types are named by their constant
 * ("UMP_INT"); derived types have "" until named. Never NULL ("" for an
 * invalid type). The string lives as long as the type or its next rename. */
const char *ump_dt_name(ump_dt_t dt);
/* Names dt (a copy, truncated to 127 bytes). UMP_ERR_INVALID for an
 * invalid type or a NULL name. */
int ump_dt_set_name(struct ump_dt *dt, const char *name);

/* How dt was built: the combiner (UMP_DT_COMBINER_*) and how many
 * integers, byte displacements and types ump_dt_contents returns. A
 * predefined type is NAMED with no contents; one made by ump_dt_param has
 * its combiner and its parameters as integers. UMP_ERR_DATATYPE for an
 * invalid type, UMP_ERR_INVALID for a NULL output. */
int ump_dt_envelope(ump_dt_t dt, int *ni, int *na, int *nd, int *combiner);
/* The arguments dt was built with, in the constructor's order (counts,
 * block lengths, int displacements in ints[]; byte displacements, strides,
 * lb and extent in aints[]; old types in types[]). Each derived type
 * returned in types[] is a new handle the caller frees with ump_dt_free.
 * UMP_ERR_INVALID for a NAMED type or a max below the envelope's
 * numbers. */
int ump_dt_contents(ump_dt_t dt, int maxi, int maxa, int maxd, int ints[], ptrdiff_t aints[],
                    struct ump_dt *types[]);

/* A predefined type that behaves exactly as `base` (a NAMED type) but
 * reports `combiner` (one of the F90 combiners) and the `ni` (at most 2)
 * integers `ints` as its construction, as MPI's parameterized Fortran types
 * do. The same arguments give the same type; like every predefined type it
 * is never freed. UMP_ERR_DATATYPE for a base that is not NAMED,
 * UMP_ERR_INVALID for other bad arguments. Thread-safe. */
int ump_dt_param(ump_dt_t base, int combiner, int ni, const int *ints, ump_dt_t *out);

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

/* --- meeting other processes (MPI's dynamic processes) ------------------- */

/*
 * Ports and names, for MPI_Open_port, Comm_accept/connect, Comm_join and
 * Publish/Lookup_name. A port is a listening socket of this process, named
 * "ump-port:<ip>:<port>:<nonce>" (at most UMP_PORT_NAME_MAX bytes with the
 * NUL). Two processes meet on it: each proves it knows the job secret (a
 * process of another job is refused, and logged) and sends a "card" (bytes
 * the caller chose), receiving the other's in *theirs (malloc'd; the caller
 * frees it). While they wait, accept, connect and join drive this process's
 * communication, so ranks that wait on it make progress. Not to be called
 * from two threads at once.
 *
 * ump_port_accept waits for a client on a port this process opened
 * (UMP_ERR_INVALID for another name). ump_port_connect: UMP_ERR_INVALID for
 * a name that is not a port, UMP_ERR_PEER_DEAD when nothing listens there
 * (within timeout_s), UMP_ERR_AUTH when the other side is of another job.
 * ump_join meets the process at the other end of a connected socket fd.
 *
 * The name service maps service names to port names: under umprun every
 * process of the job sees them, otherwise only this process.
 * ump_name_publish: UMP_ERR_BUSY when the service is published already;
 * unpublish: UMP_ERR_INVALID when it is not (or under another port); lookup:
 * UMP_ERR_INVALID when not published.
 */
#define UMP_PORT_NAME_MAX 256
int ump_port_open(char *name, size_t len);
int ump_port_close(const char *name);
int ump_port_accept(const char *name, const void *mine, size_t mlen, void **theirs, size_t *tlen);
int ump_port_connect(const char *name, const void *mine, size_t mlen, void **theirs, size_t *tlen,
                     int timeout_s);
int ump_join(int fd, const void *mine, size_t mlen, void **theirs, size_t *tlen);
int ump_name_publish(const char *service, const char *port);
int ump_name_unpublish(const char *service, const char *port);
int ump_name_lookup(const char *service, char *port, size_t len);
/* This job's identifier (16 hex digits): processes that meet compare it to
 * tell whether they are ranks of one world. */
const char *ump_job_id(void);

/*
 * Processes of other jobs (children spawned by this job, its parent, groups
 * met through a port). A process's card (at most UMP_CARD_MAX bytes) tells
 * another how to reach it: ump_peer_card writes this process's. Given a
 * card, ump_peer_add returns in *peer the rank to use for that process in
 * every call of this API (its world rank when it is of this job; otherwise
 * a rank past ump_size(), the same one for the same process every time;
 * ump_npeers() counts them all). UMP_ERR_PROTOCOL for a malformed card,
 * UMP_ERR_NO_TRANSPORT when no transport reaches the process (they meet
 * over tcp: UMP_TRANSPORTS must allow it), UMP_ERR_NO_RESOURCE past
 * 4096 processes of other jobs.
 */
#define UMP_CARD_MAX 4096
int ump_peer_card(void *buf, size_t len, size_t *out_len);
int ump_peer_add(const void *card, size_t len, int *peer);
int ump_npeers(void);

/*
 * Starting processes (MPI_Comm_spawn): ump_spawn asks the launcher to start
 * the programs of `apps` as one new job (its ranks numbered in app order),
 * each process told `parent_port` (ump_parent_port() in the child) and its
 * app's index (ump_appnum()). Returns once they were started (their job id,
 * 16 hex digits, in job_id), or UMP_ERR_INVALID (the launcher refused: the
 * reason in why), UMP_ERR_UNSUPPORTED (not started by umprun, which alone
 * starts processes), UMP_ERR_BOOTSTRAP (the launcher is gone).
 */
typedef struct ump_app {
    const char *cmd;
    char *const *argv; /* the arguments after cmd, NULL-terminated; may be NULL */
    int maxprocs;
    char *const *env;  /* "NAME=VALUE" entries, NULL-terminated; may be NULL */
    const char *wdir;  /* working directory; NULL: the launcher's */
    const char *hosts; /* comma-separated hosts of the launcher's; NULL: any */
} ump_app_t;
int ump_spawn(const ump_app_t *apps, int napps, const char *parent_port, char *job_id, size_t len,
              char *why, size_t whylen);
/* The port the parent job gave this process when it spawned it ("" when it
 * was not spawned), and its app's index (0 when not spawned). */
const char *ump_parent_port(void);
int ump_appnum(void);

/* --- point-to-point ------------------------------------------------------ */

/* Standard-mode send: completes when the buffer may be reused. */
int ump_isend(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
              ump_req_t *req);
/* ump_isend for callers that track completion themselves: a message the
 * transport takes at once (eager, nothing queued ahead of it, within the
 * receiver's credit) completes inside the call with no request, and *req
 * is UMP_REQ_NULL; otherwise as ump_isend. Such a send is never reported
 * by ump_peek. */
int ump_isend_inline(const void *buf, size_t count, ump_dt_t dt, int dst, int tag, uint32_t ctx,
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

/* --- one-sided reads ----------------------------------------------------- */

/* Reads count elements of dt at buf from peer's memory at address raddr
 * (count * the size of dt bytes there, one range, as the peer's own
 * virtual address): the pair's transport reads it with no message to the
 * layers above on the peer, whose progress serves it (tcp). The request
 * completes when every byte is in place. UMP_ERR_UNSUPPORTED, nothing
 * started, when the pair's transport cannot read that way or its reads
 * may lose to its messages (no reads, memory it must have registered,
 * reads the core times against copies, as shm's; a layout of more pieces
 * than it queues): send messages instead. The peer must keep the range
 * readable and unchanged until the request completes here. */
int ump_rget(void *buf, size_t count, ump_dt_t dt, int peer, uint64_t raddr, ump_req_t *req);
/* 1 when ump_rget can read from peer (a datatype of many pieces may
 * still be refused). */
int ump_rget_supported(int peer);

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

/* Counters the core keeps for the life of the process (read by MPI_T
 * performance variables, before ump_init and after ump_finalize too). They
 * only grow; a reader that wants a difference keeps the start value.
 * Point-to-point traffic of every layer is counted (collectives and
 * one-sided operations send messages too). */
typedef struct ump_stats {
    uint64_t msgs_sent;  /* messages sent (eager and rendezvous) */
    uint64_t bytes_sent; /* their bytes */
    uint64_t rdv_sent;   /* of those, sent by rendezvous (RTS) */
    uint64_t msgs_recv;  /* messages arrived (matched or queued) */
    uint64_t bytes_recv; /* their bytes */
    uint64_t unexpected; /* of those, arrived before a receive was posted */
    uint64_t progress;   /* passes of the progress engine */
    uint64_t requests;   /* now: requests handed out and not yet released */
    /* Datagrams of the transports that keep their own reliability (udp);
     * zero for the others. */
    uint64_t xp_sent, xp_received, xp_retransmitted, xp_duplicates, xp_corrupted, xp_timeouts;
} ump_stats_t;

/* Copies the counters into *st: UMP_OK, or UMP_ERR_INVALID for a NULL st. */
int ump_stats_get(ump_stats_t *st);

/* Drives communication once; returns the number of events handled (>= 0) or
 * an error. */
int ump_progress(void);

#ifdef __cplusplus
}
#endif

/* Collectives over communicators of ranks (ump_comm_t), reduction ops. */
#include "ump_coll.h"

#endif /* UMP_H */
