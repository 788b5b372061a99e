/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_impl.h - the objects behind MPI handles, shared by the files of
 * src/mpi.
 *
 * Conventions for every MPI function:
 *   - it is defined as PMPI_X, with `#pragma weak MPI_X = PMPI_X` beside it,
 *     so profiling tools can wrap MPI_X; ump's own internal calls use PMPI_X;
 *   - it checks every argument (UMP_MPI_CHECK_* below) and reports a bad one
 *     with ump_mpi_error(), which names the call, the rank and the argument,
 *     calls the communicator's error handler and returns the error class;
 *   - it uses only the core API (ump.h, with the collectives of
 *     ump_coll.h) and src/dt; never a transport.
 */
#ifndef UMP_MPI_IMPL_H
#define UMP_MPI_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include <stdlib.h>

#include "dt/dt.h"
#include "mpi.h"
#include "ump.h"
#include "util/util.h"

/* Magic numbers catch stale or foreign handles. */
enum {
    UMP_MPI_MAGIC_COMM = 0x636f6d6d,  /* "comm" */
    UMP_MPI_MAGIC_GROUP = 0x67727570, /* "grup" */
    UMP_MPI_MAGIC_REQ = 0x72657175,   /* "requ" */
    UMP_MPI_MAGIC_ERRH = 0x65727268,  /* "errh" */
    UMP_MPI_MAGIC_INFO = 0x696e666f,  /* "info" */
    UMP_MPI_MAGIC_OP = 0x6f706572,    /* "oper" */
    UMP_MPI_MAGIC_MSG = 0x6d657367,   /* "mesg" */
    UMP_MPI_MAGIC_DEAD = 0x64656164,  /* "dead": set when an object is freed */
};

struct ump_mpi_group {
    uint32_t magic;
    int refcount; /* predefined groups are never freed */
    bool predefined;
    int size;
    int rank;        /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;      /* group rank -> rank in MPI_COMM_WORLD (ump_rank numbering) */
    int *inverse;    /* world rank -> group rank or MPI_UNDEFINED; built on first use */
    int inverse_len; /* entries of inverse: largest world rank in the group + 1 */
};

typedef struct ump_mpi_attr {
    struct ump_mpi_attr *next;
    int keyval;
    void *value;
} ump_mpi_attr_t;

struct ump_mpi_errhandler {
    uint32_t magic;
    int refcount;
    bool predefined;
    MPI_Comm_errhandler_function *fn; /* NULL for the two predefined ones */
};

struct ump_mpi_comm {
    uint32_t magic;
    bool predefined;
    int rank, size;
    MPI_Group group;   /* rank mapping lives in the group */
    uint32_t ctx_p2p;  /* core context of point-to-point traffic */
    uint32_t ctx_coll; /* core context of collective traffic */
    MPI_Errhandler errh;
    ump_mpi_attr_t *attrs;
    char name[MPI_MAX_OBJECT_NAME];
    ump_comm_t ucomm; /* the core communicator its collectives run on (ctx_coll) */
    int ctx_id;       /* index in the context-id bitmap (ctx_p2p = base + 2 * id) */
    int refcount;     /* handle + pending frees; freed at zero */
    /* Process topology (topo.h), or NULL. */
    struct ump_mpi_topo *topo;
    MPI_Info info; /* hints set by the program (comm_info.c), or NULL */
    /* Intercommunicators (inter.c): the remote group, which point-to-point
     * ranks name, else NULL; `local` is an intracommunicator of the local
     * group for the construction calls; `low` orders the two groups. */
    MPI_Group rgroup;
    MPI_Comm local;
    bool low;
};

/* The group point-to-point ranks name: the remote one of an
 * intercommunicator, else the communicator's own. */
