/* cli_plot.c - `gpusim plot DIR...`: figures (gnuplot, one script per
 * figure in scripts/fig_*.gp) as PNG and SVG beside each result, and one
 * self-contained report.html (PNG figures inlined as base64, tables, the
 * inputs) that opens in a browser with no server.
 *
 * A DIR is any of: a run (report.json, timeseries.csv), a compare output
 * (compare.json), a plan output (plan.json). Text from user input reaches
 * gnuplot only through environment variables and data files (see
 * scripts/fig_common.gp) and HTML only escaped.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_batch.h"
#include "cli_docs.h"

typedef struct html {
    char *buf;
    size_t len, cap;
} html;

static void h_put(html *h, const char *s, size_t n)
{
    if (h->len + n + 1 > h->cap) {
        h->cap = (h->len + n + 1) * 2;
        h->buf = xrealloc(h->buf, h->cap);
    }
    memcpy(h->buf + h->len, s, n);
    h->len += n;
    h->buf[h->len] = 0;
}
static void h_raw(html *h, const char *s) { h_put(h, s, strlen(s)); }
static void h_esc(html *h, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': h_raw(h, "&lt;"); break;
        case '>': h_raw(h, "&gt;"); break;
        case '&': h_raw(h, "&amp;"); break;
        case '"': h_raw(h, "&quot;"); break;
        case '\'': h_raw(h, "&#39;"); break;
        default: h_put(h, s, 1);
        }
    }
}
static void h_num(html *h, double v)
{
    char b[64];
    if (isnan(v))
        snprintf(b, sizeof b, "-");
    else
        snprintf(b, sizeof b, "%.6g", v);
    h_raw(h, b);
}

static bool exists(const char *dir, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* Data-file text: no tab or newline, which would break the columns; all else
 * is kept, since gnuplot reads it as data, never as code. */
static void tsv_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* A figure script: where the binary's data lies (gs_exe_relative: beside
 * it, installed, or the source tree above build/test/), else as given
 * (relative to the working directory). */
static void script_path(char *buf, size_t n, const char *rel) { cli_shipped_path(buf, n, rel); }

/* Runs gnuplot on scripts/<script> for one format. defs holds only numbers
 * formatted here; every text goes as a -c argument (ARG1..ARG9, string
 * values gnuplot never parses; see scripts/fig_common.gp). */
