/* test_whole.c - policy `whole` and the core's job lifecycle on hand-made
 * traces whose timelines are worked out by hand, plus the rate-change API
 * through a test-only policy.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testutil.h"

typedef struct rec {
    int n;
    char id[16][16];
    double start_s[16], end_s[16];
    int node[16];
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    if (r->n >= 16)
        return;
    snprintf(r->id[r->n], 16, "%.15s", j->req.id);
    r->start_s[r->n] = gs_us_to_s(j->start_us);
    r->end_s[r->n] = gs_us_to_s(j->start_us) + gs_us_to_s(j->req.dur_us);
    r->node[r->n] = j->node;
    r->n++;
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

/* One node of 8: A takes 4 for 10 s; B wants 8 at t=1; C wants 2 at t=2 for 1 s.
 * skip: C starts at once (t=2), B at 10. fifo: C waits behind B: B 10..20, C 20. */
static const char *hol_trace = "id,submit,duration,gpus\nA,0,10,4\nB,1,10,8\nC,2,1,2\n";

static void skip_vs_fifo(void)
{
    const char *path = tu_write_tmp(hol_trace);
    tu_run r;
    rec rc = {0};
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "whole", NULL, record, &rc), 0);
    CHECK_NEAR(rc.start_s[find(&rc, "C")], 2, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "B")], 10, 0, 1e-9);
    CHECK_NEAR(gs_us_to_s(r.s.now), 20, 0, 1e-9);
    CHECK_NEAR(sim_sketch_mean(&r.s.queue_s), (0 + 9 + 0) / 3.0, 1e-9, 0);
    CHECK_EQ_INT(r.s.slowdown.n, 3);
    CHECK_NEAR(r.s.slowdown.max, 1.0, 1e-12, 0); /* whole cards: nobody slows anybody */
    tu_run_free(&r);

    const char *fifo[] = {"queue=fifo", NULL};
    rec rf = {0};
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "whole", fifo, record, &rf), 0);
    CHECK_NEAR(rf.start_s[find(&rf, "B")], 10, 0, 1e-9);
    CHECK_NEAR(rf.start_s[find(&rf, "C")], 20, 0, 1e-9);
    CHECK_NEAR(gs_us_to_s(r.s.now), 21, 0, 1e-9);
    CHECK_NEAR(sim_sketch_mean(&r.s.jct_s), (10 + 19 + 19) / 3.0, 1e-9, 0);
    /* allocated GPU-seconds: 4*10 + 8*10 + 2*1 over 8 GPUs x 21 s */
    CHECK_NEAR(r.s.g_alloc.area, 122, 1e-9, 0);
    tu_run_free(&r);
}

/* Higher priority goes first; equal priority by submit time. */
static void priority_order(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus,priority\n"
                                    "A,0,10,8,0\nlow,1,5,8,0\nhigh,2,5,8,5\nmid,3,5,8,1\n");
    tu_run r;
    rec rc = {0};
    CHECK_EQ_INT(tu_run_trace(&r, path, "A100-SXM4-80GB:8", 8, "whole", NULL, record, &rc), 0);
    CHECK_NEAR(rc.start_s[find(&rc, "high")], 10, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "mid")], 15, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "low")], 20, 0, 1e-9);
    tu_run_free(&r);
}

/* A request larger than the cluster is rejected and counted, not queued
 * (one wider than a node but not the cluster spans nodes: test_gang.c). */
static void reject_and_account(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus,gpu_model\n"
                                    "big,0,10,24,\nok,0,10,8,\nl4only,1,1,1,L4-24GB\nzero,2,0,0,\n");
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:16", 8, "whole", NULL, NULL, NULL), 0);
    CHECK_EQ_INT(r.s.arrived, 4);
    CHECK_EQ_INT(r.s.rejected, 2); /* 24 GPUs on 16; L4 not in this cluster */
    CHECK_EQ_INT(r.s.completed, 2);
    CHECK_EQ_INT(r.s.arrived, r.s.completed + r.s.running + r.s.queued + r.s.rejected);
    tu_run_free(&r);
}

static void unknown_model_is_input_error(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus,gpu_model\na,0,1,1,\nb,1,1,1,V100\n");
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "whole", NULL, NULL, NULL), GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 3, column 5 ('gpu_model')");
    CHECK_STR_HAS(r.err.msg, "V100");
    tu_run_free(&r);
}

static void binpack_vs_spread(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus\na,0,10,2\nb,1,10,2\n");
    tu_run r;
    rec rb = {0}, rs = {0};
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:16", 8, "whole", NULL, record, &rb), 0);
    CHECK_EQ_INT(rb.node[0], rb.node[1]);
    tu_run_free(&r);
    const char *spread[] = {"placement=spread", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:16", 8, "whole", spread, record, &rs), 0);
    CHECK(rs.node[0] != rs.node[1]);
    tu_run_free(&r);
}

static void bad_params(void)
{
    const char *path = tu_write_tmp(hol_trace);
    tu_run r;
    const char *bad1[] = {"queue=lifo", NULL}, *bad2[] = {"colour=red", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "whole", bad1, NULL, NULL), GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "expected skip, fifo or backfill");
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "whole", bad2, NULL, NULL), GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "no parameter 'colour'");
    CHECK_STR_HAS(r.err.msg, "queue, bf_max_job_test, placement");
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, path, "H100-SXM5-80GB:8", 8, "nosuch", NULL, NULL, NULL), GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "valid: whole");
    tu_run_free(&r);
}

