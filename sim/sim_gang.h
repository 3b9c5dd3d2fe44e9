/* sim_gang.h - jobs across nodes (gangs): a request that no node of its
 * models can take whole, or that names its GPUs per node, takes several
 * nodes at once. The core places them for every space policy that says it
 * can (POL_CAP_GANG), on whole free cards of the ledger: a policy keeps
 * there exactly the cards its own work does not use (sim_cluster.h).
 *
 * Shape. A gang keeps to one GPU model (one pool, as a Kueue PodSet gets
 * one flavor). In a pool, a job of N GPUs with g GPUs per node
 * (gpus_per_node, Slurm --gpus-per-node; else the pool's largest node:
 * whole nodes) takes k = ceil(N / g) nodes: k - 1 parts of g GPUs and one
 * of r = N - (k - 1) g. Every node it takes gives it the request's cpu and
 * mem_gib (per node, as Slurm's --mem and a Kueue pod's requests are).
 *
 * Placement: all parts at once or none. On a flat network the parts of g
 * go to the nodes with the fewest free cards that have g (best fit, the
 * bucket order of the ledger), the part of r to the tightest node with at
 * least r that is not one of those: partly used nodes fill first and whole
 * nodes stay whole for the next gang. With a topology (sim_topo.h) the
 * job stays in the fewest domains, lowest level first: the tightest rack
 * that fits it, else the tightest block (its racks with the most room
 * first, the last the tightest that takes the rest), else the pool's top
 * domains with the most room first; inside a rack the same best fit.
 * "topology" rack or block (job_req.topology) is required: nothing wider.
 * Allowed pools are tried in pool order. Cost: O(k + cards per node)
 * bucket steps on a flat network, O(levels x domain size / 64) to find a
 * domain and O(nodes of the racks used x log) inside them with a
 * topology, plus the nodes passed over for want of CPU or memory (with a
 * topology, a domain short of host room is given up for the next level),
 * plus O(k log nodes) for the ledger's takes.
 *
 * A gang starts, stops, is preempted and restarts as one job; its speed is
 * its cards' (one model) times the network's factor when it spans racks
 * or blocks (sim_topo.h).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_GANG_H
#define GPUSIM_SIM_GANG_H

#include "sim_cluster.h"
#include "sim_job.h"

/* A gang's parts in one pool: k nodes, k - 1 of g GPUs and one of r. */
typedef struct gang_shape {
    int g, k, r;
} gang_shape;

/* After the policies' init: what jobs across nodes could ever get, each
 * node's GPUs less those a policy withheld (sim_cluster_withhold), for
 * sim_gang_ever. O(nodes), once. */
void sim_gang_init(sim_cluster *c);
/* Whether request j (its pools resolved) spans nodes: gpus_per_node below
 * its GPUs, or more GPUs than the largest node of its allowed pools has.
 * O(pools). */
bool sim_gang_spans(const sim_cluster *c, const job *j);
/* Its shape in pool p (false when g is 0: the pool has no GPUs). */
bool sim_gang_shape(const sim_cluster *c, const job *j, int p, gang_shape *sh);
/* Could gang j ever be placed, on the cluster with no work on it? When not,
 * why into why[cap] (for jobs.rejected_reasons). O(pools x node groups). */
bool sim_gang_ever(const sim_cluster *c, const job *j, char *why, size_t cap);
/* Places gang j now on whole free cards of pools (sim_admit_pools): takes
 * every part from the ledger and records them (j->gpu.span, j->node the
 * first part's node); starts nothing, charges nothing (the caller charges
 * its GPUs to the first part's pool: one model). false: nothing changed. */
bool sim_gang_place(sim_cluster *c, job *j, uint64_t pools);
/* Gives back every part of gang j and drops its record. */
void sim_gang_release(sim_cluster *c, job *j);
/* The speed factor of gang j on its placement: 1 inside one rack (or on a
 * flat network), else 1 / ((1 - comm) + comm x inside / across), inside
 * the node's card-to-card bandwidth (the model's nvlink_gbps, else both
 * directions of its host link), across the bandwidth of the widest level
 * it spans (sim_topo.h), the ratio at least 1. O(1). */
double sim_gang_net_factor(const sim_cluster *c, const job *j);
/* The most GPUs one new job of the default shape (whole nodes, the rest on
 * one more node) could get now, over pools: the timeseries' largest_gang.
 * O(pools x cards per node). */
int sim_gang_largest(const sim_cluster *c);

#endif
