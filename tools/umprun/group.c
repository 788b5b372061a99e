/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Groups of processes. The first group is the command line's ranks; a rank's
 * SPAWN request (kvs_proto.h, behind MPI_Comm_spawn) starts another while the
 * job runs: its own job id and ranks 0..n-1, the job's secret and key-value
 * server, placed on umprun's hosts. Every process of every group has a slot
 * in job.slots, the rank it says hello as. A request is checked whole before
 * anything starts: a bad one is refused with the reason and nothing else
 * happens; once its processes run, they belong to the job like the first
 * group's (a failure of one ends the job).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umprun.h"
#include "util/util.h"

/* Adds g's ranks to the slot table; -1 when out of memory. */
static int add_group(struct group *g)
{
    struct group **gs = realloc(job.groups, sizeof(*gs) * (size_t)(job.ngroups + 1));
    if (!gs) return -1;
    job.groups = gs;
    struct rank **ss = realloc(job.slots, sizeof(*ss) * (size_t)(job.nslots + g->n));
    if (!ss) return -1;
    job.slots = ss;
    g->index = job.ngroups;
    job.groups[job.ngroups++] = g;
    for (int r = 0; r < g->n; r++) {
        g->ranks[r].group = g;
        g->ranks[r].slot = job.nslots;
        job.slots[job.nslots++] = &g->ranks[r];
    }
    return 0;
}

int group_first(void)
{
    struct group *g = calloc(1, sizeof(*g));
    if (!g || !(g->parent_port = strdup(""))) {
        free(g);
        return -1;
    }
    memcpy(g->id, job.id, sizeof(g->id));
    g->n = job.n;
    g->nnodes = job.nhosts;
    g->ranks = job.ranks;
    if (add_group(g)) {
        free(g->parent_port);
        free(g);
        return -1;
    }
    return 0;
}

