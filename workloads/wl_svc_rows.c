/* wl_svc_rows.c - service and request rows converted from the reader's
 * all-kinds row (see wl_svc_rows.h). Plain copies: O(1) per row.
 * SPDX-License-Identifier: MIT */
#include "wl_svc_rows.h"

#include <string.h>

/* Both arrays have one size (checked at compile time), so a copy keeps the
 * terminator the reader wrote. */
#define COPY_STR(dst, src)                                                                                           \
    do {                                                                                                             \
        _Static_assert(sizeof(dst) == sizeof(src), "string fields of one size");                                    \
        memcpy((dst), (src), sizeof(dst));                                                                           \
    } while (0)

void wl_service_of(const wl_row *r, wl_service *out)
{
    out->line = r->line;
    COPY_STR(out->id, r->id);
    out->has_duration = r->has_duration;
    out->dur_us = r->dur_us;
    out->replicas_min = r->replicas_min;
    out->replicas_max = r->replicas_max;
    out->replicas_init = r->replicas_init;
    out->max_batch = r->max_batch;
    out->slo_ms = r->slo_ms;
    out->slo_ttft_ms = r->slo_ttft_ms;
    out->slo_tpot_ms = r->slo_tpot_ms;
    out->weights_gib = r->weights_gib;
    out->params_b = r->params_b;
    out->kv_kib_per_token = r->kv_kib_per_token;
    out->rate = r->rate;
    out->diurnal = strcmp(r->pattern, "diurnal") == 0;
    out->svc_mean_ms = r->svc_mean_ms;
    out->input_tokens = r->input_tokens;
    out->output_tokens = r->output_tokens;
    out->prefill_ms_per_token = r->prefill_ms_per_token;
    out->decode_ms_base = r->decode_ms_base;
    out->decode_ms_per_seq = r->decode_ms_per_seq;
    COPY_STR(out->profile, r->profile);
    COPY_STR(out->model, r->model);
    out->model_col = r->model_col;
    out->dtype = r->dtype;
    out->tp = r->tp;
    out->pp = r->pp;
    out->ep = r->ep;
    COPY_STR(out->pd, r->pd);
    out->pd_col = r->pd_col;
    wl_replica_ask *a = &out->ask;
    a->gpus = r->gpus;
    a->gpumem_mib = r->gpumem_mib;
    a->gpucores = r->gpucores;
    a->gpumem_pct = r->gpumem_pct;
    a->util = r->util;
    COPY_STR(a->mig, r->mig);
    a->cpu = r->cpu;
    a->mem_gib = r->mem_gib;
    COPY_STR(a->gpu_model, r->gpu_model);
    a->gpu_model_col = r->gpu_model_col;
    a->priority = r->priority;
    a->preemptible = r->preemptible;
    a->checkpoint_gib = r->checkpoint_gib;
    COPY_STR(a->tenant, r->tenant);
    COPY_STR(a->ref_gpu, r->ref_gpu);
    a->ref_gpu_col = r->ref_gpu_col;
    a->mem_bound = r->mem_bound;
    COPY_STR(a->speedup, r->speedup);
    a->speedup_col = r->speedup_col;
}

void wl_request_of(const wl_row *r, wl_request *out)
{
    out->line = r->line;
    COPY_STR(out->id, r->id);
    COPY_STR(out->service, r->service);
    out->input_tokens = r->input_tokens;
    out->output_tokens = r->output_tokens;
    out->has_duration = r->has_duration;
    out->dur_us = r->dur_us;
    out->hash_ids = r->hash_ids;
    out->nhash = r->nhash;
}

void wl_service_replica_row(const wl_service *v, wl_row *out)
{
    wl_row_init(out); /* a job row: every column not below is "not given", as the reader leaves it */
    out->line = v->line;
    out->has_duration = v->has_duration;
    out->dur_us = v->dur_us;
    out->params_b = v->params_b; /* a checkpoint's size when preempted */
    const wl_replica_ask *a = &v->ask;
    out->gpus = a->gpus;
    out->gpumem_mib = a->gpumem_mib;
    out->gpucores = a->gpucores;
    out->gpumem_pct = a->gpumem_pct;
    out->util = a->util;
    COPY_STR(out->mig, a->mig);
    out->cpu = a->cpu;
    out->mem_gib = a->mem_gib;
    COPY_STR(out->gpu_model, a->gpu_model);
    out->gpu_model_col = a->gpu_model_col;
    out->priority = a->priority;
    out->preemptible = a->preemptible;
    out->checkpoint_gib = a->checkpoint_gib;
    COPY_STR(out->tenant, a->tenant);
    COPY_STR(out->ref_gpu, a->ref_gpu);
    out->ref_gpu_col = a->ref_gpu_col;
    out->mem_bound = a->mem_bound;
    COPY_STR(out->speedup, a->speedup);
    out->speedup_col = a->speedup_col;
}
