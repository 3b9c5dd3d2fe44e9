/* test_mig.c - policies `mig` and `dynmig` on hand-made traces and clusters
 * whose timelines are worked out by hand in the comments: static layouts,
 * the request-to-profile mapping, creation latency and its serialization,
 * the reconcile delay, blocked-by-layout counting on the seed article's
 * example under each strategy, layout schedules with drain and
 * reconfiguration, and bad layouts as input errors.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../policies/mig_common.h"
#include "../workloads/wl_gen.h"
#include "check.h"
#include "testutil.h"

typedef struct rec {
    int n;
    char id[16][16];
    double start_s[16];
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    if (r->n < 16) {
        snprintf(r->id[r->n], 16, "%.15s", j->req.id);
        r->start_s[r->n++] = gs_us_to_s(j->start_us);
    }
}

static double start_of(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return r->start_s[i];
    return -1;
}

/* Like tu_run_trace, on a cluster file; fills rep with the report's policy
 * object (caller frees). */
static int run_cluster(tu_run *r, const char *trace, const char *cluster_json, const char *policy,
                       const char *const *sets, rec *rc, cJSON **rep)
{
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = trace;
    r->cfg.policy = policy;
    r->cfg.seed = 1;
    /* these timelines check layouts and placement, worked out with every
     * instance running at its card's speed: they opt out of the slice-share
     * speed model (its own figures are checked in test_hw.c) */
    char *card = xstrdup("mig_speed=card");
    card[9] = 0;
    r->cfg.sets[r->cfg.nsets].key = card;
    r->cfg.sets[r->cfg.nsets++].value = card + 10;
    for (int i = 0; sets && sets[i]; i++) {
        char *kv = xstrdup(sets[i]), *eq = strchr(kv, '=');
        *eq = 0;
        r->cfg.sets[r->cfg.nsets].key = kv;
        r->cfg.sets[r->cfg.nsets++].value = eq + 1;
    }
    if ((r->rc = sim_cluster_load(&r->cl, tu_write_tmp(cluster_json), tu_catalog(), &r->err)) != 0)
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)) != 0)
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.job_done = record, .job_done_ud = rc});
    if ((r->rc = sim_run(&r->s)) != 0) {
        r->err = r->s.err;
        return r->rc;
    }
    if (rep) {
        *rep = cJSON_CreateObject();
        cJSON_AddObjectToObject(*rep, "policy");
        r->s.pol[0]->report(r->s.pst[0], &r->s, *rep);
    }
    return 0;
}

static double num(const cJSON *rep, const char *obj, const char *key)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(rep, "policy");
    if (obj)
        p = cJSON_GetObjectItemCaseSensitive(p, obj);
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, key));
}

/* One A100-40GB with 2g.10gb@0 + 1g.5gb@4, and one node of 2 H100 whole cards.
 * a (2g.10gb) 0..10 on the 2g; b (4000 MiB -> 1g.5gb, the smallest the layout
 * offers) 0..10; c (9000 MiB: the layout offers 2g.10gb, not 1g.10gb) waits
 * for a: 10..20; d (whole card) 2..7 on an H100; e (2 whole cards) waits
 * for d: 7..12. Slices held: 2x10 + 1x10 + 2x10 = 50 of 8 x 20 s. */
static const char *frag_cluster =
    "{\"name\": \"t\", \"nodes\": ["
    "{\"name\": \"a\", \"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": "
    "[{\"profile\": \"2g.10gb\", \"start\": 0}, {\"profile\": \"1g.5gb\", \"start\": 4}]},"
    "{\"name\": \"h\", \"model\": \"H100-SXM5-80GB\", \"gpus\": 2}]}";
/* d and e give their durations on the H100s they run on (ref_gpu); a, b, c
 * on the cluster's first model, the A100-40GB */
static const char *mix_trace = "id,submit,duration,gpus,gpumem,mig,ref_gpu\n"
                               "a,0,10,1,,2g.10gb,\nb,0,10,1,4000,,\nc,1,10,1,9000,,\n"
                               "d,2,5,1,,,H100-SXM5-80GB\ne,3,5,2,,,H100-SXM5-80GB\n";