static inline MPI_Group ump_mpi_peer_group(MPI_Comm c)
{
    return __builtin_expect(c->rgroup != NULL, 0) ? c->rgroup : c->group;
}
static inline int ump_mpi_peer_size(MPI_Comm c)
{
    return ump_mpi_peer_group(c)->size;
}
/* Translations between point-to-point ranks and core (world) ranks. */
static inline int ump_mpi_world_rank(MPI_Comm c, int rank)
{
    return ump_mpi_peer_group(c)->world[rank];
}
/* Point-to-point rank of a core rank (in the remote group of an
 * intercommunicator), or MPI_UNDEFINED. */
int ump_mpi_comm_rank_of(MPI_Comm c, int world_rank);

struct ump_mpi_op {
    uint32_t magic;
    bool predefined;
    bool commutative;
    MPI_User_function *user_fn; /* user ops; NULL for predefined */
    const char *name;
    /* The op collectives run with: a predefined UMP_OP_* or a user op that
     * calls user_fn (op.c). A user op's object lives until that op is
     * released, which running collectives may delay past MPI_Op_free. */
    ump_redop_t uop;
};

struct ump_mpi_info {
    uint32_t magic;
    int nkeys;
    char **keys, **values;
};

struct ump_mpi_message {
    uint32_t magic;
    ump_msg_t msg; /* the core's matched message */
    MPI_Comm comm;
};

typedef enum {
    UMP_MPI_REQ_SEND = 1,
    UMP_MPI_REQ_RECV,
    UMP_MPI_REQ_COLL, /* nonblocking collective (a core generalized request) */
    UMP_MPI_REQ_GREQ, /* MPI_Grequest_start (grequest.c); free_arg is its state */
} ump_mpi_req_kind_t;

struct ump_mpi_request {
    uint32_t magic;
    uint8_t kind;    /* ump_mpi_req_kind_t */
    bool persistent; /* created by *_init; freed only by MPI_Request_free */
    bool active;     /* persistent: started and not yet completed */
    bool proc_null;  /* peer was MPI_PROC_NULL: complete at once */
    bool freed;      /* MPI_Request_free on an active request */
    int mode;        /* send mode: 0 standard, 1 sync, 2 ready, 3 buffered */
    ump_req_t core;  /* the core request, UMP_REQ_NULL when none */
    MPI_Comm comm;
    /* arguments kept for persistent requests and for unpacking */
    const void *buf;
    int count;
    MPI_Datatype dt;
    int peer, tag;
    void *packbuf; /* packed copy of a non-contiguous message, or NULL */
    size_t packlen;
    MPI_Status status;        /* final status, when completed outside the core */
    bool complete;            /* completed outside the core (PROC_NULL, buffered send, error) */
    bool cancelled;           /* MPI_Cancel was called */
    ump_status_t core_status; /* the core's status at completion, for error messages */
    bool pooled;              /* made by ump_mpi_req_new: pooled, holds a comm reference */
    ump_msg_t msg;            /* Imrecv: not used after start */
    /* Called once when the request is released (src/coll frees its schedule). */
    void (*free_fn)(void *arg);
    void *free_arg;
};

/* ump_mpi_req_new and ump_mpi_req_release (the end of this file) make and
 * release request objects. */
/* Generalized requests (grequest.c): completion runs the query callback
 * (fills *st when not NULL, returns the request's error); MPI_Cancel runs
 * the cancel callback. */
int ump_mpi_greq_finish(MPI_Request r, MPI_Status *st);
int ump_mpi_greq_query(MPI_Request r, MPI_Status *st); /* the query only */
int ump_mpi_greq_cancel(MPI_Request r);

/* Core contexts of MPI communicators: id n uses base + 2n (point-to-point)
 * and base + 2n + 1 (collectives); core contexts below the base stay free
 * for users of ump.h. */
#define UMP_MPI_CTX_BASE    0x10000u
#define UMP_MPI_MAX_CTX_IDS 4096
/* Tags on ctx_coll that src/mpi uses for communicator construction; the
 * collectives use tags below 2^30 (ump_coll.h). */
