/* test_sketch.c - the percentile sketch against an exact sort (nearest rank):
 * relative error within SK_REL_ERR (< 1%) on light and heavy tails, zeros
 * exact; the paged counters against a dense array of every bucket (the same
 * quantiles, bit for bit), reset, and memory that follows the values.
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_metrics.h"
#include "../base/gs_rng.h"
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
    gsl_rng *r = gs_rng_new(99, 1);
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
    gs_rng_free(r);
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

/* The nearest-rank quantile over a dense array of all SK_NBUCKETS counters,
 * as the sketch computed it before its counters were paged. */
static double dense_q(const uint64_t *count, uint64_t zeros, const sim_sketch *sk, double q)
{
    if (sk->n == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)sk->n);
    if (rank < 1)
        rank = 1;
    if (rank > sk->n)
        rank = sk->n;
    if (rank == sk->n)
        return sk->max;
    if (rank <= zeros)
        return sk->min < 0 ? sk->min : 0.0;
    uint64_t acc = zeros;
    for (long i = 0; i < SK_NBUCKETS; i++) {
        acc += count[i];
        if (acc >= rank) {
            double v = 2.0 * pow(SK_GAMMA, (double)i) / (SK_GAMMA + 1.0) * SK_MIN;
            return v < sk->min ? sk->min : v > sk->max ? sk->max : v;
        }
    }
    return sk->max;
}

static void paged_equals_dense(void)
{
    gsl_rng *r = gs_rng_new(7, 3);
    uint64_t *count = calloc(SK_NBUCKETS, sizeof *count);
    sim_sketch sk;
    sim_sketch_init(&sk);
    CHECK(sim_sketch_bytes(&sk) == 0); /* empty: nothing held */
    for (int round = 0; round < 3; round++) {
        uint64_t zeros = 0;
        for (int i = 0; i < 20000; i++) {
            /* values spread over many decades, some far apart, some zeros */
            double x = i % 7 == 0 ? 0.0 : gsl_ran_lognormal(r, round * 3.0 - 4.0, 3.0);
            int b = sim_sketch_bucket(x);
            if (b < 0)
                zeros++;
            else
                count[b]++;
            if (i % 2)
                sim_sketch_add(&sk, x);
            else
                sim_sketch_add_at(&sk, x, b);
        }
        for (double q = 0.0; q <= 1.0; q += 0.0005)
            CHECK(sim_sketch_quantile(&sk, q) == dense_q(count, zeros, &sk, q));
        CHECK(sim_sketch_bytes(&sk) <= SK_NBUCKETS / SK_PAGE * (SK_PAGE + 1) * sizeof(uint64_t) + 2 * SK_PAGE * 8);
        sim_sketch_reset(&sk); /* a new window: counts gone, pages kept */
        CHECK(sk.n == 0 && sim_sketch_quantile(&sk, 0.5) == 0.0);
        memset(count, 0, SK_NBUCKETS * sizeof *count);
    }
    sim_sketch_free(&sk);
    free(count);
    gs_rng_free(r);
}

/* A wide sketch (its table spans every bucket) counts as a paged one: the
 * same figures, value for value, over zeros and values across the range. */
static void wide_equals_paged(void)
{
    gsl_rng *r = gs_rng_new(3, 11);
    sim_sketch paged, wide;
    sim_sketch_init(&paged);
    sim_sketch_init_wide(&wide);
    for (int i = 0; i < 20000; i++) {
        double x = i % 5 == 0 ? 0.0 : gsl_ran_lognormal(r, -2.0, 6.0);
        int b = sim_sketch_bucket(x);
        sim_sketch_add_at(&paged, x, b);
        sim_sketch_count_wide(&wide, x, b);
    }
    CHECK(paged.n == wide.n && paged.zeros == wide.zeros && paged.sum == wide.sum && paged.min == wide.min &&
          paged.max == wide.max);
    for (double q = 0.0; q <= 1.0; q += 0.0005)
        CHECK(sim_sketch_quantile(&paged, q) == sim_sketch_quantile(&wide, q));
    sim_sketch_free(&paged);
    sim_sketch_free(&wide);
    gs_rng_free(r);
}

