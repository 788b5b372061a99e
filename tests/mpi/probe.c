/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe.c - Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv (MPI 3.1 §3.8):
 * probing does not consume, matched probe removes the message from matching,
 * statuses carry source/tag/count, MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
 * Ranks pair as (0,1), (2,3)...; an unpaired rank probes messages to itself.
 */
#include "mt.h"

enum { TAG_GO = 1, TAG_A = 10, TAG_B = 11, TAG_BIG = 12 };
enum { N1 = 100, N2 = 50000, NBIG = 1 << 18 };

static int partner(void)
{
    int p = mt_rank ^ 1;
    return p < mt_size ? p : mt_rank;
}

static void check_status(const MPI_Status *st, int src, int tag, int count, const char *what)
{
    int c = -1;
    CALL(MPI_Get_count(st, MPI_INT, &c));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && c == count,
          "%s: status source %d tag %d count %d, want %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG,
          c, src, tag, count);
}

/* Iprobe until a message is there; bounded so a lost message fails, not hangs. */
static void wait_iprobe(int src, int tag, MPI_Status *st, const char *what)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag) {
        CALL(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, st));
        CHECK(flag || MPI_Wtime() - t0 < 30.0, "%s: no message after 30 s of MPI_Iprobe", what);
    }
}

static void test_proc_null(void)
{
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;
    int flag = 0, buf[2] = {3, 4};
    MPI_Request r;

    CALL(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Probe(MPI_PROC_NULL)");
    CALL(MPI_Iprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "MPI_Iprobe(MPI_PROC_NULL) gave flag 0");
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Iprobe(MPI_PROC_NULL)");

    CALL(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Mprobe(MPI_PROC_NULL)");
    CALL(MPI_Mrecv(buf, 2, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv(MPI_MESSAGE_NO_PROC) left the handle non-null");
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Mrecv(MPI_MESSAGE_NO_PROC)");
    CHECK(buf[0] == 3 && buf[1] == 4, "MPI_Mrecv(MPI_MESSAGE_NO_PROC) wrote the buffer");

    flag = 0;
    msg = MPI_MESSAGE_NULL;
    CALL(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC,
          "MPI_Improbe(MPI_PROC_NULL) gave flag %d and not MPI_MESSAGE_NO_PROC", flag);
    CALL(MPI_Imrecv(buf, 2, MPI_INT, &msg, &r));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv(MPI_MESSAGE_NO_PROC) left the handle non-null");
    CALL(MPI_Wait(&r, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Imrecv(MPI_MESSAGE_NO_PROC)");
}

static void test_matching(void)
{
    int p = partner(), self = p == mt_rank;
    int sender = mt_rank <= p, receiver = mt_rank >= p;
    int *a = mt_xmalloc(sizeof(int) * N1), *b = mt_xmalloc(sizeof(int) * N2);
    int *ra = mt_xmalloc(sizeof(int) * N1), *rb = mt_xmalloc(sizeof(int) * N2);
    MPI_Request sr[3];
    MPI_Status st;
    int flag = 1;

    for (int i = 0; i < N1; i++)
        a[i] = 1000 + i;
    for (int i = 0; i < N2; i++)
        b[i] = 2000000 + i;

    if (receiver) {
        /* Nothing was sent yet: the sender waits for our go. */
        MPI_Message m = MPI_MESSAGE_NULL;
        CALL(MPI_Iprobe(p, TAG_A, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "MPI_Iprobe found a message before any was sent");
        CALL(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK(!flag, "MPI_Improbe found a message before any was sent");
        if (!self) CALL(MPI_Send(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD));
    }
    if (sender) {
        if (!self) CALL(MPI_Recv(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Isend(a, N1, MPI_INT, p, TAG_A, MPI_COMM_WORLD, &sr[0]));
        CALL(MPI_Isend(b, N2, MPI_INT, p, TAG_A, MPI_COMM_WORLD, &sr[1]));
        CALL(MPI_Isend(NULL, 0, MPI_INT, p, TAG_B, MPI_COMM_WORLD, &sr[2]));
    }
    if (receiver) {
        MPI_Message m = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL;
        MPI_Request rr;
        wait_iprobe(p, TAG_A, &st, "first message");
        check_status(&st, p, TAG_A, N1, "MPI_Iprobe(p, A)");
        /* Probing does not consume: the first-sent matching message is still first. */
        CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag, "second MPI_Iprobe lost the message");
        check_status(&st, p, TAG_A, N1, "MPI_Iprobe(ANY, ANY) after MPI_Iprobe");
        CALL(MPI_Probe(p, TAG_A, MPI_COMM_WORLD, &st));
        check_status(&st, p, TAG_A, N1, "MPI_Probe after MPI_Iprobe");

        /* Mprobe takes message 1 out of matching: Probe and Recv now see message 2. */
        CALL(MPI_Mprobe(p, TAG_A, MPI_COMM_WORLD, &m, &st));
        CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "MPI_Mprobe gave no message");
        check_status(&st, p, TAG_A, N1, "MPI_Mprobe");
        CALL(MPI_Probe(MPI_ANY_SOURCE, TAG_A, MPI_COMM_WORLD, &st));
        check_status(&st, p, TAG_A, N2, "MPI_Probe after MPI_Mprobe took message 1");
        CALL(MPI_Recv(rb, N2, MPI_INT, p, TAG_A, MPI_COMM_WORLD, &st));
        check_status(&st, p, TAG_A, N2, "MPI_Recv after MPI_Mprobe");
        CHECK(rb[0] == 2000000 && rb[N2 - 1] == 2000000 + N2 - 1, "message 2 data %d..%d", rb[0],
              rb[N2 - 1]);
        memset(ra, 0, sizeof(int) * N1);
        CALL(MPI_Mrecv(ra, N1, MPI_INT, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL, "MPI_Mrecv left the message handle non-null");
        check_status(&st, p, TAG_A, N1, "MPI_Mrecv");
        for (int i = 0; i < N1; i++)
            CHECK(ra[i] == 1000 + i, "MPI_Mrecv data[%d] = %d", i, ra[i]);

        /* Improbe + Imrecv of the empty message. */
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag) {
            CALL(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m2, &st));
            CHECK(flag || MPI_Wtime() - t0 < 30.0, "MPI_Improbe: no message after 30 s");
        }
        check_status(&st, p, TAG_B, 0, "MPI_Improbe");
        CALL(MPI_Imrecv(NULL, 0, MPI_INT, &m2, &rr));
        CHECK(m2 == MPI_MESSAGE_NULL, "MPI_Imrecv left the message handle non-null");
        CALL(MPI_Wait(&rr, &st));
        check_status(&st, p, TAG_B, 0, "MPI_Imrecv");
        CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "MPI_Iprobe found a message (tag %d) after all were received", st.MPI_TAG);
    }
    if (sender) CALL(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));
    free(a);
    free(b);
    free(ra);
    free(rb);
}

/* Probe for the size, then allocate and receive: the classic use. */
static void test_probe_size(void)
{
    int p = partner();
    MPI_Request sr = MPI_REQUEST_NULL;
    unsigned char *s = mt_xmalloc(NBIG);
    if (mt_rank <= p) {
        mt_fill(s, NBIG - 3, 77);
        CALL(MPI_Isend(s, NBIG - 3, MPI_BYTE, p, TAG_BIG, MPI_COMM_WORLD, &sr));
    }
    if (mt_rank >= p) {
        MPI_Status st;
        int n = -1;
        CALL(MPI_Probe(MPI_ANY_SOURCE, TAG_BIG, MPI_COMM_WORLD, &st));
        CALL(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == NBIG - 3 && st.MPI_SOURCE == p, "MPI_Probe of a large message: count %d from %d",
              n, st.MPI_SOURCE);
        unsigned char *r = mt_xmalloc((size_t)n);
        CALL(MPI_Recv(r, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
        CHECK_DATA(r, (size_t)n, 77, "receive after MPI_Probe");
        free(r);

        /* Same with Mprobe / Mrecv. */
        MPI_Message m;
        if (mt_rank != p)
            CALL(MPI_Send(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD));
        else {
            CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            mt_fill(s, NBIG, 78);
            CALL(MPI_Isend(s, NBIG, MPI_BYTE, p, TAG_BIG, MPI_COMM_WORLD, &sr));
        }
        CALL(MPI_Mprobe(p, TAG_BIG, MPI_COMM_WORLD, &m, &st));
        CALL(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == NBIG, "MPI_Mprobe of a large message: count %d", n);
        r = mt_xmalloc((size_t)n);
        CALL(MPI_Mrecv(r, n, MPI_BYTE, &m, &st));
        CHECK_DATA(r, (size_t)n, 78, "MPI_Mrecv after MPI_Mprobe");
        free(r);
    }
    if (mt_rank < p) {
        CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CALL(MPI_Recv(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        mt_fill(s, NBIG, 78);
        CALL(MPI_Send(s, NBIG, MPI_BYTE, p, TAG_BIG, MPI_COMM_WORLD));
    }
    if (sr != MPI_REQUEST_NULL) CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    free(s);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "probe");
    test_proc_null();
    test_matching();
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    test_probe_size();
    return mt_done();
}
