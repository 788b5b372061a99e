/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attr31.c - datatype attributes (MPI_Type_create_keyval, set / get /
 * delete_attr, free_keyval) with copy callbacks run by MPI_Type_dup and
 * delete callbacks run by MPI_Type_free, an overwrite and a delete; the
 * predefined MPI_TYPE_NULL_COPY_FN / TYPE_DUP_FN / TYPE_NULL_DELETE_FN,
 * MPI_COMM_NULL_COPY_FN / COMM_DUP_FN / COMM_NULL_DELETE_FN and the
 * deprecated MPI_NULL_COPY_FN / DUP_FN / NULL_DELETE_FN with
 * MPI_Keyval_create / free and MPI_Attr_put / get / delete on
 * communicators (callbacks on MPI_Comm_dup and MPI_Comm_free); keyvals of
 * the wrong kind and other errors.
 */
#include "mt.h"

static int copies, deletes;
static void *last_deleted;
static int extra_seen;

static int type_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k;
    extra_seen = *(int *)extra;
    copies++;
    /* The copy is the value plus 1000 (an int stored in the pointer). */
    *(intptr_t *)out = (intptr_t)in + 1000;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)extra;
    deletes++;
    last_deleted = val;
    return MPI_SUCCESS;
}

static int failing_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    return MPI_ERR_OTHER;
}

static void test_type_attrs(void)
{
    int extra = 77, k, kdup, knull;
    CALL(MPI_Type_create_keyval(type_copy, type_delete, &k, &extra));
    CALL(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL));
    CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete, &knull, NULL));
    MPI_Datatype t, t2;
    CALL(MPI_Type_contiguous(3, MPI_INT, &t));
    CALL(MPI_Type_commit(&t));
    intptr_t v;
    int flag = 1;
    CALL(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK(!flag, "an attribute that was never set is found");
    CALL(MPI_Type_set_attr(t, k, (void *)(intptr_t)5));
    CALL(MPI_Type_set_attr(t, kdup, (void *)(intptr_t)6));
    CALL(MPI_Type_set_attr(t, knull, (void *)(intptr_t)7));
    CALL(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK(flag && v == 5, "Type_get_attr: flag %d value %ld", flag, (long)v);
    /* Overwrite: the old value is deleted first. */
    deletes = 0;
    CALL(MPI_Type_set_attr(t, k, (void *)(intptr_t)8));
    CHECK(deletes == 1 && last_deleted == (void *)(intptr_t)5, "overwrite ran %d deletes (last %p)",
          deletes, last_deleted);
    /* Dup: the copy callback, DUP_FN copies as is, NULL_COPY_FN does not copy. */
    copies = 0;
    CALL(MPI_Type_dup(t, &t2));
    CHECK(copies == 1 && extra_seen == 77, "Type_dup ran %d copies (extra %d)", copies, extra_seen);
    CALL(MPI_Type_get_attr(t2, k, &v, &flag));
    CHECK(flag && v == 1008, "copied attribute: flag %d value %ld", flag, (long)v);
    CALL(MPI_Type_get_attr(t2, kdup, &v, &flag));
    CHECK(flag && v == 6, "MPI_TYPE_DUP_FN: flag %d value %ld", flag, (long)v);
    CALL(MPI_Type_get_attr(t2, knull, &v, &flag));
    CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied the attribute");
    /* The duplicate still communicates. */
    int a[3] = {mt_rank, 2, 3}, b[3] = {-1, -1, -1};
    CALL(MPI_Sendrecv(a, 1, t2, 0, 0, b, 1, t, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(!memcmp(a, b, sizeof(a)), "send on the duplicated type");
    /* Delete. */
    deletes = 0;
    CALL(MPI_Type_delete_attr(t2, k));
    CHECK(deletes == 1 && last_deleted == (void *)(intptr_t)1008, "delete_attr: %d deletes",
          deletes);
    CALL(MPI_Type_get_attr(t2, k, &v, &flag));
    CHECK(!flag, "deleted attribute still found");
    /* Free: delete callbacks of what is left (k and knull on t). */
    deletes = 0;
    CALL(MPI_Type_free(&t2));
    CHECK(deletes == 0, "Type_free of t2 ran %d deletes, want 0", deletes);
    CALL(MPI_Type_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    CALL(MPI_Type_free(&t));
    CHECK(deletes == 2, "Type_free ran %d deletes, want 2 (the keyval freed before still runs)",
          deletes);
    /* Attributes on a predefined type. */
    CALL(MPI_Type_set_attr(MPI_DOUBLE, kdup, (void *)(intptr_t)42));
    CALL(MPI_Type_get_attr(MPI_DOUBLE, kdup, &v, &flag));
    CHECK(flag && v == 42, "attribute on MPI_DOUBLE: %d %ld", flag, (long)v);
    CALL(MPI_Type_delete_attr(MPI_DOUBLE, kdup));
    /* A failing delete callback fails the free, with its code. */
    int kf;
    CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, failing_delete, &kf, NULL));
    CALL(MPI_Type_contiguous(2, MPI_INT, &t));
    CALL(MPI_Type_set_attr(t, kf, NULL));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Type_delete_attr(t, kf), MPI_ERR_OTHER);
    EXPECT_CLASS(MPI_Type_free(&t), MPI_ERR_OTHER);
    /* Errors. */
    int ck;
    CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, ck, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, 12345, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Type_set_attr(MPI_DATATYPE_NULL, kdup, NULL), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_delete_attr(MPI_INT, kdup), MPI_ERR_KEYVAL); /* not set */
    EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, kdup, NULL, &flag), MPI_ERR_ARG);
    int dead = k;
    EXPECT_CLASS(MPI_Type_free_keyval(&dead), MPI_ERR_KEYVAL);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Type_set_attr(MPI_INT, ck, NULL), s, &len);
    CHECK(strstr(s, "MPI_Type_set_attr") != NULL, "message does not name the call: %s", s);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CALL(MPI_Comm_free_keyval(&ck));
    CALL(MPI_Type_free_keyval(&kdup));
    CALL(MPI_Type_free_keyval(&knull));
}

