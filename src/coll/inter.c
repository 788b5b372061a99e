/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicator collectives (MPI 3.1 §5.2.2): two disjoint groups, and
 * data moves only from one group to the other. Every collective here is a
 * single round of direct messages between the groups: a rooted one between
 * the root and each member of the other group, the all-to-all ones between
 * every pair. The groups are the local and the remote list of the
 * communicator (ump_intercomm_create); its collective sequence numbers
 * stay in step across both groups because MPI has every member of both
 * call each collective. Reductions receive every contribution into scratch
 * and reduce them in rank order, so non-commutative ops get the order the
 * standard asks for (rank 0 first).
 *
 * Roots: UMP_ROOT on the root, UMP_ROOT_NONE on the rest of the root's
 * group, the root's rank in the other group on every member of that group.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

int ump_intercomm_create(const int *local, int n, const int *remote, int m, uint32_t ctx,
                         ump_comm_t *out)
{
    static const char call[] = "ump_intercomm_create";
    if (!ump_initialized()) return UMP_ERR_NOT_INIT;
    int me = ump_rank();
    if (!out || !local || !remote || n <= 0 || m <= 0) {
        ump_error("%s: a group is empty or an argument is NULL (%d local, %d remote; rank %d)",
                  call, n, m, me);
        return UMP_ERR_INVALID;
    }
    *out = NULL;
    struct ump_comm *c = calloc(1, sizeof(*c));
    if (!c) return UMP_ERR_NO_MEMORY;
    c->world = malloc(sizeof(int) * (size_t)n);
    c->rworld = malloc(sizeof(int) * (size_t)m);
    if (!c->world || !c->rworld) {
        free(c->world);
        free(c->rworld);
        free(c);
        return UMP_ERR_NO_MEMORY;
    }
    memcpy(c->world, local, sizeof(int) * (size_t)n);
    memcpy(c->rworld, remote, sizeof(int) * (size_t)m);
    /* Peer indices of processes met at run time may exceed ump_size(): the
     * lists are taken as they are, only this process must be in the local one. */
    c->rank = -1;
    for (int i = 0; i < n; i++)
        if (local[i] == me) c->rank = i;
    if (c->rank < 0) {
        ump_error("%s: this process (rank %d) is not in the local group", call, me);
        free(c->world);
        free(c->rworld);
        free(c);
        return UMP_ERR_RANK;
    }
    c->size = n;
    c->rsize = m;
    c->ctx = ctx;
    *out = c;
    return UMP_OK;
}

int ump_comm_remote_size(ump_comm_t comm)
{
    return comm ? comm->rsize : 0;
}

/* --- argument checks ---------------------------------------------------------- */

static int check(const char *call, ump_comm_t comm)
{
    if (UMP_UNLIKELY(!comm || !comm->rsize)) {
        ump_error("%s: the communicator is %s (rank %d)", call,
                  comm ? "not an intercommunicator" : "NULL", ump_rank());
        return UMP_ERR_INVALID;
    }
    return UMP_OK;
}

static int check_dt(const char *call, const char *what, ump_dt_t dt)
{
    if (UMP_LIKELY(ump_dt_valid(dt) && dt->committed)) return UMP_OK;
    ump_error("%s: %s is null, freed or not committed (rank %d)", call, what, ump_rank());
    return UMP_ERR_DATATYPE;
}

static int check_root(const char *call, int root, ump_comm_t comm)
{
    if (root == UMP_ROOT || root == UMP_ROOT_NONE || (root >= 0 && root < comm->rsize))
        return UMP_OK;
    ump_error("%s: root %d is not UMP_ROOT, UMP_ROOT_NONE nor a rank of the remote group "
              "(size %d; rank %d)",
              call, root, comm->rsize, ump_rank());
    return UMP_ERR_ROOT;
}

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        int check_rc_ = (expr);                                                                    \
        if (UMP_UNLIKELY(check_rc_ != UMP_OK)) return check_rc_;                                   \
    } while (0)

static int finish(ump_sched_t *s, ump_req_t *greq)
{
    ump_sched_round(s);
    return greq ? ump_sched_start(s, greq) : ump_sched_run(s);
}

static size_t cnt_of(const int *counts, size_t uniform, int i)
{
    return counts ? (size_t)counts[i] : uniform;
}

static size_t off_of(const int *displs, size_t uniform, int i)
{
    return displs ? (size_t)displs[i] : (size_t)i * uniform;
}

/* --- barrier, bcast ------------------------------------------------------------ */

int ump_inter_barrier(ump_comm_t comm, ump_req_t *greq)
{
    CHECK(check("ump_inter_barrier", comm));
    ump_sched_t s;
    ump_sched_init(&s, comm);
    /* Nobody leaves before every member of the other group has entered. */
    static const char z;
    for (int i = 0; i < comm->rsize; i++) {
        ump_sched_send(&s, comm->rworld[i], &z, 0);
        ump_sched_recv(&s, comm->rworld[i], NULL, 0);
    }
    return finish(&s, greq);
}

