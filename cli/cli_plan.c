/* cli_plan.c - `gpusim plan`: the smallest cluster of each candidate (a
 * card model, or a cluster template that scales) whose runs meet every SLO
 * term on every seed (or a stated fraction), for each policy, and the
 * buyer's table of the answers sorted by cost.
 *
 * Before searching, each candidate is checked for rows no count of it could
 * serve (plan_feasible.c): such a candidate is "impossible", named with the
 * rows and why, unless --allow-rejected sets them aside.
 *
 * Search (cli_plan_search.c): doubling from --min-gpus until a count meets
 * the SLO, then bisection between the last count that failed and the first
 * that met, so about 2 log2(answer) counts are run (each on every seed, in
 * parallel). For a template the count searched is its scale N
 * (cluster_template.h).
 *
 * Implicit terms (cli_plan_terms.h) keep a failed run from passing: nothing
 * rejected, failed or dropped, every replica placed; a metric that was
 * never measured is not met.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "../base/gs_num.h"
#include "cli.h"
#include "../sim/sim_cluster_file.h"
#include "cli_opts.h"
#include "cli_plan.h"
#include "cli_plan_terms.h"
#include "plan_evidence.h"

/* the default width's cap: past 15 (four bisection levels a round) the
 * speculative runs a round wastes outnumber the ones it uses */
#define PLAN_WIDTH_MAX 15
#define PLAN_MAX_TEMPLATES 8
/* seeds per count: with one, an answer is one draw of the workload's
 * randomness (a count that fails one seed in five passes one seed four
 * times in five, five seeds a third of the time); five keep the t-interval
 * usable (4 degrees of freedom) at five runs a count, run in parallel */
#define PLAN_DEFAULT_SEEDS 5
#define PLAN_DEFAULT_MARGIN 4

/* {==== options ====} */

typedef struct plan_args {
    cli_opts o;
    const char *policies, *gpu_list, *format, *engine, *tps, *dtypes;
    const char *templates[PLAN_MAX_TEMPLATES];
    int ntemplates;
    double fraction;
    long min_gpus, max_gpus, width; /* width 0: from --jobs */
    long margin;
    bool allow[PLAN_NIMPLICIT];
    bool sensitivity; /* --sensitivity: cli_plan_sens.c */
} plan_args;

static const char plan_synopsis[] =
    "usage: gpusim plan --trace FILE (--policy P | --policies P1,P2,...)\n"
    "                   (--gpu MODEL[,MODEL...] | --cluster-template FILE)... --slo TERMS [options]\n\n";
static const char plan_epilog[] =
    "Exit 1 when every candidate is impossible for the trace (rows named). Assumes meeting the SLO\n"
    "is monotone in the card count (see README).\n";

