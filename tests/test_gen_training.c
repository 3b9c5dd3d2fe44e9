/* test_gen_training.c - `gpusim gen training`: the text it writes, and the
 * Helios figures it is built on.
 *
 * The compiled table is checked against reference/helios-jobs.csv (the
 * figures' numbers as scripts/helios_figures.py reads them from the paper
 * artifact's PDFs), including sigma refitted from the duration CDF; the
 * model's expected GPU-time shares against the figure (exact up to the
 * calibration's bisection); and a generated trace against the figures
 * (job shares and hourly arrivals within 5 binomial or Poisson standard
 * deviations, the duration CDF within 0.08 at every figure point: the
 * lognormal's fit, measured 0.064 on saturn's model, plus sampling noise).
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_gen.h"
#include "check.h"

static wl_training_opts default_opts(void)
{
    return (wl_training_opts){.jobs = -1, .hours = 24, .mix = "saturn", .max_gpus = 1024, .gpus_per_node = 8,
                              .overask = 3, .max_hours = 168, .seed = 1};
}

/* The generator's output in memory (caller frees). */
static char *gen_text(const wl_training_opts *o, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    gs_error err = {0};
    CHECK_EQ_INT(wl_gen_training(f, o, &err), 0);
    fclose(f);
    return buf;
}

typedef struct tr_row {
    double submit, dur, limit;
    int gpus, gpn;
} tr_row;

/* Parses every row; checks the header, the class and the field count. */
static tr_row *parse_rows(char *text, long *n)
{
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    CHECK(line && strcmp(line, "id,submit,duration,gpus,gpus_per_node,time_limit,class") == 0);
    long cap = 1024, k = 0;
    tr_row *rows = malloc((size_t)cap * sizeof *rows);
    while ((line = strtok_r(NULL, "\n", &save))) {
        if (k == cap)
            rows = realloc(rows, (size_t)(cap *= 2) * sizeof *rows);
        long id;
        char cls[32];
        int got = sscanf(line, "t%ld,%lf,%lf,%d,%d,%lf,%31s", &id, &rows[k].submit, &rows[k].dur, &rows[k].gpus,
                         &rows[k].gpn, &rows[k].limit, cls);
        CHECK_EQ_INT(got, 7);
        CHECK_EQ_INT(id, k);
        CHECK(strcmp(cls, "training") == 0);
        k++;
    }
    *n = k;
    return rows;
}

static bool in_ladder(double limit_s, double cap_s)
{
    static const double ladder[] = {600, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800, 259200, 432000};
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
        if (limit_s == ladder[i] && ladder[i] < cap_s)
            return true;
    return limit_s == cap_s;
}

static void test_text_rows(void)
{
    wl_training_opts o = default_opts();
    o.jobs = 5000;
    o.hours = 30;
    o.gpus_per_node = 4;
    size_t len;
    char *text = gen_text(&o, &len);
    long n;
    tr_row *r = parse_rows(text, &n);
    CHECK_EQ_INT(n, 5000);
    int bad_order = 0, bad_dur = 0, bad_limit = 0, bad_node = 0;
    for (long i = 0; i < n; i++) {
        bad_order += r[i].submit < 0 || r[i].submit > 30 * 3600 || (i && r[i].submit < r[i - 1].submit);
        bad_dur += !(r[i].dur >= 0 && r[i].dur <= 168 * 3600);
        bad_limit += !(r[i].limit >= r[i].dur && in_ladder(r[i].limit, 168 * 3600));
        bad_node += r[i].gpn < 1 || r[i].gpn > 4 || r[i].gpus % r[i].gpn || (r[i].gpus <= 4 && r[i].gpn != r[i].gpus);
    }
    CHECK_EQ_INT(bad_order, 0);
    CHECK_EQ_INT(bad_dur, 0);
    CHECK_EQ_INT(bad_limit, 0);
    CHECK_EQ_INT(bad_node, 0);
    free(r);
    free(text);
}

