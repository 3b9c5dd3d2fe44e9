/* test_elastic.c - elastic capacity (sim/sim_elastic.h) on hand-computed
 * timelines: a pending job asks for one node and starts provision_s later,
 * the node goes idle_s after the job ends and the bill is those node-hours x
 * price; min nodes never go, max is never passed, the cheapest group goes
 * first, jobs that fit share a node on the way; the pooled trigger fires at
 * the first tick after the threshold is crossed and not below it; a spot
 * reclaim with a checkpoint written within the notice loses nothing, one
 * whose write is longer loses the work since the periodic checkpoint; no-spot
 * jobs never land on spot nodes; the cost object's totals are the bill's;
 * bad cluster keys are refused by name.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_cluster_file.h"
#include "../sim/sim_elastic.h"
#include "../sim/sim_hw.h"
#include "../sim/sim_preempt.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* Scripted reclaims: at t_s, node's notice. */
typedef struct reclaim_at {
    double t_s;
    int node;
} reclaim_at;
static const reclaim_at *script;
static int nscript;

static int rc_init(sim *s, int index, void **state, gs_error *err)
{
    (void)err;
    *state = NULL;
    for (int i = 0; i < nscript; i++)
        sim_module_event(s, index, (gs_time_us)(script[i].t_s * 1e6), SIM_NO_SLOT, 0, (uint32_t)i);
    return 0;
}

static void rc_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)state, (void)slot, (void)gen;
    sim_elastic_reclaim(s, script[aux].node);
}

static const sim_module reclaimer = {.name = "test reclaims", .init = rc_init, .event = rc_event};

typedef struct rec {
    int n;
    char id[16][16];
    double start_s[16], end_s[16];
    const sim *s;
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    int i = r->n++;
    snprintf(r->id[i], 16, "%.15s", j->req.id);
    r->end_s[i] = gs_us_to_s(sim_now(r->s));
    r->start_s[i] = gs_us_to_s(j->start_us);
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

static const cJSON *at(const cJSON *o, const char *path)
{
    char buf[200];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k)) : cJSON_GetObjectItemCaseSensitive(o, k);
    return o;
}

static double num(const cJSON *o, const char *path)
{
    const cJSON *x = at(o, path);
    return cJSON_IsNumber(x) ? x->valuedouble : -1e300;
}

/* Runs trace on the cluster document under whole; the report (caller frees). */
static cJSON *run(const char *cluster, const char *trace, const char *const *sets, const reclaim_at *rs, int nrs,
                  rec *rc)
{
    static const sim_module *const mods[] = {&hw_module, &preempt_module, &elastic_module, &reclaimer, NULL};
    script = rs;
    nscript = nrs;
    tu_run r;
    memset(&r, 0, sizeof r);
    memset(rc, 0, sizeof *rc);
    r.cfg.trace_path = tu_write_tmp(trace);
    r.cfg.policy = "whole";
    r.cfg.seed = 1;
    r.cfg.registry = pol_all();
    tu_add_sets(&r.cfg, sets);
    cJSON *doc = cJSON_Parse(cluster);
    CHECK(doc != NULL);
    CHECK_EQ_INT(sim_cluster_from_json(&r.cl, doc, "test.json", tu_catalog(), &r.err), 0);
    cJSON_Delete(doc);
    r.rc = sim_init_with(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, mods, &r.err);
    rc->s = &r.s;
    if (r.rc == 0) {
        sim_observe(&r.s, &(sim_observer){.job_done = record, .job_done_ud = rc});
        r.rc = sim_run(&r.s);
    }
    CHECK_EQ_INT(r.rc, 0);
    cJSON *rep = r.rc == 0 ? sim_report_build(&r.s, 0, 0) : NULL;
    tu_run_free(&r);
    return rep;
}

#define H100 "\"model\": \"H100-SXM5-80GB\", \"gpus\": 8"

/* A at 0 (8 GPUs, 3600 s) on an empty autoscaled group: one node decided
 * at 0, up at 420, A runs 420..4020, the node goes at 4020 + 600. Bill:
 * (420 + 3600 + 600) s x 8 GPUs x $4. */
