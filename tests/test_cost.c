/* test_cost.c - costs that mean what they say: each job, session and
 * replica pays for the cards it held, idle capacity is its own line
 * (sim/sim_cost.h).
 *
 * By hand: two whole-card jobs and a session on two cards (GPU-seconds and
 * dollars of each holder and of idle), and two tenants of one shared card
 * under vgpu (each charged its marginal allocation under HAMi's
 * max(count, memory, cores) rule). Then on the example traces under every
 * space policy and two time policies: the holders always sum to the
 * report's gpu.gpu_hours and, with idle, to the capacity; no holder is
 * negative; under whole cards a service's line equals its own replica
 * GPU-hours; the month figures are the span's scaled by 730 h / span.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "../sim/sim_cost.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

#define H100_USD 6.88 /* models/gpu/H100-SXM5-80GB.json's list price */

static cJSON *run_text(const char *trace, const char *gpus, int per_node, const char *policy, const char *const *sets)
{
    tu_run r;
    cJSON *rep = NULL;
    if (tu_run_trace(&r, tu_write_tmp(trace), gpus, per_node, policy, sets, NULL, NULL) == 0)
        rep = sim_report_build(&r.s, 0, 0);
    else
        fprintf(stderr, "    run: %s\n", r.err.msg);
    tu_run_free(&r);
    return rep;
}

/* The holder (kind, name)'s member, NAN when absent. */
static double holder(const cJSON *rep, const char *kind, const char *name, const char *key)
{
    const cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "holders"))
    {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "kind")), kind) &&
            !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "name")), name)) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, key);
            return cJSON_IsNumber(v) ? v->valuedouble : NAN;
        }
    }
    return NAN;
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* a: 1 card 0..100 s; b: 2 cards 100..150 s (waits for a); s: a session of
 * 1 card 0..50 s. Capacity 2 x 150 s = 300 GPU-s: jobs 100 + 100, agents
 * 50, idle 50. */
static void whole_by_hand(void)
{
    cJSON *rep = run_text("id,submit,duration,gpus,kind\na,0,100,1,job\nb,0,50,2,job\ns,0,50,1,session\n",
                          "H100-SXM5-80GB:2", 2, "whole", NULL);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(num(rep, "cost", "span_s"), 150, 0, 1e-9);
    CHECK_NEAR(holder(rep, "jobs", "", "gpu_hours"), 200.0 / 3600, 1e-12, 0);
    CHECK_NEAR(holder(rep, "agents", "", "gpu_hours"), 50.0 / 3600, 1e-12, 0);
    CHECK_NEAR(holder(rep, "idle", "", "gpu_hours"), 50.0 / 3600, 1e-9, 1e-12);
    CHECK_NEAR(holder(rep, "jobs", "", "usd"), 200.0 / 3600 * H100_USD, 1e-12, 0);
    CHECK_NEAR(holder(rep, "idle", "", "share"), 50.0 / 300, 1e-9, 0);
    CHECK_NEAR(holder(rep, "jobs", "", "per_completed_job_usd"), 200.0 / 3600 * H100_USD / 2, 1e-12, 0);
    CHECK_NEAR(holder(rep, "agents", "", "per_completed_session_usd"), 50.0 / 3600 * H100_USD, 1e-12, 0);
    /* the month: the span's cost x 730 h / span */
    CHECK_NEAR(num(rep, "cost", "month_scale"), 730.0 / (150.0 / 3600), 1e-12, 0);
    CHECK_NEAR(holder(rep, "jobs", "", "usd_per_month"), 200.0 / 3600 * H100_USD * 730 / (150.0 / 3600), 1e-12, 0);
    CHECK_NEAR(num(rep, "cost", "cluster_usd"), 2 * H100_USD * 150 / 3600, 1e-12, 0);
    CHECK_NEAR(num(rep, "cost", "cluster_usd_per_month"), 2 * H100_USD * 730, 1e-12, 0);
    cJSON_Delete(rep);
}

/* Holders by name (the hash index): numbered in their order of first use
 * after the fixed two, found again under the same number however many
 * there are, and the kind and the name kept apart ("ab", "c" is not "a",
 * "bc"). */
