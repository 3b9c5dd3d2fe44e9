/* wl_trace.h - streaming reader for trace format version 1 (CSV, documented
 * in workloads/README.md).
 *
 * The reader holds one record at a time: memory is O(longest record), not
 * O(trace length). Columns are found by header name, in any order. Every error
 * names the file, the line, the column (number and name) and what was
 * expected. Lines are physical lines of the file (the header is line 1); a
 * record with a quoted newline is reported at the line where it starts.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_TRACE_H
#define GPUSIM_WL_TRACE_H

#include "../base/gs.h"

/* Row kinds: `job` (a batch or training job, run by the core), `service` (a
 * model deployment whose replicas serve requests), `request` (one inference
 * request to a service), `session` (an agent sandbox the core runs like a job,
 * held from its start for `duration`) and `burst` (activity inside a session:
 * never run as a job, handed to the time policies via pol_ops.row). */
enum { WL_KIND_JOB = 0, WL_KIND_SERVICE = 1, WL_KIND_REQUEST = 2, WL_KIND_SESSION = 3, WL_KIND_BURST = 4 };
#define WL_NKINDS 5
/* Who wakes a burst: the user (unpredictable, at `submit`) or a schedule
 * known in advance (the burst is due at `due`, registered at `submit`). */
enum { WL_WAKE_USER = 0, WL_WAKE_SCHEDULED = 1 };
/* The domain a job must stay inside (`topology`; -1 = not given: preferred). */
enum { WL_TOPO_RACK = 0, WL_TOPO_BLOCK = 1 };
/* Where a job may run (`tier`; -1 = not given: the kind's default). */
enum { WL_TIER_ANY = 0, WL_TIER_NO_SPOT = 1 };
/* A service's weight precision: the model's own, or bf16, fp8, fp4
 * (enum llm_dtype + 1). */
enum { WL_DTYPE_NATIVE = 0, WL_DTYPE_BF16 = 1, WL_DTYPE_FP8 = 2, WL_DTYPE_FP4 = 3 };

/* Columns as bits of a mask (wl_opts.unread): WL_COL_BIT(WL_COL_TIER). Named
 * here are the columns a run may leave unread, those whose every reader
 * says when it reads them (sim_module.columns_read, pol_ops.columns_read);
 * the numbers are the column table's (workloads/wl_trace_cols.c). */
#define WL_COL_BIT(c) (UINT64_C(1) << (c))
enum {
    WL_COL_GPUMEM = 5, WL_COL_GPUCORES = 6, WL_COL_PREEMPTIBLE = 9, WL_COL_CHECKPOINT_GIB = 10, WL_COL_TENANT = 11,
    WL_COL_CPU = 13, WL_COL_MEM_GIB = 14, WL_COL_GPUMEM_PCT = 15, WL_COL_PARAMS_B = 35, WL_COL_TIME_LIMIT = 45,
    WL_COL_TIER = 49
};

#define WL_ID_MAX 128
/* The most GPUs one row may ask for (`gpus`): 2^20. */
#define WL_GPUS_MAX 1048576

/* One row of any kind, every column at its value or its default (the
 * column table, workloads/wl_trace_cols.c; wl_row_init). */