static void static_layout_timeline(void)
{
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(mix_trace), frag_cluster, "mig", NULL, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "a"), 0, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "b"), 0, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "c"), 10, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "d"), 2, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "e"), 7, 0, 1e-9);
    CHECK_NEAR(gs_us_to_s(r.s.now), 20, 0, 1e-9);
    CHECK_NEAR(num(rep, "slice_util", "memory"), 50.0 / 160, 1e-12, 0);
    CHECK_NEAR(num(rep, "slice_util", "compute"), 50.0 / 140, 1e-12, 0);
    CHECK_NEAR(num(rep, "slice_util", "memory_occupied"), 3.0 / 8, 1e-12, 0);
    /* b: 4864 - 4000 for 10 s, c: 9856 - 9000 for 10 s, over 20 s */
    CHECK_NEAR(num(rep, "internal_waste", "mean_concurrent_mib"), (864.0 * 10 + 856.0 * 10) / 20, 1e-12, 0);
    CHECK_NEAR(num(rep, "internal_waste", "per_instance_mib"), (864.0 + 856.0) / 2, 1e-12, 0);
    CHECK_EQ_INT(num(rep, "instances", "created"), 0); /* the layout existed before the run */
    /* allocated capacity: MIG instances as compute slices / 7, plus whole cards:
     * a 2/7 x 10 + b 1/7 x 10 + c 2/7 x 10 + d 5 + e 2 x 5 */
    CHECK_NEAR(r.s.g_alloc.area, 50.0 / 7 + 15, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* The same timeline at the instances' own speed (mig_speed=share, the
 * default): on the A100-40GB (the reference: the cluster's first model) a
 * 2g.10gb holds 28 of the 7g's 98 SMs and 2 of 8 memory slices, so 10 s of
 * work (mem_bound 0.3) take 10 x (0.7 x 3.5 + 0.3 x 4) = 36.5 s; a 1g.5gb
 * 10 x (0.7 x 7 + 0.3 x 8) = 73 s. a 0..36.5, b 0..73, c waits for a:
 * 36.5..73; d and e on the H100s as before (durations given there). Slices
 * held: 2 x 36.5 + 1 x 73 + 2 x 36.5 = 219 of 8 x 73 (memory) and of 7 x 73
 * (compute); waste b 864 MiB x 73 + c 856 x 36.5 over 73 s; allocated
 * 219/7 + 5 + 2 x 5 GPU-seconds. */
static void static_layout_timeline_slice_speed(void)
{
    static const char *const share[] = {"mig_speed=share", NULL};
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(mix_trace), frag_cluster, "mig", share, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "c"), 36.5, 0, 2e-6);
    CHECK_NEAR(start_of(&rc, "d"), 2, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "e"), 7, 0, 1e-9);
    CHECK_NEAR(gs_us_to_s(r.s.now), 73, 0, 4e-6);
    CHECK_NEAR(num(rep, "slice_util", "memory"), 219.0 / (8 * 73), 1e-6, 0);
    CHECK_NEAR(num(rep, "slice_util", "compute"), 219.0 / (7 * 73), 1e-6, 0);
    CHECK_NEAR(num(rep, "internal_waste", "mean_concurrent_mib"), (864.0 * 73 + 856.0 * 36.5) / 73, 1e-6, 0);
    CHECK_NEAR(r.s.g_alloc.area, 219.0 / 7 + 15, 1e-6, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A request waits for its profile while an instance of another is idle. One
 * A100-40GB with 3g.20gb@4 + 1g.5gb@0..3: x1..x4 (1g.5gb) hold the four 1g
 * instances 0..10; y (1g.5gb) at 1 waits until 10 while the 3g is idle:
 * counted once, 9 s. */
static void waits_beside_idle_instance(void)
{
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": "
                     "[{\"profile\": \"3g.20gb\", \"start\": 4}, {\"profile\": \"1g.5gb\", \"start\": 0},"
                     "{\"profile\": \"1g.5gb\", \"start\": 1}, {\"profile\": \"1g.5gb\", \"start\": 2},"
                     "{\"profile\": \"1g.5gb\", \"start\": 3}]}]}";
    const char *tr = "id,submit,duration,gpus,mig\nx1,0,10,1,1g.5gb\nx2,0,10,1,1g.5gb\nx3,0,10,1,1g.5gb\n"
                     "x4,0,10,1,1g.5gb\ny,1,10,1,1g.5gb\n";
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "mig", NULL, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "y"), 10, 0, 1e-9);
    CHECK_EQ_INT(num(rep, "waited_beside_idle_instances", "requests"), 1);
    CHECK_NEAR(num(rep, "waited_beside_idle_instances", "wait_s"), 9, 1e-12, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* dynmig on the same trace: the A100-40GB starts empty; create 2 s,
 * serialized per card; destroy at release + 5 + 1 s.
 * a (2g.10gb, lowest start 0) created 0..2, runs 2..12; b (1g.5gb, highest
 * start 6) created 2..4, runs 4..14; c (9000 MiB -> 1g.10gb, smallest, at the
 * highest free start 4) created 4..6, runs 6..16; d, e on the H100s as
 * before. Queue: 2, 4, 5, 0, 4. */
static void dynmig_creation_timeline(void)
{
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(mix_trace), frag_cluster, "dynmig", NULL, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "a"), 2, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "b"), 4, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "c"), 6, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "e"), 7, 0, 1e-9);
    CHECK_NEAR(sim_sketch_mean(&r.s.queue_s), (2 + 4 + 5 + 0 + 4) / 5.0, 1e-9, 0);
    CHECK_NEAR(gs_us_to_s(r.s.now), 16, 0, 1e-9); /* destructions after the last job do not extend the run */
    CHECK_EQ_INT(num(rep, "instances", "created"), 3);
    CHECK_EQ_INT(num(rep, "instances", "live_at_end"), 3);
    /* memory slices held from placement to the job's end: a 2 x 12 (0..12),
     * b 1 x 14 (0..14), c 2 x 15 (1..16), over 8 slices x 16 s */
    CHECK_NEAR(num(rep, "slice_util", "memory"), 68.0 / 128, 1e-12, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Slices return only after reconcile + destroy: X (whole card -> 7g.40gb)
 * created 0..2, runs 2..12, destroyed at 18; Y (1g.5gb) arrives at 1 and
 * is created 18..20. With reconcile_s=0, destroy_s=0: created 12..14. */
static void dynmig_reconcile_delay(void)
{
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": \"whole\"}]}";
    const char *tr = "id,submit,duration,gpus,mig\nX,0,10,1,\nY,1,10,1,1g.5gb\n";
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", NULL, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "X"), 2, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "Y"), 20, 0, 1e-9);
    CHECK_EQ_INT(num(rep, "instances", "destroyed"), 1);
    cJSON_Delete(rep);
    tu_run_free(&r);
    const char *fast[] = {"reconcile_s=0", "destroy_s=0", NULL};
    rec rf = {0};
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", fast, &rf, NULL), 0);
    CHECK_NEAR(start_of(&rf, "Y"), 14, 0, 1e-9);
    tu_run_free(&r);
}

/* The seed article's case under dynmig: a 2g.10gb and a 1g.5gb (both 100 s),
 * then at t=1 a 3g.20gb. first: 2g@0 (created 0..2, runs 2..102), 1g@6
 * (created 2..4, runs 4..104): the 3g is blocked by layout with 5 slices and
 * 4 compute slices free; start 0 frees at 102 + 6 = 108, so the 3g is placed
 * at 108 (blocked wait 107 s), created 108..110. bestfit: 2g@4, 1g@6, the 3g
 * fits at 0 at once: created 4..6 (after the other two), never blocked.
 * demand: see below. */
static void blocked_by_layout_per_strategy(void)
{
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": \"whole\"}]}";
    const char *tr = "id,submit,duration,gpus,mig\nA,0,100,1,2g.10gb\nB,0,100,1,1g.5gb\nC,1,10,1,3g.20gb\n";
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", NULL, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "C"), 110, 0, 1e-9);
    CHECK_EQ_INT(num(rep, "blocked_by_layout", "requests"), 1);
    CHECK_NEAR(num(rep, "blocked_by_layout", "wait_s"), 107, 1e-12, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
    const char *best[] = {"strategy=bestfit", NULL};
    rec rb = {0};
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", best, &rb, &rep), 0);
    CHECK_NEAR(start_of(&rb, "C"), 6, 0, 1e-9);
    CHECK_EQ_INT(num(rep, "blocked_by_layout", "requests"), 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
    const char *dem[] = {"strategy=demand", NULL};
    rec rd = {0};
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", dem, &rd, &rep), 0);
    /* demand has seen a 2g and a 1g, no 3g yet: the 2g ties at 0; for the 1g,
     * start 6 keeps two 2g starts (2, 4) and four 1g starts free, more than
     * any other start, so it blocks the 3g as first does */
    CHECK_NEAR(start_of(&rd, "C"), 110, 0, 1e-9);
    CHECK_EQ_INT(num(rep, "blocked_by_layout", "requests"), 1);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A schedule: 00:00 all-1g.5gb (7 instances), 00:01 whole (one 7g.40gb).
 * j1 (1g.5gb) runs 0..100. At 60 the switch is due: the card drains; j2
 * (whole card) arrives at 61 and waits; drained at 100, reconfigured 100..110
 * (reconfig_s=10), j2 runs 110..120. Drain 40 card-s, reconfiguration 10. */
static void schedule_drain_and_reconfigure(void)
{
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": "
                     "{\"schedule\": [{\"at\": \"00:00\", \"layout\": \"all-1g.5gb\"}, "
                     "{\"at\": \"00:01\", \"layout\": \"whole\"}]}}]}";
    const char *tr = "id,submit,duration,gpus,mig\nj1,0,100,1,1g.5gb\nj2,61,10,1,\n";
    const char *sets[] = {"reconfig_s=10", NULL};
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "mig", sets, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "j2"), 110, 0, 1e-9);
    CHECK_NEAR(gs_us_to_s(r.s.now), 120, 0, 1e-9); /* the next day's switch does not extend the run */
    CHECK_NEAR(num(rep, "layout_switches", "drain_card_s"), 40, 1e-12, 0);
    CHECK_NEAR(num(rep, "layout_switches", "reconfig_card_s"), 10, 1e-12, 0);
    CHECK_EQ_INT(num(rep, "layout_switches", "reconfigurations"), 1);
    CHECK_EQ_INT(num(rep, "instances", "destroyed"), 7);
    CHECK_EQ_INT(num(rep, "instances", "created"), 1);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Requests the policies can never serve are rejected; named profiles go
 * only to MIG cards. */
static void reject_unservable(void)
{
    const char *tr = "id,submit,duration,gpus,gpumem,mig\nn,0,1,1,,4g.20gb\nbig,0,1,1,50000,\nok,0,1,1,,1g.5gb\n";
    tu_run r;
    rec rc = {0};
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), frag_cluster, "mig", NULL, &rc, NULL), 0);
    /* 4g.20gb is not in the layout; 50000 MiB fits no profile but takes a whole H100 */
    CHECK_EQ_INT(r.s.rejected, 1);
    CHECK_EQ_INT(r.s.completed, 2);
    tu_run_free(&r);
}

