/* sim_metrics.h - constant-memory summaries: a log-bucketed quantile sketch
 * and a time-weighted gauge.
 *
 * The sketch maps x > 0 to bucket ceil(log_g(x / SK_MIN)) with g = 1.02 and
 * reports a bucket by 2 g^i / (g + 1) * SK_MIN, so any quantile it returns is
 * within (g - 1) / (g + 1) = 0.99% (relative) of the exact nearest-rank
 * quantile of the samples; values <= 0 are counted exactly in a zero bucket,
 * and results are clamped to the exact min and max. Memory: ~2,200 counters,
 * independent of the sample count. Values below SK_MIN (1e-6, one tick when
 * the unit is seconds) fall in the first bucket.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_METRICS_H
#define GPUSIM_SIM_METRICS_H

#include <cJSON.h>

#include "../base/gs.h"

#define SK_GAMMA 1.02
#define SK_MIN 1e-6
#define SK_NBUCKETS 2200 /* covers SK_MIN .. ~8e12 */
#define SK_REL_ERR ((SK_GAMMA - 1.0) / (SK_GAMMA + 1.0))

typedef struct sim_sketch {
    uint64_t n, zeros;
    double sum, min, max;
    uint64_t *count; /* SK_NBUCKETS */
} sim_sketch;

void sim_sketch_init(sim_sketch *s);
void sim_sketch_free(sim_sketch *s);
void sim_sketch_add(sim_sketch *s, double x);
/* Nearest-rank quantile q in [0,1]; 0 when empty. */
double sim_sketch_quantile(const sim_sketch *s, double q);
static inline double sim_sketch_mean(const sim_sketch *s) { return s->n ? s->sum / (double)s->n : 0.0; }

/* A piecewise-constant quantity integrated over time (allocated GPUs, queue
 * length). area is value x seconds. */
typedef struct sim_gauge {
    double value, peak;
    double area;      /* integral of value dt, in value-seconds */
    gs_time_us since; /* time of the last change */
} sim_gauge;

static inline void sim_gauge_set(sim_gauge *g, gs_time_us now, double v)
{
    g->area += g->value * gs_us_to_s(now - g->since);
    g->since = now;
    g->value = v;
    if (v > g->peak)
        g->peak = v;
}
static inline void sim_gauge_add(sim_gauge *g, gs_time_us now, double dv) { sim_gauge_set(g, now, g->value + dv); }
/* Integral up to `now` without changing the gauge. */
static inline double sim_gauge_area(const sim_gauge *g, gs_time_us now)
{
    return g->area + g->value * gs_us_to_s(now - g->since);
}

/* Adds {"count","mean","p50","p95","p99","max"} of a sketch under key. */
void sim_report_add_stats(cJSON *obj, const char *key, const sim_sketch *sk);

#endif
