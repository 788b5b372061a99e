/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_pack.c - the segment cursor: pack, unpack or list as iovecs any byte
 * range of the stream of (buf, count, dt), stopping and resuming anywhere.
 *
 * The cursor keeps a stack of frames, one per non-leaf layout node on the
 * path to the current run, and the bytes already done in that run. Nodes
 * whose children are runs (VEC/BLK of a LEAF, IDX) are handled by tight
 * kernels, with fixed-size copies for runs of 1, 2, 4, ... 256 bytes (see
 * runs() for the exceptions when unpacking); the interpreter only descends
 * through the other nodes. Addresses are computed as integers because
 * types of absolute addresses start from a null buffer.
 */
#include <string.h>

#include "dt/dt_int.h"
#include "util/util.h"

enum { OP_PACK, OP_UNPACK, OP_IOV };

typedef struct {
    struct iovec *iov;
    int n, max;
} iovctx_t;

#define AT(base, off) ((uintptr_t)(base) + (uintptr_t)(off))

/* One piece of a run: copy, or append to the iovec list (false when full). */
static inline __attribute__((always_inline)) bool piece(const int op, uintptr_t mem, char *s,
                                                        size_t len, iovctx_t *io)
{
    switch (op) {
    case OP_PACK:
        memcpy(s, (const void *)mem, len);
        return true;
    case OP_UNPACK:
        memcpy((void *)mem, s, len);
        return true;
    default: {
        if (io->n) {
            struct iovec *last = &io->iov[io->n - 1];
            if ((uintptr_t)last->iov_base + last->iov_len == mem) {
                last->iov_len += len;
                return true;
            }
        }
        if (io->n == io->max) return false;
        io->iov[io->n++] = (struct iovec){(void *)mem, len};
        return true;
    }
    }
}

/* k runs of the constant length L at p, p + stride, ... */
#define FIXED_LOOP(L)                                                                              \
    do {                                                                                           \
        if (op == OP_PACK)                                                                         \
            for (size_t q = 0; q < k; q++, s += (L))                                               \
                memcpy(s, (const void *)ADDR_Q, (L));                                              \
        else                                                                                       \
            for (size_t q = 0; q < k; q++, s += (L))                                               \
                memcpy((void *)ADDR_Q, s, (L));                                                    \
    } while (0)

/* Runs i.. of a node whose children are runs, for at most *left bytes.
 * Returns false when the iovec list filled up. */
static inline __attribute__((always_inline)) bool runs(ump_dt_cursor_t *c, const int op,
                                                       const int kind, const ump_dt_dl_t *nd,
                                                       uintptr_t base, size_t *pi, char **ps,
                                                       size_t *pleft, iovctx_t *io)
{
    size_t i = *pi, left = *pleft, cnt = nd->count;
    char *s = *ps;
    const size_t L0 = kind == UMP_DL_IDX ? 0 : nd->child->size;
    bool ok = true;
#define ADDR(i_)                                                                                   \
    (kind == UMP_DL_VEC ? AT(base, nd->off + (ptrdiff_t)(i_)*nd->stride) : AT(base, nd->disps[i_]))
#define LEN(i_) (kind == UMP_DL_IDX ? nd->lens[i_] : L0)
    if (c->leaf_off) { /* finish the run we stopped in */
        size_t o = c->leaf_off, L = LEN(i), m = UMP_MIN(L - o, left);
        if (!piece(op, ADDR(i) + o, s, m, io)) {
            ok = false;
            goto out;
        }
        s += m, left -= m;
        if (o + m < L) {
            c->leaf_off = o + m;
            goto out;
        }
        c->leaf_off = 0;
        i++;
    }
    if (op != OP_IOV && kind != UMP_DL_IDX) {
        size_t k = UMP_MIN(cnt - i, left / L0);
        if (kind == UMP_DL_VEC && nd->stride == (ptrdiff_t)L0) {
            /* touching runs (only at the top, where elements meet) */
            piece(op, ADDR(i), s, k * L0, io);
            s += k * L0;
        } else {
#define ADDR_Q ADDR(i + q)
            /* Measured on shm, 128 runs with a 16 KiB stride, ping-pong:
             * inline 128-byte copies were 12-22% faster than the C
             * library's copy; packing 32- and 64-byte runs inline 4-6%
             * faster. Unpacking runs of 32 or 64 bytes, and of up to 16
             * bytes that lie on lines of their own (stride of 64 bytes or
             * more), goes through the library call: inline stores there
             * were 15% slower for 64 bytes and 20-38% for 4-16 bytes when
             * the cores are near (why is not known; only the unpacking of
             * data just received shows it). */
            bool far_apart = kind == UMP_DL_VEC && (nd->stride >= 64 || nd->stride <= -64);
            size_t fixed = L0;
            if (op == OP_UNPACK && ((L0 <= 16 && far_apart) || L0 == 32 || L0 == 64))
                fixed = 0; /* the default case: a call per run */
            switch (fixed) {
            case 1:
                FIXED_LOOP(1);
                break;
            case 2:
                FIXED_LOOP(2);
                break;
            case 4:
                FIXED_LOOP(4);
                break;
            case 8:
                FIXED_LOOP(8);
                break;
            case 16:
                FIXED_LOOP(16);
                break;
            case 32:
                FIXED_LOOP(32);
                break;
            case 64:
                FIXED_LOOP(64);
                break;
            case 128:
                FIXED_LOOP(128);
                break;
            case 256:
                FIXED_LOOP(256);
                break;
            default:
                FIXED_LOOP(L0);
                break;
            }
#undef ADDR_Q
        }
        i += k, left -= k * L0;
    } else {
        for (; i < cnt; i++) {
            size_t L = LEN(i);
            if (L > left) break;
            if (!piece(op, ADDR(i), s, L, io)) {
                ok = false;
                goto out;
            }
            s += L, left -= L;
        }
    }
    if (i < cnt && left) { /* start the next run, and stop inside it */
        if (!piece(op, ADDR(i), s, left, io)) {
            ok = false;
            goto out;
        }
        c->leaf_off = left;
        s += left, left = 0;
    }
out:
#undef ADDR
#undef LEN
    *pi = i, *ps = s, *pleft = left;
    return ok;
}

