/* test_preempt_share.c - the core's preemption and tenant quotas
 * under the sharing policies vgpu and timeslice and the MIG policies mig and
 * dynmig, on hand-computed timelines (policy `whole` is covered by
 * test_preempt.c).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "../sim/sim_report.h"
#include "../base/gs_rng.h"
#include "check.h"
#include "testutil.h"

#define MAXJ 32

typedef struct rec {
    sim *s;
    int n;
    char id[MAXJ][16];
    double start_s[MAXJ], end_s[MAXJ]; /* first start, completion */
    int starts[MAXJ];
} rec;

static void on_done(void *ud, const job *j)
{
    rec *r = ud;
    if (r->n >= MAXJ)
        return;
    snprintf(r->id[r->n], 16, "%.15s", j->req.id);
    r->start_s[r->n] = gs_us_to_s(j->start_us);
    r->end_s[r->n] = gs_us_to_s(sim_now(r->s)); /* on_done runs at the completion instant */
    r->starts[r->n] = (int)j->starts;
    r->n++;
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return MAXJ - 1; /* not completed: a slot that stays zero */
}

/* Runs trace text under policy on a cluster (a --gpus spec with 8 GPUs per
 * node, or cluster JSON text when it starts with '{'); the report (caller
 * frees) or NULL. */
static cJSON *run(tu_run *r, const char *policy, const char *trace, const char *cluster, const char *const *sets,
                  rec *rc)
{
    memset(r, 0, sizeof *r);
    memset(rc, 0, sizeof *rc);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = policy;
    r->cfg.seed = 1;
    /* these timelines are worked out with MIG instances at their card's
     * speed: they check the preemption hand-over, not the speed model */
    static const char *const card_speed[] = {"mig_speed=card", NULL};
    tu_add_sets(&r->cfg, card_speed);
    tu_add_sets(&r->cfg, sets);
    if (cluster[0] == '{')
        r->rc = sim_cluster_load(&r->cl, tu_write_tmp(cluster), tu_catalog(), &r->err);
    else
        r->rc = sim_cluster_from_spec(&r->cl, cluster, 8, tu_catalog(), &r->err);
    if (r->rc == 0)
        r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err);
    if (r->rc)
        return NULL;
    rc->s = &r->s;
    sim_observe(&r->s, &(sim_observer){.job_done = on_done, .job_done_ud = rc});
    if ((r->rc = sim_run(&r->s)) != 0)
        return NULL;
    return sim_report_build(&r->s, 0, 0);
}

static double pnum(const cJSON *rep, const char *obj, const char *key, const char *sub)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, obj), key);
    if (sub)
        x = cJSON_GetObjectItemCaseSensitive(x, sub);
    return cJSON_IsNumber(x) ? x->valuedouble : -1e300;
}

static double tenant_num(const cJSON *rep, int k, const char *key)
{
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "tenants"), k);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(t, key);
    return cJSON_IsNumber(x) ? x->valuedouble : -1e300;
}

/* 40e9 bytes exactly: 20 s to write at 2 GB/s, 10 s to read at 4 GB/s (as
 * in test_preempt.c). min_runtime 100 s, periodic checkpoints every 60 s,
 * grace 30 s; no context-switch cost, so rates are pure shares. */
#define CKPT "37.252902984619140625"
#define PRE_SETS "preempt=on", "min_runtime=100", "checkpoint_every=60", "ckpt_write_gbps=2", "ckpt_read_gbps=4", \
                 "grace_period=30"

