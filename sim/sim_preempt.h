/* sim_preempt.h - the core's priority, quota and preemption mechanics,
 * applied under every space policy (sim_preempt.c). sim.c calls these at
 * fixed points of a job's life; policies only see sim_admit_pools (sim.h)
 * and the optional pol_ops members fits_if_released and dispatch.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_PREEMPT_H
#define GPUSIM_SIM_PREEMPT_H

#include <cJSON.h>

#include "sim.h"

/* job.core_flags */
enum {
    JF_VICTIM = 1u,     /* writing its checkpoint before eviction (rate 0, still holds) */
    JF_PREEMPTOR = 2u,  /* waiting for its victims to free their resources */
    JF_QBLOCKED = 4u,   /* was refused by its tenant's quota at least once (counted once) */
    JF_LISTED = 8u,     /* in its node's list of running preemptible jobs */
    JF_WAITING = 16u,   /* in the list of queued jobs that found no victims yet */
    JF_HAS_CKPT = 32u,  /* a durable checkpoint exists: a restart reads it back */
    JF_PLACED = 64u,    /* queued, but the space policy will start it by itself (sim_job_placed/held) */
    JF_CHARGED = 128u,  /* its tenant's quota is charged (from its placement or start to its stop) */
};

/* issue 10b: a space policy has placed queued job j (j->node set) and
 * starts it later by itself (dynmig: its MIG instances are being created).
 * Its tenant's quota is charged now, as admission was checked now (else a
 * second request could pass the same quota before the first starts). Until
 * j starts the core looks for no victims for it, and a preemptor placed so
 * is not a "miss" at its hand-over; its preemptor wait runs to its start. */
void sim_job_placed(sim *s, job *j);
/* issue 10b: at a hand-over, the space policy holds room for preemptor j
 * that will be free only later (dynmig: the victims' slices come back when
 * their instances are destroyed) and will place it itself: no miss, no
 * further victims for it; nothing is charged until it is placed. */
void sim_preemptor_held(sim *s, job *j);

/* Core parameters (not any policy's): --set, sim_param, inputs.params. */
extern const pol_param preempt_params[];

int sim_ext_init(sim *s, gs_error *err);
void sim_ext_free(sim *s);
/* A new arrival: binds its tenant and narrows j->pools to the models where
 * its quota could ever hold it. false: it can never fit its quota (the caller
 * rejects it). */
bool sim_ext_arrival(sim *s, job *j);
/* After the space policy's arrive() (new or resumed job): tries preemption
 * for a job left queued. */
void sim_ext_after_arrive(sim *s, job *j);
/* j has just started (state RUNNING, placement set). */
void sim_ext_started(sim *s, job *j);
/* j stops running (done, suspended or failed), before the policy's release. */
void sim_ext_stopped(sim *s, job *j);
/* A core event (EV_CORE) fired; j may be NULL. */
void sim_ext_event(sim *s, job *j, uint32_t aux);
/* In sim.c: an EV_CORE event at at_us (>= now) for j (NULL: none; dropped
 * if j ends first) delivered to sim_ext_event with aux (tag << 24 | arg). */
void sim_core_timer(sim *s, job *j, gs_time_us at_us, uint32_t aux);
/* Adds jobs.by_priority, "preemption" and "tenants" to the report. */
void sim_ext_report(const sim *s, cJSON *root);

#endif
