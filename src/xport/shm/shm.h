/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm.h - the shared-memory transport's internal interfaces.
 *
 * One segment per node holds, for every ordered pair (sender, receiver) of
 * local ranks, two sets of fastbox slots and a single-producer/single-consumer ring
 * of variable-size records, plus a control block per receiver (pending
 * bitmap, sleeping flag). Large messages may bypass the rings with
 * cross-memory attach (process_vm_readv) through get().
 *
 * Ordering: every message of a pair carries a sequence number; the receiver
 * delivers whichever of fastbox or the ring's next record holds the next expected number,
 * so a sender may use the fastbox whenever it is free without reordering.
 */
#ifndef UMP_XPORT_SHM_H
#define UMP_XPORT_SHM_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "util/util.h"
#include "xport/xport.h"

/* --- rings ----------------------------------------------------------------
 *
 * Head and tail are byte counters that only grow (wrap is never reached in
 * 64 bits); the position in the data area is counter & (size - 1). Records
 * are UMP_CACHELINE aligned and never wrap: a record that does not fit before
 * the end is preceded by a padding record that fills the rest, and the record
 * starts again at offset 0.
 *
 * A record publishes itself: its `stamp`, stored last with release order,
 * is ump_shm_rec_stamp() of the counter it was written at, so the consumer
 * polls the line at its tail and reads nothing else to learn of a message
 * (no head counter to fetch before the record: one line transfer, not
 * two). What the consumer can find at its tail before the record is
 * written is never that stamp: either a header written a lap earlier at
 * the same offset (a counter one ring size lower), or the marker the
 * producer leaves at the position after each record it publishes (the
 * stamp of that position with its low bit flipped), or the zeroes of a new
 * segment. The marker is written whenever the line after a record is free;
 * when it is not, the ring is full and that line holds the header of the
 * record the consumer is at, one lap back. So stale payload bytes, which
 * could hold anything, are never where the consumer looks.
 */

#define UMP_SHM_REC_DATA 1
#define UMP_SHM_REC_PAD  2

typedef struct ump_shm_rec {
    uint32_t len; /* bytes after this header (DATA) or padding length (PAD) */
    uint32_t seq; /* per-pair sequence number shared with the fastbox */
    uint8_t kind; /* UMP_SHM_REC_* */
    uint8_t am_id;
    uint16_t rsv0;
    _Atomic uint32_t stamp; /* ump_shm_rec_stamp(counter) once written, stored last */
} ump_shm_rec_t;

#define UMP_SHM_REC_HDR sizeof(ump_shm_rec_t) /* 16 */
_Static_assert(sizeof(ump_shm_rec_t) == 16, "a record header is 16 bytes");

/* The stamp of a record written at counter pos: the line number, plus one so
 * that the zeroes of a new segment are no record. 32 bits hold it: the
 * values a position can show differ from the one wanted by a multiple of
 * size / UMP_CACHELINE lines, or in the low bit. */
static inline uint32_t ump_shm_rec_stamp(uint64_t pos)
{
    return (uint32_t)(pos / UMP_CACHELINE) + 1;
}

/* Shared part of a ring: producer and consumer counters on their own lines
 * so neither side's writes invalidate the line the other one writes. The
 * consumer never reads `head` (records carry their stamps); it is kept for
 * a producer that attaches again. */
typedef struct ump_shm_ring_ctl {
    _Atomic uint64_t head UMP_ALIGNED(UMP_CACHELINE); /* written by the producer */
    char pad0[UMP_CACHELINE - sizeof(uint64_t)];
    _Atomic uint64_t tail UMP_ALIGNED(UMP_CACHELINE); /* written by the consumer */
    char pad1[UMP_CACHELINE - sizeof(uint64_t)];
} ump_shm_ring_ctl_t;

/* Process-private handle on one ring. A process uses only the producer half
 * or only the consumer half of a given ring. The data area must start
 * zeroed (a new segment or anonymous mapping is). */
