/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_corpus: writes the seed corpus of every harness (real messages made
 * by the encoders the library and umprun use) into DIR/<harness>/.
 * Usage: gen_corpus DIR
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt/kvs_proto.h"
#include "util/crc32c.h"
#include "xport/rel/rel.h"
#include "xport/tcp/tcp.h"
#include "xport/udp/udp.h"

static const char *root;

static void emit(const char *harness, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, harness);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", root, harness, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* --- kvs_server: records { u8 conn, u16 len, bytes } ----------------------- */

static void rec(ump_kvs_buf_t *out, uint8_t conn, const ump_kvs_buf_t *frame)
{
    ump_kvs_put_u8(out, conn);
    ump_kvs_put_u8(out, (uint8_t)frame->len);
    ump_kvs_put_u8(out, (uint8_t)(frame->len >> 8));
    ump_kvs_put_bytes(out, frame->p, frame->len);
}

/* A HELLO frame as a rank writes it (its nonce fixed here). */
static void kvs_hello(ump_kvs_buf_t *f, uint32_t rank)
{
    size_t s = ump_kvs_frame_begin(f, UMP_KVS_HELLO);
    ump_kvs_put_u32(f, UMP_KVS_MAGIC);
    ump_kvs_put_u32(f, UMP_KVS_VERSION);
    ump_kvs_put_u32(f, rank);
    ump_kvs_put_u32(f, 1000 + rank);
    for (int i = 0; i < UMP_AUTH_NONCE_LEN; i++)
        ump_kvs_put_u8(f, (uint8_t)(rank * 32 + i));
    ump_kvs_frame_end(f, s);
}

/* The connection byte of a record whose connection first completes a
 * genuine handshake as `rank` (fuzz_kvs_server.c). */
static uint8_t authed(uint32_t conn, uint32_t rank)
{
    return (uint8_t)(conn | 0x40 | rank << 4);
}

static void kvs_put(ump_kvs_buf_t *f, uint32_t rank)
{
    char key[32], val[64];
    size_t s = ump_kvs_frame_begin(f, UMP_KVS_PUT);
    ump_kvs_put_u32(f, 2);
    snprintf(key, sizeof(key), "rt.node");
    snprintf(val, sizeof(val), "0");
    ump_kvs_put_u8(f, (uint8_t)strlen(key));
    ump_kvs_put_bytes(f, key, strlen(key));
    ump_kvs_put_u32(f, (uint32_t)strlen(val) + 1);
    ump_kvs_put_bytes(f, val, strlen(val) + 1);
    snprintf(key, sizeof(key), "tcp.addr");
    snprintf(val, sizeof(val), "10.0.0.%u:4000%u", rank + 1, rank);
    ump_kvs_put_u8(f, (uint8_t)strlen(key));
    ump_kvs_put_bytes(f, key, strlen(key));
    ump_kvs_put_u32(f, (uint32_t)strlen(val));
    ump_kvs_put_bytes(f, val, strlen(val));
    ump_kvs_frame_end(f, s);
}

static void kvs_simple(ump_kvs_buf_t *f, uint8_t type)
{
    size_t s = ump_kvs_frame_begin(f, type);
    ump_kvs_frame_end(f, s);
}

static void kvs_abort(ump_kvs_buf_t *f)
{
    const char *msg = "custom abort message";
    size_t s = ump_kvs_frame_begin(f, UMP_KVS_ABORT);
    ump_kvs_put_u32(f, 7);
    ump_kvs_put_u32(f, (uint32_t)strlen(msg));
    ump_kvs_put_bytes(f, msg, strlen(msg));
    ump_kvs_frame_end(f, s);
}

static void put_str(ump_kvs_buf_t *f, const char *s)
{
    ump_kvs_put_u32(f, (uint32_t)strlen(s));
    ump_kvs_put_bytes(f, s, strlen(s));
}

/* A SPAWN frame of two apps (kvs_proto.h); `cut`: the last string's length
 * says more than the frame holds. */
