/* cli_sweep_collect.c - `sweep status` (done, failed with the first line of
 * each error, missing) and `sweep collect` (the finished runs merged into
 * the table and compare.json that `compare` makes, naming what is missing).
 *
 * Columns are the (trace, cluster, policy entry) triples in manifest order,
 * each over its seeds in manifest order: for one trace and one cluster that
 * is exactly `compare --policies ... --seeds N`, so the two print the same
 * table (the columns carry the policy labels alone). With several traces or
 * clusters a column's label adds those that vary: "whole (day1, h100x64)".
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_compare_table.h"
#include "cli_sweep.h"

static int read_manifest_arg(int argc, char **argv, const char *cmd, sw_manifest *m, gs_error *err)
{
    if (optind != argc - 1)
        return gs_err(err, GS_EUSAGE, "sweep %s: expected one MANIFEST", cmd);
    return sw_manifest_read(m, argv[optind], err);
}

int sw_cmd_status(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    gs_error err = {0};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'h') {
            printf("usage: gpusim sweep status MANIFEST\n\nCounts the runs done, failed (with the first line of "
                   "each error) and missing.\n");
            return 0;
        }
        gs_err(&err, GS_EUSAGE, "sweep status: unknown option '%s'", argv[optind - 1]);
        return cli_fail(&err);
    }
    sw_manifest m;
    if (read_manifest_arg(argc, argv, "status", &m, &err))
        return cli_fail(&err);
    bool *missing = xcalloc((size_t)m.n, sizeof *missing);
    int done = 0, failed = 0, nmiss = 0;
    char why[1024];
    for (int i = 0; i < m.n; i++) {
        sw_state st = sw_state_of(&m, i, why, sizeof why);
        if (st == SW_DONE)
            done++;
        else if (st == SW_FAILED)
            failed++;
        else
            missing[i] = true, nmiss++;
    }
    printf("sweep %s: %d runs: %d done, %d failed, %d missing\n", m.path, m.n, done, failed, nmiss);
    for (int i = 0; i < m.n; i++)
        if (sw_state_of(&m, i, why, sizeof why) == SW_FAILED)
            printf("failed [%d] %s seed %llu (%s, %s): %s\n", i, m.runs[i].label, (unsigned long long)m.runs[i].seed,
                   m.runs[i].trace_label, m.runs[i].cluster_label, why);
    if (nmiss) {
        char *list = sw_index_list(missing, m.n);
        printf("missing: %s\n", list);
        free(list);
    }
    free(missing);
    sw_manifest_free(&m);
    return 0;
}

static void collect_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim sweep collect MANIFEST [--out DIR] [--format text|markdown|csv|json]\n"
            "                            [--slo TERMS] [--metrics PATHS]\n"
            "\n"
            "Merges the finished runs into the table 'gpusim compare' prints (means and 95%% intervals over\n"
            "seeds) and DIR/compare.json (default: the manifest's directory; 'gpusim plot DIR' draws it).\n"
            "Runs not done are named on stderr and left out of the figures; the exit status is then 1.\n");
}

/* What collect gathers from a manifest: its columns ((trace, cluster, label)
 * in first-seen order: col_of[i] per line, first[c] the line that opened
 * column c), each line's report and directory grouped by column, the lines
 * not done. */
typedef struct collect {
    sw_manifest m;
    int ncols, nmiss;
    int *col_of, *first;
    bool many_traces, many_clusters;
    cJSON **reps;  /* by position in column order; NULL while not done */
    char **dirs;   /* likewise */
    bool *missing; /* by manifest line */
    cli_compare_table_column *cols;
    char **labels;
    long seeds; /* the most seeds of any column */
} collect;

