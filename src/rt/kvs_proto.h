/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kvs_proto.h - the wire protocol between a rank (src/rt/rt_umprun.c) and
 * the umprun key-value server (tools/umprun/kvs.c). Private to those two.
 *
 * A connection carries frames: u32 length (big endian, counts the type byte
 * and the payload) then u8 type then the payload. Integers are big endian.
 * A rank opens one connection for its whole life and sends HELLO first.
 * Both sides then prove they know the job secret without sending it
 * (src/util/auth.h, label "ump-kvs", context: the rank and pid of HELLO as
 * two big-endian u32): the server answers with its nonce and its proof,
 * the rank checks the proof (and gives up with UMP_ERR_AUTH if it is
 * wrong, before sending anything of the job) and sends its own. The server
 * refuses (REFUSED, then close) a bad proof, version, or rank.
 *
 *   HELLO     c->s  u32 magic, u32 version, u32 rank, u32 pid, nonce[32]
 *                   answer: CHALLENGE or REFUSED
 *   CHALLENGE s->c  nonce[32], proof[32] (the server's, role acceptor)
 *   AUTH      c->s  proof[32] (the rank's, role connector)
 *                   answer: OK or REFUSED
 *   PUT       c->s  u32 n, n x { u8 klen, key, u32 vlen, val }   (no answer)
 *   FENCE     c->s  empty. Answer FENCE_DONE once every rank has fenced:
 *                   u32 n, n x { u32 rank, u8 klen, key, u32 vlen, val } =
 *                   everything put by any rank since the previous fence, so
 *                   gets after a fence are local lookups. FENCE_FAIL (u32
 *                   len, text) if the fence can never complete.
 *   FINALIZE  c->s  empty; answer OK. The rank then closes the connection.
 *   ABORT     c->s  i32 code, u32 len, text; answer OK (the rank exits).
 *   NAME      c->s  u8 op, u32 slen, service, u32 plen, port: the job's name
 *                   service (MPI_Publish_name ...). op PUBLISH stores
 *                   service -> port, UNPUBLISH removes it (when the port
 *                   matches), LOOKUP reads it (plen 0). Answer NAME_ANS:
 *                   u8 status (NAME_OK, NAME_NONE: not published or another
 *                   port, NAME_TAKEN: already published), u32 plen, port
 *                   (LOOKUP's answer; empty otherwise).
 *   SPAWN     c->s  start a new group of processes (MPI_Comm_spawn):
 *                   u32 napps, napps x { u32 maxprocs, u32 argc, argc x
 *                   { u32 len, bytes } (argv[0] is the command), u32 nenv,
 *                   nenv x { u32 len, "NAME=VALUE" }, u32 len, wdir (empty:
 *                   umprun's -wdir or directory), u32 len, hosts (a comma
 *                   list of umprun's hosts; empty: umprun places them) },
 *                   then u32 len, the parent's port name (opaque, may be
 *                   empty). Strings hold no NUL. Answer SPAWN_ANS: u8
 *                   status (SPAWN_STARTED, SPAWN_REFUSED), u32 len, text:
 *                   the new group's job id (16 hex digits) when started,
 *                   else the reason (one line). A malformed request is
 *                   refused the same way; the connection stays usable.
 *
 * HELLO's rank is the process's slot in umprun's table of every process it
 * started (UMP_JOB_SLOT; the first group's slots are its ranks), so ranks
 * of every group meet the same server; fences are per group and FENCE_DONE
 * carries ranks within the group.
 *
 * Keys are 1..UMP_RT_KEY_MAX-1 bytes, values 0..UMP_RT_VAL_MAX bytes.
 */
#ifndef UMP_RT_KVS_PROTO_H
#define UMP_RT_KVS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/auth.h"

#define UMP_KVS_MAGIC      0x554d504bu  /* "UMPK" */
#define UMP_KVS_VERSION    2u           /* 2: challenge and response instead of the secret */
#define UMP_KVS_MAX_FRAME  (256u << 20) /* larger frames are a protocol error */
#define UMP_KVS_MAX_HELLO  64u          /* the largest frame accepted before AUTH succeeds */
#define UMP_KVS_AUTH_LABEL "ump-kvs"
#define UMP_KVS_HDR        4u /* the length prefix */

enum ump_kvs_type {
    UMP_KVS_HELLO = 1,
    UMP_KVS_PUT = 2,
    UMP_KVS_FENCE = 3,
    UMP_KVS_FINALIZE = 4,
    UMP_KVS_ABORT = 5,
    UMP_KVS_AUTH = 6,
    UMP_KVS_NAME = 7,
    UMP_KVS_SPAWN = 8,
    UMP_KVS_OK = 0x81,
    UMP_KVS_REFUSED = 0x82,
    UMP_KVS_FENCE_DONE = 0x83,
    UMP_KVS_FENCE_FAIL = 0x84,
    UMP_KVS_CHALLENGE = 0x85,
    UMP_KVS_NAME_ANS = 0x86,
    UMP_KVS_SPAWN_ANS = 0x87,
};

enum { UMP_KVS_NAME_PUBLISH = 1, UMP_KVS_NAME_UNPUBLISH, UMP_KVS_NAME_LOOKUP };
enum { UMP_KVS_NAME_OK = 0, UMP_KVS_NAME_NONE, UMP_KVS_NAME_TAKEN };
#define UMP_KVS_NAME_MAX 1024 /* bytes of a service name or a port name */

enum { UMP_KVS_SPAWN_STARTED = 0, UMP_KVS_SPAWN_REFUSED = 1 };
/* Bounds of one SPAWN request: its apps, processes in all, argv words and
 * env entries per app, and bytes per string. */
#define UMP_KVS_SPAWN_MAX_APPS  256
#define UMP_KVS_SPAWN_MAX_PROCS 4096
#define UMP_KVS_SPAWN_MAX_WORDS 4096
#define UMP_KVS_SPAWN_MAX_STR   65536

/* A growable byte buffer that frames are encoded into. Appends never fail:
 * on allocation failure `oom` is set and later appends are dropped, so an
 * encoder checks once at the end. */
typedef struct ump_kvs_buf {
    uint8_t *p;
    size_t len, cap;
    size_t off; /* consumer position (bytes already sent or parsed) */
    bool oom;
} ump_kvs_buf_t;

void ump_kvs_buf_free(ump_kvs_buf_t *b);
/* Drops the consumed prefix [0, off). */
void ump_kvs_buf_compact(ump_kvs_buf_t *b);
/* Makes room for n more bytes; false when out of memory. */
bool ump_kvs_buf_reserve(ump_kvs_buf_t *b, size_t n);
void ump_kvs_put_u8(ump_kvs_buf_t *b, uint8_t v);
void ump_kvs_put_u32(ump_kvs_buf_t *b, uint32_t v);
void ump_kvs_put_bytes(ump_kvs_buf_t *b, const void *p, size_t n);
/* Starts a frame of `type`; returns the offset to pass to frame_end. */
size_t ump_kvs_frame_begin(ump_kvs_buf_t *b, uint8_t type);
/* Patches the frame's length. */
void ump_kvs_frame_end(ump_kvs_buf_t *b, size_t start);

/* A bounds-checked reader over one frame's payload: reads past the end set
 * `bad` and return zeros, so a decoder checks once at the end. */
typedef struct ump_kvs_rd {
    const uint8_t *p;
    size_t len, off;
    bool bad;
} ump_kvs_rd_t;

uint8_t ump_kvs_get_u8(ump_kvs_rd_t *r);
uint32_t ump_kvs_get_u32(ump_kvs_rd_t *r);
/* Returns a pointer to n bytes inside the frame, or NULL (and bad). */
const void *ump_kvs_get_bytes(ump_kvs_rd_t *r, size_t n);

static inline uint32_t ump_kvs_load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The proof context of one connection: `extra` (8 bytes) receives the rank
 * and pid of HELLO, as both sides encode them. */
static inline ump_auth_ctx_t ump_kvs_auth_ctx(const uint8_t *key, size_t keylen,
                                              const uint8_t *nonce_c, const uint8_t *nonce_a,
                                              uint32_t rank, uint32_t pid, uint8_t extra[8])
{
    for (int i = 0; i < 4; i++) {
        extra[i] = (uint8_t)(rank >> (24 - 8 * i));
        extra[4 + i] = (uint8_t)(pid >> (24 - 8 * i));
    }
    return (ump_auth_ctx_t){UMP_KVS_AUTH_LABEL, key, keylen, nonce_c, nonce_a, extra, 8};
}

#endif /* UMP_RT_KVS_PROTO_H */
