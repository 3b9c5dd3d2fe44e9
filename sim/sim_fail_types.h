/* sim_fail_types.h - the failure module's records and the calls between
 * its files, bottom up: sim_fail_jobs.c (the jobs' side: checkpoint
 * writes, what they hold), sim_fail_rates.c (each group's rates, the
 * report) <- sim_fail.c (the nodes' side: failure clocks, repairs,
 * spares; the module). Private to them.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_FAIL_TYPES_H
#define GPUSIM_SIM_FAIL_TYPES_H

#include <gsl/gsl_rng.h>

#include "../models/gpu/gpu_failures.h"
#include "sim_fail.h"
#include "sim_nodes.h"
#include "sim.h"
#include "sim_module.h"

/* Event tags (aux >> 24); a job's events carry its run (starts) below. */
enum { FT_FAIL = 1, FT_REPAIR, FT_SWAP, FT_SPARES, FT_WRITE, FT_WRITTEN };

/* One run of a trace job (per job slot): from its start to its stop. */
typedef struct fail_run {
    uint32_t gen, starts;      /* the job and run it describes (0 gen+starts: none) */
    gs_time_us since_us;       /* its start */
    gs_time_us startup_us;     /* wall time of the start-up at its head (restart, read-back) */
    gs_time_us write_since_us; /* a periodic write in progress since; -1: none */
    gs_time_us write_us, every_us; /* its checkpoint write and interval (0: none) */
    double rate;               /* its rate before a write held it at 0 */
    /* the job's own sums over its runs stopped so far (kept while gen is
     * the job's): GPU-seconds held, and of them wasted as jobs.goodput
     * counts (work redone, start-ups, periodic writes) */
    double job_held_gpu_s, job_waste_gpu_s;
} fail_run;

/* A node group's rates as the run uses them. */
typedef struct fail_group {
    const gpu_failures *f;
    char from[64];        /* whose figures: a model's name, "cluster file" */
    bool assumed;         /* a model's stand-in figures (not its own) */
    double per_us;        /* a node's failures per microsecond (x fail_scale) */
    int cause_ix[GPU_FAIL_MAX_CAUSES]; /* each cause's row in the run's table */
    int spares;           /* hot spares it keeps standing by */
    int short_nodes;      /* failures that found no spare, not yet repaired */
    int *stand, nstand;   /* its nodes standing by now */
} fail_group;

typedef struct sim_fail {
    int index;
    bool on;
    double scale;
    gs_time_us restart_us, swap_us;
    bool periodic; /* checkpoint_every > 0: runs may write periodic checkpoints */
    gsl_rng *rng;
    fail_group *grp;
    int ngroups;
    /* the nodes' next failures: an indexed binary min-heap (heap[] node
     * ids, pos[node] its place or -1), one engine event for its head */
    gs_time_us *next_us;
    int *heap, *pos, nheap;
    uint32_t head_gen;     /* the live head event's gen; older ones are stale */
    gs_time_us head_at_us; /* its time; GS_TIME_MAX: none */
    uint32_t *serial;      /* per node: bumped at each move of this module's */
    uint8_t *mine;         /* per node: M_DOWN in repair, M_SWAP coming in from standing by */
    /* the run's causes, every group's under one name */
    char (*cause)[48];
    uint64_t *by_cause;
    int ncauses;
    uint64_t failures, swaps;
    sim_interrupts tally;
    sim_gauge down; /* nodes in repair */
    /* jobs (sim_fail_jobs.c) */
    fail_run *runs;
    uint32_t nruns;
    double held_gpu_s, restart_gpu_s, write_gpu_s;
    double lost_seen_gpu_s; /* tally.lost_gpu_s at the latest stop (fail_job_stopped) */
} sim_fail;

enum { M_NONE = 0, M_DOWN = 1, M_SWAP = 2 };

static inline uint32_t ft_aux(int tag, uint32_t arg) { return (uint32_t)tag << 24 | (arg & 0xffffffu); }

/* sim_fail_rates.c: each node group's rates and spares, the run's causes
 * (0, or GS_EINPUT when a group's model has no rates); the report. */
int fail_groups_init(sim_fail *x, sim *s, gs_error *err);
void fail_report(const void *state, const sim *s, cJSON *root, int section);

/* sim_fail_jobs.c */
void fail_job_started(sim_fail *x, sim *s, job *j);
void fail_job_stopped(sim_fail *x, sim *s, job *j);
bool fail_job_event_live(const sim_fail *x, const sim *s, uint32_t slot, uint32_t gen, uint32_t aux);
void fail_job_event(sim_fail *x, sim *s, uint32_t slot, uint32_t gen, uint32_t aux);
/* j's sums (sim_fail_job_goodput); false when it never held GPUs. */
bool fail_job_figures(const sim_fail *x, const sim *s, const job *j, double *held_gpu_s, double *waste_gpu_s);
/* GPU-seconds held by the runs still going now (their stop not yet counted). */
void fail_jobs_open(const sim_fail *x, const sim *s, double *held_gpu_s, double *restart_gpu_s, double *write_gpu_s);

#endif
