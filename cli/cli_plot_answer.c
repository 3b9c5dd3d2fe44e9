/* cli_plot_answer.c - the top of report.html: what a platform lead or a
 * finance partner reads first.
 *
 * Plans: the plan documents given are grouped by the question they answer
 * (trace, seeds that must meet, every term with its threshold); each group
 * is one answer, its entries merged from every directory and ranked as the
 * CLI's buyer's table ranks them (priced answers cheapest per hour first,
 * unpriced answers by cards, then the entries with no answer). The answer
 * is one sentence and one table: the cheapest configuration meeting every
 * term (cards, nodes, $/hour, $/month, margin, where the price came from),
 * the runners-up, and each configuration that cannot meet the SLO with the
 * reason plan.json gives; when the candidates' cluster files or templates
 * give the cost of owning their cards, the answer's owning cost per month
 * beside renting (from each answer's run). The margin is plan.json's
 * stable_from_gpus (the
 * smallest probed count from which every larger probed count met); a plan
 * written without margin probes says so.
 *
 * Runs: each report's verdict against the terms `plot --slo` gives and the
 * implicit terms every plan adds (nothing rejected, failed, dropped,
 * unplaceable), and its cost split (cost.holders).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plan_terms.h"
#include "cli_plot.h"

#define HOURS_PER_MONTH 730.0

typedef struct ans_entry {
    const cJSON *obj; /* plan.json's policies[i] */
    const char *dir;  /* the plan directory it came from */
    int order;        /* first seen: ties keep it */
    int rank_class;   /* 0 priced answer, 1 unpriced answer, 2 no answer */
    double usd_h;
    double own_month; /* owning its answer's cards per month (its run's cost.tco), NaN: no TCO given */
} ans_entry;

static double num_or_nan(const cJSON *o, const char *path)
{
    double v;
    return metrics_get(o, path, &v) ? v : NAN;
}

static int cmp_entry(const void *a, const void *b)
{
    const ans_entry *x = a, *y = b;
    if (x->rank_class != y->rank_class)
        return x->rank_class - y->rank_class;
    if (x->rank_class == 0 && x->usd_h != y->usd_h)
        return x->usd_h < y->usd_h ? -1 : 1;
    double gx = num_or_nan(x->obj, "gpus"), gy = num_or_nan(y->obj, "gpus");
    if (x->rank_class == 1 && gx != gy)
        return gx < gy ? -1 : 1;
    return x->order - y->order;
}

/* The question a plan answers, as text: equal texts, one answer. */
static void question_key(const cJSON *plan, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%s|%g|%g", j_str(plan, "trace", "?"), num_or_nan(plan, "seeds"),
                     num_or_nan(plan, "fraction"));
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(plan, "slo"))
    {
        if (k < 0 || (size_t)k >= n)
            return;
        k += snprintf(buf + k, n - (size_t)k, "|%s%s%.17g", j_str(t, "path", "?"), j_str(t, "op", "?"),
                      num_or_nan(t, "value"));
    }
}

/* "jobs.queue_s.p99 <= 1800 and 4 implicit terms (nothing rejected, ...)". */
static void terms_text(html *h, const cJSON *plan)
{
    const cJSON *t;
    int user = 0, implicit = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(plan, "slo"))
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "implicit"))) {
            implicit++;
            continue;
        }
        h_raw(h, user++ ? ", " : "");
        h_raw(h, "<code>");
        h_fmt(h, "%s %s %g", j_str(t, "path", "?"), j_str(t, "op", "?"), num_or_nan(t, "value"));
        h_raw(h, "</code>");
    }
    if (implicit) {
        h_fmt(h, "%s%d implicit term%s (", user ? " and " : "", implicit, implicit == 1 ? "" : "s");
        int k = 0;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(plan, "slo"))
        {
            if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "implicit")))
                continue;
            h_raw(h, k++ ? ", " : "");
            h_raw(h, "<code>");
            h_fmt(h, "%s %s %g", j_str(t, "path", "?"), j_str(t, "op", "?"), num_or_nan(t, "value"));
            h_raw(h, "</code>");
        }
        h_raw(h, ")");
    }
}

