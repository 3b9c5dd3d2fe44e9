/* sim_reject.h - why jobs were rejected: every rejection the core makes
 * records a reason (jobs.rejected_reasons: reason -> count and the first
 * ids; gpusim run prints one warning line per reason).
 *
 * The reason is the space policy's when it gives one (pol_space.
 * reject_reason: a MIG profile no card offers), else the core's own, from
 * the request against the cluster with no work on it: a model it names
 * that the cluster lacks, more GPUs than any node (or, across nodes, the
 * cluster) has, more CPU or memory than any node of its models, its
 * tenant's quota; else that the space policy finds no card for it.
 * Reasons are kept by their text, at most SIM_REJECT_REASONS of them (the
 * rest counted under one "other reasons" entry), SIM_REJECT_IDS ids each.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_REJECT_H
#define GPUSIM_SIM_REJECT_H

#include <cJSON.h>

#include "sim_cluster.h"
#include "sim_job.h"

#define SIM_REJECT_REASONS 32
#define SIM_REJECT_IDS 5

typedef struct sim sim;
struct pol_ops; /* sim_policy.h */

typedef struct sim_reject_reason {
    char *text;
    uint64_t count;
    char *ids[SIM_REJECT_IDS];
    int nids;
} sim_reject_reason;

typedef struct sim_rejects {
    sim_reject_reason r[SIM_REJECT_REASONS + 1]; /* the last: "other reasons" */
    int n;
} sim_rejects;

/* Where a rejection is judged: run s, its cluster, its space policy and
 * that policy's state. */
typedef struct sim_reject_ctx {
    sim *s;
    const sim_cluster *cl;
    const struct pol_ops *space;
    void *space_state;
} sim_reject_ctx;

/* Counts trace job j's rejection in x's run under `why` (NULL or "": the
 * reason the policy or the core derives for it now) into rj and returns the reason's text as
 * kept (valid until sim_rejects_free). O(reasons) plus the derivation's
 * O(pools x node shapes). */
const char *sim_reject_note(sim_rejects *rj, const sim_reject_ctx *x, const job *j, const char *why);
/* Adds "rejected_reasons" to the report's jobs object when any job was
 * rejected. */
void sim_reject_report(const sim_rejects *rj, cJSON *jobs);
void sim_rejects_free(sim_rejects *rj);

#endif
