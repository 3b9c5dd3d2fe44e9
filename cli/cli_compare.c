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
#include "cli_plan_terms.h"

/* The rows, in the order a planner reads them. A path absent from every
 * report (e.g. no price known) is left out of the table. */
static const struct {
    const char *key, *path;
} base_rows[] = {
    {"utilization", "gpu.alloc_ratio"},
    {"busy_ratio", "gpu.busy_ratio"}, /* from sharing policies, when present */
    {"queue_p50_s", "jobs.queue_s.p50"},
    {"queue_p99_s", "jobs.queue_s.p99"},
    {"jct_p99_s", "jobs.jct_s.p99"},
    {"latency_p99_s", "requests.latency_s.p99"}, /* inference requests, all services */
    {"ttft_p99_s", "requests.ttft_s.p99"},
    {"slo_attainment", "requests.slo_attainment"},
    {"slowdown_mean", "jobs.slowdown.mean"},
    {"completed", "jobs.completed"},
    {"rejected", "jobs.rejected"},
    {"failed", "jobs.failed"},       /* killed before completing: OOM under sharing, timed out */
    {"suspended", "jobs.suspended"}, /* stopped with work left at the end */
    {"dropped_requests", "derived.requests_dropped"},
    {"gpu_hours", "gpu.gpu_hours"},
    /* the cluster as configured is paid for the whole window, however soon a policy drains */
    {"cost_per_day_usd", "derived.cost_per_day_usd"},
    {"cost_per_completed_job_usd", "derived.cost_per_completed_job_usd"},
    {"cost_per_million_requests_usd", "derived.cost_per_million_requests_usd"},
};
#define NBASE (sizeof base_rows / sizeof *base_rows)
#define MAX_ROWS 48

typedef struct row {
    const char *key;
    char path[128];
    char *owned; /* key made here (per service), freed at the end */
} row;

/* Per service in the report (services[i] with its "id"): its latency p99
 * and SLO attainment. Services come from the trace, so every run of one
 * compare lists them in the same order. */
static int add_service_rows(row *rows, int nrows, const cJSON *rep)
{
    const cJSON *sv;
    int i = 0;
    cJSON_ArrayForEach(sv, cJSON_GetObjectItemCaseSensitive(rep, "services"))
    {
        static const char *what[][2] = {{"latency_p99_s", "latency_s.p99"}, {"slo_attainment", "slo_attainment"}};
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id"));
        for (int w = 0; w < 2 && nrows < MAX_ROWS; w++) {
            rows[nrows].owned = id ? cb_fmt("%s.%s", id, what[w][0]) : cb_fmt("service%d.%s", i, what[w][0]);
            rows[nrows].key = rows[nrows].owned;
            snprintf(rows[nrows].path, sizeof rows[0].path, "services.%d.%s", i, what[w][1]);
            nrows++;
        }
        i++;
    }
    return nrows;
}

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

static double value_of(const cJSON *rep, const char *path, const cb_slo *slo, int nslo, bool *ok)
{
    double v;
    if (strcmp(path, "slo_met") == 0) {
        bool met = true;
        for (int t = 0; t < nslo; t++)
            met &= plan_metric_measured(rep, slo[t].path, &v) && cb_slo_holds(&slo[t], v); /* unmeasured: not met */
        *ok = true;
        return met ? 1.0 : 0.0;
    }
    *ok = cb_metric(rep, path, &v);
    return *ok ? v : NAN;
}

