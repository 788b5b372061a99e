/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads: UMP_THREAD_MULTIPLE. Each of two ranks runs NT threads at once;
 * thread t of rank 0 sends K messages (sizes from 0 to 300 KB, so eager and
 * rendezvous) to rank R on context t, blocking and non-blocking in turn, and
 * thread t of rank R echoes each back; both check every byte. Meanwhile
 * one more thread on each rank calls ump_iprobe on a context nobody uses.
 * Checks that concurrent calls neither lose, swap nor corrupt messages, and
 * that a thread sleeping in a blocking call is woken when its message comes
 * even if another thread's progress took the event in: the default run must
 * take well under MAX_S seconds (it takes ~0.1 s when wake-ups work; a lost
 * wake-up that the 100 ms fallback timer repairs costs that per message, 24 s
 * for the default run). The bound leaves room for a sanitizer build on a
 * loaded 2-core machine (seen: 3.9 s), far below what lost wake-ups cost.
 * usage: threads [NTHREADS [ROUNDS]]   (defaults 4 and 60)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "mp_common.h"

#define MAXT  16
#define MAX_S 10.0
static int NT = 4, K = 60;

static int me, R;
static atomic_int stop;

static size_t size_of(int t, int k)
{
    uint64_t r = mp_mix64((uint64_t)t * 1000 + (uint64_t)k);
    return r % 3 == 0 ? (size_t)(r >> 8) % 300000 : (size_t)(r >> 8) % 5000;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *s = mp_malloc(300000), *r = mp_malloc(300000);
    ump_status_t st;
    for (int k = 0; k < K; k++) {
        size_t n = size_of(t, k);
        if (me == 0) {
            mp_fill(s, n, 0, R, k, (uint64_t)t);
            if (k % 2) {
                ump_req_t q[2];
                MP_CALL(ump_irecv(r, 300000, UMP_BYTE, R, k, (uint32_t)t, &q[0]));
                MP_CALL(ump_isend(s, n, UMP_BYTE, R, k, (uint32_t)t, &q[1]));
                ump_status_t sts[2];
                MP_CALL(ump_waitall(2, q, sts));
                st = sts[0];
            } else {
                MP_CALL(ump_send(s, n, UMP_BYTE, R, k, (uint32_t)t));
                MP_CALL(ump_recv(r, 300000, UMP_BYTE, R, k, (uint32_t)t, &st));
            }
            MP_CHECK(st.count == n && st.tag == k, "thread %d msg %d: count %zu of %zu tag %d", t,
                     k, st.count, n, st.tag);
            MP_CHECK_DATA(r, n, R, 0, k, (uint64_t)t);
        } else if (me == R) {
            MP_CALL(ump_recv(r, 300000, UMP_BYTE, 0, UMP_ANY_TAG, (uint32_t)t, &st));
            MP_CHECK(st.count == n && st.tag == k, "thread %d msg %d: count %zu of %zu tag %d", t,
                     k, st.count, n, st.tag);
            MP_CHECK_DATA(r, n, 0, R, k, (uint64_t)t);
            mp_fill(s, n, R, 0, k, (uint64_t)t);
            MP_CALL(ump_send(s, n, UMP_BYTE, 0, k, (uint32_t)t));
        }
    }
    free(s);
    free(r);
    return NULL;
}

static void *prober(void *arg)
{
    int flag;
    ump_status_t st;
    while (!atomic_load(&stop)) {
        MP_CALL(ump_iprobe(UMP_ANY_SOURCE, UMP_ANY_TAG, 4242, &flag, &st));
        MP_CHECK(!flag, "iprobe found a message on an unused context");
        usleep(200);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    mp_prog = "threads";
    setvbuf(stdout, NULL, _IOLBF, 0);
    MP_CALL(ump_init(&argc, &argv, UMP_THREAD_MULTIPLE, &provided));
    MP_CHECK(provided == UMP_THREAD_MULTIPLE, "asked for UMP_THREAD_MULTIPLE, got %d", provided);
    me = ump_rank();
    R = ump_size() - 1;
    MP_CHECK(R >= 1, "needs 2 ranks");
    if (argc > 1) NT = atoi(argv[1]);
    if (argc > 2) K = atoi(argv[2]);
    MP_CHECK(NT >= 1 && NT <= MAXT && K >= 1, "usage: threads [NTHREADS [ROUNDS]]");
    pthread_t th[MAXT], pr;
    double t0 = mp_now();
    if (me == 0 || me == R) {
        MP_CHECK(pthread_create(&pr, NULL, prober, NULL) == 0, "pthread_create");
        for (int t = 0; t < NT; t++)
            MP_CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
                     "pthread_create");
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
        atomic_store(&stop, 1);
        pthread_join(pr, NULL);
    }
    mp_barrier();
    double dt = mp_now() - t0;
    if (me == 0) printf("threads: %d threads x %d round trips ok in %.2f s\n", NT, K, dt);
    /* UMPTEST_NO_TIMING=1 (the ThreadSanitizer run of scripts/test.sh,
     * where every access is several times slower and the machine's load
     * decides the time) keeps the checks of data and drops the bound; the
     * other builds check the wake-ups. */
    const char *nt = getenv("UMPTEST_NO_TIMING");
    bool timed = !(nt && *nt && strcmp(nt, "0"));
    if (!timed && me == 0) printf("threads: wake-up time bound not checked (UMPTEST_NO_TIMING)\n");
    MP_CHECK(!timed || dt < MAX_S * NT * K / 240.0,
             "%d threads x %d round trips took %.2f s: blocked threads miss their wake-ups", NT, K,
             dt);
    mp_finalize();
    return 0;
}
