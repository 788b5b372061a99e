/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives through the core API alone: this program includes <ump.h>
 * and nothing of the MPI interface. On ump_comm_world() and on
 * communicators of the even and of the odd ranks (ump_comm_create) it runs
 * barriers, broadcasts from every root and allreduces (UMP_DOUBLE with
 * UMP_OP_SUM, UMP_INT with UMP_OP_MAX, a non-commutative user op, in place)
 * at sizes around the thresholds (16 KiB short collectives, eager limits,
 * 128 KiB and 1 MiB algorithm switches), plus nonblocking ibarrier, ibcast
 * and iallreduce, and briefly the other collectives (gather(v) with NULL
 * counts off the root, scatter(v), reduce, allgather, alltoall,
 * ialltoallw, reduce_scatter_block, scan, exscan), and checks every result
 * byte for byte against a serial reference each rank computes itself. Bad arguments must be refused
 * with their codes. Any failure aborts the job with a message naming the case.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ump.h>

static int me, np;
static char what[160];

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        char m_[400];                                                                              \
        snprintf(m_, sizeof(m_), __VA_ARGS__);                                                     \
        fprintf(stderr, "[ump_api rank %d] FAIL %s: %s\n", me, what, m_);                          \
        fflush(stderr);                                                                            \
        ump_abort(1, m_);                                                                          \
    } while (0)
#define CALL(expr)                                                                                 \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != UMP_OK) FAIL("%s returned %s", #expr, ump_status_name(rc_));                    \
    } while (0)
#define EXPECT(expr, code)                                                                         \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != (code))                                                                         \
            FAIL("%s returned %s, expected %s", #expr, ump_status_name(rc_),                       \
                 ump_status_name(code));                                                           \
    } while (0)

/* Point-to-point context of the barrier check (not a collective one). */
#define CTX_CHECK 0x200u
/* Collective contexts of the two sub-communicators. */
#define CTX_EVEN 0x100u
#define CTX_ODD  0x101u

/* A value every rank can compute for (member, call, index). */
static uint32_t pat(int member, int call, size_t i)
{
    uint32_t x = (uint32_t)member * 2654435761u ^ (uint32_t)call * 40503u ^ (uint32_t)i * 97u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    return x;
}

static void check_bytes(const void *got, const void *want, size_t n)
{
    if (memcmp(got, want, n) == 0) return;
    const unsigned char *g = got, *w = want;
    size_t i = 0;
    while (g[i] == w[i])
        i++;
    FAIL("byte %zu of %zu is 0x%02x, expected 0x%02x", i, n, g[i], w[i]);
}

/* --- barrier ----------------------------------------------------------------- */

/* No member may leave barrier k before every member entered it. Member 0
 * enters late: first it looks (for a while, with progress) for the
 * message every other member sends it right after leaving barrier k. Any
 * such message before member 0 entered means someone left early. */
static void barrier_check(ump_comm_t c, int rounds)
{
    int r = ump_comm_rank(c), n = ump_comm_size(c);
    for (int k = 0; k < rounds; k++) {
        snprintf(what, sizeof(what), "barrier %d on a communicator of %d", k, n);
        if (r == 0) {
            for (int spin = 0; spin < 2000; spin++) {
                int flag = 0;
                CALL(ump_iprobe(UMP_ANY_SOURCE, k, CTX_CHECK, &flag, UMP_STATUS_IGNORE));
                if (flag) FAIL("a member left the barrier before member 0 entered it");
                ump_progress();
            }
        }
        CALL(ump_barrier(c));
        if (r != 0) {
            int token = k;
            CALL(
                ump_send(&token, sizeof(token), UMP_BYTE, ump_comm_world_rank(c, 0), k, CTX_CHECK));
        } else {
            for (int i = 1; i < n; i++) {
                int token = -1;
                ump_status_t st;
                CALL(ump_recv(&token, sizeof(token), UMP_BYTE, ump_comm_world_rank(c, i), k,
                              CTX_CHECK, &st));
                if (token != k) FAIL("token %d from member %d, expected %d", token, i, k);
            }
        }
    }
}

