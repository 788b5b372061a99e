/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Type_create_f90_integer / real / complex (MPI 3.1 17.2.5): the
 * predefined Fortran type of the smallest kind with the requested decimal
 * range (integers) or precision and exponent range (reals, complexes),
 * as SELECTED_INT_KIND and SELECTED_REAL_KIND choose them for gfortran on
 * IEEE hardware: INTEGER1/2/4/8 hold 2/4/9/18 digits, REAL4 6 digits and
 * exponents to 37, REAL8 15 digits and exponents to 307. MPI_UNDEFINED
 * leaves p or r free. The type returned behaves as that named type, but
 * MPI_Type_get_envelope reports MPI_COMBINER_F90_* with the arguments as
 * its integers (ump_dt_param); the same arguments give the same handle,
 * and like every predefined type it cannot be freed.
 */
#include "mpi/mpi_impl.h"

static int param(const char *call, MPI_Datatype base, int combiner, int ni, const int *ints,
                 MPI_Datatype *newtype)
{
    ump_dt_t t;
    int rc = ump_dt_param(base, combiner, ni, ints, &t);
    if (rc != UMP_OK) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    *newtype = (MPI_Datatype)t;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_f90_integer";
    UMP_MPI_CHECK_INIT(call);
    if (!newtype) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newtype is NULL");
    static const struct {
        int r;
        MPI_Datatype dt;
    } kinds[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}};
    int r0 = r;
    if (r == MPI_UNDEFINED) r = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (r <= kinds[k].r)
            return param(call, kinds[k].dt, UMP_DT_COMBINER_F90_INTEGER, 1, &r0, newtype);
    return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                         "no integer kind has a range of %d decimal digits (18 at most)", r);
}

/* 0: the 4-byte kind, 1: the 8-byte kind, -1: none. */
static int real_kind(int p, int r)
{
    if (p == MPI_UNDEFINED) p = 0;
    if (r == MPI_UNDEFINED) r = 0;
    if (p <= 6 && r <= 37) return 0;
    if (p <= 15 && r <= 307) return 1;
    return -1;
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_f90_real";
    UMP_MPI_CHECK_INIT(call);
    if (!newtype) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newtype is NULL");
    int k = real_kind(p, r);
    if (k < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "no real kind has precision %d and exponent range %d (15 and 307 at "
                             "most)",
                             p, r);
    int pr[2] = {p, r};
    return param(call, k ? MPI_REAL8 : MPI_REAL4, UMP_DT_COMBINER_F90_REAL, 2, pr, newtype);
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_f90_complex";
    UMP_MPI_CHECK_INIT(call);
    if (!newtype) return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newtype is NULL");
    int k = real_kind(p, r);
    if (k < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "no complex kind has precision %d and exponent range %d (15 and 307 "
                             "at most)",
                             p, r);
    int pr[2] = {p, r};
    return param(call, k ? MPI_COMPLEX16 : MPI_COMPLEX8, UMP_DT_COMBINER_F90_COMPLEX, 2, pr,
                 newtype);
}
