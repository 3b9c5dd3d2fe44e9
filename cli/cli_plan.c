/* cli_plan.c - `gpusim plan`: the smallest number of cards of one model
 * whose runs meet every SLO term on every seed (or a stated fraction).
 *
 * Search: doubling from --min-gpus until a count meets the SLO, then
 * bisection between the last count that failed and the first that met, so
 * about 2 log2(answer) counts are run (each on every seed, in parallel).
 * With --width K each round runs K counts at once (K doublings, then K
 * points splitting the bracket into K+1 parts), so K times the workers
 * finish in about log(answer)/log(K+1) rounds; K = 1 is the bisection.
 * ASSUMPTION (stated in the README): meeting the SLO is monotone in the card
 * count - more cards of the same model never make a queue or latency metric
 * worse. That holds for work-conserving placement of independent jobs in
 * expectation; a policy with placement anomalies could break it, and then
 * the answer is a count that meets the SLO, not necessarily the smallest.
 *
 * An implicit term jobs.rejected<=0 is added (unless --allow-rejected): a
 * cluster too small for the largest job rejects it, and a queue metric over
 * the jobs that did run would then look good.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_batch.h"
#include "cli_plan_engine.h"

#define HOURS_PER_MONTH 730.0 /* 8760 h / 12 */

static void plan_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim plan --trace FILE (--policy P | --policies P1,P2,...) --gpu MODEL\n"
            "                   --slo 'METRIC<=V[,METRIC>=V...]' [options]\n"
            "\n"
            "  --gpu MODEL           the card model to size ('gpusim models')\n"
            "  --gpus-per-node N     cards per node (default 8; the last node may be partial)\n"
            "  --slo TERMS           any report metric path with <=, <, >=, >; e.g.\n"
            "                        'jobs.queue_s.p99<=600,jobs.jct_s.p99<=7200'; short names: queue_p99,\n"
            "                        queue_p50, queue_mean, jct_p99, latency_p99, ttft_p99, slo_attainment,\n"
            "                        utilization, busy_ratio, cost_usd ('queue_p99<=600,latency_p99<=0.2')\n"
            "  --seeds N             seeds 1..N per card count (default 1)\n"
            "  --fraction F          share of seeds that must meet every term (default 1)\n"
            "  --min-gpus N          first count tried (default 1); --max-gpus N give up above (default 65536)\n"
            "  --allow-rejected      do not add the implicit term jobs.rejected<=0\n"
            "  --set KEY=VALUE       parameter for every policy; --policies entries may carry their own:\n"
            "                        whole,whole[queue=fifo]\n"
            "  --jobs N              parallel runs (default: the number of cores)\n"
            "  --width K             card counts tried per round (default 1: bisection; K: K-ary search)\n"
            "  --engine E            run each round as a sweep on slurm (sbatch --array, waited for),\n"
            "                        parallel (GNU parallel) or local, in OUT/sweep.<policy>/ (see README)\n"
            "  --format F            text (default) or json\n"
            "  --out DIR             runs and plan.json (default results/plan.<trace>)\n"
            "  --until S, --models DIR   passed to each run\n"
            "Assumes meeting the SLO is monotone in the card count (see README).\n");
}

typedef struct point {
    long gpus;
    int seeds_met;
    bool met;
    cJSON *obj;
} point;

typedef struct planner {
    const cb_common *com;
    const cb_policy *pol;
    const char *model, *odir;
    const cb_slo *slo;
    int nslo;
    long seeds, jobs, need, width;
    const char *engine; /* NULL: child processes here; else each round is a sweep on it */
    point *pts;
    int npts, rounds;
    double price; /* per GPU-hour, NAN when unknown */
} planner;

static const point *known(const planner *pl, long gpus)
{
    for (int i = 0; i < pl->npts; i++)
        if (pl->pts[i].gpus == gpus)
            return &pl->pts[i];
    return NULL;
}

/* Runs card counts cnt[0..n-1] on every seed, all in one batch (one round),
 * and records each as evidence; met[i] says whether cnt[i] met the SLO. */
