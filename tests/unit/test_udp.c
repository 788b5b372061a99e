/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UDP transport through its ops table, as a singleton job: datagrams
 * that are not ump's, are from another job (wrong tag), are truncated or
 * carry a bad rel header are dropped and counted; arm() reports pending
 * input and an idle transport sleeps.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/crc32c.h"
#include "xport/udp/udp.h"

static void on_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data, size_t len)
{
    (*(int *)arg)++;
}

static void test_foreign(void **state)
{
    setenv("UMP_UDP_MTU", "1000", 1);
    ump_cfg_load(true);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    int calls = 0;
    ump_xp_params_t params = {.rt = rt, .am_handler = on_am, .arg = &calls};
    ump_xp_t *base;
    assert_int_equal(ump_xp_udp_ops.open(&params, &base), UMP_OK);
    ump_udp_xp_t *xp = (ump_udp_xp_t *)base;
    assert_true(base->caps.reliable && base->caps.ordered);
    assert_true(base->caps.max_am >= base->caps.eager_limit);
    assert_true(base->caps.max_am >= base->caps.seg_size);
    assert_int_equal(xp->mtu, 1000);
    assert_false(ump_xp_udp_ops.reaches(base, 0)); /* our own rank goes by self */
    assert_int_equal(ump_xp_udp_ops.wireup(base), UMP_OK);
    assert_true(ump_xp_udp_ops.wait_fd(base) >= 0);
    assert_int_equal(ump_xp_udp_ops.arm(base), UMP_OK); /* idle: may sleep */

    struct sockaddr_in to;
    assert_int_equal(ump_udp_sockname(xp->rfd, &to), UMP_OK);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    uint8_t buf[1200];
    memset(buf, 0x5a, sizeof(buf));
    /* 1: not ump's at all. */
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 2: ump's magic, another job's secret. */
    ump_udp_hdr_t h = {.magic = UMP_UDP_MAGIC};
    uint8_t other[UMP_RT_SECRET_LEN] = {1, 2, 3};
    h.tag = ump_udp_tag(ump_crc32c(0, other, sizeof(other)), buf + 8, 92);
    memcpy(buf, &h, sizeof(h));
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 3: our tag, but no valid rel datagram behind it. */
    h.tag = ump_udp_tag(xp->key, buf + 8, 92);
    memcpy(buf, &h, sizeof(h));
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 4: larger than our datagram size. */
    assert_int_equal(sendto(fd, buf, 1200, 0, (struct sockaddr *)&to, sizeof(to)), 1200);
    close(fd);

    usleep(20000);
    assert_int_equal(ump_xp_udp_ops.arm(base), UMP_ERR_BUSY); /* input waits */
    assert_true(ump_xp_udp_ops.progress(base) >= 0);
    assert_int_equal(xp->foreign, 2);
    assert_int_equal(xp->truncated, 1);
    ump_rel_stats_t st;
    ump_rel_get_stats(xp->rel, &st);
    assert_int_equal(st.corrupted + st.malformed, 1);
    assert_int_equal(st.delivered, 0);
    assert_int_equal(calls, 0);
    assert_int_equal(ump_xp_udp_ops.arm(base), UMP_OK);
    assert_int_equal(ump_xp_udp_ops.flush(base), UMP_OK);
    /* Our own rank and out-of-range ranks are not this transport's. */
    assert_int_equal(ump_xp_udp_ops.am_send(base, 0, 1, "x", 1, NULL, 0), UMP_ERR_INVALID);
    assert_int_equal(ump_xp_udp_ops.am_send(base, 7, 1, "x", 1, NULL, 0), UMP_ERR_INVALID);
    ump_xp_udp_ops.close(base);
    ump_rt_fini(rt);
    unsetenv("UMP_UDP_MTU");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_foreign)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
