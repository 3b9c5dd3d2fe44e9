/* cli_plot_plan.c - a compare's and a plan's part of report.html.
 *
 * compare: bars with 95% intervals of what differs between policies
 * (utilization, GPU-hours, queue and JCT p99, and when the trace has
 * requests their SLO attainment and TTFT p99), then the table.
 *
 * plan: each term against the cards tried (worst seed), a panel per term
 * (every term the user gave, and an implicit one that was ever broken),
 * five panels an image (fig_plan, fig_plan_2, ...): the key beside each
 * panel, never over its curves; the unit of the metric on its axis; a
 * term on a share that must stay high (attainment >= 0.99) drawn as the
 * share missing it on a log axis, where 99% and 99.9% are apart; the card
 * axis ends at twice the largest answer, so a candidate that never met
 * (searched to thousands of cards) does not squeeze every answer to the
 * left edge: it is drawn up to there and named "never met" in the key.
 * Then the evidence tables, every term (implicit ones too) a column.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plot.h"

static double num_or_nan(const cJSON *o, const char *path)
{
    double v;
    return metrics_get(o, path, &v) ? v : NAN;
}

static double cell(const cJSON *po, const char *key, const char *what)
{
    return num_or_nan(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(po, "metrics"), key), what);
}

/* {==== compare ====} */

/* The compare keys fig_compare.gp draws, in its panel order (its titles). */
static const char *const compare_keys[] = {"utilization", "gpu_hours",      "queue_p99_s",
                                           "jct_p99_s",   "slo_attainment", "ttft_p99_s"};
#define NCOMPARE 6

static void compare_table(html *h, const cJSON *doc, const cJSON *pa)
{
    double seeds = 1;
    metrics_get(doc, "seeds", &seeds);
    h_table_open(h, NULL, "compare");
    h_raw(h, "<tr><th>metric</th><th>unit</th>");
    const cJSON *po, *ro;
    cJSON_ArrayForEach(po, pa)
    {
        h_raw(h, "<th>");
        h_esc(h, j_str(po, "label", "?"));
        h_raw(h, "</th>");
    }
    h_raw(h, "</tr>\n");
    cJSON_ArrayForEach(ro, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
    {
        const char *key = j_str(ro, "key", "?");
        const metrics_row *m = NULL;
        for (const metrics_row *r = metrics; r->path && !m; r++)
            if (r->key && !strcmp(r->key, key))
                m = r;
        h_raw(h, "<tr>");
        h_td(h, key);
        h_td(h, m ? m->unit : "");
        cJSON_ArrayForEach(po, pa)
        {
            h_raw(h, "<td class=\"n\">");
            h_num(h, cell(po, key, "mean"));
            if (seeds > 1) {
                h_raw(h, " [");
                h_num(h, cell(po, key, "lo"));
                h_raw(h, ", ");
                h_num(h, cell(po, key, "hi"));
                h_raw(h, "]");
            }
            h_raw(h, "</td>");
        }
        h_raw(h, "</tr>\n");
    }
    h_table_close(h);
    if (seeds > 1)
        h_raw(h, "<p class=note>mean over seeds [95% Student-t interval]</p>\n");
}

int plot_compare(plotter *pl, const char *dir, const cJSON *doc)
{
    gs_error *err = pl->err;
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(doc, "policies");
    char tsv[1200], title[700];
    snprintf(tsv, sizeof tsv, "%s/fig_compare.tsv", dir);
    snprintf(title, sizeof title, "policies compared on %s", j_str(doc, "trace", "?"));
    FILE *f = fopen(tsv, "w");
    if (!f)
        return gs_err(err, GS_EWRITE, "cannot write '%s'", tsv);
    bool shown[NCOMPARE] = {0};
    fprintf(f, "policy");
    for (int k = 0; k < NCOMPARE; k++)
        fprintf(f, "\t%s\tlo\thi", compare_keys[k]);
    fprintf(f, "\n");
    const cJSON *po;
    cJSON_ArrayForEach(po, pa)
    {
        plot_tsv_text(f, j_str(po, "label", "?"));
        for (int k = 0; k < NCOMPARE; k++) {
            static const char *w[] = {"mean", "lo", "hi"};
            for (int i = 0; i < 3; i++) {
                double v = cell(po, compare_keys[k], w[i]);
                if (isnan(v)) {
                    fprintf(f, "\t?");
                } else {
                    fprintf(f, "\t%.9g", v);
                    shown[k] = true;
                }
            }
        }
        fprintf(f, "\n");
    }
    if (fclose(f) != 0)
        return gs_err(err, GS_EWRITE, "cannot write '%s'", tsv);
    char defs[200];
    int l = 0, np = 0;
    for (int k = 0; k < NCOMPARE; k++) {
        l += snprintf(defs + l, sizeof defs - (size_t)l, "show%d=%d; ", k + 1, shown[k]);
        np += shown[k];
    }
    snprintf(defs + l, sizeof defs - (size_t)l, "fig_h=%d", np > 4 ? 720 : 500);
    h_raw(&pl->h, "<h3>");
    h_esc(&pl->h, title);
    h_raw(&pl->h, "</h3>\n");
    int rc = plot_figure(pl, dir, "fig_compare", "scripts/fig_compare.gp", defs, tsv, title, NULL);
    compare_table(&pl->h, doc, pa);
    h_json(&pl->h, "cluster", cJSON_GetObjectItemCaseSensitive(doc, "cluster"), true);
    return rc;
}

/* {==== plan ====} */

/* The unit codes fig_plan.gp names on a panel's axis. */
static int unit_code(const char *path)
{
    static const char *const units[] = {"s", "ratio", "jobs", "requests", "GPU-h", "USD", "replicas", NULL};
    const metrics_row *m = metrics_find(path);
    for (int i = 0; m && units[i]; i++)
        if (!strcmp(m->unit, units[i]))
            return i + 1;
    return 0; /* no unit known */
}

/* Is term t drawn? Every user term; an implicit one only where some count
 * broke it. */
static bool term_drawn(const cJSON *pa, const cJSON *to, int t)
{
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(to, "implicit")))
        return true;
    const cJSON *po, *pt;
    cJSON_ArrayForEach(po, pa)
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            double w = num_or_nan(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pt, "terms"), t), "worst");
            if (w > 0)
                return true;
        }
    return false;
}