/* The nonblocking barrier cannot complete on any member while member 0
 * has not started it; member 0 starts it once every other member has
 * tested its own (and told it so). */
static void ibarrier_check(ump_comm_t c)
{
    int r = ump_comm_rank(c), n = ump_comm_size(c);
    snprintf(what, sizeof(what), "ibarrier on a communicator of %d", n);
    ump_req_t req = UMP_REQ_NULL;
    if (r != 0) {
        CALL(ump_ibarrier(c, &req));
        for (int t = 0; t < 100; t++) {
            int done = 0;
            CALL(ump_test(&req, &done, UMP_STATUS_IGNORE));
            if (done) FAIL("ibarrier completed before member 0 started it");
        }
        int go = 1;
        CALL(ump_send(&go, sizeof(go), UMP_BYTE, ump_comm_world_rank(c, 0), 7777, CTX_CHECK));
    } else {
        for (int m = 1; m < n; m++) {
            int go = 0;
            CALL(ump_recv(&go, sizeof(go), UMP_BYTE, ump_comm_world_rank(c, m), 7777, CTX_CHECK,
                          UMP_STATUS_IGNORE));
        }
        CALL(ump_ibarrier(c, &req));
    }
    CALL(ump_wait(&req, UMP_STATUS_IGNORE));
    if (req != UMP_REQ_NULL) FAIL("ump_wait left the request set");
}

/* --- bcast ------------------------------------------------------------------- */

static const size_t bcast_counts[] = {0, 1, 3, 1023, 4095, 4096, 4097, 40000, 300000};

static void bcast_check(ump_comm_t c, int call, bool nonblocking)
{
    int r = ump_comm_rank(c), n = ump_comm_size(c);
    size_t maxc = bcast_counts[sizeof(bcast_counts) / sizeof(bcast_counts[0]) - 1];
    uint32_t *buf = malloc(maxc * 4 + 4), *ref = malloc(maxc * 4 + 4);
    if (!buf || !ref) FAIL("out of memory");
    for (size_t ci = 0; ci < sizeof(bcast_counts) / sizeof(bcast_counts[0]); ci++) {
        size_t cnt = bcast_counts[ci];
        for (int root = 0; root < n; root++) {
            snprintf(what, sizeof(what), "%sbcast of %zu ints from root %d of %d",
                     nonblocking ? "i" : "", cnt, root, n);
            for (size_t i = 0; i <= cnt; i++) {
                ref[i] = pat(root, call + (int)ci, i);
                buf[i] = r == root ? ref[i] : 0xdeadbeefu;
            }
            /* The word past the count must stay as it is. */
            buf[cnt] = ref[cnt] = 0x5a5a5a5au;
            if (nonblocking) {
                ump_req_t req;
                CALL(ump_ibcast(buf, cnt, UMP_UINT32, root, c, &req));
                CALL(ump_wait(&req, UMP_STATUS_IGNORE));
            } else {
                CALL(ump_bcast(buf, cnt, UMP_UINT32, root, c));
            }
            check_bytes(buf, ref, (cnt + 1) * 4);
        }
    }
    free(buf);
    free(ref);
}

/* --- allreduce ------------------------------------------------------------------ */

/* x -> a x + b on 32-bit words, one map per UMP_UINT64 (a high, b low).
 * Composition is associative and not commutative: the result shows that
 * contributions are combined in member order. inout = in o inout, where
 * `in` comes from the lower members. */
static uint64_t compose(uint64_t f, uint64_t g)
{
    uint32_t a1 = (uint32_t)(f >> 32), b1 = (uint32_t)f, a2 = (uint32_t)(g >> 32), b2 = (uint32_t)g;
    uint32_t a = a1 * a2, b = a1 * b2 + b1;
    return (uint64_t)a << 32 | b;
}

