/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rings and fastbox of the shm transport: single-process edge cases, then a
 * producer and a consumer in two processes over a MAP_SHARED mapping with
 * every byte checked against a seeded pattern.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xport/shm/shm.h"

#define TEST_TIMEOUT 50 /* seconds, below ctest's 60 */

/* A pair's shared memory: fastbox slots, ring counters, data. */
struct area {
    ump_shm_fbset_t fb;
    ump_shm_ring_ctl_t ctl;
    char data[] UMP_ALIGNED(UMP_CACHELINE);
};

static struct area *area_new(size_t ring_size)
{
    void *p = mmap(NULL, sizeof(struct area) + ring_size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

static void area_free(struct area *a, size_t ring_size)
{
    munmap(a, sizeof(*a) + ring_size);
}

static uint8_t pattern(uint32_t seed, uint32_t msg, size_t i)
{
    uint32_t x = seed * 2654435761u ^ msg * 40503u ^ (uint32_t)i * 2246822519u;
    x ^= x >> 13;
    return (uint8_t)(x * 0x9e3779b1u >> 24);
}

static void fill(char *buf, uint32_t seed, uint32_t msg, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)pattern(seed, msg, i);
}

static int check(const void *buf, uint32_t seed, uint32_t msg, size_t len)
{
    const uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        if (b[i] != pattern(seed, msg, i)) return -1;
    return 0;
}

static void test_sizes(void **state)
{
    const size_t rs = 8192;
    struct area *a = area_new(rs);
    ump_shm_ring_t prod, cons;
    ump_shm_ring_attach(&prod, &a->ctl, a->data, rs);
    ump_shm_ring_attach(&cons, &a->ctl, a->data, rs);
    size_t max = ump_shm_ring_max_payload(rs);
    char *buf = malloc(max + 1);
    assert_non_null(buf);
    assert_null(ump_shm_ring_peek(&cons));
    for (size_t len = 0; len <= max; len += len < 200 ? 1 : 97) {
        /* Header from the buffer's first bytes, the rest as two iovecs. */
        fill(buf, 1, (uint32_t)len, len);
        size_t hlen = UMP_MIN(len, 24), mid = (len - hlen) / 2;
        struct iovec iov[2] = {{buf + hlen, mid}, {buf + hlen + mid, len - hlen - mid}};
        assert_int_equal(ump_shm_ring_push(&prod, (uint32_t)len, 7, buf, hlen, iov, 2, len),
                         UMP_OK);
        const ump_shm_rec_t *rec = ump_shm_ring_peek(&cons);
        assert_non_null(rec);
        assert_int_equal(rec->len, len);
        assert_int_equal(rec->seq, len);
        assert_int_equal(rec->am_id, 7);
        assert_int_equal(check(rec + 1, 1, (uint32_t)len, len), 0);
        ump_shm_ring_pop(&cons, rec);
        assert_null(ump_shm_ring_peek(&cons));
        assert_true(ump_shm_ring_drained(&prod));
    }
    /* One byte over the limit is refused outright. */
    assert_int_equal(ump_shm_ring_push(&prod, 0, 0, buf, max + 1, NULL, 0, max + 1),
                     UMP_ERR_INVALID);
    free(buf);
    area_free(a, rs);
}

static void test_fill_and_wrap(void **state)
{
    const size_t rs = 4096;
    struct area *a = area_new(rs);
    ump_shm_ring_t prod, cons;
    ump_shm_ring_attach(&prod, &a->ctl, a->data, rs);
    ump_shm_ring_attach(&cons, &a->ctl, a->data, rs);
    char buf[2048];

    /* 100 bytes + 16 header = 128 per record: exactly 32 fit. */
    int n = 0;
    while (ump_shm_ring_push(&prod, (uint32_t)n, 1, buf, 100, NULL, 0, 100) == UMP_OK)
        n++;
    assert_int_equal(n, 32);
    assert_false(ump_shm_ring_drained(&prod));
    /* Full: a zero-byte record does not fit either. */
    assert_int_equal(ump_shm_ring_push(&prod, 99, 1, NULL, 0, NULL, 0, 0), UMP_ERR_NO_RESOURCE);

    /* Free three records (384 bytes), head is at the end (4096): a 300-byte
     * record (320 with header, aligned) starts at 0 without padding. */
    for (int i = 0; i < 3; i++) {
        const ump_shm_rec_t *rec = ump_shm_ring_peek(&cons);
        assert_non_null(rec);
        assert_int_equal(rec->seq, i);
        ump_shm_ring_pop(&cons, rec);
    }
    fill(buf, 2, 32, 300);
    assert_int_equal(ump_shm_ring_push(&prod, 32, 2, buf, 300, NULL, 0, 300), UMP_OK);
    /* Now head sits at 320, tail at 384: only 64 bytes free. */
    assert_int_equal(ump_shm_ring_push(&prod, 33, 1, buf, 100, NULL, 0, 100), UMP_ERR_NO_RESOURCE);
    /* Drain everything, then position head near the end and force padding. */
    for (int i = 3; i <= 32; i++) {
        const ump_shm_rec_t *rec = ump_shm_ring_peek(&cons);
        assert_non_null(rec);
        assert_int_equal(rec->seq, i);
        if (i == 32) assert_int_equal(check(rec + 1, 2, 32, 300), 0);
        ump_shm_ring_pop(&cons, rec);
    }
    assert_null(ump_shm_ring_peek(&cons));
    /* Head at 320; 27 records of 128 bring it to 3776; 320 left before the
     * end. A 1000-byte record (1024) needs padding of 320 then 1024. */
    for (int i = 0; i < 27; i++) {
        assert_int_equal(ump_shm_ring_push(&prod, 100u + i, 1, buf, 100, NULL, 0, 100), UMP_OK);
        ump_shm_ring_pop(&cons, ump_shm_ring_peek(&cons));
    }
    assert_int_equal(prod.head & (rs - 1), 3776);
    fill(buf, 3, 5, 1000);
    assert_int_equal(ump_shm_ring_push(&prod, 5, 3, buf, 1000, NULL, 0, 1000), UMP_OK);
    const ump_shm_rec_t *rec = ump_shm_ring_peek(&cons);
    assert_non_null(rec);
    assert_ptr_equal(rec, (void *)a->data); /* restarted at offset 0 */
    assert_int_equal(rec->kind, UMP_SHM_REC_DATA);
    assert_int_equal(rec->seq, 5);
    assert_int_equal(check(rec + 1, 3, 5, 1000), 0);
    ump_shm_ring_pop(&cons, rec);
    assert_true(ump_shm_ring_drained(&prod));
    area_free(a, rs);
}

static void test_padding_needs_space(void **state)
{
    const size_t rs = 4096;
    struct area *a = area_new(rs);
    ump_shm_ring_t prod, cons;
    ump_shm_ring_attach(&prod, &a->ctl, a->data, rs);
    ump_shm_ring_attach(&cons, &a->ctl, a->data, rs);
    char buf[2048] = {0};
    /* Head at 3072 after three 1 KiB records; the consumer frees the first
     * (tail 1024): 2048 free. A 1500-byte record (1536 with header) does
     * not fit before the end, so it needs 1024 of padding + 1536 = 2560:
     * refused. Once the second is freed (3072 free) it fits. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(ump_shm_ring_push(&prod, (uint32_t)i, 0, buf, 1000, NULL, 0, 1000),
                         UMP_OK);
    ump_shm_ring_pop(&cons, ump_shm_ring_peek(&cons));
    assert_int_equal(ump_shm_ring_push(&prod, 3, 0, buf, 1500, NULL, 0, 1500), UMP_ERR_NO_RESOURCE);
    ump_shm_ring_pop(&cons, ump_shm_ring_peek(&cons));
    assert_int_equal(ump_shm_ring_push(&prod, 3, 0, buf, 1500, NULL, 0, 1500), UMP_OK);
    const ump_shm_rec_t *rec = ump_shm_ring_peek(&cons);
    assert_non_null(rec);
    assert_int_equal(rec->seq, 2);
    ump_shm_ring_pop(&cons, rec);
    rec = ump_shm_ring_peek(&cons);
    assert_non_null(rec);
    assert_ptr_equal(rec, (void *)a->data);
    assert_int_equal(rec->seq, 3);
    assert_int_equal(rec->len, 1500);
    area_free(a, rs);
}

/* One direction of a pair in a fresh area: both ends of its ring and of
 * its fastbox. */
static struct area *pair_new(size_t rs, ump_shm_ring_t *prod, ump_shm_ring_t *cons,
                             ump_shm_fbq_t *tx, ump_shm_fbq_t *rx)
{
    struct area *a = area_new(rs);
    ump_shm_ring_attach(prod, &a->ctl, a->data, rs);
    ump_shm_ring_attach(cons, &a->ctl, a->data, rs);
    ump_shm_fbq_attach(tx, &a->fb);
    ump_shm_fbq_attach(rx, &a->fb);
    return a;
}

static void test_fastbox(void **state)
{
    const size_t rs = 4096;
    ump_shm_ring_t prod, cons;
    ump_shm_fbq_t tx, rx;
    struct area *a = pair_new(rs, &prod, &cons, &tx, &rx);
    char buf[256];
    fill(buf, 4, 0, sizeof(buf));
    assert_int_equal(
        ump_shm_fb_push(&tx, 0, 0, buf, UMP_SHM_FB_PAYLOAD + 1, NULL, 0, UMP_SHM_FB_PAYLOAD + 1),
        UMP_ERR_NO_RESOURCE);
    assert_false(ump_shm_fb_holds(&rx, 0));
    /* Messages too large for a small slot: every large slot takes one; the
     * next number needs large slot 0 again. */
    const size_t big = UMP_SHM_FBS_PAYLOAD + 6;
    for (uint32_t q = 0; q < UMP_SHM_FB_SLOTS; q++) {
        size_t len = q == 0 ? UMP_SHM_FB_PAYLOAD : UMP_SHM_FBS_PAYLOAD + 1 + q;
        assert_int_equal(ump_shm_fb_push(&tx, q, (uint8_t)q, buf, len, NULL, 0, len), UMP_OK);
    }
    const uint32_t n = UMP_SHM_FB_SLOTS;
    assert_int_equal(ump_shm_fb_push(&tx, n, (uint8_t)n, buf, big, NULL, 0, big),
                     UMP_ERR_NO_RESOURCE);
    for (uint32_t q = 0; q < n; q++)
        assert_true(ump_shm_fb_holds(&rx, q));
    assert_false(ump_shm_fb_holds(&rx, n));

    /* Pair order: 0..n-1 in the slots, n and n+1 in the ring; after 0 is
     * delivered, n+2 still goes to the ring (its slot holds 2); delivery
     * is 0, 1, ..., n+2 whichever way each went. */
    assert_int_equal(ump_shm_pair_send(&prod, &tx, n, (uint8_t)n, buf, big, NULL, 0, big), UMP_OK);
    assert_int_equal(ump_shm_pair_send(&prod, &tx, n + 1, (uint8_t)(n + 1), buf, big, NULL, 0, big),
                     UMP_OK);
    ump_shm_msg_t m = {0};
    uint32_t seq = 0;
    assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 1);
    assert_null(m.rec);
    assert_int_equal(m.len, UMP_SHM_FB_PAYLOAD);
    assert_int_equal(check(m.data, 4, 0, m.len), 0);
    ump_shm_pair_release(&cons, &rx, &m);
    seq++;
    assert_int_equal(ump_shm_pair_send(&prod, &tx, n + 2, (uint8_t)(n + 2), buf, big, NULL, 0, big),
                     UMP_OK);
    for (; seq < n + 3; seq++) {
        assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 1);
        assert_int_equal(m.am_id, seq);
        assert_int_equal(m.rec == NULL, seq < n);
        ump_shm_pair_release(&cons, &rx, &m);
    }
    /* Everything delivered, but the sender found slot n's taken when it
     * looked at n and looks again only UMP_SHM_FB_RECHECK numbers later:
     * until then the ring, then a slot again. */
    uint32_t again = n + UMP_SHM_FB_RECHECK;
    for (uint32_t q = n + 3; q <= again; q++)
        assert_int_equal(ump_shm_pair_send(&prod, &tx, q, (uint8_t)q, buf, big, NULL, 0, big),
                         UMP_OK);
    assert_true(ump_shm_fb_holds(&rx, again));
    for (; seq <= again; seq++) {
        assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 1);
        assert_int_equal(m.am_id, (uint8_t)seq);
        assert_int_equal(m.rec == NULL, seq == again);
        ump_shm_pair_release(&cons, &rx, &m);
    }
    assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 0);
    /* A ring record with a wrong number is reported. */
    assert_int_equal(ump_shm_ring_push(&prod, 77, 0, buf, 200, NULL, 0, 200), UMP_OK);
    assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), UMP_ERR_PROTOCOL);
    area_free(a, rs);
}

