/* test_share.c - shared cards (`vgpu`, `timeslice`): hand timelines whose
 * figures come from the contention rule in policies/README.md, the seed
 * article's swap example, OOM with and without retry, HAMi placement, and an
 * M/M/1 processor-sharing check.
 *
 * The rule, for reference: on a card with k running tenants, tenant i gets
 * card time x_i by max-min fair water-filling of 1 under bounds b_i (its
 * demand, or min(demand, gpucores/100) while capped) and runs at
 * eff(k) * f_swap * x_i / demand_i, eff(k) = max(0.75, 1 - 0.05 (k - 1)).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../policies/share/share_state.h"
#include "../sim/sim_report.h"
#include "../workloads/wl_gen.h"
#include "check.h"
#include "testutil.h"

typedef struct ends {
    int n;
    char id[16][16];
    double start_s[16], end_s[16];
    int gpu0[16], gpu1[16], node[16];
    const tu_run *r;
} ends;

static void rec(void *ud, const job *j)
{
    ends *e = ud;
    if (e->n >= 16)
        return;
    snprintf(e->id[e->n], 16, "%.15s", j->req.id);
    e->start_s[e->n] = gs_us_to_s(j->start_us);
    e->end_s[e->n] = gs_us_to_s(e->r->s.now);
    e->gpu0[e->n] = j->ngpu_ids > 0 ? job_gpu_ids(j)[0] : -1;
    e->gpu1[e->n] = j->ngpu_ids > 1 ? job_gpu_ids(j)[1] : -1;
    e->node[e->n] = j->node;
    e->n++;
}

static double end_of(const ends *e, const char *id)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->id[i], id))
            return e->end_s[i];
    return -1;
}

static int run(tu_run *r, ends *e, const char *trace, const char *spec, int per_node, const char *pol,
               const char *const *sets)
{
    memset(e, 0, sizeof *e);
    e->r = r;
    return tu_run_trace(r, tu_write_tmp(trace), spec, per_node, pol, sets, rec, e);
}

/* Two busy tasks (demand 1) of 10 s on one card. timeslice: x = 0.5 each,
 * eff(2) = 0.95, rate 0.475: both end at 10 / 0.475 = 21.0526 s; without the
 * switch cost, at 20 s. vgpu with gpucores=50, util=1: capped at 0.5 while
 * the other runs: the same figures. */
static void two_busy_tasks(void)
{
    tu_run r;
    ends e;
    const char *ts = "id,submit,duration,gpus\na,0,10,1\nb,0,10,1\n";
    CHECK_EQ_INT(run(&r, &e, ts, "A10G:1", 1, "timeslice", NULL), 0);
    CHECK_NEAR(end_of(&e, "a"), 10 / 0.475, 0, 2e-6);
    CHECK_NEAR(end_of(&e, "b"), 10 / 0.475, 0, 2e-6);
    CHECK_NEAR(r.s.slowdown.max, 1 / 0.475, 1e-6, 0);
    tu_run_free(&r);
    const char *nocost[] = {"switch_cost=0", NULL};
    CHECK_EQ_INT(run(&r, &e, ts, "A10G:1", 1, "timeslice", nocost), 0);
    CHECK_NEAR(end_of(&e, "a"), 20, 0, 2e-6);
    tu_run_free(&r);

    const char *vg = "id,submit,duration,gpus,gpumem,gpucores,util\na,0,10,1,1000,50,1\nb,0,10,1,1000,50,1\n";
    CHECK_EQ_INT(run(&r, &e, vg, "A10G:1", 1, "vgpu", NULL), 0);
    CHECK_NEAR(end_of(&e, "a"), 10 / 0.475, 0, 2e-6);
    CHECK_NEAR(end_of(&e, "b"), 10 / 0.475, 0, 2e-6);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, &e, vg, "A10G:1", 1, "vgpu", nocost), 0);
    CHECK_NEAR(end_of(&e, "b"), 20, 0, 2e-6);
    tu_run_free(&r);

    /* util left at its default (gpucores/100 = 0.5 each, summing to 1): the
     * card fits both, full speed less the switch cost: 10 / 0.95 s; without
     * it exactly 10 s */
    const char *half = "id,submit,duration,gpus,gpumem,gpucores\na,0,10,1,1000,50\nb,0,10,1,1000,50\n";
    CHECK_EQ_INT(run(&r, &e, half, "A10G:1", 1, "vgpu", NULL), 0);
    CHECK_NEAR(end_of(&e, "a"), 10 / 0.95, 0, 2e-6);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, &e, half, "A10G:1", 1, "vgpu", nocost), 0);
    CHECK_NEAR(end_of(&e, "a"), 10, 0, 2e-6);
    CHECK_NEAR(end_of(&e, "b"), 10, 0, 2e-6);
    CHECK_NEAR(r.s.slowdown.max, 1.0, 1e-9, 0);
    tu_run_free(&r);
}