static int user_calls;
static void affine(const void *in, void *inout, size_t count, ump_dt_t dt, void *arg)
{
    if (dt != UMP_UINT64 || arg != &user_calls) {
        fprintf(stderr, "[ump_api rank %d] user op called with a wrong type or argument\n", me);
        ump_abort(1, "user op arguments");
    }
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (size_t i = 0; i < count; i++) {
        uint64_t x;
        memcpy(&x, &b[i], sizeof(x));
        x = compose(a[i], x);
        memcpy(&b[i], &x, sizeof(x));
    }
    user_calls++;
}

static const size_t red_counts[] = {1, 5, 2047, 2048, 2049, 20000, 140000};

enum { R_DSUM, R_IMAX, R_USER, R_KINDS };

static void reduce_check(ump_comm_t c, ump_redop_t user, int call, bool nonblocking, bool inplace)
{
    int r = ump_comm_rank(c), n = ump_comm_size(c);
    size_t maxc = red_counts[sizeof(red_counts) / sizeof(red_counts[0]) - 1];
    void *in = malloc(maxc * 8), *out = malloc(maxc * 8), *ref = malloc(maxc * 8);
    if (!in || !out || !ref) FAIL("out of memory");
    for (int kind = 0; kind < R_KINDS; kind++) {
        for (size_t ci = 0; ci < sizeof(red_counts) / sizeof(red_counts[0]); ci++) {
            size_t cnt = red_counts[ci];
            static const char *names[] = {"UMP_DOUBLE/UMP_OP_SUM", "UMP_INT/UMP_OP_MAX",
                                          "UMP_UINT64/user affine op"};
            snprintf(what, sizeof(what), "%sallreduce%s of %zu %s on %d members",
                     nonblocking ? "i" : "", inplace ? " in place" : "", cnt, names[kind], n);
            ump_dt_t dt = kind == R_DSUM ? UMP_DOUBLE : kind == R_IMAX ? UMP_INT : UMP_UINT64;
            ump_redop_t op = kind == R_DSUM ? UMP_OP_SUM : kind == R_IMAX ? UMP_OP_MAX : user;
            size_t esz = ump_dt_size(dt);
            /* Inputs of member m, and the serial reference over members 0..n-1. */
            for (int m = 0; m < n; m++) {
                for (size_t i = 0; i < cnt; i++) {
                    uint32_t p = pat(m, call + kind * 16 + (int)ci, i);
                    if (kind == R_DSUM) {
                        /* Small integers: every order of summation is exact. */
                        double v = (double)(p % 2001) - 1000.0;
                        if (m == r) ((double *)in)[i] = v;
                        ((double *)ref)[i] = m ? ((double *)ref)[i] + v : v;
                    } else if (kind == R_IMAX) {
                        int v = (int)p;
                        if (m == r) ((int *)in)[i] = v;
                        if (!m || v > ((int *)ref)[i]) ((int *)ref)[i] = v;
                    } else {
                        uint64_t v = (uint64_t)(p | 1u) << 32 | pat(m + 100, call, i);
                        if (m == r) ((uint64_t *)in)[i] = v;
                        ((uint64_t *)ref)[i] = m ? compose(((uint64_t *)ref)[i], v) : v;
                    }
                }
            }
            const void *sbuf = in;
            if (inplace) {
                memcpy(out, in, cnt * esz);
                sbuf = UMP_IN_PLACE;
            } else {
                memset(out, 0xa5, cnt * esz);
            }
            if (nonblocking) {
                ump_req_t req;
                CALL(ump_iallreduce(sbuf, out, cnt, dt, op, c, &req));
                CALL(ump_wait(&req, UMP_STATUS_IGNORE));
            } else {
                CALL(ump_allreduce(sbuf, out, cnt, dt, op, c));
            }
            check_bytes(out, ref, cnt * esz);
        }
    }
    free(in);
    free(out);
    free(ref);
}

/* --- the other collectives, briefly ---------------------------------------------- */

/* Member m's block j (of b ints) is pat(m, call, j * b + i): every member can
 * compute every block. Gather(v) with NULL counts off the root, scatter(v),
 * allgather, alltoall and ialltoallw (per-peer types, byte displacements),
 * reduce to every root, reduce_scatter_block, scan and exscan. */
