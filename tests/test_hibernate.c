/* test_hibernate.c - agent sessions under the `hibernate` time policy: hand
 * timelines worked out from the rules in policies/README.md, checked through
 * the report and through --until snapshots (the job's state at an instant).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_queue.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

typedef struct hrun {
    tu_run r;
    cJSON *rep;
} hrun;

/* The composed policy hrun_go runs (whole+hibernate unless a test says). */
static const char *hpolicy = "whole+hibernate";

/* Runs trace (text) under hpolicy on `gpus` with sets, stopping at
 * until_s (< 0: run to the end), and builds the report. */
static int hrun_go(hrun *h, const char *trace, const char *gpus, const char *const *sets, double until_s)
{
    tu_run *r = &h->r;
    memset(h, 0, sizeof *h);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = hpolicy;
    r->cfg.seed = 1;
    if (until_s >= 0)
        r->cfg.until_us = (gs_time_us)(until_s * GS_US_PER_S);
    tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_from_spec(&r->cl, gpus, 8, tu_catalog(), &r->err)) != 0)
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)) != 0)
        return r->rc;
    if ((r->rc = sim_run(&r->s)) != 0) {
        r->err = r->s.err;
        return r->rc;
    }
    h->rep = sim_report_build(&r->s, 0, 0);
    return 0;
}

static void hrun_free(hrun *h)
{
    cJSON_Delete(h->rep);
    tu_run_free(&h->r);
}

/* policy.hibernate.<a>[.<b>] */
static double hv(const hrun *h, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h->rep, "policy"), "hibernate"), a);
    if (b)
        o = cJSON_GetObjectItemCaseSensitive(o, b);
    if (!cJSON_IsNumber(o)) {
        check_failures++;
        fprintf(stderr, "    no number at policy.hibernate.%s%s%s\n", a, b ? "." : "", b ? b : "");
        return -1;
    }
    return o->valuedouble;
}

#define HDR "id,submit,duration,gpus,cpu,mem_gib,kind,session,wake,due\n"

/* Probe trigger. S: 1 GPU, 4 cores, 8 GiB, 0..3600. Burst 100..150.
 * Probes tick at 0, 30, ...: the tick at 150 sees idle; pause_after=300
 * -> pause begins at 450, takes pause_s=2 -> released at 452. The user
 * burst at 2000 wakes it: placed at once, ready at 2001 (resume_s=1), runs
 * 2001..2011. Probes now tick from 2001: first at >= 2011 is 2031, pause at
 * 2331, released 2333. Paused at the end (3600): completed then.
 * Held: 452 + 333 = 785 s. Used: 50 + 10 s. */
static const char *probe_trace = HDR "S,0,3600,1,4,8,session,,,\n"
                                     "b1,100,50,,,,burst,S,user,\n"
                                     "b2,2000,10,,,,burst,S,user,\n";
static const char *const probe_sets[] = {"pause_after=300", "probe_period=30", "pause_s=2", "resume_s=1", NULL};

static int state_at(double t, uint64_t *running, uint64_t *suspended)
{
    hrun h;
    int rc = hrun_go(&h, probe_trace, "H100-SXM5-80GB:8", probe_sets, t);
    *running = h.r.s.running;
    *suspended = h.r.s.suspended;
    hrun_free(&h);
    return rc;
}

