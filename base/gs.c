/* gs.c - error slot, abort-on-OOM allocation, small string helpers.
 * SPDX-License-Identifier: MIT */
#include "gs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

void *gs_huge_calloc(size_t bytes)
{
    if (bytes == 0 || bytes % GS_HUGE_PAGE)
        gs_bug(__FILE__, __LINE__, "gs_huge_calloc: not a whole number of huge pages");
    size_t span = bytes + GS_HUGE_PAGE; /* room to start on a boundary, the rest handed back */
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        oom(span);
    char *p = (char *)(((uintptr_t)m + GS_HUGE_PAGE - 1) & ~(uintptr_t)(GS_HUGE_PAGE - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + span > p + bytes)
        munmap(p + bytes, (size_t)(m + span - (p + bytes)));
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

void gs_huge_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

void *gs_arena_take(gs_arena *a, size_t bytes)
{
    if (bytes == 0 || bytes > GS_HUGE_PAGE || bytes % 64)
        gs_bug(__FILE__, __LINE__, "gs_arena_take: a chunk of 64-byte lines within a huge page");
    if (a->nblocks == 0 || a->used + bytes > GS_HUGE_PAGE) {
        a->blocks = xrealloc(a->blocks, (a->nblocks + 1) * sizeof *a->blocks);
        a->blocks[a->nblocks++] = gs_huge_calloc(GS_HUGE_PAGE);
        a->used = 0;
    }
    void *p = a->blocks[a->nblocks - 1] + a->used;
    a->used += bytes;
    return p;
}

void gs_arena_free(gs_arena *a)
{
    for (size_t i = 0; i < a->nblocks; i++)
        gs_huge_free(a->blocks[i], GS_HUGE_PAGE);
    free(a->blocks);
    a->blocks = NULL;
    a->nblocks = a->used = 0;
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
