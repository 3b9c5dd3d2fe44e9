/* cli_plan_sens.c - `plan --sensitivity`: would the answer change if an
 * assumption that decided it were different?
 *
 * The answer and its two cheapest runners-up (SENS_TOP entries, priced and
 * met) are searched again with each assumption at the two ends of a stated
 * range, everything else as given; each end names its winner (the cheapest
 * of those entries there) and says whether it is still the answer.
 * Assumptions, each only where it can decide:
 *   - mem_bound_job (0.1 and 0.6 around the default 0.3): the share of a
 *     job's time bound by memory bandwidth, which sets the speed ratio
 *     between card models (sim/sim_hw.h); varied when the entries use more
 *     than one card model; the ratio at each end is printed;
 *   - the cold start of a service replica (pod start, imports, compile,
 *     graph capture x 0.5 and x 2, the weight-load bandwidth / 0.5 and / 2):
 *     varied when the trace has services;
 *   - every failure rate (fail_scale x 0.5 and x 2): varied when the runs
 *     model failures (--set failures=on); otherwise the output says so.
 * A value the user --set is the middle of its range (the ends scale it).
 *
 * Writes OUT/sensitivity.json (read by `gpusim plot`: the tornado figure)
 * and prints the tornado table, widest swing of the answer's $/hour first.
 * Each end's runs go to OUT/sensitivity/<assumption>.<end>/. Cost: SENS_TOP
 * searches per end, each starting at half its base answer (not below
 * --min-gpus).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plan.h"
#include "../sim/sim.h"
#include "../sim/sim_hw.h"

#define SENS_TOP 3
#define SENS_MAX_SETS 6

typedef struct sens_end {
    const char *label;              /* "0.1", "x 0.5" */
    char sets[SENS_MAX_SETS][96];   /* KEY=VALUE added to every run */
    int nsets;
    long gpus[SENS_TOP];            /* each entry's answer there, 0: none */
    double usd_h[SENS_TOP];
    int winner;                     /* index into the top entries, -1: none met */
} sens_end;

typedef struct sens_assumption {
    const char *name, *what;
    char note[200];
    sens_end end[2];
} sens_assumption;

/* The text of core parameter key: the user's --set, else its default;
 * NULL when there is no such parameter. */
static const char *param_text(const plan_ctx *cx, const char *key)
{
    size_t l = strlen(key);
    for (int i = cx->com->nsets; i-- > 0;)
        if (!strncmp(cx->com->sets[i], key, l) && cx->com->sets[i][l] == '=')
            return cx->com->sets[i] + l + 1;
    for (const pol_param *const *t = sim_core_params(); *t; t++)
        for (const pol_param *p = *t; p->name; p++)
            if (!strcmp(p->name, key))
                return p->def;
    return NULL;
}

/* The value of core parameter key, NaN when there is none. */
static double param_value(const plan_ctx *cx, const char *key)
{
    const char *t = param_text(cx, key);
    return t ? strtod(t, NULL) : NAN;
}

/* Are failures modelled in the plan's runs (--set failures=on)? */
static bool failures_on(const plan_ctx *cx)
{
    const char *t = param_text(cx, "failures");
    return t && !strcmp(t, "on");
}

/* The card models of an entry's candidate (its instance at scale 1). */
static int models_of(const entry *e, const gpu_model **out, int n)
{
    int k = 0;
    for (int p = 0; p < e->cand->unit.npools; p++) {
        const gpu_model *m = e->cand->unit.pools[p].model;
        bool seen = false;
        for (int i = 0; i < k; i++)
            seen |= out[i] == m;
        if (!seen && k < n)
            out[k++] = m;
    }
    return k;
}

/* The answer's first run report: do the runs have services? */
static bool has_services(const entry *e)
{
    const cJSON *pt;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(e->obj, "points"))
    {
        const char *run = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pt, "runs"), 0));
        gs_error err = {0};
        cJSON *r = run ? cli_batch_read_report(run, &err) : NULL;
        bool any = r && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "services")) > 0;
        cJSON_Delete(r);
        if (r)
            return any;
    }
    return false;
}

