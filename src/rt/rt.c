/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runtime front: picks the backend from the environment. With UMP_JOB_KVS
 * set the rank talks to umprun (rt_umprun.c); else, when a PMIx server
 * started the process (srun --mpi=pmix, mpirun, prterun), through PMIx
 * (rt_pmix.c); otherwise the process is a one-rank "singleton" job whose
 * key-value store is purely local. UMP_BOOTSTRAP forces the choice.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt/rt_int.h"
#include "util/util.h"

UMP_CFG_ENUM_(rt_cfg_bootstrap, "UMP_BOOTSTRAP", "auto", "auto|umprun|pmix",
              "how ranks find each other: umprun's key-value server (or a one-rank job "
              "without umprun), PMIx, or auto: umprun when UMP_JOB_KVS is set, else PMIx when "
              "a PMIx server started the process");
enum { BOOT_AUTO, BOOT_UMPRUN, BOOT_PMIX };
UMP_CFG(rt_cfg_linebuf, "UMP_RT_LINE_BUFFER", UMP_CFG_BOOL, "1",
        "when a launcher (umprun, PMIx) started the rank and stdout is not a terminal, make "
        "stdout line-buffered so each line reaches the launcher as it is printed");

extern char **environ;

const char *ump_rt_backends(void)
{
#ifdef UMP_HAVE_PMIX
    return "umprun singleton pmix";
#else
    return "umprun singleton";
#endif
}

bool ump_rt_pmix_env(void)
{
    const char *r = getenv("PMIX_RANK"), *ns = getenv("PMIX_NAMESPACE");
    if ((r && *r) || (ns && *ns)) return true;
    /* The server's address comes under a name per PMIx version:
     * PMIX_SERVER_URI, PMIX_SERVER_URI2, PMIX_SERVER_URI21, ... */
    for (char **e = environ; *e; e++) {
        if (!strncmp(*e, "PMIX_SERVER_URI", 15)) return true;
    }
    return false;
}

static int singleton_init(ump_rt_t *rt)
{
    rt->info.rank = 0;
    rt->info.size = 1;
    rt->info.local_rank = 0;
    rt->info.local_size = 1;
    rt->info.node_id = 0;
    rt->info.num_nodes = 1;
    unsigned char id[8];
    if (ump_random_bytes(id, sizeof(id)) || ump_random_bytes(rt->info.secret, UMP_RT_SECRET_LEN)) {
        ump_error("rt: cannot draw random bytes for the job id: %m");
        return UMP_ERR_BOOTSTRAP;
    }
    ump_hex_encode(id, sizeof(id), rt->info.job_id);
    gethostname(rt->info.hostname, sizeof(rt->info.hostname) - 1);
    rt->info.backend = "singleton";
    return UMP_OK;
}

/* srun started this process as one of several tasks but offered no PMIx
 * (no --mpi=pmix and MpiDefault=none): every task would become rank 0 of
 * a one-rank job and never meet the others. Say so instead. */
static bool srun_without_pmix(void)
{
    const char *n = getenv("SLURM_STEP_NUM_TASKS");
    if (rt_cfg_bootstrap.v.e != BOOT_AUTO || !n || atoi(n) <= 1) return false;
    ump_error("rt: srun started %s tasks without PMIx: run them with srun --mpi=pmix (or set "
              "UMP_BOOTSTRAP=umprun to run each as a one-rank job)",
              n);
    return true;
}

static ump_rt_kind_t pick_backend(void)
{
    const char *kvs = getenv("UMP_JOB_KVS");
    bool have_kvs = kvs && *kvs;
    switch (rt_cfg_bootstrap.v.e) {
    case BOOT_UMPRUN:
        return have_kvs ? UMP_RT_UMPRUN : UMP_RT_SINGLETON;
    case BOOT_PMIX:
        return UMP_RT_PMIX;
    default:
        /* umprun first: a job umprun started inside a Slurm step inherits
         * the step's PMIX_* variables, but its ranks belong to umprun. */
        if (have_kvs) return UMP_RT_UMPRUN;
        return ump_rt_pmix_env() ? UMP_RT_PMIX : UMP_RT_SINGLETON;
    }
}

