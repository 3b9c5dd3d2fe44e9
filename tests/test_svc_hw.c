/* test_svc_hw.c - the card decides for inference services: a service whose
 * weights fit no card is reported and never served; batching stops at the
 * KV cache that fits beside the weights; a measured profile gives the
 * card's own times; elsewhere the stated times scale by the roofline.
 * Expected figures are worked out by hand in each comment.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../models/perf/perf_profile.h"
#include "../sim/sim_module.h"
#include "check.h"
#include "testutil.h"

typedef struct lats {
    int n;
    double v[64];
} lats;

static void on_req(void *ud, const char *svc, double lat)
{
    lats *l = ud;
    (void)svc;
    if (l->n < 64)
        l->v[l->n++] = lat;
}

static const char *const base_sets[] = {"svc_pod_start_s=0", "svc_import_s=0", "svc_compile_s=0",
                                        "svc_graph_s=0", "svc_load_gbps=1e6", NULL};

static int run_pol(tu_run *r, const char *policy, const char *trace, const char *gpus, const char *const *sets,
                   lats *l)
{
    memset(r, 0, sizeof *r);
    memset(l, 0, sizeof *l);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = policy;
    r->cfg.seed = 1;
    tu_add_sets(&r->cfg, base_sets);
    tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_from_spec(&r->cl, gpus, 8, tu_catalog(), &r->err)))
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)))
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.request_done = on_req, .request_ud = l});
    if ((r->rc = sim_run(&r->s)))
        r->err = r->s.err;
    return r->rc;
}

static int run(tu_run *r, const char *trace, const char *gpus, const char *const *sets, lats *l)
{
    return run_pol(r, "whole", trace, gpus, sets, l);
}

static double report_num(tu_run *r, const char *svc_key)
{
    cJSON *rep = cJSON_CreateObject();
    for (int m = 0; m < r->s.nmod; m++)
        if (r->s.mod[m]->report)
            r->s.mod[m]->report(r->s.mst[m], &r->s, rep, SIM_REPORT_GPU);
    const cJSON *sv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
    double v = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sv, svc_key));
    cJSON_Delete(rep);
    return v;
}

/* 140 GiB of weights for a 2-card replica: on 16 GB cards no replica is
 * placed, every request is dropped as unplaceable and the report says why;
 * beside 2 H100s (2 x 81559 MiB x 0.9 = 143.4 GiB >= 140 + 4096 tokens x
 * 320 KiB = 141.25 GiB) its replica goes to the H100s and serves. */