static void kvs_spawn(ump_kvs_buf_t *f, bool cut)
{
    size_t s = ump_kvs_frame_begin(f, UMP_KVS_SPAWN);
    ump_kvs_put_u32(f, 2);
    for (uint32_t a = 0; a < 2; a++) {
        ump_kvs_put_u32(f, a + 1);
        ump_kvs_put_u32(f, 2);
        put_str(f, a ? "/bin/true" : "prog");
        put_str(f, "child");
        ump_kvs_put_u32(f, 1);
        put_str(f, "VAR=value");
        put_str(f, a ? "/tmp" : "");
        put_str(f, a ? "fuzzhost" : "");
    }
    if (cut)
        ump_kvs_put_u32(f, 1000);
    else
        put_str(f, "ump-port:127.0.0.1:1234:0123456789abcdef");
    ump_kvs_frame_end(f, s);
}

static void gen_kvs(void)
{
    ump_kvs_buf_t out = {0}, f = {0};
    /* A whole job's life: hello, put, fence, fence again, finalize. */
    for (uint32_t r = 0; r < 4; r++) {
        f.len = 0;
        rec(&out, authed(r, r), &f);
    }
    for (uint32_t r = 0; r < 4; r++) {
        f.len = 0;
        kvs_put(&f, r);
        kvs_simple(&f, UMP_KVS_FENCE);
        rec(&out, (uint8_t)r, &f);
    }
    for (uint32_t r = 0; r < 4; r++) {
        f.len = 0;
        kvs_simple(&f, UMP_KVS_FENCE);
        kvs_simple(&f, UMP_KVS_FINALIZE);
        rec(&out, (uint8_t)r, &f);
    }
    emit("kvs_server", "job_life", out.p, out.len);

    /* A rank aborts while the others wait in a fence. */
    out.len = 0;
    for (uint32_t r = 0; r < 4; r++) {
        f.len = 0;
        if (r == 3)
            kvs_abort(&f);
        else
            kvs_simple(&f, UMP_KVS_FENCE);
        rec(&out, authed(r, r), &f);
    }
    emit("kvs_server", "abort", out.p, out.len);

    /* A rank leaves (finalize, close) while others fence: the fence fails. */
    out.len = 0;
    for (uint32_t r = 0; r < 4; r++) {
        f.len = 0;
        kvs_simple(&f, r == 2 ? UMP_KVS_FINALIZE : UMP_KVS_FENCE);
        rec(&out, (uint8_t)(authed(r, r) | (r == 2 ? 0x80 : 0)), &f);
    }
    emit("kvs_server", "fence_fail", out.p, out.len);

    /* Refusals: a wrong proof, rank out of range, the same rank twice. */
    out.len = 0;
    f.len = 0;
    kvs_hello(&f, 0);
    size_t a0 = ump_kvs_frame_begin(&f, UMP_KVS_AUTH);
    for (int i = 0; i < UMP_AUTH_MAC_LEN; i++)
        ump_kvs_put_u8(&f, (uint8_t)i);
    ump_kvs_frame_end(&f, a0);
    rec(&out, 0, &f);
    f.len = 0;
    kvs_hello(&f, 9);
    rec(&out, 1, &f);
    f.len = 0;
    rec(&out, authed(2, 2), &f);
    rec(&out, authed(3, 2), &f);
    emit("kvs_server", "refusals", out.p, out.len);

    /* A hello split over two reads. */
    out.len = 0;
    f.len = 0;
    kvs_hello(&f, 1);
    size_t half = f.len / 2;
    ump_kvs_buf_t a = {.p = f.p, .len = half}, b = {.p = f.p + half, .len = f.len - half};
    rec(&out, 1, &a);
    rec(&out, 1, &b);
    emit("kvs_server", "split_hello", out.p, out.len);

    /* SPAWN requests (refused: the harness's job has no hosts): two apps
     * with arguments, environment, wdir, hosts and a port; then one whose
     * string length runs past the frame. */
    out.len = 0;
    f.len = 0;
    kvs_spawn(&f, false);
    rec(&out, authed(0, 0), &f);
    f.len = 0;
    kvs_spawn(&f, true);
    rec(&out, 1 | 0x40 | 1 << 4, &f);
    f.len = 0;
    kvs_simple(&f, UMP_KVS_FENCE);
    rec(&out, 0, &f);
    emit("kvs_server", "spawn", out.p, out.len);
    ump_kvs_buf_free(&out);
    ump_kvs_buf_free(&f);
}

/* --- tcp_frame: u8 max, u8 size, hello, records { u16 len, bytes } ------- */

