/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * umprun: starts N ranks of a program (locally by fork+exec, elsewhere
 * through an rsh agent), and more groups of processes when a rank asks
 * (group.c), serves them the key-value/fence store, forwards their output,
 * and ends the job as soon as any process fails: one line names
 * the rank, its host and pid and why; the others are stopped (SIGTERM, then
 * SIGKILL after a second); the job's shared-memory files are removed; and
 * umprun exits non-zero. No daemon, no leftover process, no hang.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "umprun.h"
#include "util/util.h"

struct job job = {
    .rsh = "ssh",
    .bind = BIND_AUTO,
    .lfd = -1,
    .in_fd = -1,
    .in_pipe = -1,
    .out_jobdir = true,
    .out_copy = true,
};

const char *rank_desc(const struct rank *r, char *buf, size_t len)
{
    int pid = (int)(r->hello && r->rpid > 0 ? r->rpid : r->pid);
    if (r->group && r->group->index > 0)
        snprintf(buf, len, "rank %d of spawned group %d (host %s, pid %d)", r->rank,
                 r->group->index, r->host->name, pid);
    else
        snprintf(buf, len, "rank %d (host %s, pid %d)", r->rank, r->host->name, pid);
    return buf;
}

void job_signal_all(int sig)
{
    for (int s = 0; s < job.nslots; s++) {
        /* Reaped ranks too: their process group may hold children. */
        if (job.slots[s]->pid > 0) kill(-job.slots[s]->pid, sig);
    }
}

static void job_end(int code)
{
    job.ending = true;
    job.exit_code = code;
    job_signal_all(SIGTERM);
    job.kill_deadline = ump_time_ns() + UMPRUN_KILL_GRACE_NS;
    /* Closing the connections also wakes ranks whose agent (ssh) does not
     * pass signals on: their pending fence fails at once. */
    kvs_close_all();
    io_stdin_close();
}

void job_fail(int code, const char *fmt, ...)
{
    if (job.ending) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    io_drain_all(); /* the ranks' output first, then our verdict */
    fprintf(stderr, "umprun: %s; stopping the job\n", msg);
    job_end(code ? code : 1);
}

static const char *signame(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
    return buf;
}

static void on_exit_status(struct rank *r, int st)
{
    char who[160], sn[32];
    r->running = false;
    job.nrunning--;
    job.last_exit = ump_time_ns();
    r->eof_deadline = 0;
    r->host->nused--;
    kvs_drain(r); /* a FINALIZE or ABORT it sent just before exiting */
    /* Its last words (an exec error, an assertion) before our verdict. */
    if (r->out.fd >= 0) io_read(r, &r->out);
    if (r->err.fd >= 0) io_read(r, &r->err);
    if (r->slot == 0) io_stdin_close(); /* the first group's rank 0 */
    if (!job.ending) {
        rank_desc(r, who, sizeof(who));
        if (WIFSIGNALED(st)) {
            int sig = WTERMSIG(st);
            job_fail(128 + sig, "%s was killed by %s", who, signame(sig, sn, sizeof(sn)));
        } else if (WEXITSTATUS(st) == 255 && !r->host->local && !r->hello) {
            /* ssh's own failure status, before the rank ever connected. */
            job_fail(255,
                     "%s: the agent '%s' could not start it on host %s (exit 255: host "
                     "unreachable or login refused); check that '%s %s true' works",
                     who, job.rsh, r->host->name, job.rsh, r->host->name);
        } else if (WEXITSTATUS(st) != 0) {
            job_fail(WEXITSTATUS(st), "%s exited with code %d", who, WEXITSTATUS(st));
        } else if (r->hello && !r->finalized) {
            job_fail(1, "%s exited with code 0 after initializing ump without finalizing", who);
        } else if (!r->hello && r->group->parent_port[0]) {
            /* Its parents wait for it to meet them in MPI_Init: they
             * would wait for ever. */
            job_fail(1,
                     "%s exited with code 0 without initializing MPI: a spawned program must "
                     "call MPI_Init, its parents wait for it in MPI_Comm_spawn",
                     who);
        }
    }
    kvs_rank_gone(r);
}

static void reap(void)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid <= 0) return;
        for (int s = 0; s < job.nslots; s++) {
            if (job.slots[s]->pid == pid && job.slots[s]->running) {
                on_exit_status(job.slots[s], st);
                break;
            }
        }
    }
}

