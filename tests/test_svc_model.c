/* test_svc_model.c - services of a catalog model (model=): weights and KV
 * bytes from the shape, a precision refused on a card without it, a
 * measured profile winning over the shape, a request's timeline through a
 * shape-model replica worked out from perf_shape_iter_s, the same through
 * disaggregated pools (links, queues, busy shares, a card per pool, the
 * svc_pd parameter), pp and ep rows, the speed source of every card in the
 * report and a warning on extrapolation, and bad rows.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/perf/perf_shape.h"
#include "../sim/sim_module.h"
#include "check.h"
#include "testutil.h"

typedef struct seen {
    int n;
    double lat[8];
} seen;

static void on_req(void *ud, const char *svc, double lat)
{
    seen *l = ud;
    (void)svc;
    if (l->n < 8)
        l->lat[l->n++] = lat;
}

/* cold starts of zero: a replica serves from t = 0 */
static const char *const warm[] = {"svc_pod_start_s=0", "svc_import_s=0", "svc_compile_s=0", "svc_graph_s=0",
                                   "svc_load_gbps=1e6", NULL};

typedef struct ttft_seen {
    int n;
    double ttft_s[8];
} ttft_seen;

/* Runs trace on gpus (per_node cards a node) with the warm start and the
 * extra --set values in sets (NULL: none). */
static int run_sets(tu_run *r, const char *trace, const char *gpus, int per_node, const char *const *sets, seen *l)
{
    memset(r, 0, sizeof *r);
    memset(l, 0, sizeof *l);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = "whole";
    r->cfg.seed = 1;
    tu_add_sets(&r->cfg, warm);
    if (sets)
        tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_from_spec(&r->cl, gpus, per_node, tu_catalog(), &r->err)))
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)))
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.request_done = on_req, .request_ud = l});
    if ((r->rc = sim_run(&r->s)))
        r->err = r->s.err;
    return r->rc;
}

static int run_n(tu_run *r, const char *trace, const char *gpus, int per_node, seen *l)
{
    return run_sets(r, trace, gpus, per_node, NULL, l);
}

static int run(tu_run *r, const char *trace, const char *gpus, seen *l) { return run_n(r, trace, gpus, 8, l); }

/* The services part of the report, as text (caller frees). */
static char *services_json(tu_run *r)
{
    cJSON *rep = cJSON_CreateObject();
    for (int m = 0; m < r->s.nmod; m++)
        if (r->s.mod[m]->report)
            r->s.mod[m]->report(r->s.mst[m], &r->s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    cJSON_Delete(rep);
    return txt;
}

#define HDR "id,submit,duration,kind,model,dtype,tp,gpus,replicas_min,replicas_max,service,input_tokens,output_tokens\n"

/* Llama-3.1-8B: 8.03e9 parameters x 2 bytes = 14.957 GiB, KV 32 layers x 8
 * heads x 128 x 2 x 2 bytes = 128 KiB per token (not the 320 KiB default);
 * in fp8 half of each. */
static void memory_from_shape(void)
{
    const char *tr = HDR "a,0,100,service,llama-3.1-8b,,1,,1,1,,,\n"
                         "b,0,100,service,llama-3.1-8b,fp8,1,,1,1,,,\n";
    tu_run r;
    seen l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:2", &l), 0);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"kv_kib_per_token\":128,\"weights_gib\":14.95704");
    CHECK_STR_HAS(txt, "\"kv_kib_per_token\":64,\"weights_gib\":7.47852");
    CHECK_STR_HAS(txt, "\"model\":{\"name\":\"llama-3.1-8b\",\"dtype\":\"fp8\",\"tp\":1,\"pp\":1,\"ep\":1}");
    free(txt);
    tu_run_free(&r);
}

/* FP8 needs FP8 tensor cores: on A100s alone the service is unplaceable with
 * the reason; beside H100s its replicas go to the H100s only. */
static void fp8_refused_without_tensor_cores(void)
{
    const char *tr = HDR "c,0,100,service,llama-3.1-70b,fp8,4,,1,1,,,\nq,10,,request,,,,,,,c,100,4\n";
    tu_run r;
    seen l;
    CHECK_EQ_INT(run(&r, tr, "A100-SXM4-80GB:8", &l), 0);
    CHECK_EQ_INT(l.n, 0);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "llama-3.1-70b fp8 on every allowed card: the card has no FP8 tensor cores");
    free(txt);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, tr, "A100-SXM4-80GB:8,H100-SXM5-80GB:8", &l), 0);
    CHECK_EQ_INT(l.n, 1);
    txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"fits_on\":\"H100-SXM5-80GB\"");
    CHECK_STR_HAS(txt, "\"source\":\"extrapolated\",\"why\":\"a precision below bf16, never measured\"");
    free(txt);
    CHECK(sim_nwarnings(&r.s) == 1 && strstr(sim_warning(&r.s, 0), "service 'c' on H100-SXM5-80GB"));
    tu_run_free(&r);
}

