/* cli_compare_table.c - see cli_compare_table.h. Moved out of
 * cli_compare.c unchanged in what it computes and prints, so that `compare`
 * and `sweep collect` cannot drift apart.
 * SPDX-License-Identifier: MIT */
#include "cli_compare_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "metrics.h"

/* The base rows are metrics[]'s compare rows (metrics.h), in its order; a
 * path absent from every report (e.g. no price known) is left out. */
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
            rows[nrows].owned = id ? cli_batch_fmt("%s.%s", id, what[w][0]) : cli_batch_fmt("service%d.%s", i, what[w][0]);
            rows[nrows].key = rows[nrows].owned;
            snprintf(rows[nrows].path, sizeof rows[0].path, "services.%d.%s", i, what[w][1]);
            nrows++;
        }
        i++;
    }
    return nrows;
}

static double value_of(const cJSON *rep, const char *path, const cli_batch_slo *slo, int nslo, bool *ok)
{
    double v;
    if (strcmp(path, "slo_met") == 0) {
        bool met = true;
        for (int t = 0; t < nslo; t++)
            met &= metrics_measured(rep, slo[t].path, &v) && cli_batch_slo_holds(&slo[t], v); /* unmeasured: not met */
        *ok = true;
        return met ? 1.0 : 0.0;
    }
    *ok = metrics_measured(rep, path, &v); /* a statistic of an empty sample: absent, "-" */
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

static const cJSON *first_report(const cli_compare_table_column *cols, int ncols)
{
    for (int c = 0; c < ncols; c++)
        for (int i = 0; i < cols[c].n; i++)
            if (cols[c].reports[i])
                return cols[c].reports[i];
    return NULL;
}

/* The table's rows: the metrics table's compare rows, the SLO terms and
 * slo_met, the extra paths (tokens of *mcopy, which the caller frees),
 * then one set per service of rep0. Returns how many. */
static int list_rows(row *rows, const cli_batch_slo *slo, int nslo, const char *extra_paths, const cJSON *rep0,
                     char **mcopy)
{
    int nrows = 0;
    for (const metrics_row *m = metrics; m->path; m++)
        if (m->flags & METRICS_COMPARE) {
            rows[nrows].key = m->key;
            snprintf(rows[nrows++].path, sizeof rows[0].path, "%s", m->path);
        }
    for (int t = 0; t < nslo && nrows < MAX_ROWS - 1; t++) {
        rows[nrows].key = slo[t].path;
        snprintf(rows[nrows++].path, sizeof rows[0].path, "%s", slo[t].path);
    }
    if (nslo) {
        rows[nrows].key = "slo_met";
        snprintf(rows[nrows++].path, sizeof rows[0].path, "slo_met");
    }
    *mcopy = extra_paths ? xstrdup(extra_paths) : NULL;
    char *save = NULL;
    for (char *tok = *mcopy ? strtok_r(*mcopy, ",", &save) : NULL; tok && nrows < MAX_ROWS;
         tok = strtok_r(NULL, ",", &save)) {
        rows[nrows].key = tok;
        snprintf(rows[nrows++].path, sizeof rows[0].path, "%s", tok);
    }
    return add_service_rows(rows, nrows, rep0);
}

/* The document's head: kind, trace, seeds, the cluster (rep0's) and the
 * SLO terms as text. */
static cJSON *doc_head(const char *trace, long seeds, const cJSON *rep0, const cli_batch_slo *slo, int nslo)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "compare");
    cJSON_AddStringToObject(doc, "trace", trace);
    cJSON_AddNumberToObject(doc, "seeds", (double)seeds);
    cJSON *in = cJSON_GetObjectItemCaseSensitive(rep0, "inputs");
    cJSON_AddItemToObject(doc, "cluster", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "cluster"), 1));
    if (nslo) {
        cJSON *sa = cJSON_AddArrayToObject(doc, "slo");
        for (int t = 0; t < nslo; t++) {
            char *s = cli_batch_fmt("%s%s%g", slo[t].path, cli_batch_op_str(slo[t].op), slo[t].value);
            cJSON_AddItemToArray(sa, cJSON_CreateString(s));
            free(s);
        }
    }
    return doc;
}

/* One column (a policy's runs) as its entry: label, policy, runs, and per
 * row with a value in some run its mean, interval and values (present[r]
 * set). vals: room for the column's runs. */
static cJSON *column_entry(const cli_compare_table_column *col, const row *rows, int nrows, const cli_batch_slo *slo,
                           int nslo, double *vals, bool *present)
{
    cJSON *po = cJSON_CreateObject();
    cJSON_AddStringToObject(po, "label", col->label);
    cJSON_AddStringToObject(po, "policy", col->policy);
    cJSON *ru = cJSON_AddArrayToObject(po, "runs");
    for (int s = 0; s < col->n; s++)
        cJSON_AddItemToArray(ru, cJSON_CreateString(col->run_dirs[s]));
    cJSON *mo = cJSON_AddObjectToObject(po, "metrics");
    for (int r = 0; r < nrows; r++) {
        int nv = 0;
        bool ok;
        for (int s = 0; s < col->n; s++) {
            if (!col->reports[s])
                continue;
            double v = value_of(col->reports[s], rows[r].path, slo, nslo, &ok);
            if (ok)
                vals[nv++] = v;
        }
        if (nv == 0)
            continue;
        present[r] = true;
        double mean, half;
        cli_batch_interval(vals, nv, &mean, &half);
        cJSON *cell = cJSON_AddObjectToObject(mo, rows[r].key);
        cJSON_AddNumberToObject(cell, "mean", mean);
        cJSON_AddNumberToObject(cell, "lo", mean - half);
        cJSON_AddNumberToObject(cell, "hi", mean + half);
        cJSON_AddNumberToObject(cell, "n", nv);
        cJSON_AddItemToObject(cell, "values", cJSON_CreateDoubleArray(vals, nv));
    }
    return po;
}

