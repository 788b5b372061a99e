/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udp_auth.c - the UDP transport's handshake (udp.h): who may be sent to,
 * and whose datagrams are taken.
 *
 * Answers never go to a datagram's source address, only to the published
 * receive address of the rank it claims to be (from the authenticated
 * bootstrap): a forged HELLO cannot aim our answers at a third party.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xport/udp/udp.h"

#define RESEND_NS 1000000ull /* repeats of HELLO or CHALLENGE: at most once a millisecond */

/* The proof context: `ports_c`, `ports_a` are the initiator's and the
 * responder's send ports as the datagrams carry them. */
static ump_auth_ctx_t auth_ctx(const ump_udp_xp_t *xp, const uint8_t *nonce_c,
                               const uint8_t *nonce_a, uint32_t from, uint32_t to,
                               const uint16_t *ports_c, const uint16_t *ports_a, uint8_t extra[76])
{
    uint32_t v[3] = {htole32(from), htole32(to), htole32((uint32_t)xp->size)};
    memcpy(extra, v, 12);
    memcpy(extra + 12, ports_c, 2 * UMP_UDP_MAX_SFD);
    memcpy(extra + 12 + 2 * UMP_UDP_MAX_SFD, ports_a, 2 * UMP_UDP_MAX_SFD);
    return (ump_auth_ctx_t){
        UMP_UDP_AUTH_LABEL,      xp->secret, UMP_RT_SECRET_LEN, nonce_c, nonce_a, extra,
        12 + 4 * UMP_UDP_MAX_SFD};
}

static void fmt_addr(const struct sockaddr_in *sa, char *buf, size_t len)
{
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip));
    snprintf(buf, len, "%s:%u", ip, ntohs(sa->sin_port));
}

static void msg_init(const ump_udp_xp_t *xp, ump_udp_auth_msg_t *m, uint8_t type, int to)
{
    memset(m, 0, sizeof(*m));
    m->magic = htole32(UMP_UDP_MAGIC_AUTH);
    m->type = type;
    m->nports = (uint8_t)xp->nsfd;
    m->from = htole32((uint32_t)xp->rank);
    m->to = htole32((uint32_t)to);
    m->size = htole32((uint32_t)xp->size);
    memcpy(m->ports, xp->sports, sizeof(m->ports));
}

/* To the peer's published receive address, from our first send socket. */
static void msg_send(ump_udp_xp_t *xp, int peer, const ump_udp_auth_msg_t *m)
{
    ssize_t w;
    do
        w = sendto(xp->sfd[0], m, sizeof(*m), MSG_DONTWAIT,
                   (const struct sockaddr *)&xp->peers[peer].sa, sizeof(struct sockaddr_in));
    while (w < 0 && errno == EINTR);
    if (w < 0) ump_debug("udp: handshake datagram to rank %d: %m", peer); /* lost: repeated later */
}

static void admit(ump_udp_peer_t *p, const ump_udp_auth_msg_t *m, const uint16_t *ports)
{
    p->nports = (uint8_t)UMP_MIN(m->nports, UMP_UDP_MAX_SFD);
    memcpy(p->ports, ports, sizeof(p->ports));
    p->admitted = true;
}

bool ump_udp_auth_ready(ump_udp_xp_t *xp, int peer)
{
    ump_udp_peer_t *p = &xp->peers[peer];
    if (p->auth == UMP_UDP_AUTH_DONE) return true;
    uint64_t now = ump_time_ns();
    if (p->auth == UMP_UDP_AUTH_STARTED && now - p->resent_at < RESEND_NS) return false;
    if (ump_udp_resolve(xp, peer)) return false;
    if (p->auth == UMP_UDP_AUTH_NONE) {
        if (ump_auth_nonce(p->nonce_mine)) return false;
        p->auth = UMP_UDP_AUTH_STARTED;
    }
    /* The same nonce on every repeat, so a late CHALLENGE still fits. */
    ump_udp_auth_msg_t m;
    msg_init(xp, &m, UMP_UDP_AUTH_HELLO, peer);
    memcpy(m.nonce_c, p->nonce_mine, sizeof(m.nonce_c));
    p->resent_at = now;
    msg_send(xp, peer, &m);
    return false;
}

/* Responder: a HELLO. Answered with a CHALLENGE; a repeated HELLO (same
 * nonce) gets the same CHALLENGE, so whichever copy arrives checks out. */
static void on_hello(ump_udp_xp_t *xp, int from, const ump_udp_auth_msg_t *m)
{
    ump_udp_peer_t *p = &xp->peers[from];
    if (!p->awaiting || memcmp(p->nonce_peer, m->nonce_c, sizeof(p->nonce_peer))) {
        memcpy(p->nonce_peer, m->nonce_c, sizeof(p->nonce_peer));
        if (ump_auth_nonce(p->nonce_a)) return;
        uint8_t extra[76];
        ump_udp_auth_msg_t *c = &p->challenge;
        msg_init(xp, c, UMP_UDP_AUTH_CHALLENGE, from);
        memcpy(c->nonce_c, p->nonce_peer, sizeof(c->nonce_c));
        memcpy(c->nonce_a, p->nonce_a, sizeof(c->nonce_a));
        ump_auth_ctx_t ctx = auth_ctx(xp, p->nonce_peer, p->nonce_a, (uint32_t)from,
                                      (uint32_t)xp->rank, m->ports, xp->sports, extra);
        if (ump_auth_mac(c->proof, &ctx, UMP_AUTH_ACCEPTOR)) return;
        p->awaiting = true;
    }
    msg_send(xp, from, &p->challenge);
}