typedef struct ump_shm_ring {
    ump_shm_ring_ctl_t *ctl;
    char *data;
    uint64_t size; /* power of two, multiple of UMP_CACHELINE */
    /* producer side */
    uint64_t head;       /* next write position (published by push) */
    uint64_t tail_cache; /* last tail read: free space known without a miss */
    /* consumer side */
    uint64_t tail; /* next read position (published by pop) */
} ump_shm_ring_t;

/* Largest payload (record minus header) a ring of `size` bytes accepts:
 * half the ring, so a sender can fill one half while the receiver drains the
 * other. */
static inline size_t ump_shm_ring_max_payload(uint64_t size)
{
    return size / 2 - UMP_SHM_REC_HDR;
}

/* Initialises the shared counters (creator only). */
void ump_shm_ring_ctl_init(ump_shm_ring_ctl_t *ctl);
/* Binds a private handle to shared ctl and data of `size` bytes. */
void ump_shm_ring_attach(ump_shm_ring_t *r, ump_shm_ring_ctl_t *ctl, void *data, uint64_t size);

/* Producer: appends one record made of hdr followed by iov. UMP_OK, or
 * UMP_ERR_NO_RESOURCE when it does not fit now (nothing written). */
int ump_shm_ring_push(ump_shm_ring_t *r, uint32_t seq, uint8_t am_id, const void *hdr, size_t hlen,
                      const struct iovec *iov, int iovcnt, size_t total);
/* Producer: like push, but the `len` payload bytes after hdr are written in
 * place by pack(arg, dst, len), called once when the record fits. */
int ump_shm_ring_push_pack(ump_shm_ring_t *r, uint32_t seq, uint8_t am_id, const void *hdr,
                           size_t hlen, size_t len, void (*pack)(void *, void *, size_t),
                           void *arg);
/* Producer: true when the consumer has taken everything pushed. */
bool ump_shm_ring_drained(ump_shm_ring_t *r);

/* Consumer: the next data record (padding skipped), or NULL when empty. The
 * record stays valid until ump_shm_ring_pop(). */
const ump_shm_rec_t *ump_shm_ring_peek(ump_shm_ring_t *r);
/* Consumer: true when nothing has been pushed that it has not taken (a
 * padding record counts as something). Inline for the receiver's poll: one
 * read of the line at the tail. */
static inline bool ump_shm_ring_empty(ump_shm_ring_t *r)
{
    const ump_shm_rec_t *rec = (const ump_shm_rec_t *)(r->data + (r->tail & (r->size - 1)));
    /* A record of more than 48 bytes fills the next lines too: ask for
     * them on every look, so they travel alongside the stamped line
     * (128-512 B ping-pong with the cores apart: 0.61-0.65 us at 128 B
     * with, 0.63-0.70 without). */
    __builtin_prefetch((const char *)rec + UMP_CACHELINE);
    __builtin_prefetch((const char *)rec + 2 * UMP_CACHELINE);
    return atomic_load_explicit(&rec->stamp, memory_order_relaxed) != ump_shm_rec_stamp(r->tail);
}
/* Consumer: releases the record returned by the last peek. */
void ump_shm_ring_pop(ump_shm_ring_t *r, const ump_shm_rec_t *rec);

