/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handle conversions between C and Fortran (MPI 3.1 17.2.4): MPI_X_c2f and
 * MPI_X_f2c for communicators, datatypes, groups, requests, ops, info
 * objects, error handlers, messages and windows, and MPI_Status_c2f / f2c.
 *
 * C handles are pointers, Fortran handles integers. A handle gets its
 * integer the first time it is converted: the next free slot of one table
 * shared by every kind (objects of different kinds never share an
 * address), with a hash from address to slot, so converting to Fortran
 * and back gives the same handle and the same handle always gets the
 * same integer. Null handles are 0 in Fortran. Slots are never reused: an
 * address freed and reused by a new object keeps its integer, which is
 * what the program would see from the new handle anyway. Fortran
 * integers that no conversion gave out become null handles.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"

static void **slots; /* slots[i]: the handle of Fortran integer i (slot 0: null) */
static int nslots = 1, slots_cap;
static int *hash; /* open addressing: slot index, 0 = empty */
static size_t hash_cap;

static size_t hash_of(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* Inserts slot i (its handle is slots[i]) into the hash. Lock held. */
static void hash_put(int i)
{
    size_t m = hash_cap - 1;
    for (size_t h = hash_of(slots[i]) & m;; h = (h + 1) & m)
        if (!hash[h]) {
            hash[h] = i;
            return;
        }
}

/* Makes room for one more slot. Lock held. False when out of memory. */
static bool grow(void)
{
    if (nslots >= slots_cap) {
        int cap = slots_cap ? slots_cap * 2 : 64;
        void **t = realloc(slots, sizeof(*t) * (size_t)cap);
        if (!t) return false;
        slots = t;
        slots_cap = cap;
    }
    if ((size_t)nslots * 2 >= hash_cap) {
        size_t cap = hash_cap ? hash_cap * 2 : 128;
        int *h = calloc(cap, sizeof(*h));
        if (!h) return false;
        free(hash);
        hash = h;
        hash_cap = cap;
        for (int i = 1; i < nslots; i++)
            hash_put(i);
    }
    return true;
}

/* The Fortran integer of handle p (0 for NULL); -1 when out of memory. */
static MPI_Fint to_f(void *p)
{
    if (!p) return 0;
    ump_mpi_lock();
    MPI_Fint f = -1;
    if (hash_cap) {
        size_t m = hash_cap - 1;
        for (size_t h = hash_of(p) & m; hash[h]; h = (h + 1) & m)
            if (slots[hash[h]] == p) {
                f = hash[h];
                goto out;
            }
    }
    if (nslots < INT32_MAX && grow()) {
        f = nslots++;
        slots[f] = p;
        hash_put(f);
    }
out:
    ump_mpi_unlock();
    return f;
}

static void *to_c(MPI_Fint f)
{
    ump_mpi_lock();
    void *p = f > 0 && f < nslots ? slots[f] : NULL;
    ump_mpi_unlock();
    return p;
}

#define CONVERSIONS(Kind, CType)                                                                   \
    _Pragma(UMP_STR(weak MPI_##Kind##_c2f = PMPI_##Kind##_c2f))                                    \
        MPI_Fint PMPI_##Kind##_c2f(CType h)                                                        \
    {                                                                                              \
        return to_f((void *)h);                                                                    \
    }                                                                                              \
    _Pragma(UMP_STR(weak MPI_##Kind##_f2c = PMPI_##Kind##_f2c))                                    \
        CType PMPI_##Kind##_f2c(MPI_Fint f)                                                        \
    {                                                                                              \
        return (CType)to_c(f);                                                                     \
    }

#define UMP_STR(x) #x
CONVERSIONS(Comm, MPI_Comm)
CONVERSIONS(Type, MPI_Datatype)
CONVERSIONS(Group, MPI_Group)
CONVERSIONS(Request, MPI_Request)
CONVERSIONS(Op, MPI_Op)
CONVERSIONS(Info, MPI_Info)
CONVERSIONS(Errhandler, MPI_Errhandler)
CONVERSIONS(Message, MPI_Message)
CONVERSIONS(Win, MPI_Win)

MPI_Fint ump_mpi_f_status_ignore[MPI_F_STATUS_SIZE], ump_mpi_f_statuses_ignore[MPI_F_STATUS_SIZE];

/* A status in Fortran is MPI_F_STATUS_SIZE integers: source, tag, error,
 * cancelled, then the byte count in two halves (low first). */
#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    static const char call[] = "MPI_Status_c2f";
    if (!c_status || !f_status || c_status == MPI_STATUS_IGNORE)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "a status pointer is NULL");
    if (f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "f_status is MPI_F_STATUS(ES)_IGNORE, not a status");
    uint64_t n = (uint64_t)c_status->ump_count;
    f_status[MPI_F_SOURCE] = c_status->MPI_SOURCE;
    f_status[MPI_F_TAG] = c_status->MPI_TAG;
    f_status[MPI_F_ERROR] = c_status->MPI_ERROR;
    f_status[3] = c_status->ump_cancelled;
    f_status[4] = (MPI_Fint)(uint32_t)n;
    f_status[5] = (MPI_Fint)(uint32_t)(n >> 32);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    static const char call[] = "MPI_Status_f2c";
    if (!c_status || !f_status)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "a status pointer is NULL");
    if (f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                             "f_status is MPI_F_STATUS(ES)_IGNORE, not a status");
    c_status->MPI_SOURCE = f_status[MPI_F_SOURCE];
    c_status->MPI_TAG = f_status[MPI_F_TAG];
    c_status->MPI_ERROR = f_status[MPI_F_ERROR];
    c_status->ump_cancelled = f_status[3];
    c_status->ump_count =
        (MPI_Count)((uint64_t)(uint32_t)f_status[4] | (uint64_t)(uint32_t)f_status[5] << 32);
    return MPI_SUCCESS;
}
