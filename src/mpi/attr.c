/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator attributes and keyvals. A keyval is a slot in a table
 * (handle = index + FIRST_USER_KEYVAL, so the predefined MPI_TAG_UB..
 * MPI_WTIME_IS_GLOBAL never collide); it stays allocated while attributes
 * use it, even after MPI_Comm_free_keyval, as MPI 3.1 6.7.2 requires.
 * Attributes are a short list per communicator.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

enum { FIRST_USER_KEYVAL = 16 };

typedef struct {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    int refcount; /* the handle (until freed) + attributes that use it */
    bool freed;
} keyval_t;

static keyval_t *keyvals;
static int nkeyvals, keyvals_cap;

/* Values of the predefined attributes (MPI 3.1 8.1.2); get_attr returns
 * pointers to them. */
static int attr_tag_ub = UMP_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE; /* every rank can do I/O */
static int attr_wtime_global = 0;
static int attr_universe_size, attr_appnum;

/* MPI_UNIVERSE_SIZE: the slots umprun was given (UMP_JOB_UNIVERSE_SIZE),
 * never fewer than the job's ranks; a job started otherwise (a singleton,
 * another launcher) has a universe of its own size. ump starts one
 * program per job, so MPI_APPNUM is 0. */
static int *universe_size(void)
{
    if (!attr_universe_size) {
        const char *e = getenv("UMP_JOB_UNIVERSE_SIZE");
        char *end;
        long v = e ? strtol(e, &end, 10) : 0;
        if (!e || *end || v < ump_size() || v > INT_MAX) v = ump_size();
        attr_universe_size = (int)v;
    }
    return &attr_universe_size;
}

int ump_mpi_comm_null_copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int ump_mpi_comm_dup_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int ump_mpi_comm_null_delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

static bool predefined_key(int k)
{
    return k >= MPI_TAG_UB && k <= MPI_APPNUM;
}

/* The keyval of a user handle, or NULL. Call with the lock held. */
static keyval_t *kv_of(int k)
{
    int i = k - FIRST_USER_KEYVAL;
    if (i < 0 || i >= nkeyvals || keyvals[i].refcount <= 0) return NULL;
    return &keyvals[i];
}

static void kv_unref(int k)
{
    keyval_t *kv = kv_of(k);
    if (kv) kv->refcount--;
}

/* The body of MPI_Comm_create_keyval, which the deprecated form shares under its own name. */
static int create_keyval(const char *call, MPI_Comm_copy_attr_function *copy_fn,
                         MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                         void *extra_state)
{
    UMP_MPI_CHECK_INIT(call);
    if (!comm_keyval)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "comm_keyval pointer is NULL");
    ump_mpi_lock();
    if (nkeyvals == keyvals_cap) {
        int cap = keyvals_cap ? keyvals_cap * 2 : 16;
        keyval_t *t = realloc(keyvals, sizeof(*t) * (size_t)cap);
        if (!t) {
            ump_mpi_unlock();
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
        }
        keyvals = t;
        keyvals_cap = cap;
    }
    keyval_t *kv = &keyvals[nkeyvals];
    kv->copy = copy_fn ? copy_fn : MPI_COMM_NULL_COPY_FN;
    kv->del = delete_fn ? delete_fn : MPI_COMM_NULL_DELETE_FN;
    kv->extra = extra_state;
    kv->refcount = 1;
    kv->freed = false;
    *comm_keyval = FIRST_USER_KEYVAL + nkeyvals++;
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                            void *extra_state)
{
    return create_keyval("MPI_Comm_create_keyval", copy_fn, delete_fn, comm_keyval, extra_state);
}

/* The body of MPI_Comm_free_keyval, which the deprecated form shares under its own name. */
static int free_keyval(const char *call, int *comm_keyval)
{
    UMP_MPI_CHECK_INIT(call);
    if (!comm_keyval)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "comm_keyval pointer is NULL");
    if (predefined_key(*comm_keyval))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call,
                             "keyval %d is predefined and cannot be freed", *comm_keyval);
    ump_mpi_lock();
    keyval_t *kv = kv_of(*comm_keyval);
    if (!kv || kv->freed) {
        ump_mpi_unlock();
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call,
                             "keyval %d is invalid or already freed", *comm_keyval);
    }
    kv->freed = true;
    kv->refcount--;
    ump_mpi_unlock();
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval("MPI_Comm_free_keyval", comm_keyval);
}

static ump_mpi_attr_t *find(MPI_Comm c, int k, ump_mpi_attr_t ***prevp)
{
    ump_mpi_attr_t **pp = &c->attrs;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->keyval == k) {
            if (prevp) *prevp = pp;
            return *pp;
        }
    return NULL;
}

/* Runs the delete callback of attribute a of c; MPI class. */
static int call_delete(MPI_Comm c, ump_mpi_attr_t *a)
{
    ump_mpi_lock();
    keyval_t *kv = kv_of(a->keyval);
    MPI_Comm_delete_attr_function *del = kv ? kv->del : NULL;
    void *extra = kv ? kv->extra : NULL;
    ump_mpi_unlock();
    return del ? del(c, a->keyval, a->value, extra) : MPI_SUCCESS;
}

