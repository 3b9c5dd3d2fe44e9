/* cli_compare.c - `gpusim compare`: run each policy on the same trace,
 * cluster and seeds (parallel child processes) and print one table, the
 * policies side by side, each figure with its 95% interval over seeds.
 *
 * Writes OUT/compare.json (what `gpusim plot` draws the bar chart from) and
 * keeps every run in OUT/runs/<policy slug>.s<seed>/.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "cli.h"
#include "cli_batch.h"
#include "cli_compare_table.h"
#include "cli_opts.h"
#include "trace_facts.h"

static const char compare_synopsis[] = "usage: gpusim compare --trace FILE --policies P1,P2[,...] [options]\n\n";

typedef struct compare_args {
    cli_opts o;
    const char *policies, *format, *extra_paths;
} compare_args;

/* 0, 1 after --help, or GS_EUSAGE. */
static int compare_options(int argc, char **argv, compare_args *a, gs_error *err)
{
    const cli_opt table[] = {
        CLI_SHARED(CLI_OPT_TRACE, NULL),
        {.name = "policies", .arg = "LIST", .kind = CLI_ARG_STR, .p = &a->policies,
         .help = "policies to compare; an entry may carry its own parameters:\n"
                 "whole,whole[queue=fifo]  (brackets: --set for that entry only)"},
        CLI_SHARED(CLI_OPT_CLUSTER, "as for 'gpusim run'"),
        CLI_SHARED(CLI_OPT_GPUS, NULL),
        CLI_SHARED(CLI_OPT_GPUS_PER_NODE, NULL),
        CLI_SHARED(CLI_OPT_MIG, NULL),
        CLI_SHARED(CLI_OPT_PRICE, "price per GPU-hour of a model's cards (repeatable), for the cost rows"),
        CLI_SHARED(CLI_OPT_SEEDS, "run seeds 1..N (default 1); figures carry a 95% t-interval"),
        CLI_SHARED(CLI_OPT_JOBS, NULL),
        CLI_SHARED(CLI_OPT_SET, "parameter for every entry (repeatable)"),
        CLI_SHARED(CLI_OPT_SLO, "also report the share of seeds meeting every term, e.g.\n"
                                "'jobs.queue_s.p99<=600' (any report metric path)"),
        {.name = "metrics", .arg = "PATHS", .kind = CLI_ARG_STR, .p = &a->extra_paths,
         .help = "extra rows: report metric paths, comma separated"},
        {.name = "format", .arg = "F", .kind = CLI_ARG_CHOICE, .choices = "text,markdown,csv,json", .p = &a->format,
         .help = "text (default), markdown, csv or json"},
        CLI_SHARED(CLI_OPT_OUT, "where runs and compare.json go (default results/compare.<trace>)"),
        CLI_SHARED(CLI_OPT_UNTIL, "passed to each run"),
        CLI_SHARED(CLI_OPT_MODELS, "passed to each run"),
        {0},
    };
    a->o.seeds = 1;
    a->o.jobs = cli_batch_default_jobs();
    a->format = "text";
    int rc = cli_opts_parse("compare", argc, argv, table, &a->o, compare_synopsis, NULL, err);
    if (rc)
        return rc;
    if (!a->o.trace || !a->policies)
        return gs_err(err, GS_EUSAGE, "compare: --trace and --policies are required");
    if (a->o.cluster && a->o.gpus)
        return gs_err(err, GS_EUSAGE, "compare: give --cluster or --gpus, not both");
    if (a->o.mig && !a->o.gpus)
        return gs_err(err, GS_EUSAGE, "compare: --mig goes with --gpus (a cluster file says \"mig\" per "
                                      "node group)");
    return 0;
}

/* results/compare.<trace>, and the cluster's name or --gpus spec when one
 * is given: two clusters do not overwrite each other. */
