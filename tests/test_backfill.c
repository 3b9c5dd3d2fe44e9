/* test_backfill.c - queue=backfill: the planned-time index against brute
 * force, and backfill examples worked by hand.
 *
 * The hand examples run on one node of 8 GPUs, where EASY's arithmetic is
 * plain (times in seconds):
 *   j1  t=0  6 GPUs 100 s: starts at 0, planned to end at 100
 *   j2  t=1  the head: does not fit (2 free); its reservation is T = 100
 *   j3  t=2  2 GPUs
 * A. j2 needs 8, j3 runs 50 s: j3 ends at 52 <= T, so it starts at once
 *    (fifo: at 150, behind j2).
 * B. j2 needs 8, j3 runs 200 s: j3 would end at 202 > T and at T all 8
 *    GPUs are j2's (extra 0): it must not start; j2 starts at 100, j3 at
 *    150 (skip, which ignores reservations, starts j3 at 2 and delays j2
 *    to 202).
 * C. j2 needs 4, j3 runs 200 s: at T 8 GPUs are free and j2 needs 4, so
 *    4 are extra and j3's 2 are among them: it starts at 2 and j2 still
 *    starts at 100.
 * The same across nodes, on 4 nodes of 8 GPUs: j1 takes 3 nodes (24 GPUs)
 * for 100 s, j2 (the head) asks all 4 (32 GPUs), j3 one node (8 GPUs):
 * D. j3 runs 50 s: it ends by T = 100 and starts at 2 on the free node.
 * E. j3 runs 200 s: at T every node is j2's; j3 starts at 150.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_bf_index.h"
#include "../sim/sim_report.h"
#include "../sim/sim_cluster.h"
#include "../sim/sim_queue.h"
#include "check.h"
#include "testutil.h"

/* {==== the index against brute force ====} */

typedef struct bt_job {
    int node, gpus;
    gs_time_us end;
    bool on;
} bt_job;

static gs_time_us brute_when(const sim_cluster *cl, const bt_job *jobs, int nj, int node, int g)
{
    int free_g = cl->nodes[node].ngpus;
    for (int i = 0; i < nj; i++)
        if (jobs[i].on && jobs[i].node == node)
            free_g -= jobs[i].gpus;
    if (g <= free_g)
        return BF_NOW;
    /* the least end t with free + GPUs of jobs ending by t >= g */
    gs_time_us best = BF_NEVER;
    for (int i = 0; i < nj; i++) {
        if (!jobs[i].on || jobs[i].node != node || jobs[i].end == BF_NEVER)
            continue;
        int f = free_g;
        for (int k = 0; k < nj; k++)
            if (jobs[k].on && jobs[k].node == node && jobs[k].end <= jobs[i].end)
                f += jobs[k].gpus;
        if (f >= g && jobs[i].end < best)
            best = jobs[i].end;
    }
    return best;
}