static void gen_tcp(void)
{
    static const uint8_t nonce[UMP_AUTH_NONCE_LEN] = "fuzz-nonce-of-the-connector";
    uint8_t buf[8192];
    for (int variant = 0; variant < 3; variant++) {
        size_t n = 0;
        buf[n++] = 4; /* max_am 65536 */
        buf[n++] = 3; /* job of 4 */
        ump_tcp_hello_t h;
        static const uint8_t job[8] = "fuzzjob";
        ump_tcp_hello_encode(&h, job, 2, 4, nonce);
        memcpy(buf + n, &h, sizeof(h));
        n += sizeof(h);
        /* Frames of sizes around the 8-byte padding, and a BYE. */
        static const size_t lens[] = {0, 1, 7, 8, 9, 64, 100};
        uint8_t stream[2048];
        size_t sl = 0;
        for (size_t i = 0; i < UMP_ARRAY_SIZE(lens); i++) {
            uint8_t hb[UMP_TCP_FRAME_HDR], body[128], am_hdr[16] = {1, 2, 3};
            struct iovec iov = {body, lens[i]}, out[8];
            memset(body, (int)i, sizeof(body));
            size_t total;
            int k = ump_tcp_frame_iov(hb, (uint8_t)(i + 1), 0, am_hdr, variant ? 16 : 0, &iov, 1,
                                      out, &total);
            for (int j = 0; j < k; j++) {
                memcpy(stream + sl, out[j].iov_base, out[j].iov_len);
                sl += out[j].iov_len;
            }
        }
        uint8_t hb[UMP_TCP_FRAME_HDR];
        struct iovec out[4];
        size_t total;
        int k = ump_tcp_frame_iov(hb, 0, UMP_TCP_FLAG_BYE, NULL, 0, NULL, 0, out, &total);
        for (int j = 0; j < k; j++) {
            memcpy(stream + sl, out[j].iov_base, out[j].iov_len);
            sl += out[j].iov_len;
        }
        /* Variant 2 delivers the stream in 13-byte pieces, the others whole. */
        size_t piece = variant == 2 ? 13 : sl;
        for (size_t off = 0; off < sl; off += piece) {
            size_t m = sl - off < piece ? sl - off : piece;
            buf[n++] = (uint8_t)m;
            buf[n++] = (uint8_t)(m >> 8);
            memcpy(buf + n, stream + off, m);
            n += m;
        }
        char name[32];
        snprintf(name, sizeof(name), "stream%d", variant);
        emit("tcp_frame", name, buf, n);
    }
}

/* --- rel: records { u8 op, u16 len, bytes }, datagrams from a real engine --- */

static uint8_t rel_out[1 << 16];
static size_t rel_n;
static uint64_t gen_clock;

static uint64_t g_clock(void *ctx)
{
    return gen_clock;
}
static int g_open(void *ctx, int peer, size_t *mtu)
{
    *mtu = 1500;
    return 0;
}
static int g_send(void *ctx, const ump_rel_dgram_t *d, int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = d[i].len + UMP_UDP_HDR;
        if (rel_n + 3 + len > sizeof(rel_out)) continue;
        rel_out[rel_n++] = 0x01; /* the CRCs as sent */
        rel_out[rel_n++] = (uint8_t)len;
        rel_out[rel_n++] = (uint8_t)(len >> 8);
        ump_udp_hdr_t u = {UMP_UDP_MAGIC, ump_udp_tag(0x5eedc0deu, d[i].data, d[i].len)};
        memcpy(rel_out + rel_n, &u, sizeof(u));
        memcpy(rel_out + rel_n + sizeof(u), d[i].data, d[i].len);
        rel_n += len;
    }
    return n;
}
static void g_deliver(void *arg, int peer, uint8_t am_id, const void *data, size_t len) {}
static void g_failed(void *arg, int peer, int status) {}