static void probe_timeline(void)
{
    hrun h;
    CHECK_EQ_INT(hrun_go(&h, probe_trace, "H100-SXM5-80GB:8", probe_sets, -1), 0);
    CHECK_NEAR(hv(&h, "held", "cpu_core_hours"), 785.0 * 4 / 3600, 1e-12, 0);
    CHECK_NEAR(hv(&h, "held", "gpu_hours"), 785.0 / 3600, 1e-12, 0);
    CHECK_NEAR(hv(&h, "used", "mem_gib_hours"), 60.0 * 8 / 3600, 1e-12, 0);
    CHECK_NEAR(hv(&h, "held_without_policy", "gpu_hours"), 1.0, 1e-12, 0);
    CHECK_NEAR(hv(&h, "given_back", "cpu_core_hours"), (3600.0 - 785) * 4 / 3600, 1e-12, 0);
    CHECK_EQ_INT(hv(&h, "pauses", NULL), 2);
    CHECK_EQ_INT(hv(&h, "resumes", NULL), 1);
    CHECK_EQ_INT(hv(&h, "memory_state_lost", NULL), 2);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 1.0, 0, 1e-9);
    CHECK_EQ_INT(hv(&h, "wake_latency_s", "count"), 1);
    CHECK_NEAR(gs_us_to_s(h.r.s.now), 3600, 0, 1e-9);
    CHECK_EQ_INT(h.r.s.completed, 1);
    CHECK_EQ_INT(h.r.s.bursts, 2);
    hrun_free(&h);
    /* the instants: still held just before 452 and 2333, released just after */
    uint64_t run, sus;
    const double at[] = {451.9, 452.1, 1999.9, 2000.1, 2332.9, 2333.1};
    const int want_run[] = {1, 0, 0, 1, 1, 0};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(state_at(at[i], &run, &sus), 0);
        CHECK_EQ_INT(run, want_run[i]);
        CHECK_EQ_INT(sus, 1 - want_run[i]);
    }
}

/* Deadline trigger: pause_time=200 cuts the burst 150..250 at 200 (50 s of
 * it lost: interrupted). keep_memory=1: pause takes 2 + 4 s/GiB x 8 GiB = 34 s
 * -> released at 234. The burst at 500 wakes it (ready 501, runs to 521); no
 * idle trigger, so it runs on to the end (1000). Held 234 + 500 s. */
static void deadline_timeline(void)
{
    const char *tr = HDR "S,0,1000,1,4,8,session,,,\n"
                         "b1,150,100,,,,burst,S,user,\n"
                         "b2,500,20,,,,burst,S,user,\n";
    const char *sets[] = {"pause_after=off", "pause_time=200", "pause_s=2", "keep_memory=1", "resume_s=1", NULL};
    hrun h;
    CHECK_EQ_INT(hrun_go(&h, tr, "H100-SXM5-80GB:8", sets, -1), 0);
    CHECK_EQ_INT(hv(&h, "interrupted_bursts", NULL), 1);
    CHECK_NEAR(hv(&h, "interrupted_work_s", NULL), 50, 0, 1e-9);
    CHECK_NEAR(hv(&h, "held", "gpu_hours"), 734.0 / 3600, 1e-12, 0);
    CHECK_NEAR(hv(&h, "used", "gpu_hours"), 70.0 / 3600, 1e-12, 0);
    CHECK_EQ_INT(hv(&h, "pauses", NULL), 1);
    CHECK_EQ_INT(hv(&h, "memory_state_lost", NULL), 0);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 1.0, 0, 1e-9);
    CHECK_EQ_INT(h.r.s.completed, 1);
    hrun_free(&h);
    uint64_t at233, at235;
    hrun a;
    CHECK_EQ_INT(hrun_go(&a, tr, "H100-SXM5-80GB:8", sets, 233.9), 0);
    at233 = a.r.s.running;
    hrun_free(&a);
    CHECK_EQ_INT(hrun_go(&a, tr, "H100-SXM5-80GB:8", sets, 234.1), 0);
    at235 = a.r.s.suspended;
    hrun_free(&a);
    CHECK_EQ_INT(at233, 1);
    CHECK_EQ_INT(at235, 1);
}

/* One GPU. Session A (0..10000) is busy 0..10, idle-paused at 110 (probe 10,
 * pause_after 100, pause_s 0). Job B (1 GPU, 1000 s) queued since 50 starts
 * at 110 and holds the card to 1110. A's user burst at 500 must wait.
 * wake_timeout=300: the wake fails at 800. wake_timeout=1000: A is placed at
 * 1110 and ready at 1111 (resume_s 1): wake latency 611 s. */
