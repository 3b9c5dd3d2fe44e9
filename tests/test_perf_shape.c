/* test_perf_shape.c - the LLM catalog, the GPU files' precision and link
 * figures, the shape model against hand computations, and its fit: a refit
 * on Llama-2-70B's measured points reproduces the shipped constants, and
 * the held-out BLOOM-176B is predicted within the stated errors.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../models/perf/perf_fit.h"
#include "check.h"
#include "testutil.h"

static void load_llm(llm_catalog *lc)
{
    gs_error err = {0};
    CHECK_EQ_INT(llm_catalog_load(lc, "models/llm", &err), 0);
}

static void catalog_shapes(void)
{
    llm_catalog lc;
    load_llm(&lc);
    CHECK_EQ_INT(lc.n, 8);
    const llm_model *l2 = llm_catalog_find(&lc, "Llama-2-70B"), *ds = llm_catalog_find(&lc, "deepseek-ai/DeepSeek-V3");
    const llm_model *mx = llm_catalog_find(&lc, "mixtral-8x7b"), *l405 = llm_catalog_find(&lc, "llama-3.1-405b");
    CHECK(l2 && ds && mx && l405);
    if (!l2 || !ds || !mx || !l405) {
        llm_catalog_free(&lc);
        return;
    }
    /* 80 layers x 8 KV heads x 128 x K and V x 2 bytes = 320 KiB (the old svc_kv_kib_per_token default) */
    CHECK_NEAR(llm_kv_bytes_per_token(l2, 2), 320 * 1024, 0, 1e-9);
    /* MLA: 61 layers x (512 + 64) x 2 bytes */
    CHECK_NEAR(llm_kv_bytes_per_token(ds, 2), 61 * 576 * 2, 0, 1e-9);
    CHECK(ds->attn == LLM_MLA && ds->dtype == LLM_FP8 && ds->experts == 256 && ds->dense_layers == 3);
    /* Mixtral: 3 x 4096 x 14336 x 32 layers per expert; 8 of them inside 46.7B */
    CHECK_NEAR(llm_expert_params_b(mx), 3.0 * 4096 * 14336 * 32 / 1e9, 1e-12, 0);
    CHECK(mx->params_b - 8 * llm_expert_params_b(mx) > 1 && mx->params_b - 8 * llm_expert_params_b(mx) < 2);
    /* uniform routing: one token touches k experts, a large batch all of them */
    CHECK_NEAR(llm_experts_touched(mx, 1), 2, 1e-12, 0);
    CHECK_NEAR(llm_experts_touched(mx, 2), 8 * (1 - 0.75 * 0.75), 1e-12, 0);
    CHECK(llm_experts_touched(ds, 1e4) > 255.9);
    CHECK(l405->layers == 126 && l405->hidden == 16384 && l405->kv_heads == 8);
    CHECK(llm_dtype_parse("FP8") == LLM_FP8 && llm_dtype_parse("int4") < 0);
    llm_catalog_free(&lc);
}