/* The table; the implicit terms' flags are listed under their heading. */
static int plan_parse(int argc, char **argv, plan_args *a, gs_error *err)
{
    const cli_opt table[] = {
        CLI_SHARED(CLI_OPT_TRACE, NULL),
        {.name = "policy", .arg = "P", .kind = CLI_ARG_STR, .once = true, .p = &a->policies,
         .help = "the policy to size (or --policies P1,P2,...)"},
        {.name = "policies", .arg = "LIST", .kind = CLI_ARG_STR, .once = true, .p = &a->policies,
         .help = "policies to size; entries may carry parameters: whole,whole[queue=fifo]"},
        {.name = "gpu", .arg = "MODELS", .kind = CLI_ARG_STR, .once = true, .p = &a->gpu_list,
         .help = "card models to size, comma separated ('gpusim models')"},
        CLI_SHARED(CLI_OPT_GPUS_PER_NODE, "cards per node for --gpu (default 8; the last node may be partial)"),
        {.name = "tp", .arg = "LIST", .kind = CLI_ARG_STR, .once = true, .p = &a->tps,
         .help = "TP degrees to try for services of a catalog model (model=), e.g. 2,4,8;\n"
                 "auto: 1,2,4,8. Each is sized as its own entry (--set svc_tp); a card that\n"
                 "cannot hold the model at that TP is impossible, with the reason"},
        {.name = "dtype", .arg = "LIST", .kind = CLI_ARG_STR, .once = true, .p = &a->dtypes,
         .help = "precisions to try likewise (bf16,fp8,fp4; --set svc_dtype)"},
        CLI_SHARED(CLI_OPT_MIG, "--gpu cards run MIG: all-<profile>, balanced, whole, dynamic (dynmig)"),
        {.name = "cluster-template", .arg = "F", .kind = CLI_ARG_LIST, .max = PLAN_MAX_TEMPLATES,
         .p = a->templates, .n = &a->ntemplates,
         .help = "a cluster file whose node groups scale: \"count\": \"N\", \"N/4\", ...\n"
                 "(repeatable; sized beside any --gpu models)"},
        CLI_SHARED(CLI_OPT_PRICE, "price per GPU-hour of a model (repeatable); wins over a template's\n"
                                  "price_per_gpu_hour_usd and the model file's list price"),
        CLI_SHARED(CLI_OPT_SLO, "any report metric path with <=, <, >=, >; e.g.\n"
                                "'jobs.queue_s.p99<=600,jobs.jct_s.p99<=7200'; short names: queue_p99,\n"
                                "queue_p50, queue_mean, jct_p99, latency_p99, ttft_p99, slo_attainment,\n"
                                "utilization, busy_ratio, cost_usd ('queue_p99<=600,latency_p99<=0.2');\n"
                                "a metric never measured (nothing served) is not met"),
        CLI_SHARED(CLI_OPT_SEEDS, "seeds 1..N per card count (default 5: a count that fails one seed in\n"
                                  "five passes five seeds a third of the time, one seed four times in five)"),
        {.name = "margin", .arg = "N", .kind = CLI_ARG_LONG, .lo = 0, .hi = PLAN_MARGIN_MAX, .p = &a->margin,
         .help = "counts probed above the answer, +1, +2, +4, ... (default 4; 0: none): the answer is\n"
                 "reported with the fewest cards from which every probed count met"},
        {.name = "fraction", .arg = "F", .kind = CLI_ARG_NUM, .lo = 0, .lo_open = true, .hi = 1, .p = &a->fraction,
         .help = "share of seeds that must meet every term (default 1)"},
        {.name = "min-gpus", .arg = "N", .kind = CLI_ARG_LONG, .lo = 1, .hi = 100000000, .p = &a->min_gpus,
         .help = "first count tried (default 1)"},
        {.name = "max-gpus", .arg = "N", .kind = CLI_ARG_LONG, .lo = 1, .hi = 100000000, .p = &a->max_gpus,
         .help = "give up above (default 65536)"},
        {.name = "allow-rejected", .kind = CLI_ARG_FLAG, .p = &a->allow[0],
         .help = "leave out the implicit term jobs.rejected<=0 (rows no count serves: set aside)"},
        {.name = "allow-failed", .kind = CLI_ARG_FLAG, .p = &a->allow[1],
         .help = "leave out jobs.failed<=0 (OOM-killed, timed out)"},
        {.name = "allow-dropped", .kind = CLI_ARG_FLAG, .p = &a->allow[2],
         .help = "leave out: no inference request dropped"},
        {.name = "allow-unplaceable", .kind = CLI_ARG_FLAG, .p = &a->allow[3],
         .help = "leave out: no service replica that could not be placed"},
        CLI_SHARED(CLI_OPT_SET, "parameter for every policy; --policies entries may carry their own:\n"
                                "whole,whole[queue=fifo]"),
        CLI_SHARED(CLI_OPT_JOBS, NULL),
        {.name = "width", .arg = "K", .kind = CLI_ARG_LONG, .lo = 1, .hi = 64, .p = &a->width,
         .help = "counts run per round (default: --jobs over --seeds, at most 15);\n"
                 "1: one at a time. The evidence is the same at any width"},
        {.name = "engine", .arg = "E", .kind = CLI_ARG_CHOICE, .choices = "slurm,parallel,local", .p = &a->engine,
         .help = "run each round as a sweep on slurm (sbatch --array, waited for),\n"
                 "parallel (GNU parallel) or local, in OUT/sweep.<policy>.<candidate>/"},
        {.name = "sensitivity", .kind = CLI_ARG_FLAG, .p = &a->sensitivity,
         .help = "then search the answer and two runners-up again with each assumption that\n"
                 "can decide at both ends of its range (mem_bound_job: the card models'\n"
                 "speed ratio; services' cold start): does the winner change?\n"
                 "A tornado table, OUT/sensitivity.json (gpusim plot draws it)"},
        {.name = "format", .arg = "F", .kind = CLI_ARG_CHOICE, .choices = "text,json", .p = &a->format,
         .help = "text (default) or json"},
        CLI_SHARED(CLI_OPT_OUT, "runs and plan.json (default results/plan.<trace>.<first candidate>,\n"
                                "with '-and-more' after it when there are several)"),
        CLI_SHARED(CLI_OPT_UNTIL, "passed to each run"),
        CLI_SHARED(CLI_OPT_MODELS, "passed to each run"),
        {0},
    };
    return cli_opts_parse("plan", argc, argv, table, &a->o, plan_synopsis, plan_epilog, err);
}

