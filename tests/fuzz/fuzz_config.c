/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunable values from the environment (src/util/config.c): sizes with
 * k/m/g suffixes, integers, doubles, booleans, enums and strings, each
 * through ump_cfg_load() as the library reads them at start.
 *
 * Input: u8 tunable index, then the value (up to the first NUL).
 */
#include <string.h>

#include "fuzz.h"
#include "util/util.h"

extern char **environ;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size, 0};
    size_t count = 0;
    while (ump_cfg_at(count))
        count++;
    if (count == 0) fuzz_fail("no tunables registered");
    ump_cfg_t *c = (ump_cfg_t *)ump_cfg_at(fuzz_u8(&in) % count);
    size_t len;
    const uint8_t *v = fuzz_bytes(&in, fuzz_left(&in), &len);

    /* Our own environment block: setenv() would keep every value ever
     * set, and the loader walks environ for unknown names too. */
    static char var[8192];
    int k = snprintf(var, sizeof(var), "%s=", c->name);
    if (len > sizeof(var) - (size_t)k - 1) len = sizeof(var) - (size_t)k - 1;
    memcpy(var + k, v, len);
    var[k + len] = '\0';
    const char *value = var + k;
    char *env[] = {var, NULL};
    char **saved = environ;
    environ = env;
    ump_cfg_load(true);
    environ = saved;

    char out[256];
    ump_cfg_format(c, out, sizeof(out));
    if (c->from_env && c->type == UMP_CFG_ENUM && strcasecmp(out, value))
        fuzz_fail("%s='%s' read back as '%s'", c->name, value, out);

    size_t sz;
    if (ump_parse_size(value, &sz) == 0 && strchr(value, '-'))
        fuzz_fail("size '%s' with a sign accepted as %zu", value, sz);
    if (ump_parse_size(value, &sz) == 0 && value[0] >= '0' && value[0] <= '9' &&
        strspn(value, "0123456789") == strlen(value) && strlen(value) < 19 &&
        (unsigned long long)sz != strtoull(value, NULL, 10) && value[0] != '0')
        fuzz_fail("size '%s' read as %zu", value, sz);
    return 0;
}
