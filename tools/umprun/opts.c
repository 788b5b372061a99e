/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command line. umprun takes the options MPI users type for Open MPI's
 * mpirun and MPICH's mpiexec (it is installed under those names too), in
 * their spellings: every "--long" option also as "-long", "--opt=value" for
 * the double-dash ones. An option it does not know is an error that names
 * it, never silently passed on. After the options, the program: found on
 * PATH, else in the ranks' working directory (as mpiexec users expect), else
 * a clear error before any rank starts.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ump.h"
#include "umprun.h"
#include "util/util.h"

enum opt_id {
    O_HELP,
    O_VERSION,
    O_VERBOSE,
    O_TAG,
    O_OVERSUB,
    O_NOOP,
    O_NP,
    O_NPERNODE,
    O_HOST,
    O_HOSTFILE,
    O_RSH,
    O_BIND,
    O_MAP,
    O_TIMEOUT,
    O_X,
    O_ENV,
    O_WDIR,
    O_OUTFILE,
    O_SECRET,
};

/* names: blank-separated spellings; a "--name" also matches "-name". */
static const struct opt {
    const char *names;
    int nvals;
    enum opt_id id;
} opts[] = {
    {"-h --help", 0, O_HELP},
    {"-V --version", 0, O_VERSION},
    {"-v --verbose", 0, O_VERBOSE},
    {"--tag-output", 0, O_TAG},
    {"--oversubscribe", 0, O_OVERSUB},
    {"--allow-run-as-root", 0, O_NOOP},
    {"-n --n --np", 1, O_NP},
    {"-N --npernode --ppn", 1, O_NPERNODE},
    {"-H --host --hosts", 1, O_HOST},
    {"--hostfile --machinefile -f", 1, O_HOSTFILE},
    {"--rsh", 1, O_RSH},
    {"--bind-to", 1, O_BIND},
    {"--map-by", 1, O_MAP},
    {"--timeout", 1, O_TIMEOUT},
    {"-x", 1, O_X},
    {"--genv --env", 2, O_ENV},
    {"--wdir --wd", 1, O_WDIR},
    {"--output-filename", 1, O_OUTFILE},
    {"--secret-file", 1, O_SECRET},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: umprun [options] program [args...]   (also installed as mpiexec, mpirun)\n"
               "  -n, -np N              number of ranks (default: the hosts' slots)\n"
               "  -N, --npernode, -ppn N ranks per host (default -n: N times the hosts)\n"
               "  -H, --host, -hosts h1[:slots],h2[:slots],...\n"
               "                         hosts to use (default: localhost)\n"
               "  --hostfile, -machinefile, -f F\n"
               "                         one host per line: 'name', 'name:slots' or\n"
               "                         'name slots=N'; '#' starts a comment\n"
               "  --map-by slot|core|node|ppr:N:node\n"
               "                         fill each host's slots in turn (slot, core: default),\n"
               "                         deal ranks to the hosts in turn (node), N per host\n"
               "  --oversubscribe        allow more ranks than slots (ranks are then not bound)\n"
               "  --rsh CMD              agent that starts ranks on other hosts (default: ssh);\n"
               "                         run as CMD... host env UMP_JOB_...=... program args\n"
               "  --bind-to core|hwthread|none\n"
               "                         pin each local rank to one CPU (default: when a host\n"
               "                         has no more ranks than CPUs), or not\n"
               "  -x VAR[=VAL]           export VAR (from umprun's environment, or set to VAL)\n"
               "  -genv, -env VAR VAL    set VAR to VAL in every rank\n"
               "  -wdir, -wd DIR         ranks start in DIR (default: umprun's directory)\n"
               "  --tag-output           prefix each output line with \"[rank] \"\n"
               "  --output-filename DIR[:nocopy,nojobid]\n"
               "                         also write rank N's output to DIR/1/rank.N/stdout\n"
               "                         and .../stderr (nojobid: DIR/rank.N; nocopy: only there)\n"
               "  --timeout S            stop the job after S seconds (exit status 124)\n"
               "  --secret-file F        the job secret from F (made, mode 0600, if absent):\n"
               "                         jobs started with one file can meet through ports\n"
               "  -v, --verbose          say what umprun does\n"
               "  -V, --version          umprun's version\n"
               "  -h, --help             this text\n"
               "Every --option is also accepted as -option; --allow-run-as-root is accepted\n"
               "and ignored. The program is looked up on PATH, then in the ranks' directory.\n"
               "Exit status: 0 when every rank exited 0 (and finalized if it initialized);\n"
               "otherwise the failing rank's exit code, 128+signal if it was killed, its\n"
               "abort code, 124 on --timeout, 128+signal if umprun was interrupted,\n"
               "1 if the job could not start, 2 for a bad command line, 126 or 127 for a\n"
               "program that is not executable or not found.\n");
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("umprun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see umprun --help)\n", stderr);
    va_end(ap);
    return -1;
}

