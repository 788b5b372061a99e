/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMIx backend: for ranks started by a resource manager's PMIx server
 * (srun --mpi=pmix, Open MPI's mpirun, PRRTE's prterun). There is no
 * launcher connection; the job's facts come from PMIx and the key-value
 * space is PMIx's own:
 *
 *   put    PMIx_Put(PMIX_GLOBAL, "ump.<key>", byte object)
 *   fence  PMIx_Commit, then PMIx_Fence over the whole namespace with
 *          PMIX_COLLECT_DATA, so every value is local to each node after it
 *   get    PMIx_Get of the peer's "ump.<key>" with PMIX_OPTIONAL: after a
 *          collecting fence the data is local, and a key nobody put must
 *          answer "not found" rather than wait for a put that never comes
 *   abort  PMIx_Abort over the namespace: the resource manager ends the job
 *   fini   PMIx_Finalize
 *
 * What resource managers provide differs (Slurm 22.05 with PMIx 4.2 gives
 * PMIX_NODEID for our own process and our node's peers only; PMIx_Get of
 * PMIX_RANK for ourselves is "not found"; job-level keys answer only for the
 * wildcard rank; PMIx_Get with a NULL proc can block forever), so init uses
 * the least it can: the rank PMIx_Init returns, the job size (wildcard),
 * our own node id (or, failing that, our host's place in the job's node
 * list), and one fence of its own in which every rank publishes its node id
 * and rank 0 publishes the job secret. After it every rank knows the
 * secret, the job id and the whole node map, as ump_rt_init promises.
 *
 * Spawning (ump_rt_spawn) is PMIx_Spawn where the server offers it (Open
 * MPI's mpirun does, Slurm does not): the children are a namespace of their
 * own, told the parents' secret (UMP_JOB_PARENT_SECRET: the port meeting
 * proves it), their app's index and the parents' port in their environment.
 */
#include "rt/rt_int.h"

#ifdef UMP_HAVE_PMIX

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pmix.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define KEY_PREFIX  "ump."
#define KEY_NODE    "ump.rt.node"
#define KEY_SECRET  "ump.rt.secret"
#define ENV_SECRET  "UMP_JOB_PARENT_SECRET" /* a spawned group's: the parents' secret */
#define PMIX_KEYMAX (sizeof(KEY_PREFIX) + UMP_RT_KEY_MAX)

struct ump_rt_pmix {
    pmix_proc_t me;
    pmix_proc_t all; /* our namespace, wildcard rank */
};

/* Whether this process left without ump_rt_fini: see exit_check(). */
static struct {
    bool live;
    bool registered;
    pid_t pid;
    int rank;
} guard;

static void load_bool(pmix_info_t *info, const char *key)
{
    bool t = true;
    PMIX_INFO_CONSTRUCT(info);
    PMIX_INFO_LOAD(info, key, &t, PMIX_BOOL);
}

/* An unsigned number of any width PMIx may hand back. */
static int value_u32(const pmix_value_t *v, uint32_t *out)
{
    switch (v->type) {
    case PMIX_UINT32:
        *out = v->data.uint32;
        return UMP_OK;
    case PMIX_UINT16:
        *out = v->data.uint16;
        return UMP_OK;
    case PMIX_UINT8:
        *out = v->data.uint8;
        return UMP_OK;
    case PMIX_UINT64:
        *out = (uint32_t)v->data.uint64;
        return v->data.uint64 <= UINT32_MAX ? UMP_OK : UMP_ERR_PROTOCOL;
    case PMIX_UINT:
        *out = v->data.uint;
        return UMP_OK;
    case PMIX_INT:
        *out = (uint32_t)v->data.integer;
        return v->data.integer >= 0 ? UMP_OK : UMP_ERR_PROTOCOL;
    case PMIX_PROC_RANK:
        *out = v->data.rank;
        return UMP_OK;
    default:
        return UMP_ERR_PROTOCOL;
    }
}

