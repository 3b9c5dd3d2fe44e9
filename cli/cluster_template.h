/* cluster_template.h - a cluster file whose node groups say how they scale,
 * for `plan --cluster-template`: the planner searches one number N and each
 * group's "count" follows it.
 *
 * A group's "count" is an integer (fixed, e.g. one login node group), or a
 * string in N: "N", "N*A", "N/B" or "N*A/B" with A, B positive numbers; the
 * group then has ceil(N x A / B) nodes (at least one for N >= 1), so
 * "H100 nodes, a quarter of them MIG" is {"count": "N*3/4"} beside
 * {"count": "N/4", "mig": "all-1g.10gb"}. A group with "autoscale" (no
 * count: sim/sim_elastic.h) is a burst group: not part of the base N
 * sizes, it comes and goes in each run up to its max. Everything else is
 * the cluster file format (workloads/README.md), "price_per_gpu_hour_usd"
 * included.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLUSTER_TEMPLATE_H
#define GPUSIM_CLUSTER_TEMPLATE_H

#include <cJSON.h>

#include "../base/gs.h"

#define CT_MAX_GROUPS 64

typedef struct cluster_template {
    char path[256];
    cJSON *doc;                   /* the file as read */
    int ngroups;
    double ratio[CT_MAX_GROUPS];  /* nodes per unit of N; 0 for a fixed count */
    long fixed[CT_MAX_GROUPS];    /* fixed count (ratio 0; 0 for a burst group) */
    int burst[CT_MAX_GROUPS];     /* a burst group's tier (TIER_ON_DEMAND, TIER_SPOT); -1: not one */
} cluster_template;

/* Reads and checks a template (at least one group scales with N). Returns
 * 0 or GS_EINPUT naming the file and the group. The groups' other keys are
 * checked by the cluster loader on an instance (sim_cluster_from_json). */
int cluster_template_load(cluster_template *t, const char *path, gs_error *err);
void cluster_template_free(cluster_template *t);
/* Does the template have a burst group of tier (TIER_*; -1: any)? */
bool cluster_template_has_burst(const cluster_template *t, int tier);
/* The template with its burst groups of other tiers than keep (TIER_*; -1:
 * every burst group) left out, into out (cluster_template_free it). 0 or
 * GS_EINPUT. */
int cluster_template_variant(const cluster_template *t, int keep, cluster_template *out, gs_error *err);
/* Nodes of group g at scale n (0 for a burst group: its nodes come and go). */
long cluster_template_count(const cluster_template *t, int g, long n);
/* The cluster file at scale n (the caller deletes it); "name" gets ".N<n>". */
cJSON *cluster_template_instance(const cluster_template *t, long n);

#endif
