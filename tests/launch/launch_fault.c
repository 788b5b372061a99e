/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launch_fault MODE VICTIM WAIT [token]: a job where rank VICTIM misbehaves
 * and the others wait, to check that umprun ends the job, names the rank and
 * cleans up. Every rank first creates /dev/shm/ump-<jobid>-test-<rank> (as
 * the shm transport would) so the test can see umprun remove it (not with
 * UMP_TEST_NO_SHM set). The token
 * argument is unused: it only makes the processes findable with pgrep -f.
 *   MODE:  abort     the victim calls abort()
 *          kill9     the victim kills itself with SIGKILL
 *          exit3     the victim exits 3 after init, without finalizing
 *          exit0     the victim exits 0 after init, without finalizing
 *          rtabort   the victim calls ump_rt_abort(rt, 7, "...")
 *          none      the victim only sleeps (so a fence never completes)
 *   WAIT:  fence (block in a fence), spin (burn CPU), stubborn (spin, ignoring
 *          SIGTERM), sleep
 * Special modes, without VICTIM/WAIT:
 *          badsecret    init with a corrupted UMP_JOB_SECRET; expects UMP_ERR_AUTH
 *          noauth       connect to UMP_JOB_KVS and send a hello with a wrong
 *                       secret by hand; expects the server to close; then
 *                       runs a normal init/fence/fini
 *          badenv VAR   sets VAR=garbage; expects UMP_ERR_BOOTSTRAP
 *          cat          rank 0 copies stdin to stdout, then init/fini
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt/rt.h"
#include "util/util.h"

static void make_shm_file(void)
{
    const char *id = getenv("UMP_JOB_ID"), *rank = getenv("UMP_JOB_RANK");
    if (!id || !rank || getenv("UMP_TEST_NO_SHM")) return;
    char path[128];
    snprintf(path, sizeof(path), "/dev/shm/ump-%s-test-%s", id, rank);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0) close(fd);
}

static int raw_bad_hello(void)
{
    const char *kvs = getenv("UMP_JOB_KVS");
    char host[64];
    snprintf(host, sizeof(host), "%s", kvs ? kvs : "");
    char *colon = strrchr(host, ':');
    if (!colon) return 1;
    *colon = '\0';
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        perror("connect");
        return 1;
    }
    /* A well-formed hello (see kvs_proto.h) with an all-zero secret. */
    unsigned char m[4 + 1 + 4 + 4 + 16 + 4 + 4] = {0,    0,    0, 33, 1, 0x55, 0x4d,
                                                   0x50, 0x4b, 0, 0,  0, 1};
    if (write(fd, m, sizeof(m)) != (ssize_t)sizeof(m)) return 1;
    /* The server answers REFUSED and closes: read until EOF (bounded). */
    char buf[256];
    size_t total = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 5000) != 1) {
            fprintf(stderr, "noauth: server did not close the connection\n");
            return 1;
        }
        ssize_t r = read(fd, buf + total, sizeof(buf) - total);
        if (r <= 0) break;
        total += (size_t)r;
    }
    close(fd);
    if (total < 5 || (unsigned char)buf[4] != 0x82) {
        fprintf(stderr, "noauth: expected a REFUSED frame, got %zu bytes\n", total);
        return 1;
    }
    printf("noauth: refused as expected\n");
    return 0;
}

static void wait_forever(const char *how, ump_rt_t *rt)
{
    if (!strcmp(how, "fence")) {
        int rc = ump_rt_fence(rt);
        /* Only reached if umprun closed our connection before killing us. */
        fprintf(stderr, "fence returned %s\n", ump_strerror(rc));
        sleep(30);
        exit(5);
    }
    if (!strcmp(how, "stubborn")) { /* only SIGKILL ends this one */
        signal(SIGTERM, SIG_IGN);
        how = "spin";
    }
    if (!strcmp(how, "spin")) {
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    if (!strcmp(how, "sleep")) {
        sleep(100);
        exit(6);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *mode = argv[1];
    ump_rt_t *rt;
    int rc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    make_shm_file();

    if (!strcmp(mode, "badsecret")) {
        setenv("UMP_JOB_SECRET", "00112233445566778899aabbccddeeff", 1);
        rc = ump_rt_init(&rt);
        printf("badsecret: ump_rt_init returned %s\n", ump_status_name(rc));
        return rc == UMP_ERR_AUTH ? 0 : 1;
    }
    if (!strcmp(mode, "badenv") && argc > 2) {
        setenv(argv[2], "garbage", 1);
        rc = ump_rt_init(&rt);
        printf("badenv: ump_rt_init returned %s\n", ump_status_name(rc));
        return rc == UMP_ERR_BOOTSTRAP ? 0 : 1;
    }
    if (!strcmp(mode, "noauth") && raw_bad_hello()) return 1;
    if (!strcmp(mode, "cat") && getenv("UMP_JOB_RANK") && !strcmp(getenv("UMP_JOB_RANK"), "0")) {
        char buf[4096];
        ssize_t n;
        while ((n = read(0, buf, sizeof(buf))) > 0)
            fwrite(buf, 1, (size_t)n, stdout);
        fflush(stdout);
    }

    rc = ump_rt_init(&rt);
    if (rc) {
        fprintf(stderr, "ump_rt_init: %s\n", ump_strerror(rc));
        return 1;
    }
    int me = ump_rt_info(rt)->rank;
    if (argc >= 4) {
        int victim = atoi(argv[2]);
        const char *wait = argv[3];
        if (me == victim) {
            if (!strcmp(mode, "abort")) abort();
            if (!strcmp(mode, "kill9")) {
                usleep(300000); /* let the others reach the fence */
                raise(SIGKILL);
            }
            if (!strcmp(mode, "exit3")) exit(3);
            if (!strcmp(mode, "exit0")) exit(0);
            if (!strcmp(mode, "rtabort")) ump_rt_abort(rt, 7, "custom abort message from the test");
            if (!strcmp(mode, "none")) /* keeps the others' fence from completing */
                wait_forever("sleep", rt);
        }
        wait_forever(wait, rt);
    }
    rc = ump_rt_fence(rt);
    if (rc) {
        fprintf(stderr, "fence: %s\n", ump_strerror(rc));
        return 1;
    }
    printf("rank %d done\n", me);
    ump_rt_fini(rt);
    return 0;
}