/* --- fastboxes -------------------------------------------------------------
 *
 * Two sets of slots per pair for the smallest messages: UMP_SHM_FBS_SLOTS
 * of 32 bytes, two to a cache line, for messages of up to
 * UMP_SHM_FBS_PAYLOAD bytes (a standard eager message of up to 16 bytes
 * with its short header), and UMP_SHM_FB_SLOTS of 128 bytes for the rest up
 * to UMP_SHM_FB_PAYLOAD. Message number seq may use slot seq % slots of its
 * set. A slot's `state` is 0 until its first use, then UMP_SHM_FB_FULL |
 * (seq & UMP_SHM_FB_SEQ) of the last message written to it; the receiver
 * never writes a slot, as no later number matches a delivered one. The
 * receiver publishes in `consumed` the number of the next message it will
 * deliver (everything before it is delivered); the sender keeps its last
 * reading of it and reads the shared word again only when its reading says
 * the slot may still be taken. So a sender writes a slot without first
 * fetching a line the receiver wrote, and the receiver reads at most one
 * line per message: the transfers a message needs, no more.
 * 32 large slots hold half of a window of 64 sends (osu_mbw_mr's pattern)
 * before the ring takes the rest (in the message-rate benchmark 8 slots
 * gave 9 M messages/s, 16 gave 10.5 M, 32 and 64 12 M); 64 small ones hold
 * all of it, in 32 lines.
 */
#define UMP_SHM_FB_SIZE     128
#define UMP_SHM_FB_SLOTS    32
#define UMP_SHM_FB_PAYLOAD  (UMP_SHM_FB_SIZE - 8)
#define UMP_SHM_FBS_SIZE    32
#define UMP_SHM_FBS_SLOTS   64
#define UMP_SHM_FBS_PAYLOAD (UMP_SHM_FBS_SIZE - 8)
#define UMP_SHM_FB_FULL     0x80000000u
#define UMP_SHM_FB_SEQ      0x7fffffffu

typedef struct ump_shm_fbhdr {
    _Atomic uint32_t state;
    uint16_t len;
    uint8_t am_id;
    uint8_t rsv;
} ump_shm_fbhdr_t;

typedef struct ump_shm_fastbox {
    ump_shm_fbhdr_t h;
    char data[UMP_SHM_FB_PAYLOAD];
} UMP_ALIGNED(UMP_CACHELINE) ump_shm_fastbox_t;

typedef struct ump_shm_fbsmall {
    ump_shm_fbhdr_t h;
    char data[UMP_SHM_FBS_PAYLOAD];
} UMP_ALIGNED(UMP_SHM_FBS_SIZE) ump_shm_fbsmall_t;

_Static_assert(sizeof(ump_shm_fastbox_t) == UMP_SHM_FB_SIZE, "a large slot is 128 bytes");
_Static_assert(sizeof(ump_shm_fbsmall_t) == UMP_SHM_FBS_SIZE, "a small slot is 32 bytes");

/* Shared: the slots of one direction of a pair. */
typedef struct ump_shm_fbset {
    ump_shm_fbsmall_t small[UMP_SHM_FBS_SLOTS];
    ump_shm_fastbox_t slot[UMP_SHM_FB_SLOTS];
    _Atomic uint32_t consumed UMP_ALIGNED(UMP_CACHELINE); /* written by the receiver */
    char pad[UMP_CACHELINE - sizeof(uint32_t)];
} ump_shm_fbset_t;

/* Process-private handle on an fbset (one side of it). */
typedef struct ump_shm_fbq {
    ump_shm_fbset_t *set;
    uint32_t consumed; /* sender: last reading of set->consumed */
    uint32_t recheck;  /* sender: no new reading before this number */
} ump_shm_fbq_t;

/* After a reading of `consumed` that found the slot taken, the sender reads
 * it again only this many numbers later: the receiver writes that line on
 * every message, so reading it per send while the ring carries a burst
 * costs a line transfer each time. */
#define UMP_SHM_FB_RECHECK 4

static inline void ump_shm_fbq_attach(ump_shm_fbq_t *q, ump_shm_fbset_t *set)
{
    q->set = set;
    q->consumed = 0;
    q->recheck = 0;
}
static inline ump_shm_fastbox_t *ump_shm_fb_slot(ump_shm_fbq_t *q, uint32_t seq)
{
    return &q->set->slot[seq % UMP_SHM_FB_SLOTS];
}
static inline ump_shm_fbsmall_t *ump_shm_fbs_slot(ump_shm_fbq_t *q, uint32_t seq)
{
    return &q->set->small[seq % UMP_SHM_FBS_SLOTS];
}

