/* test_dualpod.c - the dualpod time policy: hot (level 1 and 2), warm and
 * cold activations on timelines worked out by hand from the parameters, the
 * GPU-hours they hold (sleep included), the host-memory limit (level 2 or
 * eviction), the ordering invariant in randomized runs checked from inside
 * the space policy, and the baselines.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/pol_dualpod.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

typedef struct lats {
    double v[64];
    int n;
} lats;

static void on_req(void *ud, const char *svc, double lat)
{
    lats *l = ud;
    (void)svc;
    if (l->n < 64)
        l->v[l->n++] = lat;
}

/* Runs trace on `gpus` H100 cards, all on one node, under policy (from reg,
 * or the built-in registry when NULL); returns the report (caller frees). */
static cJSON *run_dp(const char *trace, int gpus, const char *policy, const pol_ops *const *reg,
                     const char *const *sets, lats *l, int *rc_out)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = tu_write_tmp(trace);
    r.cfg.policy = policy;
    r.cfg.registry = reg;
    r.cfg.seed = 7;
    tu_add_sets(&r.cfg, sets);
    char spec[64];
    snprintf(spec, sizeof spec, "H100-SXM5-80GB:%d", gpus);
    cJSON *rep = NULL;
    if ((r.rc = sim_cluster_from_spec(&r.cl, spec, gpus, tu_catalog(), &r.err)) == 0 &&
        (r.rc = tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err)) == 0) {
        sim_observe(&r.s, &(sim_observer){.request_done = l ? on_req : NULL, .request_ud = l});
        if ((r.rc = sim_run(&r.s)) == 0)
            rep = sim_report_build(&r.s, 0, 0);
        else
            fprintf(stderr, "    run: %s\n", r.s.err.msg);
    }
    *rc_out = r.rc;
    tu_run_free(&r);
    return rep;
}

static double jnum(const cJSON *root, const char *a, const char *b, const char *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "policy"), "dualpod");
    o = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        o = cJSON_GetObjectItemCaseSensitive(o, b);
    if (c)
        o = cJSON_GetObjectItemCaseSensitive(o, c);
    return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}

/* Two models of 16 GiB on one node, 1 s requests, svc_idle_s 10, ticks every
 * 5 s (defaults otherwise: pod 5, import 10, load 2 GB/s, compile 20, graph
 * 10; wake 20 GiB/s + 0.2 s; sleep 16/20 + 0.3 = 1.1 s). load = 16 GiB /
 * (2 GB/s) = 16 x 1.073741824 / 2 = 8.589934592 s.
 *   A at 0: cold = 5 + 10 + 8.589934592 + 20 + 10 = 53.589934592 -> served
 *     at 54.589934592 (latency 54.589934592); idle from then; the tick at 65
 *     sees 10.41 s idle -> sleep -> asleep at 66.1, GPU back.
 *   A at 100: hot = 16/20 + 0.2 = 1.0 -> latency 2.0; ticks 105, 110, 115
 *     (13 s idle) -> asleep at 116.1.
 *   B at 200 on the same node (the only one): its launcher has room
 *     (max_instances 2) -> warm = load + compile + graph = 38.589934592 ->
 *     latency 39.589934592; served 239.59, tick 250 -> asleep 251.1.
 * GPU-hours held: 66.1 + 16.1 + 51.1 = 133.3 s. Always-on: 2 x 300 s.
 * With max_instances=1 and launchers_per_node=2, B gets a new launcher: cold
 * 53.589934592 -> latency 54.589934592, served 254.59, tick 265 -> 266.1:
 * held 66.1 + 16.1 + 66.1 = 148.3 s. With sleep_level=2 the sleep takes
 * 0.3 s and the hot wake reloads: 8.589934592 + 0.5 -> latency
 * 10.089934592, served 110.09, asleep after the tick at 125: held 65.3 +
 * 25.3 + 50.3 s. */
/* The hand timelines below time the server's own start (wake, launch, cold
 * start); the actuation steps around it are set to 0 there and timed on
 * their own in hand_actuation_steps. */
#define NO_STEPS "act_requester_s=0", "act_bind_s=0", "act_probe_s=0", "act_relay_s=0"

static const char *hand_trace = "id,submit,duration,gpus,kind,service,replicas_min,replicas_max,replicas_init,"
                                "weights_gib\n"
                                "A,0,300,1,service,,0,1,0,16\n"
                                "B,0,300,1,service,,0,1,0,16\n"
                                "a1,0,1,,request,A,,,,\n"
                                "a2,100,1,,request,A,,,,\n"
                                "b1,200,1,,request,B,,,,\n";

