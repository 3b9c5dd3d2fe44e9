/* sim_elastic.c - the cluster autoscaler's module (sim_elastic.h): nodes
 * that come up (their waiting jobs start, or ask again), scale in of nodes
 * idle for idle_s, the hooks and the module record; the scale out is
 * sim_elastic_scale.c's, reclaims sim_elastic_spot.c's, the pooled trigger
 * sim_elastic_pooled.c's. Costs: a node up O(jobs that waited for it), an
 * idle check O(1).
 * SPDX-License-Identifier: MIT */
#include "sim_elastic_int.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_module.h"
#include "sim_nodes.h"

/* {==== nodes up and idle ====} */

static void idle_later(el_state *e, int node)
{
    el_group *g = &e->g[e->group_of[node]];
    if (!g->cfg->autoscale)
        return;
    el_node *n = &e->node[node];
    n->gen++;
    sim_module_event(e->s, e->index, sim_now(e->s) + el_s_to_us(g->cfg->idle_s), (uint32_t)node, n->gen, EL_EV_IDLE);
}

static void on_up(el_state *e, int node)
{
    sim *s = e->s;
    el_group *g = &e->g[e->group_of[node]];
    el_node *n = &e->node[node];
    if (g->open_node == node)
        g->open_node = -1;
    sim_gauge_add(&g->provisioning, sim_now(s), -1);
    el_ref *w = n->wait;
    int nw = n->nwait;
    n->wait = NULL;
    n->nwait = n->capwait = 0;
    el_scale_set_state(e, node, NODE_UP); /* dispatches */
    el_spot_arm(e, node);
    for (int i = 0; i < nw; i++) {
        job *j = sim_job_at(s, w[i].slot, w[i].gen);
        if (j && j->state == JOB_RUNNING && j->start_us == sim_now(s)) {
            sim_sketch_add(&g->provision_wait_s, gs_us_to_s(sim_now(s) - n->decided_us));
            g->provision_waits++;
        } else if (j && j->state == JOB_QUEUED)
            el_scale_pending(e, j); /* another took the node: ask again */
    }
    free(w);
    if (sim_node_empty(s, node))
        idle_later(e, node);
}

static void on_idle(el_state *e, int node)
{
    el_group *g = &e->g[e->group_of[node]];
    if (sim_node_state(e->s, node) != NODE_UP || !sim_node_empty(e->s, node) || g->alive <= g->cfg->min)
        return;
    if (g->cfg->trigger == TRIGGER_POOLED && el_pooled_keeps(e, g))
        idle_later(e, node); /* needed by the pooled metrics: looked at again after idle_s */
    else
        el_scale_node_gone(e, node, false);
}

/* {==== the module's hooks ====} */

static void on_watch(void *ud, sim *s, int node, const job *j, bool joined)
{
    el_state *e = ud;
    el_group *g = &e->g[e->group_of[node]];
    int gpus = job_gpus_on(j, node);
    int64_t mib = job_req_gpumem_mib(&j->req, sim_cluster_of(s)->pools[g->pool].model->memory_mib);
    sim_gauge_add(&g->used, sim_now(s), joined ? gpus : -gpus);
    e->mem_used_mib += (joined ? 1.0 : -1.0) * (double)(mib > 0 ? mib : sim_cluster_of(s)->pools[g->pool].model->memory_mib) * gpus;
    if (joined)
        e->node[node].gen++; /* an idle timer running is void */
    else if (sim_node_empty(s, node) && sim_node_state(s, node) == NODE_UP)
        idle_later(e, node);
}

/* Any model's move of a node: its group's counts by state. A node another
 * model took down (a failure) stays billed, its timers void (idle, spot
 * notice and reclaim: it is out of service, in repair); back up, it is
 * armed again and, empty, goes idle like any node (scaled in after idle_s). */
static void on_state(void *ud, sim *s, int node, int was)
{
    el_state *e = ud;
    el_group *g = &e->g[e->group_of[node]];
    int now = sim_node_state(s, node);
    g->nstate[was]--;
    g->nstate[now]++;
    if (now == NODE_DOWN) {
        e->node[node].gen++;
        e->node[node].spot_gen++;
    } else if (was == NODE_DOWN && now == NODE_UP) {
        el_spot_arm(e, node);
        if (sim_node_empty(s, node))
            idle_later(e, node);
    }
}

static void el_arrived(void *state, sim *s, job *j)
{
    (void)s;
    el_state *e = state;
    if (!e || !e->states)
        return;
    if (j->state == JOB_QUEUED)
        el_scale_pending(e, j);
    if (e->pooled)
        el_pooled_arm(e);
}

/* Where a trace job may run (the row's tier; jobs and sessions: any): a
 * no-spot job loses the spot pools, and is refused when no other is left. */
