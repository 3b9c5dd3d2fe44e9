/* cli_plot_run.c - one run's part of report.html: allocated GPUs over time,
 * jobs queued over time (when the run has jobs), the request-time distributions of its services
 * (end-to-end latency; TTFT and TPOT for token services) with each
 * service's SLO marked, and the key metrics (metrics.h rows shown in HTML,
 * with their words and units).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_plot.h"

static int csv_column(const char *header, const char *name)
{
    int col = 1;
    size_t l = strlen(name);
    for (const char *p = header; *p; col++) {
        if (!strncmp(p, name, l) && (p[l] == ',' || p[l] == '\n' || p[l] == '\r' || p[l] == 0))
            return col;
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    return 0;
}

static void metrics_table(html *h, const cJSON *rep)
{
    h_table_open(h, NULL, "metrics");
    static const char *const head[] = {"metric", "what", "value", "unit", NULL};
    h_head_row(h, head);
    for (const metrics_row *m = metrics; m->path; m++) {
        double v;
        if (!(m->flags & METRICS_HTML) || !metrics_get(rep, m->path, &v))
            continue;
        h_raw(h, "<tr>");
        h_td(h, m->path);
        h_td(h, m->label);
        if (metrics_measured(rep, m->path, &v))
            h_td_num(h, v);
        else
            h_td(h, "-");
        h_td(h, m->unit);
        h_raw(h, "</tr>\n");
    }
    h_table_close(h);
}

static int time_figures(plotter *pl, const char *dir, const cJSON *rep, const char *title)
{
    char ts[1100];
    if (!plot_exists(dir, "timeseries.csv", ts, sizeof ts)) {
        h_raw(&pl->h, "<p class=note>no timeseries.csv: time figures skipped</p>\n");
        return 0;
    }
    double gpus = 0;
    metrics_get(rep, "gpu.count", &gpus);
    char header[512] = "";
    FILE *f = fopen(ts, "r");
    if (f) {
        if (!fgets(header, sizeof header, f))
            header[0] = 0;
        fclose(f);
    }
    int ac = csv_column(header, "gpus_alloc"), bc = csv_column(header, "gpus_busy"), qc = csv_column(header, "queued");
    char defs[200];
    int rc = 0;
    if (ac) {
        snprintf(defs, sizeof defs, "alloc_col=%d; busy_col=%d; total_gpus=%.0f", ac, bc, gpus);
        rc = plot_figure(pl, dir, "fig_gpus", "scripts/fig_gpus.gp", defs, ts, title, NULL);
    }
    double jobs = 0;
    metrics_get(rep, "jobs.arrived", &jobs);
    if (rc == 0 && qc && jobs == 0) { /* a queue that cannot be anything but empty says nothing */
        h_raw(&pl->h, "<p class=note>no job in this run: jobs-queued figure skipped</p>\n");
        printf("note: %s has no job: jobs-queued figure skipped\n", dir);
    } else if (rc == 0 && qc) {
        double peak = 0;
        metrics_get(rep, "jobs.peak_queued", &peak);
        double step = peak <= 10 ? 1 : ceil(peak / 8); /* a count: whole ticks, about eight of them */
        snprintf(defs, sizeof defs, "queued_col=%d; peak_queued=%.17g; ytic=%.0f", qc, peak, step);
        rc = plot_figure(pl, dir, "fig_queue", "scripts/fig_queue.gp", defs, ts, title, NULL);
    }
    return rc;
}

/* The three panels of fig_latency_cdf: a report statistic object, its finer
 * quantiles, and the SLO that belongs to it (ms, and its attainment). */
static const struct panel {
    const char *stats, *cdf, *slo_ms, *attained;
} panels[3] = {
    {"latency_s", "latency_cdf_s", "slo_ms", "slo_attainment"},
    {"ttft_s", "ttft_cdf_s", "slo_ttft_ms", "slo_attainment_ttft"},
    {"tpot_s", "tpot_cdf_s", "slo_tpot_ms", "slo_attainment_tpot"},
};

/* Writes service sv's curve for panel k to PREFIX<k>.<i>.tsv: (seconds,
 * share) through its quantiles, the max closing at 1. Returns the points
 * written (0: it served nothing there, the file is gone), or -1. */
static int curve_file(const char *prefix, int k, int i, const cJSON *sv, gs_error *err)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(sv, panels[k].stats);
    const cJSON *cdf = cJSON_GetObjectItemCaseSensitive(sv, panels[k].cdf);
    double count = -1, mx;
    metrics_get(st, "count", &count);
    if (!cJSON_IsObject(st) || count == 0)
        return 0;
    char p[1300];
    snprintf(p, sizeof p, "%s%d.%d.tsv", prefix, k, i);
    FILE *f = fopen(p, "w");
    if (!f)
        return gs_err(err, GS_EWRITE, "cannot write '%s'", p), -1;
    fprintf(f, "seconds\t");
    plot_tsv_text(f, j_str(sv, "id", "?"));
    fprintf(f, "\n");
    int points = 0;
    const cJSON *q, *pts = cJSON_IsObject(cdf) ? cdf : st;
    cJSON_ArrayForEach(q, pts)
    {
        if (!q->string || q->string[0] != 'p' || !cJSON_IsNumber(q) || q->valuedouble <= 0)
            continue; /* a log axis: no zero */
        char pct[32]; /* "p99_9" -> 99.9 (the report writes the point as '_') */
        snprintf(pct, sizeof pct, "%s", q->string + 1);
        for (char *c = pct; *c; c++)
            if (*c == '_')
                *c = '.';
        if (atof(pct) > 0)
            fprintf(f, "%.9g\t%.6g\n", q->valuedouble, atof(pct) / 100.0), points++;
    }
    if (metrics_get(st, "max", &mx) && mx > 0) /* the slowest request closes the curve */
        fprintf(f, "%.9g\t1\n", mx), points++;
    if (fclose(f) != 0)
        return gs_err(err, GS_EWRITE, "cannot write '%s'", p), -1;
    if (!points)
        unlink(p);
    return points;
}

