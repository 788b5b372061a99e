/* SPDX-License-Identifier: BSD-3-Clause */
/* The libfabric transport's ops table (see xport.h for each op's contract,
 * ofi.h for how this transport meets it). */
#include "xport/ofi/ofi.h"

static bool ofi_reaches(ump_xp_t *xp, int peer)
{
    return peer >= 0 && peer < ((ofi_xp_t *)xp)->size;
}

const ump_xp_ops_t ump_xp_ofi_ops = {
    .name = "ofi",
    .open = ump_ofi_open,
    .wireup = ump_ofi_wireup,
    .close = ump_ofi_close,
    .reaches = ofi_reaches,
    .am_send = ump_ofi_am_send,
    .am_send_pack = ump_ofi_am_send_pack,
    .am_send_zc = ump_ofi_am_send_zc,
    .mem_reg = ump_ofi_mem_reg,
    .mem_dereg = ump_ofi_mem_dereg,
    .get = ump_ofi_get,
    .put = ump_ofi_put,
    .progress = ump_ofi_progress,
    .arm = ump_ofi_arm,
    .wait_fd = ump_ofi_wait_fd,
    .flush = ump_ofi_flush,
};