static void holders_by_name(void)
{
    sim_cost c;
    sim_cost_init(&c, 2);
    CHECK_EQ_INT(sim_cost_holder_of(&c, "jobs", ""), SIM_COST_JOBS);
    CHECK_EQ_INT(sim_cost_holder_of(&c, "agents", ""), SIM_COST_AGENTS);
    char name[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "model-%05d", i);
        CHECK_EQ_INT(sim_cost_holder_of(&c, "service", name), 2 + i);
    }
    for (int i = 2999; i >= 0; i -= 7) {
        snprintf(name, sizeof name, "model-%05d", i);
        CHECK_EQ_INT(sim_cost_holder_of(&c, "service", name), 2 + i);
    }
    CHECK_EQ_INT(sim_cost_holder_of(&c, "task", "model-00005"), 3002);
    CHECK_EQ_INT(sim_cost_holder_of(&c, "ab", "c"), 3003);
    CHECK_EQ_INT(sim_cost_holder_of(&c, "a", "bc"), 3004);
    CHECK_EQ_INT(sim_cost_holder_of(&c, "ab", "c"), 3003);
    CHECK_EQ_INT(c.nh, 3005);
    sim_cost_free(&c);
}

/* Each service's holder gets its own service's cost per million requests
 * served (usd / served x 1e6), the services listed in another order than
 * their ids sort in. */
static void per_million_by_service(void)
{
    cJSON *rep = run_text("id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,rate,svc_mean_ms\n"
                          "zeta,0,600,1,service,1,1,1,4,50\nalpha,0,600,1,service,1,1,1,1,50\n"
                          "mid,0,600,1,service,1,1,1,2,50\n",
                          "H100-SXM5-80GB:8", 8, "whole", NULL);
    CHECK(rep != NULL);
    if (!rep)
        return;
    int seen = 0;
    const cJSON *sv;
    cJSON_ArrayForEach(sv, cJSON_GetObjectItemCaseSensitive(rep, "services"))
    {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id"));
        const cJSON *served = cJSON_GetObjectItemCaseSensitive(sv, "served");
        if (!id || !cJSON_IsNumber(served) || served->valuedouble <= 0)
            continue;
        double want = holder(rep, "service", id, "usd") / served->valuedouble * 1e6;
        CHECK_NEAR(holder(rep, "service", id, "per_million_requests_usd"), want, 1e-12, 0);
        seen++;
    }
    CHECK_EQ_INT(seen, 3);
    cJSON_Delete(rep);
}

/* When each job ended (the observer), by its id's first letter. */
static double ends_s[128], starts_s[128];
static void on_done(void *ud, const job *j)
{
    const tu_run *r = ud;
    unsigned char c = (unsigned char)j->req.id[0];
    ends_s[c & 127] = gs_us_to_s(sim_now(&r->s));
    starts_s[c & 127] = gs_us_to_s(j->start_us);
}

/* vgpu (HAMi: a card's allocation is max(tenants / split_count, memory,
 * cores)): a job asking 40% of the memory and 30% of the cores joins at 0
 * (the card goes 0 -> 0.4: it pays 0.4), a session asking the same at 10 s
 * (0.4 -> 0.8: it pays 0.4); each pays 0.4 for as long as it ran (its end
 * as observed: co-tenants share the card's time). */
static void shared_marginal(void)
{
    static const char *const sets[] = {"split_count=10", NULL};
    tu_run r;
    cJSON *rep = NULL;
    memset(ends_s, 0, sizeof ends_s);
    if (tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,gpucores,gpumem_pct,util,kind\n"
                                      "a,0,110,1,30,40,0.3,job\ns,10,50,1,30,40,0.3,session\n"),
                     "H100-SXM5-80GB:1", 1, "vgpu", sets, on_done, &r) == 0)
        rep = sim_report_build(&r.s, 0, 0);
    tu_run_free(&r);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK(ends_s['a'] >= 110 && ends_s['s'] >= 60);
    /* each tenant's share: 40% of the card's memory in whole MiB (a hair under 0.4) */
    double ta = ends_s['a'] - starts_s['a'], ts = ends_s['s'] - starts_s['s'];
    double share = num(rep, "gpu", "gpu_hours") * 3600 / (ta + ts);
    CHECK_NEAR(share, 0.4, 1e-4, 0);
    CHECK_NEAR(holder(rep, "jobs", "", "gpu_hours") * 3600, share * ta, 1e-9, 1e-9);
    CHECK_NEAR(holder(rep, "agents", "", "gpu_hours") * 3600, share * ts, 1e-9, 1e-9);
    cJSON_Delete(rep);
}

