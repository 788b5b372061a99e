/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * umprun.h - the launcher's state, shared by its files:
 *   main.c    the event loop, failure handling, exit status
 *   opts.c    the command line (mpirun's and mpiexec's options), the program
 *   hosts.c   --host / --hostfile parsing, rank placement (--map-by,
 *             --npernode, --oversubscribe), locality
 *   spawn.c   starting ranks (fork+exec locally, the rsh agent remotely)
 *   kvs.c     the key-value/fence server ranks connect to (kvs_proto.h)
 *   io.c      forwarding the ranks' stdout/stderr by whole lines, and stdin
 *   group.c   groups of processes: the first (the command line's ranks) and
 *             those started at run time on a rank's SPAWN request
 *   secret.c  --secret-file: a job secret shared by jobs started apart
 * umprun is single-threaded: one poll() loop drives everything.
 */
#ifndef UMPRUN_H
#define UMPRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rt/kvs_proto.h"
#include "rt/rt.h"

/* Exit statuses of umprun itself (a failing rank's own code wins otherwise). */
#define UMPRUN_EXIT_USAGE   2   /* bad command line */
#define UMPRUN_EXIT_SETUP   1   /* could not start the job */
#define UMPRUN_EXIT_TIMEOUT 124 /* --timeout expired */

#define UMPRUN_LINE_MAX      (64 * 1024)    /* longer lines are forwarded in pieces */
#define UMPRUN_KILL_GRACE_NS 1000000000ull  /* SIGTERM -> SIGKILL */
#define UMPRUN_EOF_GRACE_NS  1000000000ull  /* connection lost -> failure */
#define UMPRUN_HELLO_WAIT_NS 10000000000ull /* unauthenticated connections */
#define UMPRUN_DRAIN_NS      1000000000ull  /* pipes held open after exits */

enum bind_mode { BIND_AUTO, BIND_CORE, BIND_NONE };
enum map_mode { MAP_SLOT, MAP_NODE }; /* fill each host in turn / deal ranks round */

struct host {
    char *name;
    int slots;
    bool local;
    int nranks; /* ranks of the first group placed here */
    int nused;  /* processes of any group running here (spawn placement) */
};

struct outpipe {
    int fd;   /* -1 once closed */
    int dest; /* 1 or 2 */
    int file; /* --output-filename: this stream's file, else -1 */
    size_t len;
    char *buf; /* UMPRUN_LINE_MAX */
};

struct conn;
struct group;

/* One app of a SPAWN request: what its processes run. */
struct app {
    char **argv; /* the program (as found) and its arguments, NULL-terminated */
    char **env;  /* "NAME=VALUE" added to the job's, NULL-terminated */
    char *wdir;  /* NULL: job.wdir */
};

struct rank {
    int rank, node, local_rank, local_size; /* within its group */
    int slot;                               /* index in job.slots: the rank it says hello as */
    int appnum;                             /* its app in a spawn request (0 in the first group) */
    struct group *group;                    /* the start it belongs to */
    const struct app *app;                  /* NULL: the command line's program */
    struct host *host;
    pid_t pid;    /* the forked child (the rank, or its rsh agent) */
    pid_t rpid;   /* pid the rank reported in HELLO (remote pid) */
    bool running; /* not reaped yet */
    bool hello, finalized, fenced, gone;
    struct outpipe out, err;
    struct conn *conn;
    uint64_t eof_deadline; /* connection lost without finalize: fail then */
};

struct conn {
    int fd;
    ump_kvs_buf_t in, out;
    struct rank *rank; /* NULL until the handshake succeeds */
    /* The handshake (kvs_proto.h): set once HELLO was answered. */
    bool challenged;
    uint32_t hello_rank, hello_pid;
    uint8_t nonce_c[UMP_AUTH_NONCE_LEN], nonce_a[UMP_AUTH_NONCE_LEN];
    char peer[64];
    uint64_t hello_deadline;
    bool dead;
};

/* One start of processes: the first group is the command line's ranks;
 * every SPAWN request adds one. Fences are per group. */
struct group {
    int index;          /* 0: the first group */
    char id[17];        /* UMP_JOB_ID of its processes */
    int n, nnodes;      /* its ranks, the hosts they are on */
    struct rank *ranks; /* n; never moved (connections point into it) */
    struct app *apps;
    int napps;
    char *parent_port;   /* "" for none */
    ump_kvs_buf_t epoch; /* PUT entries since the last fence, with ranks */
    uint32_t nepoch;
    int nfenced;
};

struct job {
    /* options */
    int n;
    int npernode;       /* -N: ranks per host, 0: by slots */
    enum map_mode map;  /* --map-by */
    bool oversubscribe; /* more ranks than slots is allowed */
    const char *wdir;   /* -wdir: the ranks' working directory */
    char **hostspecs;   /* --host, may repeat */
    int nhostspecs;
    const char *hostfile;
    const char *rsh;
    enum bind_mode bind;
    bool tag_output;
    const char *outdir; /* --output-filename DIR */
    bool out_jobdir;    /* DIR/1/rank.N (not DIR/rank.N: ":nojobid") */
    bool out_copy;      /* also to umprun's stdout/stderr (not with ":nocopy") */
    double timeout_s;
    const char *secret_file; /* --secret-file: the secret shared with other jobs */
    char **xvars;            /* -x, -genv: "VAR" or "VAR=VAL" */
    int nxvars;
    char **argv; /* program and its arguments */
    bool verbose;

    /* placement */
    struct host *hosts;
    int nhosts;
    struct rank *ranks;
    bool all_local;

    /* identity */
    char id[17];
    uint8_t secret[UMP_RT_SECRET_LEN];
    char secret_hex[2 * UMP_RT_SECRET_LEN + 1];
    char kvs_addr[96]; /* host:port the ranks are told */

    /* kvs server */
    int lfd;
    struct conn **conns;
    int nconns, capconns;
    /* every process of every group, by slot (HELLO's rank) */
    struct group **groups;
    int ngroups;
    struct rank **slots;
    int nslots;

    /* stdin forwarding to rank 0 */
    int in_fd, in_pipe; /* our stdin, the write end of rank 0's stdin */
    char in_buf[4096];
    size_t in_len, in_off;

    /* life */
    int nrunning;
    bool ending; /* failure, timeout or signal: everything is being stopped */
    int exit_code;
    uint64_t kill_deadline, end_deadline, last_exit;
};

extern struct job job;

/* main.c */
/* Ends the job: prints "umprun: <msg>" (once, first failure only), sets the
 * exit status, and stops every rank (SIGTERM, SIGKILL after a grace). */
void job_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Stops every rank's process group with sig. */
void job_signal_all(int sig);
/* Takes the exit status of every rank that exited (without waiting). */
void job_reap(void);
const char *rank_desc(const struct rank *r, char *buf, size_t len);

/* opts.c */
/* Parses the options; the program and its arguments become job.argv.
 * Prints the reason and returns -1 on a bad command line. */
int opts_parse(int argc, char **argv);
/* Finds the program (PATH, then the ranks' directory) once the hosts are
 * known; returns 0, or the exit status for a program that cannot run. */
int opts_find_program(void);
/* The lookup of opts_find_program for `prog` run in `wdir` (NULL: umprun's
 * directory): 0 with *found = a malloc'd full path when the ranks must be
 * given one (else NULL: start it as named), or 126/127 with the reason in
 * why. */
int opts_lookup(const char *prog, const char *wdir, char **found, char *why, size_t whylen);
/* Frees the strings opts_parse made (job.xvars points at them). */
void opts_free(void);

/* secret.c: reads the job secret from path, or makes the file with a
 * fresh one; prints the reason and returns -1 when it cannot. */
int secret_load(const char *path, uint8_t *secret);

/* hosts.c */
int hosts_setup(void);

/* spawn.c */
int spawn_all(void);
/* Starts the processes of a group that started at run time. */
int spawn_group(struct group *g);

/* group.c */
/* Makes job.ranks (hosts_setup) the first group, with id job.id. -1: no memory. */
int group_first(void);
/* A SPAWN request of rank `from`: starts the group or refuses, and appends
 * the SPAWN_ANS frame to out. -1 only when out of memory. */
int group_spawn_request(struct rank *from, ump_kvs_rd_t *rd, ump_kvs_buf_t *out);
/* Frees the groups (the first group's ranks stay job.ranks). */
void group_free_all(void);

/* java.c: in a local rank's child, CLASSPATH for `java` ranks if unset. */
void java_classpath(const char *prog);

/* names.c: the NAME request (kvs_proto.h); appends the answer to out.
 * -1 for a malformed request or no memory. */
int names_request(ump_kvs_rd_t *rd, ump_kvs_buf_t *out);
void names_free(void);

/* kvs.c */
int kvs_listen(void);
void kvs_accept(void);
void kvs_conn_io(struct conn *c, short revents);
/* Reads whatever a rank's connection already holds (before judging its exit). */
void kvs_drain(struct rank *r);
/* A rank left without being able to fence again: fail fences that cannot finish. */
void kvs_rank_gone(struct rank *r);
void kvs_close_all(void);
void kvs_reap_conns(void);
void kvs_timers(uint64_t now, uint64_t *next);

/* io.c */
/* Says that umprun ran out of file descriptors doing `what`, with the limit
 * and the fix (errno is the failure's). */
void io_no_fds(const char *what);
int io_pipe(struct outpipe *p, int dest, int child_fd[2]);
void io_read(struct rank *r, struct outpipe *p);
void io_flush(struct rank *r, struct outpipe *p);
/* Forwards every complete line waiting in any rank's pipes: called before
 * umprun prints a verdict, so what the ranks printed comes first. */
void io_drain_all(void);
/* --output-filename: creates each rank's directory and files (of the first
 * group; io_open_group for one started later). */
int io_open_files(void);
int io_open_group(struct group *g);
void io_stdin_read(void);
void io_stdin_write(void);
void io_stdin_close(void);

#endif /* UMPRUN_H */
