/* test_gang.c - jobs across nodes (sim_gang.c) on hand-computed timelines:
 * two 16-GPU gangs on three nodes, skip and fifo, best fit of the part of
 * the rest, one model per gang, the reasons of rejections, jobs.by_size and
 * the timeseries' largest_gang; preemption by and of a gang (a shard of the
 * checkpoint per node), and on random traces the bound search choosing the
 * victims the plain scan of every node chooses.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../base/gs_rng.h"
#include "../sim/sim_preempt.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

#define MAXJ 64

typedef struct rec {
    int n;
    char id[MAXJ][16];
    double start_s[MAXJ], end_s[MAXJ];
    int nparts[MAXJ], part_node[MAXJ][8], part_gpus[MAXJ][8];
    const sim *s;
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    if (r->n >= MAXJ)
        return;
    int i = r->n++;
    snprintf(r->id[i], 16, "%.15s", j->req.id);
    r->start_s[i] = gs_us_to_s(j->start_us);
    r->end_s[i] = gs_us_to_s(sim_now(r->s));
    r->nparts[i] = job_spans(j) ? j->gpu.span->nparts : 1;
    for (int k = 0; k < r->nparts[i] && k < 8; k++) {
        r->part_node[i][k] = job_spans(j) ? j->gpu.span->part[k].node : j->node;
        r->part_gpus[i][k] = job_spans(j) ? j->gpu.span->part[k].ngpus : j->ngpu_ids;
    }
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

/* Runs trace text on a --gpus spec of 8-GPU nodes under whole; fills rc;
 * the report (caller frees) and the timeseries text in ts (may be NULL). */
static cJSON *run(tu_run *r, const char *trace, const char *gpus, const char *const *sets, rec *rc, char **ts)
{
    memset(r, 0, sizeof *r);
    memset(rc, 0, sizeof *rc);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = "whole";
    r->cfg.seed = 1;
    r->cfg.sample_us = 10000000; /* 10 s */
    tu_add_sets(&r->cfg, sets);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = ts ? open_memstream(&buf, &len) : NULL;
    r->rc = sim_cluster_from_spec(&r->cl, gpus, 8, tu_catalog(), &r->err);
    if (r->rc == 0)
        r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, f, &r->err);
    rc->s = &r->s;
    if (r->rc == 0) {
        sim_observe(&r->s, &(sim_observer){.job_done = record, .job_done_ud = rc});
        r->rc = sim_run(&r->s);
    }
    if (f)
        fclose(f);
    if (ts)
        *ts = buf;
    CHECK_EQ_INT(r->rc, 0);
    return r->rc == 0 ? sim_report_build(&r->s, 0, 0) : NULL;
}

static double jnum(const cJSON *o, const char *path)
{
    char key[64];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t l = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(key, sizeof key, "%.*s", (int)l, path);
        o = cJSON_GetObjectItemCaseSensitive(o, key);
        path += l + (dot != NULL);
    }
    return cJSON_IsNumber(o) ? o->valuedouble : -1e300;
}

/* Three nodes of 8. A (16 GPUs, 0..100) takes nodes 0 and 1; B (16 at 10)
 * finds one node free and waits; C (8 at 20 for 30 s) starts on node 2 at
 * once under skip. B starts at 100 (A's two nodes) and ends at 150. Under
 * fifo C waits behind B: both start at 100, C ends at 130. */
static const char *two_gangs = "id,submit,duration,gpus\nA,0,100,16\nB,10,50,16\nC,20,30,8\n";