static void others_check(ump_comm_t c, int call)
{
    int r = ump_comm_rank(c), n = ump_comm_size(c);
    enum { B = 3 };
    int *mine = calloc((size_t)n * B, sizeof(int)), *all = calloc((size_t)n * n * B, sizeof(int));
    int *ref = calloc((size_t)n * n * B, sizeof(int));
    int *cnts = calloc((size_t)n, sizeof(int)), *disp = calloc((size_t)n, sizeof(int));
    ump_dt_t *types = calloc((size_t)n, sizeof(ump_dt_t));
    if (!mine || !all || !ref || !cnts || !disp || !types) FAIL("out of memory");
#define V(m, j, i) ((int)pat((m), call, (size_t)(j)*B + (size_t)(i)))
    for (int j = 0; j < n; j++)
        for (int i = 0; i < B; i++)
            mine[j * B + i] = V(r, j, i);

    /* gather / gatherv: block r of member m at the root, reversed for v. */
    for (int root = 0; root < n; root++) {
        snprintf(what, sizeof(what), "gather to %d of %d", root, n);
        memset(all, 0, (size_t)n * B * sizeof(int));
        CALL(ump_gather(mine, B, UMP_INT, all, B, UMP_INT, root, c));
        if (r == root) {
            for (int m = 0; m < n; m++)
                for (int i = 0; i < B; i++)
                    ref[m * B + i] = V(m, 0, i);
            check_bytes(all, ref, (size_t)n * B * sizeof(int));
        }
        snprintf(what, sizeof(what), "gatherv to %d of %d (NULL counts off the root)", root, n);
        for (int m = 0; m < n; m++) {
            cnts[m] = 1 + m % B;
            disp[m] = (n - 1 - m) * B;
        }
        memset(all, 0, (size_t)n * B * sizeof(int));
        CALL(ump_gatherv(mine, (size_t)(1 + r % B), UMP_INT, all, r == root ? cnts : NULL,
                         r == root ? disp : NULL, UMP_INT, root, c));
        if (r == root) {
            memset(ref, 0, (size_t)n * B * sizeof(int));
            for (int m = 0; m < n; m++)
                for (int i = 0; i < cnts[m]; i++)
                    ref[disp[m] + i] = V(m, 0, i);
            check_bytes(all, ref, (size_t)n * B * sizeof(int));
        }
        /* scatter: the root's block m to member m. */
        snprintf(what, sizeof(what), "scatter from %d of %d", root, n);
        int got[B] = {0}, want[B];
        CALL(ump_scatter(mine, B, UMP_INT, got, B, UMP_INT, root, c));
        for (int i = 0; i < B; i++)
            want[i] = V(root, r, i);
        check_bytes(got, want, sizeof(got));
        snprintf(what, sizeof(what), "scatterv from %d of %d", root, n);
        for (int m = 0; m < n; m++) {
            cnts[m] = 1 + m % B;
            disp[m] = m * B;
        }
        memset(got, 0, sizeof(got));
        CALL(ump_scatterv(mine, r == root ? cnts : NULL, r == root ? disp : NULL, UMP_INT, got,
                          (size_t)(1 + r % B), UMP_INT, root, c));
        memset(want, 0, sizeof(want));
        for (int i = 0; i < 1 + r % B; i++)
            want[i] = V(root, r, i);
        check_bytes(got, want, sizeof(got));
        /* reduce: the sum of block 0 at the root (wrapping like the op). */
        snprintf(what, sizeof(what), "reduce to %d of %d", root, n);
        int sum[B] = {0}, sref[B] = {0};
        CALL(ump_reduce(mine, sum, B, UMP_INT, UMP_OP_SUM, root, c));
        if (r == root) {
            for (int m = 0; m < n; m++)
                for (int i = 0; i < B; i++)
                    sref[i] = (int)((unsigned)sref[i] + (unsigned)V(m, 0, i));
            check_bytes(sum, sref, sizeof(sum));
        }
    }

    /* allgather: block 0 of everyone everywhere. */
    snprintf(what, sizeof(what), "allgather of %d", n);
    CALL(ump_allgather(mine, B, UMP_INT, all, B, UMP_INT, c));
    for (int m = 0; m < n; m++)
        for (int i = 0; i < B; i++)
            ref[m * B + i] = V(m, 0, i);
    check_bytes(all, ref, (size_t)n * B * sizeof(int));

    /* alltoall and ialltoallw: block j of member m lands at member j as
     * block m. */
    for (int m = 0; m < n; m++)
        for (int i = 0; i < B; i++)
            ref[m * B + i] = V(m, r, i);
    snprintf(what, sizeof(what), "alltoall of %d", n);
    memset(all, 0, (size_t)n * B * sizeof(int));
    CALL(ump_alltoall(mine, B, UMP_INT, all, B, UMP_INT, c));
    check_bytes(all, ref, (size_t)n * B * sizeof(int));
    snprintf(what, sizeof(what), "ialltoallw of %d", n);
    for (int m = 0; m < n; m++) {
        cnts[m] = B * (int)sizeof(int);
        disp[m] = m * B * (int)sizeof(int);
        types[m] = UMP_BYTE;
    }
    memset(all, 0, (size_t)n * B * sizeof(int));
    ump_req_t req;
    CALL(ump_ialltoallw(mine, cnts, disp, types, all, cnts, disp, types, c, &req));
    CALL(ump_wait(&req, UMP_STATUS_IGNORE));
    check_bytes(all, ref, (size_t)n * B * sizeof(int));

    /* reduce_scatter_block: member j gets the sum of every member's block j. */
    snprintf(what, sizeof(what), "reduce_scatter_block of %d", n);
    int part[B], pref[B] = {0};
    CALL(ump_reduce_scatter_block(mine, part, B, UMP_INT, UMP_OP_SUM, c));
    for (int m = 0; m < n; m++)
        for (int i = 0; i < B; i++)
            pref[i] = (int)((unsigned)pref[i] + (unsigned)V(m, r, i));
    check_bytes(part, pref, sizeof(part));

    /* scan and exscan with MAX over block 0. */
    snprintf(what, sizeof(what), "scan/exscan of %d", n);
    int sc[B], ex[B] = {7, 7, 7}, scref[B], exref[B] = {7, 7, 7};
    CALL(ump_scan(mine, sc, B, UMP_INT, UMP_OP_MAX, c));
    CALL(ump_exscan(mine, ex, B, UMP_INT, UMP_OP_MAX, c));
    for (int i = 0; i < B; i++) {
        scref[i] = V(0, 0, i);
        for (int m = 1; m <= r; m++)
            if (V(m, 0, i) > scref[i]) scref[i] = V(m, 0, i);
        if (r > 0) {
            exref[i] = V(0, 0, i);
            for (int m = 1; m < r; m++)
                if (V(m, 0, i) > exref[i]) exref[i] = V(m, 0, i);
        }
    }
    check_bytes(sc, scref, sizeof(sc));
    check_bytes(ex, exref, sizeof(ex));
#undef V
    free(mine);
    free(all);
    free(ref);
    free(cnts);
    free(disp);
    free(types);
}

