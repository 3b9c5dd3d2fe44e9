/* cli_plan_terms.h - what `plan` adds to the buyer's SLO so that no failed
 * run can pass: implicit terms (nothing rejected, nothing failed, no request
 * dropped, every service replica placed), each relaxable by a named flag,
 * and the rule that a metric nothing was measured for is "not met".
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_PLAN_TERMS_H
#define GPUSIM_CLI_PLAN_TERMS_H

#include <cJSON.h>
#include <stdbool.h>

typedef struct plan_implicit {
    const char *path; /* report metric (derived.* ones are added by cli_batch_read_report) */
    const char *flag; /* the plan flag that leaves this term out */
    const char *what; /* what a non-zero figure means, for the evidence */
} plan_implicit;

/* The implicit terms, each "<= 0"; ends with a NULL path. */
extern const plan_implicit plan_implicit_terms[];
#define PLAN_NIMPLICIT 4

/* The relax flag of an implicit term path, or NULL for a user term. */
const char *plan_term_flag(const char *path);

/* Like cli_batch_metric, but a statistic over an empty sample is absent: a
 * "p99" or "mean" whose sibling "count" is 0 was never measured (every
 * request dropped, no job started), so it cannot meet an SLO. */
bool plan_metric_measured(const cJSON *report, const char *path, double *v);

#endif
