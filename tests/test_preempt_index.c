/* test_preempt_index.c - the search for preemption victims over every node
 * by per-node lower bounds (sim_preempt.c, sim_node_bound.c) against the
 * plain scan of every node in id order: the bound heap against a brute-force
 * list on random sequences, then random preemption traces (priorities,
 * checkpoint sizes, cut writes, periodic checkpoints, shared cards) under
 * whole, vgpu and timeslice give the same report searched by node bounds
 * (with and without counting cards) as by the plain scan, and the bound
 * searches plan fewer nodes.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../base/gs_rng.h"
#include "../sim/sim_node_bound.h"
#include "../sim/sim_preempt.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* Random lowers, sets, slow-downs and pops as time goes on, against an array of
 * lines (value at the time set, class slope); integer times and values and
 * power-of-two slopes keep every figure exact. */
static void heap_vs_list(void)
{
    enum { N = 97 };
    gsl_rng *rng = gs_rng_new(11, 1);
    sim_node_bound h;
    sim_node_bound_init(&h, N);
    double val[N], set_at[N];
    int cls[N];
    bool in[N] = {false};
    double now = 0;
#define AT(i) (val[i] + sim_node_bound_slope(cls[i]) * (now - set_at[i]))
    for (int step = 0; step < 20000; step++) {
        int id = (int)gsl_rng_uniform_int(rng, N);
        double u = gsl_rng_uniform(rng);
        now += (double)gsl_rng_uniform_int(rng, 3) * 8; /* ties on purpose: often no time passes */
        double slope = gsl_rng_uniform(rng) < 0.3 ? 0 : (double)gsl_rng_uniform_int(rng, 80) / 8;
        if (u < 0.5) {
            double k = (double)gsl_rng_uniform_int(rng, 50) + now; /* ties on purpose */
            sim_node_bound_lower(&h, id, k, slope, now);
            if (!in[id]) {
                val[id] = k;
                cls[id] = sim_node_bound_class(slope);
            } else {
                double cur = AT(id);
                val[id] = k < cur ? k : cur;
                cls[id] = sim_node_bound_class(slope) < cls[id] ? sim_node_bound_class(slope) : cls[id];
            }
            set_at[id] = now;
            in[id] = true;
        } else if (u < 0.55) {
            double k = (double)gsl_rng_uniform_int(rng, 50) + now;
            sim_node_bound_set(&h, id, k, slope, now);
            val[id] = k;
            cls[id] = sim_node_bound_class(slope);
            set_at[id] = now;
            in[id] = true;
        } else if (u < 0.6) {
            sim_node_bound_slow(&h, id, slope, now);
            if (in[id] && sim_node_bound_class(slope) < cls[id]) {
                val[id] = AT(id);
                set_at[id] = now;
                cls[id] = sim_node_bound_class(slope);
            }
        } else {
            int want = -1;
            for (int i = 0; i < N; i++)
                if (in[i] && (want < 0 || AT(i) < AT(want)))
                    want = i; /* ties: the lower id, found first */
            double k = -1;
            CHECK_EQ_INT(sim_node_bound_top(&h, now, &k), want);
            if (want >= 0)
                CHECK(k == AT(want));
            CHECK_EQ_INT(sim_node_bound_pop(&h, now), want);
            if (want >= 0)
                in[want] = false;
        }
        int held = 0;
        for (int i = 0; i < N; i++) {
            held += in[i];
            CHECK(sim_node_bound_holds(&h, i) == in[i]);
        }
        CHECK_EQ_INT(h.n, held);
    }
#undef AT
    for (int c = 0; c < NB_SLOPES; c++) /* the classes round slopes down */
        CHECK(sim_node_bound_class(sim_node_bound_slope(c)) == c &&
              (c == 0 || sim_node_bound_class(sim_node_bound_slope(c) * 0.99) == c - 1));
    CHECK(sim_node_bound_class(1e9) == NB_SLOPES - 1);
    sim_node_bound_free(&h);
    gsl_rng_free(rng);
}

