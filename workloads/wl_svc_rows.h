/* wl_svc_rows.h - service and request rows as their own small records.
 *
 * The reader hands every row as one all-kinds wl_row (wl_trace.h). The
 * service layer converts a service or request row once, where it takes the
 * row, and keeps only these: what a service declares (its serving model and
 * the request each replica makes of the cluster) and what one request
 * states.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_SVC_ROWS_H
#define GPUSIM_WL_SVC_ROWS_H

#include "wl_trace.h"

/* What each replica of a service asks of the cluster: the job columns a
 * service row carries (a replica is placed, charged and sped up like a job
 * with these columns). Defaults and meanings as in wl_row. */
typedef struct wl_replica_ask {
    int gpus;
    int64_t gpumem_mib;
    int gpucores, gpumem_pct;
    double util;
    char mig[32];
    double cpu, mem_gib;
    char gpu_model[256]; /* '|'-separated allowed models; "" = any */
    int gpu_model_col;
    int priority, preemptible;
    double checkpoint_gib;
    char tenant[64];
    char ref_gpu[48];
    int ref_gpu_col;
    double mem_bound;
    char speedup[160];
    int speedup_col;
} wl_replica_ask;

/* A service row (kind service). */
typedef struct wl_service {
    long line;
    char id[WL_ID_MAX];
    bool has_duration;
    gs_time_us dur_us; /* how long it runs, when has_duration */
    int replicas_min, replicas_max, replicas_init; /* -1 = not given */
    int max_batch;                                 /* 0 = not given */
    double slo_ms, slo_ttft_ms, slo_tpot_ms;       /* < 0 = not given */
    double weights_gib, params_b, kv_kib_per_token; /* < 0 = not given */
    double rate;   /* generated requests per second; 0 = none */
    bool diurnal;  /* pattern diurnal (else poisson) */
    double svc_mean_ms; /* mean service time of token-less requests; < 0 = not given */
    int64_t input_tokens, output_tokens; /* means of generated requests; -1 = not given */
    double prefill_ms_per_token, decode_ms_base, decode_ms_per_seq; /* < 0 = default */
    char profile[32]; /* a shipped performance profile; "" = scale the row's own times */
    /* a catalog model (models/llm) and how it is served: precision
     * (WL_DTYPE_*), tensor, pipeline, expert parallelism (0 = not given),
     * "P:D" prefill and decode replicas ("" = aggregated) */
    char model[48];
    int model_col;
    int dtype, tp, pp, ep;
    char pd[112];
    int pd_col;
    wl_replica_ask ask;
} wl_service;

/* A request row (kind request). */
typedef struct wl_request {
    long line;
    char id[WL_ID_MAX];
    char service[64];                    /* the service it goes to */
    int64_t input_tokens, output_tokens; /* -1 = not given */
    bool has_duration;
    gs_time_us dur_us; /* its service time when it has no token counts */
    const char *hash_ids; /* '|'-separated prefix-block ids, checked by the reader; points into the
                             reader's buffer, valid until the next wl_trace_next; NULL = none */
    int nhash;
} wl_request;

/* r (kind service) as a service record. */
void wl_service_of(const wl_row *r, wl_service *out);
/* r (kind request) as a request record. */
void wl_request_of(const wl_row *r, wl_request *out);
/* The job row a replica task of service v carries (the core places a task
 * by its row): v's ask, line and duration, kind job; id and submit are the
 * caller's to set. */
void wl_service_replica_row(const wl_service *v, wl_row *out);

#endif
