/* test_service.c - inference services: a continuous-batching timeline worked
 * out by hand, M/M/1 latency (mean and P99) against theory, autoscaling on a
 * step in load and scale to zero at computed times, contention slowing a
 * replica, and bad request rows.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_module.h"
#include "../sim/sim_report.h"
#include "../sim/sim_struct.h"
#include "check.h"
#include "testutil.h"

/* cold start made 0 (or pod start only) so timelines are easy to compute */
static const char *no_cold[] = {"svc_pod_start_s=0", "svc_import_s=0", "svc_compile_s=0", "svc_graph_s=0", NULL};

typedef struct lats {
    double *v;
    long n, cap;
} lats;

static void on_req(void *ud, const char *svc, double lat)
{
    lats *l = ud;
    (void)svc;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = lat;
}

static int run_svc(tu_run *r, const char *trace, const char *const *sets, const char *policy_reg_name,
                   const pol_ops *const *reg, lats *l,
                   void (*on_scale)(void *, const char *, double, const char *, int), void *scale_ud)
{
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = policy_reg_name;
    r->cfg.registry = reg;
    tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_from_spec(&r->cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &r->err)))
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)))
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.request_done = l ? on_req : NULL, .request_ud = l,
                                       .svc_scale = on_scale, .svc_scale_ud = scale_ud});
    if ((r->rc = sim_run(&r->s)))
        r->err = r->s.err;
    return r->rc;
}

/* max_batch 4, decode 10 ms + 1 ms x batch, prefill 0.1 ms/token.
 * A and B (100 tokens in, 3 out) at 0; C (50 in, 2 out) at 15 ms.
 * Block 1 at 0: A,B: first iteration 200 x 0.1 + 10 + 2 = 32 ms (TTFT 32 for A
 * and B); C arrives mid-iteration and joins at 32. Block 2 at 32: A,B,C: first
 * iteration 50 x 0.1 + 10 + 3 = 18 ms -> 50 (C's TTFT 50 - 15 = 35 ms), then
 * 13 ms iterations: C needs 2 tokens, A and B 2 more -> all done at 63 ms.
 * Latency: A, B 63 ms; C 48 ms. */
static void batching_hand_timeline(void)
{
    const char *trace =
        "id,submit,duration,gpus,kind,service,input_tokens,output_tokens,max_batch,replicas_min,"
        "decode_ms_base,decode_ms_per_seq,prefill_ms_per_token,weights_gib\n"
        "chat,0,,1,service,,,,4,1,10,1,0.1,0\n"
        "A,0,,,request,chat,100,3,,,,,,\n"
        "B,0,,,request,chat,100,3,,,,,,\n"
        "C,0.015,,,request,chat,50,2,,,,,,\n";
    tu_run r;
    lats l = {0};
    CHECK_EQ_INT(run_svc(&r, trace, no_cold, "whole", NULL, &l, NULL, NULL), 0);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3) {
        /* completion order: all at 63 ms; A and B latency 0.063, C 0.048 */
        double sum = l.v[0] + l.v[1] + l.v[2];
        CHECK_NEAR(sum, 0.063 + 0.063 + 0.048, 0, 1e-9);
        CHECK_NEAR(fmax(fmax(l.v[0], l.v[1]), l.v[2]), 0.063, 0, 1e-9);
        CHECK_NEAR(fmin(fmin(l.v[0], l.v[1]), l.v[2]), 0.048, 0, 1e-9);
    }
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    const cJSON *svc = cJSON_GetArrayItem(cJSON_GetObjectItem(rep, "services"), 0);
    const cJSON *tt = cJSON_GetObjectItem(svc, "ttft_s");
    CHECK_NEAR(cJSON_GetObjectItem(tt, "mean")->valuedouble, (0.032 + 0.032 + 0.035) / 3, 0, 1e-9);
    CHECK_NEAR(cJSON_GetObjectItem(tt, "max")->valuedouble, 0.035, 0, 1e-9);
    CHECK_EQ_INT(cJSON_GetObjectItem(svc, "served")->valueint, 3);
    cJSON_Delete(rep);
    free(l.v);
    tu_run_free(&r);
}

