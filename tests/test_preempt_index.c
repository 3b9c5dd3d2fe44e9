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

#include "../base/sim_rng.h"
#include "../sim/sim_node_bound.h"
#include "../sim/sim_preempt.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* Random lowers and pops against an array of keys (absent: NAN flag). */
static void heap_vs_list(void)
{
    enum { N = 97 };
    gsl_rng *rng = sim_rng_new(11, 1);
    nb_heap h;
    nb_init(&h, N);
    double key[N];
    bool in[N] = {false};
    for (int step = 0; step < 20000; step++) {
        int id = (int)gsl_rng_uniform_int(rng, N);
        if (gsl_rng_uniform(rng) < 0.6) {
            double k = (double)gsl_rng_uniform_int(rng, 50); /* ties on purpose */
            nb_lower(&h, id, k);
            if (!in[id] || k < key[id])
                key[id] = k;
            in[id] = true;
        } else {
            int want = -1;
            for (int i = 0; i < N; i++)
                if (in[i] && (want < 0 || key[i] < key[want]))
                    want = i; /* ties: the lower id, found first */
            double k = -1;
            CHECK_EQ_INT(nb_top(&h, &k), want);
            if (want >= 0)
                CHECK(k == key[want]);
            CHECK_EQ_INT(nb_pop(&h), want);
            if (want >= 0)
                in[want] = false;
        }
        int held = 0;
        for (int i = 0; i < N; i++) {
            held += in[i];
            CHECK(nb_holds(&h, i) == in[i]);
        }
        CHECK_EQ_INT(h.n, held);
    }
    nb_free(&h);
    gsl_rng_free(rng);
}

/* A random trace: long preemptible jobs at priorities 0..2 filling the
 * cluster, then a stream of higher-priority requests (some preemptible) that
 * must preempt; some rows have a checkpoint size, some ask part of a card's
 * memory (and cores), so shared cards hold several tenants. */
static char *random_trace(unsigned long seed, int ngpus)
{
    gsl_rng *rng = sim_rng_new(seed, 2);
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
static char *run_once(const char *trace_path, const char *policy, const char *const *sets, int how,
                      uint64_t *planned)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = trace_path;
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    tu_add_sets(&r.cfg, sets);
    char *out = NULL;
    r.rc = sim_cluster_from_spec(&r.cl, "A100-SXM4-80GB:64", 8, tu_catalog(), &r.err);
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
    }
    tu_run_free(&r);
    return out;
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

const test_case tests_preempt_index[] = {
    {"preempt_index/bound_heap_vs_list", heap_vs_list},
    {"preempt_index/bound_search_matches_plain_scan", bound_search_matches_plain_scan},
    {NULL, NULL},
};