typedef struct wl_row {
    /* ---- default 0 (8-byte members, then 4-byte ones) ---- */
    long line;           /* physical line the record starts on */
    gs_time_us submit_us;
    gs_time_us dur_us;   /* work at full speed on the requested resources */
    int64_t gpumem_mib;  /* per GPU; 0 = not given */
    double cpu;          /* cores, default 0 */
    double mem_gib;      /* host memory GiB, default 0 */
    double util;         /* demand: fraction of a card's time the task keeps busy alone, (0,1]; 0 = not given */
    double rate;         /* service: generated requests per second; 0 = none */
    const char *hash_ids; /* request: '|'-separated prefix-block ids (checked: integers 0..10^18-1);
                             points into the reader's buffer, valid until the next wl_trace_next; NULL = none */
    int kind;            /* WL_KIND_*; default job */
    int gpus;            /* whole GPUs (or vGPUs), all on one node */
    int gpucores;        /* percent of one GPU, 1..100; 0 = not given */
    int priority;        /* higher wins; default 0 */
    int preemptible;     /* 0/1, default 0 */
    int gpumem_pct;      /* percent of the card's memory, 1..100; 0 = not given (gpumem wins) */
    int gpu_model_col;   /* 1-based column of gpu_model, for later errors */
    int max_batch;       /* service; 0 = not given */
    int wake;            /* burst: WL_WAKE_USER or WL_WAKE_SCHEDULED */
    int ref_gpu_col;     /* 1-based column of ref_gpu, for later errors; 0 = not given */
    int speedup_col;     /* likewise of speedup */
    int mig_col;         /* likewise of mig */
    int nhash;           /* how many ids hash_ids holds */
    /* service: its model from the catalog (models/llm) and how it is served */
    int dtype;           /* WL_DTYPE_*: the model's published precision unless given */
    int tp, pp, ep;      /* tensor, pipeline, expert parallelism; 0 = not given */
    int model_col, pd_col; /* 1-based columns of model and pd, for later errors */
    bool has_duration;   /* duration was given (a service row's lifetime is optional) */
    int gpus_per_node;   /* job: GPUs it takes on each node, 1..64; 0 = not given */
    /* names, numbered by the reader: equal text in a column, equal number,
     * 1, 2, ... in order of first appearance (per column, per reader); 0 =
     * not given, or a row built by hand. A consumer resolves a name once and
     * keeps the answer by its number (O(1) after the first occurrence) */
    uint32_t tenant_sym, mig_sym, gpu_model_sym, ref_gpu_sym, speedup_sym, service_sym, session_sym,
        class_sym, profile_sym;
    /* ---- default -1: not given ---- */
    double checkpoint_gib;
    double params_b;     /* model parameters, billions (checkpoint size estimate) */
    /* hardware speed: `duration` is the time alone on ref_gpu ("" = the
     * run's ref_gpu parameter); mem_bound weights the bandwidth ratio against
     * the compute ratio (< 0 = the kind's default); speedup "MODEL:f|MODEL:f"
     * (a measured throughput table) overrides both */
    double mem_bound;
    /* service: SLOs, weights and the perf model (< 0 = the run's default) */
    double slo_ms;       /* latency SLO */
    double weights_gib;  /* model weights to load at cold start */
    double svc_mean_ms;  /* mean of exponential service times for token-less requests */
    double prefill_ms_per_token, decode_ms_base, decode_ms_per_seq;
    double slo_ttft_ms, slo_tpot_ms; /* time-to-first-token and time-per-output-token SLOs */
    double kv_kib_per_token;         /* KV-cache bytes of one token, KiB */
    int64_t input_tokens, output_tokens; /* request */
    gs_time_us due_us;   /* scheduled bursts: when it runs (>= submit) */
    int replicas_min, replicas_max, replicas_init; /* service */
    /* multi-node jobs, elastic capacity and imported traces */
    gs_time_us time_limit_us;   /* job: the user's requested wall time (> 0); -1 = not given: the duration */
    double comm;                /* job: share of its step time in inter-GPU communication, 0..1 */
    int topology;               /* job: WL_TOPO_* the job must stay inside */
    int tier;                   /* WL_TIER_* where it may run */
    gs_time_us observed_start_us; /* imported: when the real cluster started it (>= submit) */
    /* ---- texts, default "" ---- */
    char id[WL_ID_MAX];
    char mig[32];        /* MIG profile name; "" = not given */
    char tenant[64];     /* "" = default tenant */
    char gpu_model[256]; /* '|'-separated allowed models; "" = any */
    char service[64];    /* request: the service it goes to */
    char pattern[16];    /* service: poisson (default) or diurnal */
    char session[WL_ID_MAX]; /* burst: the session it belongs to */
    char ref_gpu[48];
    char speedup[160];
    char profile[32];    /* service: a shipped performance profile ("" = scale the row's own reference times) */
    char job_class[64];  /* `class`: the row's class for per-class figures (training, notebook, ...) */
    char model[48];      /* service: a catalog model (models/llm); "" = the row states its own shape */
    char pd[112];        /* service: "P[@MODEL]:D[@MODEL]" prefill and decode replicas (disaggregated); "" = aggregated */
} wl_row;