/* 0, 1 after --help, or GS_EUSAGE. */
static int plan_options(int argc, char **argv, plan_args *a, gs_error *err)
{
    a->o.gpus_per_node = 8;
    a->o.seeds = PLAN_DEFAULT_SEEDS;
    a->margin = PLAN_DEFAULT_MARGIN;
    a->o.jobs = cli_batch_default_jobs();
    a->format = "text";
    a->fraction = 1.0;
    a->min_gpus = 1;
    a->max_gpus = 65536;
    int rc = plan_parse(argc, argv, a, err);
    if (rc)
        return rc;
    if (!a->o.trace || !a->policies || (!a->gpu_list && !a->ntemplates) || !a->o.slo)
        return gs_err(err, GS_EUSAGE, "plan: --trace, --policy (or --policies), --gpu (or "
                                      "--cluster-template) and --slo are required");
    if (a->min_gpus > a->max_gpus)
        return gs_err(err, GS_EUSAGE, "plan: --min-gpus is above --max-gpus");
    if (a->gpu_list && (strchr(a->gpu_list, ':') || !gs_text_list_ok(a->gpu_list, ','))) /* "," names no model */
        return gs_err(err, GS_EUSAGE, "--gpu: expected model names, comma separated ('gpusim models')");
    if (a->o.mig && !a->gpu_list)
        return gs_err(err, GS_EUSAGE, "--mig goes with --gpu (a template says \"mig\" per node group)");
    return 0;
}

/* {==== terms ====} */

/* The user's terms, then the implicit ones not left out by their flags. */
static int plan_terms(const plan_args *a, plan_ctx *cx, cli_batch_slo **slo, gs_error *err)
{
    int nslo = 0;
    int rc = cli_batch_slo_parse(a->o.slo, slo, &nslo, err);
    if (rc)
        return rc;
    int nuser = nslo;
    for (int t = 0; t < PLAN_NIMPLICIT; t++)
        if (!a->allow[t]) {
            *slo = xrealloc(*slo, (size_t)(nslo + 1) * sizeof **slo);
            (*slo)[nslo] = (cli_batch_slo){.op = CLI_BATCH_LE, .value = 0};
            snprintf((*slo)[nslo].path, sizeof (*slo)[nslo].path, "%s", plan_implicit_terms[t].path);
            nslo++;
        }
    cx->slo = *slo;
    cx->nslo = nslo;
    cx->nuser = nuser;
    /* at least ceil(fraction * seeds) seeds must meet every term */
    cx->need = (long)ceil(a->fraction * (double)cx->seeds - 1e-9);
    return 0;
}