/* PMIx_Get(proc, key) as a number. Not found is UMP_ERR_INVALID (not logged:
 * callers may have a fallback); a bad type is logged. */
static int get_u32(const pmix_proc_t *p, const char *key, uint32_t *out)
{
    pmix_info_t info;
    pmix_value_t *v = NULL;
    load_bool(&info, PMIX_OPTIONAL);
    pmix_status_t st = PMIx_Get(p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS || !v) {
        ump_debug("rt: PMIx_Get(%s, rank %u): %s", key, p->rank, PMIx_Error_string(st));
        return UMP_ERR_INVALID;
    }
    int rc = value_u32(v, out);
    if (rc)
        ump_error("rt: PMIx gave %s of rank %u as type %d, not a number", key, p->rank, v->type);
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* PMIx_Get(proc, key) as a string into buf; UMP_ERR_INVALID if absent. */
static int get_str(const pmix_proc_t *p, const char *key, char *buf, size_t len)
{
    pmix_info_t info;
    pmix_value_t *v = NULL;
    load_bool(&info, PMIX_OPTIONAL);
    pmix_status_t st = PMIx_Get(p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS || !v) return UMP_ERR_INVALID;
    int rc = UMP_ERR_INVALID;
    if (v->type == PMIX_STRING && v->data.string) {
        snprintf(buf, len, "%s", v->data.string);
        rc = UMP_OK;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* Our node's raw id: PMIX_NODEID, else our host's index in the job's node
 * list (PMIx_Resolve_nodes), which every rank computes alike. */
static int own_node(struct ump_rt_pmix *px, const char *host, uint32_t *out)
{
    if (get_u32(&px->me, PMIX_NODEID, out) == UMP_OK) return UMP_OK;
    char *nodes = NULL;
    pmix_status_t st = PMIx_Resolve_nodes(px->me.nspace, &nodes);
    int rc = UMP_ERR_BOOTSTRAP;
    if (st == PMIX_SUCCESS && nodes) {
        uint32_t i = 0;
        char *save = NULL;
        for (char *n = strtok_r(nodes, ",", &save); n; n = strtok_r(NULL, ",", &save), i++) {
            if (!strcmp(n, host)) {
                *out = i;
                rc = UMP_OK;
                break;
            }
        }
    }
    free(nodes);
    if (rc)
        ump_error("rt: PMIx tells neither PMIX_NODEID nor a node list holding '%s' (%s)", host,
                  PMIx_Error_string(st));
    return rc;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Turns raw node ids (any numbers PMIx uses) into 0..num_nodes-1 in
 * ascending order of the raw id, and fills the node facts of rt->info. */
static int number_nodes(ump_rt_t *rt, const uint32_t *raw)
{
    int n = rt->info.size, me = rt->info.rank;
    uint32_t *sorted = malloc(sizeof(*sorted) * (size_t)n);
    rt->node_of = malloc(sizeof(*rt->node_of) * (size_t)n);
    if (!sorted || !rt->node_of) {
        free(sorted);
        return UMP_ERR_NO_MEMORY;
    }
    memcpy(sorted, raw, sizeof(*sorted) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(*sorted), cmp_u32);
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || sorted[i] != sorted[i - 1]) sorted[distinct++] = sorted[i];
    }
    for (int r = 0; r < n; r++) {
        uint32_t *hit = bsearch(&raw[r], sorted, (size_t)distinct, sizeof(*sorted), cmp_u32);
        rt->node_of[r] = (int)(hit - sorted);
    }
    free(sorted);
    rt->info.num_nodes = distinct;
    rt->info.node_id = rt->node_of[me];
    rt->info.local_rank = rt->info.local_size = 0;
    for (int r = 0; r < n; r++) {
        if (rt->node_of[r] != rt->info.node_id) continue;
        if (r < me) rt->info.local_rank++;
        rt->info.local_size++;
    }
    return UMP_OK;
}

/* The address peers on other nodes reach us at: the first up, non-loopback
 * IPv4 address. There is no launcher connection to ask, as umprun's backend
 * does; UMP_TCP_IF (the tcp transport's) picks another interface. */
static void pick_local_ip(ump_rt_t *rt)
{
    snprintf(rt->local_ip, sizeof(rt->local_ip), "127.0.0.1");
    if (rt->info.num_nodes <= 1) return;
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs)) {
        ump_warn("rt: getifaddrs: %m; publishing 127.0.0.1");
        return;
    }
    bool found = false;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        found = inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, rt->local_ip,
                          sizeof(rt->local_ip)) != NULL;
    }
    freeifaddrs(ifs);
    if (!found) {
        snprintf(rt->local_ip, sizeof(rt->local_ip), "127.0.0.1");
        ump_warn("rt: the job spans %d nodes but this host has no up non-loopback IPv4 "
                 "address; publishing 127.0.0.1",
                 rt->info.num_nodes);
    }
}