/* vgpu, one H100 (81559 MiB). V (170 s, 40000 MiB, util 0.5, preemptible)
 * and B (10000 MiB, util 0.5) share the card from 0, each at rate 1
 * (demands sum to 1). H (40000 MiB, priority 10) arrives at 150: 31559 MiB
 * free, so it preempts V (ran 150 >= 100; 20 s of work left, written in
 * the checkpoint at preemption: nothing lost). V holds its share until
 * 200 (grace 30 + write 20).
 * C (1000 MiB, util 0.5) arrives at 160 and joins the card while V writes:
 * the card's rates are recomputed with V still a tenant (it keeps its share
 * of the card's time): B and C get 1/3 of the card each, rate 2/3, and V
 * stays at rate 0. (Were V set back to 2/3 it would finish its 20 s at 190,
 * before its eviction, and H would start at 190.)
 * At 200 V leaves and H starts: B, C, H at 2/3 each. C had 100 - 40 x 2/3 =
 * 73.33 s left; H needs 75 s: ends 275. V (requeued with 20 + 10 read)
 * finds 30559 MiB free and waits for H; it restarts at 275 (B, C, V at
 * 2/3); C ends at 275 + 23.33 / (2/3) = 310; V has 30 - 23.33 left and runs
 * at 1 beside B: ends at 316.67. */