/* The card axis' end: twice the largest count an entry answered with (or
 * its stable count), so a hopeless search does not decide the scale; every
 * count when none answered. */
static double card_axis_end(const cJSON *pa)
{
    double best = 0, all = 0;
    const cJSON *po, *pt;
    cJSON_ArrayForEach(po, pa)
    {
        double g = num_or_nan(po, "gpus"), sf = num_or_nan(po, "stable_from_gpus");
        if (g > best)
            best = g;
        if (sf > best)
            best = sf;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            double x = num_or_nan(pt, "gpus");
            if (x > all)
                all = x;
        }
    }
    return best > 0 && 2 * best < all ? 2 * best : all * 1.05;
}

/* PREFIX<p>.tsv per entry with points: cards, then every term's worst
 * figure; the header's label says when the entry never met. */
static int plan_data(plotter *pl, const cJSON *pa, int nterm, const char *prefix, int *np)
{
    const cJSON *po;
    *np = 0;
    cJSON_ArrayForEach(po, pa)
    {
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(po, "points");
        if (cJSON_GetArraySize(pts) == 0)
            continue; /* an impossible candidate: nothing was run */
        char p[1300], label[400];
        snprintf(p, sizeof p, "%s%d.tsv", prefix, *np);
        FILE *f = fopen(p, "w");
        if (!f)
            return gs_err(pl->err, GS_EWRITE, "cannot write '%s'", p);
        double maxg = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, pts)
            maxg = fmax(maxg, num_or_nan(pt, "gpus"));
        if (num_or_nan(po, "gpus") > 0)
            snprintf(label, sizeof label, "%s", j_str(po, "label", "?"));
        else
            snprintf(label, sizeof label, "%s (never met, searched to %.0f cards)", j_str(po, "label", "?"), maxg);
        fprintf(f, "cards");
        for (int t = 0; t < nterm; t++) {
            fprintf(f, "\t");
            plot_tsv_text(f, label);
        }
        fprintf(f, "\n");
        cJSON_ArrayForEach(pt, pts)
        {
            fprintf(f, "%.0f", num_or_nan(pt, "gpus"));
            const cJSON *terms = cJSON_GetObjectItemCaseSensitive(pt, "terms");
            for (int t = 0; t < nterm; t++) {
                double w = num_or_nan(cJSON_GetArrayItem(terms, t), "worst");
                isnan(w) ? fprintf(f, "\t?") : fprintf(f, "\t%.9g", w);
            }
            fprintf(f, "\n");
        }
        if (fclose(f) != 0)
            return gs_err(pl->err, GS_EWRITE, "cannot write '%s'", p);
        (*np)++;
    }
    return 0;
}