static void free_strv(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

static void free_group(struct group *g)
{
    for (int a = 0; a < g->napps; a++) {
        free_strv(g->apps[a].argv);
        free_strv(g->apps[a].env);
        free(g->apps[a].wdir);
    }
    free(g->apps);
    if (g->index > 0) free(g->ranks); /* the first group's are job.ranks */
    free(g->parent_port);
    ump_kvs_buf_free(&g->epoch);
    free(g);
}

void group_free_all(void)
{
    for (int i = 0; i < job.ngroups; i++)
        free_group(job.groups[i]);
    free(job.groups);
    free(job.slots);
    job.groups = NULL;
    job.slots = NULL;
    job.ngroups = job.nslots = 0;
}

/* One app of a request as read, before it is checked. */
struct req_app {
    uint32_t maxprocs;
    char *hosts;
    int *host_ok; /* job.nhosts flags: the hosts it may use */
};

/* Reads u32 len + bytes as a C string (no NUL inside, at most max bytes).
 * NULL with *why set for a bad one; a NULL return without why is no memory. */
static char *get_str(ump_kvs_rd_t *rd, uint32_t max, const char **why)
{
    uint32_t n = ump_kvs_get_u32(rd);
    if (rd->bad || n > max || n > rd->len - rd->off) {
        *why = "a length past the end of the request or over the limit";
        rd->bad = true;
        return NULL;
    }
    const char *p = ump_kvs_get_bytes(rd, n);
    if (n && memchr(p, '\0', n)) {
        *why = "a string with a NUL byte";
        rd->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (s) {
        if (n) memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* Reads `count` (already read, checked <= max) strings into a NULL-ended
 * vector; NULL as get_str. */
static char **get_strv(ump_kvs_rd_t *rd, uint32_t count, const char **why)
{
    /* Each string takes at least its 4-byte length: a count the frame
     * cannot hold is refused before the vector is allocated. */
    if (count > (rd->len - rd->off) / 4) {
        *why = "a count past the end of the request";
        rd->bad = true;
        return NULL;
    }
    char **v = calloc((size_t)count + 1, sizeof(char *));
    for (uint32_t i = 0; v && i < count; i++) {
        if (!(v[i] = get_str(rd, UMP_KVS_SPAWN_MAX_STR, why))) {
            free_strv(v);
            return NULL;
        }
    }
    return v;
}

/* The reason goes back over the wire as one line. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

/* Marks in ok[] the hosts of a comma list; the reason when one is not ours. */
static int parse_hosts(const char *list, int *ok, char *why, size_t whylen)
{
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int h = 0;
        while (h < job.nhosts &&
               !(strlen(job.hosts[h].name) == n && !strncmp(job.hosts[h].name, p, n)))
            h++;
        if (n == 0 || h == job.nhosts) {
            snprintf(why, whylen, "host '%.*s' is not one of umprun's hosts", (int)UMP_MIN(n, 256),
                     p);
            return -1;
        }
        ok[h] = 1;
        p += n;
        p += *p == ',';
    }
    return 0;
}

/* Places `n` processes of one app: the first of its hosts (in host order)
 * with a free slot, counting what runs there and what this request placed
 * already; when all are full, the least overloaded one (so they go round
 * the hosts). used[] is updated. */
static int place_one(const int *ok, int *used)
{
    int best = -1;
    for (int h = 0; h < job.nhosts; h++) {
        if (!ok[h]) continue;
        if (used[h] < job.hosts[h].slots) {
            best = h;
            break;
        }
        if (best < 0 || used[h] - job.hosts[h].slots < used[best] - job.hosts[best].slots) best = h;
    }
    used[best]++;
    return best;
}

/* Builds the group of a checked request: ranks placed in app order. */
static struct group *build(struct req_app *ra, struct app *apps, int napps, int total, char *port)
{
    struct group *g = calloc(1, sizeof(*g));
    int *used = calloc((size_t)job.nhosts, sizeof(int));
    int *count = calloc((size_t)job.nhosts, sizeof(int)); /* this group's ranks per host */
    int *node = calloc((size_t)job.nhosts, sizeof(int));
    uint8_t id[8];
    if (!g || !used || !count || !node ||
        !(g->ranks = calloc((size_t)total, sizeof(struct rank))) ||
        ump_random_bytes(id, sizeof(id))) {
        if (g) free(g->ranks);
        free(g);
        free(used);
        free(count);
        free(node);
        return NULL;
    }
    ump_hex_encode(id, sizeof(id), g->id);
    g->index = job.ngroups; /* what add_group gives it: its files' names use it */
    g->n = total;
    g->apps = apps;
    g->napps = napps;
    g->parent_port = port;
    for (int h = 0; h < job.nhosts; h++)
        used[h] = job.hosts[h].nused;
    int r = 0;
    for (int a = 0; a < napps; a++) {
        for (uint32_t k = 0; k < ra[a].maxprocs; k++, r++) {
            int h = place_one(ra[a].host_ok, used);
            struct rank *rk = &g->ranks[r];
            rk->rank = r;
            rk->appnum = a;
            rk->app = &apps[a];
            rk->host = &job.hosts[h];
            rk->local_rank = count[h]++;
            rk->out.fd = rk->err.fd = -1;
            rk->out.file = rk->err.file = -1;
        }
    }
    for (r = 0; r < total; r++)
        g->ranks[r].local_size = count[g->ranks[r].host - job.hosts];
    /* Node ids: the hosts this group uses, in host order. */
    for (int h = 0; h < job.nhosts; h++)
        node[h] = count[h] ? g->nnodes++ : -1;
    for (r = 0; r < total; r++)
        g->ranks[r].node = node[g->ranks[r].host - job.hosts];
    free(used);
    free(count);
    free(node);
    return g;
}

static void answer(ump_kvs_buf_t *out, uint8_t status, const char *text)
{
    size_t f = ump_kvs_frame_begin(out, UMP_KVS_SPAWN_ANS);
    ump_kvs_put_u8(out, status);
    ump_kvs_put_u32(out, (uint32_t)strlen(text));
    ump_kvs_put_bytes(out, text, strlen(text));
    ump_kvs_frame_end(out, f);
}

/* Checks one app's fields and program (the whole request is read first).
 * 0, or -1 with the reason. */
static int check_app(int a, struct req_app *ra, struct app *ap, char *why, size_t whylen)
{
    if (ra->maxprocs == 0) {
        snprintf(why, whylen, "app %d: maxprocs 0", a);
        return -1;
    }
    if (!ap->argv[0][0]) {
        snprintf(why, whylen, "app %d: no command", a);
        return -1;
    }
    for (char **e = ap->env; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e) {
            snprintf(why, whylen, "app %d: environment entry '%.256s' is not NAME=VALUE", a, *e);
            return -1;
        }
    }
    char sub[1024];
    if (ra->hosts[0]) {
        if (parse_hosts(ra->hosts, ra->host_ok, sub, sizeof(sub))) {
            snprintf(why, whylen, "app %d: %s", a, sub);
            return -1;
        }
    } else {
        for (int h = 0; h < job.nhosts; h++)
            ra->host_ok[h] = 1;
    }
    const char *wdir = ap->wdir ? ap->wdir : job.wdir;
    struct stat st;
    if (ap->wdir && job.all_local) {
        const char *e = stat(ap->wdir, &st)    ? strerror(errno)
                        : !S_ISDIR(st.st_mode) ? "not a directory"
                                               : NULL;
        if (e) {
            snprintf(why, whylen, "app %d: wdir '%.1024s': %s", a, ap->wdir, e);
            return -1;
        }
    }
    char *found = NULL, lwhy[3 * 1024];
    if (opts_lookup(ap->argv[0], wdir, &found, lwhy, sizeof(lwhy))) {
        snprintf(why, whylen, "app %d: %s", a, lwhy);
        return -1;
    }
    if (found) {
        free(ap->argv[0]);
        ap->argv[0] = found;
    }
    return 0;
}

int group_spawn_request(struct rank *from, ump_kvs_rd_t *rd, ump_kvs_buf_t *out)
{
    char why[4096] = "", who[160];
    const char *bad = NULL;
    struct req_app *ra = NULL;
    struct app *apps = NULL;
    char *port = NULL;
    int rc = 0;
    uint32_t napps = ump_kvs_get_u32(rd), total = 0;

    /* Read it all (every length checked against the frame), then judge. */
    if (rd->bad || napps == 0 || napps > UMP_KVS_SPAWN_MAX_APPS) {
        bad = rd->bad ? "no app count" : "an app count out of range";
        goto refuse;
    }
    ra = calloc(napps, sizeof(*ra));
    apps = calloc(napps, sizeof(*apps));
    if (!ra || !apps) goto nomem;
    for (uint32_t a = 0; a < napps; a++) {
        ra[a].maxprocs = ump_kvs_get_u32(rd);
        uint32_t argc = ump_kvs_get_u32(rd);
        if (rd->bad || argc == 0 || argc > UMP_KVS_SPAWN_MAX_WORDS) {
            bad = "an argument count out of range";
            goto refuse;
        }
        if (!(apps[a].argv = get_strv(rd, argc, &bad))) goto fail_read;
        uint32_t nenv = ump_kvs_get_u32(rd);
        if (rd->bad || nenv > UMP_KVS_SPAWN_MAX_WORDS) {
            bad = "an environment count out of range";
            goto refuse;
        }
        if (!(apps[a].env = get_strv(rd, nenv, &bad))) goto fail_read;
        if (!(apps[a].wdir = get_str(rd, UMP_KVS_SPAWN_MAX_STR, &bad))) goto fail_read;
        if (!apps[a].wdir[0]) { /* empty: umprun's */
            free(apps[a].wdir);
            apps[a].wdir = NULL;
        }
        if (!(ra[a].hosts = get_str(rd, UMP_KVS_SPAWN_MAX_STR, &bad))) goto fail_read;
        if (!(ra[a].host_ok = calloc((size_t)job.nhosts + 1, sizeof(int)))) goto nomem;
    }
    if (!(port = get_str(rd, UMP_KVS_SPAWN_MAX_STR, &bad))) goto fail_read;
    if (rd->off != rd->len) {
        bad = "bytes after the end of the request";
        goto refuse;
    }

    if (job.ending) {
        snprintf(why, sizeof(why), "the job is ending");
        goto refuse;
    }
    if (strlen(port) >= UMP_RT_PORT_NAME_MAX) {
        snprintf(why, sizeof(why), "the parent port name is longer than %d bytes",
                 UMP_RT_PORT_NAME_MAX - 1);
        goto refuse;
    }
    for (uint32_t a = 0; a < napps; a++) {
        if (ra[a].maxprocs > UMP_KVS_SPAWN_MAX_PROCS - total) {
            snprintf(why, sizeof(why), "more than %u processes asked for at once",
                     UMP_KVS_SPAWN_MAX_PROCS);
            goto refuse;
        }
        total += ra[a].maxprocs;
        if (check_app((int)a, &ra[a], &apps[a], why, sizeof(why))) goto refuse;
    }
    if (job.nhosts == 0) { /* (only in the fuzz harness, which must not fork) */
        snprintf(why, sizeof(why), "umprun has no hosts to place processes on");
        goto refuse;
    }
    if (total > (uint32_t)((1 << 20) - job.nslots)) {
        snprintf(why, sizeof(why), "umprun runs %d processes already", job.nslots);
        goto refuse;
    }

    struct group *g = build(ra, apps, (int)napps, (int)total, port);
    if (!g) goto nomem;
    apps = NULL; /* the group's now */
    port = NULL;
    if (io_open_group(g)) { /* the reason is printed */
        snprintf(why, sizeof(why), "cannot create the output files of the new processes");
        for (int r = 0; r < g->n; r++) {
            if (g->ranks[r].out.file >= 0) close(g->ranks[r].out.file);
            if (g->ranks[r].err.file >= 0) close(g->ranks[r].err.file);
        }
        free_group(g);
        goto refuse;
    }
    if (add_group(g)) {
        free_group(g);
        goto nomem;
    }
    if (job.verbose)
        fprintf(stderr, "umprun: %s spawned group %d (job %s): %d process%s of %s\n",
                rank_desc(from, who, sizeof(who)), g->index, g->id, g->n, g->n == 1 ? "" : "es",
                g->apps[0].argv[0]);
    if (spawn_group(g)) {
        job_fail(UMPRUN_EXIT_SETUP, "could not start all processes of spawned group %d", g->index);
        snprintf(why, sizeof(why), "umprun could not start the processes");
        goto refuse;
    }
    answer(out, UMP_KVS_SPAWN_STARTED, g->id);
    goto out;

fail_read:
    if (!bad) goto nomem;
refuse:
    if (bad) snprintf(why, sizeof(why), "malformed spawn request (%s)", bad);
    one_line(why);
    if (bad) /* only a forged or broken client sends one: worth a line */
        fprintf(stderr, "umprun: %s sent a %s; refused\n", rank_desc(from, who, sizeof(who)), why);
    else if (job.verbose)
        fprintf(stderr, "umprun: refused the spawn request of %s: %s\n",
                rank_desc(from, who, sizeof(who)), why);
    answer(out, UMP_KVS_SPAWN_REFUSED, why);
    goto out;
nomem:
    rc = -1;
out:
    for (uint32_t a = 0; ra && a < napps; a++) {
        free(ra[a].hosts);
        free(ra[a].host_ok);
    }
    free(ra);
    for (uint32_t a = 0; apps && a < napps; a++) {
        free_strv(apps[a].argv);
        free_strv(apps[a].env);
        free(apps[a].wdir);
    }
    free(apps);
    free(port);
    return rc || out->oom ? -1 : 0;
}
