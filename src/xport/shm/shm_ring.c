/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lock-free single-producer/single-consumer rings of variable-size records,
 * and the fastbox slots. The producer keeps a private copy of the
 * consumer's tail and re-reads the shared one only when the copy says
 * "full"; the consumer learns of a record from the record's own stamp (see
 * shm.h), so a streaming pair touches the other side's counter rarely.
 */
#include <string.h>

#include "xport/shm/shm.h"

void ump_shm_gather(char *dst, const void *hdr, size_t hlen, const struct iovec *iov, int iovcnt,
                    size_t total)
{
    if (hlen) memcpy(dst, hdr, hlen);
    dst += hlen;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len) memcpy(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    (void)total;
}

void ump_shm_ring_ctl_init(ump_shm_ring_ctl_t *ctl)
{
    atomic_init(&ctl->head, 0);
    atomic_init(&ctl->tail, 0);
}

void ump_shm_ring_attach(ump_shm_ring_t *r, ump_shm_ring_ctl_t *ctl, void *data, uint64_t size)
{
    r->ctl = ctl;
    r->data = data;
    r->size = size;
    /* A ring may be attached after use (tests re-attach); start from the
     * shared counters. */
    r->head = atomic_load_explicit(&ctl->head, memory_order_acquire);
    r->tail = atomic_load_explicit(&ctl->tail, memory_order_acquire);
    r->tail_cache = r->tail;
}

static inline ump_shm_rec_t *ring_rec(ump_shm_ring_t *r, uint64_t pos)
{
    return (ump_shm_rec_t *)(r->data + (pos & (r->size - 1)));
}

/* Room for a record of `total` payload bytes at the head: the record, its
 * header filled but not stamped, with the length of the padding record
 * written before it (unstamped too) in *pad; NULL when it does not fit now. */
static ump_shm_rec_t *ring_reserve(ump_shm_ring_t *r, uint32_t seq, uint8_t am_id, size_t total,
                                   uint64_t *pad)
{
    uint64_t need = UMP_ALIGN_UP(UMP_SHM_REC_HDR + total, UMP_CACHELINE);
    uint64_t pos = r->head & (r->size - 1);
    *pad = pos + need > r->size ? r->size - pos : 0;
    if (r->head + *pad + need - r->tail_cache > r->size) {
        /* Acquire: the consumer's reads of the space it gave back happen
         * before we overwrite it. */
        r->tail_cache = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
        if (r->head + *pad + need - r->tail_cache > r->size) return NULL;
    }
    if (*pad) {
        ump_shm_rec_t *p = ring_rec(r, r->head);
        p->kind = UMP_SHM_REC_PAD;
        p->len = (uint32_t)*pad;
    }
    ump_shm_rec_t *rec = ring_rec(r, r->head + *pad);
    rec->len = (uint32_t)total;
    rec->seq = seq;
    rec->kind = UMP_SHM_REC_DATA;
    rec->am_id = am_id;
    return rec;
}

/* Publishes the record reserved last (of `total` payload bytes, after `pad`
 * bytes of padding): marks the line after it as no record when that line
 * is free, then stamps the record and the padding. */
static void ring_publish(ump_shm_ring_t *r, ump_shm_rec_t *rec, uint64_t pad, size_t total)
{
    uint64_t at = r->head + pad;
    uint64_t next = at + UMP_ALIGN_UP(UMP_SHM_REC_HDR + total, UMP_CACHELINE);
    if (next + UMP_CACHELINE - r->tail_cache <= r->size)
        atomic_store_explicit(&ring_rec(r, next)->stamp, ump_shm_rec_stamp(next) ^ 1u,
                              memory_order_relaxed);
    /* Release: header, payload and the marker are visible before the
     * stamp; the padding's stamp comes last, so a consumer that skips the
     * padding finds the record stamped. */
    atomic_store_explicit(&rec->stamp, ump_shm_rec_stamp(at), memory_order_release);
    if (pad)
        atomic_store_explicit(&ring_rec(r, r->head)->stamp, ump_shm_rec_stamp(r->head),
                              memory_order_release);
    r->head = next;
    atomic_store_explicit(&r->ctl->head, next, memory_order_relaxed);
}

int ump_shm_ring_push(ump_shm_ring_t *r, uint32_t seq, uint8_t am_id, const void *hdr, size_t hlen,
                      const struct iovec *iov, int iovcnt, size_t total)
{
    if (UMP_UNLIKELY(total > ump_shm_ring_max_payload(r->size))) return UMP_ERR_INVALID;
    uint64_t pad;
    ump_shm_rec_t *rec = ring_reserve(r, seq, am_id, total, &pad);
    if (!rec) return UMP_ERR_NO_RESOURCE;
    ump_shm_gather((char *)(rec + 1), hdr, hlen, iov, iovcnt, total);
    ring_publish(r, rec, pad, total);
    return UMP_OK;
}

