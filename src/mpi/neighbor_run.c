/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How a neighbourhood collective moves its data: one round in which every
 * receive and every send is posted at once on the core, then completed.
 *
 * The messages travel on the point-to-point context of the topology's
 * hidden duplicate communicator, tagged with the topology's sequence
 * number (twice, plus the direction offset of Cartesian grids), so they
 * match neither the user's messages nor ordinary collectives nor another
 * outstanding neighbourhood collective on the same communicator. Between
 * two ranks several messages of one collective (repeated graph edges)
 * match in list order, as the core keeps MPI's non-overtaking order.
 * Derived datatypes go to the core as they are; it holds a reference on
 * each until its operation completes.
 *
 * A nonblocking collective is an MPI request over a core generalized
 * request; a progress hook tests the posted requests of every running
 * collective and completes the generalized request when all are done.
 * The list of running collectives has its own mutex, taken by the hook
 * (which runs under the core lock) and by the starting call (which makes
 * no core call while holding it), so the lock order is always core, then
 * list.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi/topo.h"

struct nbr_op {
    struct nbr_op *next;
    ump_req_t greq;
    int err; /* first core error */
    int n;
    ump_req_t reqs[];
};

static struct nbr_op *running;
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static bool hook_on;
static bool in_hook; /* the hook's ump_test runs progress, which calls it again */

static MPI_Aint extent(MPI_Datatype dt)
{
    return (MPI_Aint)(dt->ub - dt->lb);
}

/* Address, count and type of block k of one side. */
static void block(const struct ump_mpi_nbr_side *s, int k, const char **buf, int *count,
                  MPI_Datatype *dt)
{
    *count = s->counts ? s->counts[k] : s->count;
    *dt = s->types ? s->types[k] : s->type;
    if (s->disp_bytes)
        *buf = s->buf + s->disp_bytes[k];
    else if (s->disps)
        *buf = s->buf + (MPI_Aint)s->disps[k] * extent(*dt);
    else if (s->per_block)
        *buf = s->buf + (MPI_Aint)k * s->count * extent(*dt);
    else
        *buf = s->buf;
}

/* Posts the receives, then the sends, into reqs (UMP_REQ_NULL for
 * MPI_PROC_NULL neighbours, whose receive blocks stay untouched); *n gets
 * the number of slots used. Returns UMP_OK or the first posting error. */
static int post(MPI_Comm comm, struct ump_mpi_topo *t, const struct ump_mpi_nbr_side *snd,
                const struct ump_mpi_nbr_side *rcv, ump_req_t *reqs, int *n)
{
    uint32_t ctx = t->hidden->ctx_p2p;
    int base = (int)((t->seq++ & 0x3fffffffu) << 1);
    int k = 0, rc = UMP_OK;
    for (int i = 0; i < t->indeg && rc == UMP_OK; i++, k++) {
        reqs[k] = UMP_REQ_NULL;
        if (t->in[i] == MPI_PROC_NULL) continue;
        const char *buf;
        int count;
        MPI_Datatype dt;
        block(rcv, i, &buf, &count, &dt);
        rc = ump_irecv((void *)buf, (size_t)count, dt, ump_mpi_world_rank(comm, t->in[i]),
                       base + t->in_tag[i], ctx, &reqs[k]);
    }
    for (int j = 0; j < t->outdeg && rc == UMP_OK; j++, k++) {
        reqs[k] = UMP_REQ_NULL;
        if (t->out[j] == MPI_PROC_NULL) continue;
        const char *buf;
        int count;
        MPI_Datatype dt;
        block(snd, j, &buf, &count, &dt);
        rc = ump_isend(buf, (size_t)count, dt, ump_mpi_world_rank(comm, t->out[j]),
                       base + t->out_tag[j], ctx, &reqs[k]);
    }
    *n = k;
    return rc;
}

/* After a posting error: cancels the receives already posted (their
 * messages may never come) and waits for everything posted. */
