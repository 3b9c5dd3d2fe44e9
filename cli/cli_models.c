/* cli_models.c - `gpusim models --llm` (the LLM catalog, models/llm) and
 * `gpusim models --validate` (the speed model refitted on Llama-2-70B's
 * measured times and checked on every measured profile: the table in
 * models/perf/README.md).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/llm/llm_model.h"
#include "../models/perf/perf_fit.h"
#include "cli.h"

int cli_models_llm(const char *gpu_dir)
{
    char dir[600];
    llm_catalog_dir_of(gpu_dir, dir, sizeof dir);
    llm_catalog lc;
    gs_error err = {0};
    if (llm_catalog_load(&lc, dir, &err) != 0)
        return cli_fail(&err);
    printf("%-16s %5s %4s %6s %5s %4s %5s %8s %8s %7s %-5s %s\n", "model", "attn", "lay", "hidden", "heads", "kvh", "hdim",
           "params_b", "active_b", "kv_KiB", "dtype", "experts");
    for (int i = 0; i < lc.n; i++) {
        const llm_model *m = &lc.models[i];
        static const char *const attn[] = {"mha", "gqa", "mla"};
        char ex[48] = "-";
        if (m->experts)
            snprintf(ex, sizeof ex, "%d routed, %d per token, %d shared", m->experts, m->active_experts, m->shared_experts);
        printf("%-16s %5s %4d %6d %5d %4d %5d %8.2f %8.2f %7.1f %-5s %s\n", m->name, attn[m->attn], m->layers, m->hidden,
               m->heads, m->kv_heads, m->head_dim, m->params_b, m->active_params_b,
               llm_kv_bytes_per_token(m, 2) / 1024, llm_dtype_name(m->dtype), ex);
    }
    printf("\nkv_KiB: KV cache per token over all layers in bf16; dtype: the precision the checkpoint is published "
           "in.\nA service row names one with model=NAME (workloads/README.md). Sources: each file's model_card "
           "and config.\n");
    llm_catalog_free(&lc);
    return 0;
}

static void print_coef(const perf_coef *k)
{
    printf("bw_eff %.6g flops_eff %.6g sus_eff %.6g burst_ms %.6g layer_us %.6g seq_us %.6g hop_us %.6g link_eff %.6g\n",
           k->bw_eff, k->flops_eff, k->sus_eff, k->burst_s * 1e3, k->layer_s * 1e6, k->seq_s * 1e6, k->hop_s * 1e6,
           k->link_eff);
}

static void print_row(const perf_val_row *r, const char *model)
{
    double de = r->dec_pred_ms / r->dec_meas_ms - 1, pe = r->pre_pred_ms / r->pre_meas_ms - 1;
    printf("| %s | %s | %d | %d | %.1f | %.1f | %+.0f%% | %.0f | %.0f | %+.0f%%%s |\n", model, r->e->model->name, r->e->tp,
           r->batch, r->dec_pred_ms, r->dec_meas_ms, 100 * de, r->pre_pred_ms, r->pre_meas_ms, 100 * pe,
           r->excluded ? " (left out: broken measurement)" : "");
}

/* Prints the fitted constants against the shipped ones, the table, and the
 * worst errors of the training and the held-out model. */
static void print_validation(const perf_set *ps, const llm_catalog *lc, const perf_coef *fit, double loss, int npts)
{
    const perf_coef *d = &perf_shape_default;
    printf("fit on llama2-70b (%d points, sum of squared log errors %.4f):\n  ", npts, loss);
    print_coef(fit);
    printf("shipped (models/perf/perf_shape.c):\n  ");
    print_coef(d);
    printf("\n");
    perf_val_row rows[128];
    int n = perf_validate(ps, lc, getenv("GPUSIM_FITTED") ? fit : d, rows, 128);
    printf("| model | card | TP | batch | decode ms predicted | measured | error | prefill ms predicted | measured | "
           "error |\n|---|---|---|---|---|---|---|---|---|---|\n");
    double worst[2][2] = {{0, 0}, {0, 0}}; /* [held out][decode, prefill] */
    for (int i = 0; i < n; i++) {
        const perf_val_row *r = &rows[i];
        print_row(r, r->e->profile);
        if (r->excluded)
            continue;
        int held = !gs_streq_ci(r->e->profile, "llama2-70b");
        worst[held][0] = fmax(worst[held][0], fabs(r->dec_pred_ms / r->dec_meas_ms - 1));
        worst[held][1] = fmax(worst[held][1], fabs(r->pre_pred_ms / r->pre_meas_ms - 1));
    }
    printf("\nworst error, fitted model (llama2-70b): decode %.1f%%, prefill %.1f%%; held out: decode %.1f%%, "
           "prefill %.1f%% (goal: decode 10%%, prefill 20%%)\n",
           100 * worst[0][0], 100 * worst[0][1], 100 * worst[1][0], 100 * worst[1][1]);
}

