/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the MPI unit tests (tests/unit/test_mpi_*.c): cmocka headers,
 * and a one-rank MPI job (singleton init) for each test program.
 */
#ifndef UMP_TEST_MPI_COMMON_H
#define UMP_TEST_MPI_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mpi.h"
#include "mpi/mpi_impl.h"

__attribute__((unused)) static int mpi_setup(void **state)
{
    (void)state;
    int flag;
    MPI_Initialized(&flag);
    if (!flag && MPI_Init(NULL, NULL) != MPI_SUCCESS) return -1;
    /* Argument errors come back as codes, so the tests can check them. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    return 0;
}

__attribute__((unused)) static int mpi_teardown(void **state)
{
    (void)state;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : -1;
}

/* Asserts that the last error's string names `call`. */
static inline void assert_error_names(int code, const char *call)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    assert_int_equal(MPI_Error_string(code, s, &len), MPI_SUCCESS);
    assert_int_equal((int)strlen(s), len);
    if (!strstr(s, call)) fail_msg("error string \"%s\" does not name %s", s, call);
}

#endif /* UMP_TEST_MPI_COMMON_H */