static int try_counts(planner *pl, const long *cnt, int n, bool *met, gs_error *err)
{
    long *todo = xcalloc((size_t)n, sizeof *todo);
    int ntodo = 0;
    for (int i = 0; i < n; i++) {
        bool dup = known(pl, cnt[i]) != NULL;
        for (int j = 0; j < ntodo; j++)
            dup |= todo[j] == cnt[i];
        if (!dup)
            todo[ntodo++] = cnt[i];
    }
    int rc = 0;
    long S = pl->seeds;
    cb_run *runs = xcalloc((size_t)ntodo * (size_t)S + 1, sizeof *runs);
    for (int c = 0; c < ntodo && !pl->engine; c++) {
        char spec[200];
        snprintf(spec, sizeof spec, "%s:%ld", pl->model, todo[c]);
        for (long s = 0; s < S; s++) {
            char rd[1250];
            snprintf(rd, sizeof rd, "%s/runs/%s.g%ld.s%ld", pl->odir, pl->pol->slug, todo[c], s + 1);
            cb_run_init(&runs[c * S + s], pl->com, pl->pol, spec, (uint64_t)(s + 1), rd);
        }
    }
    if (ntodo && pl->engine) {
        long *g = xcalloc((size_t)ntodo * (size_t)S, sizeof *g);
        uint64_t *sd = xcalloc((size_t)ntodo * (size_t)S, sizeof *sd);
        for (int c = 0; c < ntodo; c++)
            for (long s = 0; s < S; s++)
                g[c * S + s] = todo[c], sd[c * S + s] = (uint64_t)(s + 1);
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/sweep.%s", pl->odir, pl->pol->slug);
        rc = plan_round_engine(pl->engine, dir, pl->com, pl->pol, runs, g, sd, ntodo * (int)S, pl->model, err);
        free(g);
        free(sd);
        pl->rounds++;
    } else if (ntodo) {
        char what[300];
        snprintf(what, sizeof what, "plan %s: %ld%s cards", pl->pol->label, todo[0], ntodo > 1 ? ".." : "");
        rc = cb_run_all(runs, ntodo * (int)S, (int)pl->jobs, what, err);
        pl->rounds++;
    }
    for (int c = 0; c < ntodo && rc == 0; c++) {
        cb_run *cr = runs + c * S;
        point pt = {.gpus = todo[c], .obj = cJSON_CreateObject()};
        cJSON_AddNumberToObject(pt.obj, "gpus", (double)todo[c]);
        cJSON *terms = cJSON_AddArrayToObject(pt.obj, "terms");
        bool *ok = xcalloc((size_t)S, sizeof *ok);
        for (long s = 0; s < S; s++)
            ok[s] = true;
        for (int t = 0; t < pl->nslo && rc == 0; t++) {
            double worst = NAN, sum = 0, v;
            for (long s = 0; s < S; s++) {
                if (!cb_metric(cr[s].report, pl->slo[t].path, &v)) {
                    rc = gs_err(err, GS_EUSAGE, "--slo: the report has no number at '%s' (e.g. jobs.queue_s.p99, "
                                "gpu.alloc_ratio; see README 'The report')", pl->slo[t].path);
                    break;
                }
                ok[s] &= cb_slo_holds(&pl->slo[t], v);
                sum += v;
                if (isnan(worst) || cb_slo_worse(&pl->slo[t], v, worst))
                    worst = v;
            }
            cJSON *to = cJSON_CreateObject();
            cJSON_AddStringToObject(to, "path", pl->slo[t].path);
            cJSON_AddNumberToObject(to, "worst", worst);
            cJSON_AddNumberToObject(to, "mean", sum / (double)S);
            cJSON_AddItemToArray(terms, to);
        }
        for (long s = 0; s < S; s++)
            pt.seeds_met += ok[s];
        free(ok);
        pt.met = pt.seeds_met >= pl->need;
        cJSON_AddNumberToObject(pt.obj, "seeds_met", pt.seeds_met);
        cJSON_AddBoolToObject(pt.obj, "met", pt.met);
        cJSON_AddNumberToObject(pt.obj, "round", pl->rounds);
        cJSON *ru = cJSON_AddArrayToObject(pt.obj, "runs");
        for (long s = 0; s < S; s++)
            cJSON_AddItemToArray(ru, cJSON_CreateString(cr[s].out_dir));
        double price;
        if (isnan(pl->price) && cb_metric(cr[0].report, "inputs.cluster.models.0.price_per_gpu_hour_usd", &price))
            pl->price = price;
        if (rc) {
            cJSON_Delete(pt.obj);
            break;
        }
        pl->pts = xrealloc(pl->pts, (size_t)(pl->npts + 1) * sizeof *pl->pts);
        pl->pts[pl->npts++] = pt;
    }
    for (int i = 0; i < ntodo * (int)S; i++)
        cb_run_free(&runs[i]);
    free(runs);
    free(todo);
    for (int i = 0; i < n && rc == 0; i++)
        met[i] = known(pl, cnt[i])->met;
    return rc;
}