/* --- bad arguments -------------------------------------------------------------- */

static void errors_check(ump_comm_t c)
{
    int n = ump_comm_size(c);
    double d = 1, e = 0;
    snprintf(what, sizeof(what), "bad arguments");
    EXPECT(ump_bcast(&d, 1, UMP_DOUBLE, n, c), UMP_ERR_ROOT);
    EXPECT(ump_bcast(&d, 1, UMP_DOUBLE, -1, c), UMP_ERR_ROOT);
    EXPECT(ump_allreduce(&d, &e, 1, UMP_DOUBLE, UMP_OP_BAND, c), UMP_ERR_OP);
    EXPECT(ump_allreduce(&d, &e, 1, UMP_DOUBLE, NULL, c), UMP_ERR_OP);
    EXPECT(ump_allreduce(&d, &e, 1, NULL, UMP_OP_SUM, c), UMP_ERR_DATATYPE);
    EXPECT(ump_barrier(NULL), UMP_ERR_INVALID);
    EXPECT(ump_ibarrier(c, NULL), UMP_ERR_REQUEST);
    EXPECT(ump_redop_check(UMP_OP_MAXLOC, UMP_INT), UMP_ERR_OP);
    EXPECT(ump_redop_check(UMP_OP_SUM, UMP_INT), UMP_OK);
    ump_comm_t bad = NULL;
    int other = (ump_rank() + 1) % ump_size();
    if (other != ump_rank()) EXPECT(ump_comm_create(&other, 1, 0x300, &bad), UMP_ERR_RANK);
    int dup[2] = {ump_rank(), ump_rank()};
    EXPECT(ump_comm_create(dup, 2, 0x300, &bad), UMP_ERR_RANK);
    if (bad) FAIL("a refused ump_comm_create left a communicator");
    if (e != 0) FAIL("a refused allreduce wrote its receive buffer");
}

