/* test_failures.c - failing hardware (sim/sim_fail.h) on hand-computed
 * timelines: a failure mid-interval loses exactly the work since the last
 * checkpoint, one during the checkpoint write loses the interval before it
 * too, a hot spare shortens the restart by the repair time (less the
 * swap); a service loses its replica and a session its sandbox; an
 * autoscaled node fails, is repaired and scaled in; a failure within a
 * spot notice stops its job once; the
 * report's figures add up; failures off leaves the report without them;
 * each policy's record says whether failures run with it (and why not); a
 * bad failures block is an input error.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../cli/metrics.h"
#include "../sim/service/svc.h"
#include "../sim/sim_elastic.h"
#include "../sim/sim_fail.h"
#include "../sim/sim_hw.h"
#include "../sim/sim_preempt.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "failtest.h"
#include "testutil.h"

/* Scripted failures: at t_s, node fails by cause 0 of its group (or, with
 * reclaim, its spot notice begins). */
typedef struct hit {
    double t_s;
    int node;
    bool reclaim;
} hit;

static const hit *script;
static int nscript;

static int hit_init(sim *s, int index, void **state, gs_error *err)
{
    (void)err;
    *state = NULL;
    for (int i = 0; i < nscript; i++)
        sim_module_event(s, index, (gs_time_us)(script[i].t_s * 1e6), SIM_NO_SLOT, 0, (uint32_t)i);
    return 0;
}

static void hit_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)state;
    (void)slot;
    (void)gen;
    if (script[aux].reclaim)
        sim_elastic_reclaim(s, script[aux].node);
    else
        sim_fail_now(s, script[aux].node, 0);
}

static const sim_module hitter = {.name = "test failures", .init = hit_init, .event = hit_event};

static void record_end(void *ud, const job *j)
{
    (void)j;
    *(double *)ud = gs_us_to_s(sim_now(ft_current));
}

/* 20e9 bytes: written in 10 s at 2 GB/s, read in 5 s at 4 GB/s. */
#define CKPT_20GB "18.62645149230957"
static const char *const sets[] = {"failures=on", "fail_scale=0", "checkpoint_every=100", "ckpt_read_gbps=4",
                                   "restart_s=50", "spare_swap_s=30", NULL};

/* One 8-GPU job of 1000 s with a checkpoint on the cluster; the failures
 * of the script; the report (caller frees) and the job's end. */
static cJSON *run_one(const char *cluster, const hit *h, int nh, double *end_s)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module, &hitter, NULL};
    script = h;
    nscript = nh;
    *end_s = -1;
    ft_run r;
    cJSON *rep = ft_run_cluster(&r, cluster, "id,submit,duration,gpus,checkpoint_gib\nJ,0,1000,8," CKPT_20GB "\n", sets,
                                mods, record_end, end_s);
    ft_run_free(&r);
    return rep;
}

static const char *const two_nodes = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 2, \"gpus\": 8}]}";

/* Writes at 100..110 (after 100 s of work), 210..220 (200), 320..330
 * (300). Node 0 fails at 370, 40 s after the last write: 40 s x 8 lost.
 * The job restarts on node 1 at once: 50 s restart + 5 s read (370..425),
 * then 700 s of work with a write after each 100 (six): 425 + 700 + 60 =
 * 1185. */
static void failure_mid_interval(void)
{
    static const hit h[] = {{370, 0, false}};
    double end_s;
    cJSON *rep = run_one(two_nodes, h, 1, &end_s);
    CHECK_NEAR(end_s, 1185, 0, 1e-6);
    CHECK_NEAR(ft_num(rep, "failures.interruptions"), 1, 0, 0);
    CHECK_NEAR(ft_num(rep, "failures.by_cause.faulty GPU"), 1, 0, 0);
    CHECK_NEAR(ft_num(rep, "failures.jobs_interrupted"), 1, 0, 0);
    CHECK_NEAR(ft_num(rep, "failures.lost_gpu_hours"), 8 * 40 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "failures.restart_gpu_hours"), 8 * 55 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "failures.checkpoint_write_gpu_hours"), 8 * 90 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "failures.held_gpu_hours"), 8 * 1185 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "jobs.goodput"), 1000 / 1185.0, 1e-12, 0);
    /* node 0 in repair (faulty GPU: 48 h) from 370 to the end at 1185 */
    CHECK_NEAR(ft_num(rep, "failures.node_down_hours"), (1185 - 370) / 3600.0, 1e-9, 0);
    cJSON_Delete(rep);
}