/* Messages of up to UMP_SHM_FBS_PAYLOAD bytes take the small slots, two to
 * a cache line, 64 of them before the first is needed again; they keep
 * their order with the large slots and the ring. */
static void test_fastbox_small(void **state)
{
    const size_t rs = 4096;
    ump_shm_ring_t prod, cons;
    ump_shm_fbq_t tx, rx;
    struct area *a = pair_new(rs, &prod, &cons, &tx, &rx);
    assert_int_equal((uintptr_t)ump_shm_fbs_slot(&tx, 0) % UMP_CACHELINE, 0);
    assert_int_equal((char *)ump_shm_fbs_slot(&tx, 1) - (char *)ump_shm_fbs_slot(&tx, 0), 32);
    char buf[256];
    fill(buf, 6, 0, sizeof(buf));
    const uint32_t n = UMP_SHM_FBS_SLOTS;
    for (uint32_t q = 0; q < n; q++) {
        size_t len = q % (UMP_SHM_FBS_PAYLOAD + 1);
        assert_int_equal(ump_shm_fb_push(&tx, q, (uint8_t)q, buf, len, NULL, 0, len), UMP_OK);
    }
    /* Slot 0 of either set holds a message not yet taken. */
    assert_int_equal(ump_shm_fb_push(&tx, n, 0, buf, 1, NULL, 0, 1), UMP_ERR_NO_RESOURCE);
    assert_int_equal(ump_shm_fb_push(&tx, n, 0, buf, 40, NULL, 0, 40), UMP_ERR_NO_RESOURCE);
    assert_false(ump_shm_fb_holds(&rx, n));
    /* n and n+1 to the ring, as the receiver has not moved yet. */
    assert_int_equal(ump_shm_pair_send(&prod, &tx, n, (uint8_t)n, buf, 8, NULL, 0, 8), UMP_OK);
    assert_int_equal(ump_shm_pair_send(&prod, &tx, n + 1, (uint8_t)(n + 1), buf, 8, NULL, 0, 8),
                     UMP_OK);
    ump_shm_msg_t m = {0};
    uint32_t seq = 0;
    for (; seq < n + 2; seq++) {
        assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 1);
        assert_int_equal(m.am_id, (uint8_t)seq);
        assert_int_equal(m.rec == NULL, seq < n);
        size_t len = seq < n ? seq % (UMP_SHM_FBS_PAYLOAD + 1) : 8;
        assert_int_equal(m.len, len);
        assert_int_equal(check(m.data, 6, 0, m.len), 0);
        if (seq < n) assert_ptr_equal(m.data, ump_shm_fbs_slot(&rx, seq)->data);
        ump_shm_pair_release(&cons, &rx, &m);
    }
    /* Everything taken: small, large, ring-only sizes in turn, each where
     * its size sends it (from the sender's next look at `consumed` on),
     * delivered in order. A small message at the largest size a small
     * slot holds and a large one just past it. */
    const size_t sizes[] = {
        0, UMP_SHM_FBS_PAYLOAD, UMP_SHM_FBS_PAYLOAD + 1, UMP_SHM_FB_PAYLOAD, UMP_SHM_FB_PAYLOAD + 1,
        3};
    uint32_t first = seq;
    for (size_t i = 0; i < 6 * 4; i++) {
        uint32_t q = first + (uint32_t)i;
        size_t len = sizes[i % 6];
        assert_int_equal(ump_shm_pair_send(&prod, &tx, q, (uint8_t)q, buf, len, NULL, 0, len),
                         UMP_OK);
    }
    for (size_t i = 0; i < 6 * 4; i++, seq++) {
        size_t len = sizes[i % 6];
        assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 1);
        assert_int_equal(m.am_id, (uint8_t)seq);
        assert_int_equal(m.len, len);
        assert_int_equal(check(m.data, 6, 0, m.len), 0);
        if (seq < n + UMP_SHM_FB_RECHECK || len > UMP_SHM_FB_PAYLOAD)
            assert_non_null(m.rec); /* the sender looks at `consumed` again at n + RECHECK */
        else if (len <= UMP_SHM_FBS_PAYLOAD)
            assert_ptr_equal(m.data, ump_shm_fbs_slot(&rx, seq)->data);
        else if (len <= UMP_SHM_FB_PAYLOAD)
            assert_ptr_equal(m.data, ump_shm_fb_slot(&rx, seq)->data);
        ump_shm_pair_release(&cons, &rx, &m);
    }
    assert_int_equal(ump_shm_pair_next(&cons, &rx, seq, &m), 0);
    area_free(a, rs);
}