/* Where an entry's prices came from, each source once. */
static void price_sources(const cJSON *e, char *buf, size_t n)
{
    buf[0] = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(e, "prices"))
    {
        const char *src = j_str(p, "source", NULL);
        if (src && !strstr(buf, src))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "", src);
    }
    if (!buf[0])
        snprintf(buf, n, "no price known");
}

/* The margin cell: plan.json's stable_from_gpus, the non-monotone counts. */
static void margin_text(html *h, const cJSON *e)
{
    const cJSON *sf = cJSON_GetObjectItemCaseSensitive(e, "stable_from_gpus");
    double g = num_or_nan(e, "gpus");
    if (!sf) {
        h_raw(h, "<span class=\"note\">not in plan.json</span>");
        return;
    }
    if (!cJSON_IsNumber(sf)) {
        h_raw(h, "the largest count probed failed");
        return;
    }
    if (sf->valuedouble <= g)
        h_fmt(h, "stable: every larger count probed met");
    else
        h_fmt(h, "stable from %.0f cards (+%.0f)", sf->valuedouble, sf->valuedouble - g);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "non_monotone"))) {
        h_raw(h, "; <b>non-monotone</b>: failed at");
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(e, "failed_above_answer"))
            h_fmt(h, " %.0f", x->valuedouble);
    }
}

/* Why an entry has no answer, in words, from plan.json. */
static void reason_text(html *h, const cJSON *e)
{
    const char *vd = j_str(e, "verdict", "no answer");
    const cJSON *fe = cJSON_GetObjectItemCaseSensitive(e, "feasibility");
    if (!strcmp(vd, "impossible") && fe) {
        h_fmt(h, "impossible: %.0f of %.0f rows no count of it can serve", num_or_nan(fe, "rows_impossible"),
              num_or_nan(fe, "rows_checked"));
        const cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fe, "examples"), 0);
        if (ex)
            h_fmt(h, " (e.g. line %.0f %s: %s)", num_or_nan(ex, "line"), j_str(ex, "id", "?"), j_str(ex, "why", "?"));
        return;
    }
    h_esc(h, vd);
    const char *why = j_str(e, "why", NULL);
    if (why)
        h_fmt(h, ": %s", why);
    const char *am = j_str(e, "absent_metric", NULL);
    if (am)
        h_fmt(h, ": '%s' was never measured", am);
}

/* The report of the answer's first run (plan.json's points[].runs, looked
 * up beside the plan directory first), or NULL. */
static cJSON *answer_report(const ans_entry *a)
{
    double g = num_or_nan(a->obj, "gpus");
    const cJSON *pt;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(a->obj, "points"))
    {
        if (num_or_nan(pt, "gpus") != g || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met")))
            continue;
        const char *run = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pt, "runs"), 0));
        if (!run)
            return NULL;
        const char *base = strrchr(run, '/');
        char p[1400], file[1500];
        snprintf(p, sizeof p, "%s/runs/%s", a->dir, base ? base + 1 : run);
        gs_error err = {0};
        if (plot_exists(p, "report.json", file, sizeof file))
            return cli_batch_read_report(p, &err);
        if (plot_exists(run, "report.json", file, sizeof file))
            return cli_batch_read_report(run, &err);
        return NULL;
    }
    return NULL;
}

/* A MIG policy on cards without MIG (plan.json's verdict): never searched. */
static bool not_applicable(const ans_entry *a) { return !strcmp(j_str(a->obj, "verdict", ""), "not applicable"); }