static int gnuplot(const char *script, const char *defs, const char *in, const char *out, const char *term,
                   const char *title, const char *const *panels, gs_error *err)
{
    char sp[1024], common[1024];
    script_path(sp, sizeof sp, script);
    script_path(common, sizeof common, "scripts/fig_common.gp");
    const char *args[16] = {"gnuplot", "-e", defs, "-c", sp, common, out, term, title, in};
    int n = 10;
    for (int i = 0; panels && panels[i] && i < 4; i++)
        args[n++] = panels[i];
    args[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return gs_err(err, GS_EFAIL, "fork: cannot start gnuplot");
    if (pid == 0) {
        execvp("gnuplot", (char *const *)args);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return gs_err(err, GS_EFAIL, "gnuplot %s failed (exit %d)%s", script, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                      WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": gnuplot not installed (apt-get install gnuplot-nox)"
                                                              : "");
    struct stat sb;
    if (stat(out, &sb) != 0 || sb.st_size == 0)
        return gs_err(err, GS_EFAIL, "gnuplot %s wrote no image to '%s'", script, out);
    return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void h_png(html *h, const char *path, const char *alt)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    h_raw(h, "<figure><img alt=\"");
    h_esc(h, alt);
    h_raw(h, "\" src=\"data:image/png;base64,");
    unsigned char in[3];
    size_t n;
    while ((n = fread(in, 1, 3, f)) > 0) {
        char o[4];
        unsigned v = (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0) | (n > 2 ? in[2] : 0);
        o[0] = b64[v >> 18 & 63];
        o[1] = b64[v >> 12 & 63];
        o[2] = n > 1 ? b64[v >> 6 & 63] : '=';
        o[3] = n > 2 ? b64[v & 63] : '=';
        h_put(h, o, 4);
        if (n < 3)
            break;
    }
    fclose(f);
    h_raw(h, "\"></figure>\n");
}

typedef struct plotter {
    html h;
    int figures;
    bool svg;
    gs_error *err;
} plotter;

/* Draws one figure as PNG (and SVG) named DIR/NAME and inlines the PNG. */
static int figure(plotter *pl, const char *dir, const char *name, const char *script, const char *defs,
                  const char *in, const char *title, const char *const *panels)
{
    char out[1200];
    snprintf(out, sizeof out, "%s/%s.png", dir, name);
    int rc = gnuplot(script, defs, in, out, "png", title, panels, pl->err);
    if (rc == 0 && pl->svg) {
        snprintf(out, sizeof out, "%s/%s.svg", dir, name);
        rc = gnuplot(script, defs, in, out, "svg", title, panels, pl->err);
    }
    if (rc == 0) {
        snprintf(out, sizeof out, "%s/%s.png", dir, name);
        h_png(&pl->h, out, title);
        printf("figure: %s/%s.png%s\n", dir, name, pl->svg ? " (.svg)" : "");
        pl->figures++;
    }
    return rc;
}

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

static void h_metrics_table(html *h, const cJSON *rep)
{
    h_raw(h, "<table><tr><th>metric</th><th>value</th></tr>\n");
    for (const metrics_row *m = metrics; m->path; m++) {
        double v;
        if (!(m->flags & METRICS_HTML) || !metrics_get(rep, m->path, &v))
            continue;
        h_raw(h, "<tr><td>");
        h_raw(h, m->path);
        h_raw(h, "</td><td>");
        h_num(h, v);
        h_raw(h, "</td></tr>\n");
    }
    h_raw(h, "</table>\n");
}

static void h_json(html *h, const char *caption, const cJSON *j, bool open)
{
    if (!j)
        return; /* an optional member the document does not have */
    char *t = cJSON_Print(j);
    h_raw(h, open ? "<details open><summary>" : "<details><summary>");
    h_esc(h, caption);
    h_raw(h, "</summary><pre>");
    h_esc(h, t);
    h_raw(h, "</pre></details>\n");
    free(t);
}

static int plot_run(plotter *pl, const char *dir, const cJSON *rep)
{
    gs_error *err = pl->err;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(rep, "inputs");
    char title[700];
    snprintf(title, sizeof title, "%s - policy %s",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "trace")) ?: "?",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "policy")) ?: "?");
    h_raw(&pl->h, "<h3>run: ");
    h_esc(&pl->h, title);
    h_raw(&pl->h, "</h3>\n");
    int rc = 0;
    char ts[1100];
    double gpus = 0;
    metrics_get(rep, "gpu.count", &gpus);
    if (exists(dir, "timeseries.csv", ts, sizeof ts)) {
        char header[512] = "";
        FILE *f = fopen(ts, "r");
        if (f) {
            if (!fgets(header, sizeof header, f))
                header[0] = 0;
            fclose(f);
        }
        int ac = csv_column(header, "gpus_alloc"), bc = csv_column(header, "gpus_busy"),
            qc = csv_column(header, "queued");
        char defs[200];
        if (ac) {
            snprintf(defs, sizeof defs, "alloc_col=%d; busy_col=%d; total_gpus=%.0f", ac, bc, gpus);
            rc = figure(pl, dir, "fig_gpus", "scripts/fig_gpus.gp", defs, ts, title, NULL);
        }
        if (rc == 0 && qc) {
            double peak = 0;
            metrics_get(rep, "jobs.peak_queued", &peak);
            snprintf(defs, sizeof defs, "queued_col=%d; peak_queued=%.17g", qc, peak);
            rc = figure(pl, dir, "fig_queue", "scripts/fig_queue.gp", defs, ts, title, NULL);
        }
    } else {
        h_raw(&pl->h, "<p class=note>no timeseries.csv: time figures skipped</p>\n");
    }
    /* Latency CDF per service: drawn through each service's latency quantiles
     * (services[i].latency_cdf_s, 16 points, else latency_s.pNN; the id in
     * services[i].id) when the run had services. */
    const cJSON *svcs = cJSON_GetObjectItemCaseSensitive(rep, "services");
    int nsvc = 0;
    const cJSON *sv;
    cJSON_ArrayForEach(sv, svcs)
    {
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(sv, "latency_s");
        const cJSON *cdf = cJSON_GetObjectItemCaseSensitive(sv, "latency_cdf_s");
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id"));
        if (!id)
            id = sv->string ? sv->string : "?";
        if (rc || !cJSON_IsObject(lat))
            continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/fig_latency_cdf.svc%d.tsv", dir, nsvc);
        FILE *f = fopen(p, "w");
        if (!f) {
            rc = gs_err(err, GS_EWRITE, "cannot write '%s'", p);
            break;
        }
        fprintf(f, "latency_s\t");
        tsv_text(f, id);
        fprintf(f, "\n");
        const cJSON *q;
        double mx;
        const cJSON *pts = cJSON_IsObject(cdf) ? cdf : lat;
        cJSON_ArrayForEach(q, pts)
        {
            if (q->string && q->string[0] == 'p' && cJSON_IsNumber(q)) {
                char pct[32]; /* "p99_9" -> 99.9 (latency_cdf_s writes the point as '_') */
                snprintf(pct, sizeof pct, "%s", q->string + 1);
                for (char *c2 = pct; *c2; c2++)
                    if (*c2 == '_')
                        *c2 = '.';
                if (atof(pct) > 0)
                    fprintf(f, "%.9g\t%.6g\n", q->valuedouble, atof(pct) / 100.0);
            }
        }
        if (metrics_get(lat, "max", &mx) && mx > 0) /* the slowest request closes the curve */
            fprintf(f, "%.9g\t1\n", mx);
        fclose(f);
        nsvc++;
    }
    if (rc == 0 && nsvc) {
        char defs[64], prefix[1200];
        snprintf(defs, sizeof defs, "nsvc=%d", nsvc);
        snprintf(prefix, sizeof prefix, "%s/fig_latency_cdf.svc", dir);
        rc = figure(pl, dir, "fig_latency_cdf", "scripts/fig_latency_cdf.gp", defs, prefix, title, NULL);
    } else if (rc == 0) {
        h_raw(&pl->h, "<p class=note>no services in this report: latency CDF skipped</p>\n");
        printf("note: %s has no services: latency CDF skipped\n", dir);
    }
    h_metrics_table(&pl->h, rep);
    h_json(&pl->h, "inputs", in, true);
    h_json(&pl->h, "policy", cJSON_GetObjectItemCaseSensitive(rep, "policy"), false);
    return rc;
}

