/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ump_info: the version, the built transports with their capabilities and
 * limits as they open on this machine, and every tunable with its type,
 * default, current value and description.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"
#include "util/util.h"
#include "xport/xport.h"

static const char *type_name(ump_cfg_type_t t)
{
    switch (t) {
    case UMP_CFG_INT:
        return "int";
    case UMP_CFG_SIZE:
        return "size";
    case UMP_CFG_BOOL:
        return "bool";
    case UMP_CFG_DOUBLE:
        return "double";
    case UMP_CFG_STRING:
        return "string";
    case UMP_CFG_ENUM:
        return "enum";
    }
    return "?";
}

static void print_size(const char *label, size_t v)
{
    if (v == SIZE_MAX)
        printf("    %-12s never\n", label);
    else
        printf("    %-12s %zu\n", label, v);
}

static void ignore_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data,
                      size_t len)
{
}

static void transports(void)
{
    ump_rt_t *rt = NULL;
    /* Open each transport as a one-rank job would, to show real limits. */
    printf("\nTransports (in order of preference):\n");
    if (ump_rt_init(&rt) != UMP_OK) {
        printf("  (cannot start a runtime to open them)\n");
        return;
    }
    ump_xp_params_t params = {.rt = rt, .am_handler = ignore_am};
    for (const ump_xp_ops_t *const *reg = ump_xp_registry(); *reg; reg++) {
        ump_xp_t *xp;
        int rc = (*reg)->open(&params, &xp);
        printf("  %s\n", (*reg)->name);
        if (rc != UMP_OK) {
            printf("    not usable here: %s\n", ump_strerror(rc));
            continue;
        }
        ump_xp_caps_t *c = &xp->caps;
        printf("    %-12s %s%s%s%s%s%s%s\n", "flags", c->reliable ? "reliable " : "",
               c->ordered ? "ordered " : "", c->rma_get ? "rma-get " : "",
               c->rma_put ? "rma-put " : "", c->mr_required ? "mr-required " : "",
               (*reg)->process_local ? "process-local " : "",
               c->am_cost == UMP_XP_AM_SYSCALL ? "am-syscall" : "am-memory");
        print_size("max_am", c->max_am);
        print_size("max_iov", c->max_iov);
        print_size("eager_limit", c->eager_limit);
        print_size("seg_size", c->seg_size);
        print_size("get_min", c->get_min);
        if (c->mr_required) print_size("rkey_size", c->rkey_size);
        xp->ops->close(xp);
    }
    for (const char *const *nb = ump_xp_not_built(); *nb; nb++)
        printf("  %s\n", *nb);
    ump_rt_fini(rt);
}

int main(int argc, char **argv)
{
    bool show_transports = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tunables")) {
            show_transports = false;
        } else {
            printf("usage: ump_info [--tunables]\n"
                   "Prints ump's version, the built transports and every tunable.\n");
            return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
        }
    }
    ump_cfg_load(false);
    printf("ump %s\n", UMP_VERSION_STRING);
    printf("bootstrap backends: %s\n", ump_rt_backends());
    if (show_transports) transports();
    printf("\nTunables (environment variables):\n");
    for (size_t i = 0; ump_cfg_at(i); i++) {
        const ump_cfg_t *c = ump_cfg_at(i);
        char cur[256];
        ump_cfg_format(c, cur, sizeof(cur));
        printf("  %s (%s%s%s)\n      default %s, current %s%s\n      %s\n", c->name,
               type_name(c->type), c->choices ? ": " : "", c->choices ? c->choices : "", c->defval,
               cur, c->from_env ? " (from environment)" : "", c->doc);
    }
    return 0;
}
