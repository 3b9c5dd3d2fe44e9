/* wl_gen_training.c - `gpusim gen training`: a day of training jobs shaped
 * like a Helios cluster's (see wl_gen.h for the model).
 *
 * The figures are Hu et al., "Characterization and Prediction of Deep
 * Learning Workloads in Large-Scale GPU Datacenters", SC '21, as drawn by
 * the paper's artifact (github.com/S-Lab-System-Group/HeliosArtifact) and
 * read back from its vector PDFs by scripts/helios_figures.py into
 * reference/helios-jobs.csv (tests/test_gen_training.c checks this table
 * against that file): the CDF of job sizes over jobs and over GPU time, the
 * hourly GPU job submissions, the lognormal shape fitted to the job
 * duration CDF, and the mean GPU job run time of the trace summary.
 *
 * Streaming: the N submit times are drawn as ascending order statistics of
 * N uniforms (one at a time, 1 - (1 - u) V^(1/(N - i))), mapped through the
 * hourly rate's cumulative, so memory is O(hours), never O(jobs).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "../base/gs_rng.h"
#include "wl_gen.h"

/* This generator's own stream (ids apart from gs_rng.h's shared ones). */
enum { RNG_TR_LIMITS = 50 };

/* The size CDFs' points: every job of at most edge[k] GPUs and more than
 * edge[k - 1] is counted at edge[k]; point 12 is "more than 64". */
static const int tr_edges[WL_TR_NSIZES - 1] = {1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64};

/* reference/helios-jobs.csv, series jobs_cdf_pct, gputime_cdf_pct,
 * submit_per_hour, duration_sigma, mean_run_time_gpu_s (in that order) */
static const wl_training_mix tr_mixes[] = {
    {"venus",
     {51.84, 57.38, 64.80, 89.98, 89.98, 94.14, 95.04, 97.76, 98.05, 98.30, 98.48, 98.71, 100.00},
     {4.63, 8.00, 12.77, 42.14, 42.14, 58.33, 60.18, 83.43, 84.79, 85.86, 87.98, 90.90, 100.00},
     {25.9, 19.0, 17.3, 11.1, 7.7, 5.9, 5.4, 6.5, 10.8, 22.9, 37.3, 42.5,
      33.6, 37.4, 44.9, 47.7, 50.0, 50.0, 37.0, 37.9, 38.8, 39.3, 33.1, 29.9},
     2.7960, 13040.598},
    {"earth",
     {89.17, 89.98, 92.08, 97.51, 97.52, 99.09, 99.27, 99.75, 99.78, 99.82, 99.84, 99.87, 100.00},
     {11.49, 12.56, 18.85, 46.75, 46.76, 66.77, 69.86, 83.88, 84.40, 86.64, 88.52, 91.15, 100.00},
     {107.9, 96.1, 88.5, 84.4, 81.5, 79.2, 74.0, 74.2, 72.6, 81.5, 102.0, 112.3,
      108.9, 112.7, 105.7, 115.8, 113.5, 102.0, 93.7, 107.8, 122.6, 115.6, 105.6, 101.6},
     2.0532, 5130.609},
    {"saturn",
     {68.25, 71.05, 79.36, 94.93, 94.95, 97.46, 97.86, 99.27, 99.40, 99.52, 99.60, 99.73, 100.00},
     {5.38, 7.09, 12.70, 40.25, 40.52, 57.75, 59.85, 84.19, 86.09, 89.01, 89.10, 92.91, 100.00},
     {139.5, 142.9, 113.6, 104.7, 98.0, 90.8, 85.9, 85.1, 95.4, 138.3, 184.1, 198.6,
      173.8, 185.5, 206.5, 235.0, 241.7, 219.5, 180.3, 186.3, 203.5, 195.8, 175.4, 179.8},
     2.8855, 5252.927},
    {"uranus",
     {66.26, 69.44, 73.74, 92.31, 92.32, 97.87, 98.15, 99.60, 99.65, 99.70, 99.74, 99.96, 100.00},
     {3.28, 4.52, 8.37, 39.79, 39.85, 64.61, 65.70, 91.85, 92.59, 93.74, 93.83, 98.92, 100.00},
     {55.5, 48.7, 28.4, 16.9, 17.9, 26.0, 33.5, 20.0, 24.7, 53.9, 85.3, 96.7,
      119.2, 109.4, 125.4, 120.6, 138.1, 112.4, 88.0, 104.0, 111.3, 94.6, 100.1, 86.4},
     2.6347, 9163.725},
};

