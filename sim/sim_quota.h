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
#include "sim_job.h"
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
    /* names -> 1 + index, open addressing over a power-of-two table at
     * least twice the tenants (0: empty): a lookup is O(1) expected, so the
     * parse (a duplicate check per tenant) and every arrival's tenant are
     * not O(tenants) each: 100,000 tenants would make the parse quadratic */
    int *by_name;
    size_t cap;
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

/* {==== run-time accounting (called by the core, sim_preempt.c) ====}
 * A job's charge: GPUs; GPU memory = gpus x the memory it states per GPU
 * (wl_row_gpumem_mib: gpumem, or gpumem_pct of the card), or x the card's
 * memory when it states none; cards of its node's model. */
/* Usage and counters back to zero (each run starts afresh). */
void sim_quota_reset(sim_quota *q);
/* j's tenant (j->tenant_ix set), or NULL when it has no quota. */
sim_tenant *sim_quota_tenant(const sim_cluster *c, const job *j);
/* j->pools less the models where charging j would exceed a cap, given the
 * usage now, or (ever) on an empty cluster. Cost O(pools). */
uint64_t sim_quota_pools(const sim_cluster *c, const job *j, bool ever);
/* Charges (sign +1, at start) or refunds (-1, at stop) j; a charge over a
 * cap is a bug (the policy ignored sim_admit_pools) and aborts. */
void sim_quota_charge(sim_cluster *c, const job *j, int sign);
/* Adds the "tenants" array (caps, peaks, quota-blocked counts and waits). */
void sim_quota_report(const sim_cluster *c, cJSON *root);

#endif