static const char *full_trace = "id,submit,duration,gpus,kind,session,wake\n"
                                "A,0,10000,1,session,,\n"
                                "a0,0,10,,burst,A,user\n"
                                "B,50,1000,1,job,,\n"
                                "a1,500,5,,burst,A,user\n";

static void full_cluster_wait_and_fail(void)
{
    const char *fail[] = {"pause_after=100", "probe_period=10", "pause_s=0", "resume_s=1", "wake_timeout=300", NULL};
    hrun h;
    CHECK_EQ_INT(hrun_go(&h, full_trace, "H100-SXM5-80GB:1", fail, -1), 0);
    CHECK_EQ_INT(hv(&h, "wakes_waited", NULL), 1);
    CHECK_EQ_INT(hv(&h, "wakes_failed", NULL), 1);
    CHECK_EQ_INT(hv(&h, "wake_latency_s", "count"), 0);
    CHECK_EQ_INT(h.r.s.failed, 1);
    CHECK_EQ_INT(h.r.s.completed, 1); /* B */
    CHECK_NEAR(hv(&h, "held", "gpu_hours"), 110.0 / 3600, 1e-12, 0);
    hrun_free(&h);
    CHECK_EQ_INT(hrun_go(&h, full_trace, "H100-SXM5-80GB:1", fail, 799.9), 0);
    CHECK_EQ_INT(h.r.s.queued, 1);
    CHECK_EQ_INT(h.r.s.failed, 0);
    hrun_free(&h);
    CHECK_EQ_INT(hrun_go(&h, full_trace, "H100-SXM5-80GB:1", fail, 800.0), 0);
    CHECK_EQ_INT(h.r.s.queued, 0);
    CHECK_EQ_INT(h.r.s.failed, 1);
    hrun_free(&h);

    const char *wait[] = {"pause_after=100", "probe_period=10", "pause_s=0", "resume_s=1", "wake_timeout=1000",
                          NULL};
    CHECK_EQ_INT(hrun_go(&h, full_trace, "H100-SXM5-80GB:1", wait, -1), 0);
    CHECK_EQ_INT(hv(&h, "wakes_waited", NULL), 1);
    CHECK_EQ_INT(hv(&h, "wakes_failed", NULL), 0);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 611, 0, 1e-9);
    CHECK_EQ_INT(h.r.s.failed, 0);
    hrun_free(&h);
}

/* The same wake timeout under the sharing and MIG space policies: each takes
 * the waiting session out of its queue (withdraw) at 800 s. Without gpumem a
 * vgpu/timeslice... request takes the whole card's memory, so A and B cannot
 * share the single card and the timeline is the same. */
static void wake_timeout_under_other_space_policies(void)
{
    const char *fail[] = {"pause_after=100", "probe_period=10", "pause_s=0", "resume_s=1", "wake_timeout=300", NULL};
    const char *pols[] = {"vgpu+hibernate", "dynmig+hibernate"};
    for (int i = 0; i < 2; i++) {
        hpolicy = pols[i];
        hrun h;
        CHECK_EQ_INT(hrun_go(&h, full_trace, "H100-SXM5-80GB:1", fail, -1), 0);
        CHECK_EQ_INT(hv(&h, "wakes_failed", NULL), 1);
        CHECK_EQ_INT(h.r.s.failed, 1);
        CHECK_EQ_INT(h.r.s.completed, 1);
        hrun_free(&h);
        CHECK_EQ_INT(hrun_go(&h, full_trace, "H100-SXM5-80GB:1", fail, 800.0), 0);
        CHECK_EQ_INT(h.r.s.queued, 0);
        CHECK_EQ_INT(h.r.s.failed, 1);
        hrun_free(&h);
    }
    hpolicy = "whole+hibernate";
}

/* Scheduled wake: busy 0..10, paused at 410 (pause_after 400, probe 10).
 * A burst registered at 20 is due at 1000 for 30 s. lead_time=300: resumed at
 * 700, ready 705 (resume_s 5); the burst starts on time: latency 0.
 * lead_time=0: resumed at 1000, ready 1005: latency 5. */
