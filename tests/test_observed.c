/* test_observed.c - simulated against observed queue time (sim_observed.h):
 * the figures of hand-made arrivals and starts, a slot reused by a job
 * without an observed start, and a run without any (no report object);
 * then through a run of a trace with the column, worked by hand, and its
 * summary rows.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_observed.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

static double get(const cJSON *q, const char *which, const char *k)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(q, which), k));
}

static void figures(void)
{
    sim_observed o;
    sim_observed_init(&o);
    /* four jobs really waited 0, 10, 20 and 30 s; the run starts three of them after 5, 5 and 40 s */
    sim_observed_arrived(&o, 3, 0);
    sim_observed_arrived(&o, 7, 10);
    sim_observed_arrived(&o, 2000, 20);
    sim_observed_arrived(&o, 9, 30);
    sim_observed_started(&o, 3, 5);
    sim_observed_started(&o, 7, 5);
    sim_observed_started(&o, 2000, 40);
    sim_observed_started(&o, 7, 99); /* a second start (a resume) is not a queue */
    sim_observed_arrived(&o, 9, -1); /* slot 9 reused by a job without an observed start */
    sim_observed_started(&o, 9, 77);
    sim_observed_started(&o, 5000, 1); /* never seen */
    cJSON *jobs = cJSON_CreateObject();
    sim_observed_report(&o, jobs);
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed");
    CHECK(q != NULL);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "jobs")), 4);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "started")), 3);
    CHECK_NEAR(get(q, "observed_s", "mean"), 15, 0, 1e-9);
    CHECK_NEAR(get(q, "simulated_s", "mean"), 50.0 / 3, 0, 1e-9);
    CHECK_NEAR(get(q, "simulated_s", "max"), 40, 0, 1e-9);
    CHECK_NEAR(get(q, "observed_s", "max"), 30, 0, 1e-9);
    cJSON_Delete(jobs);
    sim_observed_free(&o);
}

static void absent(void)
{
    sim_observed o;
    sim_observed_init(&o);
    sim_observed_arrived(&o, 1, -1);
    sim_observed_started(&o, 1, 3);
    cJSON *jobs = cJSON_CreateObject();
    sim_observed_report(&o, jobs);
    CHECK(cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed") == NULL);
    CHECK(o.waiting == NULL); /* nothing allocated for a trace without the column */
    cJSON_Delete(jobs);
    sim_observed_free(&o);
}

/* Shared with a run's queue sketch while every arrival has an observed
 * start, then apart from the first arrival without one: the job still
 * waiting then is marked by hand (as the run marks its jobs in flight). */
static void shared_then_apart(void)
{
    sim_sketch run_q;
    sim_sketch_init(&run_q);
    sim_observed o;
    sim_observed_init(&o);
    sim_observed_share(&o, &run_q);
    sim_observed_arrived(&o, 1, 10);
    sim_observed_arrived(&o, 2, 20);
    sim_sketch_add(&run_q, 5); /* the run starts slot 1 after 5 s */
    sim_observed_started(&o, 1, 5);
    CHECK(o.waiting == NULL); /* nothing kept per slot while shared */
    sim_observed_unshare(&o);
    sim_observed_mark(&o, 2); /* slot 2 has not started */
    sim_observed_arrived(&o, 3, -1);
    sim_sketch_add(&run_q, 7);
    sim_observed_started(&o, 2, 7);
    sim_sketch_add(&run_q, 9); /* slot 3: the run's figures only */
    sim_observed_started(&o, 3, 9);
    cJSON *jobs = cJSON_CreateObject();
    sim_observed_report(&o, jobs);
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed");
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "jobs")), 2);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "started")), 2);
    CHECK_NEAR(get(q, "simulated_s", "mean"), 6, 0, 1e-9);
    CHECK_NEAR(get(q, "simulated_s", "max"), 7, 0, 1e-9);
    CHECK_NEAR(get(q, "observed_s", "mean"), 15, 0, 1e-9);
    cJSON_Delete(jobs);
    sim_observed_free(&o);
    sim_sketch_free(&run_q);
}