int ump_rt_init(ump_rt_t **out)
{
    ump_rt_t *rt = calloc(1, sizeof(*rt));
    if (!rt) return UMP_ERR_NO_MEMORY;
    rt->fd = -1;
    ump_cfg_load(false);
    rt->kind = pick_backend();
    int rc;
    switch (rt->kind) {
    case UMP_RT_UMPRUN:
        rc = ump_rt_umprun_init(rt);
        break;
    case UMP_RT_PMIX:
#ifdef UMP_HAVE_PMIX
        rc = ump_rt_pmix_init(rt);
#else
        /* N processes each running as rank 0 of 1 would be worse than
         * stopping: say why and how to get either behaviour. */
        ump_error("rt: %s, but this ump was built without PMIx support (install libpmix-dev "
                  "and rebuild); set UMP_BOOTSTRAP=umprun to run as a one-rank job",
                  rt_cfg_bootstrap.v.e == BOOT_PMIX ? "UMP_BOOTSTRAP=pmix"
                                                    : "a PMIx launcher started this process");
        rc = UMP_ERR_BOOTSTRAP;
#endif
        break;
    default:
        rc = srun_without_pmix() ? UMP_ERR_BOOTSTRAP : singleton_init(rt);
        break;
    }
    if (rc) {
        ump_rt_store_fini(&rt->store);
        ump_kvs_buf_free(&rt->pending);
        free(rt);
        return rc;
    }
    ump_log_set_rank(rt->info.rank);
    /* A launcher's pipe would make stdout fully buffered: lines would show
     * up in 4 KiB lumps, late, and be lost when the rank is killed. Line
     * buffering costs a write() per line; umprun forwards whole lines anyway.
     * (umprun could give each rank a pseudo-terminal instead, which also
     * covers programs that bypass C stdio, but only for local ranks, with
     * stdout and stderr merged or two terminals per rank, and with isatty()
     * lying to the program: docs/umprun.md, "Output and input".) */
    if (rt->kind != UMP_RT_SINGLETON && rt_cfg_linebuf.v.b && !isatty(STDOUT_FILENO)) {
        fflush(stdout);
        setvbuf(stdout, NULL, _IOLBF, 0);
    }
    *out = rt;
    return UMP_OK;
}

void ump_rt_fini(ump_rt_t *rt)
{
    if (!rt) return;
    ump_rt_ports_fini(rt);
    ump_rt_names_fini(rt);
    if (rt->fd >= 0) ump_rt_umprun_fini(rt);
#ifdef UMP_HAVE_PMIX
    if (rt->kind == UMP_RT_PMIX) ump_rt_pmix_fini(rt);
#endif
    ump_rt_store_fini(&rt->store);
    ump_kvs_buf_free(&rt->pending);
    free(rt->node_of);
    free(rt->dyn);
    free(rt);
}

const ump_rt_info_t *ump_rt_info(const ump_rt_t *rt)
{
    return &rt->info;
}

int ump_rt_local_addr(const ump_rt_t *rt, char *buf, size_t len)
{
    const char *ip = rt->local_ip[0] ? rt->local_ip : "127.0.0.1";
    char tmp[INET6_ADDRSTRLEN];
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (rt->fd >= 0 && getsockname(rt->fd, (struct sockaddr *)&ss, &sl) == 0) {
        const void *a = NULL;
        if (ss.ss_family == AF_INET)
            a = &((struct sockaddr_in *)&ss)->sin_addr;
        else if (ss.ss_family == AF_INET6)
            a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
        if (a && inet_ntop(ss.ss_family, a, tmp, sizeof(tmp))) ip = tmp;
    }
    if (strlen(ip) >= len) return UMP_ERR_NO_RESOURCE;
    strcpy(buf, ip);
    return UMP_OK;
}

int ump_rt_put(ump_rt_t *rt, const char *key, const void *val, size_t len)
{
    size_t klen = key ? strlen(key) : 0;
    if (klen == 0 || klen >= UMP_RT_KEY_MAX || len > UMP_RT_VAL_MAX || (len && !val))
        return UMP_ERR_INVALID;
    /* Our own puts are readable at once; peers see them after the fence. */
    int rc = ump_rt_store_set(&rt->store, rt->info.rank, key, klen, val, len);
#ifdef UMP_HAVE_PMIX
    if (!rc && rt->kind == UMP_RT_PMIX) return ump_rt_pmix_put(rt, key, val, len);
#endif
    if (rc || rt->fd < 0) return rc;
    ump_kvs_put_u8(&rt->pending, (uint8_t)klen);
    ump_kvs_put_bytes(&rt->pending, key, klen);
    ump_kvs_put_u32(&rt->pending, (uint32_t)len);
    ump_kvs_put_bytes(&rt->pending, val, len);
    if (rt->pending.oom) return UMP_ERR_NO_MEMORY;
    rt->npending++;
    return UMP_OK;
}

int ump_rt_fence_idle(ump_rt_t *rt, ump_rt_idle_fn idle, void *arg)
{
#ifdef UMP_HAVE_PMIX
    if (rt->kind == UMP_RT_PMIX) return ump_rt_pmix_fence(rt, idle, arg);
#endif
    return rt->fd >= 0 ? ump_rt_umprun_fence(rt, idle, arg) : UMP_OK;
}

