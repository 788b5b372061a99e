/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_impl.h - the objects behind MPI handles, shared by the files of
 * src/mpi (and read by src/coll for communicators and ops).
 *
 * Conventions for every MPI function:
 *   - it is defined as PMPI_X, with `#pragma weak MPI_X = PMPI_X` beside it,
 *     so profiling tools can wrap MPI_X; ump's own internal calls use PMPI_X;
 *   - it checks every argument (UMP_MPI_CHECK_* below) and reports a bad one
 *     with ump_mpi_error(), which names the call, the rank and the argument,
 *     calls the communicator's error handler and returns the error class;
 *   - it uses only the core API (ump.h), src/dt and src/coll; never a
 *     transport.
 */
#ifndef UMP_MPI_IMPL_H
#define UMP_MPI_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "dt/dt.h"
#include "mpi.h"
#include "ump.h"

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
    int refcount;    /* predefined groups are never freed */
    bool predefined;
    int size;
    int rank;        /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;      /* group rank -> rank in MPI_COMM_WORLD (ump_rank numbering) */
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
    MPI_Group group;       /* rank mapping lives in the group */
    uint32_t ctx_p2p;      /* core context of point-to-point traffic */
    uint32_t ctx_coll;     /* core context of collective traffic */
    MPI_Errhandler errh;
    ump_mpi_attr_t *attrs;
    char name[MPI_MAX_OBJECT_NAME];
    void *coll;            /* src/coll's per-communicator state (NULL until used) */
};

/* Translations between communicator ranks and core (world) ranks. */
static inline int ump_mpi_world_rank(MPI_Comm c, int rank) { return c->group->world[rank]; }
/* Communicator rank of a core rank, or MPI_UNDEFINED. */
int ump_mpi_comm_rank_of(MPI_Comm c, int world_rank);

struct ump_mpi_op {
    uint32_t magic;
    bool predefined;
    bool commutative;
    int refcount;
    MPI_User_function *user_fn; /* user ops; NULL for predefined (src/coll applies them) */
    const char *name;
};

struct ump_mpi_info {
    uint32_t magic;
    int nkeys;
    char **keys, **values;
};

struct ump_mpi_message {
    uint32_t magic;
    ump_msg_t msg;   /* the core's matched message */
    MPI_Comm comm;
};

typedef enum {
    UMP_MPI_REQ_SEND = 1,
    UMP_MPI_REQ_RECV,
    UMP_MPI_REQ_COLL,     /* nonblocking collective (a core generalized request) */
} ump_mpi_req_kind_t;

struct ump_mpi_request {
    uint32_t magic;
    uint8_t kind;          /* ump_mpi_req_kind_t */
    bool persistent;       /* created by *_init; freed only by MPI_Request_free */
    bool active;           /* persistent: started and not yet completed */
    bool proc_null;        /* peer was MPI_PROC_NULL: complete at once */
    bool freed;            /* MPI_Request_free on an active request */
    int mode;              /* send mode: 0 standard, 1 sync, 2 ready, 3 buffered */
    ump_req_t core;        /* the core request, UMP_REQ_NULL when none */
    MPI_Comm comm;
    /* arguments kept for persistent requests and for unpacking */
    const void *buf;
    int count;
    MPI_Datatype dt;
    int peer, tag;
    void *packbuf;         /* packed copy of a non-contiguous message, or NULL */
    size_t packlen;
    MPI_Status status;     /* final status, when completed outside the core */
};

/* Raises error `errclass` on `comm` (MPI_COMM_WORLD when comm is
 * MPI_COMM_NULL or invalid): formats "<call>: <message> (rank R)", stores
 * it for MPI_Error_string, calls the communicator's error handler (fatal
 * handler: prints and aborts the job through ump_abort) and returns
 * errclass for the caller to return. */
int ump_mpi_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* MPI error class for a core status code (UMP_ERR_TRUNCATE -> MPI_ERR_TRUNCATE, ...). */
int ump_mpi_class_of(int ump_status);

/* Validity checks shared by every file (return true when valid). */
bool ump_mpi_comm_ok(MPI_Comm c);
bool ump_mpi_group_ok(MPI_Group g);
bool ump_mpi_op_ok(MPI_Op op);
/* A datatype usable for communication: non-null, not freed, committed. */
bool ump_mpi_dt_ok(MPI_Datatype dt);

/* Whether MPI_Init has run and MPI_Finalize has not. */
bool ump_mpi_active(void);

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
/* A null buffer is valid with MPI_BOTTOM and types of absolute addresses,
 * so it is refused only when the type cannot reach memory by itself. */
bool ump_mpi_buf_ok(const void *buf, int count, MPI_Datatype dt);
#define UMP_MPI_CHECK_BUF(call, c, buf, n, dt)                                                     \
    do {                                                                                           \
        if (!ump_mpi_buf_ok(buf, n, dt))                                                           \
            return ump_mpi_error(c, MPI_ERR_BUFFER, call, "buffer is null with count %d",         \
                                 (int)(n));                                                        \
    } while (0)

#endif /* UMP_MPI_IMPL_H */
