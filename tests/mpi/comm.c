/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm.c - communicators (MPI 3.1 §6.4-6.8): size/rank, dup (its own
 * matching context), split (colors, key order, MPI_UNDEFINED), split_type
 * shared, create from a group, free, compare, group, test_inter, names,
 * attribute caching with copy and delete callbacks, and the predefined
 * attributes of MPI_COMM_WORLD.
 */
#include "mt.h"

static int partner(void)
{
    int p = mt_rank ^ 1;
    return p < mt_size ? p : mt_rank;
}

static int compare(MPI_Comm a, MPI_Comm b)
{
    int r = -1;
    CALL(MPI_Comm_compare(a, b, &r));
    return r;
}

/* The world ranks of comm's members in comm rank order. */
static void world_ranks(MPI_Comm c, int *out, int n)
{
    MPI_Group g, w;
    int *in = mt_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    CALL(MPI_Comm_group(c, &g));
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CALL(MPI_Group_translate_ranks(g, n, in, w, out));
    CALL(MPI_Group_free(&g));
    CALL(MPI_Group_free(&w));
    free(in);
}

static void test_basic(void)
{
    int s = -1, r = -1, flag = -1;
    CALL(MPI_Comm_size(MPI_COMM_SELF, &s));
    CALL(MPI_Comm_rank(MPI_COMM_SELF, &r));
    CHECK(s == 1 && r == 0, "MPI_COMM_SELF: size %d rank %d", s, r);
    CHECK(mt_rank >= 0 && mt_rank < mt_size, "world rank %d of %d", mt_rank, mt_size);
    CHECK(compare(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "compare(world, world) not IDENT");
    CHECK(compare(MPI_COMM_SELF, MPI_COMM_WORLD) == (mt_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL),
          "compare(self, world) gave %d", compare(MPI_COMM_SELF, MPI_COMM_WORLD));
    CALL(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "MPI_Comm_test_inter(MPI_COMM_WORLD) gave %d", flag);
}

/* A message sent on a duplicate never matches a receive on the parent. */
static void test_dup(void)
{
    MPI_Comm dup;
    int p = partner(), s = -1, r = -1, flag = -1;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CALL(MPI_Comm_size(dup, &s));
    CALL(MPI_Comm_rank(dup, &r));
    CHECK(s == mt_size && r == mt_rank, "dup: size %d rank %d, want %d %d", s, r, mt_size, mt_rank);
    CHECK(compare(dup, MPI_COMM_WORLD) == MPI_CONGRUENT, "compare(dup, world) gave %d",
          compare(dup, MPI_COMM_WORLD));
    CALL(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag == 0, "MPI_Comm_test_inter(dup) gave %d", flag);

    int on_dup = 111, on_world = 222, got = 0;
    MPI_Request rq[2];
    MPI_Status st;
    if (mt_rank <= p) { /* the dup message goes first */
        CALL(MPI_Isend(&on_dup, 1, MPI_INT, p, 5, dup, &rq[0]));
        CALL(MPI_Isend(&on_world, 1, MPI_INT, p, 5, MPI_COMM_WORLD, &rq[1]));
    }
    if (mt_rank >= p) {
        CALL(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(got == 222, "receive on MPI_COMM_WORLD matched the message sent on its dup (%d)",
              got);
        CALL(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
        CHECK(got == 111 && st.MPI_SOURCE == p, "receive on the dup got %d from %d", got,
              st.MPI_SOURCE);
    }
    if (mt_rank <= p) CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    /* A dup of a dup is congruent to both. */
    MPI_Comm dup2;
    CALL(MPI_Comm_dup(dup, &dup2));
    CHECK(compare(dup2, dup) == MPI_CONGRUENT && compare(dup2, MPI_COMM_WORLD) == MPI_CONGRUENT,
          "dup of dup not congruent");
    CALL(MPI_Comm_free(&dup2));
    CALL(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
}

static void test_split(void)
{
    int n = mt_size, *wr = mt_xmalloc(sizeof(int) * (size_t)n);
    MPI_Comm c;
    int s, r;

    /* Colors by parity, keys descending: the new order is reversed world order. */
    CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &c));
    CALL(MPI_Comm_size(c, &s));
    CALL(MPI_Comm_rank(c, &r));
    int want_s = 0;
    for (int i = 0; i < n; i++)
        want_s += (i % 2 == mt_rank % 2);
    CHECK(s == want_s, "split by parity: size %d, want %d", s, want_s);
    world_ranks(c, wr, s);
    for (int i = 0; i < s; i++) {
        /* members of my color, largest world rank first */
        int last = (n - 1) % 2 == mt_rank % 2 ? n - 1 : n - 2;
        CHECK(wr[i] == last - 2 * i,
              "split by parity, reversed keys: rank %d is world %d, want "
              "%d",
              i, wr[i], last - 2 * i);
        if (wr[i] == mt_rank) CHECK(r == i, "split: my rank %d, want %d", r, i);
    }
    /* The new communicator works: a ring sum within it. */
    int sum = 0, v = mt_rank;
    CALL(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    int want_sum = 0;
    for (int i = mt_rank % 2; i < n; i += 2)
        want_sum += i;
    CHECK(sum == want_sum, "allreduce in split comm gave %d, want %d", sum, want_sum);
    if (n > 1)
        CHECK(compare(c, MPI_COMM_WORLD) == MPI_UNEQUAL, "compare(parity split, world) gave %d",
              compare(c, MPI_COMM_WORLD));
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CALL(MPI_Comm_get_name(c, name, &len));
    CHECK(len == 0 && name[0] == 0, "a new communicator has the name \"%s\" (len %d)", name, len);
    CALL(MPI_Comm_free(&c));

    /* Same color, equal keys: ties keep the old order, congruent with world. */
    CALL(MPI_Comm_split(MPI_COMM_WORLD, 7, 0, &c));
    CHECK(compare(c, MPI_COMM_WORLD) == MPI_CONGRUENT, "split(one color, key 0) vs world: %d",
          compare(c, MPI_COMM_WORLD));
    CALL(MPI_Comm_free(&c));
    CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, n - mt_rank, &c));
    CHECK(compare(c, MPI_COMM_WORLD) == (n > 1 ? MPI_SIMILAR : MPI_CONGRUENT),
          "split(reversed keys) vs world: %d", compare(c, MPI_COMM_WORLD));
    CALL(MPI_Comm_free(&c));

    /* MPI_UNDEFINED color: the last rank gets MPI_COMM_NULL. */
    int color = mt_rank == n - 1 ? MPI_UNDEFINED : 1;
    CALL(MPI_Comm_split(MPI_COMM_WORLD, color, 0, &c));
    if (color == MPI_UNDEFINED)
        CHECK(c == MPI_COMM_NULL, "split with MPI_UNDEFINED color did not give MPI_COMM_NULL");
    else {
        CALL(MPI_Comm_size(c, &s));
        CHECK(s == n - 1, "split without the last rank: size %d, want %d", s, n - 1);
        CALL(MPI_Comm_free(&c));
    }

    /* split_type shared: every rank of this job runs on this host. */
    CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mt_rank, MPI_INFO_NULL, &c));
    CHECK(c != MPI_COMM_NULL, "MPI_Comm_split_type(SHARED) gave MPI_COMM_NULL");
    CALL(MPI_Comm_size(c, &s));
    CALL(MPI_Comm_rank(c, &r));
    CHECK(s == n && r == mt_rank, "split_type(SHARED) on one host: size %d rank %d, want %d %d", s,
          r, n, mt_rank);
    CALL(MPI_Comm_free(&c));
    /* keys order the ranks of the new communicator */
    CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, n - mt_rank, MPI_INFO_NULL, &c));
    CALL(MPI_Comm_rank(c, &r));
    CHECK(r == n - 1 - mt_rank, "split_type(SHARED) with reversed keys: rank %d, want %d", r,
          n - 1 - mt_rank);
    CALL(MPI_Comm_free(&c));
    CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "split_type(MPI_UNDEFINED) did not give MPI_COMM_NULL");
    free(wr);
}