static void test_index_brute(void)
{
    sim_cluster cl = {0};
    gs_error err = {0};
    CHECK_EQ_INT(sim_cluster_from_spec(&cl, "H100-SXM5-80GB:40,A100-SXM4-80GB:12", 8, tu_catalog(), &err), 0);
    sim_bf_index *x = sim_bf_index_new(&cl);
    enum { NJ = 300 };
    bt_job jobs[NJ] = {{0}};
    int free_g[64];
    for (int n = 0; n < cl.nnodes; n++)
        free_g[n] = cl.nodes[n].ngpus;
    uint64_t seed = 12345;
    int bad = 0;
    for (int step = 0; step < 4000; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int i = (int)((seed >> 33) % NJ);
        if (jobs[i].on) {
            sim_bf_index_remove(x, jobs[i].node, (uint32_t)i);
            free_g[jobs[i].node] += jobs[i].gpus;
            jobs[i].on = false;
        } else {
            int node = (int)((seed >> 20) % (uint64_t)cl.nnodes), g = 1 + (int)((seed >> 45) % 4);
            if (free_g[node] < g)
                continue;
            gs_time_us end = (seed >> 10) % 7 == 0 ? BF_NEVER : (gs_time_us)((seed >> 13) % 50);
            sim_bf_index_add(x, node, (uint32_t)i, g, end);
            jobs[i] = (bt_job){node, g, end, true};
            free_g[node] -= g;
        }
        for (int n = 0; n < cl.nnodes; n++) {
            for (int g = 1; g <= 8; g++)
                bad += sim_bf_index_when(x, n, g) != brute_when(&cl, jobs, NJ, n, g);
            CHECK_EQ_INT(sim_bf_index_free_now(x, n), free_g[n]);
        }
        for (int g = 1; g <= 8; g++) {
            uint64_t pools = step % 3 == 0 ? 1 : step % 3 == 1 ? 2 : 3;
            gs_time_us t, best = BF_NEVER;
            int want = -1;
            for (int n = 0; n < cl.nnodes; n++) {
                gs_time_us w = brute_when(&cl, jobs, NJ, n, g);
                if (pools >> cl.nodes[n].pool & 1 && w != BF_NEVER && (want < 0 || w < best))
                    best = w, want = n;
            }
            int got = sim_bf_index_first(x, pools, g, &t);
            bad += got != want || (got >= 0 && t != best);
            /* the walk visits the pools' nodes in (time, id) order */
            sim_bf_index_walk w;
            sim_bf_index_walk_start(&w, x, pools, g);
            gs_time_us prev_t = BF_NOW;
            int prev_n = -1, visited = 0, n;
            while ((n = sim_bf_index_walk_next(&w, &t)) >= 0) {
                bad += t != brute_when(&cl, jobs, NJ, n, g) || t < prev_t || (t == prev_t && n < prev_n) ||
                       !(pools >> cl.nodes[n].pool & 1);
                prev_t = t, prev_n = n, visited++;
            }
            sim_bf_index_walk_end(&w);
            int expect = 0;
            for (int m = 0; m < cl.nnodes; m++)
                expect += pools >> cl.nodes[m].pool & 1 && brute_when(&cl, jobs, NJ, m, g) != BF_NEVER;
            bad += visited != expect;
        }
    }
    CHECK_EQ_INT(bad, 0);
    sim_bf_index_free(x);
    sim_cluster_free(&cl);
}

/* {==== the queue keeps the shapes queued, not every shape seen ====} */

static bool take_all(void *ud, job *j)
{
    (void)j;
    (*(int *)ud)++;
    return true;
}

/* 20,000 requests, each its own class key (as distinct time limits make
 * them), pushed and started 100 at a time: the queue never holds more than
 * a few hundred classes, and every request comes out once, in order. */
static void test_queue_drops_empty_classes(void)
{
    enum { N = 20000, WAVE = 100 };
    job *jobs = calloc(N, sizeof *jobs);
    sim_queue q;
    sim_queue_init(&q);
    int started = 0, most = 0;
    for (int w = 0; w < N / WAVE; w++) {
        for (int i = w * WAVE; i < (w + 1) * WAVE; i++) {
            jobs[i].req.submit_us = i;
            jobs[i].arrival_no = (uint64_t)i;
            sim_queue_push(&q, &jobs[i], 0x1000 + (uint64_t)i, 0);
        }
        most = q.ncls > most ? q.ncls : most;
        sim_queue_dispatch(&q, true, NULL, take_all, &started);
    }
    CHECK_EQ_INT(started, N);
    CHECK_EQ_INT(sim_queue_len(&q), 0);
    CHECK(most <= 3 * WAVE + 64);
    sim_queue_free(&q);
    free(jobs);
}

/* {==== hand-worked examples ====} */

typedef struct starts {
    gs_time_us at[8];
} starts;

static void on_done(void *ud, const job *j)
{
    starts *st = ud;
    int k = atoi(j->req.id + 1);
    if (k >= 0 && k < 8)
        st->at[k] = j->start_us;
}

/* Start times of j1..j3 of the example with j2's GPUs and j3's duration
 * under queue=q (nodes > 1: the example across nodes of 8 GPUs). */
