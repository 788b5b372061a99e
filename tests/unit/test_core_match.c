/* SPDX-License-Identifier: BSD-3-Clause */
/* The matching queues: order, wildcards and contexts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"

static void post(ump_ctxq_t *q, struct ump_request *r, int src, int tag)
{
    memset(r, 0, sizeof(*r));
    r->peer = src;
    r->tag = tag;
    r->flags = UMP_RF_POSTED;
    TAILQ_INSERT_TAIL(&q->posted, r, link);
}

static ump_unexp_t *arrive(ump_ctxq_t *q, int src, int tag)
{
    ump_unexp_t *u = ump_core_unexp_alloc(0);
    assert_non_null(u);
    u->src = src;
    u->h.m.tag = tag;
    TAILQ_INSERT_TAIL(&q->unexp, u, link);
    return u;
}

static void test_posted_order_and_wildcards(void **state)
{
    ump_ctxq_t *q = ump_core_ctxq(7, true);
    struct ump_request a, b, c, d;
    post(q, &a, 1, 5);
    post(q, &b, UMP_ANY_SOURCE, 5);
    post(q, &c, 2, UMP_ANY_TAG);
    post(q, &d, UMP_ANY_SOURCE, UMP_ANY_TAG);
    /* A message from 2 tag 5 meets the first receive that accepts it: b. */
    assert_ptr_equal(ump_core_match_posted(q, 2, 5), &b);
    assert_ptr_equal(ump_core_match_posted(q, 2, 9), &c);
    assert_ptr_equal(ump_core_match_posted(q, 1, 5), &a);
    assert_ptr_equal(ump_core_match_posted(q, 3, 1), &d);
    assert_null(ump_core_match_posted(q, 1, 5));
    assert_false(a.flags & UMP_RF_POSTED);
}

static void test_unexpected_order(void **state)
{
    ump_ctxq_t *q = ump_core_ctxq(8, true);
    ump_unexp_t *m1 = arrive(q, 1, 3);
    ump_unexp_t *m2 = arrive(q, 2, 3);
    ump_unexp_t *m3 = arrive(q, 1, 4);
    /* Peek without taking, then take in arrival order. */
    assert_ptr_equal(ump_core_match_unexp(q, UMP_ANY_SOURCE, UMP_ANY_TAG, false), m1);
    assert_ptr_equal(ump_core_match_unexp(q, 1, 4, true), m3);
    assert_ptr_equal(ump_core_match_unexp(q, UMP_ANY_SOURCE, 3, true), m1);
    assert_null(ump_core_match_unexp(q, 1, UMP_ANY_TAG, true));
    assert_ptr_equal(ump_core_match_unexp(q, UMP_ANY_SOURCE, UMP_ANY_TAG, true), m2);
    ump_core_unexp_free(m1);
    ump_core_unexp_free(m2);
    ump_core_unexp_free(m3);
}

static void test_contexts_are_separate(void **state)
{
    ump_ctxq_t *q1 = ump_core_ctxq(100, true);
    ump_ctxq_t *q2 = ump_core_ctxq(200, true);
    assert_ptr_not_equal(q1, q2);
    assert_ptr_equal(ump_core_ctxq(100, false), q1);
    assert_ptr_equal(ump_core_ctxq(200, false), q2);
    assert_null(ump_core_ctxq(300, false));
    arrive(q1, 0, 1);
    assert_null(ump_core_match_unexp(q2, UMP_ANY_SOURCE, UMP_ANY_TAG, false));
    assert_non_null(ump_core_match_unexp(q1, UMP_ANY_SOURCE, UMP_ANY_TAG, false));
}

static void test_unexp_size_classes(void **state)
{
    size_t sizes[] = {0, 256, 257, 2048, 16385, 65536 + 64, 65536 + 65, 1 << 20};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        ump_unexp_t *u = ump_core_unexp_alloc(sizes[i]);
        assert_non_null(u);
        memset(u->data, 0x5a, sizes[i]); /* ASan checks the room is there */
        ump_core_unexp_free(u);
    }
}

static int teardown(void **state)
{
    ump_core_ctxq_destroy_all();
    for (size_t i = 0; i < UMP_ARRAY_SIZE(ump_core.unexp_fl); i++)
        ump_freelist_destroy(&ump_core.unexp_fl[i]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posted_order_and_wildcards),
        cmocka_unit_test(test_unexpected_order),
        cmocka_unit_test(test_contexts_are_separate),
        cmocka_unit_test(test_unexp_size_classes),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
