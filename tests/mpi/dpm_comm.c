/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpm_comm.c - client and server meeting through a port (MPI 3.1 §10.4),
 * on 1-4 ranks:
 *  - rank 0 (MPI_COMM_SELF) accepts, the other ranks (their own
 *    communicator) connect, having found the port through
 *    MPI_Lookup_name; over the intercommunicator the server broadcasts
 *    (MPI_ROOT) and every client sends it messages of sizes around the
 *    protocol thresholds, each answered, all checked byte for byte; then
 *    MPI_Comm_disconnect;
 *  - the other way round: the clients' group accepts, rank 0 connects, and
 *    an allreduce across the two groups is checked;
 *  - ranks 0 and 1 join over a TCP socket and exchange a message;
 *  - errors: connecting to a closed port and accepting on a port this
 *    process did not open give MPI_ERR_PORT; disconnecting
 *    MPI_COMM_WORLD gives MPI_ERR_COMM.
 * With --server FILE (2 ranks) and --other-job FILE (1 rank), run by
 * dpm_jobs.sh as two umprun jobs: the server's rank 0 writes its port to
 * FILE and accepts; the other job's connect is refused (MPI_ERR_PORT, its
 * secret differs) while the accept goes on waiting, until the server's
 * rank 1 connects once FILE.go exists.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mt.h"