static void hand_hot_warm(void)
{
    const char *sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, NULL};
    lats l = {0};
    int rc;
    cJSON *rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3) {
        CHECK_NEAR(l.v[0], 54.589934592, 0, 1e-6);
        CHECK_NEAR(l.v[1], 2.0, 0, 1e-6);
        CHECK_NEAR(l.v[2], 39.589934592, 0, 1e-6);
    }
    CHECK_EQ_INT(jnum(rep, "activations", "cold", NULL), 1);
    CHECK_EQ_INT(jnum(rep, "activations", "hot", NULL), 1);
    CHECK_EQ_INT(jnum(rep, "activations", "warm", NULL), 1);
    CHECK_NEAR(jnum(rep, "activations", "hot_hit_rate", NULL), 1.0 / 3, 0, 1e-12);
    CHECK_NEAR(jnum(rep, "gpu_hours", "held", NULL), 133.3 / 3600, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "gpu_hours", "always_on", NULL), 600.0 / 3600, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "first_request_latency_s", "hot", "max"), 2.0, 0, 1e-6);
    CHECK_NEAR(jnum(rep, "first_request_latency_s", "warm", "max"), 39.589934592, 0, 1e-6);
    CHECK_NEAR(jnum(rep, "first_request_latency_s", "cold", "max"), 54.589934592, 0, 1e-6);
    CHECK_EQ_INT(jnum(rep, "first_request_latency_s", "all", "count"), 3);
    /* both asleep at the end, 16 GiB each in host RAM since 116.1 and 251.1 */
    CHECK_EQ_INT(jnum(rep, "asleep_at_end", NULL, NULL), 2);
    CHECK_NEAR(jnum(rep, "host_memory", "sleeping_weights_gib_at_end", NULL), 32, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "host_memory", "sleeping_weights_gib_hours", NULL),
               16 * ((100 - 65) + (300 - 115) + (300 - 250)) / 3600.0, 0, 1e-9); /* reserved when the copy starts */
    CHECK_EQ_INT(jnum(rep, "launchers", NULL, NULL), 1);
    cJSON_Delete(rep);
}

static void hand_cold_and_level2(void)
{
    const char *cold_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "max_instances=1", "launchers_per_node=2",
                               NULL};
    lats l = {0};
    int rc;
    cJSON *rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, cold_sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3)
        CHECK_NEAR(l.v[2], 54.589934592, 0, 1e-6);
    CHECK_EQ_INT(jnum(rep, "activations", "cold", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "launchers", NULL, NULL), 2);
    CHECK_EQ_INT(jnum(rep, "evictions", "total", NULL), 0);
    CHECK_NEAR(jnum(rep, "gpu_hours", "held", NULL), 148.3 / 3600, 0, 1e-9);
    cJSON_Delete(rep);

    /* one launcher of one instance: B evicts the sleeping A and starts warm */
    const char *evict_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "max_instances=1", "launchers_per_node=1",
                                NULL};
    l.n = 0;
    rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, evict_sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    if (l.n == 3)
        CHECK_NEAR(l.v[2], 39.589934592, 0, 1e-6);
    CHECK_EQ_INT(jnum(rep, "activations", "warm", NULL), 1);
    CHECK_EQ_INT(jnum(rep, "evictions", "launcher_full", NULL), 1);
    CHECK_EQ_INT(jnum(rep, "asleep_at_end", NULL, NULL), 1);
    cJSON_Delete(rep);

    const char *l2_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "sleep_level=2", NULL};
    l.n = 0;
    rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, l2_sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    if (l.n == 3)
        CHECK_NEAR(l.v[1], 10.089934592, 0, 1e-6);
    CHECK_EQ_INT(jnum(rep, "activations", "hot_from_level2", NULL), 1);
    CHECK_EQ_INT(jnum(rep, "sleeps", "level2", NULL), 3);
    CHECK_NEAR(jnum(rep, "host_memory", "sleeping_weights_gib_peak", NULL), 0, 0, 1e-12);
    /* served at 111.089934592: ticks 115, 120, 125 (13.9 s idle) -> 125.3 */
    CHECK_NEAR(jnum(rep, "gpu_hours", "held", NULL), (65.3 + 25.3 + 50.3) / 3600, 0, 1e-9);
    cJSON_Delete(rep);
}

