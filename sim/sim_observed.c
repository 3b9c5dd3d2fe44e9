/* sim_observed.c - see sim_observed.h.
 * SPDX-License-Identifier: MIT */
#include "sim_observed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_observed_init(sim_observed *o)
{
    memset(o, 0, sizeof *o);
    sim_sketch_init(&o->observed_s);
    sim_sketch_init(&o->simulated_s);
}

void sim_observed_free(sim_observed *o)
{
    sim_sketch_free(&o->observed_s);
    sim_sketch_free(&o->simulated_s);
    free(o->waiting);
    o->waiting = NULL;
}

void sim_observed_arrived(sim_observed *o, uint32_t slot, double observed_queue_s)
{
    if (observed_queue_s < 0) {
        if (slot < o->cap)
            o->waiting[slot] = 0; /* a slot reused by a job without one */
        return;
    }
    if (slot >= o->cap) {
        uint32_t cap = o->cap ? o->cap : 1024;
        while (cap <= slot)
            cap *= 2;
        o->waiting = xrealloc(o->waiting, cap);
        memset(o->waiting + o->cap, 0, cap - o->cap);
        o->cap = cap;
    }
    o->waiting[slot] = 1;
    o->arrived++;
    sim_sketch_add(&o->observed_s, observed_queue_s);
}

void sim_observed_report(const sim_observed *o, cJSON *jobs)
{
    if (!o->arrived)
        return;
    cJSON *q = cJSON_AddObjectToObject(jobs, "queue_vs_observed");
    cJSON_AddNumberToObject(q, "jobs", (double)o->arrived);
    cJSON_AddNumberToObject(q, "started", (double)o->simulated_s.n);
    sim_report_add_stats(q, "observed_s", &o->observed_s);
    sim_report_add_stats(q, "simulated_s", &o->simulated_s);
}

static double stat(const cJSON *q, const char *which, const char *k)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(q, which), k));
}

void sim_observed_print(const cJSON *jobs, FILE *out)
{
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed");
    if (!q)
        return;
    double n = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "jobs")),
           st = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "started"));
    fprintf(out, "  observed  queue s: simulated mean %.1f p50 %.1f p99 %.1f against observed mean %.1f p50 %.1f "
                 "p99 %.1f (%.0f jobs with an observed start; %.0f never started in the run)\n",
            stat(q, "simulated_s", "mean"), stat(q, "simulated_s", "p50"), stat(q, "simulated_s", "p99"),
            stat(q, "observed_s", "mean"), stat(q, "observed_s", "p50"), stat(q, "observed_s", "p99"), n, n - st);
}