/* plan.json's head: the question asked. */
static cJSON *plan_doc(const plan_args *a, const plan_ctx *cx, const candidate *cands, int ncands)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "plan");
    cJSON_AddStringToObject(doc, "trace", a->o.trace);
    char gl[1200] = "";
    for (int i = 0; i < ncands; i++)
        snprintf(gl + strlen(gl), sizeof gl - strlen(gl), "%s%s", i ? "," : "", cands[i].label);
    cJSON_AddStringToObject(doc, "gpu", gl);
    cJSON_AddNumberToObject(doc, "gpus_per_node", (double)a->o.gpus_per_node);
    if (a->o.mig)
        cJSON_AddStringToObject(doc, "mig", a->o.mig);
    cJSON_AddNumberToObject(doc, "seeds", (double)cx->seeds);
    cJSON_AddNumberToObject(doc, "fraction", a->fraction);
    cJSON *sa = cJSON_AddArrayToObject(doc, "slo");
    for (int t = 0; t < cx->nslo; t++) {
        const cli_batch_slo *s = &cx->slo[t];
        cJSON *to = cJSON_CreateObject();
        cJSON_AddStringToObject(to, "path", s->path);
        cJSON_AddStringToObject(to, "op", cli_batch_op_str(s->op));
        cJSON_AddNumberToObject(to, "value", s->value);
        if (t >= cx->nuser) { /* plot leaves implicit terms out of the figure */
            cJSON_AddBoolToObject(to, "implicit", 1);
            cJSON_AddStringToObject(to, "relax_flag", plan_term_flag(s->path));
        }
        cJSON_AddItemToArray(sa, to);
    }
    return doc;
}

/* {==== one entry: a candidate under a policy ====} */

typedef struct plan_state {
    const plan_args *a;
    plan_ctx *cx;
    const gpu_catalog *cat;
    candidate *cands;
    int ncands;
    const cli_batch_policy *pol;
    int npol;
    entry *ents;
    int nents, nimpossible;
    bool services;   /* the trace has service rows (start-up transients are possible) */
    cJSON *pa, *sra; /* plan.json's policies, search.json's policies */
} plan_state;

/* The answer's margin: the fewest cards from which every probed count met,
 * and the counts above the answer that failed (a non-monotone region). */
static void entry_margin(const plan_ctx *cx, entry *e, const planner *pl, long answer)
{
    long *x = xcalloc((size_t)pl->npts + 1, sizeof *x);
    bool *met = xcalloc((size_t)pl->npts + 1, sizeof *met);
    for (int i = 0; i < pl->npts; i++)
        x[i] = pl->pts[i].x, met[i] = pl->pts[i].met;
    plan_margin mg;
    plan_evidence_margin(x, met, pl->npts, answer, &mg);
    free(x);
    free(met);
    long cards, nodes;
    double usd;
    if (mg.stable_from > 0) {
        cli_plan_cands_size(cx, e->cand, mg.stable_from, &cards, &nodes, &usd, NULL);
        e->stable_gpus = cards;
        cJSON_AddNumberToObject(e->obj, "stable_from_gpus", (double)cards);
        if (!e->cand->model)
            cJSON_AddNumberToObject(e->obj, "stable_from_scale", (double)mg.stable_from);
    } else { /* the largest count probed failed */
        cJSON_AddNullToObject(e->obj, "stable_from_gpus");
    }
    cJSON_AddBoolToObject(e->obj, "non_monotone", mg.nfailed_above > 0);
    if (mg.nfailed_above > 0) {
        cJSON *fa = cJSON_AddArrayToObject(e->obj, "failed_above_answer");
        for (int i = 0; i < mg.nfailed_above; i++) {
            cli_plan_cands_size(cx, e->cand, mg.failed_above[i], &cards, &nodes, &usd, NULL);
            cJSON_AddItemToArray(fa, cJSON_CreateNumber((double)cards));
        }
    }
}

/* A base with burst groups: its cost per hour is the runs' bill at the
 * answer (the base's alone is base_cost_per_hour_usd), beside the burst's
 * peak. */
static void burst_answer(entry *e, const planner *pl, long answer)
{
    for (int i = 0; i < pl->npts; i++) {
        if (pl->pts[i].x != answer)
            continue;
        double v;
        if (!isnan(e->usd_h))
            cJSON_AddNumberToObject(e->obj, "base_cost_per_hour_usd", e->usd_h);
        e->usd_h = metrics_get(pl->pts[i].obj, "cost_per_hour_usd", &v) ? v : NAN;
        if (metrics_get(pl->pts[i].obj, "burst_peak_nodes", &v))
            cJSON_AddNumberToObject(e->obj, "burst_peak_nodes", v);
    }
}