/* The job id: 64-bit FNV-1a over the namespace and the secret. The
 * namespace alone names the job uniquely while it runs; the secret, new
 * for every job, keeps a later job that reuses the namespace name (an
 * mpirun whose jobid repeats) from meeting this one's leftover files. */
static void make_job_id(ump_rt_t *rt, const char *nspace, char *job_id)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = nspace; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (int i = 0; i < UMP_RT_SECRET_LEN; i++)
        h = (h ^ rt->info.secret[i]) * 1099511628211ull;
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(h >> (56 - 8 * i));
    ump_hex_encode(b, sizeof(b), job_id);
}

/* A process that initialized the runtime and exits without ump_rt_fini
 * (exit(3) from a rank, or main returning early) would leave its peers
 * waiting in a fence: the resource manager does not end a job because one
 * task exited (srun without -K). Abort the job instead, as umprun does, with
 * the exit code. Children forked by the rank run this too: only the rank
 * itself acts. Deaths by a signal do not come here; the manager sees those
 * (srun -K, mpirun) as failures. */
static void exit_check(int status, void *arg)
{
    (void)arg;
    if (!guard.live || getpid() != guard.pid) return;
    guard.live = false;
    char msg[160];
    snprintf(msg, sizeof(msg), "rank %d exited with code %d without finalizing ump", guard.rank,
             status);
    fprintf(stderr, "ump: %s; aborting the job\n", msg);
    PMIx_Abort(status ? status : 1, msg, NULL, 0);
}

/* Publishes our node (and, on rank 0, a fresh secret), fences, and reads
 * the secret and every rank's node back. */
static int init_exchange(ump_rt_t *rt, uint32_t my_node)
{
    struct ump_rt_pmix *px = rt->pmix;
    int n = rt->info.size, rc;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT32;
    v.data.uint32 = my_node;
    pmix_status_t st = PMIx_Put(PMIX_GLOBAL, KEY_NODE, &v);
    /* A spawned group has its parents' secret, so that they can meet. */
    const char *given = getenv(ENV_SECRET);
    if (given && ump_hex_decode(given, rt->info.secret, UMP_RT_SECRET_LEN)) {
        ump_error("rt: %s is not %d hex digits", ENV_SECRET, 2 * UMP_RT_SECRET_LEN);
        return UMP_ERR_BOOTSTRAP;
    }
    if (st == PMIX_SUCCESS && rt->info.rank == 0 && !given) {
        if (ump_random_bytes(rt->info.secret, UMP_RT_SECRET_LEN)) {
            ump_error("rt: cannot draw random bytes for the job secret: %m");
            return UMP_ERR_BOOTSTRAP;
        }
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = (char *)rt->info.secret;
        v.data.bo.size = UMP_RT_SECRET_LEN;
        st = PMIx_Put(PMIX_GLOBAL, KEY_SECRET, &v); /* copies the bytes */
    }
    if (st != PMIX_SUCCESS) {
        ump_error("rt: PMIx_Put: %s", PMIx_Error_string(st));
        return UMP_ERR_BOOTSTRAP;
    }
    if ((rc = ump_rt_pmix_fence(rt, NULL, NULL))) return rc;

    if (rt->info.rank != 0 && !given) {
        size_t len = UMP_RT_SECRET_LEN;
        rc = ump_rt_pmix_get(rt, 0, "rt.secret", rt->info.secret, &len);
        if (rc || len != UMP_RT_SECRET_LEN) {
            ump_error("rt: rank 0 published no job secret through PMIx");
            return UMP_ERR_BOOTSTRAP;
        }
    }
    uint32_t *raw = malloc(sizeof(*raw) * (size_t)n);
    if (!raw) return UMP_ERR_NO_MEMORY;
    for (int r = 0; r < n; r++) {
        pmix_proc_t p = px->me;
        p.rank = (pmix_rank_t)r;
        if (r == rt->info.rank) {
            raw[r] = my_node;
        } else if (get_u32(&p, KEY_NODE, &raw[r])) {
            ump_error("rt: rank %d published no node id through PMIx", r);
            free(raw);
            return UMP_ERR_BOOTSTRAP;
        }
    }
    rc = number_nodes(rt, raw);
    free(raw);
    return rc;
}