/* Llama-2-70B in bf16 at TP 4 has a measured profile on both cards: the
 * latency of one request equals that of the same service stated with
 * profile=llama2-70b, and the report says measured. At TP 4 on L40S-class
 * cards nothing is measured: Llama-3.1-70B there is an extrapolation. */
static void measured_profile_wins(void)
{
    const char *model = HDR "m,0,100,service,llama-2-70b,,4,,1,1,,,\nq,10,,request,,,,,,,m,512,16\n";
    const char *prof = "id,submit,duration,kind,gpus,weights_gib,profile,replicas_min,replicas_max,service,"
                       "input_tokens,output_tokens\n"
                       "m,0,100,service,4,128.5,llama2-70b,1,1,,,\nq,10,,request,,,,,,m,512,16\n";
    tu_run r;
    seen a, b;
    CHECK_EQ_INT(run(&r, model, "H100-SXM5-80GB:4", &a), 0);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"speed\":[{\"gpu_model\":\"H100-SXM5-80GB\",\"source\":\"measured\"}]");
    free(txt);
    CHECK_EQ_INT(sim_nwarnings(&r.s), 0);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, prof, "H100-SXM5-80GB:4", &b), 0);
    tu_run_free(&r);
    CHECK(a.n == 1 && b.n == 1 && a.lat[0] == b.lat[0]);
    const char *l40 = HDR "x,0,100,service,llama-3.1-70b,,4,,1,1,,,\n";
    CHECK_EQ_INT(run(&r, l40, "L40S-48GB:8", &a), 0);
    txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"source\":\"extrapolated\",\"why\":\"a card no measurement of the fit covers\"");
    free(txt);
    tu_run_free(&r);
    const char *a100 = HDR "y,0,100,service,llama-3.1-70b,,8,,1,1,,,\n";
    CHECK_EQ_INT(run(&r, a100, "A100-SXM4-80GB:8", &a), 0);
    txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"speed\":[{\"gpu_model\":\"A100-SXM4-80GB\",\"source\":\"model\"}]");
    free(txt);
    tu_run_free(&r);
}

/* One request of 1000 prompt tokens and 3 output tokens at t = 10 s on a
 * warm Llama-3.1-8B replica (H100, TP 1: the shape model). Its block: the
 * first pass holds its prefill and its first token (context 1000), then 2
 * more steps timed at the block's midpoint context 1000 + 3/2; each rounded
 * to the microsecond. Latency = d1 + 2 d. */