#define UMP_MPI_TAG_COMM_BASE 0x7fff0000

/* MPI status from a core status on `comm` (rank translated). MPI_ERROR is
 * left untouched (only the multi-completion calls set it). */
void ump_mpi_status_from_core(MPI_Comm comm, const ump_status_t *u, MPI_Status *st);
/* Status of an operation with MPI_PROC_NULL / of a null request. */
void ump_mpi_status_proc_null(MPI_Status *st);
void ump_mpi_status_empty(MPI_Status *st);

/* Thread level granted at MPI_Init; the MPI layer's own lock (for its
 * global tables) is taken only at MPI_THREAD_MULTIPLE. */
extern int ump_mpi_thread_level;
void ump_mpi_lock_multiple(void);
void ump_mpi_unlock_multiple(void);
static inline void ump_mpi_lock(void)
{
    if (__builtin_expect(ump_mpi_thread_level == MPI_THREAD_MULTIPLE, 0)) ump_mpi_lock_multiple();
}
static inline void ump_mpi_unlock(void)
{
    if (__builtin_expect(ump_mpi_thread_level == MPI_THREAD_MULTIPLE, 0)) ump_mpi_unlock_multiple();
}

/* Raises error `errclass` on `comm` (MPI_COMM_WORLD when comm is
 * MPI_COMM_NULL or invalid): formats "<call>: <message> in communicator
 * <name> (<CLASS>)" (without the communicator part when there is none),
 * keeps it as this thread's last error for MPI_Error_string, calls the
 * communicator's error handler (the fatal one prints "ump: MPI error on
 * rank R: ..." and ends the job through ump_abort with errclass as exit
 * code) and returns errclass for the caller to return. */
int ump_mpi_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* MPI error class for a core status code (UMP_ERR_TRUNCATE -> MPI_ERR_TRUNCATE,
 * UMP_ERR_OP -> MPI_ERR_OP, ...): the one place codes become classes. */
int ump_mpi_class_of(int ump_status);
/* The same, with success (every message's status) inline. */
static inline int ump_mpi_class_of_fast(int ump_status)
{
    return ump_status == UMP_OK ? MPI_SUCCESS : ump_mpi_class_of(ump_status);
}

/* The largest error code in use: MPI_ERR_LASTCODE until MPI_Add_error_class
 * or _code adds one (errclass.c); the value of attribute MPI_LASTUSEDCODE. */
extern int ump_mpi_lastusedcode;
/* Whether code was added at run time; if so its class and its string ("" when
 * none was added) are stored through the non-NULL pointers. */
bool ump_mpi_errcode_added(int code, int *cls, char *text, size_t len);

/* Validity checks shared by every file (return true when valid). They are
 * on every call's path, so each is a load and a compare of a magic field,
 * inline. */
static inline bool ump_mpi_comm_ok(MPI_Comm c)
{
    return c && c->magic == UMP_MPI_MAGIC_COMM;
}
bool ump_mpi_group_ok(MPI_Group g);
bool ump_mpi_op_ok(MPI_Op op);
/* A datatype usable for communication: non-null, not freed, committed. */
static inline bool ump_mpi_dt_ok(MPI_Datatype dt)
{
    return ump_dt_valid(dt) && !dt->user_freed && dt->committed;
}

/* Whether MPI_Init has run and MPI_Finalize has not (env.c keeps it). */
extern bool ump_mpi_live;
static inline bool ump_mpi_active(void)
{
    return ump_mpi_live;
}
bool ump_mpi_info_ok(MPI_Info info);
bool ump_mpi_errh_ok(MPI_Errhandler e);
void ump_mpi_errh_ref(MPI_Errhandler e);
void ump_mpi_errh_unref(MPI_Errhandler e);