/* The books balance on the examples under each policy. */
static void balances(const char *trace, const char *policy, const char *cluster)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = trace;
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    cJSON *rep = NULL;
    if ((r.rc = sim_cluster_load(&r.cl, cluster, tu_catalog(), &r.err)) == 0 &&
        (r.rc = tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err)) == 0 && (r.rc = sim_run(&r.s)) == 0)
        rep = sim_report_build(&r.s, 0, 0);
    tu_run_free(&r);
    CHECK(rep != NULL);
    if (!rep) {
        fprintf(stderr, "    %s under %s: %s\n", trace, policy, r.err.msg);
        return;
    }
    double held = 0, all = 0, lowest = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "holders"))
    {
        double g = cJSON_GetObjectItemCaseSensitive(h, "gpu_hours")->valuedouble;
        all += g;
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "kind")), "idle") != 0)
            held += g;
        lowest = fmin(lowest, g);
        /* under whole cards a service pays exactly its replicas' GPU-hours */
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "name"));
        const cJSON *sv;
        if (!strcmp(policy, "whole") && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "kind")),
                                                "service"))
            cJSON_ArrayForEach(sv, cJSON_GetObjectItemCaseSensitive(rep, "services"))
                if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id")), name))
                    CHECK_NEAR(g, cJSON_GetObjectItemCaseSensitive(sv, "gpu_hours")->valuedouble, 1e-9, 1e-9);
    }
    CHECK_NEAR(held, num(rep, "gpu", "gpu_hours"), 1e-9, 1e-9);
    CHECK_NEAR(all, num(rep, "gpu", "capacity_gpu_hours"), 1e-9, 1e-9);
    CHECK(lowest > -1e-9);
    if (fabs(held - num(rep, "gpu", "gpu_hours")) > 1e-9 * held + 1e-9 || lowest <= -1e-9)
        fprintf(stderr, "    %s under %s: held %.9g of %.9g, lowest %.3g\n", trace, policy, held,
                num(rep, "gpu", "gpu_hours"), lowest);
    cJSON_Delete(rep);
}

#define EX "workloads/examples/"
static void examples_balance(void)
{
    static const char *const spaces[] = {"whole", "vgpu", "timeslice", "mps", "mig", "dynmig", NULL};
    for (int i = 0; spaces[i]; i++) {
        balances(EX "day.csv", spaces[i], EX "cluster-mig.json");
        balances(EX "inference.csv", spaces[i], EX "cluster.json");
    }
    balances(EX "agents.csv", "whole+hibernate", EX "cluster.json");
    balances(EX "agents.csv", "vgpu+hibernate", EX "cluster.json");
    balances(EX "mig-mix.csv", "dynmig", EX "cluster-mig.json");
    balances(EX "preempt.csv", "whole", EX "cluster-preempt.json");
}

static void longtail_balance(void)
{
    tu_run r;
    cJSON *rep = NULL;
    if (tu_run_trace(&r, EX "longtail.csv", "H100-SXM5-80GB:8", 4, "whole+dualpod", NULL, NULL, NULL) == 0)
        rep = sim_report_build(&r.s, 0, 0);
    tu_run_free(&r);
    CHECK(rep != NULL);
    if (!rep)
        return;
    double held = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "holders"))
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "kind")), "idle") != 0)
            held += cJSON_GetObjectItemCaseSensitive(h, "gpu_hours")->valuedouble;
    CHECK_NEAR(held, num(rep, "gpu", "gpu_hours"), 1e-9, 1e-9);
    cJSON_Delete(rep);
}

/* Owning (sim/sim_tco.h) by hand: 2 H100s at $30,000 over 5 years, 500 W
 * at PUE 1.5 and $0.10/kWh: capital 30000 / 43800 = $0.68493 a GPU-hour,
 * power 0.5 x 1.5 x 0.1 = $0.075; per month x 2 cards x 730 h. With pue
 * and power left out: 1.58 (Uptime 2023) and the model file's 700 W. */
