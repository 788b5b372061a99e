/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tunable table. UMP_CFG() places a pointer to each declaration in the
 * "ump_cfg" section; the linker provides the section's bounds, so the table
 * is complete without any list kept by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

extern ump_cfg_t *const __start_ump_cfg[] __attribute__((weak));
extern ump_cfg_t *const __stop_ump_cfg[] __attribute__((weak));
extern char **environ;

static ump_cfg_t **sorted;
static size_t nsorted;
static bool loaded;

int ump_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    /* strtoull takes " -1" as 2^64-1: a size has no sign anywhere. */
    if (errno || end == s || strchr(s, '-')) return -1;
    unsigned long long mult = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mult = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mult = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mult = 1ull << 30;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'b' || *end == 'B') end++;
    if (*end != '\0' || (v && mult > ~0ull / v)) return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "y", "yes", "on", "true"};
    static const char *const no[] = {"0", "n", "no", "off", "false"};
    for (size_t i = 0; i < UMP_ARRAY_SIZE(yes); i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static int parse_enum(const char *choices, const char *s, int *out)
{
    size_t slen = strlen(s);
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == slen && !strncasecmp(p, s, n)) {
            *out = idx;
            return 0;
        }
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

static int parse_value(ump_cfg_t *c, const char *s)
{
    char *end;
    switch (c->type) {
    case UMP_CFG_INT:
        errno = 0;
        c->v.i = strtoll(s, &end, 0);
        return (errno || end == s || *end) ? -1 : 0;
    case UMP_CFG_SIZE:
        return ump_parse_size(s, &c->v.sz);
    case UMP_CFG_BOOL:
        return parse_bool(s, &c->v.b);
    case UMP_CFG_DOUBLE:
        errno = 0;
        c->v.d = strtod(s, &end);
        return (errno || end == s || *end) ? -1 : 0;
    case UMP_CFG_STRING:
        c->v.s = s;
        return 0;
    case UMP_CFG_ENUM:
        return parse_enum(c->choices, s, &c->v.e);
    }
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(ump_cfg_t *const *)a)->name, (*(ump_cfg_t *const *)b)->name);
}

static void build_sorted(void)
{
    if (sorted || !__start_ump_cfg) return;
    size_t n = (size_t)(__stop_ump_cfg - __start_ump_cfg);
    sorted = malloc(sizeof(*sorted) * (n ? n : 1));
    if (!sorted) return;
    for (size_t i = 0; i < n; i++)
        sorted[i] = __start_ump_cfg[i];
    qsort(sorted, n, sizeof(*sorted), by_name);
    nsorted = n;
}

ump_cfg_t *ump_cfg_find(const char *name)
{
    build_sorted();
    for (size_t i = 0; i < nsorted; i++)
        if (!strcmp(sorted[i]->name, name)) return sorted[i];
    return NULL;
}

const ump_cfg_t *ump_cfg_at(size_t i)
{
    build_sorted();
    return i < nsorted ? sorted[i] : NULL;
}

int ump_cfg_load(bool force)
{
    if (loaded && !force) return UMP_OK;
    build_sorted();
    for (size_t i = 0; i < nsorted; i++) {
        ump_cfg_t *c = sorted[i];
        const char *env = getenv(c->name);
        c->from_env = false;
        if (parse_value(c, c->defval) != 0)
            ump_error("tunable %s: bad built-in default '%s'", c->name, c->defval);
        if (env) {
            if (parse_value(c, env) == 0) {
                c->from_env = true;
            } else {
                ump_warn("%s='%s' is not a valid %s; using the default '%s'", c->name, env,
                         c->type == UMP_CFG_ENUM ? c->choices : "value", c->defval);
                parse_value(c, c->defval);
            }
        }
        c->loaded = true;
    }
    loaded = true;
    /* The log level is itself a tunable; apply it before warning further. */
    ump_cfg_t *lv = ump_cfg_find("UMP_LOG");
    if (lv) ump_log_level = lv->v.e;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "UMP_", 4) != 0 || !strncmp(*e, "UMP_JOB_", 8)) continue;
        const char *eq = strchr(*e, '=');
        char name[128];
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        if (n >= sizeof(name)) n = sizeof(name) - 1;
        memcpy(name, *e, n);
        name[n] = '\0';
        if (!ump_cfg_find(name))
            ump_warn("unknown variable %s in the environment (ump_info lists the tunables)", name);
    }
    return UMP_OK;
}

void ump_cfg_format(const ump_cfg_t *c, char *buf, size_t len)
{
    switch (c->type) {
    case UMP_CFG_INT:
        snprintf(buf, len, "%lld", c->v.i);
        break;
    case UMP_CFG_SIZE:
        snprintf(buf, len, "%zu", c->v.sz);
        break;
    case UMP_CFG_BOOL:
        snprintf(buf, len, "%s", c->v.b ? "yes" : "no");
        break;
    case UMP_CFG_DOUBLE:
        snprintf(buf, len, "%g", c->v.d);
        break;
    case UMP_CFG_STRING:
        snprintf(buf, len, "%s", c->v.s ? c->v.s : "");
        break;
    case UMP_CFG_ENUM: {
        const char *p = c->choices;
        for (int i = 0; i < c->v.e && p; i++) {
            p = strchr(p, '|');
            if (p) p++;
        }
        size_t n = p ? strcspn(p, "|") : 0;
        snprintf(buf, len, "%.*s", (int)n, p ? p : "");
        break;
    }
    }
}
