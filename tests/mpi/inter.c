/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inter.c - intercommunicators (MPI 3.1 §6.6): MPI_Intercomm_create with
 * different leaders, the local and remote groups, point-to-point across
 * (ping-pong byte for byte at sizes around the eager and rendezvous
 * thresholds, MPI_ANY_SOURCE, probes, matched probes, persistent requests,
 * Sendrecv), then round trips through MPI_Intercomm_merge, MPI_Comm_dup,
 * _split, _create, _compare, names and attributes, and the errors: bad
 * leaders, a NULL peer communicator, an intercommunicator as local_comm,
 * and the calls that take intracommunicators only. The world is cut into
 * group A (the first `a` ranks) and group B (the rest) for several `a`.
 * Needs 2 or more ranks.
 */
#include "mt.h"

static const size_t sizes[] = {0, 1, 8191, 8192, 8193, 65535, 65536, 65537, 262145, 1048577};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* The split under test: this process's group (0: A, 1: B), sizes, ranks. */
static int grp, na, nb, lrank, lsize, rsize;

static int world_of(int g, int r)
{
    return g == 0 ? r : na + r;
}

/* Group A is world ranks [0, a), B the rest; local ranks follow world
 * order. The leaders are local rank `leader` of each group. */
static MPI_Comm make_inter(int a, int leader, MPI_Comm *local)
{
    na = a;
    nb = mt_size - a;
    grp = mt_rank < a ? 0 : 1;
    CALL(MPI_Comm_split(MPI_COMM_WORLD, grp, mt_rank, local));
    CALL(MPI_Comm_rank(*local, &lrank));
    CALL(MPI_Comm_size(*local, &lsize));
    int rl = grp == 0 ? world_of(1, leader % nb) : world_of(0, leader % na);
    MPI_Comm ic;
    CALL(MPI_Intercomm_create(*local, leader % lsize, MPI_COMM_WORLD, rl, 17, &ic));
    rsize = grp == 0 ? nb : na;
    return ic;
}

static void check_shape(MPI_Comm ic)
{
    int flag = 0, n, r, m;
    CALL(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "MPI_Comm_test_inter is false on an intercommunicator");
    CALL(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "MPI_Comm_test_inter is true on MPI_COMM_WORLD");
    CALL(MPI_Comm_size(ic, &n));
    CALL(MPI_Comm_rank(ic, &r));
    CALL(MPI_Comm_remote_size(ic, &m));
    CHECK(n == lsize && r == lrank && m == rsize, "size %d rank %d remote %d, want %d %d %d", n, r,
          m, lsize, lrank, rsize);
    MPI_Group lg, rg, wg;
    CALL(MPI_Comm_group(ic, &lg));
    CALL(MPI_Comm_remote_group(ic, &rg));
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *ranks = mt_xmalloc(sizeof(int) * (size_t)mt_size),
        *out = mt_xmalloc(sizeof(int) * (size_t)mt_size);
    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    CALL(MPI_Group_translate_ranks(rg, m, ranks, wg, out));
    for (int i = 0; i < m; i++)
        CHECK(out[i] == world_of(1 - grp, i), "remote rank %d is world %d, want %d", i, out[i],
              world_of(1 - grp, i));
    CALL(MPI_Group_translate_ranks(lg, n, ranks, wg, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == world_of(grp, i), "local rank %d is world %d, want %d", i, out[i],
              world_of(grp, i));
    free(ranks);
    free(out);
    CALL(MPI_Group_free(&lg));
    CALL(MPI_Group_free(&rg));
    CALL(MPI_Group_free(&wg));
}

/* Ping-pong between local rank 0 of each group at every size. */
static void pingpong(MPI_Comm ic)
{
    if (lrank != 0) return;
    unsigned char *buf = mt_xmalloc(sizes[NSIZES - 1]);
    for (size_t i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        MPI_Status st;
        int cnt;
        if (grp == 0) {
            mt_fill(buf, n, (unsigned)i);
            CALL(MPI_Send(buf, (int)n, MPI_BYTE, 0, 3, ic));
            memset(buf, 0, n);
            CALL(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 4, ic, &st));
            CHECK_DATA(buf, n, (unsigned)i + 1000, "pong");
        } else {
            memset(buf, 0, n);
            CALL(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 3, ic, &st));
            CHECK_DATA(buf, n, (unsigned)i, "ping");
            mt_fill(buf, n, (unsigned)i + 1000);
            CALL(MPI_Send(buf, (int)n, MPI_BYTE, 0, 4, ic));
        }
        CALL(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(st.MPI_SOURCE == 0 && cnt == (int)n, "status source %d count %d, want 0 and %zu",
              st.MPI_SOURCE, cnt, n);
    }
    free(buf);
}

