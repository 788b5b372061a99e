/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * win_attr.c - window attributes (MPI 3.1 6.7.3): MPI_Win_create_keyval /
 * free_keyval, set / get / delete_attr with delete callbacks run by an
 * overwrite, a delete and MPI_Win_free (a failing one makes the free
 * fail and keeps the window), the predefined MPI_WIN_NULL_COPY_FN /
 * WIN_DUP_FN / WIN_NULL_DELETE_FN, the predefined MPI_WIN_* attributes
 * beside user ones, keyvals of the wrong kind, and MPI_Win_c2f / f2c
 * (and the other kinds) giving back the same handle.
 */
#include "mt.h"

static int deletes, fail_next;
static void *last_deleted;
static MPI_Win last_win;
static int extra_seen;

static int win_copy(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int k, void *val, void *extra)
{
    (void)k;
    extra_seen = *(int *)extra;
    if (fail_next) {
        fail_next = 0;
        return MPI_ERR_OTHER;
    }
    deletes++;
    last_deleted = val;
    last_win = w;
    return MPI_SUCCESS;
}

static void check_predefined(MPI_Win win, void *base, MPI_Aint size, int unit)
{
    void *v;
    int flag = 0;
    CALL(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == base, "MPI_WIN_BASE %p, want %p", v, base);
    MPI_Aint *sz;
    CALL(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == size, "MPI_WIN_SIZE %ld", (long)*sz);
    int *iv;
    CALL(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &iv, &flag));
    CHECK(flag && *iv == unit, "MPI_WIN_DISP_UNIT %d", *iv);
    CALL(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &iv, &flag));
    CHECK(flag && *iv == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR %d", *iv);
    CALL(MPI_Win_get_attr(win, MPI_WIN_MODEL, &iv, &flag));
    CHECK(flag && (*iv == MPI_WIN_UNIFIED || *iv == MPI_WIN_SEPARATE), "MPI_WIN_MODEL %d", *iv);
}