cJSON *cli_compare_table_build(const char *trace, long seeds, const cli_compare_table_column *cols, int ncols, const cli_batch_slo *slo, int nslo,
                const char *extra_paths)
{
    const cJSON *rep0 = first_report(cols, ncols);
    if (!rep0)
        return NULL;
    row rows[MAX_ROWS] = {0};
    char *mcopy;
    int nrows = list_rows(rows, slo, nslo, extra_paths, rep0, &mcopy);
    cJSON *doc = doc_head(trace, seeds, rep0, slo, nslo);
    cJSON *ra = cJSON_AddArrayToObject(doc, "rows");
    cJSON *pa = cJSON_AddArrayToObject(doc, "policies");
    bool present[MAX_ROWS] = {0};
    int maxn = 1;
    for (int p = 0; p < ncols; p++)
        maxn = cols[p].n > maxn ? cols[p].n : maxn;
    double *vals = xcalloc((size_t)maxn, sizeof *vals);
    for (int p = 0; p < ncols; p++)
        cJSON_AddItemToArray(pa, column_entry(&cols[p], rows, nrows, slo, nslo, vals, present));
    free(vals);
    for (int r = 0; r < nrows; r++) {
        if (!present[r])
            continue;
        cJSON *ro = cJSON_CreateObject();
        cJSON_AddStringToObject(ro, "key", rows[r].key);
        cJSON_AddStringToObject(ro, "path", rows[r].path);
        cJSON_AddItemToArray(ra, ro);
    }
    free(mcopy);
    for (int r = 0; r < nrows; r++)
        free(rows[r].owned);
    return doc;
}

int cli_compare_table_write(const cJSON *doc, const char *dir, char **text, gs_error *err)
{
    char *withnl = gs_json_print(doc, NULL); /* what compare writes, newline included */
    char path[1000];
    snprintf(path, sizeof path, "%s/compare.json", dir);
    int rc = cli_batch_mkdirs(dir, err);
    if (rc == 0)
        rc = cli_batch_write_text(path, withnl, err);
    if (text && rc == 0)
        *text = withnl;
    else
        free(withnl);
    return rc;
}

void cli_compare_table_print(const cJSON *doc, const char *format, const char *trace, long seeds, const char *odir)
{
    bool md = !strcmp(format, "markdown"), csv = !strcmp(format, "csv"), txt = !strcmp(format, "text");
    const cJSON *ra = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(doc, "policies");
    if (txt)
        printf("compare: %s, %ld seed%s%s\n", trace, seeds, seeds > 1 ? "s" : "",
               seeds > 1 ? " (mean ±95% interval)" : "");
    printf(md ? "| metric |" : csv ? "metric" : "%-26s", md || csv ? "" : "metric");
    /* text: a column as wide as its label, so a long policy name keeps the
     * columns aligned */
    int np = cJSON_GetArraySize(pa), c = 0;
    int *w = xcalloc((size_t)np + 1, sizeof *w);
    const cJSON *po;
    cJSON_ArrayForEach(po, pa)
    {
        const char *l = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(po, "label"));
        w[c++] = l && (int)strlen(l) > 22 ? (int)strlen(l) : 22;
    }
    c = 0;
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
            printf(" %*s", w[c], l);
        }
        c++;
    }
    printf("\n");
    if (md) {
        printf("|---|");
        for (int p = 0; p < cJSON_GetArraySize(pa); p++)
            printf("---:|");
        printf("\n");
    }
    const cJSON *ro;
    cJSON_ArrayForEach(ro, ra)
    {
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ro, "key"));
        printf(md ? "| %s |" : csv ? "%s" : "%-26s", key);
        c = 0;
        cJSON_ArrayForEach(po, pa)
        {
            const cJSON *cell =
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(po, "metrics"), key);
            double mean = NAN, lo = NAN, hi = NAN;
            metrics_get(cell, "mean", &mean);
            metrics_get(cell, "lo", &lo);
            metrics_get(cell, "hi", &hi);
            char buf[64];
            fmt_cell(buf, sizeof buf, mean, (hi - lo) / 2, (int)seeds);
            if (csv) {
                printf(",%.6g", mean);
                if (seeds > 1)
                    printf(",%.6g,%.6g", lo, hi);
            } else if (md) {
                printf(" %s |", buf);
            } else {
                printf(" %*s", w[c], buf);
            }
            c++;
        }
        printf("\n");
    }
    free(w);
    if (txt)
        printf("runs and compare.json: %s\n", odir);
}