/* True when slot seq % nslots of a set is free: the receiver has taken the
 * message that used it last (seq - nslots or earlier). */
static UMP_INLINE_PATH bool ump_shm_fb_claim(ump_shm_fbq_t *q, uint32_t seq, uint32_t nslots)
{
    if ((uint32_t)(seq - q->consumed) >= nslots) {
        if ((int32_t)(seq - q->recheck) < 0) return false;
        /* Acquire: the receiver's reads of the slot's last message are
         * done before we write it again. */
        q->consumed = atomic_load_explicit(&q->set->consumed, memory_order_acquire);
        if ((uint32_t)(seq - q->consumed) >= nslots) {
            q->recheck = seq + UMP_SHM_FB_RECHECK;
            return false;
        }
        /* Kept near seq, so the signed distance above holds after the
         * numbers wrap. */
        q->recheck = seq;
    }
    return true;
}

/* The header and data of the free slot for message seq of `total` bytes,
 * or NULL. A small message that finds its small slot taken finds its large
 * one taken too (fewer slots, so an older number), and goes to the ring. */
static UMP_INLINE_PATH ump_shm_fbhdr_t *ump_shm_fb_slot_for(ump_shm_fbq_t *q, uint32_t seq,
                                                            size_t total, char **data)
{
    if (total <= UMP_SHM_FBS_PAYLOAD) {
        if (!ump_shm_fb_claim(q, seq, UMP_SHM_FBS_SLOTS)) return NULL;
        ump_shm_fbsmall_t *s = ump_shm_fbs_slot(q, seq);
        *data = s->data;
        return &s->h;
    }
    if (total > UMP_SHM_FB_PAYLOAD || !ump_shm_fb_claim(q, seq, UMP_SHM_FB_SLOTS)) return NULL;
    ump_shm_fastbox_t *b = ump_shm_fb_slot(q, seq);
    *data = b->data;
    return &b->h;
}

/* Copies the few bytes a fastbox holds (at most UMP_SHM_FB_PAYLOAD) in
 * words, without a call: a library memcpy costs more than the copy here. */
static UMP_INLINE_PATH char *ump_shm_fb_copy(char *dst, const void *src, size_t n)
{
    const char *s = src;
    for (; n >= 8; n -= 8, dst += 8, s += 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        memcpy(dst, &w, 8);
    }
    ump_copy_short(dst, s, n); /* the last 0-7 bytes */
    return dst + n;
}

/* Sender: message number seq into its slot (the small set when it fits);
 * UMP_ERR_NO_RESOURCE when the slot is taken or the message is larger than
 * UMP_SHM_FB_PAYLOAD. */
static UMP_INLINE_PATH int ump_shm_fb_push(ump_shm_fbq_t *q, uint32_t seq, uint8_t am_id,
                                           const void *hdr, size_t hlen, const struct iovec *iov,
                                           int iovcnt, size_t total)
{
    char *dst;
    ump_shm_fbhdr_t *h = ump_shm_fb_slot_for(q, seq, total, &dst);
    if (!h) return UMP_ERR_NO_RESOURCE;
    h->len = (uint16_t)total;
    h->am_id = am_id;
    dst = ump_shm_fb_copy(dst, hdr, hlen);
    for (int i = 0; i < iovcnt; i++)
        dst = ump_shm_fb_copy(dst, iov[i].iov_base, iov[i].iov_len);
    atomic_store_explicit(&h->state, UMP_SHM_FB_FULL | (seq & UMP_SHM_FB_SEQ),
                          memory_order_release);
    return UMP_OK;
}

/* Sender, streaming: asks for the lines that message seq + UMP_SHM_AHEAD
 * will take in the same place (small slot, large slot or ring) as the
 * `total` bytes of message seq just sent, with the intent to write. The
 * receiver holds them shared since it read them a round of slots ago, and
 * a store must first take them back; a store that waits for that stops the
 * stores behind it (they leave the core in order), so with the cores apart
 * a stream ran one line transfer at a time. Not while the pair ping-pongs:
 * there the extra transfer crosses the message's own (see shm_xport.c). */