static void test_create(void)
{
    MPI_Group w, ev;
    MPI_Comm c;
    int n = mt_size, ne = (n + 1) / 2, *ranks = mt_xmalloc(sizeof(int) * (size_t)ne);
    for (int i = 0; i < ne; i++)
        ranks[i] = 2 * i;
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CALL(MPI_Group_incl(w, ne, ranks, &ev));
    CALL(MPI_Comm_create(MPI_COMM_WORLD, ev, &c));
    if (mt_rank % 2) {
        CHECK(c == MPI_COMM_NULL, "MPI_Comm_create: a rank outside the group got a communicator");
    } else {
        int s = -1, r = -1, sum = 0, one = 1;
        CHECK(c != MPI_COMM_NULL, "MPI_Comm_create: a member got MPI_COMM_NULL");
        CALL(MPI_Comm_size(c, &s));
        CALL(MPI_Comm_rank(c, &r));
        CHECK(s == ne && r == mt_rank / 2, "Comm_create(evens): size %d rank %d", s, r);
        CALL(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == ne, "allreduce in created comm gave %d, want %d", sum, ne);
        MPI_Group g;
        int res;
        CALL(MPI_Comm_group(c, &g));
        CALL(MPI_Group_compare(g, ev, &res));
        CHECK(res == MPI_IDENT, "group of created comm vs the group given: %d", res);
        CALL(MPI_Group_free(&g));
        CALL(MPI_Comm_free(&c));
    }
    CALL(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL, "MPI_Comm_create(MPI_GROUP_EMPTY) did not give MPI_COMM_NULL");
    CALL(MPI_Comm_create(MPI_COMM_WORLD, w, &c));
    CHECK(compare(c, MPI_COMM_WORLD) == MPI_CONGRUENT, "Comm_create(world group) vs world: %d",
          compare(c, MPI_COMM_WORLD));
    CALL(MPI_Comm_free(&c));
    CALL(MPI_Group_free(&ev));
    CALL(MPI_Group_free(&w));
    free(ranks);
}

