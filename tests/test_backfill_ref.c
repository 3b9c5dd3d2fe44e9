/* test_backfill_ref.c - queue=backfill against an independent EASY
 * simulator, job by job.
 *
 * The reference (ref_* below) is the simplest correct EASY backfilling,
 * written apart from gpusim: it shares no policy, queue or engine code, and
 * keeps its own event loop. Its machine is P interchangeable units; a job
 * asks k of them for its run time and plans with its time limit. Times are
 * integer microseconds. At every event (an arrival, or a job's end, in time
 * order) it runs one pass:
 *   1. start jobs from the front of the FIFO queue while they fit;
 *   2. the front job H that does not fit: sort the running jobs by planned
 *      end (start + limit) and add up what they free, in that order, until
 *      H's k fit; that end is the shadow time T, and extra = what is free at
 *      T (every job planned to end by T counted) - H's k;
 *   3. every later job J, in queue order: it starts if its k fit now and it
 *      ends by its limit no later than T (now + limit <= T), or its k are
 *      within extra (then extra -= k).
 * Two events at one instant would leave the order to the implementation;
 * the random traces are drawn so that none coincide, and the reference
 * counts any it meets (the test then fails rather than compare ties).
 *
 * gpusim runs the same trace with policy whole and queue=backfill on one
 * node of 64 GPUs (the units are its cards, so placement cannot matter) and
 * the look-ahead unbounded; each job's first start must equal the
 * reference's to the microsecond, on 10,000-job traces of several seeds at
 * loads that keep a queue.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testutil.h"

typedef struct ref_job {
    int64_t submit, run, limit; /* us */
    int k;
    int64_t start; /* out; -1 before */
} ref_job;

typedef struct ref_sim {
    ref_job *j;
    int n, units, free_units;
    int *queue, qlen;    /* FIFO: indices of waiting jobs */
    int *running, nrun;  /* indices of running jobs */
    long ties;
} ref_sim;

static int64_t ref_planned_end(const ref_sim *r, int i) { return r->j[i].start + r->j[i].limit; }

static void ref_start(ref_sim *r, int qpos, int64_t now)
{
    int i = r->queue[qpos];
    r->j[i].start = now;
    r->free_units -= r->j[i].k;
    r->running[r->nrun++] = i;
    memmove(&r->queue[qpos], &r->queue[qpos + 1], (size_t)(r->qlen - qpos - 1) * sizeof *r->queue);
    r->qlen--;
}

/* The running jobs by planned end, into order[] (insertion sort: few run). */
static void ref_by_planned_end(const ref_sim *r, int *order)
{
    for (int x = 0; x < r->nrun; x++) {
        int i = r->running[x], y = x;
        while (y > 0 && ref_planned_end(r, order[y - 1]) > ref_planned_end(r, i)) {
            order[y] = order[y - 1];
            y--;
        }
        order[y] = i;
    }
}

static void ref_pass(ref_sim *r, int64_t now)
{
    while (r->qlen && r->j[r->queue[0]].k <= r->free_units)
        ref_start(r, 0, now);
    if (!r->qlen)
        return;
    int need = r->j[r->queue[0]].k;
    int *order = malloc((size_t)(r->nrun ? r->nrun : 1) * sizeof *order);
    ref_by_planned_end(r, order);
    int avail = r->free_units, i = 0;
    int64_t shadow = 0;
    while (avail < need) { /* need <= units: the running jobs free enough */
        shadow = ref_planned_end(r, order[i]);
        while (i < r->nrun && ref_planned_end(r, order[i]) == shadow)
            avail += r->j[order[i++]].k;
    }
    free(order);
    int extra = avail - need;
    for (int q = 1; q < r->qlen;) {
        ref_job *jb = &r->j[r->queue[q]];
        bool by_shadow = now + jb->limit <= shadow;
        if (jb->k <= r->free_units && (by_shadow || jb->k <= extra)) {
            if (!by_shadow)
                extra -= jb->k;
            ref_start(r, q, now);
        } else {
            q++;
        }
    }
}