static void fmt_cell(char *buf, size_t n, double mean, double half, int seeds)
{
    if (isnan(mean))
        snprintf(buf, n, "-");
    else if (seeds >= 2)
        snprintf(buf, n, "%.4g ±%.2g", mean, half);
    else
        snprintf(buf, n, "%.4g", mean);
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
            com.gpus_per_node = strtol(optarg, &end, 10);
            if (*end || com.gpus_per_node < 1)
                return cli_fail(&(gs_error){GS_EUSAGE, "--gpus-per-node: expected a positive integer"});
            break;
        case 's':
            seeds = strtol(optarg, &end, 10);
            if (*end || seeds < 1 || seeds > 1000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--seeds: expected an integer 1..1000"});
            break;
        case 'J':
            jobs = strtol(optarg, &end, 10);
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
    row rows[MAX_ROWS] = {0};
    int nrows = 0;
    for (size_t i = 0; i < NBASE; i++) {
        rows[nrows].key = base_rows[i].key;
        snprintf(rows[nrows++].path, sizeof rows[0].path, "%s", base_rows[i].path);
    }
    for (int t = 0; t < nslo && nrows < MAX_ROWS - 1; t++) {
        rows[nrows].key = slo[t].path;
        snprintf(rows[nrows++].path, sizeof rows[0].path, "%s", slo[t].path);
    }
    if (nslo) {
        rows[nrows].key = "slo_met";
        snprintf(rows[nrows++].path, sizeof rows[0].path, "slo_met");
    }
    char *mcopy = metrics ? xstrdup(metrics) : NULL, *save = NULL;
    for (char *tok = mcopy ? strtok_r(mcopy, ",", &save) : NULL; tok && nrows < MAX_ROWS;
         tok = strtok_r(NULL, ",", &save)) {
        rows[nrows].key = tok;
        snprintf(rows[nrows++].path, sizeof rows[0].path, "%s", tok);
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
        nrows = add_service_rows(rows, nrows, runs[0].report);
        doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "kind", "compare");
        cJSON_AddStringToObject(doc, "trace", com.trace);
        cJSON_AddNumberToObject(doc, "seeds", (double)seeds);
        cJSON *in = cJSON_GetObjectItemCaseSensitive(runs[0].report, "inputs");
        cJSON_AddItemToObject(doc, "cluster",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "cluster"), 1));
        if (nslo) {
            cJSON *sa = cJSON_AddArrayToObject(doc, "slo");
            for (int t = 0; t < nslo; t++) {
                char *s = cb_fmt("%s%s%g", slo[t].path, cb_op_str(slo[t].op), slo[t].value);
                cJSON_AddItemToArray(sa, cJSON_CreateString(s));
                free(s);
            }
        }
        cJSON *ra = cJSON_AddArrayToObject(doc, "rows");
        cJSON *pa = cJSON_AddArrayToObject(doc, "policies");
        bool present[MAX_ROWS] = {0};
        double *vals = xcalloc((size_t)seeds, sizeof *vals);
        for (int p = 0; p < npol; p++) {
            cJSON *po = cJSON_CreateObject();
            cJSON_AddStringToObject(po, "label", pol[p].label);
            cJSON_AddStringToObject(po, "policy", pol[p].name);
            cJSON *ru = cJSON_AddArrayToObject(po, "runs");
            for (long s = 0; s < seeds; s++)
                cJSON_AddItemToArray(ru, cJSON_CreateString(runs[p * seeds + s].out_dir));
            cJSON *mo = cJSON_AddObjectToObject(po, "metrics");
            for (int r = 0; r < nrows; r++) {
                int nv = 0;
                bool ok;
                for (long s = 0; s < seeds; s++) {
                    double v = value_of(runs[p * seeds + s].report, rows[r].path, slo, nslo, &ok);
                    if (ok)
                        vals[nv++] = v;
                }
                if (nv == 0)
                    continue;
                present[r] = true;
                double mean, half;
                cb_interval(vals, nv, &mean, &half);
                cJSON *cell = cJSON_AddObjectToObject(mo, rows[r].key);
                cJSON_AddNumberToObject(cell, "mean", mean);
                cJSON_AddNumberToObject(cell, "lo", mean - half);
                cJSON_AddNumberToObject(cell, "hi", mean + half);
                cJSON_AddNumberToObject(cell, "n", nv);
                cJSON_AddItemToObject(cell, "values", cJSON_CreateDoubleArray(vals, nv));
            }
            cJSON_AddItemToArray(pa, po);
        }
        free(vals);
        for (int r = 0; r < nrows; r++) {
            if (!present[r])
                continue;
            cJSON *ro = cJSON_CreateObject();
            cJSON_AddStringToObject(ro, "key", rows[r].key);
            cJSON_AddStringToObject(ro, "path", rows[r].path);
            cJSON_AddItemToArray(ra, ro);
        }
        char *text = NULL;
        char *withnl = gs_json_print(doc, NULL);
        char path[1000];
        snprintf(path, sizeof path, "%s/compare.json", odir);
        rc = cb_write_text(path, withnl, &err);
        if (rc == 0 && !strcmp(format, "json"))
            fputs(withnl, stdout);
        free(text);
        free(withnl);
    }
    if (rc == 0 && strcmp(format, "json")) {
        bool md = !strcmp(format, "markdown"), csv = !strcmp(format, "csv"), txt = !strcmp(format, "text");
        const cJSON *ra = cJSON_GetObjectItemCaseSensitive(doc, "rows");
        const cJSON *pa = cJSON_GetObjectItemCaseSensitive(doc, "policies");
        if (txt)
            printf("compare: %s, %ld seed%s%s\n", com.trace, seeds, seeds > 1 ? "s" : "",
                   seeds > 1 ? " (mean ±95% interval)" : "");
        printf(md ? "| metric |" : csv ? "metric" : "%-26s", md || csv ? "" : "metric");
        const cJSON *po;
        cJSON_ArrayForEach(po, pa)
        {
            const char *l = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label"));
            if (csv) {
                printf(",\"");
                for (const char *q = l; *q; q++)
                    printf(*q == '"' ? "\"\"" : "%c", *q);
                printf("\"");
                if (seeds > 1)
                    printf(",lo,hi");
            } else if (md) {
                printf(" ");
                for (const char *q = l; *q; q++)
                    printf(*q == '|' ? "\\|" : "%c", *q);
                printf(" |");
            } else {
                printf(" %22s", l);
            }
        }
        printf("\n");
        if (md) {
            printf("|---|");
            for (int p = 0; p < npol; p++)
                printf("---:|");
            printf("\n");
        }
        const cJSON *ro;
        cJSON_ArrayForEach(ro, ra)
        {
            const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ro, "key"));
            printf(md ? "| %s |" : csv ? "%s" : "%-26s", key);
            cJSON_ArrayForEach(po, pa)
            {
                const cJSON *cell =
                    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(po, "metrics"), key);
                double mean = NAN, lo = NAN, hi = NAN;
                cb_metric(cell, "mean", &mean);
                cb_metric(cell, "lo", &lo);
                cb_metric(cell, "hi", &hi);
                char buf[64];
                fmt_cell(buf, sizeof buf, mean, (hi - lo) / 2, (int)seeds);
                if (csv) {
                    printf(",%.6g", mean);
                    if (seeds > 1)
                        printf(",%.6g,%.6g", lo, hi);
                } else {
                    printf(md ? " %s |" : " %22s", buf);
                }
            }
            printf("\n");
        }
        if (txt)
            printf("runs and compare.json: %s\n", odir);
    }
    cJSON_Delete(doc);
    for (int i = 0; i < nruns; i++)
        cb_run_free(&runs[i]);
    free(runs);
    free(mcopy);
    for (int r = 0; r < nrows; r++)
        free(rows[r].owned);
    free(slo);
    cb_policies_free(pol, npol);
    return rc ? cli_fail(&err) : 0;
}
