/* sim_elastic_report.c - the report's "elastic" object (sim_elastic.h): per
 * node group and per tier the node-hours billed, GPU-hours used and idle,
 * cost, scale-outs and scale-ins, reclaims, the wait for provisioning; the
 * total cost split by tier.
 *
 * Bills: a reserved group pays for every node over the whole run
 * (sim.end_s); on-demand and spot pay for the node-hours each node existed,
 * from the decision to provision it to its removal. Cost = node-hours x GPUs
 * per node x price per GPU-hour, so the total is the sum over groups by
 * construction and the test checks it from the parts. The same bills, summed
 * per pool, are the capacity the report's cost object splits
 * (sim_elastic_pool_bill), so its totals agree with this object's.
 * SPDX-License-Identifier: MIT */
#include "sim_elastic_int.h"

#include "sim.h"
#include "sim_module.h"

typedef struct el_sums {
    double node_h, used_gpu_h, idle_gpu_h, usd;
    uint64_t outs, ins, reclaims;
    bool priced;
} el_sums;

static el_sums group_sums(const el_group *g, const sim *s)
{
    el_sums t = {.priced = g->usd_gpu_h >= 0};
    double end_h = gs_us_to_s(sim_now(s)) / 3600.0;
    t.node_h = g->cfg->tier == TIER_RESERVED ? g->count * end_h : sim_gauge_area(&g->exist, sim_now(s)) / 3600.0;
    t.used_gpu_h = sim_gauge_area(&g->used, sim_now(s)) / 3600.0;
    t.idle_gpu_h = t.node_h * g->ngpus - t.used_gpu_h;
    t.usd = t.priced ? t.node_h * g->ngpus * g->usd_gpu_h : 0;
    t.outs = g->scale_outs;
    t.ins = g->scale_ins;
    t.reclaims = g->reclaims;
    return t;
}

bool sim_elastic_pool_bill(const sim *s, int pool, double *gpu_h, double *usd)
{
    const el_state *e = sim_module_state(s, &elastic_module);
    if (!e)
        return false;
    *gpu_h = *usd = 0;
    for (int gi = 0; gi < e->ng; gi++) {
        const el_group *g = &e->g[gi];
        if (g->count == 0 || g->pool != pool)
            continue;
        el_sums t = group_sums(g, s);
        *gpu_h += t.node_h * g->ngpus;
        if (!t.priced || *usd < 0)
            *usd = -1;
        else
            *usd += t.usd;
    }
    return true;
}

static void add_sums(cJSON *o, const el_sums *t, bool used_known)
{
    cJSON_AddNumberToObject(o, "node_hours", t->node_h);
    if (used_known) {
        cJSON_AddNumberToObject(o, "gpu_hours_used", t->used_gpu_h);
        cJSON_AddNumberToObject(o, "gpu_hours_idle", t->idle_gpu_h);
    }
    if (t->priced)
        cJSON_AddNumberToObject(o, "cost_usd", t->usd);
    else
        cJSON_AddNullToObject(o, "cost_usd");
    cJSON_AddNumberToObject(o, "scale_outs", (double)t->outs);
    cJSON_AddNumberToObject(o, "scale_ins", (double)t->ins);
    cJSON_AddNumberToObject(o, "reclaims", (double)t->reclaims);
}

static void group_json(cJSON *arr, const el_group *g, const el_sums *t, const sim *s, bool used_known)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "group", g->index);
    cJSON_AddStringToObject(o, "model", sim_cluster_of(s)->pools[g->pool].model->name);
    cJSON_AddStringToObject(o, "tier", sim_tier_name(g->cfg->tier));
    cJSON_AddNumberToObject(o, "gpus_per_node", g->ngpus);
    if (g->usd_gpu_h >= 0)
        cJSON_AddNumberToObject(o, "price_per_gpu_hour_usd", g->usd_gpu_h);
    else
        cJSON_AddNullToObject(o, "price_per_gpu_hour_usd");
    if (g->cfg->autoscale) {
        cJSON *a = cJSON_AddObjectToObject(o, "autoscale");
        cJSON_AddNumberToObject(a, "min", g->cfg->min);
        cJSON_AddNumberToObject(a, "max", g->cfg->max);
        cJSON_AddNumberToObject(a, "provision_s", g->cfg->provision_s);
        cJSON_AddNumberToObject(a, "idle_s", g->cfg->idle_s);
        cJSON_AddStringToObject(a, "trigger", g->cfg->trigger == TRIGGER_POOLED ? "pooled" : "pending");
    } else
        cJSON_AddNumberToObject(o, "nodes", g->count);
    add_sums(o, t, used_known);
    cJSON_AddNumberToObject(o, "peak_nodes", g->cfg->autoscale ? g->exist.peak : g->count);
    cJSON_AddNumberToObject(o, "nodes_at_end", g->cfg->autoscale ? g->exist.value : g->count);
    if (g->cfg->tier == TIER_SPOT) {
        cJSON_AddNumberToObject(o, "checkpoints_within_notice", (double)g->notices_saved);
        cJSON_AddNumberToObject(o, "jobs_interrupted", (double)g->interrupted);
    }
    sim_report_add_stats(o, "provision_wait_s", &g->provision_wait_s);
    cJSON_AddItemToArray(arr, o);
}

void el_report(const void *state, const sim *s, cJSON *root, int section)
{
    const el_state *e = state;
    if (!e || section != SIM_REPORT_GPU)
        return;
    cJSON *el = cJSON_AddObjectToObject(root, "elastic");
    cJSON *groups = cJSON_AddArrayToObject(el, "groups");
    el_sums tier[TIER_N] = {{0}}, all = {.priced = true};
    bool has[TIER_N] = {false};
    for (int t = 0; t < TIER_N; t++)
        tier[t].priced = true;
    for (int gi = 0; gi < e->ng; gi++) {
        const el_group *g = &e->g[gi];
        if (g->count == 0)
            continue;
        el_sums t = group_sums(g, s);
        group_json(groups, g, &t, s, e->states);
        el_sums *x = &tier[g->cfg->tier];
        has[g->cfg->tier] = true;
        for (el_sums *y = x; y; y = y == x ? &all : NULL) {
            y->node_h += t.node_h;
            y->used_gpu_h += t.used_gpu_h;
            y->idle_gpu_h += t.idle_gpu_h;
            y->usd += t.usd;
            y->outs += t.outs;
            y->ins += t.ins;
            y->reclaims += t.reclaims;
            y->priced &= t.priced;
        }
    }
    cJSON *bt = cJSON_AddObjectToObject(el, "by_tier");
    for (int t = 0; t < TIER_N; t++)
        if (has[t])
            add_sums(cJSON_AddObjectToObject(bt, sim_tier_name(t)), &tier[t], e->states);
    add_sums(cJSON_AddObjectToObject(el, "total"), &all, e->states);
}