/* The entry's verdict and answer, from a finished search. */
static void entry_answer(const plan_ctx *cx, entry *e, const planner *pl, long answer)
{
    if (answer) {
        cJSON *src = cJSON_CreateArray();
        cli_plan_cands_size(cx, e->cand, answer, &e->gpus, &e->nodes, &e->usd_h, src);
        if (!e->cand->model && cluster_template_has_burst(&e->cand->tpl, -1))
            burst_answer(e, pl, answer);
        cJSON_AddNumberToObject(e->obj, "gpus", (double)e->gpus);
        cJSON_AddNumberToObject(e->obj, "nodes", (double)e->nodes);
        if (!e->cand->model)
            cJSON_AddNumberToObject(e->obj, "scale", (double)answer);
        cJSON_AddStringToObject(e->obj, "verdict", "met");
        entry_margin(cx, e, pl, answer);
        if (!isnan(e->usd_h)) {
            cJSON_AddNumberToObject(e->obj, "price_per_gpu_hour_usd", e->usd_h / (double)e->gpus);
            cJSON_AddNumberToObject(e->obj, "cost_per_hour_usd", e->usd_h);
            cJSON_AddNumberToObject(e->obj, "cost_per_month_usd", e->usd_h * PLAN_HOURS_PER_MONTH);
        }
        cJSON_AddItemToObject(e->obj, "prices", src);
    } else {
        cJSON_AddNullToObject(e->obj, "gpus");
        cJSON_AddStringToObject(e->obj, "verdict", pl->absent_path[0] ? "metric absent"
                                                   : pl->plateau    ? "not met: plateau"
                                                                    : "not met");
        if (pl->absent_path[0])
            cJSON_AddStringToObject(e->obj, "absent_metric", pl->absent_path);
    }
    cJSON *ev = cJSON_AddArrayToObject(e->obj, "points");
    for (int i = 0; i < pl->npts; i++)
        cJSON_AddItemToArray(ev, pl->pts[i].obj);
}

/* How the search went (search.json, and one line on stderr): not evidence,
 * it depends on the width, so not in plan.json. Frees the speculative
 * points. */
static void entry_search_log(plan_state *st, const entry *e, planner *pl)
{
    int unused = 0;
    for (int i = 0; i < pl->ndone; i++)
        if (!pl->done[i].used) {
            unused++;
            cJSON_Delete(pl->done[i].obj);
        }
    cJSON *so = cJSON_CreateObject();
    const char *label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "label"));
    cJSON_AddStringToObject(so, "label", label);
    cJSON_AddNumberToObject(so, "rounds", pl->rounds);
    cJSON_AddNumberToObject(so, "counts_run", pl->ndone);
    cJSON_AddNumberToObject(so, "counts_in_evidence", pl->npts);
    cJSON_AddNumberToObject(so, "runs", (double)pl->ndone * (double)st->cx->seeds);
    cJSON_AddItemToArray(st->sra, so);
    fprintf(stderr, "plan: %s: %d count%s in %d round%s at width %ld (%d speculative, not on the search's path)\n",
            cJSON_GetStringValue(so->child), pl->ndone, pl->ndone == 1 ? "" : "s", pl->rounds,
            pl->rounds == 1 ? "" : "s", st->cx->width, unused);
}

/* Searches entry e (feasible, or its rows set aside). On failure the entry
 * is dropped. */