/* Every member of B sends to A's rank 0, which takes them with
 * MPI_ANY_SOURCE, then through MPI_Probe, then MPI_Mprobe. */
static void any_source(MPI_Comm ic)
{
    enum { N = 3000 };
    int *buf = mt_xmalloc(sizeof(int) * N);
    for (int round = 0; round < 3; round++) {
        if (grp == 1) {
            for (int k = 0; k < N; k++)
                buf[k] = lrank * 100000 + k + round;
            CALL(MPI_Send(buf, N - lrank, MPI_INT, 0, 9 + round, ic));
            continue;
        }
        if (lrank != 0) continue;
        char *seen = calloc((size_t)nb, 1);
        for (int i = 0; i < nb; i++) {
            MPI_Status st;
            int cnt = -1;
            if (round == 0) {
                CALL(MPI_Recv(buf, N, MPI_INT, MPI_ANY_SOURCE, 9, ic, &st));
            } else if (round == 1) {
                CALL(MPI_Probe(MPI_ANY_SOURCE, 10, ic, &st));
                CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nb, "probe source %d", st.MPI_SOURCE);
                CALL(MPI_Get_count(&st, MPI_INT, &cnt));
                CHECK(cnt == N - st.MPI_SOURCE, "probe count %d, want %d", cnt, N - st.MPI_SOURCE);
                CALL(MPI_Recv(buf, cnt, MPI_INT, st.MPI_SOURCE, 10, ic, &st));
            } else {
                MPI_Message msg;
                int flag = 0;
                while (!flag)
                    CALL(MPI_Improbe(MPI_ANY_SOURCE, 11, ic, &flag, &msg, &st));
                CALL(MPI_Mrecv(buf, N, MPI_INT, &msg, &st));
            }
            int s = st.MPI_SOURCE;
            CALL(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(s >= 0 && s < nb && !seen[s],
                  "source %d (remote size %d) seen twice or out of range", s, nb);
            seen[s] = 1;
            CHECK(cnt == N - s, "count %d from %d, want %d", cnt, s, N - s);
            for (int k = 0; k < cnt; k++)
                CHECK(buf[k] == s * 100000 + k + round, "element %d from %d: %d", k, s, buf[k]);
        }
        free(seen);
    }
    free(buf);
}

