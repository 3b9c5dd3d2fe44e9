/* sim_fail_rates.c - failing hardware's figures (sim_fail.h): each node
 * group's rates (its cluster file override, else its model's, else the
 * stand-in model's, gpu_failures.h) and hot spares; the run's causes under
 * one table; the report. O(groups x causes^2) once at init.
 * SPDX-License-Identifier: MIT */
#include "sim_fail_types.h"
#include "sim_elastic.h"

#include <stdlib.h>
#include <string.h>

static int cause_row(sim_fail *x, const char *name)
{
    for (int i = 0; i < x->ncauses; i++)
        if (!strcmp(x->cause[i], name))
            return i;
    x->cause = xrealloc(x->cause, (size_t)(x->ncauses + 1) * sizeof *x->cause);
    x->by_cause = xrealloc(x->by_cause, (size_t)(x->ncauses + 1) * sizeof *x->by_cause);
    snprintf(x->cause[x->ncauses], sizeof x->cause[0], "%s", name);
    x->by_cause[x->ncauses] = 0;
    return x->ncauses++;
}

/* Group i's rates; 0, or GS_EINPUT when none are known. */
static int group_rates(sim_fail *x, const sim *s, int i, int first, gs_error *err)
{
    const sim_cluster *cl = sim_cluster_of(s);
    fail_group *g = &x->grp[i];
    const gpu_model *m = cl->pools[cl->nodes[first].pool].model, *from = NULL;
    if (cl->group_fail && cl->group_fail[i]) {
        g->f = cl->group_fail[i];
        snprintf(g->from, sizeof g->from, "cluster file");
    } else {
        g->f = gpu_catalog_failures(sim_catalog(s), m, &from);
        if (!g->f)
            return gs_err(err, GS_EINPUT, "--set failures=on: GPU model '%s' has no failure rates, nor has "
                          "%s (models/gpu/README.md); give the node group a \"failures\" block", m->name,
                          GPU_FAIL_DEFAULT_MODEL);
        snprintf(g->from, sizeof g->from, "%s", from->name);
        g->assumed = from != m;
    }
    g->per_us = gpu_failures_node_per_day(g->f, cl->nodes[first].ngpus) / 86400e6;
    for (int c = 0; c < g->f->n; c++)
        g->cause_ix[c] = cause_row(x, g->f->cause[c].name);
    return 0;
}

int fail_groups_init(sim_fail *x, sim *s, gs_error *err)
{
    const sim_cluster *cl = sim_cluster_of(s);
    x->ngroups = cl->ngroups;
    x->grp = xcalloc((size_t)x->ngroups + 1, sizeof *x->grp);
    for (int i = 0; i < x->ngroups; i++) {
        fail_group *g = &x->grp[i];
        int first = cl->group_first[i], end = i + 1 < x->ngroups ? cl->group_first[i + 1] : cl->nnodes;
        g->spares = cl->group_spares ? cl->group_spares[i] : 0;
        if (g->spares > 0 && cl->group_elastic && cl->group_elastic[i].autoscale)
            return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d]: spares beside autoscale: the autoscaler brings an "
                          "autoscaled group's nodes in and out; give the spares to a fixed group", cl->path, i);
        if (g->spares >= end - first)
            return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d]: spares %d leave no node in service", cl->path, i,
                          g->spares);
        g->stand = xmalloc(((size_t)g->spares + 1) * sizeof *g->stand);
        for (int n = end - 1; n >= end - g->spares; n--) /* the lowest id comes into service first */
            g->stand[g->nstand++] = n;
        int rc = x->on ? group_rates(x, s, i, first, err) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static void report_rates(const sim_fail *x, const sim *s, cJSON *f)
{
    cJSON *rates = cJSON_AddArrayToObject(f, "rates");
    for (int i = 0; i < x->ngroups; i++) {
        const fail_group *g = &x->grp[i];
        const sim_node *first = &sim_cluster_of(s)->nodes[sim_cluster_of(s)->group_first[i]];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "group", i);
        cJSON_AddStringToObject(o, "model", sim_cluster_of(s)->pools[first->pool].model->name);
        cJSON_AddStringToObject(o, "figures_of", g->from);
        cJSON_AddBoolToObject(o, "assumed", g->assumed);
        cJSON_AddNumberToObject(o, "per_node_day", g->per_us * 86400e6);
        cJSON_AddNumberToObject(o, "spares", g->spares);
        cJSON_AddItemToArray(rates, o);
    }
}

void fail_report(const void *state, const sim *s, cJSON *root, int section)
{
    const sim_fail *x = state;
    if (!x->on)
        return;
    double held = x->held_gpu_s, restart = x->restart_gpu_s, write = x->write_gpu_s;
    fail_jobs_open(x, s, &held, &restart, &write);
    if (section == SIM_REPORT_JOBS) {
        /* useful GPU-seconds over those held by trace jobs: all but the work
         * redone, the start-ups and the periodic writes */
        cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
        if (held > 0)
            cJSON_AddNumberToObject(jobs, "goodput", (held - x->tally.lost_gpu_s - restart - write) / held);
        else
            cJSON_AddNullToObject(jobs, "goodput");
        return;
    }
    if (section != SIM_REPORT_GPU)
        return;
    cJSON *f = cJSON_AddObjectToObject(root, "failures");
    cJSON_AddNumberToObject(f, "interruptions", (double)x->failures);
    cJSON *bc = cJSON_AddObjectToObject(f, "by_cause");
    for (int i = 0; i < x->ncauses; i++)
        cJSON_AddNumberToObject(bc, x->cause[i], (double)x->by_cause[i]);
    cJSON_AddNumberToObject(f, "jobs_interrupted", (double)x->tally.jobs);
    cJSON_AddNumberToObject(f, "lost_gpu_hours", x->tally.lost_gpu_s / 3600);
    cJSON_AddNumberToObject(f, "restart_gpu_hours", restart / 3600);
    cJSON_AddNumberToObject(f, "checkpoint_write_gpu_hours", write / 3600);
    cJSON_AddNumberToObject(f, "held_gpu_hours", held / 3600);
    cJSON_AddNumberToObject(f, "node_down_hours", sim_gauge_area(&x->down, sim_now(s)) / 3600);
    cJSON_AddNumberToObject(f, "spare_swaps", (double)x->swaps);
    report_rates(x, s, f);
}
