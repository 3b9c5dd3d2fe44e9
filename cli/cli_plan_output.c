/* cli_plan_output.c - what `plan` says: plan.json's feasibility object,
 * the rows no count can serve, and the text answer (the buyer's table
 * cheapest first, the runs' warnings, the evidence of each entry).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plan.h"
#include "cli_plan_terms.h"

cJSON *cli_plan_output_feasibility(const plan_feasibility *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rows_checked", (double)f->rows);
    cJSON_AddNumberToObject(o, "rows_impossible", (double)f->bad);
    cJSON *k = cJSON_AddObjectToObject(o, "by_reason");
    for (int i = 0; i < PF_NKINDS; i++)
        if (f->by_kind[i])
            cJSON_AddNumberToObject(k, plan_feasible_kind((pf_kind)i), (double)f->by_kind[i]);
    cJSON *ex = cJSON_AddArrayToObject(o, "examples");
    for (int i = 0; i < f->nex; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "line", (double)f->ex[i].line);
        cJSON_AddStringToObject(e, "id", f->ex[i].id);
        cJSON_AddStringToObject(e, "why", f->ex[i].why);
        cJSON_AddItemToArray(ex, e);
    }
    return o;
}

void cli_plan_output_impossible(FILE *out, const char *what, const plan_feasibility *f, bool set_aside)
{
    fprintf(out, "%s: %ld of %ld rows can never be served by any count of it%s:\n", what, f->bad, f->rows,
            set_aside ? " (set aside by --allow-rejected: they count as rejected)" : "");
    for (int i = 0; i < f->nex; i++)
        fprintf(out, "  line %ld %s: %s\n", f->ex[i].line, f->ex[i].id, f->ex[i].why);
    if (f->bad > f->nex)
        fprintf(out, "  ... and %ld more rows\n", f->bad - f->nex);
}


/* Cards of the first of the plateau's points: the last three of the sorted
 * evidence (for the table's message). */
static long first_gpus(const cJSON *entry_obj)
{
    double g = 0;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(entry_obj, "points");
    int n = cJSON_GetArraySize(pts);
    for (int i = n - 3; i < n && n >= 3; i++) /* the plateau is the last three doublings */
        if (metrics_get(cJSON_GetArrayItem(pts, i), "gpus", &g))
            break;
    return (long)g;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int rx = x->gpus ? (isnan(x->usd_h) ? 1 : 0) : 2, ry = y->gpus ? (isnan(y->usd_h) ? 1 : 0) : 2;
    if (rx != ry)
        return rx - ry; /* priced answers, unpriced answers, then no answer */
    if (rx == 0 && x->usd_h != y->usd_h)
        return x->usd_h < y->usd_h ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return 0; /* qsort is not stable: the caller breaks ties by index */
}

typedef struct ranked {
    entry e;
    int idx;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int c = cmp_entry(&x->e, &y->e);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* {==== the text answer ====} */

static void print_head(const plan_ctx *cx, const char *trace)
{
    printf("plan: %s, %ld seed%s, %s of seeds must meet:", trace, cx->seeds, cx->seeds > 1 ? "s" : "",
           cx->need == cx->seeds ? "all" : "a share");
    for (int t = 0; t < cx->nuser; t++)
        printf(" %s%s%g", cx->slo[t].path, cli_batch_op_str(cx->slo[t].op), cx->slo[t].value);
    printf("\nimplicit terms (a failed run never passes; each is left out by its flag):");
    for (int t = cx->nuser; t < cx->nslo; t++)
        printf(" %s<=0 (%s)", cx->slo[t].path, plan_term_flag(cx->slo[t].path));
    if (cx->nuser == cx->nslo)
        printf(" none");
    printf("\n");
}

/* Not applicable (a MIG policy on cards without MIG): never searched, and
 * its name is not what it would run, so it is listed under the table, never
 * a row of it; the text says why. */
static const char *not_applicable(const entry *e)
{
    return e->impossible ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "why")) : NULL;
}

/* The table's line of an entry with no answer: impossible, a plateau, a
 * metric never measured, or not met up to --max-gpus. */
