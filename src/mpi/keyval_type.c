/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype attributes (MPI 3.1 6.7.4): MPI_Type_create_keyval / free_keyval
 * and MPI_Type_set_attr / get_attr / delete_attr, with the copy callbacks
 * run by MPI_Type_dup and the delete callbacks by MPI_Type_free, an
 * overwrite or a delete.
 *
 * Type keyvals are a table of their own (a communicator keyval is not a
 * type keyval), numbered from FIRST_TYPE_KEYVAL so that a keyval of the
 * wrong kind is caught rather than taken for another. A keyval stays
 * while attributes use it, even after MPI_Type_free_keyval.
 *
 * The datatype object belongs to the engine (src/dt), so the attributes
 * live here, in a list of (type, attributes) for the few types that have
 * any, looked up by handle.
 *
 * Threads: the tables and lists change under ump_mpi_lock; the user's
 * callbacks run without it, on an attribute already off its list or on a
 * value read under the lock.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

enum { FIRST_TYPE_KEYVAL = 0x20000 };

typedef struct {
    MPI_Type_copy_attr_function *copy;
    MPI_Type_delete_attr_function *del;
    void *extra;
    int refcount; /* the handle (until freed) + attributes that use it */
    bool freed;
} tkeyval_t;

typedef struct tattrs {
    struct tattrs *next;
    MPI_Datatype dt;
    ump_mpi_attr_t *attrs;
} tattrs_t;

static tkeyval_t *keyvals;
static int nkeyvals, keyvals_cap;
static tattrs_t *types; /* types with attributes */

int ump_mpi_type_null_copy_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int ump_mpi_type_dup_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int ump_mpi_type_null_delete_fn(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

/* Call with the lock held. */
static tkeyval_t *kv_of(int k)
{
    int i = k - FIRST_TYPE_KEYVAL;
    if (i < 0 || i >= nkeyvals || keyvals[i].refcount <= 0) return NULL;
    return &keyvals[i];
}

/* Lock held. */
static void kv_unref(int k)
{
    tkeyval_t *kv = kv_of(k);
    if (kv) kv->refcount--;
}

/* The attribute list of dt (made when `create`), or NULL. Lock held. */
static tattrs_t *list_of(MPI_Datatype dt, bool create)
{
    for (tattrs_t *t = types; t; t = t->next)
        if (t->dt == dt) return t;
    if (!create) return NULL;
    tattrs_t *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->dt = dt;
    t->next = types;
    types = t;
    return t;
}

static void list_drop(MPI_Datatype dt)
{
    for (tattrs_t **pp = &types; *pp; pp = &(*pp)->next)
        if ((*pp)->dt == dt) {
            tattrs_t *t = *pp;
            *pp = t->next;
            free(t);
            return;
        }
}

#define CHECK_TYPE(call, dt)                                                                       \
    do {                                                                                           \
        if (!ump_dt_valid(dt))                                                                     \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call, "datatype is null or freed");  \
    } while (0)

/* Checks keyval k for a call; for_set also refuses a freed one. */
static int check_key(const char *call, int k, bool for_set)
{
    ump_mpi_lock();
    tkeyval_t *kv = kv_of(k);
    bool ok = kv && !(for_set && kv->freed);
    ump_mpi_unlock();
    if (ok) return MPI_SUCCESS;
    return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call,
                         "%d is not a datatype keyval, or it was freed", k);
}