static bool el_admit(void *state, sim *s, job *j)
{
    el_state *e = state;
    const wl_row *r = sim_arriving_row(s);
    if (r && r->tier == WL_TIER_NO_SPOT && (j->pools & e->spot_pools)) {
        j->pools &= ~e->spot_pools;
        if (!j->pools) {
            sim_admit_refuse(s, "tier no-spot: the GPU models it may use are on spot nodes only");
            return false;
        }
    }
    return true;
}

/* Internal tasks (service replicas, sandboxes) stay off spot nodes: a
 * service's default tier is no-spot. */
static uint64_t el_narrow_pools(void *state, sim *s, job *j, uint64_t pools)
{
    (void)s;
    const el_state *e = state;
    return j->internal ? pools & ~e->spot_pools : pools;
}

static bool el_event_live(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    el_state *e = state;
    if (aux == EL_EV_NOTICE || aux == EL_EV_RECLAIM)
        return e->node[slot].spot_gen == gen;
    if ((aux & 0xff) == EL_EV_SAVED) { /* the run that began the write: not one after a failure stopped it */
        const job *j = sim_job_at(s, slot, gen);
        return j && j->state == JOB_RUNNING && (j->starts & 0xffffffu) == aux >> 8;
    }
    return aux == EL_EV_SCAN || aux == EL_EV_POOLED || e->node[slot].gen == gen;
}

static void el_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)s;
    el_state *e = state;
    switch (aux & 0xff) {
    case EL_EV_UP: on_up(e, (int)slot); break;
    case EL_EV_IDLE: on_idle(e, (int)slot); break;
    case EL_EV_SCAN: el_scale_scan(e); break;
    case EL_EV_POOLED: el_pooled_tick(e); break;
    default: el_spot_event(e, slot, gen, (int)(aux & 0xff)); break;
    }
}

/* {==== init ====} */

static double group_price(const sim_cluster *c, int gi, int pool)
{
    if (c->pools[pool].price_override >= 0)
        return c->pools[pool].price_override;
    if (c->group_price && c->group_price[gi] >= 0)
        return c->group_price[gi];
    return c->pools[pool].model->price_per_hour_usd;
}

/* The autoscaled groups cheapest first, file order on ties (an insertion
 * sort: a cluster has a few groups). */
static void sort_by_price(el_state *e)
{
    for (int i = 1; i < e->norder; i++)
        for (int k = i; k > 0 && e->g[e->order[k]].usd_gpu_h < e->g[e->order[k - 1]].usd_gpu_h; k--) {
            int t = e->order[k];
            e->order[k] = e->order[k - 1];
            e->order[k - 1] = t;
        }
}

static void group_init(el_state *e, int gi)
{
    sim *s = e->s;
    const sim_cluster *c = sim_cluster_of(s);
    el_group *g = &e->g[gi];
    g->index = gi;
    g->cfg = &c->group_elastic[gi];
    g->first = c->group_first[gi];
    g->count = (gi + 1 < c->ngroups ? c->group_first[gi + 1] : c->nnodes) - g->first;
    g->open_node = -1;
    sim_sketch_init(&g->provision_wait_s);
    if (g->count == 0)
        return;
    const sim_node *n0 = &c->nodes[g->first];
    g->pool = n0->pool;
    g->ngpus = n0->ngpus;
    g->cpu = n0->cpu_total;
    g->mem_gib = n0->mem_total_gib;
    g->usd_gpu_h = group_price(c, gi, g->pool);
    g->absent = xmalloc((size_t)g->count * sizeof *g->absent);
    for (int k = 0; k < g->count; k++)
        e->group_of[g->first + k] = gi;
    int up = g->cfg->autoscale ? g->cfg->min : g->count;
    g->nstate[NODE_UP] = up; /* the moves below come before on_state watches */
    g->nstate[NODE_ABSENT] = g->count - up;
    for (int k = g->count - 1; k >= up; k--) { /* the lowest absent id on top */
        g->absent[g->nabsent++] = g->first + k;
        el_scale_set_state(e, g->first + k, NODE_ABSENT);
    }
    g->alive = up;
    sim_gauge_set(&g->exist, 0, up);
    if (g->cfg->tier == TIER_RESERVED)
        g->reserved_gpus = g->count * g->ngpus;
    for (int k = 0; k < up; k++)
        el_spot_arm(e, g->first + k);
    if (g->cfg->autoscale)
        e->order[e->norder++] = gi;
}

static void ts_fill(void *ud, double *out)
{
    const el_state *e = ud;
    for (int gi = 0; gi < e->ng; gi++) {
        *out++ = e->g[gi].nstate[NODE_UP];
        *out++ = e->g[gi].nstate[NODE_PROVISIONING];
        *out++ = e->g[gi].nstate[NODE_DRAINING];
    }
}

