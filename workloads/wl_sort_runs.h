/* wl_sort_runs.h - a stable sort of text lines by a numeric key in bounded
 * memory (an external merge sort), for importers whose input is not in
 * time order but whose output must be.
 *
 * Lines are held in memory up to `max_lines`; each full batch is sorted and
 * written to a temporary file (a run); wl_runs_merge merges the runs and the
 * last batch, in key order and, among equal keys, in the order added. Memory
 * is O(max_lines + runs), not O(lines).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_SORT_RUNS_H
#define GPUSIM_WL_SORT_RUNS_H

#include <stddef.h>

#include "../base/gs.h"

typedef struct wl_runs wl_runs;

wl_runs *wl_runs_new(size_t max_lines);
/* Adds one line (no newline inside) with its key. 0, or GS_EWRITE when a run
 * cannot be written. */
int wl_runs_add(wl_runs *r, double key, const char *line, gs_error *err);
/* Calls emit(ud, key, line) for every line in order; stops at the first
 * non-zero return and passes it on. */
int wl_runs_merge(wl_runs *r, int (*emit)(void *ud, double key, const char *line), void *ud, gs_error *err);
/* Runs written to temporary files so far (tests check the bound holds). */
int wl_runs_spilled(const wl_runs *r);
void wl_runs_free(wl_runs *r);

#endif