/* What a spawned process was told (rt.h): its app and its parents' port. */
static int spawn_env(ump_rt_t *rt)
{
    const char *app = getenv("UMP_JOB_APPNUM"), *port = getenv("UMP_JOB_PARENT_PORT");
    char *end = NULL;
    long a = app ? strtol(app, &end, 10) : 0;
    if ((app && (!*app || *end || a < 0 || a > (1 << 24))) ||
        (port && strlen(port) >= sizeof(rt->info.parent_port))) {
        ump_error("rt: UMP_JOB_APPNUM '%s' or UMP_JOB_PARENT_PORT is malformed", app ? app : "");
        return UMP_ERR_BOOTSTRAP;
    }
    rt->info.appnum = (int)a;
    snprintf(rt->info.parent_port, sizeof(rt->info.parent_port), "%s", port ? port : "");
    return UMP_OK;
}

int ump_rt_pmix_init(ump_rt_t *rt)
{
    struct ump_rt_pmix *px = calloc(1, sizeof(*px));
    if (!px) return UMP_ERR_NO_MEMORY;
    rt->pmix = px;
    /* The pair of lines lets a test tell a launcher that never answers
     * PMIx_Init (Open MPI 4.1's mpirun with PMIx 4 now and then, for a
     * spawned process) from a hang of ump's own. */
    ump_debug("rt: PMIx_Init called");
    pmix_status_t st = PMIx_Init(&px->me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        ump_error("rt: PMIx_Init failed: %s (was this process started by a PMIx launcher, "
                  "e.g. srun --mpi=pmix?)",
                  PMIx_Error_string(st));
        free(px);
        rt->pmix = NULL;
        return UMP_ERR_BOOTSTRAP;
    }
    ump_debug("rt: PMIx_Init returned rank %u of namespace %s", px->me.rank, px->me.nspace);
    PMIX_LOAD_PROCID(&px->all, px->me.nspace, PMIX_RANK_WILDCARD);
    rt->info.backend = "pmix";
    int rc = UMP_ERR_BOOTSTRAP;
    uint32_t size = 0, node = 0;
    /* PMIx_Get of PMIX_RANK for ourselves is "not found" on some servers:
     * the rank is the one PMIx_Init gave. */
    if (px->me.rank >= (1u << 24)) {
        ump_error("rt: PMIx gave this process rank %u", px->me.rank);
        goto err_fini;
    }
    if (get_u32(&px->all, PMIX_JOB_SIZE, &size) || size < 1 || size > (1u << 24) ||
        px->me.rank >= size) {
        ump_error("rt: PMIx gives no usable job size for namespace %s (rank %u, size %u)",
                  px->me.nspace, px->me.rank, size);
        goto err_fini;
    }
    rt->info.rank = (int)px->me.rank;
    rt->info.size = (int)size;
    ump_log_set_rank(rt->info.rank);
    if (get_str(&px->me, PMIX_HOSTNAME, rt->info.hostname, sizeof(rt->info.hostname)))
        gethostname(rt->info.hostname, sizeof(rt->info.hostname) - 1);
    if ((rc = own_node(px, rt->info.hostname, &node))) goto err_fini;
    if ((rc = spawn_env(rt))) goto err_fini;
    if ((rc = init_exchange(rt, node))) goto err_fini;
    make_job_id(rt, px->me.nspace, rt->info.job_id);
    pick_local_ip(rt);

    /* PMIx's own view of our node, for the log: a mismatch would mean the
     * manager and the node ids disagree about who shares memory. */
    uint32_t lrank = 0, lsize = 0;
    if (!get_u32(&px->me, PMIX_LOCAL_RANK, &lrank) && !get_u32(&px->all, PMIX_LOCAL_SIZE, &lsize) &&
        (lrank != (uint32_t)rt->info.local_rank || lsize != (uint32_t)rt->info.local_size))
        ump_warn("rt: PMIx says local rank %u of %u, the node ids say %d of %d; using the latter",
                 lrank, lsize, rt->info.local_rank, rt->info.local_size);
    ump_debug("rt: PMIx namespace %s: rank %d of %d on node %d of %d (%s), local %d of %d, "
              "job %s, address %s",
              px->me.nspace, rt->info.rank, rt->info.size, rt->info.node_id, rt->info.num_nodes,
              rt->info.hostname, rt->info.local_rank, rt->info.local_size, rt->info.job_id,
              rt->local_ip);

    guard.pid = getpid();
    guard.rank = rt->info.rank;
    guard.live = true;
    if (!guard.registered) guard.registered = on_exit(exit_check, NULL) == 0;
    return UMP_OK;

err_fini:
    /* The other ranks are in (or on their way to) the start-up fence and
     * would wait there for this one forever: end the job. */
    PMIx_Abort(1, "a rank could not start ump's PMIx bootstrap", NULL, 0);
    PMIx_Finalize(NULL, 0);
    free(rt->node_of);
    rt->node_of = NULL;
    free(px);
    rt->pmix = NULL;
    return rc;
}

