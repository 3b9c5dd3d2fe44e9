/* cli_fill.c - `gpusim run --mode fill`: the fill-up experiment over one or
 * more seeds (fill.h), averaged per whole percent of arrived workload.
 * Writes DIR/report.json ("fill" object) and DIR/fill.csv, atomically.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/gs_file.h"
#include "../base/gs_json.h"
#include "../base/gs_outdir.h"
#include "cli.h"
#include "../sim/sim_cluster_file.h"
#include "fill.h"
#include "../sim/sim_report.h"

int cli_load_cluster(sim_cluster *cl, const cli_cluster_src *src, const gpu_catalog *cat, gs_error *err)
{
    if (src->gpus_spec)
        return sim_cluster_from_spec(cl, src->gpus_spec, src->gpus_per_node, cat, err);
    char cpath[512];
    if (!src->path)
        cli_shipped_path(cpath, sizeof cpath, "workloads/examples/cluster.json");
    return sim_cluster_load(cl, src->path ? src->path : cpath, cat, err);
}

/* The value given with --set key=..., or NULL. */
static const char *set_value(const sim_config *cfg, const char *key)
{
    for (int i = 0; i < cfg->nsets; i++)
        if (!strcmp(cfg->sets[i].key, key))
            return cfg->sets[i].value;
    return NULL;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Running mean and standard deviation over seeds, per point. */
typedef struct acc {
    double sum, sq;
    int n;
} acc;

static void acc_add(acc *a, double v)
{
    if (isnan(v))
        return;
    a->sum += v;
    a->sq += v * v;
    a->n++;
}
static double acc_mean(const acc *a) { return a->n ? a->sum / a->n : NAN; }
static double acc_sd(const acc *a)
{
    if (a->n < 2)
        return 0;
    double m = a->sum / a->n, v = (a->sq - a->n * m * m) / (a->n - 1);
    return v > 0 ? sqrt(v) : 0;
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
}

/* "%.4f" or empty for NaN, for the CSV */
static void csv_num(FILE *f, double v, bool last)
{
    if (!isnan(v))
        fprintf(f, "%.4f", v);
    fputc(last ? '\n' : ',', f);
}

/* What the seeds of a fill run add up: per point of the curve and per run. */
typedef struct fill_sum {
    int nseeds, npts;
    acc *a_alloc, *a_frag, *a_idle, *a_held;
    acc tasks, placed, failed, arr_end, alloc_end, frag_end;
    double place_s, cap;
} fill_sum;

static void sum_add(fill_sum *fs, const fill_result *res)
{
    if (!fs->a_alloc) {
        fs->npts = res->npts;
        fs->a_alloc = xcalloc((size_t)fs->npts, sizeof *fs->a_alloc);
        fs->a_frag = xcalloc((size_t)fs->npts, sizeof *fs->a_frag);
        fs->a_idle = xcalloc((size_t)fs->npts, sizeof *fs->a_idle);
        fs->a_held = xcalloc((size_t)fs->npts, sizeof *fs->a_held);
    }
    for (int p = 0; p < fs->npts; p++) {
        acc_add(&fs->a_alloc[p], res->alloc_pct[p]);
        acc_add(&fs->a_frag[p], res->frag_pct[p]);
        acc_add(&fs->a_idle[p], res->frag_idle_pct[p]);
        acc_add(&fs->a_held[p], res->held_pct[p]);
    }
    acc_add(&fs->tasks, (double)res->tasks);
    acc_add(&fs->placed, (double)res->placed);
    acc_add(&fs->failed, (double)res->failed);
    acc_add(&fs->arr_end, res->arrived_pct_end);
    acc_add(&fs->alloc_end, res->alloc_pct_end);
    acc_add(&fs->frag_end, res->frag_pct_end);
}

/* One fill run per seed of fo, summed into fs; the first seed's inputs go to rep. */
static int run_seeds(sim_config *cfg, const gpu_catalog *cat, const cli_cluster_src *src, const cli_fill_opts *fo,
                     const fill_rows *rows, fill_sum *fs, cJSON *rep, gs_error *err)
{
    int rc = 0;
    for (int k = 0; k < fs->nseeds && rc == 0; k++) {
        cfg->seed = fo->seed_lo + (uint64_t)k;
        sim_cluster cl;
        if ((rc = cli_load_cluster(&cl, src, cat, err)) != 0)
            break;
        sim *s = sim_create();
        fill_result res = {0};
        if ((rc = sim_init(s, cfg, cat, &cl, NULL, err)) == 0) {
            double t0 = now_s();
            rc = fill_run(s, rows, fo->fill_to, &res, err);
            fs->place_s += now_s() - t0;
            if (k == 0) { /* the inputs of the first seed stand for all (the seed range is added below) */
                sim_report_add_inputs(rep, s);
                fs->cap = cl.ngpus;
            }
        }
        if (rc == 0)
            sum_add(fs, &res);
        fill_result_free(&res);
        sim_destroy(s);
        sim_cluster_free(&cl);
    }
    return rc;
}

/* The report's fill.curve and the same points as fill.csv (into *csv). */
static void add_curve(const fill_sum *fs, cJSON *f, char **csv, size_t *csv_len)
{
    cJSON *curve = cJSON_AddArrayToObject(f, "curve");
    FILE *m = open_memstream(csv, csv_len);
    fprintf(m, "arrived_pct,alloc_pct,alloc_pct_sd,unalloc_pct,frag_pct,frag_of_idle_pct,held_pct,seeds\n");
    for (int p = 0; p < fs->npts; p++) {
        double al = acc_mean(&fs->a_alloc[p]);
        cJSON *pt = cJSON_CreateObject();
        cJSON_AddNumberToObject(pt, "arrived_pct", p);
        add_num(pt, "alloc_pct", al);
        add_num(pt, "alloc_pct_sd", acc_sd(&fs->a_alloc[p]));
        add_num(pt, "frag_pct", acc_mean(&fs->a_frag[p]));
        add_num(pt, "frag_of_idle_pct", acc_mean(&fs->a_idle[p]));
        add_num(pt, "held_pct", acc_mean(&fs->a_held[p]));
        cJSON_AddNumberToObject(pt, "seeds", fs->a_alloc[p].n);
        cJSON_AddItemToArray(curve, pt);
        fprintf(m, "%d,", p);
        csv_num(m, al, false);
        csv_num(m, acc_sd(&fs->a_alloc[p]), false);
        csv_num(m, 100 - al, false);
        csv_num(m, acc_mean(&fs->a_frag[p]), false);
        csv_num(m, acc_mean(&fs->a_idle[p]), false);
        csv_num(m, acc_mean(&fs->a_held[p]), false);
        fprintf(m, "%d\n", fs->a_alloc[p].n);
    }
    fclose(m);
}

/* The report's inputs (seed range, rows), fill and sim sections. */
static void add_report(cJSON *rep, const fill_sum *fs, const cli_fill_opts *fo, size_t n, long other, char **csv,
                       size_t *csv_len)
{
    cJSON *in = cJSON_GetObjectItemCaseSensitive(rep, "inputs");
    cJSON_DeleteItemFromObjectCaseSensitive(in, "seed");
    cJSON *sd = cJSON_AddArrayToObject(in, "seeds");
    cJSON_AddItemToArray(sd, cJSON_CreateNumber((double)fo->seed_lo));
    cJSON_AddItemToArray(sd, cJSON_CreateNumber((double)fo->seed_hi));
    cJSON_AddNumberToObject(in, "fill_to", fo->fill_to);
    cJSON_AddNumberToObject(in, "trace_job_rows", (double)n);
    cJSON_AddNumberToObject(in, "trace_other_rows", (double)other);
    cJSON *f = cJSON_AddObjectToObject(rep, "fill");
    cJSON_AddNumberToObject(f, "seeds", fs->nseeds);
    cJSON_AddNumberToObject(f, "capacity_gpus", fs->cap);
    add_num(f, "tasks_mean", acc_mean(&fs->tasks));
    add_num(f, "placed_mean", acc_mean(&fs->placed));
    add_num(f, "failed_mean", acc_mean(&fs->failed));
    int p100 = fs->npts > 100 ? 100 : -1;
    add_num(f, "alloc_pct_at_100", p100 >= 0 ? acc_mean(&fs->a_alloc[p100]) : NAN);
    add_num(f, "alloc_pct_at_100_sd", p100 >= 0 ? acc_sd(&fs->a_alloc[p100]) : NAN);
    add_num(f, "frag_pct_at_100", p100 >= 0 ? acc_mean(&fs->a_frag[p100]) : NAN);
    add_num(f, "arrived_pct_end", acc_mean(&fs->arr_end));
    add_num(f, "alloc_pct_end", acc_mean(&fs->alloc_end));
    add_num(f, "alloc_pct_end_sd", acc_sd(&fs->alloc_end));
    add_num(f, "frag_pct_end", acc_mean(&fs->frag_end));
    add_curve(fs, f, csv, csv_len);
    cJSON *sm = cJSON_AddObjectToObject(rep, "sim");
    cJSON_AddNumberToObject(sm, "wall_s", fs->place_s);
    cJSON_AddNumberToObject(sm, "placements_per_s", fs->place_s > 0 ? fs->tasks.sum / fs->place_s : 0);
}

/* fill.csv and report.json in odir, in place as one unit (gs_outdir.h). */
static int write_outputs(const char *odir, const char *csv, size_t csv_len, const char *text, size_t tl,
                         gs_error *err)
{
    static const char *const owned[] = {"fill.csv", "report.json", NULL};
    char path[1300];
    gs_outdir od;
    int rc = gs_outdir_begin(&od, odir, owned, err);
    if (rc)
        return rc;
    gs_outdir_file(&od, "fill.csv", path, sizeof path);
    rc = gs_write_atomic(path, csv, csv_len, err);
    if (rc == 0) {
        gs_outdir_file(&od, "report.json", path, sizeof path);
        rc = gs_write_atomic(path, text, tl, err);
    }
    if (rc == 0)
        rc = gs_outdir_commit(&od, err);
    if (rc)
        gs_outdir_abort(&od);
    return rc;
}

/* The summary on stdout. */
static void print_summary(const sim_config *cfg, const cli_fill_opts *fo, const fill_sum *fs, const char *odir)
{
    const char *sel = set_value(cfg, "gpu_select");
    int p100 = fs->npts > 100 ? 100 : -1;
    printf("fill      policy %s%s%s, %d seed%s from %llu, fill to %.0f%% of %.0f GPUs\n", cfg->policy,
           sel ? " gpu_select=" : "", sel ? sel : "", fs->nseeds, fs->nseeds > 1 ? "s" : "",
           (unsigned long long)fo->seed_lo, 100 * fo->fill_to, fs->cap);
    printf("  tasks     %.1f per seed, placed %.1f, failed %.1f\n", acc_mean(&fs->tasks), acc_mean(&fs->placed),
           acc_mean(&fs->failed));
    if (p100 >= 0 && !isnan(acc_mean(&fs->a_frag[p100])))
        printf("  at 100%%   alloc %.2f%% (sd %.2f), frag %.2f%% of capacity\n", acc_mean(&fs->a_alloc[p100]),
               acc_sd(&fs->a_alloc[p100]), acc_mean(&fs->a_frag[p100]));
    else if (p100 >= 0)
        printf("  at 100%%   alloc %.2f%% (sd %.2f), held %.2f%% (fragmentation not measured by %s)\n",
               acc_mean(&fs->a_alloc[p100]), acc_sd(&fs->a_alloc[p100]), acc_mean(&fs->a_held[p100]), cfg->policy);
    printf("  at end    arrived %.2f%%, alloc %.2f%% (sd %.2f)", acc_mean(&fs->arr_end), acc_mean(&fs->alloc_end),
           acc_sd(&fs->alloc_end));
    if (!isnan(acc_mean(&fs->frag_end)))
        printf(", frag %.2f%%", acc_mean(&fs->frag_end));
    printf("\n");
    printf("  sim       %.0f placements in %.3f s (%.0f placements/s)\n", fs->tasks.sum, fs->place_s,
           fs->place_s > 0 ? fs->tasks.sum / fs->place_s : 0);
    printf("report: %s/report.json\ncurve: %s/fill.csv\n", odir, odir);
}

int cli_run_fill(sim_config *cfg, const gpu_catalog *cat, const cli_cluster_src *src, const char *odir,
                 const cli_fill_opts *fo, bool json)
{
    gs_error err = {0};
    fill_rows rows;
    int rc = fill_rows_load(cfg->trace_path, cfg->allow_extra_columns, &rows, &err);
    if (rc)
        return cli_fail(&err);
    fill_sum fs = {.nseeds = (int)(fo->seed_hi - fo->seed_lo + 1)};
    cfg->check_all_columns = true; /* the rows placed are fill_rows_load's, every column read */
    cJSON *rep = cJSON_CreateObject();
    cJSON_AddStringToObject(rep, "mode", "fill");
    rc = run_seeds(cfg, cat, src, fo, &rows, &fs, rep, &err);
    size_t n = rows.n;
    long other = rows.other;
    fill_rows_free(&rows);
    char *csv = NULL, *text = NULL;
    size_t csv_len = 0, tl = 0;
    if (rc == 0) {
        add_report(rep, &fs, fo, n, other, &csv, &csv_len);
        text = gs_json_print(rep, &tl);
        rc = write_outputs(odir, csv, csv_len, text, tl, &err);
    }
    if (rc == 0 && json)
        fputs(text, stdout);
    else if (rc == 0)
        print_summary(cfg, fo, &fs, odir);
    free(csv);
    free(text);
    free(fs.a_alloc);
    free(fs.a_frag);
    free(fs.a_idle);
    free(fs.a_held);
    cJSON_Delete(rep);
    return rc ? cli_fail(&err) : 0;
}