static int cmp(const void *a, const void *c)
{
    double x = *(const double *)a, y = *(const double *)c;
    return x < y ? -1 : x > y;
}

/* One replica, batch 1, exponential service of mean 100 ms (mu = 10/s),
 * Poisson arrivals at 7/s: M/M/1 FCFS, sojourn time exponential with rate
 * mu - lambda = 3/s: mean 1/3 s, P99 ln(100)/3 = 1.535 s. Tolerance: 4
 * batch-means standard errors (30 batches after a 10% warm-up). */
static void mm1_latency(void)
{
    const char *trace = "id,submit,duration,gpus,kind,max_batch,replicas_min,replicas_max,rate,svc_mean_ms,"
                        "weights_gib\nm,0,20000,1,service,1,1,1,7,100,0\n";
    tu_run r;
    lats l = {0};
    CHECK_EQ_INT(run_svc(&r, trace, no_cold, "whole", NULL, &l, NULL, NULL), 0);
    CHECK(l.n > 120000);
    long warm = l.n / 10, nb = 30, per = (l.n - warm) / nb;
    double mean = 0, bm[30], bp[30], p99 = 0;
    for (long b = 0; b < nb; b++) {
        double *x = malloc((size_t)per * sizeof *x), s = 0;
        for (long i = 0; i < per; i++)
            s += x[i] = l.v[warm + b * per + i];
        qsort(x, (size_t)per, sizeof *x, cmp);
        bm[b] = s / per;
        bp[b] = x[(long)ceil(0.99 * per) - 1];
        mean += bm[b] / nb;
        p99 += bp[b] / nb;
        free(x);
    }
    double vm = 0, vp = 0;
    for (long b = 0; b < nb; b++) {
        vm += (bm[b] - mean) * (bm[b] - mean);
        vp += (bp[b] - p99) * (bp[b] - p99);
    }
    double se_m = sqrt(vm / (nb - 1) / nb), se_p = sqrt(vp / (nb - 1) / nb);
    printf("    M/M/1 service: mean latency %.4f s (theory %.4f, SE %.4f), P99 %.4f s (theory %.4f, SE %.4f)\n",
           mean, 1 / 3.0, se_m, p99, log(100) / 3, se_p);
    CHECK_NEAR(mean, 1 / 3.0, 0, 4 * se_m);
    CHECK_NEAR(p99, log(100) / 3, 0, 4 * se_p);
    free(l.v);
    tu_run_free(&r);
}


typedef struct scale_log {
    int n;
    char what[16][16];
    double t[16];
    int reps[16];
} scale_log;

static void on_scale(void *ud, const char *svc, double t, const char *what, int reps)
{
    scale_log *g = ud;
    (void)svc;
    if (g->n < 16) {
        snprintf(g->what[g->n], 16, "%s", what);
        g->t[g->n] = t;
        g->reps[g->n++] = reps;
    }
}

/* Step in load: a 0.1 s request every second until t = 99 (util 0.1), then a
 * 0.15 s request every 0.1 s from 100 to 199.9 (1.5 x one replica). Only the
 * busy-fraction rule is on (P99 and occupancy thresholds out of reach). Ticks
 * every 15 s: window [90,105] is 6 s busy of 15 (0.4); [105,120] is fully busy
 * -> scale out at 120, pod start 5 s -> ready at 125 (max 2: no more). Both
 * replicas drain the backlog and go idle just after 200; with svc_idle_s = 30
 * the first tick with 30 s of idleness is 240: one scales in (min 1). */
