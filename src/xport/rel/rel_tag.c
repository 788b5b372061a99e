/* SPDX-License-Identifier: BSD-3-Clause */
/* rel_tag.c - the keyed tag the datagram transports put in front of a rel
 * datagram (rel.h). */
#include "util/crc32c.h"
#include "util/util.h"
#include "xport/rel/rel.h"

uint32_t ump_rel_tag(uint32_t key, const void *data, size_t len)
{
    return ump_crc32c(key, data, UMP_MIN(len, (size_t)UMP_REL_TAG_SPAN));
}
