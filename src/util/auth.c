/* SPDX-License-Identifier: BSD-3-Clause */
/* auth.c - the handshake proof of auth.h over libsodium's HMAC-SHA256. */
#include "util/auth.h"

#include <sodium.h>
#include <string.h>

#include "util/util.h"

_Static_assert(UMP_AUTH_MAC_LEN == crypto_auth_hmacsha256_BYTES, "the proof is one HMAC-SHA256");

/* sodium_init is safe to call from several threads and more than once. */
static int start(void)
{
    if (sodium_init() < 0) {
        ump_error("auth: libsodium could not start (no random source?)");
        return -1;
    }
    return 0;
}

int ump_auth_nonce(uint8_t nonce[UMP_AUTH_NONCE_LEN])
{
    if (start()) return -1;
    randombytes_buf(nonce, UMP_AUTH_NONCE_LEN);
    return 0;
}

int ump_auth_mac(uint8_t mac[UMP_AUTH_MAC_LEN], const ump_auth_ctx_t *ctx, ump_auth_role_t role)
{
    if (start()) return -1;
    crypto_auth_hmacsha256_state st;
    uint8_t r = (uint8_t)role;
    crypto_auth_hmacsha256_init(&st, ctx->key, ctx->keylen);
    /* The label with its NUL, so no label is a prefix of another's input. */
    crypto_auth_hmacsha256_update(&st, (const uint8_t *)ctx->proto, strlen(ctx->proto) + 1);
    crypto_auth_hmacsha256_update(&st, &r, 1);
    crypto_auth_hmacsha256_update(&st, ctx->nonce_c, UMP_AUTH_NONCE_LEN);
    crypto_auth_hmacsha256_update(&st, ctx->nonce_a, UMP_AUTH_NONCE_LEN);
    if (ctx->extralen) crypto_auth_hmacsha256_update(&st, ctx->extra, ctx->extralen);
    crypto_auth_hmacsha256_final(&st, mac);
    sodium_memzero(&st, sizeof(st));
    return 0;
}

bool ump_auth_check(const uint8_t mac[UMP_AUTH_MAC_LEN], const ump_auth_ctx_t *ctx,
                    ump_auth_role_t role)
{
    uint8_t want[UMP_AUTH_MAC_LEN];
    if (ump_auth_mac(want, ctx, role)) return false;
    bool ok = sodium_memcmp(want, mac, UMP_AUTH_MAC_LEN) == 0;
    sodium_memzero(want, sizeof(want));
    return ok;
}
