/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.c - process groups (MPI 3.1 §6.3): size, rank, incl/excl, range
 * incl/excl (also with negative strides), union, intersection, difference,
 * translate_ranks (with MPI_PROC_NULL and absent ranks), compare, free, and
 * MPI_GROUP_EMPTY. Every derived group is checked member by member.
 */
#include "mt.h"

static MPI_Group world;

/* The world ranks of g's members, in g's order; returns the size. */
static int members(MPI_Group g, int *out)
{
    int n = -1;
    CALL(MPI_Group_size(g, &n));
    int *in = mt_xmalloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (n > 0) CALL(MPI_Group_translate_ranks(g, n, in, world, out));
    free(in);
    return n;
}

static void expect(MPI_Group g, const int *want, int n, const char *what)
{
    int *got = mt_xmalloc(sizeof(int) * (size_t)(mt_size + 1));
    int m = members(g, got);
    CHECK(m == n, "%s: size %d, want %d", what, m, n);
    int myrank = -5, wantrank = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        CHECK(got[i] == want[i], "%s: member %d is world rank %d, want %d", what, i, got[i],
              want[i]);
        if (want[i] == mt_rank) wantrank = i;
    }
    CALL(MPI_Group_rank(g, &myrank));
    CHECK(myrank == wantrank, "%s: MPI_Group_rank %d, want %d", what, myrank, wantrank);
    free(got);
}

