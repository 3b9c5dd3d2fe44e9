/* test_class.c - per-class figures (sim_class.h, jobs.class): a run worked
 * by hand, a job without a class under "-", a rejected job counted as an
 * arrival only, a resumed job's second start not a queue time; no section
 * for a trace without the column; too many classes an input error naming
 * line and column; and the class number costing the job slot nothing.
 * SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_class.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

static double get(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return cJSON_GetNumberValue(b ? cJSON_GetObjectItemCaseSensitive(x, b) : x);
}

/* One GPU, fifo, 10 s jobs (seconds):
 *   a train  t=0  runs 0-10   queue 0   jct 10
 *   b note   t=0  runs 10-20  queue 10  jct 20
 *   x train  t=0  2 GPUs: rejected (no node has 2)
 *   c train  t=0  runs 20-30  queue 20  jct 30
 *   d (none) t=0  runs 30-40  queue 30  jct 40
 * train: 3 arrivals, 2 completed, queue and jct means 10 and 20; note: 1,
 * 1, 10, 20; "-": 1, 1, 30, 40; in order of first arrival. */
static const char *const hand_trace = "id,submit,duration,gpus,class\n"
                                      "a,0,10,1,train\nb,0,10,1,note\nx,0,10,2,train\nc,0,10,1,train\nd,0,10,1,\n";

static void by_hand(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(hand_trace), "H100-SXM5-80GB:1", 1, "whole", NULL, NULL, NULL), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"), "class");
    CHECK_EQ_INT(cJSON_GetArraySize(cls), 3);
    const char *order[3] = {"train", "note", SIM_CLASS_NONE};
    double arrivals[3] = {3, 1, 1}, completed[3] = {2, 1, 1}, queue[3] = {10, 10, 30}, jct[3] = {20, 20, 40};
    const cJSON *c = cls ? cls->child : NULL;
    for (int i = 0; i < 3 && c; i++, c = c->next) {
        CHECK(strcmp(c->string, order[i]) == 0);
        CHECK_EQ_INT(get(c, "arrivals", NULL), arrivals[i]);
        CHECK_EQ_INT(get(c, "completed", NULL), completed[i]);
        CHECK_EQ_INT(get(c, "queue_s", "count"), completed[i]);
        CHECK_NEAR(get(c, "queue_s", "mean"), queue[i], 0, 1e-9);
        CHECK_NEAR(get(c, "jct_s", "mean"), jct[i], 0, 1e-9);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    sim_report_summary(out, rep);
    fclose(out);
    CHECK_STR_HAS(buf, "  class train        queue mean 10.0 p99 ");
    CHECK_STR_HAS(buf, " (3 jobs, 2 completed)\n");
    CHECK_STR_HAS(buf, "  class -            queue mean 30.0 p99 ");
    free(buf);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A class whose only job never starts: "-" in its summary line. */
static void never_started(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,class\nw,0,10,4,big\n"), "H100-SXM5-80GB:1", 1,
                              "whole", NULL, NULL, NULL), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    sim_report_summary(out, rep);
    fclose(out);
    CHECK_STR_HAS(buf, "  class big          queue -, jct - (1 jobs, 0 completed)\n");
    free(buf);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Preemption: the low job is evicted and resumed; its class's queue time
 * is its first start's only (one sample, 0 s), as the run's. */
static void resumed_once(void)
{
    const char *trace = "id,submit,duration,gpus,priority,preemptible,class\n"
                        "lo,0,100,1,0,1,batch\nhi,10,10,1,5,0,urgent\n";
    const char *const sets[] = {"preempt=on", "min_runtime=0", "grace_period=0", NULL};
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(trace), "H100-SXM5-80GB:1", 1, "whole", sets, NULL, NULL), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(rep, "jobs");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(jobs, "class"), "batch");
    CHECK(get(cJSON_GetObjectItemCaseSensitive(rep, "preemption"), "preemptions", NULL) >= 1);
    CHECK_EQ_INT(get(b, "queue_s", "count"), 1);
    CHECK_NEAR(get(b, "queue_s", "max"), 0, 0, 1e-9);
    CHECK_EQ_INT(get(b, "completed", NULL), 1);
    CHECK_EQ_INT(get(jobs, "queue_s", "count"), 2);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

static void absent_without_column(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus\na,0,10,1\n"), "H100-SXM5-80GB:1", 1, "whole",
                              NULL, NULL, NULL), 0);
    CHECK(!r.s.classes.on && r.s.classes.n == 0 && !r.s.row_extras);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"), "class") == NULL);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

static void too_many_classes(void)
{
    size_t cap = 64 * (SIM_CLASS_MAX + 2);
    char *text = xmalloc(cap);
    int n = snprintf(text, cap, "id,submit,duration,gpus,class\n");
    for (int i = 0; i <= SIM_CLASS_MAX; i++)
        n += snprintf(text + n, cap - (size_t)n, "j%d,0,1,1,k%d\n", i, i);
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(text), "H100-SXM5-80GB:1", 1, "whole", NULL, NULL, NULL), GS_EINPUT);
    char want[96];
    snprintf(want, sizeof want, "line %d, column 5 (class): more than %d classes", SIM_CLASS_MAX + 2, SIM_CLASS_MAX);
    CHECK_STR_HAS(r.err.msg, want);
    tu_run_free(&r);
    free(text);
}

/* The class number lives in the request's tail padding. */
static void costs_no_byte(void)
{
    CHECK(sizeof(job_req) == 88);
    CHECK(sizeof(job) == 192);
    CHECK(offsetof(job_req, cls) + sizeof(uint16_t) <= sizeof(job_req));
}

const test_case tests_class[] = {
    {"class_figures_by_hand", by_hand},
    {"class_never_started", never_started},
    {"class_resumed_once", resumed_once},
    {"class_absent_without_column", absent_without_column},
    {"class_too_many", too_many_classes},
    {"class_costs_no_byte", costs_no_byte},
    {NULL, NULL},
};
