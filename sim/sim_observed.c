/* sim_observed.c - see sim_observed.h.
 * SPDX-License-Identifier: MIT */
#include "sim_observed.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_observed_init(sim_observed *o)
{
    memset(o, 0, sizeof *o);
    sim_sketch_init_wide(&o->observed_s); /* counted by sim_sketch_count_wide, most arrivals */
    sim_sketch_init(&o->simulated_s);
}

void sim_observed_free(sim_observed *o)
{
    sim_sketch_free(&o->observed_s);
    sim_sketch_free(&o->simulated_s);
    free(o->waiting);
    o->waiting = NULL;
}

void sim_observed_grow(sim_observed *o, uint32_t slot)
{
    uint32_t cap = o->cap ? o->cap : 1024;
    while (cap <= slot)
        cap *= 2;
    o->waiting = xrealloc(o->waiting, cap);
    memset(o->waiting + o->cap, 0, cap - o->cap);
    o->cap = cap;
}

void sim_observed_share(sim_observed *o, const sim_sketch *run_queue_s)
{
    o->run_queue_s = run_queue_s;
    o->shared = true;
}

void sim_observed_unshare(sim_observed *o)
{
    if (o->shared)
        sim_sketch_copy(&o->simulated_s, o->run_queue_s);
    o->shared = false;
}

void sim_observed_report(const sim_observed *o, cJSON *jobs)
{
    if (!o->observed_s.n)
        return;
    const sim_sketch *simulated = o->shared ? o->run_queue_s : &o->simulated_s;
    cJSON *q = cJSON_AddObjectToObject(jobs, "queue_vs_observed");
    cJSON_AddNumberToObject(q, "jobs", (double)o->observed_s.n);
    cJSON_AddNumberToObject(q, "started", (double)simulated->n);
    sim_report_add_stats(q, "observed_s", &o->observed_s);
    sim_report_add_stats(q, "simulated_s", simulated);
}

/* As the summary's other statistic rows: "-" in each column of an empty
 * sample (no job with an observed start started in the run). */
static void row(FILE *out, const char *label, const cJSON *st)
{
    static const char *const k[] = {"mean", "p50", "p95", "p99", "max"};
    bool empty = !(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "count")) > 0);
    fprintf(out, "  %-9s", label);
    for (int i = 0; i < 5; i++)
        empty ? fprintf(out, " %10s", "-")
              : fprintf(out, " %10.2f", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, k[i])));
    fputc('\n', out);
}

void sim_observed_print(const cJSON *jobs, FILE *out)
{
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_vs_observed");
    if (!q)
        return;
    double n = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "jobs")),
           st = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(q, "started"));
    row(out, "queue sim", cJSON_GetObjectItemCaseSensitive(q, "simulated_s"));
    row(out, "queue obs", cJSON_GetObjectItemCaseSensitive(q, "observed_s"));
    fprintf(out, "  (queue sim against obs: the %.0f jobs with an observed start, simulated and as the real cluster "
                 "queued them; %.0f never started in this run)\n", n, n - st);
}
