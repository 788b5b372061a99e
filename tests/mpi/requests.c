/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * requests.c - request completion and persistence (MPI 3.1 §3.7, §3.9):
 * Wait/Test in all their forms with MPI_REQUEST_NULL entries and all-null
 * arrays, persistent Send_init/Ssend_init/Recv_init restarted many times with
 * Start/Startall, Request_free of an active send, Request_get_status leaving
 * the request alone, Cancel of an unmatched receive with Test_cancelled.
 * Ranks pair as (0,1), (2,3)...; an unpaired rank talks to itself.
 */
#include "mt.h"

enum { TAG_GO = 1, TAG_MANY = 100, TAG_PERS = 2, TAG_FREE = 3, TAG_STAT = 4, TAG_NEVER = 5 };
enum { K = 8 };

static int partner(void)
{
    int p = mt_rank ^ 1;
    return p < mt_size ? p : mt_rank;
}

static void check_empty(const MPI_Status *st, const char *what)
{
    int c = -1, cancelled = -1;
    CALL(MPI_Get_count(st, MPI_INT, &c));
    CALL(MPI_Test_cancelled(st, &cancelled));
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && c == 0 && !cancelled,
          "%s: not an empty status (source %d tag %d count %d cancelled %d)", what, st->MPI_SOURCE,
          st->MPI_TAG, c, cancelled);
}