/* One panel's numbers: its column, threshold, axis. */
static int panel_defs(char *defs, size_t n, int k, const cJSON *pa, const cJSON *to, int t)
{
    double thr = num_or_nan(to, "value"), lo = INFINITY, hi = 0;
    const char *path = j_str(to, "path", "?"), *op = j_str(to, "op", "<=");
    int unit = unit_code(path);
    bool miss = op[0] == '>' && unit == 2 && thr <= 1; /* a share that must stay high */
    const cJSON *po, *pt;
    cJSON_ArrayForEach(po, pa)
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            double w = num_or_nan(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pt, "terms"), t), "worst");
            if (miss)
                w = 1 - w;
            if (w > 0 && w < lo)
                lo = w;
            if (w > hi)
                hi = w;
        }
    bool logy = miss || (hi > 0 && hi / lo > 100 && thr > 0);
    return snprintf(defs, n, "; col%d=%d; thr%d=%.17g; logy%d=%d; miss%d=%d; unit%d=%d", k, t + 2, k,
                    miss ? 1 - thr : thr, k, logy, k, miss, k, unit);
}

static void evidence_tables(html *h, const cJSON *pa, const cJSON *sa)
{
    const cJSON *po;
    cJSON_ArrayForEach(po, pa)
    {
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(po, "points")) == 0)
            continue;
        h_raw(h, "<p>evidence for ");
        h_esc(h, j_str(po, "label", "?"));
        h_raw(h, " (worst seed per term; every term a column, the implicit ones marked)</p>\n");
        h_table_open(h, NULL, "evidence");
        h_raw(h, "<tr><th>cards</th><th>nodes</th><th>met</th><th>seeds met</th>");
        const cJSON *to;
        cJSON_ArrayForEach(to, sa)
        {
            h_raw(h, "<th>");
            h_fmt(h, "%s %s %g", j_str(to, "path", "?"), j_str(to, "op", "?"), num_or_nan(to, "value"));
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(to, "implicit")))
                h_raw(h, " <span class=\"note\">(implicit)</span>");
            h_raw(h, "</th>");
        }
        h_raw(h, "</tr>\n");
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            bool met = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met"));
            h_raw(h, met ? "<tr class=\"met\">" : "<tr>");
            h_td_num(h, num_or_nan(pt, "gpus"));
            h_td_num(h, num_or_nan(pt, "nodes"));
            h_td(h, met ? "yes" : "no");
            h_td_num(h, num_or_nan(pt, "seeds_met"));
            const cJSON *tv;
            cJSON_ArrayForEach(tv, cJSON_GetObjectItemCaseSensitive(pt, "terms"))
            {
                double w;
                if (metrics_get(tv, "worst", &w))
                    h_td_num(h, w);
                else
                    h_td(h, "absent");
            }
            h_raw(h, "</tr>\n");
        }
        h_table_close(h);
    }
}

/* {==== plan --sensitivity (cli_plan_sens.c's sensitivity.json) ====} */

static double end_usd(const cJSON *end)
{
    return num_or_nan(end, "winner_cost_per_hour_usd");
}

static void sensitivity_table(html *h, const cJSON *sd)
{
    h_table_open(h, "sensitivity", "sensitivity");
    static const char *const head[] = {"assumption", "range", "end", "set", "winner there", "$/hour",
                                       "winner changes", NULL};
    h_head_row(h, head);
    const cJSON *a, *e, *x;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(sd, "assumptions"))
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(a, "ends"))
        {
            bool ch = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "winner_changes"));
            h_raw(h, ch ? "<tr class=\"unmet\">" : "<tr>");
            h_td(h, j_str(a, "name", "?"));
            h_td(h, j_str(a, "range", ""));
            h_td(h, j_str(e, "end", "?"));
            char sets[600] = "";
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(e, "set"))
                snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%s", sets[0] ? " " : "",
                         cJSON_GetStringValue(x) ? cJSON_GetStringValue(x) : "");
            h_td(h, sets);
            h_td(h, j_str(e, "winner", "none met"));
            h_td_usd(h, end_usd(e));
            h_td(h, ch ? "yes" : "no");
            h_raw(h, "</tr>\n");
        }
    h_table_close(h);
}

/* DIR/sensitivity.json, when plan --sensitivity wrote one: the tornado
 * figure and its table. */
