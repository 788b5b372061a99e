/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error reporting of the MPI layer: error classes and their texts, the
 * mapping from core status codes, error handlers (predefined and user) and
 * ump_mpi_error, through which every MPI call reports a bad argument or a
 * failed operation.
 *
 * Error codes equal error classes. MPI_Error_string(code) returns the
 * detailed text of the last error this thread raised when its class is
 * `code` ("MPI_Send: destination rank 7 is out of range [0, 4) in
 * communicator MPI_COMM_WORLD (MPI_ERR_RANK)"), otherwise the class text.
 * Keeping only the last message (thread-local) is what a handler or a
 * caller that just got the code back needs, at no cost per class.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

struct ump_mpi_errhandler ump_mpi_errors_are_fatal = {
    .magic = UMP_MPI_MAGIC_ERRH, .refcount = 1, .predefined = true};
struct ump_mpi_errhandler ump_mpi_errors_return = {
    .magic = UMP_MPI_MAGIC_ERRH, .refcount = 1, .predefined = true};
struct ump_mpi_errhandler ump_mpi_errhandler_null = {.magic = UMP_MPI_MAGIC_DEAD};

static const struct {
    const char *name, *text;
} classes[] = {
    [MPI_SUCCESS] = {"MPI_SUCCESS", "no error"},
    [MPI_ERR_BUFFER] = {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    [MPI_ERR_COUNT] = {"MPI_ERR_COUNT", "invalid count argument"},
    [MPI_ERR_TYPE] = {"MPI_ERR_TYPE", "invalid datatype"},
    [MPI_ERR_TAG] = {"MPI_ERR_TAG", "invalid tag"},
    [MPI_ERR_COMM] = {"MPI_ERR_COMM", "invalid communicator"},
    [MPI_ERR_RANK] = {"MPI_ERR_RANK", "invalid rank"},
    [MPI_ERR_REQUEST] = {"MPI_ERR_REQUEST", "invalid request"},
    [MPI_ERR_ROOT] = {"MPI_ERR_ROOT", "invalid root"},
    [MPI_ERR_GROUP] = {"MPI_ERR_GROUP", "invalid group"},
    [MPI_ERR_OP] = {"MPI_ERR_OP", "invalid operation"},
    [MPI_ERR_TOPOLOGY] = {"MPI_ERR_TOPOLOGY", "invalid topology"},
    [MPI_ERR_DIMS] = {"MPI_ERR_DIMS", "invalid dimension argument"},
    [MPI_ERR_ARG] = {"MPI_ERR_ARG", "invalid argument"},
    [MPI_ERR_UNKNOWN] = {"MPI_ERR_UNKNOWN", "unknown error"},
    [MPI_ERR_TRUNCATE] = {"MPI_ERR_TRUNCATE", "message truncated on receive"},
    [MPI_ERR_OTHER] = {"MPI_ERR_OTHER", "other error"},
    [MPI_ERR_INTERN] = {"MPI_ERR_INTERN", "internal error"},
    [MPI_ERR_IN_STATUS] = {"MPI_ERR_IN_STATUS", "error code is in status"},
    [MPI_ERR_PENDING] = {"MPI_ERR_PENDING", "pending request"},
    [MPI_ERR_ACCESS] = {"MPI_ERR_ACCESS", "permission denied"},
    [MPI_ERR_AMODE] = {"MPI_ERR_AMODE", "invalid file access mode"},
    [MPI_ERR_ASSERT] = {"MPI_ERR_ASSERT", "invalid assert argument"},
    [MPI_ERR_BAD_FILE] = {"MPI_ERR_BAD_FILE", "invalid file name"},
    [MPI_ERR_BASE] = {"MPI_ERR_BASE", "invalid base argument"},
    [MPI_ERR_CONVERSION] = {"MPI_ERR_CONVERSION", "data conversion error"},
    [MPI_ERR_DISP] = {"MPI_ERR_DISP", "invalid displacement"},
    [MPI_ERR_DUP_DATAREP] = {"MPI_ERR_DUP_DATAREP", "data representation already defined"},
    [MPI_ERR_FILE_EXISTS] = {"MPI_ERR_FILE_EXISTS", "file exists"},
    [MPI_ERR_FILE_IN_USE] = {"MPI_ERR_FILE_IN_USE", "file in use"},
    [MPI_ERR_FILE] = {"MPI_ERR_FILE", "invalid file handle"},
    [MPI_ERR_INFO_KEY] = {"MPI_ERR_INFO_KEY", "info key too long"},
    [MPI_ERR_INFO_NOKEY] = {"MPI_ERR_INFO_NOKEY", "info key not defined"},
    [MPI_ERR_INFO_VALUE] = {"MPI_ERR_INFO_VALUE", "info value too long"},
    [MPI_ERR_INFO] = {"MPI_ERR_INFO", "invalid info object"},
    [MPI_ERR_IO] = {"MPI_ERR_IO", "input/output error"},
    [MPI_ERR_KEYVAL] = {"MPI_ERR_KEYVAL", "invalid attribute key"},
    [MPI_ERR_LOCKTYPE] = {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    [MPI_ERR_NAME] = {"MPI_ERR_NAME", "invalid service name"},
    [MPI_ERR_NO_MEM] = {"MPI_ERR_NO_MEM", "out of memory"},
    [MPI_ERR_NOT_SAME] = {"MPI_ERR_NOT_SAME", "arguments differ between processes"},
    [MPI_ERR_NO_SPACE] = {"MPI_ERR_NO_SPACE", "not enough space"},
    [MPI_ERR_NO_SUCH_FILE] = {"MPI_ERR_NO_SUCH_FILE", "no such file"},
    [MPI_ERR_PORT] = {"MPI_ERR_PORT", "invalid port name"},
    [MPI_ERR_QUOTA] = {"MPI_ERR_QUOTA", "quota exceeded"},
    [MPI_ERR_READ_ONLY] = {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    [MPI_ERR_RMA_CONFLICT] = {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    [MPI_ERR_RMA_SYNC] = {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    [MPI_ERR_SERVICE] = {"MPI_ERR_SERVICE", "invalid service"},
    [MPI_ERR_SIZE] = {"MPI_ERR_SIZE", "invalid size argument"},
    [MPI_ERR_SPAWN] = {"MPI_ERR_SPAWN", "error spawning processes"},
    [MPI_ERR_UNSUPPORTED_DATAREP] = {"MPI_ERR_UNSUPPORTED_DATAREP",
                                     "unsupported data representation"},
    [MPI_ERR_UNSUPPORTED_OPERATION] = {"MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    [MPI_ERR_WIN] = {"MPI_ERR_WIN", "invalid window"},
    [MPI_ERR_RMA_RANGE] = {"MPI_ERR_RMA_RANGE", "target memory outside the window"},
    [MPI_ERR_RMA_ATTACH] = {"MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    [MPI_ERR_RMA_SHARED] = {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    [MPI_ERR_RMA_FLAVOR] = {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    [MPI_T_ERR_MEMORY] = {"MPI_T_ERR_MEMORY", "MPI_T: out of memory"},
    [MPI_T_ERR_NOT_INITIALIZED] = {"MPI_T_ERR_NOT_INITIALIZED",
                                   "MPI_T: the tool interface is not initialized"},
    [MPI_T_ERR_CANNOT_INIT] = {"MPI_T_ERR_CANNOT_INIT", "MPI_T: the tool interface cannot start"},
    [MPI_T_ERR_INVALID_INDEX] = {"MPI_T_ERR_INVALID_INDEX", "MPI_T: index out of range"},
    [MPI_T_ERR_INVALID_ITEM] = {"MPI_T_ERR_INVALID_ITEM", "MPI_T: enumeration item out of range"},
    [MPI_T_ERR_INVALID_HANDLE] = {"MPI_T_ERR_INVALID_HANDLE", "MPI_T: invalid handle"},
    [MPI_T_ERR_OUT_OF_HANDLES] = {"MPI_T_ERR_OUT_OF_HANDLES", "MPI_T: no more handles"},
    [MPI_T_ERR_OUT_OF_SESSIONS] = {"MPI_T_ERR_OUT_OF_SESSIONS", "MPI_T: no more sessions"},
    [MPI_T_ERR_INVALID_SESSION] = {"MPI_T_ERR_INVALID_SESSION", "MPI_T: invalid session"},
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = {"MPI_T_ERR_CVAR_SET_NOT_NOW",
                                    "MPI_T: the control variable cannot be set now"},
    [MPI_T_ERR_CVAR_SET_NEVER] = {"MPI_T_ERR_CVAR_SET_NEVER",
                                  "MPI_T: the control variable can never be set"},
    [MPI_T_ERR_PVAR_NO_STARTSTOP] =
        {"MPI_T_ERR_PVAR_NO_STARTSTOP",
         "MPI_T: the performance variable cannot be started or stopped"},
    [MPI_T_ERR_PVAR_NO_WRITE] = {"MPI_T_ERR_PVAR_NO_WRITE",
                                 "MPI_T: the performance variable cannot be written or reset"},
    [MPI_T_ERR_PVAR_NO_ATOMIC] =
        {"MPI_T_ERR_PVAR_NO_ATOMIC",
         "MPI_T: the performance variable cannot be read and reset at once"},
    [MPI_T_ERR_INVALID_NAME] = {"MPI_T_ERR_INVALID_NAME",
                                "MPI_T: no variable or category has that name"},
    [MPI_T_ERR_INVALID] = {"MPI_T_ERR_INVALID", "MPI_T: invalid argument"},
    [MPI_ERR_LASTCODE] = {"MPI_ERR_LASTCODE", "last error code"},
};

static const char *class_name(int c)
{
    if (c >= 0 && c < (int)UMP_ARRAY_SIZE(classes) && classes[c].name) return classes[c].name;
    return "MPI_ERR_UNKNOWN";
}

static const char *class_text(int c)
{
    if (c >= 0 && c < (int)UMP_ARRAY_SIZE(classes) && classes[c].text) return classes[c].text;
    return NULL;
}

/* The last detailed message this thread raised and its class. */
static __thread int last_class = -1;
static __thread char last_msg[MPI_MAX_ERROR_STRING];

int ump_mpi_class_of(int s)
{
    switch (s) {
    case UMP_OK:
    case UMP_INPROGRESS:
    case UMP_ERR_CANCELLED:
        return MPI_SUCCESS;
    case UMP_ERR_NO_MEMORY:
        return MPI_ERR_NO_MEM;
    case UMP_ERR_INVALID:
        return MPI_ERR_ARG;
    case UMP_ERR_RANK:
        return MPI_ERR_RANK;
    case UMP_ERR_TAG:
        return MPI_ERR_TAG;
    case UMP_ERR_COUNT:
        return MPI_ERR_COUNT;
    case UMP_ERR_BUFFER:
        return MPI_ERR_BUFFER;
    case UMP_ERR_DATATYPE:
        return MPI_ERR_TYPE;
    case UMP_ERR_REQUEST:
        return MPI_ERR_REQUEST;
    case UMP_ERR_TRUNCATE:
        return MPI_ERR_TRUNCATE;
    case UMP_ERR_UNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case UMP_ERR_IO:
        return MPI_ERR_IO;
    case UMP_ERR_INTERNAL:
        return MPI_ERR_INTERN;
    case UMP_ERR_OP:
        return MPI_ERR_OP;
    case UMP_ERR_ROOT:
        return MPI_ERR_ROOT;
    default:
        return MPI_ERR_OTHER;
    }
}

bool ump_mpi_errh_ok(MPI_Errhandler e)
{
    return e && e->magic == UMP_MPI_MAGIC_ERRH;
}

static void call_handler(MPI_Comm comm, int errclass)
{
    /* A reference held while it runs: another thread may replace comm's
     * handler meanwhile (MPI_Comm_set_errhandler drops the old one). */
    ump_mpi_lock();
    MPI_Errhandler h = comm->errh ? comm->errh : MPI_ERRORS_ARE_FATAL;
    ump_mpi_errh_ref(h);
    ump_mpi_unlock();
    if (h == MPI_ERRORS_RETURN) return;
    if (h == MPI_ERRORS_ARE_FATAL || !h->fn) {
        char msg[MPI_MAX_ERROR_STRING + 64];
        snprintf(msg, sizeof(msg), "MPI error on rank %d: %s", ump_rank(), last_msg);
        fprintf(stderr, "ump: %s\n", msg);
        fflush(NULL); /* the rank's own output too: ump_abort ends it with _exit */
        ump_abort(errclass ? errclass : 1, msg);
    }
    MPI_Comm c = comm;
    int code = errclass;
    h->fn(&c, &code);
    ump_mpi_errh_unref(h);
}

int ump_mpi_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    bool comm_ok = ump_mpi_comm_ok(comm);
    char name[MPI_MAX_OBJECT_NAME + 32];
    if (comm_ok)
        snprintf(last_msg, sizeof(last_msg), "%.64s: %.320s in communicator %.80s (%s)", call,
                 detail, ump_mpi_comm_name(comm, name, sizeof(name)), class_name(errclass));
    else
        snprintf(last_msg, sizeof(last_msg), "%.64s: %.400s (%s)", call, detail,
                 class_name(errclass));
    last_class = errclass;
    ump_debug("MPI error: %s", last_msg);
    /* Errors outside a communicator go to MPI_COMM_WORLD's handler (MPI 3.1 8.3). */
    call_handler(comm_ok ? comm : MPI_COMM_WORLD, errclass);
    return errclass;
}

/* --- MPI functions --------------------------------------------------------- */

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char call[] = "MPI_Error_string";
    if (!string || !resultlen)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "string or resultlen is NULL");
    const char *text = class_text(errorcode);
    if (!text && ump_mpi_errcode_added(errorcode, NULL, string, MPI_MAX_ERROR_STRING)) {
        /* An added code: its string, "" when the program set none (MPI 3.1 8.5). */
        *resultlen = (int)strlen(string);
        return MPI_SUCCESS;
    }
    if (!text)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "error code %d is not defined",
                             errorcode);
    int n;
    if (errorcode == last_class && errorcode != MPI_SUCCESS)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", last_msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (%s)", text, class_name(errorcode));
    *resultlen = UMP_MIN(n, MPI_MAX_ERROR_STRING - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    static const char call[] = "MPI_Error_class";
    if (!errorclass) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "errorclass is NULL");
    if (!class_text(errorcode) && ump_mpi_errcode_added(errorcode, errorclass, NULL, 0))
        return MPI_SUCCESS;
    if (!class_text(errorcode))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "error code %d is not defined",
                             errorcode);
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Comm_create_errhandler";
    UMP_MPI_CHECK_INIT(call);
    if (!fn || !errhandler)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "function or handle pointer is NULL");
    MPI_Errhandler e = calloc(1, sizeof(*e));
    if (!e) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    e->magic = UMP_MPI_MAGIC_ERRH;
    e->refcount = 1;
    e->fn = fn;
    *errhandler = e;
    return MPI_SUCCESS;
}

static void errh_unref(MPI_Errhandler e)
{
    if (!e || e->predefined) return;
    if (__atomic_sub_fetch(&e->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        e->magic = UMP_MPI_MAGIC_DEAD;
        free(e);
    }
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Errhandler_free";
    UMP_MPI_CHECK_INIT(call);
    if (!errhandler || !ump_mpi_errh_ok(*errhandler))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "invalid error handler");
    errh_unref(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_Comm_set_errhandler";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!ump_mpi_errh_ok(errhandler))
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "invalid error handler");
    ump_mpi_errh_ref(errhandler);
    /* Under the lock, as the readers that take a reference (get, the
     * communicators made from comm) must not see the old one freed. */
    ump_mpi_lock();
    MPI_Errhandler old = comm->errh;
    comm->errh = errhandler;
    ump_mpi_unlock();
    errh_unref(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Comm_get_errhandler";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!errhandler) return ump_mpi_error(comm, MPI_ERR_ARG, call, "errhandler pointer is NULL");
    ump_mpi_lock();
    MPI_Errhandler e = comm->errh ? comm->errh : MPI_ERRORS_ARE_FATAL;
    /* The handle returned is a new reference the user frees (MPI 3.1 8.3). */
    ump_mpi_errh_ref(e);
    ump_mpi_unlock();
    *errhandler = e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char call[] = "MPI_Comm_call_errhandler";
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    const char *text = class_text(errorcode);
    snprintf(last_msg, sizeof(last_msg), "%s: error code %d (%s) raised by the program", call,
             errorcode, text ? text : "undefined code");
    last_class = errorcode;
    call_handler(comm, errorcode);
    return MPI_SUCCESS;
}

/* Used by comm.c: a new communicator inherits its parent's handler. */
void ump_mpi_errh_ref(MPI_Errhandler e)
{
    if (e && !e->predefined) __atomic_add_fetch(&e->refcount, 1, __ATOMIC_RELAXED);
}
void ump_mpi_errh_unref(MPI_Errhandler e)
{
    errh_unref(e);
}
