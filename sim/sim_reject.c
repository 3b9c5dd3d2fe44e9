/* sim_reject.c - why jobs were rejected (sim_reject.h).
 * SPDX-License-Identifier: MIT */
#include "sim_reject.h"
#include "sim_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most of a node shape's field over the allowed pools (< 0 in a
 * shape: unlimited, returned as -1 at once). */
static double most(const sim_cluster *c, uint64_t pools, bool cpu)
{
    double m = 0;
    for (int p = 0; p < c->npools; p++) {
        if (!(pools >> p & 1))
            continue;
        for (int k = 0; k < c->pools[p].nshapes; k++) {
            double v = cpu ? c->pools[p].shapes[k].cpu : c->pools[p].shapes[k].mem_gib;
            if (v < 0)
                return -1;
            m = v > m ? v : m;
        }
    }
    return m;
}

/* The core's reason for a request the space policy can never place. */
static void derive(const sim_cluster *c, const pol_ops *space, const job *j, char *buf, size_t cap)
{
    double cpu = most(c, j->pools, true), mem = most(c, j->pools, false);
    int gpus = 0;
    for (int p = 0; p < c->npools; p++)
        if ((j->pools >> p & 1) && c->pools[p].max_node_gpus > gpus)
            gpus = c->pools[p].max_node_gpus;
    if (j->pools == 0)
        snprintf(buf, cap, "none of the GPU models it may use is in the cluster");
    else if (j->req.gpus > gpus)
        snprintf(buf, cap, "needs %d GPUs on one node, no node of its models has more than %d", j->req.gpus, gpus);
    else if (cpu >= 0 && j->req.cpu > cpu + 1e-9)
        snprintf(buf, cap, "asks %g CPU cores, no node of its models has more than %g", j->req.cpu, cpu);
    else if (mem >= 0 && j->req.mem_gib > mem + 1e-9)
        snprintf(buf, cap, "asks %g GiB of host memory, no node of its models has more than %g", j->req.mem_gib, mem);
    else
        snprintf(buf, cap, "space policy '%s' has no card it could ever fit on", space->name);
}

static sim_reject_reason *reason_of(sim_rejects *rj, const char *text)
{
    for (int i = 0; i < rj->n; i++)
        if (!strcmp(rj->r[i].text, text))
            return &rj->r[i];
    sim_reject_reason *r = &rj->r[rj->n < SIM_REJECT_REASONS ? rj->n++ : SIM_REJECT_REASONS];
    if (!r->text)
        r->text = xstrdup(r == &rj->r[SIM_REJECT_REASONS] ? "other reasons" : text);
    return r;
}

const char *sim_reject_note(sim_rejects *rj, const sim_reject_ctx *x, const job *j, const char *why)
{
    char buf[400];
    if (!why || !why[0]) {
        const pol_space *sp = x->space->space;
        buf[0] = 0;
        if (sp->reject_reason)
            sp->reject_reason(x->space_state, x->s, j, buf, sizeof buf);
        if (!buf[0])
            derive(x->cl, x->space, j, buf, sizeof buf);
        why = buf;
    }
    sim_reject_reason *r = reason_of(rj, why);
    r->count++;
    if (r->nids < SIM_REJECT_IDS)
        r->ids[r->nids++] = xstrdup(j->req.id);
    return r->text;
}

void sim_reject_report(const sim_rejects *rj, cJSON *jobs)
{
    if (rj->n == 0)
        return;
    cJSON *o = cJSON_AddObjectToObject(jobs, "rejected_reasons");
    for (int i = 0; i <= SIM_REJECT_REASONS; i++) {
        const sim_reject_reason *r = &rj->r[i];
        if (!r->text)
            continue; /* past the reasons in use; the last entry is "other reasons" */
        cJSON *e = cJSON_AddObjectToObject(o, r->text);
        cJSON_AddNumberToObject(e, "count", (double)r->count);
        cJSON *ids = cJSON_AddArrayToObject(e, "ids");
        for (int k = 0; k < r->nids; k++)
            cJSON_AddItemToArray(ids, cJSON_CreateString(r->ids[k]));
    }
}

void sim_rejects_free(sim_rejects *rj)
{
    for (int i = 0; i <= SIM_REJECT_REASONS; i++) {
        free(rj->r[i].text);
        for (int k = 0; k < rj->r[i].nids; k++)
            free(rj->r[i].ids[k]);
    }
    memset(rj, 0, sizeof *rj);
}
