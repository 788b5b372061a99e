/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting processes (ump.h, "starting processes"): the core's face of the
 * launcher's spawn service, and what a spawned process was told.
 */
#include <stdlib.h>

#include "core/core.h"

int ump_spawn(const ump_app_t *apps, int napps, const char *parent_port, char *job_id, size_t len,
              char *why, size_t whylen)
{
    UMP_CORE_CHECK_INIT();
    if (!apps || napps <= 0 || !job_id || !why || !whylen) return UMP_ERR_INVALID;
    _Static_assert(sizeof(ump_app_t) == sizeof(ump_rt_app_t), "ump_app_t mirrors ump_rt_app_t");
    ump_rt_app_t *ra = calloc((size_t)napps, sizeof(*ra));
    if (!ra) return UMP_ERR_NO_MEMORY;
    for (int i = 0; i < napps; i++)
        ra[i] = (ump_rt_app_t){.cmd = apps[i].cmd,
                               .argv = apps[i].argv,
                               .maxprocs = apps[i].maxprocs,
                               .env = apps[i].env,
                               .wdir = apps[i].wdir,
                               .hosts = apps[i].hosts};
    ump_core_lock();
    int rc = ump_rt_spawn(ump_core.rt, ra, napps, parent_port ? parent_port : "", job_id, len, why,
                          whylen);
    ump_core_unlock();
    free(ra);
    return rc;
}

const char *ump_parent_port(void)
{
    return ump_core.rt ? ump_rt_info(ump_core.rt)->parent_port : "";
}

int ump_appnum(void)
{
    return ump_core.rt ? ump_rt_info(ump_core.rt)->appnum : 0;
}
