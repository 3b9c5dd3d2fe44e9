/* sim.h - the simulation: clock, future events, jobs in flight, the cluster
 * ledger, the policies in force and the metrics, all in one struct sim so
 * that two simulations can run side by side in one process.
 *
 * Time is gs_time_us. Events are ordered by (time, sequence number). A job's
 * work is measured in microseconds at full speed and drains at its current
 * rate (0..1): a policy that shares a card changes the rate while the job runs
 * (sim_job_set_rate) and the core reschedules its completion, so per-event
 * work stays independent of cluster size.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_H
#define GPUSIM_SIM_H

#include <stdio.h>

#include "sim_policy.h"
#include "sim_cluster.h"
#include "sim_timeseries.h"
#include "sim_event.h"
#include "sim_job.h"
#include "sim_metrics.h"
#include "sim_queue.h"
#include "sim_config.h"
#include "sim_access.h"
#include "sim_param.h"
#include "sim_schedule.h"


struct sim_module; /* sim_module.h */
struct sim_observer;

/* struct sim is the engine's own (sim_struct.h): outside sim/ a run is
 * reached through the functions below. */
sim *sim_create(void);   /* an empty run for sim_init; never NULL */
void sim_destroy(sim *s); /* sim_free, then the struct itself (NULL-safe) */

/* Observers of a run (tests): called at fixed points, they never change it.
 * job_done: each completed trace job, at its completion instant, before the
 * space policy takes back what it held. request_done: each served request.
 * svc_scale: each replica scaling step of a service. Any may be NULL. */
typedef struct sim_observer {
    void (*job_done)(void *ud, const job *j);
    void *job_done_ud;
    void (*request_done)(void *ud, const char *service, double latency_s);
    void *request_ud;
    void (*svc_scale)(void *ud, const char *service, double t_s, const char *what, int replicas);
    void *svc_scale_ud;
} sim_observer;
/* Installs a copy of o (NULL: none) for the rest of the run. */
void sim_observe(sim *s, const sim_observer *o);

/* Sets up a run with the engine's standard modules (sim_engine.c):
 * resolves and initialises the policies, checks every --set key is a
 * declared parameter, opens the trace. ts (may be NULL) receives the timeseries CSV.
 * Returns 0, GS_EUSAGE or GS_EINPUT (message in err). */
int sim_init(sim *s, const sim_config *cfg, const gpu_catalog *cat, sim_cluster *cl, FILE *ts, gs_error *err);
/* The trace's columns the run leaves unread (WL_COL_BIT bits): those of
 * SIM_COLS_DECLARED no layer of this run reads, unless
 * sim_config.check_all_columns. Their values are never parsed or checked. */
uint64_t sim_unread_columns(const sim *s);
/* sim_init with the given modules (NULL-terminated; sim_module.h). */
int sim_init_with(sim *s, const sim_config *cfg, const gpu_catalog *cat, sim_cluster *cl, FILE *ts,
                  const struct sim_module *const *modules, gs_error *err);
/* A writer of a row per job, session and task as it ends (sim_jobs_csv.h
 * installs one): row(ud, s, j, outcome, reason) at every end path, while
 * j still holds its placement; end(ud, s) when the run ends, for what is
 * still in flight, nonzero when the output failed. NULL: none. Once,
 * before sim_run. */
void sim_set_job_rows(sim *s, void (*row)(void *ud, const sim *s, const job *j, const char *outcome, const char *reason),
                      int (*end)(void *ud, const sim *s), void *ud);
/* The space policy's fragmentation measure now (GPUs), < 0 if none. */
double sim_frag_gpus(const sim *s);
/* Hands a job row to the space policy as an arrival now, outside the event
 * loop (the arrival step of sim_run; `run --mode fill` calls it directly).
 * The job keeps its own job_req (sim_job.h): row is not referenced after
 * the call.
 * Returns the job's state after its arrival: JOB_RUNNING, JOB_QUEUED, or
 * JOB_REJECTED (then freed); -1 for an unknown model name (GS_EINPUT in
 * s->err). */