static void test_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CALL(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_WORLD") && len == 14, "name of MPI_COMM_WORLD is \"%s\" (%d)",
          name, len);
    CALL(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_SELF") && len == 13, "name of MPI_COMM_SELF is \"%s\" (%d)", name,
          len);
    MPI_Comm d;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CALL(MPI_Comm_set_name(d, "my duplicate"));
    CALL(MPI_Comm_get_name(d, name, &len));
    CHECK(!strcmp(name, "my duplicate") && len == 12, "set/get name gave \"%s\" (%d)", name, len);
    CALL(MPI_Comm_set_name(d, "renamed"));
    CALL(MPI_Comm_get_name(d, name, &len));
    CHECK(!strcmp(name, "renamed") && len == 7, "second set_name gave \"%s\" (%d)", name, len);
    CALL(MPI_Comm_free(&d));
    CALL(MPI_Comm_set_name(MPI_COMM_WORLD, "world renamed"));
    CALL(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(!strcmp(name, "world renamed"), "renaming MPI_COMM_WORLD gave \"%s\"", name);
    CALL(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"));
}

/* --- attributes ---------------------------------------------------------- */

static int copies, deletes, last_deleted;
static int extra_token;

static int copy_plus_one(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    CHECK(extra == &extra_token, "copy callback got extra_state %p, want %p", extra,
          (void *)&extra_token);
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int key, void *val, void *extra)
{
    CHECK(extra == &extra_token, "delete callback got extra_state %p", extra);
    deletes++;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static void test_attrs(void)
{
    int k1 = MPI_KEYVAL_INVALID, k2, k3, flag = -1;
    void *v = NULL;
    MPI_Comm a, b;
    CALL(MPI_Comm_create_keyval(copy_plus_one, count_delete, &k1, &extra_token));
    CHECK(k1 != MPI_KEYVAL_INVALID, "MPI_Comm_create_keyval gave MPI_KEYVAL_INVALID");
    CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
    CALL(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL));
    CHECK(k1 != k2 && k2 != k3 && k1 != k3, "keyvals not distinct: %d %d %d", k1, k2, k3);

    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CALL(MPI_Comm_get_attr(a, k1, &v, &flag));
    CHECK(flag == 0, "attribute present before it was set");
    CALL(MPI_Comm_set_attr(a, k1, (void *)(intptr_t)100));
    CALL(MPI_Comm_set_attr(a, k2, (void *)(intptr_t)200));
    CALL(MPI_Comm_set_attr(a, k3, (void *)(intptr_t)300));
    CALL(MPI_Comm_get_attr(a, k1, &v, &flag));
    CHECK(flag && (intptr_t)v == 100, "get_attr k1: flag %d value %ld", flag, (long)(intptr_t)v);

    /* Replacing a value deletes the old one. */
    deletes = 0;
    CALL(MPI_Comm_set_attr(a, k1, (void *)(intptr_t)101));
    CHECK(deletes == 1 && last_deleted == 100, "set_attr over a value: %d deletes, last %d",
          deletes, last_deleted);

    /* Dup runs the copy callbacks. */
    copies = 0;
    CALL(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "MPI_Comm_dup called the copy callback %d times, want 1", copies);
    CALL(MPI_Comm_get_attr(b, k1, &v, &flag));
    CHECK(flag && (intptr_t)v == 102, "dup: k1 flag %d value %ld, want 102", flag,
          (long)(intptr_t)v);
    CALL(MPI_Comm_get_attr(b, k2, &v, &flag));
    CHECK(flag == 0, "dup: MPI_COMM_NULL_COPY_FN attribute was copied");
    CALL(MPI_Comm_get_attr(b, k3, &v, &flag));
    CHECK(flag && (intptr_t)v == 300, "dup: MPI_COMM_DUP_FN attribute flag %d value %ld", flag,
          (long)(intptr_t)v);

    /* Delete_attr runs the delete callback; the attribute is gone. */
    deletes = 0;
    CALL(MPI_Comm_delete_attr(a, k1));
    CHECK(deletes == 1 && last_deleted == 101, "delete_attr: %d deletes, last value %d", deletes,
          last_deleted);
    CALL(MPI_Comm_get_attr(a, k1, &v, &flag));
    CHECK(flag == 0, "attribute still there after delete_attr");

    /* Freeing the keyval does not detach it from b; freeing b runs the delete. */
    CALL(MPI_Comm_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval did not set MPI_KEYVAL_INVALID");
    deletes = 0;
    CALL(MPI_Comm_free(&b));
    CHECK(deletes == 1 && last_deleted == 102, "Comm_free ran %d deletes (last %d), want 1 (102)",
          deletes, last_deleted);
    deletes = 0;
    CALL(MPI_Comm_free(&a));
    CHECK(deletes == 0, "Comm_free ran the delete callback of a deleted attribute");
    CALL(MPI_Comm_free_keyval(&k2));
    CALL(MPI_Comm_free_keyval(&k3));

    /* Predefined attributes of MPI_COMM_WORLD: the value is a pointer to int. */
    int *ip = NULL;
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag));
    CHECK(flag && ip && *ip >= 32767, "MPI_TAG_UB: flag %d value %d", flag, ip ? *ip : -1);
    int tag_ub = *ip;
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag));
    CHECK(flag && ip && (*ip == MPI_PROC_NULL || (*ip >= 0 && *ip < mt_size)),
          "MPI_HOST: flag %d value %d", flag, ip ? *ip : -99);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag));
    CHECK(flag && ip &&
              (*ip == MPI_PROC_NULL || *ip == MPI_ANY_SOURCE || (*ip >= 0 && *ip < mt_size)),
          "MPI_IO: flag %d value %d", flag, ip ? *ip : -99);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag));
    CHECK(flag && ip && (*ip == 0 || *ip == 1), "MPI_WTIME_IS_GLOBAL: flag %d value %d", flag,
          ip ? *ip : -99);

    /* The largest tag works. */
    int x = 5, y = 0;
    MPI_Status st;
    CALL(MPI_Sendrecv(&x, 1, MPI_INT, mt_rank, tag_ub, &y, 1, MPI_INT, mt_rank, tag_ub,
                      MPI_COMM_WORLD, &st));
    CHECK(y == 5 && st.MPI_TAG == tag_ub, "message with tag MPI_TAG_UB=%d: got %d tag %d", tag_ub,
          y, st.MPI_TAG);
}

