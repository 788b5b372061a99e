/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall, Alltoallv and Alltoallw of derived datatypes with holes: struct
 * types of doubling blocks each followed by a gap (as bench/mpi/ddt_alltoall
 * uses), strided vectors and plain ints, mixed between ranks and peers, in
 * every algorithm, blocking and nonblocking, for element sizes around each
 * switch (Bruck's 256 B, the 8 KiB eager limit, the 16 KiB short path, the
 * 32 KiB pairwise threshold). Each rank computes the whole receive buffer
 * serially, gaps included, and compares it byte for byte.
 */
#include <stdbool.h>
#include <stdint.h>

#include "coll_common.h"

/* Layout kinds of one element of D ints: 0 plain ints (count D), 1 blocks
 * of 1, 2, 4 ... ints each followed by a one-int gap, 2 every other int. */
enum { K_INT, K_HOLES, K_STRIDE, NKIND };

typedef struct {
    MPI_Datatype dt; /* count per element: D for K_INT, else 1 */
    int per;         /* count of dt per element */
    size_t ext;      /* ints per element, holes included */
    size_t *off;     /* offset in ints of data int k of an element */
} lay_t;

static size_t D; /* data ints per element: 2L - 1 */

static void lay_make(lay_t *l, int kind, size_t L)
{
    l->off = malloc(D * sizeof(size_t));
    TCHECK(l->off, "no memory");
    if (kind == K_INT) {
        for (size_t k = 0; k < D; k++)
            l->off[k] = k;
        l->ext = D;
        l->dt = MPI_INT;
        l->per = (int)D;
        return;
    }
    MPI_Datatype t;
    if (kind == K_HOLES) {
        int lens[40], nb = 0;
        MPI_Aint disp[40];
        MPI_Datatype types[40];
        size_t o = 0, k = 0;
        for (size_t len = 1; len <= L; len *= 2, nb++) {
            lens[nb] = (int)len;
            disp[nb] = (MPI_Aint)(o * sizeof(int));
            types[nb] = MPI_INT;
            for (size_t j = 0; j < len; j++)
                l->off[k++] = o + j;
            o += len + 1;
        }
        TMPI(MPI_Type_create_struct(nb, lens, disp, types, &t));
        l->ext = o;
    } else {
        TMPI(MPI_Type_vector((int)D, 1, 2, MPI_INT, &t));
        for (size_t k = 0; k < D; k++)
            l->off[k] = 2 * k;
        l->ext = 2 * D;
    }
    TMPI(MPI_Type_create_resized(t, 0, (MPI_Aint)(l->ext * sizeof(int)), &l->dt));
    TMPI(MPI_Type_commit(&l->dt));
    MPI_Type_free(&t);
    l->per = 1;
}

static void lay_free(lay_t *l)
{
    if (l->dt != MPI_INT) MPI_Type_free(&l->dt);
    free(l->off);
}

/* Value k of element e that rank `from` sends to rank `to`. */
static int val(int from, int to, size_t e, size_t k)
{
    return (int)(k * 31 + e * 7919 + (size_t)from * 1000003 + (size_t)to * 7 + 1);
}

#define SENTINEL (-7)

/* Elements rank `from` sends to rank `to`: 1 for alltoall and w, 0..2
 * for v. */
static int nel(int mode, int from, int to)
{
    return mode == 1 ? (from + 2 * to) % 3 : 1;
}

/* One exchange; mode 0 alltoall, 1 v, 2 w. Send kinds: sk[to] on this
 * rank; receive kinds: rk[from]. */
