/* SPDX-License-Identifier: BSD-3-Clause */
/* rt_int.h - shared between the runtime front (rt.c) and its backends. */
#ifndef UMP_RT_INT_H
#define UMP_RT_INT_H

#include "rt/kvs_proto.h"
#include "rt/rt.h"

/* The local copy of the key-value space: (rank, key) -> value. Chained
 * hash; it only grows during init, so it never shrinks or rehashes down. */
typedef struct ump_rt_kv {
    struct ump_rt_kv *next;
    int rank;
    size_t len;
    char key[UMP_RT_KEY_MAX];
    unsigned char val[];
} ump_rt_kv_t;

typedef struct ump_rt_store {
    ump_rt_kv_t **buckets;
    size_t nbuckets, count;
} ump_rt_store_t;

/* Inserts or replaces. key is klen bytes (not NUL-terminated). */
int ump_rt_store_set(ump_rt_store_t *s, int rank, const char *key, size_t klen, const void *val,
                     size_t len);
const ump_rt_kv_t *ump_rt_store_find(const ump_rt_store_t *s, int rank, const char *key);
/* Calls fn(arg, kv) for every value `rank` put (in no particular order). */
void ump_rt_store_each(const ump_rt_store_t *s, int rank, void (*fn)(void *, const ump_rt_kv_t *),
                       void *arg);
void ump_rt_store_fini(ump_rt_store_t *s);

typedef enum { UMP_RT_SINGLETON, UMP_RT_UMPRUN, UMP_RT_PMIX } ump_rt_kind_t;

struct ump_rt_pmix; /* rt_pmix.c */
struct ump_rt_port; /* rt_port.c */
struct ump_rt_name; /* rt_name.c */

struct ump_rt {
    ump_rt_kind_t kind;
    ump_rt_info_t info;
    ump_rt_store_t store;
    int *node_of;          /* per rank; NULL until the first fence (umprun) */
    int fd;                /* connection to umprun; -1 for the singleton */
    bool lost;             /* the connection failed: umprun is gone or ending the job */
    ump_kvs_buf_t pending; /* PUT entries not yet sent */
    uint32_t npending;
    struct ump_rt_pmix *pmix;  /* PMIx backend state */
    char local_ip[64];         /* PMIx: what ump_rt_local_addr reports */
    struct ump_rt_port *ports; /* open ports (rt_port.c) */
    struct ump_rt_name *names; /* published names without umprun (rt_name.c) */
    struct ump_rt_dyn {        /* processes of other jobs (rt_peer.c), by peer index - size */
        char job[16];
        int rank;
    } * dyn;
    int ndyn, capdyn;
};

/* umprun backend (rt_umprun.c). init fills rt->info from UMP_JOB_* and
 * connects; the rest mirror the public calls. */
int ump_rt_umprun_init(ump_rt_t *rt);
void ump_rt_umprun_fini(ump_rt_t *rt);
int ump_rt_umprun_fence(ump_rt_t *rt, ump_rt_idle_fn idle, void *arg);
/* Returns only when the launcher cannot be told. */
void ump_rt_umprun_abort(ump_rt_t *rt, int code, const char *msg);

/* Closes every port (ump_rt_fini). */
void ump_rt_ports_fini(ump_rt_t *rt);
/* Forgets the local names (ump_rt_fini). */
void ump_rt_names_fini(ump_rt_t *rt);
/* The launcher's name service: op is UMP_KVS_NAME_PUBLISH, _UNPUBLISH or
 * _LOOKUP (kvs_proto.h); out (len bytes) receives a looked-up port. Result
 * as ump_rt_name_*. */
int ump_rt_umprun_name(ump_rt_t *rt, int op, const char *service, const char *port, char *out,
                       size_t len);
/* The SPAWN request (kvs_proto.h); contract of ump_rt_spawn, why non-NULL. */
int ump_rt_umprun_spawn(ump_rt_t *rt, const ump_rt_app_t *apps, int napps, const char *parent_port,
                        char *job_id, size_t len, char *why, size_t whylen);

/* True when the environment says a PMIx server started this process
 * (PMIX_RANK, PMIX_NAMESPACE or PMIX_SERVER_URI* set). */
bool ump_rt_pmix_env(void);

#ifdef UMP_HAVE_PMIX
/* PMIx backend (rt_pmix.c). init does PMIx_Init, reads the job's facts and
 * runs one fence of its own, so the secret, the job id and every rank's
 * node are known when it returns; put/get go straight to PMIx (keys get an
 * "ump." prefix). */
int ump_rt_pmix_init(ump_rt_t *rt);
void ump_rt_pmix_fini(ump_rt_t *rt);
int ump_rt_pmix_put(ump_rt_t *rt, const char *key, const void *val, size_t len);
int ump_rt_pmix_fence(ump_rt_t *rt, ump_rt_idle_fn idle, void *arg);
/* Reads a peer's key; same contract as ump_rt_get. */
int ump_rt_pmix_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len);
/* PMIx_Spawn of apps (rt.h's ump_rt_spawn; the programs were found). */
int ump_rt_pmix_spawn(ump_rt_t *rt, const ump_rt_app_t *apps, int napps, const char *parent_port,
                      char *job_id, size_t len, char *why, size_t whylen);
/* Prints the message, asks PMIx to end the job, exits. */
void ump_rt_pmix_abort(ump_rt_t *rt, int code, const char *msg) __attribute__((noreturn));
#endif

#endif /* UMP_RT_INT_H */
