/* perf_profile.h - measured LLM serving times (models/perf/): per (model,
 * card, tensor parallelism) the prefill time of a batch as a function of its
 * prompt tokens and the decode iteration time as a function of the
 * sequences in the batch, each the median of the measured repeats at a
 * point, interpolated piecewise-linearly between points and extended
 * linearly past the ends (as SplitwiseSim does), never below zero.
 * Loaded once at start when a service names a profile; read-only after.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_PERF_PROFILE_H
#define GPUSIM_PERF_PROFILE_H

#include "../../base/gs.h"
#include "../gpu/gpu_model.h"

#define PERF_MAX_POINTS 32

typedef struct perf_curve {
    int n;
    double x[PERF_MAX_POINTS], ms[PERF_MAX_POINTS]; /* ascending x */
} perf_curve;

/* One measured point: the median of its repeats (ms). */
typedef struct perf_point {
    int prompt, batch, out;           /* prompt tokens per request, requests, output tokens per request */
    double prefill_ms, decode_ms;     /* the batch's prefill; one decode iteration of the batch */
} perf_point;

typedef struct perf_entry {
    char profile[32];     /* e.g. llama2-70b */
    char hardware[32];    /* as the table names it, e.g. h100-80gb */
    const gpu_model *model; /* the catalog model it maps to, NULL if none */
    int tp;
    perf_curve prefill; /* x: prompt tokens in the batch */
    perf_curve decode;  /* x: sequences in the batch */
    perf_point *pts;    /* every measured (prompt, batch, out), owned; for fitting a model to */
    int npts;
} perf_entry;

typedef struct perf_set {
    perf_entry *e;
    int n;
} perf_set;

/* Reads every profile table in dir (splitwise/perf_model.csv). A missing
 * directory gives an empty set; a malformed file is GS_EINPUT naming file
 * and line. */
int perf_set_load(perf_set *ps, const char *dir, const gpu_catalog *cat, gs_error *err);
void perf_set_free(perf_set *ps);
/* The entry of profile on model at tp, or NULL. */
const perf_entry *perf_find(const perf_set *ps, const char *profile, const gpu_model *m, int tp);
/* Whether any entry names this profile. */
bool perf_known(const perf_set *ps, const char *profile);
/* The curve at x (linear between points, linear extension past the ends,
 * floored at the smallest measured time / 4 so an extension never reaches 0). */
double perf_eval(const perf_curve *c, double x);

#endif
