/* sim_module.h - a layer above the event loop (inference services;
 * priorities, quotas and preemption). The loop (sim.c) calls a module only
 * through this record, at fixed points of a run; a module calls the loop back
 * through sim.h. So the loop never names a layer above it, and a layer is
 * added by listing its record once (sim_engine.c), not by editing the loop.
 *
 * Every member but name is optional (NULL). Modules are called in the order
 * they were registered.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_MODULE_H
#define GPUSIM_SIM_MODULE_H

#include <cJSON.h>

#include "sim_policy.h"

/* Where in the report the core has got to when it calls report(). */
enum sim_report_section {
    SIM_REPORT_JOBS = 1, /* the "jobs" object is written; "gpu" is not yet */
    SIM_REPORT_GPU = 2,  /* "gpu" is written; "policy" is not yet */
};

typedef struct sim_module {
    const char *name;
    /* Parameters it reads (--set, sim_param), {NULL}-terminated: the core's
     * own, listed by `gpusim policies` and in inputs.params. */
    const pol_param *params;
    /* Builds the module's state, before any policy's init() (a policy may
     * use a module from its init: a task placed at once). The policies are
     * resolved by then (s->pol[]: the service layer finds its actuator
     * there), not initialised; index is its place in the run's list (for
     * sim_module_event). 0, or GS_EUSAGE with the message in err. */
    int (*init)(sim *s, int index, void **state, gs_error *err);
    void (*fini)(void *state);

    /* Trace rows of these kinds (bit 1u << WL_KIND_*) are the module's:
     * row() gets them at their submit time; they never become jobs. 0, or
     * GS_EINPUT with the message in the run's error (sim_fail). */
    unsigned row_kinds;
    int (*row)(void *state, sim *s, const wl_row *r);

    /* Trace jobs. admit: a new arrival, before the space policy sees it;
     * false rejects it for good. arrived: after the space policy placed or queued it
     * left it running or queued (new or resumed). started / stopped: it
     * starts (first start or resume) / stops running (done, suspended,
     * failed), before the space policy's unplace(). An admit that refuses
     * may name the reason (sim_admit_refuse). */
    bool (*admit)(void *state, sim *s, job *j);
    /* The pools j may be placed in now, narrowed from `pools` (a tenant's
     * quota); part of sim_admit_pools. */
    uint64_t (*narrow_pools)(void *state, sim *s, job *j, uint64_t pools);
    void (*arrived)(void *state, sim *s, job *j);
    /* The speed factor of trace job j on its current placement (1: as
     * stated in the trace), asked once when it starts; the core multiplies
     * the factors of every module that has this member. */
    double (*speed)(void *state, sim *s, const job *j);
    void (*started)(void *state, sim *s, job *j);
    void (*stopped)(void *state, sim *s, job *j);
    /* Running trace job j's rate changed (sim_job_set_rate), now: its work
     * drains at the new rate from here on. */
    void (*rate_changed)(void *state, sim *s, job *j);

    /* Internal tasks (j->internal, j->owner set by the module that made
     * them): placed, rate changed, rejected by the space policy, killed. */
    void (*task_started)(void *state, sim *s, job *j);
    void (*task_rate_changed)(void *state, sim *s, job *j);
    void (*task_rejected)(void *state, sim *s, job *j);
    void (*task_lost)(void *state, sim *s, job *j);

    /* The module's own events (sim_module_event). event_live: whether a
     * popped one still matters (stale ones are dropped before the clock
     * moves); NULL: all do. */
    bool (*event_live)(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux);
    /* Optional, without side effects: whether a pending event is certainly
     * stale (event_live would drop it), so that the heap may drop it before
     * its time; the module counts such events as it voids them
     * (sim_event_voided). NULL: its events stay until they pop. */
    bool (*event_void)(const void *state, uint32_t slot, uint32_t gen, uint32_t aux);
    void (*event)(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux);
    /* A hint, changing nothing: the event (slot, aux) is next, so the
     * module may start loading what it will read while the loop handles
     * the current one: at stage 0, as the current one is popped, its
     * subject's record; at stage 1, once it is handled, what that record
     * points to (by then read in). NULL: the loop prefetches the job in
     * slot, as for its own events. */
    void (*prefetch)(const void *state, uint32_t slot, uint32_t aux, int stage);

    /* Replicas ready or starting (the timeseries' replicas column). */
    int (*replicas)(const void *state);
    /* Adds the module's figures to the report at one section (see above). */
    void (*report)(const void *state, const sim *s, cJSON *root, int section);
    /* Whether inputs.params leaves the module's parameters out for this
     * run (a mechanism that is off: other runs' reports stay as they were);
     * NULL: they are always listed. */
    bool (*params_quiet)(const void *state);
    /* Of SIM_COLS_DECLARED (sim_policy.h), the columns the module reads
     * from rows of kind `kind` (WL_KIND_*) in this run, asked once after
     * every init() with its state (NULL when init made none). NULL: all of
     * them. */
    uint64_t (*columns_read)(const void *state, int kind);
} sim_module;

#define SIM_MAX_MODULES 8

/* Per-job hooks a module may drop (from its init, or while the run goes):
 * it vouches that for every job the loop reaches while they are dropped
 * the hook would change nothing (the call costs a job's worth of
 * instructions on a plain replay). */
enum { SIM_HOOK_NARROW_POOLS = 1u, SIM_HOOK_ARRIVED = 2u, SIM_HOOK_ADMIT = 4u, SIM_HOOK_STARTED = 8u, SIM_HOOK_STOPPED = 16u };
void sim_module_skip(sim *s, int index, unsigned hooks);
/* Those of `hooks` module `index` has, back (after sim_module_skip): from
 * the next job the loop reaches them. */
void sim_module_unskip(sim *s, int index, unsigned hooks);
/* Whether no module before `index` (they narrow first, and their inits
 * ran) has a narrow_pools hook: module `index` is handed a job's own pools. */
bool sim_module_narrows_first(const sim *s, int index);

/* The state of module m in this run, or NULL when it is not registered. */
void *sim_module_state(const sim *s, const sim_module *m);
/* Schedules event (slot, gen, aux) for module `index` at at_us >= now. */
void sim_module_event(sim *s, int index, gs_time_us at_us, uint32_t slot, uint32_t gen, uint32_t aux);
/* The same for an event that alone keeps no run going (a failure clock,
 * a repair): the run ends when only weak events are pending and nothing
 * is queued or running (sim_timer_weak). */
void sim_module_event_weak(sim *s, int index, gs_time_us at_us, uint32_t slot, uint32_t gen, uint32_t aux);
/* The job in slot with generation gen, or NULL when it has ended since (a
 * module's event for a job that is gone). slot SIM_NO_SLOT gives NULL. */
job *sim_job_at(const sim *s, uint32_t slot, uint32_t gen);

#endif
