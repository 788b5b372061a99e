/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attributes of datatypes and windows (MPI 3.1 6.7.3, 6.7.4): one keyval
 * table and one attribute store for both kinds, used by keyval_type.c
 * (MPI_Type_*_keyval / *_attr, copied by MPI_Type_dup) and win_attr.c
 * (MPI_Win_*_keyval / *_attr); the delete callbacks run at an overwrite, a
 * delete, and when the object is freed.
 *
 * Keyvals are numbered from FIRST_OBJ_KEYVAL, apart from communicator
 * keyvals (attr.c) and the predefined window keys; each remembers its
 * kind, so a keyval of the wrong kind is caught rather than taken for
 * another. A keyval stays while attributes use it, even after its free.
 *
 * The objects belong to other modules (the datatype engine, win.c), so
 * the attributes live here, in a list of (object, attributes) for the few
 * objects that have any, looked up by handle.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

enum { FIRST_OBJ_KEYVAL = 0x20000 };

typedef struct {
    const ump_mpi_kv_kind_t *kind;
    ump_mpi_kv_fn_t copy, del;
    void *extra;
    int refcount; /* the handle (until freed) + attributes that use it */
    bool freed;
} okeyval_t;

typedef struct oattrs {
    struct oattrs *next;
    const void *obj;
    ump_mpi_attr_t *attrs;
} oattrs_t;

static okeyval_t *keyvals;
static int nkeyvals, keyvals_cap;
static oattrs_t *objs; /* objects with attributes */

/* Call with the lock held. */
static okeyval_t *kv_of(int k)
{
    int i = k - FIRST_OBJ_KEYVAL;
    if (i < 0 || i >= nkeyvals || keyvals[i].refcount <= 0) return NULL;
    return &keyvals[i];
}

static void kv_unref(int k)
{
    ump_mpi_lock();
    okeyval_t *kv = kv_of(k);
    if (kv) kv->refcount--;
    ump_mpi_unlock();
}

/* The attribute list of obj (made when `create`), or NULL. Lock held. */
static oattrs_t *list_of(const void *obj, bool create)
{
    for (oattrs_t *t = objs; t; t = t->next)
        if (t->obj == obj) return t;
    if (!create) return NULL;
    oattrs_t *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->obj = obj;
    t->next = objs;
    objs = t;
    return t;
}

static void list_drop(const void *obj)
{
    for (oattrs_t **pp = &objs; *pp; pp = &(*pp)->next)
        if ((*pp)->obj == obj) {
            oattrs_t *t = *pp;
            *pp = t->next;
            free(t);
            return;
        }
}

/* Checks keyval k of `kind` for a call; for_set also refuses a freed one. */
static int check_key(const ump_mpi_kv_kind_t *kind, void *obj, const char *call, int k,
                     bool for_set)
{
    ump_mpi_lock();
    okeyval_t *kv = kv_of(k);
    bool ok = kv && kv->kind == kind && !(for_set && kv->freed);
    ump_mpi_unlock();
    if (ok) return MPI_SUCCESS;
    return kind->raise(obj, MPI_ERR_KEYVAL, call, "%d is not a %s keyval, or it was freed", k,
                       kind->what);
}

static int call_delete(void *obj, ump_mpi_attr_t *a)
{
    ump_mpi_lock();
    okeyval_t *kv = kv_of(a->keyval);
    const ump_mpi_kv_kind_t *kind = kv ? kv->kind : NULL;
    ump_mpi_kv_fn_t del = kv ? kv->del : NULL;
    void *extra = kv ? kv->extra : NULL;
    ump_mpi_unlock();
    return del ? kind->call_del(del, obj, a->keyval, a->value, extra) : MPI_SUCCESS;
}