/* A pair whose receiver keeps up uses its slots across the point where the
 * numbers' signed distance wraps (2^31), not the ring. */
static void test_fastbox_numbers_wrap(void **state)
{
    const size_t rs = 4096;
    ump_shm_ring_t prod, cons;
    ump_shm_fbq_t tx, rx;
    struct area *a = pair_new(rs, &prod, &cons, &tx, &rx);
    const uint32_t start = 0x80000000u - 2 * UMP_SHM_FBS_SLOTS;
    atomic_store(&a->fb.consumed, start);
    tx.consumed = start;
    tx.recheck = start;
    char buf[64];
    fill(buf, 5, 0, sizeof(buf));
    /* Small and large messages in turn: both sets of slots. */
    for (uint32_t q = start; q != start + 8 * UMP_SHM_FBS_SLOTS; q++) {
        size_t len = q & 1 ? 16 : 40;
        assert_int_equal(ump_shm_pair_send(&prod, &tx, q, (uint8_t)q, buf, len, NULL, 0, len),
                         UMP_OK);
        ump_shm_msg_t m = {0};
        assert_int_equal(ump_shm_pair_next(&cons, &rx, q, &m), 1);
        assert_null(m.rec);
        assert_int_equal(m.am_id, (uint8_t)q);
        assert_int_equal(check(m.data, 5, 0, m.len), 0);
        ump_shm_pair_release(&cons, &rx, &m);
    }
    area_free(a, rs);
}