typedef struct wl_trace wl_trace;

typedef struct wl_opts {
    bool allow_extra_columns; /* ignore unknown columns instead of failing */
    bool field_by_field;      /* every line the field-by-field way: the reference the fast path is tested against */
    /* Per row kind (WL_KIND_*), the columns (WL_COL_BIT) the caller reads
     * nothing of in rows of that kind. A header column in the mask of every
     * kind that may come (a header without `kind`: job rows only) is left
     * unread, exactly as an ignored extra column: its values are never
     * parsed or checked and never given (wl_trace_unread). The required
     * columns (id, submit) are always read. All zero: every column read. */
    uint64_t unread[WL_NKINDS];
} wl_opts;

/* Opens path and reads its header. NULL on error (GS_EINPUT in err). */
wl_trace *wl_trace_open(const char *path, const wl_opts *opts, gs_error *err);
/* Reads the next row: 1 = *row points at it, the reader's own (read-only,
 * valid until the next call or wl_trace_close), 0 = end of file, < 0 =
 * error (GS_EINPUT, message in err naming file, line and column); *row is
 * set only on 1. Rows must come in non-decreasing submit order; a row that
 * goes back in time is an error. O(line length): a column absent from the
 * header costs nothing. */
int wl_trace_next(wl_trace *t, const wl_row **row, gs_error *err);
/* Rows returned so far. */
long wl_trace_rows(const wl_trace *t);
/* The 1-based field of column name in the header; 0 when the header has
 * no such column (or name is none of the format's). O(columns). */
int wl_trace_column(const wl_trace *t, const char *name);
/* The header's columns left unread (wl_opts.unread), WL_COL_BIT bits. */
uint64_t wl_trace_unread(const wl_trace *t);
/* Every column but kind, duration and gpus: a mask for a look at job
 * durations alone (the required columns are read all the same). */
uint64_t wl_cols_but_durations(void);
/* The name of column c (a bit number of WL_COL_BIT), or NULL when there is
 * no such column. */
const char *wl_col_name(int c);
void wl_trace_close(wl_trace *t);

/* Every member of *row at its column's default, as the reader leaves a
 * column that is not given: for a row built by hand (a task's, a copy). */
void wl_row_init(wl_row *row);

/* Parses a non-negative decimal number of seconds ("12", "0.5", "3.000001")
 * into microseconds, rounding half up past the sixth decimal. Returns false
 * on anything else. Exposed for tests and other readers. */
bool wl_parse_seconds(const char *s, gs_time_us *out_us);

/* The GPU memory a request states per GPU on a card of card_mib MiB: its
 * gpumem, else its gpumem_pct of the card rounded down (HAMi's
 * gpumem-percentage), else 0 (not stated; the caller decides: a quota or
 * HAMi counts the whole card, time-slicing counts nothing). The one
 * definition quotas, sharing and MIG all use (on a row, or on a job's
 * request through job_req_gpumem_mib). */
static inline int64_t wl_gpumem_mib(int64_t gpumem_mib, int gpumem_pct, int64_t card_mib)
{
    if (gpumem_mib > 0)
        return gpumem_mib;
    return gpumem_pct > 0 ? card_mib * gpumem_pct / 100 : 0;
}

/* A job's time limit: its time_limit, else its duration. */
static inline gs_time_us wl_row_time_limit_us(const wl_row *r)
{
    return r->time_limit_us > 0 ? r->time_limit_us : r->dur_us;
}

static inline int64_t wl_row_gpumem_mib(const wl_row *r, int64_t card_mib)
{
    return wl_gpumem_mib(r->gpumem_mib, r->gpumem_pct, card_mib);
}

#endif