static double cell(const cJSON *po, const char *key, const char *what)
{
    double v = NAN;
    metrics_get(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(po, "metrics"), key), what, &v);
    return v;
}

static int plot_compare(plotter *pl, const char *dir, const cJSON *doc)
{
    gs_error *err = pl->err;
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(doc, "policies");
    char tsv[1200], title[700];
    snprintf(tsv, sizeof tsv, "%s/fig_compare.tsv", dir);
    snprintf(title, sizeof title, "policies compared on %s",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "trace")) ?: "?");
    FILE *f = fopen(tsv, "w");
    if (!f)
        return gs_err(err, GS_EWRITE, "cannot write '%s'", tsv);
    static const char *keys[] = {"utilization", "queue_p99_s", "jct_p99_s", "cost_per_completed_job_usd"};
    fprintf(f, "policy");
    for (int k = 0; k < 4; k++)
        fprintf(f, "\t%s\tlo\thi", keys[k]);
    fprintf(f, "\n");
    const cJSON *po;
    cJSON_ArrayForEach(po, pa)
    {
        tsv_text(f, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label")) ?: "?");
        for (int k = 0; k < 4; k++) {
            static const char *w[] = {"mean", "lo", "hi"};
            for (int i = 0; i < 3; i++) {
                double v = cell(po, keys[k], w[i]);
                if (isnan(v))
                    fprintf(f, "\t?");
                else
                    fprintf(f, "\t%.9g", v);
            }
        }
        fprintf(f, "\n");
    }
    fclose(f);
    h_raw(&pl->h, "<h3>");
    h_esc(&pl->h, title);
    h_raw(&pl->h, "</h3>\n");
    int rc = figure(pl, dir, "fig_compare", "scripts/fig_compare.gp", "x=0", tsv, title, NULL);
    /* the table, rows x policies, mean [lo, hi] */
    double seeds = 1;
    metrics_get(doc, "seeds", &seeds);
    h_raw(&pl->h, "<table><tr><th>metric</th>");
    cJSON_ArrayForEach(po, pa)
    {
        h_raw(&pl->h, "<th>");
        h_esc(&pl->h, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label")) ?: "?");
        h_raw(&pl->h, "</th>");
    }
    h_raw(&pl->h, "</tr>\n");
    const cJSON *ro;
    cJSON_ArrayForEach(ro, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
    {
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ro, "key")) ?: "?";
        h_raw(&pl->h, "<tr><td>");
        h_esc(&pl->h, key);
        h_raw(&pl->h, "</td>");
        cJSON_ArrayForEach(po, pa)
        {
            h_raw(&pl->h, "<td>");
            h_num(&pl->h, cell(po, key, "mean"));
            if (seeds > 1) {
                h_raw(&pl->h, " [");
                h_num(&pl->h, cell(po, key, "lo"));
                h_raw(&pl->h, ", ");
                h_num(&pl->h, cell(po, key, "hi"));
                h_raw(&pl->h, "]");
            }
            h_raw(&pl->h, "</td>");
        }
        h_raw(&pl->h, "</tr>\n");
    }
    h_raw(&pl->h, "</table>\n");
    if (seeds > 1)
        h_raw(&pl->h, "<p class=note>mean over seeds [95% Student-t interval]</p>\n");
    h_json(&pl->h, "cluster", cJSON_GetObjectItemCaseSensitive(doc, "cluster"), true);
    return rc;
}