/* core_scaling=1.2: a card has 120 cores, so four 30-core tasks fit on one
 * card. All four busy: demands 0.3 each sum to 1.2, water-filling gives each
 * 0.25 of the card, rate 0.25/0.30 = 0.8333 (1.2x slower) times eff(4) =
 * 0.85: 0.70833, so 10 s of work ends at 14.1176 s (12 s with no switch
 * cost). At core_scaling=1 the fourth does not fit (90 + 30 > 100): three
 * run at eff(3) = 0.9 (their demands sum to 0.9 <= 1) and end at 11.11 s;
 * the fourth then runs alone, 11.11 .. 21.11 s. */
static void core_scaling_four_tasks(void)
{
    tu_run r;
    ends e;
    const char *tr = "id,submit,duration,gpus,gpumem,gpucores\na,0,10,1,1000,30\nb,0,10,1,1000,30\n"
                     "c,0,10,1,1000,30\nd,0,10,1,1000,30\n";
    const char *s12[] = {"core_scaling=1.2", NULL}, *s12n[] = {"core_scaling=1.2", "switch_cost=0", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", s12), 0);
    CHECK_NEAR(r.s.queue_s.max, 0, 0, 1e-9);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(e.end_s[i], 10 / (0.85 * 0.25 / 0.30), 0, 2e-6);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", s12n), 0);
    CHECK_NEAR(end_of(&e, "d"), 12, 0, 2e-6);
    CHECK_NEAR(sim_sketch_mean(&r.s.slowdown), 1.2, 1e-6, 0);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", NULL), 0);
    CHECK_NEAR(end_of(&e, "a"), 10 / 0.9, 0, 2e-6);
    CHECK_NEAR(end_of(&e, "d"), 10 / 0.9 + 10, 0, 4e-6);
    tu_run_free(&r);
}

/* core_policy: a lone task of util 1 with gpucores=50 runs unthrottled under
 * default (10 s) and at its cap under force (0.5: 20 s). */
static void core_policy_force(void)
{
    tu_run r;
    ends e;
    const char *tr = "id,submit,duration,gpus,gpumem,gpucores,util\na,0,10,1,1000,50,1\n";
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", NULL), 0);
    CHECK_NEAR(end_of(&e, "a"), 10, 0, 2e-6);
    tu_run_free(&r);
    const char *force[] = {"core_policy=force", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", force), 0);
    CHECK_NEAR(end_of(&e, "a"), 20, 0, 2e-6);
    tu_run_free(&r);
}

/* A 2-vGPU task runs at the slower of its cards. Node of 2 cards: a (1 card,
 * busy) lands on card 0; x (2 cards, busy) shares card 0 with a (0.5 each, no
 * switch cost) and has card 1 alone (1.0): x runs at 0.5, so a and x both
 * end at 20 s. */
static void multi_card_min_rate(void)
{
    tu_run r;
    ends e;
    const char *tr = "id,submit,duration,gpus,gpumem,util\na,0,10,1,1000,1\nx,0,10,2,1000,1\n";
    const char *nocost[] = {"switch_cost=0", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 2, "vgpu", nocost), 0);
    CHECK_NEAR(end_of(&e, "a"), 20, 0, 2e-6);
    CHECK_NEAR(end_of(&e, "x"), 20, 0, 2e-6);
    tu_run_free(&r);
}

/* HAMi scoring: two small tasks on a node of 2 cards go to different cards
 * under card_policy=spread (default), the same card under binpack; on two
 * 1-card nodes, vgpu's node_policy=binpack (default) puts b on a's node only
 * if it fits there (it does: the busier node wins), spread on the other
 * node. */
static void placement_scores(void)
{
    tu_run r;
    ends e;
    const char *tr = "id,submit,duration,gpus,gpumem,gpucores\na,0,10,1,1000,10\nb,1,10,1,1000,10\n";
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 2, "vgpu", NULL), 0);
    CHECK(e.gpu0[0] != e.gpu0[1]);
    tu_run_free(&r);
    const char *cb[] = {"card_policy=binpack", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 2, "vgpu", cb), 0);
    CHECK_EQ_INT(e.gpu0[0], e.gpu0[1]);
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 1, "vgpu", NULL), 0);
    CHECK_EQ_INT(e.node[0], e.node[1]);
    tu_run_free(&r);
    const char *ns[] = {"node_policy=spread", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 1, "vgpu", ns), 0);
    CHECK(e.node[0] != e.node[1]);
    tu_run_free(&r);
    /* timeslice and mps follow the Kubernetes default scheduler
     * (LeastAllocated): spread by default, b on the other node; binpack on
     * request */
    const char *const spreaders[] = {"timeslice", "mps"};
    const char *nb[] = {"node_policy=binpack", NULL};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 1, spreaders[k], NULL), 0);
        CHECK(e.node[0] != e.node[1]);
        tu_run_free(&r);
        CHECK_EQ_INT(run(&r, &e, tr, "A10G:2", 1, spreaders[k], nb), 0);
        CHECK_EQ_INT(e.node[0], e.node[1]);
        tu_run_free(&r);
    }
}