/* The columns of the manifest's lines. O(lines x columns). */
static void collect_columns(collect *c)
{
    const sw_manifest *m = &c->m;
    c->col_of = xcalloc((size_t)m->n, sizeof *c->col_of);
    c->first = xcalloc((size_t)m->n, sizeof *c->first);
    for (int i = 0; i < m->n; i++) {
        const sw_run *r = &m->runs[i];
        c->many_traces |= strcmp(r->trace_label, m->runs[0].trace_label) != 0;
        c->many_clusters |= strcmp(r->cluster_label, m->runs[0].cluster_label) != 0;
        int k = 0;
        for (; k < c->ncols; k++) {
            const sw_run *f = &m->runs[c->first[k]];
            if (!strcmp(f->trace_label, r->trace_label) && !strcmp(f->cluster_label, r->cluster_label) &&
                !strcmp(f->label, r->label))
                break;
        }
        if (k == c->ncols)
            c->first[c->ncols++] = i;
        c->col_of[i] = k;
    }
}

/* A column's label: the policy label, with the trace and cluster that vary. */
static char *column_label(const collect *c, const sw_run *f)
{
    if (c->many_traces && c->many_clusters)
        return cli_batch_fmt("%s (%s, %s)", f->label, f->trace_label, f->cluster_label);
    if (c->many_traces)
        return cli_batch_fmt("%s (%s)", f->label, f->trace_label);
    if (c->many_clusters)
        return cli_batch_fmt("%s (%s)", f->label, f->cluster_label);
    return xstrdup(f->label);
}

/* Each column's reports, read from the runs done; the others are missing.
 * Returns 0, or the first read error's code (the rest are still listed). */
static int collect_reports(collect *c, gs_error *err)
{
    const sw_manifest *m = &c->m;
    c->reps = xcalloc((size_t)m->n, sizeof *c->reps);
    c->dirs = xcalloc((size_t)m->n, sizeof *c->dirs);
    c->cols = xcalloc((size_t)c->ncols, sizeof *c->cols);
    c->labels = xcalloc((size_t)c->ncols, sizeof *c->labels);
    c->missing = xcalloc((size_t)m->n, sizeof *c->missing);
    int rc = 0, at = 0;
    for (int k = 0; k < c->ncols; k++) {
        const sw_run *f = &m->runs[c->first[k]];
        c->labels[k] = column_label(c, f);
        c->cols[k] = (cli_compare_table_column){c->labels[k], f->policy, c->reps + at,
                                                (const char *const *)c->dirs + at, 0};
        for (int i = 0; i < m->n; i++) {
            if (c->col_of[i] != k)
                continue;
            char d[1300];
            sw_run_dir(m, i, d, sizeof d);
            c->dirs[at] = xstrdup(d);
            if (sw_state_of(m, i, NULL, 0) == SW_DONE) {
                c->reps[at] = cli_batch_read_report(d, err);
                if (!c->reps[at] && rc == 0)
                    rc = err->code;
            } else {
                c->missing[i] = true;
                c->nmiss++;
            }
            at++;
            c->cols[k].n++;
        }
        c->seeds = c->cols[k].n > c->seeds ? c->cols[k].n : c->seeds;
    }
    return rc;
}

static bool same_trace_cluster(const collect *c, int k1, int k2)
{
    const sw_run *a = &c->m.runs[c->first[k1]], *b = &c->m.runs[c->first[k2]];
    return !strcmp(a->trace_label, b->trace_label) && !strcmp(a->cluster_label, b->cluster_label);
}

/* Unit costs over one window, as compare bills them: the longest span among
 * the runs done of one trace on one cluster. */
static void collect_unit_costs(collect *c)
{
    for (int k = 0; k < c->ncols; k++) {
        bool seen = false;
        for (int d = 0; d < k; d++)
            seen |= same_trace_cluster(c, d, k);
        if (seen)
            continue;
        cli_batch_run *grp = xcalloc((size_t)c->m.n, sizeof *grp);
        int ng = 0;
        for (int d = k; d < c->ncols; d++)
            if (same_trace_cluster(c, d, k))
                for (int r = 0; r < c->cols[d].n; r++)
                    if (c->cols[d].reports[r])
                        grp[ng++].report = c->cols[d].reports[r];
        cli_batch_add_unit_costs(grp, ng);
        free(grp); /* the reports stay owned by reps[] */
    }
}