/* Host RAM for 20 GiB of sleeping weights per node; A and B (16 GiB each)
 * requested at 0 on a 2-card node: A cold (a new launcher, served 54.59), B
 * warm in the same launcher (served 39.59). B falls asleep first (tick 50,
 * level 1: 16 GiB); A's sleep at the tick at 65 does not fit.
 * host_full=level2 (default): A sleeps at level 2. At 100 A wakes from level
 * 2 (10.089934592 s) and B from level 1 (2.0 s); B sleeps again first (tick
 * 115, level 1), A at 125 at level 2 again: 2 + 2 sleeps, 2 drops to level 2.
 * host_full=evict: A's sleep at 65 evicts the asleep B and takes level 1. At
 * 100 A wakes hot (2.0 s) and B, its instance gone, starts warm in the
 * launcher (39.589934592 s); A sleeps at 115 (level 1), B at the tick at 150
 * and evicts A: 4 level-1 sleeps, 2 evictions, B alone asleep at the end. */
static void host_memory_limit(void)
{
    const char *trace = "id,submit,duration,gpus,kind,service,replicas_min,replicas_max,replicas_init,"
                        "weights_gib\n"
                        "A,0,300,1,service,,0,1,0,16\n"
                        "B,0,300,1,service,,0,1,0,16\n"
                        "a1,0,1,,request,A,,,,\n"
                        "b1,0,1,,request,B,,,,\n"
                        "a2,100,1,,request,A,,,,\n"
                        "b2,100,1,,request,B,,,,\n";
    const char *sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "host_sleep_gib=20", NULL};
    lats l = {0};
    int rc;
    cJSON *rep = run_dp(trace, 2, "whole+dualpod", NULL, sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.n, 4);
    if (l.n == 4) { /* second round: A hot from level 1 (2.0 s), B from level 2 (10.089934592 s) */
        CHECK_NEAR(fmin(l.v[2], l.v[3]), 2.0, 0, 1e-6);
        CHECK_NEAR(fmax(l.v[2], l.v[3]), 10.089934592, 0, 1e-6);
    }
    CHECK_EQ_INT(jnum(rep, "sleeps", "level1", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "sleeps", "level2", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "sleeps", "level1_to_level2_host_full", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "evictions", "host_memory", NULL), 0);
    CHECK_NEAR(jnum(rep, "host_memory", "peak_gib_per_node", NULL), 16, 0, 1e-12);
    cJSON_Delete(rep);

    const char *ev_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "host_sleep_gib=20", "host_full=evict", NULL};
    l.n = 0;
    rep = run_dp(trace, 2, "whole+dualpod", NULL, ev_sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    if (l.n == 4) {
        CHECK_NEAR(fmin(l.v[2], l.v[3]), 2.0, 0, 1e-6);
        CHECK_NEAR(fmax(l.v[2], l.v[3]), 39.589934592, 0, 1e-6);
    }
    CHECK_EQ_INT(jnum(rep, "evictions", "host_memory", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "sleeps", "level1", NULL), 4);
    CHECK_EQ_INT(jnum(rep, "sleeps", "level2", NULL), 0);
    CHECK_EQ_INT(jnum(rep, "activations", "warm", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "asleep_at_end", NULL, NULL), 1);
    CHECK_NEAR(jnum(rep, "host_memory", "sleeping_weights_gib_at_end", NULL), 16, 0, 1e-12);
    cJSON_Delete(rep);
}

/* Baselines: always-on keeps one replica per model from the start (A and B
 * cold at 0, held 300 s each); scale-to-zero makes every activation cold and
 * frees the GPU at the scale-in tick itself. */
static void baselines(void)
{
    const char *on_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "dualpod_mode=always-on", NULL};
    lats l = {0};
    int rc;
    cJSON *rep = run_dp(hand_trace, 2, "whole+dualpod", NULL, on_sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(jnum(rep, "activations", "cold", NULL), 2);
    CHECK_EQ_INT(jnum(rep, "activations", "total", NULL), 2);
    CHECK_NEAR(jnum(rep, "gpu_hours", "held", NULL), 600.0 / 3600, 0, 1e-9);
    if (l.n == 3) { /* a1 waits for the start-up cold start; a2 and b1 find A and B awake */
        CHECK_NEAR(l.v[0], 54.589934592, 0, 1e-6);
        CHECK_NEAR(l.v[1], 1.0, 0, 1e-6);
        CHECK_NEAR(l.v[2], 1.0, 0, 1e-6);
    }
    CHECK_EQ_INT(jnum(rep, "first_request_latency_s", "awake", "count"), 2);
    cJSON_Delete(rep);

    const char *z_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NO_STEPS, "dualpod_mode=scale-to-zero", NULL};
    l.n = 0;
    rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, z_sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(jnum(rep, "activations", "cold", NULL), 3);
    /* A: [0, 65] and [100, 165]; served at 154.59, tick at 165 -> 165; B: [200, 265] */
    CHECK_NEAR(jnum(rep, "gpu_hours", "held", NULL), (65.0 + 65.0 + 65.0) / 3600, 0, 1e-9);
    CHECK_EQ_INT(jnum(rep, "launchers", NULL, NULL), 0);
    cJSON_Delete(rep);

    int rc2;
    const char *bad[] = {"dualpod_mode=sometimes", NULL};
    rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, bad, NULL, &rc2);
    CHECK_EQ_INT(rc2, GS_EUSAGE);
    cJSON_Delete(rep);
}

