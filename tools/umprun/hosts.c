/* SPDX-License-Identifier: BSD-3-Clause */
/* Host list parsing and rank placement: ranks fill each host's slots in order. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umprun.h"
#include "util/util.h"

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

/* How many ranks each host gets (cnt[h]), from its slots or -N. */
static int host_counts(int *cnt, bool by_default)
{
    int nh = job.nhosts, total = 0;
    for (int h = 0; h < nh; h++) {
        int s = job.npernode ? job.npernode : job.hosts[h].slots;
        if (s > (1 << 20) - total) {
            fprintf(stderr, "umprun: the hosts give more than %d slots in all\n", 1 << 20);
            return -1;
        }
        total += s;
    }
    if (job.n <= 0) job.n = total;
    if (job.n > total && job.npernode && !job.oversubscribe) {
        fprintf(stderr, "umprun: %d ranks asked for but %d per host on %d host%s make %d\n", job.n,
                job.npernode, nh, nh == 1 ? "" : "s", total);
        return -1;
    }
    if (job.n > total && !by_default && !job.oversubscribe) {
        fprintf(stderr,
                "umprun: %d ranks asked for but the hosts have only %d slots "
                "(--oversubscribe allows it)\n",
                job.n, total);
        return -1;
    }
    /* First within each host's limit: in host order (slot), or one rank
     * per host in turn (node); then, oversubscribing, one more per host in
     * turn until every rank has a place. */
    int left = job.n;
    if (job.map == MAP_SLOT) {
        for (int h = 0; h < nh && left; h++) {
            int lim = job.npernode ? job.npernode : job.hosts[h].slots;
            cnt[h] = UMP_MIN(lim, left);
            left -= cnt[h];
        }
    } else {
        while (left) {
            int placed = 0;
            for (int h = 0; h < nh && left; h++) {
                int lim = job.npernode ? job.npernode : job.hosts[h].slots;
                if (cnt[h] < lim) {
                    cnt[h]++;
                    left--;
                    placed++;
                }
            }
            if (!placed) break;
        }
    }
    for (int h = 0; left; h = (h + 1) % nh) {
        cnt[h]++;
        left--;
    }
    return 0;
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
        if (job.n <= 0 && job.npernode <= 0) {
            fprintf(stderr, "umprun: say how many ranks with -n N\n");
            return -1;
        }
        by_default = true;
        if (add_host("localhost", 9, job.n > 0 ? job.n : job.npernode)) return -1;
    }
    int *cnt = calloc((size_t)job.nhosts, sizeof(int));
    if (!cnt || host_counts(cnt, by_default)) {
        free(cnt);
        return -1;
    }

    job.ranks = calloc((size_t)job.n, sizeof(*job.ranks));
    if (!job.ranks) {
        free(cnt);
        return -1;
    }
    job.all_local = true;
    /* slot: ranks of one host are consecutive; node: dealt round the hosts. */
    int h = 0;
    for (int r = 0; r < job.n; r++) {
        if (job.map == MAP_SLOT) {
            while (job.hosts[h].nranks == cnt[h])
                h++;
        } else {
            while (job.hosts[h].nranks == cnt[h])
                h = (h + 1) % job.nhosts;
        }
        struct rank *rk = &job.ranks[r];
        rk->rank = r;
        rk->host = &job.hosts[h];
        rk->node = h;
        rk->local_rank = job.hosts[h].nranks++;
        rk->out.fd = rk->err.fd = -1;
        rk->out.file = rk->err.file = -1;
        if (job.map == MAP_NODE) h = (h + 1) % job.nhosts;
    }
    free(cnt);
    /* Hosts given but left without ranks do not count as nodes (they are
     * the last ones: both mappings start at the first host). */
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