static void autoscale_step(void)
{
    size_t cap = 64 * 1200;
    char *trace = malloc(cap);
    size_t n = (size_t)snprintf(trace, cap, "id,submit,duration,gpus,kind,service,replicas_min,replicas_max,"
                                            "max_batch,weights_gib\ns,0,,1,service,,1,2,1,0\n");
    for (int i = 1; i <= 99; i++)
        n += (size_t)snprintf(trace + n, cap - n, "a%d,%d,0.1,,request,s,,,,\n", i, i);
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(trace + n, cap - n, "b%d,%d.%d,0.15,,request,s,,,,\n", i, 100 + i / 10, i % 10);
    const char *sets[] = {"svc_pod_start_s=5", "svc_import_s=0", "svc_compile_s=0", "svc_graph_s=0",
                          "svc_autoscaler=threshold", "svc_idle_s=30", "svc_p99_high_ms=1e12", "svc_mem_high=2", NULL};
    tu_run r;
    scale_log g = {0};
    lats l = {0};
    CHECK_EQ_INT(run_svc(&r, trace, sets, "whole", NULL, &l, on_scale, &g), 0);
    CHECK_EQ_INT(g.n, 5);
    if (g.n == 5) {
        CHECK(!strcmp(g.what[0], "cold_start") && g.t[0] == 0);
        CHECK(!strcmp(g.what[1], "ready") && g.t[1] == 5);
        CHECK(!strcmp(g.what[2], "cold_start"));
        CHECK_NEAR(g.t[2], 120, 0, 1e-9);
        CHECK(!strcmp(g.what[3], "ready"));
        CHECK_NEAR(g.t[3], 125, 0, 1e-9);
        CHECK(!strcmp(g.what[4], "scale_in"));
        CHECK_NEAR(g.t[4], 240, 0, 1e-9);
        CHECK_EQ_INT(g.reps[4], 1);
    }
    CHECK_EQ_INT(l.n, 1099);
    free(l.v);
    free(trace);
    tu_run_free(&r);
}

/* Scale to zero: no replica until the first request at t = 10, which waits
 * for the 5 s cold start: latency 5.1 s. The replica idles from 15.1; the first
 * tick (every 15 s from 0) with 30 s of idleness is 60: replica-hours 50/3600. */
static void scale_to_zero(void)
{
    const char *trace = "id,submit,duration,gpus,kind,service,replicas_min,replicas_init,weights_gib\n"
                        "s,0,,1,service,,0,0,0\nr,10,0.1,,request,s,,,\n";
    const char *sets[] = {"svc_pod_start_s=5", "svc_import_s=0", "svc_compile_s=0", "svc_graph_s=0",
                          "svc_autoscaler=threshold", "svc_idle_s=30", NULL};
    tu_run r;
    scale_log g = {0};
    lats l = {0};
    CHECK_EQ_INT(run_svc(&r, trace, sets, "whole", NULL, &l, on_scale, &g), 0);
    CHECK_EQ_INT(l.n, 1);
    if (l.n == 1)
        CHECK_NEAR(l.v[0], 5.1, 0, 1e-9);
    CHECK_EQ_INT(g.n, 3);
    if (g.n == 3) {
        CHECK(!strcmp(g.what[2], "scale_in"));
        CHECK_NEAR(g.t[2], 60, 0, 1e-9);
    }
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    const cJSON *svc = cJSON_GetArrayItem(cJSON_GetObjectItem(rep, "services"), 0);
    CHECK_NEAR(cJSON_GetObjectItem(svc, "replica_hours")->valuedouble, 50.0 / 3600, 1e-9, 0);
    CHECK_NEAR(gs_us_to_s(r.s.now), 60, 0, 1e-9);
    cJSON_Delete(rep);
    free(l.v);
    tu_run_free(&r);
}

/* Contention: a space policy that runs every task at half speed doubles
 * both a time-mode request (0.4 s of work -> 0.8 s) and token iterations. */