/* Groups: a new group of n world ranks (copied), refcount 1; or NULL. */
MPI_Group ump_mpi_group_new(int n, const int *world);
/* Group rank of a world rank, or MPI_UNDEFINED. */
int ump_mpi_group_rank_of(MPI_Group g, int world_rank);
void ump_mpi_group_unref(MPI_Group g);
/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int ump_mpi_group_compare(MPI_Group a, MPI_Group b);

/* Reference counts of handles are atomic: requests, groups and
 * communicators may be shared between threads at MPI_THREAD_MULTIPLE. */
static inline void ump_mpi_comm_ref(MPI_Comm c)
{
    if (c && !c->predefined) __atomic_add_fetch(&c->refcount, 1, __ATOMIC_RELAXED);
}
static inline void ump_mpi_group_ref(MPI_Group g)
{
    if (g && !g->predefined) __atomic_add_fetch(&g->refcount, 1, __ATOMIC_RELAXED);
}

/* Communicator helpers (comm.c). */
/* Attributes (attr.c): copy callbacks on dup, delete callbacks on free. */
int ump_mpi_attr_copy_all(MPI_Comm oldc, MPI_Comm newc);
int ump_mpi_attr_delete_all(MPI_Comm c);
/* Attributes of datatypes and windows (keyval_obj.c): one store for both
 * kinds. A kind names itself in errors, raises them on its object (obj
 * NULL: none) and calls its callbacks, kept as generic function pointers
 * and converted back to their own type. */
