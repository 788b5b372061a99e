/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * umprun's key-value server (tools/umprun/kvs.c) reading what clients send:
 * four connections of a four-rank job, each a socketpair whose far end the
 * input writes to, read by kvs_conn_io() as the event loop would. The
 * server's nonces are fresh, so no input can hold a valid proof: a record
 * may ask the harness to run a genuine handshake first (bit 6), so the
 * fuzzer gets past authentication into PUT, FENCE, FINALIZE and ABORT,
 * while records without it fuzz HELLO and AUTH themselves. The job has no
 * hosts, so a SPAWN request is read and checked whole but always refused
 * before anything could start.
 *
 * Input: records { u8 connection (low 2 bits; bits 4-5: the rank to
 * authenticate as when bit 6 is set; bit 7: close the far end afterwards),
 * u16 length, bytes }.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "umprun_fuzz.h"

#define NCONN 4

static struct host fuzz_host = {.name = "fuzzhost", .slots = NCONN, .local = true};

/* Reads and drops what the server answered, so its sends never block. */
static void drain(int fd)
{
    char buf[4096];
    while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
        ;
}

/* The rank's side of kvs_proto.h's handshake, on the far end of c. */
static void handshake(int far, struct conn *c, uint32_t rank)
{
    uint8_t nc[UMP_AUTH_NONCE_LEN] = {1, 2, 3}, extra[8], mac[UMP_AUTH_MAC_LEN];
    ump_kvs_buf_t b = {0};
    size_t f = ump_kvs_frame_begin(&b, UMP_KVS_HELLO);
    ump_kvs_put_u32(&b, UMP_KVS_MAGIC);
    ump_kvs_put_u32(&b, UMP_KVS_VERSION);
    ump_kvs_put_u32(&b, rank);
    ump_kvs_put_u32(&b, 1000 + rank);
    ump_kvs_put_bytes(&b, nc, sizeof(nc));
    ump_kvs_frame_end(&b, f);
    if (send(far, b.p, b.len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)b.len) goto out;
    kvs_conn_io(c, POLLIN);
    uint8_t ch[4 + 1 + UMP_AUTH_NONCE_LEN + UMP_AUTH_MAC_LEN];
    if (c->dead || recv(far, ch, sizeof(ch), MSG_DONTWAIT) != (ssize_t)sizeof(ch) ||
        ch[4] != UMP_KVS_CHALLENGE)
        goto out; /* refused, or the input had spoiled the stream */
    ump_auth_ctx_t ctx =
        ump_kvs_auth_ctx(job.secret, UMP_RT_SECRET_LEN, nc, ch + 5, rank, 1000 + rank, extra);
    if (!ump_auth_check(ch + 5 + UMP_AUTH_NONCE_LEN, &ctx, UMP_AUTH_ACCEPTOR))
        fuzz_fail("the server's proof does not check out");
    ump_auth_mac(mac, &ctx, UMP_AUTH_CONNECTOR);
    b.len = 0;
    f = ump_kvs_frame_begin(&b, UMP_KVS_AUTH);
    ump_kvs_put_bytes(&b, mac, sizeof(mac));
    ump_kvs_frame_end(&b, f);
    if (send(far, b.p, b.len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)b.len) goto out;
    kvs_conn_io(c, POLLIN);
out:
    ump_kvs_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size, 0};
    umprun_reset();
    job.n = NCONN;
    job.ranks = calloc(NCONN, sizeof(*job.ranks));
    job.conns = calloc(NCONN, sizeof(*job.conns));
    if (!job.ranks || !job.conns) return 0;
    job.capconns = NCONN;
    for (int i = 0; i < UMP_RT_SECRET_LEN; i++)
        job.secret[i] = (uint8_t)(0xa0 + i);
    for (int r = 0; r < NCONN; r++) {
        job.ranks[r].rank = r;
        job.ranks[r].host = &fuzz_host;
        job.ranks[r].out.fd = job.ranks[r].err.fd = -1;
    }
    if (group_first()) fuzz_fail("out of memory");
    int far[NCONN];
    struct conn *conn[NCONN];
    for (int i = 0; i < NCONN; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
            fuzz_fail("socketpair: %s", strerror(errno));
        struct conn *c = calloc(1, sizeof(*c));
        if (!c) fuzz_fail("out of memory");
        c->fd = sv[0];
        c->hello_deadline = UINT64_MAX;
        snprintf(c->peer, sizeof(c->peer), "fuzz:%d", i);
        conn[i] = job.conns[job.nconns++] = c;
        far[i] = sv[1];
    }

    while (fuzz_left(&in)) {
        uint8_t sel = fuzz_u8(&in);
        int i = sel & (NCONN - 1);
        size_t n;
        const uint8_t *p = fuzz_bytes(&in, fuzz_u16(&in), &n);
        if (far[i] < 0) continue;
        if ((sel & 0x40) && conn[i] && !conn[i]->dead) {
            handshake(far[i], conn[i], (uint32_t)(sel >> 4) & 3);
            drain(far[i]);
        }
        /* A socket takes at least a few hundred KiB, more than max_len. */
        /* EPIPE: the server closed the connection, as it may. */
        if (n && send(far[i], p, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno != EAGAIN &&
            errno != EPIPE && errno != ECONNRESET)
            fuzz_fail("send: %s", strerror(errno));
        if (sel & 0x80) {
            close(far[i]);
            far[i] = -1;
        }
        if (conn[i] && !conn[i]->dead) kvs_conn_io(conn[i], POLLIN);
        if (far[i] >= 0) drain(far[i]);
        /* What the loop does between polls: free closed connections. */
        for (int k = 0; k < NCONN; k++)
            if (conn[k] && conn[k]->dead) conn[k] = NULL;
        kvs_reap_conns();
    }
    /* The timers after every deadline: hello waits and lost connections. */
    uint64_t next = UINT64_MAX;
    kvs_timers(UINT64_MAX - 1, &next);

    int fenced = 0, nfenced = job.groups[0]->nfenced;
    for (int r = 0; r < NCONN; r++)
        fenced += job.ranks[r].fenced;
    if (fenced != nfenced) fuzz_fail("%d ranks fenced but the count says %d", fenced, nfenced);
    if (nfenced >= job.n) fuzz_fail("a fence of every rank was left open");
    if (job.ngroups != 1 || job.nslots != NCONN) fuzz_fail("a group was started");
    for (int i = 0; i < NCONN; i++)
        if (far[i] >= 0) close(far[i]);
    umprun_reset();
    return 0;
}