/* The seed article's example: 29,000 MiB committed on an A10G (23,028 MiB
 * physical, admitted with mem_scaling=1.5) puts 5,972 MiB in host memory.
 * oversub=swap: both run, thrashing: each 1 s turn pays S = 5972 MiB / 32
 * GB/s = 0.195689 s of swap, f = 1 / 1.195689; rate = 0.95 x 0.5 x f =
 * 0.397261, so 100 s of work ends at 251.724 s; bytes each way = 5972 MiB x
 * turns, turns = 251.724 / 1.195689; thrash 251.724 x S / (1 + S) card-s;
 * wait twice that (two tenants wait each swap).
 * oversub=oom: b's allocation crosses the physical card: killed at once,
 * a runs alone (100 s). */
static void seed_swap_vs_oom(void)
{
    tu_run r;
    ends e;
    const char *tr = "id,submit,duration,gpus,gpumem\na,0,100,1,20000\nb,0,100,1,9000\n";
    const char *swap[] = {"mem_scaling=1.5", "oversub=swap", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", swap), 0);
    const sc_state *st = r.s.pst[0];
    double S = 5972 * 1048576.0 / 32e9, end = 100 / (0.95 * 0.5 / (1 + S));
    CHECK_NEAR(st->g_host_mib.peak, 5972, 0, 1e-9);
    CHECK_EQ_INT(r.s.completed, 2);
    CHECK_NEAR(end_of(&e, "a"), end, 0, 2e-6);
    CHECK_NEAR(sim_gauge_area(&st->g_swap_bps, r.s.now), 5972 * 1048576.0 * end / (1 + S), 1e-6, 0);
    CHECK_NEAR(sim_gauge_area(&st->g_thrash, r.s.now), end * S / (1 + S), 1e-6, 0);
    CHECK_NEAR(sim_gauge_area(&st->g_wait, r.s.now), 2 * end * S / (1 + S), 1e-6, 0);
    CHECK_EQ_INT(st->oom_killed, 0);
    tu_run_free(&r);

    const char *oom[] = {"mem_scaling=1.5", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", oom), 0);
    st = r.s.pst[0];
    CHECK_EQ_INT(st->oom_killed, 1);
    CHECK_EQ_INT(r.s.failed, 1);
    CHECK_EQ_INT(r.s.completed, 1);
    CHECK_NEAR(end_of(&e, "a"), 100, 0, 1e-9);
    /* the failure says why: by cause in the report, once on the warnings
     * (stderr) and in the summary */
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(rep, "jobs");
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(jobs, "failed_by_cause");
    CHECK_EQ_INT((int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fc, "oom")), 1);
    CHECK_EQ_INT((int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fc, "co_tenant_fault")), 0);
    CHECK_STR_HAS(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(jobs, "oom_cause")),
                  "memory overcommitted (mem_scaling=1.5)");
    CHECK_EQ_INT(sim_nwarnings(&r.s), 1);
    if (sim_nwarnings(&r.s) == 1)
        CHECK_STR_HAS(sim_warning(&r.s, 0), "vgpu: jobs failed by OOM, memory overcommitted (mem_scaling=1.5)");
    char *sum = NULL;
    size_t sum_n = 0;
    FILE *f = open_memstream(&sum, &sum_n);
    sim_report_summary(f, rep);
    fclose(f);
    CHECK_STR_HAS(sum, "failed    by cause: oom 1, co-tenant fault 0; 1 OOM kills");
    free(sum);
    cJSON_Delete(rep);
    tu_run_free(&r);
    /* without overcommit b is not admitted: it queues and runs after a */
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", NULL), 0);
    CHECK_EQ_INT(r.s.failed, 0);
    CHECK_NEAR(end_of(&e, "b"), 200, 0, 1e-9);
    tu_run_free(&r);
}