/* A's rank i pairs with B's rank i: Sendrecv and persistent requests. */
static void pairs(MPI_Comm ic)
{
    if (lrank >= (na < nb ? na : nb)) return;
    double out[700], in[700];
    for (int k = 0; k < 700; k++)
        out[k] = grp * 1e6 + lrank * 1000 + k;
    MPI_Status st;
    CALL(MPI_Sendrecv(out, 700, MPI_DOUBLE, lrank, 21, in, 700, MPI_DOUBLE, lrank, 21, ic, &st));
    CHECK(st.MPI_SOURCE == lrank, "Sendrecv source %d, want %d", st.MPI_SOURCE, lrank);
    for (int k = 0; k < 700; k++)
        CHECK(in[k] == (1 - grp) * 1e6 + lrank * 1000 + k, "Sendrecv element %d: %g", k, in[k]);
    MPI_Request rq[2];
    CALL(MPI_Send_init(out, 700, MPI_DOUBLE, lrank, 22, ic, &rq[0]));
    CALL(MPI_Recv_init(in, 700, MPI_DOUBLE, MPI_ANY_SOURCE, 22, ic, &rq[1]));
    for (int it = 0; it < 3; it++) {
        out[0] = it;
        memset(in, 0, sizeof(in));
        CALL(MPI_Startall(2, rq));
        MPI_Status sts[2];
        CALL(MPI_Waitall(2, rq, sts));
        CHECK(in[0] == it && in[699] == out[699] - grp * 1e6 + (1 - grp) * 1e6,
              "persistent round %d: %g %g", it, in[0], in[699]);
        CHECK(sts[1].MPI_SOURCE == lrank, "persistent source %d", sts[1].MPI_SOURCE);
    }
    CALL(MPI_Request_free(&rq[0]));
    CALL(MPI_Request_free(&rq[1]));
}

/* The sum of world ranks over an intracommunicator against its members. */
static void check_intra(MPI_Comm c, int expect_size)
{
    int n, s = 0;
    CALL(MPI_Comm_size(c, &n));
    CHECK(n == expect_size, "intracommunicator size %d, want %d", n, expect_size);
    CALL(MPI_Allreduce(&mt_rank, &s, 1, MPI_INT, MPI_SUM, c));
    int *all = mt_xmalloc(sizeof(int) * (size_t)n);
    CALL(MPI_Allgather(&mt_rank, 1, MPI_INT, all, 1, MPI_INT, c));
    int t = 0;
    for (int i = 0; i < n; i++)
        t += all[i];
    CHECK(s == t, "allreduce %d, allgather sum %d", s, t);
    free(all);
}

static void merge(MPI_Comm ic)
{
    for (int variant = 0; variant < 3; variant++) {
        /* 0: A high (B first); 1: B high (A first); 2: tie (the low side,
         * A, whose leader has the lower rank in the peer, first). */
        int high = variant == 0 ? grp == 0 : variant == 1 ? grp == 1 : 0;
        MPI_Comm m;
        CALL(MPI_Intercomm_merge(ic, high, &m));
        int flag = 1, r;
        CALL(MPI_Comm_test_inter(m, &flag));
        CHECK(!flag, "merged communicator is an intercommunicator");
        check_intra(m, mt_size);
        CALL(MPI_Comm_rank(m, &r));
        int a_first = variant != 0;
        int want = a_first ? (grp == 0 ? lrank : na + lrank) : (grp == 1 ? lrank : nb + lrank);
        CHECK(r == want, "merge variant %d: rank %d, want %d", variant, r, want);
        CALL(MPI_Comm_free(&m));
    }
}