static void timeline_by_hand(void)
{
    const char *tr = HDR "s,0,100,service,llama-3.1-8b,,1,,1,1,,,\nq,10,,request,,,,,,,s,1000,3\n";
    tu_run r;
    seen l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:1", &l), 0);
    tu_run_free(&r);
    llm_catalog lc;
    gs_error err = {0};
    CHECK_EQ_INT(llm_catalog_load(&lc, "models/llm", &err), 0);
    perf_cfg c = {llm_catalog_find(&lc, "llama-3.1-8b"), gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB"), LLM_BF16, 1, 1, 1};
    double d1 = (double)llround(1e6 * perf_shape_iter_s(&c, &perf_shape_default, 1000, 1e6, 1, 1, 1000));
    double d = (double)llround(1e6 * perf_shape_iter_s(&c, &perf_shape_default, 0, 0, 1, 1, 1000 + 1.5));
    CHECK_EQ_INT(l.n, 1);
    CHECK_NEAR(l.lat[0], (d1 + 2 * d) / 1e6, 1e-12, 1e-9);
    llm_catalog_free(&lc);
}

/* One request (1000 prompt, 3 output tokens) at t = 10 s through a
 * disaggregated Llama-3.1-8B (pd=1:1, H100, TP 1), by hand from
 * perf_shape_iter_s, each step rounded to the microsecond:
 *   prefill pass  P = iter(1000 new tokens, 1000^2, no decode, 1 sequence)
 *   KV transfer   X = 1000 tokens x 128 KiB / 450 GB/s (NVLink: both on one
 *                 node) or / 50 GB/s (network: one card per node)
 *   TTFT          P + X (the first token arrives with its KV)
 *   decode        the other 2 tokens: a block of 2 steps at context 1001,
 *                 the second at its midpoint 1002
 * and the same request aggregated (pd absent) for contrast: its TTFT is
 * one pass with prefill and the first decode token. */
static void pd_timeline_by_hand(void)
{
    const char *tr = "id,submit,duration,kind,model,tp,pd,replicas_min,replicas_max,service,input_tokens,output_tokens\n"
                     "s,0,100,service,llama-3.1-8b,1,1:1,,,,,\nq,10,,request,,,,,,s,1000,3\n";
    llm_catalog lc;
    gs_error err = {0};
    CHECK_EQ_INT(llm_catalog_load(&lc, "models/llm", &err), 0);
    perf_cfg c = {llm_catalog_find(&lc, "llama-3.1-8b"), gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB"), LLM_BF16, 1, 1, 1};
    const perf_coef *k = &perf_shape_default;
    double P = (double)llround(1e6 * perf_shape_iter_s(&c, k, 1000, 1e6, 0, 1, 0));
    double bytes = 1000 * 131072.0;
    double d1 = (double)llround(1e6 * perf_shape_iter_s(&c, k, 0, 0, 1, 1, 1001));
    double d = (double)llround(1e6 * perf_shape_iter_s(&c, k, 0, 0, 1, 1, 1002));
    for (int per_node = 8; per_node >= 1; per_node -= 7) {
        double X = (double)llround(1e6 * bytes / ((per_node == 8 ? 450 : 50) * 1e9));
        tu_run r;
        seen l;
        CHECK_EQ_INT(run_n(&r, tr, "H100-SXM5-80GB:2", per_node, &l), 0);
        CHECK_EQ_INT(l.n, 1);
        CHECK_NEAR(l.lat[0], (P + X + d1 + d) / 1e6, 1e-12, 1e-9);
        char *txt = services_json(&r);
        cJSON *rep = cJSON_Parse(txt);
        const cJSON *sv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
        const cJSON *tt = cJSON_GetObjectItemCaseSensitive(sv, "ttft_s");
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(tt, "mean")), (P + X) / 1e6, 1e-12, 1e-9);
        cJSON_Delete(rep);
        CHECK_STR_HAS(txt, per_node == 8 ? "\"kv_transfers_nvlink\":1,\"kv_transfers_network\":0"
                                         : "\"kv_transfers_nvlink\":0,\"kv_transfers_network\":1");
        CHECK_STR_HAS(txt, "\"kv_transferred_gib\":0.1220703125"); /* 1000 x 128 KiB */
        free(txt);
        tu_run_free(&r);
    }
    llm_catalog_free(&lc);
}