static void unwind(ump_req_t *reqs, int n)
{
    for (int i = 0; i < n; i++)
        if (reqs[i] != UMP_REQ_NULL) ump_cancel(&reqs[i]);
    ump_waitall((size_t)n, reqs, UMP_STATUS_IGNORE);
}

static int hook(void *arg)
{
    (void)arg;
    /* Hooks run under the core lock, so in_hook is never raced. */
    if (in_hook || !__atomic_load_n(&running, __ATOMIC_ACQUIRE)) return 0;
    in_hook = true;
    int events = 0;
    pthread_mutex_lock(&running_lock);
    struct nbr_op **pp = &running;
    while (*pp) {
        struct nbr_op *op = *pp;
        bool all = true;
        for (int i = 0; i < op->n; i++) {
            if (op->reqs[i] == UMP_REQ_NULL) continue;
            int done = 0;
            ump_status_t st;
            int rc = ump_test(&op->reqs[i], &done, &st);
            if (rc != UMP_OK && op->err == UMP_OK) op->err = rc;
            if (!done) {
                all = false;
                break;
            }
        }
        if (!all) {
            pp = &op->next;
            continue;
        }
        *pp = op->next;
        ump_greq_complete(op->greq, op->err);
        free(op);
        events++;
    }
    pthread_mutex_unlock(&running_lock);
    in_hook = false;
    return events;
}

static int run_blocking(const char *call, MPI_Comm comm, struct ump_mpi_topo *t,
                        const struct ump_mpi_nbr_side *snd, const struct ump_mpi_nbr_side *rcv)
{
    ump_req_t local[16];
    int total = t->indeg + t->outdeg, n = 0;
    ump_req_t *reqs = total <= 16 ? local : malloc(sizeof(ump_req_t) * (size_t)total);
    if (!reqs) return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for requests");
    int rc = post(comm, t, snd, rcv, reqs, &n);
    if (rc != UMP_OK)
        unwind(reqs, n);
    else
        rc = ump_waitall((size_t)n, reqs, UMP_STATUS_IGNORE);
    if (reqs != local) free(reqs);
    if (rc != UMP_OK)
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call, "neighbour exchange failed: %s",
                             ump_strerror(rc));
    return MPI_SUCCESS;
}

int ump_mpi_nbr_run(const char *call, MPI_Comm comm, const struct ump_mpi_nbr_side *snd,
                    const struct ump_mpi_nbr_side *rcv, MPI_Request *request)
{
    struct ump_mpi_topo *t = comm->topo;
    if (!request) return run_blocking(call, comm, t, snd, rcv);

    pthread_mutex_lock(&running_lock);
    if (!hook_on && ump_progress_register(hook, NULL) == UMP_OK) hook_on = true;
    bool hooked = hook_on;
    pthread_mutex_unlock(&running_lock);
    if (!hooked)
        return ump_mpi_error(comm, MPI_ERR_INTERN, call,
                             "no progress hook is free for nonblocking neighbour collectives");
    int total = t->indeg + t->outdeg;
    struct nbr_op *op = calloc(1, sizeof(*op) + sizeof(ump_req_t) * (size_t)total);
    MPI_Request r = ump_mpi_req_new(UMP_MPI_REQ_COLL, comm);
    if (!op || !r || ump_greq_start(&op->greq) != UMP_OK) {
        free(op);
        if (r) ump_mpi_req_release(r);
        return ump_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for the request");
    }
    int rc = post(comm, t, snd, rcv, op->reqs, &op->n);
    if (rc != UMP_OK) {
        unwind(op->reqs, op->n);
        ump_greq_complete(op->greq, rc);
        ump_wait(&op->greq, UMP_STATUS_IGNORE);
        free(op);
        ump_mpi_req_release(r);
        return ump_mpi_error(comm, ump_mpi_class_of(rc), call,
                             "posting the neighbour exchange failed: %s", ump_strerror(rc));
    }
    r->core = op->greq;
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    pthread_mutex_lock(&running_lock);
    op->next = running;
    __atomic_store_n(&running, op, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&running_lock);
    *request = r;
    return MPI_SUCCESS;
}
