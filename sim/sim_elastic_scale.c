/* sim_elastic_scale.c - the autoscaler's scale out (sim_elastic.h): a
 * queued job that fits no up node asks for nodes of the cheapest group it
 * fits, or waits for the open node of a group already provisioning; one
 * that an up node fits is watched and looked at again every scan. Node
 * states move here (el_scale_set_state), and a node goes here (el_scale_node_gone),
 * its waiting jobs asking again. Calls nothing of the module's other files.
 *
 * The pending trigger follows Kubernetes cluster-autoscaler
 * (kubernetes/autoscaler cluster-autoscaler/FAQ.md): a job that fits no up
 * node but fits an empty node of an autoscaled group asks for one node of the
 * cheapest such group (its "price" expander), a job across nodes for as many
 * as its parts; a job that fits in the room left on a node already being
 * provisioned waits for that one instead (the open node of its group: next
 * fit, so no decision walks the nodes). A queued job that an up node fitted
 * when it came is looked at again every scan (10 s, cluster-autoscaler's
 * --scan-interval default). Costs: a decision O(groups) plus one ledger
 * search (O(pools x cards per node) bucket probes); a node gone O(jobs that
 * waited for it); a scan O(jobs watched).
 * SPDX-License-Identifier: MIT */
#include "sim_elastic_int.h"

#include <stdlib.h>

#include "sim.h"
#include "sim_module.h"
#include "sim_nodes.h"

#define EL_SCAN_US 10000000 /* cluster-autoscaler's --scan-interval default, 10 s */

static void ref_push(el_ref **a, int *n, int *cap, const job *j)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 4;
        *a = xrealloc(*a, (size_t)*cap * sizeof **a);
    }
    (*a)[(*n)++] = (el_ref){j->slot, j->gen};
}

/* Moves node (sim_nodes.h); its group's states count it (on_state). */
void el_scale_set_state(el_state *e, int node, int state) { sim_node_set_state(e->s, node, state); }

/* {==== scale out ====} */

/* Does an up node have room for j now? (A job across nodes: the queue
 * tried it, and it spans because no node takes it whole.) */
static bool fits_up(const el_state *e, const job *j)
{
    if (j->req.spans)
        return false;
    return sim_cluster_find_node(sim_cluster_of(e->s), j->pools, j->req.gpus, j->req.cpu, j->req.mem_gib, false) >= 0;
}

/* Nodes of group g that j needs: 1, or a gang's parts; 0 when none fits. */
static int nodes_needed(const el_group *g, const job *j)
{
    if ((g->cpu >= 0 && g->cpu < j->req.cpu - 1e-9) || (g->mem_gib >= 0 && g->mem_gib < j->req.mem_gib - 1e-9))
        return 0;
    if (!j->req.spans)
        return j->req.gpus <= g->ngpus ? 1 : 0;
    int per = j->req.gpus_per_node ? j->req.gpus_per_node : g->ngpus;
    return per > g->ngpus || g->ngpus == 0 ? 0 : (j->req.gpus + per - 1) / per;
}

static bool group_allows(const el_group *g, const job *j)
{
    return (j->pools >> g->pool & 1) && g->cfg->trigger == TRIGGER_PENDING;
}

/* j waits for the open node of a group it fits in: true when one takes it. */
static bool wait_on_open(el_state *e, job *j)
{
    if (j->req.spans)
        return false;
    for (int k = 0; k < e->norder; k++) {
        el_group *g = &e->g[e->order[k]];
        if (g->open_node < 0 || !group_allows(g, j) || g->open_gpus < j->req.gpus ||
            (g->cpu >= 0 && g->open_cpu < j->req.cpu - 1e-9) || (g->mem_gib >= 0 && g->open_mem_gib < j->req.mem_gib - 1e-9))
            continue;
        g->open_gpus -= j->req.gpus;
        g->open_cpu -= j->req.cpu;
        g->open_mem_gib -= j->req.mem_gib;
        el_node *n = &e->node[g->open_node];
        ref_push(&n->wait, &n->nwait, &n->capwait, j);
        return true;
    }
    return false;
}

static void node_provision(el_state *e, el_group *g)
{
    sim *s = e->s;
    int node = g->absent[--g->nabsent];
    el_node *n = &e->node[node];
    n->gen++;
    n->decided_us = sim_now(s);
    g->alive++;
    g->scale_outs++;
    sim_gauge_add(&g->exist, sim_now(s), 1);
    sim_gauge_add(&g->provisioning, sim_now(s), 1);
    el_scale_set_state(e, node, NODE_PROVISIONING);
    sim_module_event(s, e->index, sim_now(s) + el_s_to_us(g->cfg->provision_s), (uint32_t)node, n->gen, EL_EV_UP);
}