/* {==== ordering invariant ====}
 * A space policy that is whole plus checks: every release of a replica task
 * must find its instance neither awake nor going to sleep (so a GPU goes
 * back only after its instance slept), and after every arrival and release
 * no GPU is under two awake instances nor shown free under one. */

extern const pol_ops pol_whole, pol_dualpod;
static int audit_fail, audits, releases;

static void audit(sim *s)
{
    char why[160];
    audits++;
    if (s->npol > 1 && dualpod_audit(s->pst[1], s, why, sizeof why)) {
        if (!audit_fail)
            fprintf(stderr, "    audit at %.6f s: %s\n", gs_us_to_s(s->now), why);
        audit_fail++;
    }
}

static bool chk_place(void *st, sim *s, job *j)
{
    bool r = pol_whole.space->place(st, s, j);
    audit(s);
    return r;
}

static void chk_unplace(void *st, sim *s, job *j)
{
    if (j->internal && s->npol > 1) {
        releases++;
        int ist = dualpod_task_state(s->pst[1], j);
        if (ist == DP_AWAKE || ist == DP_SLEEPING) {
            if (!audit_fail)
                fprintf(stderr, "    GPU released at %.6f s while its instance is %s\n", gs_us_to_s(s->now),
                        ist == DP_AWAKE ? "awake" : "going to sleep");
            audit_fail++;
        }
    }
    pol_whole.space->unplace(st, s, j);
    audit(s);
}

static const pol_ops pol_wchk = {
    .abi = POL_ABI,
    .name = "wchk",
    .summary = "test: whole with dual-pod audits",
    .kind = POL_SPACE,
    .params = NULL, /* set at run time: whole's */
};