/* A random trace: long preemptible jobs at priorities 0..2 filling the
 * cluster, then a stream of higher-priority requests (some preemptible) that
 * must preempt; some rows have a checkpoint size, some ask part of a card's
 * memory (and cores), so shared cards hold several tenants. */
static char *random_trace(unsigned long seed, int ngpus)
{
    gsl_rng *rng = gs_rng_new(seed, 2);
    size_t cap = 1 << 20, len = 0;
    char *t = xmalloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "id,submit,duration,gpus,priority,preemptible,checkpoint_gib,gpumem,gpucores\n");
    double at = 0;
    for (int i = 0; i < 400; i++) {
        bool fill = i < ngpus / 3;
        at += fill ? 1.0 : gsl_ran_exponential(rng, 40.0);
        int gpus = fill ? 1 + (int)gsl_rng_uniform_int(rng, 8) : 1 + (int)gsl_rng_uniform_int(rng, 3);
        int prio = fill ? (int)gsl_rng_uniform_int(rng, 3) : 1 + (int)gsl_rng_uniform_int(rng, 4);
        int pre = fill || gsl_rng_uniform(rng) < 0.3;
        double dur = fill ? 5000 + gsl_rng_uniform(rng) * 20000 : 30 + gsl_ran_exponential(rng, 600);
        char ck[32] = "";
        if (gsl_rng_uniform(rng) < 0.4)
            snprintf(ck, sizeof ck, "%.3f", 1 + gsl_rng_uniform(rng) * 200);
        char share[32] = ",";
        if (gsl_rng_uniform(rng) < 0.5)
            snprintf(share, sizeof share, "%d,%d", 10240 * (1 + (int)gsl_rng_uniform_int(rng, 6)),
                     10 * (1 + (int)gsl_rng_uniform_int(rng, 5)));
        len += (size_t)snprintf(t + len, cap - len, "j%d,%.3f,%.3f,%d,%d,%d,%s,%s\n", i, at, dur, gpus, prio, pre, ck,
                                share);
    }
    gsl_rng_free(rng);
    return t;
}

/* The report's jobs and preemption sections as text (no wall-clock figures
 * there), and in *planned the nodes the searches planned. */
static char *run_on(const char *gpus, int per_node, const char *trace_path, const char *policy, const char *const *sets, int how,
                    uint64_t *planned, uint64_t *looked, uint64_t *searches)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = trace_path;
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    tu_add_sets(&r.cfg, sets);
    char *out = NULL;
    r.rc = sim_cluster_from_spec(&r.cl, gpus, per_node, tu_catalog(), &r.err);
    if (r.rc == 0)
        r.rc = tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err);
    if (r.rc == 0) {
        sim_preempt_search(&r.s, how);
        r.rc = sim_run(&r.s);
    }
    CHECK_EQ_INT(r.rc, 0);
    if (r.rc == 0) {
        cJSON *rep = sim_report_build(&r.s, 0, 0);
        cJSON *keep = cJSON_CreateObject();
        cJSON_AddItemToObject(keep, "jobs", cJSON_DetachItemFromObject(rep, "jobs"));
        cJSON_AddItemToObject(keep, "preemption", cJSON_DetachItemFromObject(rep, "preemption"));
        out = cJSON_PrintUnformatted(keep);
        cJSON_Delete(keep);
        cJSON_Delete(rep);
        *planned = sim_preempt_nodes_planned(&r.s);
        *looked = sim_preempt_nodes_looked(&r.s, searches);
    }
    tu_run_free(&r);
    return out;
}

static char *run_once(const char *trace_path, const char *policy, const char *const *sets, int how,
                      uint64_t *planned)
{
    uint64_t looked, searches;
    return run_on("A100-SXM4-80GB:64", 8, trace_path, policy, sets, how, planned, &looked, &searches);
}

