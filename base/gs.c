/* gs.c - error slot, abort-on-OOM allocation, small string helpers.
 * SPDX-License-Identifier: MIT */
#include "gs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gs_err(gs_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

static void oom(size_t n)
{
    fprintf(stderr, "gpusim: fatal: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *xcalloc_lines(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        oom(SIZE_MAX);
    size_t bytes = (n * size + 63) / 64 * 64; /* aligned_alloc asks a multiple of the alignment */
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p)
        oom(bytes);
    memset(p, 0, bytes ? bytes : 64);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void gs_zero(void *p, size_t n) { memset(p, 0, n); }

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void gs_bug(const char *file, int line, const char *msg)
{
    fprintf(stderr, "gpusim: BUG at %s:%d: %s\n", file, line, msg);
    abort();
}

bool gs_streq_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

bool gs_names_entry(const char *name, char *const *aliases, int n, const char *q)
{
    if (gs_streq_ci(name, q))
        return true;
    for (int k = 0; k < n; k++)
        if (gs_streq_ci(aliases[k], q))
            return true;
    return false;
}

bool gs_exe_relative(char *buf, size_t n, const char *rel)
{
    char exe[512];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l <= 0)
        return false;
    exe[l] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = 0;
    /* Where the data lies relative to the binary: beside it (./gpusim in a
     * checkout), installed (PREFIX/bin/gpusim with PREFIX/share/gpusim, see
     * `make install`), or two levels up (the sanitized build/test/gpusim). */
    static const char *const roots[] = {"", "../share/gpusim/", "../../"};
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        snprintf(buf, n, "%s/%s%s", exe, roots[i], rel);
        if (access(buf, F_OK) == 0)
            return true;
    }
    return false;
}