static int cmp(MPI_Group a, MPI_Group b)
{
    int r = -1;
    CALL(MPI_Group_compare(a, b, &r));
    return r;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "group");
    int n = mt_size, ne = (n + 1) / 2, no = n / 2;
    int *all = mt_xmalloc(sizeof(int) * (size_t)n), *rev = mt_xmalloc(sizeof(int) * (size_t)n);
    int *ev = mt_xmalloc(sizeof(int) * (size_t)n), *od = mt_xmalloc(sizeof(int) * (size_t)n + 1);
    int *tmp = mt_xmalloc(sizeof(int) * (size_t)n + 4);
    for (int i = 0; i < n; i++) {
        all[i] = i;
        rev[i] = n - 1 - i;
    }
    for (int i = 0; i < ne; i++)
        ev[i] = 2 * i;
    for (int i = 0; i < no; i++)
        od[i] = 2 * i + 1;

    CALL(MPI_Comm_group(MPI_COMM_WORLD, &world));
    expect(world, all, n, "group of MPI_COMM_WORLD");

    /* MPI_GROUP_EMPTY */
    int s = -1, r = -1;
    CALL(MPI_Group_size(MPI_GROUP_EMPTY, &s));
    CALL(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK(s == 0 && r == MPI_UNDEFINED, "MPI_GROUP_EMPTY: size %d rank %d", s, r);

    MPI_Group grev, gev, god, gx, gy, gz;
    CALL(MPI_Group_incl(world, n, rev, &grev));
    expect(grev, rev, n, "MPI_Group_incl(reversed)");
    CHECK(cmp(grev, world) == (n > 1 ? MPI_SIMILAR : MPI_IDENT), "compare(reversed, world) gave %d",
          cmp(grev, world));
    CALL(MPI_Group_incl(world, ne, ev, &gev));
    expect(gev, ev, ne, "MPI_Group_incl(evens)");
    CHECK(cmp(gev, world) == (n > 1 ? MPI_UNEQUAL : MPI_IDENT), "compare(evens, world) gave %d",
          cmp(gev, world));
    CALL(MPI_Group_excl(world, ne, ev, &god));
    expect(god, od, no, "MPI_Group_excl(evens)");
    if (no == 0)
        CHECK(cmp(god, MPI_GROUP_EMPTY) == MPI_IDENT, "excluding everyone is not MPI_GROUP_EMPTY");

    CALL(MPI_Group_incl(world, 0, NULL, &gx));
    CHECK(cmp(gx, MPI_GROUP_EMPTY) == MPI_IDENT, "MPI_Group_incl of nobody is not empty");
    CALL(MPI_Group_free(&gx));
    CHECK(gx == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");
    CALL(MPI_Group_excl(world, 0, NULL, &gx));
    CHECK(cmp(gx, world) == MPI_IDENT, "MPI_Group_excl of nobody is not the same group");
    CALL(MPI_Group_free(&gx));

    /* ranges: evens by stride 2, the reversed list by stride -1 */
    int rg[1][3] = {{0, n - 1, 2}};
    CALL(MPI_Group_range_incl(world, 1, rg, &gx));
    expect(gx, ev, ne, "MPI_Group_range_incl(0..n-1 step 2)");
    CHECK(cmp(gx, gev) == MPI_IDENT, "range_incl evens differs from incl evens");
    CALL(MPI_Group_free(&gx));
    CALL(MPI_Group_range_excl(world, 1, rg, &gx));
    expect(gx, od, no, "MPI_Group_range_excl(0..n-1 step 2)");
    CALL(MPI_Group_free(&gx));
    int rr[1][3] = {{n - 1, 0, -1}};
    CALL(MPI_Group_range_incl(world, 1, rr, &gx));
    expect(gx, rev, n, "MPI_Group_range_incl(n-1..0 step -1)");
    CHECK(cmp(gx, grev) == MPI_IDENT, "range_incl reversed differs from incl reversed");
    CALL(MPI_Group_free(&gx));
    if (n >= 3) { /* two ranges: {n-1} and {0, 1} */
        int r2[2][3] = {{n - 1, n - 1, 1}, {0, 1, 1}};
        int want[3] = {n - 1, 0, 1};
        CALL(MPI_Group_range_incl(world, 2, r2, &gx));
        expect(gx, want, 3, "MPI_Group_range_incl(two ranges)");
        CALL(MPI_Group_free(&gx));
    }

    /* set operations */
    CALL(MPI_Group_union(gev, god, &gx)); /* evens, then odds */
    for (int i = 0; i < ne; i++)
        tmp[i] = ev[i];
    for (int i = 0; i < no; i++)
        tmp[ne + i] = od[i];
    expect(gx, tmp, n, "MPI_Group_union(evens, odds)");
    CHECK(cmp(gx, world) == (n > 2 ? MPI_SIMILAR : MPI_IDENT), "compare(union, world) gave %d",
          cmp(gx, world));
    CALL(MPI_Group_union(grev, gev, &gy)); /* duplicates do not repeat */
    expect(gy, rev, n, "MPI_Group_union(reversed, evens)");
    CALL(MPI_Group_intersection(grev, gev, &gz)); /* order of the first group */
    int k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2 == 0) tmp[k++] = i;
    expect(gz, tmp, k, "MPI_Group_intersection(reversed, evens)");
    CALL(MPI_Group_free(&gx));
    CALL(MPI_Group_free(&gy));
    CALL(MPI_Group_free(&gz));
    CALL(MPI_Group_intersection(gev, god, &gx));
    CHECK(cmp(gx, MPI_GROUP_EMPTY) == MPI_IDENT, "intersection(evens, odds) is not empty");
    s = -1;
    CALL(MPI_Group_size(gx, &s));
    CHECK(s == 0, "intersection(evens, odds) has size %d", s);
    CALL(MPI_Group_free(&gx));
    CALL(MPI_Group_difference(grev, gev, &gx)); /* odds in reversed order */
    k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2 == 1) tmp[k++] = i;
    expect(gx, tmp, k, "MPI_Group_difference(reversed, evens)");
    CALL(MPI_Group_free(&gx));
    CALL(MPI_Group_difference(world, world, &gx));
    CHECK(cmp(gx, MPI_GROUP_EMPTY) == MPI_IDENT, "difference(world, world) is not empty");
    CALL(MPI_Group_free(&gx));
    CALL(MPI_Group_union(MPI_GROUP_EMPTY, gev, &gx));
    CHECK(cmp(gx, gev) == MPI_IDENT, "union(empty, evens) differs from evens");
    CALL(MPI_Group_free(&gx));

    /* translate_ranks: odd world ranks are absent from evens; MPI_PROC_NULL maps to itself */
    int in[3] = {0, n > 1 ? 1 : 0, MPI_PROC_NULL}, out[3] = {-9, -9, -9};
    CALL(MPI_Group_translate_ranks(world, 3, in, gev, out));
    CHECK(out[0] == 0, "translate world 0 -> evens gave %d", out[0]);
    CHECK(out[1] == (n > 1 ? MPI_UNDEFINED : 0), "translate world %d -> evens gave %d, want %d",
          in[1], out[1], n > 1 ? MPI_UNDEFINED : 0);
    CHECK(out[2] == MPI_PROC_NULL, "translate MPI_PROC_NULL gave %d", out[2]);
    CALL(MPI_Group_translate_ranks(grev, n, all, world, tmp));
    for (int i = 0; i < n; i++)
        CHECK(tmp[i] == n - 1 - i, "translate reversed %d -> world gave %d", i, tmp[i]);

    /* Comm_group of a duplicate is the same group. */
    MPI_Comm dup;
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CALL(MPI_Comm_group(dup, &gx));
    CHECK(cmp(gx, world) == MPI_IDENT, "group of a dup of MPI_COMM_WORLD is not IDENT");
    CALL(MPI_Group_free(&gx));
    CALL(MPI_Comm_free(&dup));
    CALL(MPI_Comm_group(MPI_COMM_SELF, &gx));
    int self_members[1] = {mt_rank};
    expect(gx, self_members, 1, "group of MPI_COMM_SELF");
    CALL(MPI_Group_free(&gx));

    CALL(MPI_Group_free(&grev));
    CALL(MPI_Group_free(&gev));
    CALL(MPI_Group_free(&god));
    CALL(MPI_Group_free(&world));
    CHECK(world == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");
    free(all);
    free(rev);
    free(ev);
    free(od);
    free(tmp);
    return mt_done();
}