/* Moves up to n bytes from the cursor on; returns the bytes done. */
static inline __attribute__((always_inline)) size_t walk(ump_dt_cursor_t *c, const int op, char *s,
                                                         size_t n, iovctx_t *io)
{
    c->fr[0].node = &c->top; /* the cursor may have moved since init */
    if (c->whole_run) c->top.child = &c->whole;
    size_t left = UMP_MIN(n, c->total - c->pos);
    const size_t asked = left;
    while (left && c->depth > 0) {
        __typeof__(c->fr[0]) *f = &c->fr[c->depth - 1];
        const ump_dt_dl_t *nd = f->node, *kid;
        if (f->i >= nd->count) {
            c->depth--;
            c->leaf_off = 0;
            if (c->depth) c->fr[c->depth - 1].i++;
            continue;
        }
        uintptr_t base = (uintptr_t)f->base, p;
        bool ok;
        switch (nd->kind) {
        case UMP_DL_VEC:
            kid = nd->child;
            if (kid->kind == UMP_DL_LEAF) {
                ok = runs(c, op, UMP_DL_VEC, nd, base, &f->i, &s, &left, io);
                if (!ok) goto out;
                continue;
            }
            p = AT(base, nd->off + (ptrdiff_t)f->i * nd->stride);
            break;
        case UMP_DL_BLK:
            kid = nd->child;
            if (kid->kind == UMP_DL_LEAF) {
                ok = runs(c, op, UMP_DL_BLK, nd, base, &f->i, &s, &left, io);
                if (!ok) goto out;
                continue;
            }
            p = AT(base, nd->disps[f->i]);
            break;
        case UMP_DL_IDX:
            ok = runs(c, op, UMP_DL_IDX, nd, base, &f->i, &s, &left, io);
            if (!ok) goto out;
            continue;
        default: /* STRUCT */
            kid = nd->kids[f->i];
            p = AT(base, nd->disps[f->i]);
            if (kid->kind == UMP_DL_LEAF) {
                size_t o = c->leaf_off, m = UMP_MIN(kid->size - o, left);
                if (!piece(op, p + o, s, m, io)) goto out;
                s += m, left -= m;
                if (o + m < kid->size) {
                    c->leaf_off = o + m;
                } else {
                    c->leaf_off = 0;
                    f->i++;
                }
                continue;
            }
            break;
        }
        c->fr[c->depth].node = kid;
        c->fr[c->depth].base = (char *)p;
        c->fr[c->depth].i = 0;
        c->depth++;
    }
out:
    c->pos += asked - left;
    return asked - left;
}