void ump_rt_pmix_fini(ump_rt_t *rt)
{
    guard.live = false;
    if (!rt->pmix) return;
    pmix_status_t st = PMIx_Finalize(NULL, 0);
    if (st != PMIX_SUCCESS) ump_warn("rt: PMIx_Finalize: %s", PMIx_Error_string(st));
    free(rt->pmix);
    rt->pmix = NULL;
}

int ump_rt_pmix_put(ump_rt_t *rt, const char *key, const void *val, size_t len)
{
    char pkey[PMIX_KEYMAX];
    snprintf(pkey, sizeof(pkey), KEY_PREFIX "%s", key);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)val; /* PMIx_Put copies it */
    v.data.bo.size = len;
    pmix_status_t st = PMIx_Put(PMIX_GLOBAL, pkey, &v);
    if (st != PMIX_SUCCESS) {
        ump_error("rt: PMIx_Put(%s): %s", pkey, PMIx_Error_string(st));
        return st == PMIX_ERR_NOMEM ? UMP_ERR_NO_MEMORY : UMP_ERR_BOOTSTRAP;
    }
    return UMP_OK;
}

/* The answer to a non-blocking fence, set from PMIx's own thread. */
struct fence_wait {
    _Atomic int done;
    pmix_status_t st;
};

static void fence_done(pmix_status_t st, void *cbdata)
{
    struct fence_wait *w = cbdata;
    w->st = st;
    atomic_store_explicit(&w->done, 1, memory_order_release);
}

