/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rget: one-sided reads of a peer's memory (ump_rget). Every rank fills a
 * region of 4 MiB with its pattern, sends its address to the rank on its
 * right and reads from the rank on its left: sizes from 1 byte to 4 MiB
 * around the transports' limits (tcp's read pieces and queue), at odd
 * offsets, into a contiguous buffer and into a strided layout, several
 * reads under way at once; the data are checked byte for byte and the
 * region is left as it was. Where ump_rget_supported says no, every
 * ump_rget must say UMP_ERR_UNSUPPORTED; with --must the pair's transport
 * has to read (tcp), so the test cannot pass by being refused. Bad
 * arguments: a rank out of range, no request, no address, a destination
 * layout that writes some bytes twice.
 *   umprun -n 2 rget [--must]
 */
#include "mp_common.h"

enum { REGION = 4 << 20, TAG = 7, NREAD = 4 };

int main(int argc, char **argv)
{
    mp_init("rget", &argc, &argv);
    int must = argc > 1 && strcmp(argv[1], "--must") == 0;
    int me = ump_rank(), n = ump_size();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *region = mp_malloc(REGION), *buf = mp_malloc(2 * REGION);
    mp_fill(region, REGION, me, 0, TAG, 0);
    uint64_t mine = (uint64_t)(uintptr_t)region, theirs = 0;
    ump_req_t q[2];
    MP_CALL(ump_irecv(&theirs, 8, UMP_BYTE, left, TAG, MP_CTX_CTRL, &q[0]));
    MP_CALL(ump_isend(&mine, 8, UMP_BYTE, right, TAG, MP_CTX_CTRL, &q[1]));
    MP_CALL(ump_waitall(2, q, UMP_STATUS_IGNORE));
    /* The left rank's pattern, to compare against. */
    unsigned char *want = mp_malloc(REGION);
    mp_fill(want, REGION, left, 0, TAG, 0);

    ump_req_t r = UMP_REQ_NULL;
    MP_CHECK(ump_rget(buf, 8, UMP_BYTE, n, theirs, &r) == UMP_ERR_RANK,
             "ump_rget of rank %d (of %d) was not refused as a bad rank", n, n);
    MP_CHECK(ump_rget(buf, 8, UMP_BYTE, left, theirs, NULL) == UMP_ERR_INVALID,
             "ump_rget without a request was not refused");
    MP_CHECK(ump_rget(buf, 8, UMP_BYTE, left, 0, &r) == UMP_ERR_INVALID,
             "ump_rget of address 0 was not refused");
    struct ump_dt *twice; /* blocks of 8 bytes every 4: bytes written twice */
    MP_CALL(ump_dt_hvector(2, 8, 4, UMP_BYTE, &twice));
    MP_CALL(ump_dt_commit(twice));
    MP_CHECK(ump_rget(buf, 1, twice, left, theirs, &r) == UMP_ERR_DATATYPE,
             "ump_rget into an overlapping layout was not refused");
    MP_CALL(ump_dt_free(&twice));

    int can = ump_rget_supported(left);
    MP_CHECK(can || !must, "rank %d cannot read rank %d's memory over this transport", me, left);
    size_t sizes[] = {1,       7,         4096, 16385, 65536, 65537, 512 * 1024 - 1, 512 * 1024 + 3,
                      1 << 20, REGION - 5};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t len = sizes[i], off = i % 2 ? 5 : 0;
        if (len + off > REGION) off = 0;
        memset(buf, 0, len + 1);
        int rc = ump_rget(buf, len, UMP_BYTE, left, theirs + off, &r);
        if (!can) {
            MP_CHECK(rc == UMP_ERR_UNSUPPORTED, "ump_rget of %zu bytes: %d, not unsupported", len,
                     rc);
            continue;
        }
        MP_CHECK(rc == UMP_OK, "ump_rget of %zu bytes: %s", len, ump_strerror(rc));
        ump_status_t st;
        MP_CALL(ump_wait(&r, &st));
        MP_CHECK(st.error == UMP_OK && st.source == left, "ump_rget status: error %d source %d",
                 st.error, st.source);
        MP_CHECK(memcmp(buf, want + off, len) == 0 && buf[len] == 0,
                 "ump_rget of %zu bytes at offset %zu from rank %d: wrong data", len, off, left);
    }
    if (can) {
        /* Several at once, from disjoint pieces of the region. */
        ump_req_t rs[NREAD];
        size_t piece = REGION / NREAD;
        memset(buf, 0, REGION);
        for (int k = 0; k < NREAD; k++)
            MP_CALL(ump_rget(buf + (size_t)k * piece, piece - 3, UMP_BYTE, left,
                             theirs + (uint64_t)k * piece + 3, &rs[k]));
        MP_CALL(ump_waitall(NREAD, rs, UMP_STATUS_IGNORE));
        for (int k = 0; k < NREAD; k++)
            MP_CHECK(memcmp(buf + (size_t)k * piece, want + (size_t)k * piece + 3, piece - 3) == 0,
                     "concurrent ump_rget %d: wrong data", k);
        /* Into a strided layout: blocks of 1000 bytes every 2048. */
        struct ump_dt *vec;
        MP_CALL(ump_dt_vector(1000, 1000, 2048, UMP_BYTE, &vec));
        MP_CALL(ump_dt_commit(vec));
        memset(buf, 0, 2048 * 1000);
        MP_CALL(ump_rget(buf, 1, vec, left, theirs + 11, &r));
        MP_CALL(ump_wait(&r, UMP_STATUS_IGNORE));
        for (int b = 0; b < 1000; b++) {
            MP_CHECK(memcmp(buf + (size_t)b * 2048, want + 11 + (size_t)b * 1000, 1000) == 0,
                     "ump_rget into a vector: block %d wrong", b);
            for (int k = 1000; k < 2048; k++)
                MP_CHECK(buf[(size_t)b * 2048 + (size_t)k] == 0,
                         "ump_rget into a vector wrote the gap after block %d", b);
        }
        MP_CALL(ump_dt_free(&vec));
    }
    /* Nobody frees or changes a region until every reader is done. */
    mp_barrier();
    MP_CHECK_DATA(region, REGION, me, 0, TAG, 0);
    free(want);
    free(buf);
    free(region);
    mp_finalize();
    printf("PASS rget (%d ranks%s)\n", n, can ? ", read" : ", refused");
    return 0;
}
