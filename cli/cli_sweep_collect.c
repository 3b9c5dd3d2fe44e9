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
    sw_manifest m;
    if (read_manifest_arg(argc, argv, "collect", &m, &err)) {
        free(slo);
        return cli_fail(&err);
    }
    /* columns: (trace, cluster, label) in first-seen order; col_of[i] per line */
    int *col_of = xcalloc((size_t)m.n, sizeof *col_of), ncols = 0, *first = xcalloc((size_t)m.n, sizeof *first);
    bool many_traces = false, many_clusters = false;
    for (int i = 0; i < m.n; i++) {
        const sw_run *r = &m.runs[i];
        many_traces |= strcmp(r->trace_label, m.runs[0].trace_label) != 0;
        many_clusters |= strcmp(r->cluster_label, m.runs[0].cluster_label) != 0;
        int c = 0;
        for (; c < ncols; c++) {
            const sw_run *f = &m.runs[first[c]];
            if (!strcmp(f->trace_label, r->trace_label) && !strcmp(f->cluster_label, r->cluster_label) &&
                !strcmp(f->label, r->label))
                break;
        }
        if (c == ncols)
            first[ncols++] = i;
        col_of[i] = c;
    }
    cJSON **reps = xcalloc((size_t)m.n, sizeof *reps);
    char **dirs = xcalloc((size_t)m.n, sizeof *dirs);
    int *order = xcalloc((size_t)m.n, sizeof *order); /* lines grouped by column */
    cli_compare_table_column *cols = xcalloc((size_t)ncols, sizeof *cols);
    char **labels = xcalloc((size_t)ncols, sizeof *labels);
    bool *missing = xcalloc((size_t)m.n, sizeof *missing);
    int nmiss = 0, rc = 0, at = 0;
    long seeds = 0;
    for (int c = 0; c < ncols; c++) {
        const sw_run *f = &m.runs[first[c]];
        labels[c] = many_traces && many_clusters ? cli_batch_fmt("%s (%s, %s)", f->label, f->trace_label, f->cluster_label)
                    : many_traces               ? cli_batch_fmt("%s (%s)", f->label, f->trace_label)
                    : many_clusters             ? cli_batch_fmt("%s (%s)", f->label, f->cluster_label)
                                                : xstrdup(f->label);
        cols[c] = (cli_compare_table_column){labels[c], f->policy, reps + at, (const char *const *)dirs + at, 0};
        for (int i = 0; i < m.n; i++) {
            if (col_of[i] != c)
                continue;
            char d[1300];
            sw_run_dir(&m, i, d, sizeof d);
            dirs[at] = xstrdup(d);
            if (sw_state_of(&m, i, NULL, 0) == SW_DONE) {
                reps[at] = cli_batch_read_report(d, &err);
                if (!reps[at] && rc == 0)
                    rc = err.code;
            } else {
                missing[i] = true;
                nmiss++;
            }
            order[at++] = i;
            cols[c].n++;
        }
        seeds = cols[c].n > seeds ? cols[c].n : seeds;
    }
    /* unit costs over one window, as compare bills them: the longest span among the runs of one
     * trace on one cluster (the runs done) */
    for (int c = 0; c < ncols && rc == 0; c++) {
        const sw_run *f = &m.runs[first[c]];
        bool seen = false;
        for (int d = 0; d < c; d++)
            seen |= !strcmp(m.runs[first[d]].trace_label, f->trace_label) &&
                    !strcmp(m.runs[first[d]].cluster_label, f->cluster_label);
        if (seen)
            continue;
        cli_batch_run *grp = xcalloc((size_t)m.n, sizeof *grp);
        int ng = 0;
        for (int d = c; d < ncols; d++)
            if (!strcmp(m.runs[first[d]].trace_label, f->trace_label) &&
                !strcmp(m.runs[first[d]].cluster_label, f->cluster_label))
                for (int k = 0; k < cols[d].n; k++)
                    if (cols[d].reports[k])
                        grp[ng++].report = cols[d].reports[k];
        cli_batch_add_unit_costs(grp, ng);
        free(grp); /* the reports stay owned by reps[] */
    }
    const char *trace = many_traces ? "several traces" : m.runs[0].trace;
    cJSON *doc = rc ? NULL : cli_compare_table_build(trace, seeds, cols, ncols, slo, nslo, extra_paths);
    if (rc == 0 && !doc)
        rc = gs_err(&err, GS_EINPUT, "sweep collect: none of the %d runs of %s is done yet ('gpusim sweep status')",
                    m.n, m.path);
    const char *odir = out ? out : m.dir;
    if (rc == 0) {
        cJSON *ma = cJSON_AddArrayToObject(doc, "missing");
        for (int i = 0; i < m.n; i++)
            if (missing[i])
                cJSON_AddItemToArray(ma, cJSON_CreateNumber(i));
        char *text = NULL;
        rc = cli_compare_table_write(doc, odir, &text, &err);
        if (rc == 0 && !strcmp(format, "json"))
            fputs(text, stdout);
        else if (rc == 0)
            cli_compare_table_print(doc, format, trace, seeds, odir);
        free(text);
    }
    if (rc == 0 && nmiss) {
        fprintf(stderr, "sweep collect: %d of %d runs not done, left out of the figures:", nmiss, m.n);
        int shown = 0;
        for (int i = 0; i < m.n; i++)
            if (missing[i] && shown++ < 20)
                fprintf(stderr, "%s [%d] %s seed %llu", shown > 1 ? "," : "", i, m.runs[i].label,
                        (unsigned long long)m.runs[i].seed);
        fprintf(stderr, "%s\n", shown > 20 ? ", ..." : "");
        char *list = sw_index_list(missing, m.n);
        fprintf(stderr, "missing: %s ('gpusim sweep submit' runs them)\n", list);
        free(list);
    }
    cJSON_Delete(doc);
    for (int i = 0; i < m.n; i++)
        cJSON_Delete(reps[i]), free(dirs[i]);
    for (int c = 0; c < ncols; c++)
        free(labels[c]);
    free(reps), free(dirs), free(order), free(cols), free(labels), free(missing), free(col_of), free(first);
    free(slo);
    sw_manifest_free(&m);
    if (rc)
        return cli_fail(&err);
    return nmiss ? 1 : 0;
}
