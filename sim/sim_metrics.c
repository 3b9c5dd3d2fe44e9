/* sim_metrics.c - log-bucketed quantile sketch (see sim_metrics.h).
 * SPDX-License-Identifier: MIT */
#include "sim_metrics.h"

#include <math.h>
#include <stdlib.h>

void sim_sketch_init(sim_sketch *s)
{
    s->n = s->zeros = 0;
    s->sum = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
    s->count = xcalloc(SK_NBUCKETS, sizeof *s->count);
}

void sim_sketch_free(sim_sketch *s)
{
    free(s->count);
    s->count = NULL;
}

void sim_sketch_add(sim_sketch *s, double x)
{
    s->n++;
    s->sum += x;
    if (x < s->min)
        s->min = x;
    if (x > s->max)
        s->max = x;
    if (x <= 0) {
        s->zeros++;
        return;
    }
    double r = ceil(log(x / SK_MIN) / log(SK_GAMMA));
    long i = r < 0 ? 0 : (long)r;
    if (i >= SK_NBUCKETS)
        i = SK_NBUCKETS - 1;
    s->count[i]++;
}

double sim_sketch_quantile(const sim_sketch *s, double q)
{
    if (s->n == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)s->n);
    if (rank < 1)
        rank = 1;
    if (rank > s->n)
        rank = s->n;
    if (rank == s->n)
        return s->max; /* exact */
    if (rank <= s->zeros)
        return s->min < 0 ? s->min : 0.0;
    uint64_t acc = s->zeros;
    for (long i = 0; i < SK_NBUCKETS; i++) {
        acc += s->count[i];
        if (acc >= rank) {
            double v = 2.0 * pow(SK_GAMMA, (double)i) / (SK_GAMMA + 1.0) * SK_MIN;
            if (v < s->min)
                v = s->min;
            if (v > s->max)
                v = s->max;
            return v;
        }
    }
    return s->max;
}
