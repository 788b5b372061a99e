/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output forwarding: each rank's stdout and stderr arrive on pipes and are
 * written to umprun's own by whole lines, so lines of different ranks never
 * mix mid-line (--tag-output prefixes each with "[rank] ", "[group,rank] "
 * for a spawned group's), and to the
 * rank's files under --output-filename. Lines go on as soon as they arrive:
 * the ranks make their stdout line-buffered (src/rt/rt.c), so a line is
 * here when the rank has printed it. stdin goes to rank 0 only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umprun.h"

void io_no_fds(const char *what)
{
    struct rlimit rl;
    long lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (long)rl.rlim_cur : -1;
    fprintf(stderr,
            "umprun: out of file descriptors (%s: %s; the limit is %ld): umprun holds about 4 "
            "per rank, so %d ranks need about %d; raise the limit (ulimit -n %d) or run fewer "
            "ranks\n",
            what, strerror(errno), lim, job.nslots, 4 * job.nslots + 16, 4 * job.nslots + 64);
}

int io_pipe(struct outpipe *p, int dest, int child_fd[2])
{
    if (pipe2(child_fd, O_CLOEXEC)) {
        if (errno == EMFILE || errno == ENFILE)
            io_no_fds("pipe");
        else
            fprintf(stderr, "umprun: pipe: %s\n", strerror(errno));
        return -1;
    }
    p->buf = malloc(UMPRUN_LINE_MAX);
    if (!p->buf) {
        close(child_fd[0]);
        close(child_fd[1]);
        return -1;
    }
    fcntl(child_fd[0], F_SETFL, O_NONBLOCK);
    p->fd = child_fd[0];
    p->dest = dest;
    p->len = 0;
    return 0;
}

/* mkdir -p: every missing directory of path. */
static int make_dirs(char *path)
{
    for (char *s = path + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = '\0';
        int rc = mkdir(path, 0777);
        *s = c;
        if (rc && errno != EEXIST) return -1;
        if (!c) return 0;
    }
}

int io_open_files(void)
{
    return io_open_group(job.groups[0]);
}

int io_open_group(struct group *g)
{
    if (!job.outdir) return 0;
    int width = 1;
    for (int n = g->n - 1; n >= 10; n /= 10)
        width++;
    for (int r = 0; r < g->n; r++) {
        struct rank *rk = &g->ranks[r];
        char dir[PATH_MAX], path[PATH_MAX + 8];
        /* Open MPI's layout: the job number is 1 for the first group, 2.. for
         * the groups spawned later (always: without it they would share the
         * first group's files), ranks zero-filled so listings sort. */
        int n =
            job.out_jobdir || g->index > 0
                ? snprintf(dir, sizeof(dir), "%s/%d/rank.%0*d", job.outdir, g->index + 1, width, r)
                : snprintf(dir, sizeof(dir), "%s/rank.%0*d", job.outdir, width, r);
        if (n < 0 || n >= (int)sizeof(dir)) {
            fprintf(stderr, "umprun: --output-filename: path too long\n");
            return -1;
        }
        if (make_dirs(dir)) {
            fprintf(stderr, "umprun: --output-filename: cannot create %s: %s\n", dir,
                    strerror(errno));
            return -1;
        }
        struct outpipe *ps[2] = {&rk->out, &rk->err};
        static const char *const names[2] = {"stdout", "stderr"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
            ps[i]->file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            if (ps[i]->file < 0) {
                fprintf(stderr, "umprun: --output-filename: cannot create %s: %s\n", path,
                        strerror(errno));
                return -1;
            }
        }
    }
    return 0;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) /* nothing written: retry */
                continue;
            return; /* our stdout is gone (EPIPE): drop the output, keep running */
        }
        p += w;
        n -= (size_t)w;
    }
}

