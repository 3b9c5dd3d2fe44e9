/* test_nodes.c - the node life cycle (sim_nodes.c) on hand-computed
 * timelines: a node going down under a running gang (the gang loses the
 * work since its latest checkpoint on every node, reads its shard back and
 * restarts when the node is back), without a checkpoint (from its start),
 * a draining node that lets its jobs finish and takes no new one, the
 * capacity that counts only nodes in service, and the policies that refuse.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/service/svc.h"
#include "../sim/sim_hw.h"
#include "../sim/sim_nodes.h"
#include "../sim/sim_preempt.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* A script of node moves: at t_s, node goes to state. */
typedef struct move {
    double t_s;
    int node, state;
} move;

static const move *script;
static int nscript;

static int mv_init(sim *s, int index, void **state, gs_error *err)
{
    (void)err;
    *state = NULL;
    for (int i = 0; i < nscript; i++)
        sim_module_event(s, index, (gs_time_us)(script[i].t_s * 1e6), SIM_NO_SLOT, 0, (uint32_t)i);
    return 0;
}

static void mv_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)state;
    (void)slot;
    (void)gen;
    sim_node_set_state(s, script[aux].node, script[aux].state);
}

static const sim_module mover = {.name = "test node moves", .init = mv_init, .event = mv_event};

