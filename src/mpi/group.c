/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Groups: ordered sets of processes, kept as arrays of MPI_COMM_WORLD
 * ranks. The reverse map (world rank -> group rank) is built on first use
 * and costs one int per world rank; membership tests of the set operations
 * use it, so unions and intersections are linear.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

struct ump_mpi_group ump_mpi_group_empty = {.magic = UMP_MPI_MAGIC_GROUP,
                                            .refcount = 1,
                                            .predefined = true,
                                            .size = 0,
                                            .rank = MPI_UNDEFINED};
struct ump_mpi_group ump_mpi_group_null = {.magic = UMP_MPI_MAGIC_DEAD};

bool ump_mpi_group_ok(MPI_Group g)
{
    return g && g->magic == UMP_MPI_MAGIC_GROUP;
}

MPI_Group ump_mpi_group_new(int n, const int *world)
{
    if (n == 0) return MPI_GROUP_EMPTY;
    MPI_Group g = calloc(1, sizeof(*g));
    if (!g) return NULL;
    g->world = malloc(sizeof(int) * (size_t)n);
    if (!g->world) {
        free(g);
        return NULL;
    }
    memcpy(g->world, world, sizeof(int) * (size_t)n);
    g->magic = UMP_MPI_MAGIC_GROUP;
    g->refcount = 1;
    g->size = n;
    g->rank = MPI_UNDEFINED;
    int me = ump_rank();
    for (int i = 0; i < n; i++)
        if (world[i] == me) {
            g->rank = i;
            break;
        }
    return g;
}

void ump_mpi_group_unref(MPI_Group g)
{
    if (!g || g->predefined) return;
    if (__atomic_sub_fetch(&g->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
    g->magic = UMP_MPI_MAGIC_DEAD;
    free(g->world);
    free(g->inverse);
    free(g);
}

int ump_mpi_group_rank_of(MPI_Group g, int w)
{
    if (w < 0 || g->size == 0) return MPI_UNDEFINED;
    /* Built once, by whichever thread asks first; the release store of the
     * map (after its length) lets a reader that sees it read both. */
    int *map = __atomic_load_n(&g->inverse, __ATOMIC_ACQUIRE);
    if (!map) {
        int len = 0;
        for (int i = 0; i < g->size; i++)
            len = UMP_MAX(len, g->world[i] + 1);
        int *inv = malloc(sizeof(int) * (size_t)len);
        if (!inv) {
            for (int i = 0; i < g->size; i++)
                if (g->world[i] == w) return i;
            return MPI_UNDEFINED;
        }
        for (int i = 0; i < len; i++)
            inv[i] = MPI_UNDEFINED;
        for (int i = 0; i < g->size; i++)
            inv[g->world[i]] = i;
        ump_mpi_lock();
        if (!g->inverse) {
            g->inverse_len = len;
            __atomic_store_n(&g->inverse, inv, __ATOMIC_RELEASE);
            inv = NULL;
        }
        ump_mpi_unlock();
        free(inv);
        map = __atomic_load_n(&g->inverse, __ATOMIC_ACQUIRE);
    }
    return w < g->inverse_len ? map[w] : MPI_UNDEFINED;
}

#define CHECK_GROUP(call, g)                                                                       \
    do {                                                                                           \
        if (!ump_mpi_group_ok(g))                                                                  \
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_GROUP, call, "invalid group");             \
    } while (0)
#define CHECK_PTR(call, p, what)                                                                   \
    do {                                                                                           \
        if (!(p)) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL", what);      \
    } while (0)

static int finish_new(const char *call, int n, const int *world, MPI_Group *newgroup)
{
    MPI_Group g = ump_mpi_group_new(n, world);
    if (!g) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    *newgroup = g;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char call[] = "MPI_Group_size";
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, group);
    CHECK_PTR(call, size, "size");
    *size = group->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char call[] = "MPI_Group_rank";
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, group);
    CHECK_PTR(call, rank, "rank");
    *rank = group->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    static const char call[] = "MPI_Group_free";
    UMP_MPI_CHECK_INIT(call);
    CHECK_PTR(call, group, "group");
    CHECK_GROUP(call, *group);
    ump_mpi_group_unref(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

/* Marks of group ranks for incl/excl: rejects out-of-range and repeated ranks. */
static int check_ranks(const char *call, MPI_Group g, int n, const int ranks[], char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "ranks[%d] = %d is out of range [0, %d)", i, r, g->size);
        if (seen[r])
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call, "ranks[%d] = %d appears twice",
                                 i, r);
        seen[r] = 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(const char *call, MPI_Group group, int n, const int ranks[],
                     MPI_Group *newgroup, bool incl)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, group);
    CHECK_PTR(call, newgroup, "newgroup");
    if (n < 0 || n > group->size)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n = %d is out of range [0, %d]", n,
                             group->size);
    if (n > 0 && !ranks) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranks is NULL");
    char *seen = calloc((size_t)group->size + 1, 1);
    int *w = malloc(sizeof(int) * ((size_t)group->size + 1));
    int rc;
    if (!seen || !w) {
        rc = ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    rc = check_ranks(call, group, n, ranks, seen);
    if (rc != MPI_SUCCESS) goto out;
    int k = 0;
    if (incl) {
        for (int i = 0; i < n; i++)
            w[k++] = group->world[ranks[i]];
    } else {
        for (int i = 0; i < group->size; i++)
            if (!seen[i]) w[k++] = group->world[i];
    }
    rc = finish_new(call, k, w, newgroup);
out:
    free(seen);
    free(w);
    return rc;
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_incl", group, n, ranks, newgroup, true);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_excl", group, n, ranks, newgroup, false);
}

