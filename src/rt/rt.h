/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rt.h - the runtime: how a rank learns who it is and meets its peers.
 *
 * Backends: the umprun launcher (a key-value/fence server over TCP,
 * authenticated by the job secret), a singleton (no launcher: a one-rank
 * job) and PMIx (srun --mpi=pmix, mpirun, prterun; built when libpmix is
 * found). UMP_BOOTSTRAP=auto|umprun|pmix picks one; auto takes umprun when
 * UMP_JOB_KVS is set, else PMIx when PMIX_RANK, PMIX_NAMESPACE or a
 * PMIX_SERVER_URI* variable is set, else the singleton. The core and the
 * transports only see this header.
 *
 * Life cycle:
 *   ump_rt_init()        reads the job's facts (rank, size, node) and
 *                        connects to the launcher; tells it "initialized".
 *   ump_rt_put()...      publish this rank's values (transport addresses);
 *   ump_rt_fence()       commit + wait until every rank has fenced; after
 *                        it, every value put before any rank's fence is
 *                        visible to ump_rt_get() on every rank.
 *   ump_rt_fini()        tells the launcher this rank finalized cleanly
 *                        and disconnects.
 *   ump_rt_abort()       asks the launcher to end the whole job.
 *
 * Not thread-safe: the core calls it from init/finalize under its lock.
 */
#ifndef UMP_RT_H
#define UMP_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UMP_RT_SECRET_LEN    16 /* bytes; hex-encoded in the environment */
#define UMP_RT_KEY_MAX       64
#define UMP_RT_VAL_MAX       1024
#define UMP_RT_PORT_NAME_MAX 256 /* a port name and its NUL */

/*
 * Environment umprun gives each rank (all start with UMP_JOB_, which the
 * tunable parser ignores):
 *   UMP_JOB_ID          job identifier, [0-9a-f]{16}; names shm files
 *   UMP_JOB_SECRET      32 hex chars, the per-job secret
 *   UMP_JOB_KVS         host:port of the launcher's key-value server
 *   UMP_JOB_RANK, UMP_JOB_SIZE
 *   UMP_JOB_LOCAL_RANK, UMP_JOB_LOCAL_SIZE   among ranks of the same host
 *   UMP_JOB_NODE_ID, UMP_JOB_NUM_NODES       host index in the host list
 *   UMP_JOB_HOST        host name as given to umprun
 */

typedef struct ump_rt ump_rt_t;

typedef struct ump_rt_info {
    int rank, size;
    int local_rank, local_size; /* among ranks on this node */
    int node_id, num_nodes;
    char job_id[17];                   /* 16 hex digits + NUL */
    uint8_t secret[UMP_RT_SECRET_LEN]; /* per-job secret (random for singletons) */
    char hostname[256];
    const char *backend; /* "umprun", "singleton", "pmix" */
    int appnum;          /* the app of a spawn this process belongs to (0: none) */
    char parent_port[UMP_RT_PORT_NAME_MAX]; /* a spawned group's parent port, else "" */
} ump_rt_info_t;

/* Starts the runtime. With no UMP_JOB_* environment the process becomes a
 * one-rank job. Errors: UMP_ERR_BOOTSTRAP (with a logged reason),
 * UMP_ERR_AUTH (the launcher refused the secret). */
int ump_rt_init(ump_rt_t **rt);
/* Clean: tells the launcher this rank finalized. Frees rt. */
void ump_rt_fini(ump_rt_t *rt);
const ump_rt_info_t *ump_rt_info(const ump_rt_t *rt);
/* Writes the numeric IP address of this host's interface that reaches the
 * launcher ("127.0.0.1" for a singleton or an all-local job) into buf: the
 * address a network transport should publish. Under PMIx (no launcher
 * connection): the first up, non-loopback IPv4 address when the job spans
 * several nodes, else 127.0.0.1. UMP_ERR_NO_RESOURCE if buf is too small. */
int ump_rt_local_addr(const ump_rt_t *rt, char *buf, size_t len);

/* Publishes key=val for this rank (key <= UMP_RT_KEY_MAX-1 chars, val <=
 * UMP_RT_VAL_MAX bytes, binary allowed). Visible to others after the next
 * fence. */