static void run_example_on(int nodes, const char *q, int j2_gpus, int j3_dur_s, starts *st)
{
    char trace[512];
    int j1 = nodes > 1 ? 24 : 6, j3 = nodes > 1 ? 8 : 2;
    snprintf(trace, sizeof trace, "id,submit,duration,gpus\nj1,0,100,%d\nj2,1,50,%d\nj3,2,%d,%d\n", j1, j2_gpus,
             j3_dur_s, j3);
    char set[64];
    snprintf(set, sizeof set, "queue=%s", q);
    const char *sets[] = {set, NULL};
    memset(st, 0xff, sizeof *st);
    tu_run r;
    char spec[64];
    snprintf(spec, sizeof spec, "H100-SXM5-80GB:%d", 8 * nodes);
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(trace), spec, 8, "whole", sets, on_done, st), 0);
    CHECK_EQ_INT(r.s.completed, 3);
    tu_run_free(&r);
}

static void run_example(const char *q, int j2_gpus, int j3_dur_s, starts *st)
{
    run_example_on(1, q, j2_gpus, j3_dur_s, st);
}

#define S(x) ((gs_time_us)(x) * GS_US_PER_S)

static void test_hand_short_job_starts_early(void)
{
    starts st;
    run_example("backfill", 8, 50, &st); /* A */
    CHECK_EQ_INT(st.at[1], S(0));
    CHECK_EQ_INT(st.at[2], S(100));
    CHECK_EQ_INT(st.at[3], S(2));
    run_example("fifo", 8, 50, &st);
    CHECK_EQ_INT(st.at[3], S(150));
}

static void test_hand_long_job_must_not(void)
{
    starts st;
    run_example("backfill", 8, 200, &st); /* B */
    CHECK_EQ_INT(st.at[2], S(100));
    CHECK_EQ_INT(st.at[3], S(150));
    run_example("skip", 8, 200, &st);
    CHECK_EQ_INT(st.at[3], S(2));
    CHECK_EQ_INT(st.at[2], S(202));
}

static void test_hand_long_job_on_extra_gpus(void)
{
    starts st;
    run_example("backfill", 4, 200, &st); /* C */
    CHECK_EQ_INT(st.at[2], S(100));
    CHECK_EQ_INT(st.at[3], S(2));
}

/* {==== every example under backfill ====} */

/* The report of trace on cluster_file (NULL: 8 H100s) under whole with
 * queue=backfill and `extra` (may be NULL), timing fields fixed; NULL when
 * the run fails. */
static char *example_report(const char *trace, const char *cluster_file, const char *extra)
{
    sim_config cfg = {.trace_path = trace, .policy = "whole", .seed = 5};
    const char *sets[] = {"queue=backfill", extra, NULL};
    tu_add_sets(&cfg, sets);
    sim_cluster cl;
    gs_error err;
    sim s;
    int rc = cluster_file ? sim_cluster_load(&cl, cluster_file, tu_catalog(), &err)
                          : sim_cluster_from_spec(&cl, "H100-SXM5-80GB:8", 4, tu_catalog(), &err);
    char *out = NULL;
    if (rc == 0 && tu_sim_init(&s, &cfg, tu_catalog(), &cl, NULL, &err) == 0 && sim_run(&s) == 0) {
        CHECK(s.arrived == s.completed + s.running + s.queued + s.rejected + s.suspended + s.failed);
        cJSON *r = sim_report_build(&s, 0.0, 0.0);
        out = cJSON_Print(r);
        cJSON_Delete(r);
    } else {
        fprintf(stderr, "    %s: %s\n", trace, err.msg);
    }
    if (rc == 0) {
        sim_free(&s);
        sim_cluster_free(&cl);
    }
    for (int i = 0; i < cfg.nsets; i++)
        free(cfg.sets[i].key);
    return out;
}

/* The examples (services, sessions, CPU and memory asks, preemption) run to
 * their end under backfill, twice alike. */