static void test_null(void)
{
    MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[4];
    int flag = 0, idx = 5, out = 5, ind[4];

    CALL(MPI_Wait(&r[0], &st));
    check_empty(&st, "MPI_Wait(MPI_REQUEST_NULL)");
    CALL(MPI_Test(&r[0], &flag, &st));
    CHECK(flag, "MPI_Test(MPI_REQUEST_NULL) gave flag 0");
    check_empty(&st, "MPI_Test(MPI_REQUEST_NULL)");
    CALL(MPI_Waitall(4, r, sts));
    for (int i = 0; i < 4; i++)
        check_empty(&sts[i], "MPI_Waitall of null requests");
    flag = 0;
    CALL(MPI_Testall(4, r, &flag, sts));
    CHECK(flag, "MPI_Testall of null requests gave flag 0");
    CALL(MPI_Waitany(4, r, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany of null requests gave index %d", idx);
    check_empty(&st, "MPI_Waitany of null requests");
    flag = 0;
    idx = 5;
    CALL(MPI_Testany(4, r, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "MPI_Testany of null requests: flag %d index %d", flag,
          idx);
    check_empty(&st, "MPI_Testany of null requests");
    CALL(MPI_Waitsome(4, r, &out, ind, sts));
    CHECK(out == MPI_UNDEFINED, "MPI_Waitsome of null requests gave outcount %d", out);
    out = 5;
    CALL(MPI_Testsome(4, r, &out, ind, sts));
    CHECK(out == MPI_UNDEFINED, "MPI_Testsome of null requests gave outcount %d", out);
    /* Zero-length arrays are legal too. */
    CALL(MPI_Waitall(0, r, MPI_STATUSES_IGNORE));
    CALL(MPI_Waitany(0, r, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany(0 requests) gave index %d", idx);
}

enum how { H_WAITANY, H_TESTANY, H_WAITSOME, H_TESTSOME, H_WAITALL, H_TESTALL, H_TEST, H_N };
static const char *how_name[] = {"MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome",
                                 "MPI_Waitall", "MPI_Testall", "MPI_Test"};

/*
 * K receives with distinct tags interleaved with null entries; the partner
 * sends them in reverse order. Each completion form must report each receive
 * exactly once, with the status of the right message, and null the request.
 */
static void test_many(enum how h)
{
    int p = partner(), self = p == mt_rank;
    MPI_Request r[2 * K], s[K];
    MPI_Status sts[2 * K];
    int data[K], got[K], done[2 * K], ind[2 * K];
    const char *w = how_name[h];

    if (mt_rank >= p) {
        for (int i = 0; i < 2 * K; i++) {
            r[i] = MPI_REQUEST_NULL;
            done[i] = 0;
        }
        for (int k = 0; k < K; k++) {
            got[k] = -1;
            CALL(MPI_Irecv(&got[k], 1, MPI_INT, p, TAG_MANY + k, MPI_COMM_WORLD, &r[2 * k + 1]));
        }
        /* Nothing can have arrived: the sender waits for our go. */
        int flag = 1, idx;
        if (h == H_TESTANY) {
            CALL(MPI_Testany(2 * K, r, &idx, &flag, &sts[0]));
            CHECK(!flag, "MPI_Testany: flag set before anything was sent");
        } else if (h == H_TESTALL) {
            CALL(MPI_Testall(2 * K, r, &flag, sts));
            CHECK(!flag, "MPI_Testall: flag set before anything was sent");
        } else if (h == H_TESTSOME) {
            CALL(MPI_Testsome(2 * K, r, &idx, ind, sts));
            CHECK(idx == 0, "MPI_Testsome: outcount %d before anything was sent", idx);
        } else if (h == H_TEST) {
            CALL(MPI_Test(&r[1], &flag, &sts[0]));
            CHECK(!flag, "MPI_Test: flag set before anything was sent");
        }
        if (!self) CALL(MPI_Send(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD));
    }
    if (mt_rank <= p) {
        if (!self) CALL(MPI_Recv(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = K - 1; k >= 0; k--) {
            data[k] = 1000 * (mt_rank + 1) + k;
            CALL(MPI_Isend(&data[k], 1, MPI_INT, p, TAG_MANY + k, MPI_COMM_WORLD, &s[k]));
        }
    }
    if (mt_rank >= p) {
        int left = K;
        double t0 = MPI_Wtime();
        while (left > 0) {
            CHECK(MPI_Wtime() - t0 < 30.0, "%s: %d receives still pending after 30 s", w, left);
            int idx = -1, flag = 0, out = 0;
            MPI_Status st;
            switch (h) {
            case H_WAITANY:
            case H_TESTANY:
                if (h == H_WAITANY) {
                    CALL(MPI_Waitany(2 * K, r, &idx, &st));
                    flag = 1;
                } else
                    CALL(MPI_Testany(2 * K, r, &idx, &flag, &st));
                if (!flag) break;
                CHECK(idx >= 0 && idx < 2 * K && idx % 2 == 1 && !done[idx],
                      "%s returned index %d (null or already done)", w, idx);
                CHECK(r[idx] == MPI_REQUEST_NULL, "%s did not null request %d", w, idx);
                done[idx] = 1;
                left--;
                CHECK(st.MPI_TAG == TAG_MANY + idx / 2 && st.MPI_SOURCE == p,
                      "%s index %d: status tag %d source %d", w, idx, st.MPI_TAG, st.MPI_SOURCE);
                break;
            case H_WAITSOME:
            case H_TESTSOME:
                if (h == H_WAITSOME)
                    CALL(MPI_Waitsome(2 * K, r, &out, ind, sts));
                else
                    CALL(MPI_Testsome(2 * K, r, &out, ind, sts));
                CHECK(out >= 0 && out <= left, "%s outcount %d with %d pending", w, out, left);
                if (h == H_WAITSOME) CHECK(out >= 1, "MPI_Waitsome returned outcount 0");
                for (int j = 0; j < out; j++) {
                    int i = ind[j];
                    CHECK(i >= 0 && i < 2 * K && i % 2 == 1 && !done[i],
                          "%s returned index %d (null or already done)", w, i);
                    CHECK(r[i] == MPI_REQUEST_NULL, "%s did not null request %d", w, i);
                    CHECK(sts[j].MPI_TAG == TAG_MANY + i / 2, "%s index %d: status %d has tag %d",
                          w, i, j, sts[j].MPI_TAG);
                    done[i] = 1;
                }
                left -= out;
                break;
            case H_WAITALL:
                CALL(MPI_Waitall(2 * K, r, sts));
                flag = 1;
                /* fallthrough */
            case H_TESTALL:
                if (h == H_TESTALL) CALL(MPI_Testall(2 * K, r, &flag, sts));
                if (!flag) break;
                for (int i = 0; i < 2 * K; i++) {
                    CHECK(r[i] == MPI_REQUEST_NULL, "%s did not null request %d", w, i);
                    if (i % 2)
                        CHECK(sts[i].MPI_TAG == TAG_MANY + i / 2 && sts[i].MPI_SOURCE == p,
                              "%s status %d: tag %d source %d", w, i, sts[i].MPI_TAG,
                              sts[i].MPI_SOURCE);
                    else
                        check_empty(&sts[i], "status of a null request in MPI_Waitall");
                }
                left = 0;
                break;
            case H_TEST:
                for (int i = 1; i < 2 * K; i += 2) {
                    if (done[i]) continue;
                    CALL(MPI_Test(&r[i], &flag, &st));
                    if (flag) {
                        CHECK(r[i] == MPI_REQUEST_NULL, "MPI_Test did not null request %d", i);
                        CHECK(st.MPI_TAG == TAG_MANY + i / 2, "MPI_Test status tag %d", st.MPI_TAG);
                        done[i] = 1;
                        left--;
                    }
                }
                break;
            default:
                break;
            }
        }
        for (int k = 0; k < K; k++)
            CHECK(got[k] == 1000 * (p + 1) + k, "%s: receive %d holds %d, want %d", w, k, got[k],
                  1000 * (p + 1) + k);
    }
    if (mt_rank <= p) CALL(MPI_Waitall(K, s, MPI_STATUSES_IGNORE));
}

/* Persistent requests: restartable, inactive after completion, freed at the end. */
static void test_persistent(void)
{
    enum { ROUNDS = 60, N = 3000 };
    int p = partner();
    int *sb = mt_xmalloc(sizeof(int) * N), *rb = mt_xmalloc(sizeof(int) * N);
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}; /* [0] send, [1] recv */
    MPI_Status st[2];
    int sender = mt_rank <= p, receiver = mt_rank >= p;

    for (int mode = 0; mode < 2; mode++) { /* Send_init, then Ssend_init */
        if (sender) {
            if (mode == 0)
                CALL(MPI_Send_init(sb, N, MPI_INT, p, TAG_PERS, MPI_COMM_WORLD, &req[0]));
            else
                CALL(MPI_Ssend_init(sb, N, MPI_INT, p, TAG_PERS, MPI_COMM_WORLD, &req[0]));
            CHECK(req[0] != MPI_REQUEST_NULL, "persistent send init gave MPI_REQUEST_NULL");
        }
        if (receiver) CALL(MPI_Recv_init(rb, N, MPI_INT, p, TAG_PERS, MPI_COMM_WORLD, &req[1]));
        /* An inactive persistent request completes at once with an empty status. */
        if (receiver) {
            int flag = 0;
            CALL(MPI_Test(&req[1], &flag, &st[1]));
            CHECK(flag && req[1] != MPI_REQUEST_NULL,
                  "MPI_Test of an inactive persistent request: flag %d, request nulled %d", flag,
                  req[1] == MPI_REQUEST_NULL);
            check_empty(&st[1], "MPI_Test of an inactive persistent request");
        }
        for (int round = 0; round < ROUNDS; round++) {
            if (sender)
                for (int i = 0; i < N; i++)
                    sb[i] = round * 100000 + i + mode;
            if (receiver)
                for (int i = 0; i < N; i++)
                    rb[i] = -1;
            if (sender && receiver) {
                CALL(MPI_Startall(2, req));
                CALL(MPI_Waitall(2, req, st));
            } else if (sender) {
                if (round % 2)
                    CALL(MPI_Startall(1, &req[0]));
                else
                    CALL(MPI_Start(&req[0]));
                CALL(MPI_Wait(&req[0], &st[0]));
            } else {
                CALL(MPI_Start(&req[1]));
                CALL(MPI_Wait(&req[1], &st[1]));
            }
            if (sender)
                CHECK(req[0] != MPI_REQUEST_NULL,
                      "round %d: completing a persistent send nulled "
                      "the request",
                      round);
            if (receiver) {
                CHECK(req[1] != MPI_REQUEST_NULL,
                      "round %d: completing a persistent receive "
                      "nulled the request",
                      round);
                int c = -1;
                CALL(MPI_Get_count(&st[1], MPI_INT, &c));
                CHECK(c == N && st[1].MPI_SOURCE == p && st[1].MPI_TAG == TAG_PERS,
                      "round %d: persistent receive status count %d source %d tag %d", round, c,
                      st[1].MPI_SOURCE, st[1].MPI_TAG);
                for (int i = 0; i < N; i++)
                    CHECK(rb[i] == round * 100000 + i + mode, "mode %d round %d: element %d is %d",
                          mode, round, i, rb[i]);
            }
        }
        if (sender) {
            CALL(MPI_Request_free(&req[0]));
            CHECK(req[0] == MPI_REQUEST_NULL, "MPI_Request_free did not null the handle");
        }
        if (receiver) {
            CALL(MPI_Request_free(&req[1]));
            CHECK(req[1] == MPI_REQUEST_NULL, "MPI_Request_free did not null the handle");
        }
    }
    free(sb);
    free(rb);
}

/* Freeing an active send still delivers it. */
static void test_free_active(void)
{
    enum { N = 100000 };
    int p = partner();
    int *sb = mt_xmalloc(sizeof(int) * N), *rb = mt_xmalloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        sb[i] = 3 * i + 1;
    MPI_Request r;
    if (mt_rank <= p) {
        CALL(MPI_Isend(sb, N, MPI_INT, p, TAG_FREE, MPI_COMM_WORLD, &r));
        CALL(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free of an active send did not null the handle");
    }
    if (mt_rank >= p) {
        CALL(MPI_Recv(rb, N, MPI_INT, p, TAG_FREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK(rb[i] == 3 * i + 1, "freed active send: element %d is %d", i, rb[i]);
        if (mt_rank != p) /* tell the sender its buffer may go */
            CALL(MPI_Send(NULL, 0, MPI_BYTE, p, TAG_FREE, MPI_COMM_WORLD));
    }
    if (mt_rank < p)
        CALL(MPI_Recv(NULL, 0, MPI_BYTE, p, TAG_FREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* Only after the receiver saw the data is the buffer released. */
    free(sb);
    free(rb);
}

/* Request_get_status reports completion without freeing the request. */
static void test_get_status(void)
{
    int p = partner(), v = 0, x = 99;
    MPI_Request r, s = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 1;
    if (mt_rank >= p) {
        CALL(MPI_Irecv(&v, 1, MPI_INT, p, TAG_STAT, MPI_COMM_WORLD, &r));
        CALL(MPI_Request_get_status(r, &flag, &st));
        CHECK(!flag, "MPI_Request_get_status: complete before the message was sent");
        if (mt_rank != p) CALL(MPI_Send(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD));
    }
    if (mt_rank <= p) {
        if (mt_rank != p)
            CALL(MPI_Recv(NULL, 0, MPI_BYTE, p, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Isend(&x, 1, MPI_INT, p, TAG_STAT, MPI_COMM_WORLD, &s));
    }
    if (mt_rank >= p) {
        double t0 = MPI_Wtime();
        flag = 0;
        while (!flag) {
            CALL(MPI_Request_get_status(r, &flag, &st));
            CHECK(flag || MPI_Wtime() - t0 < 30.0, "MPI_Request_get_status: not complete after "
                                                   "30 s");
        }
        CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status nulled the request");
        CHECK(st.MPI_SOURCE == p && st.MPI_TAG == TAG_STAT,
              "MPI_Request_get_status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        CALL(MPI_Request_get_status(r, &flag, &st));
        CHECK(flag, "MPI_Request_get_status: second call lost completion");
        CALL(MPI_Wait(&r, &st));
        CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == p && st.MPI_TAG == TAG_STAT && v == 99,
              "MPI_Wait after MPI_Request_get_status: source %d tag %d value %d", st.MPI_SOURCE,
              st.MPI_TAG, v);
        /* On the null request: flag true, empty status. */
        CALL(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
        CHECK(flag, "MPI_Request_get_status(MPI_REQUEST_NULL) flag 0");
        check_empty(&st, "MPI_Request_get_status(MPI_REQUEST_NULL)");
    }
    if (s != MPI_REQUEST_NULL) CALL(MPI_Wait(&s, MPI_STATUS_IGNORE));
}

/* Cancelling a receive that nothing matches. */
static void test_cancel(void)
{
    int p = partner(), v = 5, flag = -1;
    MPI_Request r;
    MPI_Status st;
    CALL(MPI_Irecv(&v, 1, MPI_INT, p, TAG_NEVER, MPI_COMM_WORLD, &r));
    CALL(MPI_Cancel(&r));
    CHECK(r != MPI_REQUEST_NULL, "MPI_Cancel nulled the request");
    CALL(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "MPI_Wait of a cancelled request did not null it");
    CALL(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "MPI_Test_cancelled of a cancelled unmatched receive gave false");
    CHECK(v == 5, "a cancelled receive wrote its buffer");

    /* A completed receive is not cancelled. */
    int x = 8, y = 0;
    CALL(MPI_Sendrecv(&x, 1, MPI_INT, mt_rank, TAG_NEVER + 1, &y, 1, MPI_INT, mt_rank,
                      TAG_NEVER + 1, MPI_COMM_WORLD, &st));
    CALL(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag && y == 8, "MPI_Test_cancelled of a completed receive gave %d", flag);
}

/*
 * A failed receive among several: Waitall / Testall / Waitsome return
 * MPI_ERR_IN_STATUS and set each status's MPI_ERROR (MPI 3.1 §3.7.5);
 * Waitany returns the error itself.
 */
static void test_err_in_status(void)
{
    int p = partner();
    int big[4] = {1, 2, 3, 4}, small[2] = {5, 6};
    int r1[4], r2[4];
    MPI_Request sr[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, rr[2];
    MPI_Status st[2];
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int how = 0; how < 4; how++) {
        if (mt_rank <= p) {
            CALL(MPI_Isend(big, 4, MPI_INT, p, 60 + how, MPI_COMM_WORLD, &sr[0]));
            CALL(MPI_Isend(small, 2, MPI_INT, p, 70 + how, MPI_COMM_WORLD, &sr[1]));
        }
        if (mt_rank >= p) {
            /* the first receive is too small for its 4 ints */
            CALL(MPI_Irecv(r1, 2, MPI_INT, p, 60 + how, MPI_COMM_WORLD, &rr[0]));
            CALL(MPI_Irecv(r2, 4, MPI_INT, p, 70 + how, MPI_COMM_WORLD, &rr[1]));
            st[0].MPI_ERROR = st[1].MPI_ERROR = -12345;
            int rc, flag = 0, out = 0, ind[2], idx = -1, done = 0;
            const char *w = how == 0   ? "MPI_Waitall"
                            : how == 1 ? "MPI_Testall"
                            : how == 2 ? "MPI_Waitsome"
                                       : "MPI_Waitany";
            if (how == 0)
                rc = MPI_Waitall(2, rr, st);
            else if (how == 1) {
                double t0 = MPI_Wtime();
                do {
                    rc = MPI_Testall(2, rr, &flag, st);
                    CHECK(MPI_Wtime() - t0 < 30.0, "MPI_Testall: not complete after 30 s");
                } while (rc == MPI_SUCCESS && !flag);
            } else if (how == 2) {
                /* Waitsome until both are done; the call that completes the
                 * truncated receive returns MPI_ERR_IN_STATUS */
                int seen_err = 0;
                while (done < 2) {
                    MPI_Status sts[2];
                    rc = MPI_Waitsome(2, rr, &out, ind, sts);
                    CHECK(rc == MPI_SUCCESS || mt_class(rc) == MPI_ERR_IN_STATUS,
                          "MPI_Waitsome returned %d (%s)", rc, mt_errstr(rc));
                    CHECK(out >= 1 && out <= 2 - done, "MPI_Waitsome outcount %d", out);
                    for (int j = 0; j < out; j++) {
                        if (ind[j] == 0) {
                            CHECK(rc != MPI_SUCCESS &&
                                      mt_class(sts[j].MPI_ERROR) == MPI_ERR_TRUNCATE,
                                  "MPI_Waitsome completed the truncated receive with rc %d, "
                                  "status error %d",
                                  rc, sts[j].MPI_ERROR);
                            seen_err = 1;
                        } else if (rc != MPI_SUCCESS)
                            CHECK(sts[j].MPI_ERROR == MPI_SUCCESS,
                                  "MPI_Waitsome: the good "
                                  "receive has status error %d",
                                  sts[j].MPI_ERROR);
                    }
                    done += out;
                }
                CHECK(seen_err, "MPI_Waitsome never reported the truncated receive");
                goto next;
            } else {
                /* Waitany: the truncated receive's error is the return code */
                while (done < 2) {
                    MPI_Status one;
                    rc = MPI_Waitany(2, rr, &idx, &one);
                    if (idx == 0)
                        CHECK(mt_class(rc) == MPI_ERR_TRUNCATE,
                              "MPI_Waitany of the truncated "
                              "receive returned %d (%s)",
                              rc, mt_errstr(rc));
                    else
                        CHECK(rc == MPI_SUCCESS, "MPI_Waitany of the good receive returned %d", rc);
                    done++;
                }
                goto next;
            }
            CHECK(mt_class(rc) == MPI_ERR_IN_STATUS,
                  "%s with a truncated receive returned %d "
                  "(%s), want MPI_ERR_IN_STATUS",
                  w, rc, mt_errstr(rc));
            CHECK(mt_class(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
                  "%s: status of the truncated receive has MPI_ERROR %d", w, st[0].MPI_ERROR);
            CHECK(st[1].MPI_ERROR == MPI_SUCCESS,
                  "%s: status of the good receive has MPI_ERROR "
                  "%d",
                  w, st[1].MPI_ERROR);
        next:
            CHECK(r2[0] == 5 && r2[1] == 6, "the good receive got %d %d", r2[0], r2[1]);
            CHECK(rr[0] == MPI_REQUEST_NULL && rr[1] == MPI_REQUEST_NULL,
                  "%s left a request non-null", w);
        }
        if (mt_rank <= p) CALL(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
    }
    /* Waitall with the truncated receive last, after a null request and a
     * good one: every status names its outcome. Then a Waitall where all
     * succeed leaves the MPI_ERROR fields as they were (MPI 3.1 3.2.5). */
    for (int fail = 1; fail >= 0; fail--) {
        if (mt_rank <= p) {
            CALL(MPI_Isend(small, 2, MPI_INT, p, 80 + fail, MPI_COMM_WORLD, &sr[0]));
            CALL(MPI_Isend(big, 4, MPI_INT, p, 90 + fail, MPI_COMM_WORLD, &sr[1]));
        }
        if (mt_rank >= p) {
            MPI_Request q[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            MPI_Status s3[3];
            int r3[4] = {0, 0, 0, 0};
            r2[0] = r2[1] = 0;
            CALL(MPI_Irecv(r2, 4, MPI_INT, p, 80 + fail, MPI_COMM_WORLD, &q[1]));
            CALL(MPI_Irecv(fail ? r1 : r3, fail ? 2 : 4, MPI_INT, p, 90 + fail, MPI_COMM_WORLD,
                           &q[2]));
            s3[0].MPI_ERROR = s3[1].MPI_ERROR = s3[2].MPI_ERROR = -12345;
            int rc = MPI_Waitall(3, q, s3);
            if (fail) {
                CHECK(mt_class(rc) == MPI_ERR_IN_STATUS,
                      "MPI_Waitall with the truncated receive last returned %d (%s)", rc,
                      mt_errstr(rc));
                CHECK(s3[0].MPI_ERROR == MPI_SUCCESS && s3[1].MPI_ERROR == MPI_SUCCESS,
                      "MPI_Waitall: the null and the good request have MPI_ERROR %d and %d",
                      s3[0].MPI_ERROR, s3[1].MPI_ERROR);
                CHECK(mt_class(s3[2].MPI_ERROR) == MPI_ERR_TRUNCATE,
                      "MPI_Waitall: the truncated receive has MPI_ERROR %d", s3[2].MPI_ERROR);
                CHECK(r2[0] == 5 && r2[1] == 6, "the good receive got %d %d", r2[0], r2[1]);
            } else {
                CHECK(rc == MPI_SUCCESS, "MPI_Waitall of good receives returned %d", rc);
                CHECK(s3[0].MPI_ERROR == -12345 && s3[1].MPI_ERROR == -12345 &&
                          s3[2].MPI_ERROR == -12345,
                      "a successful MPI_Waitall changed MPI_ERROR fields to %d %d %d",
                      s3[0].MPI_ERROR, s3[1].MPI_ERROR, s3[2].MPI_ERROR);
                CHECK(r2[0] == 5 && r2[1] == 6 && r3[0] == 1 && r3[3] == 4,
                      "the receives got %d %d and %d .. %d", r2[0], r2[1], r3[0], r3[3]);
            }
            CHECK(q[1] == MPI_REQUEST_NULL && q[2] == MPI_REQUEST_NULL,
                  "MPI_Waitall left a request non-null");
        }
        if (mt_rank <= p) CALL(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
    }
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Status_set_elements / Status_set_cancelled, as generalized requests use them. */
static void test_status_setters(void)
{
    MPI_Status st;
    int c = -1, e = -1, flag = -1;
    MPI_Count ex = -1;
    memset(&st, 0, sizeof(st));
    CALL(MPI_Status_set_elements(&st, MPI_INT, 5));
    CALL(MPI_Get_count(&st, MPI_INT, &c));
    CALL(MPI_Get_elements(&st, MPI_INT, &e));
    CHECK(c == 5 && e == 5, "after MPI_Status_set_elements(5 ints): count %d elements %d", c, e);
    CALL(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 3));
    CALL(MPI_Get_elements_x(&st, MPI_DOUBLE, &ex));
    CHECK(ex == 3, "after MPI_Status_set_elements_x(3 doubles): elements %lld", (long long)ex);
    CALL(MPI_Status_set_cancelled(&st, 1));
    CALL(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "MPI_Status_set_cancelled(1) then MPI_Test_cancelled gave false");
    CALL(MPI_Status_set_cancelled(&st, 0));
    CALL(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "MPI_Status_set_cancelled(0) then MPI_Test_cancelled gave true");
}

/*
 * Persistent ready and buffered sends. Open MPI 4.1 delivers garbage from
 * the second start of a persistent buffered send to self, so that one case
 * is skipped when built with Open MPI.
 */
#ifdef OPEN_MPI
#define SKIP_BSEND_INIT_SELF 1
#else
#define SKIP_BSEND_INIT_SELF 0
#endif
static void test_persistent_modes(void)
{
    enum { ROUNDS = 20, N = 500 };
    int p = partner();
    int sb[N], rb[N];
    MPI_Request s = MPI_REQUEST_NULL, r = MPI_REQUEST_NULL;
    int bsize = 0;
    CALL(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &bsize));
    bsize += MPI_BSEND_OVERHEAD;
    void *bbuf = mt_xmalloc((size_t)bsize);
    for (int mode = 0; mode < (SKIP_BSEND_INIT_SELF && p == mt_rank ? 1 : 2); mode++) {
        if (mt_rank <= p) {
            if (mode == 0)
                CALL(MPI_Rsend_init(sb, N, MPI_INT, p, 90, MPI_COMM_WORLD, &s));
            else {
                CALL(MPI_Buffer_attach(bbuf, bsize));
                CALL(MPI_Bsend_init(sb, N, MPI_INT, p, 90, MPI_COMM_WORLD, &s));
            }
        }
        if (mt_rank >= p) CALL(MPI_Recv_init(rb, N, MPI_INT, p, 90, MPI_COMM_WORLD, &r));
        for (int round = 0; round < ROUNDS; round++) {
            if (mt_rank >= p) { /* the receive is active before the ready send starts */
                for (int i = 0; i < N; i++)
                    rb[i] = -1;
                CALL(MPI_Start(&r));
                if (mt_rank != p) CALL(MPI_Send(NULL, 0, MPI_BYTE, p, 91, MPI_COMM_WORLD));
            }
            if (mt_rank <= p) {
                if (mt_rank != p)
                    CALL(MPI_Recv(NULL, 0, MPI_BYTE, p, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int i = 0; i < N; i++)
                    sb[i] = mode * 1000000 + round * 1000 + i;
                CALL(MPI_Start(&s));
                CALL(MPI_Wait(&s, MPI_STATUS_IGNORE));
            }
            if (mt_rank >= p) {
                CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
                for (int i = 0; i < N; i++)
                    CHECK(rb[i] == mode * 1000000 + round * 1000 + i,
                          "persistent %s round %d: element %d is %d",
                          mode ? "Bsend_init" : "Rsend_init", round, i, rb[i]);
            }
        }
        if (mt_rank <= p) {
            CALL(MPI_Request_free(&s));
            if (mode == 1) {
                void *a;
                int sz;
                CALL(MPI_Buffer_detach(&a, &sz));
            }
        }
        if (mt_rank >= p) CALL(MPI_Request_free(&r));
    }
    free(bbuf);
}

/*
 * Cancelling an unmatched small send (MPI 3.1 §3.8.4): either the cancel
 * succeeds and the message is never received, or it fails and the message
 * is received normally; the sender tells the receiver which happened.
 * (For a message too large to be sent eagerly, the standard also requires
 * MPI_Wait after MPI_Cancel to return without the receiver; neither Open MPI
 * 4.1 nor ump does that, so that case is left out.)
 */
static void test_cancel_send(void)
{
    int p = partner(), x = 77, verdict = -1;
    if (p == mt_rank) return; /* needs a second rank that stays silent */
    if (mt_rank < p) {
        MPI_Request r;
        MPI_Status st;
        CALL(MPI_Isend(&x, 1, MPI_INT, p, 95, MPI_COMM_WORLD, &r));
        CALL(MPI_Cancel(&r));
        CALL(MPI_Wait(&r, &st));
        CALL(MPI_Test_cancelled(&st, &verdict));
        CALL(MPI_Send(&verdict, 1, MPI_INT, p, 96, MPI_COMM_WORLD));
    } else {
        CALL(MPI_Recv(&verdict, 1, MPI_INT, p, 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (verdict) {
            int flag = 1;
            MPI_Status st;
            CALL(MPI_Iprobe(p, 95, MPI_COMM_WORLD, &flag, &st));
            CHECK(!flag, "a send reported cancelled was still delivered");
        } else {
            int y = 0;
            CALL(MPI_Recv(&y, 1, MPI_INT, p, 95, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(y == 77, "a send whose cancel failed delivered %d", y);
        }
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "requests");
    test_null();
    for (int h = 0; h < H_N; h++)
        test_many((enum how)h);
    test_persistent();
    test_free_active();
    test_get_status();
    test_cancel();
    test_err_in_status();
    test_status_setters();
    test_persistent_modes();
    test_cancel_send();
    return mt_done();
}