/* Node 0 fails at 325, during the write of 320..330: that checkpoint is
 * lost with its interval, so the job goes back to 200 (100 s x 8 lost).
 * 325 + 55 + 800 of work + seven writes = 1250; writes 2 x 10 + 5 (cut)
 * + 70 = 95. */
static void failure_during_write(void)
{
    static const hit h[] = {{325, 0, false}};
    double end_s;
    cJSON *rep = run_one(two_nodes, h, 1, &end_s);
    CHECK_NEAR(end_s, 1250, 0, 1e-6);
    CHECK_NEAR(ft_num(rep, "failures.lost_gpu_hours"), 8 * 100 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "failures.checkpoint_write_gpu_hours"), 8 * 95 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "jobs.goodput"), 1000 / 1250.0, 1e-12, 0);
    cJSON_Delete(rep);
}

/* One node, repair 900 s (the override). Without a spare the job waits
 * for the repair: back at 370 + 900 = 1270, then 55 s and 700 s of work
 * with six writes: 2085. With one spare (swap 30 s) it restarts at 400:
 * 1215, earlier by the repair time less the swap (870 s). */
static void spare_shortens_restart(void)
{
    static const hit h[] = {{370, 0, false}};
    double alone_s, spared_s;
    cJSON *a = run_one("{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 1, \"gpus\": 8, \"failures\": "
                       "{\"causes\": [{\"cause\": \"faulty GPU\", \"repair_h\": 0.25}]}}]}",
                       h, 1, &alone_s);
    cJSON *b = run_one("{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 1, \"gpus\": 8, \"spares\": 1, "
                       "\"failures\": {\"causes\": [{\"cause\": \"faulty GPU\", \"repair_h\": 0.25}]}}]}",
                       h, 1, &spared_s);
    CHECK_NEAR(alone_s, 2085, 0, 1e-6);
    CHECK_NEAR(spared_s, 1215, 0, 1e-6);
    CHECK_NEAR(alone_s - spared_s, 900 - 30, 0, 1e-6);
    CHECK_NEAR(ft_num(b, "failures.spare_swaps"), 1, 0, 0);
    CHECK_NEAR(ft_num(a, "failures.spare_swaps"), 0, 0, 0);
    CHECK_NEAR(ft_num(a, "failures.node_down_hours"), 900 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(b, "failures.node_down_hours"), (1215 - 370) / 3600.0, 1e-9, 0); /* the run ends first */
    /* in service: node 0 until 370, the spare from 400 to the end */
    CHECK_NEAR(ft_num(b, "gpu.capacity_gpu_hours"), 8 * (370 + 1215 - 400) / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(a, "gpu.capacity_gpu_hours"), 8 * (2085 - 900) / 3600.0, 1e-9, 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* Failures off: no failures object, no goodput, no failure parameters. */
static void off_reports_nothing(void)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module, NULL};
    static const char *const off[] = {"checkpoint_every=100", NULL};
    double end_s;
    ft_run r;
    cJSON *rep = ft_run_cluster(&r, two_nodes, "id,submit,duration,gpus,checkpoint_gib\nJ,0,1000,8," CKPT_20GB "\n",
                                off, mods, record_end, &end_s);
    ft_run_free(&r);
    CHECK_NEAR(end_s, 1000, 0, 1e-9); /* periodic checkpoints cost nothing with failures off */
    CHECK(!cJSON_GetObjectItemCaseSensitive(rep, "failures"));
    CHECK(!cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"), "goodput"));
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "inputs"), "params");
    CHECK(!cJSON_GetObjectItemCaseSensitive(params, "fail_scale"));
    CHECK(cJSON_GetObjectItemCaseSensitive(params, "checkpoint_every"));
    cJSON_Delete(rep);
}