void job_reap(void)
{
    reap();
}

static void on_signal(int sig)
{
    char sn[32];
    if (job.ending) { /* asked twice: no more grace */
        job_signal_all(SIGKILL);
        return;
    }
    io_drain_all();
    fprintf(stderr, "umprun: got %s; passing it to the ranks and stopping the job\n",
            signame(sig, sn, sizeof(sn)));
    job_signal_all(sig);
    job_end(128 + sig);
}

/* Removes /dev/shm/ump-<jobid>*: the shm transport's files, whatever state
 * the ranks died in (of each group: each has its own id). */
static void clean_shm(const char *id)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof(prefix), "ump-%s", id);
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strncmp(e->d_name, prefix, (size_t)n)) {
            if (unlinkat(dirfd(d), e->d_name, 0) == 0 && job.verbose)
                fprintf(stderr, "umprun: removed /dev/shm/%s\n", e->d_name);
        }
    }
    closedir(d);
}

enum slot_kind { SLOT_SIGNAL, SLOT_LISTEN, SLOT_CONN, SLOT_OUT, SLOT_STDIN, SLOT_STDIN_PIPE };
struct slot {
    enum slot_kind kind;
    void *p;
    struct rank *r;
};

static bool pipes_open(void)
{
    for (int s = 0; s < job.nslots; s++) {
        if (job.slots[s]->out.fd >= 0 || job.slots[s]->err.fd >= 0) return true;
    }
    return false;
}

static void event_loop(int sfd)
{
    size_t cap = 0;
    struct pollfd *pfd = NULL;
    struct slot *slots = NULL;
    for (;;) {
        kvs_reap_conns();
        uint64_t now = ump_time_ns();
        if (job.nrunning == 0 && (!pipes_open() || now >= job.last_exit + UMPRUN_DRAIN_NS)) break;

        size_t need = 4 + (size_t)job.nconns + 2 * (size_t)job.nslots;
        if (need > cap) {
            cap = need * 2;
            pfd = realloc(pfd, cap * sizeof(*pfd));
            slots = realloc(slots, cap * sizeof(*slots));
            if (!pfd || !slots) {
                fprintf(stderr, "umprun: out of memory\n");
                job_signal_all(SIGKILL);
                exit(UMPRUN_EXIT_SETUP);
            }
        }
        size_t n = 0;
#define ADD(fd_, ev_, kind_, p_, r_)                                                               \
    do {                                                                                           \
        pfd[n] = (struct pollfd){.fd = (fd_), .events = (ev_)};                                    \
        slots[n++] = (struct slot){(kind_), (p_), (r_)};                                           \
    } while (0)
        ADD(sfd, POLLIN, SLOT_SIGNAL, NULL, NULL);
        if (job.lfd >= 0) ADD(job.lfd, POLLIN, SLOT_LISTEN, NULL, NULL);
        for (int i = 0; i < job.nconns; i++) {
            struct conn *c = job.conns[i];
            ADD(c->fd, POLLIN | (c->out.len > c->out.off ? POLLOUT : 0), SLOT_CONN, c, NULL);
        }
        for (int s = 0; s < job.nslots; s++) {
            struct rank *rk = job.slots[s];
            if (rk->out.fd >= 0) ADD(rk->out.fd, POLLIN, SLOT_OUT, &rk->out, rk);
            if (rk->err.fd >= 0) ADD(rk->err.fd, POLLIN, SLOT_OUT, &rk->err, rk);
        }
        if (job.in_pipe >= 0 && job.in_len == 0 && job.in_fd >= 0)
            ADD(job.in_fd, POLLIN, SLOT_STDIN, NULL, NULL);
        if (job.in_pipe >= 0 && job.in_len > 0)
            ADD(job.in_pipe, POLLOUT, SLOT_STDIN_PIPE, NULL, NULL);
#undef ADD

        uint64_t next = UINT64_MAX;
        if (job.nrunning == 0) next = job.last_exit + UMPRUN_DRAIN_NS;
        if (job.kill_deadline) next = UMP_MIN(next, job.kill_deadline);
        if (job.end_deadline && !job.ending) next = UMP_MIN(next, job.end_deadline);
        kvs_timers(now, &next);
        int tmo = next == UINT64_MAX
                      ? -1
                      : (int)UMP_MIN((next - UMP_MIN(next, now)) / 1000000 + 1, 60000);

        int nready = poll(pfd, n, tmo);
        if (nready < 0 && errno != EINTR) {
            fprintf(stderr, "umprun: poll: %s\n", strerror(errno));
            job_fail(UMPRUN_EXIT_SETUP, "internal error");
        }
        for (size_t i = 0; nready > 0 && i < n; i++) {
            if (!pfd[i].revents) continue;
            switch (slots[i].kind) {
            case SLOT_SIGNAL: {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                    if (si.ssi_signo == SIGCHLD)
                        reap();
                    else
                        on_signal((int)si.ssi_signo);
                }
                reap(); /* SIGCHLDs coalesce: always look */
                break;
            }
            case SLOT_LISTEN:
                if (job.lfd >= 0) kvs_accept();
                break;
            case SLOT_CONN:
                if (!((struct conn *)slots[i].p)->dead) kvs_conn_io(slots[i].p, pfd[i].revents);
                break;
            case SLOT_OUT:
                if (((struct outpipe *)slots[i].p)->fd >= 0) io_read(slots[i].r, slots[i].p);
                break;
            case SLOT_STDIN:
                if (job.in_fd >= 0 && job.in_pipe >= 0) io_stdin_read();
                break;
            case SLOT_STDIN_PIPE:
                if (job.in_pipe >= 0) io_stdin_write();
                break;
            }
        }

        now = ump_time_ns();
        if (job.end_deadline && !job.ending && now >= job.end_deadline) {
            io_drain_all();
            fprintf(stderr, "umprun: job timed out after %g s\n", job.timeout_s);
            job_end(UMPRUN_EXIT_TIMEOUT);
        }
        if (job.kill_deadline && now >= job.kill_deadline) {
            job_signal_all(SIGKILL);
            job.kill_deadline = 0;
        }
    }
    free(pfd);
    free(slots);
}