static int push(char ***v, int *n, char *s)
{
    char **nv = realloc(*v, sizeof(char *) * (size_t)(*n + 1));
    if (!nv) return -1;
    *v = nv;
    nv[(*n)++] = s;
    return 0;
}

/* Does argument a (its first alen bytes) spell option name? */
static bool spells(const char *a, size_t alen, const char *name, size_t nlen)
{
    if (alen == nlen && !strncmp(a, name, nlen)) return true;
    /* "--npernode" also as "-npernode" (Open MPI and MPICH both accept it) */
    return nlen > 2 && name[1] == '-' && alen == nlen - 1 && !strncmp(a, name + 1, alen);
}

static const struct opt *lookup(const char *a, size_t alen)
{
    for (size_t k = 0; k < UMP_ARRAY_SIZE(opts); k++) {
        const char *p = opts[k].names;
        while (*p) {
            size_t n = strcspn(p, " ");
            if (spells(a, alen, p, n)) return &opts[k];
            p += n;
            p += strspn(p, " ");
        }
    }
    return NULL;
}

static int parse_count(const char *opt, const char *val, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(val, &end, 10);
    if (errno || *end || end == val || n < 1 || n > 1 << 20)
        return bad_usage("%s: bad count '%s' (1 .. %d)", opt, val, 1 << 20);
    *out = (int)n;
    return 0;
}

