/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * thread_stress: MPI_THREAD_MULTIPLE under load. NT threads per rank (4 by
 * default) run at once, each for ITERS rounds of:
 *   - point-to-point on MPI_COMM_WORLD with tags of its own: a ring
 *     exchange of sizes around the shm (8 KiB) and tcp (64 KiB) eager
 *     limits, and a strided (vector type) message, checked byte for byte;
 *   - MPI_Probe + MPI_Recv and MPI_Mprobe + MPI_Mrecv of a message of its
 *     own tag, size and data checked;
 *   - collectives (allreduce, bcast, barrier) on a communicator of its own;
 *   - communicator creation from that communicator at the same time as the
 *     other threads create from theirs (Comm_dup, Comm_split, Comm_create,
 *     Comm_create_group with the thread's tag), an allreduce of a value of
 *     its own on each new one (two communicators given one context id
 *     would mix their traffic and break the sums), then Comm_free;
 *   - attribute caching (a keyval made, set on a communicator, copied by
 *     Comm_dup, read, deleted, freed; the same for datatypes), datatype
 *     creation (vector, struct, dup, names), op and error handler creation;
 *   - the same objects shared by every thread at once: attributes (each
 *     thread's keyval) on MPI_COMM_WORLD and on a shared datatype, which
 *     also carries messages, the name of a shared communicator, the error
 *     handler of MPI_COMM_WORLD (while threads create communicators from
 *     it), and a shared group's rank translation (built on first use).
 * Every thread of every rank checks what it gets; a wrong byte, sum, size
 * or attribute ends the job (mt.h). Deadlocks end it through umprun's
 * --timeout.
 * usage: thread_stress [ITERS [NT]]   (defaults 30 and 4)
 */
#include <pthread.h>

#include "mt.h"

#define MAXT 8
static int ITERS = 30, NT = 4;
static MPI_Comm tcomm[MAXT]; /* thread t's communicator (a dup of MPI_COMM_WORLD) */
/* Shared by every thread: a communicator whose name they all set, a vector
 * type (every other int of 3000) and a group (the world reversed). */
static MPI_Comm scomm;
static MPI_Datatype svec;
static MPI_Group sgroup;

static const int sizes[] = {0, 1, 8191, 8192, 8193, 65535, 65536, 65537, 200000};
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };

/* A seed that differs per (sender, thread, round, kind). */
static unsigned seed_of(int src, int t, int it, int kind)
{
    return (unsigned)(src * 7919 + t * 613 + it * 31 + kind);
}

/* Tags of thread t: kind k in [0, 8). */
static int tag_of(int t, int k)
{
    return 100 + t * 8 + k;
}

static int copies; /* attribute copy callbacks run (all threads) */

static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    __atomic_add_fetch(&copies, 1, __ATOMIC_RELAXED);
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val;
    __atomic_add_fetch((int *)extra, 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

static int type_copy_cb(MPI_Datatype d, int k, void *extra, void *in, void *out, int *flag)
{
    (void)d, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void errh_fn(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

static void ring(int t, int it, unsigned char *sbuf, unsigned char *rbuf)
{
    int me = mt_rank, n = mt_size, to = (me + 1) % n, from = (me + n - 1) % n;
    int sz = sizes[(it + t) % NSIZES];
    mt_fill(sbuf, (size_t)sz, seed_of(me, t, it, 0));
    memset(rbuf, 0xEE, (size_t)sz + 1);
    MPI_Request rq[2];
    MPI_Status st;
    CALL(MPI_Irecv(rbuf, sz + 1, MPI_BYTE, from, tag_of(t, 0), MPI_COMM_WORLD, &rq[0]));
    CALL(MPI_Isend(sbuf, sz, MPI_BYTE, to, tag_of(t, 0), MPI_COMM_WORLD, &rq[1]));
    CALL(MPI_Wait(&rq[0], &st));
    CALL(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    int got;
    CALL(MPI_Get_count(&st, MPI_BYTE, &got));
    CHECK(got == sz && st.MPI_SOURCE == from && st.MPI_TAG == tag_of(t, 0),
          "thread %d round %d: %d bytes from %d tag %d, want %d from %d tag %d", t, it, got,
          st.MPI_SOURCE, st.MPI_TAG, sz, from, tag_of(t, 0));
    CHECK_DATA(rbuf, (size_t)sz, seed_of(from, t, it, 0), "ring message");
    CHECK(rbuf[sz] == 0xEE, "thread %d round %d: byte past the message written", t, it);

    /* Every other int of 3000: a vector type made by this thread, or on
     * odd rounds the one all threads share. */
    MPI_Datatype vec = svec;
    if (it % 2 == 0) {
        CALL(MPI_Type_vector(1500, 1, 2, MPI_INT, &vec));
        CALL(MPI_Type_commit(&vec));
    }
    int *vs = mt_xmalloc(3000 * sizeof(int)), *vr = mt_xmalloc(1500 * sizeof(int));
    for (int i = 0; i < 3000; i++)
        vs[i] = i % 2 ? -1 : (int)seed_of(me, t, it, 1) + i;
    CALL(MPI_Sendrecv(vs, 1, vec, to, tag_of(t, 1), vr, 1500, MPI_INT, from, tag_of(t, 1),
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 1500; i++)
        CHECK(vr[i] == (int)seed_of(from, t, it, 1) + 2 * i,
              "thread %d round %d: strided int %d is %d, want %d", t, it, i, vr[i],
              (int)seed_of(from, t, it, 1) + 2 * i);
    free(vs);
    free(vr);
    if (vec != svec) CALL(MPI_Type_free(&vec));
}

static void probes(int t, int it, unsigned char *sbuf, unsigned char *rbuf)
{
    int me = mt_rank, n = mt_size, to = (me + 1) % n, from = (me + n - 1) % n;
    for (int m = 0; m < 2; m++) {
        int sz = sizes[(it * 2 + m + t) % NSIZES];
        mt_fill(sbuf, (size_t)sz, seed_of(me, t, it, 2 + m));
        MPI_Request rq;
        CALL(MPI_Isend(sbuf, sz, MPI_BYTE, to, tag_of(t, 2 + m), MPI_COMM_WORLD, &rq));
        MPI_Status st;
        int got = -1;
        if (m == 0) {
            CALL(MPI_Probe(from, tag_of(t, 2), MPI_COMM_WORLD, &st));
            CALL(MPI_Get_count(&st, MPI_BYTE, &got));
            CHECK(got == sz, "thread %d round %d: probe says %d bytes, want %d", t, it, got, sz);
            CALL(MPI_Recv(rbuf, got, MPI_BYTE, from, tag_of(t, 2), MPI_COMM_WORLD, &st));
        } else {
            MPI_Message msg;
            CALL(MPI_Mprobe(from, tag_of(t, 3), MPI_COMM_WORLD, &msg, &st));
            CALL(MPI_Get_count(&st, MPI_BYTE, &got));
            CHECK(got == sz, "thread %d round %d: mprobe says %d bytes, want %d", t, it, got, sz);
            CALL(MPI_Mrecv(rbuf, got, MPI_BYTE, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NULL, "thread %d: Mrecv left the message handle", t);
        }
        CHECK_DATA(rbuf, (size_t)sz, seed_of(from, t, it, 2 + m), "probed message");
        CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
}

static void collectives(int t, int it, MPI_Comm c)
{
    int v = t * 1000 + it + mt_rank, sum = 0;
    CALL(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    int want = mt_size * (t * 1000 + it) + mt_size * (mt_size - 1) / 2;
    CHECK(sum == want, "thread %d round %d: allreduce %d, want %d", t, it, sum, want);
    int root = it % mt_size, len = sizes[(it + 2 * t) % NSIZES];
    unsigned char *b = mt_xmalloc((size_t)len);
    if (mt_rank == root)
        mt_fill(b, (size_t)len, seed_of(root, t, it, 5));
    else
        memset(b, 0, (size_t)len);
    CALL(MPI_Bcast(b, len, MPI_BYTE, root, c));
    CHECK_DATA(b, (size_t)len, seed_of(root, t, it, 5), "bcast");
    free(b);
    CALL(MPI_Barrier(c));
}

/* A new communicator works, is the one expected and carries no one
 * else's traffic: the sum of a value of this thread and round. */
static void check_new(int t, int it, MPI_Comm nc, int want_size, const char *what)
{
    int size, rank;
    CALL(MPI_Comm_size(nc, &size));
    CALL(MPI_Comm_rank(nc, &rank));
    CHECK(size == want_size, "thread %d round %d: %s has %d ranks, want %d", t, it, what, size,
          want_size);
    int v = t * 100000 + it * 10 + 1, sum = 0;
    CALL(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, nc));
    CHECK(sum == v * size, "thread %d round %d: allreduce on %s gave %d, want %d", t, it, what, sum,
          v * size);
}

static void creation(int t, int it, MPI_Comm c, int kv)
{
    int n = mt_size, me = mt_rank;
    MPI_Comm nc;
    /* Dup copies the attribute through the copy callback. */
    char *base = (char *)&tcomm[t];
    CALL(MPI_Comm_set_attr(c, kv, base));
    CALL(MPI_Comm_dup(c, &nc));
    check_new(t, it, nc, n, "a dup");
    void *val = NULL;
    int flag = 0;
    CALL(MPI_Comm_get_attr(nc, kv, &val, &flag));
    CHECK(flag && val == base + 1, "thread %d: attribute on the dup is %p (flag %d), want %p", t,
          val, flag, (void *)(base + 1));
    char name[MPI_MAX_OBJECT_NAME], got[MPI_MAX_OBJECT_NAME];
    int len;
    snprintf(name, sizeof(name), "dup t%d r%d", t, it);
    CALL(MPI_Comm_set_name(nc, name));
    CALL(MPI_Comm_get_name(nc, got, &len));
    CHECK(strcmp(name, got) == 0, "thread %d: comm name '%s', want '%s'", t, got, name);
    CALL(MPI_Comm_free(&nc));
    CALL(MPI_Comm_delete_attr(c, kv));

    /* Split in two halves (odd and even ranks), keys reversed. */
    CALL(MPI_Comm_split(c, me % 2, -me, &nc));
    check_new(t, it, nc, (n - me % 2 + 1) / 2, "a split");
    int r;
    CALL(MPI_Comm_rank(nc, &r));
    CHECK(r == (n - me % 2 + 1) / 2 - 1 - me / 2, "thread %d: split rank %d", t, r);
    CALL(MPI_Comm_free(&nc));

    /* The first n - 1 ranks (all on one rank) by create and create_group. */
    MPI_Group g, sub;
    CALL(MPI_Comm_group(c, &g));
    int range[1][3] = {{0, n > 1 ? n - 2 : 0, 1}};
    CALL(MPI_Group_range_incl(g, 1, range, &sub));
    int subsize = range[0][1] + 1;
    CALL(MPI_Comm_create(c, sub, &nc));
    if (me < subsize) {
        check_new(t, it, nc, subsize, "a Comm_create");
        CALL(MPI_Comm_free(&nc));
    } else {
        CHECK(nc == MPI_COMM_NULL, "thread %d: Comm_create outside the group", t);
    }
    if (me < subsize) {
        CALL(MPI_Comm_create_group(c, sub, t, &nc));
        check_new(t, it, nc, subsize, "a Comm_create_group");
        CALL(MPI_Comm_free(&nc));
    }
    /* Also from MPI_COMM_WORLD at the same time as the other threads: same
     * parent, so the tag (the thread) tells the creations apart. */
    if (me < subsize) {
        CALL(MPI_Comm_create_group(MPI_COMM_WORLD, sub, 1000 + t, &nc));
        check_new(t, it, nc, subsize, "a Comm_create_group of MPI_COMM_WORLD");
        CALL(MPI_Comm_free(&nc));
    }
    CALL(MPI_Group_free(&sub));
    CALL(MPI_Group_free(&g));
}

static void objects(int t, int it)
{
    /* Keyvals and attributes of datatypes. */
    int tkv;
    CALL(MPI_Type_create_keyval(type_copy_cb, MPI_TYPE_NULL_DELETE_FN, &tkv, NULL));
    int blens[2] = {1, 3};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, st, dup;
    CALL(MPI_Type_create_struct(2, blens, disps, types, &st));
    CALL(MPI_Type_commit(&st));
    int sz;
    CALL(MPI_Type_size(st, &sz));
    CHECK(sz == 20, "thread %d: struct size %d, want 20", t, sz);
    CALL(MPI_Type_set_attr(st, tkv, &tcomm[t]));
    CALL(MPI_Type_dup(st, &dup));
    void *val = NULL;
    int flag = 0;
    CALL(MPI_Type_get_attr(dup, tkv, &val, &flag));
    CHECK(flag && val == &tcomm[t], "thread %d: type attribute not copied by Type_dup", t);
    char name[MPI_MAX_OBJECT_NAME], got[MPI_MAX_OBJECT_NAME];
    int len;
    snprintf(name, sizeof(name), "struct t%d r%d", t, it);
    CALL(MPI_Type_set_name(dup, name));
    CALL(MPI_Type_get_name(dup, got, &len));
    CHECK(strcmp(got, name) == 0, "thread %d: type name '%s', want '%s'", t, got, name);
    CALL(MPI_Type_delete_attr(st, tkv));
    CALL(MPI_Type_free(&dup));
    CALL(MPI_Type_free(&st));
    CALL(MPI_Type_free_keyval(&tkv));

    /* An op used at once, and an error handler. */
    MPI_Op op;
    CALL(MPI_Op_create(user_sum, 1, &op));
    int in[3] = {1, 2, 3}, io[3] = {t, it, 0};
    CALL(MPI_Reduce_local(in, io, 3, MPI_INT, op));
    CHECK(io[0] == t + 1 && io[1] == it + 2 && io[2] == 3, "thread %d: user op result", t);
    CALL(MPI_Op_free(&op));
    MPI_Errhandler eh;
    CALL(MPI_Comm_create_errhandler(errh_fn, &eh));
    CALL(MPI_Errhandler_free(&eh));
}

/* Objects every thread uses at once, each thread with keyvals and values
 * of its own. */
static void shared(int t, int it, int kv)
{
    int n = mt_size;
    /* Group translation through the shared group's reverse map. */
    MPI_Group wg;
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int in[MAXT * 4], out[MAXT * 4];
    for (int i = 0; i < n; i++)
        in[i] = i;
    CALL(MPI_Group_translate_ranks(wg, n, in, sgroup, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == n - 1 - i, "thread %d: world rank %d is %d in the reversed group", t, i,
              out[i]);
    CALL(MPI_Group_free(&wg));

    /* An attribute of this thread's keyval on MPI_COMM_WORLD. */
    void *mine = (char *)&tcomm[t] + it, *val = NULL;
    int flag = 0;
    CALL(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, mine));
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &val, &flag));
    CHECK(flag && val == mine, "thread %d: attribute on MPI_COMM_WORLD is %p, want %p", t, val,
          mine);
    CALL(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &val, &flag));
    CHECK(!flag, "thread %d: attribute still on MPI_COMM_WORLD after delete", t);

    /* The same on the shared datatype, with a keyval made here. */
    int tkv;
    CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkv, NULL));
    CALL(MPI_Type_set_attr(svec, tkv, mine));
    CALL(MPI_Type_get_attr(svec, tkv, &val, &flag));
    CHECK(flag && val == mine, "thread %d: attribute on the shared type is %p, want %p", t, val,
          mine);
    CALL(MPI_Type_delete_attr(svec, tkv));
    CALL(MPI_Type_free_keyval(&tkv));

    /* Names of a shared communicator: any thread's, never a mix. */
    char name[MPI_MAX_OBJECT_NAME], got[MPI_MAX_OBJECT_NAME];
    int len, gt, gi;
    snprintf(name, sizeof(name), "shared by t%d r%d", t, it);
    CALL(MPI_Comm_set_name(scomm, name));
    CALL(MPI_Comm_get_name(scomm, got, &len));
    CHECK(sscanf(got, "shared by t%d r%d", &gt, &gi) == 2 && gt >= 0 && gt < NT && gi >= 0 &&
              gi < ITERS && (int)strlen(got) == len,
          "thread %d: shared communicator's name is '%s'", t, got);

    /* MPI_COMM_WORLD's handler replaced while other threads create
     * communicators from it (they inherit it). */
    MPI_Errhandler eh;
    CALL(MPI_Comm_create_errhandler(errh_fn, &eh));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CALL(MPI_Errhandler_free(&eh));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    size_t max = (size_t)sizes[NSIZES - 1] + 1;
    unsigned char *sbuf = mt_xmalloc(max), *rbuf = mt_xmalloc(max);
    int deletes = 0;
    for (int it = 0; it < ITERS; it++) {
        int kv;
        CALL(MPI_Comm_create_keyval(copy_cb, delete_cb, &kv, &deletes));
        ring(t, it, sbuf, rbuf);
        probes(t, it, sbuf, rbuf);
        collectives(t, it, tcomm[t]);
        creation(t, it, tcomm[t], kv);
        objects(t, it);
        shared(t, it, kv);
        CALL(MPI_Comm_free_keyval(&kv));
    }
    /* Each round: the value deleted from the parent, from the dup and from
     * MPI_COMM_WORLD. */
    CHECK(deletes == 3 * ITERS, "thread %d: %d delete callbacks, want %d", t, deletes, 3 * ITERS);
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_prog = "thread_stress";
    if (argc > 1) ITERS = atoi(argv[1]);
    if (argc > 2) NT = atoi(argv[2]);
    if (NT < 1 || NT > MAXT || ITERS < 1) {
        fprintf(stderr, "usage: thread_stress [ITERS [NT (1..%d)]]\n", MAXT);
        return 2;
    }
    int provided;
    CALL(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d, want MULTIPLE", provided);
    for (int t = 0; t < NT; t++)
        CALL(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
    CALL(MPI_Comm_dup(MPI_COMM_WORLD, &scomm));
    CALL(MPI_Type_vector(1500, 1, 2, MPI_INT, &svec));
    CALL(MPI_Type_commit(&svec));
    MPI_Group wg;
    CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int rev[MAXT * 4];
    CHECK(mt_size <= MAXT * 4, "at most %d ranks", MAXT * 4);
    for (int i = 0; i < mt_size; i++)
        rev[i] = mt_size - 1 - i;
    CALL(MPI_Group_incl(wg, mt_size, rev, &sgroup));
    CALL(MPI_Group_free(&wg));
    pthread_t th[MAXT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    int want = NT * ITERS; /* one copy per dup per thread per round */
    CHECK(copies == want, "%d attribute copies, want %d", copies, want);
    for (int t = 0; t < NT; t++)
        CALL(MPI_Comm_free(&tcomm[t]));
    CALL(MPI_Comm_free(&scomm));
    CALL(MPI_Type_free(&svec));
    CALL(MPI_Group_free(&sgroup));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("PASS thread_stress (%d ranks, %d threads each, %d rounds)\n", mt_size, NT, ITERS);
    CALL(MPI_Finalize());
    return 0;
}