int main(int argc, char **argv)
{
    if (opts_parse(argc, argv) || hosts_setup()) return UMPRUN_EXIT_USAGE;
    int rc = opts_find_program();
    if (rc) return rc;

    uint8_t id[8];
    if (ump_random_bytes(id, sizeof(id)) ||
        (!job.secret_file && ump_random_bytes(job.secret, sizeof(job.secret)))) {
        fprintf(stderr, "umprun: no random bytes: %s\n", strerror(errno));
        return UMPRUN_EXIT_SETUP;
    }
    if (job.secret_file && secret_load(job.secret_file, job.secret)) return UMPRUN_EXIT_SETUP;
    ump_hex_encode(id, sizeof(id), job.id);
    ump_hex_encode(job.secret, sizeof(job.secret), job.secret_hex);
    if (group_first()) {
        fprintf(stderr, "umprun: out of memory\n");
        return UMPRUN_EXIT_SETUP;
    }

    /* Signals arrive through a signalfd so the loop sees them in order with
     * everything else. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    /* A shell starts background jobs with SIGINT ignored; umprun must still
     * see it to stop the ranks. (An ignored SIGHUP, from nohup, stays so.) */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) {
        fprintf(stderr, "umprun: signalfd: %s\n", strerror(errno));
        return UMPRUN_EXIT_SETUP;
    }
    if (kvs_listen() || io_open_files()) return UMPRUN_EXIT_SETUP;
    if (fcntl(0, F_GETFL) >= 0) job.in_fd = 0;

    uint64_t start = ump_time_ns();
    if (job.timeout_s > 0) job.end_deadline = start + (uint64_t)(job.timeout_s * 1e9);
    if (spawn_all()) job_fail(UMPRUN_EXIT_SETUP, "could not start all ranks");
    if (job.nrunning == 0) job.last_exit = ump_time_ns();
    event_loop(sfd);

    for (int s = 0; s < job.nslots; s++) {
        struct rank *rk = job.slots[s];
        if (rk->out.fd >= 0 || rk->out.buf) io_flush(rk, &rk->out);
        if (rk->err.fd >= 0 || rk->err.buf) io_flush(rk, &rk->err);
    }
    if (job.ending) /* nothing of a failed job may linger */
        job_signal_all(SIGKILL);
    kvs_close_all();
    kvs_reap_conns();
    names_free();
    for (int g = 0; g < job.ngroups; g++)
        clean_shm(job.groups[g]->id);
    group_free_all();
    return job.exit_code;
}