/* oom_retry: killed again while a still runs (retry after 10 s), or
 * resubmitted after a is gone (retry after 150 s: b runs 150..250 from
 * scratch; slowdown (250 - 0) / 100 = 2.5, first start at 0). */
static void oom_retry(void)
{
    tu_run r;
    ends e;
    const char *tr = "id,submit,duration,gpus,gpumem\na,0,100,1,20000\nb,0,100,1,9000\n";
    const char *r10[] = {"mem_scaling=1.5", "oom_retry=1", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", r10), 0);
    CHECK_EQ_INT(((const sc_state *)r.s.pst[0])->oom_killed, 2);
    CHECK_EQ_INT(r.s.failed, 1);
    tu_run_free(&r);
    const char *r150[] = {"mem_scaling=1.5", "oom_retry=1", "oom_backoff_s=150", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "A10G:1", 1, "vgpu", r150), 0);
    CHECK_EQ_INT(((const sc_state *)r.s.pst[0])->oom_killed, 1);
    CHECK_EQ_INT(r.s.completed, 2);
    CHECK_EQ_INT(r.s.failed, 0);
    CHECK_NEAR(end_of(&e, "b"), 250, 0, 1e-9);
    CHECK_NEAR(r.s.slowdown.max, 2.5, 1e-9, 0);
    tu_run_free(&r);
}

/* timeslice: no memory isolation; 16,000 + 16,000 MiB on an A10G: the
 * second is OOM-killed; a fifth task past replicas=4 waits. */
static void timeslice_oom_and_replicas(void)
{
    tu_run r;
    ends e;
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus,gpumem\na,0,10,1,16000\nb,1,10,1,16000\n", "A10G:1", 1,
                     "timeslice", NULL), 0);
    CHECK_EQ_INT(((const sc_state *)r.s.pst[0])->oom_killed, 1);
    CHECK_EQ_INT(r.s.failed, 1);
    CHECK_NEAR(end_of(&e, "a"), 10, 0, 1e-9);
    tu_run_free(&r);
    /* five busy 10 s tasks, replicas 4, no switch cost: four at 1/4 end at
     * 40 s, the fifth then alone 40..50 */
    const char *nocost[] = {"switch_cost=0", NULL};
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus\na,0,10,1\nb,0,10,1\nc,0,10,1\nd,0,10,1\ne,0,10,1\n", "A10G:1",
                     1, "timeslice", nocost), 0);
    CHECK_NEAR(end_of(&e, "a"), 40, 0, 2e-6);
    CHECK_NEAR(end_of(&e, "e"), 50, 0, 2e-6);
    tu_run_free(&r);
}

/* Report ratios on one A10G for 10 s: one task of gpumem_pct=50 and
 * gpucores=50 (demand 0.5): memory allocated and used 0.5 of physical, the
 * card busy half the time. */