int ump_rt_fence(ump_rt_t *rt)
{
    return ump_rt_fence_idle(rt, NULL, NULL);
}

int ump_rt_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len)
{
    if (!key || rank < 0 || rank >= ump_rt_npeers(rt)) return UMP_ERR_INVALID;
    const ump_rt_kv_t *kv = ump_rt_store_find(&rt->store, rank, key);
#ifdef UMP_HAVE_PMIX
    /* PMIx keeps the peers' values; our own are in the local store. */
    if (!kv && rt->kind == UMP_RT_PMIX && rank != rt->info.rank && rank < rt->info.size)
        return ump_rt_pmix_get(rt, rank, key, val, len);
#endif
    if (!kv) return UMP_ERR_INVALID;
    if (kv->len > *len) {
        *len = kv->len;
        return UMP_ERR_NO_RESOURCE;
    }
    if (kv->len) memcpy(val, kv->val, kv->len);
    *len = kv->len;
    return UMP_OK;
}

int ump_rt_node_of(const ump_rt_t *rt, int rank)
{
    if (rank < 0 || rank >= ump_rt_npeers(rt)) return UMP_ERR_RANK;
    /* A process of another job shares no memory with this one as far as
     * the transports go (shm reaches the ranks of one job): a node of its
     * own, numbered past this job's. */
    if (rank >= rt->info.size) return rt->info.num_nodes + (rank - rt->info.size);
    if (!rt->node_of) /* singleton, or before the first fence */
        return rank == rt->info.rank ? rt->info.node_id : 0;
    return rt->node_of[rank];
}

void ump_rt_abort(ump_rt_t *rt, int code, const char *msg)
{
    /* _exit() drops stdio buffers: what the rank printed goes out before the
     * launcher hears of the abort, so it is shown before the verdict. */
    fflush(NULL);
    if (rt && rt->fd >= 0) ump_rt_umprun_abort(rt, code, msg);
#ifdef UMP_HAVE_PMIX
    if (rt && rt->kind == UMP_RT_PMIX) ump_rt_pmix_abort(rt, code, msg);
#endif
    fprintf(stderr, "ump: rank %d aborted the job (code %d): %s\n", rt ? rt->info.rank : 0, code,
            msg ? msg : "");
    _exit(code ? code : 1);
}

#ifdef UMP_HAVE_PMIX
/* Whether cmd runs: a path (relative to wdir when given), or a name on PATH. */
static bool program_found(const char *cmd, const char *wdir)
{
    char path[4096];
    if (strchr(cmd, '/')) {
        if (cmd[0] != '/' && wdir)
            snprintf(path, sizeof(path), "%s/%s", wdir, cmd);
        else
            snprintf(path, sizeof(path), "%s", cmd);
        return access(path, X_OK) == 0;
    }
    const char *p = getenv("PATH");
    while (p && *p) {
        const char *colon = strchr(p, ':');
        int n = colon ? (int)(colon - p) : (int)strlen(p);
        snprintf(path, sizeof(path), "%.*s/%s", n ? n : 1, n ? p : ".", cmd);
        if (access(path, X_OK) == 0) return true;
        p = colon ? colon + 1 : NULL;
    }
    return false;
}
#endif

int ump_rt_spawn(ump_rt_t *rt, const ump_rt_app_t *apps, int napps, const char *parent_port,
                 char *job_id, size_t len, char *why, size_t whylen)
{
    char none[1];
    if (!why || whylen == 0) { /* the caller wants no reason: logged anyway */
        why = none;
        whylen = sizeof(none);
    }
    why[0] = '\0';
#ifdef UMP_HAVE_PMIX
    if (rt->kind == UMP_RT_PMIX) {
        /* The server answers a missing program by failing the whole job (or
         * not at all): refuse it here, as umprun would. */
        for (int i = 0; i < napps; i++) {
            if (!program_found(apps[i].cmd, apps[i].wdir)) {
                snprintf(why, whylen, "app %d: cannot find program '%s' (PATH%s%s)", i, apps[i].cmd,
                         apps[i].wdir ? ", then " : "", apps[i].wdir ? apps[i].wdir : "");
                ump_error("rt: %s", why);
                return UMP_ERR_INVALID;
            }
        }
        return ump_rt_pmix_spawn(rt, apps, napps, parent_port, job_id, len, why, whylen);
    }
#endif
    if (rt->fd < 0) {
        /* A singleton has nobody to ask. */
        snprintf(why, whylen,
                 "start the program with umprun (or a PMIx launcher that spawns, such as "
                 "mpirun) to spawn processes (this process runs under %s)",
                 rt->info.backend);
        return UMP_ERR_UNSUPPORTED;
    }
    return ump_rt_umprun_spawn(rt, apps, napps, parent_port, job_id, len, why, whylen);
}