static void bad_layouts_are_input_errors(void)
{
    static const struct { const char *mig, *want; } cases[] = {
        {"[{\"profile\": \"3g.20gb\", \"start\": 2}]", "3g.20gb cannot start at slice 2 (legal starts: 0,4)"},
        {"[{\"profile\": \"2g.10gb\", \"start\": 0}, {\"profile\": \"1g.10gb\", \"start\": 0}]", "overlaps"},
        {"[{\"profile\": \"1g.5gb+me\", \"start\": 0}, {\"profile\": \"1g.5gb+me\", \"start\": 1}]",
         "more than 1 instance(s) of 1g.5gb+me"},
        {"\"all-9g.99gb\"", "unknown profile '9g.99gb'"},
        {"\"mixed\"", "unknown layout 'mixed'"},
        {"{\"schedule\": [{\"at\": \"09:00\", \"layout\": \"whole\"}, {\"at\": \"08:00\", \"layout\": \"balanced\"}]}",
         "schedule[1]: \"at\" must be later"},
        {"{\"schedule\": [{\"at\": \"25:00\", \"layout\": \"whole\"}]}", "schedule[0]: expected"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cl[600];
        snprintf(cl, sizeof cl,
                 "{\"name\": \"t\", \"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8},"
                 "{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": %s}]}",
                 cases[i].mig);
        tu_run r;
        rec rc = {0};
        CHECK_EQ_INT(run_cluster(&r, tu_write_tmp("id,submit,duration,gpus\na,0,1,1\n"), cl, "dynmig", NULL, &rc,
                                 NULL),
                     GS_EINPUT);
        CHECK_STR_HAS(r.err.msg, "nodes[1].mig (A100-SXM4-40GB)");
        CHECK_STR_HAS(r.err.msg, cases[i].want);
        tu_run_free(&r);
    }
    /* a model without MIG */
    tu_run r;
    rec rc = {0};
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp("id,submit,duration,gpus\na,0,1,1\n"),
                             "{\"name\": \"t\", \"nodes\": [{\"model\": \"L4-24GB\", \"gpus\": 1, \"mig\": \"whole\"}]}",
                             "mig", NULL, &rc, NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "nodes[0].mig: model L4-24GB has no MIG");
    tu_run_free(&r);
}