/* The number at "key": in text (the first), or NAN. */
static double num_after(const char *txt, const char *key)
{
    const char *p = strstr(txt, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* Two requests of 1000 prompt and 4 output tokens at t = 10 s through pd=1:1
 * with one request per batch (svc_max_batch=1), both replicas on one node:
 *   A: prefill P, KV X, decode D; latency LA = P + X + D
 *   B: waits P in the prefill queue, is prefilled by 2P, waits in the decode
 *      queue until A's decode ends at LA (a wait of LA - 2P > 0 since
 *      D > P), then its KV moves (X) and it decodes (D): LB = LA + X + D
 * so LB = 2 LA - P; each pool's busy share of its 100 s is its two passes
 * (2P, 2D), and 2 x 1000 tokens x 128 KiB of KV crossed NVLink. */
static void pd_pools_by_hand(void)
{
    const char *tr = "id,submit,duration,kind,model,tp,pd,replicas_min,replicas_max,service,input_tokens,output_tokens\n"
                     "s,0,100,service,llama-3.1-8b,1,1:1,,,,,\nq,10,,request,,,,,,s,1000,4\nr,10,,request,,,,,,s,1000,4\n";
    llm_catalog lc;
    gs_error err = {0};
    CHECK_EQ_INT(llm_catalog_load(&lc, "models/llm", &err), 0);
    perf_cfg c = {llm_catalog_find(&lc, "llama-3.1-8b"), gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB"), LLM_BF16, 1, 1, 1};
    double P = (double)llround(1e6 * perf_shape_iter_s(&c, &perf_shape_default, 1000, 1e6, 0, 1, 0)) / 1e6;
    double X = (double)llround(1e6 * 1000 * 131072.0 / 450e9) / 1e6;
    llm_catalog_free(&lc);
    static const char *const one[] = {"svc_max_batch=1", NULL};
    tu_run r;
    seen l;
    CHECK_EQ_INT(run_sets(&r, tr, "H100-SXM5-80GB:2", 8, one, &l), 0);
    CHECK_EQ_INT(l.n, 2);
    double la = fmin(l.lat[0], l.lat[1]), lb = fmax(l.lat[0], l.lat[1]), D = la - P - X;
    CHECK(D > P);
    CHECK_NEAR(lb, 2 * la - P, 1e-12, 2e-6);
    char *txt = services_json(&r);
    const char *pre = strstr(txt, "\"prefill\":"), *dec = strstr(txt, "\"decode\":");
    CHECK(pre && dec);
    if (pre && dec) {
        CHECK_NEAR(num_after(pre, "\"busy_ratio\":"), 2 * P / 100, 1e-9, 1e-6);
        CHECK_NEAR(num_after(dec, "\"busy_ratio\":"), 2 * D / 100, 1e-9, 1e-6);
        CHECK_NEAR(num_after(pre, "\"queue_peak\":"), 1, 0, 0);
        CHECK_NEAR(num_after(dec, "\"queue_peak\":"), 1, 0, 0);
        CHECK_NEAR(num_after(pre, "\"mean\":"), P, 1e-9, 1e-6);      /* prefill queue wait */
        CHECK_NEAR(num_after(dec, "\"mean\":"), la - 2 * P, 1e-9, 1e-6); /* decode queue wait */
    }
    CHECK_STR_HAS(txt, "\"kv_transferred_gib\":0.244140625,\"kv_transfers_nvlink\":2,\"kv_transfers_network\":0");
    free(txt);
    tu_run_free(&r);
}

/* Each pool on its own card (Splitwise's point): pd=1@H100:1@A100, the
 * same request as above prefilled on the H100 (P), its KV sent over the
 * network at the slower card's 25 GB/s (two pools: two nodes), decoded on
 * the A100 (d1, d at contexts 1001 and 1002 on that card). */
static void pd_pools_on_their_own_cards(void)
{
    const char *tr = "id,submit,duration,kind,model,tp,pd,replicas_min,replicas_max,service,input_tokens,output_tokens\n"
                     "s,0,100,service,llama-3.1-8b,1,1@H100-SXM5-80GB:1@A100-SXM4-80GB,,,,,\n"
                     "q,10,,request,,,,,,s,1000,3\n";
    llm_catalog lc;
    gs_error err = {0};
    CHECK_EQ_INT(llm_catalog_load(&lc, "models/llm", &err), 0);
    const llm_model *m = llm_catalog_find(&lc, "llama-3.1-8b");
    perf_cfg h = {m, gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB"), LLM_BF16, 1, 1, 1}, a = h;
    a.gpu = gpu_catalog_find(tu_catalog(), "A100-SXM4-80GB");
    const perf_coef *k = &perf_shape_default;
    double P = (double)llround(1e6 * perf_shape_iter_s(&h, k, 1000, 1e6, 0, 1, 0));
    double X = (double)llround(1e6 * 1000 * 131072.0 / 25e9);
    double d1 = (double)llround(1e6 * perf_shape_iter_s(&a, k, 0, 0, 1, 1, 1001));
    double d = (double)llround(1e6 * perf_shape_iter_s(&a, k, 0, 0, 1, 1, 1002));
    llm_catalog_free(&lc);
    tu_run r;
    seen l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:1,A100-SXM4-80GB:1", &l), 0);
    CHECK_EQ_INT(l.n, 1);
    CHECK_NEAR(l.lat[0], (P + X + d1 + d) / 1e6, 1e-12, 1e-9);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"prefill\":{\"replicas\":1,\"gpu_model\":\"H100-SXM5-80GB\"");
    CHECK_STR_HAS(txt, "\"decode\":{\"replicas\":1,\"gpu_model\":\"A100-SXM4-80GB\"");
    CHECK_STR_HAS(txt, "\"kv_transfers_nvlink\":0,\"kv_transfers_network\":1");
    free(txt);
    tu_run_free(&r);
}

/* --set svc_pd (what compare and pd_compare.sh vary) disaggregates a row
 * that says nothing of it exactly as its own pd column does; a bad value is
 * a usage error naming the parameter. */
static void pd_by_parameter(void)
{
    const char *col = "id,submit,duration,kind,model,tp,pd,replicas_min,replicas_max,service,input_tokens,output_tokens\n"
                      "s,0,100,service,llama-3.1-8b,1,1:1,,,,,\nq,10,,request,,,,,,s,1000,3\n";
    const char *row = HDR "s,0,100,service,llama-3.1-8b,,1,,1,1,,,\nq,10,,request,,,,,,,s,1000,3\n";
    static const char *const pd[] = {"svc_pd=1:1", NULL}, *const bad[] = {"svc_pd=1-1", NULL};
    tu_run r;
    seen a, b;
    CHECK_EQ_INT(run(&r, col, "H100-SXM5-80GB:2", &a), 0);
    tu_run_free(&r);
    CHECK_EQ_INT(run_sets(&r, row, "H100-SXM5-80GB:2", 8, pd, &b), 0);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"kv_transfers_nvlink\":1");
    free(txt);
    tu_run_free(&r);
    CHECK(a.n == 1 && b.n == 1 && a.lat[0] == b.lat[0]);
    CHECK_EQ_INT(run_sets(&r, row, "H100-SXM5-80GB:2", 8, bad, &b), GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "--set svc_pd='1-1': expected prefill:decode");
    tu_run_free(&r);
}

#define HDR_PP "id,submit,duration,kind,model,dtype,tp,pp,ep,replicas_min,replicas_max,service,input_tokens,output_tokens\n"

/* Pipeline and expert parallelism: Llama-3.1-405B at tp 8 x pp 2 is a
 * 16-GPU replica of 126 x 8 x 128 x 2 x 2 bytes = 504 KiB of KV per token
 * (its GPUs hold 1/16 each), placed across two 8-GPU nodes, an
 * extrapolation (PP never measured); Mixtral
 * at tp 2, ep 2 holds all 46.7B parameters (86.98 GiB) though a token reads
 * two experts, and in bf16 at tp 1 they fit no 80 GB card. */
static void pp_and_ep_rows(void)
{
    const char *tr = HDR_PP "p,0,100,service,llama-3.1-405b,,8,2,,1,1,,,\n"
                            "m,0,100,service,mixtral-8x7b,,2,,2,1,1,,,\n"
                            "u,0,100,service,mixtral-8x7b,,1,,,1,1,,,\nq,10,,request,,,,,,,,p,512,4\n";
    tu_run r;
    seen l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:32", &l), 0);
    CHECK_EQ_INT(l.n, 1);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"kv_kib_per_token\":504,");
    CHECK_STR_HAS(txt, "\"model\":{\"name\":\"llama-3.1-405b\",\"dtype\":\"bf16\",\"tp\":8,\"pp\":2,\"ep\":1}");
    CHECK_STR_HAS(txt, "\"why\":\"pipeline parallelism, never measured\"");
    CHECK_STR_HAS(txt, "\"model\":{\"name\":\"mixtral-8x7b\",\"dtype\":\"bf16\",\"tp\":2,\"pp\":1,\"ep\":2}");
    CHECK_STR_HAS(txt, "\"weights_gib\":86.9");
    CHECK_STR_HAS(txt, "\"why\":\"a mixture of experts, never measured\"");
    CHECK_STR_HAS(txt, "\"unplaceable_reason\":\"needs 87.5 GiB (weights 87.0 + KV reserve 4096 tokens x 128 KiB)");
    free(txt);
    tu_run_free(&r);
    /* 16 GPUs a replica, 8 in the cluster: never placed, and said why */
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:8", &l), 0);
    CHECK_EQ_INT(l.n, 0);
    txt = services_json(&r);
    CHECK_STR_HAS(txt, "\"unplaceable_reason\":\"a replica takes 16 GPUs; the largest allowed pool of the cluster has 8\"");
    free(txt);
    tu_run_free(&r);
}

