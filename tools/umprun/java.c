/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Java ranks: `umprun -n 4 java App` works with no flags. When the program
 * is `java` and CLASSPATH is unset, a local rank gets CLASSPATH=<ump.jar>:.
 * with the jar found from umprun's own location: build/lib/ump.jar from
 * build/bin, or PREFIX/lib/ump.jar / PREFIX/share/java/ump.jar when
 * installed. The jar's MPI class finds libump_java.so beside itself.
 * Remote ranks get nothing added: pass -x CLASSPATH (docs/java.md).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umprun.h"

void java_classpath(const char *prog)
{
    const char *base = strrchr(prog, '/');
    base = base ? base + 1 : prog;
    if (strcmp(base, "java") != 0 || getenv("CLASSPATH")) return;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return;
    *slash = '\0'; /* the bin directory */
    static const char *const where[] = {"../lib/ump.jar", "../share/java/ump.jar"};
    for (size_t i = 0; i < sizeof(where) / sizeof(*where); i++) {
        char jar[PATH_MAX + 32], cp[PATH_MAX + 40];
        snprintf(jar, sizeof(jar), "%s/%s", self, where[i]);
        if (access(jar, R_OK) != 0) continue;
        char *real = realpath(jar, NULL);
        snprintf(cp, sizeof(cp), "%s:.", real ? real : jar);
        free(real);
        setenv("CLASSPATH", cp, 1);
        return;
    }
}