/* Expands (first, last, stride) triplets into a rank list. */
static int expand_ranges(const char *call, MPI_Group g, int n, int ranges[][3], int **out,
                         int *nout)
{
    if (n < 0) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n = %d is negative", n);
    if (n > 0 && !ranges) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranges is NULL");
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "ranges[%d] = (%d, %d, %d) leaves [0, %d)", i, first, last, stride,
                                 g->size);
        if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;
        total += (last - first) / stride + 1;
        if (total > g->size)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "ranges name more ranks than the group has");
    }
    int *r = malloc(sizeof(int) * ((size_t)total + 1));
    if (!r) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride > 0)
            for (int x = first; x <= last; x += stride)
                r[k++] = x;
        else
            for (int x = first; x >= last; x += stride)
                r[k++] = x;
    }
    *out = r;
    *nout = k;
    return MPI_SUCCESS;
}

static int range_incl_excl(const char *call, MPI_Group group, int n, int ranges[][3],
                           MPI_Group *newgroup, bool incl)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, group);
    CHECK_PTR(call, newgroup, "newgroup");
    int *ranks = NULL, k = 0;
    int rc = expand_ranges(call, group, n, ranges, &ranks, &k);
    if (rc != MPI_SUCCESS) return rc;
    rc = incl_excl(call, group, k, ranks, newgroup, incl);
    free(ranks);
    return rc;
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_incl", group, n, ranges, newgroup, true);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_excl", group, n, ranges, newgroup, false);
}

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(const char *call, MPI_Group g1, MPI_Group g2, MPI_Group *newgroup, int op)
{
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, g1);
    CHECK_GROUP(call, g2);
    CHECK_PTR(call, newgroup, "newgroup");
    int *w = malloc(sizeof(int) * ((size_t)g1->size + (size_t)g2->size + 1));
    if (!w) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int k = 0;
    /* Order: the members of g1 in g1's order, then (union) those of g2 not in g1. */
    for (int i = 0; i < g1->size; i++) {
        bool in2 = ump_mpi_group_rank_of(g2, g1->world[i]) != MPI_UNDEFINED;
        if (op == SET_UNION || (op == SET_INTERSECTION && in2) || (op == SET_DIFFERENCE && !in2))
            w[k++] = g1->world[i];
    }
    if (op == SET_UNION)
        for (int i = 0; i < g2->size; i++)
            if (ump_mpi_group_rank_of(g1, g2->world[i]) == MPI_UNDEFINED) w[k++] = g2->world[i];
    int rc = finish_new(call, k, w, newgroup);
    free(w);
    return rc;
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", group1, group2, newgroup, SET_UNION);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", group1, group2, newgroup, SET_INTERSECTION);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", group1, group2, newgroup, SET_DIFFERENCE);
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char call[] = "MPI_Group_translate_ranks";
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, group1);
    CHECK_GROUP(call, group2);
    if (n < 0) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n = %d is negative", n);
    if (n > 0 && (!ranks1 || !ranks2))
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranks1 or ranks2 is NULL");
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r == MPI_PROC_NULL) continue;
        if (r < 0 || r >= group1->size)
            return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call,
                                 "ranks1[%d] = %d is out of range [0, %d)", i, r, group1->size);
    }
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL
                        ? MPI_PROC_NULL
                        : ump_mpi_group_rank_of(group2, group1->world[ranks1[i]]);
    return MPI_SUCCESS;
}

int ump_mpi_group_compare(MPI_Group a, MPI_Group b)
{
    if (a == b) return MPI_IDENT;
    if (a->size != b->size) return MPI_UNEQUAL;
    bool same_order = true;
    for (int i = 0; i < a->size; i++) {
        if (a->world[i] != b->world[i]) same_order = false;
        if (ump_mpi_group_rank_of(b, a->world[i]) == MPI_UNDEFINED) return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char call[] = "MPI_Group_compare";
    UMP_MPI_CHECK_INIT(call);
    CHECK_GROUP(call, group1);
    CHECK_GROUP(call, group2);
    CHECK_PTR(call, result, "result");
    *result = ump_mpi_group_compare(group1, group2);
    return MPI_SUCCESS;
}