static const int sizes[] = {0, 1, 1000, 8191, 65537, 1 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static void check_inter(MPI_Comm ic, int lsize, int lrank, int rsize)
{
    int flag = 0, n = -1, r = -1;
    CALL(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercommunicator");
    CALL(MPI_Comm_size(ic, &n));
    CALL(MPI_Comm_rank(ic, &r));
    CHECK(n == lsize && r == lrank, "size %d rank %d, want %d %d", n, r, lsize, lrank);
    CALL(MPI_Comm_remote_size(ic, &n));
    CHECK(n == rsize, "remote size %d, want %d", n, rsize);
}

/* Server: rank 0 alone; clients: every other rank. */
static void server_accepts(MPI_Comm clients)
{
    int rank = mt_rank, size = mt_size;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm ic = MPI_COMM_NULL;
    if (rank == 0) {
        CALL(MPI_Open_port(MPI_INFO_NULL, port));
        CALL(MPI_Publish_name("dpm-comm-server", MPI_INFO_NULL, port));
    }
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CALL(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        check_inter(ic, 1, 0, size - 1);
        CALL(MPI_Unpublish_name("dpm-comm-server", MPI_INFO_NULL, port));
        CALL(MPI_Close_port(port));
    } else {
        /* Only the root's port name counts. */
        if (rank == 1) CALL(MPI_Lookup_name("dpm-comm-server", MPI_INFO_NULL, port));
        CALL(MPI_Comm_connect(port, MPI_INFO_NULL, 0, clients, &ic));
        check_inter(ic, size - 1, rank - 1, 1);
    }
    /* Broadcast from the server to every client. */
    size_t bn = 100000;
    unsigned char *b = mt_xmalloc(bn);
    if (rank == 0) mt_fill(b, bn, 77);
    CALL(MPI_Bcast(b, (int)bn, MPI_BYTE, rank == 0 ? MPI_ROOT : 0, ic));
    if (rank != 0) CHECK_DATA(b, bn, 77, "intercommunicator bcast");
    free(b);
    /* Every client sends each size to the server, which answers. */
    for (int i = 0; i < NSIZES; i++) {
        size_t n = (size_t)sizes[i];
        unsigned char *m = mt_xmalloc(n + 1);
        if (rank == 0) {
            for (int c = 0; c < size - 1; c++) {
                MPI_Status st;
                CALL(MPI_Recv(m, (int)n, MPI_BYTE, MPI_ANY_SOURCE, i, ic, &st));
                int got = -1;
                CALL(MPI_Get_count(&st, MPI_BYTE, &got));
                CHECK(got == (int)n, "%d bytes from client %d, want %zu", got, st.MPI_SOURCE, n);
                CHECK_DATA(m, n, 1000u + (unsigned)st.MPI_SOURCE * 16u + (unsigned)i,
                           "client message");
                mt_fill(m, n, 2000u + (unsigned)st.MPI_SOURCE * 16u + (unsigned)i);
                CALL(MPI_Send(m, (int)n, MPI_BYTE, st.MPI_SOURCE, i, ic));
            }
        } else {
            unsigned me = (unsigned)(rank - 1);
            mt_fill(m, n, 1000u + me * 16u + (unsigned)i);
            CALL(MPI_Send(m, (int)n, MPI_BYTE, 0, i, ic));
            memset(m, 0, n);
            CALL(MPI_Recv(m, (int)n, MPI_BYTE, 0, i, ic, MPI_STATUS_IGNORE));
            CHECK_DATA(m, n, 2000u + me * 16u + (unsigned)i, "server answer");
        }
        free(m);
    }
    CALL(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL, "disconnect left the handle");
}

/* The clients' group accepts, rank 0 connects. */
static void server_connects(MPI_Comm clients)
{
    int rank = mt_rank, size = mt_size;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm ic = MPI_COMM_NULL;
    if (rank == 1) {
        CALL(MPI_Open_port(MPI_INFO_NULL, port));
        CALL(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 5, MPI_COMM_WORLD));
    }
    if (rank == 0) {
        CALL(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        check_inter(ic, 1, 0, size - 1);
    } else {
        CALL(MPI_Comm_accept(port, MPI_INFO_NULL, 0, clients, &ic));
        check_inter(ic, size - 1, rank - 1, 1);
        if (rank == 1) CALL(MPI_Close_port(port));
    }
    /* Allreduce across: each side gets the other group's sum. */
    int v = rank + 1, sum = -1, want = 0;
    CALL(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ic));
    if (rank == 0)
        for (int r = 1; r < size; r++)
            want += r + 1;
    else
        want = 1;
    CHECK(sum == want, "intercommunicator allreduce gave %d, want %d", sum, want);
    CALL(MPI_Comm_free(&ic));
}

static void join(void)
{
    int rank = mt_rank, fd = -1;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t sl = sizeof(sa);
        CHECK(l >= 0 && !bind(l, (struct sockaddr *)&sa, sl) && !listen(l, 1) &&
                  !getsockname(l, (struct sockaddr *)&sa, &sl),
              "listening socket");
        int p = ntohs(sa.sin_port);
        MPI_Request req;
        CALL(MPI_Isend(&p, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &req));
        /* Rank 1 connects once it has the message: keep MPI moving (a tcp
         * send may need our progress to leave) until it does. */
        for (;;) {
            struct pollfd pf = {.fd = l, .events = POLLIN};
            if (poll(&pf, 1, 1) > 0) break;
            int done;
            CALL(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        }
        CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        int p = 0;
        CALL(MPI_Recv(&p, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        struct sockaddr_in sa = {.sin_family = AF_INET,
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                                 .sin_port = htons((uint16_t)p)};
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)), "connect");
    }
    CHECK(fd >= 0, "no socket");
    MPI_Comm ic = MPI_COMM_NULL;
    CALL(MPI_Comm_join(fd, &ic));
    close(fd);
    check_inter(ic, 1, 0, 1);
    size_t n = 70000;
    unsigned char *s = mt_xmalloc(n), *r = mt_xmalloc(n);
    mt_fill(s, n, 300u + (unsigned)rank);
    CALL(MPI_Sendrecv(s, (int)n, MPI_BYTE, 0, 9, r, (int)n, MPI_BYTE, 0, 9, ic, MPI_STATUS_IGNORE));
    CHECK_DATA(r, n, 300u + (unsigned)(1 - rank), "joined message");
    free(s);
    free(r);
    CALL(MPI_Comm_disconnect(&ic));
}

static void errors(void)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic = MPI_COMM_NULL, w = MPI_COMM_WORLD;
    CALL(MPI_Open_port(MPI_INFO_NULL, port));
    CALL(MPI_Close_port(port));
    EXPECT_CLASS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic), MPI_ERR_PORT);
    CHECK(ic == MPI_COMM_NULL, "a failed connect made a communicator");
    EXPECT_CLASS(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic), MPI_ERR_PORT);
    EXPECT_CLASS(MPI_Comm_connect("no port at all", MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic),
                 MPI_ERR_PORT);
    EXPECT_CLASS(MPI_Comm_accept(port, MPI_INFO_NULL, 1, MPI_COMM_SELF, &ic), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Comm_disconnect(&w), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_join(-1, &ic), MPI_ERR_ARG);
}

static char *read_port(const char *file, char *port)
{
    for (int i = 0; i < 6000; i++) {
        FILE *f = fopen(file, "r");
        if (f) {
            char *r = fgets(port, MPI_MAX_PORT_NAME, f);
            fclose(f);
            if (r && strlen(port) > 0) return port;
        }
        usleep(10000);
    }
    CHECK(0, "no port name in %s", file);
    return NULL;
}