/* The timeseries gains each group's nodes up, provisioning and draining. */
static void ts_columns(el_state *e)
{
    size_t cap = (size_t)e->ng * 64 + 1, len = 0;
    char *head = xmalloc(cap);
    head[0] = 0;
    for (int gi = 0; gi < e->ng; gi++)
        len += (size_t)snprintf(head + len, cap - len, ",g%d_up,g%d_provisioning,g%d_draining", gi, gi, gi);
    sim_ts_columns(e->s, head, 3 * e->ng, ts_fill, e);
    free(head);
}

static int el_init(sim *s, int index, void **state, gs_error *err)
{
    const sim_cluster *c = sim_cluster_of(s);
    *state = NULL;
    if (!c->group_elastic) {
        sim_module_skip(s, index, SIM_HOOK_ARRIVED | SIM_HOOK_ADMIT | SIM_HOOK_NARROW_POOLS);
        return 0;
    }
    el_state *e = xcalloc(1, sizeof *e);
    *state = e;
    e->s = s;
    e->index = index;
    for (int gi = 0; gi < c->ngroups; gi++)
        e->states |= c->group_elastic[gi].autoscale;
    if (e->states) {
        int rc = sim_nodes_enable(s, err);
        if (rc)
            return rc;
        sim_nodes_watch(s, on_watch, e);
    } else
        sim_module_skip(s, index, SIM_HOOK_ARRIVED);
    e->ng = c->ngroups;
    e->g = xcalloc((size_t)e->ng, sizeof *e->g);
    e->order = xmalloc((size_t)e->ng * sizeof *e->order);
    e->group_of = xmalloc((size_t)c->nnodes * sizeof *e->group_of);
    e->node = xcalloc((size_t)c->nnodes, sizeof *e->node);
    for (int gi = 0; gi < e->ng; gi++)
        group_init(e, gi);
    sort_by_price(e);
    if (e->states) {
        sim_nodes_watch_states(s, on_state, e);
        ts_columns(e);
    }
    for (int k = 0; k < e->norder; k++)
        e->pooled |= e->g[e->order[k]].cfg->trigger == TRIGGER_POOLED;
    if (e->pooled)
        el_pooled_arm(e);
    for (int p = 0; p < c->npools; p++)
        e->spot_pools |= c->pools[p].spot ? 1ULL << p : 0;
    if (!e->spot_pools)
        sim_module_skip(s, index, SIM_HOOK_ADMIT | SIM_HOOK_NARROW_POOLS);
    return 0;
}

static void el_fini(void *state)
{
    el_state *e = state;
    if (!e)
        return;
    for (int gi = 0; gi < e->ng; gi++) {
        free(e->g[gi].absent);
        el_spot_free(&e->g[gi]);
        sim_sketch_free(&e->g[gi].provision_wait_s);
    }
    for (int n = 0; e->node && n < sim_cluster_of(e->s)->nnodes; n++) /* NULL: init refused the run */
        free(e->node[n].wait);
    free(e->g);
    free(e->order);
    free(e->group_of);
    free(e->node);
    free(e->watch);
    free(e);
}

/* Placed work's columns the elastic groups read: with spot pools the tier
 * (el_admit) and the checkpoint's size (a notice's write); with node
 * states the GPU memory ask (the pooled trigger's memory in use) and the
 * checkpoint's size (a node that goes interrupts its jobs). */
static uint64_t el_columns(const void *state, int kind)
{
    const el_state *e = state;
    if (!e || !sim_kind_placed(kind))
        return 0;
    uint64_t ckpt = WL_COL_BIT(WL_COL_CHECKPOINT_GIB) | WL_COL_BIT(WL_COL_PARAMS_B), read = 0;
    if (e->spot_pools)
        read |= WL_COL_BIT(WL_COL_TIER) | ckpt;
    if (e->states)
        read |= WL_COL_BIT(WL_COL_GPUMEM) | WL_COL_BIT(WL_COL_GPUMEM_PCT) | ckpt;
    return read;
}

const sim_module elastic_module = {
    .name = "elastic",
    .init = el_init,
    .fini = el_fini,
    .admit = el_admit,
    .narrow_pools = el_narrow_pools,
    .arrived = el_arrived,
    .event_live = el_event_live,
    .event = el_event,
    .report = el_report,
    .columns_read = el_columns,
};

void sim_elastic_reclaim(sim *s, int node)
{
    el_state *e = sim_module_state(s, &elastic_module);
    if (!e || node < 0 || node >= sim_cluster_of(s)->nnodes || e->group_of[node] < 0 ||
        e->g[e->group_of[node]].cfg->tier != TIER_SPOT || sim_node_state(s, node) != NODE_UP)
        GS_BUG("sim_elastic_reclaim: not an up node of a spot group");
    e->node[node].spot_gen++; /* the drawn reclaim is void: this one replaces it */
    el_spot_notice(e, node);
}
