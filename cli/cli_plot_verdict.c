/* cli_plot_verdict.c - a run's verdict and its cost split, at the top of
 * report.html.
 *
 * Verdict: every term `plot --slo` gives and the implicit terms a plan adds
 * (nothing rejected, failed, dropped, unplaceable: cli_plan_terms.h), each
 * read as plan reads it (metrics_measured: a statistic of an empty sample
 * is absent, not met); then, for information, each service's attainment of
 * the SLO its trace row states.
 *
 * Cost split: the report's cost object (sim/sim_cost.h) as one table, and
 * the span it covers in words with the factor that scales it to a month;
 * with nodes that come and go, what the node groups were billed.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plan_terms.h"
#include "cli_plot.h"

static double num_or_nan(const cJSON *o, const char *path)
{
    double v;
    return metrics_get(o, path, &v) ? v : NAN;
}

/* The span the costs cover, the cluster's cost (or bill) over it and the
 * factor that scales a line to a month, in words. */
static void span_sentence(html *h, const cJSON *co)
{
    bool priced = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(co, "priced"));
    double span_h = num_or_nan(co, "span_hours");
    h_raw(h, "<p class=\"span\">");
    h_fmt(h, "Costs cover the simulated %.1f h (0 to %.0f s)", span_h, num_or_nan(co, "span_s"));
    double billed_h;
    bool billed = metrics_get(co, "billed_gpu_hours", &billed_h);
    if (priced) {
        h_raw(h, billed ? ": the node groups were billed " : ": the cluster costs ");
        h_usd(h, num_or_nan(co, "cluster_usd"));
        h_raw(h, " over it");
        if (billed) /* nodes that come and go (sim/sim_elastic.h): the capacity is what was billed */
            h_fmt(h, " for %.1f GPU-hours (reserved nodes for the whole span, on-demand and spot while a node "
                     "existed; each card model's rate is its bill / its billed GPU-hours)", billed_h);
        h_raw(h, ", ");
        h_usd(h, num_or_nan(co, "cluster_usd_per_month"));
        h_fmt(h, " a month. $/month of each line = its cost over the span x %.0f h / %.1f h (x %.2f).",
              num_or_nan(co, "month_hours"), span_h, num_or_nan(co, "month_scale"));
    } else {
        h_raw(h, ": no price is known for some card model, so GPU-hours only.");
    }
    h_raw(h, " Each job, session and replica pays for the cards it held; idle capacity is its own line.</p>\n");
}

/* The cost of owning the cards beside renting them, when the cluster gave
 * it (sim/sim_tco.h). */
static void tco_line(html *h, const cJSON *co)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(co, "tco");
    if (!t)
        return;
    h_raw(h, "<p class=\"tco\"><b>Owning these cards</b> (total cost of ownership): ");
    h_usd(h, num_or_nan(t, "owned_usd_per_month"));
    h_raw(h, " a month (depreciation ");
    h_usd(h, num_or_nan(t, "capital_usd_per_month"));
    h_raw(h, ", power ");
    h_usd(h, num_or_nan(t, "power_usd_per_month"));
    h_raw(h, " at each card's power x PUE every hour, an upper bound)");
    double rent;
    if (metrics_get(t, "rented_usd_per_month", &rent)) {
        h_raw(h, " against ");
        h_usd(h, rent);
        h_fmt(h, " renting them at the prices above (owning = %.0f%% of renting).",
              100 * num_or_nan(t, "owned_over_rented"));
    }
    h_raw(h, "</p>\n");
}

void plot_cost_table(html *h, const cJSON *rep)
{
    const cJSON *co = cJSON_GetObjectItemCaseSensitive(rep, "cost");
    if (!co) {
        h_raw(h, "<p class=\"note\">this report has no cost object (made by an older gpusim)</p>\n");
        return;
    }
    span_sentence(h, co);
    h_table_open(h, NULL, "cost");
    static const char *const head[] = {"who held the cards", "GPU-hours", "share of capacity", "$ over the span",
                                       "$/month", "unit cost", NULL};
    h_head_row(h, head);
    const cJSON *ho;
    cJSON_ArrayForEach(ho, cJSON_GetObjectItemCaseSensitive(co, "holders"))
    {
        const char *kind = j_str(ho, "kind", "?"), *name = j_str(ho, "name", "");
        char who[300];
        snprintf(who, sizeof who, "%s%s%s", !strcmp(kind, "jobs") ? "jobs (training, batch, notebooks)"
                                            : !strcmp(kind, "agents") ? "agent sessions"
                                            : !strcmp(kind, "idle") ? "idle (held by nobody)"
                                                                    : kind,
                 name[0] ? ": " : "", name);
        h_raw(h, "<tr>");
        h_td(h, who);
        h_raw(h, "<td class=\"n\">");
        h_fmt(h, "%.1f", num_or_nan(ho, "gpu_hours"));
        h_raw(h, "</td>");
        h_raw(h, "<td class=\"n\">");
        h_fmt(h, "%.1f%%", 100 * num_or_nan(ho, "share"));
        h_raw(h, "</td>");
        h_td_usd(h, num_or_nan(ho, "usd"));
        h_td_usd(h, num_or_nan(ho, "usd_per_month"));
        h_raw(h, "<td>");
        double u;
        if (metrics_get(ho, "per_completed_job_usd", &u)) {
            h_usd(h, u);
            h_raw(h, " per completed job");
        } else if (metrics_get(ho, "per_million_requests_usd", &u)) {
            h_usd(h, u);
            h_raw(h, " per million requests");
        }
        h_raw(h, "</td></tr>\n");
    }
    h_table_close(h);
    tco_line(h, co);
}