static void vgpu_timeline(void)
{
    static const char *const sets[] = {PRE_SETS, "switch_cost=0", NULL};
    tu_run r;
    rec rc;
    cJSON *rep = run(&r, "vgpu",
                     "id,submit,duration,gpus,gpumem,util,priority,preemptible,checkpoint_gib\n"
                     "V,0,170,1,40000,0.5,0,1," CKPT "\nB,0,2000,1,10000,0.5,0,0,\n"
                     "H,150,50,1,40000,0.5,10,0,\nC,160,100,1,1000,0.5,0,0,\n",
                     "H100-SXM5-80GB:1", sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    int h = find(&rc, "H"), v = find(&rc, "V"), c = find(&rc, "C");
    CHECK_NEAR(rc.start_s[h], 200, 0, 1e-9);
    CHECK_NEAR(rc.end_s[h], 275, 0, 1e-6);
    CHECK_NEAR(rc.end_s[c], 310, 0, 1e-6);
    CHECK_EQ_INT(rc.starts[v], 2);
    CHECK_NEAR(rc.end_s[v], 310 + 30 - 35 * 2.0 / 3, 0, 1e-6);
    CHECK_NEAR(pnum(rep, "preemption", "preemptions", NULL), 1, 0, 0);
    CHECK_NEAR(pnum(rep, "preemption", "lost_gpu_hours", NULL), 0, 0, 1e-12);
    CHECK_NEAR(pnum(rep, "preemption", "checkpoint_read_gpu_hours", NULL), 10.0 / 3600, 1e-9, 0);
    CHECK_NEAR(pnum(rep, "preemption", "preemptor_wait_s", "max"), 50, 0.03, 0);
    CHECK_NEAR(pnum(rep, "preemption", "preemptor_misses", NULL), 0, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* timeslice, replicas=2, one card: V and B (no util: demand 1 each) share
 * it at rate 0.5. H (priority 10) at 150 finds no replica free and preempts
 * V: V has done 75 s of work, all of it in the checkpoint written at
 * preemption (its periodic one, at run time 120, had 60: 15 s would have
 * been lost without it). H starts at 200 beside B (rate 0.5, ends 300); V
 * restarts at 300 with 925 + 10 s at rate 0.5: ends 2170. B did 150 s by 300
 * and 935 more by 2170, then runs alone: ends 3085. */
static void timeslice_timeline(void)
{
    static const char *const sets[] = {PRE_SETS, "switch_cost=0", "replicas=2", NULL};
    tu_run r;
    rec rc;
    cJSON *rep = run(&r, "timeslice",
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,1,0,1," CKPT "\nB,0,2000,1,0,0,\nH,150,50,1,10,0,\n",
                     "H100-SXM5-80GB:1", sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    CHECK_NEAR(rc.start_s[find(&rc, "H")], 200, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "H")], 300, 0, 1e-6);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 2170, 0, 1e-6);
    CHECK_NEAR(rc.end_s[find(&rc, "B")], 3085, 0, 1e-6);
    CHECK_EQ_INT(rc.starts[find(&rc, "V")], 2);
    CHECK_NEAR(pnum(rep, "preemption", "lost_gpu_hours", NULL), 0, 0, 1e-12);
    CHECK_NEAR(pnum(rep, "preemption", "eviction_hold_gpu_hours", NULL), 50.0 / 3600, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* No preemption on a shared card before min_runtime, nor of an equal
 * priority: H waits for V to end (timeslice, replicas=1). */
static void share_no_ineligible_victim(void)
{
    static const char *const traces[] = {
        "id,submit,duration,gpus,priority,preemptible\nV,0,1000,1,0,1\nH,50,50,1,10,0\n",
        "id,submit,duration,gpus,priority,preemptible\nV,0,1000,1,10,1\nH,150,50,1,10,0\n",
    };
    static const char *const sets[] = {"preempt=on", "min_runtime=2000", "replicas=1", NULL};
    static const char *const sets2[] = {"preempt=on", "min_runtime=100", "replicas=1", NULL};
    for (int t = 0; t < 2; t++) {
        tu_run r;
        rec rc;
        cJSON *rep = run(&r, "timeslice", traces[t], "H100-SXM5-80GB:1", t ? sets2 : sets, &rc);
        CHECK(rep != NULL);
        if (rep) {
            CHECK_NEAR(rc.start_s[find(&rc, "H")], 1000, 0, 1e-9);
            CHECK_NEAR(pnum(rep, "preemption", "preemptions", NULL), 0, 0, 0);
        }
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* vgpu quota on GPU memory: tenant a may hold 20 GiB (20480 MiB). a1 (20000
 * MiB, 0..10) and f (61559 MiB, tenant f, 0..5) fill the card. a2 (20000,
 * at 1) is quota-blocked; b2 (20000, tenant b, at 2) only lacks room. At 5
 * f ends: b2 starts although a2 (same shape, earlier) is still blocked; a2
 * starts at 10 when a1 ends. a3 (30000 MiB) can never fit the quota. Demands
 * (util 0.4) never exceed the card, so every task runs at rate 1. */
static void vgpu_quota(void)
{
    const char *cl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 1}], \"tenants\": [{\"name\": \"a\", "
                     "\"gpu_mem_gib\": 20}]}";
    tu_run r;
    rec rc;
    static const char *const sets[] = {"switch_cost=0", NULL};
    cJSON *rep = run(&r, "vgpu",
                     "id,submit,duration,gpus,gpumem,util,tenant\na1,0,10,1,20000,0.4,a\nf,0,5,1,61559,0.4,f\n"
                     "a2,1,1,1,20000,0.4,a\nb2,2,1,1,20000,0.4,b\na3,3,1,1,30000,0.4,a\n",
                     cl, sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    CHECK_NEAR(rc.start_s[find(&rc, "b2")], 5, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "a2")], 10, 0, 1e-9);
    CHECK_EQ_INT(r.s.rejected, 1);
    CHECK_NEAR(tenant_num(rep, 0, "quota_blocked"), 1, 0, 0);
    CHECK_NEAR(tenant_num(rep, 0, "quota_rejected"), 1, 0, 0);
    CHECK_NEAR(tenant_num(rep, 0, "peak_gpu_mem_gib"), 20000 / 1024.0, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* timeslice quota on GPUs (tenant a: 1) with replicas=4 on one card: a1
 * (0..10) holds it; a2 (at 1) waits until 10 beside free replicas; b1 (at 2)
 * starts at once. */
static void timeslice_quota(void)
{
    const char *cl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 1}], \"tenants\": [{\"name\": \"a\", "
                     "\"gpus\": 1}]}";
    static const char *const sets[] = {"switch_cost=0", NULL};
    tu_run r;
    rec rc;
    cJSON *rep = run(&r, "timeslice", "id,submit,duration,gpus,util,tenant\na1,0,5,1,0.25,a\na2,1,1,1,0.25,a\n"
                                      "b1,2,1,1,0.25,b\n",
                     cl, sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    CHECK_NEAR(rc.start_s[find(&rc, "a2")], 5, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "b1")], 2, 0, 1e-9);
    CHECK_NEAR(tenant_num(rep, 0, "peak_gpus"), 1, 0, 0);
    CHECK_NEAR(tenant_num(rep, 0, "quota_blocked"), 1, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}


/* One A100-40GB with MIG: under mig the layout is two 3g.20gb instances
 * (starts 0 and 4); dynmig creates instances on demand (the layout key is
 * validated, not applied). */
static const char *mig_cluster =
    "{\"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": "
    "[{\"profile\": \"3g.20gb\", \"start\": 0}, {\"profile\": \"3g.20gb\", \"start\": 4}]}]}";

/* mig: V and B hold the two 3g instances from 0; H (3g, priority 10) at 150
 * preempts V as on whole cards (resume 850 s from the checkpoint written at
 * preemption, nothing lost) and takes V's instance, now idle, at 200 (grace
 * 30 + write 20); H ends at 250 and V, requeued with 850 + 10 s, gets the
 * instance back: ends 1110. */
static void mig_timeline(void)
{
    static const char *const sets[] = {PRE_SETS, NULL};
    tu_run r;
    rec rc;
    cJSON *rep = run(&r, "mig",
                     "id,submit,duration,gpus,mig,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,1,3g.20gb,0,1," CKPT "\nB,0,2000,1,3g.20gb,0,0,\nH,150,50,1,3g.20gb,10,0,\n",
                     mig_cluster, sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    CHECK_NEAR(rc.start_s[find(&rc, "H")], 200, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "H")], 250, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1110, 0, 1e-6);
    CHECK_EQ_INT(rc.starts[find(&rc, "V")], 2);
    CHECK_NEAR(rc.end_s[find(&rc, "B")], 2000, 0, 1e-9);
    CHECK_NEAR(pnum(rep, "preemption", "lost_gpu_hours", NULL), 0, 0, 1e-12);
    CHECK_NEAR(pnum(rep, "preemption", "preemptor_wait_s", "max"), 50, 0.03, 0);
    CHECK_NEAR(pnum(rep, "preemption", "preemptor_misses", NULL), 0, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* dynmig (create 2 s, serialized per card; reconcile 5 + destroy 1 s): V's
 * 3g instance is created 0..2, B's 2..4. H (priority 10) arrives at 152,
 * when V has run 150 s: V resumes with 850 s (its write at preemption; nothing lost) and holds its
 * instance until 202. Its slices come back only at 202 + 5 + 1 = 208: the
 * node is held for H, which is placed then and starts at 210 (wait 58 s),
 * ends 260. V (860 s) waits for H's slices: destroyed at 266, V's instance
 * created 266..268, V ends at 1128. Not a preemptor miss. */
static void dynmig_timeline(void)
{
    static const char *const sets[] = {PRE_SETS, "create_s=2", "destroy_s=1", "reconcile_s=5", NULL};
    tu_run r;
    rec rc;
    cJSON *rep = run(&r, "dynmig",
                     "id,submit,duration,gpus,mig,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,1,3g.20gb,0,1," CKPT "\nB,0,2000,1,3g.20gb,0,0,\nH,152,50,1,3g.20gb,10,0,\n",
                     mig_cluster, sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    CHECK_NEAR(rc.start_s[find(&rc, "V")], 2, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "H")], 210, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "H")], 260, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1128, 0, 1e-6);
    CHECK_EQ_INT(rc.starts[find(&rc, "V")], 2);
    CHECK_NEAR(rc.end_s[find(&rc, "B")], 2004, 0, 1e-9);
    CHECK_NEAR(pnum(rep, "preemption", "preemptions", NULL), 1, 0, 0);
    CHECK_NEAR(pnum(rep, "preemption", "lost_gpu_hours", NULL), 0, 0, 1e-12);
    CHECK_NEAR(pnum(rep, "preemption", "preemptor_wait_s", "max"), 58, 0.03, 0);
    CHECK_NEAR(pnum(rep, "preemption", "preemptor_misses", NULL), 0, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* As dynmig_timeline, plus Y (3g, priority 20, 10 s) at 205, while V's
 * slices are being destroyed: the room is held for H, so H still starts at
 * 210 although Y ranks higher; Y gets H's slices (destroyed at 266, created
 * by 268, ends 278), V Y's (284, created by 286): V ends at 286 + 860 = 1146. */
static void dynmig_reservation(void)
{
    static const char *const sets[] = {PRE_SETS, "create_s=2", "destroy_s=1", "reconcile_s=5", NULL};
    tu_run r;
    rec rc;
    cJSON *rep = run(&r, "dynmig",
                     "id,submit,duration,gpus,mig,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,1,3g.20gb,0,1," CKPT "\nB,0,2000,1,3g.20gb,0,0,\nH,152,50,1,3g.20gb,10,0,\n"
                     "Y,205,10,1,3g.20gb,20,0,\n",
                     mig_cluster, sets, &rc);
    CHECK(rep != NULL);
    if (!rep) {
        tu_run_free(&r);
        return;
    }
    CHECK_NEAR(rc.start_s[find(&rc, "H")], 210, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "Y")], 268, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1146, 0, 1e-6);
    CHECK_NEAR(pnum(rep, "preemption", "preemptions", NULL), 1, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A preemptor that finds room elsewhere while its victim writes: two
 * A100-80GB nodes of one card and 10 CPUs; V (preemptible, no checkpoint)
 * and B take 1g instances and all the CPU of node 0 and node 1. P (1g,
 * priority 5) at 10 has no CPU anywhere and preempts V (min_runtime 0):
 * V stops, the hand-over is at 10 + grace 23 = 33. B ends first and P
 * takes node 1 by itself. dynmig: V and B are created 0..2, B ends at 32,
 * P is placed on node 1 and created 32..34; at 33 P is placed already, so
 * it is not handed V's room (it was placed a second time there, and its
 * second creation started it twice: an abort). V is suspended all the
 * same, as for a preemptor that started (restart from scratch, 1000 s):
 * it is placed again on node 0 and created 33..35, ends 1035; P runs
 * 34..134 (wait 24 s). Four instances created, one each. mig (static
 * all-1g layout, no creation): B ends at 30 and P starts there (wait 20),
 * V restarts at 33 and ends 1033. */