/* Public throughput figures of another serving stack, to set beside the
 * model: static batches (batch requests of `in` prompt and `out` output
 * tokens), output tokens per second of the replica. */
static const struct {
    const char *model, *card;
    int dtype, tp, batch, in, out;
    double tok_s;
} vendor[] = {
    /* NVIDIA TensorRT-LLM v0.5.0, "H200 achieves nearly 12,000 tokens/sec on Llama2-13B", table "H200 FP8 Max
     * throughput" (github.com/NVIDIA/TensorRT-LLM, release/0.5.0, docs/source/blogs/H200launch.md) */
    {"llama-2-70b", "H200-SXM5-141GB", LLM_FP8, 1, 512, 128, 128, 3014},
    {"llama-2-70b", "H200-SXM5-141GB", LLM_FP8, 4, 512, 128, 2048, 6616},
    {"llama-2-70b", "H200-SXM5-141GB", LLM_FP8, 2, 64, 2048, 128, 682},
    {"llama-2-70b", "H200-SXM5-141GB", LLM_FP8, 1, 32, 2048, 128, 303},
};

/* Output tokens per second of a static batch: one prefill of every prompt,
 * then `out` decode steps over a context that grows by one token a step. */
static double static_batch_tok_s(const perf_cfg *c, int batch, int in, int out)
{
    double b = batch, t = perf_shape_iter_s(c, &perf_shape_default, b * in, b * in * in, 0, b, 0);
    for (int i = 0; i < out; i++)
        t += perf_shape_iter_s(c, &perf_shape_default, 0, 0, b, b, b * (in + i));
    return b * out / t;
}

static void print_vendor(const gpu_catalog *cat, const llm_catalog *lc)
{
    printf("\n| model | card | dtype | TP | batch | in/out | predicted tok/s | published | ratio |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof vendor / sizeof vendor[0]; i++) {
        perf_cfg c = {llm_catalog_find(lc, vendor[i].model), gpu_catalog_find(cat, vendor[i].card), vendor[i].dtype,
                      vendor[i].tp, 1, 1};
        if (!c.llm || !c.gpu)
            continue;
        double p = static_batch_tok_s(&c, vendor[i].batch, vendor[i].in, vendor[i].out);
        printf("| %s | %s | %s | %d | %d | %d/%d | %.0f | %.0f | %.2f |\n", c.llm->name, c.gpu->name,
               llm_dtype_name(c.dtype), c.tp, vendor[i].batch, vendor[i].in, vendor[i].out, p, vendor[i].tok_s,
               p / vendor[i].tok_s);
    }
}

int cli_models_validate(const char *gpu_dir, const gpu_catalog *cat)
{
    char llm_dir[600], perf_dir[600];
    llm_catalog_dir_of(gpu_dir, llm_dir, sizeof llm_dir);
    snprintf(perf_dir, sizeof perf_dir, "%s/../perf", gpu_dir);
    llm_catalog lc;
    perf_set ps;
    gs_error err = {0};
    if (llm_catalog_load(&lc, llm_dir, &err) != 0)
        return cli_fail(&err);
    if (perf_set_load(&ps, perf_dir, cat, &err) != 0) {
        llm_catalog_free(&lc);
        return cli_fail(&err);
    }
    perf_coef fit;
    double loss;
    int npts, rc = perf_fit_run(&ps, &lc, "llama2-70b", &fit, &loss, &npts, &err);
    if (rc == 0) {
        print_validation(&ps, &lc, &fit, loss, npts);
        print_vendor(cat, &lc);
    }
    perf_set_free(&ps);
    llm_catalog_free(&lc);
    return rc ? cli_fail(&err) : 0;
}