static void two_gangs_on_three_nodes(void)
{
    tu_run r;
    static rec rc;
    char *ts = NULL;
    cJSON *rep = run(&r, two_gangs, "H100-SXM5-80GB:24", NULL, &rc, &ts);
    if (!rep)
        return;
    int a = find(&rc, "A"), b = find(&rc, "B"), c = find(&rc, "C");
    CHECK(a >= 0 && b >= 0 && c >= 0);
    CHECK_NEAR(rc.start_s[a], 0, 0, 1e-9);
    CHECK_NEAR(rc.end_s[a], 100, 0, 1e-9);
    CHECK_EQ_INT(rc.nparts[a], 2);
    CHECK(rc.part_node[a][0] == 0 && rc.part_node[a][1] == 1 && rc.part_gpus[a][0] == 8 && rc.part_gpus[a][1] == 8);
    CHECK_NEAR(rc.start_s[c], 20, 0, 1e-9);
    CHECK_EQ_INT(rc.part_node[c][0], 2);
    CHECK_NEAR(rc.start_s[b], 100, 0, 1e-9);
    CHECK_NEAR(rc.end_s[b], 150, 0, 1e-9);
    CHECK_EQ_INT(rc.nparts[b], 2);
    /* 16 x 100 + 16 x 50 + 8 x 30 GPU-seconds */
    CHECK_NEAR(r.s.g_alloc.area, 1600 + 800 + 240, 1e-9, 0);
    /* by size: C in 2-8 (queue 0, JCT 30), A and B in 9-64 (queue 0 and 90) */
    CHECK_NEAR(jnum(rep, "jobs.by_size.2-8.count"), 1, 0, 0);
    CHECK_NEAR(jnum(rep, "jobs.by_size.9-64.count"), 2, 0, 0);
    CHECK_NEAR(jnum(rep, "jobs.by_size.9-64.queue_s.max"), 90, 0.02, 0);
    CHECK_NEAR(jnum(rep, "jobs.by_size.9-64.jct_s.max"), 140, 0.02, 0);
    CHECK_NEAR(jnum(rep, "jobs.by_size.2-8.jct_s.mean"), 30, 1e-9, 0);
    CHECK_NEAR(jnum(rep, "jobs.by_size.1.count"), 0, 0, 0);
    /* largest_gang: 8 while A holds two nodes (0, 10 s), 0 while C holds the
     * third too (20, 30, 40 s), 8 again at 50 (C done) */
    CHECK(ts && strstr(ts, "frag_gpus") == NULL && strstr(ts, ",largest_gang\n"));
    CHECK(ts && strstr(ts, "\n10.000000,16,0.666667,1,1,0,8\n"));
    CHECK(ts && strstr(ts, "\n30.000000,24,1.000000,1,2,0,0\n"));
    CHECK(ts && strstr(ts, "\n50.000000,16,0.666667,1,1,0,8\n"));
    free(ts);
    cJSON_Delete(rep);
    tu_run_free(&r);

    const char *fifo[] = {"queue=fifo", NULL};
    rep = run(&r, two_gangs, "H100-SXM5-80GB:24", fifo, &rc, NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.start_s[find(&rc, "B")], 100, 0, 1e-9);
    CHECK_NEAR(rc.start_s[find(&rc, "C")], 100, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "C")], 130, 0, 1e-9);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* J (4 GPUs) holds half of node 0; G (12 = 8 + 4) takes a whole node for
 * its part of 8 and the half-used node 0 for its part of 4, leaving node 2
 * whole; H (16) then waits for two whole nodes. */