static void pending_job_one_node(void)
{
    rec rc;
    cJSON *rep = run("{\"nodes\": [{" H100 ", \"price_per_gpu_hour_usd\": 4, "
                     "\"autoscale\": {\"min\": 0, \"max\": 3, \"provision_s\": 420, \"idle_s\": 600}}]}",
                     "id,submit,duration,gpus\nA,0,3600,8\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    int a = find(&rc, "A");
    CHECK(a >= 0);
    CHECK_NEAR(rc.start_s[a], 420, 0, 1e-9);
    CHECK_NEAR(rc.end_s[a], 4020, 0, 1e-9);
    CHECK_NEAR(num(rep, "sim.end_s"), 4620, 0, 1e-9);
    const char *g = "elastic.groups.0.";
    char k[100];
#define G(f) (snprintf(k, sizeof k, "%s%s", g, f), num(rep, k))
    CHECK_NEAR(G("node_hours"), 4620.0 / 3600, 1e-12, 0);
    CHECK_NEAR(G("cost_usd"), 4620.0 / 3600 * 8 * 4, 1e-12, 0);
    CHECK_NEAR(G("gpu_hours_used"), 8.0, 1e-12, 0);
    CHECK_NEAR(G("gpu_hours_idle"), 1020.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(G("scale_outs"), 1, 0, 0);
    CHECK_NEAR(G("scale_ins"), 1, 0, 0);
    CHECK_NEAR(G("peak_nodes"), 1, 0, 0);
    CHECK_NEAR(G("nodes_at_end"), 0, 0, 0);
    CHECK_NEAR(G("provision_wait_s.max"), 420, 0, 1e-9);
    CHECK_NEAR(num(rep, "elastic.total.cost_usd"), 4620.0 / 3600 * 32, 1e-12, 0);
    CHECK_NEAR(num(rep, "elastic.by_tier.on-demand.cost_usd"), 4620.0 / 3600 * 32, 1e-12, 0);
    /* capacity counts the node only while it serves: 420..4620 */
    CHECK_NEAR(num(rep, "gpu.capacity_gpu_hours"), 8 * 4200.0 / 3600, 1e-12, 0);
    cJSON_Delete(rep);
}

/* min 1: the first node is up from 0 and stays after its jobs; B (at 0,
 * 1000 s) runs at once, C (at 0) asks for a second node (up at 300, runs
 * to 1300, gone at 1900). Max 2: D (at 10) waits for a node to free (B's,
 * at 1000) and asks for none; E a third needs nothing new either. */
static void min_kept_max_never_passed(void)
{
    rec rc;
    cJSON *rep = run("{\"nodes\": [{" H100 ", \"price_per_gpu_hour_usd\": 2, "
                     "\"autoscale\": {\"min\": 1, \"max\": 2, \"provision_s\": 300, \"idle_s\": 600}}]}",
                     "id,submit,duration,gpus\nB,0,1000,8\nC,0,1000,8\nD,10,1000,8\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    CHECK_NEAR(rc.start_s[find(&rc, "B")], 0, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "C")], 300, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "D")], 1000, 0, 1e-9);
    CHECK_NEAR(num(rep, "elastic.groups.0.peak_nodes"), 2, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.scale_outs"), 1, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.scale_ins"), 1, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.nodes_at_end"), 1, 0, 0);
    /* node 0: 0..end (2000: D ends; never removed); node 1: 0..1900 */
    CHECK_NEAR(num(rep, "sim.end_s"), 2600, 0, 1e-9);
    CHECK_NEAR(num(rep, "elastic.groups.0.node_hours"), (2600.0 + 1900) / 3600, 1e-12, 0);
    cJSON_Delete(rep);
}

/* Two groups, the dearer first in the file: the cheaper scales out. Two
 * 4-GPU jobs fit one node: one scale-out, both start at 100. */
static void cheapest_group_first_and_shared_node(void)
{
    rec rc;
    cJSON *rep = run("{\"nodes\": [{" H100 ", \"price_per_gpu_hour_usd\": 5, "
                     "\"autoscale\": {\"min\": 0, \"max\": 4, \"provision_s\": 100, \"idle_s\": 60}},"
                     "{" H100 ", \"price_per_gpu_hour_usd\": 3, "
                     "\"autoscale\": {\"min\": 0, \"max\": 4, \"provision_s\": 100, \"idle_s\": 60}}]}",
                     "id,submit,duration,gpus\nP,0,500,4\nQ,0,500,4\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    CHECK_NEAR(num(rep, "elastic.groups.0.scale_outs"), 0, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.1.scale_outs"), 1, 0, 0);
    CHECK_NEAR(rc.start_s[find(&rc, "P")], 100, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "Q")], 100, 0, 1e-9);
    CHECK_NEAR(num(rep, "elastic.groups.1.node_hours"), 660.0 / 3600, 1e-12, 0);
    CHECK_NEAR(num(rep, "elastic.groups.1.provision_wait_s.count"), 2, 0, 0);
    cJSON_Delete(rep);
}