static int call_delete(MPI_Datatype dt, int k, void *value)
{
    ump_mpi_lock();
    tkeyval_t *kv = kv_of(k);
    MPI_Type_delete_attr_function *del = kv ? kv->del : NULL;
    void *extra = kv ? kv->extra : NULL;
    ump_mpi_unlock();
    return del ? del(dt, k, value, extra) : MPI_SUCCESS;
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    static const char call[] = "MPI_Type_create_keyval";
    UMP_MPI_CHECK_INIT(call);
    if (!type_keyval)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "type_keyval pointer is NULL");
    ump_mpi_lock();
    if (nkeyvals == keyvals_cap) {
        int cap = keyvals_cap ? keyvals_cap * 2 : 16;
        tkeyval_t *t = realloc(keyvals, sizeof(*t) * (size_t)cap);
        if (!t) {
            ump_mpi_unlock();
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
        }
        keyvals = t;
        keyvals_cap = cap;
    }
    keyvals[nkeyvals] = (tkeyval_t){
        .copy = type_copy_attr_fn ? type_copy_attr_fn : MPI_TYPE_NULL_COPY_FN,
        .del = type_delete_attr_fn ? type_delete_attr_fn : MPI_TYPE_NULL_DELETE_FN,
        .extra = extra_state,
        .refcount = 1,
    };
    *type_keyval = FIRST_TYPE_KEYVAL + nkeyvals++;
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    static const char call[] = "MPI_Type_free_keyval";
    UMP_MPI_CHECK_INIT(call);
    if (!type_keyval)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "type_keyval pointer is NULL");
    ump_mpi_lock();
    tkeyval_t *kv = kv_of(*type_keyval);
    bool ok = kv && !kv->freed;
    if (ok) {
        kv->freed = true;
        kv->refcount--;
    }
    ump_mpi_unlock();
    if (!ok) return check_key(call, MPI_KEYVAL_INVALID, true);
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static ump_mpi_attr_t **find(tattrs_t *t, int k)
{
    if (!t) return NULL;
    for (ump_mpi_attr_t **pp = &t->attrs; *pp; pp = &(*pp)->next)
        if ((*pp)->keyval == k) return pp;
    return NULL;
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Type_set_attr";
    UMP_MPI_CHECK_INIT(call);
    CHECK_TYPE(call, datatype);
    int rc = check_key(call, type_keyval, true);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_attr_t *n = malloc(sizeof(*n));
    if (!n) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    ump_mpi_lock();
    ump_mpi_attr_t **pp = find(list_of(datatype, false), type_keyval);
    ump_mpi_attr_t *a = pp ? *pp : NULL;
    void *old = a ? a->value : NULL;
    if (a) {
        a->value = attribute_val;
    } else {
        tkeyval_t *kv = kv_of(type_keyval);
        tattrs_t *t = kv ? list_of(datatype, true) : NULL;
        if (t) {
            n->keyval = type_keyval;
            n->value = attribute_val;
            n->next = t->attrs;
            t->attrs = n;
            kv->refcount++;
            n = NULL;
        } else {
            rc = kv ? MPI_ERR_NO_MEM : MPI_ERR_KEYVAL;
        }
    }
    ump_mpi_unlock();
    free(n);
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, rc, call, "keyval %d: %s", type_keyval,
                             rc == MPI_ERR_KEYVAL ? "freed by another thread" : "out of memory");
    if (!a) return MPI_SUCCESS;
    /* Overwriting deletes the old value (MPI 3.1 6.7.2); when that fails,
     * the old value stays unless another thread has set one since. */
    rc = call_delete(datatype, type_keyval, old);
    if (rc != MPI_SUCCESS) {
        ump_mpi_lock();
        pp = find(list_of(datatype, false), type_keyval);
        if (pp && (*pp)->value == attribute_val) (*pp)->value = old;
        ump_mpi_unlock();
        return ump_mpi_error(MPI_COMM_NULL, rc, call,
                             "the delete callback of keyval %d failed (%d)", type_keyval, rc);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    UMP_MPI_CHECK_INIT(call);
    CHECK_TYPE(call, datatype);
    if (!attribute_val || !flag)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    int rc = check_key(call, type_keyval, false);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_lock();
    ump_mpi_attr_t **pp = find(list_of(datatype, false), type_keyval);
    *flag = pp != NULL;
    if (pp) *(void **)attribute_val = (*pp)->value;
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    UMP_MPI_CHECK_INIT(call);
    CHECK_TYPE(call, datatype);
    int rc = check_key(call, type_keyval, false);
    if (rc != MPI_SUCCESS) return rc;
    /* Off the list first, so that no other thread deletes it too. */
    ump_mpi_lock();
    tattrs_t *t = list_of(datatype, false);
    ump_mpi_attr_t **pp = find(t, type_keyval), *a = pp ? *pp : NULL;
    if (a) *pp = a->next;
    ump_mpi_unlock();
    if (!a)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call,
                             "no attribute is set for keyval %d on this datatype", type_keyval);
    rc = call_delete(datatype, type_keyval, a->value);
    ump_mpi_lock();
    /* Looked up again: another thread may have dropped t meanwhile. */
    t = list_of(datatype, rc != MPI_SUCCESS);
    if (rc != MPI_SUCCESS && t) { /* a failed delete leaves it set */
        a->next = t->attrs;
        t->attrs = a;
        a = NULL;
    } else {
        if (t && !t->attrs) list_drop(datatype);
        kv_unref(type_keyval);
    }
    ump_mpi_unlock();
    free(a); /* NULL when set again, or the value deleted */
    if (rc != MPI_SUCCESS)
        return ump_mpi_error(MPI_COMM_NULL, rc, call,
                             "the delete callback of keyval %d failed (%d)", type_keyval, rc);
    return MPI_SUCCESS;
}

