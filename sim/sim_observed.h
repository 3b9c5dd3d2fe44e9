/* sim_observed.h - simulated against observed queue time, for a trace
 * imported from a real cluster (its `observed_start` column: when the job
 * really started). The first check a user makes of whether to trust the
 * simulator on their own data.
 *
 * A job's observed queue (observed_start - submit) is counted when it
 * arrives; its simulated queue (first start - submit) when it first starts.
 * Jobs that never start in the run (rejected, still queued at the end) are
 * in the observed figures only, and counted apart. Memory: one byte per job
 * slot (jobs in flight), allocated only when some row has the column; O(1)
 * per arrival and start.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_OBSERVED_H
#define GPUSIM_SIM_OBSERVED_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_metrics.h"

typedef struct sim_observed {
    sim_sketch observed_s, simulated_s;
    unsigned char *waiting; /* [cap]: the job in this slot arrived with an observed start and has not started */
    uint32_t cap;
    long arrived;           /* jobs that arrived with an observed start */
} sim_observed;

void sim_observed_init(sim_observed *o);
void sim_observed_free(sim_observed *o);
/* The job in slot arrived; observed_queue_s < 0 when its row has no
 * observed start (then nothing is kept, unless the slot must be cleared).
 * Inline but for a slot past the table (grown out of line). */
void sim_observed_grow(sim_observed *o, uint32_t slot);
static inline void sim_observed_arrived(sim_observed *o, uint32_t slot, double observed_queue_s)
{
    bool has = !(observed_queue_s < 0);
    if (slot >= o->cap) {
        if (!has)
            return;
        sim_observed_grow(o, slot);
    }
    o->waiting[slot] = has; /* cleared for a slot reused by a job without one */
    if (has) {
        o->arrived++;
        sim_sketch_add(&o->observed_s, observed_queue_s);
    }
}
/* The job in slot starts for the first time, queue_s after its submit, a
 * value of sketch bucket `bucket` (sim_sketch_bucket: the run's queue_s
 * found it). */
static inline void sim_observed_started_at(sim_observed *o, uint32_t slot, double queue_s, int bucket)
{
    if (slot < o->cap && o->waiting[slot]) {
        o->waiting[slot] = 0;
        sim_sketch_count(&o->simulated_s, queue_s, bucket);
    }
}
static inline void sim_observed_started(sim_observed *o, uint32_t slot, double queue_s)
{
    sim_observed_started_at(o, slot, queue_s, sim_sketch_bucket(queue_s));
}
/* jobs.queue_vs_observed {jobs, started, observed_s, simulated_s}, only
 * when some job had an observed start. */
void sim_observed_report(const sim_observed *o, cJSON *jobs);
/* The summary rows "queue sim" and "queue obs" under the run's queue row,
 * when the report has that object. */
void sim_observed_print(const cJSON *jobs, FILE *out);

#endif
