/* sim_nodes.h - the node life cycle, once in the core for the models of
 * failing hardware and elastic capacity that move nodes: up,
 * provisioning, draining, down (failed or in repair), spare, absent
 * (scaled in or reclaimed); NODE_* in sim_cluster.h.
 *
 * Only an UP node takes work: leaving UP takes its cards out of the
 * ledger's buckets and indexes (sim_cluster_node_out), coming back puts
 * them in again and dispatches. DRAINING lets the jobs on it finish;
 * DOWN and ABSENT interrupt every job on it at once: a trace job (a gang
 * across nodes as one, losing its GPUs on every node) by the preemption
 * layer's checkpoint rules (sim_job_interrupt: the work since its latest
 * checkpoint is lost, the checkpoint read back, the job requeued at its
 * priority), an internal task as lost (its owner starts another). Capacity
 * GPU-hours integrate the GPUs of UP nodes only (gpu.capacity_gpu_hours,
 * alloc_ratio).
 *
 * Enabled for a run before it starts (sim_nodes_enable), under a space
 * policy that says it can (POL_CAP_NODES); from then on the core keeps the
 * jobs of every node in a list (links in job_more, or in a gang's parts).
 * Costs: sim_node_set_state O(jobs on the node + their interrupts) plus
 * the ledger's O(log nodes) moves; per job start and stop O(nodes it
 * holds) while enabled, nothing otherwise.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_NODES_H
#define GPUSIM_SIM_NODES_H

#include "sim.h"

/* Lets nodes change state in this run. GS_EUSAGE (message in err) when the
 * space policy does not support it: the failure and autoscaling models ask
 * this at their init, so such a run is refused up front. */
int sim_nodes_enable(sim *s, gs_error *err);
/* Why a node moves, for the jobs a move interrupts (down, absent): each
 * pays restart_us of start-up (re-scheduling, start-up) as work at its next
 * start, with its checkpoint's read-back (sim_job_interrupt), and is
 * counted in *tally when it is set: the mover's own figures (failures,
 * reclaimed spot nodes) beside the run's `nodes` totals. */
typedef struct sim_interrupts {
    uint64_t jobs;     /* trace jobs interrupted */
    double lost_gpu_s; /* their work redone x GPUs, in seconds of the cards they ran on */
} sim_interrupts;
typedef struct sim_node_why {
    gs_time_us restart_us;
    sim_interrupts *tally; /* NULL: not counted apart */
} sim_node_why;

/* Moves node to state (NODE_*; sim_nodes_enable first); why may be NULL
 * (no start-up, no tally). */
void sim_node_move(sim *s, int node, int state, const sim_node_why *why);
static inline void sim_node_set_state(sim *s, int node, int state) { sim_node_move(s, node, state, NULL); }
/* Nodes in state now. O(1). */
int sim_nodes_in_state(const sim *s, int state);
int sim_node_state(const sim *s, int node);
/* GPUs out of service (on nodes not UP) now. */
double sim_nodes_out_gpus(const sim *s);
/* A watcher of the jobs on nodes (one per run, sim_nodes_enable first):
 * fn(ud, s, node, j, joined) after job j joins node's list (joined) or
 * leaves it, a gang once per node (job_gpus_on(j, node): its GPUs there). An elastic model learns each node's load and when it
 * empties (sim_node_empty). O(1) per call. */
typedef void (*sim_node_watch_fn)(void *ud, sim *s, int node, const job *j, bool joined);
void sim_nodes_watch(sim *s, sim_node_watch_fn fn, void *ud);
/* A watcher of node states (one per run, sim_nodes_enable first):
 * fn(ud, s, node, was) at the end of every move of node out of state
 * `was`, whoever moved it (its jobs already interrupted, a dispatch done),
 * so a model counts its nodes by state and learns what another model did
 * to them (an autoscaled node failing, repaired). O(1) per call. */
typedef void (*sim_node_state_fn)(void *ud, sim *s, int node, int was);
void sim_nodes_watch_states(sim *s, sim_node_state_fn fn, void *ud);
/* Does no job run on node (states on)? O(1). */
bool sim_node_empty(const sim *s, int node);
/* The first job on node (NULL: none); the next: job_part_on(j, node)->nnext
 * for a gang, else j->more->node_next. */
job *sim_node_first_job(const sim *s, int node);
/* The core's name of a state, for messages. */
const char *sim_node_state_name(int state);

#endif