static int entry_search(plan_state *st, entry *e, gs_error *err)
{
    const plan_args *a = st->a;
    planner pl = {.cx = st->cx, .pol = e->pol, .cand = e->cand};
    long min_x = a->min_gpus, max_x = a->max_gpus, answer = 0;
    if (!e->cand->model) { /* a template searches its scale N */
        min_x = 1;
        max_x = cli_plan_search_max_scale(st->cx, e->cand, a->max_gpus);
    }
    int rc = cli_plan_search(&pl, min_x, max_x, &answer, err);
    bool burst = !e->cand->model && cluster_template_has_burst(&e->cand->tpl, -1);
    if (rc == 0 && answer && burst) {
        cJSON_AddNumberToObject(e->obj, "smallest_scale", (double)answer);
        rc = cli_plan_search_cheapest(&pl, answer, max_x, &answer, err);
    }
    if (pl.npts > 1) /* a round that failed first left none (and qsort must not see NULL) */
        qsort(pl.pts, (size_t)pl.npts, sizeof *pl.pts, cli_plan_search_cmp_point);
    if (rc == 0) {
        entry_answer(st->cx, e, &pl, answer);
        if (!answer && !pl.absent_path[0] && st->services && pl.npts)
            rc = cli_plan_checks_transient(e, &pl, err);
    }
    if (rc == 0) {
        cJSON_AddItemToArray(st->pa, e->obj);
        entry_search_log(st, e, &pl);
    } else {
        for (int i = 0; i < pl.npts; i++)
            cJSON_Delete(pl.pts[i].obj);
        for (int i = 0; i < pl.ndone; i++)
            if (!pl.done[i].used)
                cJSON_Delete(pl.done[i].obj);
        cJSON_Delete(e->obj);
        st->nents--;
    }
    free(pl.done);
    free(pl.pts);
    return rc;
}

/* Entry e's card cannot hold its serving configuration (--tp, --dtype):
 * impossible, with the reason, never searched. */
static int entry_cannot_hold(plan_state *st, entry *e, const char *why)
{
    e->impossible = true;
    st->nimpossible++;
    cJSON_AddNullToObject(e->obj, "gpus");
    cJSON_AddStringToObject(e->obj, "verdict", "impossible");
    cJSON_AddStringToObject(e->obj, "reason", why);
    cJSON_AddArrayToObject(e->obj, "points");
    fprintf(stderr, "plan: %s on %s is impossible: %s\n", e->pol->label, e->cand->label, why);
    cJSON_AddItemToArray(st->pa, e->obj);
    return 0;
}

/* Candidate ci under policy p: its feasibility (the trace read once per
 * candidate and kind of policy), then impossible or searched. */
static int plan_entry(plan_state *st, int ci, int p, gs_error *err)
{
    candidate *cd = &st->cands[ci];
    const cli_batch_policy *pol = &st->pol[p];
    entry *e = &st->ents[st->nents++];
    *e = (entry){.cand = cd, .pol = pol, .obj = cJSON_CreateObject()};
    char label[400];
    if (st->ncands > 1)
        snprintf(label, sizeof label, "%s on %s", pol->label, cd->label);
    else
        snprintf(label, sizeof label, "%s", pol->label);
    cJSON_AddStringToObject(e->obj, "label", label);
    cJSON_AddStringToObject(e->obj, "policy", pol->name);
    cJSON_AddStringToObject(e->obj, "candidate", cd->label);
    cJSON_AddStringToObject(e->obj, "candidate_kind", cd->model ? "gpu" : "cluster-template");
    char why[400] = "";
    int rc;
    if ((st->a->tps || st->a->dtypes) && (rc = cli_plan_serving_check(st->cx, cd, pol, why, sizeof why, err)) != 0) {
        cJSON_Delete(e->obj);
        st->nents--;
        return rc;
    }
    if (*why) /* this card cannot hold the configuration: nothing to search */
        return entry_cannot_hold(st, e, why);
    plan_feasibility feas, *f = &feas;
    if ((rc = cli_plan_checks_feasibility(&st->a->o, st->cat, cd, pol, f, err)) != 0) {
        cJSON_Delete(e->obj);
        st->nents--;
        return rc;
    }
    cJSON_AddItemToObject(e->obj, "feasibility", cli_plan_output_feasibility(f));
    char what[600];
    if (f->bad > 0 && !st->a->allow[0]) {
        e->impossible = true;
        st->nimpossible++;
        cJSON_AddNullToObject(e->obj, "gpus");
        cJSON_AddStringToObject(e->obj, "verdict", "impossible");
        cJSON_AddArrayToObject(e->obj, "points");
        snprintf(what, sizeof what, "plan: %s on %s is impossible", pol->label, cd->label);
        cli_plan_output_impossible(stderr, what, f, false);
        cJSON_AddItemToArray(st->pa, e->obj);
        return 0;
    }
    if (!cli_plan_checks_mig_applies(cd, pol)) { /* not what its name says: never searched, never the answer */
        e->impossible = true;
        st->nimpossible++;
        cJSON_AddNullToObject(e->obj, "gpus");
        cJSON_AddStringToObject(e->obj, "verdict", "not applicable");
        cJSON_AddStringToObject(e->obj, "why", cd->model ? "no MIG-enabled cards: give --mig LAYOUT (e.g. dynamic) with --gpu"
                                                         : "no MIG-enabled cards: the template has no node group with a "
                                                           "\"mig\" key");
        cJSON_AddArrayToObject(e->obj, "points");
        fprintf(stderr, "plan: %s on %s is not applicable: %s has no MIG-enabled cards\n", pol->label, cd->label,
                cd->label);
        cJSON_AddItemToArray(st->pa, e->obj);
        return 0;
    }
    if (f->bad > 0)
        cJSON_AddNumberToObject(e->obj, "rows_set_aside", (double)f->bad);
    if ((rc = entry_search(st, e, err)) != 0)
        return rc;
    if (f->bad > 0 && !strcmp(st->a->format, "text")) {
        snprintf(what, sizeof what, "note: %s on %s", pol->label, cd->label);
        cli_plan_output_impossible(stdout, what, f, true);
    }
    return 0;
}