/* The named layouts resolve to the expected instances. */
static void named_layouts(void)
{
    const gpu_model *m = gpu_catalog_find(tu_catalog(), "A100-SXM4-80GB");
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"gpus\": 1, \"mig\": \"balanced\"},"
                     "{\"model\": \"A100-SXM4-80GB\", \"gpus\": 1, \"mig\": \"all-1g.10gb\"},"
                     "{\"model\": \"A30-24GB\", \"gpus\": 1, \"mig\": \"balanced\"}]}";
    tu_run r;
    rec rc = {0};
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp("id,submit,duration,gpus\na,0,1,1\n"), cl, "mig", NULL, &rc, NULL), 0);
    const mig_base *b = r.s.pst[0]; /* static_state begins with its mig_base */
    CHECK_EQ_INT(b->ngpus, 3);
    /* balanced on 8 slices: 3g + 2g + 2 x 1g = 7 compute, every slice */
    CHECK_EQ_INT(b->gpus[0].lay.used_compute, 7);
    CHECK_EQ_INT(b->gpus[0].lay.used_mask, 0xff);
    /* all-1g.10gb: seven at 0..6 */
    CHECK_EQ_INT(b->gpus[1].lay.count[mig_profile_find(m->mig, "1g.10gb")], 7);
    CHECK_EQ_INT(b->gpus[1].lay.used_mask, 0x7f);
    /* A30 balanced: 2g + 2 x 1g on 4 slices */
    CHECK_EQ_INT(b->gpus[2].lay.used_compute, 4);
    CHECK_EQ_INT(b->gpus[2].lay.used_mask, 0xf);
    tu_run_free(&r);
}