static void one(int mode, bool nb, lay_t *lays, const int *sk, const int *rk)
{
    int n = T_size, me = T_rank;
    int *sc = calloc((size_t)n, sizeof(int)), *sd = calloc((size_t)n, sizeof(int));
    int *rc = calloc((size_t)n, sizeof(int)), *rd = calloc((size_t)n, sizeof(int));
    MPI_Datatype *st = calloc((size_t)n, sizeof(MPI_Datatype));
    MPI_Datatype *rt = calloc((size_t)n, sizeof(MPI_Datatype));
    TCHECK(sc && sd && rc && rd && st && rt, "no memory");
    /* Send buffer: blocks back to back, holes filled with junk the
     * receiver must never see. */
    size_t sints = 0, rints = 0;
    size_t *soff = calloc((size_t)n, sizeof(size_t)), *roff = calloc((size_t)n, sizeof(size_t));
    for (int p = 0; p < n; p++) {
        soff[p] = sints;
        sints += lays[sk[p]].ext * (size_t)nel(mode, me, p);
        roff[p] = rints;
        rints += lays[rk[p]].ext * (size_t)nel(mode, p, me);
    }
    int *sb = malloc((sints + 1) * sizeof(int)), *rb = malloc((rints + 1) * sizeof(int));
    int *ref = malloc((rints + 1) * sizeof(int));
    TCHECK(sb && rb && ref, "no memory");
    for (size_t i = 0; i < sints; i++)
        sb[i] = -1000 - (int)i;
    for (size_t i = 0; i < rints + 1; i++)
        rb[i] = ref[i] = SENTINEL;
    for (int p = 0; p < n; p++) {
        const lay_t *s = &lays[sk[p]], *r = &lays[rk[p]];
        for (int e = 0; e < nel(mode, me, p); e++)
            for (size_t k = 0; k < D; k++)
                sb[soff[p] + (size_t)e * s->ext + s->off[k]] = val(me, p, (size_t)e, k);
        for (int e = 0; e < nel(mode, p, me); e++)
            for (size_t k = 0; k < D; k++)
                ref[roff[p] + (size_t)e * r->ext + r->off[k]] = val(p, me, (size_t)e, k);
        sc[p] = s->per * nel(mode, me, p);
        rc[p] = r->per * nel(mode, p, me);
        st[p] = s->dt;
        rt[p] = r->dt;
        /* v: displacements in extents of the one type; w: in bytes. */
        sd[p] = mode == 2 ? (int)(soff[p] * sizeof(int)) : (int)(soff[p] / (s->ext / s->per));
        rd[p] = mode == 2 ? (int)(roff[p] * sizeof(int)) : (int)(roff[p] / (r->ext / r->per));
    }
    MPI_Request q = MPI_REQUEST_NULL;
    if (mode == 0) {
        if (nb)
            TMPI(MPI_Ialltoall(sb, sc[0], st[0], rb, rc[0], rt[0], MPI_COMM_WORLD, &q));
        else
            TMPI(MPI_Alltoall(sb, sc[0], st[0], rb, rc[0], rt[0], MPI_COMM_WORLD));
    } else if (mode == 1) {
        if (nb)
            TMPI(MPI_Ialltoallv(sb, sc, sd, st[0], rb, rc, rd, rt[0], MPI_COMM_WORLD, &q));
        else
            TMPI(MPI_Alltoallv(sb, sc, sd, st[0], rb, rc, rd, rt[0], MPI_COMM_WORLD));
    } else {
        /* (No MPI_Ialltoallw here.) */
        TMPI(MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD));
    }
    if (nb) TMPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (memcmp(rb, ref, (rints + 1) * sizeof(int)) != 0) {
        for (size_t i = 0; i < rints + 1; i++)
            TCHECK(rb[i] == ref[i], "int %zu of %zu: %d, want %d", i, rints, rb[i], ref[i]);
    }
    free(sb);
    free(rb);
    free(ref);
    free(soff);
    free(roff);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
}

static void run_size(size_t L, const char *algo)
{
    int n = T_size, me = T_rank;
    D = 2 * L - 1;
    lay_t lays[NKIND];
    for (int k = 0; k < NKIND; k++)
        lay_make(&lays[k], k, L);
    int *sk = malloc((size_t)n * sizeof(int)), *rk = malloc((size_t)n * sizeof(int));
    TCHECK(sk && rk, "no memory");
    for (int nb = 0; nb < 2; nb++) {
        /* alltoall and v: one type per side; holes to holes, and the
         * layout changing between ranks (same signature). */
        for (int var = 0; var < 3; var++) {
            int s = var == 0 ? K_HOLES : var == 1 ? (me % 2 ? K_HOLES : K_INT) : K_STRIDE;
            int r = var == 0 ? K_HOLES : var == 1 ? (me % 3 == 0 ? K_STRIDE : K_HOLES) : K_HOLES;
            for (int p = 0; p < n; p++) {
                sk[p] = s;
                rk[p] = r;
            }
            for (int mode = 0; mode < 2; mode++) {
                tcase("%s L %zu %s%s layouts %d", algo, L, nb ? "i" : "",
                      mode ? "alltoallv" : "alltoall", var);
                one(mode, nb, lays, sk, rk);
            }
        }
        /* w: a kind per peer (blocking only). */
        if (nb) continue;
        for (int p = 0; p < n; p++) {
            sk[p] = (me + p) % NKIND;
            rk[p] = (2 * p + me) % NKIND;
        }
        tcase("%s L %zu alltoallw", algo, L);
        one(2, nb, lays, sk, rk);
    }
    free(sk);
    free(rk);
    for (int k = 0; k < NKIND; k++)
        lay_free(&lays[k]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Element bytes 4 (L 1) to 64 KiB (L 8192), around each switch. */
    static const size_t Ls[] = {1, 16, 32, 64, 512, 1024, 2048, 4096, 8192};
    static const char *algos[] = {"auto", "linear", "pairwise", "bruck"};
    for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
        set_enum("UMP_COLL_ALLTOALL_ALGO", algos[a]);
        for (size_t i = 0; i < sizeof(Ls) / sizeof(Ls[0]); i++)
            run_size(Ls[i], algos[a]);
    }
    set_enum("UMP_COLL_ALLTOALL_ALGO", "auto");
    if (T_rank == 0) printf("coll_a2a_dt: %d ranks OK\n", T_size);
    MPI_Finalize();
    return 0;
}