/* Every number under o (at path) has a metrics row: plan and check read it. */
static void rows_for_numbers(const cJSON *o, const char *path)
{
    if (cJSON_IsNumber(o)) {
        if (!metrics_find(path))
            fprintf(stderr, "    no metrics row for %s\n", path);
        CHECK(metrics_find(path) != NULL);
        return;
    }
    int i = 0;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next, i++) {
        char sub[256];
        if (cJSON_IsArray(o))
            snprintf(sub, sizeof sub, "%s.%d", path, i);
        else
            snprintf(sub, sizeof sub, "%s.%s", path, c->string);
        rows_for_numbers(c, sub);
    }
}

static void every_number_has_a_metrics_row(void)
{
    static const hit h[] = {{370, 0, false}};
    double end_s;
    cJSON *rep = run_one(two_nodes, h, 1, &end_s);
    rows_for_numbers(cJSON_GetObjectItemCaseSensitive(rep, "failures"), "failures");
    rows_for_numbers(cJSON_GetObjectItemCaseSensitive(rep, "nodes"), "nodes");
    CHECK(metrics_find("jobs.goodput") && metrics_direction("jobs.goodput") == METRICS_HIGHER);
    cJSON_Delete(rep);
}

/* Random jobs (1 to 24 GPUs: gangs across 8-GPU nodes too), many failures
 * (some during start-ups and writes), short repairs, two spares: every job
 * completes and what they held is exactly their work plus the losses the
 * report counts (all on the reference card: work is GPU-seconds). */
static void held_is_work_plus_losses(void)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module, NULL};
    char *trace = xmalloc(64 * 400 + 64);
    size_t len = (size_t)sprintf(trace, "id,submit,duration,gpus,checkpoint_gib\n");
    double work_gpu_s = 0;
    unsigned x = 12345;
    for (int i = 0; i < 300; i++) {
        x = x * 1103515245u + 12345u;
        int g = 1 + (int)(x >> 16) % 24;
        x = x * 1103515245u + 12345u;
        int dur = 200 + (int)(x >> 16) % 5000;
        x = x * 1103515245u + 12345u;
        const char *ck = (x >> 16) % 4 ? CKPT_20GB : "";
        len += (size_t)sprintf(trace + len, "j%d,%d,%d,%d,%s\n", i, i * 60, dur, g, ck);
        work_gpu_s += (double)g * dur;
    }
    static const char *const busy[] = {"failures=on", "fail_scale=3000", "checkpoint_every=300", "restart_s=40",
                                       "spare_swap_s=20", NULL};
    ft_run r;
    cJSON *rep = ft_run_cluster(&r,
                                "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 6, \"gpus\": 8, "
                                "\"spares\": 2, \"failures\": {\"causes\": [{\"cause\": \"faulty GPU\", "
                                "\"repair_h\": 0.2}, {\"cause\": \"GPU HBM3 memory\", \"repair_h\": 0.1}]}}]}",
                                trace, busy, mods, NULL, NULL);
    ft_run_free(&r);
    free(trace);
    CHECK_NEAR(ft_num(rep, "jobs.completed"), 300, 0, 0);
    CHECK(ft_num(rep, "failures.jobs_interrupted") > 50);
    CHECK(ft_num(rep, "failures.spare_swaps") >= 2); /* later failures find them in use (others' repairs are long) */
    double held = ft_num(rep, "failures.held_gpu_hours"), lost = ft_num(rep, "failures.lost_gpu_hours");
    double restart = ft_num(rep, "failures.restart_gpu_hours"), write = ft_num(rep, "failures.checkpoint_write_gpu_hours");
    CHECK_NEAR(held - lost - restart - write, work_gpu_s / 3600, 1e-9, 1e-6);
    CHECK_NEAR(held, ft_num(rep, "gpu.gpu_hours"), 1e-12, 0); /* trace jobs are all that held GPUs */
    CHECK_NEAR(ft_num(rep, "jobs.goodput"), work_gpu_s / 3600 / held, 1e-9, 0);
    cJSON_Delete(rep);
}

/* A service replica and a session of 8 GPUs each on four nodes; nodes 0
 * and 1 (where they run) fail at 500 and 800. The replica is lost and
 * its service cold-starts another elsewhere (not a trace job: no
 * interruption counted); the session loses its sandbox, all it ran (no
 * checkpoint) and starts again after restart_s on a free node: it ends
 * at its failure + 50 + 3000. */
