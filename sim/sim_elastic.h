/* sim_elastic.h - elastic capacity: node groups that come and go under a
 * cluster autoscaler, capacity tiers (reserved, on-demand, spot) with their
 * bills, spot reclaims. Built on the node life cycle (sim_nodes.h): a node of
 * an autoscaled group is ABSENT until the autoscaler asks for it,
 * PROVISIONING for provision_s, UP while it serves, and ABSENT again once it
 * has been empty for idle_s (or when spot capacity is reclaimed).
 *
 * The cluster file gives each node group (sim_cluster.c reads the keys
 * through sim_elastic_group_parse):
 *   "tier": "reserved" | "on-demand" | "spot" (default: reserved for a fixed
 *     group, on-demand for an autoscaled one); the group's
 *     price_per_gpu_hour_usd (else the model file's) bills it: reserved for
 *     every hour of the run, on-demand and spot for the hours a node exists
 *     (from the decision to provision it to its removal).
 *   "autoscale": {"min", "max", "provision_s", "idle_s"}: the group has max
 *     nodes of which min are up from the start and never removed.
 *   "trigger": "pending" (a queued job that fits no up node but fits a new
 *     node of the group: one node per such need, groups cheapest first) or
 *     "pooled" (every period_s, one node when the average allocation,
 *     pooled GPU memory or a service's P99 latency passes util_high,
 *     mem_high, p99_high_ms).
 *   spot: "reclaim_per_node_hour" (a Poisson rate per node) and "notice_s"
 *     (the warning before the node goes).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_ELASTIC_H
#define GPUSIM_SIM_ELASTIC_H

#include <stdbool.h>

#include "../base/gs.h"

struct cJSON;
struct sim_module;

enum { TIER_RESERVED = 0, TIER_ON_DEMAND, TIER_SPOT, TIER_N };
enum { TRIGGER_PENDING = 0, TRIGGER_POOLED };

/* One node group's elastic settings (defaults where the file is silent). */
typedef struct sim_group_elastic {
    int tier; /* TIER_* */
    bool autoscale;
    int min, max;
    double provision_s, idle_s;
    int trigger; /* TRIGGER_* */
    double period_s, util_high, mem_high, p99_high_ms;
    double reclaim_per_node_hour, notice_s;
} sim_group_elastic;

/* The tier's name in the report and the file ("reserved", ...). */
const char *sim_tier_name(int tier);

/* Reads node group `it` (nodes[idx] of the cluster file at path) into e.
 * *count: the group's nodes (its autoscale max when it autoscales; the
 * caller's "count" is refused beside autoscale). *any: the group has an
 * elastic key. Returns 0 or GS_EINPUT naming the file and field. */
int sim_elastic_group_parse(const struct cJSON *it, const char *path, int idx, sim_group_elastic *e, int *count,
                            bool *any, gs_error *err);
/* Is key one of the elastic keys of a node group? */
bool sim_elastic_key(const char *key);

/* The cloud's notice that spot node `node` will be reclaimed notice_s from
 * now, as a drawn reclaim gives it (a scripted reclaim; tests). GS_BUG
 * unless the node is up in a spot group. */
struct sim;
void sim_elastic_reclaim(struct sim *s, int node);

/* The bill of pool `pool`'s nodes (every node of an elastic cluster is in
 * a node group): *gpu_h the GPU-hours billed (reserved for the whole run,
 * on-demand and spot while a node exists), *usd their cost at each group's
 * price (-1 when some group has none). False, and nothing written, when the
 * run has no elastic group (every card is paid for the whole run).
 * O(groups). */
bool sim_elastic_pool_bill(const struct sim *s, int pool, double *gpu_h, double *usd);

/* The module (sim_module.h): nothing in a run whose cluster has no elastic
 * group. */
extern const struct sim_module elastic_module;

#endif