void el_scale_provision(el_state *e, el_group *g, job *j)
{
    int k = j ? nodes_needed(g, j) : 1;
    for (int i = 0; i < k; i++) {
        node_provision(e, g);
        int node = g->absent[g->nabsent]; /* the one just taken */
        if (j) {
            el_node *n = &e->node[node];
            ref_push(&n->wait, &n->nwait, &n->capwait, j);
        }
        if (!j || !j->req.spans) {
            g->open_node = node;
            g->open_gpus = g->ngpus - (j ? j->req.gpus : 0);
            g->open_cpu = g->cpu - (j ? j->req.cpu : 0);
            g->open_mem_gib = g->mem_gib - (j ? j->req.mem_gib : 0);
        }
    }
}

/* Scale out for queued job j when no up node and no node on the way takes
 * it: true when it now waits for a node (or needs none). */
static bool consider(el_state *e, job *j)
{
    if (wait_on_open(e, j))
        return true;
    for (int k = 0; k < e->norder; k++) {
        el_group *g = &e->g[e->order[k]];
        int need = group_allows(g, j) ? nodes_needed(g, j) : 0;
        if (need > 0 && g->alive + need <= g->cfg->max && g->nabsent >= need) {
            el_scale_provision(e, g, j);
            return true;
        }
    }
    return false;
}

static void scan_later(el_state *e)
{
    if (e->scan_pending || e->nwatch == 0)
        return;
    e->scan_pending = true;
    sim_module_event(e->s, e->index, sim_now(e->s) + EL_SCAN_US, 0, 0, EL_EV_SCAN);
}

static void watch(el_state *e, job *j)
{
    ref_push(&e->watch, &e->nwatch, &e->capwatch, j);
    scan_later(e);
}

/* A queued job that fits an up node is watched (the queue may start it);
 * one that fits none makes the autoscaler act, or is watched when every
 * group that could take it is at its max. */
void el_scale_pending(el_state *e, job *j)
{
    if (fits_up(e, j) || !consider(e, j))
        watch(e, j);
}

void el_scale_scan(el_state *e)
{
    sim *s = e->s;
    e->scan_pending = false;
    int keep = 0, n = e->nwatch;
    el_ref *w = e->watch;
    e->watch = NULL;
    e->nwatch = e->capwatch = 0;
    for (int i = 0; i < n; i++) {
        job *j = sim_job_at(s, w[i].slot, w[i].gen);
        if (!j || j->state != JOB_QUEUED)
            continue;
        if (fits_up(e, j) || !consider(e, j))
            w[keep++] = w[i];
    }
    /* what is still watched waits for room an up node has, or for a group
     * below its max: only a running job or a node on the way changes that */
    bool moving = sim_jobs_running(s) > 0;
    for (int k = 0; k < e->norder && !moving; k++)
        moving = e->g[e->order[k]].provisioning.value > 0;
    for (int i = 0; moving && i < keep; i++) {
        job *j = sim_job_at(s, w[i].slot, w[i].gen);
        if (j && j->state == JOB_QUEUED)
            ref_push(&e->watch, &e->nwatch, &e->capwatch, j);
    }
    free(w);
    scan_later(e);
}

void el_scale_node_gone(el_state *e, int node, bool reclaimed)
{
    sim *s = e->s;
    el_group *g = &e->g[e->group_of[node]];
    el_node *n = &e->node[node];
    n->gen++;
    if (sim_node_state(s, node) == NODE_PROVISIONING)
        sim_gauge_add(&g->provisioning, sim_now(s), -1);
    if (g->open_node == node)
        g->open_node = -1;
    g->alive--;
    sim_gauge_add(&g->exist, sim_now(s), -1);
    if (reclaimed)
        g->reclaims++;
    else
        g->scale_ins++;
    n->spot_gen++;
    el_scale_set_state(e, node, NODE_ABSENT); /* a reclaimed node interrupts its jobs (who may ask for more) */
    g->absent[g->nabsent++] = node;
    el_ref *w = n->wait;
    int nw = n->nwait;
    n->wait = NULL;
    n->nwait = n->capwait = 0;
    for (int i = 0; i < nw; i++) {
        job *j = sim_job_at(s, w[i].slot, w[i].gen);
        if (j && j->state == JOB_QUEUED)
            el_scale_pending(e, j);
    }
    free(w);
}
