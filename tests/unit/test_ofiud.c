/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ofiud transport (rel over libfabric datagram endpoints) through its
 * ops table, as a singleton job on the udp provider: datagrams that are
 * not ump's, are from another job (wrong tag), come from an address that
 * is not in the job, claim a rank other than the one whose endpoint sent
 * them, or are larger than the datagram size are dropped and counted, and
 * none reaches the engine or the core; arm() reports pending input and an
 * idle transport may sleep. Skipped (77) where libfabric or its udp
 * provider is absent.
 */
#include <arpa/inet.h>
#include <endian.h>
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

#if __has_include(<rdma/fabric.h>)
#include "util/crc32c.h"
#include "xport/ofi/ofi_dgram.h"

static const ump_xp_ops_t *find_ofiud(void)
{
    const ump_xp_ops_t *const *reg = ump_xp_registry();
    for (int i = 0; reg[i]; i++)
        if (!strcmp(reg[i]->name, "ofiud")) return reg[i];
    return NULL;
}

static void on_am(void *arg, ump_xp_t *xp, int peer, uint8_t am_id, const void *data, size_t len)
{
    (*(int *)arg)++;
}

/* A datagram of `len` bytes: our header with `key`'s tag, then a rel
 * header naming rank `src`, then filler. */
static void forge(uint8_t *buf, size_t len, uint32_t key, uint32_t src)
{
    memset(buf, 0x5a, len);
    uint32_t s = htole32(src);
    memcpy(buf + UMP_OFIUD_HDR + offsetof(ump_rel_hdr_t, src), &s, sizeof(s));
    ofiud_hdr_t h = {.magic = htole32(UMP_OFIUD_MAGIC)};
    h.tag = ump_rel_tag(key, buf + UMP_OFIUD_HDR, len - UMP_OFIUD_HDR);
    memcpy(buf, &h, sizeof(h));
}

static void test_foreign(void **state)
{
    const ump_xp_ops_t *ops = find_ofiud();
    if (!ops) skip();
    setenv("UMP_OFIUD_PROVIDER", "udp", 1);
    setenv("UMP_OFIUD_MTU", "1000", 1);
    setenv("UMP_OFIUD_STRIPES", "2", 1);
    ump_cfg_load(true);
    ump_rt_t *rt;
    assert_int_equal(ump_rt_init(&rt), UMP_OK);
    int calls = 0;
    ump_xp_params_t params = {.rt = rt, .am_handler = on_am, .arg = &calls};
    ump_xp_t *base;
    int rc = ops->open(&params, &base);
    if (rc == UMP_ERR_UNSUPPORTED || rc == UMP_ERR_IO) {
        ump_rt_fini(rt);
        skip(); /* no libfabric, or no udp provider */
    }
    assert_int_equal(rc, UMP_OK);
    ofiud_xp_t *xp = (ofiud_xp_t *)base;
    assert_true(base->caps.reliable && base->caps.ordered);
    assert_true(base->caps.max_am >= base->caps.eager_limit);
    assert_true(base->caps.max_am >= base->caps.seg_size);
    assert_int_equal(xp->mtu, 1000);
    assert_int_equal(xp->nep, 2);
    assert_int_equal(ops->wireup(base), UMP_OK);
    assert_false(ops->reaches(base, 0)); /* our own rank goes by self */
    assert_true(ops->wait_fd(base) >= 0);
    assert_true(xp->source);                  /* the udp provider reports sources */
    assert_int_equal(ops->arm(base), UMP_OK); /* idle: may sleep */

    struct sockaddr_in to;
    size_t tlen = sizeof(to);
    assert_int_equal(fi_getname(&xp->ep[0]->fid, &to, &tlen), 0);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    uint8_t buf[1200];
    /* 1: not ump's at all. */
    memset(buf, 0x5a, sizeof(buf));
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 2: ump's magic, another job's secret. */
    uint8_t other[UMP_RT_SECRET_LEN] = {1, 2, 3};
    forge(buf, 100, ump_crc32c(0, other, sizeof(other)), 0);
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    /* 3: our tag, from an address that is not in the job. */
    forge(buf, 100, xp->key, 0);
    assert_int_equal(sendto(fd, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)), 100);
    close(fd);
    /* 4: our tag, from our own second endpoint (rank 0's), claiming rank 3. */
    forge(buf, 100, xp->key, 3);
    assert_int_equal(fi_inject(xp->ep[1], buf, 100, xp->av_addr[0]), 0);
    /* 5: larger than our datagrams, from a job endpoint. */
    forge(buf, 1200, xp->key, 0);
    assert_int_equal(fi_inject(xp->ep[1], buf, 1200, xp->av_addr[0]), 0);

    int armed = UMP_OK;
    for (int i = 0; i < 200 && armed == UMP_OK; i++) {
        usleep(1000);
        armed = ops->arm(base);
    }
    assert_int_equal(armed, UMP_ERR_BUSY); /* input waits */
    for (int i = 0; i < 200 && xp->recvs + xp->truncated < 5; i++) {
        assert_true(ops->progress(base) >= 0);
        usleep(1000);
    }
    assert_int_equal(xp->foreign, 3);
    assert_int_equal(xp->spoofed, 1);
    assert_int_equal(xp->truncated, 1);
    ump_rel_stats_t st;
    ump_rel_get_stats(xp->rel, &st);
    assert_int_equal(st.corrupted + st.malformed + st.received, 0); /* rel never saw one */
    assert_int_equal(calls, 0);
    assert_int_equal(ops->arm(base), UMP_OK);
    assert_int_equal(ops->flush(base), UMP_OK);
    /* Our own rank and out-of-range ranks are not this transport's. */
    assert_int_equal(ops->am_send(base, 0, 1, "x", 1, NULL, 0), UMP_ERR_INVALID);
    assert_int_equal(ops->am_send(base, 7, 1, "x", 1, NULL, 0), UMP_ERR_INVALID);
    ops->close(base);
    ump_rt_fini(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_foreign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    puts("libfabric headers absent: ofiud not built, test skipped");
    return 77;
}
#endif