/* Two reserved nodes (16 GPUs) and a pooled group (period 60, util_high
 * 0.85). a (8 GPUs) at 0: 0.5. With b (6 GPUs) at 100: 14/16 = 0.875, seen
 * at the tick of 120: one node decided at 120, up at 420. It stays idle
 * while the cluster without it would be over 0.85 (to 3100, b's end),
 * and goes at the first idle check after: 420 + 600 k >= 3100: 3420. The
 * run with b of 5 GPUs (13/16 = 0.8125) never scales. */
static void pooled_trigger_at_crossing(void)
{
    static const char *cl = "{\"nodes\": [{" H100 ", \"count\": 2, \"price_per_gpu_hour_usd\": 2.5},"
                            "{" H100 ", \"price_per_gpu_hour_usd\": 4, \"trigger\": \"pooled\", \"period_s\": 60, "
                            "\"autoscale\": {\"min\": 0, \"max\": 2, \"provision_s\": 300, \"idle_s\": 600}}]}";
    rec rc;
    cJSON *rep = run(cl, "id,submit,duration,gpus\na,0,3000,8\nb,100,3000,6\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    CHECK_NEAR(num(rep, "elastic.groups.1.scale_outs"), 1, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.1.node_hours"), (3420.0 - 120) / 3600, 1e-12, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.node_hours"), 2 * 3420.0 / 3600, 1e-12, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.cost_usd"), 2 * 3420.0 / 3600 * 8 * 2.5, 1e-12, 0);
    cJSON_Delete(rep);
    rep = run(cl, "id,submit,duration,gpus\na,0,3000,8\nb,100,3000,5\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    CHECK_NEAR(num(rep, "elastic.groups.1.scale_outs"), 0, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.1.node_hours"), 0, 0, 0);
    cJSON_Delete(rep);
}

/* 60e9 and 300e9 bytes: 60 s and 300 s writes at 1 GB/s, read back as long. */
#define CKPT60 "55.879354476928710938"
#define CKPT300 "279.39677238464355469"
static const char *const ckpt_sets[] = {"checkpoint_every=200", "ckpt_write_gbps=1", "ckpt_read_gbps=1", NULL};
static const char *const spot2 =
    "{\"nodes\": [{" H100 ", \"tier\": \"spot\", \"price_per_gpu_hour_usd\": 1, "
    "\"notice_s\": 120, \"autoscale\": {\"min\": 2, \"max\": 2, \"provision_s\": 50, \"idle_s\": 600}}]}";

/* J (8 GPUs, 1000 s, a 60 s write) on spot node 0 from 0; notice at 500:
 * it stops and writes (500..560), is requeued having lost nothing, starts
 * at once on node 1 with 500 s of work and a 60 s read: ends 1120. Node 0
 * goes at 620; min 2 asks for a replacement (up at 670). Both nodes are
 * kept when idle (min 2): the run ends at node 1's idle check, 1120 + 600. */
static void spot_write_within_notice(void)
{
    static const reclaim_at r[] = {{500, 0}};
    rec rc;
    cJSON *rep = run(spot2, "id,submit,duration,gpus,checkpoint_gib\nJ,0,1000,8," CKPT60 "\n", ckpt_sets, r, 1, &rc);
    if (!rep)
        return;
    int j = find(&rc, "J");
    CHECK(j >= 0);
    CHECK_NEAR(rc.end_s[j], 1120, 0, 1e-6);
    CHECK_NEAR(num(rep, "nodes.lost_gpu_hours"), 0, 0, 1e-12);
    CHECK_NEAR(num(rep, "nodes.interruptions"), 1, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.reclaims"), 1, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.checkpoints_within_notice"), 1, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.jobs_interrupted"), 0, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.scale_outs"), 1, 0, 0);
    /* node 0: 0..620; node 1: 0..1720 (the end); the replacement: 620..1720 */
    CHECK_NEAR(num(rep, "sim.end_s"), 1720, 0, 1e-9);
    CHECK_NEAR(num(rep, "elastic.groups.0.node_hours"), (620.0 + 1720 + 1100) / 3600, 1e-12, 0);
    cJSON_Delete(rep);
}

/* The same with a 300 s write: J runs on until node 0 goes at 620, losing
 * the work since its periodic checkpoint at 600 (20 s x 8 GPUs); it reads
 * 300 s back on node 1 and has 400 s left: ends 620 + 700 = 1320. */