static int check_user_key(const char *call, MPI_Comm comm, int k, bool for_set)
{
    if (predefined_key(k))
        return for_set ? ump_mpi_error(comm, MPI_ERR_KEYVAL, call,
                                       "keyval %d is predefined and read-only", k)
                       : MPI_SUCCESS;
    ump_mpi_lock();
    keyval_t *kv = kv_of(k);
    bool ok = kv && !(for_set && kv->freed);
    ump_mpi_unlock();
    if (!ok) return ump_mpi_error(comm, MPI_ERR_KEYVAL, call, "keyval %d is invalid or freed", k);
    return MPI_SUCCESS;
}

/* The body of MPI_Comm_set_attr, which the deprecated form shares under its own name. */
static int set_attr(const char *call, MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    int rc = check_user_key(call, comm, comm_keyval, true);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_attr_t *a = find(comm, comm_keyval, NULL);
    if (a) {
        /* Overwriting deletes the old value first (MPI 3.1 6.7.2). */
        rc = call_delete(comm, a);
        if (rc != MPI_SUCCESS)
            return ump_mpi_error(comm, rc, call, "the delete callback of keyval %d failed (%d)",
                                 comm_keyval, rc);
        a->value = attribute_val;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof(*a));
    if (!a) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    a->keyval = comm_keyval;
    a->value = attribute_val;
    a->next = comm->attrs;
    comm->attrs = a;
    ump_mpi_lock();
    kv_of(comm_keyval)->refcount++;
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

/* The body of MPI_Comm_get_attr, which the deprecated form shares under its own name. */
static int get_attr(const char *call, MPI_Comm comm, int comm_keyval, void *attribute_val,
                    int *flag)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    if (!attribute_val || !flag)
        return ump_mpi_error(comm, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    int *pre = NULL;
    switch (comm_keyval) {
    case MPI_TAG_UB:
        pre = &attr_tag_ub;
        break;
    case MPI_HOST:
        pre = &attr_host;
        break;
    case MPI_IO:
        pre = &attr_io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        pre = &attr_wtime_global;
        break;
    case MPI_UNIVERSE_SIZE:
        pre = universe_size();
        break;
    case MPI_LASTUSEDCODE:
        pre = &ump_mpi_lastusedcode;
        break;
    case MPI_APPNUM:
        pre = &attr_appnum;
        break;
    }
    if (pre) {
        /* Predefined attributes are set on every communicator (copied by dup). */
        *(void **)attribute_val = pre;
        *flag = 1;
        return MPI_SUCCESS;
    }
    int rc = check_user_key(call, comm, comm_keyval, false);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_attr_t *a = find(comm, comm_keyval, NULL);
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

/* The body of MPI_Comm_delete_attr, which the deprecated form shares under its own name. */
static int delete_attr(const char *call, MPI_Comm comm, int comm_keyval)
{
    UMP_MPI_CHECK_INIT(call);
    UMP_MPI_CHECK_COMM(call, comm);
    int rc = check_user_key(call, comm, comm_keyval, true);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_attr_t **pp, *a = find(comm, comm_keyval, &pp);
    if (!a)
        return ump_mpi_error(comm, MPI_ERR_KEYVAL, call, "no attribute is set for keyval %d",
                             comm_keyval);
    rc = call_delete(comm, a);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(comm, rc, call, "the delete callback of keyval %d failed (%d)",
                             comm_keyval, rc);
    *pp = a->next;
    ump_mpi_lock();
    kv_unref(comm_keyval);
    ump_mpi_unlock();
    free(a);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}

int ump_mpi_attr_copy_all(MPI_Comm oldc, MPI_Comm newc)
{
    for (ump_mpi_attr_t *a = oldc->attrs; a; a = a->next) {
        ump_mpi_lock();
        keyval_t *kv = kv_of(a->keyval);
        MPI_Comm_copy_attr_function *copy = kv ? kv->copy : NULL;
        void *extra = kv ? kv->extra : NULL;
        ump_mpi_unlock();
        if (!copy) continue;
        void *out = NULL;
        int flag = 0;
        int rc = copy(oldc, a->keyval, extra, a->value, &out, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (!flag) continue;
        ump_mpi_attr_t *n = malloc(sizeof(*n));
        if (!n) return MPI_ERR_NO_MEM;
        n->keyval = a->keyval;
        n->value = out;
        n->next = newc->attrs;
        newc->attrs = n;
        ump_mpi_lock();
        kv->refcount++;
        ump_mpi_unlock();
    }
    return MPI_SUCCESS;
}

int ump_mpi_attr_delete_all(MPI_Comm c)
{
    while (c->attrs) {
        ump_mpi_attr_t *a = c->attrs;
        int rc = call_delete(c, a);
        if (rc != MPI_SUCCESS) return rc;
        c->attrs = a->next;
        ump_mpi_lock();
        kv_unref(a->keyval);
        ump_mpi_unlock();
        free(a);
    }
    return MPI_SUCCESS;
}

/* --- the deprecated MPI-1 names (still in MPI 3.1, 15.2) ------------------ */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    return free_keyval("MPI_Keyval_free", keyval);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return delete_attr("MPI_Attr_delete", comm, keyval);
}
