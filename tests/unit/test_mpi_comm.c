/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators, groups, attributes and info in a one-rank job: the group
 * algebra on hand-made groups (world ranks beyond this job's size are fine
 * for set operations), dup/split/create/compare, names, keyvals with copy
 * and delete callbacks, predefined attributes, and info objects.
 */
#include "test_mpi_common.h"

static MPI_Group mk(int n, const int *w)
{
    MPI_Group g = ump_mpi_group_new(n, w);
    assert_non_null(g);
    return g;
}

static void assert_group(MPI_Group g, int n, const int *w)
{
    int size;
    assert_int_equal(MPI_Group_size(g, &size), MPI_SUCCESS);
    assert_int_equal(size, n);
    if (n == 0) {
        assert_ptr_equal(g, MPI_GROUP_EMPTY);
        return;
    }
    for (int i = 0; i < n; i++)
        assert_int_equal(g->world[i], w[i]);
}

static void test_group_algebra(void **state)
{
    const int wa[] = {3, 1, 4, 5, 9}, wb[] = {9, 2, 6, 5, 3};
    MPI_Group a = mk(5, wa), b = mk(5, wb), g;
    int rank;
    MPI_Group_rank(a, &rank);
    assert_int_equal(rank, MPI_UNDEFINED); /* we are world rank 0 */

    assert_int_equal(MPI_Group_union(a, b, &g), MPI_SUCCESS);
    assert_group(g, 7, (const int[]){3, 1, 4, 5, 9, 2, 6});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_intersection(a, b, &g), MPI_SUCCESS);
    assert_group(g, 3, (const int[]){3, 5, 9});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_intersection(b, a, &g), MPI_SUCCESS);
    assert_group(g, 3, (const int[]){9, 5, 3});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_difference(a, b, &g), MPI_SUCCESS);
    assert_group(g, 2, (const int[]){1, 4});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_difference(a, a, &g), MPI_SUCCESS);
    assert_group(g, 0, NULL);
    assert_int_equal(MPI_Group_free(&g), MPI_SUCCESS);

    int r1[] = {4, 0, 2};
    assert_int_equal(MPI_Group_incl(a, 3, r1, &g), MPI_SUCCESS);
    assert_group(g, 3, (const int[]){9, 3, 4});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_excl(a, 3, r1, &g), MPI_SUCCESS);
    assert_group(g, 2, (const int[]){1, 5});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_incl(a, 0, NULL, &g), MPI_SUCCESS);
    assert_group(g, 0, NULL);

    int ranges[2][3] = {{4, 0, -2}, {1, 1, 1}};
    assert_int_equal(MPI_Group_range_incl(a, 2, ranges, &g), MPI_SUCCESS);
    assert_group(g, 4, (const int[]){9, 4, 3, 1});
    MPI_Group_free(&g);
    assert_int_equal(MPI_Group_range_excl(a, 2, ranges, &g), MPI_SUCCESS);
    assert_group(g, 1, (const int[]){5});
    MPI_Group_free(&g);
    int overlap[2][3] = {{0, 2, 1}, {2, 3, 1}};
    assert_int_equal(MPI_Group_range_incl(a, 2, overlap, &g), MPI_ERR_RANK);

    int in[] = {0, 1, 2, 3, 4, MPI_PROC_NULL}, out[6];
    assert_int_equal(MPI_Group_translate_ranks(a, 6, in, b, out), MPI_SUCCESS);
    const int expect[] = {4, MPI_UNDEFINED, MPI_UNDEFINED, 3, 0, MPI_PROC_NULL};
    assert_memory_equal(out, expect, sizeof(expect));

    int res;
    MPI_Group c = mk(5, (const int[]){9, 5, 4, 1, 3});
    assert_int_equal(MPI_Group_compare(a, a, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_IDENT);
    assert_int_equal(MPI_Group_compare(a, c, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_SIMILAR);
    assert_int_equal(MPI_Group_compare(a, b, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_UNEQUAL);
    MPI_Group a2 = mk(5, wa);
    assert_int_equal(MPI_Group_compare(a, a2, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_IDENT);
    MPI_Group_free(&a2);
    MPI_Group_free(&c);
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    assert_ptr_equal(a, MPI_GROUP_NULL);
}

static void test_comm_group(void **state)
{
    MPI_Group g, e;
    int size, rank;
    assert_int_equal(MPI_Comm_group(MPI_COMM_WORLD, &g), MPI_SUCCESS);
    MPI_Group_size(g, &size);
    MPI_Group_rank(g, &rank);
    assert_int_equal(size, 1);
    assert_int_equal(rank, 0);
    /* A group outlives its communicator. */
    MPI_Comm c;
    assert_int_equal(MPI_Comm_create(MPI_COMM_WORLD, g, &c), MPI_SUCCESS);
    assert_non_null(c);
    MPI_Group cg;
    MPI_Comm_group(c, &cg);
    MPI_Comm_free(&c);
    MPI_Group_size(cg, &size);
    assert_int_equal(size, 1);
    MPI_Group_free(&cg);
    /* Creating from the empty group: not a member. */
    assert_int_equal(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c), MPI_SUCCESS);
    assert_ptr_equal(c, MPI_COMM_NULL);
    assert_int_equal(MPI_Group_excl(g, 1, (int[]){0}, &e), MPI_SUCCESS);
    assert_ptr_equal(e, MPI_GROUP_EMPTY);
    MPI_Group_free(&g);
    /* A group with a process outside the communicator is refused. */
    MPI_Group foreign = mk(1, (const int[]){5});
    assert_int_equal(MPI_Comm_create(MPI_COMM_WORLD, foreign, &c), MPI_ERR_GROUP);
    MPI_Group_free(&foreign);
}

static void test_split_dup_compare(void **state)
{
    MPI_Comm a, b, n, s;
    int res, size, rank, flag;
    assert_int_equal(MPI_Comm_split(MPI_COMM_WORLD, 3, 0, &a), MPI_SUCCESS);
    MPI_Comm_size(a, &size);
    MPI_Comm_rank(a, &rank);
    assert_int_equal(size, 1);
    assert_int_equal(rank, 0);
    assert_int_equal(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &n), MPI_SUCCESS);
    assert_ptr_equal(n, MPI_COMM_NULL);
    assert_int_equal(MPI_Comm_dup(a, &b), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_compare(a, a, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_IDENT);
    assert_int_equal(MPI_Comm_compare(a, b, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_CONGRUENT);
    assert_int_equal(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res), MPI_SUCCESS);
    assert_int_equal(res, MPI_CONGRUENT); /* one process: same group */
    assert_int_equal(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s),
        MPI_SUCCESS);
    MPI_Comm_size(s, &size);
    assert_int_equal(size, 1);
    assert_int_equal(MPI_Comm_test_inter(s, &flag), MPI_SUCCESS);
    assert_false(flag);
    /* Every communicator has its own contexts. */
    assert_int_not_equal(a->ctx_p2p, b->ctx_p2p);
    assert_int_not_equal(a->ctx_p2p, s->ctx_p2p);
    assert_int_not_equal(a->ctx_coll, a->ctx_p2p);
    int x = 5, y = 0;
    assert_int_equal(MPI_Send(&x, 1, MPI_INT, 0, 0, a), MPI_SUCCESS);
    assert_int_equal(MPI_Iprobe(0, 0, b, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Recv(&y, 1, MPI_INT, 0, 0, a, MPI_STATUS_IGNORE), MPI_SUCCESS);
    assert_int_equal(y, 5);
    /* Ids are given back: many dup/free cycles do not run out. */
    for (int i = 0; i < 5000; i++) {
        MPI_Comm t;
        assert_int_equal(MPI_Comm_dup(MPI_COMM_SELF, &t), MPI_SUCCESS);
        assert_int_equal(MPI_Comm_free(&t), MPI_SUCCESS);
    }
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&s);
}

static void test_names(void **state)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    assert_int_equal(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_COMM_WORLD");
    assert_int_equal(len, 14);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    assert_string_equal(name, "MPI_COMM_SELF");
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_get_name(c, name, &len);
    assert_int_equal(len, 0); /* names are not copied by dup */
    assert_int_equal(MPI_Comm_set_name(c, "solver"), MPI_SUCCESS);
    MPI_Comm_get_name(c, name, &len);
    assert_string_equal(name, "solver");
    MPI_Comm_free(&c);
}

/* Attribute callbacks record what they saw. */
static int copies, deletes, last_deleted;

static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    copies++;
    assert_ptr_equal(extra, &copies);
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int k, void *val, void *extra)
{
    deletes++;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static int fail_deletes;

static int failing_delete(MPI_Comm c, int k, void *val, void *extra)
{
    return fail_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void test_attributes(void **state)
{
    int k1, k2, k3, flag;
    void *v;
    copies = deletes = 0;
    assert_int_equal(MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, &copies), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &k2, NULL),
                     MPI_SUCCESS);
    assert_int_equal(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL),
                     MPI_SUCCESS);
    assert_int_not_equal(k1, k2);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    assert_int_equal(MPI_Comm_get_attr(c, k1, &v, &flag), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Comm_set_attr(c, k1, (void *)7), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_set_attr(c, k2, (void *)8), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_set_attr(c, k3, (void *)9), MPI_SUCCESS);
    /* Overwriting calls delete on the old value. */
    assert_int_equal(MPI_Comm_set_attr(c, k1, (void *)17), MPI_SUCCESS);
    assert_int_equal(deletes, 1);
    assert_int_equal(last_deleted, 7);
    assert_int_equal(MPI_Comm_get_attr(c, k1, &v, &flag), MPI_SUCCESS);
    assert_true(flag);
    assert_ptr_equal(v, (void *)17);
    /* Dup: k1 copied through the callback, k2 not copied, k3 copied as is. */
    MPI_Comm d;
    assert_int_equal(MPI_Comm_dup(c, &d), MPI_SUCCESS);
    assert_int_equal(copies, 1);
    MPI_Comm_get_attr(d, k1, &v, &flag);
    assert_true(flag);
    assert_ptr_equal(v, (void *)1017);
    MPI_Comm_get_attr(d, k2, &v, &flag);
    assert_false(flag);
    MPI_Comm_get_attr(d, k3, &v, &flag);
    assert_true(flag);
    assert_ptr_equal(v, (void *)9);
    /* Delete. */
    deletes = 0;
    assert_int_equal(MPI_Comm_delete_attr(c, k2), MPI_SUCCESS);
    assert_int_equal(deletes, 1);
    assert_int_equal(last_deleted, 8);
    assert_int_equal(MPI_Comm_delete_attr(c, k2), MPI_ERR_KEYVAL);
    /* Freeing the keyval keeps the attributes that use it working. */
    int k1_saved = k1;
    assert_int_equal(MPI_Comm_free_keyval(&k1), MPI_SUCCESS);
    assert_int_equal(k1, MPI_KEYVAL_INVALID);
    MPI_Comm_get_attr(d, k1_saved, &v, &flag);
    assert_true(flag);
    /* Comm_free runs the delete callbacks. */
    deletes = 0;
    assert_int_equal(MPI_Comm_free(&d), MPI_SUCCESS);
    assert_int_equal(deletes, 1);
    assert_int_equal(last_deleted, 1017);
    assert_int_equal(MPI_Comm_free(&c), MPI_SUCCESS);
    assert_int_equal(deletes, 2);
    assert_int_equal(last_deleted, 17);
    /* A failing delete callback fails the free. */
    int kf;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &kf, NULL);
    MPI_Comm e;
    MPI_Comm_dup(MPI_COMM_WORLD, &e);
    MPI_Comm_set_attr(e, kf, NULL);
    fail_deletes = 1;
    assert_int_equal(MPI_Comm_delete_attr(e, kf), MPI_ERR_OTHER);
    assert_int_equal(MPI_Comm_free(&e), MPI_ERR_OTHER);
    assert_non_null(e);
    fail_deletes = 0;
    assert_int_equal(MPI_Comm_free(&e), MPI_SUCCESS);
    MPI_Comm_free_keyval(&kf);
    MPI_Comm_free_keyval(&k2);
    MPI_Comm_free_keyval(&k3);
}