/* The assumptions that can decide among the top entries. */
static int assumptions(const plan_ctx *cx, const entry *const *top, int ntop, sens_assumption *as)
{
    int n = 0;
    const gpu_model *ms[8];
    int nm = 0;
    for (int i = 0; i < ntop; i++) {
        const gpu_model *mine[8];
        int k = models_of(top[i], mine, 8);
        for (int j = 0; j < k; j++) {
            bool seen = false;
            for (int q = 0; q < nm; q++)
                seen |= ms[q] == mine[j];
            if (!seen && nm < 8)
                ms[nm++] = mine[j];
        }
    }
    if (nm > 1) {
        sens_assumption *a = &as[n++];
        double base = param_value(cx, "mem_bound_job"), lo = base / 3, hi = fmin(1, base * 2);
        *a = (sens_assumption){.name = "mem_bound_job",
                               .what = "share of a job's time bound by memory bandwidth (the card models' speed ratio)"};
        a->end[0].label = "low", a->end[1].label = "high";
        snprintf(a->end[0].sets[0], sizeof a->end[0].sets[0], "mem_bound_job=%.3g", lo);
        snprintf(a->end[1].sets[0], sizeof a->end[1].sets[0], "mem_bound_job=%.3g", hi);
        a->end[0].nsets = a->end[1].nsets = 1;
        /* the two first models' speed ratio at each end and at the base:
         * time on the slower / time on the faster */
        const gpu_model *slow = ms[0], *fast = ms[1];
        if (sim_hw_time_ratio(slow, fast, base, 1, 1) > 1)
            slow = ms[1], fast = ms[0];
        snprintf(a->note, sizeof a->note, "%.3g / %.3g (as given) / %.3g: %s runs a job %.2fx / %.2fx / %.2fx as fast as %s",
                 lo, base, hi, fast->name, 1 / sim_hw_time_ratio(slow, fast, lo, 1, 1),
                 1 / sim_hw_time_ratio(slow, fast, base, 1, 1), 1 / sim_hw_time_ratio(slow, fast, hi, 1, 1), slow->name);
    }
    bool svc = false;
    for (int i = 0; i < ntop; i++)
        svc |= has_services(top[i]);
    if (svc) {
        static const char *const times[] = {"svc_pod_start_s", "svc_import_s", "svc_compile_s", "svc_graph_s"};
        sens_assumption *a = &as[n++];
        *a = (sens_assumption){.name = "cold_start",
                               .what = "a service replica's cold start (pod start, imports, weight load, compile, graph)"};
        a->end[0].label = "x 0.5", a->end[1].label = "x 2";
        for (int e = 0; e < 2; e++) {
            double f = e ? 2 : 0.5;
            for (int t = 0; t < 4; t++)
                snprintf(a->end[e].sets[t], sizeof a->end[e].sets[t], "%s=%.6g", times[t], param_value(cx, times[t]) * f);
            snprintf(a->end[e].sets[4], sizeof a->end[e].sets[4], "svc_load_gbps=%.6g",
                     param_value(cx, "svc_load_gbps") / f);
            a->end[e].nsets = 5;
        }
        snprintf(a->note, sizeof a->note, "the svc_* times x 0.5 and x 2 (weight-load bandwidth / 0.5 and / 2)");
    }
    if (failures_on(cx)) { /* every failure rate scaled (sim/sim_fail.h's fail_scale) */
        sens_assumption *a = &as[n++];
        double base = param_value(cx, "fail_scale");
        *a = (sens_assumption){.name = "fail_scale", .what = "every hardware failure rate (the model files' rates x this)"};
        a->end[0].label = "x 0.5", a->end[1].label = "x 2";
        snprintf(a->end[0].sets[0], sizeof a->end[0].sets[0], "fail_scale=%.6g", base * 0.5);
        snprintf(a->end[1].sets[0], sizeof a->end[1].sets[0], "fail_scale=%.6g", base * 2);
        a->end[0].nsets = a->end[1].nsets = 1;
        snprintf(a->note, sizeof a->note, "%.6g / %.6g (as given) / %.6g: failure rates x 0.5, as given, x 2",
                 base * 0.5, base, base * 2);
    }
    return n;
}