/* Every row with an observed start: the figures are the run's queue
 * times (shared, never copied). */
static void every_row(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,observed_start\n"
                                               "a,0,10,1,0\nb,0,10,1,50\nc,5,10,1,7\n"),
                              "H100-SXM5-80GB:1", 1, "whole", NULL, NULL, NULL), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    cJSON *jobs = cJSON_GetObjectItemCaseSensitive(rep, "jobs");
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed");
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "started")), 3);
    CHECK_NEAR(get(q, "simulated_s", "mean"), (0 + 10 + 15) / 3.0, 0, 1e-9);
    CHECK_NEAR(get(q, "simulated_s", "p99"), get(jobs, "queue_s", "p99"), 0, 0);
    CHECK_NEAR(get(q, "observed_s", "mean"), (0 + 50 + 2) / 3.0, 0, 1e-9);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* One GPU, fifo, 10 s jobs (queue times in seconds):
 *   a  t=0  observed start 0    runs 0-10   simulated queue 0
 *   b  t=0  observed 50         runs 10-20  10
 *   c  t=5  no observed start   runs 20-30  (15: in the run's figures only)
 *   d  t=5  observed 105        runs 30-40  25
 *   e  t=6  observed 6, 2 GPUs: rejected (no node has 2), never starts
 *   f  t=7  none; takes e's freed slot, which must not count its start
 *           runs 40-50 (33)
 * Observed: a, b, d, e: 0, 50, 100, 0 (mean 37.5); simulated: a, b, d:
 * 0, 10, 25; one never started. */
static const char *const run_trace = "id,submit,duration,gpus,observed_start\n"
                                     "a,0,10,1,0\nb,0,10,1,50\nc,5,10,1,\nd,5,10,1,105\ne,6,10,2,6\nf,7,10,1,\n";

static void through_a_run(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(run_trace), "H100-SXM5-80GB:1", 1, "whole", NULL, NULL, NULL), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    cJSON *jobs = cJSON_GetObjectItemCaseSensitive(rep, "jobs");
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed");
    CHECK(q != NULL);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "jobs")), 4);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "started")), 3);
    CHECK_NEAR(get(q, "observed_s", "mean"), 37.5, 0, 1e-9);
    CHECK_NEAR(get(q, "observed_s", "max"), 100, 0, 1e-9);
    CHECK_NEAR(get(q, "simulated_s", "mean"), 35.0 / 3, 0, 1e-9);
    CHECK_NEAR(get(q, "simulated_s", "max"), 25, 0, 1e-9);
    CHECK_NEAR(get(jobs, "queue_s", "mean"), (0 + 10 + 15 + 25 + 33) / 5.0, 0, 1e-9); /* the run's own: every start */
    /* right after the run's queue row in the summary, as its table's rows */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    sim_report_summary(out, rep);
    fclose(out);
    CHECK_STR_HAS(buf, "\n  queue sim      11.67 ");
    CHECK_STR_HAS(buf, "\n  queue obs      37.50 ");
    CHECK_STR_HAS(buf, "the 4 jobs with an observed start, simulated and as the real cluster queued them; 1 never started");
    CHECK(strstr(buf, "queue obs") < strstr(buf, "  jct "));
    free(buf);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A sample with no start prints "-", never 0. */
static void none_started(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,observed_start\nw,0,10,4,3\n"),
                              "H100-SXM5-80GB:1", 1, "whole", NULL, NULL, NULL), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    sim_report_summary(out, rep);
    fclose(out);
    CHECK_STR_HAS(buf, "  queue sim          -          -          -          -          -\n");
    CHECK_STR_HAS(buf, "  queue obs       3.00");
    free(buf);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

const test_case tests_observed[] = {
    {"observed_queue_figures", figures},
    {"observed_queue_absent", absent},
    {"observed_queue_shared_then_apart", shared_then_apart},
    {"observed_queue_every_row", every_row},
    {"observed_queue_through_a_run", through_a_run},
    {"observed_queue_none_started", none_started},
    {NULL, NULL},
};