static void unplaceable_service(void)
{
    const char *tr = "id,submit,duration,gpus,kind,weights_gib,kv_kib_per_token,replicas_min,replicas_max,service,"
                     "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                     "big,0,100,2,service,140,320,1,1,,,,10,0,0\n"
                     "r1,10,,,request,,,,,big,10,5,,,\nr2,20,,,request,,,,,big,10,5,,,\n";
    tu_run r;
    lats l;
    CHECK_EQ_INT(run(&r, tr, "T4-16GB:8", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 0); /* never served */
    CHECK_EQ_INT(report_num(&r, "dropped_unplaceable"), 2);
    CHECK_EQ_INT(report_num(&r, "served"), 0);
    cJSON *rep = cJSON_CreateObject();
    for (int m = 0; m < r.s.nmod; m++)
        if (r.s.mod[m]->report)
            r.s.mod[m]->report(r.s.mst[m], &r.s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    CHECK_STR_HAS(txt, "\"unplaceable_reason\":\"needs 141.2 GiB (weights 140.0 + KV reserve 4096 tokens x 320 KiB)");
    CHECK_STR_HAS(txt, "\"services_unplaceable\":1");
    free(txt);
    cJSON_Delete(rep);
    tu_run_free(&r);
    /* a mixed cluster: replicas go only to the cards they fit on */
    CHECK_EQ_INT(run(&r, tr, "T4-16GB:8,H100-SXM5-80GB:2", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 2);
    CHECK_EQ_INT(report_num(&r, "dropped_unplaceable"), 0);
    tu_run_free(&r);
}

/* The memory given follows the policy: 16 GiB of weights + 4096 tokens x
 * 320 KiB = 17.25 GiB. Under vgpu with gpumem 16384 MiB a replica gets 16 GiB
 * x 0.9 = 14.4 GiB: never served; with gpumem 20480 (18 GiB) it fits. Under
 * whole the same row gets the whole 80 GB card. */
static void fit_follows_the_share(void)
{
    const char *small = "id,submit,duration,gpus,gpumem,kind,weights_gib,replicas_min,replicas_max,service,"
                        "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                        "m,0,100,1,16384,service,16,1,1,,,,10,0,0\nq,10,,,,request,,,,m,10,5,,,\n";
    const char *big = "id,submit,duration,gpus,gpumem,kind,weights_gib,replicas_min,replicas_max,service,"
                      "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                      "m,0,100,1,20480,service,16,1,1,,,,10,0,0\nq,10,,,,request,,,,m,10,5,,,\n";
    tu_run r;
    lats l;
    CHECK_EQ_INT(run_pol(&r, "vgpu", small, "H100-SXM5-80GB:1", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 0);
    CHECK_EQ_INT(report_num(&r, "dropped_unplaceable"), 1);
    tu_run_free(&r);
    CHECK_EQ_INT(run_pol(&r, "vgpu", big, "H100-SXM5-80GB:1", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    tu_run_free(&r);
    CHECK_EQ_INT(run_pol(&r, "whole", small, "H100-SXM5-80GB:1", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    tu_run_free(&r);
}

/* Every space policy sizes a replica with the memory it gives (the policy
 * record's mem_per_card_mib), mps included: with replicas=4 each client of
 * an H100 (81559 MiB) is limited to 81559 / 4 = 20389 MiB. A 70B service of
 * 131.5 GiB on 4 cards gets 4 x 20389 x 0.9 = 71.7 GiB: unplaceable, with
 * the figures in its reason (under whole: 4 x 79.6 x 0.9 = 286.7 GiB,
 * served). An 8B service (16 GiB + 4096 tokens x 320 KiB = 17.25 GiB)
 * asking gpumem 30000 MiB, above the client limit, is given nothing (it
 * could only crash); asking 16384 MiB it gets the client's 20389 MiB
 * (17.9 GiB of it usable): served. */
static void mps_sizes_replicas_by_client(void)
{
    const char *big = "id,submit,duration,gpus,kind,weights_gib,replicas_min,replicas_max,service,"
                      "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                      "chat70b,0,100,4,service,131.5,1,1,,,,10,0,0\nq,10,,,request,,,,chat70b,10,5,,,\n";
    const char *over = "id,submit,duration,gpus,gpumem,kind,weights_gib,replicas_min,replicas_max,service,"
                       "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                       "chat8b,0,100,1,30000,service,16,1,1,,,,10,0,0\nq,10,,,,request,,,,chat8b,10,5,,,\n";
    const char *under = "id,submit,duration,gpus,gpumem,kind,weights_gib,replicas_min,replicas_max,service,"
                        "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                        "chat8b,0,100,1,16384,service,16,1,1,,,,10,0,0\nq,10,,,,request,,,,chat8b,10,5,,,\n";
    const char *const four[] = {"replicas=4", NULL};
    tu_run r;
    lats l;
    CHECK_EQ_INT(run_pol(&r, "mps", big, "H100-SXM5-80GB:8", four, &l), 0);
    CHECK_EQ_INT(l.n, 0);
    CHECK_EQ_INT(report_num(&r, "dropped_unplaceable"), 1);
    cJSON *rep = cJSON_CreateObject();
    for (int m = 0; m < r.s.nmod; m++)
        if (r.s.mod[m]->report)
            r.s.mod[m]->report(r.s.mst[m], &r.s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    CHECK_STR_HAS(txt, "the most any allowed card gives under mps is 71.7 GiB (H100-SXM5-80GB)");
    CHECK_STR_HAS(txt, "\"fits_on\":\"\"");
    free(txt);
    cJSON_Delete(rep);
    tu_run_free(&r);
    CHECK_EQ_INT(run_pol(&r, "whole", big, "H100-SXM5-80GB:8", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    tu_run_free(&r);
    CHECK_EQ_INT(run_pol(&r, "mps", over, "H100-SXM5-80GB:1", four, &l), 0);
    CHECK_EQ_INT(l.n, 0);
    CHECK_EQ_INT(report_num(&r, "dropped_unplaceable"), 1);
    rep = cJSON_CreateObject();
    for (int m = 0; m < r.s.nmod; m++)
        if (r.s.mod[m]->report)
            r.s.mod[m]->report(r.s.mst[m], &r.s, rep, SIM_REPORT_GPU);
    txt = cJSON_PrintUnformatted(rep);
    CHECK_STR_HAS(txt, "under mps a replica asking gpumem 30000 MiB, gpumem_pct 0, mig '' is given no memory");
    free(txt);
    cJSON_Delete(rep);
    tu_run_free(&r);
    CHECK_EQ_INT(run_pol(&r, "mps", under, "H100-SXM5-80GB:1", four, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    tu_run_free(&r);
}

/* The service row's "mig" text (NULL: none) with 16 GiB of weights and a
 * 4096 x 320 KiB KV reserve (17.25 GiB), one request; run under policy on
 * one H100 with MIG layout mig_layout (NULL: none). The requests served. */
static int served_on(const char *policy, const char *mig_layout, const char *mig, const char *gpumem, tu_run *r)
{
    char tr[512];
    snprintf(tr, sizeof tr, "id,submit,duration,gpus,gpumem,mig,kind,weights_gib,replicas_min,replicas_max,service,"
             "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
             "m,0,100,1,%s,%s,service,16,1,1,,,,10,0,0\nq,10,,,,,request,,,,m,10,5,,,\n", gpumem, mig ? mig : "");
    static const char *const zero[] = {"create_s=0", "reconcile_s=0", "destroy_s=0", NULL};
    lats l;
    memset(r, 0, sizeof *r);
    memset(&l, 0, sizeof l);
    r->cfg.trace_path = tu_write_tmp(tr);
    r->cfg.policy = policy;
    r->cfg.seed = 1;
    tu_add_sets(&r->cfg, base_sets);
    if (!strcmp(policy, "dynmig"))
        tu_add_sets(&r->cfg, zero);
    CHECK_EQ_INT(sim_cluster_from_spec(&r->cl, "H100-SXM5-80GB:1", 8, tu_catalog(), &r->err), 0);
    if (mig_layout)
        CHECK_EQ_INT(sim_cluster_set_mig(&r->cl, mig_layout, &r->err), 0);
    CHECK_EQ_INT(tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err), 0);
    sim_observe(&r->s, &(sim_observer){.request_done = on_req, .request_ud = &l});
    CHECK_EQ_INT(sim_run(&r->s), 0);
    return l.n;
}

/* The report's services object as text (caller frees). */
static char *services_text(tu_run *r)
{
    cJSON *rep = cJSON_CreateObject();
    for (int m = 0; m < r->s.nmod; m++)
        if (r->s.mod[m]->report)
            r->s.mod[m]->report(r->s.mst[m], &r->s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    cJSON_Delete(rep);
    return txt;
}

/* A MIG instance is what a replica gets under mig and dynmig: on an H100
 * a 1g.10gb instance has 9.75 GiB (x 0.9 = 8.8 GiB usable) for the 17.25
 * GiB the row needs: unplaceable, its reason naming the 8.8 GiB, fits_on
 * empty; a 3g.40gb instance (39.5 GiB) serves it. A replica asking no
 * profile on cards that all have 1g.10gb instances only is given no card
 * (no full-card instance): unplaceable too, with the policy's reason. A
 * time-slice replica shares the whole card's memory (no isolation): served;
 * asking gpumem above the card it is given nothing. */
static void mig_and_timeslice_size_replicas(void)
{
    tu_run r;
    static const struct {
        const char *policy, *layout, *mig, *gpumem;
        int served;
        const char *why;
    } cases[] = {
        {"mig", "all-1g.10gb", "1g.10gb", "", 0, "the most any allowed card gives under mig is 8.8 GiB"},
        {"dynmig", "dynamic", "1g.10gb", "", 0, "the most any allowed card gives under dynmig is 8.8 GiB"},
        {"mig", "all-3g.40gb", "3g.40gb", "", 1, NULL},
        {"dynmig", "dynamic", "3g.40gb", "", 1, NULL},
        {"mig", "all-1g.10gb", NULL, "", 0, "under mig a replica asking gpumem 0 MiB, gpumem_pct 0, mig '' is given no"},
        {"timeslice", NULL, NULL, "", 1, NULL},
        {"timeslice", NULL, NULL, "90000", 0, "under timeslice a replica asking gpumem 90000 MiB"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        CHECK_EQ_INT(served_on(cases[k].policy, cases[k].layout, cases[k].mig, cases[k].gpumem, &r), cases[k].served);
        char *txt = services_text(&r);
        if (cases[k].why) {
            CHECK_STR_HAS(txt, cases[k].why);
            CHECK_STR_HAS(txt, "\"fits_on\":\"\"");
        } else {
            CHECK_STR_HAS(txt, "\"unplaceable_reason\":null");
            CHECK_STR_HAS(txt, "\"fits_on\":\"H100-SXM5-80GB\"");
        }
        free(txt);
        tu_run_free(&r);
    }
}

/* KV-bounded batching. L4-24GB: 23034 MiB x 0.9 = 20.245 GiB; weights 16
 * GiB leave 4.245 GiB = 4347 tokens at 1 MiB per token (>= the 4096-token
 * reserve). Three requests of 1000 in + 1000 out (2000 tokens each) arrive
 * together: two fit (4000), the third waits although max_batch is 16.
 * Decode 10 ms per iteration, no prefill: the first two take 1000 x 10 ms =
 * 10 s, the third starts then: 20 s. With 48 GB (L40S) all three run at once. */
static void kv_bounded_batch(void)
{
    const char *tr = "id,submit,duration,gpus,kind,weights_gib,kv_kib_per_token,replicas_min,replicas_max,max_batch,"
                     "service,input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token,ref_gpu\n"
                     "s,0,1000,1,service,16,1024,1,1,16,,,,10,0,0,L4-24GB\n"
                     "a,100,,,request,,,,,,s,1000,1000,,,,\nb,100,,,request,,,,,,s,1000,1000,,,,\n"
                     "c,100,,,request,,,,,,s,1000,1000,,,,\n";
    tu_run r;
    lats l;
    CHECK_EQ_INT(run(&r, tr, "L4-24GB:1", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3) {
        CHECK_NEAR(l.v[0], 10, 0, 1e-3);
        CHECK_NEAR(l.v[1], 10, 0, 1e-3);
        CHECK_NEAR(l.v[2], 20, 0, 1e-3);
    }
    tu_run_free(&r);
    const char *tr3 = "id,submit,duration,gpus,kind,weights_gib,kv_kib_per_token,replicas_min,replicas_max,max_batch,"
                      "service,input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                      "s,0,1000,1,service,16,1024,1,1,16,,,,10,0,0\n"
                      "a,100,,,request,,,,,,s,1000,1000,,,\nb,100,,,request,,,,,,s,1000,1000,,,\n"
                      "c,100,,,request,,,,,,s,1000,1000,,,\n";
    CHECK_EQ_INT(run(&r, tr3, "L40S-48GB:1", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 3);
    for (int i = 0; i < l.n; i++)
        CHECK_NEAR(l.v[i], 10, 0, 1e-3);
    tu_run_free(&r);
}

/* A measured profile: Llama2-70B at TP8, one request of 512 prompt tokens
 * and 1 output token. Medians of the shipped table (every row with 512
 * batch tokens; every row of batch 1): H100 prefill 53.857976 ms + decode
 * 30.378236 ms = 84.236 ms; A100 93.016481 + 45.039327 = 138.056 ms: the
 * card's own measurements, not a scaling. */
static void measured_profile(void)
{
    const char *tr = "id,submit,duration,gpus,kind,weights_gib,replicas_min,replicas_max,profile,service,"
                     "input_tokens,output_tokens\n"
                     "llm,0,100,8,service,130,1,1,llama2-70b,,,\nq,10,,,request,,,,,llm,512,1\n";
    tu_run r;
    lats l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:8", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    CHECK_NEAR(l.v[0], 0.084236, 0, 2e-6);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, tr, "A100-SXM4-80GB:8", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    CHECK_NEAR(l.v[0], 0.138056, 0, 2e-6);
    tu_run_free(&r);
    /* interpolation between points: 768 batch tokens lie halfway between the
     * 512 and 1024 medians */
    perf_set ps;
    gs_error err;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/../perf", tu_catalog()->dir);
    CHECK_EQ_INT(perf_set_load(&ps, dir, tu_catalog(), &err), 0);
    const perf_entry *h = perf_find(&ps, "llama2-70b", gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB"), 8);
    CHECK(h != NULL);
    if (h)
        CHECK_NEAR(perf_eval(&h->prefill, 768), 65.770923, 0, 1e-5);
    perf_set_free(&ps);
    /* an unknown profile is an input error */
    const char *bad = "id,submit,duration,gpus,kind,profile\nllm,0,100,8,service,gpt-9\n";
    CHECK_EQ_INT(run(&r, bad, "H100-SXM5-80GB:8", NULL, &l), GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "no measured profile 'gpt-9'");
    tu_run_free(&r);
}

/* No profile: the stated per-token times hold on the reference card and
 * scale by the roofline elsewhere. Stated on the H100 (ref_gpu): decode 30
 * ms per iteration, prefill 0.1 ms per token; one request of 500 prompt
 * tokens and 2 output tokens: H100 50 + 30 + 30 = 110 ms. On an A100:
 * decode x (0.95 x 3350/2039 + 0.05 x 989.4/312), prefill x (0.1 x
 * 3350/2039 + 0.9 x 989.4/312). */
static void roofline_scaled_times(void)
{
    const char *tr = "id,submit,duration,gpus,kind,weights_gib,replicas_min,replicas_max,ref_gpu,service,"
                     "input_tokens,output_tokens,decode_ms_base,decode_ms_per_seq,prefill_ms_per_token\n"
                     "m,0,100,1,service,16,1,1,H100-SXM5-80GB,,,,30,0,0.1\nq,10,,,request,,,,,m,500,2,,,\n";
    tu_run r;
    lats l;
    CHECK_EQ_INT(run(&r, tr, "H100-SXM5-80GB:1", NULL, &l), 0);
    CHECK_EQ_INT(l.n, 1);
    CHECK_NEAR(l.v[0], 0.110, 0, 2e-6);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, tr, "A100-SXM4-80GB:1", NULL, &l), 0);
    double dx = 0.95 * 3350.0 / 2039 + 0.05 * 989.4 / 312, px = 0.1 * 3350.0 / 2039 + 0.9 * 989.4 / 312;
    CHECK_EQ_INT(l.n, 1);
    CHECK_NEAR(l.v[0], (50 * px + 60 * dx) / 1000, 0, 3e-6);
    tu_run_free(&r);
}

const test_case tests_svc_hw[] = {
    {"svc_hw/weights_fit_no_card_reported_never_served", unplaceable_service},
    {"svc_hw/fit_follows_the_memory_the_policy_gives", fit_follows_the_share},
    {"svc_hw/mps_sizes_a_replica_by_its_client_limit", mps_sizes_replicas_by_client},
    {"svc_hw/mig_instance_and_timeslice_replica_sizing", mig_and_timeslice_size_replicas},
    {"svc_hw/batch_bounded_by_kv_cache", kv_bounded_batch},
    {"svc_hw/measured_profile_per_card", measured_profile},
    {"svc_hw/stated_times_scaled_by_roofline", roofline_scaled_times},
    {NULL, NULL},
};