/* Two jobs that share their secret (umprun --secret-file) meet: the server
 * job's world accepts, the client job's world connects; then data both
 * ways between every pair, and an allreduce on the merged communicator. */
static int shared_jobs(bool server, const char *file)
{
    char port[MPI_MAX_PORT_NAME], tmp[4096];
    MPI_Comm ic = MPI_COMM_NULL, merged;
    if (server) {
        if (mt_rank == 0) {
            CALL(MPI_Open_port(MPI_INFO_NULL, port));
            snprintf(tmp, sizeof(tmp), "%s.tmp", file);
            FILE *f = fopen(tmp, "w");
            CHECK(f && fputs(port, f) >= 0 && fclose(f) == 0 && rename(tmp, file) == 0,
                  "writing %s", file);
        }
        CALL(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        if (mt_rank == 0) CALL(MPI_Close_port(port));
    } else {
        if (mt_rank == 0) read_port(file, port);
        CALL(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    }
    int rsize;
    CALL(MPI_Comm_remote_size(ic, &rsize));
    size_t n = 70000; /* past tcp's eager limit */
    unsigned char *out = mt_xmalloc(n), *in = mt_xmalloc(n);
    for (int r = 0; r < rsize; r++) {
        unsigned mine = (unsigned)(server * 100 + mt_rank * 10 + r);
        unsigned theirs = (unsigned)(!server * 100 + r * 10 + mt_rank);
        mt_fill(out, n, mine);
        CALL(MPI_Sendrecv(out, (int)n, MPI_BYTE, r, 3, in, (int)n, MPI_BYTE, r, 3, ic,
                          MPI_STATUS_IGNORE));
        CHECK_DATA(in, n, theirs, "a message from the other job");
    }
    free(out);
    free(in);
    CALL(MPI_Intercomm_merge(ic, server ? 0 : 1, &merged));
    int me, size, one = 1, sum = 0;
    CALL(MPI_Comm_rank(merged, &me));
    CALL(MPI_Comm_size(merged, &size));
    CALL(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(size == mt_size + rsize && sum == size, "merged: size %d sum %d", size, sum);
    CALL(MPI_Comm_free(&merged));
    CALL(MPI_Comm_disconnect(&ic));
    return mt_done();
}

static int two_jobs(const char *mode, const char *file)
{
    char port[MPI_MAX_PORT_NAME], tmp[4096];
    MPI_Comm ic = MPI_COMM_NULL;
    if (!strcmp(mode, "--shared-server") || !strcmp(mode, "--shared-client"))
        return shared_jobs(!strcmp(mode, "--shared-server"), file);
    if (!strcmp(mode, "--other-job")) {
        CHECK(mt_size == 1, "run the other job on 1 rank");
        EXPECT_CLASS(MPI_Comm_connect(read_port(file, port), MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic),
                     MPI_ERR_PORT);
        CHECK(ic == MPI_COMM_NULL, "a refused connect made a communicator");
        return mt_done();
    }
    CHECK(mt_size == 2, "run the server job on 2 ranks");
    int v = 0;
    if (mt_rank == 0) {
        CALL(MPI_Open_port(MPI_INFO_NULL, port));
        snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        FILE *f = fopen(tmp, "w");
        CHECK(f && fputs(port, f) >= 0 && fclose(f) == 0 && rename(tmp, file) == 0, "writing %s",
              file);
        /* Refuses the other job's process, then takes rank 1. */
        CALL(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        v = 41;
        CALL(MPI_Send(&v, 1, MPI_INT, 0, 1, ic));
        CALL(MPI_Close_port(port));
    } else {
        snprintf(tmp, sizeof(tmp), "%s.go", file);
        while (access(tmp, F_OK))
            usleep(10000);
        CALL(MPI_Comm_connect(read_port(file, port), MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        CALL(MPI_Recv(&v, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
        CHECK(v == 41, "got %d over the intercommunicator", v);
    }
    CALL(MPI_Comm_disconnect(&ic));
    return mt_done();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "dpm_comm");
    if (argc == 3) {
        CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        return two_jobs(argv[1], argv[2]);
    }
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    errors();
    if (mt_size >= 2) {
        MPI_Comm clients;
        CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0 ? MPI_UNDEFINED : 1, mt_rank, &clients));
        CHECK((mt_rank == 0) == (clients == MPI_COMM_NULL), "split");
        server_accepts(clients);
        server_connects(clients);
        if (clients != MPI_COMM_NULL) CALL(MPI_Comm_free(&clients));
        if (mt_rank < 2) join();
    }
    return mt_done();
}
