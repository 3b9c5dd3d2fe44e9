/* test_sketch.c - the percentile sketch against an exact sort (nearest rank):
 * relative error within SK_REL_ERR (< 1%) on light and heavy tails, zeros
 * exact.
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

#include "../sim/sim_metrics.h"
#include "../base/sim_rng.h"
#include "check.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double exact_q(const double *v, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    return v[rank - 1];
}

static void against_exact(int dist)
{
    enum { N = 200000 };
    double *v = malloc(N * sizeof *v);
    gsl_rng *r = sim_rng_new(99, 1);
    sim_sketch sk;
    sim_sketch_init(&sk);
    for (int i = 0; i < N; i++) {
        double x = dist == 0 ? gsl_ran_exponential(r, 3.0)
                 : dist == 1 ? gsl_ran_lognormal(r, 2.0, 2.5)          /* heavy tail */
                             : (i % 2 ? 0.0 : gsl_ran_exponential(r, 1.0)); /* half zeros */
        v[i] = x;
        sim_sketch_add(&sk, x);
    }
    qsort(v, N, sizeof *v, cmp_d);
    const double qs[] = {0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        double ex = exact_q(v, N, qs[k]);
        CHECK_NEAR(sim_sketch_quantile(&sk, qs[k]), ex, SK_REL_ERR + 1e-12, 0);
    }
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += v[i];
    CHECK_NEAR(sim_sketch_mean(&sk), sum / N, 1e-9, 0);
    CHECK(sk.max == v[N - 1]);
    sim_sketch_free(&sk);
    sim_rng_free(r);
    free(v);
}

static void exp_tail(void) { against_exact(0); }
static void lognormal_tail(void) { against_exact(1); }
static void zeros(void) { against_exact(2); }

static void empty_and_single(void)
{
    sim_sketch sk;
    sim_sketch_init(&sk);
    CHECK(sim_sketch_quantile(&sk, 0.99) == 0.0);
    sim_sketch_add(&sk, 42.5);
    CHECK(sim_sketch_quantile(&sk, 0.5) == 42.5);
    CHECK(sim_sketch_quantile(&sk, 0.99) == 42.5);
    sim_sketch_free(&sk);
}

const test_case tests_sketch[] = {
    {"sketch/exponential_vs_exact_sort", exp_tail},
    {"sketch/lognormal_heavy_tail_vs_exact_sort", lognormal_tail},
    {"sketch/half_zeros_vs_exact_sort", zeros},
    {"sketch/empty_and_single", empty_and_single},
    {NULL, NULL},
};
