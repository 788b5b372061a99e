/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports, names and join (ump.h, "meeting other processes"), on 2+ ranks:
 *  - rank 0 opens a port and publishes it; publishing again is refused;
 *    the other ranks look it up (an unknown service is not found);
 *  - every other rank in turn connects and the two exchange cards of sizes
 *    from 0 bytes to 24 MiB (both large at once too), checked byte for byte
 *    on both sides;
 *  - a singleton (this program started without umprun, so with another
 *    job secret) opens a port; rank 0's connect to it is refused with
 *    UMP_ERR_AUTH; the singleton also checks its process-local names;
 *  - unpublish under the wrong port is refused, then works, and the name
 *    is gone for everyone;
 *  - ranks 0 and 1 join over a TCP socket they connected themselves.
 * Run: umprun -n N meet. The singleton role: meet --outsider FD.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "mp_common.h"

static const size_t card_sizes[] = {0, 1, 4096 + 3, 65536 + 7, 1 << 20};
#define NSIZES (sizeof(card_sizes) / sizeof(card_sizes[0]))

static void *card(size_t n, int from, int to, int idx)
{
    void *p = mp_malloc(n);
    mp_fill(p, n, from, to, 7, (uint64_t)idx);
    return p;
}

/* Without umprun: a one-rank job with a secret of its own. Opens a port,
 * writes its name to fd, waits in accept (which refuses rank 0) until
 * killed. */
static int outsider(int fd)
{
    MP_CALL(ump_init(NULL, NULL, UMP_THREAD_SINGLE, NULL));
    char port[UMP_PORT_NAME_MAX], got[UMP_PORT_NAME_MAX];
    MP_CALL(ump_port_open(port, sizeof(port)));
    /* The name service of a process without umprun is its own. */
    MP_CALL(ump_name_publish("outsider", port));
    MP_CALL(ump_name_lookup("outsider", got, sizeof(got)));
    MP_CHECK(!strcmp(got, port), "looked up '%s', published '%s'", got, port);
    MP_CHECK(ump_name_publish("outsider", port) == UMP_ERR_BUSY, "published twice");
    MP_CALL(ump_name_unpublish("outsider", port));
    MP_CHECK(ump_name_lookup("outsider", got, sizeof(got)) == UMP_ERR_INVALID, "still there");
    size_t n = strlen(port) + 1;
    MP_CHECK(write(fd, port, n) == (ssize_t)n, "write to the pipe failed");
    close(fd);
    void *theirs = NULL;
    size_t tlen = 0;
    int rc = ump_port_accept(port, "x", 1, &theirs, &tlen);
    fprintf(stderr, "outsider: accept returned %d\n", rc);
    return 3;
}

