/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator attributes and keyvals. A keyval is a slot in a table
 * (handle = index + FIRST_USER_KEYVAL, so the predefined MPI_TAG_UB..
 * MPI_WTIME_IS_GLOBAL never collide); it stays allocated while attributes
 * use it, even after MPI_Comm_free_keyval, as MPI 3.1 6.7.2 requires.
 * Attributes are a short list per communicator.
 *
 * Threads: the keyval table and every communicator's list change under
 * ump_mpi_lock; the user's copy and delete callbacks run without it (they
 * may call MPI, attributes included), on an attribute already taken off
 * its list, or on a value read under the lock.
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
 * another launcher) has a universe of its own size. MPI_APPNUM: the index
 * of this process's command in the spawn that started it (0 otherwise). */
static int *universe_size(void)
{
    /* Threads that ask first at the same time store the same value. */
    if (!__atomic_load_n(&attr_universe_size, __ATOMIC_RELAXED)) {
        const char *e = getenv("UMP_JOB_UNIVERSE_SIZE");
        char *end;
        long v = e ? strtol(e, &end, 10) : 0;
        if (!e || *end || v < ump_size() || v > INT_MAX) v = ump_size();
        __atomic_store_n(&attr_universe_size, (int)v, __ATOMIC_RELAXED);
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

/* The attribute of keyval k on c, and the link to it. Lock held. */
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

/* Runs the delete callback of keyval k for `value` on c; MPI class. */
static int call_delete(MPI_Comm c, int k, void *value)
{
    ump_mpi_lock();
    keyval_t *kv = kv_of(k);
    MPI_Comm_delete_attr_function *del = kv ? kv->del : NULL;
    void *extra = kv ? kv->extra : NULL;
    ump_mpi_unlock();
    return del ? del(c, k, value, extra) : MPI_SUCCESS;
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
    ump_mpi_attr_t *n = malloc(sizeof(*n));
    if (!n) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    ump_mpi_lock();
    ump_mpi_attr_t *a = find(comm, comm_keyval, NULL);
    keyval_t *kv = kv_of(comm_keyval);
    if (!a && kv) {
        n->keyval = comm_keyval;
        n->value = attribute_val;
        n->next = comm->attrs;
        comm->attrs = n;
        kv->refcount++;
        ump_mpi_unlock();
        return MPI_SUCCESS;
    }
    void *old = a ? a->value : NULL;
    if (a) a->value = attribute_val;
    ump_mpi_unlock();
    free(n);
    if (!a) /* the keyval was freed by another thread since the check */
        return ump_mpi_error(comm, MPI_ERR_KEYVAL, call, "keyval %d is invalid or freed",
                             comm_keyval);
    /* Overwriting deletes the old value (MPI 3.1 6.7.2); when that fails,
     * the old value stays unless another thread has set one since. */
    rc = call_delete(comm, comm_keyval, old);
    if (rc != MPI_SUCCESS) {
        ump_mpi_lock();
        a = find(comm, comm_keyval, NULL);
        if (a && a->value == attribute_val) a->value = old;
        ump_mpi_unlock();
        return ump_mpi_error(comm, rc, call, "the delete callback of keyval %d failed (%d)",
                             comm_keyval, rc);
    }
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
        __atomic_store_n(&attr_appnum, ump_appnum(), __ATOMIC_RELAXED);
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
    ump_mpi_lock();
    ump_mpi_attr_t *a = find(comm, comm_keyval, NULL);
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->value;
    ump_mpi_unlock();
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
    /* Off the list first, so that no other thread deletes it too. */
    ump_mpi_lock();
    ump_mpi_attr_t **pp, *a = find(comm, comm_keyval, &pp);
    if (a) *pp = a->next;
    ump_mpi_unlock();
    if (!a)
        return ump_mpi_error(comm, MPI_ERR_KEYVAL, call, "no attribute is set for keyval %d",
                             comm_keyval);
    rc = call_delete(comm, comm_keyval, a->value);
    ump_mpi_lock();
    if (rc != MPI_SUCCESS) {
        a->next = comm->attrs; /* a failed delete leaves it set */
        comm->attrs = a;
        a = NULL;
    } else {
        kv_unref(comm_keyval);
    }
    ump_mpi_unlock();
    if (!a)
        return ump_mpi_error(comm, rc, call, "the delete callback of keyval %d failed (%d)",
                             comm_keyval, rc);
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
    /* The copy callbacks run on a snapshot, without the lock: they may
     * call MPI, and other threads may change oldc's attributes meanwhile. */
    ump_mpi_lock();
    size_t n = 0;
    for (ump_mpi_attr_t *a = oldc->attrs; a; a = a->next)
        n++;
    ump_mpi_attr_t *snap = n ? malloc(sizeof(*snap) * n) : NULL;
    n = 0;
    for (ump_mpi_attr_t *a = oldc->attrs; a && snap; a = a->next)
        snap[n++] = *a;
    bool failed = oldc->attrs && !snap;
    ump_mpi_unlock();
    if (failed) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int k = snap[i].keyval;
        ump_mpi_lock();
        keyval_t *kv = kv_of(k);
        MPI_Comm_copy_attr_function *copy = kv ? kv->copy : NULL;
        void *extra = kv ? kv->extra : NULL;
        if (kv) kv->refcount++; /* held while the callback runs */
        ump_mpi_unlock();
        if (!copy) continue;
        void *out = NULL;
        int flag = 0;
        rc = copy(oldc, k, extra, snap[i].value, &out, &flag);
        ump_mpi_attr_t *na = rc == MPI_SUCCESS && flag ? malloc(sizeof(*na)) : NULL;
        if (rc == MPI_SUCCESS && flag && !na) rc = MPI_ERR_NO_MEM;
        ump_mpi_lock();
        if (na) { /* the attribute takes over the reference */
            na->keyval = k;
            na->value = out;
            na->next = newc->attrs;
            newc->attrs = na;
        } else {
            kv_unref(k);
        }
        ump_mpi_unlock();
    }
    free(snap);
    return rc;
}

int ump_mpi_attr_delete_all(MPI_Comm c)
{
    for (;;) {
        ump_mpi_lock();
        ump_mpi_attr_t *a = c->attrs;
        if (a) c->attrs = a->next;
        ump_mpi_unlock();
        if (!a) return MPI_SUCCESS;
        int rc = call_delete(c, a->keyval, a->value);
        ump_mpi_lock();
        if (rc != MPI_SUCCESS) {
            a->next = c->attrs;
            c->attrs = a;
        } else {
            kv_unref(a->keyval);
        }
        ump_mpi_unlock();
        if (rc != MPI_SUCCESS) return rc;
        free(a);
    }
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
