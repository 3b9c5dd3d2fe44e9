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
    /* the served model's facts and LLM-serving SLOs, written on the service row */
    double weights_gib;   /* weights loaded at each cold start */
    double slo_ttft_ms, slo_tpot_ms; /* time to first token, time per output token */
    int max_batch;        /* requests a replica serves at once */
    double warmup_s;      /* the service is declared this long before the first request */
} wl_azure_opts;

typedef struct wl_import_counts {
    long rows_in, converted, skipped;
} wl_import_counts;

/* Azure LLM inference trace 2023 (TIMESTAMP,ContextTokens,GeneratedTokens)
 * -> one `service` row (gpus, replicas, weights_gib, slo_ttft_ms,
 * slo_tpot_ms, max_batch from o) at 0 and one `request` row per input row,
 * submit = warmup_s + seconds since the first row. Streams in constant memory. Returns 0, or
 * GS_EINPUT naming the line and column of a bad row, or GS_EWRITE. */
int wl_import_azure(const char *path, FILE *out, const wl_azure_opts *o, wl_import_counts *counts, gs_error *err);

/* Alibaba cluster-trace-gpu-v2023 ("openb"). Reasons a pod or node
 * row is not converted; each has a count in wl_openb_counts. */
enum {
    WL_OPENB_SKIP_GPU_SHAPE = 0, /* num_gpu / gpu_milli inconsistent or out of range */
    WL_OPENB_SKIP_MILLI_10,      /* gpu_milli not a multiple of 10 (gpucores is a whole percent) */
    WL_OPENB_SKIP_LIFETIME,      /* deletion_time before creation_time, or only one of them */
    WL_OPENB_SKIP_NODE,          /* node row: cards > 64, or cards without a model */
    WL_OPENB_NREASONS
};
extern const char *const wl_openb_reason[WL_OPENB_NREASONS];
/* The largest creation_time or deletion_time the pod importer takes
 * (seconds; the trace reader's range): `gen openb-variant` checks its base
 * list's times against it, so every variant it writes imports. */
#define WL_OPENB_MAX_TIME_S 1000000000000L

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

/* Alibaba cluster-trace-v2026-GenAI Stable Diffusion request log
 * (gmt_create, predict_status, exec_time_seconds, groupId, num_lora,
 * checkpoint_model_version_id, ...). Reasons a row is not converted: */
enum {
    WL_SD_SKIP_FAILED = 0, /* predict_status FAILED */
    WL_SD_SKIP_PENDING,    /* PENDING (never ran: exec time 0) */
    WL_SD_SKIP_PROCESSING, /* PROCESSING (still running when logged) */
    WL_SD_SKIP_STATUS,     /* any other status */
    WL_SD_SKIP_NO_MODEL,   /* no checkpoint_model_version_id */
    WL_SD_SKIP_BACKWARDS,  /* gmt_create earlier than the row before */
    WL_SD_NREASONS
};
extern const char *const wl_sd_reason[WL_SD_NREASONS];

typedef struct wl_sd_opts {
    int gpus;                       /* GPUs per replica */
    int replicas_min, replicas_max; /* per model */
    double weights_gib;             /* checkpoint loaded at each cold start */
    double lora_load_s;             /* added to a request's service time per LoRA adapter */
    double slo_ms;                  /* latency SLO of every model service */
    long limit;                     /* at most this many requests (0: all) */
} wl_sd_opts;

typedef struct wl_sd_counts {
    long rows_in, converted, skipped, services, with_lora, adapters;
    long skipped_by[WL_SD_NREASONS];
} wl_sd_counts;

/* One `service` row per base model (all at submit 0, in order of first use),
 * then one token-less `request` row per converted input row: service =
 * checkpoint_model_version_id, tenant = groupId, duration =
 * exec_time_seconds + num_lora x lora_load_s, submit = seconds since the
 * first converted row. Two passes over the file (models first), memory
 * O(distinct models). Each skipped row is reported on `warn` (may be NULL).
 * Returns 0, GS_EINPUT naming file, line and column, or GS_EWRITE. */
