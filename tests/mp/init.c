/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * init: the environment calls. Before ump_init nothing is initialized; after
 * it the rank is in [0, size), size is the expected one (argv[1]), a second
 * ump_init fails with UMP_ERR_ALREADY_INIT, the hostname is set, ump_wtime
 * moves forward, status names and strings exist, a self-send works, and after
 * ump_finalize ump_finalized() says so. Run without a launcher it must be
 * rank 0 of a 1-rank job.
 *
 * usage: init EXPECTED_SIZE
 */
#include "mp_common.h"

int main(int argc, char **argv)
{
    mp_prog = "init";
    MP_CHECK(argc == 2, "usage: init EXPECTED_SIZE");
    int expect = atoi(argv[1]);
    MP_CHECK(!ump_initialized() && !ump_finalized(), "initialized before ump_init");
    int provided = -1;
    MP_CALL(ump_init(&argc, &argv, UMP_THREAD_FUNNELED, &provided));
    MP_CHECK(provided >= UMP_THREAD_SINGLE && provided <= UMP_THREAD_FUNNELED,
             "provided %d for FUNNELED", provided);
    MP_CHECK(ump_initialized() && !ump_finalized(), "flags after init");
    int rc = ump_init(NULL, NULL, UMP_THREAD_SINGLE, NULL);
    MP_CHECK(rc == UMP_ERR_ALREADY_INIT, "second ump_init returned %d (%s)", rc,
             ump_status_name(rc));
    int me = ump_rank(), np = ump_size();
    MP_CHECK(np == expect, "size %d, expected %d", np, expect);
    MP_CHECK(me >= 0 && me < np, "rank %d of %d", me, np);
    const char *h = ump_hostname();
    MP_CHECK(h && *h, "no hostname");
    double t0 = ump_wtime();
    mp_sleep_ms(10);
    double t1 = ump_wtime();
    MP_CHECK(t1 - t0 >= 0.009 && t1 - t0 < 5, "ump_wtime moved %.6f s over a 10 ms sleep", t1 - t0);
    MP_CHECK(!strcmp(ump_status_name(UMP_ERR_TRUNCATE), "UMP_ERR_TRUNCATE"), "status name %s",
             ump_status_name(UMP_ERR_TRUNCATE));
    MP_CHECK(ump_strerror(-9999) && ump_strerror(UMP_OK), "strerror NULL");
    MP_CHECK(ump_dt_size(UMP_BYTE) == 1, "UMP_BYTE size %zu", ump_dt_size(UMP_BYTE));

    /* self-send, eager and large */
    const size_t szs[] = {0, 5, 100000, 3 << 20};
    for (size_t i = 0; i < 4; i++) {
        size_t n = szs[i];
        unsigned char *s = mp_malloc(n), *r = mp_malloc(n);
        ump_req_t q;
        ump_status_t st;
        mp_fill(s, n, me, me, 9, n);
        MP_CALL(ump_isend(s, n, UMP_BYTE, me, 9, 0, &q));
        MP_CALL(ump_recv(r, n, UMP_BYTE, UMP_ANY_SOURCE, 9, 0, &st));
        MP_CALL(ump_wait(&q, UMP_STATUS_IGNORE));
        MP_CHECK(st.source == me && st.count == n, "self: source %d count %zu", st.source,
                 st.count);
        MP_CHECK_DATA(r, n, me, me, 9, n);
        free(s);
        free(r);
    }
    /* the largest tag is a valid tag */
    {
        int v = 77, w = 0;
        ump_req_t q;
        ump_status_t st;
        MP_CALL(ump_isend(&v, sizeof(v), UMP_BYTE, me, UMP_TAG_UB, 0, &q));
        MP_CALL(ump_recv(&w, sizeof(w), UMP_BYTE, me, UMP_ANY_TAG, 0, &st));
        MP_CALL(ump_wait(&q, UMP_STATUS_IGNORE));
        MP_CHECK(w == 77 && st.tag == UMP_TAG_UB, "tag UB: value %d tag %d", w, st.tag);
    }
    /* bad arguments are refused, not crashed on */
    rc = ump_send("x", 1, UMP_BYTE, np, 0, 0);
    MP_CHECK(rc == UMP_ERR_RANK, "send to rank %d returned %d (%s)", np, rc, ump_status_name(rc));
    rc = ump_send("x", 1, UMP_BYTE, me, -5, 0);
    MP_CHECK(rc == UMP_ERR_TAG, "send with tag -5 returned %d (%s)", rc, ump_status_name(rc));
    ump_req_t nq = UMP_REQ_NULL;
    ump_status_t st;
    memset(&st, 0x55, sizeof(st));
    MP_CALL(ump_wait(&nq, &st));
    MP_CHECK(st.count == 0 && st.error == UMP_OK && !st.cancelled,
             "wait on a null request: status count %zu error %d cancelled %d", st.count, st.error,
             st.cancelled);

    if (np > 1) mp_barrier();
    printf("init: rank %d of %d on %s ok\n", me, np, h);
    MP_CALL(ump_finalize());
    MP_CHECK(ump_finalized(), "ump_finalized() is 0 after finalize");
    return 0;
}