int ump_inter_bcast(void *buf, size_t count, ump_dt_t dt, int root, ump_comm_t comm,
                    ump_req_t *greq)
{
    static const char call[] = "ump_inter_bcast";
    CHECK(check(call, comm));
    CHECK(check_dt(call, "datatype", dt));
    CHECK(check_root(call, root, comm));
    ump_sched_t s;
    ump_sched_init(&s, comm);
    if (root == UMP_ROOT) {
        for (int i = 0; i < comm->rsize; i++)
            ump_sched_send_dt(&s, comm->rworld[i], buf, count, dt);
    } else if (root >= 0) {
        ump_sched_recv_dt(&s, comm->rworld[root], buf, count, dt);
    }
    return finish(&s, greq);
}

/* --- gather, scatter, allgather -------------------------------------------------- */

int ump_inter_gatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf, const int *rcounts,
                      const int *displs, size_t rcount, ump_dt_t rdt, int root, ump_comm_t comm,
                      ump_req_t *greq)
{
    static const char call[] = "ump_inter_gatherv";
    CHECK(check(call, comm));
    CHECK(check_root(call, root, comm));
    if (root == UMP_ROOT) CHECK(check_dt(call, "receive datatype", rdt));
    if (root >= 0) CHECK(check_dt(call, "send datatype", sdt));
    ump_sched_t s;
    ump_sched_init(&s, comm);
    if (root == UMP_ROOT) {
        for (int i = 0; i < comm->rsize; i++)
            ump_sched_recv_dt(&s, comm->rworld[i],
                              (char *)rbuf + (ptrdiff_t)off_of(displs, rcount, i) * rdt->extent,
                              cnt_of(rcounts, rcount, i), rdt);
    } else if (root >= 0) {
        ump_sched_send_dt(&s, comm->rworld[root], sbuf, scount, sdt);
    }
    return finish(&s, greq);
}

int ump_inter_scatterv(const void *sbuf, const int *scounts, const int *displs, size_t scount,
                       ump_dt_t sdt, void *rbuf, size_t rcount, ump_dt_t rdt, int root,
                       ump_comm_t comm, ump_req_t *greq)
{
    static const char call[] = "ump_inter_scatterv";
    CHECK(check(call, comm));
    CHECK(check_root(call, root, comm));
    if (root == UMP_ROOT) CHECK(check_dt(call, "send datatype", sdt));
    if (root >= 0) CHECK(check_dt(call, "receive datatype", rdt));
    ump_sched_t s;
    ump_sched_init(&s, comm);
    if (root == UMP_ROOT) {
        for (int i = 0; i < comm->rsize; i++)
            ump_sched_send_dt(&s, comm->rworld[i],
                              (const char *)sbuf +
                                  (ptrdiff_t)off_of(displs, scount, i) * sdt->extent,
                              cnt_of(scounts, scount, i), sdt);
    } else if (root >= 0) {
        ump_sched_recv_dt(&s, comm->rworld[root], rbuf, rcount, rdt);
    }
    return finish(&s, greq);
}

int ump_inter_allgatherv(const void *sbuf, size_t scount, ump_dt_t sdt, void *rbuf,
                         const int *rcounts, const int *displs, size_t rcount, ump_dt_t rdt,
                         ump_comm_t comm, ump_req_t *greq)
{
    static const char call[] = "ump_inter_allgatherv";
    CHECK(check(call, comm));
    CHECK(check_dt(call, "send datatype", sdt));
    CHECK(check_dt(call, "receive datatype", rdt));
    ump_sched_t s;
    ump_sched_init(&s, comm);
    for (int i = 0; i < comm->rsize; i++) {
        ump_sched_send_dt(&s, comm->rworld[i], sbuf, scount, sdt);
        ump_sched_recv_dt(&s, comm->rworld[i],
                          (char *)rbuf + (ptrdiff_t)off_of(displs, rcount, i) * rdt->extent,
                          cnt_of(rcounts, rcount, i), rdt);
    }
    return finish(&s, greq);
}

/* --- all-to-all --------------------------------------------------------------------- */

int ump_inter_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                        const ump_dt_t *sdts, void *rbuf, const int *rcounts, const int *rdispls,
                        const ump_dt_t *rdts, int bytes_displ, size_t scount, ump_dt_t sdt,
                        size_t rcount, ump_dt_t rdt, ump_comm_t comm, ump_req_t *greq)
{
    static const char call[] = "ump_inter_alltoallw";
    CHECK(check(call, comm));
    int m = comm->rsize;
    for (int i = 0; i < m; i++) {
        CHECK(check_dt(call, "send datatype", sdts ? sdts[i] : sdt));
        CHECK(check_dt(call, "receive datatype", rdts ? rdts[i] : rdt));
    }
    ump_sched_t s;
    ump_sched_init(&s, comm);
    for (int i = 0; i < m; i++) {
        ump_dt_t st = sdts ? sdts[i] : sdt, rt = rdts ? rdts[i] : rdt;
        size_t so = off_of(sdispls, scount, i), ro = off_of(rdispls, rcount, i);
        if (!bytes_displ) {
            so *= st->extent;
            ro *= rt->extent;
        }
        ump_sched_send_dt(&s, comm->rworld[i], (const char *)sbuf + so, cnt_of(scounts, scount, i),
                          st);
        ump_sched_recv_dt(&s, comm->rworld[i], (char *)rbuf + ro, cnt_of(rcounts, rcount, i), rt);
    }
    return finish(&s, greq);
}

