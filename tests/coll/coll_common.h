/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the collective tests: deterministic inputs every rank can
 * recompute for every other rank (so each rank holds the serial reference),
 * checks that abort the job naming the case, and forcing of algorithms
 * through the tunables table.
 */
#ifndef UMP_TEST_COLL_COMMON_H
#define UMP_TEST_COLL_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "mpi.h"
#include "mpi/mpi_impl.h"
#include "util/util.h"

static int T_rank, T_size;
static char T_case[256];

static void tcase(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(T_case, sizeof(T_case), fmt, ap);
    va_end(ap);
}

#define TFAIL(...)                                                                                 \
    do {                                                                                           \
        fprintf(stderr, "FAIL rank %d/%d [%s] %s:%d: ", T_rank, T_size, T_case, __FILE__,          \
                __LINE__);                                                                         \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)
#define TCHECK(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) TFAIL(__VA_ARGS__);                                                           \
    } while (0)
#define TMPI(call)                                                                                 \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) TFAIL("%s returned %d", #call, rc_);                               \
    } while (0)

/* Small integers: sums and products stay exact in every type. */
static inline int tval(int rank, size_t i, int salt)
{
    return (int)((rank * 7 + (int)i * 3 + salt) % 5) - 2;
}

/* Sets the tunable `name` to the choice `choice` (enum) for every rank. */
static inline void set_enum(const char *name, const char *choice)
{
    ump_cfg_t *c = ump_cfg_find(name);
    if (!c || c->type != UMP_CFG_ENUM) TFAIL("no enum tunable %s", name);
    const char *p = c->choices;
    int idx = 0;
    size_t len = strlen(choice);
    while (p) {
        if (!strncmp(p, choice, len) && (p[len] == '|' || !p[len])) {
            c->v.e = idx;
            return;
        }
        p = strchr(p, '|');
        if (p) p++;
        idx++;
    }
    TFAIL("tunable %s has no choice %s", name, choice);
}

static inline void set_size(const char *name, size_t v)
{
    ump_cfg_t *c = ump_cfg_find(name);
    if (!c) TFAIL("no tunable %s", name);
    if (c->type == UMP_CFG_INT)
        c->v.i = (long long)v;
    else
        c->v.sz = v;
}

/* Number of choices of an enum tunable and the text of choice i. */
static inline int enum_choice(const char *name, int i, char *out, size_t outlen)
{
    ump_cfg_t *c = ump_cfg_find(name);
    if (!c) TFAIL("no tunable %s", name);
    const char *p = c->choices;
    for (int k = 0; k < i && p; k++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    if (!p) return 0;
    size_t l = strcspn(p, "|");
    if (l >= outlen) l = outlen - 1;
    memcpy(out, p, l);
    out[l] = 0;
    return 1;
}

/* Forgets the cached node layout of comm so a new UMP_COLL_FAKE_PPN applies. */
static inline void set_fake_ppn(MPI_Comm comm, int ppn)
{
    set_size("UMP_COLL_FAKE_PPN", (size_t)ppn);
    ump_coll_comm_free(comm->ucomm);
}

#endif
