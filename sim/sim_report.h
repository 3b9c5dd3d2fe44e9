/* sim_report.h - the run report (report.json), the summary table, and atomic
 * file output (write a temporary file in the target directory, then rename,
 * so a failed run never leaves a half-written result).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_REPORT_H
#define GPUSIM_SIM_REPORT_H

#include <cJSON.h>
#include <stdio.h>

#include "sim.h"

/* Builds the report of a finished run. wall_s and peak_rss_mib go under
 * "sim" and are the only fields that differ between identical runs.
 * The caller owns the tree (cJSON_Delete). */
cJSON *sim_report_build(const sim *s, double wall_s, double peak_rss_mib);
/* Prints a short human summary of a report. */
void sim_report_summary(FILE *out, const cJSON *report);
/* mkdir -p. Returns 0 or GS_EWRITE. */
int gs_mkdirs(const char *dir, gs_error *err);
/* Writes data to path through path.tmp.<pid> + fsync + rename. 0 or GS_EWRITE. */
int gs_write_atomic(const char *path, const char *data, size_t n, gs_error *err);
/* Adds {"mean","p50","p95","p99","max","count"} of a sketch under key. */
void sim_report_add_stats(cJSON *obj, const char *key, const sim_sketch *sk);

/* Adds the "inputs" object (version, trace, policy, parameters, seed,
 * cluster) to r; `run --mode fill` writes it in its own report (issue 7). */
void sim_report_add_inputs(cJSON *r, const sim *s);

#endif
