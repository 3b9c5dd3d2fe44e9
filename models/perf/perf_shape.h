/* perf_shape.h - LLM serving speed from the model's shape: the time of one
 * forward pass (an iteration of continuous batching) of a catalog model
 * (models/llm) on a card (models/gpu) in a precision, tensor-parallel (tp)
 * over tp GPUs, pipeline-parallel over pp stages, experts spread over ep.
 *
 * One iteration holds `tok` new prompt tokens (prefill) and `dec` decode
 * tokens (one per sequence decoding), `seqs` sequences in all, which read
 * `kv_tok` tokens of KV cache. With tokens = tok + dec, per GPU:
 *   bytes  = weights read (dense part + the experts the pass's tokens touch,
 *            llm_experts_touched) + kv_tok x KV bytes per token, over tp x pp
 *            (GQA/MHA heads split over tp up to the KV heads; an MLA latent
 *            is replicated on every tp rank)
 *   flops  = 2 x active params x tokens + attention
 *            (4 x layers x heads x head_dim x (prompt_sq / 2 + kv_tok)), over tp x pp
 *   core   = max(bytes / (bandwidth x bw_eff), math), math the flops at the
 *            card's TFLOPS(dtype) x flops_eff for burst_s seconds, x sus_eff
 *            after (sustained tensor work meets the power limit; Splitwise
 *            measures prefill at the card's power cap)
 *   comm   = per layer 2 all-reduces of tokens x hidden x 2 bytes (ring:
 *            2(tp-1)/tp of it over the link at link_eff, plus 2(tp-1) steps of
 *            hop_s); with ep > 1 the MoE layers' all-to-all instead; pp - 1
 *            stage hand-offs of the same activations
 *   fixed  = layers x layer_s x (H100 bandwidth / this card's) + seqs x seq_s
 *   time   = core + comm + fixed
 * The max in core: within a kernel the weight stream and the math overlap,
 * so the slower bounds it (a decode step is bandwidth-bound, a long prefill
 * compute-bound); comm and the fixed costs do not overlap with it in
 * tensor-parallel serving (each all-reduce waits for its layer, each launch
 * precedes its kernel). The link is NVLink (half of nvlink_gbps each way)
 * when tp x pp GPUs fit in the card's NVLink domain, else the host link.
 * The per-layer fixed cost scales with the card's memory bandwidth because
 * the two measured cards' fitted costs stand in that ratio
 * (models/perf/README.md). Constant time per call.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_PERF_SHAPE_H
#define GPUSIM_PERF_SHAPE_H

#include "../gpu/gpu_model.h"
#include "../llm/llm_model.h"

/* The fitted constants (perf_fit.h refits them; perf_shape_default holds the
 * shipped fit). */
typedef struct perf_coef {
    double bw_eff;    /* share of the datasheet memory bandwidth reads reach */
    double flops_eff; /* share of the datasheet tensor peak matmuls reach in a short pass */
    double sus_eff;   /* ... and past burst_s seconds of tensor work, once the power limit binds */
    double burst_s;
    double layer_s;   /* per layer and iteration on a 3,350 GB/s card: launches, small kernels */
    double seq_s;     /* per sequence and iteration: scheduling, sampling */
    double hop_s;     /* one step of a ring all-reduce: link latency */
    double link_eff;  /* share of the link bandwidth an all-reduce reaches */
} perf_coef;
#define PERF_NCOEF 8

extern const perf_coef perf_shape_default;

/* A replica's configuration on one card model. */
typedef struct perf_cfg {
    const llm_model *llm;
    const gpu_model *gpu;
    int dtype; /* enum llm_dtype of the weights; the KV cache is 2 bytes (bf16), 1 under fp8 and fp4 */
    int tp, pp, ep;
} perf_cfg;

/* Seconds of one iteration (see the header comment); prompt_sq: the sum of
 * the squares of the new prompts' lengths (their self-attention). */
double perf_shape_iter_s(const perf_cfg *c, const perf_coef *k, double tok, double prompt_sq, double dec, double seqs,
                         double kv_tok);
/* The dense tensor TFLOPS of the card in dtype, < 0 when it has none. */
double perf_shape_tflops(const gpu_model *g, int dtype);
/* Bytes of weights one GPU holds (every expert), and the KV-cache bytes one
 * token takes on one GPU. */
double perf_shape_weight_bytes(const perf_cfg *c);
double perf_shape_kv_bytes_tok(const perf_cfg *c);
/* Why the configuration is impossible whatever the card, or NULL: tp does
 * not divide the attention heads, pp exceeds the layers, ep is set on a
 * dense model or differs from tp. Static text. */
const char *perf_shape_config_error(const perf_cfg *c);
/* Why c cannot run on its card, or NULL: perf_shape_config_error, or the
 * card lacks dtype's tensor cores or a speed figure. Static text. */
const char *perf_shape_refuse(const perf_cfg *c);

/* Whether a replica of c holds its weights and a KV reserve of reserve_tok
 * tokens in mem_util of its cards' whole memory (per GPU: weights / (tp x
 * pp) + reserve x KV bytes per token <= memory x mem_util); false with the
 * reason (perf_shape_refuse's, or "needs X GiB per GPU of Y") in why. */
bool perf_shape_fits(const perf_cfg *c, double reserve_tok, double mem_util, char *why, size_t n);

#endif
