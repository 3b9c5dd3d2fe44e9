/* sim_policy.h - the one interface between the simulation core and a policy.
 *
 * A policy is a `const pol_ops` record exported by policies/pol_<name>.c and
 * listed once in policies/registry.c. The engine never names a policy: the
 * caller hands it the table (sim_config.registry) and the engine calls a
 * policy only through the wrappers in sim.c.
 *
 * Kinds. A space policy (POL_SPACE) decides how cards are cut and where work
 * goes: it gets every arrival and completion. A time policy (POL_TIME) decides
 * when held resources are given back (hibernate, dual-pod sleep); a run is
 * one space policy plus zero or more time policies, written "space+time".
 *
 * Versioning: members are only ever appended; `abi` says which were there
 * when the policy was written (POL_ABI), and the core checks optional members
 * for NULL before calling them.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_POLICY_H
#define GPUSIM_POLICY_H

#include <cJSON.h>

#include "../base/gs.h"
#include "../base/gs_param.h"
#include "sim_job.h"

/* 1: the members up to report. 2: caps, fits_if_released, dispatch (core
 * quotas and preemption, sim/sim_preempt.c). 3: can_ever_fit, place,
 * unplace, shape_key, fifo (the core runs the queue). */
#define POL_ABI 3

/* caps bits (ABI >= 2). POL_CAP_ADMIT: the policy narrows every placement
 * to sim_admit_pools(s, j) (tenant quotas, and the core's reservation of
 * resources freed by preemption for the preemptor). Quotas and
 * preempt=on are refused for a space policy without it. */
#define POL_CAP_ADMIT 1u

typedef struct sim sim;

enum pol_kind { POL_SPACE = 1, POL_TIME = 2 };

/* A declared parameter: --set name=value; def is the default as text.
 * spec (base/gs_param.h) is its type and range: the core checks every value
 * in force (given or default) against it before any policy's init, so
 * sim_param_num() and friends only ever see valid values; `gpusim policies`
 * prints it. A parameter without a spec (type GS_P_TEXT) is parsed by its
 * owner. */
typedef struct pol_param {
    const char *name;
    const char *def;
    const char *help;
    gs_param_spec spec;
} pol_param;

/* Initializers for spec, so that a table row reads as its type. */
#define P_NUM(lo, hi, unit) {GS_P_NUM, (lo), (hi), (unit), NULL}
#define P_INT(lo, hi) {GS_P_INT, (lo), (hi), NULL, NULL}
#define P_ENUM(choices) {GS_P_ENUM, 0, 0, NULL, (choices)}
#define P_ONOFF {GS_P_ONOFF, 0, 0, NULL, NULL}
#define P_DURATION(lo, hi) {GS_P_DURATION, (lo), (hi), "s", NULL}
#define P_INT_OR(lo, hi, words) {GS_P_INT, (lo), (hi), NULL, (words)}
#define P_DURATION_OR(lo, hi, words) {GS_P_DURATION, (lo), (hi), "s", (words)}
#define P_NAME {GS_P_NAME, 0, 0, NULL, NULL}