int wl_import_sd(const char *path, FILE *out, FILE *warn, const wl_sd_opts *o, wl_sd_counts *n, gs_error *err);

/* Alibaba cluster-trace-gpu-v2025 (DLRM inference instances, Prism, NSDI
 * '25). Reasons an instance row is not converted: */
enum {
    WL_DLRM_SKIP_ROLE = 0, /* role not selected (--roles) */
    WL_DLRM_SKIP_LIFETIME, /* deletion_time before creation_time */
    WL_DLRM_SKIP_GPUS,     /* gpu_request above 64, or fractional above 1 */
    WL_DLRM_NREASONS
};
extern const char *const wl_dlrm_reason[WL_DLRM_NREASONS];

typedef struct wl_dlrm_opts {
    bool cn, hn;       /* convert CPU-node (CN) and/or GPU-node (HN) instances */
    double end_s;      /* instances alive at the end run until here; <= 0: the latest time in the file */
    size_t sort_lines; /* rows sorted in memory at once (external merge sort beyond) */
} wl_dlrm_opts;

typedef struct wl_dlrm_counts {
    long rows_in, converted, skipped, cn, hn, gpus;
    long pre_existing, alive_at_end; /* no creation_time (placed at 0); no deletion_time (run to the end) */
    long rdma, per_node_limit;       /* rows whose RDMA share / instances-per-node cap is not modeled */
    double end_s;                    /* the end used */
    int runs;                        /* sorted runs spilled to temporary files */
    long skipped_by[WL_DLRM_NREASONS];
} wl_dlrm_counts;

/* Instance rows -> `job` rows sorted by submit (stably): submit =
 * creation_time (empty: 0), duration = deletion_time (empty: the end) -
 * submit, gpus = gpu_request (CN rows: 0), cpu = cpu_request, mem_gib =
 * memory_request, tenant = app_name. Memory O(sort_lines). Returns 0,
 * GS_EINPUT naming file, line and column, or GS_EWRITE. */
int wl_import_dlrm(const char *path, FILE *out, FILE *warn, const wl_dlrm_opts *o, wl_dlrm_counts *n, gs_error *err);

/* Mooncake (Kimi) FAST '25 traces, JSON Lines: {"timestamp": ms,
 * "input_length", "output_length", "hash_ids": [...]} per request. */
enum {
    WL_MC_SKIP_BACKWARDS = 0, /* timestamp earlier than the row before */
    WL_MC_SKIP_HASH_COUNT,    /* len(hash_ids) != ceil(input_length / block) */
    WL_MC_NREASONS
};
extern const char *const wl_mc_reason[WL_MC_NREASONS];

typedef struct wl_mc_opts {
    const char *service;
    int gpus, replicas_min, replicas_max;
    double weights_gib, slo_ttft_ms, slo_tpot_ms, kv_kib_per_token;
    int block_tokens;  /* tokens per hash id (512) */
    bool bursts;       /* keep the quantized timestamps (else spread within their bucket) */
    double bucket_ms;  /* the quantum the timestamps were rounded to (3000) */
    uint64_t seed;     /* of the spreading */
    double warmup_s;   /* the service is declared this long before the first request */
    long limit;
} wl_mc_opts;

typedef struct wl_mc_counts {
    long rows_in, converted, skipped, blocks, buckets, largest_bucket;
    long skipped_by[WL_MC_NREASONS];
} wl_mc_counts;

/* One `service` row, then one request row per input line with
 * input_tokens, output_tokens and hash_ids ('|'-joined). Rows sharing a
 * timestamp (the trace rounds them to ~3 s) are spread uniformly over
 * [t, min(t + bucket_ms, next t)), sorted, file order kept, from a seeded
 * stream; with `bursts` they keep t. Memory O(the largest bucket). Returns
 * 0, GS_EINPUT naming file, line, column and field, or GS_EWRITE. Submit
 * times are shifted by warmup_s. */
int wl_import_mooncake(const char *path, FILE *out, FILE *warn, const wl_mc_opts *o, wl_mc_counts *n, gs_error *err);

#endif
