/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * auth.h - the challenge-and-response proof that both ends of a connection
 * know the job secret, shared by the key-value client (src/rt), umprun's
 * key-value server (tools/umprun), and the tcp and udp transports.
 *
 * Each side draws a fresh random nonce and sends it; each then answers with
 *
 *   HMAC-SHA256(key = job secret,
 *               protocol label NUL, role byte, connector's nonce,
 *               acceptor's nonce, context bytes)
 *
 * and checks the other's answer in constant time. The secret never crosses
 * the wire. A recorded handshake replayed later fails because the other
 * side's nonce is new; an answer reflected back at its sender fails because
 * the role byte differs (the connector proves with 'C', the acceptor with
 * 'A'); an answer from one protocol (tcp, say) is useless in another (the
 * label). The context binds what the messages claimed (ranks, job size), so
 * a proof cannot be moved onto other claims. The primitive is libsodium's.
 */
#ifndef UMP_UTIL_AUTH_H
#define UMP_UTIL_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UMP_AUTH_NONCE_LEN 32
#define UMP_AUTH_MAC_LEN   32

typedef enum {
    UMP_AUTH_CONNECTOR = 'C', /* the side that connected (or sent first) */
    UMP_AUTH_ACCEPTOR = 'A',  /* the side that accepted (or answered) */
} ump_auth_role_t;

/* What one proof covers; the two nonces are those of the connector and the
 * acceptor, whichever side computes it. */
typedef struct ump_auth_ctx {
    const char *proto; /* "ump-kvs", "ump-tcp", "ump-udp" */
    const uint8_t *key;
    size_t keylen;
    const uint8_t *nonce_c; /* UMP_AUTH_NONCE_LEN bytes */
    const uint8_t *nonce_a; /* UMP_AUTH_NONCE_LEN bytes */
    const void *extra;      /* context bytes both sides agree on, or NULL */
    size_t extralen;
} ump_auth_ctx_t;

/* Fills a fresh nonce; 0, or -1 when the library could not start (logged). */
int ump_auth_nonce(uint8_t nonce[UMP_AUTH_NONCE_LEN]);
/* The proof of `role` over ctx; 0, or -1 when the library could not start. */
int ump_auth_mac(uint8_t mac[UMP_AUTH_MAC_LEN], const ump_auth_ctx_t *ctx, ump_auth_role_t role);
/* True when `mac` is the proof of `role` over ctx (compared in constant
 * time, so the time taken does not tell how much matched). */
bool ump_auth_check(const uint8_t mac[UMP_AUTH_MAC_LEN], const ump_auth_ctx_t *ctx,
                    ump_auth_role_t role);

#endif /* UMP_UTIL_AUTH_H */
