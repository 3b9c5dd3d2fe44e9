/* sim_nodes.c - the node life cycle (sim_nodes.h). Part of the engine
 * core: it keeps struct sim's node lists, counts and out-of-service gauge
 * (sim_struct.h); the loop reaches it through the hook sim_nodes_enable
 * sets (struct sim.node_job).
 * SPDX-License-Identifier: MIT */
#include "sim_nodes.h"
#include "sim_struct.h"

#include <stdlib.h>

#include "sim_preempt.h"

const char *sim_node_state_name(int state)
{
    static const char *const names[NODE_NSTATES] = {"up", "provisioning", "draining", "down", "spare", "absent"};
    return state >= 0 && state < NODE_NSTATES ? names[state] : "?";
}

/* {==== the jobs of each node ====} */

static job **prev_of(job *j, int n)
{
    return job_spans(j) ? &((job_part *)job_part_on(j, n))->nprev : &j->more->node_prev;
}

static job **next_of(job *j, int n)
{
    return job_spans(j) ? &((job_part *)job_part_on(j, n))->nnext : &j->more->node_next;
}

static int nodes_of(const job *j) { return job_spans(j) ? j->gpu.span->nparts : 1; }
static int node_of(const job *j, int i) { return job_spans(j) ? j->gpu.span->part[i].node : j->node; }

static void job_started(sim *s, job *j)
{
    if (j->node < 0)
        return;
    sim_job_more_kept(s, j);
    for (int i = 0; i < nodes_of(j); i++) {
        int n = node_of(j, i);
        if (s->cl->nodes[n].state != NODE_UP)
            GS_BUG("sim_nodes: a job started on a node out of service");
        job **head = &s->node_jobs[n];
        *prev_of(j, n) = NULL;
        *next_of(j, n) = *head;
        if (*head)
            *prev_of(*head, n) = j;
        *head = j;
        if (s->node_watch)
            s->node_watch(s->node_watch_ud, s, n, j, true);
    }
}

static void job_stopped(sim *s, job *j)
{
    if (j->node < 0)
        return;
    for (int i = 0; i < nodes_of(j); i++) {
        int n = node_of(j, i);
        job *p = *prev_of(j, n), *x = *next_of(j, n);
        if (!p && s->node_jobs[n] != j)
            continue; /* not listed: placed by a policy without a start (a task it ended itself) */
        if (p)
            *next_of(p, n) = x;
        else
            s->node_jobs[n] = x;
        if (x)
            *prev_of(x, n) = p;
        *prev_of(j, n) = *next_of(j, n) = NULL;
        if (s->node_watch)
            s->node_watch(s->node_watch_ud, s, n, j, false);
    }
}

/* The core's call at every start and stop while node states are on. */
static void node_job(sim *s, job *j, bool started)
{
    if (started)
        job_started(s, j);
    else
        job_stopped(s, j);
}

void sim_nodes_watch(sim *s, sim_node_watch_fn fn, void *ud)
{
    if (s->node_watch && fn)
        GS_BUG("sim_nodes_watch: one watcher per run");
    s->node_watch = fn;
    s->node_watch_ud = ud;
}

void sim_nodes_watch_states(sim *s, sim_node_state_fn fn, void *ud)
{
    if (s->state_watch && fn)
        GS_BUG("sim_nodes_watch_states: one watcher per run");
    s->state_watch = fn;
    s->state_watch_ud = ud;
}

bool sim_node_empty(const sim *s, int node) { return s->node_jobs[node] == NULL; }
job *sim_node_first_job(const sim *s, int node) { return s->node_jobs[node]; }

/* {==== states ====} */

int sim_nodes_enable(sim *s, gs_error *err)
{
    if (!(s->pol[0]->space->caps & POL_CAP_NODES))
        return gs_err(err, GS_EUSAGE,
                      "space policy '%s' does not support nodes that fail or come and go (failures, autoscaling)%s%s",
                      s->pol[0]->name, s->pol[0]->failures_refused ? ": " : "",
                      s->pol[0]->failures_refused ? s->pol[0]->failures_refused : "");
    if (!s->node_jobs) {
        s->node_jobs = xcalloc((size_t)s->cl->nnodes + 1, sizeof *s->node_jobs);
        s->node_job = node_job;
        sim_preempt_track_runs(s); /* every job keeps its latest start for the checkpoint rules */
        for (int n = 0; n < s->cl->nnodes; n++)
            s->node_count[s->cl->nodes[n].state]++;
    }
    return 0;
}

int sim_node_state(const sim *s, int node) { return s->cl->nodes[node].state; }

double sim_nodes_out_gpus(const sim *s) { return s->g_out.value; }

/* Every job on node n stops: trace jobs by the checkpoint rules, tasks lost. */
static void interrupt_all(sim *s, int n, const sim_node_why *why)
{
    for (job *j; (j = s->node_jobs[n]) != NULL;) {
        if (j->state != JOB_RUNNING)
            GS_BUG("sim_nodes: a job listed on a node is not running");
        if (j->internal)
            sim_job_fail(s, j);
        else
            sim_job_interrupt(s, j, why);
    }
}

int sim_nodes_in_state(const sim *s, int state) { return s->node_count[state]; }

void sim_node_move(sim *s, int node, int state, const sim_node_why *why)
{
    if (!s->node_jobs)
        GS_BUG("sim_node_move: node states not enabled (sim_nodes_enable)");
    if (node < 0 || node >= s->cl->nnodes || state < 0 || state >= NODE_NSTATES)
        GS_BUG("sim_node_move: no such node or state");
    sim_node *nd = &s->cl->nodes[node];
    int was = nd->state;
    if (was == state)
        return;
    s->node_count[was]--;
    s->node_count[state]++;
    const pol_space *sp = s->pol[0]->space;
    if (was == NODE_UP) { /* out of the ledger's buckets before anything can start there */
        sim_cluster_node_out(s->cl, node);
        nd->state = (uint8_t)state;
        sim_gauge_add(&s->g_out, s->now, nd->ngpus);
        if (sp->node_changed)
            sp->node_changed(s->pst[0], s, node, false);
    }
    nd->state = (uint8_t)state;
    if (state == NODE_DOWN || state == NODE_ABSENT)
        interrupt_all(s, node, why);
    if (state == NODE_UP) {
        sim_cluster_node_in(s->cl, node);
        sim_gauge_add(&s->g_out, s->now, -(double)nd->ngpus);
        if (sp->node_changed)
            sp->node_changed(s->pst[0], s, node, true);
        sim_dispatch(s);
    }
    if (s->state_watch)
        s->state_watch(s->state_watch_ud, s, node, was);
}
