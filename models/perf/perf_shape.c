/* perf_shape.c - an iteration's time from the model's shape (see
 * perf_shape.h).
 * SPDX-License-Identifier: MIT */
#include "perf_shape.h"

#include <math.h>
#include <stdio.h>

/* The fit on Llama-2-70B's measured times (Splitwise, A100 and H100, TP 2,
 * 4, 8): scripts and figures in models/perf/README.md; perf_fit_run
 * reproduces these (tests/test_perf_shape.c checks it). */
const perf_coef perf_shape_default = {
    .bw_eff = 0.927961,
    .flops_eff = 1.0, /* at its bound: see models/perf/README.md */
    .sus_eff = 0.60566,
    .burst_s = 28.4371e-3,
    .layer_s = 166.571e-6,
    .seq_s = 273.559e-6,
    .hop_s = 5.14273e-6,
    .link_eff = 0.194376,
};

#define REF_BW_GBPS 3350.0 /* the bandwidth layer_s is stated at (H100-SXM5-80GB) */
#define ACT_BYTES 2.0      /* activations cross links in bf16 whatever the weights' precision */

double perf_shape_tflops(const gpu_model *g, int dtype)
{
    switch (dtype) {
    case LLM_FP8:
        return g->fp8_tflops;
    case LLM_FP4:
        return g->fp4_tflops;
    default:
        return g->tensor_tflops;
    }
}

static double kv_elem_bytes(int dtype) { return dtype == LLM_BF16 ? 2.0 : 1.0; }

double perf_shape_weight_bytes(const perf_cfg *c)
{
    return c->llm->params_b * 1e9 * llm_dtype_bytes(c->dtype) / ((double)c->tp * c->pp);
}

double perf_shape_kv_bytes_tok(const perf_cfg *c)
{
    const llm_model *m = c->llm;
    int split = m->attn == LLM_MLA ? 1 : (c->tp < m->kv_heads ? c->tp : m->kv_heads);
    return llm_kv_bytes_per_token(m, kv_elem_bytes(c->dtype)) / ((double)split * c->pp);
}

/* Bytes of weights one GPU reads in a pass of `tokens` tokens: every dense
 * weight, and of the routed experts those the tokens touch. */
static double weights_read(const perf_cfg *c, double tokens)
{
    const llm_model *m = c->llm;
    double params = m->params_b;
    if (m->experts) {
        double expert = llm_expert_params_b(m);
        params = m->params_b - expert * m->experts + expert * llm_experts_touched(m, tokens);
    }
    return params * 1e9 * llm_dtype_bytes(c->dtype) / ((double)c->tp * c->pp);
}

/* Seconds of the link time of `bytes` crossing among `gpus` GPUs of the
 * replica (NVLink within the domain, else the host link) at k's efficiency. */
static double link_gbps(const perf_cfg *c)
{
    const gpu_model *g = c->gpu;
    if (g->nvlink_gbps > 0 && c->tp * c->pp <= g->nvlink_gpus)
        return g->nvlink_gbps / 2;
    return g->host_link_gbps_per_dir;
}

static double comm_s(const perf_cfg *c, const perf_coef *k, double tokens)
{
    const llm_model *m = c->llm;
    double link = link_gbps(c) * 1e9 * k->link_eff, act = tokens * m->hidden * ACT_BYTES, s = 0;
    if (c->tp > 1) {
        double t = c->tp, ring = 2 * (t - 1) / t * act / link + 2 * (t - 1) * k->hop_s;
        int moe_layers = m->experts && c->ep > 1 ? m->layers - m->dense_layers : 0;
        /* expert parallel: dispatch and combine, each token's k copies, (ep-1)/ep of them leave the GPU */
        double a2a = 2 * act * m->active_experts * (c->ep - 1) / c->ep / link + 2 * k->hop_s;
        s += (double)(m->layers - moe_layers) * 2 * ring + (double)moe_layers * (ring + a2a);
    }
    if (c->pp > 1)
        s += (double)(c->pp - 1) * (act / link + k->hop_s);
    return s;
}

/* Seconds of `flops` per GPU at a tensor peak of `peak` FLOP/s: flops_eff
 * of it for the first burst_s seconds, sus_eff after (the power limit). */
static double math_s(double flops, double peak, const perf_coef *k)
{
    double burst = k->burst_s * peak * k->flops_eff;
    return flops <= burst ? flops / (peak * k->flops_eff) : k->burst_s + (flops - burst) / (peak * k->sus_eff);
}

double perf_shape_iter_s(const perf_cfg *c, const perf_coef *k, double tok, double prompt_sq, double dec, double seqs,
                         double kv_tok)
{
    const llm_model *m = c->llm;
    const gpu_model *g = c->gpu;
    double gpus = (double)c->tp * c->pp, tokens = tok + dec;
    double bytes = weights_read(c, tokens) + kv_tok * perf_shape_kv_bytes_tok(c);
    double attn = 4.0 * m->layers * m->heads * m->head_dim * (prompt_sq / 2 + kv_tok);
    double flops = (2.0 * m->active_params_b * 1e9 * tokens + attn) / gpus;
    double t_mem = bytes / (g->mem_bw_gbps * 1e9 * k->bw_eff);
    double t_math = math_s(flops, perf_shape_tflops(g, c->dtype) * 1e12, k);
    double fixed = m->layers * k->layer_s * REF_BW_GBPS / g->mem_bw_gbps + seqs * k->seq_s;
    return fmax(t_mem, t_math) + comm_s(c, k, tokens) + fixed;
}

const char *perf_shape_config_error(const perf_cfg *c)
{
    if (c->tp < 1 || c->pp < 1 || c->llm->heads % c->tp)
        return "tp must divide the model's attention heads";
    if (c->pp > c->llm->layers)
        return "pp must not exceed the model's layers";
    if (c->ep != 1 && (!c->llm->experts || c->ep != c->tp))
        return "ep applies to a mixture-of-experts model and must equal tp (experts spread over the tp GPUs)";
    return NULL;
}

const char *perf_shape_refuse(const perf_cfg *c)
{
    const gpu_model *g = c->gpu;
    const char *bad = perf_shape_config_error(c);
    if (bad)
        return bad;
    if (!(g->mem_bw_gbps > 0) || !(g->tensor_tflops > 0))
        return "the card file gives no memory bandwidth or tensor throughput";
    if (c->dtype == LLM_FP8 && !(g->fp8_tflops > 0))
        return "the card has no FP8 tensor cores";
    if (c->dtype == LLM_FP4 && !(g->fp4_tflops > 0))
        return "the card has no FP4 tensor cores";
    return NULL;
}

bool perf_shape_fits(const perf_cfg *c, double reserve_tok, double mem_util, char *why, size_t n)
{
    const char *no = perf_shape_refuse(c);
    if (no) {
        snprintf(why, n, "%s", no);
        return false;
    }
    double need = perf_shape_weight_bytes(c) + reserve_tok * perf_shape_kv_bytes_tok(c);
    double have = (double)c->gpu->memory_mib * 1048576.0 * mem_util;
    if (need <= have)
        return true;
    snprintf(why, n, "needs %.1f GiB per GPU (weights %.1f + KV reserve %.0f tokens) of the %.1f GiB usable on %s",
             need / 1073741824.0, perf_shape_weight_bytes(c) / 1073741824.0, reserve_tok, have / 1073741824.0,
             c->gpu->name);
    return false;
}