/* {==== the command ====} */

/* OUT/plan.json and OUT/search.json; *text is plan.json's text. */
static int plan_write(const char *odir, const cJSON *doc, const cJSON *sdoc, char **text, gs_error *err)
{
    *text = gs_json_print(doc, NULL);
    char path[1000];
    snprintf(path, sizeof path, "%s/plan.json", odir);
    int rc = cli_batch_mkdirs(odir, err);
    if (rc == 0)
        rc = cli_batch_write_text(path, *text, err);
    char *stext = gs_json_print(sdoc, NULL);
    snprintf(path, sizeof path, "%s/search.json", odir);
    if (rc == 0)
        rc = cli_batch_write_text(path, stext, err);
    free(stext);
    return rc;
}

/* Catalog, prices, candidates, policies and terms: everything the entries
 * need. On failure the caller frees what plan_setup made. */
static int plan_setup(plan_args *a, plan_ctx *cx, gpu_catalog *cat, plan_state *st, cli_batch_slo **slo,
                      cli_batch_policy **pol, gs_error *err)
{
    cli_opts *com = &a->o;
    for (int i = 0; i < com->nprices; i++) {
        int rc = cli_plan_cands_price(cx, cat, com->prices[i], err);
        if (rc)
            return rc;
    }
    int rc = cli_plan_cands_gpus(a->gpu_list, a->o.gpus_per_node, a->o.mig, cat, st->cands, &st->ncands, err);
    if (rc == 0)
        rc = cli_plan_cands_templates(a->templates, a->ntemplates, cat, st->cands, &st->ncands, err);
    char *plist = NULL;
    if (rc == 0 && (a->tps || a->dtypes))
        rc = cli_plan_serving_expand(a->policies, a->tps, a->dtypes, &plist, err);
    if (rc == 0)
        rc = cli_batch_policies_parse(plist ? plist : a->policies, pol, &st->npol, err);
    free(plist);
    st->pol = *pol;
    if (rc == 0)
        rc = plan_terms(a, cx, slo, err);
    return rc;
}

static void plan_free(plan_state *st, cli_batch_slo *slo, cli_batch_policy *pol, gpu_catalog *cat)
{
    free(st->ents);
    free(slo);
    cli_batch_policies_free(pol, st->npol);
    for (int i = 0; i < st->ncands; i++) {
        sim_cluster_free(&st->cands[i].unit);
        if (!st->cands[i].model)
            cluster_template_free(&st->cands[i].tpl);
    }
    free(st->cands);
    gpu_catalog_free(cat);
}

