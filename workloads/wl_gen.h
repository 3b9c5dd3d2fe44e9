/* wl_gen.h - synthetic trace generators (seeded, GSL streams).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_GEN_H
#define GPUSIM_WL_GEN_H

#include <stdio.h>

#include "../base/gs.h"

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

/* Agent sessions (workloads/wl_gen_agents.c). Sessions arrive as a
 * Poisson process over `hours` (sessions / hours per hour); a session lasts
 * session_min_s + Exp(session_mean_s - session_min_s), asks for cpu cores,
 * mem_gib and, with probability gpu_share, one GPU. Its first burst starts
 * with it; then idle gaps Exp(gap_mean_s) and bursts Exp(burst_mean_s)
 * alternate until the session's end. Each later burst is scheduled (a known
 * wake, registered when the previous burst ends) with probability
 * scheduled_share, else user-driven. */
typedef struct wl_agents_opts {
    long sessions;
    double hours;
    double session_mean_s, session_min_s;
    double burst_mean_s, gap_mean_s;
    double scheduled_share, gpu_share;
    double cpu, mem_gib;
    uint64_t seed;
} wl_agents_opts;

/* Writes a trace of session and burst rows to out. 0 or GS_EWRITE. */
int wl_gen_agents(FILE *out, const wl_agents_opts *o, gs_error *err);

/* An openb pod-list variant (workloads/wl_gen_openb.c): the base list
 * (openb columns, found by name) resampled the way the FGD paper's
 * variants were, so that `family`'s measure is pct percent:
 *   cpu       CPU-only pods among all pods (0 <= pct < 100);
 *   gpushare  sharing pods' part of the GPU request (0..100);
 *   multigpu  multi-GPU pods' part of the GPU request (0 <= pct < 100);
 *   gpuspec   GPU pods with a gpu_spec (0..100). */
enum { WL_VAR_CPU, WL_VAR_GPUSHARE, WL_VAR_MULTIGPU, WL_VAR_GPUSPEC, WL_VAR_NFAMILIES };
extern const char *const wl_variant_family_name[WL_VAR_NFAMILIES];

typedef struct wl_openb_variant_opts {
    const char *pods_path;
    int family;
    double pct;
    uint64_t seed;
} wl_openb_variant_opts;

/* Writes the variant as an openb pod list (11 columns). 0, GS_EINPUT (the
 * base list: file, line, column) or GS_EWRITE. */
int wl_gen_openb_variant(FILE *out, const wl_openb_variant_opts *o, gs_error *err);

#endif
