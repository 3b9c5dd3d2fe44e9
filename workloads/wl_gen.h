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

/* A day of training jobs (workloads/wl_gen_training.c), shaped like one
 * Helios cluster's GPU jobs (Hu et al., SC '21; numbers in
 * reference/helios-jobs.csv, read from the paper's figures):
 *   sizes     the figure's CDF over jobs: each size bucket's share, the
 *             bucket's jobs at its upper edge (1, 2, 4, 8, 12, ..., 64);
 *             "> 64" (which the figure does not resolve) as powers of two
 *             128 .. max_gpus, P(>= g) falling as g^-alpha with the slope
 *             of the figure's tail from 16 to 64 GPUs (an assumption)
 *   durations lognormal, shape sigma fitted to the figure's job duration
 *             CDF; each size bucket's scale set so that its share of GPU
 *             time is the figure's and the mean duration the trace's; cut
 *             at max_hours (redrawn above it)
 *   arrivals  exactly `jobs` submissions over `hours`, at the figure's
 *             hourly rate for each hour of the day (t = 0 is midnight)
 *   limits    time_limit = duration x U(1, overask), rounded up to a round
 *             wall time (10 min, 30 min, 1, 2, 4, 8, 12, 24, 48, 72, 120 h,
 *             then max_hours): users over-ask and pick round values
 *   nodes     gpus_per_node: all of it when it fits a node of gpus_per_node
 *             GPUs, else the largest divisor of gpus that does */
typedef struct wl_training_opts {
    long jobs;          /* < 0: the mix's submissions per day x hours / 24 */
    double hours;
    const char *mix;    /* venus, earth, saturn, uranus */
    int max_gpus;       /* 65 .. 2^20: the largest job */
    int gpus_per_node;  /* 1 .. 64 */
    double overask;     /* >= 1 */
    double max_hours;   /* the longest job and time limit (a partition's MaxTime) */
    uint64_t seed;
} wl_training_opts;

/* Writes the trace (id, submit, duration, gpus, gpus_per_node, time_limit,
 * class) to out. 0, GS_EUSAGE (unknown mix) or GS_EWRITE. */
int wl_gen_training(FILE *out, const wl_training_opts *o, gs_error *err);

/* The figures of one cluster, as the paper's artifact plots them. */
#define WL_TR_NSIZES 13 /* size points: 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, > 64 */
typedef struct wl_training_mix {
    const char *name;
    double jobs_cdf_pct[WL_TR_NSIZES];    /* share of GPU jobs of at most that many GPUs, % */
    double gputime_cdf_pct[WL_TR_NSIZES]; /* their share of GPU time, % */
    double per_hour[24];                  /* GPU jobs submitted in each hour of the day (mean) */
    double sigma;                         /* lognormal shape of the job durations */
    double mean_s;                        /* mean GPU job run time, s */
} wl_training_mix;
/* By name, or NULL; by index 0.. (NULL past the last). */
const wl_training_mix *wl_training_mix_find(const char *name);
const wl_training_mix *wl_training_mix_at(int i);
/* Size point k's GPUs (65 for "> 64"); submissions in a mean day. */
int wl_training_edge(int k);
double wl_training_jobs_per_day(const wl_training_mix *mx);

/* The model the generator draws from, for tests. */
#define WL_TR_MAXBIG 16
typedef struct wl_training_model {
    const wl_training_mix *mix;
    double share[WL_TR_NSIZES]; /* a job's chance of each size bucket */
    double mu[WL_TR_NSIZES];    /* its durations: lognormal(mu, mix->sigma) cut at cap_s */
    double cap_s;
    double alpha;               /* the tail's slope above 64 GPUs */
    int big[WL_TR_MAXBIG];      /* sizes of "> 64" and their chances */
    double big_p[WL_TR_MAXBIG];
    int nbig;
} wl_training_model;
int wl_training_model_init(wl_training_model *m, const wl_training_opts *o, gs_error *err);

#endif