static int cmp_point(const void *a, const void *b)
{
    long x = ((const point *)a)->gpus, y = ((const point *)b)->gpus;
    return (x > y) - (x < y);
}

/* Doubling, then bisection; with width K, K doublings a round, then K
 * points a round splitting the bracket (bad, good) evenly. *answer = 0
 * when even max_gpus fails. */
static int search(planner *pl, long min_gpus, long max_gpus, long *answer, gs_error *err)
{
    long K = pl->width, bad = min_gpus - 1, good = 0, c = min_gpus;
    long *cnt = xcalloc((size_t)K, sizeof *cnt);
    bool *met = xcalloc((size_t)K, sizeof *met);
    int rc = 0;
    while (rc == 0 && !good) {
        int n = 0;
        for (long x = c; n < K; x = x * 2 > max_gpus ? max_gpus : x * 2) {
            cnt[n++] = x;
            if (x >= max_gpus)
                break;
        }
        rc = try_counts(pl, cnt, n, met, err);
        for (int i = 0; i < n && rc == 0; i++) { /* counts ascend: the first met is the bracket's top */
            if (met[i]) {
                good = cnt[i];
                break;
            }
            bad = cnt[i];
        }
        if (rc == 0 && !good) {
            if (cnt[n - 1] >= max_gpus)
                break;
            c = cnt[n - 1] * 2 > max_gpus ? max_gpus : cnt[n - 1] * 2;
        }
    }
    while (rc == 0 && good && good - bad > 1) {
        int n = 0;
        for (long j = 1; j <= K; j++) {
            long x = bad + (long)((double)(good - bad) * (double)j / (double)(K + 1));
            if (K == 1)
                x = bad + (good - bad) / 2; /* the bisection, exactly as before */
            if (x > bad && x < good && (n == 0 || x > cnt[n - 1]))
                cnt[n++] = x;
        }
        rc = try_counts(pl, cnt, n, met, err);
        long nb = bad, ng = good;
        for (int i = 0; i < n && rc == 0; i++) {
            if (met[i] && cnt[i] < ng)
                ng = cnt[i];
            if (!met[i] && cnt[i] > nb)
                nb = cnt[i];
        }
        bad = nb, good = ng;
    }
    free(cnt);
    free(met);
    *answer = good;
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {
        {"trace", required_argument, 0, 't'},    {"policy", required_argument, 0, 'p'},
        {"policies", required_argument, 0, 'P'}, {"gpu", required_argument, 0, 'G'},
        {"gpus-per-node", required_argument, 0, 'n'}, {"slo", required_argument, 0, 'L'},
        {"seeds", required_argument, 0, 's'},    {"fraction", required_argument, 0, 'F'},
        {"min-gpus", required_argument, 0, 'a'}, {"max-gpus", required_argument, 0, 'b'},
        {"allow-rejected", no_argument, 0, 'R'}, {"set", required_argument, 0, 'S'},
        {"jobs", required_argument, 0, 'J'},     {"format", required_argument, 0, 'f'},
        {"out", required_argument, 0, 'o'},      {"until", required_argument, 0, 'u'},
        {"models", required_argument, 0, 'm'},   {"help", no_argument, 0, 'h'},
        {"width", required_argument, 0, 'W'},   {"engine", required_argument, 0, 'E'},
        {0, 0, 0, 0},
    };
    cb_common com = {.gpus_per_node = 8};
    const char *policies = NULL, *model = NULL, *slo_spec = NULL, *format = "text", *out = NULL;
    long seeds = 1, jobs = cb_default_jobs(), min_gpus = 1, max_gpus = 65536, width = 1;
    double fraction = 1.0;
    const char *engine = NULL;
    bool allow_rejected = false;
    gs_error err = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 't': com.trace = optarg; break;
        case 'p':
        case 'P':
            if (policies)
                return cli_fail(&(gs_error){GS_EUSAGE, "plan: give --policy or --policies once"});
            policies = optarg;
            break;
        case 'G': model = optarg; break;
        case 'n':
            com.gpus_per_node = strtol(optarg, &end, 10);
            if (*end || com.gpus_per_node < 1)
                return cli_fail(&(gs_error){GS_EUSAGE, "--gpus-per-node: expected a positive integer"});
            break;
        case 'L': slo_spec = optarg; break;
        case 's':
            seeds = strtol(optarg, &end, 10);
            if (*end || seeds < 1 || seeds > 1000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--seeds: expected an integer 1..1000"});
            break;
        case 'F':
            fraction = strtod(optarg, &end);
            if (*end || !(fraction > 0 && fraction <= 1))
                return cli_fail(&(gs_error){GS_EUSAGE, "--fraction: expected a number in (0, 1]"});
            break;
        case 'a':
        case 'b': {
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100000000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--min-gpus/--max-gpus: expected a positive integer"});
            *(c == 'a' ? &min_gpus : &max_gpus) = v;
            break;
        }
        case 'R': allow_rejected = true; break;
        case 'S':
            if (com.nsets == CB_MAX_SETS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--set: too many parameters"});
            com.sets[com.nsets++] = optarg;
            break;
        case 'J':
            jobs = strtol(optarg, &end, 10);
            if (*end || jobs < 1 || jobs > 1024)
                return cli_fail(&(gs_error){GS_EUSAGE, "--jobs: expected an integer 1..1024"});
            break;
        case 'f': format = optarg; break;
        case 'o': out = optarg; break;
        case 'u': com.until = optarg; break;
        case 'm': com.models = optarg; break;
        case 'W':
            width = strtol(optarg, &end, 10);
            if (*end || width < 1 || width > 64)
                return cli_fail(&(gs_error){GS_EUSAGE, "--width: expected an integer 1..64"});
            break;
        case 'E':
            if (strcmp(optarg, "slurm") && strcmp(optarg, "parallel") && strcmp(optarg, "local"))
                return cli_fail(&(gs_error){GS_EUSAGE, "--engine: expected slurm, parallel or local"});
            engine = optarg;
            break;
        case 'h': plan_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "plan: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (optind < argc) {
        gs_err(&err, GS_EUSAGE, "plan: unexpected argument '%s'", argv[optind]);
        return cli_fail(&err);
    }
    if (!com.trace || !policies || !model || !slo_spec)
        return cli_fail(&(gs_error){GS_EUSAGE, "plan: --trace, --policy (or --policies), --gpu and --slo are required"});
    if (strcmp(format, "text") && strcmp(format, "json"))
        return cli_fail(&(gs_error){GS_EUSAGE, "--format: expected text or json"});
    if (min_gpus > max_gpus)
        return cli_fail(&(gs_error){GS_EUSAGE, "plan: --min-gpus is above --max-gpus"});
    if (strchr(model, ',') || strchr(model, ':'))
        return cli_fail(&(gs_error){GS_EUSAGE, "--gpu: expected one model name ('gpusim models')"});

    cb_policy *pol;
    int npol;
    if (cb_policies_parse(policies, &pol, &npol, &err))
        return cli_fail(&err);
    cb_slo *slo;
    int nslo;
    if (cb_slo_parse(slo_spec, &slo, &nslo, &err)) {
        cb_policies_free(pol, npol);
        return cli_fail(&err);
    }
    if (!allow_rejected) {
        slo = xrealloc(slo, (size_t)(nslo + 1) * sizeof *slo);
        slo[nslo++] = (cb_slo){"jobs.rejected", CB_LE, 0};
    }
    char odir[900];
    if (out)
        snprintf(odir, sizeof odir, "%s", out);
    else
        cb_default_out(odir, sizeof odir, "plan", com.trace);

    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "plan");
    cJSON_AddStringToObject(doc, "trace", com.trace);
    cJSON_AddStringToObject(doc, "gpu", model);
    cJSON_AddNumberToObject(doc, "gpus_per_node", (double)com.gpus_per_node);
    cJSON_AddNumberToObject(doc, "seeds", (double)seeds);
    cJSON_AddNumberToObject(doc, "fraction", fraction);
    cJSON_AddNumberToObject(doc, "width", (double)width);
    cJSON *sa = cJSON_AddArrayToObject(doc, "slo");
    for (int t = 0; t < nslo; t++) {
        cJSON *to = cJSON_CreateObject();
        cJSON_AddStringToObject(to, "path", slo[t].path);
        cJSON_AddStringToObject(to, "op", cb_op_str(slo[t].op));
        cJSON_AddNumberToObject(to, "value", slo[t].value);
        if (!allow_rejected && t == nslo - 1)
            cJSON_AddBoolToObject(to, "implicit", 1); /* plot leaves it out of the figure */
        cJSON_AddItemToArray(sa, to);
    }
    cJSON *pa = cJSON_AddArrayToObject(doc, "policies");
    /* at least ceil(fraction * seeds) seeds must meet every term */
    long need = (long)ceil(fraction * (double)seeds - 1e-9);
    int rc = 0;
    for (int p = 0; p < npol && rc == 0; p++) {
        planner pl = {&com, &pol[p], model, odir, slo, nslo, seeds, jobs, need, width, engine, NULL, 0, 0, NAN};
        long answer = 0;
        rc = search(&pl, min_gpus, max_gpus, &answer, &err);
        if (rc == 0) {
            qsort(pl.pts, (size_t)pl.npts, sizeof *pl.pts, cmp_point);
            cJSON *po = cJSON_CreateObject();
            cJSON_AddStringToObject(po, "label", pol[p].label);
            cJSON_AddStringToObject(po, "policy", pol[p].name);
            if (answer) {
                cJSON_AddNumberToObject(po, "gpus", (double)answer);
                cJSON_AddNumberToObject(po, "nodes",
                                        (double)((answer + com.gpus_per_node - 1) / com.gpus_per_node));
            } else {
                cJSON_AddNullToObject(po, "gpus");
            }
            if (answer && !isnan(pl.price)) {
                cJSON_AddNumberToObject(po, "price_per_gpu_hour_usd", pl.price);
                cJSON_AddNumberToObject(po, "cost_per_hour_usd", pl.price * (double)answer);
                cJSON_AddNumberToObject(po, "cost_per_month_usd", pl.price * (double)answer * HOURS_PER_MONTH);
            }
            cJSON_AddNumberToObject(po, "rounds", pl.rounds);
            cJSON *ev = cJSON_AddArrayToObject(po, "points");
            for (int i = 0; i < pl.npts; i++)
                cJSON_AddItemToArray(ev, pl.pts[i].obj);
            cJSON_AddItemToArray(pa, po);
        } else {
            for (int i = 0; i < pl.npts; i++)
                cJSON_Delete(pl.pts[i].obj);
        }
        free(pl.pts);
    }
    char *text = NULL, *withnl = NULL;
    if (rc == 0) {
        text = cJSON_Print(doc);
        withnl = cb_fmt("%s\n", text);
        char path[1000];
        snprintf(path, sizeof path, "%s/plan.json", odir);
        rc = cb_write_text(path, withnl, &err);
    }
    if (rc == 0 && !strcmp(format, "json")) {
        fputs(withnl, stdout);
    } else if (rc == 0) {
        printf("plan: %s on %s (%ld per node), %ld seed%s, %s of seeds must meet:", com.trace, model,
               com.gpus_per_node, seeds, seeds > 1 ? "s" : "", need == seeds ? "all" : "a share");
        for (int t = 0; t < nslo; t++)
            printf(" %s%s%g", slo[t].path, cb_op_str(slo[t].op), slo[t].value);
        printf("\n\n%-24s %8s %14s %16s\n", "policy", "cards", "cost $/hour", "cost $/month");
        const cJSON *po;
        cJSON_ArrayForEach(po, pa)
        {
            double g = 0, h = NAN, m = NAN;
            const char *l = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label"));
            if (!cb_metric(po, "gpus", &g)) {
                printf("%-24s %8s   (not met up to %ld cards)\n", l, "-", max_gpus);
                continue;
            }
            cb_metric(po, "cost_per_hour_usd", &h);
            cb_metric(po, "cost_per_month_usd", &m);
            printf("%-24s %8.0f %14.2f %16.0f\n", l, g, h, m);
        }
        cJSON_ArrayForEach(po, pa)
        {
            printf("\nevidence for %s (worst seed per term):\n%8s %6s %9s",
                   cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label")), "cards", "met", "seeds_ok");
            for (int t = 0; t < nslo; t++)
                printf(" %20s", slo[t].path);
            printf("\n");
            const cJSON *pt;
            cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
            {
                double g, sm;
                cb_metric(pt, "gpus", &g);
                cb_metric(pt, "seeds_met", &sm);
                printf("%8.0f %6s %5.0f/%-3ld", g, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met")) ? "yes" : "no",
                       sm, seeds);
                const cJSON *to;
                cJSON_ArrayForEach(to, cJSON_GetObjectItemCaseSensitive(pt, "terms"))
                {
                    double w = NAN;
                    cb_metric(to, "worst", &w);
                    printf(" %20.6g", w);
                }
                printf("\n");
            }
        }
        printf("\nruns and plan.json: %s\n", odir);
    }
    free(text);
    free(withnl);
    cJSON_Delete(doc);
    free(slo);
    cb_policies_free(pol, npol);
    return rc ? cli_fail(&err) : 0;
}