static void preemptor_placed_before_hand_over(void)
{
    static const char *const dyn_sets[] = {"preempt=on", "min_runtime=0", "grace_period=23",
                                           "create_s=2", "destroy_s=1",   "reconcile_s=5", NULL};
    static const char *const mig_sets[] = {"preempt=on", "min_runtime=0", "grace_period=23", NULL};
    static const char *const trace = "id,submit,duration,gpus,mig,cpu,priority,preemptible\n"
                                     "V,0,1000,1,1g.10gb,10,0,1\nB,0,30,1,1g.10gb,10,0,0\n"
                                     "P,10,100,1,1g.10gb,10,5,0\n";
    static const char *const cl =
        "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 1, \"cpu\": 10, \"mig\": \"all-1g.10gb\"}]}";
    static const struct {
        const char *policy;
        double p_start, v_end, created;
    } want[] = {{"dynmig", 34, 1035, 4}, {"mig", 30, 1033, 0}};
    for (int k = 0; k < 2; k++) {
        tu_run r;
        rec rc;
        cJSON *rep = run(&r, want[k].policy, trace, cl, k ? mig_sets : dyn_sets, &rc);
        CHECK(rep != NULL);
        if (!rep) {
            fprintf(stderr, "    %s: %s\n", want[k].policy, r.err.msg);
            tu_run_free(&r);
            continue;
        }
        double p_start = want[k].p_start;
        CHECK_EQ_INT(rc.n, 3);
        CHECK_NEAR(rc.start_s[find(&rc, "P")], p_start, 0, 1e-9);
        CHECK_NEAR(rc.end_s[find(&rc, "P")], p_start + 100, 0, 1e-9);
        CHECK_EQ_INT(rc.starts[find(&rc, "P")], 1);
        CHECK_NEAR(rc.start_s[find(&rc, "V")], k ? 0 : 2, 0, 1e-9);
        CHECK_NEAR(rc.end_s[find(&rc, "V")], want[k].v_end, 0, 1e-6);
        CHECK_EQ_INT(rc.starts[find(&rc, "V")], 2);
        CHECK_NEAR(rc.end_s[find(&rc, "B")], k ? 30 : 32, 0, 1e-9);
        CHECK_NEAR(pnum(rep, "preemption", "preemptions", NULL), 1, 0, 0);
        CHECK_NEAR(pnum(rep, "preemption", "restarts_from_scratch", NULL), 1, 0, 0);
        CHECK_NEAR(pnum(rep, "preemption", "preemptor_misses", NULL), 0, 0, 0);
        CHECK_NEAR(pnum(rep, "preemption", "preemptor_wait_s", "max"), p_start - 10, 0.03, 0);
        CHECK_NEAR(pnum(rep, "policy", "instances", "created"), want[k].created, 0, 0);
        CHECK_NEAR(pnum(rep, "policy", "instances", "placed_requests"), 4, 0, 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* A hand-over with two victims where the first one's release is enough:
 * one A100-80GB card, 40 CPUs; V1 and V2 (preemptible, no checkpoint, 15
 * CPUs each) and B (10 CPUs, 20 s) take 1g instances. P (1g, 20 CPUs,
 * priority 5) at 10 needs both victims; B ends before the hand-over at 33,
 * so V2's release (the cheaper, taken first) already gives P its 20 CPUs,
 * and V1's gives 20 again: P must not be placed a second time (under
 * dynmig it was, and started twice: an abort). dynmig: creations V1 0..2,
 * V2 2..4, B 4..6 (B ends 26); P is created 33..35, runs 35..135; V2
 * placed again at once (15 of the 20 free CPUs), created 35..37, ends
 * 1037; V1 waits for P's CPUs: created 135..137, ends 1137. mig: B ends at
 * 20, P starts at 33, V2 ends 1033, V1 1133. */
static void nominee_placed_by_first_victim(void)
{
    static const char *const dyn_sets[] = {"preempt=on", "min_runtime=0", "grace_period=23",
                                           "create_s=2", "destroy_s=1",   "reconcile_s=5", NULL};
    static const char *const mig_sets[] = {"preempt=on", "min_runtime=0", "grace_period=23", NULL};
    static const char *const trace = "id,submit,duration,gpus,mig,cpu,priority,preemptible\n"
                                     "V1,0,1000,1,1g.10gb,15,0,1\nV2,0,1000,1,1g.10gb,15,0,1\n"
                                     "B,0,20,1,1g.10gb,10,0,0\nP,10,100,1,1g.10gb,20,5,0\n";
    static const char *const cl =
        "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"gpus\": 1, \"cpu\": 40, \"mig\": \"all-1g.10gb\"}]}";
    static const struct {
        const char *policy;
        double p_start, v2_end, v1_end, created;
    } want[] = {{"dynmig", 35, 1037, 1137, 6}, {"mig", 33, 1033, 1133, 0}};
    for (int k = 0; k < 2; k++) {
        tu_run r;
        rec rc;
        cJSON *rep = run(&r, want[k].policy, trace, cl, k ? mig_sets : dyn_sets, &rc);
        CHECK(rep != NULL);
        if (!rep) {
            fprintf(stderr, "    %s: %s\n", want[k].policy, r.err.msg);
            tu_run_free(&r);
            continue;
        }
        CHECK_EQ_INT(rc.n, 4);
        CHECK_NEAR(rc.start_s[find(&rc, "P")], want[k].p_start, 0, 1e-9);
        CHECK_NEAR(rc.end_s[find(&rc, "P")], want[k].p_start + 100, 0, 1e-9);
        CHECK_EQ_INT(rc.starts[find(&rc, "P")], 1);
        CHECK_NEAR(rc.end_s[find(&rc, "V2")], want[k].v2_end, 0, 1e-6);
        CHECK_NEAR(rc.end_s[find(&rc, "V1")], want[k].v1_end, 0, 1e-6);
        CHECK_EQ_INT(rc.starts[find(&rc, "V1")], 2);
        CHECK_EQ_INT(rc.starts[find(&rc, "V2")], 2);
        CHECK_NEAR(pnum(rep, "preemption", "decisions", NULL), 1, 0, 0);
        CHECK_NEAR(pnum(rep, "preemption", "preemptions", NULL), 2, 0, 0);
        CHECK_NEAR(pnum(rep, "preemption", "preemptor_misses", NULL), 0, 0, 0);
        CHECK_NEAR(pnum(rep, "policy", "instances", "created"), want[k].created, 0, 0);
        CHECK_NEAR(pnum(rep, "policy", "instances", "placed_requests"), 6, 0, 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* mig quota on cards of a model (tenant a: 1 A100): a1 holds one 3g
 * instance 0..10; a2 (at 1) waits beside the idle one until 10; b1 (at 2)
 * takes it at once. Under dynmig (no creation delay) the same. */
static void mig_quota(void)
{
    const char *cl = "{\"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": "
                     "[{\"profile\": \"3g.20gb\", \"start\": 0}, {\"profile\": \"3g.20gb\", \"start\": 4}]}],"
                     " \"tenants\": [{\"name\": \"a\", \"cards\": {\"A100-SXM4-40GB\": 1}}]}";
    static const char *const sets[] = {"create_s=0", "destroy_s=0", "reconcile_s=0", NULL};
    for (int k = 0; k < 2; k++) {
        tu_run r;
        rec rc;
        cJSON *rep = run(&r, k ? "dynmig" : "mig",
                         "id,submit,duration,gpus,mig,tenant\na1,0,10,1,3g.20gb,a\na2,1,1,1,3g.20gb,a\n"
                         "b1,2,1,1,3g.20gb,b\n",
                         cl, k ? sets : NULL, &rc);
        CHECK(rep != NULL);
        if (rep) {
            CHECK_NEAR(rc.start_s[find(&rc, "a2")], 10, 0, 1e-9);
            CHECK_NEAR(rc.start_s[find(&rc, "b1")], 2, 0, 1e-9);
            CHECK_NEAR(tenant_num(rep, 0, "peak_gpus"), 1, 0, 0);
            CHECK_NEAR(tenant_num(rep, 0, "quota_blocked"), 1, 0, 0);
        }
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* Randomized, under each policy: 200 jobs of 3 tenants (x capped at 3 GPUs,
 * y at 30 GiB of GPU memory), priorities 0..2, half preemptible, on 2 nodes
 * of 4 cards (H100 shared, also with gpu_select=fgd; A100-40GB
 * with the balanced MIG layout, or dynamic MIG). The core aborts on any charge over a cap (this caught
 * dynmig admitting at placement but charging only at start); here every job
 * completes except those that can never fit y's cap, the peaks stay within
 * the caps, the caps bind (jobs blocked) and preemption happens. */
static void quota_never_exceeded_all(void)
{
    static const char *const pols[] = {"vgpu", "timeslice", "mig", "dynmig", "vgpu"}; /* the last: gpu_select=fgd */
    static const char *const names[] = {"x", "y", "z"};
    static const int mem_mib[] = {5000, 9000, 19000};
    static const char *const sets[] = {"preempt=on", "min_runtime=5", "checkpoint_every=10", NULL};
    static const char *const fgd[] = {"preempt=on", "min_runtime=5", "checkpoint_every=10", "gpu_select=fgd", NULL};
    for (int k = 0; k < 5; k++) {
        gsl_rng *g = gs_rng_new(42, 11);
        size_t cap = 96 * 200, n = 0;
        char *t = xmalloc(cap);
        n += (size_t)snprintf(t + n, cap - n, "id,submit,duration,gpus,gpumem,tenant,priority,preemptible,"
                                              "checkpoint_gib\n");
        double at = 0;
        int never = 0; /* tenant y, 2 x 19000 MiB = 37.1 GiB > 30: rejected at arrival */
        for (int i = 0; i < 200; i++) {
            at += gsl_rng_uniform(g) * 0.5;
            double dur = 5 + gsl_rng_uniform(g) * 95;
            int gpus = 1 + (gsl_rng_uniform(g) < 0.2), mem = mem_mib[(int)(gsl_rng_uniform(g) * 3)];
            never += i % 3 == 1 && gpus == 2 && mem == 19000;
            n += (size_t)snprintf(t + n, cap - n, "j%d,%.3f,%.3f,%d,%d,%s,%d,%d,%s\n", i, at, dur, gpus, mem,
                                  names[i % 3], (int)(gsl_rng_uniform(g) * 3), gsl_rng_uniform(g) < 0.5,
                                  gsl_rng_uniform(g) < 0.5 ? "1" : "");
        }
        gs_rng_free(g);
        const char *cl = k < 2 || k == 4 ? "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 2, \"gpus\": 4}], "
                                 "\"tenants\": [{\"name\": \"x\", \"gpus\": 3}, {\"name\": \"y\", \"gpu_mem_gib\": 30}]}"
                               : "{\"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"count\": 2, \"gpus\": 4, \"mig\": "
                                 "\"balanced\"}], \"tenants\": [{\"name\": \"x\", \"gpus\": 3}, {\"name\": \"y\", "
                                 "\"gpu_mem_gib\": 30}]}";
        tu_run r;
        rec rc;
        cJSON *rep = run(&r, pols[k], t, cl, k == 4 ? fgd : sets, &rc);
        free(t);
        CHECK(rep != NULL);
        if (!rep) {
            printf("    %s: %s\n", pols[k], r.err.msg);
            tu_run_free(&r);
            continue;
        }
        double pre = pnum(rep, "preemption", "preemptions", NULL);
        printf("    %s: %.0f preemptions, x peak %.0f GPUs, y peak %.2f GiB, blocked %.0f + %.0f\n", pols[k], pre,
               tenant_num(rep, 0, "peak_gpus"), tenant_num(rep, 1, "peak_gpu_mem_gib"),
               tenant_num(rep, 0, "quota_blocked"), tenant_num(rep, 1, "quota_blocked"));
        CHECK_EQ_INT((int)r.s.completed, 200 - never);
        CHECK_EQ_INT((int)r.s.rejected, never);
        CHECK(never > 0);
        CHECK(pre > 0);
        CHECK(tenant_num(rep, 0, "peak_gpus") <= 3);
        CHECK(tenant_num(rep, 0, "peak_gpus") >= 2);
        CHECK(tenant_num(rep, 1, "peak_gpu_mem_gib") <= 30);
        CHECK(tenant_num(rep, 0, "quota_blocked") > 0);
        CHECK(tenant_num(rep, 1, "quota_blocked") > 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

const test_case tests_preempt_share[] = {
    {"preempt_share/vgpu_timeline_victim_rate_held_at_zero", vgpu_timeline},
    {"preempt_share/timeslice_timeline_checkpoint_at_half_rate", timeslice_timeline},
    {"preempt_share/timeslice_no_early_or_equal_priority_victim", share_no_ineligible_victim},
    {"preempt_share/vgpu_quota_gpu_memory", vgpu_quota},
    {"preempt_share/timeslice_quota_gpus", timeslice_quota},
    {"preempt_share/mig_timeline_victim_instance_goes_to_preemptor", mig_timeline},
    {"preempt_share/dynmig_timeline_preemptor_waits_for_destroyed_slices", dynmig_timeline},
    {"preempt_share/dynmig_freed_slices_held_for_preemptor", dynmig_reservation},
    {"preempt_share/mig_dynmig_preemptor_placed_before_hand_over", preemptor_placed_before_hand_over},
    {"preempt_share/mig_dynmig_nominee_placed_by_first_victim", nominee_placed_by_first_victim},
    {"preempt_share/mig_dynmig_quota_cards", mig_quota},
    {"preempt_share/randomized_quotas_never_exceeded_all_policies", quota_never_exceeded_all},
    {NULL, NULL},
};