static void bound_search_matches_plain_scan(void)
{
    static const char *const sets[][6] = {
        {"preempt=on", "min_runtime=0", "checkpoint_every=0", NULL},
        {"preempt=on", "min_runtime=120", "checkpoint_every=300", "ckpt_write_gbps=0.5", NULL},
        {"preempt=on", "min_runtime=0", "checkpoint_every=200", "ckpt_write_limit=60", "ckpt_write_gbps=1", NULL},
    };
    static const char *const policies[] = {"whole", "vgpu", "timeslice"};
    uint64_t sum_bound = 0, sum_plain = 0;
    int decisions = 0;
    for (unsigned long seed = 1; seed <= 8; seed++) {
        char *text = random_trace(seed, 64);
        const char *path = tu_write_tmp(text);
        for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++)
            for (size_t pi = 0; pi < sizeof policies / sizeof policies[0]; pi++) {
                uint64_t nb = 0, np = 0, nc = 0;
                char *b = run_once(path, policies[pi], sets[si], SIM_PREEMPT_SCAN, &np);
                char *a = run_once(path, policies[pi], sets[si], SIM_PREEMPT_BOUND, &nb);
                char *c = run_once(path, policies[pi], sets[si], SIM_PREEMPT_CARDS, &nc);
                CHECK(a && b && c);
                if (a && b && c) {
                    if (strcmp(a, b) || strcmp(c, b))
                        printf("    seed %lu sets %zu policy %s: reports differ (bounds %d, cards %d)\n", seed, si,
                               policies[pi], strcmp(a, b) != 0, strcmp(c, b) != 0);
                    CHECK(strcmp(a, b) == 0);
                    CHECK(strcmp(c, b) == 0);
                    decisions += strstr(a, "\"decisions\":0,") == NULL;
                }
                CHECK(nb <= np);
                CHECK(nc <= np);
                sum_bound += nb + nc;
                sum_plain += 2 * np;
                free(a);
                free(b);
                free(c);
            }
        free(text);
    }
    CHECK(decisions > 0);        /* the traces do preempt */
    CHECK(sum_bound < sum_plain); /* and the bounds prune */
}

/* Training that never ends fills ngpus cards, started over the first
 * minute; then inference at a higher priority, each request preempting
 * (the bench's preemption trace, smaller). */
static char *fill_then_preempt_trace(int ngpus, int rows)
{
    gsl_rng *rng = gs_rng_new(3, 2);
    size_t cap = (size_t)rows * 64 + 256, len = 0;
    char *t = xmalloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "id,submit,duration,gpus,priority,preemptible\n");
    int nt = (int)(1.05 * ngpus / 3.75), i = 0;
    static const int k[] = {1, 2, 4, 8};
    for (; i < nt; i++)
        len += (size_t)snprintf(t + len, cap - len, "t%d,%.3f,10000000,%d,0,1\n", i, i * 60.0 / nt,
                                k[gsl_rng_uniform_int(rng, 4)]);
    double at = 60, lam = 0.3 * ngpus / (1.5 * 600);
    for (; i < rows; i++) {
        at += gsl_ran_exponential(rng, 1 / lam);
        len += (size_t)snprintf(t + len, cap - len, "i%d,%.3f,%.3f,%d,100,0\n", i, at,
                                1 + gsl_ran_exponential(rng, 600), 1 + (int)gsl_rng_uniform_int(rng, 2));
    }
    gsl_rng_free(rng);
    return t;
}

/* A victim's lost work grows while it runs: node keys that stayed where
 * they were set would go stale, and a search would take off the heap every
 * node whose key fell behind, to find it costlier now (more of them the
 * more nodes there are). Keys that rise with time (sim_node_bound.h), and
 * the winner's keys taken again without its victims, keep a search to the
 * nodes that may win: under 2 nodes taken off per search, on a small
 * cluster and on one 16 times larger. */
