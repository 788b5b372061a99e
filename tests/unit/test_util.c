/* SPDX-License-Identifier: BSD-3-Clause */
/* The util layer: free lists, tunable parsing, status names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/util.h"

UMP_CFG(t_size, "UMP_TEST_SIZE", UMP_CFG_SIZE, "64k", "test size");
UMP_CFG(t_int, "UMP_TEST_INT", UMP_CFG_INT, "-3", "test int");
UMP_CFG(t_bool, "UMP_TEST_BOOL", UMP_CFG_BOOL, "no", "test bool");
UMP_CFG_ENUM_(t_enum, "UMP_TEST_ENUM", "b", "a|b|c", "test enum");
UMP_CFG(t_str, "UMP_TEST_STR", UMP_CFG_STRING, "x,y", "test string");

static void test_parse_size(void **state)
{
    size_t v;
    assert_int_equal(ump_parse_size("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(ump_parse_size("123", &v), 0);
    assert_int_equal(v, 123);
    assert_int_equal(ump_parse_size("64k", &v), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(ump_parse_size("4M", &v), 0);
    assert_int_equal(v, 4u << 20);
    assert_int_equal(ump_parse_size("1g", &v), 0);
    assert_int_equal(v, 1u << 30);
    assert_int_equal(ump_parse_size("2kb", &v), 0);
    assert_int_equal(v, 2048);
    assert_int_not_equal(ump_parse_size("", &v), 0);
    assert_int_not_equal(ump_parse_size("k", &v), 0);
    assert_int_not_equal(ump_parse_size("12q", &v), 0);
    assert_int_not_equal(ump_parse_size("-1", &v), 0);
    assert_int_not_equal(ump_parse_size("99999999999999999999g", &v), 0);
}

static void test_defaults_and_env(void **state)
{
    unsetenv("UMP_TEST_SIZE");
    ump_cfg_load(true);
    assert_int_equal(t_size.v.sz, 65536);
    assert_int_equal(t_int.v.i, -3);
    assert_int_equal(t_bool.v.b, 0);
    assert_int_equal(t_enum.v.e, 1);
    assert_string_equal(t_str.v.s, "x,y");
    assert_false(t_size.from_env);

    setenv("UMP_TEST_SIZE", "3m", 1);
    setenv("UMP_TEST_INT", "42", 1);
    setenv("UMP_TEST_BOOL", "on", 1);
    setenv("UMP_TEST_ENUM", "C", 1);
    ump_cfg_load(true);
    assert_int_equal(t_size.v.sz, 3u << 20);
    assert_true(t_size.from_env);
    assert_int_equal(t_int.v.i, 42);
    assert_int_equal(t_bool.v.b, 1);
    assert_int_equal(t_enum.v.e, 2);

    /* A bad value falls back to the default. */
    setenv("UMP_TEST_ENUM", "zzz", 1);
    setenv("UMP_TEST_INT", "4x", 1);
    ump_cfg_load(true);
    assert_int_equal(t_enum.v.e, 1);
    assert_int_equal(t_int.v.i, -3);
    assert_false(t_int.from_env);

    char buf[64];
    ump_cfg_format(&t_enum, buf, sizeof(buf));
    assert_string_equal(buf, "b");
    ump_cfg_format(&t_size, buf, sizeof(buf));
    assert_string_equal(buf, "3145728");
}

static void test_table(void **state)
{
    assert_non_null(ump_cfg_find("UMP_TEST_BOOL"));
    assert_non_null(ump_cfg_find("UMP_LOG"));
    assert_null(ump_cfg_find("UMP_NO_SUCH_THING"));
    /* Sorted by name, every entry documented. */
    const ump_cfg_t *prev = NULL;
    for (size_t i = 0; ump_cfg_at(i); i++) {
        const ump_cfg_t *c = ump_cfg_at(i);
        assert_true(strncmp(c->name, "UMP_", 4) == 0);
        assert_true(strlen(c->doc) > 0);
        if (prev) assert_true(strcmp(prev->name, c->name) < 0);
        prev = c;
    }
}

static void test_freelist(void **state)
{
    ump_freelist_t fl;
    void *objs[1000];
    ump_freelist_init(&fl, 40, 16);
    for (int i = 0; i < 1000; i++) {
        objs[i] = ump_freelist_get(&fl);
        assert_non_null(objs[i]);
        assert_int_equal((uintptr_t)objs[i] % 16, 0);
        for (int b = 0; b < 40; b++)
            assert_int_equal(((unsigned char *)objs[i])[b], 0);
        memset(objs[i], i & 0xff, 40);
    }
    assert_int_equal(fl.in_use, 1000);
    /* No two objects overlap: each still holds its own pattern. */
    for (int i = 0; i < 1000; i++)
        assert_int_equal(((unsigned char *)objs[i])[39], i & 0xff);
    size_t carved = fl.allocated;
    for (int i = 0; i < 1000; i++)
        ump_freelist_put(&fl, objs[i]);
    assert_int_equal(fl.in_use, 0);
    for (int i = 0; i < 1000; i++)
        objs[i] = ump_freelist_get(&fl);
    assert_int_equal(fl.allocated, carved); /* reused, not grown */
    ump_freelist_destroy(&fl);
}

/* ump_copy_short: every length 0-40 at every source and destination
 * offset 0-7 copies exactly its bytes and touches none around them. */
static void test_copy_short(void **state)
{
    (void)state;
    unsigned char src[64], dst[64], want[64];
    for (int i = 0; i < 64; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    for (size_t n = 0; n <= 40; n++)
        for (size_t so = 0; so < 8; so++)
            for (size_t d_o = 0; d_o < 8; d_o++) {
                memset(dst, 0xee, sizeof(dst));
                memset(want, 0xee, sizeof(want));
                memcpy(want + d_o, src + so, n);
                ump_copy_short(dst + d_o, src + so, n);
                assert_memory_equal(dst, want, sizeof(dst));
            }
}

static void test_status_names(void **state)
{
    assert_string_equal(ump_status_name(UMP_OK), "UMP_OK");
    assert_string_equal(ump_status_name(UMP_ERR_PEER_DEAD), "UMP_ERR_PEER_DEAD");
    assert_string_equal(ump_strerror(UMP_ERR_TRUNCATE),
                        "message truncated: receive buffer too small");
    assert_string_equal(ump_status_name(-999), "UMP_ERR_UNKNOWN");
    char hex[9];
    unsigned char b[4] = {0x00, 0xab, 0x10, 0xff};
    ump_hex_encode(b, 4, hex);
    assert_string_equal(hex, "00ab10ff");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),   cmocka_unit_test(test_defaults_and_env),
        cmocka_unit_test(test_table),        cmocka_unit_test(test_freelist),
        cmocka_unit_test(test_status_names), cmocka_unit_test(test_copy_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
