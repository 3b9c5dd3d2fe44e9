/* test_observed.c - simulated against observed queue time (sim_observed.h):
 * the figures of hand-made arrivals and starts, a slot reused by a job
 * without an observed start, and a run without any (no report object).
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "../sim/sim_observed.h"
#include "check.h"

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

const test_case tests_observed[] = {
    {"observed_queue_figures", figures},
    {"observed_queue_absent", absent},
    {NULL, NULL},
};