static void bound_keys_keep_up_with_time(void)
{
    static const char *const sets[] = {"preempt=on", "min_runtime=0", NULL};
    static const char *const policies[] = {"whole", "vgpu"};
    static const char *const sizes[] = {"A100-SXM4-80GB:256", "A100-SXM4-80GB:4096"};
    static const int gpus[] = {256, 4096};
    for (size_t pi = 0; pi < 2; pi++) {
        double per_small = 0;
        for (int si = 0; si < 2; si++) {
            char *text = fill_then_preempt_trace(gpus[si], 6000);
            const char *path = tu_write_tmp(text);
            uint64_t planned = 0, looked = 0, searches = 0;
            char *rep = run_on(sizes[si], 8, path, policies[pi], sets, SIM_PREEMPT_CARDS, &planned, &looked, &searches);
            CHECK(rep != NULL);
            CHECK(searches > 1000);
            double per = searches ? (double)looked / (double)searches : 0;
            printf("    %s %d GPUs: %llu searches, %.2f nodes off the heap and %.2f planned per search\n",
                   policies[pi], gpus[si], (unsigned long long)searches, per,
                   searches ? (double)planned / (double)searches : 0);
            /* 1.5 at 256 GPUs, 1.3 at 4,096 (whole and vgpu); keys that do not
             * rise: 3.5 and 6.2; the winner's keys left with its victims in
             * them: 3.0 and 3.1 */
            CHECK(per < 2.0);
            if (si == 0)
                per_small = per;
            else
                CHECK(per < 1.15 * per_small);
            free(rep);
            free(text);
        }
    }
}

/* A node's line rises at its cheapest job's pace as of when it was set; a
 * job slowed down since (a second tenant on its card) must bring the line
 * down to its new pace, else the line passes the job's cost and the search
 * stops before that node. Two nodes of one card: x (40 GiB) alone from 0,
 * then y (20 GiB, not a victim) beside it from 10, at about half pace; z
 * (70 GiB) alone on the other card from 5. At 1000 a request of 50 GiB
 * must preempt x (about 480 s lost) or z (995 s): x, as the plain scan
 * says, where x's line still rising at full pace (997) would have stopped
 * the search after planning z. */
static void a_slower_job_brings_its_line_down(void)
{
    static const char trace[] = "id,submit,duration,gpus,priority,preemptible,gpumem\n"
                                "x,0,100000,1,0,1,40960\n"
                                "z,5,100000,1,0,1,71680\n"
                                "y,10,100000,1,200,0,20480\n"
                                "p,1000,100,1,100,0,51200\n";
    static const char *const sets[] = {"preempt=on", "min_runtime=0", NULL};
    const char *path = tu_write_tmp(trace);
    uint64_t planned, looked, searches;
    char *scan = run_on("A100-SXM4-80GB:2", 1, path, "vgpu", sets, SIM_PREEMPT_SCAN, &planned, &looked, &searches);
    char *bound = run_on("A100-SXM4-80GB:2", 1, path, "vgpu", sets, SIM_PREEMPT_BOUND, &planned, &looked, &searches);
    CHECK(scan && bound);
    if (scan && bound) {
        CHECK_STR_HAS(scan, "\"decisions\":1,");
        CHECK_STR_HAS(scan, "\"lost_gpu_hours\":0.13"); /* x: 480 s */
        CHECK(strcmp(scan, bound) == 0);
    }
    free(scan);
    free(bound);
}

const test_case tests_preempt_index[] = {
    {"preempt_index/bound_heap_vs_list", heap_vs_list},
    {"preempt_index/bound_search_matches_plain_scan", bound_search_matches_plain_scan},
    {"preempt_index/bound_keys_keep_up_with_time", bound_keys_keep_up_with_time},
    {"preempt_index/a_slower_job_brings_its_line_down", a_slower_job_brings_its_line_down},
    {NULL, NULL},
};
