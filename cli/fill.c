/* fill.c - the fill-up experiment (see fill.h).
 *
 * Cost: O(n log n) to sort the rows once; per task, one placement by the
 * policy (its own cost, e.g. one scan of the nodes) plus O(1) here; the
 * fragmentation is read from the policy's running sum at each whole percent.
 * SPDX-License-Identifier: MIT */
#include "fill.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sim_rng.h"

double fill_req_gpus(const wl_row *r)
{
    double pct = r->gpucores > 0 ? r->gpucores : r->gpumem_pct > 0 ? r->gpumem_pct : 100;
    return r->gpus * pct / 100.0;
}

static int by_id(const void *pa, const void *pb)
{
    const wl_row *a = pa, *b = pb;
    int c = strcmp(a->id, b->id);
    return c ? c : (a->line < b->line ? -1 : a->line > b->line);
}

int fill_rows_load(const char *path, bool allow_extra_columns, wl_row **rows, size_t *n, long *other,
                   gs_error *err)
{
    wl_opts o = {.allow_extra_columns = allow_extra_columns};
    wl_trace *tr = wl_trace_open(path, &o, err);
    *rows = NULL;
    *n = 0;
    *other = 0;
    if (!tr)
        return GS_EINPUT;
    size_t cap = 0;
    wl_row r;
    int got;
    while ((got = wl_trace_next(tr, &r, err)) > 0) {
        if (r.kind != WL_KIND_JOB) {
            (*other)++;
            continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            *rows = xrealloc(*rows, cap * sizeof **rows);
        }
        (*rows)[(*n)++] = r;
    }
    wl_trace_close(tr);
    if (got < 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
        return GS_EINPUT;
    }
    qsort(*rows, *n, sizeof **rows, by_id); /* the protocol shuffles the list sorted by name */
    return 0;
}

void fill_result_free(fill_result *res)
{
    free(res->alloc_pct);
    free(res->frag_pct);
    free(res->frag_idle_pct);
    free(res->held_pct);
    memset(res, 0, sizeof *res);
}

static void sample(const sim *s, fill_result *res, int p, double alloc_gpus)
{
    double cap = sim_cluster_of(s)->ngpus, frag = sim_frag_gpus(s);
    res->alloc_pct[p] = 100.0 * alloc_gpus / cap;
    res->held_pct[p] = 100.0 * sim_alloc_gpus(s) / cap;
    res->frag_pct[p] = frag >= 0 ? 100.0 * frag / cap : NAN;
    res->frag_idle_pct[p] = frag >= 0 && cap - alloc_gpus > 1e-9 ? 100.0 * frag / (cap - alloc_gpus) : NAN;
}

int fill_run(sim *s, const wl_row *rows, size_t n, double fill_to, fill_result *res, gs_error *err)
{
    memset(res, 0, sizeof *res);
    double cap = sim_cluster_of(s)->ngpus, target = fill_to * cap;
    res->npts = (int)floor(fill_to * 100 + 1e-9) + 1;
    res->alloc_pct = xmalloc((size_t)res->npts * sizeof *res->alloc_pct);
    res->frag_pct = xmalloc((size_t)res->npts * sizeof *res->frag_pct);
    res->frag_idle_pct = xmalloc((size_t)res->npts * sizeof *res->frag_idle_pct);
    res->held_pct = xmalloc((size_t)res->npts * sizeof *res->held_pct);
    for (int p = 0; p < res->npts; p++)
        res->alloc_pct[p] = res->frag_pct[p] = res->frag_idle_pct[p] = res->held_pct[p] = NAN;
    if (n == 0 || cap <= 0)
        return 0;
    gsl_rng *rng = sim_rng_new(sim_seed(s), RNG_FILL);
    size_t *order = xmalloc(n * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        size_t k = (size_t)gsl_rng_uniform_int(rng, (unsigned long)(i + 1));
        size_t x = order[i];
        order[i] = order[k];
        order[k] = x;
    }
    double arrived = 0, alloc = 0;
    int next_p = 0, rc = 0;
    bool at_target = false;
    sample(s, res, next_p++, 0);
    /* the shuffled originals first (pruned where the total would pass the
     * target), then draws with replacement until the next one would */
    for (size_t i = 0;; i++) {
        const wl_row *r = i < n ? &rows[order[i]] : &rows[gsl_rng_uniform_int(rng, (unsigned long)n)];
        double req = fill_req_gpus(r);
        if (arrived + req > target + 1e-9) {
            at_target = true;
            break;
        }
        if (i >= n && req <= 0 && arrived >= target - 1e-9)
            break; /* only CPU tasks could still come: the GPU target is reached */
        if (i > 64 * n + 1000000)
            break; /* a list of CPU-only rows never reaches a GPU target */
        int st = sim_submit_row(s, r);
        if (st < 0) {
            *err = *sim_error(s);
            rc = GS_EINPUT;
            break;
        }
        res->tasks++;
        arrived += req;
        if (st == JOB_RUNNING) {
            res->placed++;
            alloc += req;
        } else {
            res->failed++;
        }
        while (next_p < res->npts && next_p <= arrived / cap * 100.0 + 1e-9)
            sample(s, res, next_p++, alloc);
    }
    /* The sequence stops where the next task would pass the target, a
     * little short of it: the points within that last percent (the target
     * itself) take the final state, since nothing more arrives. */
    while (rc == 0 && at_target && next_p < res->npts && next_p < arrived / cap * 100.0 + 1.0)
        sample(s, res, next_p++, alloc);
    res->arrived_pct_end = 100.0 * arrived / cap;
    res->alloc_pct_end = 100.0 * alloc / cap;
    double frag = sim_frag_gpus(s);
    res->frag_pct_end = frag >= 0 ? 100.0 * frag / cap : NAN;
    free(order);
    sim_rng_free(rng);
    return rc;
}