static int plot_sensitivity(plotter *pl, const char *dir)
{
    char p[1200];
    if (!plot_exists(dir, "sensitivity.json", p, sizeof p))
        return 0;
    cJSON *sd = cli_batch_read_json(p, pl->err);
    if (!sd)
        return pl->err->code;
    char tsv[1200];
    snprintf(tsv, sizeof tsv, "%s/fig_sensitivity.tsv", dir);
    FILE *f = fopen(tsv, "w");
    int rc = f ? 0 : gs_err(pl->err, GS_EWRITE, "cannot write '%s'", tsv), n = 0;
    const cJSON *a;
    if (f) {
        fprintf(f, "assumption\tlow\thigh\tlow_changes\thigh_changes\n");
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(sd, "assumptions"))
        {
            const cJSON *ends = cJSON_GetObjectItemCaseSensitive(a, "ends");
            const cJSON *lo = cJSON_GetArrayItem(ends, 0), *hi = cJSON_GetArrayItem(ends, 1);
            plot_tsv_text(f, j_str(a, "name", "?"));
            double l = end_usd(lo), u = end_usd(hi);
            isnan(l) ? fprintf(f, "\t?") : fprintf(f, "\t%.9g", l);
            isnan(u) ? fprintf(f, "\t?") : fprintf(f, "\t%.9g", u);
            fprintf(f, "\t%d\t%d\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lo, "winner_changes")),
                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hi, "winner_changes")));
            n++;
        }
        if (fclose(f) != 0)
            rc = gs_err(pl->err, GS_EWRITE, "cannot write '%s'", tsv);
    }
    h_raw(&pl->h, "<h3>Sensitivity: would another assumption change the answer?</h3>\n<p>");
    h_fmt(&pl->h, "The answer (%s, ", j_str(sd, "answer", "?"));
    h_usd(&pl->h, num_or_nan(sd, "answer_cost_per_hour_usd"));
    h_raw(&pl->h, " an hour) and its two cheapest runners-up searched again with each assumption at both ends of "
                  "its range. ");
    h_esc(&pl->h, j_str(sd, "not_varied", ""));
    h_raw(&pl->h, ".</p>\n");
    if (rc == 0 && n > 0) {
        char defs[120];
        snprintf(defs, sizeof defs, "n=%d; base=%.17g; fig_h=%d", n, num_or_nan(sd, "answer_cost_per_hour_usd"),
                 200 + 60 * n);
        rc = plot_figure(pl, dir, "fig_sensitivity", "scripts/fig_sensitivity.gp", defs, tsv,
                         "plan --sensitivity: the winner's $/hour at each end", NULL);
    }
    sensitivity_table(&pl->h, sd);
    cJSON_Delete(sd);
    return rc;
}

#define PANELS_PER_IMAGE 5

int plot_plan(plotter *pl, const char *dir, const cJSON *doc)
{
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(doc, "policies");
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(doc, "slo");
    int nterm = cJSON_GetArraySize(sa), np = 0;
    char prefix[1200], caption[900];
    snprintf(prefix, sizeof prefix, "%s/fig_plan.p", dir);
    snprintf(caption, sizeof caption, "%s on %s: each term (worst seed) against cards", j_str(doc, "trace", "?"),
             j_str(doc, "gpu", "?"));
    h_raw(&pl->h, "<h3>plan: ");
    h_esc(&pl->h, caption);
    h_raw(&pl->h, "</h3>\n");
    int rc = plan_data(pl, pa, nterm, prefix, &np);
    int drawn[64], nd = 0;
    for (int t = 0; t < nterm && nd < 64; t++)
        if (term_drawn(pa, cJSON_GetArrayItem(sa, t), t))
            drawn[nd++] = t;
    char terms[64][200];
    for (int first = 0, img = 1; rc == 0 && np > 0 && first < nd; first += PANELS_PER_IMAGE, img++) {
        int k = nd - first < PANELS_PER_IMAGE ? nd - first : PANELS_PER_IMAGE;
        char defs[1200], name[32];
        int l = snprintf(defs, sizeof defs, "npol=%d; npanel=%d; xmax=%.17g; fig_h=%d", np, k, card_axis_end(pa),
                         k > 1 ? 260 * k : 500);
        const char *args[PANELS_PER_IMAGE] = {0};
        for (int i = 0; i < k; i++) {
            const cJSON *to = cJSON_GetArrayItem(sa, drawn[first + i]);
            l += panel_defs(defs + l, sizeof defs - (size_t)l, i + 1, pa, to, drawn[first + i]);
            snprintf(terms[i], sizeof terms[i], "%s %s %g%s", j_str(to, "path", "?"), j_str(to, "op", "?"),
                     num_or_nan(to, "value"),
                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(to, "implicit")) ? " (implicit)" : "");
            if (i > 0)
                args[i - 1] = terms[i];
        }
        snprintf(name, sizeof name, img == 1 ? "fig_plan" : "fig_plan_%d", img);
        rc = plot_figure(pl, dir, name, "scripts/fig_plan.gp", defs, prefix, terms[0], args);
    }
    if (rc == 0)
        rc = plot_sensitivity(pl, dir);
    evidence_tables(&pl->h, pa, sa);
    h_json(&pl->h, "plan.json (SLO terms and every point tried)", doc, false);
    return rc;
}