static int copies;
static int copy_fn(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)kv;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void dup_split_create(MPI_Comm ic)
{
    int kv, val = 42, res, flag = 0;
    CALL(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    CALL(MPI_Comm_set_attr(ic, kv, &val));
    CALL(MPI_Comm_set_name(ic, "my intercomm"));
    MPI_Info hint;
    CALL(MPI_Info_create(&hint));
    CALL(MPI_Info_set(hint, "inter_test_hint", "yes"));
    CALL(MPI_Comm_set_info(ic, hint));
    CALL(MPI_Info_free(&hint));
    MPI_Comm d;
    copies = 0;
    CALL(MPI_Comm_dup(ic, &d));
    char hv[16] = "";
    CALL(MPI_Comm_get_info(d, &hint));
    CALL(MPI_Info_get(hint, "inter_test_hint", (int)sizeof(hv) - 1, hv, &flag));
    CHECK(flag && !strcmp(hv, "yes"), "info hint on the dup: flag %d value '%s'", flag, hv);
    CALL(MPI_Info_free(&hint));
    CHECK(copies == 1, "copy callback ran %d times", copies);
    int *got;
    flag = 0;
    CALL(MPI_Comm_get_attr(d, kv, &got, &flag));
    CHECK(flag && *got == 42, "attribute on the dup: flag %d", flag);
    CALL(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d, want MPI_CONGRUENT", res);
    CALL(MPI_Comm_compare(ic, ic, &res));
    CHECK(res == MPI_IDENT, "compare(ic, ic) = %d", res);
    CALL(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_UNEQUAL, "compare(ic, world) = %d", res);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CALL(MPI_Comm_get_name(ic, name, &len));
    CHECK(!strcmp(name, "my intercomm"), "name '%s'", name);
    check_shape(d);
    pairs(d);
    MPI_Comm d2, d3;
    MPI_Request rq;
    CALL(MPI_Comm_idup(d, &d2, &rq));
    CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_shape(d2);
    CALL(MPI_Comm_dup_with_info(d2, MPI_INFO_NULL, &d3));
    check_shape(d3);
    pairs(d3);
    CALL(MPI_Comm_free(&d3));
    CALL(MPI_Comm_free(&d2));
    CALL(MPI_Comm_free(&d));

    /* Split: colour = local rank parity, key = minus the rank (reverses). */
    int color = lrank % 2;
    MPI_Comm s;
    CALL(MPI_Comm_split(ic, color, -lrank, &s));
    int lc = (lsize + 1 - color) / 2, rc = (rsize + 1 - color) / 2;
    if (rc == 0) {
        CHECK(s == MPI_COMM_NULL, "split colour %d without remote partner is not NULL", color);
    } else {
        CHECK(s != MPI_COMM_NULL, "split colour %d gave MPI_COMM_NULL", color);
        int n, m, r, flg;
        CALL(MPI_Comm_test_inter(s, &flg));
        CALL(MPI_Comm_size(s, &n));
        CALL(MPI_Comm_remote_size(s, &m));
        CALL(MPI_Comm_rank(s, &r));
        CHECK(flg && n == lc && m == rc, "split: inter %d size %d remote %d, want %d %d", flg, n, m,
              lc, rc);
        CHECK(r == (lc - 1) - lrank / 2, "split rank %d, want %d", r, (lc - 1) - lrank / 2);
        /* Remote rank j is the (rc-1-j)-th remote member of my colour. */
        int out = mt_rank, in = -1;
        if (r < m) {
            CALL(MPI_Sendrecv(&out, 1, MPI_INT, r, 5, &in, 1, MPI_INT, r, 5, s, MPI_STATUS_IGNORE));
            int j = (rc - 1) - r; /* that member's index among its colour */
            CHECK(in == world_of(1 - grp, color + 2 * j), "split partner is world %d, want %d", in,
                  world_of(1 - grp, color + 2 * j));
        }
        int sum = -1, want = 0;
        for (int j = 0; j < rc; j++)
            want += world_of(1 - grp, color + 2 * j);
        CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, s));
        CHECK(sum == want, "allreduce on the split: %d, want %d", sum, want);
        CALL(MPI_Comm_free(&s));
    }
    CALL(MPI_Comm_split(ic, MPI_UNDEFINED, 0, &s));
    CHECK(s == MPI_COMM_NULL, "split with MPI_UNDEFINED is not NULL");

    /* Create: each side keeps all but its local rank 0 (empty when alone). */
    MPI_Group lg, sub;
    CALL(MPI_Comm_group(ic, &lg));
    int zero = 0;
    CALL(MPI_Group_excl(lg, 1, &zero, &sub));
    MPI_Comm c;
    CALL(MPI_Comm_create(ic, sub, &c));
    if (lrank == 0 || lsize == 1 || rsize == 1) {
        CHECK(c == MPI_COMM_NULL, "create: not a member or an empty side, yet not NULL");
    } else {
        int n, m;
        CALL(MPI_Comm_size(c, &n));
        CALL(MPI_Comm_remote_size(c, &m));
        CHECK(n == lsize - 1 && m == rsize - 1, "create: size %d remote %d", n, m);
        int sum = -1, want = 0;
        for (int j = 1; j < rsize; j++)
            want += world_of(1 - grp, j);
        CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == want, "allreduce on the created: %d, want %d", sum, want);
        CALL(MPI_Comm_free(&c));
    }
    CALL(MPI_Group_free(&sub));
    CALL(MPI_Group_free(&lg));
    CALL(MPI_Comm_free_keyval(&kv));
}

