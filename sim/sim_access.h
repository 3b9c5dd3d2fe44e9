/* sim_access.h - what a layer reads of a run: its clock, cluster, catalog,
 * configuration, policies, error slot, warnings and job slots. struct sim
 * (sim_struct.h) stays the core's: every other file reaches a run through
 * these, so the run can change without them. O(1) each.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_ACCESS_H
#define GPUSIM_SIM_ACCESS_H

#include "sim_cluster.h"
#include "sim_config.h"
#include "sim_cost.h"
#include "sim_job.h"
#include "sim_policy.h"

/* The clock. Inline, since every layer reads it on every event: struct sim
 * (sim_struct.h) begins with it, which sim_access.c checks when it
 * compiles. */
static inline gs_time_us sim_now(const sim *s) { return *(const gs_time_us *)(const void *)s; }
/* The run's cluster (its ledger: sim_cluster.h) and GPU catalog. */
sim_cluster *sim_cluster_of(const sim *s);
const gpu_catalog *sim_catalog(const sim *s);
const sim_config *sim_config_of(const sim *s);
uint64_t sim_seed(const sim *s);
/* Events processed so far; GPUs allocated now (the gauge behind
 * gpu.alloc_ratio); the first error raised inside the run. */
uint64_t sim_events(const sim *s);
double sim_alloc_gpus(const sim *s);
const gs_error *sim_error(const sim *s);
/* The run's error slot, for a module's or policy's input error raised
 * mid-run (sim_run then returns its code). */
gs_error *sim_error_slot(sim *s);
/* The trace row being admitted (sim_submit_row; NULL outside an
 * admission): a module's input error names its line and column. */
const wl_row *sim_arriving_row(const sim *s);
/* Who held the cards (sim_cost.h): the holders' names and kinds. */
const sim_cost *sim_cost_of(const sim *s);
/* The run's policies in --policy order ([0] the space policy), and the
 * state policy i's init() made (NULL before it ran). i < sim_npolicies. */
int sim_npolicies(const sim *s);
const pol_ops *sim_policy_at(const sim *s, int i);
void *sim_policy_state(const sim *s, int i);
/* The warnings recorded so far (sim_warn), and the i-th (i < sim_nwarnings). */
int sim_nwarnings(const sim *s);
const char *sim_warning(const sim *s, int i);
/* Whether a trace row not yet handed out arrives at instant t (more rows of
 * this instant are still to come). */
bool sim_rows_pending_at(const sim *s, gs_time_us t);
/* For a policy that skips its own periodic timers over an idle stretch:
 * whether no job is queued or running, and the events it skipped, added
 * to the run's count as if processed (sim_next_strong_us, sim.h). */
bool sim_idle(const sim *s);
/* Trace jobs running now (internal tasks not counted). */
uint64_t sim_jobs_running(const sim *s);
void sim_count_skipped_events(sim *s, uint64_t n);
/* Job slots so far (every slot below is a job record, in flight or free:
 * job.state JOB_DONE), and the job in slot (job.slot) now: for a policy
 * that names its jobs by slot, half a pointer (share/share_state.h). */
/* For a module's admit that refuses the arrival: why (static text), the
 * reason the core records (sim_module.admit). */
void sim_admit_refuse(sim *s, const char *why);
/* The run's queue-time and completion-time sketches (seconds). */
const sim_sketch *sim_queue_s_sketch(const sim *s);
const sim_sketch *sim_jct_s_sketch(const sim *s);
/* Counts one interruption of a trace job (preemption, a failure, a reclaim)
 * and the GPU-seconds it lost and will spend reading its checkpoint back. */
void sim_count_interruption(sim *s, double lost_gpu_s, double read_gpu_s);
/* For a module that supersedes one of its pending events: counts it void,
 * so that the heap drops such events when many are (sim_module.event_void). */
void sim_event_voided(sim *s);
uint32_t sim_job_slots(const sim *s);
job *sim_job_in_slot(const sim *s, uint32_t slot);

#endif