/* --until: jobs still running or queued at the stop are counted, rows not yet
 * reached are not_arrived, and nothing is lost. */
static void until_accounting(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus\nA,0,10,8\nB,1,10,8\nC,2,1,8\nD,50,1,1\nE,60,1,1\n");
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = path;
    r.cfg.policy = "whole";
    r.cfg.until_us = 15 * GS_US_PER_S;
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    CHECK_EQ_INT(sim_run(&r.s), 0);
    CHECK_EQ_INT(r.s.arrived, 3);
    CHECK_EQ_INT(r.s.completed, 1);
    CHECK_EQ_INT(r.s.running, 1);
    CHECK_EQ_INT(r.s.queued, 1);
    CHECK_EQ_INT(r.s.not_arrived, 2);
    CHECK_EQ_INT(r.s.now, 15 * GS_US_PER_S);
    CHECK_NEAR(r.s.g_alloc.area, 8 * 15, 1e-9, 0);
    tu_run_free(&r);
}

/* {==== rate changes, through a test-only policy ====}
 * "slowstart" runs each job at half speed for its first second, then at full
 * speed: a job of duration d ends at start + 1 + (d - 0.5). */
static bool any_fits(void *st, const sim *s, const job *j) { (void)st, (void)s, (void)j; return true; }
static uint64_t one_shape(const void *state, const job *j)
{
    (void)state, (void)j;
    return 0;
}
static bool ss_place(void *st, sim *s, job *j)
{
    (void)st;
    sim_job_start(s, j, 0.5);
    sim_timer(s, 0, j, sim_now(s) + GS_US_PER_S, 1);
    return true;
}
static void ss_unplace(void *st, sim *s, job *j) { (void)st, (void)s, (void)j; }
static void ss_timer(void *st, sim *s, job *j, uint32_t tag)
{
    (void)st;
    if (j && tag == 1)
        sim_job_set_rate(s, j, 1.0);
}
static int ss_init(sim *s, int index, void **state, gs_error *err)
{
    (void)s, (void)index, (void)err;
    *state = malloc(1);
    return 0;
}
static const pol_param ss_params[] = {{NULL, NULL, NULL, {0, 0, 0, NULL, NULL}}};
static const pol_space ss_space = {.can_ever_fit = any_fits, .place = ss_place, .unplace = ss_unplace,
                                   .shape_key = one_shape};
static const pol_ops pol_slowstart = {
    .abi = POL_ABI, .name = "slowstart", .summary = "test", .kind = POL_SPACE, .params = ss_params,
    .init = ss_init, .fini = free, .timer = ss_timer, .space = &ss_space,
};

typedef struct ends {
    int n;
    double end_s[8];
} ends;
static void rec_end(void *ud, const job *j)
{
    ends *e = ud;
    (void)j;
    if (e->n < 8)
        e->end_s[e->n++] = -1;
}

static void rate_change(void)
{
    /* a: 10 s of work -> ends at 10.5; b: 0.2 s of work finishes within the
     * slow second at 0.4 s after start (its timer then finds it gone). */
    const char *path = tu_write_tmp("id,submit,duration,gpus\na,0,10,1\nb,3,0.2,1\n");
    static const pol_ops *const reg[] = {&pol_slowstart, NULL};
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = path;
    r.cfg.policy = "slowstart";
    r.cfg.registry = reg;
    ends e = {0};
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    sim_observe(&r.s, &(sim_observer){.job_done = rec_end, .job_done_ud = &e});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    CHECK_EQ_INT(e.n, 2);
    CHECK_NEAR(gs_us_to_s(r.s.now), 10.5, 0, 1e-6);
    /* jct: a 10.5, b 0.4 */
    CHECK_NEAR(sim_sketch_mean(&r.s.jct_s), (10.5 + 0.4) / 2, 1e-9, 1e-6);
    CHECK_NEAR(r.s.jct_s.max, 10.5, 0, 1e-6);
    CHECK_NEAR(r.s.slowdown.min, 10.5 / 10.0, 1e-6, 0); /* a: half speed for the first second */
    CHECK_NEAR(r.s.slowdown.max, 2.0, 1e-6, 0);         /* b: half speed throughout */
    tu_run_free(&r);
}

/* {==== suspend and resume, through a test-only policy ====}
 * "pausing" starts each job, suspends it 2 s after its first start and
 * resumes it 3 s later: a 10 s job runs 0-2, waits 2-5, runs 5-13. */
