/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting ranks. A rank on this machine is fork()+exec()'d with its own
 * process group (so one kill() stops it and its children) and a parent-death
 * signal (so it cannot outlive umprun). A rank elsewhere is started through
 * the rsh agent: `<rsh words> <host> env UMP_JOB_...=... <prog> <args>`;
 * the agent process is then what umprun watches and signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "umprun.h"
#include "util/util.h"

struct strv {
    char **v;
    int n, cap;
};

static void sv_push(struct strv *s, char *str)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 32;
        s->v = realloc(s->v, sizeof(char *) * (size_t)s->cap);
        if (!s->v) {
            fprintf(stderr, "umprun: out of memory\n");
            exit(UMPRUN_EXIT_SETUP);
        }
    }
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        fprintf(stderr, "umprun: out of memory\n");
        exit(UMPRUN_EXIT_SETUP);
    }
    return s;
}

/* Single-quotes a word for the remote shell ssh hands the command to. */
static char *shell_quote(const char *w)
{
    size_t n = 3;
    for (const char *p = w; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q) exit(UMPRUN_EXIT_SETUP);
    *o++ = '\'';
    for (const char *p = w; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4); /* close, escaped quote, reopen */
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* The UMP_JOB_* assignments, then -x ones, then a spawned app's own, as
 * "NAME=value" strings (the last of a name wins, with putenv and env(1)). */
static void job_env(const struct rank *r, struct strv *env)
{
    const struct group *g = r->group;
    sv_push(env, xasprintf("UMP_JOB_ID=%s", g->id));
    sv_push(env, xasprintf("UMP_JOB_SECRET=%s", job.secret_hex));
    sv_push(env, xasprintf("UMP_JOB_KVS=%s", job.kvs_addr));
    sv_push(env, xasprintf("UMP_JOB_RANK=%d", r->rank));
    sv_push(env, xasprintf("UMP_JOB_SIZE=%d", g->n));
    sv_push(env, xasprintf("UMP_JOB_LOCAL_RANK=%d", r->local_rank));
    sv_push(env, xasprintf("UMP_JOB_LOCAL_SIZE=%d", r->local_size));
    sv_push(env, xasprintf("UMP_JOB_NODE_ID=%d", r->node));
    sv_push(env, xasprintf("UMP_JOB_NUM_NODES=%d", g->nnodes));
    if (g->index > 0) { /* the first group's slots are its ranks */
        sv_push(env, xasprintf("UMP_JOB_SLOT=%d", r->slot));
        sv_push(env, xasprintf("UMP_JOB_APPNUM=%d", r->appnum));
        if (g->parent_port[0]) sv_push(env, xasprintf("UMP_JOB_PARENT_PORT=%s", g->parent_port));
    }
    /* MPI_UNIVERSE_SIZE: the slots of the hosts, at least the job's ranks. */
    long universe = 0;
    for (int h = 0; h < job.nhosts; h++)
        universe += job.hosts[h].slots;
    sv_push(env, xasprintf("UMP_JOB_UNIVERSE_SIZE=%ld", universe > job.n ? universe : job.n));
    sv_push(env, xasprintf("UMP_JOB_HOST=%s", r->host->name));
    for (int i = 0; i < job.nxvars; i++) {
        const char *x = job.xvars[i];
        if (strchr(x, '=')) {
            sv_push(env, xasprintf("%s", x));
        } else {
            const char *v = getenv(x);
            if (v) sv_push(env, xasprintf("%s=%s", x, v));
        }
    }
    for (char **e = r->app ? r->app->env : NULL; e && *e; e++)
        sv_push(env, xasprintf("%s", *e));
}

static char *const *rank_argv(const struct rank *r)
{
    return r->app ? r->app->argv : job.argv;
}

static const char *rank_wdir(const struct rank *r)
{
    return r->app && r->app->wdir ? r->app->wdir : job.wdir;
}

static void remote_argv(const struct rank *r, struct strv *env, struct strv *av, struct strv *owned)
{
    char *rsh = strdup(job.rsh), *save = NULL;
    if (!rsh) exit(UMPRUN_EXIT_SETUP);
    sv_push(owned, rsh);
    const char *first = NULL;
    for (char *w = strtok_r(rsh, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (!first) first = w;
        sv_push(av, w);
    }
    const char *base = strrchr(first, '/');
    base = base ? base + 1 : first;
    /* ssh joins its words into one string for the remote shell: quote them.
     * Other agents (ip netns exec, a test wrapper) take a plain argv. */
    bool quote = !strcmp(base, "ssh");
    /* An unreachable host would hold the job for the TCP connect timeout
     * (minutes). Only for ssh itself, found on the PATH (a wrapper given by
     * path may not take ssh's options); options of the user's own --rsh
     * come first and win. */
    if (!strcmp(first, "ssh")) {
        sv_push(av, "-o");
        sv_push(av, "ConnectTimeout=10");
    }
    sv_push(av, r->host->name);
    int quote_from = av->n;
    sv_push(av, "env");
    if (rank_wdir(r)) { /* GNU env's --chdir: no shell needed on the remote side */
        sv_push(av, xasprintf("--chdir=%s", rank_wdir(r)));
        sv_push(owned, av->v[av->n - 1]);
    }
    for (int i = 0; i < env->n; i++)
        sv_push(av, env->v[i]);
    for (char *const *a = rank_argv(r); *a; a++)
        sv_push(av, *a);
    if (quote) {
        for (int i = quote_from; i < av->n; i++) {
            av->v[i] = shell_quote(av->v[i]);
            sv_push(owned, av->v[i]);
        }
    }
}

/* Frees the strings job_env and remote_argv allocated, and the vectors. */
static void free_argv(struct strv *env, struct strv *av, struct strv *owned)
{
    for (int i = 0; i < env->n; i++)
        free(env->v[i]);
    for (int i = 0; i < owned->n; i++)
        free(owned->v[i]);
    free(env->v);
    free(av->v);
    free(owned->v);
}

/* Which CPU rank r is pinned to, or -1 for none. */
static int pick_cpu(const struct rank *r)
{
    cpu_set_t set;
    /* A spawned group's local ranks count from 0 again: pinned like the
     * first group's they would share its ranks' CPUs. */
    if (!r->host->local || job.bind == BIND_NONE || r->group->index > 0 ||
        sched_getaffinity(0, sizeof(set), &set))
        return -1;
    int ncpu = CPU_COUNT(&set);
    if (ncpu <= 0 || (job.bind == BIND_AUTO && r->host->nranks > ncpu))
        return -1; /* oversubscribed: pinning would stack ranks on cores */
    int want = r->local_rank % ncpu;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &set) && want-- == 0) return c;
    }
    return -1;
}

