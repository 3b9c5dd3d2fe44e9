/* cli_compare_table.h - the comparison table: from the reports of each
 * column's runs (one column a policy, one report a seed) to compare.json and
 * the printed table. `compare` feeds it the runs it just made; `sweep
 * collect` the runs a scheduler made, so both print the same table.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_COMPARE_TABLE_H
#define GPUSIM_CLI_COMPARE_TABLE_H

#include <cJSON.h>

#include "cli_batch.h"

typedef struct cli_compare_table_column {
    const char *label, *policy;
    cJSON *const *reports;       /* n reports in seed order; NULL where a run is missing */
    const char *const *run_dirs; /* n run directories (listed in compare.json) */
    int n;
} cli_compare_table_column;

/* The compare.json document: rows (base rows present in some report, SLO
 * terms and slo_met, --metrics paths, per-service rows from the first
 * report), then per column each row's mean, 95% interval, n and values.
 * NULL when no column has a report. */
cJSON *cli_compare_table_build(const char *trace, long seeds, const cli_compare_table_column *cols, int ncols, const cli_batch_slo *slo, int nslo,
                const char *extra_paths);
/* Prints doc as text, markdown or csv (the caller prints json itself). */
void cli_compare_table_print(const cJSON *doc, const char *format, const char *trace, long seeds, const char *odir);
/* Writes doc to dir/compare.json atomically; *text (may be NULL) receives
 * what was written, for --format json. */
int cli_compare_table_write(const cJSON *doc, const char *dir, char **text, gs_error *err);

#endif