#define UMP_SHM_AHEAD         8
#define UMP_SHM_AHEAD_REC_MAX 320 /* larger records: asking cost more than it saved */
static inline void ump_shm_pair_ahead(ump_shm_ring_t *tx, ump_shm_fbq_t *fb, uint32_t seq,
                                      size_t total)
{
    if (total <= UMP_SHM_FBS_PAYLOAD) {
        ump_prefetch_write(ump_shm_fbs_slot(fb, seq + UMP_SHM_AHEAD));
    } else if (total <= UMP_SHM_FB_PAYLOAD) {
        /* Half as far: 32 slots, and a slot further on may still hold a
         * message the receiver is reading. Only slots of one line: for
         * two the request cost more than it saved (cores apart, 32 B:
         * 11 M/s without, 12-14 with it 4 slots ahead, 9.5-9.8 at 8; 64 B:
         * 8.4-8.5 without, 7.9-8.1 with). */
        if (total + sizeof(ump_shm_fbhdr_t) <= UMP_CACHELINE)
            ump_prefetch_write(ump_shm_fb_slot(fb, seq + UMP_SHM_AHEAD / 2));
    } else {
        /* The lines a record of this size takes, four records on. */
        uint64_t need = UMP_ALIGN_UP(UMP_SHM_REC_HDR + total, UMP_CACHELINE);
        if (need > UMP_SHM_AHEAD_REC_MAX) return;
        uint64_t at = tx->head + 4 * need;
        for (uint64_t o = 0; o < need; o += UMP_CACHELINE)
            ump_prefetch_write(tx->data + ((at + o) & (tx->size - 1)));
    }
}

/* True when the slot header h holds message number seq. */
static inline bool ump_shm_fb_full(const ump_shm_fbhdr_t *h, uint32_t seq)
{
    return atomic_load_explicit(&h->state, memory_order_acquire) ==
           (UMP_SHM_FB_FULL | (seq & UMP_SHM_FB_SEQ));
}

/* --- one direction of a pair: fastbox + ring in sequence order ---------- */

typedef struct ump_shm_msg {
    const void *data;
    size_t len;
    uint32_t seq;
    uint8_t am_id;
    const ump_shm_rec_t *rec; /* the ring record, NULL when in a fastbox */
} ump_shm_msg_t;

/* Sender: message number `seq` into its fastbox slot when it fits and the
 * slot is free, else into the ring. UMP_OK or UMP_ERR_NO_RESOURCE (nothing written). */
int ump_shm_pair_send(ump_shm_ring_t *tx, ump_shm_fbq_t *fb, uint32_t seq, uint8_t am_id,
                      const void *hdr, size_t hlen, const struct iovec *iov, int iovcnt,
                      size_t total);
/* Sender: ump_shm_pair_send with the payload written in place by pack. */
int ump_shm_pair_send_pack(ump_shm_ring_t *tx, ump_shm_fbq_t *fb, uint32_t seq, uint8_t am_id,
                           const void *hdr, size_t hlen, size_t len,
                           void (*pack)(void *, void *, size_t), void *arg);

/* Fills *m from the slot with header h and data `data` (message seq). */
static inline int ump_shm_fb_take(const ump_shm_fbhdr_t *h, const char *data, uint32_t seq,
                                  ump_shm_msg_t *m)
{
    m->data = data;
    m->len = h->len;
    m->seq = seq;
    m->am_id = h->am_id;
    m->rec = NULL;
    return 1;
}

/* Receiver: message number seq when it is in one of its slots: 1 (in *m),
 * else 0. */
