/* cli_plan_terms.h - what `plan` adds to the buyer's SLO so that no failed
 * run can pass: implicit terms (nothing rejected, nothing failed, no request
 * dropped, every service replica placed), each relaxable by a named flag.
 * What each term's metric means is its row of metrics[] (metrics.h); a
 * metric nothing was measured for is "not met" (metrics_measured).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_PLAN_TERMS_H
#define GPUSIM_CLI_PLAN_TERMS_H

typedef struct plan_implicit {
    const char *path; /* report metric (derived.* ones are added by cli_batch_read_report) */
    const char *flag; /* the plan flag that leaves this term out */
} plan_implicit;

/* The implicit terms, each "<= 0"; ends with a NULL path. */
extern const plan_implicit plan_implicit_terms[];
#define PLAN_NIMPLICIT 4

/* The relax flag of an implicit term path, or NULL for a user term. */
const char *plan_term_flag(const char *path);

#endif