static void test_text_deterministic(void)
{
    wl_training_opts o = default_opts();
    o.jobs = 800;
    size_t la, lb, lc;
    char *a = gen_text(&o, &la), *b = gen_text(&o, &lb);
    o.seed = 2;
    char *c = gen_text(&o, &lc);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    CHECK(la != lc || memcmp(a, c, la) != 0);
    o.jobs = 0;
    char *e = gen_text(&o, &lc);
    CHECK(strcmp(e, "id,submit,duration,gpus,gpus_per_node,time_limit,class\n") == 0);
    o.mix = "mars";
    gs_error err = {0};
    CHECK_EQ_INT(wl_gen_training(stdout, &o, &err), GS_EUSAGE);
    free(a);
    free(b);
    free(c);
    free(e);
}

/* reference/helios-jobs.csv's value of (cluster, series, x), or NAN. */
static double ref_value(const char *cluster, const char *series, const char *x)
{
    FILE *f = fopen("reference/helios-jobs.csv", "r");
    CHECK(f != NULL);
    char line[256];
    double v = NAN;
    while (f && fgets(line, sizeof line, f)) {
        char c[32], s[32], xs[32];
        double val;
        line[strcspn(line, "\n")] = 0;
        char *p = strrchr(line, ',');
        if (!p || sscanf(p + 1, "%lf", &val) != 1)
            continue;
        *p = 0;
        char *q = strrchr(line, ',');
        if (!q)
            continue;
        snprintf(xs, sizeof xs, "%s", q + 1);
        *q = 0;
        if (sscanf(line, "%31[^,],%31s", c, s) == 2 && gs_streq_ci(c, cluster) && !strcmp(s, series) &&
            !strcmp(xs, x)) {
            v = val;
            break;
        }
    }
    if (f)
        fclose(f);
    return v;
}

static void test_table_is_the_reference(void)
{
    for (int i = 0; wl_training_mix_at(i); i++) {
        const wl_training_mix *mx = wl_training_mix_at(i);
        char x[32];
        for (int k = 0; k < WL_TR_NSIZES; k++) {
            snprintf(x, sizeof x, "%d", wl_training_edge(k));
            CHECK_NEAR(mx->jobs_cdf_pct[k], ref_value(mx->name, "jobs_cdf_pct", x), 0, 1e-9);
            CHECK_NEAR(mx->gputime_cdf_pct[k], ref_value(mx->name, "gputime_cdf_pct", x), 0, 1e-9);
        }
        for (int h = 0; h < 24; h++) {
            snprintf(x, sizeof x, "%d", h);
            CHECK_NEAR(mx->per_hour[h], ref_value(mx->name, "submit_per_hour", x), 0, 1e-9);
        }
        CHECK_NEAR(mx->sigma, ref_value(mx->name, "duration_sigma", ""), 0, 1e-9);
        CHECK_NEAR(mx->mean_s, ref_value(mx->name, "mean_run_time_gpu_s", ""), 0, 1e-9);
        /* sigma refitted here: the probit-scale line through the duration CDF */
        double sx = 0, sz = 0, sxx = 0, sxz = 0;
        int np = 0;
        for (int k = 0; k <= 21; k++) {
            snprintf(x, sizeof x, "%ld", 1L << k);
            double p = ref_value(mx->name, "duration_cdf", x);
            if (p > 0.01 && p < 0.99) {
                double lx = k * log(2), z = gsl_cdf_ugaussian_Pinv(p);
                sx += lx, sz += z, sxx += lx * lx, sxz += lx * z, np++;
            }
        }
        double slope = (np * sxz - sx * sz) / (np * sxx - sx * sx);
        CHECK_NEAR(1 / slope, mx->sigma, 0, 1e-3); /* the CSV rounds the CDF to 1e-4 */
    }
}

