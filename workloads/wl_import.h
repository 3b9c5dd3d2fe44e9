/* wl_import.h - converters from public traces to gpusim's trace format.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_IMPORT_H
#define GPUSIM_WL_IMPORT_H

#include <stdio.h>

#include "../sim/gs.h"

typedef struct wl_azure_opts {
    const char *service;  /* service id for the requests */
    int gpus;             /* GPUs per replica of the declared service */
    int replicas_min, replicas_max;
    long limit;           /* at most this many requests (0: all) */
} wl_azure_opts;

typedef struct wl_import_counts {
    long rows_in, converted, skipped;
} wl_import_counts;

/* Azure LLM inference trace 2023 (TIMESTAMP,ContextTokens,GeneratedTokens)
 * -> one `service` row and one `request` row per input row, submit times in
 * seconds from the first row. Streams in constant memory. Returns 0, or
 * GS_EINPUT naming the line and column of a bad row, or GS_EWRITE. */
int wl_import_azure(const char *path, FILE *out, const wl_azure_opts *o, wl_import_counts *counts, gs_error *err);

#endif
