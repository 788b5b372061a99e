/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI environment's life cycle in a one-rank job: Initialized before
 * Init, Init_thread and the granted level, Is_thread_main from another
 * thread, concurrent self-traffic from two threads at MPI_THREAD_MULTIPLE,
 * Finalize and Finalized, and MPI_COMM_SELF's delete callbacks running at
 * Finalize.
 */
#include <pthread.h>

#include "test_mpi_common.h"

static void *not_main(void *arg)
{
    int *flag = arg;
    MPI_Is_thread_main(flag);
    return NULL;
}

struct traffic {
    MPI_Comm comm;
    int tag, errors;
};

/* Sends to itself and receives, many times, checking every value. */
static void *traffic(void *arg)
{
    struct traffic *t = arg;
    for (int i = 0; i < 2000; i++) {
        int v = i * 3 + t->tag, got = -1;
        MPI_Request r;
        if (MPI_Irecv(&got, 1, MPI_INT, 0, t->tag, t->comm, &r) != MPI_SUCCESS ||
            MPI_Send(&v, 1, MPI_INT, 0, t->tag, t->comm) != MPI_SUCCESS ||
            MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS || got != v)
            t->errors++;
    }
    return NULL;
}

static int finalize_deletes;

static int on_finalize(MPI_Comm c, int k, void *val, void *extra)
{
    /* MPI is still usable in here (MPI 3.1 8.7.1). */
    int flag = 0;
    MPI_Finalized(&flag);
    if (!flag) finalize_deletes++;
    return MPI_SUCCESS;
}

static void test_life_cycle(void **state)
{
    int flag = -1, provided = -1;
    assert_int_equal(MPI_Initialized(&flag), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    assert_true(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE);
    int q;
    MPI_Query_thread(&q);
    assert_int_equal(q, provided);
    MPI_Initialized(&flag);
    assert_true(flag);
    MPI_Is_thread_main(&flag);
    assert_true(flag);
    pthread_t th;
    flag = -1;
    pthread_create(&th, NULL, not_main, &flag);
    pthread_join(th, NULL);
    assert_int_equal(flag, 0);

    if (provided == MPI_THREAD_MULTIPLE) {
        struct traffic t[2] = {{MPI_COMM_WORLD, 1, 0}, {MPI_COMM_WORLD, 2, 0}};
        MPI_Comm_dup(MPI_COMM_WORLD, &t[1].comm);
        pthread_t ths[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&ths[i], NULL, traffic, &t[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(ths[i], NULL);
        assert_int_equal(t[0].errors, 0);
        assert_int_equal(t[1].errors, 0);
        MPI_Comm_free(&t[1].comm);
    } else {
        print_message("the core granted thread level %d; skipping the threaded traffic\n",
                      provided);
    }

    int k;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &k, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, k, NULL);
    assert_int_equal(MPI_Finalize(), MPI_SUCCESS);
    assert_int_equal(finalize_deletes, 1);
    MPI_Finalized(&flag);
    assert_true(flag);
    MPI_Initialized(&flag);
    assert_true(flag); /* stays true after Finalize (MPI 3.1 8.7) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_life_cycle)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