int ump_shm_ring_push_pack(ump_shm_ring_t *r, uint32_t seq, uint8_t am_id, const void *hdr,
                           size_t hlen, size_t len, void (*pack)(void *, void *, size_t), void *arg)
{
    size_t total = hlen + len;
    if (UMP_UNLIKELY(total > ump_shm_ring_max_payload(r->size))) return UMP_ERR_INVALID;
    uint64_t pad;
    ump_shm_rec_t *rec = ring_reserve(r, seq, am_id, total, &pad);
    if (!rec) return UMP_ERR_NO_RESOURCE;
    char *dst = (char *)(rec + 1);
    memcpy(dst, hdr, hlen);
    if (len) pack(arg, dst + hlen, len);
    ring_publish(r, rec, pad, total);
    return UMP_OK;
}

bool ump_shm_ring_drained(ump_shm_ring_t *r)
{
    r->tail_cache = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
    return r->tail_cache == r->head;
}

const ump_shm_rec_t *ump_shm_ring_peek(ump_shm_ring_t *r)
{
    /* Bounded: at most one padding record precedes a data record. */
    for (;;) {
        const ump_shm_rec_t *rec = ring_rec(r, r->tail);
        /* Acquire: the header and payload the stamp publishes. */
        if (atomic_load_explicit(&rec->stamp, memory_order_acquire) != ump_shm_rec_stamp(r->tail))
            return NULL;
        if (rec->kind != UMP_SHM_REC_PAD) return rec;
        r->tail += rec->len;
        atomic_store_explicit(&r->ctl->tail, r->tail, memory_order_release);
    }
}

void ump_shm_ring_pop(ump_shm_ring_t *r, const ump_shm_rec_t *rec)
{
    r->tail += UMP_ALIGN_UP(UMP_SHM_REC_HDR + rec->len, UMP_CACHELINE);
    /* Release: our reads of the record are done before the producer may
     * reuse the space. */
    atomic_store_explicit(&r->ctl->tail, r->tail, memory_order_release);
}

int ump_shm_pair_send(ump_shm_ring_t *tx, ump_shm_fbq_t *fb, uint32_t seq, uint8_t am_id,
                      const void *hdr, size_t hlen, const struct iovec *iov, int iovcnt,
                      size_t total)
{
    /* The fastbox whenever it is free, even with records still in the ring:
     * the receiver orders by sequence number. */
    if (total <= UMP_SHM_FB_PAYLOAD &&
        ump_shm_fb_push(fb, seq, am_id, hdr, hlen, iov, iovcnt, total) == UMP_OK)
        return UMP_OK;
    return ump_shm_ring_push(tx, seq, am_id, hdr, hlen, iov, iovcnt, total);
}

int ump_shm_pair_send_pack(ump_shm_ring_t *tx, ump_shm_fbq_t *fb, uint32_t seq, uint8_t am_id,
                           const void *hdr, size_t hlen, size_t len,
                           void (*pack)(void *, void *, size_t), void *arg)
{
    size_t total = hlen + len;
    char *dst;
    ump_shm_fbhdr_t *h =
        total <= UMP_SHM_FB_PAYLOAD ? ump_shm_fb_slot_for(fb, seq, total, &dst) : NULL;
    if (h) {
        h->len = (uint16_t)total;
        h->am_id = am_id;
        memcpy(dst, hdr, hlen);
        if (len) pack(arg, dst + hlen, len);
        atomic_store_explicit(&h->state, UMP_SHM_FB_FULL | (seq & UMP_SHM_FB_SEQ),
                              memory_order_release);
        return UMP_OK;
    }
    return ump_shm_ring_push_pack(tx, seq, am_id, hdr, hlen, len, pack, arg);
}

int ump_shm_pair_next_ring(ump_shm_ring_t *rx, ump_shm_fbq_t *fb, uint32_t seq, ump_shm_msg_t *m)
{
    const ump_shm_rec_t *rec = ump_shm_ring_peek(rx);
    if (!rec) return 0;
    if (rec->seq == seq) {
        m->data = rec + 1;
        m->len = rec->len;
        m->seq = seq;
        m->am_id = rec->am_id;
        m->rec = rec;
        return 1;
    }
    /* The ring shows a later number: the fastbox write of seq came before
     * it (acquire on the ring's head makes it visible now), so look again
     * before calling the pair corrupted. */
    return ump_shm_fb_find(fb, seq, m) ? 1 : UMP_ERR_PROTOCOL;
}