static void tco_by_hand(void)
{
    static const char *const clusters[2] = {
        "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 2, \"tco\": {\"purchase_usd_per_gpu\": 30000, "
        "\"depreciation_years\": 5, \"usd_per_kwh\": 0.1, \"pue\": 1.5, \"power_w_per_gpu\": 500}}]}",
        "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 2, \"tco\": {\"purchase_usd_per_gpu\": 30000, "
        "\"depreciation_years\": 5, \"usd_per_kwh\": 0.1}}]}"};
    const double power_h[2] = {0.5 * 1.5 * 0.1, 0.7 * 1.58 * 0.1};
    for (int k = 0; k < 2; k++) {
        tu_run r;
        memset(&r, 0, sizeof r);
        r.cfg.trace_path = tu_write_tmp("id,submit,duration,gpus\na,0,3600,1\n");
        r.cfg.policy = "whole";
        r.cfg.seed = 1;
        cJSON *rep = NULL;
        if ((r.rc = sim_cluster_load(&r.cl, tu_write_tmp(clusters[k]), tu_catalog(), &r.err)) == 0 &&
            (r.rc = tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err)) == 0 && (r.rc = sim_run(&r.s)) == 0)
            rep = sim_report_build(&r.s, 0, 0);
        else
            fprintf(stderr, "    %s\n", r.err.msg);
        tu_run_free(&r);
        CHECK(rep != NULL);
        if (!rep)
            continue;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "tco");
        double cap_h = 30000.0 / (5 * 8760);
        CHECK_NEAR(num(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "tco", "capital_usd_per_month"),
                   2 * cap_h * 730, 1e-12, 0);
        CHECK_NEAR(num(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "tco", "power_usd_per_month"),
                   2 * power_h[k] * 730, 1e-12, 0);
        CHECK_NEAR(num(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "tco", "rented_usd_per_month"),
                   2 * H100_USD * 730, 1e-12, 0);
        CHECK_NEAR(num(cJSON_GetObjectItemCaseSensitive(rep, "cost"), "tco", "owned_usd"), 2 * (cap_h + power_h[k]),
                   1e-12, 0); /* over the one-hour span */
        CHECK(t != NULL);
        cJSON_Delete(rep);
    }
}

/* Bad TCO inputs are input errors naming the group and the field. */
static void tco_refused(void)
{
    static const struct {
        const char *nodes, *msg;
    } bad[] = {
        {"[{\"model\": \"H100-SXM5-80GB\", \"gpus\": 2, \"tco\": {\"depreciation_years\": 5, \"usd_per_kwh\": 0.1}}]",
         "nodes[0].tco.purchase_usd_per_gpu: required"},
        {"[{\"model\": \"H100-SXM5-80GB\", \"gpus\": 2, \"tco\": {\"purchase_usd_per_gpu\": 1, \"depreciation_years\": 5, "
         "\"usd_per_kwh\": 0.1, \"pue\": 0.5}}]",
         "nodes[0].tco.pue: expected"},
        {"[{\"model\": \"H100-SXM5-80GB\", \"gpus\": 2, \"tco\": {\"purchase_usd_per_gpu\": 1, \"depreciation_years\": 5, "
         "\"usd_per_kwh\": 0.1, \"cost\": 1}}]",
         "unknown key 'cost'"},
        {"[{\"model\": \"H100-SXM5-80GB\", \"gpus\": 2, \"tco\": {\"purchase_usd_per_gpu\": 1, \"depreciation_years\": 5, "
         "\"usd_per_kwh\": 0.1}}, {\"model\": \"A100-SXM4-80GB\", \"gpus\": 2}]",
         "give it for every group or for none"},
        {"[{\"model\": \"GH200-96GB\", \"gpus\": 1, \"tco\": {\"purchase_usd_per_gpu\": 1, \"depreciation_years\": 5, "
         "\"usd_per_kwh\": 0.1}}]",
         "power_w_per_gpu: required: the model file gives no tdp_w"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char doc[600];
        snprintf(doc, sizeof doc, "{\"nodes\": %s}", bad[i].nodes);
        sim_cluster cl;
        gs_error err = {0};
        int rc = sim_cluster_load(&cl, tu_write_tmp(doc), tu_catalog(), &err);
        CHECK_EQ_INT(rc, GS_EINPUT);
        CHECK_STR_HAS(err.msg, bad[i].msg);
        if (rc == 0)
            sim_cluster_free(&cl);
    }
}

const test_case tests_cost[] = {
    {"cost/tco_by_hand", tco_by_hand},
    {"cost/tco_refused", tco_refused},
    {"cost/whole_by_hand", whole_by_hand},
    {"cost/holders_by_name", holders_by_name},
    {"cost/per_million_requests_by_service", per_million_by_service},
    {"cost/shared_card_marginal", shared_marginal},
    {"cost/examples_balance", examples_balance},
    {"cost/dualpod_balance", longtail_balance},
    {NULL, NULL},
};