/* The table and compare.json (with the missing lines) into odir. */
static int collect_write(collect *c, const char *format, const cli_batch_slo *slo, int nslo,
                         const char *extra_paths, const char *odir, gs_error *err)
{
    const char *trace = c->many_traces ? "several traces" : c->m.runs[0].trace;
    cJSON *doc = cli_compare_table_build(trace, c->seeds, c->cols, c->ncols, slo, nslo, extra_paths);
    if (!doc)
        return gs_err(err, GS_EINPUT, "sweep collect: none of the %d runs of %s is done yet ('gpusim sweep status')",
                      c->m.n, c->m.path);
    cJSON *ma = cJSON_AddArrayToObject(doc, "missing");
    for (int i = 0; i < c->m.n; i++)
        if (c->missing[i])
            cJSON_AddItemToArray(ma, cJSON_CreateNumber(i));
    char *text = NULL;
    int rc = cli_compare_table_write(doc, odir, &text, err);
    if (rc == 0 && !strcmp(format, "json"))
        fputs(text, stdout);
    else if (rc == 0)
        cli_compare_table_print(doc, format, trace, c->seeds, odir);
    free(text);
    cJSON_Delete(doc);
    return rc;
}

/* The runs left out, on stderr: the first 20 by name, then every index. */
static void collect_warn_missing(const collect *c)
{
    const sw_manifest *m = &c->m;
    fprintf(stderr, "sweep collect: %d of %d runs not done, left out of the figures:", c->nmiss, m->n);
    int shown = 0;
    for (int i = 0; i < m->n; i++)
        if (c->missing[i] && shown++ < 20)
            fprintf(stderr, "%s [%d] %s seed %llu", shown > 1 ? "," : "", i, m->runs[i].label,
                    (unsigned long long)m->runs[i].seed);
    fprintf(stderr, "%s\n", shown > 20 ? ", ..." : "");
    char *list = sw_index_list(c->missing, m->n);
    fprintf(stderr, "missing: %s ('gpusim sweep submit' runs them)\n", list);
    free(list);
}

static void collect_free(collect *c)
{
    for (int i = 0; c->reps && i < c->m.n; i++)
        cJSON_Delete(c->reps[i]), free(c->dirs[i]);
    for (int k = 0; c->labels && k < c->ncols; k++)
        free(c->labels[k]);
    free(c->reps), free(c->dirs), free(c->cols), free(c->labels), free(c->missing), free(c->col_of), free(c->first);
    sw_manifest_free(&c->m);
}

int sw_cmd_collect(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"format", required_argument, 0, 'f'},
        {"slo", required_argument, 0, 'L'}, {"metrics", required_argument, 0, 'M'},
        {"help", no_argument, 0, 'h'},      {0, 0, 0, 0}};
    const char *out = NULL, *format = "text", *slo_spec = NULL, *extra_paths = NULL;
    gs_error err = {0};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'f': format = optarg; break;
        case 'L': slo_spec = optarg; break;
        case 'M': extra_paths = optarg; break;
        case 'h': collect_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "sweep collect: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "csv") && strcmp(format, "json"))
        return cli_fail(&(gs_error){GS_EUSAGE, "--format: expected text, markdown, csv or json"});
    cli_batch_slo *slo = NULL;
    int nslo = 0;
    if (slo_spec && cli_batch_slo_parse(slo_spec, &slo, &nslo, &err))
        return cli_fail(&err);
    collect c = {0};
    if (read_manifest_arg(argc, argv, "collect", &c.m, &err)) {
        free(slo);
        return cli_fail(&err);
    }
    collect_columns(&c);
    int rc = collect_reports(&c, &err);
    if (rc == 0) {
        collect_unit_costs(&c);
        rc = collect_write(&c, format, slo, nslo, extra_paths, out ? out : c.m.dir, &err);
    }
    if (rc == 0 && c.nmiss)
        collect_warn_missing(&c);
    int nmiss = c.nmiss;
    collect_free(&c);
    free(slo);
    if (rc)
        return cli_fail(&err);
    return nmiss ? 1 : 0;
}
