/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * names.c - names every MPI 3.1 C function (and its PMPI_ form), constant,
 * predefined handle and type that ump offers, so that a missing one fails
 * the build: a function must be declared (its address is taken) and
 * defined (the program links), an integer constant must be a constant
 * expression, a handle or callback constant must have its C type. The
 * lists are the text files beside this one, turned into names_list.h by CMake
 * (tests/mpi/tests.cmake); MPI-IO is left out (io_excluded.txt).
 *
 * Run, it checks what can be checked without MPI_Init: every address is
 * non-null, the error classes are distinct and within MPI_ERR_LASTCODE,
 * and the null handles differ from the predefined ones.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef void (*names_fn_t)(void);

/* names_list.h calls NAMES_FN(name), NAMES_INT(name), NAMES_CONST(type,
 * name), NAMES_FNCONST(type, name) and NAMES_TYPE(type) once per name;
 * each table below defines the one it wants and leaves the rest empty. */
#define NAMES_FN(n)
#define NAMES_INT(n)
#define NAMES_CONST(type, n)
#define NAMES_FNCONST(type, n)
#define NAMES_TYPE(t)

/* Integer constants are constant expressions (file-scope initializers);
 * handle and pointer constants have their C type. Not static: the
 * compiler must not drop them unused. */
#undef NAMES_INT
#undef NAMES_CONST
#define NAMES_INT(n)                                                                               \
    extern const int names_c_##n;                                                                  \
    const int names_c_##n = (n);
#define NAMES_CONST(type, n)                                                                       \
    extern type const names_h_##n;                                                                 \
    type const names_h_##n = (n);
#include "names_list.h"
#undef NAMES_INT
#undef NAMES_CONST
#define NAMES_INT(n)
#define NAMES_CONST(type, n)

static const struct {
    const char *name;
    names_fn_t fn;
} functions[] = {
#undef NAMES_FN
#define NAMES_FN(n) {#n, (names_fn_t)n}, {"P" #n, (names_fn_t)P##n},
#include "names_list.h"
#undef NAMES_FN
#define NAMES_FN(n)
};

static const struct {
    const char *name;
    names_fn_t fn;
} callbacks[] = {
#undef NAMES_FNCONST
#define NAMES_FNCONST(type, n) {#n, (names_fn_t)(type *)(n)},
#include "names_list.h"
#undef NAMES_FNCONST
#define NAMES_FNCONST(type, n)
};

static const struct {
    const char *name;
    int value;
} ints[] = {
#undef NAMES_INT
#define NAMES_INT(n) {#n, (n)},
#include "names_list.h"
#undef NAMES_INT
#define NAMES_INT(n)
};

static const size_t type_sizes[] = {
#undef NAMES_TYPE
#define NAMES_TYPE(t) sizeof(t),
#include "names_list.h"
#undef NAMES_TYPE
#define NAMES_TYPE(t)
};

static int value_of(const char *name)
{
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        if (!strcmp(ints[i].name, name)) return ints[i].value;
    fprintf(stderr, "names: %s is not in the list\n", name);
    return -12345;
}

int main(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
        if (!functions[i].fn) {
            fprintf(stderr, "names: %s has no address\n", functions[i].name);
            bad++;
        }
    for (size_t i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++)
        if (!callbacks[i].fn) {
            fprintf(stderr, "names: %s is a null function\n", callbacks[i].name);
            bad++;
        }
    for (size_t i = 0; i < sizeof(type_sizes) / sizeof(type_sizes[0]); i++)
        if (!type_sizes[i]) bad++;
    /* Error classes: distinct, in [0, MPI_ERR_LASTCODE]. */
    int last = value_of("MPI_ERR_LASTCODE"), nerr = 0;
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        const char *n = ints[i].name;
        bool is_err = !strncmp(n, "MPI_ERR_", 8) || !strncmp(n, "MPI_T_ERR_", 10) ||
                      !strcmp(n, "MPI_SUCCESS");
        if (!is_err || !strcmp(n, "MPI_ERR_LASTCODE")) continue;
        nerr++;
        if (ints[i].value < 0 || ints[i].value > last) {
            fprintf(stderr, "names: %s = %d is outside [0, MPI_ERR_LASTCODE = %d]\n", n,
                    ints[i].value, last);
            bad++;
        }
        for (size_t j = 0; j < i; j++)
            if (ints[j].value == ints[i].value && (!strncmp(ints[j].name, "MPI_ERR_", 8) ||
                                                   !strncmp(ints[j].name, "MPI_T_ERR_", 10) ||
                                                   !strcmp(ints[j].name, "MPI_SUCCESS"))) {
                fprintf(stderr, "names: %s and %s are both %d\n", ints[j].name, n, ints[i].value);
                bad++;
            }
    }
    /* Null handles are not predefined objects. */
    if (MPI_COMM_NULL == MPI_COMM_WORLD || MPI_COMM_NULL == MPI_COMM_SELF ||
        MPI_GROUP_NULL == MPI_GROUP_EMPTY || MPI_DATATYPE_NULL == MPI_INT ||
        MPI_OP_NULL == MPI_SUM || MPI_INFO_NULL == MPI_INFO_ENV ||
        MPI_MESSAGE_NULL == MPI_MESSAGE_NO_PROC || MPI_ERRHANDLER_NULL == MPI_ERRORS_RETURN ||
        MPI_T_PVAR_HANDLE_NULL == MPI_T_PVAR_ALL_HANDLES) {
        fprintf(stderr, "names: a null handle equals a predefined one\n");
        bad++;
    }
    printf("names: %zu functions (with PMPI_), %zu integer constants (%d error classes), %zu "
           "callbacks, %zu types: %s\n",
           sizeof(functions) / sizeof(functions[0]), sizeof(ints) / sizeof(ints[0]), nerr,
           sizeof(callbacks) / sizeof(callbacks[0]), sizeof(type_sizes) / sizeof(type_sizes[0]),
           bad ? "FAIL" : "ok");
    return bad ? 1 : 0;
}
