/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

int ump_log_level = UMP_LOG_WARN;
static int log_rank = -1;
static char log_host[64];

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

UMP_CFG_ENUM_(ump_cfg_log, "UMP_LOG", "warn", "error|warn|info|debug|trace",
              "log level: messages at or above it are written to stderr");

void ump_log_set_rank(int rank)
{
    log_rank = rank;
}

void ump_log_write(int level, const char *file, int line, const char *fmt, ...)
{
    int saved = errno; /* so "%m" in fmt still names the caller's error */
    char msg[1024];
    va_list ap;

    if (!log_host[0] && gethostname(log_host, sizeof(log_host) - 1) != 0) strcpy(log_host, "?");
    errno = saved;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (level < 0 || level > UMP_LOG_TRACE) level = UMP_LOG_ERROR;
    /* One write per line so lines of concurrent ranks do not interleave. */
    if (ump_log_level >= UMP_LOG_DEBUG)
        fprintf(stderr, "[ump %s:%d rank %d] %s: %s (%s:%d)\n", log_host, (int)getpid(), log_rank,
                level_names[level], msg, file, line);
    else
        fprintf(stderr, "[ump %s:%d rank %d] %s: %s\n", log_host, (int)getpid(), log_rank,
                level_names[level], msg);
    errno = saved;
}
