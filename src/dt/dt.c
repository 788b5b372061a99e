/* SPDX-License-Identifier: BSD-3-Clause */
#include "dt/dt.h"

const struct ump_dt ump_dt_byte_s = {.size = 1, .extent = 1, .contiguous = true, .name = "byte"};

size_t ump_dt_size(ump_dt_t dt)
{
    return dt ? dt->size : 0;
}