static inline int ump_shm_fb_find(ump_shm_fbq_t *fb, uint32_t seq, ump_shm_msg_t *m)
{
    const ump_shm_fbsmall_t *s = ump_shm_fbs_slot(fb, seq);
    if (ump_shm_fb_full(&s->h, seq)) return ump_shm_fb_take(&s->h, s->data, seq, m);
    const ump_shm_fastbox_t *b = ump_shm_fb_slot(fb, seq);
    if (ump_shm_fb_full(&b->h, seq)) return ump_shm_fb_take(&b->h, b->data, seq, m);
    return 0;
}

/* Receiver: true when message number seq is in one of its slots. */
static inline bool ump_shm_fb_holds(ump_shm_fbq_t *q, uint32_t seq)
{
    ump_shm_msg_t m;
    return ump_shm_fb_find(q, seq, &m);
}

/* Receiver: ump_shm_pair_next() for a message in neither slot: the ring
 * head when it holds number seq. */
int ump_shm_pair_next_ring(ump_shm_ring_t *rx, ump_shm_fbq_t *fb, uint32_t seq, ump_shm_msg_t *m);

/* Receiver: finds message number `seq`: 1 (in *m, valid until release), 0
 * when it has not arrived, UMP_ERR_PROTOCOL when the ring shows another
 * number and the fastbox does not hold it (a corrupted pair). Folded into
 * the receiver's poll, which runs it on every pass; the ring's part is
 * out of line. */
static UMP_INLINE_PATH int ump_shm_pair_next(ump_shm_ring_t *rx, ump_shm_fbq_t *fb, uint32_t seq,
                                             ump_shm_msg_t *m)
{
    /* The fastboxes first, as small messages mostly travel there: a slot
     * that holds number seq holds the message wanted, whatever the ring
     * shows. */
    const ump_shm_fbsmall_t *s = ump_shm_fbs_slot(fb, seq);
    /* No prefetch of the next lines after a hit here: the receiver keeps
     * up with the sender and reads each line as it is written, so asking
     * for lines ahead moved nothing (8-byte message rate with the cores
     * apart, medians of 8 runs: 10.4-10.6 M/s with four lines ahead,
     * 10.6-10.7 with none; the large slots' own 10.2-10.4). */
    if (ump_shm_fb_full(&s->h, seq)) return ump_shm_fb_take(&s->h, s->data, seq, m);
    const ump_shm_fastbox_t *b = ump_shm_fb_slot(fb, seq);
    /* A message longer than a large slot's first line also fills its
     * second: ask for that line on every look, so that it travels
     * alongside the first instead of after it (a second dependent
     * transfer). */
    __builtin_prefetch((const char *)b + UMP_CACHELINE);
    if (ump_shm_fb_full(&b->h, seq)) {
        __builtin_prefetch(ump_shm_fb_slot(fb, seq + 1));
        __builtin_prefetch(ump_shm_fb_slot(fb, seq + 2));
        return ump_shm_fb_take(&b->h, b->data, seq, m);
    }
    return ump_shm_ring_empty(rx) ? 0 : ump_shm_pair_next_ring(rx, fb, seq, m);
}

/* Receiver: frees the slot of a message returned by ump_shm_pair_next(). */
static inline void ump_shm_pair_release(ump_shm_ring_t *rx, ump_shm_fbq_t *fb,
                                        const ump_shm_msg_t *m)
{
    /* A fastbox slot is left as it is: its state names message seq, which
     * no later number matches, so the receiver only ever reads slot lines
     * and the sender's next write finds no modified copy to fetch back. */
    if (m->rec) ump_shm_ring_pop(rx, m->rec);
    /* Release: our reads of the slot are done before the sender sees the
     * number (a line the sender reads only when it runs out of slots). */
    atomic_store_explicit(&fb->set->consumed, m->seq + 1, memory_order_release);
}

/* Gathers hdr + iov into dst (total bytes). */
void ump_shm_gather(char *dst, const void *hdr, size_t hlen, const struct iovec *iov, int iovcnt,
                    size_t total);