static int spawn_one(struct rank *r, const sigset_t *oldmask, int devnull)
{
    int out[2], err[2], in[2] = {devnull, -1};
    if (io_pipe(&r->out, 1, out) || io_pipe(&r->err, 2, err)) return -1;
    if (r->slot == 0 && job.in_fd >= 0) { /* stdin: the first group's rank 0 */
        if (pipe2(in, O_CLOEXEC)) {
            fprintf(stderr, "umprun: pipe: %s\n", strerror(errno));
            return -1;
        }
        fcntl(in[1], F_SETFL, O_NONBLOCK);
        job.in_pipe = in[1];
    }
    struct strv env = {0}, av = {0}, owned = {0};
    job_env(r, &env);
    char *const *argv = rank_argv(r);
    const char *wdir = rank_wdir(r);
    if (!r->host->local) {
        remote_argv(r, &env, &av, &owned);
        argv = av.v;
    }
    int cpu = pick_cpu(r);
    pid_t parent = getpid();

    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "umprun: fork: %s\n", strerror(errno));
        free_argv(&env, &av, &owned);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* umprun died before the prctl took */
            _exit(127);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        signal(SIGPIPE, SIG_DFL); /* ignored dispositions survive exec */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigprocmask(SIG_SETMASK, oldmask, NULL);
        if (r->host->local) {
            for (int i = 0; i < env.n; i++)
                putenv(env.v[i]);
            java_classpath(argv[0]);
        }
        if (wdir && r->host->local && chdir(wdir)) {
            fprintf(stderr, "umprun: cannot change to %s on %s: %s\n", wdir, r->host->name,
                    strerror(errno));
            _exit(127);
        }
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof(set), &set);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "umprun: cannot run %s on %s: %s\n", argv[0], r->host->name,
                strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with a signal sent right after */
    r->pid = pid;
    r->running = true;
    job.nrunning++;
    r->host->nused++;
    close(out[1]);
    close(err[1]);
    if (in[0] != devnull) close(in[0]);
    free_argv(&env, &av, &owned);
    return 0;
}

static int spawn_ranks(struct rank *ranks, int n)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        fprintf(stderr, "umprun: /dev/null: %s\n", strerror(errno));
        return -1;
    }
    sigset_t cur;
    sigprocmask(SIG_SETMASK, NULL, &cur);
    /* Children start with the mask umprun had before it blocked its signals. */
    sigdelset(&cur, SIGCHLD);
    sigdelset(&cur, SIGINT);
    sigdelset(&cur, SIGTERM);
    sigdelset(&cur, SIGHUP);
    int rc = 0;
    for (int r = 0; r < n && !rc && !job.ending; r++)
        rc = spawn_one(&ranks[r], &cur, devnull);
    close(devnull);
    return rc;
}

int spawn_all(void)
{
    return spawn_ranks(job.ranks, job.n);
}

int spawn_group(struct group *g)
{
    return spawn_ranks(g->ranks, g->n);
}