/* A row of stated times (no model=): its reference card says "stated", any
 * other card "extrapolated" by the roofline, and its KV stays the stated
 * default (320 KiB: the row names no shape). */
static void stated_rows_say_so(void)
{
    const char *tr = "id,submit,duration,gpus,kind,weights_gib,rate,output_tokens,input_tokens\n"
                     "old,0,100,1,service,14,1,50,100\n";
    tu_run r;
    seen l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:1,A100-SXM4-80GB:1", &l), 0);
    char *txt = services_json(&r);
    CHECK_STR_HAS(txt, "{\"gpu_model\":\"H100-SXM5-80GB\",\"source\":\"stated\"}");
    CHECK_STR_HAS(txt, "{\"gpu_model\":\"A100-SXM4-80GB\",\"source\":\"extrapolated\",\"why\":\"the row's times are "
                       "scaled from its reference card by the roofline\"}");
    CHECK_STR_HAS(txt, "\"kv_kib_per_token\":320,");
    free(txt);
    tu_run_free(&r);
}

/* Generated traffic waits out the cold start (svc_warmup_s=cold): an 8B
 * replica starts in 5 + 10 + 14.957 GiB x 1.0737 / 2 GB/s + 20 + 10 =
 * 53.03 s, so no request comes before it is ready and nothing is warned;
 * with no warm-up the first requests meet a replica still starting, counted
 * and warned about (the figure is the start-up's, not capacity's). */