static double trunc_mean(double mu, double sigma, double cap)
{
    double z = (log(cap) - mu) / sigma;
    return exp(mu + sigma * sigma / 2) * gsl_cdf_ugaussian_P(z - sigma) / gsl_cdf_ugaussian_P(z);
}

/* The model's GPU-time shares and mean duration are the figure's. */
static void test_model_matches_figure(void)
{
    for (int i = 0; wl_training_mix_at(i); i++) {
        wl_training_opts o = default_opts();
        o.mix = wl_training_mix_at(i)->name;
        wl_training_model m;
        gs_error err = {0};
        CHECK_EQ_INT(wl_training_model_init(&m, &o, &err), 0);
        double big = 0, gt[WL_TR_NSIZES], total = 0, mean = 0, psum = 0;
        for (int b = 0; b < m.nbig; b++)
            big += m.big_p[b] * m.big[b], psum += m.big_p[b];
        CHECK_NEAR(psum, 1, 0, 1e-12);
        for (int k = 0; k < WL_TR_NSIZES; k++) {
            double g = k < WL_TR_NSIZES - 1 ? wl_training_edge(k) : big;
            double d = trunc_mean(m.mu[k], m.mix->sigma, m.cap_s);
            gt[k] = m.share[k] * g * d;
            total += gt[k];
            mean += m.share[k] * d;
        }
        CHECK_NEAR(mean, m.mix->mean_s, 1e-6, 0);
        double prev = 0;
        for (int k = 0; k < WL_TR_NSIZES; k++) {
            double fig = (m.mix->gputime_cdf_pct[k] - prev) / 100;
            prev = m.mix->gputime_cdf_pct[k];
            CHECK_NEAR(gt[k] / total, fig, 0, 1e-3); /* a bucket with no jobs has G ~ 0 */
        }
    }
}

/* A generated trace reproduces the figures it was drawn from. */
static void test_sample_matches_figure(void)
{
    wl_training_opts o = default_opts();
    o.jobs = 100000;
    o.hours = 24;
    size_t len;
    char *text = gen_text(&o, &len);
    long n;
    tr_row *r = parse_rows(text, &n);
    const wl_training_mix *mx = wl_training_mix_find("saturn");
    long count[WL_TR_NSIZES] = {0}, hour[24] = {0};
    for (long i = 0; i < n; i++) {
        int k = 0;
        while (k < WL_TR_NSIZES - 1 && r[i].gpus > wl_training_edge(k))
            k++;
        count[k]++;
        hour[(int)(r[i].submit / 3600) % 24]++;
    }
    double prev = 0;
    for (int k = 0; k < WL_TR_NSIZES; k++) {
        double p = (mx->jobs_cdf_pct[k] - prev) / 100;
        prev = mx->jobs_cdf_pct[k];
        CHECK_NEAR((double)count[k] / n, p, 0, 5 * sqrt(p * (1 - p) / n) + 1e-12);
    }
    double day = wl_training_jobs_per_day(mx);
    for (int h = 0; h < 24; h++) {
        double want = n * mx->per_hour[h] / day;
        CHECK_NEAR((double)hour[h], want, 0, 5 * sqrt(want));
    }
    double worst = 0;
    for (int k = 0; k <= 21; k++) {
        long below = 0;
        for (long i = 0; i < n; i++)
            below += r[i].dur <= (double)(1L << k);
        char x[32];
        snprintf(x, sizeof x, "%ld", 1L << k);
        worst = fmax(worst, fabs((double)below / n - ref_value("saturn", "duration_cdf", x)));
    }
    CHECK(worst < 0.08);
    free(r);
    free(text);
}

const test_case tests_gen_training[] = {
    {"gen_training_text_rows", test_text_rows},
    {"gen_training_text_deterministic", test_text_deterministic},
    {"gen_training_table_is_the_reference", test_table_is_the_reference},
    {"gen_training_model_matches_figure", test_model_matches_figure},
    {"gen_training_sample_matches_figure", test_sample_matches_figure},
    {NULL, NULL},
};