int ump_rt_pmix_fence(ump_rt_t *rt, ump_rt_idle_fn idle, void *arg)
{
    struct ump_rt_pmix *px = rt->pmix;
    pmix_status_t st = PMIx_Commit();
    if (st != PMIX_SUCCESS) {
        ump_error("rt: PMIx_Commit: %s", PMIx_Error_string(st));
        return UMP_ERR_BOOTSTRAP;
    }
    pmix_info_t info;
    load_bool(&info, PMIX_COLLECT_DATA);
    struct fence_wait w = {.st = PMIX_SUCCESS};
    if (!idle) {
        st = PMIx_Fence(&px->all, 1, &info, 1);
    } else if ((st = PMIx_Fence_nb(&px->all, 1, &info, 1, fence_done, &w)) == PMIX_SUCCESS) {
        /* The server answers on PMIx's thread; serve the caller's peers
         * meanwhile. */
        while (!atomic_load_explicit(&w.done, memory_order_acquire)) {
            idle(arg);
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        st = w.st;
    }
#ifdef PMIX_OPERATION_SUCCEEDED
    if (st == PMIX_OPERATION_SUCCEEDED) st = PMIX_SUCCESS; /* done at once, no callback */
#endif
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS) {
        /* Servers answer a fence that lost a member in various ways
         * (PARTIAL-SUCCESS from Open MPI, UNPACK-PAST-END from Slurm). */
        ump_error("rt: PMIx_Fence failed: %s (did a rank end before joining it?)",
                  PMIx_Error_string(st));
        return UMP_ERR_BOOTSTRAP;
    }
    return UMP_OK;
}