/* --- reductions ------------------------------------------------------------------ */

/* Packed copy of `count` elements at sbuf, to send (the buffer itself when
 * it is contiguous). */
static const void *packed(ump_sched_t *s, const void *sbuf, size_t count, ump_dt_t dt)
{
    if (ump_coll_dt_contig(dt)) return (const char *)sbuf + dt->true_lb;
    void *t = ump_sched_tmp(s, count * dt->size);
    if (t) ump_coll_pack(t, sbuf, count, dt);
    return t;
}

/* Receives `count` packed elements from every member of the other group and
 * reduces elements [first, first + n) of them in rank order into the
 * scratch it returns (NULL on failure, s->err set); a later round reads it. */
static void *recv_reduce(ump_sched_t *s, ump_comm_t comm, size_t count, size_t first, size_t n,
                         ump_dt_t dt)
{
    int m = comm->rsize;
    size_t b = count * dt->size;
    char **in = malloc(sizeof(char *) * (size_t)m);
    if (!in) {
        s->err = UMP_ERR_NO_MEMORY;
        return NULL;
    }
    for (int i = 0; i < m; i++) {
        in[i] = ump_sched_tmp(s, b ? b : 1);
        if (!in[i]) {
            free(in);
            return NULL;
        }
        ump_sched_recv(s, comm->rworld[i], in[i], b);
    }
    ump_sched_round(s);
    /* acc = in[0] op (in[1] op (... op in[m-1])): rank 0 leftmost. */
    char *acc = in[m - 1] + first * dt->size;
    for (int i = m - 2; i >= 0; i--)
        ump_sched_red(s, in[i] + first * dt->size, acc, n);
    free(in);
    return acc;
}

int ump_inter_reduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                     int root, ump_comm_t comm, ump_req_t *greq)
{
    static const char call[] = "ump_inter_reduce";
    CHECK(check(call, comm));
    CHECK(check_dt(call, "datatype", dt));
    CHECK(check_root(call, root, comm));
    ump_sched_t s;
    ump_sched_init(&s, comm);
    if (root == UMP_ROOT) {
        if (ump_sched_reduction(&s, op, dt) != UMP_OK) goto out;
        void *acc = recv_reduce(&s, comm, count, 0, count, dt);
        if (acc) ump_sched_unpack(&s, rbuf, acc, count, dt);
    } else if (root >= 0) {
        const void *p = packed(&s, sbuf, count, dt);
        if (p) ump_sched_send(&s, comm->rworld[root], p, count * dt->size);
    }
out:
    return finish(&s, greq);
}

/* Every member sends its whole vector to every member of the other group,
 * which reduces the part it keeps: elements [first, first + n). */
static int reduce_to_all(const void *sbuf, void *rbuf, size_t count, size_t first, size_t n,
                         ump_dt_t dt, ump_redop_t op, ump_comm_t comm, ump_req_t *greq)
{
    ump_sched_t s;
    ump_sched_init(&s, comm);
    if (ump_sched_reduction(&s, op, dt) != UMP_OK) goto out;
    const void *p = packed(&s, sbuf, count, dt);
    if (!p) goto out;
    for (int i = 0; i < comm->rsize; i++)
        ump_sched_send(&s, comm->rworld[i], p, count * dt->size);
    void *acc = recv_reduce(&s, comm, count, first, n, dt);
    if (acc) ump_sched_unpack(&s, rbuf, acc, n, dt);
out:
    return finish(&s, greq);
}

int ump_inter_allreduce(const void *sbuf, void *rbuf, size_t count, ump_dt_t dt, ump_redop_t op,
                        ump_comm_t comm, ump_req_t *greq)
{
    static const char call[] = "ump_inter_allreduce";
    CHECK(check(call, comm));
    CHECK(check_dt(call, "datatype", dt));
    return reduce_to_all(sbuf, rbuf, count, 0, count, dt, op, comm, greq);
}

int ump_inter_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, size_t rcount,
                             ump_dt_t dt, ump_redop_t op, ump_comm_t comm, ump_req_t *greq)
{
    static const char call[] = "ump_inter_reduce_scatter";
    CHECK(check(call, comm));
    CHECK(check_dt(call, "datatype", dt));
    /* The vectors have the length of this group's counts summed, which
     * the standard makes equal to the other group's. */
    size_t total = 0, first = 0;
    for (int i = 0; i < comm->size; i++) {
        size_t c = cnt_of(rcounts, rcount, i);
        if (i < comm->rank) first += c;
        total += c;
    }
    return reduce_to_all(sbuf, rbuf, total, first, cnt_of(rcounts, rcount, comm->rank), dt, op,
                         comm, greq);
}