int ump_mpi_kv_create(const ump_mpi_kv_kind_t *kind, const char *call, ump_mpi_kv_fn_t copy,
                      ump_mpi_kv_fn_t del, int *keyval, void *extra)
{
    if (!keyval) return kind->raise(NULL, MPI_ERR_ARG, call, "the keyval pointer is NULL");
    ump_mpi_lock();
    if (nkeyvals == keyvals_cap) {
        int cap = keyvals_cap ? keyvals_cap * 2 : 16;
        okeyval_t *t = realloc(keyvals, sizeof(*t) * (size_t)cap);
        if (!t) {
            ump_mpi_unlock();
            return kind->raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
        }
        keyvals = t;
        keyvals_cap = cap;
    }
    keyvals[nkeyvals] = (okeyval_t){
        .kind = kind,
        .copy = copy,
        .del = del,
        .extra = extra,
        .refcount = 1,
    };
    *keyval = FIRST_OBJ_KEYVAL + nkeyvals++;
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

int ump_mpi_kv_free(const ump_mpi_kv_kind_t *kind, const char *call, int *keyval)
{
    if (!keyval) return kind->raise(NULL, MPI_ERR_ARG, call, "the keyval pointer is NULL");
    int rc = check_key(kind, NULL, call, *keyval, true);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_lock();
    okeyval_t *kv = kv_of(*keyval);
    kv->freed = true;
    kv->refcount--;
    ump_mpi_unlock();
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static ump_mpi_attr_t **find(oattrs_t *t, int k)
{
    if (!t) return NULL;
    for (ump_mpi_attr_t **pp = &t->attrs; *pp; pp = &(*pp)->next)
        if ((*pp)->keyval == k) return pp;
    return NULL;
}

int ump_mpi_kv_set(const ump_mpi_kv_kind_t *kind, const char *call, void *obj, int k, void *val)
{
    int rc = check_key(kind, obj, call, k, true);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_lock();
    ump_mpi_attr_t **pp = find(list_of(obj, false), k);
    ump_mpi_unlock();
    if (pp) {
        /* Overwriting deletes the old value first (MPI 3.1 6.7.2). */
        rc = call_delete(obj, *pp);
        if (rc != MPI_SUCCESS)
            return kind->raise(obj, rc, call, "the delete callback of keyval %d failed (%d)", k,
                               rc);
        (*pp)->value = val;
        return MPI_SUCCESS;
    }
    ump_mpi_attr_t *a = malloc(sizeof(*a));
    ump_mpi_lock();
    oattrs_t *t = a ? list_of(obj, true) : NULL;
    if (t) {
        a->keyval = k;
        a->value = val;
        a->next = t->attrs;
        t->attrs = a;
        kv_of(k)->refcount++;
    }
    ump_mpi_unlock();
    if (!t) {
        free(a);
        return kind->raise(obj, MPI_ERR_NO_MEM, call, "out of memory");
    }
    return MPI_SUCCESS;
}

int ump_mpi_kv_get(const ump_mpi_kv_kind_t *kind, const char *call, void *obj, int k, void *val,
                   int *flag)
{
    if (!val || !flag) return kind->raise(obj, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    int rc = check_key(kind, obj, call, k, false);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_lock();
    ump_mpi_attr_t **pp = find(list_of(obj, false), k);
    *flag = pp != NULL;
    if (pp) *(void **)val = (*pp)->value;
    ump_mpi_unlock();
    return MPI_SUCCESS;
}

int ump_mpi_kv_delete(const ump_mpi_kv_kind_t *kind, const char *call, void *obj, int k)
{
    int rc = check_key(kind, obj, call, k, false);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpi_lock();
    oattrs_t *t = list_of(obj, false);
    ump_mpi_attr_t **pp = find(t, k);
    ump_mpi_unlock();
    if (!pp)
        return kind->raise(obj, MPI_ERR_KEYVAL, call,
                           "no attribute is set for keyval %d on this %s", k, kind->what);
    ump_mpi_attr_t *a = *pp;
    rc = call_delete(obj, a);
    if (rc != MPI_SUCCESS)
        return kind->raise(obj, rc, call, "the delete callback of keyval %d failed (%d)", k, rc);
    ump_mpi_lock();
    *pp = a->next;
    if (!t->attrs) list_drop(obj);
    ump_mpi_unlock();
    kv_unref(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

int ump_mpi_kv_copy_all(void *oldobj, void *newobj)
{
    ump_mpi_lock();
    oattrs_t *t = list_of(oldobj, false);
    ump_mpi_attr_t *a = t ? t->attrs : NULL;
    ump_mpi_unlock();
    for (; a; a = a->next) {
        ump_mpi_lock();
        okeyval_t *kv = kv_of(a->keyval);
        const ump_mpi_kv_kind_t *kind = kv ? kv->kind : NULL;
        ump_mpi_kv_fn_t copy = kv ? kv->copy : NULL;
        void *extra = kv ? kv->extra : NULL;
        ump_mpi_unlock();
        if (!copy) continue;
        void *out = NULL;
        int flag = 0;
        int rc = kind->call_copy(copy, oldobj, a->keyval, extra, a->value, &out, &flag);
        if (rc != MPI_SUCCESS) return rc;
        if (!flag) continue;
        ump_mpi_attr_t *n = malloc(sizeof(*n));
        ump_mpi_lock();
        oattrs_t *nt = n ? list_of(newobj, true) : NULL;
        if (nt) {
            n->keyval = a->keyval;
            n->value = out;
            n->next = nt->attrs;
            nt->attrs = n;
            kv_of(a->keyval)->refcount++;
        }
        ump_mpi_unlock();
        if (!nt) {
            free(n);
            return MPI_ERR_NO_MEM;
        }
    }
    return MPI_SUCCESS;
}

int ump_mpi_kv_delete_all(void *obj)
{
    for (;;) {
        ump_mpi_lock();
        oattrs_t *t = list_of(obj, false);
        ump_mpi_attr_t *a = t ? t->attrs : NULL;
        ump_mpi_unlock();
        if (!a) break;
        int rc = call_delete(obj, a);
        if (rc != MPI_SUCCESS) return rc;
        ump_mpi_lock();
        t->attrs = a->next;
        ump_mpi_unlock();
        kv_unref(a->keyval);
        free(a);
    }
    ump_mpi_lock();
    list_drop(obj);
    ump_mpi_unlock();
    return MPI_SUCCESS;
}