int ump_rt_pmix_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len)
{
    char pkey[PMIX_KEYMAX];
    snprintf(pkey, sizeof(pkey), KEY_PREFIX "%s", key);
    pmix_proc_t p = rt->pmix->me;
    p.rank = (pmix_rank_t)rank;
    pmix_info_t info;
    pmix_value_t *v = NULL;
    load_bool(&info, PMIX_OPTIONAL);
    pmix_status_t st = PMIx_Get(&p, pkey, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS || !v) {
        ump_debug("rt: PMIx_Get(%s, rank %d): %s", pkey, rank, PMIx_Error_string(st));
        return UMP_ERR_INVALID;
    }
    int rc = UMP_OK;
    if (v->type != PMIX_BYTE_OBJECT) {
        ump_error("rt: rank %d's %s came from PMIx as type %d, not bytes", rank, pkey, v->type);
        rc = UMP_ERR_PROTOCOL;
    } else if (v->data.bo.size > *len) {
        *len = v->data.bo.size;
        rc = UMP_ERR_NO_RESOURCE;
    } else {
        if (v->data.bo.size) memcpy(val, v->data.bo.bytes, v->data.bo.size);
        *len = v->data.bo.size;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

void ump_rt_pmix_abort(ump_rt_t *rt, int code, const char *msg)
{
    guard.live = false;
    char text[1024];
    snprintf(text, sizeof(text), "rank %d aborted the job (code %d): %s", rt->info.rank, code,
             msg ? msg : "");
    /* Said here, first: the manager may kill us before PMIx_Abort returns. */
    fprintf(stderr, "ump: %s\n", text);
    if (rt->pmix) {
        pmix_status_t st = PMIx_Abort(code ? code : 1, text, NULL, 0);
        if (st != PMIX_SUCCESS) fprintf(stderr, "ump: PMIx_Abort: %s\n", PMIx_Error_string(st));
    }
    _exit(code ? code : 1);
}

/* "NAME=value" in a fresh string, or NULL. */
static char *env_entry(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *e = malloc(n);
    if (e) snprintf(e, n, "%s=%s", name, value);
    return e;
}

static void apps_free(pmix_app_t *pa, int napps)
{
    for (int i = 0; i < napps; i++) {
        free(pa[i].cmd);
        free(pa[i].cwd);
        for (char **a = pa[i].argv; a && *a; a++)
            free(*a);
        free(pa[i].argv);
        for (char **e = pa[i].env; e && *e; e++)
            free(*e);
        free(pa[i].env);
        if (pa[i].info) PMIX_INFO_FREE(pa[i].info, pa[i].ninfo);
    }
    free(pa);
}

/* One app as PMIx wants it: argv with the command first; the environment
 * with the parents' secret, the app's index and the port first. */
static int app_make(ump_rt_t *rt, const ump_rt_app_t *in, int idx, const char *port,
                    pmix_app_t *out)
{
    size_t na = 0, ne = 0;
    while (in->argv && in->argv[na])
        na++;
    while (in->env && in->env[ne])
        ne++;
    char secret[2 * UMP_RT_SECRET_LEN + 1], num[16], cwd[4096];
    ump_hex_encode(rt->info.secret, UMP_RT_SECRET_LEN, secret);
    snprintf(num, sizeof(num), "%d", idx);
    out->cmd = strdup(in->cmd);
    out->maxprocs = in->maxprocs;
    out->cwd = strdup(in->wdir ? in->wdir : getcwd(cwd, sizeof(cwd)) ? cwd : ".");
    out->argv = calloc(na + 2, sizeof(char *));
    out->env = calloc(ne + 4, sizeof(char *));
    if (!out->cmd || !out->cwd || !out->argv || !out->env) return UMP_ERR_NO_MEMORY;
    if (!(out->argv[0] = strdup(in->cmd))) return UMP_ERR_NO_MEMORY;
    for (size_t i = 0; i < na; i++)
        if (!(out->argv[i + 1] = strdup(in->argv[i]))) return UMP_ERR_NO_MEMORY;
    size_t k = 0;
    if (!(out->env[k++] = env_entry(ENV_SECRET, secret)) ||
        !(out->env[k++] = env_entry("UMP_JOB_APPNUM", num)))
        return UMP_ERR_NO_MEMORY;
    if (port && *port && !(out->env[k++] = env_entry("UMP_JOB_PARENT_PORT", port)))
        return UMP_ERR_NO_MEMORY;
    for (size_t i = 0; i < ne; i++)
        if (!(out->env[k++] = strdup(in->env[i]))) return UMP_ERR_NO_MEMORY;
    if (in->hosts && *in->hosts) {
        PMIX_INFO_CREATE(out->info, 1);
        if (!out->info) return UMP_ERR_NO_MEMORY;
        out->ninfo = 1;
        PMIX_INFO_LOAD(&out->info[0], PMIX_HOST, in->hosts, PMIX_STRING);
    }
    return UMP_OK;
}

int ump_rt_pmix_spawn(ump_rt_t *rt, const ump_rt_app_t *apps, int napps, const char *parent_port,
                      char *job_id, size_t len, char *why, size_t whylen)
{
    pmix_app_t *pa = calloc((size_t)napps, sizeof(*pa));
    if (!pa) return UMP_ERR_NO_MEMORY;
    int rc = UMP_OK;
    for (int i = 0; i < napps && rc == UMP_OK; i++)
        rc = app_make(rt, &apps[i], i, parent_port, &pa[i]);
    if (rc) {
        apps_free(pa, napps);
        snprintf(why, whylen, "out of memory");
        return rc;
    }
    pmix_nspace_t ns;
    pmix_status_t st = PMIx_Spawn(NULL, 0, pa, (size_t)napps, ns);
    apps_free(pa, napps);
    if (st != PMIX_SUCCESS) {
        snprintf(
            why, whylen, "the PMIx server did not start the processes: %s%s", PMIx_Error_string(st),
            st == PMIX_ERR_NOT_SUPPORTED ? " (it offers no spawn: start the job with umprun)" : "");
        ump_error("rt: %s", why);
        return st == PMIX_ERR_NOT_SUPPORTED ? UMP_ERR_UNSUPPORTED : UMP_ERR_INVALID;
    }
    char id[17];
    make_job_id(rt, ns, id);
    if (job_id && len > 16) snprintf(job_id, len, "%s", id);
    ump_debug("rt: PMIx started namespace %s (job %s)", ns, id);
    return UMP_OK;
}

#else
/* Built without libpmix: rt.c refuses UMP_BOOTSTRAP=pmix with a reason. */
typedef int ump_rt_pmix_unused_t;
#endif /* UMP_HAVE_PMIX */