/* gpus = 2 takes one instance on each of two cards of one node; creations
 * are serialized per card, not per node. One node of 2 empty A100-40GB
 * cards under dynmig: P (2 x 3g.20gb) created 0..2 on both cards, runs
 * 2..12; Q (2 whole cards -> 7g.40gb each) waits for both 3g's slices:
 * freed at 12 + 6 = 18, created 18..20. R (3 cards) can never fit: rejected.
 * Z (gpus 0) needs no card and starts at once. */
static void dynmig_multi_card(void)
{
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 2, \"mig\": \"whole\"}]}";
    const char *tr = "id,submit,duration,gpus,mig\nP,0,10,2,3g.20gb\nQ,1,10,2,\nR,1,10,3,1g.5gb\nZ,1,5,0,\n";
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", NULL, &rc, &rep), 0);
    CHECK_NEAR(start_of(&rc, "P"), 2, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "Q"), 20, 0, 1e-9);
    CHECK_NEAR(start_of(&rc, "Z"), 1, 0, 1e-9);
    CHECK_EQ_INT(r.s.rejected, 1);
    CHECK_EQ_INT(num(rep, "instances", "created"), 4);
    CHECK_EQ_INT(num(rep, "instances", "placed_requests"), 3);
    /* allocated: P 2 x 3/7 over 0..12, Q 2 x 1 over 18..30 */
    CHECK_NEAR(r.s.g_alloc.area, 2 * 3.0 / 7 * 12 + 2 * 12, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Queueing theory through MIG: 2 A100-80GB cards and requests for 1g.10gb
 * only are an M/M/14 queue, under `mig` with all-1g.10gb (7 instances per
 * card) and under `dynmig` with zero creation, reconcile and destroy time.
 * The mean wait must lie within 4 batch-means standard errors (30 batches,
 * first 10% discarded) of the Erlang C value. A card that hosted fewer or
 * more instances, or a slice freed late, is off by far more. */
typedef struct waits {
    double *w;
} waits;

static void collect_wait(void *ud, const job *j)
{
    ((waits *)ud)->w[j->arrival_no] = gs_us_to_s(j->start_us - j->req.submit_us);
}

static double erlang_c_wait(int c, double a) /* mean wait in M/M/c, service rate 1 */
{
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < c; k++) {
        term *= a / k;
        sum += term;
    }
    double top = term * a / c / (1 - a / c);
    return top / (sum + top) / (c - a);
}

