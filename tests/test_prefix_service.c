/* test_prefix_service.c - the prefix cache inside the service layer: three
 * requests sharing blocks, with hits and TTFTs computed by hand (with and
 * without prefix_cache), and cache-aware routing against least-loaded.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/service/svc.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

typedef struct lats {
    double v[16];
    int n;
} lats;

static void on_req(void *ud, const char *svc, double lat)
{
    lats *l = ud;
    (void)svc;
    if (l->n < 16)
        l->v[l->n++] = lat;
}

/* Runs trace on one 8-GPU H100 node with no cold start but the weight load;
 * the service report of the run in *rep (caller frees). */
static int run2(tu_run *r, const char *trace, const char *pc, const char *more, lats *l, cJSON **rep)
{
    const char *sets[] = {"svc_pod_start_s=0", "svc_import_s=0", "svc_compile_s=0", "svc_graph_s=0", pc, more, NULL};
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = "whole";
    tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_from_spec(&r->cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &r->err)))
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)))
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.request_done = on_req, .request_ud = l});
    if ((r->rc = sim_run(&r->s)))
        r->err = r->s.err;
    *rep = sim_report_build(&r->s, 0, 0);
    return r->rc;
}

static int run(tu_run *r, const char *trace, const char *pc, lats *l, cJSON **rep)
{
    return run2(r, trace, pc, NULL, l, rep);
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* One replica; prefill 1 ms/token, an iteration 10 ms; output 1 token, so a
 * request's latency is its TTFT. KV memory: gpumem 10 GiB x 0.9 - 5 GiB of
 * weights = 4 GiB; a block is 512 tokens x 2048 KiB = 1 GiB: 4 blocks.
 *   r1 @100 s, 1024 tokens, blocks 1 2:   no hit;  prefill 1024 -> TTFT 1.034 s; cache (MRU first) 1 2
 *   r2 @200 s, 1500 tokens, blocks 1 2 3: hits 2;  prefill  476 -> TTFT 0.486 s; cache 1 2 3
 *   r3 @300 s, 1100 tokens, blocks 1 9 10: hit 1;  prefill  588 -> TTFT 0.598 s; 10 then 9 go in, 9
 *      evicting the LRU block 3: cache 1 9 10 2, 1 eviction.
 * Blocks 8, hits 3; tokens 3624, saved 1536. Without the cache every
 * request prefills all its tokens: 1.034, 1.510, 1.110 s. */
static void three_requests_by_hand(void)
{
    const char *trace =
        "id,submit,gpus,gpumem,kind,service,input_tokens,output_tokens,max_batch,replicas_min,replicas_max,"
        "decode_ms_base,decode_ms_per_seq,prefill_ms_per_token,weights_gib,kv_kib_per_token,hash_ids\n"
        "m,0,1,10240,service,,,,4,1,1,10,0,1,5,2048,\n"
        "r1,100,,,request,m,1024,1,,,,,,,,,1|2\n"
        "r2,200,,,request,m,1500,1,,,,,,,,,1|2|3\n"
        "r3,300,,,request,m,1100,1,,,,,,,,,1|9|10\n";
    static const double on[3] = {1.034, 0.486, 0.598}, off[3] = {1.034, 1.510, 1.110};
    for (int k = 0; k < 2; k++) {
        tu_run r;
        lats l = {0};
        cJSON *rep = NULL;
        CHECK_EQ_INT(run(&r, trace, k ? "prefix_cache=off" : "prefix_cache=on", &l, &rep), 0);
        CHECK_EQ_INT(l.n, 3);
        for (int i = 0; i < 3 && i < l.n; i++)
            CHECK_NEAR(l.v[i], k ? off[i] : on[i], 0, 1e-9);
        const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
        CHECK_NEAR(num(v, "prefix_cache", "capacity_blocks_per_replica"), 4, 0, 0);
        CHECK_NEAR(num(v, "prefix_cache", "blocks"), 8, 0, 0);
        CHECK_NEAR(num(v, "prefix_cache", "hit_blocks"), k ? 0 : 3, 0, 0);
        CHECK_NEAR(num(v, "prefix_cache", "block_hit_rate"), k ? 0 : 3.0 / 8, 0, 1e-12);
        CHECK_NEAR(num(v, "prefix_cache", "prompt_tokens"), 3624, 0, 0);
        CHECK_NEAR(num(v, "prefix_cache", "prefill_tokens_saved"), k ? 0 : 1536, 0, 0);
        CHECK_NEAR(num(v, "prefix_cache", "evictions"), k ? 0 : 1, 0, 0);
        CHECK_NEAR(num(v, "ttft_s", "mean"), k ? (1.034 + 1.510 + 1.110) / 3 : (1.034 + 0.486 + 0.598) / 3, 0, 1e-9);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* Two replicas, capacity ample. A (blocks 1 2, 100 output tokens: busy for
 * ~2 s) goes to replica 0; B (blocks 5 6) arrives while A runs: least-loaded
 * sends it to replica 1. C (blocks 5 6 7) arrives with both idle: the
 * cache-aware router sends it to replica 1, which holds 5 6 (hits 2,
 * prefill 512 -> TTFT 0.522 s); least-loaded alone would pick replica 0 (the
 * first of two idle ones) and prefill all 1536 tokens (1.546 s): as it does
 * when prefix_route_share is 0.9 (2 of 3 blocks is 0.67, not more). */
static void routing_follows_the_prefix(void)
{
    const char *trace =
        "id,submit,gpus,kind,service,input_tokens,output_tokens,max_batch,replicas_min,replicas_max,"
        "decode_ms_base,decode_ms_per_seq,prefill_ms_per_token,weights_gib,hash_ids\n"
        "m,0,1,service,,,,4,2,2,10,0,1,5,\n"
        "A,100,,request,m,1024,100,,,,,,,,1|2\n"
        "B,100.5,,request,m,1024,1,,,,,,,,5|6\n"
        "C,200,,request,m,1536,1,,,,,,,,5|6|7\n";
    tu_run r;
    lats l = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run(&r, trace, "prefix_cache=on", &l, &rep), 0);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3)
        CHECK_NEAR(l.v[2], 0.522, 0, 1e-9); /* C, served last */
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
    CHECK_NEAR(num(v, "prefix_cache", "hit_blocks"), 2, 0, 0);
    CHECK_NEAR(num(v, "prefix_cache", "requests_with_hits"), 1, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
    lats l2 = {0};
    CHECK_EQ_INT(run2(&r, trace, "prefix_cache=on", "prefix_route_share=0.9", &l2, &rep), 0);
    CHECK_EQ_INT(l2.n, 3);
    if (l2.n == 3)
        CHECK_NEAR(l2.v[2], 1.546, 0, 1e-9);
    v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
    CHECK_NEAR(num(v, "prefix_cache", "hit_blocks"), 0, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Token SLOs: TTFT 1.034 / 0.486 / 0.598 s against 0.6 s -> 2 of 3; TPOT
 * with 1 output token is 0 (met): both = 2 of 3; slo_attainment is "both". */
static void token_slo_attainment(void)
{
    const char *trace =
        "id,submit,gpus,gpumem,kind,service,input_tokens,output_tokens,max_batch,replicas_min,replicas_max,"
        "decode_ms_base,decode_ms_per_seq,prefill_ms_per_token,weights_gib,kv_kib_per_token,slo_ttft_ms,slo_tpot_ms,"
        "hash_ids\n"
        "m,0,1,10240,service,,,,4,1,1,10,0,1,5,2048,600,5,\n"
        "r1,100,,,request,m,1024,1,,,,,,,,,,,1|2\n"
        "r2,200,,,request,m,1500,1,,,,,,,,,,,1|2|3\n"
        "r3,300,,,request,m,1100,3,,,,,,,,,,,1|9|10\n";
    /* r3: 3 tokens, iterations of 10 ms: TPOT 10 ms > 5 -> misses TPOT, meets TTFT */
    tu_run r;
    lats l = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run(&r, trace, "prefix_cache=on", &l, &rep), 0);
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
    CHECK_NEAR(num(v, "slo_attainment_ttft", NULL), 2.0 / 3, 0, 1e-12);
    CHECK_NEAR(num(v, "slo_attainment_tpot", NULL), 2.0 / 3, 0, 1e-12);
    CHECK_NEAR(num(v, "slo_attainment_both", NULL), 1.0 / 3, 0, 1e-12);
    CHECK_NEAR(num(v, "slo_attainment", NULL), 1.0 / 3, 0, 1e-12);
    CHECK(!cJSON_GetObjectItemCaseSensitive(v, "slo_ms"));
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A replica kept busy (a request every second, each decoding 200 tokens at
 * 10 ms: 2 s, so one or two always in the batch of 16, TTFT 20 ms) for 10
 * minutes, under the threshold rule: with only an end-to-end SLO it scales out
 * on busy time (> 0.85);
 * with token SLOs it stays at one replica (TTFT far below 1 s, slots at most
 * 2 of 16). */
static void token_slo_scales_on_ttft_not_busy_time(void)
{
    char trace[40000];
    for (int k = 0; k < 2; k++) {
        int n = snprintf(trace, sizeof trace,
                         "id,submit,gpus,kind,service,input_tokens,output_tokens,max_batch,replicas_min,replicas_max,"
                         "decode_ms_base,decode_ms_per_seq,prefill_ms_per_token,weights_gib,slo_ms,slo_ttft_ms,"
                         "slo_tpot_ms\nm,0,1,service,,,,16,1,2,10,0,0.01,0,%s\n",
                         k ? ",1000,100" : "100000,,");
        for (int i = 0; i < 600; i++)
            n += snprintf(trace + n, sizeof trace - (size_t)n, "r%d,%d,,request,m,1000,200,,,,,,,,,,\n", i, 10 + i);
        tu_run r;
        lats l = {0};
        cJSON *rep = NULL;
        CHECK_EQ_INT(run2(&r, trace, "prefix_cache=on", "svc_autoscaler=threshold", &l, &rep), 0); /* its rule */
        const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
        CHECK_NEAR(num(v, "served", NULL), 600, 0, 0);
        CHECK_NEAR(num(v, "replicas", "scale_outs"), k ? 1 : 2, 0, 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

const test_case tests_prefix_service[] = {
    {"prefix_service_token_slo_scales_on_ttft_not_busy_time", token_slo_scales_on_ttft_not_busy_time},
    {"prefix_service_three_requests_by_hand", three_requests_by_hand},
    {"prefix_service_routing_follows_the_prefix", routing_follows_the_prefix},
    {"prefix_service_token_slo_attainment", token_slo_attainment},
    {NULL, NULL},
};