/* One term's row; returns whether it holds (*absent: it was never
 * measured, which plan reads as not met). */
static bool term_row(html *h, const cJSON *rep, const cli_batch_slo *t, const char *flag, bool *absent)
{
    double v;
    bool measured = metrics_measured(rep, t->path, &v);
    bool holds = measured && cli_batch_slo_holds(t, v);
    *absent = !measured;
    h_raw(h, holds ? "<tr class=\"term-met\">" : "<tr class=\"term-missed\">");
    char term[200];
    snprintf(term, sizeof term, "%s %s %g", t->path, cli_batch_op_str(t->op), t->value);
    h_td(h, term);
    h_td(h, flag ? flag : "given");
    if (measured)
        h_td_num(h, v);
    else
        h_td(h, "absent (no sample in this run)");
    h_td(h, holds ? "met" : "not met");
    h_raw(h, "</tr>\n");
    return holds;
}

/* The trace's own SLO of each service: its attainment, for information. */
static void service_rows(html *h, const cJSON *rep)
{
    const cJSON *sv;
    cJSON_ArrayForEach(sv, cJSON_GetObjectItemCaseSensitive(rep, "services"))
    {
        static const char *const keys[] = {"slo_attainment", "slo_attainment_ttft", "slo_attainment_tpot"};
        for (int k = 0; k < 3; k++) {
            double v;
            if (!metrics_get(sv, keys[k], &v))
                continue;
            char what[300];
            snprintf(what, sizeof what, "services.%s.%s", j_str(sv, "id", "?"), keys[k]);
            h_raw(h, "<tr class=\"info\">");
            h_td(h, what);
            h_td(h, "the trace's SLO (information)");
            h_td_num(h, v);
            h_td(h, "-");
            h_raw(h, "</tr>\n");
        }
    }
}

static void verdict_of(plotter *pl, const char *dir, const cJSON *rep)
{
    html *h = &pl->h;
    int nterm = pl->nslo + PLAN_NIMPLICIT, held = 0;
    /* the table first, into a page of its own, so the sentence above it can
     * say what it found */
    html t = {0};
    h_table_open(&t, NULL, "verdict");
    static const char *const head[] = {"term", "from", "value", "verdict", NULL};
    h_head_row(&t, head);
    char missed[600] = "";
    for (int i = 0; i < nterm; i++) {
        cli_batch_slo imp = {.op = CLI_BATCH_LE, .value = 0};
        const cli_batch_slo *term = &imp;
        const char *flag = NULL;
        if (i < pl->nslo) {
            term = &pl->slo[i];
        } else {
            snprintf(imp.path, sizeof imp.path, "%s", plan_implicit_terms[i - pl->nslo].path);
            flag = "implicit (as plan adds it)";
        }
        bool absent;
        if (term_row(&t, rep, term, flag, &absent))
            held++;
        else
            snprintf(missed + strlen(missed), sizeof missed - strlen(missed), "%s%s%s", missed[0] ? ", " : "",
                     term->path, absent ? " (absent: no sample in this run)" : "");
    }
    service_rows(&t, rep);
    h_table_close(&t);
    h_raw(h, "<section class=\"run-verdict\">\n<h2>Verdict: ");
    h_esc(h, dir);
    h_raw(h, held == nterm ? "</h2>\n<p class=\"answer verdict\" data-dir=\""
                           : "</h2>\n<p class=\"answer verdict missed\" data-dir=\"");
    h_esc(h, dir);
    h_rawf(h, "\" data-met=\"%d\" data-terms=\"%d\">", held, nterm);
    if (held == nterm) {
        h_rawf(h, "<b>Meets every term</b> it was given (%d", nterm);
        h_raw(h, pl->nslo ? ")." : ": no --slo was given to plot, so the implicit terms only).");
    } else {
        h_rawf(h, "<b>Misses %d of %d terms</b>: ", nterm - held, nterm);
        h_esc(h, missed);
        h_raw(h, ".");
    }
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(rep, "inputs");
    double billed_h;
    h_fmt(h, " Policy %s on %s, %s%.0f cards%s.", j_str(in, "policy", "?"),
          j_str(cJSON_GetObjectItemCaseSensitive(in, "cluster"), "name", "?"),
          metrics_get(rep, "cost.billed_gpu_hours", &billed_h) ? "up to " : "", num_or_nan(rep, "gpu.count"),
          metrics_get(rep, "cost.billed_gpu_hours", &billed_h) ? " (node groups that come and go)" : "");
    h_raw(h, "</p>\n");
    h_raw(h, t.buf);
    free(t.buf);
    h_raw(h, "<h3>Who pays</h3>\n");
    plot_cost_table(h, rep);
    h_raw(h, "</section>\n");
}

void plot_verdicts(plotter *pl, const plot_docs *docs, int n)
{
    for (int i = 0; i < n; i++)
        if (docs[i].report)
            verdict_of(pl, docs[i].dir, docs[i].report);
}
