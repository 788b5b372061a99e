/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * replay.c - runs a fuzz harness over saved inputs without libFuzzer:
 * every file named, and every file in every directory named. This is how
 * the seed corpus and the inputs of crashes once found (tests/fuzz/regress)
 * run as ordinary tests with the project's own compiler.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) return -1;
    /* An exact-size copy, so a read past the end is one ASan can see. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st)) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]) != 0;
            files++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, alphasort);
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
            if (names[k]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
                bad += run_file(path) != 0;
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replay: %d inputs run, %d unreadable\n", files, bad);
    /* An empty corpus proves nothing: fail rather than pass vacuously. */
    return files == 0 || bad ? 1 : 0;
}