/* Initiator: a CHALLENGE. Its proof checked, the peer is admitted and may be
 * sent to; our PROOF goes back (again, if it was lost before). */
static void on_challenge(ump_udp_xp_t *xp, int from, const ump_udp_auth_msg_t *m,
                         const struct sockaddr_in *src)
{
    ump_udp_peer_t *p = &xp->peers[from];
    if (p->auth == UMP_UDP_AUTH_NONE || memcmp(p->nonce_mine, m->nonce_c, sizeof(p->nonce_mine))) {
        char a[64];
        fmt_addr(src, a, sizeof(a));
        ump_warn("udp: refused a challenge from %s claiming rank %d: it answers no hello of ours "
                 "(a replay?)",
                 a, from);
        xp->auth_refused++;
        return;
    }
    uint8_t extra[76];
    ump_auth_ctx_t ctx = auth_ctx(xp, p->nonce_mine, m->nonce_a, (uint32_t)xp->rank, (uint32_t)from,
                                  xp->sports, m->ports, extra);
    if (!ump_auth_check(m->proof, &ctx, UMP_AUTH_ACCEPTOR)) {
        char a[64];
        fmt_addr(src, a, sizeof(a));
        ump_warn("udp: refused rank %d (challenge from %s): it failed authentication (it does not "
                 "know the job secret)",
                 from, a);
        xp->auth_refused++;
        return;
    }
    ump_udp_auth_msg_t *r = &p->proof;
    msg_init(xp, r, UMP_UDP_AUTH_PROOF, from);
    memcpy(r->ports_a, m->ports, sizeof(r->ports_a));
    memcpy(r->nonce_c, p->nonce_mine, sizeof(r->nonce_c));
    memcpy(r->nonce_a, m->nonce_a, sizeof(r->nonce_a));
    if (ump_auth_mac(r->proof, &ctx, UMP_AUTH_CONNECTOR)) return;
    if (p->auth != UMP_UDP_AUTH_DONE) {
        admit(p, m, m->ports);
        p->auth = UMP_UDP_AUTH_DONE;
        ump_debug("udp: rank %d authenticated (it answered our hello)", from);
    }
    msg_send(xp, from, r);
}

/* Responder: a PROOF, checked against the CHALLENGE we sent. */
static void on_proof(ump_udp_xp_t *xp, int from, const ump_udp_auth_msg_t *m,
                     const struct sockaddr_in *src)
{
    ump_udp_peer_t *p = &xp->peers[from];
    bool ok = false;
    if (p->awaiting && !memcmp(p->nonce_a, m->nonce_a, sizeof(p->nonce_a)) &&
        !memcmp(p->nonce_peer, m->nonce_c, sizeof(p->nonce_peer)) &&
        !memcmp(xp->sports, m->ports_a, sizeof(xp->sports))) {
        uint8_t extra[76];
        ump_auth_ctx_t ctx = auth_ctx(xp, p->nonce_peer, p->nonce_a, (uint32_t)from,
                                      (uint32_t)xp->rank, m->ports, xp->sports, extra);
        ok = ump_auth_check(m->proof, &ctx, UMP_AUTH_CONNECTOR);
    }
    if (!ok) {
        if (p->admitted && !p->awaiting) return; /* a repeat of a proof already taken */
        char a[64];
        fmt_addr(src, a, sizeof(a));
        ump_warn("udp: refused a handshake from %s claiming rank %d: failed authentication (wrong "
                 "job secret or a replayed handshake)",
                 a, from);
        xp->auth_refused++;
        return;
    }
    p->awaiting = false;
    admit(p, m, m->ports);
    /* The initiator proved itself too: both directions are open. */
    p->auth = UMP_UDP_AUTH_DONE;
    ump_debug("udp: rank %d authenticated (its proof checked)", from);
}

void ump_udp_auth_input(ump_udp_xp_t *xp, const void *data, size_t len,
                        const struct sockaddr_in *src)
{
    ump_udp_auth_msg_t m;
    if (len != sizeof(m)) {
        xp->unauth++;
        return;
    }
    memcpy(&m, data, sizeof(m));
    uint32_t from = le32toh(m.from);
    if (from >= (uint32_t)xp->size || (int)from == xp->rank ||
        le32toh(m.to) != (uint32_t)xp->rank || le32toh(m.size) != (uint32_t)xp->size ||
        ump_udp_resolve(xp, (int)from)) {
        xp->unauth++;
        return;
    }
    switch (m.type) {
    case UMP_UDP_AUTH_HELLO:
        on_hello(xp, (int)from, &m);
        break;
    case UMP_UDP_AUTH_CHALLENGE:
        on_challenge(xp, (int)from, &m, src);
        break;
    case UMP_UDP_AUTH_PROOF:
        on_proof(xp, (int)from, &m, src);
        break;
    default:
        xp->unauth++;
    }
}

bool ump_udp_auth_admit(ump_udp_xp_t *xp, uint32_t rank, const struct sockaddr_in *src)
{
    if (rank < (uint32_t)xp->size) {
        ump_udp_peer_t *p = &xp->peers[rank];
        if (p->admitted && src->sin_addr.s_addr == p->sa.sin_addr.s_addr) {
            for (int i = 0; i < p->nports; i++)
                if (p->ports[i] == src->sin_port) return true;
        }
        /* Its PROOF may have been lost: repeating the CHALLENGE makes the
         * initiator repeat it. */
        uint64_t now = ump_time_ns();
        if (p->awaiting && now - p->resent_at >= RESEND_NS) {
            p->resent_at = now;
            msg_send(xp, (int)rank, &p->challenge);
        }
    }
    xp->unauth++;
    return false;
}
