/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpit.c - the tool information interface (MPI 3.1 14.3): nested
 * MPI_T_init_thread / MPI_T_finalize, control variables that read back
 * what the environment set (every set variable, of every type) and
 * writes where allowed (before MPI_Init, or at any time for the
 * collective tunables) or refused (MPI_T_ERR_CVAR_SET_NOT_NOW / _NEVER),
 * enumerations, performance counters that grow by what this rank sent
 * and received across the eager/rendezvous threshold, start / stop /
 * reset / readreset, categories covering every variable exactly once, and
 * the MPI_T error codes for bad indexes, names, handles and sessions.
 *
 * The variable names are ump's (UMP_* tunables, core_* counters), so
 * unlike the other programs this one is for ump only.
 */
#include <ctype.h>
#include <strings.h>

#include "mt.h"

#define TCALL(call) CALL(call)
#define TEXPECT(call, want)                                                                        \
    do {                                                                                           \
        int mt_rc_ = (call);                                                                       \
        if (mt_rc_ != (want))                                                                      \
            mt_fail(__FILE__, __LINE__, #call, "returned %d, want %s (%d)", mt_rc_, #want, want);  \
    } while (0)

static int cvar_index(const char *name)
{
    int i = -1;
    TCALL(MPI_T_cvar_get_index(name, &i));
    return i;
}

/* Reads cvar i into buf (room for 1 KiB of string). */
static void cvar_read(int i, void *buf)
{
    MPI_T_cvar_handle h;
    int count = 0;
    TCALL(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(count >= 1 && count < 1024, "cvar %d: count %d", i, count);
    TCALL(MPI_T_cvar_read(h, buf));
    TCALL(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free left the handle set");
}

static int cvar_write(int i, const void *buf)
{
    MPI_T_cvar_handle h;
    int count = 0;
    TCALL(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    int rc = MPI_T_cvar_write(h, buf);
    TCALL(MPI_T_cvar_handle_free(&h));
    return rc;
}

static unsigned long long parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    switch (tolower((unsigned char)*end)) {
    case 'k':
        return v << 10;
    case 'm':
        return v << 20;
    case 'g':
        return v << 30;
    }
    return v;
}

static int parse_bool(const char *s)
{
    return !strcasecmp(s, "1") || !strcasecmp(s, "y") || !strcasecmp(s, "yes") ||
           !strcasecmp(s, "on") || !strcasecmp(s, "true");
}

/* Every control variable: its info, its index by name, a read; those the
 * environment sets read back its value. Returns how many were set. */
static int check_cvars_env(void)
{
    int n = 0, set = 0;
    TCALL(MPI_T_cvar_get_num(&n));
    CHECK(n > 20, "only %d control variables", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum et;
        TCALL(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &et, desc, &dlen, &bind, &scope));
        CHECK(nlen == (int)strlen(name) + 1 && !strncmp(name, "UMP_", 4),
              "cvar %d: name '%s' length %d", i, name, nlen);
        CHECK(dlen > 1 && strstr(desc, "default"), "cvar %s: description '%s'", name, desc);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "cvar %s: binding %d", name, bind);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL,
              "cvar %s: verbosity %d", name, verb);
        CHECK(cvar_index(name) == i, "cvar_get_index(%s) != %d", name, i);
        /* A short buffer gets a truncated, terminated name. */
        char shortname[5];
        int slen = sizeof(shortname);
        TCALL(MPI_T_cvar_get_info(i, shortname, &slen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(slen == 5 && !strncmp(shortname, name, 4) && shortname[4] == '\0',
              "truncated name '%s' (%d)", shortname, slen);
        union {
            long long ll;
            unsigned long long ull;
            int i;
            double d;
            char s[1024];
        } v;
        cvar_read(i, &v);
        if (et != MPI_T_ENUM_NULL) {
            int items = 0;
            char ename[256];
            int elen = sizeof(ename);
            TCALL(MPI_T_enum_get_info(et, &items, ename, &elen));
            CHECK(items >= 2 && !strcmp(ename, name), "enum of %s: %d items, name %s", name, items,
                  ename);
            CHECK(dt == MPI_INT && v.i >= 0 && v.i < items, "enum %s value %d", name, v.i);
            TEXPECT(MPI_T_enum_get_item(et, items, NULL, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
            TEXPECT(MPI_T_enum_get_item(et, -1, NULL, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
        }
        const char *env = getenv(name);
        if (!env) continue;
        set++;
        if (dt == MPI_UNSIGNED_LONG_LONG) {
            CHECK(v.ull == parse_size(env), "%s=%s reads %llu", name, env, v.ull);
        } else if (dt == MPI_COUNT) {
            CHECK(v.ll == strtoll(env, NULL, 0), "%s=%s reads %lld", name, env, v.ll);
        } else if (dt == MPI_DOUBLE) {
            CHECK(v.d == strtod(env, NULL), "%s=%s reads %g", name, env, v.d);
        } else if (dt == MPI_CHAR) {
            CHECK(!strcmp(v.s, env), "%s=%s reads '%s'", name, env, v.s);
        } else if (et != MPI_T_ENUM_NULL) {
            char item[128];
            int ilen = sizeof(item), val = -1;
            TCALL(MPI_T_enum_get_item(et, v.i, &val, item, &ilen));
            CHECK(val == v.i && !strcasecmp(item, env), "%s=%s reads item %d '%s'", name, env, v.i,
                  item);
        } else {
            CHECK(dt == MPI_INT, "%s: datatype", name);
            CHECK(v.i == parse_bool(env), "%s=%s reads %d", name, env, v.i);
        }
    }
    return set;
}

static void check_cvar_errors(void)
{
    int n = 0, i = 0;
    TCALL(MPI_T_cvar_get_num(&n));
    TEXPECT(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    TEXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    TEXPECT(MPI_T_cvar_get_index("UMP_NO_SUCH_TUNABLE", &i), MPI_T_ERR_INVALID_NAME);
    MPI_T_cvar_handle h;
    int count;
    TEXPECT(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    long long buf;
    TEXPECT(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &buf), MPI_T_ERR_INVALID_HANDLE);
    h = MPI_T_CVAR_HANDLE_NULL;
    TEXPECT(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
    /* Strings are the environment's: never written. */
    char s[8] = "lo";
    TEXPECT(cvar_write(cvar_index("UMP_TCP_IF"), s), MPI_T_ERR_CVAR_SET_NEVER);
    /* An enum item out of range. */
    int bad = 99;
    TEXPECT(cvar_write(cvar_index("UMP_COLL_BCAST_ALGO"), &bad), MPI_T_ERR_INVALID);
}

/* After MPI_Init: the transports' settings are fixed, the collective
 * tunables may change (the same on every rank), and a broadcast across the
 * new segment size still delivers every byte. */
static void check_cvar_writes_live(void)
{
    unsigned long long eager = 4096;
    TEXPECT(cvar_write(cvar_index("UMP_SHM_EAGER_LIMIT"), &eager), MPI_T_ERR_CVAR_SET_NOT_NOW);
    int seg = cvar_index("UMP_COLL_SEGSIZE"), lng = cvar_index("UMP_COLL_BCAST_LONG");
    unsigned long long old_seg, old_long, v;
    cvar_read(seg, &old_seg);
    cvar_read(lng, &old_long);
    unsigned long long nseg = 3000, nlong = 1000;
    TCALL(cvar_write(seg, &nseg));
    TCALL(cvar_write(lng, &nlong));
    cvar_read(seg, &v);
    CHECK(v == nseg, "UMP_COLL_SEGSIZE reads %llu after writing %llu", v, nseg);
    for (size_t len = 2999; len <= 3001 * 4; len += 3001) {
        unsigned char *b = calloc(len, 1);
        CHECK(b, "out of memory");
        if (mt_rank == 0)
            mt_fill(b, len, 7);
        else
            memset(b, 0, len);
        CALL(MPI_Bcast(b, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD));
        long bad = mt_verify(b, len, 7);
        CHECK(bad < 0, "bcast of %zu bytes with 3000-byte segments: byte %ld differs", len, bad);
        free(b);
    }
    TCALL(cvar_write(seg, &old_seg));
    TCALL(cvar_write(lng, &old_long));
    /* UMP_LOG changes at once; keep it at what it was. */
    int lv = cvar_index("UMP_LOG"), old_lv, e = 0;
    cvar_read(lv, &old_lv);
    TCALL(cvar_write(lv, &e));
    cvar_read(lv, &e);
    CHECK(e == 0, "UMP_LOG reads %d after writing 0", e);
    TCALL(cvar_write(lv, &old_lv));
}

static int pvar_index(const char *name, int cls)
{
    int i = -1;
    TCALL(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

static unsigned long long pread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    TCALL(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Sends and receives `len` bytes in a ring, checking every byte. */
static void ring(size_t len, unsigned seed)
{
    unsigned char *sb = calloc(len + 1, 1), *rb = calloc(len + 1, 1);
    CHECK(sb && rb, "out of memory");
    mt_fill(sb, len, seed + (unsigned)mt_rank);
    memset(rb, 0, len + 1);
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    CALL(MPI_Sendrecv(sb, (int)len, MPI_BYTE, to, 5, rb, (int)len, MPI_BYTE, from, 5,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    long bad = mt_verify(rb, len, seed + (unsigned)from);
    CHECK(bad < 0, "ring of %zu bytes: byte %ld differs", len, bad);
    free(sb);
    free(rb);
}

static void check_pvars(void)
{
    int n = 0;
    TCALL(MPI_T_pvar_get_num(&n));
    CHECK(n >= 8, "%d performance variables", n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[512];
        int nl = sizeof(name), dl = sizeof(desc), verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum et;
        TCALL(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, desc, &dl, &bind, &ro, &cont,
                                  &atomic));
        CHECK(dt == MPI_UNSIGNED_LONG_LONG && et == MPI_T_ENUM_NULL && dl > 1,
              "pvar %s: datatype, enum or description", name);
        CHECK(pvar_index(name, cls) == i, "pvar_get_index(%s)", name);
    }
    int ms = pvar_index("core_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    int bs = pvar_index("core_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    int mr = pvar_index("core_msgs_recv", MPI_T_PVAR_CLASS_COUNTER);
    int br = pvar_index("core_bytes_recv", MPI_T_PVAR_CLASS_COUNTER);
    int rdv = pvar_index("core_rdv_sent", MPI_T_PVAR_CLASS_COUNTER);
    int rq = pvar_index("core_requests", MPI_T_PVAR_CLASS_LEVEL);
    int xs = pvar_index("xport_sent", MPI_T_PVAR_CLASS_COUNTER);
    int i;
    TEXPECT(MPI_T_pvar_get_index("core_msgs_sent", MPI_T_PVAR_CLASS_LEVEL, &i),
            MPI_T_ERR_INVALID_NAME);
    TEXPECT(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL),
            MPI_T_ERR_INVALID_INDEX);

    MPI_T_pvar_session s, s2;
    TCALL(MPI_T_pvar_session_create(&s));
    TCALL(MPI_T_pvar_session_create(&s2));
    MPI_T_pvar_handle hms, hbs, hmr, hbr, hrdv, hrq, hxs, other;
    int count;
    TCALL(MPI_T_pvar_handle_alloc(s, ms, NULL, &hms, &count));
    CHECK(count == 1, "count %d", count);
    TCALL(MPI_T_pvar_handle_alloc(s, bs, NULL, &hbs, &count));
    TCALL(MPI_T_pvar_handle_alloc(s, mr, NULL, &hmr, &count));
    TCALL(MPI_T_pvar_handle_alloc(s, br, NULL, &hbr, &count));
    TCALL(MPI_T_pvar_handle_alloc(s, rdv, NULL, &hrdv, &count));
    TCALL(MPI_T_pvar_handle_alloc(s, rq, NULL, &hrq, &count));
    TCALL(MPI_T_pvar_handle_alloc(s, xs, NULL, &hxs, &count));
    TCALL(MPI_T_pvar_handle_alloc(s2, ms, NULL, &other, &count));
    TEXPECT(MPI_T_pvar_handle_alloc(s, n, NULL, &other, &count), MPI_T_ERR_INVALID_INDEX);

    /* Stopped counters do not count. */
    CHECK(pread(s, hms) == 0, "a counter never started reads %llu", pread(s, hms));
    ring(64, 1);
    CHECK(pread(s, hms) == 0, "a stopped counter counted");

    TCALL(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    /* Every rank counts before any sends: the messages arrive while the
     * receiver counts (an early arrival is counted at arrival). */
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    /* Around the eager limits of shm (8k) and tcp (64k), and far above. */
    static const size_t sizes[] = {0, 1, 8191, 8192, 8193, 65535, 65536, 65537, 1 << 20};
    size_t total = 0;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        ring(sizes[k], (unsigned)k);
        total += sizes[k];
    }
    int nmsg = (int)(sizeof(sizes) / sizeof(sizes[0]));
    unsigned long long vms = pread(s, hms), vbs = pread(s, hbs), vmr = pread(s, hmr),
                       vbr = pread(s, hbr), vrdv = pread(s, hrdv);
    CHECK(vms >= (unsigned long long)nmsg, "core_msgs_sent %llu < %d", vms, nmsg);
    CHECK(vbs >= total, "core_bytes_sent %llu < %zu", vbs, total);
    CHECK(vmr >= (unsigned long long)nmsg, "core_msgs_recv %llu < %d", vmr, nmsg);
    CHECK(vbr >= total, "core_bytes_recv %llu < %zu", vbr, total);
    if (mt_size > 1) CHECK(vrdv >= 1, "core_rdv_sent %llu after a 1 MiB send", vrdv);
    /* Datagrams: only udp counts them (1 MiB is hundreds of them). */
    const char *xp = getenv("UMP_TRANSPORTS");
    unsigned long long vxs = pread(s, hxs);
    if (xp && !strcmp(xp, "udp") && mt_size > 1)
        CHECK(vxs >= total / 65536, "xport_sent %llu over udp after %zu bytes", vxs, total);
    else if (xp && (!strcmp(xp, "shm") || !strcmp(xp, "tcp")))
        CHECK(vxs == 0, "xport_sent %llu over %s", vxs, xp);
    CHECK(pread(s2, other) == 0, "a handle of another session counted");
    unsigned long long lvl = pread(s, hrq);
    CHECK(lvl < 1000000, "core_requests %llu", lvl);

    /* Stop freezes, start adds on, reset zeroes, readreset both. */
    TCALL(MPI_T_pvar_stop(s, hms));
    unsigned long long frozen = pread(s, hms);
    ring(100, 9);
    CHECK(pread(s, hms) == frozen, "a stopped counter moved from %llu", frozen);
    TCALL(MPI_T_pvar_start(s, hms));
    ring(100, 10);
    CHECK(pread(s, hms) > frozen, "a restarted counter did not add on");
    TCALL(MPI_T_pvar_reset(s, hms));
    CHECK(pread(s, hms) == 0, "reset counter reads %llu", pread(s, hms));
    ring(10, 11);
    unsigned long long rr = 0;
    TCALL(MPI_T_pvar_readreset(s, hms, &rr));
    CHECK(rr >= 1 && pread(s, hms) == 0, "readreset read %llu, then %llu", rr, pread(s, hms));

    /* Errors: a level cannot be started, written or reset; no counter
     * can be written; handles belong to their session. */
    unsigned long long w = 5;
    TEXPECT(MPI_T_pvar_start(s, hrq), MPI_T_ERR_PVAR_NO_STARTSTOP);
    TEXPECT(MPI_T_pvar_stop(s, hrq), MPI_T_ERR_PVAR_NO_STARTSTOP);
    TEXPECT(MPI_T_pvar_reset(s, hrq), MPI_T_ERR_PVAR_NO_WRITE);
    TEXPECT(MPI_T_pvar_readreset(s, hrq, &w), MPI_T_ERR_PVAR_NO_WRITE);
    TEXPECT(MPI_T_pvar_write(s, hms, &w), MPI_T_ERR_PVAR_NO_WRITE);
    TEXPECT(MPI_T_pvar_read(s, other, &w), MPI_T_ERR_INVALID_HANDLE);
    TEXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &w), MPI_T_ERR_INVALID_HANDLE);
    TEXPECT(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, hms, &w), MPI_T_ERR_INVALID_SESSION);
    TCALL(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    TCALL(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK(pread(s, hbs) == 0, "reset of all handles left %llu", pread(s, hbs));

    TCALL(MPI_T_pvar_handle_free(s, &hrdv));
    CHECK(hrdv == MPI_T_PVAR_HANDLE_NULL, "pvar_handle_free left the handle set");
    TCALL(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session_free left the session set");
    TCALL(MPI_T_pvar_session_free(&s2));
    TEXPECT(MPI_T_pvar_session_free(&s2), MPI_T_ERR_INVALID_SESSION);
}

/* Every variable is in exactly one leaf category; "ump" holds the layers. */
static void check_categories(void)
{
    int ncat = 0, ncv = 0, npv = 0;
    TCALL(MPI_T_category_get_num(&ncat));
    TCALL(MPI_T_cvar_get_num(&ncv));
    TCALL(MPI_T_pvar_get_num(&npv));
    int *cseen = calloc((size_t)ncv, sizeof(int)), *pseen = calloc((size_t)npv, sizeof(int));
    int top = -1;
    TCALL(MPI_T_category_get_index("ump", &top));
    int subs_of_top = 0;
    for (int c = 0; c < ncat; c++) {
        char name[64], desc[256];
        int nl = sizeof(name), dl = sizeof(desc), nc, np, ns;
        TCALL(MPI_T_category_get_info(c, name, &nl, desc, &dl, &nc, &np, &ns));
        int idx = -1;
        TCALL(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category %s: index %d != %d", name, idx, c);
        int *cv = malloc(sizeof(int) * (size_t)(nc + 1)),
            *pv = malloc(sizeof(int) * (size_t)(np + 1)),
            *sv = malloc(sizeof(int) * (size_t)(ns + 1));
        TCALL(MPI_T_category_get_cvars(c, nc, cv));
        TCALL(MPI_T_category_get_pvars(c, np, pv));
        TCALL(MPI_T_category_get_categories(c, ns, sv));
        for (int k = 0; k < nc; k++) {
            CHECK(cv[k] >= 0 && cv[k] < ncv, "category %s: cvar %d", name, cv[k]);
            cseen[cv[k]]++;
        }
        for (int k = 0; k < np; k++) {
            CHECK(pv[k] >= 0 && pv[k] < npv, "category %s: pvar %d", name, pv[k]);
            pseen[pv[k]]++;
        }
        for (int k = 0; k < ns; k++)
            CHECK(sv[k] >= 0 && sv[k] < ncat && sv[k] != c, "category %s: sub %d", name, sv[k]);
        if (c == top) subs_of_top = ns;
        free(cv);
        free(pv);
        free(sv);
    }
    CHECK(subs_of_top == ncat - 1, "'ump' holds %d of %d categories", subs_of_top, ncat - 1);
    for (int i = 0; i < ncv; i++)
        CHECK(cseen[i] == 1, "cvar %d is in %d categories", i, cseen[i]);
    for (int i = 0; i < npv; i++)
        CHECK(pseen[i] == 1, "pvar %d is in %d categories", i, pseen[i]);
    free(cseen);
    free(pseen);
    int idx, stamp = -1, stamp2 = -1;
    TEXPECT(MPI_T_category_get_index("nothing", &idx), MPI_T_ERR_INVALID_NAME);
    TEXPECT(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    TEXPECT(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    TCALL(MPI_T_category_changed(&stamp));
    TCALL(MPI_T_category_changed(&stamp2));
    CHECK(stamp == stamp2, "categories changed from %d to %d", stamp, stamp2);
}

int main(int argc, char **argv)
{
    int n, provided = -1;
    TEXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    TEXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    /* Nested: usable until the last finalize. */
    TCALL(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    TCALL(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    TCALL(MPI_T_finalize());
    int set = check_cvars_env();
    /* umprun passes UMP_TRANSPORTS, so at least that one was checked. */
    CHECK(set >= 1 || !getenv("UMP_TRANSPORTS"), "no environment variable was compared");
    if (argc > 1 && !strncmp(argv[1], "--expect-set=", 13))
        CHECK(set >= atoi(argv[1] + 13), "%d variables set, want %s", set, argv[1] + 13);
    check_cvar_errors();
    /* Before MPI_Init a setting that MPI_Init reads may be written. */
    int spin = cvar_index("UMP_WAIT_SPIN_US");
    long long spin_v = 33, got = 0;
    TCALL(cvar_write(spin, &spin_v));

    mt_init(&argc, &argv, "mpit");
    cvar_read(spin, &got);
    CHECK(got == 33, "UMP_WAIT_SPIN_US written before MPI_Init reads %lld", got);
    char es[MPI_MAX_ERROR_STRING];
    int el = 0;
    CALL(MPI_Error_string(MPI_T_ERR_CVAR_SET_NEVER, es, &el));
    CHECK(el > 0 && strstr(es, "never"), "MPI_Error_string(MPI_T_ERR_CVAR_SET_NEVER): %s", es);
    check_cvar_writes_live();
    check_pvars();
    check_categories();

    /* The counters outlive MPI_Finalize (and the transports): a handle
     * started before reads on after, never less than before. */
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hs, hx;
    int count;
    TCALL(MPI_T_pvar_session_create(&s));
    TCALL(MPI_T_pvar_handle_alloc(s, pvar_index("core_msgs_sent", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                  &hs, &count));
    TCALL(MPI_T_pvar_handle_alloc(s, pvar_index("xport_sent", MPI_T_PVAR_CLASS_COUNTER), NULL, &hx,
                                  &count));
    TCALL(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long before = pread(s, hs), xbefore = pread(s, hx);
    CHECK(before >= (mt_size > 1 ? 1u : 0u), "core_msgs_sent %llu after a barrier", before);
    mt_done();
    unsigned long long after = pread(s, hs), xafter = pread(s, hx);
    CHECK(after >= before && after < before + 1000000,
          "core_msgs_sent %llu after MPI_Finalize, %llu before", after, before);
    CHECK(xafter >= xbefore && xafter < xbefore + 1000000,
          "xport_sent %llu after MPI_Finalize, %llu before", xafter, xbefore);
    TCALL(MPI_T_pvar_session_free(&s));
    TCALL(MPI_T_finalize());
    TEXPECT(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    TEXPECT(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}