static void mmc_through_mig(const char *policy, const char *const *sets)
{
    const long jobs = 60000;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    /* a 1g.10gb instance of an A100-80GB (the reference card: the cluster's
     * model) holds 1/7 of its SMs and 1/8 of its bandwidth, so a job takes
     * k = 0.7 x 7 + 0.3 x 8 = 7.3 times its duration there (mem_bound_job
     * 0.3). Durations of mean 1/k and the arrival rate of load 0.8 at the
     * scaled mean of 1 s make it M/M/14 with the scaled service times. */
    const double k = 0.7 * 7 + 0.3 * 8;
    wl_mmc_opts o = {.jobs = jobs, .servers = 14, .util = 0.8 / k, .mean_s = 1.0 / k, .gpus_per_job = 1, .seed = 77};
    gs_error err;
    CHECK_EQ_INT(wl_gen_mmc(mem, &o, &err), 0);
    fclose(mem);
    /* add a mig column: every request is a 1g.10gb */
    char *out = xmalloc(len + (size_t)jobs * 9 + 64), *w = out;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        w += sprintf(w, "%s,%s\n", line, w == out ? "mig" : "1g.10gb");
    free(buf);
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"gpus\": 2, \"mig\": "
                     "\"all-1g.10gb\"}]}";
    waits wt = {xcalloc((size_t)jobs, sizeof(double))};
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = tu_write_tmp(out);
    free(out);
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    for (int i = 0; sets && sets[i]; i++) {
        char *kv = xstrdup(sets[i]), *eq = strchr(kv, '=');
        *eq = 0;
        r.cfg.sets[r.cfg.nsets].key = kv;
        r.cfg.sets[r.cfg.nsets++].value = eq + 1;
    }
    CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cl), tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    sim_observe(&r.s, &(sim_observer){.job_done = collect_wait, .job_done_ud = &wt});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    CHECK_EQ_INT(r.s.completed, jobs);
    tu_run_free(&r);
    long warm = jobs / 10, per = (jobs - warm) / 30;
    double mean = 0, bm[30], var = 0;
    for (int b = 0; b < 30; b++) {
        double sum = 0;
        for (long i = 0; i < per; i++)
            sum += wt.w[warm + b * per + i];
        bm[b] = sum / per;
        mean += bm[b] / 30;
    }
    for (int b = 0; b < 30; b++)
        var += (bm[b] - mean) * (bm[b] - mean);
    double se = sqrt(var / 29 / 30), wq = erlang_c_wait(14, 0.8 * 14);
    printf("    %s M/M/14 rho=0.8 on 2 cards x 7 x 1g.10gb (service times x 7.3): mean wait %.4f s (Erlang C %.4f, "
           "SE %.4f)\n", policy,
           mean, wq, se);
    CHECK_NEAR(mean, wq, 0, 4 * se);
    free(wt.w);
}