static bool half_fits(void *st, const sim *s, const job *j) { (void)st, (void)s, (void)j; return true; }
static bool half_place(void *st, sim *s, job *j)
{
    (void)st;
    sim_job_start(s, j, 0.5);
    return true;
}
static void half_unplace(void *st, sim *s, job *j) { (void)st, (void)s, (void)j; }
static uint64_t one_shape(const void *state, const job *j)
{
    (void)state, (void)j;
    return 0;
}
static int half_init(sim *s, int index, void **state, gs_error *err)
{
    (void)s, (void)index, (void)err;
    *state = malloc(1);
    return 0;
}
static const pol_param no_params[] = {{NULL, NULL, NULL, {0, 0, 0, NULL, NULL}}};
static const pol_space half_space = {
    .can_ever_fit = half_fits, .place = half_place, .unplace = half_unplace, .shape_key = one_shape,
};
static const pol_ops pol_half = {
    .abi = POL_ABI, .name = "half", .summary = "test", .kind = POL_SPACE, .params = no_params,
    .init = half_init, .fini = free, .space = &half_space,
};

static void contention_slows_replica(void)
{
    static const pol_ops *const reg[] = {&pol_half, NULL};
    tu_run r;
    lats l = {0};
    const char *t1 = "id,submit,duration,gpus,kind,service,weights_gib\ns,0,,1,service,,0\nr,1,0.4,,request,s,\n";
    CHECK_EQ_INT(run_svc(&r, t1, no_cold, "half", reg, &l, NULL, NULL), 0);
    CHECK(l.n == 1 && fabs(l.v[0] - 0.8) < 1e-9);
    tu_run_free(&r);
    l.n = 0;
    /* tokens: one request, 100 in, 2 out, decode 10 + 1 x 1 ms, prefill 0.1 ms/token:
     * full speed (10 + 11) + 11 = 32 ms; at half speed 64 ms */
    const char *t2 = "id,submit,duration,gpus,kind,service,input_tokens,output_tokens,decode_ms_base,"
                     "decode_ms_per_seq,prefill_ms_per_token,weights_gib\n"
                     "s,0,,1,service,,,,10,1,0.1,0\nr,1,,,request,s,100,2,,,,\n";
    CHECK_EQ_INT(run_svc(&r, t2, no_cold, "half", reg, &l, NULL, NULL), 0);
    CHECK(l.n == 1 && fabs(l.v[0] - 0.064) < 1e-9);
    tu_run_free(&r);
    free(l.v);
}

/* Inference next to training on one vgpu card (the seed article's claim that
 * co-located training raises inference P99). The replica (util 0.6, 50 cores)
 * and a training task (util 1, 50 cores) share an A100: under HAMi's default
 * core policy both are capped at 0.5 while both are active, and two tenants
 * run at efficiency 0.95, so the replica runs at r = 0.95 x 0.5 / 0.6 = 0.792 of
 * its solo speed for the whole run: an M/M/1 server of rate 10 r. Mean latency
 * 1/(10 r - 6) = 0.522 s against 1/(10 - 6) = 0.25 s alone. 4 batch-means SE. */
static void contention_next_to_training(void)
{
    const char *trace = "id,submit,duration,gpus,gpumem,gpucores,util,kind,replicas_min,replicas_max,max_batch,"
                        "weights_gib,rate,svc_mean_ms\n"
                        "embed,0,20000,1,20480,50,0.6,service,1,1,1,0,6,100\n"
                        "train,0,40000,1,40960,50,1.0,job,,,,,,\n";
    tu_run r;
    lats l = {0};
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = tu_write_tmp(trace);
    r.cfg.policy = "vgpu";
    tu_add_sets(&r.cfg, no_cold);
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "A100-SXM4-80GB:1", 8, tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    sim_observe(&r.s, &(sim_observer){.request_done = on_req, .request_ud = &l});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    double se, mean = tu_batch_means(l.v, l.n, &se), rate = 0.95 * 0.5 / 0.6, want = 1 / (10 * rate - 6);
    printf("    inference next to training: mean latency %.4f s (theory %.4f, SE %.4f; alone 0.25)\n", mean, want,
           se);
    CHECK_NEAR(mean, want, 0, 4 * se);
    free(l.v);
    tu_run_free(&r);
}

