/* sim_elastic_pooled.c - the pooled trigger (sim_elastic.h): the scale-out
 * rule on pooled cluster metrics of the GPU-pooling seed article. Every
 * period_s of a pooled group, while work is queued or running, something
 * holds GPUs or a node is on the way, the cluster's metrics are read:
 *   util: GPUs held by jobs on nodes in service over the GPUs in service;
 *   mem:  GPU memory those jobs state (a card's whole memory when they
 *         state none) over the memory of the cards in service;
 *   p99:  the worst P99 latency of the services' latest closed scaling
 *         window (svc_p99_ms_last).
 * When one passes its threshold (util_high, mem_high, p99_high_ms) the
 * group adds one node, unless one of its nodes is still provisioning (the
 * metrics do not see a node before it serves) or it is at its max. Scale-in
 * is the idle rule every autoscaled group follows, except that an idle node
 * of a pooled group stays while the cluster without it would pass util_high
 * or mem_high (it would be asked for again at the next tick). Cost per tick: O(groups
 * + services).
 * SPDX-License-Identifier: MIT */
#include "sim_elastic_int.h"

#include "service/svc.h"
#include "sim.h"
#include "sim_module.h"

/* The cluster's pooled metrics now, less `less` nodes of group `of`. */
static void pooled_metrics(const el_state *e, const el_group *of, int less, double *util, double *mem, double *p99_ms)
{
    double used = 0, gpus = 0, mib = 0;
    for (int gi = 0; gi < e->ng; gi++) {
        const el_group *g = &e->g[gi];
        if (g->count == 0)
            continue;
        double up = (double)(g->nstate[NODE_UP] - (g == of ? less : 0)) * g->ngpus;
        gpus += up;
        mib += up * (double)sim_cluster_of(e->s)->pools[g->pool].model->memory_mib;
        used += g->used.value;
    }
    *util = gpus > 0 ? used / gpus : 0;
    *mem = mib > 0 ? e->mem_used_mib / mib : 0;
    *p99_ms = svc_p99_ms_last(e->s);
}

static gs_time_us period_us(const el_state *e)
{
    double least = 0;
    for (int k = 0; k < e->norder; k++) {
        const sim_group_elastic *c = e->g[e->order[k]].cfg;
        if (c->trigger == TRIGGER_POOLED && (least == 0 || c->period_s < least))
            least = c->period_s;
    }
    return (gs_time_us)(least * 1e6 + 0.5);
}

void el_pooled_arm(el_state *e)
{
    gs_time_us p = period_us(e);
    if (e->pooled_pending || p <= 0)
        return;
    e->pooled_pending = true;
    /* ticks on the period's grid, so a crossing is seen at the first multiple after it */
    sim_module_event(e->s, e->index, (sim_now(e->s) / p + 1) * p, 0, 0, EL_EV_POOLED);
}

void el_pooled_tick(el_state *e)
{
    sim *s = e->s;
    e->pooled_pending = false;
    double util, mem, p99;
    pooled_metrics(e, NULL, 0, &util, &mem, &p99);
    bool moving = !sim_idle(s) || sim_alloc_gpus(s) > 0; /* tasks (replicas) hold GPUs */
    for (int k = 0; k < e->norder; k++) {
        el_group *g = &e->g[e->order[k]];
        moving |= g->provisioning.value > 0;
        if (g->cfg->trigger != TRIGGER_POOLED || g->provisioning.value > 0 || g->alive >= g->cfg->max ||
            g->nabsent == 0)
            continue;
        if (util > g->cfg->util_high || mem > g->cfg->mem_high || p99 > g->cfg->p99_high_ms) {
            el_scale_provision(e, g, NULL);
            moving = true;
        }
    }
    if (moving) /* else the next arrival arms it again (el_arrived) */
        el_pooled_arm(e);
}

bool el_pooled_keeps(const el_state *e, const el_group *g)
{
    double util, mem, p99;
    pooled_metrics(e, g, 1, &util, &mem, &p99);
    return util > g->cfg->util_high || mem > g->cfg->mem_high;
}