int ump_rt_put(ump_rt_t *rt, const char *key, const void *val, size_t len);
/* Pushes this rank's puts and blocks until every rank has fenced. */
int ump_rt_fence(ump_rt_t *rt);
/* The same, calling idle(arg) every millisecond or so while it waits (idle
 * must not block): a caller whose peers may need its progress to finish
 * (a provider that acknowledges or serves reads only when its owner polls)
 * keeps serving them while the slower ranks arrive. */
typedef void (*ump_rt_idle_fn)(void *arg);
int ump_rt_fence_idle(ump_rt_t *rt, ump_rt_idle_fn idle, void *arg);
/* Reads `key` as published by `rank`. *len is the buffer size on entry and
 * the value length on return. UMP_ERR_INVALID if absent, UMP_ERR_NO_RESOURCE
 * if the buffer is too small. */
int ump_rt_get(ump_rt_t *rt, int rank, const char *key, void *val, size_t *len);
/* Node index of `rank` (ranks with equal node ids share memory). Valid after
 * the first fence. */
int ump_rt_node_of(const ump_rt_t *rt, int rank);
/* Ends the whole job with `code` and `msg`; the launcher prints both with
 * this rank's identity. Does not return. */
void ump_rt_abort(ump_rt_t *rt, int code, const char *msg) __attribute__((noreturn));

/* --- processes of other jobs (rt_peer.c) --------------------------------- */

#define UMP_RT_CARD_MAX 4096 /* largest card ump_rt_card writes */

/* This process's card: its job id, rank and every value it put (its
 * transports' addresses), what a process of another job needs to reach it.
 * UMP_ERR_NO_RESOURCE when len is too small. */
int ump_rt_card(ump_rt_t *rt, void *buf, size_t len, size_t *out);
/* Learns the process a card describes: *peer is its rank when it is of this
 * job, else a peer index past the job's ranks (size, size + 1, ...; the
 * same process keeps its index), whose values ump_rt_get then reads and
 * whose node (ump_rt_node_of) is one of its own. UMP_ERR_PROTOCOL for a
 * malformed card (logged). */
int ump_rt_peer_add(ump_rt_t *rt, const void *card, size_t len, int *peer);
/* The peer index of (job, rank) (job: 16 hex digits, not NUL-terminated),
 * or -1 when unknown. */
int ump_rt_peer_find(const ump_rt_t *rt, const char *job, int rank);
/* The job (16 bytes, not NUL-terminated) and rank of a peer index. */
int ump_rt_peer_name(const ump_rt_t *rt, int peer, char *job, int *rank);
/* The job's ranks and the processes of other jobs added so far. */
int ump_rt_npeers(const ump_rt_t *rt);

/* --- ports and names (dynamic processes; rt_port.c, rt_name.c) ---------- */

#define UMP_RT_SERVICE_MAX 256 /* a published service name and its NUL */

/* Opens a port: a listening socket on this host's address
 * (ump_rt_local_addr), named "ump-port:<ip>:<port>:<nonce>" into name.
 * UMP_ERR_IO (logged) when no socket can be opened, UMP_ERR_NO_RESOURCE when
 * len is too small. The port stays open until ump_rt_port_close or
 * ump_rt_fini. */
int ump_rt_port_open(ump_rt_t *rt, char *name, size_t len);
/* UMP_ERR_INVALID when name is not a port this process has open. */
int ump_rt_port_close(ump_rt_t *rt, const char *name);
/* The meeting of two roots (rt_port.c has the protocol): each proves it
 * knows the job secret, then sends `mine` (mlen bytes) and receives the
 * other's bytes in *theirs (malloc'd, the caller frees; *tlen bytes). While
 * it waits, idle(arg) runs every few milliseconds (the caller's progress),
 * when idle is not NULL.
 * accept: waits for a client on a port this process opened (forever; a
 *   client that fails the handshake is refused, logged, and the wait goes
 *   on). UMP_ERR_INVALID for a port it did not open.
 * connect: connects to the port `name` (within timeout_s seconds for the
 *   connection itself). UMP_ERR_INVALID for a malformed name,
 *   UMP_ERR_PEER_DEAD when nothing listens there, UMP_ERR_AUTH when the
 *   other side is of another job; logged with the reason.
 * join: the same exchange over a connected socket fd (MPI_Comm_join); the
 *   ends are equal, the fd is left open and in its blocking mode. */