static void test_attrs(void)
{
    int buf[16], extra = 42, k, kdup, knull, kt;
    for (int i = 0; i < 16; i++)
        buf[i] = mt_rank * 100 + i;
    MPI_Win win;
    CALL(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CALL(MPI_Win_create_keyval(win_copy, win_delete, &k, &extra));
    CALL(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kdup, NULL));
    CALL(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &knull, &extra));
    CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
    CHECK(k != kdup && k != knull && k != MPI_WIN_BASE && k != MPI_WIN_MODEL,
          "keyvals %d %d %d collide", k, kdup, knull);

    intptr_t v;
    int flag = 1;
    CALL(MPI_Win_get_attr(win, k, &v, &flag));
    CHECK(!flag, "an attribute never set is found");
    CALL(MPI_Win_set_attr(win, k, (void *)(intptr_t)5));
    CALL(MPI_Win_set_attr(win, kdup, (void *)(intptr_t)6));
    CALL(MPI_Win_set_attr(win, knull, (void *)(intptr_t)7));
    CALL(MPI_Win_get_attr(win, k, &v, &flag));
    CHECK(flag && v == 5, "Win_get_attr: flag %d value %ld", flag, (long)v);
    CALL(MPI_Win_get_attr(win, kdup, &v, &flag));
    CHECK(flag && v == 6, "Win_get_attr(kdup): flag %d value %ld", flag, (long)v);
    check_predefined(win, buf, sizeof(buf), sizeof(int));

    /* Overwrite deletes the old value first. */
    deletes = 0;
    CALL(MPI_Win_set_attr(win, k, (void *)(intptr_t)8));
    CHECK(deletes == 1 && last_deleted == (void *)(intptr_t)5 && last_win == win &&
              extra_seen == 42,
          "overwrite: %d deletes, last %p, extra %d", deletes, last_deleted, extra_seen);
    /* Delete runs the callback and the attribute is gone. */
    CALL(MPI_Win_delete_attr(win, knull));
    CHECK(deletes == 2 && last_deleted == (void *)(intptr_t)7, "delete_attr: %d deletes", deletes);
    CALL(MPI_Win_get_attr(win, knull, &v, &flag));
    CHECK(!flag, "a deleted attribute is found");
    EXPECT_CLASS(MPI_Win_delete_attr(win, knull), MPI_ERR_KEYVAL);
    /* A failing delete callback fails the delete and keeps the value. */
    fail_next = 1;
    EXPECT_CLASS(MPI_Win_delete_attr(win, k), MPI_ERR_OTHER);
    CALL(MPI_Win_get_attr(win, k, &v, &flag));
    CHECK(flag && v == 8, "value after a failed delete: flag %d value %ld", flag, (long)v);

    /* Keyvals of another kind, and ones that never existed. */
    EXPECT_CLASS(MPI_Win_set_attr(win, kt, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Win_get_attr(win, kt, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Win_get_attr(win, 12345, &v, &flag), MPI_ERR_KEYVAL);
    MPI_Datatype t;
    CALL(MPI_Type_contiguous(2, MPI_INT, &t));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Type_set_attr(t, k, NULL), MPI_ERR_KEYVAL);
    CALL(MPI_Type_free(&t));
    EXPECT_CLASS(MPI_Win_set_attr(MPI_WIN_NULL, k, NULL), MPI_ERR_WIN);

    /* The window still works: each rank puts its rank into the next one. */
    CALL(MPI_Win_fence(0, win));
    int me = mt_rank + 1000;
    CALL(MPI_Put(&me, 1, MPI_INT, (mt_rank + 1) % mt_size, 3, 1, MPI_INT, win));
    CALL(MPI_Win_fence(0, win));
    int from = (mt_rank + mt_size - 1) % mt_size;
    CHECK(buf[3] == from + 1000 && buf[2] == mt_rank * 100 + 2, "put: buf[3] %d buf[2] %d", buf[3],
          buf[2]);

    /* A keyval freed while in use: its attribute stays until the window
     * goes, and the free runs its callback. */
    int kfreed = k;
    CALL(MPI_Win_free_keyval(&kfreed));
    CHECK(kfreed == MPI_KEYVAL_INVALID, "free_keyval left %d", kfreed);
    CALL(MPI_Win_get_attr(win, k, &v, &flag));
    CHECK(flag && v == 8, "attribute of a freed keyval: flag %d value %ld", flag, (long)v);
    EXPECT_CLASS(MPI_Win_set_attr(win, k, NULL), MPI_ERR_KEYVAL);

    /* A failing delete callback fails MPI_Win_free on this rank only
     * before the barrier; every rank fails it alike here, then frees. */
    fail_next = 1;
    EXPECT_CLASS(MPI_Win_free(&win), MPI_ERR_OTHER);
    CHECK(win != MPI_WIN_NULL, "a failed Win_free cleared the handle");
    deletes = 0;
    MPI_Win old = win;
    CALL(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free left the handle");
    CHECK(deletes == 1 && last_deleted == (void *)(intptr_t)8 && last_win == old,
          "Win_free ran %d deletes (last %p)", deletes, last_deleted);
    CALL(MPI_Win_free_keyval(&kdup));
    CALL(MPI_Win_free_keyval(&knull));
    CALL(MPI_Type_free_keyval(&kt));
    EXPECT_CLASS(MPI_Win_free_keyval(&knull), MPI_ERR_KEYVAL);
}

static void test_conversions(void)
{
    int buf[4];
    MPI_Win w1, w2;
    CALL(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w1));
    CALL(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2));
    MPI_Fint f1 = MPI_Win_c2f(w1), f2 = MPI_Win_c2f(w2);
    CHECK(f1 != f2 && f1 != 0 && f2 != 0, "Win_c2f: %d %d", (int)f1, (int)f2);
    CHECK(MPI_Win_f2c(f1) == w1 && MPI_Win_f2c(f2) == w2, "Win_f2c does not give back the window");
    CHECK(MPI_Win_c2f(w1) == f1, "a second Win_c2f gave another integer");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL round trip");
    CHECK(MPI_Win_f2c(f1 + f2 + 1000) == MPI_WIN_NULL, "an integer never given out");
    /* The converted handle is the window: it works. */
    void *base;
    int flag;
    CALL(MPI_Win_get_attr(MPI_Win_f2c(f2), MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == buf, "base through f2c");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm round trip");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT, "type round trip");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "op round trip");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "group round trip");
    CALL(MPI_Win_free(&w1));
    CALL(MPI_Win_free(&w2));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "win_attr");
    test_attrs();
    test_conversions();
    return mt_done();
}