static void service_and_session_lose_theirs(void)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module, &hitter, NULL};
    static const hit h[] = {{500, 0, false}, {800, 1, false}};
    script = h;
    nscript = 2;
    double end_s = -1;
    ft_run r;
    cJSON *rep = ft_run_cluster(&r, "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 4, \"gpus\": 8}]}",
                                "id,submit,duration,gpus,kind,replicas_min,replicas_max,max_batch,slo_ms,"
                                "weights_gib,rate,svc_mean_ms\n"
                                "svc,0,4000,8,service,1,1,8,5000,10,1,100\n"
                                "sess,0,3000,8,session,,,,,,,\n",
                                sets, mods, record_end, &end_s);
    ft_run_free(&r);
    CHECK_NEAR(ft_num(rep, "failures.interruptions"), 2, 0, 0);
    CHECK_NEAR(ft_num(rep, "failures.jobs_interrupted"), 1, 0, 0); /* the session; the replica is a task */
    CHECK_NEAR(ft_num(rep, "nodes.interruptions"), 1, 0, 0);
    cJSON *svc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "services"), 0);
    CHECK_NEAR(ft_num(svc, "replicas.lost"), 1, 0, 0);
    CHECK_NEAR(ft_num(svc, "replicas.cold_starts"), 2, 0, 0);
    CHECK_NEAR(ft_num(svc, "replicas.peak"), 1, 0, 0);
    CHECK(ft_num(svc, "served") > 3000);
    CHECK(end_s == 3550 || end_s == 3850);
    CHECK_NEAR(ft_num(rep, "failures.lost_gpu_hours"), 8 * (end_s - 3050) / 3600, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "jobs.completed"), 1, 0, 0);
    cJSON_Delete(rep);
}

static void record_ends(void *ud, const job *j)
{
    double *e = ud;
    e[j->req.id[0] == 'K'] = gs_us_to_s(sim_now(ft_current));
}

/* An autoscaled group (provision 100 s, idle 200 s, max 2; repair 900 s).
 * J (as in failure_mid_interval) asks for node 0, up at 100; node 0 fails
 * at 500 (70 s past the write of 420..430: 300 s of work kept) and stays
 * billed in repair until 1400; J asks for node 1 (up at 600) and ends at
 * 600 + 55 + 700 + six writes = 1415. Node 0 back at 1400 is idle: gone at
 * 1600; node 1 at 1615. K at 3000 asks for a node again: up at 3100, K
 * ends at 3200, the node gone at 3400. Billed: node 0 0..1600 and
 * 3000..3400 (the lowest absent id first), node 1 500..1615. */
static void autoscaled_node_fails_and_returns(void)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module,
                                             &elastic_module, &hitter, NULL};
    static const hit h[] = {{500, 0, false}};
    script = h;
    nscript = 1;
    double end_s[2] = {-1, -1};
    ft_run r;
    cJSON *rep = ft_run_cluster(&r,
                                "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8, "
                                "\"autoscale\": {\"min\": 0, \"max\": 2, \"provision_s\": 100, \"idle_s\": 200}, "
                                "\"failures\": {\"causes\": [{\"cause\": \"faulty GPU\", \"repair_h\": 0.25}]}}]}",
                                "id,submit,duration,gpus,checkpoint_gib\nJ,0,1000,8," CKPT_20GB "\nK,3000,100,8,\n", sets,
                                mods, record_ends, end_s);
    ft_run_free(&r);
    CHECK_NEAR(end_s[0], 1415, 0, 1e-6);
    CHECK_NEAR(end_s[1], 3200, 0, 1e-6);
    CHECK_NEAR(ft_num(rep, "failures.node_down_hours"), 900 / 3600.0, 1e-9, 0);
    CHECK_NEAR(ft_num(rep, "failures.lost_gpu_hours"), 8 * 70 / 3600.0, 1e-9, 0);
    cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "elastic"),
                                                                   "groups"), 0);
    CHECK_NEAR(ft_num(g, "scale_outs"), 3, 0, 0);
    CHECK_NEAR(ft_num(g, "scale_ins"), 3, 0, 0);
    CHECK_NEAR(ft_num(g, "peak_nodes"), 2, 0, 0);
    CHECK_NEAR(ft_num(g, "node_hours"), (1600 + 1115 + 400) / 3600.0, 1e-9, 0);
    /* in service: node 0 100..500, 1400..1600, 3100..3400; node 1 600..1615 */
    CHECK_NEAR(ft_num(rep, "gpu.capacity_gpu_hours"), 8 * (400 + 200 + 300 + 1015) / 3600.0, 1e-9, 0);
    cJSON_Delete(rep);
}