static void print_unanswered(const plan_ctx *cx, const entry *e, int w_pol, int w_cand)
{
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "reason"));
    if (e->impossible && reason) { /* a serving configuration the card cannot hold (cli_plan_serving.c) */
        printf("%-*s %-*s %7s %8s %6s   impossible: %s\n", w_pol, e->pol->label, w_cand, e->cand->label, "-", "-",
               "-", reason);
        return;
    }
    if (e->impossible) {
        double nb = 0;
        metrics_get(e->obj, "feasibility.rows_impossible", &nb);
        printf("%-*s %-*s %7s %8s %6s   impossible: %.0f row%s no count of it can serve (listed on stderr)\n",
               w_pol, e->pol->label, w_cand, e->cand->label, "-", "-", "-", nb, nb == 1 ? "" : "s");
        return;
    }
    const char *am = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "absent_metric"));
    const char *vd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "verdict"));
    double wg = 0;
    if (vd && strstr(vd, "start-up") && metrics_get(e->obj, "warm_probe.gpus", &wg))
        printf("%-*s %-*s %7s %8s %6s   not met: decided by replica start-up, not capacity: with replicas\n"
               "%-*s %-*s %7s %8s %6s   starting at once %.0f cards meet every term (plan.json warm_probe): warm\n"
               "%-*s %-*s %7s %8s %6s   the services up first (--warmup-s, a warm-up window) or ask the steady state\n",
               w_pol, e->pol->label, w_cand, e->cand->label, "-", "-", "-", w_pol, "", w_cand, "", "", "", "", wg,
               w_pol, "", w_cand, "", "", "", "");
    else if (vd && strstr(vd, "plateau"))
        printf("%-*s %-*s %7s %8s %6s   not met: the figures stay the same from %ld cards on (more "
               "cards do not help; see evidence)\n", w_pol, e->pol->label, w_cand, e->cand->label, "-", "-", "-",
               first_gpus(e->obj));
    else if (am)
        printf("%-*s %-*s %7s %8s %6s   metric absent: '%s' was never measured although every job and "
               "request was served (check the path)\n", w_pol, e->pol->label, w_cand, e->cand->label, "-", "-", "-",
               am);
    else
        printf("%-*s %-*s %7s %8s %6s   not met up to %ld cards\n", w_pol, e->pol->label, w_cand, e->cand->label,
               "-", "-", "-", cx->max_gpus);
}

/* The buyer's table: priced answers cheapest first, unpriced answers, then
 * the entries with no answer, ties in entry order. */
static void print_table(const plan_ctx *cx, const entry *ents, int nents)
{
    int w_pol = 24, w_cand = 26; /* widened to the longest label: the columns stay aligned */
    for (int i = 0; i < nents; i++) {
        if ((int)strlen(ents[i].pol->label) > w_pol)
            w_pol = (int)strlen(ents[i].pol->label);
        if ((int)strlen(ents[i].cand->label) > w_cand)
            w_cand = (int)strlen(ents[i].cand->label);
    }
    printf("\nbuyer's table, cheapest first ($/month = 730 h):\n");
    printf("%-*s %-*s %7s %8s %6s %12s %14s  %s\n", w_pol, "policy", w_cand, "card or cluster", "cards", "stable",
           "nodes",
           "$/hour", "$/month", "price from");
    ranked *rk = xcalloc((size_t)nents + 1, sizeof *rk);
    for (int i = 0; i < nents; i++)
        rk[i] = (ranked){ents[i], i};
    qsort(rk, (size_t)nents, sizeof *rk, cmp_ranked);
    for (int i = 0; i < nents; i++) {
        const entry *e = &rk[i].e;
        if (not_applicable(e))
            continue;
        if (e->impossible || !e->gpus) {
            print_unanswered(cx, e, w_pol, w_cand);
            continue;
        }
        char srcs[400] = "";
        const cJSON *ps;
        cJSON_ArrayForEach(ps, cJSON_GetObjectItemCaseSensitive(e->obj, "prices"))
        {
            const char *sname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ps, "source"));
            if (sname && !strstr(srcs, sname))
                snprintf(srcs + strlen(srcs), sizeof srcs - strlen(srcs), "%s%s", srcs[0] ? ", " : "", sname);
        }
        double peak;
        if (metrics_get(e->obj, "burst_peak_nodes", &peak)) /* a base with burst groups: the runs' bill */
            snprintf(srcs + strlen(srcs), sizeof srcs - strlen(srcs), "; billed by the runs, burst peak %.0f node%s",
                     peak, peak == 1 ? "" : "s");
        char stable[32];
        bool nm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e->obj, "non_monotone"));
        if (e->stable_gpus)
            snprintf(stable, sizeof stable, "%ld%s", e->stable_gpus, nm ? " !" : "");
        else
            snprintf(stable, sizeof stable, "- !");
        if (isnan(e->usd_h))
            printf("%-*s %-*s %7ld %8s %6ld %12s %14s  %s\n", w_pol, e->pol->label, w_cand, e->cand->label, e->gpus,
                   stable, e->nodes, "?", "?", "no price known");
        else
            printf("%-*s %-*s %7ld %8s %6ld %12.2f %14.0f  %s\n", w_pol, e->pol->label, w_cand, e->cand->label,
                   e->gpus, stable,
                   e->nodes, e->usd_h, e->usd_h * PLAN_HOURS_PER_MONTH, srcs);
    }
    for (int i = 0; i < nents; i++)
        if (not_applicable(&rk[i].e))
            printf("not in the table: %s on %s is not applicable: %s\n", rk[i].e.pol->label, rk[i].e.cand->label,
                   not_applicable(&rk[i].e));
    free(rk);
    printf("cards: the fewest the search found to meet every term; stable: the fewest from which every count\n"
           "probed above also met (margin probes +1, +2, +4, ...); '!': a count above the answer failed (a\n"
           "non-monotone region: buy the stable count, or see the evidence)\n");
}