static int plot_plan(plotter *pl, const char *dir, const cJSON *doc)
{
    gs_error *err = pl->err;
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(doc, "policies");
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(doc, "slo");
    int nterm = 0;
    const cJSON *tt;
    cJSON_ArrayForEach(tt, sa)
        nterm += !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tt, "implicit"));
    if (nterm > 4)
        nterm = 4; /* the figure has four panels at most; the table has all */
    char title[700], defs[600], prefix[1200];
    snprintf(title, sizeof title, "%s on %s: SLO metric (worst seed) vs cards",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "trace")) ?: "?",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "gpu")) ?: "?");
    snprintf(prefix, sizeof prefix, "%s/fig_plan.p", dir);
    int np = 0, rc = 0;
    const cJSON *po;
    cJSON_ArrayForEach(po, pa)
    {
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(po, "points")) == 0)
            continue; /* an impossible candidate: nothing was run */
        char p[1300];
        snprintf(p, sizeof p, "%s%d.tsv", prefix, np);
        FILE *f = fopen(p, "w");
        if (!f) {
            rc = gs_err(err, GS_EWRITE, "cannot write '%s'", p);
            break;
        }
        fprintf(f, "cards");
        for (int t = 0; t < nterm; t++) {
            fprintf(f, "\t");
            tsv_text(f, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label")) ?: "?");
        }
        fprintf(f, "\n");
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            double g = 0;
            metrics_get(pt, "gpus", &g);
            fprintf(f, "%.0f", g);
            const cJSON *terms = cJSON_GetObjectItemCaseSensitive(pt, "terms");
            for (int t = 0; t < nterm; t++) {
                double w = NAN;
                metrics_get(cJSON_GetArrayItem(terms, t), "worst", &w);
                isnan(w) ? fprintf(f, "\t?") : fprintf(f, "\t%.9g", w);
            }
            fprintf(f, "\n");
        }
        fclose(f);
        np++;
    }
    int l = snprintf(defs, sizeof defs, "npol=%d; nterm=%d", np, nterm);
    const char *panels[5] = {0};
    for (int t = 0; t < nterm; t++) {
        double thr = 0;
        const cJSON *to = cJSON_GetArrayItem(sa, t);
        metrics_get(to, "value", &thr);
        /* a log axis when the worst values span more than two decades */
        double lo = INFINITY, hi = 0;
        cJSON_ArrayForEach(po, pa)
        {
            const cJSON *pt;
            cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
            {
                double w = NAN;
                metrics_get(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pt, "terms"), t), "worst", &w);
                if (w > 0 && w < lo)
                    lo = w;
                if (w > hi)
                    hi = w;
            }
        }
        l += snprintf(defs + l, sizeof defs - (size_t)l, "; thr%d=%.17g; logy%d=%d", t + 1, thr, t + 1,
                      hi > 0 && hi / lo > 100 && thr > 0);
        panels[t] = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(to, "path")) ?: "?";
    }
    h_raw(&pl->h, "<h3>");
    h_esc(&pl->h, title);
    h_raw(&pl->h, "</h3>\n");
    if (rc == 0 && np > 0 && nterm > 0)
        rc = figure(pl, dir, "fig_plan", "scripts/fig_plan.gp", defs, prefix, title, panels);
    h_raw(&pl->h, "<table><tr><th>policy</th><th>cards</th><th>$/hour</th><th>$/month (730 h)</th>"
                  "<th>verdict</th></tr>\n");
    cJSON_ArrayForEach(po, pa)
    {
        double g = NAN, ch = NAN, cm = NAN;
        metrics_get(po, "gpus", &g);
        metrics_get(po, "cost_per_hour_usd", &ch);
        metrics_get(po, "cost_per_month_usd", &cm);
        h_raw(&pl->h, "<tr><td>");
        h_esc(&pl->h, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label")) ?: "?");
        h_raw(&pl->h, "</td><td>");
        h_num(&pl->h, g);
        h_raw(&pl->h, "</td><td>");
        h_num(&pl->h, ch);
        h_raw(&pl->h, "</td><td>");
        h_num(&pl->h, cm);
        h_raw(&pl->h, "</td><td>");
        h_esc(&pl->h, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "verdict")) ?: "");
        h_raw(&pl->h, "</td></tr>\n");
    }
    h_raw(&pl->h, "</table>\n");
    /* the evidence: every count tried, the worst seed's figure per term */
    cJSON_ArrayForEach(po, pa)
    {
        h_raw(&pl->h, "<p>evidence for ");
        h_esc(&pl->h, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label")) ?: "?");
        h_raw(&pl->h, " (worst seed per term)</p><table><tr><th>cards</th><th>met</th><th>seeds met</th>");
        const cJSON *to;
        cJSON_ArrayForEach(to, sa)
        {
            h_raw(&pl->h, "<th>");
            h_esc(&pl->h, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(to, "path")) ?: "?");
            h_raw(&pl->h, " ");
            h_esc(&pl->h, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(to, "op")) ?: "?");
            double v = NAN;
            metrics_get(to, "value", &v);
            h_raw(&pl->h, " ");
            h_num(&pl->h, v);
            h_raw(&pl->h, "</th>");
        }
        h_raw(&pl->h, "</tr>\n");
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            double g = NAN, sm = NAN;
            metrics_get(pt, "gpus", &g);
            metrics_get(pt, "seeds_met", &sm);
            h_raw(&pl->h, "<tr><td>");
            h_num(&pl->h, g);
            h_raw(&pl->h, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met")) ? "</td><td>yes</td><td>"
                                                                                      : "</td><td>no</td><td>");
            h_num(&pl->h, sm);
            h_raw(&pl->h, "</td>");
            const cJSON *tv;
            cJSON_ArrayForEach(tv, cJSON_GetObjectItemCaseSensitive(pt, "terms"))
            {
                double w = NAN;
                metrics_get(tv, "worst", &w);
                h_raw(&pl->h, "<td>");
                h_num(&pl->h, w);
                h_raw(&pl->h, "</td>");
            }
            h_raw(&pl->h, "</tr>\n");
        }
        h_raw(&pl->h, "</table>\n");
    }
    h_json(&pl->h, "plan.json (SLO terms and every point tried)", doc, false);
    return rc;
}