static int pause_releases;
static bool pz_place(void *st, sim *s, job *j)
{
    (void)st;
    sim_job_start(s, j, 1.0);
    if (j->starts == 1)
        sim_timer(s, 0, j, sim_now(s) + 2 * GS_US_PER_S, 1);
    return true;
}
static void pz_unplace(void *st, sim *s, job *j) { (void)st, (void)s, (void)j; pause_releases++; }
static void pz_timer(void *st, sim *s, job *j, uint32_t tag)
{
    (void)st;
    if (!strcmp(j->req.id, "doomed")) { /* killed while running: never completes */
        sim_job_fail(s, j);
        return;
    }
    if (tag == 1) {
        sim_job_suspend(s, j);
        CHECK_EQ_INT(s->suspended, 1);
        CHECK_NEAR(j->work_left_us, 8e6, 0, 1e-6);
        sim_timer(s, 0, j, sim_now(s) + 3 * GS_US_PER_S, 2);
    } else {
        CHECK(sim_job_resume(s, j));
    }
}
static const pol_space pz_space = {.can_ever_fit = any_fits, .place = pz_place, .unplace = pz_unplace,
                                   .shape_key = one_shape};
static const pol_ops pol_pausing = {
    .abi = POL_ABI, .name = "pausing", .summary = "test", .kind = POL_SPACE, .params = ss_params,
    .init = ss_init, .fini = free, .timer = pz_timer, .space = &pz_space,
};

static void suspend_resume(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus\na,0,10,1\ndoomed,1,10,1\n");
    static const pol_ops *const reg[] = {&pol_pausing, NULL};
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = path;
    r.cfg.policy = "pausing";
    r.cfg.registry = reg;
    pause_releases = 0;
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    CHECK_EQ_INT(sim_run(&r.s), 0);
    CHECK_NEAR(gs_us_to_s(r.s.now), 13, 0, 1e-9);
    CHECK_EQ_INT(r.s.completed, 1);
    CHECK_EQ_INT(r.s.failed, 1);
    CHECK_EQ_INT(r.s.suspended, 0);
    CHECK_EQ_INT(r.s.jct_s.n, 1);
    CHECK_EQ_INT(pause_releases, 3); /* a: suspension and end; doomed: killed at 3 s */
    CHECK_EQ_INT(r.s.queue_s.n, 2);  /* queue time counts the first start only */
    CHECK_NEAR(r.s.slowdown.max, 1.3, 1e-9, 0);
    tu_run_free(&r);
}

/* No node limits CPU or memory: requests that differ only by those asks
 * share a queue class (pol_whole's shape key), and start as they do
 * without the asks. Under backfilling each ask keeps its own class. */
static void host_free_shapes(void)
{
    char with[2048] = "id,submit,duration,gpus,cpu,mem_gib\n", without[2048] = "id,submit,duration,gpus\n";
    for (int i = 0; i < 16; i++) {
        int g = 1 + (i % 3 == 0), d = 5 + i % 4;
        snprintf(with + strlen(with), sizeof with - strlen(with), "j%d,%d,%d,%d,%d,%d\n", i, i / 4, d, g, 1 + i, 8 + 3 * i);
        snprintf(without + strlen(without), sizeof without - strlen(without), "j%d,%d,%d,%d\n", i, i / 4, d, g);
    }
    rec a = {0}, b = {0}, c = {0};
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(with), "H100-SXM5-80GB:4", 4, "whole", NULL, record, &a), 0);
    CHECK(r.s.queue.ncls <= 2); /* one class a card count */
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(without), "H100-SXM5-80GB:4", 4, "whole", NULL, record, &b), 0);
    tu_run_free(&r);
    CHECK_EQ_INT(a.n, 16);
    CHECK_EQ_INT(b.n, 16);
    for (int i = 0; i < a.n; i++) {
        int k = find(&b, a.id[i]);
        CHECK(k >= 0);
        CHECK_NEAR(a.start_s[i], k >= 0 ? b.start_s[k] : -1, 0, 1e-9);
    }
    const char *bf[] = {"queue=backfill", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(with), "H100-SXM5-80GB:4", 4, "whole", bf, record, &c), 0);
    CHECK(r.s.queue.ncls > 8);
    tu_run_free(&r);
}

const test_case tests_whole[] = {
    {"core/suspend_resume_keeps_work_left", suspend_resume},
    {"whole/skip_vs_fifo_hand_timeline", skip_vs_fifo},
    {"whole/priority_then_submit_order", priority_order},
    {"whole/reject_oversize_and_account_every_row", reject_and_account},
    {"whole/unknown_gpu_model_is_input_error", unknown_model_is_input_error},
    {"whole/binpack_vs_spread", binpack_vs_spread},
    {"whole/bad_params_and_unknown_policy", bad_params},
    {"whole/until_accounting", until_accounting},
    {"core/rate_change_reschedules_completion", rate_change},
    {"whole/host_free_asks_share_a_class", host_free_shapes},
    {NULL, NULL},
};