static void emit(struct rank *r, struct outpipe *p, const char *s, size_t n)
{
    if (p->file >= 0) write_all(p->file, s, n);
    if (!job.out_copy) return;
    if (job.tag_output) {
        char tag[32];
        int t = r->group && r->group->index > 0
                    ? snprintf(tag, sizeof(tag), "[%d,%d] ", r->group->index, r->rank)
                    : snprintf(tag, sizeof(tag), "[%d] ", r->rank);
        /* One write() per line keeps the tag and the line together even when
         * umprun's stdout is shared with other writers. */
        char *line = malloc((size_t)t + n);
        if (line) {
            memcpy(line, tag, (size_t)t);
            memcpy(line + t, s, n);
            write_all(p->dest, line, (size_t)t + n);
            free(line);
            return;
        }
        write_all(p->dest, tag, (size_t)t);
    }
    write_all(p->dest, s, n);
}

/* Writes every complete line in the buffer; keeps the partial tail. */
static void emit_lines(struct rank *r, struct outpipe *p)
{
    size_t start = 0;
    for (;;) {
        char *nl = memchr(p->buf + start, '\n', p->len - start);
        if (!nl) break;
        size_t end = (size_t)(nl - p->buf) + 1;
        emit(r, p, p->buf + start, end - start);
        start = end;
    }
    if (start == 0 && p->len == UMPRUN_LINE_MAX) { /* a huge line: pass a piece on */
        emit(r, p, p->buf, p->len);
        if (job.tag_output && job.out_copy) write_all(p->dest, "\n", 1);
        start = p->len;
    }
    memmove(p->buf, p->buf + start, p->len - start);
    p->len -= start;
}

void io_flush(struct rank *r, struct outpipe *p)
{
    if (p->len) {
        emit(r, p, p->buf, p->len);
        if (job.tag_output && job.out_copy) /* keep the next tagged line at a line start */
            write_all(p->dest, "\n", 1);
        p->len = 0;
    }
    if (p->fd >= 0) close(p->fd);
    p->fd = -1;
    if (p->file >= 0) close(p->file);
    p->file = -1;
    free(p->buf);
    p->buf = NULL;
}

/* Reads at most `rounds` buffers' worth; returns early when the pipe is
 * empty (or closed: then the stream is flushed and closed). */
static void read_rounds(struct rank *r, struct outpipe *p, int rounds)
{
    for (int i = 0; i < rounds && p->fd >= 0; i++) {
        ssize_t n = read(p->fd, p->buf + p->len, UMPRUN_LINE_MAX - p->len);
        if (n > 0) {
            p->len += (size_t)n;
            emit_lines(r, p);
            continue;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
        io_flush(r, p); /* EOF or error: the rank closed this stream */
        return;
    }
}

void io_read(struct rank *r, struct outpipe *p)
{
    /* Bounded: a chatty rank must not starve the key-value server. */
    read_rounds(r, p, 16);
}

void io_drain_all(void)
{
    /* What every rank wrote before the event that ends the job is in its
     * pipes now: a rank that aborts flushes its stdio before it tells us,
     * and the others' earlier lines came before the failure. 64 rounds of
     * 64 KiB empty a pipe of any default size, and keep a rank that never
     * stops printing from delaying the verdict for long. */
    for (int s = 0; s < job.nslots; s++) {
        struct rank *rk = job.slots[s];
        if (rk->out.fd >= 0) read_rounds(rk, &rk->out, 64);
        if (rk->err.fd >= 0) read_rounds(rk, &rk->err, 64);
    }
}

void io_stdin_close(void)
{
    if (job.in_pipe >= 0) close(job.in_pipe);
    job.in_pipe = -1;
    if (job.in_fd >= 0 && job.in_fd != 0) close(job.in_fd);
    job.in_fd = -1;
}

void io_stdin_read(void)
{
    ssize_t n = read(job.in_fd, job.in_buf, sizeof(job.in_buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) { /* EOF: rank 0 sees EOF too */
        io_stdin_close();
        return;
    }
    job.in_len = (size_t)n;
    job.in_off = 0;
    io_stdin_write();
}

void io_stdin_write(void)
{
    while (job.in_off < job.in_len) {
        ssize_t w = write(job.in_pipe, job.in_buf + job.in_off, job.in_len - job.in_off);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) /* rank 0 is not reading: poll for POLLOUT */
                return;
            io_stdin_close(); /* rank 0 closed its stdin or exited */
            return;
        }
        job.in_off += (size_t)w;
    }
    job.in_len = job.in_off = 0;
}