static void test_predefined_attrs(void **state)
{
    int *p, flag;
    assert_int_equal(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag), MPI_SUCCESS);
    assert_true(flag);
    assert_true(*p >= 32767);
    assert_int_equal(*p, UMP_TAG_UB);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag);
    assert_true(flag);
    assert_int_equal(*p, MPI_PROC_NULL);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag);
    assert_true(flag);
    assert_int_equal(*p, MPI_ANY_SOURCE);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag);
    assert_true(flag);
    assert_int_equal(*p, 0);
    int tmp = MPI_TAG_UB;
    assert_int_equal(MPI_Comm_free_keyval(&tmp), MPI_ERR_KEYVAL);
}

static void test_info(void **state)
{
    MPI_Info i, d;
    int n, flag, len;
    char v[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY + 1];
    assert_int_equal(MPI_Info_create(&i), MPI_SUCCESS);
    MPI_Info_get_nkeys(i, &n);
    assert_int_equal(n, 0);
    assert_int_equal(MPI_Info_set(i, "alpha", "1"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(i, "beta", "two"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(i, "gamma", "three"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(i, "beta", "deux"), MPI_SUCCESS); /* replaces */
    MPI_Info_get_nkeys(i, &n);
    assert_int_equal(n, 3);
    assert_int_equal(MPI_Info_get(i, "beta", MPI_MAX_INFO_VAL, v, &flag), MPI_SUCCESS);
    assert_true(flag);
    assert_string_equal(v, "deux");
    assert_int_equal(MPI_Info_get(i, "beta", 2, v, &flag), MPI_SUCCESS);
    assert_string_equal(v, "de"); /* valuelen characters */
    assert_int_equal(MPI_Info_get(i, "delta", MPI_MAX_INFO_VAL, v, &flag), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Info_get_valuelen(i, "gamma", &len, &flag), MPI_SUCCESS);
    assert_true(flag);
    assert_int_equal(len, 5);
    assert_int_equal(MPI_Info_get_nthkey(i, 1, k), MPI_SUCCESS);
    assert_string_equal(k, "beta");
    assert_int_equal(MPI_Info_dup(i, &d), MPI_SUCCESS);
    assert_int_equal(MPI_Info_delete(i, "alpha"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_delete(i, "alpha"), MPI_ERR_INFO_NOKEY);
    MPI_Info_get_nkeys(i, &n);
    assert_int_equal(n, 2);
    MPI_Info_get_nthkey(i, 0, k);
    assert_string_equal(k, "beta");
    MPI_Info_get_nkeys(d, &n);
    assert_int_equal(n, 3); /* the dup is independent */
    MPI_Info_get(d, "alpha", MPI_MAX_INFO_VAL, v, &flag);
    assert_true(flag);
    assert_string_equal(v, "1");
    assert_int_equal(MPI_Info_free(&i), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&d), MPI_SUCCESS);
    assert_ptr_equal(d, MPI_INFO_NULL);
    /* MPI_INFO_ENV knows maxprocs and the thread level. */
    assert_int_equal(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, v, &flag),
                     MPI_SUCCESS);
    assert_true(flag);
    assert_string_equal(v, "1");
    MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, v, &flag);
    assert_true(flag);
    assert_string_equal(v, "MPI_THREAD_SINGLE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_algebra),
        cmocka_unit_test(test_comm_group),
        cmocka_unit_test(test_split_dup_compare),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_predefined_attrs),
        cmocka_unit_test(test_info),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
