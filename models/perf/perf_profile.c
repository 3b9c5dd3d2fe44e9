/* perf_profile.c - loading and reading measured serving profiles (see
 * perf_profile.h). The Splitwise table is plain CSV (no quoting); rows of
 * one (model, hardware, TP) are grouped, repeats reduced to their median.
 * SPDX-License-Identifier: MIT */
#include "perf_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the table's card names -> the catalog's (the power-capped H100 rows have
 * no model of their own and are left out) */
static const struct {
    const char *table, *model;
} hw_names[] = {{"a100-80gb", "A100-SXM4-80GB"}, {"h100-80gb", "H100-SXM5-80GB"}, {NULL, NULL}};

typedef struct raw {
    int entry;
    double px, pms, dx, dms; /* prefill x/ms, decode x/ms */
    int prompt, batch, out;
} raw;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Entry `entry`'s curve: for each distinct x among its rows (prefill: batch
 * prompt tokens; decode: sequences), the median of their times. The
 * Splitwise table has 105 rows per entry; rows past 4096 per entry, or x
 * values past PERF_MAX_POINTS, would be left out. */
static void build_curve(perf_curve *c, raw *rows, int nrows, int entry, bool prefill)
{
    double xs[4096], vals[4096];
    int nx = 0;
    for (int i = 0; i < nrows; i++)
        if (rows[i].entry == entry && nx < 4096)
            xs[nx++] = prefill ? rows[i].px : rows[i].dx;
    qsort(xs, (size_t)nx, sizeof *xs, cmp_double);
    c->n = 0;
    for (int i = 0; i < nx; i++) {
        if (i > 0 && xs[i] == xs[i - 1])
            continue;
        int nv = 0;
        for (int r = 0; r < nrows; r++)
            if (rows[r].entry == entry && (prefill ? rows[r].px : rows[r].dx) == xs[i] && nv < 4096)
                vals[nv++] = prefill ? rows[r].pms : rows[r].dms;
        double med = median(vals, nv);
        if (c->n < PERF_MAX_POINTS) {
            c->x[c->n] = xs[i];
            c->ms[c->n++] = med;
        }
    }
}

/* Entry `entry`'s measured points: one per distinct (prompt, batch, out),
 * the median of its repeats. O(rows^2) over a 1,260-row table, once. */
static void build_points(perf_entry *pe, const raw *rows, int nrows, int entry)
{
    double pv[64], dv[64];
    for (int i = 0; i < nrows; i++) {
        const raw *r = &rows[i];
        if (r->entry != entry)
            continue;
        bool seen = false;
        for (int k = 0; k < pe->npts && !seen; k++)
            seen = pe->pts[k].prompt == r->prompt && pe->pts[k].batch == r->batch && pe->pts[k].out == r->out;
        if (seen)
            continue;
        int nv = 0;
        for (int k = i; k < nrows && nv < 64; k++)
            if (rows[k].entry == entry && rows[k].prompt == r->prompt && rows[k].batch == r->batch && rows[k].out == r->out) {
                pv[nv] = rows[k].pms;
                dv[nv++] = rows[k].dms;
            }
        pe->pts = xrealloc(pe->pts, (size_t)(pe->npts + 1) * sizeof *pe->pts);
        pe->pts[pe->npts++] = (perf_point){r->prompt, r->batch, r->out, median(pv, nv), median(dv, nv)};
    }
}

static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

