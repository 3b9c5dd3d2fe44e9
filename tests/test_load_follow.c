/* test_load_follow.c - a service replica's demand on a shared card follows
 * its own load (svc_demand=load): an M/M/1 service beside a compute-bound
 * job on one card under vgpu, timeslice and mps, against the
 * processor-sharing figures derived below, at two loads.
 *
 * The figures. One card, no switch cost, no caps: card time is shared
 * equally among the tenants that are busy. The job is always busy (demand
 * 1); the replica (batch 1, exponential service of mean 1/mu alone, demand
 * 1 while it serves) is busy exactly while it holds a request. So:
 * - while a request is served, two tenants share the card: the request runs
 *   at half speed, i.e. its service time is exponential with rate mu/2, and
 *   the service is an M/M/1 queue with rate mu/2: mean latency
 *   T = 1 / (mu/2 - lambda) (needs lambda < mu/2);
 * - the replica is busy a fraction rho' = 2 lambda / mu of the time, during
 *   which the job runs at 1/2; the rest of the time it runs alone at 1. Its
 *   mean rate is 1 - rho'/2 = 1 - lambda/mu = 1 - rho, and a job of D
 *   seconds alone completes at C = D / (1 - rho).
 * With the old static demand the idle replica kept half the card: the job
 * ran at 1/2 throughout (C = 2 D) whatever the traffic.
 *
 * Tolerances. Latency: 4 batch-means standard errors. Completion: the job
 * loses half of the replica's busy time; over a horizon C that busy time
 * B(C) has variance ~ C v, with v = Var((1 - rho') X - rho' I) / E[X + I]
 * for one busy period X (variance (1 + rho') / (mu'^2 (1 - rho')^3), mean
 * 1 / (mu' - lambda), mu' = mu/2) and idle period I (exponential, 1/lambda)
 * (renewal-reward CLT); C moves by half of B's deviation over (1 - rho'/2).
 * We allow 4 such standard deviations.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testutil.h"

typedef struct obs {
    const tu_run *r;
    double *lat;
    long n, cap;
    double cut_s;     /* requests that arrived after this are not counted */
    double job_end_s; /* the job's completion */
} obs;

static void on_req(void *ud, const char *svc, double lat)
{
    obs *o = ud;
    (void)svc;
    if (gs_us_to_s(o->r->s.now) - lat > o->cut_s)
        return;
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 65536;
        o->lat = realloc(o->lat, (size_t)o->cap * sizeof *o->lat);
    }
    o->lat[o->n++] = lat;
}

static void on_done(void *ud, const job *j)
{
    obs *o = ud;
    if (!strcmp(j->req.id, "train"))
        o->job_end_s = gs_us_to_s(o->r->s.now);
}

/* Runs the service (lambda/s, mean 100 ms alone, over 2 C) beside a job of
 * D = C (1 - rho) seconds on one H100 under pol and sets; fills o. */
static int run(tu_run *r, obs *o, const char *pol, const char *const *sets, double lambda, double c_s)
{
    double rho = lambda / 10.0, d = c_s * (1 - rho);
    char trace[512];
    snprintf(trace, sizeof trace,
             "id,submit,duration,gpus,gpumem,kind,max_batch,replicas_min,replicas_max,rate,svc_mean_ms,"
             "weights_gib\nm,0,%.0f,1,20000,service,1,1,1,%g,100,0\ntrain,0,%.6f,1,40000,job,,,,,,\n",
             2 * c_s, lambda, d);
    memset(r, 0, sizeof *r);
    memset(o, 0, sizeof *o);
    o->r = r;
    o->cut_s = 0.97 * c_s;
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = pol;
    r->cfg.seed = 5;
    static const char *const no_cold[] = {"svc_pod_start_s=0", "svc_import_s=0", "svc_compile_s=0",
                                          "svc_graph_s=0", NULL};
    tu_add_sets(&r->cfg, no_cold);
    tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_from_spec(&r->cl, "H100-SXM5-80GB:1", 1, tu_catalog(), &r->err)) ||
        (r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)))
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.request_done = on_req, .request_ud = o, .job_done = on_done, .job_done_ud = o});
    return r->rc = sim_run(&r->s);
}

/* the standard deviation of the job's completion over horizon c_s (above) */
static double completion_sd(double lambda, double mu, double c_s)
{
    double mu2 = mu / 2, r2 = lambda / mu2;
    double ex = 1 / (mu2 - lambda), vx = (1 + r2) / (mu2 * mu2 * pow(1 - r2, 3)), vi = 1 / (lambda * lambda);
    double v = ((1 - r2) * (1 - r2) * vx + r2 * r2 * vi) / (ex + 1 / lambda);
    return 0.5 * sqrt(v * c_s) / (1 - r2 / 2);
}

static void check_load(const char *pol, const char *const *sets, double lambda)
{
    const double mu = 10, c_s = 15000;
    tu_run r;
    obs o;
    CHECK_EQ_INT(run(&r, &o, pol, sets, lambda, c_s), 0);
    double se, mean = tu_batch_means(o.lat, o.n, &se), want = 1 / (mu / 2 - lambda);
    double sd = completion_sd(lambda, mu, c_s);
    printf("    %-9s lambda %g/s: mean latency %.4f s (PS %.4f, SE %.4f; alone %.4f), job ends %.1f s (PS %.1f, "
           "sd %.1f; static demand %.1f)\n",
           pol, lambda, mean, want, se, 1 / (mu - lambda), o.job_end_s, c_s, sd, 2 * c_s * (1 - lambda / mu));
    CHECK(o.n > 1000);
    CHECK_NEAR(mean, want, 0, 4 * se);
    CHECK_NEAR(o.job_end_s, c_s, 0, 4 * sd);
    free(o.lat);
    tu_run_free(&r);
}

static const char *const ts_sets[] = {"replicas=2", "switch_cost=0", NULL};
static const char *const vg_sets[] = {"switch_cost=0", NULL};
static const char *const mps_sets[] = {"replicas=0", NULL};

static void timeslice_two_loads(void)
{
    check_load("timeslice", ts_sets, 2);
    check_load("timeslice", ts_sets, 4);
}

static void vgpu_two_loads(void)
{
    check_load("vgpu", vg_sets, 2);
    check_load("vgpu", vg_sets, 4);
}

static void mps_two_loads(void)
{
    check_load("mps", mps_sets, 2);
    check_load("mps", mps_sets, 4);
}

/* svc_demand=static keeps the old model: the idle replica holds half the
 * card, so the job runs at 1/2 throughout and ends at 2 D whatever the
 * traffic (here D = 15000 x 0.8 = 12000: 24000 s). */
static void static_demand_holds_half(void)
{
    static const char *const sets[] = {"replicas=2", "switch_cost=0", "svc_demand=static", NULL};
    tu_run r;
    obs o;
    CHECK_EQ_INT(run(&r, &o, "timeslice", sets, 2, 15000), 0);
    CHECK_NEAR(o.job_end_s, 24000, 0, 1e-3);
    free(o.lat);
    tu_run_free(&r);
}

const test_case tests_load_follow[] = {
    {"load_follow/timeslice_mm1_beside_job_two_loads", timeslice_two_loads},
    {"load_follow/vgpu_mm1_beside_job_two_loads", vgpu_two_loads},
    {"load_follow/mps_mm1_beside_job_two_loads", mps_two_loads},
    {"load_follow/static_demand_holds_half_the_card", static_demand_holds_half},
    {NULL, NULL},
};
