/* wl_gen.h - synthetic trace generators (seeded, GSL streams).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_GEN_H
#define GPUSIM_WL_GEN_H

#include <stdio.h>

#include "../sim/gs.h"

/* M/M/c: Poisson arrivals, exponential durations. `servers` is the number of
 * GPUs the trace is meant for and `util` the offered load per GPU, so the
 * arrival rate is util * (servers / gpus_per_job) / mean_s. */
typedef struct wl_mmc_opts {
    long jobs;
    int servers;
    double util;
    double mean_s;
    int gpus_per_job;
    uint64_t seed;
} wl_mmc_opts;

/* Writes a v1 trace (id,submit,duration,gpus) to out. 0 or GS_EWRITE. */
int wl_gen_mmc(FILE *out, const wl_mmc_opts *o, gs_error *err);

#endif