static void rest_goes_to_a_used_node(void)
{
    tu_run r;
    static rec rc;
    cJSON *rep = run(&r, "id,submit,duration,gpus\nJ,0,100,4\nG,1,10,12\nK,2,10,8\n", "H100-SXM5-80GB:24", NULL, &rc,
                     NULL);
    if (!rep)
        return;
    int g = find(&rc, "G"), k = find(&rc, "K");
    CHECK_NEAR(rc.start_s[g], 1, 0, 1e-9);
    CHECK_EQ_INT(rc.nparts[g], 2);
    CHECK(rc.part_node[g][0] == 0 && rc.part_gpus[g][0] == 4);
    CHECK(rc.part_node[g][1] == 1 && rc.part_gpus[g][1] == 8);
    CHECK_NEAR(rc.start_s[k], 2, 0, 1e-9); /* node 2 stayed whole */
    CHECK_EQ_INT(rc.part_node[k][0], 2);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A gang keeps to one model: 16 GPUs on A100 8 + H100 8 never fit, and say
 * why; 300 GPUs on 24 neither. Each reason counted with its first ids. */
static void rejections_say_why(void)
{
    tu_run r;
    static rec rc;
    cJSON *rep = run(&r, "id,submit,duration,gpus\na,0,10,16\nb,0,10,16\nc,1,10,8\n",
                     "A100-SXM4-80GB:8,H100-SXM5-80GB:8", NULL, &rc, NULL);
    if (!rep)
        return;
    CHECK_NEAR(jnum(rep, "jobs.rejected"), 2, 0, 0);
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"), "rejected_reasons");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(rr, "needs 16 GPUs, the cluster has 8 (A100-SXM4-80GB)");
    CHECK(e != NULL);
    CHECK_NEAR(jnum(e, "count"), 2, 0, 0);
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(e, "ids");
    CHECK_EQ_INT(cJSON_GetArraySize(ids), 2);
    CHECK(ids && !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(ids, 0)), "a"));
    cJSON_Delete(rep);
    tu_run_free(&r);

    /* a single-node run with no rejection has neither by_size nor rejected_reasons, nor the column */
    char *ts = NULL;
    rep = run(&r, "id,submit,duration,gpus\na,0,10,8\nb,0,10,4\n", "H100-SXM5-80GB:16", NULL, &rc, &ts);
    if (!rep)
        return;
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(rep, "jobs");
    CHECK(!cJSON_GetObjectItemCaseSensitive(jobs, "by_size") && !cJSON_GetObjectItemCaseSensitive(jobs, "rejected_reasons"));
    CHECK(ts && !strstr(ts, "largest_gang"));
    free(ts);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* 40e9 bytes exactly: 20 s to write at 2 GB/s on one node, 10 s to read at 4 GB/s. */
#define CKPT "37.252902984619140625"
static const char *const pre_sets[] = {"preempt=on", "min_runtime=100", "checkpoint_every=0", "ckpt_write_gbps=2",
                                       "ckpt_read_gbps=4", "grace_period=30", NULL};

/* Three nodes: V1, V2 (8 each, preemptible, no checkpoint) and U (8, not
 * preemptible) from 0. H (16, priority 10) at 150 takes V1 and V2: they
 * stop at 150, hold for the grace of 30 s, H runs 180..230 on their nodes;
 * they restart from scratch when H ends (1000 s more: 1230). */
