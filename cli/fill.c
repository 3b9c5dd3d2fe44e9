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

#include "../base/gs_rng.h"

double fill_req_gpus(const fill_row *r)
{
    double pct = r->gpucores > 0 ? r->gpucores : r->gpumem_pct > 0 ? r->gpumem_pct : 100;
    return r->gpus * pct / 100.0;
}

static int by_id(const void *pa, const void *pb)
{
    const fill_row *a = pa, *b = pb;
    int c = strcmp(a->id, b->id);
    return c ? c : (a->line < b->line ? -1 : a->line > b->line);
}

#define ID_BLOCK_BYTES 65536u

/* A copy of id in the list's id blocks (ids are at most WL_ID_MAX bytes). */
static const char *keep_id(fill_rows *l, const char *id)
{
    size_t len = strlen(id) + 1;
    if (l->block_left < len) {
        if ((l->nblocks & (l->nblocks - 1)) == 0) /* 0, 1, 2, 4, ...: room doubles */
            l->id_blocks = xrealloc(l->id_blocks, (l->nblocks ? 2 * l->nblocks : 1) * sizeof *l->id_blocks);
        l->id_blocks[l->nblocks++] = xmalloc(ID_BLOCK_BYTES);
        l->block_left = ID_BLOCK_BYTES;
    }
    char *p = l->id_blocks[l->nblocks - 1] + (ID_BLOCK_BYTES - l->block_left);
    memcpy(p, id, len);
    l->block_left -= len;
    return p;
}

static void keep_row(fill_rows *l, fill_row *f, const wl_row *r)
{
    memset(f, 0, sizeof *f);
    f->id = keep_id(l, r->id);
    f->tenant = sim_str_intern(&l->names, r->tenant);
    f->mig = sim_str_intern(&l->names, r->mig);
    f->gpu_model = sim_str_intern(&l->names, r->gpu_model);
    f->line = r->line;
    f->submit_us = r->submit_us;
    f->dur_us = r->dur_us;
    f->gpumem_mib = r->gpumem_mib;
    f->cpu = r->cpu;
    f->mem_gib = r->mem_gib;
    f->util = r->util;
    f->gpus = r->gpus;
    f->priority = r->priority;
    f->gpu_model_col = r->gpu_model_col;
    f->gpucores = (uint8_t)r->gpucores;     /* the reader checks 0..100 */
    f->gpumem_pct = (uint8_t)r->gpumem_pct; /* the reader checks 0..100 */
    f->preemptible = r->preemptible != 0;
    if (r->checkpoint_gib >= 0 || r->params_b >= 0 || r->mem_bound >= 0 || r->ref_gpu[0] || r->speedup[0]) {
        fill_rare *x = xmalloc(sizeof *x);
        *x = (fill_rare){r->checkpoint_gib, r->params_b, r->mem_bound, sim_str_intern(&l->names, r->ref_gpu),
                         sim_str_intern(&l->names, r->speedup), r->ref_gpu_col, r->speedup_col};
        f->rare = x;
    }
}

/* The row sim_submit_row takes, from what fill mode kept: every column the
 * run reads as the reader gave it; the rest "not given" as the reader
 * leaves it. */
static void row_of(wl_row *r, const fill_row *f)
{
    r->line = f->line;
    r->kind = WL_KIND_JOB;
    snprintf(r->id, sizeof r->id, "%s", f->id);
    snprintf(r->tenant, sizeof r->tenant, "%s", f->tenant);
    snprintf(r->mig, sizeof r->mig, "%s", f->mig);
    snprintf(r->gpu_model, sizeof r->gpu_model, "%s", f->gpu_model);
    r->gpu_model_col = f->gpu_model_col;
    r->submit_us = f->submit_us;
    r->dur_us = f->dur_us;
    r->gpumem_mib = f->gpumem_mib;
    r->cpu = f->cpu;
    r->mem_gib = f->mem_gib;
    r->util = f->util;
    r->gpus = f->gpus;
    r->priority = f->priority;
    r->gpucores = f->gpucores;
    r->gpumem_pct = f->gpumem_pct;
    r->preemptible = f->preemptible;
    const fill_rare *x = f->rare;
    r->checkpoint_gib = x ? x->checkpoint_gib : -1;
    r->params_b = x ? x->params_b : -1;
    r->mem_bound = x ? x->mem_bound : -1;
    snprintf(r->ref_gpu, sizeof r->ref_gpu, "%s", x ? x->ref_gpu : "");
    snprintf(r->speedup, sizeof r->speedup, "%s", x ? x->speedup : "");
    r->ref_gpu_col = x ? x->ref_gpu_col : 0;
    r->speedup_col = x ? x->speedup_col : 0;
}

int fill_rows_load(const char *path, bool allow_extra_columns, fill_rows *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    sim_strtab_init(&out->names);
    wl_opts o = {.allow_extra_columns = allow_extra_columns};
    wl_trace *tr = wl_trace_open(path, &o, err);
    if (!tr)
        return GS_EINPUT;
    size_t cap = 0;
    const wl_row *r;
    int got;
    while ((got = wl_trace_next(tr, &r, err)) > 0) {
        if (r->kind != WL_KIND_JOB) {
            out->other++;
            continue;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 1024;
            out->row = xrealloc(out->row, cap * sizeof *out->row);
        }
        keep_row(out, &out->row[out->n++], r);
    }
    wl_trace_close(tr);
    if (got < 0) {
        fill_rows_free(out);
        return GS_EINPUT;
    }
    qsort(out->row, out->n, sizeof *out->row, by_id); /* the protocol shuffles the list sorted by name */
    return 0;
}

void fill_rows_free(fill_rows *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((void *)l->row[i].rare); /* ours: allocated by keep_row */
    free(l->row);
    for (size_t i = 0; i < l->nblocks; i++)
        free(l->id_blocks[i]);
    free(l->id_blocks);
    sim_strtab_free(&l->names);
    memset(l, 0, sizeof *l);
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

int fill_run(sim *s, const fill_rows *rows, double fill_to, fill_result *res, gs_error *err)
{
    size_t n = rows->n;
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
    gsl_rng *rng = gs_rng_new(sim_seed(s), RNG_FILL);
    wl_row *row = xmalloc(sizeof *row); /* the row handed to the run, rebuilt for each task */
    wl_row_init(row);
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
        const fill_row *r = i < n ? &rows->row[order[i]] : &rows->row[gsl_rng_uniform_int(rng, (unsigned long)n)];
        double req = fill_req_gpus(r);
        if (arrived + req > target + 1e-9) {
            at_target = true;
            break;
        }
        if (i >= n && req <= 0 && arrived >= target - 1e-9)
            break; /* only CPU tasks could still come: the GPU target is reached */
        if (i > 64 * n + 1000000)
            break; /* a list of CPU-only rows never reaches a GPU target */
        row_of(row, r);
        int st = sim_submit_row(s, row);
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
    free(row);
    gs_rng_free(rng);
    return rc;
}
