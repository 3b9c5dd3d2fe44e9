/* cli_plan_terms.c - see cli_plan_terms.h.
 * SPDX-License-Identifier: MIT */
#include "cli_plan_terms.h"

#include <string.h>

#include "cli_batch.h"

const plan_implicit plan_implicit_terms[] = {
    {"jobs.rejected", "--allow-rejected", "jobs that could never be placed on this cluster"},
    {"jobs.failed", "--allow-failed", "jobs killed before completing (OOM under sharing, timed out)"},
    {"derived.requests_dropped", "--allow-dropped", "inference requests dropped (queue full, timeout, service end, fits no card)"},
    {"derived.replicas_unplaceable", "--allow-unplaceable", "service replicas that could not be placed, and services whose replica fits no card"},
    {NULL, NULL, NULL},
};

const char *plan_term_flag(const char *path)
{
    for (const plan_implicit *t = plan_implicit_terms; t->path; t++)
        if (!strcmp(t->path, path))
            return t->flag;
    return NULL;
}

bool plan_metric_measured(const cJSON *report, const char *path, double *v)
{
    if (!cli_batch_metric(report, path, v))
        return false;
    const char *dot = strrchr(path, '.');
    if (!dot || !strcmp(dot + 1, "count"))
        return true;
    char parent[160];
    size_t l = (size_t)(dot - path);
    if (l + sizeof ".count" > sizeof parent)
        return true;
    memcpy(parent, path, l);
    strcpy(parent + l, ".count");
    double n;
    return !cli_batch_metric(report, parent, &n) || n > 0;
}
