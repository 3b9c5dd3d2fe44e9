/* sim_quota.h - tenant quotas from the cluster file ("tenants" key), as a
 * Kubernetes namespace's ResourceQuota would set them: a cap on GPUs, on GPU
 * memory and on cards of each model a tenant's running jobs may request.
 * The table lives with the cluster; usage counters are charged by the core
 * (sim_preempt.c) when a job starts and refunded when it stops.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_QUOTA_H
#define GPUSIM_SIM_QUOTA_H

#include <cJSON.h>

#include "sim_cluster.h"
#include "sim_metrics.h"

typedef struct sim_tenant {
    char name[64];
    double gpus_max;            /* < 0: no cap */
    double gpumem_max_gib;      /* < 0: no cap */
    int cards_max[CL_MAX_POOLS]; /* per cluster pool; < 0: no cap */
    /* run-time usage (requests of running jobs) and counters */
    double gpus_used, gpumem_used_gib, peak_gpus, peak_gpumem_gib;
    int cards_used[CL_MAX_POOLS];
    uint64_t arrived, blocked, rejected;
    sim_sketch blocked_queue_s; /* queue time of the jobs that were quota-blocked */
} sim_tenant;

typedef struct sim_quota {
    sim_tenant *t;
    int n;
} sim_quota;

/* Parses the cluster file's "tenants" array: [{"name": T, "gpus": N,
 * "gpu_mem_gib": G, "cards": {"MODEL": N, ...}}, ...]. Models must be known
 * to the catalog; one absent from cluster c caps nothing. Returns 0 or
 * GS_EINPUT naming the file and the field. */
int sim_quota_parse(sim_quota *q, const cJSON *arr, const char *path, const sim_cluster *c,
                    const gpu_catalog *cat, gs_error *err);
void sim_quota_free(sim_quota *q);
/* 1 + index of tenant `name`, 0 if it has no quota. Cost O(tenants). */
int sim_quota_find(const sim_quota *q, const char *name);

#endif