static int comm_copies, comm_deletes;
static int c_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    comm_copies++;
    *(intptr_t *)out = (intptr_t)in * 2;
    *flag = 1;
    return MPI_SUCCESS;
}
static int c_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    comm_deletes++;
    return MPI_SUCCESS;
}

static void test_deprecated(void)
{
    int k, kd, kn;
    CALL(MPI_Keyval_create(c_copy, c_delete, &k, NULL));
    CALL(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kd, NULL));
    CALL(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kn, NULL));
    MPI_Comm c, d;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CALL(MPI_Attr_put(c, k, (void *)(intptr_t)(mt_rank + 1)));
    CALL(MPI_Attr_put(c, kd, (void *)(intptr_t)11));
    CALL(MPI_Attr_put(c, kn, (void *)(intptr_t)12));
    intptr_t v;
    int flag;
    CALL(MPI_Attr_get(c, k, &v, &flag));
    CHECK(flag && v == mt_rank + 1, "Attr_get: %d %ld", flag, (long)v);
    comm_copies = comm_deletes = 0;
    CALL(MPI_Comm_dup(c, &d));
    CHECK(comm_copies == 1, "Comm_dup ran %d copy callbacks", comm_copies);
    CALL(MPI_Attr_get(d, k, &v, &flag));
    CHECK(flag && v == 2 * (mt_rank + 1), "copied attribute %ld", (long)v);
    CALL(MPI_Attr_get(d, kd, &v, &flag));
    CHECK(flag && v == 11, "MPI_DUP_FN: %d %ld", flag, (long)v);
    CALL(MPI_Attr_get(d, kn, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied");
    CALL(MPI_Attr_delete(d, k));
    CHECK(comm_deletes == 1, "Attr_delete ran %d delete callbacks", comm_deletes);
    CALL(MPI_Comm_free(&d));
    CHECK(comm_deletes == 1, "Comm_free of d ran deletes of an attribute it no longer has");
    CALL(MPI_Comm_free(&c));
    CHECK(comm_deletes == 2, "Comm_free ran %d delete callbacks in all, want 2", comm_deletes);
    /* The MPI_Comm_ names accept the MPI-2 predefined callbacks too. */
    int k2;
    CALL(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
    CALL(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, (void *)(intptr_t)99));
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CALL(MPI_Comm_get_attr(c, k2, &v, &flag));
    CHECK(flag && v == 99, "MPI_COMM_DUP_FN: %d %ld", flag, (long)v);
    CALL(MPI_Comm_free(&c));
    CALL(MPI_Comm_delete_attr(MPI_COMM_WORLD, k2));
    CALL(MPI_Comm_free_keyval(&k2));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Attr_get(MPI_COMM_NULL, k, &v, &flag), MPI_ERR_COMM);
    int tk;
    CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    EXPECT_CLASS(MPI_Attr_put(MPI_COMM_WORLD, tk, NULL), MPI_ERR_KEYVAL);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Attr_put(MPI_COMM_WORLD, tk, NULL), s, &len);
    CHECK(strstr(s, "MPI_Attr_put") != NULL, "message does not name MPI_Attr_put: %s", s);
    MPI_Error_string(MPI_Keyval_free(&(int){12345}), s, &len);
    CHECK(strstr(s, "MPI_Keyval_free") != NULL, "message does not name MPI_Keyval_free: %s", s);
    CALL(MPI_Type_free_keyval(&tk));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    int *tagub;
    CALL(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag));
    CHECK(flag && *tagub >= 32767, "MPI_TAG_UB through MPI_Attr_get: %d", *tagub);
    CALL(MPI_Keyval_free(&k));
    CALL(MPI_Keyval_free(&kd));
    CALL(MPI_Keyval_free(&kn));
    CHECK(k == MPI_KEYVAL_INVALID, "Keyval_free did not reset the handle");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "attr31");
    test_type_attrs();
    test_deprecated();
    return mt_done();
}