static void randomized_invariant(void)
{
    static pol_ops w;
    static pol_space ws;
    ws = *pol_whole.space;
    ws.place = chk_place; /* the core runs the queue: placements and releases are audited */
    ws.unplace = chk_unplace;
    w = pol_wchk;
    w.params = pol_whole.params;
    w.init = pol_whole.init;
    w.fini = pol_whole.fini;
    w.space = &ws;
    const pol_ops *const reg[] = {&w, &pol_dualpod, NULL};
    /* 12 models of 8..64 GiB with Poisson requests (1 per 20 s .. 1 per 20
     * min) on 2 nodes x 2 cards for 2 hours: sleeps, wakes, evictions and
     * waits for a card interleave */
    char trace[4096];
    int n = snprintf(trace, sizeof trace, "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,"
                                          "weights_gib,rate,svc_mean_ms\n");
    for (int i = 0; i < 12; i++)
        n += snprintf(trace + n, sizeof trace - (size_t)n, "m%d,0,7200,1,service,0,%d,0,%d,%g,2000\n", i,
                      i < 2 ? 2 : 1, 8 << (i % 4), 1.0 / (20.0 * pow(1.6, i)));
    const char *mixes[3][8] = {
        {"svc_autoscaler=threshold", "svc_idle_s=15", "svc_scale_period_s=5", "max_instances=2", "launchers_per_node=1", "host_sleep_gib=40",
         "host_full=evict", NULL},
        {"svc_autoscaler=threshold", "svc_idle_s=30", "svc_scale_period_s=5", "max_instances=3", "sleep_level=2", NULL},
        {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=3", "host_sleep_gib=24", "sleep_fixed_s=2", NULL},
    };
    for (int k = 0; k < 3; k++) {
        audit_fail = audits = releases = 0;
        tu_run r;
        memset(&r, 0, sizeof r);
        r.cfg.trace_path = tu_write_tmp(trace);
        r.cfg.policy = "wchk+dualpod";
        r.cfg.registry = reg;
        r.cfg.seed = 11 + (uint64_t)k;
        tu_add_sets(&r.cfg, mixes[k]);
        CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:4", 2, tu_catalog(), &r.err), 0);
        CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
        CHECK_EQ_INT(sim_run(&r.s), 0);
        cJSON *rep = sim_report_build(&r.s, 0, 0);
        CHECK_EQ_INT(audit_fail, 0);
        CHECK(releases > 50); /* the run did exercise sleeps and wakes */
        CHECK(jnum(rep, "activations", "hot", NULL) > 10);
        CHECK(jnum(rep, "activations", "warm", NULL) + jnum(rep, "activations", "cold", NULL) > 2);
        /* GPU-hours held never exceed the cards */
        CHECK(jnum(rep, "gpu_hours", "held", NULL) <= 4 * gs_us_to_s(r.s.now) / 3600 + 1e-9);
        if (k == 0)
            CHECK(jnum(rep, "evictions", "total", NULL) > 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* The actuation path with its default steps (requester 2 s, bind 1 s, probe
 * period 5 s, relay 4 s: 12 s around the server's start), on hand_trace:
 *   A at 0: cold 53.589934592 + 12 = 65.589934592 -> served 66.589934592;
 *     ticks 75 (8.41 s idle), 80 (13.41) -> asleep at 81.1.
 *   A at 100: hot 1.0 + 12 = 13.0 (the measured 9-18 s, mean 13) -> latency
 *     14.0, served 114; ticks 115, 120, 125 (11 s) -> asleep 126.1.
 *   B at 200: warm 38.589934592 + 12 -> latency 51.589934592, served
 *     251.59; tick 265 (13.41 s) -> asleep 266.1.
 * Held: 81.1 + 26.1 + 66.1 = 173.3 s. The report splits each path. */
static void hand_actuation_steps(void)
{
    const char *sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", NULL};
    lats l = {0};
    int rc;
    cJSON *rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, sets, &l, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3) {
        CHECK_NEAR(l.v[0], 66.589934592, 0, 1e-6);
        CHECK_NEAR(l.v[1], 14.0, 0, 1e-6);
        CHECK_NEAR(l.v[2], 51.589934592, 0, 1e-6);
    }
    CHECK_NEAR(jnum(rep, "gpu_hours", "held", NULL), 173.3 / 3600, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "actuation_s", "hot", "server_s"), 1.0, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "actuation_s", "hot", "requester_s"), 2, 0, 0);
    CHECK_NEAR(jnum(rep, "actuation_s", "hot", "bind_s"), 1, 0, 0);
    CHECK_NEAR(jnum(rep, "actuation_s", "hot", "probe_s"), 5, 0, 0);
    CHECK_NEAR(jnum(rep, "actuation_s", "hot", "relay_s"), 4, 0, 0);
    CHECK_NEAR(jnum(rep, "actuation_s", "warm", "server_s"), 38.589934592, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "actuation_s", "cold", "server_s"), 53.589934592, 0, 1e-9);
    CHECK_NEAR(jnum(rep, "actuation_s", "cold", "count"), 1, 0, 0);
    const cJSON *dp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "policy"), "dualpod");
    const cJSON *hot = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(dp, "actuation_s"), "hot");
    const cJSON *ht = cJSON_GetObjectItemCaseSensitive(hot, "total_s");
    double hot_mean = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(ht, "mean"));
    CHECK_NEAR(hot_mean, 13.0, 0, 1e-9);
    CHECK(hot_mean >= 9 && hot_mean <= 18); /* llm-d's measured hot actuation range */
    cJSON_Delete(rep);
    /* the baselines have no dual pods: no steps, their cold start unchanged */
    const char *z_sets[] = {"svc_autoscaler=threshold", "svc_idle_s=10", "svc_scale_period_s=5", "dualpod_mode=scale-to-zero", NULL};
    lats z = {0};
    rep = run_dp(hand_trace, 1, "whole+dualpod", NULL, z_sets, &z, &rc);
    CHECK_EQ_INT(z.n, 3);
    if (z.n == 3)
        CHECK_NEAR(z.v[0], 54.589934592, 0, 1e-6);
    CHECK_NEAR(jnum(rep, "actuation_s", "cold", "count"), 0, 0, 0);
    cJSON_Delete(rep);
}

const test_case tests_dualpod[] = {
    {"dualpod: actuation steps with their defaults, split in the report", hand_actuation_steps},
    {"dualpod: hot and warm activations on a hand timeline", hand_hot_warm},
    {"dualpod: cold, eviction from a full launcher, level-2 wake", hand_cold_and_level2},
    {"dualpod: host memory limit (level 2 or eviction)", host_memory_limit},
    {"dualpod: always-on and scale-to-zero baselines", baselines},
    {"dualpod: ordering invariant in randomized runs", randomized_invariant},
    {NULL, NULL},
};