/* Rank 0 connects to a singleton's port: refused, since its secret differs. */
static void check_outsider(const char *self)
{
    int pfd[2];
    MP_CHECK(pipe(pfd) == 0, "pipe: %m");
    pid_t pid = fork();
    MP_CHECK(pid >= 0, "fork: %m");
    if (pid == 0) {
        close(pfd[0]);
        extern char **environ;
        /* Forget the job: the child starts as a singleton. */
        for (char **e = environ; *e;) {
            if (!strncmp(*e, "UMP_JOB_", 8)) {
                char name[64];
                size_t k = strcspn(*e, "=");
                snprintf(name, sizeof(name), "%.*s", (int)k, *e);
                unsetenv(name);
            } else {
                e++;
            }
        }
        char fds[16];
        snprintf(fds, sizeof(fds), "%d", pfd[1]);
        execl(self, self, "--outsider", fds, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    char port[UMP_PORT_NAME_MAX];
    size_t got = 0;
    while (got < sizeof(port)) {
        ssize_t r = read(pfd[0], port + got, sizeof(port) - got);
        if (r <= 0) break;
        got += (size_t)r;
        if (memchr(port, '\0', got)) break;
    }
    close(pfd[0]);
    MP_CHECK(got > 0 && memchr(port, '\0', got), "no port name from the singleton");
    void *theirs = NULL;
    size_t tlen = 0;
    int rc = ump_port_connect(port, "y", 1, &theirs, &tlen, 20);
    MP_CHECK(rc == UMP_ERR_AUTH, "connect to another job's port returned %d (%s)", rc,
             ump_status_name(rc));
    MP_CHECK(theirs == NULL, "a refused meeting handed out a card");
    kill(pid, SIGKILL);
    int st;
    MP_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %m");
    MP_CHECK(WIFSIGNALED(st), "the singleton exited by itself (status %d)", st);
}

static void check_meet(int rank, int size, const char *port)
{
    for (int c = 1; c < size; c++) {
        /* The last round: two cards larger than the sockets' buffers, sent
         * at once by both sides. */
        for (int i = 0; i <= (int)NSIZES; i++) {
            size_t mine_n = i < (int)NSIZES ? card_sizes[(i + c) % NSIZES] : (24u << 20) + 3;
            size_t their_n = i < (int)NSIZES ? card_sizes[i] : (24u << 20) + 5;
            void *theirs = NULL;
            size_t tlen = 0;
            if (rank == 0) {
                void *mine = card(mine_n, 0, c, i);
                mp_send_go(c);
                MP_CALL(ump_port_accept(port, mine, mine_n, &theirs, &tlen));
                MP_CHECK(tlen == their_n, "card of %zu bytes from rank %d, want %zu", tlen, c,
                         their_n);
                MP_CHECK_DATA(theirs, tlen, c, 0, 7, i);
                free(mine);
            } else if (rank == c) {
                void *mine = card(their_n, c, 0, i);
                mp_recv_go(0);
                MP_CALL(ump_port_connect(port, mine, their_n, &theirs, &tlen, 20));
                MP_CHECK(tlen == mine_n, "card of %zu bytes from rank 0, want %zu", tlen, mine_n);
                MP_CHECK_DATA(theirs, tlen, 0, c, 7, i);
                free(mine);
            }
            free(theirs);
        }
    }
}

static void check_join(int rank)
{
    int fd = -1;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t sl = sizeof(sa);
        MP_CHECK(l >= 0 && !bind(l, (struct sockaddr *)&sa, sl) && !listen(l, 1) &&
                     !getsockname(l, (struct sockaddr *)&sa, &sl),
                 "listening socket: %m");
        uint16_t port = sa.sin_port;
        MP_CALL(ump_send(&port, sizeof(port), UMP_BYTE, 1, 11, MP_CTX_CTRL));
        /* Rank 1 connects once it has our message: keep it moving. */
        for (;;) {
            struct pollfd p = {.fd = l, .events = POLLIN};
            if (poll(&p, 1, 1) > 0) break;
            ump_progress();
        }
        fd = accept(l, NULL, NULL);
        MP_CHECK(fd >= 0, "accept: %m");
        close(l);
    } else {
        uint16_t port;
        MP_CALL(ump_recv(&port, sizeof(port), UMP_BYTE, 0, 11, MP_CTX_CTRL, UMP_STATUS_IGNORE));
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {
            .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = port};
        MP_CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)), "connect: %m");
    }
    size_t n = rank == 0 ? 100000 : 3;
    void *mine = card(n, rank, 1 - rank, 99), *theirs = NULL;
    size_t tlen = 0;
    MP_CALL(ump_join(fd, mine, n, &theirs, &tlen));
    MP_CHECK(tlen == (rank == 0 ? 3u : 100000u), "join card of %zu bytes", tlen);
    MP_CHECK_DATA(theirs, tlen, 1 - rank, rank, 7, 99);
    /* The socket is still the caller's, and usable. */
    char b = (char)('a' + rank), o = 0;
    MP_CHECK(write(fd, &b, 1) == 1 && read(fd, &o, 1) == 1 && o == 'a' + (1 - rank),
             "the socket after join");
    close(fd);
    free(mine);
    free(theirs);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--outsider")) return outsider(atoi(argv[2]));
    mp_init("meet", &argc, &argv);
    int rank = ump_rank(), size = ump_size();
    MP_CHECK(size >= 2, "run on 2 or more ranks");
    MP_CHECK(strlen(ump_job_id()) == 16, "job id '%s'", ump_job_id());
    char port[UMP_PORT_NAME_MAX] = "", got[UMP_PORT_NAME_MAX];

    if (rank == 0) {
        MP_CALL(ump_port_open(port, sizeof(port)));
        MP_CHECK(!strncmp(port, "ump-port:", 9), "port name '%s'", port);
        MP_CALL(ump_name_publish("meet.svc", port));
        MP_CHECK(ump_name_publish("meet.svc", "ump-port:1.2.3.4:5:0000000000000000") ==
                     UMP_ERR_BUSY,
                 "a service published twice");
    }
    mp_barrier();
    if (rank != 0) {
        MP_CALL(ump_name_lookup("meet.svc", port, sizeof(port)));
        MP_CHECK(!strncmp(port, "ump-port:", 9), "looked up '%s'", port);
        MP_CHECK(ump_name_lookup("meet.none", got, sizeof(got)) == UMP_ERR_INVALID,
                 "an unknown service was found");
        MP_CHECK(ump_name_lookup("meet.svc", got, 4) == UMP_ERR_NO_RESOURCE, "short buffer");
    }
    MP_CHECK(ump_port_connect("not-a-port", "", 0, &(void *){0}, &(size_t){0}, 1) ==
                 UMP_ERR_INVALID,
             "a malformed port name was accepted");
    MP_CHECK(ump_port_close("ump-port:1.2.3.4:5:0000000000000000") == UMP_ERR_INVALID,
             "closed a port this process does not have");

    check_meet(rank, size, port);
    if (rank == 0) check_outsider(argv[0]);
    mp_barrier();

    if (rank == 0) {
        MP_CHECK(ump_name_unpublish("meet.svc", "ump-port:1.2.3.4:5:0000000000000000") ==
                     UMP_ERR_INVALID,
                 "unpublished under another port");
        MP_CALL(ump_name_unpublish("meet.svc", port));
        MP_CALL(ump_port_close(port));
        MP_CHECK(ump_port_close(port) == UMP_ERR_INVALID, "closed twice");
    }
    mp_barrier();
    MP_CHECK(ump_name_lookup("meet.svc", got, sizeof(got)) == UMP_ERR_INVALID,
             "an unpublished service was found");
    if (rank < 2) check_join(rank);
    mp_barrier();
    if (rank == 0) printf("meet: ok on %d ranks\n", size);
    mp_finalize();
    return 0;
}