static void lead_time_hides_resume(void)
{
    const char *tr = HDR "S,0,5000,1,4,8,session,,,\n"
                         "s0,0,10,,,,burst,S,user,\n"
                         "s1,20,30,,,,burst,S,scheduled,1000\n";
    const char *lead[] = {"pause_after=400", "probe_period=10", "pause_s=0", "resume_s=5", NULL};
    hrun h;
    CHECK_EQ_INT(hrun_go(&h, tr, "H100-SXM5-80GB:8", lead, -1), 0);
    CHECK_EQ_INT(hv(&h, "wake_latency_s", "count"), 1);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 0, 0, 0);
    /* held: 0..410, then 700..1435: probes tick from 705 (ready), the first
     * at >= 1030 (end of the burst) is 1035, the pause 400 s later */
    CHECK_NEAR(hv(&h, "held", "gpu_hours"), (410.0 + 735) / 3600, 1e-12, 0);
    hrun_free(&h);
    const char *nolead[] = {"pause_after=400", "probe_period=10", "pause_s=0", "resume_s=5", "lead_time=0", NULL};
    CHECK_EQ_INT(hrun_go(&h, tr, "H100-SXM5-80GB:8", nolead, -1), 0);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 5, 0, 1e-9);
    hrun_free(&h);
}

/* Warm pool: a user-driven wake claims a pool sandbox in claim_s (0.5 s)
 * instead of resume_s (5 s). The pool (1 sandbox of 2 cores) is reserved
 * from 0, claimed at 500, refilled at 530 (pool_refill_s 30); the run ends at
 * the session's end, 2000: reserved 500 + 1470 sandbox-seconds. */
static void warm_pool_claim(void)
{
    const char *tr = "id,submit,duration,gpus,cpu,mem_gib,kind,session,wake\n"
                     "S,0,2000,0,2,4,session,,\n"
                     "s0,0,10,,,,burst,S,user\n"
                     "s1,500,10,,,,burst,S,user\n";
    const char *pool[] = {"pause_after=100", "probe_period=10", "pause_s=0", "resume_s=5", "warm_pool=1", NULL};
    hrun h;
    CHECK_EQ_INT(hrun_go(&h, tr, "H100-SXM5-80GB:8", pool, -1), 0);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 0.5, 0, 1e-9);
    CHECK_EQ_INT(hv(&h, "warm_pool", "claims"), 1);
    CHECK_NEAR(gs_us_to_s(h.r.s.now), 2000, 0, 1e-9);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h.rep, "policy"), "hibernate"),
            "warm_pool"),
        "reserved");
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(res, "cpu_core_hours")),
               1970.0 * 2 / 3600, 1e-12, 0);
    hrun_free(&h);
    const char *nopool[] = {"pause_after=100", "probe_period=10", "pause_s=0", "resume_s=5", NULL};
    CHECK_EQ_INT(hrun_go(&h, tr, "H100-SXM5-80GB:8", nopool, -1), 0);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 5, 0, 1e-9);
    hrun_free(&h);
}

/* Without the time policy sessions hold from start to end and bursts are
 * only counted; the trace reader rejects malformed session rows. */