/* Runs the reference over r->j[0..n) (sorted by submit); fills start. */
static void ref_run(ref_sim *r)
{
    r->free_units = r->units;
    r->queue = malloc((size_t)r->n * sizeof *r->queue);
    r->running = malloc((size_t)r->n * sizeof *r->running);
    r->qlen = r->nrun = 0;
    int next = 0;
    int64_t last_t = -1;
    while (next < r->n || r->nrun) {
        int end_i = -1;
        for (int x = 0; x < r->nrun; x++)
            if (end_i < 0 || r->j[r->running[x]].start + r->j[r->running[x]].run <
                                 r->j[r->running[end_i]].start + r->j[r->running[end_i]].run)
                end_i = x;
        int64_t t_end = end_i >= 0 ? r->j[r->running[end_i]].start + r->j[r->running[end_i]].run : INT64_MAX;
        int64_t t_arr = next < r->n ? r->j[next].submit : INT64_MAX;
        int64_t now = t_end < t_arr ? t_end : t_arr;
        r->ties += now == last_t || t_end == t_arr;
        last_t = now;
        if (t_end < t_arr) {
            r->free_units += r->j[r->running[end_i]].k;
            r->running[end_i] = r->running[--r->nrun];
        } else {
            r->queue[r->qlen++] = next++;
        }
        ref_pass(r, now);
    }
    free(r->queue);
    free(r->running);
}

/* {==== the comparison ====} */

typedef struct got_starts {
    int64_t *start;
    int n;
} got_starts;

static void on_done(void *ud, const job *j)
{
    got_starts *g = ud;
    int i = atoi(j->req.id + 1);
    if (i >= 0 && i < g->n)
        g->start[i] = j->start_us;
}

static uint64_t rnd(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ULL;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A random trace: sizes 1..max_k (small ones likelier), run times 1..3600 s,
 * limits run x 1..4, arrivals at a rate giving offered load `load` of
 * `units`. */
static void make_trace(ref_job *jobs, int n, int units, int max_k, double load, uint64_t seed)
{
    uint64_t s = seed;
    int64_t t = 0;
    double mean_run = 0, mean_k = 0;
    for (int i = 0; i < n; i++) {
        double u = (double)(rnd(&s) >> 11) / 9007199254740992.0;
        jobs[i].k = 1 + (int)((double)max_k * u * u * u);
        if (jobs[i].k > max_k)
            jobs[i].k = max_k;
        jobs[i].run = 1000000 + (int64_t)(rnd(&s) % 3599000000ULL) + 1;
        jobs[i].limit = jobs[i].run + (int64_t)(rnd(&s) % (uint64_t)(3 * jobs[i].run + 1));
        mean_run += (double)jobs[i].run / n;
        mean_k += (double)jobs[i].k / n;
        jobs[i].start = -1;
    }
    double gap_us = mean_run * mean_k / (units * load);
    for (int i = 0; i < n; i++) {
        t += 1 + (int64_t)(rnd(&s) % (uint64_t)(2 * gap_us));
        jobs[i].submit = t;
    }
}

static char *trace_text(const ref_job *jobs, int n, bool limits)
{
    size_t cap = (size_t)n * 80 + 64, len = 0;
    char *buf = malloc(cap);
    len += (size_t)snprintf(buf + len, cap - len, limits ? "id,submit,duration,gpus,time_limit\n"
                                                         : "id,submit,duration,gpus\n");
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "j%d,%lld.%06lld,%lld.%06lld,%d", i,
                                (long long)(jobs[i].submit / 1000000), (long long)(jobs[i].submit % 1000000),
                                (long long)(jobs[i].run / 1000000), (long long)(jobs[i].run % 1000000), jobs[i].k);
        if (limits)
            len += (size_t)snprintf(buf + len, cap - len, ",%lld.%06lld", (long long)(jobs[i].limit / 1000000),
                                    (long long)(jobs[i].limit % 1000000));
        buf[len++] = '\n';
    }
    buf[len] = 0;
    return buf;
}