static void warmup_waits_out_the_cold_start(void)
{
    const char *tr = "id,submit,duration,kind,model,rate,input_tokens,output_tokens\n"
                     "g,0,300,service,llama-3.1-8b,2,100,10\n";
    for (int none = 0; none <= 1; none++) {
        tu_run r;
        memset(&r, 0, sizeof r);
        r.cfg.trace_path = tu_write_tmp(tr);
        r.cfg.policy = "whole";
        r.cfg.seed = 1;
        const char *const sets[] = {"svc_warmup_s=0", NULL};
        if (none)
            tu_add_sets(&r.cfg, sets);
        CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:1", 8, tu_catalog(), &r.err), 0);
        CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
        CHECK_EQ_INT(sim_run(&r.s), 0);
        char *txt = services_json(&r);
        if (!none) {
            CHECK_STR_HAS(txt, "\"warmup_s\":53.03");
            CHECK_STR_HAS(txt, "\"arrived_before_ready\":0");
            CHECK_EQ_INT(sim_nwarnings(&r.s), 1); /* the speed extrapolation (TP 1), nothing about start-up */
        } else {
            CHECK(!strstr(txt, "\"arrived_before_ready\":0,"));
            CHECK(sim_nwarnings(&r.s) == 2 && strstr(sim_warning(&r.s, 1), "arrived before its first replica was ready"));
        }
        free(txt);
        tu_run_free(&r);
    }
}

static void bad_rows(void)
{
    static const char *const cases[][2] = {
        {HDR "a,0,100,service,llama-9,,1,,1,1,,,\n", "line 2, column 5 ('model'): expected a catalog model ("},
        {HDR "a,0,100,service,llama-3.1-70b,,2,4,1,1,,,\n", "gpus 4 per replica, but tp 2 x pp 1 = 2"},
        {HDR "a,0,100,service,llama-3.1-70b,,3,,1,1,,,\n", "tp must divide the model's attention heads"},
        {HDR "a,0,100,job,llama-3.1-70b,,,1,,,,,\n", "column 5 ('model'): only service rows say how a model is served"},
        {"id,submit,duration,kind,model,pd\na,0,100,service,llama-3.1-8b,2-6\n", "column 6 ('pd'): expected prefill:decode"},
        {HDR_PP "a,0,100,service,llama-3.1-70b,,2,,2,1,1,,,\n", "ep applies to a mixture-of-experts model"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r;
        seen l;
        CHECK_EQ_INT(run(&r, cases[i][0], "H100-SXM5-80GB:8", &l), GS_EINPUT);
        CHECK_STR_HAS(r.err.msg, cases[i][1]);
        tu_run_free(&r);
    }
}

const test_case tests_svc_model[] = {
    {"svc_model_memory_from_shape", memory_from_shape},
    {"svc_model_fp8_refused_without_tensor_cores", fp8_refused_without_tensor_cores},
    {"svc_model_measured_profile_wins", measured_profile_wins},
    {"svc_model_timeline_by_hand", timeline_by_hand},
    {"svc_model_pd_timeline_by_hand", pd_timeline_by_hand},
    {"svc_model_pd_pools_by_hand", pd_pools_by_hand},
    {"svc_model_pd_by_parameter", pd_by_parameter},
    {"svc_model_pd_pools_on_their_own_cards", pd_pools_on_their_own_cards},
    {"svc_model_pp_and_ep_rows", pp_and_ep_rows},
    {"svc_model_stated_rows_say_so", stated_rows_say_so},
    {"svc_model_warmup_waits_out_the_cold_start", warmup_waits_out_the_cold_start},
    {"svc_model_bad_rows", bad_rows},
    {NULL, NULL},
};
