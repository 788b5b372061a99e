/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sizes: every message size that sits on a protocol boundary, from 0 bytes to
 * 16 MiB, in both directions, in three ways:
 *   blocking  - ump_send / ump_recv, lower rank first, then back;
 *   exchange  - both sides irecv + isend at once, ump_waitall;
 *   late      - the receive is posted only after a later message on another
 *               tag was received, so the data (or its rendezvous request)
 *               must wait as unexpected.
 * The boundaries come from the same environment variables ump reads, so runs
 * that shrink the thresholds test the same paths with small data.
 * With more than two ranks every pair (r, r^d) for d = 1 .. size-1 is tested.
 *
 * usage: sizes [--max BYTES]
 */
#include "mp_common.h"

#define MAX_SIZES 1024

static size_t sizes[MAX_SIZES];
static int nsizes;

static void add(size_t s, size_t max)
{
    if (s > max || nsizes == MAX_SIZES) return;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] == s) return;
    sizes[nsizes++] = s;
}

static void add_around(size_t s, size_t max)
{
    if (s > 0) add(s - 1, max);
    add(s, max);
    add(s + 1, max);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static void build_sizes(size_t max)
{
    const size_t shm_eager = mp_env_size("UMP_SHM_EAGER_LIMIT", 8 << 10);
    const size_t shm_seg = mp_env_size("UMP_SHM_SEG_SIZE", 32 << 10);
    const size_t shm_cma = mp_env_size("UMP_SHM_CMA_MIN", 256 << 10);
    const size_t tcp_eager = mp_env_size("UMP_TCP_EAGER_LIMIT", 64 << 10);
    const size_t tcp_seg = mp_env_size("UMP_TCP_SEG_SIZE", 256 << 10);
    const size_t tcp_get = mp_env_size("UMP_TCP_GET_MIN", 512 << 10);
    const size_t ud_eager = mp_env_size("UMP_OFIUD_EAGER_LIMIT", 64 << 10);
    const size_t ud_seg = mp_env_size("UMP_OFIUD_SEG_SIZE", 0);
    /* ofi: 64k over tcp;ofi_rxm unless set; rxm's own eager limit
     * (FI_OFI_RXM_EAGER_LIMIT, a whole AM with ump's headers) when a run
     * lowers it. */
    const size_t ofi_eager = mp_env_size("UMP_OFI_EAGER_LIMIT", 64 << 10);
    const size_t rxm_eager = mp_env_size("FI_OFI_RXM_EAGER_LIMIT", 0);
    const size_t rxm_ump = rxm_eager > 1032 ? rxm_eager - 1032 : 0; /* ump's eager limit then */
    const size_t limits[] = {shm_eager, shm_cma,   tcp_eager, tcp_get,
                             ud_eager,  ofi_eager, rxm_eager, rxm_ump};
    const size_t segs[] = {shm_seg, tcp_seg, ud_seg};
    /* Datagram transports (udp, ofiud) with a given datagram size: messages
     * that fill one, two and three datagrams exactly and just miss or pass
     * that (the AM's payload is the datagram less the 8-byte transport
     * header, the 40-byte rel header and the core's header, whose size the
     * test does not know: every 4 bytes over a span that covers it). */
    const size_t mtus[] = {mp_env_size("UMP_UDP_MTU", 0), mp_env_size("UMP_OFIUD_MTU", 0)};

    /* Fastbox and header-sized payloads: every size up to 130 bytes (shm's
     * small slots take a standard eager message of up to 16 bytes, its
     * large ones up to 112, with the 8-byte header). */
    for (size_t s = 0; s <= 130; s++)
        add(s, max);
    for (size_t p = 128; p <= (16u << 20); p <<= 1)
        add_around(p, max);
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        add_around(limits[i], max);
        add_around(2 * limits[i], max);
    }
    for (size_t i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++) {
        if (mtus[i] < 256) continue;
        size_t room = mtus[i] - 48;
        for (size_t k = 1; k <= 3; k++)
            for (size_t s = k * room - 96; s <= k * room + 4; s += 4)
                add(s, max);
    }
    for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
        if (!segs[i]) continue;
        /* Segment multiples, the first few and a long pipeline. */
        const size_t mult[] = {1, 2, 3, 5, 8, 33};
        for (size_t m = 0; m < sizeof(mult) / sizeof(mult[0]); m++)
            add_around(mult[m] * segs[i], max);
    }
    /* Odd sizes spread over the whole range. */
    const size_t odd[] = {97,     1001,   4099,    12345,   77777,
                          123457, 999983, 3333333, 7654321, (16u << 20) - 7};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
        add(odd[i], max);
    qsort(sizes, (size_t)nsizes, sizeof(sizes[0]), cmp_size);
}

static int tag_of(int mode, int isz)
{
    return mode * 10000 + isz;
}