/* gpusim and the reference on one trace: the jobs whose starts differ.
 * node_gpus 0: one node of `units` GPUs, a unit a GPU; else `units` nodes
 * of node_gpus GPUs, a unit a whole node (a job of k units asks k x
 * node_gpus GPUs: whole nodes, across nodes when k > 1). */
static int compare(int n, int units, int node_gpus, double load, uint64_t seed, bool limits)
{
    ref_job *jobs = malloc((size_t)n * sizeof *jobs);
    int scale = node_gpus ? node_gpus : 1;
    make_trace(jobs, n, units, node_gpus ? 64 / node_gpus : units, load, seed);
    for (int i = 0; i < n && !limits; i++)
        jobs[i].limit = jobs[i].run; /* no time_limit column: the limit is the duration */
    for (int i = 0; i < n; i++)
        jobs[i].k *= scale;
    char *text = trace_text(jobs, n, limits);
    for (int i = 0; i < n; i++)
        jobs[i].k /= scale;
    ref_sim r = {.j = jobs, .n = n, .units = units};
    ref_run(&r);
    CHECK_EQ_INT(r.ties, 0);
    got_starts g = {malloc((size_t)n * sizeof(int64_t)), n};
    for (int i = 0; i < n; i++)
        g.start[i] = -1;
    char spec[64];
    snprintf(spec, sizeof spec, "H100-SXM5-80GB:%d", units * scale);
    const char *sets[] = {"queue=backfill", "bf_max_job_test=1000000", NULL};
    tu_run run;
    CHECK_EQ_INT(tu_run_trace(&run, tu_write_tmp(text), spec, node_gpus ? node_gpus : units, "whole", sets, on_done,
                              &g), 0);
    int differ = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (g.start[i] != jobs[i].start && differ++ == 0)
            first = i;
    if (differ)
        fprintf(stderr, "    seed %llu: %d of %d starts differ; first j%d: gpusim %lld, reference %lld us\n",
                (unsigned long long)seed, differ, n, first, (long long)g.start[first], (long long)jobs[first].start);
    /* the traces keep a queue: backfilling has work to do */
    long backfilled = 0;
    for (int i = 1; i < n; i++)
        backfilled += jobs[i].start < jobs[i - 1].start;
    CHECK(backfilled > n / 50);
    tu_run_free(&run);
    free(g.start);
    free(text);
    free(jobs);
    return differ;
}

static void test_ref_one_node(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        CHECK_EQ_INT(compare(10000, 64, 0, seed % 2 ? 0.85 : 0.95, seed, false), 0);
}

/* Whole-node jobs of 1..8 nodes of 8 GPUs on 32 nodes: gangs of 16..64
 * GPUs across nodes beside 8-GPU jobs on one (the trace reader's 64). */
static void test_ref_whole_nodes(void)
{
    for (uint64_t seed = 11; seed <= 14; seed++)
        CHECK_EQ_INT(compare(10000, 32, 8, seed % 2 ? 0.85 : 0.95, seed, false), 0);
}

/* The trace's time_limit (run x 1..4, as users over-ask): reservations and
 * backfills planned by it, not by the run time, job by job as the
 * reference's, on one node and on whole nodes. */
static void test_ref_time_limits(void)
{
    for (uint64_t seed = 21; seed <= 24; seed++)
        CHECK_EQ_INT(compare(10000, 64, 0, seed % 2 ? 0.85 : 0.95, seed, true), 0);
    for (uint64_t seed = 31; seed <= 34; seed++)
        CHECK_EQ_INT(compare(10000, 32, 8, seed % 2 ? 0.85 : 0.95, seed, true), 0);
}

const test_case tests_backfill_ref[] = {
    {"backfill_ref_one_node", test_ref_one_node},
    {"backfill_ref_whole_nodes", test_ref_whole_nodes},
    {"backfill_ref_time_limits", test_ref_time_limits},
    {NULL, NULL},
};
