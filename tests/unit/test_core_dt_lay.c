/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Layouts a receiver keeps (self transport, scatter/gather allowed, so the
 * RTS of a non-contiguous send carries the sender's layout): an RTS that
 * holds one waits as unexpected and is never received (its sender died),
 * more types than the 64 slots go round, and finalize releases everything
 * (the sanitizer build checks that nothing leaks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "mpi.h"
#include "ump.h"

static struct ump_dt *vec(int blk)
{
    struct ump_dt *t;
    assert_int_equal(ump_dt_vector(64, blk, blk + 3, MPI_INT, &t), UMP_OK);
    assert_int_equal(ump_dt_commit(t), UMP_OK);
    return t;
}

static void test_layouts_to_finalize(void **state)
{
    (void)state;
    int provided;
    setenv("UMP_TRANSPORTS", "self", 1);
    assert_int_equal(ump_init(NULL, NULL, UMP_THREAD_SINGLE, &provided), UMP_OK);
    int *s = calloc(64 * 200, sizeof(int)), *r = calloc(64 * 200, sizeof(int));
    /* 100 types through the 64 slots, each received. */
    for (int i = 0; i < 100; i++) {
        struct ump_dt *t = vec(100 + i % 50);
        ump_req_t sr, rr;
        assert_int_equal(ump_isend(s, 1, t, 0, i, 3, &sr), UMP_OK);
        ump_progress(); /* the RTS (with the layout) waits as unexpected */
        assert_int_equal(ump_irecv(r, 1, t, 0, i, 3, &rr), UMP_OK);
        assert_int_equal(ump_wait(&rr, NULL), UMP_OK);
        assert_int_equal(ump_wait(&sr, NULL), UMP_OK);
        ump_dt_free(&t);
    }
    assert_non_null(ump_core.peers[0].lay_rx);
    /* One more that is never received: its sender dies. */
    struct ump_dt *t = vec(77);
    ump_req_t sr;
    assert_int_equal(ump_isend(s, 1, t, 0, 500, 3, &sr), UMP_OK);
    ump_progress();
    ump_dt_free(&t);
    ump_core_lock();
    ump_core_fail_peer(0, UMP_ERR_PEER_DEAD);
    ump_core_unlock();
    assert_int_equal(ump_wait(&sr, NULL), UMP_ERR_PEER_DEAD);
    int flag;
    ump_status_t st;
    assert_int_equal(ump_iprobe(0, 500, 3, &flag, &st), UMP_OK);
    assert_true(flag);              /* still held, with its layout, until finalize */
    ump_core.peers[0].dead = false; /* finalize's fence needs no peer, but be tidy */
    assert_int_equal(ump_finalize(), UMP_OK);
    free(s);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_to_finalize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