static void memory_follows_values(void)
{
    sim_sketch sk;
    sim_sketch_init(&sk);
    sim_sketch_add(&sk, 0.0);
    CHECK(sim_sketch_bytes(&sk) == 0); /* zeros are counted without buckets */
    sim_sketch_add(&sk, 1.0);
    size_t one = sim_sketch_bytes(&sk);
    CHECK(one == SK_PAGE * sizeof(uint64_t) + sizeof(uint64_t *)); /* one page, one table entry */
    for (int i = 0; i < 1000; i++)
        sim_sketch_add(&sk, 1.0 + i * 1e-5); /* the same page */
    CHECK(sim_sketch_bytes(&sk) == one);
    sim_sketch_add(&sk, 1e6); /* far away: one page more, the table spans the gap */
    size_t far = sim_sketch_bytes(&sk);
    CHECK(far > one && far < 2 * SK_PAGE * sizeof(uint64_t) + (size_t)SK_NBUCKETS / SK_PAGE * sizeof(uint64_t *));
    sim_sketch_add(&sk, 1e-3); /* below the lowest: the table grows downwards */
    CHECK(sim_sketch_bytes(&sk) > far);
    CHECK(sim_sketch_quantile(&sk, 1.0) == 1e6);
    CHECK(sim_sketch_quantile(&sk, 0.0) == 0.0);
    sim_sketch_free(&sk);
    CHECK(sim_sketch_bytes(&sk) == 0 && sk.n == 0);
    sim_sketch_free(&sk); /* twice is harmless */
}

/* The bucket of x by its definition: the smallest i with x / SK_MIN <=
 * g^i (bound[i]), by binary search; 0 for x / SK_MIN <= 1. */
static int bucket_by_definition(const double *bound, double x)
{
    double q = x / SK_MIN;
    if (!(q > 1.0))
        return 0;
    int lo = 1, hi = SK_NBUCKETS - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (q <= bound[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* sim_sketch_bucket against its definition, over values across the whole
 * range, at every bound and a few ulps either side (where the division's
 * rounding decides), and at the edges of the cells of x it looks up
 * (2^e (1 + k / 128), an ulp either side). */
static void bucket_is_definition(void)
{
    gsl_rng *r = gs_rng_new(5, 9);
    double *bound = malloc(SK_NBUCKETS * sizeof *bound);
    for (int i = 0; i < SK_NBUCKETS; i++)
        bound[i] = pow(SK_GAMMA, (double)i);
    int bad = 0;
    for (int k = 0; k < 300000 && bad < 5; k++) {
        double x;
        if (k % 3 == 0) { /* at, just under and just over a bound */
            int i = (int)gsl_rng_uniform_int(r, SK_NBUCKETS);
            x = pow(SK_GAMMA, (double)i) * SK_MIN;
            x = k % 2 ? nextafter(x, 0) : k % 5 ? nextafter(x, INFINITY) : x;
        } else { /* log-uniform over 1e-9 .. 1e14 */
            x = pow(10.0, -9.0 + 23.0 * gsl_rng_uniform(r));
        }
        if (sim_sketch_bucket(x) != bucket_by_definition(bound, x))
            bad++;
    }
    CHECK(bad == 0);
    for (int i = 0; i < SK_NBUCKETS; i++) { /* every bound, 3 ulps either side */
        double x = bound[i] * SK_MIN;
        for (int s = 0; s < 3; s++)
            x = nextafter(x, 0);
        for (int s = 0; s < 7; s++, x = nextafter(x, INFINITY))
            bad += sim_sketch_bucket(x) != bucket_by_definition(bound, x);
    }
    for (int e = -22; e <= 46; e++) /* the cells' edges, past both ends of their range */
        for (int k = 0; k < 128; k++) {
            double x = ldexp(1.0 + k / 128.0, e);
            bad += sim_sketch_bucket(x) != bucket_by_definition(bound, x);
            bad += sim_sketch_bucket(nextafter(x, 0)) != bucket_by_definition(bound, nextafter(x, 0));
            bad += sim_sketch_bucket(nextafter(x, INFINITY)) != bucket_by_definition(bound, nextafter(x, INFINITY));
        }
    CHECK(bad == 0);
    CHECK(sim_sketch_bucket(0.0) == -1 && sim_sketch_bucket(-1.0) == -1);
    CHECK(sim_sketch_bucket(1e300) == SK_NBUCKETS - 1);
    free(bound);
    gs_rng_free(r);
}

const test_case tests_sketch[] = {
    {"sketch/bucket_is_its_definition", bucket_is_definition},
    {"sketch/paged_counters_equal_dense_array", paged_equals_dense},
    {"sketch/memory_follows_values", memory_follows_values},
    {"sketch/wide_table_counts_as_paged", wide_equals_paged},
    {"sketch/exponential_vs_exact_sort", exp_tail},
    {"sketch/lognormal_heavy_tail_vs_exact_sort", lognormal_tail},
    {"sketch/half_zeros_vs_exact_sort", zeros},
    {"sketch/empty_and_single", empty_and_single},
    {NULL, NULL},
};
