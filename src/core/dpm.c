/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Meeting other processes (ump.h, "meeting other processes"): the core's
 * face of the runtime's ports and name service. While a call waits for the
 * other side, this process's communication goes on (the runtime calls back
 * into progress), so the ranks that wait on this one are not stuck.
 */
#include <string.h>

#include "core/core.h"

_Static_assert(UMP_PORT_NAME_MAX == UMP_RT_PORT_NAME_MAX, "one port name limit");

static void idle(void *arg)
{
    (void)arg;
    ump_progress();
}

int ump_port_open(char *name, size_t len)
{
    UMP_CORE_CHECK_INIT();
    if (!name) return UMP_ERR_INVALID;
    ump_core_lock();
    int rc = ump_rt_port_open(ump_core.rt, name, len);
    ump_core_unlock();
    return rc;
}

int ump_port_close(const char *name)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_port_close(ump_core.rt, name);
    ump_core_unlock();
    return rc;
}

int ump_port_accept(const char *name, const void *mine, size_t mlen, void **theirs, size_t *tlen)
{
    UMP_CORE_CHECK_INIT();
    if (!theirs || !tlen || (mlen && !mine)) return UMP_ERR_INVALID;
    return ump_rt_port_accept(ump_core.rt, name, mine, mlen, theirs, tlen, idle, NULL);
}

int ump_port_connect(const char *name, const void *mine, size_t mlen, void **theirs, size_t *tlen,
                     int timeout_s)
{
    UMP_CORE_CHECK_INIT();
    if (!theirs || !tlen || (mlen && !mine)) return UMP_ERR_INVALID;
    return ump_rt_port_connect(ump_core.rt, name, mine, mlen, theirs, tlen, timeout_s, idle, NULL);
}

int ump_join(int fd, const void *mine, size_t mlen, void **theirs, size_t *tlen)
{
    UMP_CORE_CHECK_INIT();
    if (fd < 0 || !theirs || !tlen || (mlen && !mine)) return UMP_ERR_INVALID;
    return ump_rt_join(ump_core.rt, fd, mine, mlen, theirs, tlen, idle, NULL);
}

int ump_name_publish(const char *service, const char *port)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_name_publish(ump_core.rt, service, port);
    ump_core_unlock();
    return rc;
}

int ump_name_unpublish(const char *service, const char *port)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_name_unpublish(ump_core.rt, service, port);
    ump_core_unlock();
    return rc;
}

int ump_name_lookup(const char *service, char *port, size_t len)
{
    UMP_CORE_CHECK_INIT();
    ump_core_lock();
    int rc = ump_rt_name_lookup(ump_core.rt, service, port, len);
    ump_core_unlock();
    return rc;
}

const char *ump_job_id(void)
{
    return ump_core.rt ? ump_rt_info(ump_core.rt)->job_id : "";
}