static void gen_rel(void)
{
    static const size_t sizes[] = {0, 1, 100, 1400, 3000, 20000};
    for (size_t s = 0; s < UMP_ARRAY_SIZE(sizes); s++) {
        ump_rel_config_t cfg;
        ump_rel_config_default(&cfg);
        cfg.max_am = 64 * 1024;
        cfg.drop = cfg.dup = cfg.reorder = cfg.corrupt = 0;
        cfg.stats = false;
        ump_rel_lower_t lower = {
            .mtu = 1500, .peer_open = g_open, .send = g_send, .clock = g_clock};
        ump_rel_upper_t upper = {.deliver = g_deliver, .peer_failed = g_failed};
        ump_rel_t *rel;
        gen_clock = 1000000000ull;
        /* Rank 1 of 4 sends to rank 0 (the harness's engine). */
        if (ump_rel_create("gen", 1, 4, &cfg, &lower, &upper, &rel)) exit(1);
        static uint8_t am[20000];
        for (size_t i = 0; i < sizes[s]; i++)
            am[i] = (uint8_t)(i * 7 + s);
        rel_n = 0;
        for (int k = 0; k < 2; k++) {
            ump_rel_send(rel, 0, 9, "hdr", 3, &(struct iovec){am, sizes[s]}, 1);
            ump_rel_poll(rel);
        }
        /* Time passes: the retransmissions a lost ack causes. */
        gen_clock += 2000000000ull;
        ump_rel_poll(rel);
        ump_rel_destroy(rel);
        char name[32];
        snprintf(name, sizeof(name), "am%zu", sizes[s]);
        emit("rel", name, rel_out, rel_n);
    }
}

/* --- text seeds ------------------------------------------------------------ */

static void emit_str(const char *h, const char *name, const char *s, size_t n)
{
    emit(h, name, s, n ? n : strlen(s));
}

static void gen_text(void)
{
    /* hosts: u8 mode, u8 ranks, text */
    emit_str("hosts", "spec", "\0\0node1:4,node2,node3:2", 23);
    emit_str("hosts", "spec_n", "\0\6localhost:2,localhost:2,127.0.0.1", 35);
    emit_str("hosts", "file",
             "\1\0# cluster\nnode1 slots=4\nnode2:2\n\nnode3   # one slot\nnode1\n", 0);
    emit_str("hosts", "file_n", "\1\5a slots=2\nb slots=2\r\nc\n", 0);
    emit_str("hosts", "bad", "\0\0a:0,b:x,:3", 12);

    /* umprun_args: NUL-separated */
    static const char a1[] = "-n\0"
                             "4\0"
                             "--timeout\0"
                             "60\0"
                             "./prog\0"
                             "arg";
    static const char a2[] = "--np=2\0"
                             "--host=a:2,b:2\0"
                             "--bind-to\0"
                             "core\0"
                             "--tag-output\0"
                             "-x\0"
                             "UMP_LOG=debug\0"
                             "-x\0"
                             "PATH\0"
                             "prog";
    static const char a3[] = "-H\0"
                             "localhost:3\0"
                             "--rsh\0"
                             "ssh -q\0"
                             "-v\0"
                             "--\0"
                             "-prog";
    static const char a4[] = "--hostfile\0"
                             "hosts.txt\0"
                             "--bind-to=none\0"
                             "prog";
    emit("umprun_args", "basic", a1, sizeof(a1) - 1);
    emit("umprun_args", "many", a2, sizeof(a2) - 1);
    emit("umprun_args", "rsh", a3, sizeof(a3) - 1);
    emit("umprun_args", "hostfile", a4, sizeof(a4) - 1);

    /* config: u8 tunable index, value; indices cover every type */
    static const char *vals[] = {"64k",
                                 "1M",
                                 "2g",
                                 "4096",
                                 "0x10",
                                 "yes",
                                 "off",
                                 "1.5",
                                 "warn",
                                 "debug",
                                 "tcp,shm",
                                 "-1",
                                 "9999999999999999999k"};
    for (size_t i = 0; i < UMP_ARRAY_SIZE(vals); i++) {
        for (int idx = 0; idx < 64; idx += 9) {
            char buf[64], name[32];
            buf[0] = (char)(idx + (int)i);
            size_t n = strlen(vals[i]);
            memcpy(buf + 1, vals[i], n);
            snprintf(name, sizeof(name), "v%02zu_%02d", i, idx + (int)i);
            emit("config", name, buf, n + 1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus DIR\n");
        return 2;
    }
    root = argv[1];
    mkdir(root, 0755);
    gen_kvs();
    gen_tcp();
    gen_rel();
    gen_text();
    return 0;
}