/* Searches entry e again with the end's sets: its answer's cards and
 * $/hour. */
static int research(const plan_ctx *cx, const entry *e, const sens_end *end, const char *odir, long *gpus,
                    double *usd_h, gs_error *err)
{
    static cli_opts o; /* the sets table: off the stack */
    o = *cx->com;
    for (int i = 0; i < end->nsets && o.nsets < CLI_OPTS_MAX_SETS; i++)
        o.sets[o.nsets++] = end->sets[i];
    plan_ctx c2 = *cx;
    c2.com = &o;
    c2.odir = odir;
    planner pl = {.cx = &c2, .pol = e->pol, .cand = e->cand};
    double base_x = 0;
    metrics_get(e->obj, e->cand->model ? "gpus" : "scale", &base_x);
    long min_x = base_x >= 2 ? (long)base_x / 2 : 1, answer = 0;
    if (e->cand->model && min_x < cx->min_gpus) /* never below where the plan's own search started */
        min_x = cx->min_gpus;
    long max_x = e->cand->model ? cx->max_gpus : cli_plan_search_max_scale(cx, e->cand, cx->max_gpus);
    int rc = cli_plan_search(&pl, min_x, max_x, &answer, err);
    *gpus = 0;
    *usd_h = NAN;
    long nodes;
    if (rc == 0 && answer)
        cli_plan_cands_size(cx, e->cand, answer, gpus, &nodes, usd_h, NULL);
    for (int i = 0; i < pl.ndone; i++)
        cJSON_Delete(pl.done[i].obj);
    free(pl.done);
    free(pl.pts);
    return rc;
}

static int cmp_usd(const void *a, const void *b)
{
    const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
    return (x->usd_h > y->usd_h) - (x->usd_h < y->usd_h);
}

/* The answer's $/hour swing of an assumption: how far its ends' winners lie
 * from the base answer. */
static double swing(const sens_assumption *a)
{
    double lo = a->end[0].winner >= 0 ? a->end[0].usd_h[a->end[0].winner] : NAN;
    double hi = a->end[1].winner >= 0 ? a->end[1].usd_h[a->end[1].winner] : NAN;
    return isnan(lo) || isnan(hi) ? INFINITY : fabs(hi - lo);
}

static int cmp_swing(const void *a, const void *b)
{
    double x = swing(a), y = swing(b);
    return (x < y) - (x > y);
}

static cJSON *end_json(const sens_end *d, const entry *const *top, int ntop)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "end", d->label);
    cJSON *s = cJSON_AddArrayToObject(o, "set");
    for (int i = 0; i < d->nsets; i++)
        cJSON_AddItemToArray(s, cJSON_CreateString(d->sets[i]));
    cJSON *es = cJSON_AddArrayToObject(o, "entries");
    for (int i = 0; i < ntop; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "label", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(top[i]->obj, "label")));
        if (d->gpus[i])
            cJSON_AddNumberToObject(e, "gpus", (double)d->gpus[i]);
        else
            cJSON_AddNullToObject(e, "gpus");
        if (isnan(d->usd_h[i]))
            cJSON_AddNullToObject(e, "cost_per_hour_usd");
        else
            cJSON_AddNumberToObject(e, "cost_per_hour_usd", d->usd_h[i]);
        cJSON_AddItemToArray(es, e);
    }
    if (d->winner >= 0) {
        cJSON_AddStringToObject(o, "winner",
                                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(top[d->winner]->obj, "label")));
        cJSON_AddNumberToObject(o, "winner_cost_per_hour_usd", d->usd_h[d->winner]);
    } else {
        cJSON_AddNullToObject(o, "winner");
    }
    cJSON_AddBoolToObject(o, "winner_changes", d->winner != 0);
    return o;
}