typedef struct plot_docs {
    cJSON *report, *compare, *plan;
} plot_docs;

/* Reads and checks what DIR holds (cli_docs.h). */
static int load_docs(plot_docs *d, const char *dir, gs_error *err)
{
    char p[1100];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gs_err(err, GS_EINPUT, "plot: '%s' is not a directory", dir);
    if (exists(dir, "report.json", p, sizeof p) && !(d->report = cli_batch_read_report(dir, err)))
        return err->code;
    if (exists(dir, "compare.json", p, sizeof p)) {
        if (!(d->compare = cli_batch_read_json(p, err)))
            return err->code;
        if (cd_check_compare(d->compare, p, err))
            return err->code;
    }
    if (exists(dir, "plan.json", p, sizeof p)) {
        if (!(d->plan = cli_batch_read_json(p, err)))
            return err->code;
        if (cd_check_plan(d->plan, p, err))
            return err->code;
    }
    if (!d->report && !d->compare && !d->plan)
        return gs_err(err, GS_EINPUT, "plot: '%s' holds no report.json, compare.json or plan.json", dir);
    return 0;
}

static void plot_usage(FILE *out)
{
    fprintf(out, "usage: gpusim plot RESULT_DIR... [--out DIR] [--no-svg]\n"
                 "\n"
                 "  RESULT_DIR: a run (report.json, timeseries.csv), a 'compare' or a 'plan' output.\n"
                 "  Figures (PNG 900x500, and SVG) go beside each result; report.html (self-contained)\n"
                 "  goes to --out (default: the first RESULT_DIR). Needs gnuplot.\n");
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'},
        {"no-svg", no_argument, 0, 'n'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *out = NULL;
    gs_error err = {0};
    plotter pl = {.svg = true, .err = &err};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': pl.svg = false; break;
        case 'h': plot_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "plot: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (optind >= argc)
        return cli_fail(&(gs_error){GS_EUSAGE, "plot: expected one or more RESULT_DIR"});
    h_raw(&pl.h, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpusim report</title>\n"
                 "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}"
                 "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:2px 8px;"
                 "text-align:right}td:first-child{text-align:left}img{max-width:100%}.note{color:#666}"
                 "pre{background:#f4f4f4;padding:6px;overflow:auto}</style></head><body>\n"
                 "<h1>gpusim report</h1>\n");
    /* Every document is read and checked before anything is drawn: a bad
     * input leaves no figure behind in any DIR. */
    int ndirs = argc - optind, rc = 0;
    plot_docs *docs = xcalloc((size_t)ndirs, sizeof *docs);
    for (int i = 0; i < ndirs && rc == 0; i++)
        rc = load_docs(&docs[i], argv[optind + i], &err);
    for (int i = 0; i < ndirs && rc == 0; i++) {
        const char *dir = argv[optind + i];
        h_raw(&pl.h, "<h2>");
        h_esc(&pl.h, dir);
        h_raw(&pl.h, "</h2>\n");
        if (docs[i].report)
            rc = plot_run(&pl, dir, docs[i].report);
        if (rc == 0 && docs[i].compare)
            rc = plot_compare(&pl, dir, docs[i].compare);
        if (rc == 0 && docs[i].plan)
            rc = plot_plan(&pl, dir, docs[i].plan);
    }
    for (int i = 0; i < ndirs; i++) {
        cJSON_Delete(docs[i].report);
        cJSON_Delete(docs[i].compare);
        cJSON_Delete(docs[i].plan);
    }
    free(docs);
    h_raw(&pl.h, "<p class=note>made by gpusim " GPUSIM_VERSION " (gpusim plot)</p></body></html>\n");
    if (rc == 0) {
        char path[1100];
        snprintf(path, sizeof path, "%s/report.html", out ? out : argv[optind]);
        if (out)
            rc = cli_batch_mkdirs(out, &err);
        if (rc == 0)
            rc = cli_batch_write_text(path, pl.h.buf, &err);
        if (rc == 0)
            printf("report: %s (%d figures inlined)\n", path, pl.figures);
    }
    free(pl.h.buf);
    return rc ? cli_fail(&err) : 0;
}