/* "DIR[:nocopy,nojobid]", Open MPI's spelling. */
static int set_outdir(char *val)
{
    char *colon = strrchr(val, ':');
    if (colon && colon[1] && !strchr(colon, '/')) {
        *colon = '\0';
        char *save = NULL;
        for (char *w = strtok_r(colon + 1, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            if (!strcmp(w, "nocopy"))
                job.out_copy = false;
            else if (!strcmp(w, "nojobid"))
                job.out_jobdir = false;
            else
                return bad_usage("--output-filename: unknown modifier '%s' (nocopy, nojobid)", w);
        }
    }
    if (!*val) return bad_usage("--output-filename needs a directory");
    job.outdir = val;
    return 0;
}

/* "slot", "core", "hwthread", "node", each with ":oversubscribe" or
 * ":nooversubscribe" after it, or "ppr:N:node". */
static int set_map(char *val)
{
    if (!strncasecmp(val, "ppr:", 4)) {
        char *end;
        long n = strtol(val + 4, &end, 10);
        if (end == val + 4 || n < 1 || n > 1 << 20 || strcasecmp(end, ":node"))
            return bad_usage("--map-by %s: only ppr:N:node is supported", val);
        job.npernode = (int)n;
        return 0;
    }
    char *mod = strchr(val, ':');
    size_t n = mod ? (size_t)(mod - val) : strlen(val);
    if ((n == 4 && !strncasecmp(val, "slot", 4)) || (n == 4 && !strncasecmp(val, "core", 4)) ||
        (n == 8 && !strncasecmp(val, "hwthread", 8)))
        job.map = MAP_SLOT;
    else if (n == 4 && !strncasecmp(val, "node", 4))
        job.map = MAP_NODE;
    else
        return bad_usage("--map-by takes slot, core, hwthread, node or ppr:N:node, not '%s'", val);
    for (char *save = NULL, *w = mod ? strtok_r(mod + 1, ":,", &save) : NULL; w;
         w = strtok_r(NULL, ":,", &save)) {
        if (!strcasecmp(w, "oversubscribe"))
            job.oversubscribe = true;
        else if (!strcasecmp(w, "nooversubscribe"))
            job.oversubscribe = false;
        else
            return bad_usage("--map-by: unsupported modifier '%s'", w);
    }
    return 0;
}

static int set_bind(const char *val)
{
    /* Open MPI's "core:overload-allowed": ump never refuses to bind an
     * oversubscribed host, it leaves those ranks unbound instead. */
    size_t n = strcspn(val, ":");
    if (val[n] && strcmp(val + n, ":overload-allowed"))
        return bad_usage("--bind-to: unsupported modifier '%s'", val + n + 1);
    if ((n == 4 && !strncmp(val, "core", 4)) || (n == 8 && !strncmp(val, "hwthread", 8)))
        job.bind = BIND_CORE;
    else if (n == 4 && !strncmp(val, "none", 4))
        job.bind = BIND_NONE;
    else
        return bad_usage("--bind-to takes core, hwthread or none, not '%s'", val);
    return 0;
}

/* The "VAR=VALUE" strings -genv made (the other xvars point into argv). */
static char **made;
static int nmade;

static int set_env(char *var, const char *val)
{
    if (!*var || strchr(var, '=')) return bad_usage("-genv needs VAR VALUE, not '%s'", var);
    char *s;
    if (asprintf(&s, "%s=%s", var, val) < 0) return -1;
    if (push(&made, &nmade, s)) {
        free(s);
        return -1;
    }
    return push(&job.xvars, &job.nxvars, s);
}

void opts_free(void)
{
    for (int i = 0; i < nmade; i++)
        free(made[i]);
    free(made);
    made = NULL;
    nmade = 0;
}

static int apply(const struct opt *o, const char *a, char **val)
{
    switch (o->id) {
    case O_HELP:
        usage(stdout);
        exit(0);
    case O_VERSION:
        printf("umprun (ump) %s\nMPI 3.1; also installed as mpiexec and mpirun\n",
               UMP_VERSION_STRING);
        exit(0);
    case O_VERBOSE:
        job.verbose = true;
        return 0;
    case O_TAG:
        job.tag_output = true;
        return 0;
    case O_OVERSUB:
        job.oversubscribe = true;
        return 0;
    case O_NOOP:
        return 0;
    case O_NP:
        return parse_count(a, val[0], &job.n);
    case O_NPERNODE:
        return parse_count(a, val[0], &job.npernode);
    case O_HOST:
        return push(&job.hostspecs, &job.nhostspecs, val[0]);
    case O_HOSTFILE:
        job.hostfile = val[0];
        return 0;
    case O_RSH:
        if (!val[0][strspn(val[0], " \t")]) return bad_usage("--rsh needs a command");
        job.rsh = val[0];
        return 0;
    case O_BIND:
        return set_bind(val[0]);
    case O_MAP:
        return set_map(val[0]);
    case O_TIMEOUT: {
        char *end;
        double t = strtod(val[0], &end);
        if (*end || end == val[0] || !(t > 0) || !isfinite(t) || t > 1e9)
            return bad_usage("bad timeout '%s' (seconds > 0)", val[0]);
        job.timeout_s = t;
        return 0;
    }
    case O_X: {
        size_t k = strcspn(val[0], "=");
        if (k == 0) return bad_usage("-x needs VAR or VAR=VALUE, not '%s'", val[0]);
        if (!val[0][k] && !getenv(val[0]))
            fprintf(stderr, "umprun: warning: -x %s: not set here, not exported\n", val[0]);
        return push(&job.xvars, &job.nxvars, val[0]);
    }
    case O_ENV:
        return set_env(val[0], val[1]);
    case O_WDIR:
        if (!*val[0]) return bad_usage("%s needs a directory", a);
        job.wdir = val[0];
        return 0;
    case O_OUTFILE:
        return set_outdir(val[0]);
    case O_SECRET:
        if (!*val[0]) return bad_usage("--secret-file needs a file");
        job.secret_file = val[0];
        return 0;
    }
    return -1;
}

int opts_parse(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) {
        char *a = argv[i], *val[2] = {NULL, NULL};
        if (a[0] != '-' || !a[1]) break;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        /* "--opt=value" for the double-dash spellings */
        char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        size_t alen = eq ? (size_t)(eq - a) : strlen(a);
        const struct opt *o = lookup(a, alen);
        if (!o) {
            if (eq) *eq = '\0';
            return bad_usage("unknown option '%s'", a);
        }
        if (eq && o->nvals != 1) {
            *eq = '\0';
            return bad_usage("option %s takes %s", a, o->nvals ? "two values" : "no value");
        }
        if (eq) {
            val[0] = eq + 1;
        } else {
            if (i + o->nvals >= argc)
                return bad_usage("option %s needs %s", a, o->nvals == 2 ? "two values" : "a value");
            for (int k = 0; k < o->nvals; k++)
                val[k] = argv[++i];
        }
        if (apply(o, a, val)) return -1;
    }
    if (i >= argc) return bad_usage("no program to run");
    job.argv = &argv[i];
    return 0;
}