static void print_table(const sens_assumption *as, int n, const entry *const *top, int ntop)
{
    printf("\nsensitivity: the answer and %d runner%s-up searched again with each assumption at both ends\n",
           ntop - 1, ntop == 2 ? "" : "s");
    printf("(widest swing of the answer's $/hour first)\n");
    printf("%-14s %-6s %-44s %12s  %s\n", "assumption", "end", "winner there", "$/hour", "winner changes");
    for (int i = 0; i < n; i++) {
        for (int e = 0; e < 2; e++) {
            const sens_end *d = &as[i].end[e];
            const char *w = d->winner >= 0 ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(top[d->winner]->obj,
                                                                                                "label"))
                                           : "none met";
            printf("%-14s %-6s %-44s %12.2f  %s\n", e ? "" : as[i].name, d->label, w,
                   d->winner >= 0 ? d->usd_h[d->winner] : NAN, d->winner == 0 ? "no" : "YES");
        }
        printf("  %s: %s\n", as[i].name, as[i].note);
    }
}

int cli_plan_sensitivity(const plan_ctx *cx, const entry *ents, int nents, gs_error *err)
{
    const entry *top[SENS_TOP + 1];
    const entry **met = xcalloc((size_t)nents + 1, sizeof *met);
    int nmet = 0;
    for (int i = 0; i < nents; i++)
        if (!ents[i].impossible && ents[i].gpus > 0 && !isnan(ents[i].usd_h))
            met[nmet++] = &ents[i];
    qsort(met, (size_t)nmet, sizeof *met, cmp_usd);
    int ntop = nmet < SENS_TOP ? nmet : SENS_TOP;
    memcpy(top, met, (size_t)ntop * sizeof *top);
    free(met);
    if (ntop == 0) {
        printf("\nsensitivity: no priced answer to test\n");
        return 0;
    }
    sens_assumption as[4];
    int na = assumptions(cx, top, ntop, as), rc = 0;
    for (int i = 0; i < na && rc == 0; i++)
        for (int e = 0; e < 2 && rc == 0; e++) {
            sens_end *d = &as[i].end[e];
            d->winner = -1;
            for (int k = 0; k < ntop && rc == 0; k++) {
                char odir[1200];
                snprintf(odir, sizeof odir, "%s/sensitivity/%s.%s", cx->odir, as[i].name, e ? "high" : "low");
                rc = research(cx, top[k], d, odir, &d->gpus[k], &d->usd_h[k], err);
                if (rc == 0 && d->gpus[k] && (d->winner < 0 || d->usd_h[k] < d->usd_h[d->winner]))
                    d->winner = k;
            }
        }
    if (rc)
        return rc;
    qsort(as, (size_t)na, sizeof *as, cmp_swing);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "sensitivity");
    cJSON_AddStringToObject(doc, "answer", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(top[0]->obj, "label")));
    cJSON_AddNumberToObject(doc, "answer_cost_per_hour_usd", top[0]->usd_h);
    cJSON *aa = cJSON_AddArrayToObject(doc, "assumptions");
    for (int i = 0; i < na; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", as[i].name);
        cJSON_AddStringToObject(o, "what", as[i].what);
        cJSON_AddStringToObject(o, "range", as[i].note);
        cJSON *ends = cJSON_AddArrayToObject(o, "ends");
        for (int e = 0; e < 2; e++)
            cJSON_AddItemToArray(ends, end_json(&as[i].end[e], top, ntop));
        cJSON_AddBoolToObject(o, "winner_changes", as[i].end[0].winner != 0 || as[i].end[1].winner != 0);
        cJSON_AddItemToArray(aa, o);
    }
    if (!failures_on(cx))
        cJSON_AddStringToObject(doc, "not_varied", "failure rates: failures are off (--set failures=on models them)");
    char *text = cJSON_Print(doc), path[1000];
    char *withnl = cli_batch_fmt("%s\n", text);
    snprintf(path, sizeof path, "%s/sensitivity.json", cx->odir);
    rc = cli_batch_write_text(path, withnl, err);
    free(withnl);
    free(text);
    cJSON_Delete(doc);
    if (rc == 0) {
        print_table(as, na, top, ntop);
        if (na == 0)
            printf("  (no assumption here can decide: one card model, no services, failures off)\n");
        if (!failures_on(cx))
            printf("  (failure rates not varied: failures are off; --set failures=on models them)\n");
        printf("sensitivity.json: %s\n", path);
    }
    return rc;
}