static void baseline_and_bad_rows(void)
{
    tu_run r;
    const char *path = tu_write_tmp(probe_trace);
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "whole", NULL, NULL, NULL), 0);
    CHECK_EQ_INT(r.s.completed, 1);
    CHECK_EQ_INT(r.s.bursts, 2);
    CHECK_NEAR(r.s.g_alloc.area, 3600, 1e-12, 0);
    tu_run_free(&r);
    const char *bad[][2] = {
        {HDR "b,0,1,,,,burst,,user,\n", "column 8 ('session')"},
        {HDR "b,0,1,1,,,burst,S,user,\n", "a burst uses its session's sandbox"},
        {HDR "b,5,1,,,,burst,S,scheduled,4\n", "column 10 ('due')"},
        {HDR "b,5,1,,,,burst,S,sleepy,\n", "column 9 ('wake'): expected user or scheduled"},
        {HDR "S,0,1,,,,session,,,\n", "column 4 ('gpus')"},
        {HDR "S,0,1,1,,,session,X,,\n", "for rows of kind 'burst' only"},
    };
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(bad[i][0]), "H100-SXM5-80GB:8", 8, "whole", NULL, NULL, NULL),
                     GS_EINPUT);
        CHECK_STR_HAS(r.err.msg, "line 2");
        CHECK_STR_HAS(r.err.msg, bad[i][1]);
        tu_run_free(&r);
    }
    hrun h;
    const char *badset[] = {"keep_memory=2", NULL};
    CHECK_EQ_INT(hrun_go(&h, probe_trace, "H100-SXM5-80GB:8", badset, -1), GS_EUSAGE);
    hrun_free(&h);
}

/* A burst that arrives while the sandbox is still pausing waits for the pause
 * to finish and then for the resume: pause 450..460 (pause_s 10), burst at
 * 455 -> wake at 460, ready 461: latency 6 s. */
static void burst_during_pause(void)
{
    const char *tr = HDR "S,0,3600,1,4,8,session,,,\n"
                         "b1,100,50,,,,burst,S,user,\n"
                         "b2,455,10,,,,burst,S,user,\n";
    const char *sets[] = {"pause_after=300", "probe_period=30", "pause_s=10", "resume_s=1", NULL};
    hrun h;
    CHECK_EQ_INT(hrun_go(&h, tr, "H100-SXM5-80GB:8", sets, -1), 0);
    CHECK_NEAR(hv(&h, "wake_latency_s", "max"), 6, 0, 1e-9);
    CHECK_EQ_INT(hv(&h, "pauses", NULL), 2);
    hrun_free(&h);
}

/* sim_queue_remove (a wait given up) keeps the heap order of the others. */
static bool take_all(void *ud, job *j)
{
    int *out = ud;
    out[out[0]++ + 1] = (int)j->arrival_no;
    return true;
}

static void queue_remove(void)
{
    sim_queue q;
    sim_queue_init(&q);
    job js[7];
    memset(js, 0, sizeof js);
    const int prio[7] = {3, 1, 4, 1, 5, 9, 2};
    for (int i = 0; i < 7; i++) {
        js[i].arrival_no = (uint64_t)i;
        js[i].req.priority = prio[i];
        sim_queue_push(&q, &js[i], 42, 0);
    }
    CHECK(sim_queue_remove(&q, &js[2])); /* priority 4: mid-heap */
    CHECK(sim_queue_remove(&q, &js[5])); /* priority 9: the head */
    CHECK(!sim_queue_remove(&q, &js[5]));
    CHECK_EQ_INT(sim_queue_len(&q), 5);
    int out[8] = {0};
    sim_queue_dispatch(&q, false, NULL, take_all, out);
    const int want[5] = {4, 0, 6, 1, 3}; /* priorities 5, 3, 2, 1, 1 (ties by arrival) */
    CHECK_EQ_INT(out[0], 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(out[i + 1], want[i]);
    sim_queue_free(&q);
}

const test_case tests_hibernate[] = {
    {"hibernate: wake timeout under vgpu and dynmig (withdraw)", wake_timeout_under_other_space_policies},
    {"hibernate: burst while pausing waits for pause + resume", burst_during_pause},
    {"hibernate: sim_queue_remove keeps queue order", queue_remove},
    {"hibernate: probe trigger timeline", probe_timeline},
    {"hibernate: deadline trigger timeline", deadline_timeline},
    {"hibernate: full cluster, wake waits / fails", full_cluster_wait_and_fail},
    {"hibernate: lead_time hides scheduled resume", lead_time_hides_resume},
    {"hibernate: warm pool claim", warm_pool_claim},
    {"hibernate: baseline and bad session rows", baseline_and_bad_rows},
    {NULL, NULL},
};
