/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --secret-file FILE: the job secret kept in a file, so that jobs started
 * separately with the same file can meet through ports (MPI_Comm_accept /
 * connect: both ends prove they know the secret). The file holds the
 * secret as hex digits; umprun creates it (mode 0600, a fresh secret) when
 * it does not exist, and refuses one that others may read or that is not
 * the user's own, since whoever reads it can join the job.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umprun.h"
#include "util/util.h"

static int read_secret(const char *path, uint8_t *secret)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    char buf[2 * UMP_RT_SECRET_LEN + 2];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() && !(st.st_mode & 077))
        n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n < 0) {
        fprintf(stderr,
                "umprun: --secret-file %s: must be a regular file of yours that only you can "
                "read (chmod 600 %s)\n",
                path, path);
        return -EPERM;
    }
    /* A job creating it right now may not have written it yet. */
    if (n < 2 * UMP_RT_SECRET_LEN) return -EAGAIN;
    buf[2 * UMP_RT_SECRET_LEN] = '\0';
    if ((n > 2 * UMP_RT_SECRET_LEN && buf[2 * UMP_RT_SECRET_LEN] != '\n' &&
         buf[2 * UMP_RT_SECRET_LEN] != '\0') ||
        ump_hex_decode(buf, secret, UMP_RT_SECRET_LEN)) {
        fprintf(stderr, "umprun: --secret-file %s: not %d hex digits\n", path,
                2 * UMP_RT_SECRET_LEN);
        return -EINVAL;
    }
    return 0;
}

int secret_load(const char *path, uint8_t *secret)
{
    for (int tries = 0; tries < 100; tries++) {
        int rc = read_secret(path, secret);
        if (rc == 0) return 0;
        if (rc == -EAGAIN) {
            usleep(10000);
            continue;
        }
        if (rc != -ENOENT) return -1;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) continue; /* another job made it first */
        if (fd < 0) {
            fprintf(stderr, "umprun: --secret-file %s: cannot create it: %s\n", path,
                    strerror(errno));
            return -1;
        }
        char hex[2 * UMP_RT_SECRET_LEN + 2];
        if (ump_random_bytes(secret, UMP_RT_SECRET_LEN)) {
            close(fd);
            unlink(path);
            fprintf(stderr, "umprun: no random bytes: %s\n", strerror(errno));
            return -1;
        }
        ump_hex_encode(secret, UMP_RT_SECRET_LEN, hex);
        strcat(hex, "\n");
        ssize_t w = write(fd, hex, strlen(hex));
        if (close(fd) || w != (ssize_t)strlen(hex)) {
            fprintf(stderr, "umprun: --secret-file %s: cannot write it\n", path);
            unlink(path);
            return -1;
        }
        return 0;
    }
    fprintf(stderr, "umprun: --secret-file %s: it stays empty or short\n", path);
    return -1;
}
