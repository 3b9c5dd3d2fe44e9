/* sim_report.h - the run report (report.json) and the summary table.
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

/* Adds the "inputs" object (version, trace, policy, parameters, seed,
 * cluster) to r; `run --mode fill` writes it in its own report. */
void sim_report_add_inputs(cJSON *r, const sim *s);

#endif