static bool is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char full[PATH_MAX];
        /* An empty entry is the current directory, as execvp reads it. */
        if (snprintf(full, sizeof(full), "%.*s/%s", (int)n, n ? path : ".", prog) <
                (int)sizeof(full) &&
            is_exec_file(full))
            return true;
        path += n;
        path += *path == ':';
    }
    return false;
}

/* Why `path` cannot be run, as exit status 126 (there but not runnable)
 * or 127 (not there). */
static int cannot_run(const char *path, const char *shown, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "cannot run %s: %s", shown, strerror(errno));
        return 127;
    }
    size_t n = strlen(shown);
    if (S_ISDIR(st.st_mode))
        snprintf(why, whylen, "cannot run %s: it is a directory", shown);
    else if (n > 2 && !strcmp(shown + n - 2, ".c"))
        snprintf(why, whylen,
                 "cannot run %s: it is C source; compile it first "
                 "(mpicc -o %.*s %s) and run the program",
                 shown, (int)(n - 2), shown, shown);
    else
        snprintf(why, whylen, "cannot run %s: it is not an executable file", shown);
    return 126;
}

int opts_lookup(const char *prog, const char *wdir, char **found, char *why, size_t whylen)
{
    *found = NULL;
    char cwd[PATH_MAX], full[2 * PATH_MAX + 2];
    if (!getcwd(cwd, sizeof(cwd))) cwd[0] = '\0';
    /* The ranks' directory: -wdir (relative to ours), or ours. */
    const char *dir = cwd;
    char wd[PATH_MAX + 1 + PATH_MAX];
    if (wdir) {
        if (wdir[0] == '/' || !cwd[0])
            snprintf(wd, sizeof(wd), "%s", wdir);
        else
            snprintf(wd, sizeof(wd), "%s/%s", cwd, wdir);
        dir = wd;
    }
    if (strchr(prog, '/')) { /* a path: the ranks start it as given */
        if (prog[0] == '/')
            snprintf(full, sizeof(full), "%s", prog);
        else
            snprintf(full, sizeof(full), "%s/%s", dir, prog);
        if (job.all_local && !is_exec_file(full)) return cannot_run(full, prog, why, whylen);
        return 0;
    }
    if (on_path(prog)) return 0;
    snprintf(full, sizeof(full), "%s/%s", dir, prog);
    struct stat st;
    if (stat(full, &st) == 0) {
        if (!is_exec_file(full)) return cannot_run(full, prog, why, whylen);
        /* Found where the user is, as mpiexec users expect: start it by
         * its full path (a shared file system gives remote hosts the same). */
        *found = strdup(full);
        if (!*found) {
            snprintf(why, whylen, "out of memory");
            return UMPRUN_EXIT_SETUP;
        }
        return 0;
    }
    if (!job.all_local) return 0; /* it may exist on the remote hosts */
    snprintf(why, whylen, "cannot find program '%s': it is neither on PATH nor in %s", prog,
             dir[0] ? dir : "the working directory");
    return 127;
}

int opts_find_program(void)
{
    if (job.wdir && job.all_local) {
        struct stat st;
        if (stat(job.wdir, &st) != 0) {
            fprintf(stderr, "umprun: -wdir %s: %s\n", job.wdir, strerror(errno));
            return UMPRUN_EXIT_USAGE;
        }
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "umprun: -wdir %s: not a directory\n", job.wdir);
            return UMPRUN_EXIT_USAGE;
        }
    }
    char why[3 * PATH_MAX], *found = NULL;
    int rc = opts_lookup(job.argv[0], job.wdir, &found, why, sizeof(why));
    if (rc) {
        fprintf(stderr, "umprun: %s\n", why);
        return rc;
    }
    if (found) {
        job.argv[0] = found;
        if (job.verbose) fprintf(stderr, "umprun: running %s\n", found);
    }
    return 0;
}