static void report_ratios(void)
{
    tu_run r;
    ends e;
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus,gpumem_pct,gpucores\na,0,10,1,50,50\n", "A10G:1", 1, "vgpu",
                     NULL), 0);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddObjectToObject(root, "gpu");
    cJSON_AddObjectToObject(root, "jobs");
    cJSON_AddObjectToObject(root, "policy");
    r.s.pol[0]->report(r.s.pst[0], &r.s, root);
    const cJSON *gpu = cJSON_GetObjectItem(root, "gpu");
    CHECK_NEAR(cJSON_GetObjectItem(gpu, "mem_alloc_ratio")->valuedouble, 11514.0 / 23028, 1e-12, 0);
    CHECK_NEAR(cJSON_GetObjectItem(gpu, "mem_used_ratio")->valuedouble, 11514.0 / 23028, 1e-12, 0);
    CHECK_NEAR(cJSON_GetObjectItem(gpu, "busy_ratio")->valuedouble, 0.5, 1e-12, 0);
    CHECK_NEAR(r.s.g_alloc.area, 0.5 * 10, 1e-9, 0); /* allocated: the binding share (memory or cores) */
    CHECK(cJSON_GetObjectItem(root, "swap") != NULL);
    cJSON_Delete(root);
    tu_run_free(&r);
}

static void bad_columns_and_params(void)
{
    tu_run r;
    ends e;
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus,util\na,0,10,1,0\n", "A10G:1", 1, "vgpu", NULL), GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 2, column 5 ('util')");
    tu_run_free(&r);
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus,gpumem_pct\na,0,10,1,101\n", "A10G:1", 1, "vgpu", NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "column 5 ('gpumem_pct')");
    tu_run_free(&r);
    const char *bad[] = {"oversub=maybe", NULL};
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus\na,0,1,1\n", "A10G:1", 1, "vgpu", bad), GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "expected oom or swap");
    tu_run_free(&r);
    /* a request larger than any card even with overcommit is rejected */
    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus,gpumem\na,0,1,1,30000\n", "A10G:1", 1, "vgpu", NULL), 0);
    CHECK_EQ_INT(r.s.rejected, 1);
    tu_run_free(&r);
}

/* {==== M/M/1 processor sharing ====}
 * One card, timeslice with unlimited replicas and no switch cost: every
 * task present gets an equal share, which is the M/M/1-PS queue; its mean
 * time in system is mean / (1 - rho) (for any service distribution). The
 * tolerance is 4 batch-means standard errors (30 batches after a 10%
 * warm-up); a rule that, say, ran the newcomer at full speed, or charged a
 * switch cost, is off by several times that. */
typedef struct soj {
    double *t;
    const tu_run *r;
} soj;

static void rec_soj(void *ud, const job *j)
{
    soj *s = ud;
    s->t[j->arrival_no] = gs_us_to_s(s->r->s.now - j->req.submit_us);
}

static void mm1_ps(void)
{
    long jobs = 400000;
    double rho = 0.7;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    wl_mmc_opts o = {.jobs = jobs, .servers = 1, .util = rho, .mean_s = 1.0, .gpus_per_job = 1, .seed = 31};
    gs_error err;
    CHECK_EQ_INT(wl_gen_mmc(mem, &o, &err), 0);
    fclose(mem);
    const char *path = tu_write_tmp(buf);
    free(buf);
    tu_run r;
    soj s = {calloc((size_t)jobs, sizeof(double)), &r};
    const char *sets[] = {"replicas=0", "switch_cost=0", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, path, "A10G:1", 1, "timeslice", sets, rec_soj, &s), 0);
    CHECK_EQ_INT(r.s.completed, jobs);
    tu_run_free(&r);
    double se, mean = tu_batch_means(s.t, jobs, &se), want = 1.0 / (1 - rho);
    printf("    M/M/1-PS rho=%.1f: mean time in system %.4f s (theory %.4f, SE %.4f)\n", rho, mean, want, se);
    CHECK_NEAR(mean, want, 0, 4 * se);
    free(s.t);
}

const test_case tests_share[] = {
    {"share/two_busy_tasks_timeslice_and_vgpu", two_busy_tasks},
    {"share/core_scaling_1.2_four_30_core_tasks", core_scaling_four_tasks},
    {"share/core_policy_force_caps_alone", core_policy_force},
    {"share/multi_card_task_runs_at_slowest_card", multi_card_min_rate},
    {"share/hami_node_and_card_scores", placement_scores},
    {"share/seed_a10g_swap_vs_oom", seed_swap_vs_oom},
    {"share/oom_retry", oom_retry},
    {"share/timeslice_oom_and_replicas", timeslice_oom_and_replicas},
    {"share/report_ratios", report_ratios},
    {"share/bad_columns_and_params", bad_columns_and_params},
    {"share/mm1_processor_sharing", mm1_ps},
    {NULL, NULL},
};
