/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of built transports, in order of preference. */
#include <stddef.h>

#include "xport/xport.h"

const ump_xp_ops_t *const *ump_xp_registry(void)
{
    static const ump_xp_ops_t *list[8];
    static int built;
    if (!built) {
        /* Strong references: a program linked with libump.a gets them all. */
        const ump_xp_ops_t *all[] = {
            &ump_xp_self_ops,  &ump_xp_shm_ops, &ump_xp_tcp_ops, &ump_xp_udp_ops,
#ifdef UMP_HAVE_OFI
            &ump_xp_ofi_ops, /* built when libfabric was found */
            &ump_xp_ofiud_ops,
#endif
        };
        int n = 0;
        for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
            list[n++] = all[i];
        list[n] = NULL;
        built = 1;
    }
    return list;
}

const char *const *ump_xp_not_built(void)
{
    static const char *const list[] = {
#ifndef UMP_HAVE_OFI
        "ofi: not built (libfabric-dev not found at configure time, or -DUMP_OFI=OFF)",
        "ofiud: not built (libfabric-dev not found at configure time, or -DUMP_OFI=OFF)",
#endif
        NULL,
    };
    return list;
}
