/* cli_docs.h - what a result document is: the one definition of a report,
 * a compare.json and a plan.json that every reader (check, plot, compare,
 * plan) applies before it looks inside, so a reader never meets a missing
 * object or a string where it expects a number.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_DOCS_H
#define GPUSIM_CLI_DOCS_H

#include <cJSON.h>

#include "../base/gs.h"

/* Each returns 0, or GS_EINPUT naming path and the first missing or
 * mistyped member by its key path ("inputs.policy: expected a string"). */

/* A run report: objects inputs (policy and trace strings), jobs (arrived),
 * sim (end_s), gpu; services, when present, an array of objects. A fill
 * report ("mode": "fill") needs inputs and sim only. */
int cd_check_report(const cJSON *r, const char *path, gs_error *err);
/* compare.json: kind "compare", trace, policies [{label, metrics{}}],
 * rows [{key, path}]. */
int cd_check_compare(const cJSON *d, const char *path, gs_error *err);
/* plan.json: kind "plan", trace, gpu, slo [{path, op, value}],
 * policies [{label, points [{gpus, terms []}]}]. */
int cd_check_plan(const cJSON *d, const char *path, gs_error *err);

#endif