static void errors(MPI_Comm ic, MPI_Comm local)
{
    MPI_Comm x = MPI_COMM_NULL;
    int v = 0;
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, 0, 1, &x), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Intercomm_create(local, -1, MPI_COMM_WORLD, 0, 1, &x), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &x), MPI_ERR_COMM);
    /* Both sides at once: each leader refuses before any exchange, and its
     * group hears of it. */
    EXPECT_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_NULL, 0, 1, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, mt_size + 3, 1, &x), MPI_ERR_RANK);
    CHECK(x == MPI_COMM_NULL, "a failed MPI_Intercomm_create set the new communicator");
    EXPECT_CLASS(MPI_Intercomm_merge(local, 0, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &v), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, rsize, 0, ic), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Recv(&v, 1, MPI_INT, rsize + 2, 0, ic, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Bcast(&v, 1, MPI_INT, rsize, ic), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Bcast(&v, 1, MPI_INT, -7, ic), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Reduce(&v, &v, 1, MPI_INT, MPI_SUM, rsize + 1, ic), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Gather(&v, 1, MPI_INT, &v, 1, MPI_INT, -5, ic), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, &v, 1, MPI_INT, ic), MPI_ERR_BUFFER);
    int w = 0;
    EXPECT_CLASS(MPI_Allgatherv(&v, 1, MPI_INT, &w, NULL, NULL, MPI_INT, ic), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Gatherv(&v, 1, MPI_INT, &w, NULL, NULL, MPI_INT, MPI_ROOT, ic), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Reduce_scatter(&v, &w, NULL, MPI_INT, MPI_SUM, ic), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Ibarrier(ic, NULL), MPI_ERR_REQUEST);
    EXPECT_CLASS(MPI_Scan(&v, &w, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Exscan(&v, &w, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    MPI_Request rq;
    EXPECT_CLASS(MPI_Iscan(&v, &w, 1, MPI_INT, MPI_SUM, ic, &rq), MPI_ERR_COMM);
    int dims[1] = {lsize}, periods[1] = {0};
    EXPECT_CLASS(MPI_Cart_create(ic, 1, dims, periods, 0, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Neighbor_allgather(&v, 1, MPI_INT, &w, 1, MPI_INT, ic), MPI_ERR_COMM);
    MPI_Group g;
    CALL(MPI_Comm_group(ic, &g));
    EXPECT_CLASS(MPI_Comm_create_group(ic, g, 0, &x), MPI_ERR_COMM);
    CALL(MPI_Group_free(&g));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "inter");
    CHECK(mt_size >= 2, "needs 2 or more ranks, has %d", mt_size);
    int splits[3] = {1, mt_size / 2, mt_size - 1};
    for (int i = 0; i < 3; i++) {
        if (i > 0 && splits[i] == splits[i - 1]) continue;
        MPI_Comm local;
        MPI_Comm ic = make_inter(splits[i], i, &local);
        check_shape(ic);
        pingpong(ic);
        any_source(ic);
        pairs(ic);
        merge(ic);
        dup_split_create(ic);
        errors(ic, local);
        CALL(MPI_Comm_free(&ic));
        CALL(MPI_Comm_free(&local));
    }
    return mt_done();
}
