/* llm_model.h - LLM catalog: one JSON file per model in models/llm/, its
 * shape as the public model card and config.json give it (layers, widths,
 * attention kind, experts, parameter counts), loaded and validated once,
 * read-only after. The speed model (models/perf/perf_shape.h) and a
 * service's memory (weights, KV cache per token) are computed from it.
 * Lookups accept the name or any alias, case-insensitively.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_LLM_MODEL_H
#define GPUSIM_LLM_MODEL_H

#include "../../base/gs.h"

/* How attention keeps its cache: MHA (a K and a V per head), GQA (per KV
 * head, shared by a group of query heads), MLA (one compressed latent per
 * token and layer, DeepSeek-V2/V3). */
enum llm_attn { LLM_MHA = 0, LLM_GQA = 1, LLM_MLA = 2 };

/* Weight precisions a service may run in; bytes per parameter 2, 1, 0.5. */
enum llm_dtype { LLM_BF16 = 0, LLM_FP8 = 1, LLM_FP4 = 2, LLM_NDTYPES = 3 };

typedef struct llm_model {
    char name[48];
    char **aliases;
    int naliases;
    int attn; /* enum llm_attn */
    int layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
    int kv_lora_rank, rope_head_dim; /* MLA: the cached latent is their sum per layer; 0 otherwise */
    /* mixture of experts (experts 0: dense): routed experts, routed per
     * token, always-on shared experts, an expert's MLP width, and the first
     * dense_layers layers that have a plain MLP instead */
    int experts, active_experts, shared_experts, expert_intermediate, dense_layers;
    double params_b, active_params_b; /* billions: stored, and used per token */
    int dtype;        /* enum llm_dtype the checkpoint is published in */
    char profile[32]; /* the measured profile of this model (models/perf/), "" none */
} llm_model;

typedef struct llm_catalog {
    llm_model *models;
    int n;
} llm_catalog;

/* Loads every *.json in dir (sorted by file name). A missing directory gives
 * an empty catalog. 0, or GS_EINPUT naming the file and the field. */
int llm_catalog_load(llm_catalog *cat, const char *dir, gs_error *err);
void llm_catalog_free(llm_catalog *cat);
/* Name or alias, case-insensitive; NULL if unknown. */
const llm_model *llm_catalog_find(const llm_catalog *cat, const char *name);
/* Writes "a, b, c" (names) into buf. */
void llm_catalog_names(const llm_catalog *cat, char *buf, size_t n);
/* models/llm beside the GPU model directory gpu_dir (models/gpu). */
void llm_catalog_dir_of(const char *gpu_dir, char *buf, size_t n);

/* "bf16", "fp8", "fp4" -> enum llm_dtype; -1 for anything else. */
int llm_dtype_parse(const char *s);
const char *llm_dtype_name(int dtype);
double llm_dtype_bytes(int dtype);

/* KV-cache bytes one token holds over all layers at kv_bytes per element:
 * 2 x layers x kv_heads x head_dim (MHA, GQA) or layers x (kv_lora_rank +
 * rope_head_dim) (MLA). */
double llm_kv_bytes_per_token(const llm_model *m, double kv_bytes);
/* Parameters (billions) of one routed expert over all its layers
 * (3 x hidden x expert_intermediate per MoE layer: gate, up, down); 0 for a
 * dense model. */
double llm_expert_params_b(const llm_model *m);
/* Routed experts a decode step of batch sequences touches, expected under
 * uniform routing: E x (1 - (1 - k/E)^batch) (each token picks k of E); the
 * weights it reads are those experts' plus the dense part. */
double llm_experts_touched(const llm_model *m, double batch);

#endif