static void compare_out(const cli_opts *com, char *odir, size_t n)
{
    if (com->out) {
        snprintf(odir, n, "%s", com->out);
        return;
    }
    cli_batch_default_out(odir, n, "compare", com->trace);
    if (!com->cluster && !com->gpus)
        return;
    const char *cn = com->gpus ? com->gpus : strrchr(com->cluster, '/') ? strrchr(com->cluster, '/') + 1 : com->cluster;
    size_t l = strlen(odir), k = strlen(cn);
    if (!com->gpus && k > 5 && !strcmp(cn + k - 5, ".json"))
        k -= 5;
    if (l + 1 < n)
        odir[l++] = '.';
    for (size_t i = 0; i < k && l + 1 < n; i++)
        odir[l++] = (char)(isalnum((unsigned char)cn[i]) || cn[i] == '-' || cn[i] == '.' ? cn[i] : '_');
    odir[l] = 0;
}

/* Each --metrics path: a number the report can hold (report NULL: before
 * any run, against the metrics table), or one of report's own (the paths
 * of a policy's section, which only a run can say). 0 or GS_EUSAGE. */
static int check_extra_paths(const char *paths, const cJSON *report, gs_error *err)
{
    char *copy = paths ? xstrdup(paths) : NULL, *save = NULL;
    int rc = 0;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && rc == 0; tok = strtok_r(NULL, ",", &save))
        if (!report || metrics_known(tok) == METRICS_OPEN)
            rc = metrics_check_path("--metrics", tok, report, err);
    free(copy);
    return rc;
}

/* What the trace must say for the comparison to mean something (token
 * counts for token terms and SLOs, each services.<id> a service of it),
 * and the milliseconds hint. One read of the trace; *tf is kept for the
 * reference warning after the runs. */
static int compare_check_trace(const compare_args *a, const cli_batch_slo *slo, int nslo, trace_facts *tf,
                               gs_error *err)
{
    int rc = trace_facts_read(a->o.trace, 0, false, tf, err);
    if (rc)
        return rc;
    for (int t = 0; rc == 0 && t < nslo; t++)
        rc = trace_facts_check_path(tf, a->o.trace, "--slo", slo[t].path, err);
    char *copy = a->extra_paths ? xstrdup(a->extra_paths) : NULL, *save = NULL;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && rc == 0; tok = strtok_r(NULL, ",", &save))
        rc = trace_facts_check_path(tf, a->o.trace, "--metrics", tok, err);
    free(copy);
    if (rc == 0)
        rc = trace_facts_check_services(tf, a->o.trace, err);
    char hint[600];
    trace_facts_units_hint(tf, a->o.trace, hint, sizeof hint);
    if (rc == 0 && hint[0])
        fprintf(stderr, "gpusim: hint: %s\n", hint);
    if (rc)
        trace_facts_free(tf);
    return rc;
}

/* On a cluster of several card models, durations no row states a card for
 * are taken as measured on its first model (ref_gpu=cluster), the same for
 * every column: said loudly (stderr, the table, compare.json), since they
 * may have been measured on another card. "" when it does not apply. */
static void compare_ref_warning(const trace_facts *tf, const cJSON *rep, const cli_opts *com,
                                const cli_batch_policy *pol, int npol, char *buf, size_t n)
{
    buf[0] = 0;
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "inputs"), "cluster"), "models");
    if (tf->no_ref == 0 || cJSON_GetArraySize(models) < 2)
        return;
    bool implicit = false;
    for (int p = 0; p < npol; p++) {
        const char *ref = cli_batch_param(com, &pol[p], "ref_gpu");
        implicit |= !ref || !strcmp(ref, "cluster");
    }
    if (!implicit)
        return;
    const cJSON *m0 = cJSON_GetArrayItem(models, 0);
    const char *first = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m0, "model"));
    snprintf(buf, n, "the cluster has %d card models and %ld rows of '%s' state no ref_gpu (the first at line %ld): "
             "their durations are taken as measured on %s, its first model (ref_gpu=cluster), and the other cards "
             "run them at their speed relative to it; if they were measured on another card, give --set "
             "ref_gpu=MODEL", cJSON_GetArraySize(models), tf->no_ref, com->trace, tf->first_no_ref_line,
             first ? first : "?");
}

/* The table from the runs: compare.json (with the warning, if any)
 * written, and printed in format. */