int perf_set_load(perf_set *ps, const char *dir, const gpu_catalog *cat, gs_error *err)
{
    memset(ps, 0, sizeof *ps);
    char path[1024];
    snprintf(path, sizeof path, "%s/splitwise/perf_model.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    raw *rows = NULL;
    int nrows = 0, cap = 0, cap_e = 0;
    long lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (lineno == 1 || !*line)
            continue; /* header */
        char *fl[16];
        char *end;
        if (split(line, fl, 16) != 11) {
            rc = gs_err(err, GS_EINPUT, "profile '%s' line %ld: expected 11 fields", path, lineno);
            break;
        }
        double prompt = strtod(fl[2], &end), batch = strtod(fl[3], NULL), pms = strtod(fl[7], NULL),
               dms = strtod(fl[8], NULL), tp = strtod(fl[10], NULL), out = strtod(fl[4], NULL);
        if (end == fl[2] || !(prompt > 0 && prompt <= 1e7 && batch > 0 && batch <= 1e6 && out >= 0 && out <= 1e7 &&
                              pms > 0 && dms > 0 && tp >= 1 && tp <= 64) ||
            strlen(fl[0]) >= 32 || strlen(fl[1]) >= 32) {
            rc = gs_err(err, GS_EINPUT, "profile '%s' line %ld: expected positive prompt_size, batch_size, "
                        "prompt_time, token_time and tensor_parallel 1..64", path, lineno);
            break;
        }
        const char *mname = NULL;
        for (int h = 0; hw_names[h].table; h++)
            if (!strcmp(fl[1], hw_names[h].table))
                mname = hw_names[h].model;
        if (!mname)
            continue;
        int e = 0;
        while (e < ps->n && !(!strcmp(ps->e[e].profile, fl[0]) && !strcmp(ps->e[e].hardware, fl[1]) &&
                              ps->e[e].tp == (int)tp))
            e++;
        if (e == ps->n) {
            if (ps->n == cap_e) {
                cap_e = cap_e ? 2 * cap_e : 16;
                ps->e = xrealloc(ps->e, (size_t)cap_e * sizeof *ps->e);
            }
            memset(&ps->e[e], 0, sizeof ps->e[e]);
            snprintf(ps->e[e].profile, sizeof ps->e[e].profile, "%s", fl[0]);
            snprintf(ps->e[e].hardware, sizeof ps->e[e].hardware, "%s", fl[1]);
            ps->e[e].tp = (int)tp;
            ps->e[e].model = gpu_catalog_find(cat, mname);
            ps->n++;
        }
        if (nrows == cap) {
            cap = cap ? 2 * cap : 1024;
            rows = xrealloc(rows, (size_t)cap * sizeof *rows);
        }
        /* prefill over the batch's prompt tokens; decode over its sequences */
        rows[nrows++] = (raw){e, prompt * batch, pms, batch, dms, (int)prompt, (int)batch, (int)out};
    }
    fclose(f);
    for (int e = 0; rc == 0 && e < ps->n; e++) {
        build_curve(&ps->e[e].prefill, rows, nrows, e, true);
        build_curve(&ps->e[e].decode, rows, nrows, e, false);
        build_points(&ps->e[e], rows, nrows, e);
    }
    free(rows);
    if (rc)
        perf_set_free(ps);
    return rc;
}

void perf_set_free(perf_set *ps)
{
    for (int i = 0; i < ps->n; i++)
        free(ps->e[i].pts);
    free(ps->e);
    ps->e = NULL;
    ps->n = 0;
}

const perf_entry *perf_find(const perf_set *ps, const char *profile, const gpu_model *m, int tp)
{
    for (int i = 0; i < ps->n; i++)
        if (ps->e[i].model == m && ps->e[i].tp == tp && gs_streq_ci(ps->e[i].profile, profile))
            return &ps->e[i];
    return NULL;
}

bool perf_known(const perf_set *ps, const char *profile)
{
    for (int i = 0; i < ps->n; i++)
        if (gs_streq_ci(ps->e[i].profile, profile))
            return true;
    return false;
}

double perf_eval(const perf_curve *c, double x)
{
    if (c->n == 0)
        return 0;
    if (c->n == 1)
        return c->ms[0];
    int i = 1;
    while (i < c->n - 1 && x > c->x[i])
        i++;
    double x0 = c->x[i - 1], x1 = c->x[i], y0 = c->ms[i - 1], y1 = c->ms[i];
    double y = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    double lo = c->ms[0];
    for (int k = 1; k < c->n; k++)
        if (c->ms[k] < lo)
            lo = c->ms[k];
    return y < lo / 4 ? lo / 4 : y;
}