static void spot_write_too_long(void)
{
    static const reclaim_at r[] = {{500, 0}};
    rec rc;
    cJSON *rep = run(spot2, "id,submit,duration,gpus,checkpoint_gib\nJ,0,1000,8," CKPT300 "\n", ckpt_sets, r, 1, &rc);
    if (!rep)
        return;
    int j = find(&rc, "J");
    CHECK(j >= 0);
    CHECK_NEAR(rc.end_s[j], 1320, 0, 1e-6);
    CHECK_NEAR(num(rep, "nodes.lost_gpu_hours"), 8 * 20.0 / 3600, 1e-9, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.checkpoints_within_notice"), 0, 0, 0);
    CHECK_NEAR(num(rep, "elastic.groups.0.jobs_interrupted"), 1, 0, 0);
    cJSON_Delete(rep);
}

/* A reserved node and a spot group: R and N (no-spot) share the reserved
 * node one after the other although spot is free; S (any) takes spot at once. A no-spot job on a
 * cluster of spot nodes alone is rejected with the reason. */
static void no_spot_jobs_stay_off_spot(void)
{
    rec rc;
    cJSON *rep = run("{\"nodes\": [{" H100 ", \"count\": 1, \"price_per_gpu_hour_usd\": 3},"
                     "{" H100 ", \"tier\": \"spot\", \"price_per_gpu_hour_usd\": 1, "
                     "\"autoscale\": {\"min\": 2, \"max\": 2, \"provision_s\": 50, \"idle_s\": 600}}]}",
                     "id,submit,duration,gpus,tier\nR,0,100,8,no-spot\nN,0,100,8,no-spot\nS,0,100,8,any\n", NULL, NULL, 0,
                     &rc);
    if (!rep)
        return;
    CHECK_NEAR(rc.start_s[find(&rc, "N")], 100, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "S")], 0, 0, 1e-9);
    CHECK_NEAR(num(rep, "elastic.by_tier.reserved.gpu_hours_used"), 8 * 200.0 / 3600, 1e-12, 0);
    cJSON_Delete(rep);
    rep = run("{\"nodes\": [{" H100 ", \"tier\": \"spot\", \"price_per_gpu_hour_usd\": 1, "
              "\"autoscale\": {\"min\": 1, \"max\": 2}}]}",
              "id,submit,duration,gpus,tier\nN,0,100,8,no-spot\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    CHECK_NEAR(num(rep, "jobs.rejected"), 1, 0, 0);
    const cJSON *why = at(rep, "jobs.rejected_reasons");
    CHECK(why && why->child && strstr(why->child->string, "no-spot"));
    cJSON_Delete(rep);
}

/* The report's cost object is the bill: its cluster cost is the elastic
 * total, its capacity the billed GPU-hours, and the holders with idle sum to
 * both; a pool's rate is its bill / billed GPU-hours (a reserved and a
 * pooled group of one model share a pool; a spot group is a pool of its own). */
static void cost_holders(const cJSON *rep, double *gpu_h, double *usd)
{
    const cJSON *h;
    *gpu_h = *usd = 0;
    cJSON_ArrayForEach(h, at(rep, "cost.holders"))
    {
        *gpu_h += num(h, "gpu_hours");
        *usd += num(h, "usd");
    }
}