/* The runs' warnings (those of the first count's first seed), once per entry. */
static void print_warnings(const entry *ents, int nents)
{
    for (int i = 0; i < nents; i++) {
        const cJSON *pt0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ents[i].obj, "points"), 0);
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(pt0, "warnings"))
        {
            printf("warning (%s on %s): %s\n", ents[i].pol->label, ents[i].cand->label, cJSON_GetStringValue(w));
        }
    }
}

/* Each count of the evidence: cards, nodes, met, seeds that met, each
 * term's worst figure over the seeds. */
static void print_evidence(const plan_ctx *cx, const entry *e)
{
    printf("\nevidence for %s on %s (worst seed per term; 'absent': never measured, not met):\n%8s %6s %6s "
           "%9s", e->pol->label, e->cand->label, "cards", "nodes", "met", "seeds_ok");
    for (int t = 0; t < cx->nslo; t++)
        printf(" %26s", cx->slo[t].path);
    /* a base with burst groups: each count's bill (base + burst) and the burst's peak */
    const cJSON *pt0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e->obj, "points"), 0);
    bool burst = cJSON_GetObjectItemCaseSensitive(pt0, "burst_peak_nodes") != NULL;
    if (burst)
        printf(" %12s %11s", "$/hour", "burst_peak");
    printf("\n");
    const cJSON *pt;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(e->obj, "points"))
    {
        double g = 0, nd = 0, sm = 0;
        metrics_get(pt, "gpus", &g);
        metrics_get(pt, "nodes", &nd);
        metrics_get(pt, "seeds_met", &sm);
        printf("%8.0f %6.0f %6s %5.0f/%-3ld", g, nd,
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met")) ? "yes" : "no", sm, cx->seeds);
        const cJSON *to;
        cJSON_ArrayForEach(to, cJSON_GetObjectItemCaseSensitive(pt, "terms"))
        {
            double w;
            if (metrics_get(to, "worst", &w))
                printf(" %26.6g", w);
            else
                printf(" %26s", "absent");
        }
        double usd = NAN, peak = 0;
        metrics_get(pt, "cost_per_hour_usd", &usd);
        metrics_get(pt, "burst_peak_nodes", &peak);
        if (burst)
            printf(" %12.2f %11.0f", usd, peak);
        bool margin = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "margin"));
        bool above = g > (double)e->gpus && e->gpus && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met"));
        printf("%s%s\n", margin ? "  margin" : "", above ? "  <- fails above the answer" : "");
    }
}

void cli_plan_output_text(const plan_ctx *cx, const char *trace, const entry *ents, int nents)
{
    print_head(cx, trace);
    print_table(cx, ents, nents);
    print_warnings(ents, nents);
    if (cx->ref_warning[0])
        printf("warning: %s\n", cx->ref_warning);
    for (int i = 0; i < nents; i++)
        if (!ents[i].impossible)
            print_evidence(cx, &ents[i]);
    printf("\nruns and plan.json: %s\n", cx->odir);
}
