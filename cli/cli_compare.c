/* cli_compare.c - `gpusim compare`: run each policy on the same trace,
 * cluster and seeds (parallel child processes) and print one table, the
 * policies side by side, each figure with its 95% interval over seeds.
 *
 * Writes OUT/compare.json (what `gpusim plot` draws the bar chart from) and
 * keeps every run in OUT/runs/<policy slug>.s<seed>/.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "cli.h"
#include "cli_batch.h"
#include "cli_compare_table.h"

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim compare --trace FILE --policies P1,P2[,...] [options]\n"
            "\n"
            "  --policies LIST       policies to compare; an entry may carry its own parameters:\n"
            "                        whole,whole[queue=fifo]  (brackets: --set for that entry only)\n"
            "  --cluster FILE | --gpus MODEL:N[,...] [--gpus-per-node N] [--mig LAYOUT]   as for 'gpusim run'\n"
            "  --price MODEL=USD     price per GPU-hour of a model's cards (repeatable), for the cost rows\n"
            "  --seeds N             run seeds 1..N (default 1); figures carry a 95%% t-interval\n"
            "  --jobs N              parallel runs (default: the number of cores)\n"
            "  --set KEY=VALUE       parameter for every entry (repeatable)\n"
            "  --slo TERMS           also report the share of seeds meeting every term, e.g.\n"
            "                        'jobs.queue_s.p99<=600' (any report metric path)\n"
            "  --metrics PATHS       extra rows: report metric paths, comma separated\n"
            "  --format F            text (default), markdown, csv or json\n"
            "  --out DIR             where runs and compare.json go (default results/compare.<trace>)\n"
            "  --until S, --models DIR   passed to each run\n");
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"trace", required_argument, 0, 't'},    {"policies", required_argument, 0, 'P'},
        {"cluster", required_argument, 0, 'c'},  {"gpus", required_argument, 0, 'g'},
        {"gpus-per-node", required_argument, 0, 'n'}, {"seeds", required_argument, 0, 's'},
        {"jobs", required_argument, 0, 'J'},     {"set", required_argument, 0, 'S'},
        {"format", required_argument, 0, 'f'},   {"out", required_argument, 0, 'o'},
        {"until", required_argument, 0, 'u'},    {"models", required_argument, 0, 'm'},
        {"slo", required_argument, 0, 'L'},      {"metrics", required_argument, 0, 'M'},
        {"mig", required_argument, 0, 'G'},      {"help", no_argument, 0, 'h'},
        {"price", required_argument, 0, '$'},
        {0, 0, 0, 0},
    };
    cb_common com = {0};
    const char *policies = NULL, *format = "text", *out = NULL, *slo_spec = NULL, *metrics = NULL;
    long seeds = 1, jobs = cb_default_jobs();
    gs_error err = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 't': com.trace = optarg; break;
        case 'P': policies = optarg; break;
        case 'c': com.cluster = optarg; break;
        case 'g': com.gpus = optarg; break;
        case 'G': com.mig = optarg; break;
        case '$':
            if (com.nprices == CB_MAX_SETS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--price: at most 16"});
            com.prices[com.nprices++] = optarg;
            break;
        case 'n':
            com.gpus_per_node = cli_strtol(optarg, &end);
            if (*end || com.gpus_per_node < 1)
                return cli_fail(&(gs_error){GS_EUSAGE, "--gpus-per-node: expected a positive integer"});
            break;
        case 's':
            seeds = cli_strtol(optarg, &end);
            if (*end || seeds < 1 || seeds > 1000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--seeds: expected an integer 1..1000"});
            break;
        case 'J':
            jobs = cli_strtol(optarg, &end);
            if (*end || jobs < 1 || jobs > 1024)
                return cli_fail(&(gs_error){GS_EUSAGE, "--jobs: expected an integer 1..1024"});
            break;
        case 'S':
            if (com.nsets == CB_MAX_SETS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--set: too many parameters"});
            com.sets[com.nsets++] = optarg;
            break;
        case 'f': format = optarg; break;
        case 'o': out = optarg; break;
        case 'u': com.until = optarg; break;
        case 'm': com.models = optarg; break;
        case 'L': slo_spec = optarg; break;
        case 'M': metrics = optarg; break;
        case 'h': compare_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "compare: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (optind < argc) {
        gs_err(&err, GS_EUSAGE, "compare: unexpected argument '%s'", argv[optind]);
        return cli_fail(&err);
    }
    if (!com.trace || !policies)
        return cli_fail(&(gs_error){GS_EUSAGE, "compare: --trace and --policies are required"});
    if (com.mig && !com.gpus)
        return cli_fail(&(gs_error){GS_EUSAGE, "compare: --mig goes with --gpus (a cluster file says \"mig\" per "
                                               "node group)"});
    if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "csv") && strcmp(format, "json"))
        return cli_fail(&(gs_error){GS_EUSAGE, "--format: expected text, markdown, csv or json"});

    cb_policy *pol;
    int npol;
    if (cb_policies_parse(policies, &pol, &npol, &err))
        return cli_fail(&err);
    cb_slo *slo = NULL;
    int nslo = 0;
    if (slo_spec && cb_slo_parse(slo_spec, &slo, &nslo, &err)) {
        cb_policies_free(pol, npol);
        return cli_fail(&err);
    }
    char odir[900];
    if (out)
        snprintf(odir, sizeof odir, "%s", out);
    else
        cb_default_out(odir, sizeof odir, "compare", com.trace);
    if (!out && (com.cluster || com.gpus)) { /* names the cluster: two clusters do not overwrite each other */
        const char *cn = com.gpus ? com.gpus : strrchr(com.cluster, '/') ? strrchr(com.cluster, '/') + 1 : com.cluster;
        size_t l = strlen(odir), k = strlen(cn);
        if (!com.gpus && k > 5 && !strcmp(cn + k - 5, ".json"))
            k -= 5;
        if (l + 1 < sizeof odir)
            odir[l++] = '.';
        for (size_t i = 0; i < k && l + 1 < sizeof odir; i++)
            odir[l++] = (char)(isalnum((unsigned char)cn[i]) || cn[i] == '-' || cn[i] == '.' ? cn[i] : '_');
        odir[l] = 0;
    }
    int nruns = npol * (int)seeds;
    cb_run *runs = xcalloc((size_t)nruns, sizeof *runs);
    for (int p = 0; p < npol; p++)
        for (long s = 0; s < seeds; s++) {
            char rd[1250];
            snprintf(rd, sizeof rd, "%s/runs/%s.s%ld", odir, pol[p].slug, s + 1);
            cb_run_init(&runs[p * seeds + s], &com, &pol[p], NULL, (uint64_t)(s + 1), rd);
        }
    int rc = cb_run_all(runs, nruns, (int)jobs, "compare", &err);
    /* An SLO term naming no number of the report would read as never met
     * (slo_met 0); it is a usage error, as in 'plan'. */
    for (int t = 0; rc == 0 && t < nslo; t++) {
        double v;
        if (!cb_metric(runs[0].report, slo[t].path, &v))
            rc = gs_err(&err, GS_EUSAGE, "--slo: the report has no number at '%s' (e.g. jobs.queue_s.p99, "
                        "gpu.alloc_ratio; see README 'The report')", slo[t].path);
    }
    if (rc == 0)
        cb_add_unit_costs(runs, nruns);

    /* the table: every (row, policy) cell over the seeds */
    cJSON *doc = NULL;
    if (rc == 0) {
        cc_column *cols = xcalloc((size_t)npol, sizeof *cols);
        cJSON **reps = xcalloc((size_t)nruns, sizeof *reps);
        const char **dirs = xcalloc((size_t)nruns, sizeof *dirs);
        for (int i = 0; i < nruns; i++)
            reps[i] = runs[i].report, dirs[i] = runs[i].out_dir;
        for (int p = 0; p < npol; p++)
            cols[p] = (cc_column){pol[p].label, pol[p].name, reps + p * seeds, dirs + p * seeds, (int)seeds};
        doc = cc_build(com.trace, seeds, cols, npol, slo, nslo, metrics);
        free(cols);
        free(reps);
        free(dirs);
        char *text = NULL;
        rc = cc_write(doc, odir, &text, &err);
        if (rc == 0 && !strcmp(format, "json"))
            fputs(text, stdout);
        free(text);
    }
    if (rc == 0 && strcmp(format, "json"))
        cc_print(doc, format, com.trace, seeds, odir);
    cJSON_Delete(doc);
    for (int i = 0; i < nruns; i++)
        cb_run_free(&runs[i]);
    free(runs);
    free(slo);
    cb_policies_free(pol, npol);
    return rc ? cli_fail(&err) : 0;
}