/* A spot node's notice at 150: J (on node 0) writes its checkpoint
 * within it (10 s); node 0 fails at 155, during that write: J is
 * interrupted once and restarts on node 1. The write's end (160) belongs
 * to the stopped run: it must not stop J again; the reclaim at the
 * notice's end finds node 0 in repair and is void. */
static void failure_within_a_spot_notice(void)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module,
                                             &elastic_module, &hitter, NULL};
    static const hit h[] = {{150, 0, true}, {155, 0, false}};
    script = h;
    nscript = 2;
    double end_s = -1;
    ft_run r;
    cJSON *rep = ft_run_cluster(&r,
                                "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8, \"tier\": \"spot\", "
                                "\"autoscale\": {\"min\": 2, \"max\": 2}}]}",
                                "id,submit,duration,gpus,checkpoint_gib\nJ,0,1000,8," CKPT_20GB "\n", sets, mods,
                                record_end, &end_s);
    ft_run_free(&r);
    CHECK_NEAR(ft_num(rep, "nodes.interruptions"), 1, 0, 0);
    CHECK_NEAR(ft_num(rep, "failures.jobs_interrupted"), 1, 0, 0);
    CHECK_NEAR(ft_num(rep, "jobs.completed"), 1, 0, 0);
    CHECK(end_s > 1000);
    cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "elastic"),
                                                                   "groups"), 0);
    CHECK_NEAR(ft_num(g, "reclaims"), 0, 0, 0);
    cJSON_Delete(rep);
}

/* The records answer whether failures run: a policy that cannot says
 * why (so the refusal gives a reason), one that can has node states. */
static void policies_say_whether_they_fail(void)
{
    int can = 0;
    for (const pol_ops *const *p = pol_all(); *p; p++) {
        bool nodes = (*p)->kind != POL_SPACE || ((*p)->space->caps & POL_CAP_NODES);
        if ((*p)->kind == POL_SPACE && !nodes)
            CHECK((*p)->failures_refused && strlen((*p)->failures_refused) > 20);
        can += nodes && !(*p)->failures_refused;
    }
    CHECK(can >= 1);
    CHECK(!pol_find("whole")->failures_refused && (pol_find("whole")->space->caps & POL_CAP_NODES));
}

/* A bad override names the group and the field. */
static void bad_override_is_input_error(void)
{
    sim_cluster cl;
    gs_error err = {0};
    cJSON *j = cJSON_Parse("{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 1, \"gpus\": 8, \"failures\": "
                           "{\"causes\": [{\"cause\": \"cosmic rays\", \"per_day\": 1}]}}]}");
    CHECK_EQ_INT(sim_cluster_from_json(&cl, j, "c.json", tu_catalog(), &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "nodes[0].failures.causes[0]");
    cJSON_Delete(j);
    j = cJSON_Parse("{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 1, \"gpus\": 8, \"spares\": -1}]}");
    CHECK_EQ_INT(sim_cluster_from_json(&cl, j, "c.json", tu_catalog(), &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "nodes[0].spares");
    cJSON_Delete(j);
}

const test_case tests_failures[] = {
    {"failures/mid_interval_loses_the_work_since_the_checkpoint", failure_mid_interval},
    {"failures/during_the_write_loses_the_interval_before", failure_during_write},
    {"failures/spare_shortens_the_restart_by_the_repair", spare_shortens_restart},
    {"failures/off_reports_nothing", off_reports_nothing},
    {"failures/every_number_has_a_metrics_row", every_number_has_a_metrics_row},
    {"failures/held_is_work_plus_losses", held_is_work_plus_losses},
    {"failures/service_loses_its_replica_session_its_sandbox", service_and_session_lose_theirs},
    {"failures/autoscaled_node_fails_and_returns", autoscaled_node_fails_and_returns},
    {"failures/within_a_spot_notice_stops_the_job_once", failure_within_a_spot_notice},
    {"failures/policies_say_whether_they_fail", policies_say_whether_they_fail},
    {"failures/bad_override_is_an_input_error", bad_override_is_input_error},
    {NULL, NULL},
};