/* Many communicators alive at once, and many dup/free cycles: context ids are
 * recycled correctly and messages stay in their own communicator. */
static void test_many_comms(void)
{
    enum { ALIVE = 40, CYCLES = 200 };
    MPI_Comm c[ALIVE];
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Request rq[2 * ALIVE];
    int out[ALIVE], in[ALIVE];
    for (int i = 0; i < ALIVE; i++)
        CALL(MPI_Comm_dup(i % 2 ? MPI_COMM_WORLD : (i ? c[i - 1] : MPI_COMM_WORLD), &c[i]));
    /* the same tag on every communicator: each receive gets its own comm's value */
    for (int i = 0; i < ALIVE; i++) {
        out[i] = mt_rank * 1000 + i;
        in[i] = -1;
        CALL(MPI_Irecv(&in[i], 1, MPI_INT, left, 0, c[i], &rq[i]));
    }
    for (int i = ALIVE - 1; i >= 0; i--)
        CALL(MPI_Isend(&out[i], 1, MPI_INT, right, 0, c[i], &rq[ALIVE + i]));
    CALL(MPI_Waitall(2 * ALIVE, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < ALIVE; i++)
        CHECK(in[i] == left * 1000 + i, "communicator %d of %d received %d, want %d", i, ALIVE,
              in[i], left * 1000 + i);
    for (int i = 0; i < ALIVE; i++)
        CALL(MPI_Comm_free(&c[i]));
    for (int k = 0; k < CYCLES; k++) {
        MPI_Comm d;
        int x = k, y = -1;
        CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        CALL(MPI_Sendrecv(&x, 1, MPI_INT, right, k, &y, 1, MPI_INT, left, k, d, MPI_STATUS_IGNORE));
        CHECK(y == k, "dup/free cycle %d: received %d", k, y);
        CALL(MPI_Comm_free(&d));
    }
}

/* Attributes on MPI_COMM_SELF are deleted first thing in MPI_Finalize (MPI 3.1 §8.7.1). */
static int self_deleted;
static int self_delete(MPI_Comm c, int key, void *val, void *extra)
{
    int fin = 1;
    MPI_Finalized(&fin);
    self_deleted = (c == MPI_COMM_SELF && (intptr_t)val == 4242 && !fin) ? 1 : -1;
    return MPI_SUCCESS;
}

static int no_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "comm");
    test_basic();
    test_dup();
    test_split();
    test_create();
    test_names();
    test_attrs();
    test_many_comms();

    /* a copy callback that declines: the duplicate has no attribute */
    int kn, flag = -1;
    void *v;
    MPI_Comm d;
    CALL(MPI_Comm_create_keyval(no_copy, MPI_COMM_NULL_DELETE_FN, &kn, NULL));
    CALL(MPI_Comm_set_attr(MPI_COMM_WORLD, kn, (void *)(intptr_t)5));
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CALL(MPI_Comm_get_attr(d, kn, &v, &flag));
    CHECK(flag == 0, "a copy callback that set flag 0 still copied the attribute");
    CALL(MPI_Comm_free(&d));
    CALL(MPI_Comm_delete_attr(MPI_COMM_WORLD, kn));
    CALL(MPI_Comm_free_keyval(&kn));

    int ks;
    CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &ks, NULL));
    CALL(MPI_Comm_set_attr(MPI_COMM_SELF, ks, (void *)(intptr_t)4242));
    mt_done();
    if (self_deleted != 1) {
        fprintf(stderr,
                "FAIL comm rank %d: MPI_Finalize %s the delete callback of an attribute "
                "on MPI_COMM_SELF\n",
                mt_rank,
                self_deleted ? "called, but not while MPI was active or with the wrong value,"
                             : "did not call");
        return 1;
    }
    return 0;
}
