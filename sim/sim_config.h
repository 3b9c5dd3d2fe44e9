/* sim_config.h - what a run is asked to do (trace, policies, --set values,
 * seed, horizon, timeseries) and the engine's fixed limits. Its own header
 * so that the run's private struct (sim_struct.h) needs nothing above it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_CONFIG_H
#define GPUSIM_SIM_CONFIG_H

#include <stddef.h>

#include "../base/gs.h"
#include "sim_policy.h"

#define SIM_MAX_POLICIES 4
#define SIM_MAX_MODS 8 /* = SIM_MAX_MODULES (sim_module.h) */
#define SIM_NO_SLOT UINT32_MAX /* an event about no job */
/* Job slots stay below this (a policy may keep a slot in 31 bits beside a
 * flag: share/share_state.h): 2^31 jobs in flight would take 400 GB of slots. */
#define SIM_MAX_SLOTS 0x80000000u
#define SIM_MAX_SETS 64
/* The default work limit: 1e9 events is minutes to an hour of simulation
 * (the event rates: scripts/README.md); `run --max-work N` lifts it. */
#define SIM_MAX_WORK 1e9
#define SIM_PROGRESS_EVENTS (1u << 18) /* a power of two: the check is a mask */

typedef struct sim_set {
    char *key, *value;
    bool used;
} sim_set;

typedef struct sim_config {
    const char *trace_path;
    const char *policy; /* "space[+time...]" */
    sim_set sets[SIM_MAX_SETS];
    int nsets;
    uint64_t seed;
    gs_time_us until_us;  /* GS_TIME_MAX: run until drained */
    gs_time_us sample_us; /* timeseries step; 0: no timeseries */
    size_t ts_max_rows;   /* timeseries row cap; 0: SIM_TS_MAX_ROWS (sim_timeseries.h) */
    bool allow_extra_columns;
    /* read every column, even those no layer of the run reads (else left
     * unread: SIM_COLS_DECLARED, sim_unread_columns) */
    bool check_all_columns;
    /* bounded work: the most events the trace may ask for through generated
     * rows, estimated before they are made (a service's rate x duration and
     * autoscaler ticks); past it the run is refused with the estimate.
     * 0: SIM_MAX_WORK */
    double max_work;
    const pol_ops *const *registry; /* the policies to choose from, NULL-terminated (policies/registry.h) */
} sim_config;

#endif