static void test_examples_run(void)
{
    static const char *const runs[][3] = {
        {"workloads/examples/day.csv", "workloads/examples/cluster.json", NULL},
        {"workloads/examples/agents.csv", "workloads/examples/cluster.json", NULL},
        {"workloads/examples/inference.csv", "workloads/examples/cluster.json", NULL},
        {"workloads/examples/longtail.csv", NULL, NULL},
        {"workloads/examples/preempt.csv", "workloads/examples/cluster-preempt.json", "preempt=on"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *a = example_report(runs[i][0], runs[i][1], runs[i][2]);
        char *b = example_report(runs[i][0], runs[i][1], runs[i][2]);
        CHECK(a && b && strcmp(a, b) == 0);
        CHECK(a && strstr(a, "\"backfill\":"));
        free(a);
        free(b);
    }
}

static void test_hand_across_nodes(void)
{
    starts st;
    run_example_on(4, "backfill", 32, 50, &st); /* D */
    CHECK_EQ_INT(st.at[1], S(0));
    CHECK_EQ_INT(st.at[2], S(100));
    CHECK_EQ_INT(st.at[3], S(2));
    run_example_on(4, "backfill", 32, 200, &st); /* E */
    CHECK_EQ_INT(st.at[2], S(100));
    CHECK_EQ_INT(st.at[3], S(150));
    run_example_on(4, "skip", 32, 200, &st);
    CHECK_EQ_INT(st.at[3], S(2));
    CHECK_EQ_INT(st.at[2], S(202));
}

/* Start times of j1..j3 on one node of 8 GPUs under backfill: j1 6 GPUs
 * for 100 s, j2 8 GPUs for 50 s, j3 2 GPUs for j3_dur_s, with time limits
 * (seconds; "" not given: the duration). */
static void run_limits(const char *j1_limit, int j3_dur_s, const char *j3_limit, starts *st)
{
    char trace[512];
    snprintf(trace, sizeof trace, "id,submit,duration,gpus,time_limit\nj1,0,100,6,%s\nj2,1,50,8,\nj3,2,%d,2,%s\n",
             j1_limit, j3_dur_s, j3_limit);
    const char *sets[] = {"queue=backfill", NULL};
    memset(st, 0xff, sizeof *st);
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(trace), "H100-SXM5-80GB:8", 8, "whole", sets, on_done, st), 0);
    CHECK_EQ_INT(r.s.completed, 3);
    tu_run_free(&r);
}

/* Backfill plans with the limits users ask, not with the run times: D, A
 * with j3 asking 120 s for its 50 (it could end by j2's reservation at 100,
 * but its limit says 122): it waits for j2, 100..150. E, B with j1 asking
 * 300 s for its 100: j2's reservation is planned at 300, so j3 (200 s, by
 * 202) backfills at 2, and j2, when j1 really ends at 100, finds 6 GPUs
 * free, not 8: it starts when j3 ends, at 202. */
static void test_hand_time_limits(void)
{
    starts st;
    run_limits("", 50, "120", &st); /* D */
    CHECK_EQ_INT(st.at[2], S(100));
    CHECK_EQ_INT(st.at[3], S(150));
    run_limits("", 50, "60", &st); /* A's outcome with a limit that fits */
    CHECK_EQ_INT(st.at[3], S(2));
    run_limits("300", 200, "", &st); /* E */
    CHECK_EQ_INT(st.at[3], S(2));
    CHECK_EQ_INT(st.at[2], S(202));
    /* what backfilling plans with is read (a bad limit stops the run); skip leaves it unread */
    const char *bad = tu_write_tmp("id,submit,duration,gpus,time_limit\nj1,0,100,6,soon\n");
    const char *bf[] = {"queue=backfill", NULL}, *sk[] = {"queue=skip", NULL};
    tu_run r;
    CHECK(tu_run_trace(&r, bad, "H100-SXM5-80GB:8", 8, "whole", bf, NULL, NULL) != 0 &&
          strstr(r.err.msg, "time_limit"));
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, bad, "H100-SXM5-80GB:8", 8, "whole", sk, NULL, NULL), 0);
    tu_run_free(&r);
}

const test_case tests_backfill[] = {
    {"backfill_examples_run", test_examples_run},
    {"backfill_index_brute", test_index_brute},
    {"backfill_queue_drops_empty_classes", test_queue_drops_empty_classes},
    {"backfill_hand_short_job_starts_early", test_hand_short_job_starts_early},
    {"backfill_hand_long_job_must_not", test_hand_long_job_must_not},
    {"backfill_hand_long_job_on_extra_gpus", test_hand_long_job_on_extra_gpus},
    {"backfill_hand_across_nodes", test_hand_across_nodes},
    {"backfill_hand_time_limits", test_hand_time_limits},
    {NULL, NULL},
};