static size_t upper_pfx(const size_t *pfx, size_t count, size_t off)
{
    /* largest i < count with pfx[i] <= off */
    size_t lo = 0, hi = count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pfx[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int ump_dt_cursor_init(ump_dt_cursor_t *c, const void *buf, size_t count, ump_dt_t dt, size_t first)
{
    if (!ump_dt_valid(dt)) return UMP_ERR_DATATYPE;
    if (dt->size && count > (size_t)-1 / dt->size) return UMP_ERR_COUNT;
    c->dt = dt;
    c->buf = (char *)buf;
    c->count = count;
    c->total = count * dt->size;
    if (first > c->total) return UMP_ERR_INVALID;
    c->pos = first;
    c->leaf_off = 0;
    c->whole_run = dt->is_contig;
    memset(&c->top, 0, sizeof(c->top));
    c->top.kind = UMP_DL_VEC;
    if (c->whole_run) { /* the elements touch: one run from true_lb */
        memset(&c->whole, 0, sizeof(c->whole));
        c->whole.kind = UMP_DL_LEAF;
        c->whole.size = c->total;
        c->top.count = 1;
        c->top.off = dt->true_lb;
        c->top.child = &c->whole;
    } else {
        const ump_dt_dl_t *k = dt->dl;
        ptrdiff_t off = 0, st = dt->ub - dt->lb;
        size_t cnt = count;
        if (k->kind == UMP_DL_VEC && k->count == 1) {
            off = k->off;
            k = k->child;
        }
        if (k->kind == UMP_DL_VEC && (ptrdiff_t)k->count * k->stride == st) {
            /* elements that are vectors tiling the extent: one longer vector */
            cnt *= k->count;
            st = k->stride;
            off += k->off;
            k = k->child;
        }
        c->top.count = cnt;
        c->top.stride = st;
        c->top.off = off;
        c->top.child = k;
    }
    c->top.size = c->total;
    c->fr[0].node = &c->top;
    c->fr[0].base = c->buf;
    c->fr[0].i = 0;
    c->depth = 1;
    if (first == c->total || c->top.child->size == 0) {
        c->fr[0].i = c->top.count;
        return UMP_OK;
    }
    /* descend to the run holding byte `first` */
    size_t off = first;
    for (;;) {
        __typeof__(c->fr[0]) *f = &c->fr[c->depth - 1];
        const ump_dt_dl_t *nd = f->node, *kid;
        uintptr_t p;
        switch (nd->kind) {
        case UMP_DL_VEC:
        case UMP_DL_BLK:
            kid = nd->child;
            f->i = off / kid->size;
            off %= kid->size;
            p = nd->kind == UMP_DL_VEC ? AT(f->base, nd->off + (ptrdiff_t)f->i * nd->stride)
                                       : AT(f->base, nd->disps[f->i]);
            break;
        case UMP_DL_IDX:
            f->i = upper_pfx(nd->pfx, nd->count, off);
            c->leaf_off = off - nd->pfx[f->i];
            return UMP_OK;
        default:
            f->i = upper_pfx(nd->pfx, nd->count, off);
            off -= nd->pfx[f->i];
            kid = nd->kids[f->i];
            p = AT(f->base, nd->disps[f->i]);
            break;
        }
        if (kid->kind == UMP_DL_LEAF) {
            c->leaf_off = off;
            return UMP_OK;
        }
        c->fr[c->depth].node = kid;
        c->fr[c->depth].base = (char *)p;
        c->fr[c->depth].i = 0;
        c->depth++;
    }
}

size_t ump_dt_cursor_pack(ump_dt_cursor_t *c, void *out, size_t n)
{
    return walk(c, OP_PACK, out, n, NULL);
}

size_t ump_dt_cursor_unpack(ump_dt_cursor_t *c, const void *in, size_t n)
{
    return walk(c, OP_UNPACK, (char *)in, n, NULL);
}

size_t ump_dt_cursor_iov(ump_dt_cursor_t *c, size_t maxbytes, struct iovec *iov, int maxiov,
                         int *niov)
{
    iovctx_t io = {iov, 0, maxiov};
    size_t done = maxiov > 0 ? walk(c, OP_IOV, NULL, maxbytes, &io) : 0;
    *niov = io.n;
    return done;
}

static int range_ok(size_t count, ump_dt_t dt, size_t first, size_t len)
{
    if (!ump_dt_valid(dt)) return UMP_ERR_DATATYPE;
    if (dt->size && count > (size_t)-1 / dt->size) return UMP_ERR_COUNT;
    size_t total = count * dt->size;
    return first <= total && len <= total - first ? UMP_OK : UMP_ERR_INVALID;
}

int ump_dt_pack(const void *buf, size_t count, ump_dt_t dt, size_t first, void *out, size_t len)
{
    int rc = range_ok(count, dt, first, len);
    if (rc != UMP_OK || !len) return rc;
    if (dt->is_contig) {
        memcpy(out, (const void *)AT(buf, dt->true_lb + (ptrdiff_t)first), len);
        return UMP_OK;
    }
    ump_dt_cursor_t c;
    rc = ump_dt_cursor_init(&c, buf, count, dt, first);
    if (rc != UMP_OK) return rc;
    return ump_dt_cursor_pack(&c, out, len) == len ? UMP_OK : UMP_ERR_INTERNAL;
}

int ump_dt_unpack(void *buf, size_t count, ump_dt_t dt, size_t first, const void *in, size_t len)
{
    int rc = range_ok(count, dt, first, len);
    if (rc != UMP_OK || !len) return rc;
    if (dt->is_contig) {
        memcpy((void *)AT(buf, dt->true_lb + (ptrdiff_t)first), in, len);
        return UMP_OK;
    }
    ump_dt_cursor_t c;
    rc = ump_dt_cursor_init(&c, buf, count, dt, first);
    if (rc != UMP_OK) return rc;
    return ump_dt_cursor_unpack(&c, in, len) == len ? UMP_OK : UMP_ERR_INTERNAL;
}
