/* wl_sort_runs.c - external merge sort of keyed lines (see wl_sort_runs.h).
 * A run file holds "KEY\tLINE\n" with KEY in C99 hex-float notation, so the
 * key read back is bit-identical. The merge scans the heads of all runs for
 * the smallest key (runs are few: lines / max_lines); ties go to the earlier
 * run, which holds earlier-added lines, so the sort is stable.
 * SPDX-License-Identifier: MIT */
#include "wl_sort_runs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kline {
    double key;
    size_t seq;
    char *line;
} kline;

typedef struct run {
    FILE *f;
    char *buf; /* the current head line, as read */
    size_t cap;
    double key;
    const char *line; /* into buf, or the in-memory line */
    bool live;
} run;

struct wl_runs {
    size_t max, n, seq;
    kline *mem;
    FILE **files;
    int nfiles;
};

wl_runs *wl_runs_new(size_t max_lines)
{
    wl_runs *r = xcalloc(1, sizeof *r);
    r->max = max_lines ? max_lines : 1;
    r->mem = xmalloc(r->max * sizeof *r->mem);
    return r;
}

static int by_key(const void *pa, const void *pb)
{
    const kline *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void free_mem(wl_runs *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->mem[i].line);
    r->n = 0;
}

static int spill(wl_runs *r, gs_error *err)
{
    qsort(r->mem, r->n, sizeof *r->mem, by_key);
    FILE *f = tmpfile();
    if (!f)
        return gs_err(err, GS_EWRITE, "cannot create a temporary file to sort: %s", strerror(errno));
    for (size_t i = 0; i < r->n; i++)
        fprintf(f, "%a\t%s\n", r->mem[i].key, r->mem[i].line);
    free_mem(r);
    if (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return gs_err(err, GS_EWRITE, "cannot write a temporary file to sort: %s", strerror(errno));
    }
    r->files = xrealloc(r->files, (size_t)(r->nfiles + 1) * sizeof *r->files);
    r->files[r->nfiles++] = f;
    return 0;
}

int wl_runs_add(wl_runs *r, double key, const char *line, gs_error *err)
{
    if (r->n == r->max) {
        int rc = spill(r, err);
        if (rc)
            return rc;
    }
    r->mem[r->n++] = (kline){key, r->seq++, xstrdup(line)};
    return 0;
}

static void advance_file(run *u)
{
    ssize_t n = getline(&u->buf, &u->cap, u->f);
    if (n <= 0) {
        u->live = false;
        return;
    }
    if (u->buf[n - 1] == '\n')
        u->buf[n - 1] = 0;
    char *tab = strchr(u->buf, '\t');
    if (!tab)
        GS_BUG("wl_runs: a run line without its key");
    *tab = 0;
    u->key = strtod(u->buf, NULL);
    u->line = tab + 1;
}

int wl_runs_merge(wl_runs *r, int (*emit)(void *ud, double key, const char *line), void *ud, gs_error *err)
{
    (void)err;
    qsort(r->mem, r->n, sizeof *r->mem, by_key);
    int k = r->nfiles + 1, rc = 0;
    run *u = xcalloc((size_t)k, sizeof *u);
    size_t mi = 0;
    for (int i = 0; i < r->nfiles; i++) {
        u[i].f = r->files[i];
        u[i].live = true;
        advance_file(&u[i]);
    }
    for (;;) {
        int best = -1; /* the in-memory batch is the last run: its lines were added last */
        for (int i = 0; i < r->nfiles; i++)
            if (u[i].live && (best < 0 || u[i].key < u[best].key))
                best = i;
        if (mi < r->n && (best < 0 || r->mem[mi].key < u[best].key)) {
            rc = emit(ud, r->mem[mi].key, r->mem[mi].line);
            mi++;
        } else if (best >= 0) {
            rc = emit(ud, u[best].key, u[best].line);
            advance_file(&u[best]);
        } else {
            break;
        }
        if (rc)
            break;
    }
    for (int i = 0; i < r->nfiles; i++)
        free(u[i].buf);
    free(u);
    return rc;
}

int wl_runs_spilled(const wl_runs *r) { return r->nfiles; }

void wl_runs_free(wl_runs *r)
{
    if (!r)
        return;
    free_mem(r);
    free(r->mem);
    for (int i = 0; i < r->nfiles; i++)
        fclose(r->files[i]);
    free(r->files);
    free(r);
}