/* --- two processes -------------------------------------------------------- */

#define STREAM_MSGS 100000
#define STREAM_SEED 12345u

/* Mostly small messages, some up to the ring's limit. */
static size_t stream_len(uint32_t i, size_t max)
{
    uint32_t x = pattern(STREAM_SEED, i, 0) | (uint32_t)pattern(STREAM_SEED, i, 1) << 8 |
                 (uint32_t)pattern(STREAM_SEED, i, 2) << 16;
    if ((x & 15) == 0) return x % (max + 1);
    if ((x & 3) == 0) return x % 2048;
    return x % 200;
}

static void backoff(unsigned *spins)
{
    if (++*spins > 100)
        sched_yield(); /* two cores, maybe shared with other tests */
    else
        ump_cpu_relax();
}

/* Child: sends STREAM_MSGS messages; with `pair`, through fastbox + ring. */
static void producer(struct area *a, size_t rs, bool pair)
{
    alarm(TEST_TIMEOUT);
    ump_shm_ring_t prod;
    ump_shm_fbq_t tx;
    ump_shm_ring_attach(&prod, &a->ctl, a->data, rs);
    ump_shm_fbq_attach(&tx, &a->fb);
    size_t max = ump_shm_ring_max_payload(rs);
    char *buf = malloc(max);
    if (!buf) _exit(2);
    for (uint32_t i = 0; i < STREAM_MSGS; i++) {
        size_t len = stream_len(i, max);
        fill(buf, STREAM_SEED, i, len);
        /* Split into header + up to three iovecs at varying points. */
        size_t h = UMP_MIN(len, (size_t)(i % 40));
        size_t c1 = (len - h) / 3, c2 = (len - h) / 2 - c1 / 2;
        if (c1 + c2 > len - h) c2 = 0;
        struct iovec iov[3] = {
            {buf + h, c1}, {buf + h + c1, c2}, {buf + h + c1 + c2, len - h - c1 - c2}};
        unsigned spins = 0;
        for (;;) {
            int rc = pair ? ump_shm_pair_send(&prod, &tx, i, (uint8_t)i, buf, h, iov, 3, len)
                          : ump_shm_ring_push(&prod, i, (uint8_t)i, buf, h, iov, 3, len);
            if (rc == UMP_OK) break;
            if (rc != UMP_ERR_NO_RESOURCE) _exit(3);
            backoff(&spins);
        }
    }
    free(buf);
    _exit(0);
}

