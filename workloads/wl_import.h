/* wl_import.h - converters from public traces to gpusim's trace format.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_IMPORT_H
#define GPUSIM_WL_IMPORT_H

#include <stdio.h>

#include "../base/gs.h"

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

/* Alibaba cluster-trace-gpu-v2023 ("openb", issue 7). Reasons a pod or node
 * row is not converted; each has a count in wl_openb_counts. */
enum {
    WL_OPENB_SKIP_GPU_SHAPE = 0, /* num_gpu / gpu_milli inconsistent or out of range */
    WL_OPENB_SKIP_MILLI_10,      /* gpu_milli not a multiple of 10 (gpucores is a whole percent) */
    WL_OPENB_SKIP_LIFETIME,      /* deletion_time before creation_time, or only one of them */
    WL_OPENB_SKIP_NODE,          /* node row: cards > 64, or cards without a model */
    WL_OPENB_NREASONS
};
extern const char *const wl_openb_reason[WL_OPENB_NREASONS];

typedef struct wl_openb_counts {
    long pods_in, pods_converted, pods_skipped;
    long pending;  /* converted pods that were never scheduled (pod_phase Pending) */
    long timeless; /* converted pods without times (5-column files): submit 0, duration 0 */
    long nodes_in, nodes_converted, nodes_skipped, cpu_only_nodes;
    long gpus;     /* cards in the converted cluster */
    long skipped[WL_OPENB_NREASONS];
} wl_openb_counts;

/* Pod list (11 or 5 columns, found by header name) -> trace format v1 rows
 * sorted by submit (stable: the file order among equal times). Holds the
 * converted rows in memory (the files have ~10^4 rows) to sort them. Each
 * skipped row is reported on `warn` (may be NULL) with its line and reason.
 * Returns 0, GS_EINPUT naming line and column of a malformed field, or
 * GS_EWRITE. */
int wl_import_openb_pods(const char *path, FILE *out, FILE *warn, wl_openb_counts *counts, gs_error *err);
/* Node list (sn,cpu_milli,memory_mib,gpu,model) -> cluster JSON (runs of
 * identical consecutive nodes become one group, so node order is kept). */
int wl_import_openb_nodes(const char *path, FILE *out, FILE *warn, wl_openb_counts *counts, gs_error *err);

#endif