int ump_rt_port_accept(ump_rt_t *rt, const char *name, const void *mine, size_t mlen, void **theirs,
                       size_t *tlen, void (*idle)(void *), void *arg);
int ump_rt_port_connect(ump_rt_t *rt, const char *name, const void *mine, size_t mlen,
                        void **theirs, size_t *tlen, int timeout_s, void (*idle)(void *),
                        void *arg);
int ump_rt_join(ump_rt_t *rt, int fd, const void *mine, size_t mlen, void **theirs, size_t *tlen,
                void (*idle)(void *), void *arg);

/* The name service (MPI_Publish_name ...). Under umprun the names live in
 * the launcher, seen by every process of the job; without it (singleton,
 * PMIx) in this process only. publish: UMP_ERR_BUSY when the service is
 * already published. unpublish: UMP_ERR_INVALID when it is not published
 * (or under another port). lookup: UMP_ERR_INVALID when not published,
 * UMP_ERR_NO_RESOURCE when len is too small. UMP_ERR_BOOTSTRAP when the
 * launcher cannot be asked. */
int ump_rt_name_publish(ump_rt_t *rt, const char *service, const char *port);
int ump_rt_name_unpublish(ump_rt_t *rt, const char *service, const char *port);
int ump_rt_name_lookup(ump_rt_t *rt, const char *service, char *port, size_t len);

/* --- starting processes at run time (MPI_Comm_spawn; rt_umprun.c) ------- */

/*
 * umprun starts a new group of processes on request of a running one. A
 * spawned process gets the environment above relative to its own group
 * (UMP_JOB_ID is the group's own id; UMP_JOB_RANK, _SIZE, _LOCAL_RANK,
 * _LOCAL_SIZE, _NODE_ID and _NUM_NODES count within it; the secret and
 * UMP_JOB_KVS are the job's), and:
 *   UMP_JOB_SLOT          its index in umprun's table of every process (the
 *                         rank it says hello as); absent: UMP_JOB_RANK
 *   UMP_JOB_APPNUM        index of its app in the spawn request (info.appnum)
 *   UMP_JOB_PARENT_PORT   the port name the spawner passed, when not empty
 *                         (info.parent_port)
 *   UMP_JOB_UNIVERSE_SIZE as for the first group
 * Fences are per group; the name service is shared by all groups.
 */
typedef struct ump_rt_app {
    const char *cmd;   /* the program: a path, or a name looked up on PATH */
    char *const *argv; /* arguments after cmd, NULL-terminated, may be NULL */
    int maxprocs;      /* how many processes of it */
    char *const *env;  /* "NAME=VALUE" added to theirs, NULL-terminated, may be NULL */
    const char *wdir;  /* NULL: umprun's -wdir or its directory */
    const char *hosts; /* comma list of umprun's hosts; NULL: umprun places them */
} ump_rt_app_t;

/* Asks umprun to start sum(maxprocs) processes of `apps` as one new group,
 * ranks 0.. in app order, told parent_port (NULL or "": none). Returns
 * UMP_OK once they are started, the group's job id (16 hex digits) in
 * job_id (len >= 17); UMP_ERR_INVALID when refused (a missing program, a
 * host umprun does not have, maxprocs 0, the job ending), the reason in why
 * (also logged); UMP_ERR_UNSUPPORTED for a singleton, or under a PMIx
 * server that offers no spawn (Slurm); UMP_ERR_BOOTSTRAP when umprun does
 * not answer within 30 s. Under PMIx the request is PMIx_Spawn (rt_pmix.c:
 * the children get UMP_JOB_APPNUM, UMP_JOB_PARENT_PORT and the parents'
 * secret in UMP_JOB_PARENT_SECRET; a program not found on PATH, or at
 * its path, is refused before). why (whylen bytes) receives a reason for
 * every error; it may be NULL. */
int ump_rt_spawn(ump_rt_t *rt, const ump_rt_app_t *apps, int napps, const char *parent_port,
                 char *job_id, size_t len, char *why, size_t whylen);

/* The backends this build has, space-separated: "umprun singleton pmix"
 * (pmix only when built with libpmix). For ump_info. */
const char *ump_rt_backends(void);

#endif /* UMP_RT_H */