static int compare_table(const compare_args *a, cli_batch_run *runs, const cli_batch_policy *pol, int npol,
                         const cli_batch_slo *slo, int nslo, const char *warning, const char *odir, gs_error *err)
{
    long seeds = a->o.seeds;
    int nruns = npol * (int)seeds;
    cli_compare_table_column *cols = xcalloc((size_t)npol, sizeof *cols);
    cJSON **reps = xcalloc((size_t)nruns, sizeof *reps);
    const char **dirs = xcalloc((size_t)nruns, sizeof *dirs);
    for (int i = 0; i < nruns; i++)
        reps[i] = runs[i].report, dirs[i] = runs[i].out_dir;
    for (int p = 0; p < npol; p++)
        cols[p] = (cli_compare_table_column){pol[p].label, pol[p].name, reps + p * seeds, dirs + p * seeds,
                                             (int)seeds};
    cJSON *doc = cli_compare_table_build(a->o.trace, seeds, cols, npol, slo, nslo, a->extra_paths);
    free(cols);
    free(reps);
    free(dirs);
    if (warning[0])
        cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "warnings"), cJSON_CreateString(warning));
    char *text = NULL;
    int rc = cli_compare_table_write(doc, odir, &text, err);
    if (rc == 0 && !strcmp(a->format, "json"))
        fputs(text, stdout);
    free(text);
    if (rc == 0 && strcmp(a->format, "json")) {
        cli_compare_table_print(doc, a->format, a->o.trace, seeds, odir);
        if (warning[0] && !strcmp(a->format, "text")) /* markdown and csv are the table alone, as sweep collect's */
            printf("warning: %s\n", warning);
    }
    cJSON_Delete(doc);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a = {0};
    gs_error err = {0};
    int rc = compare_options(argc, argv, &a, &err);
    if (rc)
        return rc == 1 ? 0 : cli_fail(&err);
    const cli_opts com = a.o;
    long seeds = com.seeds;
    if ((rc = check_extra_paths(a.extra_paths, NULL, &err)) != 0)
        return cli_fail(&err);
    cli_batch_policy *pol;
    int npol;
    if (cli_batch_policies_parse(a.policies, &pol, &npol, &err))
        return cli_fail(&err);
    cli_batch_slo *slo = NULL;
    int nslo = 0;
    trace_facts tf;
    if ((com.slo && (rc = cli_batch_slo_parse(com.slo, &slo, &nslo, &err)) != 0) ||
        (rc = compare_check_trace(&a, slo, nslo, &tf, &err)) != 0) {
        free(slo);
        cli_batch_policies_free(pol, npol);
        return cli_fail(&err);
    }
    char odir[900];
    compare_out(&com, odir, sizeof odir);
    int nruns = npol * (int)seeds;
    cli_batch_run *runs = xcalloc((size_t)nruns, sizeof *runs);
    for (int p = 0; p < npol; p++)
        for (long s = 0; s < seeds; s++) {
            char rd[1250];
            snprintf(rd, sizeof rd, "%s/runs/%s.s%ld", odir, pol[p].slug, s + 1);
            cli_batch_run_init(&runs[p * seeds + s], &com, &pol[p], NULL, (uint64_t)(s + 1), rd);
        }
    rc = cli_batch_run_all(runs, nruns, (int)com.jobs, "compare", &err);
    /* An SLO term naming no number of the report would read as never met
     * (slo_met 0); it is a usage error, as in 'plan'. */
    for (int t = 0; rc == 0 && t < nslo; t++)
        rc = metrics_check_path("--slo", slo[t].path, runs[0].report, &err);
    rc = rc ? rc : check_extra_paths(a.extra_paths, runs[0].report, &err); /* a policy's section: now known */
    char warning[800] = "";
    if (rc == 0) {
        cli_batch_add_unit_costs(runs, nruns);
        compare_ref_warning(&tf, runs[0].report, &com, pol, npol, warning, sizeof warning);
        if (warning[0])
            fprintf(stderr, "gpusim: warning: %s\n", warning);
        rc = compare_table(&a, runs, pol, npol, slo, nslo, warning, odir, &err);
    }
    trace_facts_free(&tf);
    for (int i = 0; i < nruns; i++)
        cli_batch_run_free(&runs[i]);
    free(runs);
    free(slo);
    cli_batch_policies_free(pol, npol);
    return rc ? cli_fail(&err) : 0;
}