static void bad_llm_file(void)
{
    static const char *const bad[][2] = {
        {"{\"name\":\"x\",\"attention\":\"gqa\",\"layers\":2,\"hidden_size\":8,\"attention_heads\":4,\"kv_heads\":3,"
         "\"head_dim\":2,\"intermediate_size\":8,\"vocab_size\":10,\"params_b\":1,\"active_params_b\":1,\"dtype\":\"bf16\"}",
         "kv_heads"},
        {"{\"name\":\"x\",\"attention\":\"gqa\",\"layers\":2,\"hidden_size\":8,\"attention_heads\":4,\"kv_heads\":2,"
         "\"head_dim\":2,\"intermediate_size\":8,\"vocab_size\":10,\"params_b\":1,\"active_params_b\":0.5,\"dtype\":\"bf16\"}",
         "active_params_b"},
        {"{\"name\":\"x\",\"attention\":\"mla\",\"layers\":2,\"hidden_size\":8,\"attention_heads\":4,\"kv_heads\":4,"
         "\"head_dim\":2,\"intermediate_size\":8,\"vocab_size\":10,\"params_b\":1,\"active_params_b\":1,\"dtype\":\"bf16\"}",
         "mla"},
        {"{\"name\":\"x\",\"attention\":\"gqa\",\"layers\":2,\"hidden_size\":8,\"attention_heads\":4,\"kv_heads\":2,"
         "\"head_dim\":2,\"intermediate_size\":8,\"vocab_size\":10,\"params_b\":1,\"active_params_b\":1,\"dtype\":\"int4\"}",
         "dtype"},
        /* a shape with no citation: the file must say where it was read */
        {"{\"name\":\"x\",\"attention\":\"gqa\",\"layers\":2,\"hidden_size\":8,\"attention_heads\":4,\"kv_heads\":2,"
         "\"head_dim\":2,\"intermediate_size\":8,\"vocab_size\":10,\"params_b\":1,\"active_params_b\":1,\"dtype\":\"bf16\","
         "\"model_card\":\"https://huggingface.co/x\"}",
         "field 'config'"},
        {"{\"name\":\"x\",\"attention\":\"gqa\",\"layers\":2,\"hidden_size\":8,\"attention_heads\":4,\"kv_heads\":2,"
         "\"head_dim\":2,\"intermediate_size\":8,\"vocab_size\":10,\"params_b\":1,\"active_params_b\":1,\"dtype\":\"bf16\","
         "\"model_card\":\"huggingface.co/x\",\"config\":\"https://huggingface.co/x/config.json\"}",
         "field 'model_card'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[600], path[700];
        snprintf(dir, sizeof dir, "%s/llm%zu", tu_tmp_dir(), i);
        CHECK(mkdir(dir, 0700) == 0);
        snprintf(path, sizeof path, "%s/X.json", dir);
        FILE *f = fopen(path, "w");
        fputs(bad[i][0], f);
        fclose(f);
        llm_catalog lc;
        gs_error err = {0};
        CHECK_EQ_INT(llm_catalog_load(&lc, dir, &err), GS_EINPUT);
        CHECK_STR_HAS(err.msg, bad[i][1]);
    }
}

static void gpu_precisions(void)
{
    const gpu_catalog *cat = tu_catalog();
    const gpu_model *h = gpu_catalog_find(cat, "H100-SXM5-80GB"), *a = gpu_catalog_find(cat, "A100-SXM4-80GB");
    const gpu_model *b = gpu_catalog_find(cat, "B200-180GB"), *l = gpu_catalog_find(cat, "L40S-48GB");
    CHECK(h && a && b && l);
    if (!h || !a || !b || !l)
        return;
    CHECK(h->fp8_tflops == 1979 && h->fp4_tflops < 0 && h->nvlink_gbps == 900 && h->nvlink_gpus == 8 && h->net_gbps == 50);
    CHECK(a->fp8_tflops < 0 && a->nvlink_gbps == 600 && a->net_gbps == 25);
    CHECK(b->fp8_tflops == 4500 && b->fp4_tflops == 9000);
    CHECK(l->fp8_tflops == 733 && l->nvlink_gpus == 1 && l->net_gbps < 0);
    /* a figure no public source confirms is marked; a datasheet's is not */
    const gpu_model *nvl = gpu_catalog_find(cat, "H100-NVL-94GB"), *gh = gpu_catalog_find(cat, "GH200-96GB");
    CHECK(nvl && gh);
    if (!nvl || !gh)
        return;
    CHECK(gpu_model_unverified(l, "fp8_tflops") && gpu_model_unverified(nvl, "fp8_tflops"));
    CHECK(gpu_model_unverified(gh, "fp8_tflops") && gpu_model_unverified(gh, "net_gbps"));
    CHECK(!gpu_model_unverified(h, "fp8_tflops") && !gpu_model_unverified(b, "fp4_tflops"));
    CHECK(!gpu_model_unverified(a, "nvlink_gbps") && !gpu_model_unverified(h, "net_gbps"));
}

static perf_cfg cfg_of(const llm_catalog *lc, const char *model, const char *card, int dtype, int tp)
{
    return (perf_cfg){llm_catalog_find(lc, model), gpu_catalog_find(tu_catalog(), card), dtype, tp, 1, 1};
}

/* A decode step by hand: Llama-2-70B, H100, TP 4, batch 8 of 1,000-token
 * contexts, every term written out from the header's formula. */
static void iteration_by_hand(void)
{
    llm_catalog lc;
    load_llm(&lc);
    perf_cfg c = cfg_of(&lc, "llama-2-70b", "H100-SXM5-80GB", LLM_BF16, 4);
    const perf_coef k = {.bw_eff = 0.8, .flops_eff = 0.7, .sus_eff = 0.5, .burst_s = 0.01, .layer_s = 100e-6,
                         .seq_s = 200e-6, .hop_s = 5e-6, .link_eff = 0.5};
    double b = 8, kv = 8 * 1000.0;
    double bytes = 68.98e9 * 2 / 4 + kv * 327680.0 / 4;
    double flops = (2 * 68.98e9 * b + 4.0 * 80 * 64 * 128 * kv) / 4;
    double core = fmax(bytes / (3350e9 * 0.8), flops / (989.4e12 * 0.7));
    double act = b * 8192 * 2, ring = 2 * 3.0 / 4 * act / (450e9 * 0.5) + 2 * 3 * 5e-6;
    double want = core + 80 * 2 * ring + 80 * 100e-6 + b * 200e-6;
    CHECK_NEAR(perf_shape_iter_s(&c, &k, 0, 0, b, b, kv), want, 1e-12, 0);
    /* a prefill past the burst: 10 ms at 0.7 of the peak, the rest at 0.5 */
    double tok = 16384, f2 = (2 * 68.98e9 * tok + 4.0 * 80 * 64 * 128 * (tok * 1024 / 2)) / 4, burst = 0.01 * 989.4e12 * 0.7;
    double math = 0.01 + (f2 - burst) / (989.4e12 * 0.5), act2 = tok * 8192 * 2;
    double want2 = math + 80 * 2 * (2 * 3.0 / 4 * act2 / (450e9 * 0.5) + 6 * 5e-6) + 80 * 100e-6 + 16 * 200e-6;
    CHECK_NEAR(perf_shape_iter_s(&c, &k, tok, 16 * 1024.0 * 1024, 0, 16, 0), want2, 1e-12, 0);
    /* past the NVLink domain the host link carries the all-reduce: slower */
    perf_cfg nvl = cfg_of(&lc, "llama-2-70b", "H100-NVL-94GB", LLM_BF16, 4);
    perf_cfg nvl2 = cfg_of(&lc, "llama-2-70b", "H100-NVL-94GB", LLM_BF16, 2);
    CHECK(perf_shape_iter_s(&nvl, &k, 0, 0, b, b, kv) > perf_shape_iter_s(&nvl2, &k, 0, 0, b, b, kv) / 2);
    llm_catalog_free(&lc);
}

static void moe_and_refusals(void)
{
    llm_catalog lc;
    load_llm(&lc);
    perf_cfg mx = cfg_of(&lc, "mixtral-8x7b", "H100-SXM5-80GB", LLM_BF16, 1);
    const perf_coef *k = &perf_shape_default;
    /* batch 1 reads 2 of 8 experts, batch 64 all of them: a decode step at batch 64 reads more */
    double t1 = perf_shape_iter_s(&mx, k, 0, 0, 1, 1, 500), t64 = perf_shape_iter_s(&mx, k, 0, 0, 64, 64, 64 * 500);
    CHECK(t64 > t1 + 64 * k->seq_s);
    CHECK(perf_shape_weight_bytes(&mx) == 46.70e9 * 2);
    perf_cfg a8 = cfg_of(&lc, "llama-3.1-70b", "A100-SXM4-80GB", LLM_FP8, 4);
    CHECK(perf_shape_refuse(&a8) && strstr(perf_shape_refuse(&a8), "FP8"));
    perf_cfg h4 = cfg_of(&lc, "llama-3.1-70b", "H100-SXM5-80GB", LLM_FP4, 4);
    CHECK(perf_shape_refuse(&h4) && strstr(perf_shape_refuse(&h4), "FP4"));
    perf_cfg ok = cfg_of(&lc, "llama-3.1-70b", "H100-SXM5-80GB", LLM_FP8, 4);
    CHECK(perf_shape_refuse(&ok) == NULL);
    ok.ep = 4;
    CHECK(perf_shape_refuse(&ok) != NULL); /* a dense model has no experts to spread */
    perf_cfg ds = cfg_of(&lc, "deepseek-v3", "H200-SXM5-141GB", LLM_FP8, 8);
    CHECK_NEAR(perf_shape_kv_bytes_tok(&ds), 61 * 576.0, 1e-12, 0); /* fp8 latent, replicated on every rank */
    llm_catalog_free(&lc);
}

/* The fit and its validation, from the shipped table: both can fail. */
static void fit_reproduces_and_validates(void)
{
    llm_catalog lc;
    load_llm(&lc);
    perf_set ps;
    gs_error err = {0};
    CHECK_EQ_INT(perf_set_load(&ps, "models/perf", tu_catalog(), &err), 0);
    perf_coef fit;
    double loss;
    int npts;
    CHECK_EQ_INT(perf_fit_run(&ps, &lc, "llama2-70b", &fit, &loss, &npts, &err), 0);
    CHECK_EQ_INT(npts, 112);
    const perf_coef *d = &perf_shape_default;
    CHECK_NEAR(fit.bw_eff, d->bw_eff, 1e-3, 0);
    CHECK_NEAR(fit.sus_eff, d->sus_eff, 1e-3, 0);
    CHECK_NEAR(fit.burst_s, d->burst_s, 1e-3, 0);
    CHECK_NEAR(fit.layer_s, d->layer_s, 1e-3, 0);
    CHECK_NEAR(fit.seq_s, d->seq_s, 1e-3, 0);
    CHECK_NEAR(fit.hop_s, d->hop_s, 1e-3, 0);
    CHECK_NEAR(fit.link_eff, d->link_eff, 1e-3, 0);
    CHECK(fit.flops_eff > 0.999);
    perf_val_row rows[128];
    int n = perf_validate(&ps, &lc, d, rows, 128), held = 0, broken = 0, miss = 0, miss_a100 = 0;
    double wd[2] = {0, 0}, wp[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        if (rows[i].excluded) {
            broken++;
            continue;
        }
        int h = strcmp(rows[i].e->profile, "llama2-70b") != 0;
        held += h;
        wd[h] = fmax(wd[h], fabs(rows[i].dec_pred_ms / rows[i].dec_meas_ms - 1));
        wp[h] = fmax(wp[h], fabs(rows[i].pre_pred_ms / rows[i].pre_meas_ms - 1));
        if (!h && fabs(rows[i].pre_pred_ms / rows[i].pre_meas_ms - 1) > 0.20) {
            miss++;
            miss_a100 += rows[i].e->tp >= 4 && strcmp(rows[i].e->model->name, "A100-SXM4-80GB") == 0;
        }
    }
    /* the README's misses: five fitted prefill points, all on A100 at TP 4 or 8 */
    CHECK_EQ_INT(miss, 5);
    CHECK_EQ_INT(miss_a100, 5);
    CHECK_EQ_INT(n, 40);
    CHECK_EQ_INT(held, 10);  /* BLOOM-176B: TP8 on both cards, 5 batches */
    CHECK_EQ_INT(broken, 2); /* Llama TP2 batch 64 on both cards */
    /* the goal on the held-out model: decode 10%, prefill 20% (models/perf/README.md) */
    CHECK(wd[1] <= 0.10);
    CHECK(wp[1] <= 0.20);
    /* the fitted model, as far as it reaches: decode 10%, prefill 33% */
    CHECK(wd[0] <= 0.101);
    CHECK(wp[0] <= 0.33);
    perf_set_free(&ps);
    llm_catalog_free(&lc);
}

const test_case tests_perf_shape[] = {
    {"llm_catalog_shapes", catalog_shapes},
    {"llm_bad_files", bad_llm_file},
    {"gpu_precision_and_links", gpu_precisions},
    {"perf_shape_iteration_by_hand", iteration_by_hand},
    {"perf_shape_moe_and_refusals", moe_and_refusals},
    {"perf_fit_reproduces_and_validates", fit_reproduces_and_validates},
    {NULL, NULL},
};
