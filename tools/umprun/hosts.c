/* SPDX-License-Identifier: BSD-3-Clause */
/* Host list parsing and rank placement: ranks fill each host's slots in order. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umprun.h"

static int add_host(const char *name, size_t nlen, int slots)
{
    if (nlen == 0 || nlen > 253) {
        fprintf(stderr, "umprun: bad host name '%.*s'\n", (int)nlen, name);
        return -1;
    }
    for (int i = 0; i < job.nhosts; i++) {
        if (strlen(job.hosts[i].name) == nlen && !memcmp(job.hosts[i].name, name, nlen)) {
            if (slots > (1 << 20) - job.hosts[i].slots) {
                fprintf(stderr, "umprun: host %.*s is given more than %d slots\n", (int)nlen, name,
                        1 << 20);
                return -1;
            }
            job.hosts[i].slots += slots; /* a repeated host adds slots */
            return 0;
        }
    }
    struct host *h = realloc(job.hosts, sizeof(*h) * (size_t)(job.nhosts + 1));
    if (!h) return -1;
    job.hosts = h;
    h = &job.hosts[job.nhosts++];
    memset(h, 0, sizeof(*h));
    h->name = strndup(name, nlen);
    h->slots = slots;
    return h->name ? 0 : -1;
}

static int parse_slots(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 1 << 20) {
        fprintf(stderr, "umprun: bad slot count '%s' in %s\n", s, what);
        return -1;
    }
    return (int)v;
}

/* "h1:4,h2,h3:2" */
static int parse_hostspec(const char *spec)
{
    char *dup = strdup(spec), *save = NULL;
    int rc = dup ? 0 : -1;
    for (char *tok = dup ? strtok_r(dup, ",", &save) : NULL; tok && !rc;
         tok = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(tok, ':');
        int slots = 1;
        if (colon && (slots = parse_slots(colon + 1, "--host")) < 0) {
            rc = -1;
            break;
        }
        rc = add_host(tok, colon ? (size_t)(colon - tok) : strlen(tok), slots);
    }
    free(dup);
    return rc;
}

/* One host per line: "name", "name:N" or "name slots=N"; '#' starts a comment. */
static int parse_hostfile(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "umprun: cannot open hostfile %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int rc = 0, lineno = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *save = NULL, *name = strtok_r(line, " \t\r\n", &save);
        if (!name) continue;
        int slots = 1;
        char *opt = strtok_r(NULL, " \t\r\n", &save);
        char *colon = strrchr(name, ':');
        if (opt && !strncmp(opt, "slots=", 6)) {
            slots = parse_slots(opt + 6, path);
        } else if (opt) {
            fprintf(stderr, "umprun: %s:%d: unknown word '%s'\n", path, lineno, opt);
            slots = -1;
        } else if (colon) {
            slots = parse_slots(colon + 1, path);
            *colon = '\0';
        }
        rc = slots < 0 ? -1 : add_host(name, strlen(name), slots);
    }
    fclose(f);
    if (!rc && job.nhosts == 0) {
        fprintf(stderr, "umprun: hostfile %s lists no host\n", path);
        rc = -1;
    }
    return rc;
}

static bool is_local(const char *name)
{
    char me[256] = "";
    if (!strcmp(name, "localhost") || !strcmp(name, "127.0.0.1")) return true;
    if (gethostname(me, sizeof(me) - 1) != 0) return false;
    if (!strcmp(name, me)) return true;
    /* "node1" and "node1.example.org" name the same machine */
    size_t n = strcspn(me, ".");
    return strcspn(name, ".") == n && !strncmp(name, me, n) && (!name[n] || !me[n]);
}

int hosts_setup(void)
{
    bool by_default = false;
    if (job.hostfile && job.nhostspecs) {
        fprintf(stderr, "umprun: give --host or --hostfile, not both\n");
        return -1;
    }
    if (job.hostfile && parse_hostfile(job.hostfile)) return -1;
    for (int i = 0; i < job.nhostspecs; i++) {
        if (parse_hostspec(job.hostspecs[i])) return -1;
    }
    if (job.nhosts == 0) {
        if (job.n <= 0) {
            fprintf(stderr, "umprun: say how many ranks with -n N\n");
            return -1;
        }
        by_default = true;
        if (add_host("localhost", 9, job.n)) return -1;
    }
    int total = 0;
    for (int i = 0; i < job.nhosts; i++) {
        if (job.hosts[i].slots > (1 << 20) - total) {
            fprintf(stderr, "umprun: the hosts give more than %d slots in all\n", 1 << 20);
            return -1;
        }
        total += job.hosts[i].slots;
    }
    if (job.n <= 0) job.n = total;
    if (job.n > total && !by_default) {
        fprintf(stderr, "umprun: %d ranks asked for but the hosts have only %d slots\n", job.n,
                total);
        return -1;
    }

    job.ranks = calloc((size_t)job.n, sizeof(*job.ranks));
    if (!job.ranks) return -1;
    job.all_local = true;
    int h = 0;
    for (int r = 0; r < job.n; r++) {
        while (job.hosts[h].nranks == job.hosts[h].slots)
            h++;
        struct rank *rk = &job.ranks[r];
        rk->rank = r;
        rk->host = &job.hosts[h];
        rk->node = h;
        rk->local_rank = job.hosts[h].nranks++;
        rk->out.fd = rk->err.fd = -1;
    }
    /* Hosts given but left without ranks do not count as nodes. */
    while (job.nhosts > 0 && job.hosts[job.nhosts - 1].nranks == 0)
        free(job.hosts[--job.nhosts].name);
    for (int i = 0; i < job.nhosts; i++) {
        job.hosts[i].local = is_local(job.hosts[i].name);
        if (!job.hosts[i].local) job.all_local = false;
    }
    for (int r = 0; r < job.n; r++)
        job.ranks[r].local_size = job.ranks[r].host->nranks;
    return 0;
}
