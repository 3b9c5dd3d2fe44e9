/* sim_elastic_spot.c - spot capacity taken back (sim_elastic.h).
 *
 * Each up node of a spot group is reclaimed after an exponential time of
 * rate reclaim_per_node_hour (reclaims independent of one another and of
 * the node's age: an assumption; the group's own random stream). The cloud
 * warns notice_s before (AWS: two minutes; Google Compute Engine: 30 s; see
 * sim_elastic_conf.c): the node drains (it takes no new work) and each job
 * on it whose checkpoint can be written within the notice stops its work and
 * writes it (its cards held at rate 0), then is requeued having lost nothing
 * (sim_job_interrupt_saved). When the notice ends the node goes (el_scale_node_gone):
 * every job still on it is interrupted as by a failure, losing the work since
 * its latest periodic checkpoint (sim_job_interrupt), and a group below its
 * min asks for a replacement. Cost: a notice O(jobs on the node).
 * SPDX-License-Identifier: MIT */
#include "sim_elastic_int.h"

#include "../base/gs_rng.h"
#include "sim.h"
#include "sim_module.h"
#include "sim_nodes.h"
#include "sim_preempt.h"

void el_spot_arm(el_state *e, int node)
{
    el_group *g = &e->g[e->group_of[node]];
    if (g->cfg->tier != TIER_SPOT || g->cfg->reclaim_per_node_hour <= 0)
        return;
    if (!g->rng) /* RNG_POLICY + 2000 + group: a stream no other consumer takes */
        g->rng = gs_rng_new(sim_seed(e->s), RNG_POLICY + 2000 + (uint32_t)g->index);
    double after_s = gs_rng_exp(g->rng, 3600.0 / g->cfg->reclaim_per_node_hour);
    el_node *n = &e->node[node];
    sim_module_event(e->s, e->index, sim_now(e->s) + el_s_to_us(after_s), (uint32_t)node, n->spot_gen, EL_EV_NOTICE);
}

void el_spot_free(el_group *g)
{
    if (g->rng)
        gs_rng_free(g->rng);
    g->rng = NULL;
}

/* The notice: the jobs that can write their checkpoint in time do so. */
void el_spot_notice(el_state *e, int node)
{
    sim *s = e->s;
    el_group *g = &e->g[e->group_of[node]];
    gs_time_us notice_us = el_s_to_us(g->cfg->notice_s);
    el_scale_set_state(e, node, NODE_DRAINING);
    for (job *j = sim_node_first_job(s, node); j;) {
        job *next = job_spans(j) ? ((const job_part *)job_part_on(j, node))->nnext : j->more->node_next;
        gs_time_us w = j->internal ? -1 : sim_job_ckpt_write_us(s, j);
        if (w >= 0 && w <= notice_us && !sim_job_is_victim(j)) {
            sim_job_set_rate(s, j, 0);
            sim_module_event(s, e->index, sim_now(s) + w, j->slot, j->gen, EL_EV_SAVED | (j->starts & 0xffffffu) << 8);
            g->notices_saved++;
        }
        j = next;
    }
    /* after the writes: one ending with the notice is saved before the node goes */
    sim_module_event(s, e->index, sim_now(s) + notice_us, (uint32_t)node, e->node[node].spot_gen, EL_EV_RECLAIM);
}

static void on_reclaim(el_state *e, int node)
{
    el_group *g = &e->g[e->group_of[node]];
    for (job *j = sim_node_first_job(e->s, node); j; j = job_spans(j) ? ((const job_part *)job_part_on(j, node))->nnext
                                                            : j->more->node_next)
        g->interrupted += !j->internal;
    el_scale_node_gone(e, node, true);
    /* the group's min is kept as a cloud's node group keeps its size: a
     * replacement is asked for (the jobs stopped asked for theirs already) */
    if (g->alive < g->cfg->min && g->nabsent > 0)
        el_scale_provision(e, g, NULL);
}

void el_spot_event(el_state *e, uint32_t slot, uint32_t gen, int kind)
{
    if (kind == EL_EV_NOTICE)
        el_spot_notice(e, (int)slot);
    else if (kind == EL_EV_RECLAIM)
        on_reclaim(e, (int)slot);
    else if (kind == EL_EV_SAVED) {
        job *j = sim_job_at(e->s, slot, gen);
        if (j && j->state == JOB_RUNNING)
            sim_job_interrupt_saved(e->s, j);
    }
}