static void gang_preempts_two_nodes(void)
{
    tu_run r;
    static rec rc;
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible\n"
                     "V1,0,1000,8,0,1\nV2,0,1000,8,0,1\nU,0,2000,8,0,0\nH,150,50,16,10,0\n",
                     "H100-SXM5-80GB:24", pre_sets, &rc, NULL);
    if (!rep)
        return;
    int h = find(&rc, "H");
    CHECK_NEAR(rc.start_s[h], 180, 0, 1e-9);
    CHECK_NEAR(rc.end_s[h], 230, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V1")], 1230, 0, 1e-6);
    CHECK_NEAR(rc.end_s[find(&rc, "V2")], 1230, 0, 1e-6);
    CHECK_NEAR(jnum(rep, "preemption.preemptions"), 2, 0, 0);
    CHECK_NEAR(jnum(rep, "preemption.decisions"), 1, 0, 0);
    CHECK_NEAR(jnum(rep, "preemption.lost_gpu_hours"), 2 * 8 * 150.0 / 3600, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* G (16, preemptible, a 40e9-byte checkpoint) on nodes 0 and 1, U on node
 * 2. H (8, priority 10) at 150 preempts G: each node writes G's half shard
 * (20e9 bytes, 10 s), so H starts at 150 + 30 + 10 = 190 and ends at 240.
 * G resumes from that checkpoint (850 s left) plus reading its half shard
 * (5 s): it needs two nodes, which it has again at 240: 240 + 855 = 1095. */
static void gang_is_a_victim_as_one(void)
{
    tu_run r;
    static rec rc;
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "G,0,1000,16,0,1," CKPT "\nU,0,2000,8,0,0,\nH,150,50,8,10,0,\n",
                     "H100-SXM5-80GB:24", pre_sets, &rc, NULL);
    if (!rep)
        return;
    int h = find(&rc, "H"), g = find(&rc, "G");
    CHECK_NEAR(rc.start_s[h], 190, 0, 1e-9);
    CHECK_NEAR(rc.end_s[h], 240, 0, 1e-9);
    CHECK_NEAR(rc.end_s[g], 1095, 0, 1e-6);
    CHECK_NEAR(jnum(rep, "preemption.preemptions"), 1, 0, 0);
    CHECK_NEAR(jnum(rep, "preemption.lost_gpu_hours"), 0, 0, 1e-12);
    CHECK_NEAR(jnum(rep, "preemption.checkpoint_write_gpu_hours"), 16 * 10.0 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(rep, "preemption.checkpoint_read_gpu_hours"), 16 * 5.0 / 3600, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Random traces of gangs and single-node jobs, priorities and checkpoint
 * sizes: the bound search picks the victims the plain scan does (the same
 * report), planning no more nodes. */
static char *random_gang_trace(unsigned long seed)
{
    gsl_rng *rng = gs_rng_new(seed, 5);
    size_t cap = 1 << 16, len = 0;
    char *t = xmalloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n");
    double at = 0;
    for (int i = 0; i < 300; i++) {
        at += gsl_ran_exponential(rng, 30.0);
        static const int sizes[] = {1, 2, 4, 8, 12, 16, 24, 32};
        int gpus = sizes[gsl_rng_uniform_int(rng, 8)];
        char ck[32] = "";
        if (gsl_rng_uniform(rng) < 0.4)
            snprintf(ck, sizeof ck, "%.3f", 1 + gsl_rng_uniform(rng) * 200);
        len += (size_t)snprintf(t + len, cap - len, "j%d,%.3f,%.3f,%d,%d,%d,%s\n", i, at,
                                60 + gsl_ran_exponential(rng, 900), gpus, (int)gsl_rng_uniform_int(rng, 4),
                                gsl_rng_uniform(rng) < 0.7, ck);
    }
    gsl_rng_free(rng);
    return t;
}

static char *report_text(const char *path, int how, uint64_t *planned)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = path;
    r.cfg.policy = "whole";
    r.cfg.seed = 1;
    static const char *const sets[] = {"preempt=on", "min_runtime=60", "checkpoint_every=300", NULL};
    tu_add_sets(&r.cfg, sets);
    char *out = NULL;
    r.rc = sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:64", 8, tu_catalog(), &r.err);
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

static void gang_victims_bound_matches_scan(void)
{
    int preempting = 0;
    for (unsigned long seed = 1; seed <= 6; seed++) {
        char *text = random_gang_trace(seed);
        const char *path = tu_write_tmp(text);
        uint64_t np = 0, nb = 0, nc = 0;
        char *a = report_text(path, SIM_PREEMPT_SCAN, &np);
        char *b = report_text(path, SIM_PREEMPT_BOUND, &nb);
        char *c = report_text(path, SIM_PREEMPT_CARDS, &nc);
        CHECK(a && b && c);
        if (a && b && c) {
            CHECK(strcmp(a, b) == 0);
            CHECK(strcmp(a, c) == 0);
            if (strcmp(a, b) || strcmp(a, c))
                printf("    seed %lu: reports differ\n", seed);
            preempting += strstr(a, "\"preemptions\":0,") == NULL;
        }
        CHECK(nb <= np && nc <= np);
        free(a);
        free(b);
        free(c);
        free(text);
    }
    CHECK(preempting > 0);
}

const test_case tests_gang[] = {
    {"gang/two_gangs_on_three_nodes", two_gangs_on_three_nodes},
    {"gang/rest_goes_to_a_used_node", rest_goes_to_a_used_node},
    {"gang/rejections_say_why", rejections_say_why},
    {"gang/gang_preempts_two_nodes", gang_preempts_two_nodes},
    {"gang/gang_is_a_victim_as_one", gang_is_a_victim_as_one},
    {"gang/gang_victims_bound_matches_scan", gang_victims_bound_matches_scan},
    {NULL, NULL},
};