/* Services' latency, TTFT and TPOT distributions with their SLO markers. */
static int latency_figure(plotter *pl, const char *dir, const cJSON *rep, const char *title)
{
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s/fig_latency_cdf.p", dir);
    int n[3] = {0}, nslo[3] = {0};
    FILE *slo[3] = {0};
    for (int k = 0; k < 3; k++) {
        char p[1300];
        snprintf(p, sizeof p, "%s%d.slo.tsv", prefix, k);
        if (!(slo[k] = fopen(p, "w"))) {
            for (int j = 0; j < k; j++)
                fclose(slo[j]);
            return gs_err(pl->err, GS_EWRITE, "cannot write '%s'", p);
        }
        fprintf(slo[k], "slo_s\tmet\n");
    }
    const cJSON *sv;
    int rc = 0;
    cJSON_ArrayForEach(sv, cJSON_GetObjectItemCaseSensitive(rep, "services"))
    {
        for (int k = 0; k < 3 && rc == 0; k++) {
            int pts = curve_file(prefix, k, n[k], sv, pl->err);
            if (pts < 0) {
                rc = pl->err->code;
                break;
            }
            if (pts == 0)
                continue;
            n[k]++;
            double ms, met;
            if (metrics_get(sv, panels[k].slo_ms, &ms) && ms > 0 && metrics_get(sv, panels[k].attained, &met)) {
                fprintf(slo[k], "%.9g\t%.6g\n", ms / 1000.0, met);
                nslo[k]++;
            }
        }
    }
    for (int k = 0; k < 3; k++)
        if (fclose(slo[k]) != 0 && rc == 0)
            rc = gs_err(pl->err, GS_EWRITE, "cannot write the SLO markers in '%s'", dir);
    if (rc || n[0] == 0) /* no figure: its SLO markers go too */
        for (int k = 0; k < 3; k++) {
            char p[1300];
            snprintf(p, sizeof p, "%s%d.slo.tsv", prefix, k);
            unlink(p);
        }
    if (rc)
        return rc;
    if (n[0] == 0) {
        h_raw(&pl->h, "<p class=note>no service in this report served a request: latency figure skipped</p>\n");
        printf("note: %s has no service that served a request: latency figure skipped\n", dir);
        return 0;
    }
    int npanels = (n[0] > 0) + (n[1] > 0) + (n[2] > 0);
    char defs[200];
    snprintf(defs, sizeof defs, "n0=%d; n1=%d; n2=%d; s0=%d; s1=%d; s2=%d; fig_h=%d", n[0], n[1], n[2], nslo[0],
             nslo[1], nslo[2], npanels > 1 ? 330 * npanels : 500);
    return plot_figure(pl, dir, "fig_latency_cdf", "scripts/fig_latency_cdf.gp", defs, prefix, title, NULL);
}

/* The trace's columns the run left unread (inputs.unread_columns), if any:
 * a note that their values were not checked. */
static void unread_note(plotter *pl, const cJSON *in)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(in, "unread_columns"), *c;
    if (!cJSON_IsArray(u) || cJSON_GetArraySize(u) == 0)
        return;
    h_raw(&pl->h, "<p class=note>columns this run does not read (their values not checked): ");
    int n = 0;
    cJSON_ArrayForEach(c, u)
    {
        if (n++)
            h_raw(&pl->h, ", ");
        h_esc(&pl->h, cJSON_IsString(c) ? c->valuestring : "?");
    }
    h_raw(&pl->h, "</p>\n");
}

int plot_run(plotter *pl, const char *dir, const cJSON *rep)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(rep, "inputs");
    char title[700];
    snprintf(title, sizeof title, "%s - policy %s", j_str(in, "trace", "?"), j_str(in, "policy", "?"));
    h_raw(&pl->h, "<h3>run: ");
    h_esc(&pl->h, title);
    h_raw(&pl->h, "</h3>\n");
    unread_note(pl, in);
    int rc = time_figures(pl, dir, rep, title);
    if (rc == 0)
        rc = latency_figure(pl, dir, rep, title);
    metrics_table(&pl->h, rep);
    const char *jobs = j_str(cJSON_GetObjectItemCaseSensitive(rep, "outputs"), "jobs_csv", NULL);
    char p[1200];
    if (jobs && plot_exists(dir, jobs, p, sizeof p)) { /* a link relative to the page: beside it or not */
        h_raw(&pl->h, "<p>Per job: <a href=\"");
        h_href(&pl->h, pl->page_dir, p);
        h_raw(&pl->h, "\">");
        h_esc(&pl->h, p);
        h_raw(&pl->h, "</a> (a row per job, session and replica: queue, JCT, card, outcome and reason)</p>\n");
    }
    h_json(&pl->h, "inputs", in, false);
    h_json(&pl->h, "policy", cJSON_GetObjectItemCaseSensitive(rep, "policy"), false);
    return rc;
}