typedef struct pol_ops {
    int abi;
    const char *name;
    const char *summary;
    int kind;                /* POL_SPACE or POL_TIME */
    const pol_param *params; /* terminated by {NULL} */

    /* Reads parameters with sim_param(s, name) and builds the policy's state.
     * index is the policy's place in the run (0: the space policy), the one
     * sim_timer and sim_task_new's SIM_OWNER_POLICY take. Returns 0, or
     * GS_EUSAGE with a message in err for a bad value. */
    int (*init)(sim *s, int index, void **state, gs_error *err);
    /* Frees the state (NULL-safe). */
    void (*fini)(void *state);
    /* A request arrived: start it (sim_job_start), queue it
     * (sim_job_queued) or reject it (sim_job_reject). */
    void (*arrive)(void *state, sim *s, job *j);
    /* A running job stops running here: its work is done (state JOB_DONE;
     * the core frees it after this returns) or the core suspended it
     * (JOB_SUSPENDED: preemption, hibernation; it keeps its remaining work
     * and may be resumed, i.e. arrive()d again). Either way: give back what
     * it holds, then start others that now fit. */
    void (*release)(void *state, sim *s, job *j);
    /* Optional: a timer set with sim_timer() fired. j is NULL for timers not
     * tied to a job. */
    void (*timer)(void *state, sim *s, job *j, uint32_t tag);
    /* Optional: adds the policy's figures to the report. root is the whole
     * report; a policy adds its own object under root's "policy" and may add
     * fields to "gpu" and "jobs" (never change ones the core wrote). */
    void (*report)(const void *state, const sim *s, cJSON *root);

    /* {==== appended for time policies; all optional ====} */

    /* Time policies: something happened to job j (see enum pol_job_event).
     * Called after the space policy acted, for every time policy in order.
     * ARRIVED: a trace row became a job (state tells whether the space
     * policy started, queued or rejected it; a rejected job is freed right
     * after). STARTED: j was just placed and started (first start or after a
     * resume). ENDING: j is about to be freed (done, failed): last look. */
    void (*job_event)(void *state, sim *s, job *j, int ev);
    /* Time policies: a trace row that is not a job (kind burst: activity of
     * a session) arrived at its submit time. */
    void (*row)(void *state, sim *s, const wl_row *r);
    /* Space policies: take a queued job j out of the queue (a wait that timed
     * out) and return true; the caller then fails or completes it. NULL or
     * false: the policy cannot. */
    bool (*withdraw)(void *state, sim *s, job *j);

    /* {==== ABI 2: core quotas and preemption (see policies/README.md) ====} */
    unsigned caps; /* POL_CAP_* */
    /* Optional (needed for preempt=on): a dry run. Would queued request j be
     * placed on node `node` if the running jobs victims[0..nvictims) released
     * what they hold (and with j's pools narrowed to sim_admit_pools)? Must
     * change nothing. */
    bool (*fits_if_released)(const void *state, const sim *s, const job *j, int node, job *const *victims,
                             int nvictims);
    /* Optional (needed for preempt=on): start queued requests that fit now
     * (the core calls it after a reservation for a preemptor ends). */
    void (*dispatch)(void *state, sim *s);

    /* {==== appended for the fragmentation measure; optional ====} */

    /* Optional: the cluster's fragmented GPUs now, as FGD measures
     * it, or < 0 when this run does not measure it. The timeseries gains a
     * frag_gpus column when it is measured; `run --mode fill` samples it. */
    double (*frag_gpus)(const void *state);

    /* {==== ABI 3: the core runs the queue (sim.c) ====}
     * A space policy that sets place (and can_ever_fit, unplace, shape_key)
     * answers questions and leaves arrive, release, dispatch and withdraw
     * NULL: the core rejects what can never fit, starts what fits in
     * priority and submit order, queues the rest by shape, dispatches after
     * every release, hands freed resources to a preemption nominee and
     * withdraws waits. */
    /* Could j fit on an empty cluster (its allowed pools)? false: rejected. */
    bool (*can_ever_fit)(void *state, const sim *s, const job *j);
    /* Place j now within sim_admit_pools(s, j) and start it
     * (sim_job_start), or change nothing and return false. */
    bool (*place)(void *state, sim *s, job *j);
    /* Give back what j held (it is done, suspended or failed). */
    void (*unplace)(void *state, sim *s, job *j);
    /* Requests with one key have one shape (the same answer from place):
     * a shape whose oldest request does not fit is skipped as a whole. */
    uint64_t (*shape_key)(const job *j);
    /* Optional: strict head-of-line order (nothing passes a request that
     * does not fit) instead of skipping; NULL: skipping. */
    bool (*fifo)(const void *state);

    /* {==== appended for load-following demand; optional ====} */

    /* Running internal task j went idle or busy (j->idle, set by its owner
     * through sim_task_set_busy): a policy whose cards are shared recomputes
     * what j's co-tenants get. NULL: the policy ignores load (whole cards,
     * MIG instances: nobody else is on them). */
    void (*load_changed)(void *state, sim *s, job *j);
} pol_ops;

/* POL_TASK_*: an internal task the time policy made (sim_task_new with
 * SIM_OWNER_POLICY) was started by the space policy, rejected (it can never
 * fit; freed right after), or killed (freed right after); told to its owner
 * only. */
enum pol_job_event {
    POL_JOB_ARRIVED = 1, POL_JOB_STARTED = 2, POL_JOB_ENDING = 3,
    POL_TASK_STARTED = 4, POL_TASK_REJECTED = 5, POL_TASK_LOST = 6
};


#endif