int sim_submit_row(sim *s, const wl_row *row);
/* Calls progress(ud, s) every SIM_PROGRESS_EVENTS events of sim_run (a
 * terminal's progress line); never changes the run. */
void sim_set_progress(sim *s, void (*progress)(void *ud, const sim *s), void *ud);
/* Sends the timeseries CSV (header written now) to ts; NULL: none. */
void sim_set_timeseries(sim *s, FILE *ts);
/* A module's columns at the end of every timeseries row (header: ",a,b"):
 * fill(ud, out) writes their ncols values at each row. Once per run, from
 * a module's init. */
void sim_ts_columns(sim *s, const char *header, int ncols, void (*fill)(void *ud, double *out), void *ud);
/* Runs to the end (drained, or cfg->until_us). Returns 0 or an error code
 * with the message in s->err (a bad row found mid-run is GS_EINPUT). */
int sim_run(sim *s);
void sim_free(sim *s);
/* Records a warning about the run's setup (kept once; at most 16). */
void sim_warn(sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* {==== for policies ====} */

/* The time off_us after now for row `id` (a job's or a service's id), a
 * time computed from its inputs (`cause`: the columns and parameters that
 * made it, e.g. "'duration' 9e12 s at 0.03 of full speed"): gs_time_add's
 * check against the clock. Past the clock the run stops with an input
 * error naming the row and the cause (sim_run returns it after the
 * current event) and GS_TIME_MAX is returned, a time no event reaches
 * before the stop. The one conversion every time from inputs goes
 * through. */
gs_time_us sim_time_after(sim *s, double off_us, const char *id, const char *cause);
/* For a policy that skips its own periodic timers over an idle stretch
 * (pol_mig's layout schedule; sim_idle, sim_access.h): the time of the
 * earliest pending event that is not a weak timer (the trace's next
 * arrival included; GS_TIME_MAX: none). O(pending events). */
gs_time_us sim_next_strong_us(const sim *s);
/* The observers installed (sim_observe), NULL when none (but in tests). */
const sim_observer *sim_observer_of(const sim *s);
/* NULL-terminated list of the core's own parameter tables (its standard
 * modules': svc_*, preemption). */
const pol_param *const *sim_core_params(void);

/* Job lifecycle. start: placed, begins draining its work at `rate`.
 * queued: waits in the policy's queue. reject: can never run; freed by the
 * core (the space policy's place() starts, the core queues or rejects). */
void sim_job_start(sim *s, job *j, double rate);
void sim_job_queued(sim *s, job *j);
void sim_job_reject(sim *s, job *j);
/* Stops a running job with its remaining work kept: the space policy's
 * unplace() gives back what it held; the job is JOB_SUSPENDED until
 * sim_job_resume. Its completion event is voided. */
void sim_job_suspend(sim *s, job *j);
/* Hands a suspended job back to the space policy as a new arrival (it may
 * start at once, queue, or be rejected and freed). Returns false if it was
 * rejected (j is then gone). */
bool sim_job_resume(sim *s, job *j);
/* Ends a job that will never complete (killed by OOM, a wake that timed
 * out). A running job is first released by the space policy. A queued job
 * must already be out of the policy's queue. The job is freed. */
void sim_job_fail(sim *s, job *j);
/* sim_job_fail saying why (the jobs CSV's reason: "oom", "co_tenant_fault",
 * the jobs.failed_by_cause keys). */
void sim_job_fail_why(sim *s, job *j, const char *why);
/* Takes queued job j out of the core's queue (a wait given up); false if it
 * is not there. j stays JOB_QUEUED: the caller
 * then ends it with sim_job_fail. */
bool sim_job_withdraw(sim *s, job *j);
/* Ends a suspended job as completed (a hibernated session that reached its
 * end time while paused): counted in jobs.completed, freed. */
void sim_job_complete(sim *s, job *j);
/* The cluster pools j may be placed in now: j->pools less the models where
 * its tenant's quota would be exceeded, or 0 while the core hands resources
 * freed by preemption to another job. A policy with POL_CAP_ADMIT narrows
 * every placement to this mask (policies/README.md). */
uint64_t sim_admit_pools(sim *s, job *j);
/* During a preemption hand-over (the victims are being suspended), the
 * queued job that must get what they free; NULL otherwise. The core then
 * tries to start this job, out of queue order, and nothing else
 * (policies/README.md). */
job *sim_nominee(const sim *s);
/* Opens a hand-over: until sim_hand_over_end, sim_admit_pools gives no pool
 * to any request but the nominee (NULL: to none), so what is freed meanwhile
 * is kept for it. The caller then calls sim_dispatch. */
void sim_hand_over_begin(sim *s, job *nominee);
void sim_hand_over_end(sim *s);
/* Changes a running job's progress rate from now on (0 pauses it). */
void sim_job_set_rate(sim *s, job *j, double rate);
/* Takes j->req.gpus whole GPUs (and the job's CPU and memory) on node. */
void sim_place_whole(sim *s, job *j, int node);
/* Returns what sim_place_whole took. */
void sim_release_whole(sim *s, job *j);
/* Asks the space policy to start the queued requests that fit now. */
void sim_dispatch(sim *s);
/* The space policy's queue (the core runs it): read only
 * (a report of the requests still waiting). */
const sim_queue *sim_space_queue(const sim *s);
/* Ends running task t while no queued request may take what it frees: the
 * caller then places the one that claims it (a session taking over a
 * warm-pool sandbox) and calls sim_dispatch. */
void sim_task_end_reserved(sim *s, job *t);
/* Adds dv GPUs of allocated capacity (fractional shares) on a card of pool
 * `pool` to the gauge, charged to job j's holder (sim_cost.h: the job whose
 * placement or release made the change; NULL: "other"). */
void sim_alloc_add_for(sim *s, job *j, int pool, double dv);
/* sim_alloc_add_for with no job, on pool 0. */
void sim_alloc_add(sim *s, double dv);
/* Internal tasks: capacity held by something other than a trace job (a
 * service replica, a warm-pool sandbox). Every holder of capacity gets it
 * through the space policy, so one owner keeps each card's books.
 * sim_task_new: a new job slot (a JOB submitted now, any pool) the caller
 * fills (its request: sim_task_set_row from a row, or req's members and
 * sim_job_set_id; its owner record: j->more->owner), then hands to the
 * space policy like an arrival (sim_task_submit); `owner` says who is
 * told when it starts, is rejected, is killed or changes rate: a module
 * (SIM_OWNER_MODULE, its task_* members) or a time policy
 * (SIM_OWNER_POLICY, pol_time.job_event with POL_TASK_*). sim_task_end
 * takes a running task back (the policy releases it) and frees it. */
#define SIM_OWNER_MODULE(index) (index)
#define SIM_OWNER_POLICY(pol_index) (SIM_MAX_MODS + (pol_index))
job *sim_task_new(sim *s, int owner);
/* The task's request from row r (a job row; its gpu_model names were
 * checked before), its pools narrowed to r's models. */
void sim_task_set_row(sim *s, job *j, const wl_row *r);
/* Who pays for the cards internal task t holds (sim_cost.h): kind
 * "service" and the service's id for a replica; without this call, the
 * task's owner (its module's or time policy's name). */
void sim_task_cost_holder(sim *s, job *t, const char *kind, const char *name);
/* Gives j its own copy of id as its request's id. */
void sim_job_set_id(sim *s, job *j, const char *id);
void sim_task_submit(sim *s, job *j);
void sim_task_end(sim *s, job *j);
/* The owner of internal task j says whether it is serving anything now (a
 * replica starting or ending a batch). Sets j->idle and, when j runs and
 * the flag changed, tells the space policy (pol_ops.load_changed), which
 * may change the rates of j and its co-tenants at once. */
void sim_task_set_busy(sim *s, job *j, bool busy);
#endif