/* One size with one peer. `lo` is true on the lower rank of the pair. */
static void one_size(int me, int peer, int lo, int isz, size_t n, unsigned char *sbuf,
                     unsigned char *rbuf, size_t cap)
{
    ump_status_t st;
    ump_req_t reqs[3];
    ump_status_t sts[3];

    /* blocking, lower rank sends first */
    int tag = tag_of(0, isz);
    mp_fill(sbuf, n, me, peer, tag, n);
    for (int turn = 0; turn < 2; turn++) {
        if ((turn == 0) == lo) {
            MP_CALL(ump_send(sbuf, n, UMP_BYTE, peer, tag, 0));
        } else {
            memset(&st, 0xff, sizeof(st));
            MP_CALL(ump_recv(rbuf, cap, UMP_BYTE, peer, tag, 0, &st));
            MP_CHECK(st.source == peer && st.tag == tag && st.error == UMP_OK && st.count == n &&
                         st.msg_len == n && !st.cancelled,
                     "blocking size %zu: status src %d tag %d err %d count %zu len %zu", n,
                     st.source, st.tag, st.error, st.count, st.msg_len);
            MP_CHECK_DATA(rbuf, n, peer, me, tag, n);
        }
    }

    /* simultaneous exchange, non-blocking */
    tag = tag_of(1, isz);
    mp_fill(sbuf, n, me, peer, tag, n);
    MP_CALL(ump_irecv(rbuf, cap, UMP_BYTE, peer, tag, 0, &reqs[0]));
    MP_CALL(ump_isend(sbuf, n, UMP_BYTE, peer, tag, 0, &reqs[1]));
    MP_CALL(ump_waitall(2, reqs, sts));
    MP_CHECK(reqs[0] == UMP_REQ_NULL && reqs[1] == UMP_REQ_NULL, "waitall left handles set");
    MP_CHECK(sts[0].source == peer && sts[0].tag == tag && sts[0].count == n &&
                 sts[0].msg_len == n && sts[0].error == UMP_OK,
             "exchange size %zu: status src %d tag %d err %d count %zu", n, sts[0].source,
             sts[0].tag, sts[0].error, sts[0].count);
    MP_CHECK(sts[1].error == UMP_OK, "exchange size %zu: send status error %d", n, sts[1].error);
    MP_CHECK_DATA(rbuf, n, peer, me, tag, n);

    /* late receive: the message waits as unexpected behind a later one */
    tag = tag_of(2, isz);
    for (int turn = 0; turn < 2; turn++) {
        if ((turn == 0) == lo) {
            mp_fill(sbuf, n, me, peer, tag, n);
            MP_CALL(ump_isend(sbuf, n, UMP_BYTE, peer, tag, 0, &reqs[0]));
            MP_CALL(ump_send(NULL, 0, UMP_BYTE, peer, tag + 1, 0));
            MP_CALL(ump_wait(&reqs[0], &st));
            MP_CHECK(reqs[0] == UMP_REQ_NULL, "wait left the handle set");
        } else {
            MP_CALL(ump_recv(NULL, 0, UMP_BYTE, peer, tag + 1, 0, &st));
            MP_CHECK(st.count == 0 && st.tag == tag + 1, "late marker: count %zu tag %d", st.count,
                     st.tag);
            MP_CALL(ump_recv(rbuf, cap, UMP_BYTE, peer, tag, 0, &st));
            MP_CHECK(st.count == n && st.msg_len == n && st.source == peer && st.tag == tag,
                     "late size %zu: count %zu len %zu src %d tag %d", n, st.count, st.msg_len,
                     st.source, st.tag);
            MP_CHECK_DATA(rbuf, n, peer, me, tag, n);
        }
    }
}

int main(int argc, char **argv)
{
    mp_init("sizes", &argc, &argv);
    size_t max = 16u << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max = mp_parse_size(argv[++i]);
        else
            MP_FAIL("unknown argument %s", argv[i]);
    }
    build_sizes(max);

    int me = ump_rank(), np = ump_size();
    MP_CHECK(np >= 2, "needs at least 2 ranks, got %d", np);
    size_t cap = sizes[nsizes - 1] + 64;
    unsigned char *sbuf = mp_malloc(cap), *rbuf = mp_malloc(cap);
    double t0 = mp_now();

    /* Pairs r <-> r^d; with a size that is not a power of two some ranks sit
     * a round out. */
    for (int d = 1; d < np; d++) {
        int peer = me ^ d;
        mp_barrier();
        if (peer >= np) continue;
        for (int i = 0; i < nsizes; i++) {
            /* Scribble the receive buffer so stale data from the previous
             * size cannot pass the check. */
            memset(rbuf, 0xa5, sizes[i] < cap ? sizes[i] + 1 : cap);
            one_size(me, peer, me < peer, i, sizes[i], sbuf, rbuf, cap);
        }
        if (me < peer)
            printf("sizes: rank %d <-> %d: %d sizes 0..%zu ok (%.2f s)\n", me, peer, nsizes,
                   sizes[nsizes - 1], mp_now() - t0);
    }
    mp_barrier();
    free(sbuf);
    free(rbuf);
    mp_finalize();
    return 0;
}