const wl_training_mix *wl_training_mix_find(const char *name)
{
    for (size_t i = 0; i < sizeof tr_mixes / sizeof tr_mixes[0]; i++)
        if (name && strcmp(tr_mixes[i].name, name) == 0)
            return &tr_mixes[i];
    return NULL;
}

const wl_training_mix *wl_training_mix_at(int i)
{
    return i >= 0 && (size_t)i < sizeof tr_mixes / sizeof tr_mixes[0] ? &tr_mixes[i] : NULL;
}

int wl_training_edge(int k) { return k >= 0 && k < WL_TR_NSIZES - 1 ? tr_edges[k] : 65; }

double wl_training_jobs_per_day(const wl_training_mix *mx)
{
    double n = 0;
    for (int h = 0; h < 24; h++)
        n += mx->per_hour[h];
    return n;
}

/* Mean of a lognormal(mu, sigma) truncated to (0, cap]. */
static double trunc_mean(double mu, double sigma, double cap)
{
    double z = (log(cap) - mu) / sigma;
    return exp(mu + sigma * sigma / 2) * gsl_cdf_ugaussian_P(z - sigma) / gsl_cdf_ugaussian_P(z);
}

/* The mu whose truncated mean is target (bisection: the mean grows with mu). */
static double mu_for_mean(double target, double sigma, double cap)
{
    double lo = -30, hi = log(cap) + 10 * sigma;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        if (trunc_mean(mid, sigma, cap) < target)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Sizes above 64: powers of two from 128 to max_gpus with P(>= g | > 64) =
 * (g / 64)^-alpha, alpha the slope of the job CDF's tail from 16 to 64 GPUs
 * on log-log axes (the figure does not resolve sizes above 64); max_gpus
 * itself when below 128. */
static void big_sizes(wl_training_model *m, const wl_training_mix *mx, int max_gpus)
{
    double s16 = 100 - mx->jobs_cdf_pct[5], s64 = 100 - mx->jobs_cdf_pct[11];
    m->alpha = log(s16 / s64) / log(4);
    m->nbig = 0;
    if (max_gpus < 128) {
        m->big[m->nbig] = max_gpus;
        m->big_p[m->nbig++] = 1;
        return;
    }
    for (long g = 128; g <= max_gpus && m->nbig < WL_TR_MAXBIG; g *= 2)
        m->big[m->nbig++] = (int)g;
    /* P(size = g_i) = S(g_i) - S(g_i+1), the top taking S(top): S(g) = (g / 64)^-alpha,
     * over S(128) (the bucket is all of "> 64") */
    double s128 = pow(2.0, -m->alpha);
    for (int i = 0; i < m->nbig; i++) {
        double s = pow(m->big[i] / 64.0, -m->alpha);
        double next = i + 1 < m->nbig ? pow(m->big[i + 1] / 64.0, -m->alpha) : 0;
        m->big_p[i] = (s - next) / s128;
    }
}

int wl_training_model_init(wl_training_model *m, const wl_training_opts *o, gs_error *err)
{
    memset(m, 0, sizeof *m);
    const wl_training_mix *mx = wl_training_mix_find(o->mix);
    if (!mx)
        return gs_err(err, GS_EUSAGE, "gen training: --mix '%s': expected venus, earth, saturn or uranus",
                      o->mix ? o->mix : "");
    m->mix = mx;
    m->cap_s = floor(o->max_hours * 3600);
    big_sizes(m, mx, o->max_gpus);
    double gbar_big = 0;
    for (int i = 0; i < m->nbig; i++)
        gbar_big += m->big_p[i] * m->big[i];
    /* a bucket's mean duration follows from its shares of jobs (J) and GPU
     * time (G) at its mean size g: mean_k = c G_k / (J_k g_k); c makes the
     * job-weighted mean the trace summary's mean GPU job run time */
    double w[WL_TR_NSIZES], jw = 0, prev_j = 0, prev_g = 0;
    for (int k = 0; k < WL_TR_NSIZES; k++) {
        double jk = mx->jobs_cdf_pct[k] - prev_j, gk = mx->gputime_cdf_pct[k] - prev_g;
        prev_j = mx->jobs_cdf_pct[k];
        prev_g = mx->gputime_cdf_pct[k];
        double g = k < WL_TR_NSIZES - 1 ? tr_edges[k] : gbar_big;
        m->share[k] = jk / 100;
        w[k] = jk > 0 && gk > 0 ? gk / (jk * g) : 0;
        jw += m->share[k] * w[k];
    }
    for (int k = 0; k < WL_TR_NSIZES; k++) {
        double target = w[k] > 0 ? mx->mean_s * w[k] / jw : 1e-3;
        m->mu[k] = mu_for_mean(target, mx->sigma, m->cap_s);
    }
    return 0;
}

/* Round wall times a user picks (--time), in seconds: estimates cluster on
 * a few round values (Tsafrir, Etsion and Feitelson, "Modeling User Runtime
 * Estimates", JSSPP 2005). The ladder stops at the cap, which is its top. */
static const double tr_ladder_s[] = {600, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800, 259200, 432000};

static double time_limit_s(double dur_s, gsl_rng *rl, const wl_training_opts *o, double cap_s)
{
    double want = dur_s * (1 + gsl_rng_uniform(rl) * (o->overask - 1));
    for (size_t i = 0; i < sizeof tr_ladder_s / sizeof tr_ladder_s[0] && tr_ladder_s[i] < cap_s; i++)
        if (tr_ladder_s[i] >= want)
            return tr_ladder_s[i];
    return cap_s;
}

static int draw_size(const wl_training_model *m, gsl_rng *rs, int *bucket)
{
    double u = gsl_rng_uniform(rs), acc = 0;
    int k = 0;
    for (; k < WL_TR_NSIZES - 1; k++) {
        acc += m->share[k];
        if (u < acc)
            break;
    }
    *bucket = k;
    if (k < WL_TR_NSIZES - 1)
        return tr_edges[k];
    double v = gsl_rng_uniform(rs);
    acc = 0;
    for (int i = 0; i < m->nbig - 1; i++) {
        acc += m->big_p[i];
        if (v < acc)
            return m->big[i];
    }
    return m->big[m->nbig - 1];
}

/* One node's share of a job of g GPUs on nodes of p: all of it within a
 * node, else the largest divisor of g that fits one node (a gang of equal
 * parts, as data-parallel training runs). */
static int per_node(int g, int p)
{
    if (g <= p)
        return g;
    for (int d = p; d > 1; d--)
        if (g % d == 0)
            return d;
    return 1;
}

/* The hourly rate's cumulative over the horizon: cum[h] = expected share of
 * submissions before hour h (cum[nh] = 1). */
static double *hour_cum(const wl_training_mix *mx, double hours, int *nh)
{
    *nh = (int)ceil(hours);
    double *cum = xmalloc((size_t)(*nh + 1) * sizeof *cum);
    cum[0] = 0;
    for (int h = 0; h < *nh; h++) {
        double len = h + 1 <= hours ? 1 : hours - h;
        cum[h + 1] = cum[h] + mx->per_hour[h % 24] * len;
    }
    for (int h = 1; h <= *nh; h++)
        cum[h] /= cum[*nh];
    return cum;
}

int wl_gen_training(FILE *out, const wl_training_opts *o, gs_error *err)
{
    wl_training_model m;
    int rc = wl_training_model_init(&m, o, err);
    if (rc)
        return rc;
    long jobs = o->jobs >= 0 ? o->jobs : lround(wl_training_jobs_per_day(m.mix) * o->hours / 24);
    gsl_rng *ra = gs_rng_new(o->seed, RNG_ARRIVALS), *rs = gs_rng_new(o->seed, RNG_SIZES),
            *rd = gs_rng_new(o->seed, RNG_DURATIONS), *rl = gs_rng_new(o->seed, RNG_TR_LIMITS);
    int nh, h = 0;
    double *cum = hour_cum(m.mix, o->hours, &nh), u = 0;
    fprintf(out, "id,submit,duration,gpus,gpus_per_node,time_limit,class\n");
    for (long i = 0; i < jobs; i++) {
        u = 1 - (1 - u) * pow(1 - gsl_rng_uniform(ra), 1.0 / (double)(jobs - i));
        while (h < nh - 1 && cum[h + 1] <= u)
            h++;
        double in_hour = cum[h + 1] > cum[h] ? (u - cum[h]) / (cum[h + 1] - cum[h]) : 0;
        double submit_s = fmin((h + in_hour) * 3600, o->hours * 3600);
        int bucket, g = draw_size(&m, rs, &bucket);
        double dur_s;
        do /* truncated to the cap: redraw above it */
            dur_s = gsl_ran_lognormal(rd, m.mu[bucket], m.mix->sigma);
        while (dur_s > m.cap_s);
        fprintf(out, "t%ld,%.3f,%.3f,%d,%d,%.0f,training\n", i, submit_s, dur_s, g, per_node(g, o->gpus_per_node),
                time_limit_s(dur_s, rl, o, m.cap_s));
    }
    free(cum);
    gs_rng_free(ra);
    gs_rng_free(rs);
    gs_rng_free(rd);
    gs_rng_free(rl);
    if (fflush(out) != 0 || ferror(out))
        return gs_err(err, GS_EWRITE, "cannot write the generated trace");
    return 0;
}