typedef void (*ump_mpi_kv_fn_t)(void);
typedef struct ump_mpi_kv_kind {
    const char *what; /* "datatype", "window" */
    int (*raise)(void *obj, int cls, const char *call, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
    int (*call_copy)(ump_mpi_kv_fn_t fn, void *obj, int k, void *extra, void *in, void *out,
                     int *flag);
    int (*call_del)(ump_mpi_kv_fn_t fn, void *obj, int k, void *val, void *extra);
} ump_mpi_kv_kind_t;
int ump_mpi_kv_create(const ump_mpi_kv_kind_t *kind, const char *call, ump_mpi_kv_fn_t copy,
                      ump_mpi_kv_fn_t del, int *keyval, void *extra);
int ump_mpi_kv_free(const ump_mpi_kv_kind_t *kind, const char *call, int *keyval);
int ump_mpi_kv_set(const ump_mpi_kv_kind_t *kind, const char *call, void *obj, int k, void *val);
int ump_mpi_kv_get(const ump_mpi_kv_kind_t *kind, const char *call, void *obj, int k, void *val,
                   int *flag);
int ump_mpi_kv_delete(const ump_mpi_kv_kind_t *kind, const char *call, void *obj, int k);
/* Runs the copy callbacks of oldobj's attributes onto newobj; MPI class. */
int ump_mpi_kv_copy_all(void *oldobj, void *newobj);
/* Runs every delete callback of obj and drops its attributes; MPI class. */
int ump_mpi_kv_delete_all(void *obj);
/* Datatype attributes (keyval_type.c): copied by MPI_Type_dup, deleted by
 * MPI_Type_free; MPI class. */
int ump_mpi_type_attr_copy(MPI_Datatype oldt, MPI_Datatype newt);
int ump_mpi_type_attr_delete_all(MPI_Datatype dt);
/* Info hints (comm_info.c): copied by MPI_Comm_dup, freed with the object. */
int ump_mpi_comm_info_copy(MPI_Comm oldc, MPI_Comm newc);
void ump_mpi_comm_info_free(MPI_Comm c);
void ump_mpi_comm_free_last(MPI_Comm c);
/* Drops a reference; the last one frees the communicator. Predefined
 * communicators (the usual case on every request) cost a test. */
static inline void ump_mpi_comm_unref(MPI_Comm c)
{
    if (!c || c->predefined) return;
    if (__atomic_sub_fetch(&c->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
    ump_mpi_comm_free_last(c);
}
/* Topologies (topo_common.c): copied by MPI_Comm_dup (collective over the
 * new communicator), freed with the communicator object. */
int ump_mpi_topo_dup(const char *call, MPI_Comm oldc, MPI_Comm newc);
void ump_mpi_topo_free(MPI_Comm c);
/* Name of a communicator for error messages ("MPI_COMM_WORLD", "<unnamed,
 * context id 5>"), copied into buf (len >= MPI_MAX_OBJECT_NAME); returns buf. */
const char *ump_mpi_comm_name(MPI_Comm c, char *buf, size_t len);
/* Called by MPI_Init / MPI_Finalize. */
int ump_mpi_comm_init(void);
void ump_mpi_comm_fini(void);
void ump_mpi_info_env_init(int argc, char **argv);
void ump_mpi_info_env_fini(void);
/* Buffered sends (bsend.c): completes outstanding ones at finalize. */
void ump_mpi_bsend_fini(void);
/* Requests freed while active (MPI_Request_free) are finished here. */
void ump_mpi_req_reap_some(bool finalizing);
extern size_t ump_mpi_norphans; /* requests waiting in that list */
static inline void ump_mpi_req_reap(bool finalizing)
{
    if (__atomic_load_n(&ump_mpi_norphans, __ATOMIC_RELAXED)) ump_mpi_req_reap_some(finalizing);
}

#define UMP_MPI_CHECK_INIT(call)                                                                   \
    do {                                                                                           \
        if (!ump_mpi_active())                                                                     \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_OTHER, call,                               \
                                 "MPI is not initialized or already finalized");                   \
    } while (0)
#define UMP_MPI_CHECK_COMM(call, c)                                                                \
    do {                                                                                           \
        if (!ump_mpi_comm_ok(c))                                                                   \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call, "invalid communicator");       \
    } while (0)
/* For the calls MPI 3.1 defines on intracommunicators only. */
#define UMP_MPI_CHECK_INTRA(call, c)                                                               \
    do {                                                                                           \
        if ((c)->rgroup)                                                                           \
            return ump_mpi_error(c, MPI_ERR_COMM, call,                                            \
                                 "the communicator is an intercommunicator; this call takes an "   \
                                 "intracommunicator only");                                        \
    } while (0)
#define UMP_MPI_CHECK_COUNT(call, c, n)                                                            \
    do {                                                                                           \
        if ((n) < 0)                                                                               \
            return ump_mpi_error(c, MPI_ERR_COUNT, call, "count %d is negative", (int)(n));        \
    } while (0)
#define UMP_MPI_CHECK_DT(call, c, dt)                                                              \
    do {                                                                                           \
        if (!ump_mpi_dt_ok(dt))                                                                    \
            return ump_mpi_error(c, MPI_ERR_TYPE, call,                                            \
                                 "datatype is null, freed or not committed");                      \
    } while (0)
/* MPI 3.1 §4.1: a type map with overlapping entries may be sent from but
 * receiving into it is erroneous. Refused up front (before anything is
 * posted or sent) with MPI_ERR_TYPE; use after UMP_MPI_CHECK_DT and the
 * count check. The answer is cached in the type (ump_dt_overlaps); a type
 * whose elements are one range cannot overlap, so it costs no call. */
#define UMP_MPI_CHECK_RECV_DT(call, c, dt, n)                                                      \
    do {                                                                                           \
        if (!(dt)->contiguous && ump_dt_overlaps(dt, (size_t)(n)))                                 \
            return ump_mpi_error(c, MPI_ERR_TYPE, call,                                            \
                                 "receive datatype '%s' has overlapping entries (count %d): a "    \
                                 "receive into it would write some bytes twice",                   \
                                 (dt)->name && *(dt)->name ? (dt)->name : "(unnamed)", (int)(n));  \
    } while (0)
/* A null buffer is valid with MPI_BOTTOM and types of absolute addresses,
 * so it is refused only when the type cannot reach memory by itself. */
static inline bool ump_mpi_buf_ok(const void *buf, int count, MPI_Datatype dt)
{
    if (buf || count == 0 || !ump_dt_valid(dt) || dt->size == 0) return true;
    /* MPI_BOTTOM with a type built from absolute addresses (MPI_Get_address)
     * reaches memory through its displacements alone. */
    return dt->true_lb != 0;
}
/* A datatype's name for MPI: MPI's spelling for a predefined type
 * ("MPI_INT"; the engine's own is ump.h's "UMP_INT"), else the name set
 * ("" when none). Never NULL. */
const char *ump_mpi_dt_name(MPI_Datatype dt);
#define UMP_MPI_CHECK_BUF(call, c, buf, n, dt)                                                     \
    do {                                                                                           \
        if (!ump_mpi_buf_ok(buf, n, dt))                                                           \
            return ump_mpi_error(c, MPI_ERR_BUFFER, call, "buffer is null with count %d",          \
                                 (int)(n));                                                        \
    } while (0)

/* --- request objects ------------------------------------------------------
 *
 * Inline, as every non-blocking call makes one and every completion
 * releases one: the free list's pop and push and the field stores fold into
 * the caller, which overwrites most fields right after.
 */
extern ump_freelist_t ump_mpi_req_fl; /* under ump_mpi_lock */

/* A new request of `kind` on `comm` (refcount of comm taken), or NULL. For
 * UMP_MPI_REQ_COLL the caller stores its core generalized request in ->core.
 * (A request the caller calloc'd itself, magic and kind set, also works:
 * it is freed with free() and holds no communicator reference.) */
static inline MPI_Request ump_mpi_req_new(int kind, MPI_Comm comm)
{
    ump_mpi_lock();
    if (UMP_UNLIKELY(!ump_mpi_req_fl.obj_size))
        ump_freelist_init(&ump_mpi_req_fl, sizeof(struct ump_mpi_request), 64);
    MPI_Request r = ump_freelist_take(&ump_mpi_req_fl);
    ump_mpi_unlock();
    if (!r) return NULL;
    ump_mpi_comm_ref(comm);
    /* Every field, one by one: cheaper than zeroing the whole object on
     * each message. */
    r->magic = UMP_MPI_MAGIC_REQ;
    r->kind = (uint8_t)kind;
    r->persistent = false;
    r->active = false;
    r->proc_null = false;
    r->freed = false;
    r->mode = 0;
    r->core = UMP_REQ_NULL;
    r->comm = comm;
    r->buf = NULL;
    r->count = 0;
    r->dt = NULL;
    r->peer = 0;
    r->tag = 0;
    r->packbuf = NULL;
    r->packlen = 0;
    r->status = (MPI_Status){0};
    r->complete = false;
    r->cancelled = false;
    r->core_status = (ump_status_t){0};
    r->pooled = true;
    r->msg = NULL;
    r->free_fn = NULL;
    r->free_arg = NULL;
    return r;
}

/* Releases a request object (calls free_fn, drops the comm reference). */
static inline void ump_mpi_req_release(MPI_Request r)
{
    if (r->free_fn) r->free_fn(r->free_arg);
    if (r->dt) ump_dt_unref(r->dt);
    if (r->packbuf) free(r->packbuf);
    MPI_Comm c = r->comm;
    r->magic = UMP_MPI_MAGIC_DEAD;
    if (!r->pooled) {
        free(r);
        return;
    }
    ump_mpi_lock();
    ump_freelist_put(&ump_mpi_req_fl, r);
    ump_mpi_unlock();
    ump_mpi_comm_unref(c);
}

/* spawn.c */
/* A spawned process's MPI_Init: meets its parent group on the port it was
 * given (nothing when it was not spawned). MPI_Comm_free forgets the parent
 * intercommunicator when it is freed (or disconnected). */
int ump_mpi_parent_connect(void);
void ump_mpi_parent_forget(MPI_Comm c);

#endif /* UMP_MPI_IMPL_H */