typedef struct rec {
    int n;
    char id[16][16];
    double end_s[16];
    int starts[16];
    const sim *s;
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    int i = r->n++;
    snprintf(r->id[i], 16, "%.15s", j->req.id);
    r->end_s[i] = gs_us_to_s(sim_now(r->s));
    r->starts[i] = (int)j->starts;
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

static double jnum(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
    return cJSON_IsNumber(x) ? x->valuedouble : -1e300;
}

/* Runs trace on H100:24 (three nodes of 8) under whole with the moves;
 * the report (caller frees). */
static cJSON *run(const char *trace, const move *mv, int nmv, const char *const *sets, rec *rc)
{
    static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &mover, NULL};
    script = mv;
    nscript = nmv;
    tu_run r;
    memset(&r, 0, sizeof r);
    memset(rc, 0, sizeof *rc);
    r.cfg.trace_path = tu_write_tmp(trace);
    r.cfg.policy = "whole";
    r.cfg.seed = 1;
    r.cfg.registry = pol_all();
    tu_add_sets(&r.cfg, sets);
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:24", 8, tu_catalog(), &r.err), 0);
    r.rc = sim_init_with(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, mods, &r.err);
    if (r.rc == 0)
        r.rc = sim_nodes_enable(&r.s, &r.err);
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

/* 40e9 bytes exactly: a 16-GPU gang on two nodes reads its half shard
 * (20e9 bytes) back in 5 s at 4 GB/s. */
#define CKPT "37.252902984619140625"
static const char *const ckpt_sets[] = {"checkpoint_every=200", "ckpt_read_gbps=4", NULL};

/* G (16 GPUs, 1000 s, a checkpoint) on nodes 0 and 1 from 0, U (8, 2000 s)
 * on node 2. Node 1 goes down at 500: G stops; its latest checkpoint is at
 * 400 of running (600 s left): 100 s x 16 GPUs lost; it reads its shard
 * back (5 s): 605 s left. Node 0 alone is free: it waits until node 1 is
 * back at 700 and ends at 700 + 605 = 1305. Capacity: 24 x 2000 GPU-s less
 * node 1's 8 x 200. */
static void gang_node_down_and_back(void)
{
    static const move mv[] = {{500, 1, NODE_DOWN}, {700, 1, NODE_UP}};
    static rec rc;
    cJSON *rep = run("id,submit,duration,gpus,checkpoint_gib\nG,0,1000,16," CKPT "\nU,0,2000,8,\n", mv, 2, ckpt_sets,
                     &rc);
    if (!rep)
        return;
    int g = find(&rc, "G");
    CHECK(g >= 0);
    CHECK_NEAR(rc.end_s[g], 1305, 0, 1e-6);
    CHECK_EQ_INT(rc.starts[g], 2);
    CHECK_NEAR(jnum(rep, "nodes", "interruptions"), 1, 0, 0);
    CHECK_NEAR(jnum(rep, "nodes", "lost_gpu_hours"), 16 * 100.0 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(rep, "nodes", "checkpoint_read_gpu_hours"), 16 * 5.0 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(rep, "nodes", "out_of_service_gpu_hours"), 8 * 200.0 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(rep, "gpu", "capacity_gpu_hours"), (24 * 2000.0 - 8 * 200) / 3600, 1e-9, 0);
    /* held: G 0..500 and 700..1305 on 16, U 0..2000 on 8 */
    CHECK_NEAR(jnum(rep, "gpu", "gpu_hours"), (16 * 500.0 + 16 * 605 + 8 * 2000) / 3600, 1e-9, 0);
    cJSON_Delete(rep);
}

/* The same without a checkpoint: G starts over (1000 s) at 700: 1700. */
static void gang_restarts_from_its_start(void)
{
    static const move mv[] = {{500, 1, NODE_DOWN}, {700, 1, NODE_UP}};
    static rec rc;
    cJSON *rep = run("id,submit,duration,gpus\nG,0,1000,16\nU,0,2000,8\n", mv, 2, ckpt_sets, &rc);
    if (!rep)
        return;
    CHECK_NEAR(rc.end_s[find(&rc, "G")], 1700, 0, 1e-6);
    CHECK_NEAR(jnum(rep, "nodes", "lost_gpu_hours"), 16 * 500.0 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(rep, "nodes", "checkpoint_read_gpu_hours"), 0, 0, 1e-12);
    cJSON_Delete(rep);
}

/* Node 1 drains at 500: G goes on and ends at 1000; J (8 GPUs, at 600)
 * waits, and at 1000 takes node 0, not the draining node 1: it ends at
 * 1100. Node 1 is absent from 1100; K (16 GPUs, at 1150) has node 0 only
 * and waits until node 1 is back at 1200: 1200..1300. */
static void draining_node_takes_no_work(void)
{
    static const move mv[] = {{500, 1, NODE_DRAINING}, {1100, 1, NODE_ABSENT}, {1200, 1, NODE_UP}};
    static rec rc;
    cJSON *rep = run("id,submit,duration,gpus\nG,0,1000,16\nU,0,5000,8\nJ,600,100,8\nK,1150,100,16\n", mv, 3, NULL,
                     &rc);
    if (!rep)
        return;
    CHECK_NEAR(rc.end_s[find(&rc, "G")], 1000, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "J")], 1100, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "K")], 1300, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "nodes", "interruptions"), 0, 0, 0);
    /* node 1 out of service 500..1200 */
    CHECK_NEAR(jnum(rep, "nodes", "out_of_service_gpu_hours"), 8 * 700.0 / 3600, 1e-9, 0);
    cJSON_Delete(rep);
}

/* A space policy without node states is refused up front, by name. */
static void sharing_policies_refuse(void)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = tu_write_tmp("id,submit,duration,gpus\na,0,1,1\n");
    r.cfg.policy = "vgpu";
    r.cfg.seed = 1;
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    gs_error err = {0};
    CHECK_EQ_INT(sim_nodes_enable(&r.s, &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "space policy 'vgpu' does not support nodes that fail or come and go");
    tu_run_free(&r);
}

const test_case tests_nodes[] = {
    {"nodes/gang_node_down_and_back", gang_node_down_and_back},
    {"nodes/gang_restarts_from_its_start", gang_restarts_from_its_start},
    {"nodes/draining_node_takes_no_work", draining_node_takes_no_work},
    {"nodes/sharing_policies_refuse", sharing_policies_refuse},
    {NULL, NULL},
};
