/* replay.c - runs a fuzz harness over every file of the given corpus
 * directories (or files), in name order, through the normal sanitized
 * build: the inputs that ever failed keep being tried by `make test`, with
 * no clang and no libFuzzer. Prints one line per input, then
 * "N passed, N failed"; a crash or a sanitizer report ends the process
 * (the caller reads that as a failure, naming the last input started).
 * SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0, r;
    unsigned char *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += r) == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    if (!buf)
        return 1;
    fprintf(stderr, "replay: %s\n", path); /* the last one named is the culprit of a crash */
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int pass = 0, fail = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            fprintf(stderr, "replay: no such corpus '%s'\n", argv[a]);
            fail++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            run_file(argv[a]) ? fail++ : pass++;
            continue;
        }
        DIR *d = opendir(argv[a]);
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
                continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            names[nn++] = strdup(e->d_name);
        }
        if (d)
            closedir(d);
        if (nn)
            qsort(names, nn, sizeof *names, cmp);
        for (size_t i = 0; i < nn; i++) {
            char p[1200];
            snprintf(p, sizeof p, "%s/%s", argv[a], names[i]);
            run_file(p) ? fail++ : pass++;
            free(names[i]);
        }
        free(names);
    }
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