int ump_mpi_type_attr_copy(MPI_Datatype oldt, MPI_Datatype newt)
{
    /* The copy callbacks run on a snapshot, without the lock. */
    ump_mpi_lock();
    tattrs_t *t = list_of(oldt, false);
    size_t n = 0;
    for (ump_mpi_attr_t *a = t ? t->attrs : NULL; a; a = a->next)
        n++;
    ump_mpi_attr_t *snap = n ? malloc(sizeof(*snap) * n) : NULL;
    n = 0;
    for (ump_mpi_attr_t *a = t && snap ? t->attrs : NULL; a; a = a->next)
        snap[n++] = *a;
    bool failed = t && t->attrs && !snap;
    ump_mpi_unlock();
    if (failed) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int k = snap[i].keyval;
        ump_mpi_lock();
        tkeyval_t *kv = kv_of(k);
        MPI_Type_copy_attr_function *copy = kv ? kv->copy : NULL;
        void *extra = kv ? kv->extra : NULL;
        if (kv) kv->refcount++; /* held while the callback runs */
        ump_mpi_unlock();
        if (!copy) continue;
        void *out = NULL;
        int flag = 0;
        rc = copy(oldt, k, extra, snap[i].value, &out, &flag);
        ump_mpi_attr_t *na = rc == MPI_SUCCESS && flag ? malloc(sizeof(*na)) : NULL;
        ump_mpi_lock();
        tattrs_t *nt = na ? list_of(newt, true) : NULL;
        if (nt) { /* the attribute takes over the reference */
            na->keyval = k;
            na->value = out;
            na->next = nt->attrs;
            nt->attrs = na;
        } else {
            kv_unref(k);
        }
        ump_mpi_unlock();
        if (rc == MPI_SUCCESS && flag && !nt) {
            free(na);
            rc = MPI_ERR_NO_MEM;
        }
    }
    free(snap);
    return rc;
}

int ump_mpi_type_attr_delete_all(MPI_Datatype dt)
{
    for (;;) {
        ump_mpi_lock();
        tattrs_t *t = list_of(dt, false);
        ump_mpi_attr_t *a = t ? t->attrs : NULL;
        if (a) t->attrs = a->next;
        ump_mpi_unlock();
        if (!a) break;
        int rc = call_delete(dt, a->keyval, a->value);
        ump_mpi_lock();
        t = rc != MPI_SUCCESS ? list_of(dt, true) : NULL;
        if (t) {
            a->next = t->attrs;
            t->attrs = a;
            a = NULL;
        } else {
            kv_unref(a->keyval);
        }
        ump_mpi_unlock();
        free(a);
        if (rc != MPI_SUCCESS) return rc;
    }
    ump_mpi_lock();
    list_drop(dt);
    ump_mpi_unlock();
    return MPI_SUCCESS;
}
