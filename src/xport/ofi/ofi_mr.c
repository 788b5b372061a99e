/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration for the libfabric transport: the buffer pools and
 * the core's rendezvous buffers (mem_reg), following the provider's
 * mr_mode. The core reaches mem_reg through its registration cache
 * (src/mem), which keeps registrations for reuse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "xport/ofi/ofi.h"

/* Registration failed: say why in words a user can act on. */
static int reg_error(const char *what, size_t len, int ret)
{
    struct rlimit rl;
    if ((ret == -FI_ENOMEM || ret == -FI_EFAULT || ret == -FI_EPERM || ret == -FI_EACCES) &&
        getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        ump_error("ofi: registering %zu bytes (%s) failed: %s; the locked-memory limit is %llu "
                  "KiB: raise it (`ulimit -l unlimited`, or memlock in "
                  "/etc/security/limits.conf / the batch system's settings)",
                  len, what, ump_ofi_strerror(-ret), (unsigned long long)rl.rlim_cur / 1024);
        return UMP_ERR_NO_MEMORY;
    }
    ump_error("ofi: registering %zu bytes (%s) failed: %s", len, what, ump_ofi_strerror(-ret));
    return ret == -FI_ENOMEM ? UMP_ERR_NO_MEMORY : UMP_ERR_IO;
}

int ump_ofi_mr_open(ofi_xp_t *xp, void *addr, size_t len, ofi_mr_t **out)
{
    ofi_mr_t *m = calloc(1, sizeof(*m));
    if (!m) return UMP_ERR_NO_MEMORY;
    uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    /* Without FI_MR_PROV_KEY the keys are ours to choose, distinct per
     * domain. */
    uint64_t key = (xp->mr_mode & FI_MR_PROV_KEY) ? 0 : ++xp->next_key;
    int ret = fi_mr_reg(xp->domain, addr, len, access, 0, key, 0, &m->mr, NULL);
    if (ret != 0) {
        free(m);
        return reg_error("fi_mr_reg", len, ret);
    }
    if (xp->mr_mode & FI_MR_ENDPOINT) {
        if ((ret = fi_mr_bind(m->mr, &xp->ep->fid, 0)) != 0 || (ret = fi_mr_enable(m->mr)) != 0) {
            fi_close(&m->mr->fid);
            free(m);
            return reg_error("binding to the endpoint", len, ret);
        }
    }
    m->desc = fi_mr_desc(m->mr);
    ofi_rkey_t rk = {.key = fi_mr_key(m->mr), .base = (uint64_t)(uintptr_t)addr};
    if (rk.key == FI_KEY_NOTAVAIL) {
        fi_close(&m->mr->fid);
        free(m);
        ump_error("ofi: the provider gives no 64-bit key for a registration");
        return UMP_ERR_UNSUPPORTED;
    }
    m->base = (ump_xp_mr_t){.xp = &xp->base, .addr = addr, .len = len, .rkey_len = sizeof(rk)};
    memcpy(m->base.rkey, &rk, sizeof(rk));
    *out = m;
    return UMP_OK;
}

int ump_ofi_mem_reg(ump_xp_t *xp, void *addr, size_t len, ump_xp_mr_t **mr)
{
    ofi_mr_t *m;
    int rc = ump_ofi_mr_open((ofi_xp_t *)xp, addr, len, &m);
    if (rc == UMP_OK) *mr = &m->base;
    return rc;
}

void ump_ofi_mem_dereg(ump_xp_mr_t *mr)
{
    ofi_mr_t *m = (ofi_mr_t *)mr;
    if (!m) return;
    fi_close(&m->mr->fid);
    free(m);
}