/* --- main ---------------------------------------------------------------------------- */

static void run_all(ump_comm_t c, ump_redop_t user, int call)
{
    barrier_check(c, 3);
    ibarrier_check(c);
    bcast_check(c, call, false);
    bcast_check(c, call + 50, true);
    reduce_check(c, user, call, false, false);
    reduce_check(c, user, call + 200, false, true);
    reduce_check(c, user, call + 400, true, false);
    others_check(c, call + 600);
}

int main(int argc, char **argv)
{
    CALL(ump_init(&argc, &argv, UMP_THREAD_SINGLE, NULL));
    me = ump_rank();
    np = ump_size();
    snprintf(what, sizeof(what), "ump_comm_world");
    ump_comm_t world = ump_comm_world();
    if (!world) FAIL("ump_comm_world() is NULL after ump_init");
    if (ump_comm_rank(world) != me || ump_comm_size(world) != np)
        FAIL("world communicator says rank %d of %d", ump_comm_rank(world), ump_comm_size(world));
    for (int i = 0; i < np; i++)
        if (ump_comm_world_rank(world, i) != i) FAIL("world member %d is not rank %d", i, i);
    EXPECT(ump_comm_free(&world), UMP_ERR_INVALID);

    ump_redop_t user;
    CALL(ump_redop_create(affine, 0, &user_calls, NULL, &user));
    if (ump_redop_commutative(user) != 0) FAIL("the user op says it is commutative");

    run_all(world, user, 1000);
    errors_check(world);

    /* The even ranks and the odd ranks, each a communicator of its own on
     * its own context, running the same checks at the same time. */
    int sub[64], ns = 0;
    for (int i = me % 2; i < np && ns < 64; i += 2)
        sub[ns++] = i;
    ump_comm_t half;
    snprintf(what, sizeof(what), "ump_comm_create of %d ranks", ns);
    CALL(ump_comm_create(sub, ns, me % 2 ? CTX_ODD : CTX_EVEN, &half));
    if (ump_comm_rank(half) != me / 2 || ump_comm_size(half) != ns)
        FAIL("sub-communicator says rank %d of %d", ump_comm_rank(half), ump_comm_size(half));
    run_all(half, user, 5000 + me % 2);
    CALL(ump_comm_free(&half));
    if (half) FAIL("ump_comm_free left the handle set");

    /* World again after the sub-communicators: sequence numbers still agree. */
    snprintf(what, sizeof(what), "world after the halves");
    CALL(ump_barrier(world));
    double one = 1, sum = 0;
    CALL(ump_allreduce(&one, &sum, 1, UMP_DOUBLE, UMP_OP_SUM, world));
    if (sum != (double)np) FAIL("sum of ones is %g, expected %d", sum, np);

    if (np > 1 && user_calls == 0) FAIL("the user op was never called");
    CALL(ump_redop_free(&user));
    if (me == 0) printf("ump_api: %d ranks ok\n", np);
    CALL(ump_finalize());
    return 0;
}