static void answer_row(html *h, const ans_entry *a, const char *role, bool tco)
{
    const cJSON *e = a->obj;
    bool met = a->rank_class < 2;
    h_raw(h, met ? "<tr class=\"met\" data-role=\"" : "<tr class=\"unmet\" data-role=\"");
    h_esc(h, role);
    h_raw(h, "\">");
    h_td(h, role);
    h_td(h, j_str(e, "policy", "?"));
    h_td(h, j_str(e, "candidate", "?"));
    if (!met) { /* the reason across the figures' columns: the table stays as wide as its figures */
        h_rawf(h, "<td class=\"why\" colspan=\"%d\">", tco ? 7 : 6);
        reason_text(h, e);
        h_raw(h, "</td>");
        h_td(h, j_str(e, "verdict", "no answer"));
        h_raw(h, "</tr>\n");
        return;
    }
    h_td_num(h, num_or_nan(e, "gpus"));
    h_td_num(h, num_or_nan(e, "nodes"));
    h_td_usd(h, num_or_nan(e, "cost_per_hour_usd"));
    h_td_usd(h, num_or_nan(e, "cost_per_month_usd"));
    if (tco)
        h_td_usd(h, a->own_month);
    h_raw(h, "<td class=\"margin\">");
    margin_text(h, e);
    h_raw(h, "</td>");
    char src[300];
    price_sources(e, src, sizeof src);
    h_td(h, src);
    h_td(h, j_str(e, "verdict", "met"));
    h_raw(h, "</tr>\n");
}

/* The sentence: the answer, or that nothing tried meets every term. */
static void answer_sentence(html *h, const cJSON *plan, const ans_entry *best, int nents, int nmet)
{
    h_raw(h, "<p class=\"answer\" id=\"answer-sentence\"");
    if (best) {
        const cJSON *e = best->obj;
        h_attr(h, "data-policy", j_str(e, "policy", "?"));
        h_attr(h, "data-candidate", j_str(e, "candidate", "?"));
        h_rawf(h, " data-gpus=\"%.0f\" data-nodes=\"%.0f\"", num_or_nan(e, "gpus"), num_or_nan(e, "nodes"));
        h_rawf(h, " data-usd-hour=\"%.17g\" data-usd-month=\"%.17g\">", num_or_nan(e, "cost_per_hour_usd"),
               num_or_nan(e, "cost_per_month_usd"));
        h_raw(h, "<b>Answer:</b> <span class=\"a-cards\">");
        h_num(h, num_or_nan(e, "gpus"));
        h_raw(h, "</span> cards of <span class=\"a-candidate\">");
        h_esc(h, j_str(e, "candidate", "?"));
        h_raw(h, "</span> (<span class=\"a-nodes\">");
        h_num(h, num_or_nan(e, "nodes"));
        h_raw(h, "</span> nodes) under <span class=\"a-policy\">");
        h_esc(h, j_str(e, "policy", "?"));
        h_raw(h, "</span>: <span class=\"a-usd-hour\">");
        h_usd(h, num_or_nan(e, "cost_per_hour_usd"));
        h_raw(h, "</span> an hour, <span class=\"a-usd-month\">");
        h_usd(h, num_or_nan(e, "cost_per_month_usd"));
        h_rawf(h, "</span> a month (%.0f h). The cheapest of the %d configurations that meet ", HOURS_PER_MONTH,
               nmet);
        terms_text(h, plan);
        h_fmt(h, " on %s of %.0f seed%s (%d tried). Margin: ", num_or_nan(plan, "fraction") < 1 ? "a share" : "all",
              num_or_nan(plan, "seeds"), num_or_nan(plan, "seeds") == 1 ? "" : "s", nents);
        margin_text(h, e);
        h_raw(h, ".</p>\n");
        return;
    }
    h_rawf(h, "><b>No answer:</b> none of the %d configurations tried meets ", nents);
    terms_text(h, plan);
    h_raw(h, "; the reasons are in the table.</p>\n");
}

/* Owning an entry's answer per month, from its first run's report (the
 * cluster file's or template's "tco"), NaN when not given. */
static double own_per_month(const ans_entry *a)
{
    double v = NAN;
    cJSON *rep = a->rank_class < 2 ? answer_report(a) : NULL;
    if (rep && !metrics_get(rep, "cost.tco.owned_usd_per_month", &v))
        v = NAN;
    cJSON_Delete(rep);
    return v;
}