static void bad_rows(void)
{
    tu_run r;
    CHECK_EQ_INT(run_svc(&r, "id,submit,kind,service,output_tokens\nx,0,request,nope,3\n", NULL, "whole", NULL,
                         NULL, NULL, NULL), GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 2");
    CHECK_STR_HAS(r.err.msg, "service 'nope'");
    tu_run_free(&r);
    CHECK_EQ_INT(run_svc(&r, "id,submit,gpus,kind,rate,svc_mean_ms\ns,0,1,service,5,100\n", NULL, "whole", NULL,
                         NULL, NULL, NULL), GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "needs a duration");
    tu_run_free(&r);
}

/* Heap events their module calls void (sim_module.event_void). */
static long heap_voids(const sim *s)
{
    long v = 0;
    for (size_t i = 0; i < s->heap.n; i++) {
        const sim_event *e = &s->heap.ev[i];
        if (e->type < EV_MODULE)
            continue;
        int mi = e->type >= EV_MODULE_WEAK ? (int)(e->type - EV_MODULE_WEAK) : (int)(e->type - EV_MODULE);
        const sim_module *m = s->mod[mi];
        v += m->event_void && m->event_void(s->mst[mi], e->slot, e->gen, e->aux);
    }
    return v;
}

typedef struct void_watch {
    const sim *s;
    long served, most_void, over;
    gs_time_us last_us; /* the requests' last arrival: replicas retire after it */
} void_watch;

static void on_req_void(void *ud, const char *svc, double lat)
{
    void_watch *w = ud;
    (void)svc, (void)lat;
    if (w->served++ % 64 || sim_now(w->s) > w->last_us)
        return;
    long v = heap_voids(w->s), bound = (long)w->s->heap.n / 4 > 4096 ? (long)w->s->heap.n / 4 : 4096;
    w->most_void = v > w->most_void ? v : w->most_void;
    w->over += v > bound;
}

/* Every request that joins a running block moves the block's end earlier
 * and leaves the later end in the heap: 8,192 replicas a GPU each, two
 * requests a second each, would hold about two void ends a replica. They
 * are counted (sim_event_voided) and leave the heap at once when a quarter
 * of it may be void: the heap never holds more than that (or 4,096). */
static void void_block_ends_leave_heap(void)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = tu_write_tmp("id,submit,duration,gpus,kind,model,tp,replicas_min,replicas_max,replicas_init,"
                                    "rate,input_tokens,output_tokens\n"
                                    "svc,0,66,1,service,llama-3.1-8b,1,8192,8192,8192,16384,512,128\n");
    r.cfg.policy = "whole";
    CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:8192", 8, tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    void_watch w = {.s = &r.s, .last_us = 66000000};
    sim_observe(&r.s, &(sim_observer){.request_done = on_req_void, .request_ud = &w});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    printf("    %ld requests served; at most %ld void events in the heap at a check\n", w.served, w.most_void);
    CHECK(w.served > 50000);
    CHECK(w.most_void > 1000); /* voids did pile up between passes */
    CHECK_EQ_INT((int)w.over, 0);
    tu_run_free(&r);
}

const test_case tests_service[] = {
    {"service/continuous_batching_hand_timeline", batching_hand_timeline},
    {"service/mm1_mean_and_p99_latency", mm1_latency},
    {"service/void_block_ends_leave_the_heap", void_block_ends_leave_heap},
    {"service/autoscale_step_out_and_in", autoscale_step},
    {"service/scale_to_zero_cold_start", scale_to_zero},
    {"service/contention_slows_replica", contention_slows_replica},
    {"service/contention_next_to_training_vgpu", contention_next_to_training},
    {"service/bad_rows", bad_rows},
    {NULL, NULL},
};
