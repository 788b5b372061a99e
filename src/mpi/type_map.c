/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * type_map.c - where MPI's datatype vocabulary meets the engine's (ump.h):
 * the combiner, order and distribution constants, the integer types behind
 * MPI_AINT, MPI_COUNT and MPI_OFFSET, and MPI's names of the predefined
 * types.
 */
#include <stdint.h>

#include "dt/dt.h"
#include "mpi/mpi_impl.h"
#include "util/util.h"

/* MPI_Datatype is the engine's type object, and MPI's combiner, order and
 * distribution constants have the values of ump.h's, so handles and
 * arguments pass through unchanged and MPI_Type_get_contents returns what
 * the program gave. The build stops here if either header changes one. */
#define SAME(mpi, ump) _Static_assert((mpi) == (ump), #mpi " must equal " #ump)
SAME(MPI_COMBINER_NAMED, UMP_DT_COMBINER_NAMED);
SAME(MPI_COMBINER_F90_REAL, UMP_DT_COMBINER_F90_REAL);
SAME(MPI_COMBINER_F90_COMPLEX, UMP_DT_COMBINER_F90_COMPLEX);
SAME(MPI_COMBINER_F90_INTEGER, UMP_DT_COMBINER_F90_INTEGER);
SAME(MPI_COMBINER_DUP, UMP_DT_COMBINER_DUP);
SAME(MPI_COMBINER_CONTIGUOUS, UMP_DT_COMBINER_CONTIGUOUS);
SAME(MPI_COMBINER_VECTOR, UMP_DT_COMBINER_VECTOR);
SAME(MPI_COMBINER_HVECTOR, UMP_DT_COMBINER_HVECTOR);
SAME(MPI_COMBINER_INDEXED, UMP_DT_COMBINER_INDEXED);
SAME(MPI_COMBINER_HINDEXED, UMP_DT_COMBINER_HINDEXED);
SAME(MPI_COMBINER_INDEXED_BLOCK, UMP_DT_COMBINER_INDEXED_BLOCK);
SAME(MPI_COMBINER_HINDEXED_BLOCK, UMP_DT_COMBINER_HINDEXED_BLOCK);
SAME(MPI_COMBINER_STRUCT, UMP_DT_COMBINER_STRUCT);
SAME(MPI_COMBINER_SUBARRAY, UMP_DT_COMBINER_SUBARRAY);
SAME(MPI_COMBINER_DARRAY, UMP_DT_COMBINER_DARRAY);
SAME(MPI_COMBINER_RESIZED, UMP_DT_COMBINER_RESIZED);
SAME(MPI_ORDER_C, UMP_DT_ORDER_C);
SAME(MPI_ORDER_FORTRAN, UMP_DT_ORDER_FORTRAN);
SAME(MPI_DISTRIBUTE_BLOCK, UMP_DT_DISTRIBUTE_BLOCK);
SAME(MPI_DISTRIBUTE_CYCLIC, UMP_DT_DISTRIBUTE_CYCLIC);
SAME(MPI_DISTRIBUTE_NONE, UMP_DT_DISTRIBUTE_NONE);
SAME(MPI_DISTRIBUTE_DFLT_DARG, UMP_DT_DISTRIBUTE_DFLT_DARG);
/* MPI_AINT, MPI_COUNT and MPI_OFFSET are the engine's address-sized and
 * 64-bit integer objects (src/dt/dt_predef.c). */
SAME(sizeof(MPI_Aint), sizeof(intptr_t));
SAME(sizeof(MPI_Count), sizeof(long long));
SAME(sizeof(MPI_Offset), sizeof(long long));
#undef SAME

/* MPI's spelling of the predefined types (the engine names them by ump.h's
 * constants), from mpi.h's list: the first name wins for an object listed
 * twice. */
static const struct {
    MPI_Datatype dt;
    const char *name;
} mpi_names[] = {
#define X(mpi, obj) {&ump_dt_##obj, #mpi},
    UMP_MPI_FOREACH_DATATYPE(X)
#undef X
};

const char *ump_mpi_dt_name(MPI_Datatype dt)
{
    if (ump_dt_valid(dt)) dt = (MPI_Datatype)ump_dt_param_base(dt);
    if (ump_dt_valid(dt) && dt->predefined && !ump_dt_renamed(dt))
        for (size_t k = 0; k < UMP_ARRAY_SIZE(mpi_names); k++)
            if (mpi_names[k].dt == dt) return mpi_names[k].name;
    return ump_dt_name(dt);
}