/* The answer of one group of plans: entries ents[0..n) already ranked. */
static void answer_block(plotter *pl, const cJSON *plan, ans_entry *ents, int n, const char *dirs)
{
    html *h = &pl->h;
    int nmet = 0;
    bool tco = false;
    for (int i = 0; i < n; i++) {
        nmet += ents[i].rank_class < 2;
        ents[i].own_month = own_per_month(&ents[i]);
        tco |= !isnan(ents[i].own_month);
    }
    h_raw(h, "<section class=\"answer-block\">\n<h2>The answer: ");
    h_esc(h, j_str(plan, "trace", "?"));
    h_raw(h, "</h2>\n");
    answer_sentence(h, plan, nmet ? &ents[0] : NULL, n, nmet);
    h_table_open(h, "answer-table", "answer");
    static const char *const head[] = {"",       "policy",  "card or cluster", "cards", "nodes",
                                       "$/hour", "$/month", "margin",          "price from", "verdict", NULL};
    static const char *const head_tco[] = {"",        "policy",  "card or cluster",   "cards",  "nodes",
                                           "$/hour",  "$/month", "own $/month (TCO)", "margin", "price from",
                                           "verdict", NULL};
    h_head_row(h, tco ? head_tco : head);
    int nna = 0;
    for (int i = 0; i < n; i++)
        if (not_applicable(&ents[i]))
            nna++;
        else
            answer_row(h, &ents[i], i == 0 && nmet ? "answer" : ents[i].rank_class < 2 ? "runner-up" : "cannot meet",
                       tco);
    h_table_close(h);
    if (nna) { /* its name is not what it would run: under the table, never a row of it */
        h_raw(h, "<p class=\"not-applicable\">Not in the table (not applicable, never searched):");
        for (int i = 0, k = 0; i < n; i++)
            if (not_applicable(&ents[i]))
                h_fmt(h, "%s %s on %s: %s", k++ ? ";" : "", j_str(ents[i].obj, "policy", "?"),
                      j_str(ents[i].obj, "candidate", "?"), j_str(ents[i].obj, "why", "?"));
        h_raw(h, ".</p>\n");
    }
    h_raw(h, "<p class=\"note\">From ");
    h_esc(h, dirs);
    h_fmt(h, "; trace %s. $/month = $/hour x %.0f h. Price from: --price, a template group's "
             "price_per_gpu_hour_usd, or the model file's list price.", j_str(plan, "trace", "?"), HOURS_PER_MONTH);
    h_raw(h, "</p>\n");
    if (nmet) {
        cJSON *rep = answer_report(&ents[0]);
        if (rep) {
            h_rawf(h, "<h3>Who pays at the answer (%.0f cards, its first seed's run)</h3>\n",
                   num_or_nan(ents[0].obj, "gpus"));
            plot_cost_table(h, rep);
            cJSON_Delete(rep);
        }
    }
    h_raw(h, "</section>\n");
}

void plot_answer(plotter *pl, const plot_docs *docs, int n)
{
    bool *done = xcalloc((size_t)n + 1, sizeof *done);
    for (int i = 0; i < n; i++) {
        if (!docs[i].plan || done[i])
            continue;
        char key[4096], other[4096], dirs[2048] = "";
        question_key(docs[i].plan, key, sizeof key);
        ans_entry *ents = NULL;
        int nents = 0;
        for (int k = i; k < n; k++) {
            if (!docs[k].plan || done[k])
                continue;
            question_key(docs[k].plan, other, sizeof other);
            if (strcmp(key, other) != 0)
                continue;
            done[k] = true;
            snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), "%s%s", dirs[0] ? ", " : "", docs[k].dir);
            const cJSON *e;
            cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(docs[k].plan, "policies"))
            {
                ents = xrealloc(ents, (size_t)(nents + 1) * sizeof *ents);
                double g = num_or_nan(e, "gpus"), usd = num_or_nan(e, "cost_per_hour_usd");
                bool met = !strcmp(j_str(e, "verdict", ""), "met") && g > 0;
                ents[nents] = (ans_entry){e, docs[k].dir, nents, met ? (isnan(usd) ? 1 : 0) : 2, usd, NAN};
                nents++;
            }
        }
        qsort(ents, (size_t)nents, sizeof *ents, cmp_entry);
        answer_block(pl, docs[i].plan, ents, nents, dirs);
        free(ents);
    }
    free(done);
}