static void mmc_static(void) { mmc_through_mig("mig", NULL); }
static void mmc_dynamic(void)
{
    const char *zero[] = {"create_s=0", "reconcile_s=0", "destroy_s=0", NULL};
    mmc_through_mig("dynmig", zero);
}

/* gpumem_pct is a share of the card's memory: 20 % of an A100-40GB is 8192
 * MiB, held by 1g.10gb (9856 MiB; 1g.5gb holds 4864), so 1664 MiB are
 * wasted; 25 % (10240 MiB) needs 3g.20gb, the next profile that holds it. */
static void gpumem_pct_maps_by_card_memory(void)
{
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-40GB\", \"gpus\": 1, \"mig\": \"whole\"}]}";
    const char *tr = "id,submit,duration,gpus,gpumem_pct\np20,0,10,1,20\np25,0,10,1,25\n";
    tu_run r;
    rec rc = {0};
    cJSON *rep = NULL;
    CHECK_EQ_INT(run_cluster(&r, tu_write_tmp(tr), cl, "dynmig", NULL, &rc, &rep), 0);
    const mig_table *t = gpu_catalog_find(tu_catalog(), "A100-SXM4-40GB")->mig;
    int cand[MIG_MAX_PROFILES];
    char kind;
    job_req row = {.gpumem_pct = 20, .gpus = 1, .mig = ""};
    const gpu_model *m = gpu_catalog_find(tu_catalog(), "A100-SXM4-40GB");
    CHECK_EQ_INT(mig_req_mem_mib(m, &row), 8192);
    CHECK(mig_candidates(m, &row, cand, &kind) > 0 && cand[0] == mig_profile_find(t, "1g.10gb") && kind == 'm');
    row.gpumem_pct = 25;
    CHECK(mig_candidates(m, &row, cand, &kind) > 0 && cand[0] == mig_profile_find(t, "3g.20gb"));
    CHECK_NEAR(num(rep, "internal_waste", "per_instance_mib"), ((9856 - 8192) + (19968 - 10240)) / 2.0, 1e-12, 0);
    CHECK_EQ_INT(r.s.completed, 2);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

const test_case tests_mig[] = {
    {"mig/static_layout_timeline", static_layout_timeline},
    {"mig/static_layout_timeline_at_slice_speed", static_layout_timeline_slice_speed},
    {"mig/waits_beside_idle_instance", waits_beside_idle_instance},
    {"mig/schedule_drain_and_reconfigure", schedule_drain_and_reconfigure},
    {"mig/reject_unservable", reject_unservable},
    {"mig/named_layouts", named_layouts},
    {"mig/bad_layouts_are_input_errors", bad_layouts_are_input_errors},
    {"dynmig/creation_timeline", dynmig_creation_timeline},
    {"dynmig/reconcile_delay", dynmig_reconcile_delay},
    {"dynmig/blocked_by_layout_per_strategy", blocked_by_layout_per_strategy},
    {"dynmig/multi_card", dynmig_multi_card},
    {"dynmig/gpumem_pct_maps_by_card_memory", gpumem_pct_maps_by_card_memory},
    {"mig/erlang_c_m_m_14", mmc_static},
    {"dynmig/erlang_c_m_m_14_zero_latency", mmc_dynamic},
    {NULL, NULL},
};
