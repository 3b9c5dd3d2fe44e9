/* sim_observed.h - simulated against observed queue time, for a trace
 * imported from a real cluster (its `observed_start` column: when the job
 * really started). The first check a user makes of whether to trust the
 * simulator on their own data.
 *
 * A job's observed queue (observed_start - submit) is counted when it
 * arrives; its simulated queue (first start - submit) when it first starts.
 * Jobs that never start in the run (rejected, still queued at the end) are
 * in the observed figures only, and counted apart. Memory: one byte per job
 * slot (jobs in flight), allocated only once some row lacks the column's
 * value (see sim_observed_share); O(1) per arrival and start.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_OBSERVED_H
#define GPUSIM_SIM_OBSERVED_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_metrics.h"

typedef struct sim_observed {
    sim_sketch observed_s, simulated_s; /* observed_s: a table over every bucket (sim_sketch_init_wide) */
    unsigned char *waiting; /* [cap]: the job in this slot arrived with an observed start and has not started */
    uint32_t cap;           /* the jobs that arrived with one are observed_s's count */
    /* while shared (sim_observed_share), simulated_s is this sketch, the
     * run's queue times: nothing is counted apart, no slot is marked */
    const sim_sketch *run_queue_s;
    bool shared;
} sim_observed;

void sim_observed_init(sim_observed *o);
void sim_observed_free(sim_observed *o);
/* For a run whose every arrival so far had an observed start (an imported
 * trace gives it on every row): each job the run starts for the first time
 * is then one of them, so the run's sketch of first starts, run_queue_s,
 * is simulated_s value for value. Set before the first arrival; a job
 * without an observed start must not arrive while shared (unshare first). */
void sim_observed_share(sim_observed *o, const sim_sketch *run_queue_s);
/* Ends the sharing: simulated_s becomes a copy of the run's sketch. The
 * caller then marks each job in flight that has not started yet
 * (sim_observed_mark): all arrived with an observed start. O(pages). */
void sim_observed_unshare(sim_observed *o);
/* The job in slot arrived; observed_queue_s < 0 when its row has no
 * observed start (then nothing is kept, unless the slot must be cleared).
 * Inline but for a slot past the table (grown out of line). */
void sim_observed_grow(sim_observed *o, uint32_t slot);
static inline void sim_observed_mark(sim_observed *o, uint32_t slot)
{
    if (slot >= o->cap)
        sim_observed_grow(o, slot);
    o->waiting[slot] = 1;
}
/* sim_observed_arrived for an observed start (observed_queue_s >= 0): a
 * new value most rows, counted inline with its bucket (o's sketches are
 * initialised: the tables are made) */
static inline void sim_observed_arrived_at(sim_observed *o, uint32_t slot, double observed_queue_s)
{
    sim_sketch_count_wide(&o->observed_s, observed_queue_s, sim_sketch_bucket_ready(observed_queue_s));
    if (!o->shared)
        sim_observed_mark(o, slot);
}
static inline void sim_observed_arrived(sim_observed *o, uint32_t slot, double observed_queue_s)
{
    if (!(observed_queue_s < 0))
        sim_observed_arrived_at(o, slot, observed_queue_s);
    else if (slot < o->cap)
        o->waiting[slot] = 0; /* cleared for a slot reused by a job without one */
}
/* The job in slot starts for the first time, queue_s after its submit, a
 * value of sketch bucket `bucket` (sim_sketch_bucket: the run's queue_s
 * found it). While shared no slot is marked: the test is all it costs. */
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