static void run_stream(bool pair)
{
    const size_t rs = 64 << 10;
    struct area *a = area_new(rs);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) producer(a, rs, pair);
    alarm(TEST_TIMEOUT);
    ump_shm_ring_t cons;
    ump_shm_fbq_t rx;
    ump_shm_ring_attach(&cons, &a->ctl, a->data, rs);
    ump_shm_fbq_attach(&rx, &a->fb);
    size_t max = ump_shm_ring_max_payload(rs);
    int bad = 0;
    uint32_t fastbox_hits = 0;
    for (uint32_t i = 0; i < STREAM_MSGS && !bad; i++) {
        unsigned spins = 0;
        ump_shm_msg_t m = {0};
        int rc;
        while ((rc = ump_shm_pair_next(&cons, &rx, i, &m)) == 0)
            backoff(&spins);
        if (rc < 0) {
            print_error("message %u out of order\n", i);
            bad = 1;
            break;
        }
        size_t len = stream_len(i, max);
        if (m.len != len || m.am_id != (uint8_t)i || check(m.data, STREAM_SEED, i, len)) {
            print_error("message %u: len %zu (want %zu) am %u corrupt\n", i, m.len, len, m.am_id);
            bad = 1;
        }
        fastbox_hits += m.rec == NULL;
        ump_shm_pair_release(&cons, &rx, &m);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    alarm(0);
    assert_int_equal(bad, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_null(ump_shm_ring_peek(&cons));
    if (pair)
        assert_true(fastbox_hits > 0);
    else
        assert_int_equal(fastbox_hits, 0);
    area_free(a, rs);
}

/* Stale payload never reads as a record: the first lap carries payload in
 * which every 16-byte header's stamp word holds the stamp its line would
 * have as a record of the second lap; the second lap's records start on
 * those lines, and after each one the consumer must find the ring empty
 * until the producer publishes the next. Then a ring filled to the last
 * line (no room for the marker) must read empty once drained. */
static void test_stale_payload(void **state)
{
    (void)state;
    const size_t rs = 4096;
    struct area *a = area_new(rs);
    ump_shm_ring_ctl_init(&a->ctl);
    ump_shm_ring_t prod, cons;
    ump_shm_ring_attach(&prod, &a->ctl, a->data, rs);
    ump_shm_ring_attach(&cons, &a->ctl, a->data, rs);
    /* Lap 1: one record over 15 lines, its payload forged. */
    size_t big = 15 * UMP_CACHELINE - UMP_SHM_REC_HDR;
    uint8_t *buf = calloc(1, rs);
    assert_non_null(buf);
    for (size_t line = 1; line < 15; line++) {
        uint32_t forged = ump_shm_rec_stamp(rs + line * UMP_CACHELINE);
        memcpy(buf + line * UMP_CACHELINE - UMP_SHM_REC_HDR + offsetof(ump_shm_rec_t, stamp),
               &forged, sizeof(forged));
    }
    struct iovec iov = {buf, big};
    assert_int_equal(ump_shm_ring_push(&prod, 1, 0, NULL, 0, &iov, 1, big), UMP_OK);
    const ump_shm_rec_t *rec = ump_shm_ring_peek(&cons);
    assert_non_null(rec);
    assert_int_equal(rec->len, big);
    assert_memory_equal(rec + 1, buf, big);
    ump_shm_ring_pop(&cons, rec);
    assert_true(ump_shm_ring_empty(&cons));
    /* Fill the rest of lap 1 (49 lines: 31 + 18), so lap 2 starts at 0. */
    memset(buf, 0, rs);
    for (size_t k = 0; k < 2; k++) {
        size_t rest = (k ? 18 : 31) * UMP_CACHELINE - UMP_SHM_REC_HDR;
        iov.iov_len = rest;
        assert_int_equal(ump_shm_ring_push(&prod, 2, 0, NULL, 0, &iov, 1, rest), UMP_OK);
        ump_shm_ring_pop(&cons, ump_shm_ring_peek(&cons));
    }
    /* Lap 2: one-line records over the forged lines. */
    for (uint32_t i = 0; i < 15; i++) {
        assert_true(ump_shm_ring_empty(&cons));
        assert_null(ump_shm_ring_peek(&cons));
        uint8_t b = (uint8_t)(0xa0 + i);
        struct iovec one = {&b, 1};
        assert_int_equal(ump_shm_ring_push(&prod, 3 + i, 0, NULL, 0, &one, 1, 1), UMP_OK);
        rec = ump_shm_ring_peek(&cons);
        assert_non_null(rec);
        assert_int_equal(rec->seq, 3 + i);
        assert_int_equal(*(const uint8_t *)(rec + 1), b);
        ump_shm_ring_pop(&cons, rec);
    }
    assert_null(ump_shm_ring_peek(&cons));
    /* A full ring: records up to the tail the producer knows, so the line
     * after the last one is not free and gets no marker. */
    uint32_t seq = 100;
    struct iovec small = {buf, UMP_CACHELINE - UMP_SHM_REC_HDR};
    while (ump_shm_ring_push(&prod, seq, 0, NULL, 0, &small, 1, small.iov_len) == UMP_OK)
        seq++;
    assert_true(seq > 100);
    for (uint32_t i = 100; i < seq; i++) {
        rec = ump_shm_ring_peek(&cons);
        assert_non_null(rec);
        assert_int_equal(rec->seq, i);
        ump_shm_ring_pop(&cons, rec);
    }
    assert_true(ump_shm_ring_empty(&cons));
    assert_null(ump_shm_ring_peek(&cons));
    free(buf);
    area_free(a, rs);
}

static void test_stream_ring(void **state)
{
    run_stream(false);
}
static void test_stream_pair(void **state)
{
    run_stream(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_fill_and_wrap),
        cmocka_unit_test(test_padding_needs_space),
        cmocka_unit_test(test_fastbox),
        cmocka_unit_test(test_fastbox_small),
        cmocka_unit_test(test_fastbox_numbers_wrap),
        cmocka_unit_test(test_stale_payload),
        cmocka_unit_test(test_stream_ring),
        cmocka_unit_test(test_stream_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