/* --- segment ---------------------------------------------------------------
 *
 * Layout: header | control block per local rank | pair block per (s, r).
 * A pair block is fastbox slots, ring counters, ring data.
 */
#define UMP_SHM_MAGIC     0x756d7073686d3033ull /* "umpshm03" */
#define UMP_SHM_MAX_LOCAL 512                   /* pending bitmap fits one line */

typedef struct ump_shm_seg_hdr {
    uint64_t magic;
    uint64_t local_size;
    uint64_t ring_size;
    uint64_t total_size;
    _Atomic int attached; /* ranks that mapped the segment; last one unlinks */
} UMP_ALIGNED(UMP_CACHELINE) ump_shm_seg_hdr_t;

/* Per-receiver control block. Senders set their bit in `pending` after
 * publishing so the receiver reads only rings that have data. */
typedef struct ump_shm_ctl {
    _Atomic uint64_t pending[UMP_SHM_MAX_LOCAL / 64] UMP_ALIGNED(UMP_CACHELINE);
    _Atomic int sleeping UMP_ALIGNED(UMP_CACHELINE); /* receiver armed, wants a doorbell */
    char pad[UMP_CACHELINE - sizeof(int)];
} ump_shm_ctl_t;

typedef struct ump_shm_pair {
    ump_shm_fbset_t fb;
    ump_shm_ring_ctl_t ring;
    /* ring data follows, ring_size bytes */
} ump_shm_pair_t;

static inline size_t ump_shm_pair_stride(uint64_t ring_size)
{
    return sizeof(ump_shm_pair_t) + ring_size;
}
static inline size_t ump_shm_seg_size(int local_size, uint64_t ring_size)
{
    return sizeof(ump_shm_seg_hdr_t) + (size_t)local_size * sizeof(ump_shm_ctl_t) +
           (size_t)local_size * local_size * ump_shm_pair_stride(ring_size);
}
static inline ump_shm_ctl_t *ump_shm_seg_ctl(void *base, int slot)
{
    return (ump_shm_ctl_t *)((char *)base + sizeof(ump_shm_seg_hdr_t)) + slot;
}
static inline ump_shm_pair_t *ump_shm_seg_pair(void *base, int local_size, uint64_t ring_size,
                                               int from, int to)
{
    char *p = (char *)base + sizeof(ump_shm_seg_hdr_t) + (size_t)local_size * sizeof(ump_shm_ctl_t);
    return (ump_shm_pair_t *)(p +
                              ((size_t)from * local_size + to) * ump_shm_pair_stride(ring_size));
}
static inline void *ump_shm_pair_data(ump_shm_pair_t *p)
{
    return p + 1;
}

/* Creates (O_EXCL, 0600), sizes and maps a segment named `name`, and
 * initialises header, control blocks and every pair. */
int ump_shm_seg_create(const char *name, int local_size, uint64_t ring_size, void **base,
                       size_t *len);
/* Opens and maps an existing segment, checks its header; counts this rank
 * as attached and unlinks the name when it is the last one. */
int ump_shm_seg_attach(const char *name, int local_size, void **base, size_t *len);

/* --- cross-memory attach ---------------------------------------------------- */

/* Reads remote (in peer `pid`) into local, or with `write` writes local
 * into remote; loops over partial transfers and IOV_MAX chunks. UMP_OK,
 * UMP_ERR_UNSUPPORTED when the kernel refuses (EPERM, ENOSYS),
 * UMP_ERR_PEER_DEAD (ESRCH), other negatives on failure. */
int ump_shm_cma_xfer(pid_t pid, bool write, const struct iovec *local, int nlocal,
                     const ump_riov_t *remote, int nremote);
static inline int ump_shm_cma_read(pid_t pid, const struct iovec *local, int nlocal,
                                   const ump_riov_t *remote, int nremote)
{
    return ump_shm_cma_xfer(pid, false, local, nlocal, remote, nremote);
}

#endif /* UMP_XPORT_SHM_H */
