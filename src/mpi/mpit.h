/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tool information interface (MPI 3.1 14.3), shared by mpit_*.c:
 * control variables are ump's tunables (src/util/config.c), performance
 * variables the core's counters (ump_stats_get), categories one per layer.
 * The MPI_T functions return MPI_T_ERR_* codes and never call an error
 * handler (14.3.9); they may be called before MPI_Init and after
 * MPI_Finalize, from any thread, so they take a lock of their own.
 */
#ifndef UMP_MPI_MPIT_H
#define UMP_MPI_MPIT_H

#include <stdbool.h>

#include "mpi/mpi_impl.h"
#include "util/util.h"

/* Takes the MPI_T lock and returns MPI_SUCCESS when MPI_T is initialized;
 * else returns MPI_T_ERR_NOT_INITIALIZED without the lock. */
int ump_mpit_enter(void);
void ump_mpit_leave(void);

/* Copies src into name (MPI_T string rules, 14.3.3): *len in is the room,
 * out the characters written with the NUL, or the room needed when name is
 * NULL or *len is 0. Nothing when len is NULL. */
void ump_mpit_str(const char *src, char *name, int *len);

/* Control variables: the tunables, by index (sorted by name). */
int ump_mpit_cvar_count(void);
/* The layer category (index into the category table) of a tunable. */
int ump_mpit_cvar_category(const ump_cfg_t *c);
/* The enumeration of an enum tunable, MPI_T_ENUM_NULL for others. */
MPI_T_enum ump_mpit_enum_of(int cvar_index);

/* Performance variables: the core's counters. */
int ump_mpit_pvar_count(void);
/* Category of every performance variable (they are the core's). */
int ump_mpit_pvar_category(int pvar_index);

/* Reports a bad argument at info level (a tool probing for names is not
 * an error worth a warning) and returns code. */
int ump_mpit_err(int code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* UMP_MPI_MPIT_H */