static void cost_object_is_the_bill(void)
{
    rec rc;
    cJSON *rep = run("{\"nodes\": [{" H100 ", \"count\": 2, \"price_per_gpu_hour_usd\": 2.5},"
                     "{" H100 ", \"price_per_gpu_hour_usd\": 4, \"trigger\": \"pooled\", \"period_s\": 60, "
                     "\"autoscale\": {\"min\": 0, \"max\": 2, \"provision_s\": 300, \"idle_s\": 600}}]}",
                     "id,submit,duration,gpus\na,0,3000,8\nb,100,3000,6\n", NULL, NULL, 0, &rc);
    if (!rep)
        return;
    double bill = (2 * 3420.0 * 2.5 + 3300.0 * 4) * 8 / 3600, billed_h = (2 * 3420.0 + 3300) * 8 / 3600, gh, usd;
    CHECK_NEAR(num(rep, "cost.cluster_usd"), bill, 1e-12, 0);
    CHECK_NEAR(num(rep, "elastic.total.cost_usd"), bill, 1e-12, 0);
    CHECK_NEAR(num(rep, "cost.billed_gpu_hours"), billed_h, 1e-12, 0);
    CHECK_NEAR(num(rep, "cost.cluster_usd_per_month"), bill * 730 / (3420.0 / 3600), 1e-12, 0);
    CHECK_NEAR(num(rep, "cost.holders.0.gpu_hours"), (8 + 6) * 3000.0 / 3600, 1e-12, 0);
    CHECK_NEAR(num(rep, "cost.holders.0.usd"), (8 + 6) * 3000.0 / 3600 * bill / billed_h, 1e-12, 0);
    cost_holders(rep, &gh, &usd);
    CHECK_NEAR(gh, billed_h, 1e-12, 0);
    CHECK_NEAR(usd, bill, 1e-12, 0);
    cJSON_Delete(rep);
    /* R then N on the reserved node ($3), S on a spot node ($1; two up from 0
     * to the end at 700, the spot nodes' idle check 600 s after S) */
    rep = run("{\"nodes\": [{" H100 ", \"count\": 1, \"price_per_gpu_hour_usd\": 3},"
              "{" H100 ", \"tier\": \"spot\", \"price_per_gpu_hour_usd\": 1, "
              "\"autoscale\": {\"min\": 2, \"max\": 2, \"provision_s\": 50, \"idle_s\": 600}}]}",
              "id,submit,duration,gpus,tier\nR,0,100,8,no-spot\nN,0,100,8,no-spot\nS,0,100,8,any\n", NULL, NULL, 0,
              &rc);
    if (!rep)
        return;
    CHECK_NEAR(num(rep, "sim.end_s"), 700, 0, 1e-9);
    bill = (8 * 700.0 * 3 + 2 * 8 * 700.0 * 1) / 3600;
    CHECK_NEAR(num(rep, "cost.cluster_usd"), bill, 1e-12, 0);
    CHECK_NEAR(num(rep, "elastic.total.cost_usd"), bill, 1e-12, 0);
    CHECK_NEAR(num(rep, "cost.holders.0.usd"), (8 * 200.0 * 3 + 8 * 100.0 * 1) / 3600, 1e-12, 0);
    cost_holders(rep, &gh, &usd);
    CHECK_NEAR(gh, 3 * 8 * 700.0 / 3600, 1e-12, 0);
    CHECK_NEAR(usd, bill, 1e-12, 0);
    cJSON_Delete(rep);
}

/* Keys the cluster file refuses, each by name. */
static void bad_keys_refused(void)
{
    static const struct {
        const char *group, *want;
    } cases[] = {
        {"\"autoscale\": {\"min\": 3, \"max\": 2}", "nodes[0].autoscale: expected integers min <= max"},
        {"\"autoscale\": {\"min\": 0}", "nodes[0].autoscale.max"},
        {"\"autoscale\": {\"max\": 2, \"warm\": 1}", "unknown key 'warm'"},
        {"\"count\": 2, \"autoscale\": {\"max\": 2}", "'count' beside 'autoscale'"},
        {"\"tier\": \"spot\"", "nodes[0].tier: expected an 'autoscale' object"},
        {"\"tier\": \"cheap\"", "nodes[0].tier: expected reserved, on-demand or spot"},
        {"\"trigger\": \"pooled\"", "nodes[0].trigger: expected an 'autoscale' object"},
        {"\"tier\": \"reserved\", \"autoscale\": {\"max\": 2}", "on-demand or spot beside 'autoscale'"},
        {"\"notice_s\": -1", "nodes[0].notice_s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[400];
        snprintf(doc, sizeof doc, "{\"nodes\": [{" H100 ", %s}]}", cases[i].group);
        cJSON *j = cJSON_Parse(doc);
        sim_cluster c;
        gs_error err = {0};
        CHECK_EQ_INT(sim_cluster_from_json(&c, j, "t.json", tu_catalog(), &err), GS_EINPUT);
        CHECK_STR_HAS(err.msg, cases[i].want);
        cJSON_Delete(j);
    }
}

const test_case tests_elastic[] = {
    {"elastic/pending_job_one_node", pending_job_one_node},
    {"elastic/min_kept_max_never_passed", min_kept_max_never_passed},
    {"elastic/cheapest_group_first_and_shared_node", cheapest_group_first_and_shared_node},
    {"elastic/pooled_trigger_at_crossing", pooled_trigger_at_crossing},
    {"elastic/spot_write_within_notice", spot_write_within_notice},
    {"elastic/spot_write_too_long", spot_write_too_long},
    {"elastic/no_spot_jobs_stay_off_spot", no_spot_jobs_stay_off_spot},
    {"elastic/cost_object_is_the_bill", cost_object_is_the_bill},
    {"elastic/bad_keys_refused", bad_keys_refused},
    {NULL, NULL},
};