int cmd_plan(int argc, char **argv)
{
    static plan_args a; /* cli_opts holds the --set table: off the stack */
    memset(&a, 0, sizeof a);
    gs_error err = {0};
    int rc = plan_options(argc, argv, &a, &err);
    if (rc)
        return rc == 1 ? 0 : cli_fail(&err);
    char mdir[512]; /* the catalog: card facts for feasibility and prices */
    if (a.o.models)
        snprintf(mdir, sizeof mdir, "%s", a.o.models);
    else
        gpu_catalog_default_dir(mdir, sizeof mdir);
    gpu_catalog cat;
    if (gpu_catalog_load(&cat, mdir, &err))
        return cli_fail(&err);
    long seeds = a.o.seeds, jobs = a.o.jobs, width = a.width;
    if (width == 0) /* one count per free worker: --jobs (the online cores) over the seeds a count runs */
        width = jobs / seeds < 1 ? 1 : jobs / seeds > PLAN_WIDTH_MAX ? PLAN_WIDTH_MAX : jobs / seeds;
    plan_ctx cx = {.com = &a.o, .cat = &cat, .seeds = seeds, .jobs = jobs, .width = width, .engine = a.engine,
                   .min_gpus = a.min_gpus, .max_gpus = a.max_gpus, .margin = a.margin};
    plan_state st = {.a = &a, .cx = &cx, .cat = &cat, .cands = xcalloc(PLAN_MAX_CANDS, sizeof *st.cands)};
    cli_batch_slo *slo = NULL;
    cli_batch_policy *pol = NULL;
    rc = plan_setup(&a, &cx, &cat, &st, &slo, &pol, &err);
    if (rc == 0)
        rc = cli_plan_checks_trace(&a.o, &cx, st.cands, st.ncands, st.pol, st.npol, &st.services, &err);
    char odir[900];
    if (a.o.out) {
        snprintf(odir, sizeof odir, "%s", a.o.out);
    } else if (rc == 0) { /* names the candidates: two plans of one trace do not overwrite each other */
        char base[400];
        cli_batch_default_out(base, sizeof base, "plan", a.o.trace);
        snprintf(odir, sizeof odir, "%s.%s%s", base, st.cands[0].slug, st.ncands > 1 ? "-and-more" : "");
    }
    cx.odir = odir;
    cJSON *doc = rc == 0 ? plan_doc(&a, &cx, st.cands, st.ncands) : cJSON_CreateObject();
    if (cx.ref_warning[0])
        cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "warnings"), cJSON_CreateString(cx.ref_warning));
    st.ents = xcalloc((size_t)(st.ncands * (st.npol ? st.npol : 1)) + 1, sizeof *st.ents);
    st.pa = cJSON_AddArrayToObject(doc, "policies");
    cJSON *sdoc = cJSON_CreateObject(); /* OUT/search.json: the rounds and runs behind the evidence */
    cJSON_AddNumberToObject(sdoc, "width", (double)width);
    cJSON_AddNumberToObject(sdoc, "jobs", (double)jobs);
    st.sra = cJSON_AddArrayToObject(sdoc, "policies");
    for (int ci = 0; ci < st.ncands && rc == 0; ci++)
        for (int p = 0; p < st.npol && rc == 0; p++)
            rc = plan_entry(&st, ci, p, &err);
    char *text = NULL;
    if (rc == 0)
        rc = plan_write(odir, doc, sdoc, &text, &err);
    if (rc == 0 && !strcmp(a.format, "json"))
        fputs(text, stdout);
    else if (rc == 0)
        cli_plan_output_text(&cx, a.o.trace, st.ents, st.nents);
    if (rc == 0 && a.sensitivity && st.nimpossible < st.nents)
        rc = cli_plan_sensitivity(&cx, st.ents, st.nents, &err);
    if (rc == 0 && st.nimpossible > 0 && st.nimpossible == st.nents)
        rc = gs_err(&err, GS_EFAIL, "plan: no candidate can serve every row of %s (rows and reasons above); "
                    "--allow-rejected sets them aside", a.o.trace);
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(sdoc);
    plan_free(&st, slo, pol, &cat);
    return rc ? cli_fail(&err) : 0;
}
