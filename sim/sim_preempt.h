/* sim_preempt.h - the core's priority, quota and preemption mechanics,
 * applied under every space policy (sim_preempt.c), a module above the loop
 * (sim_module.h): the loop calls it at fixed points of a job's life;
 * policies only see sim_admit_pools (sim.h), the two calls below and the
 * optional pol_ops members fits_if_released and dispatch.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_PREEMPT_H
#define GPUSIM_SIM_PREEMPT_H

#include <cJSON.h>

#include "sim.h"
#include "sim_module.h"

/* a space policy has placed queued job j (j->node set) and
 * starts it later by itself (dynmig: its MIG instances are being created).
 * Its tenant's quota is charged now, as admission was checked now (else a
 * second request could pass the same quota before the first starts). Until
 * j starts the core looks for no victims for it, and a preemptor placed so
 * is not a "miss" at its hand-over; its preemptor wait runs to its start. */
void sim_job_placed(sim *s, job *j);
/* Whether queued j was placed by sim_job_placed and has not started yet. */
static inline bool sim_job_is_placed(const job *j) { return (j->core_flags & JF_PLACED) != 0; }
/* Whether running j is a preemption victim writing its checkpoint (the core
 * holds it at rate 0 until it is suspended). */
static inline bool sim_job_is_victim(const job *j) { return (j->core_flags & JF_VICTIM) != 0; }
/* at a hand-over, the space policy holds room for preemptor j
 * that will be free only later (dynmig: the victims' slices come back when
 * their instances are destroyed) and will place it itself: no miss, no
 * further victims for it; nothing is charged until it is placed. */
void sim_preemptor_held(sim *s, job *j);

/* Tests: how searches over every node go (before the run starts). CARDS:
 * the default (node bounds, counting cards where the space policy answers
 * cards_open); BOUND: node bounds without counting cards; SCAN: every node
 * planned in id order, the choice the others must match victim for victim. */
enum { SIM_PREEMPT_CARDS, SIM_PREEMPT_BOUND, SIM_PREEMPT_SCAN };
void sim_preempt_search(sim *s, int how);
/* Tests: nodes planned so far by searches over every node. */
uint64_t sim_preempt_nodes_planned(const sim *s);
/* Tests: nodes taken off a bound heap by those searches (a node taken off
 * twice in one search counts twice), and in *searches how many searches
 * went by node bounds. */
uint64_t sim_preempt_nodes_looked(const sim *s, uint64_t *searches);

/* Running trace job j loses its node (sim_nodes.h): it stops now and
 * loses the work since its latest durable checkpoint (the periodic ones,
 * or one written at an earlier preemption; none: from its start), then
 * is requeued at its priority to read that checkpoint back and go on (the
 * checkpoint rules of preemption, without the write). */
void sim_job_interrupt(sim *s, job *j);
/* From now on every job keeps its latest start, as a listed victim does
 * (sim_nodes_enable: any job may be interrupted). */
void sim_preempt_track_runs(sim *s);

/* Core parameters (not any policy's): --set, sim_param, inputs.params. */
extern const pol_param preempt_params[];

/* The layer as an engine module (sim_module.h). */
extern const sim_module preempt_module;
#endif
