/* sim_fail.c - failing hardware, the nodes' side (sim_fail.h): failure
 * clocks, repairs, hot spares; the module record and its report.
 *
 * Each node in service (up or draining) has its next failure drawn from
 * an exponential of its rate (memoryless: a node's clock restarts
 * whenever it comes into service); the clocks sit in an indexed min-heap
 * and only its head has an engine event, a weak one (a failure alone keeps
 * no run going). The cause of a failure is drawn in proportion to the
 * node's rates by cause (O(causes)).
 * SPDX-License-Identifier: MIT */
#include "sim_fail_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_rng.h"
#include "sim_preempt.h"

const pol_param fail_params[] = {
    {"failures", "off", "on: nodes fail at their GPU model's rates by cause (models/gpu/README.md) and are repaired; "
                        "interrupted jobs restart from their last checkpoint (core; whole, mig)", P_ONOFF},
    {"fail_scale", "1", "every failure rate x this (sensitivity)", P_NUM(0, 1e6, NULL)},
    {"restart_s", "600", "seconds an interrupted job spends re-scheduled and starting up, holding its GPUs, "
                         "before its checkpoint is read (assumption)", P_DURATION(0, 1e9)},
    {"spare_swap_s", "120", "seconds a hot spare takes to come into service for a failed node (assumption)",
     P_DURATION(0, 1e9)},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

/* {==== the clocks: an indexed binary min-heap on next_us ====} */

static bool earlier(const sim_fail *x, int a, int b)
{
    return x->next_us[a] != x->next_us[b] ? x->next_us[a] < x->next_us[b] : a < b;
}

static void put(sim_fail *x, int i, int n)
{
    x->heap[i] = n;
    x->pos[n] = i;
}

static void sift_up(sim_fail *x, int i)
{
    int n = x->heap[i];
    while (i > 0 && earlier(x, n, x->heap[(i - 1) / 2])) {
        put(x, i, x->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    put(x, i, n);
}

static void sift_down(sim_fail *x, int i)
{
    int n = x->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= x->nheap)
            break;
        if (c + 1 < x->nheap && earlier(x, x->heap[c + 1], x->heap[c]))
            c++;
        if (!earlier(x, x->heap[c], n))
            break;
        put(x, i, x->heap[c]);
        i = c;
    }
    put(x, i, n);
}

static int heap_pop(sim_fail *x)
{
    int n = x->heap[0];
    x->pos[n] = -1;
    if (--x->nheap > 0) {
        put(x, 0, x->heap[x->nheap]);
        sift_down(x, 0);
    }
    return n;
}

/* The head's event, when the head is earlier than the one scheduled. */
static void schedule_head(sim_fail *x, sim *s)
{
    if (x->nheap == 0 || x->next_us[x->heap[0]] >= x->head_at_us)
        return;
    x->head_at_us = x->next_us[x->heap[0]];
    sim_module_event_weak(s, x->index, x->head_at_us, SIM_NO_SLOT, ++x->head_gen, ft_aux(FT_FAIL, 0));
}

/* Node n's clock from now (none at rate 0). */
static void clock_start(sim_fail *x, sim *s, int n)
{
    double per_us = x->grp[sim_cluster_of(s)->nodes[n].group].per_us;
    if (per_us <= 0 || x->pos[n] >= 0)
        return;
    double dt = ceil(gs_rng_exp(x->rng, 1 / per_us));
    x->next_us[n] = dt < (double)(GS_TIME_MAX - sim_now(s)) ? sim_now(s) + (gs_time_us)dt : GS_TIME_MAX;
    if (x->next_us[n] == GS_TIME_MAX)
        return;
    put(x, x->nheap++, n);
    sift_up(x, x->nheap - 1);
    schedule_head(x, s);
}

/* {==== failures, repairs, spares ====} */

static void bring_up(sim_fail *x, sim *s, int n)
{
    x->mine[n] = M_NONE;
    sim_node_set_state(s, n, NODE_UP);
    clock_start(x, s, n);
}

static void stand_by(sim_fail *x, sim *s, fail_group *g, int n)
{
    x->mine[n] = M_NONE;
    sim_node_set_state(s, n, NODE_SPARE);
    g->stand[g->nstand++] = n;
}

/* A spare of g into service (after spare_swap_s), if one stands by;
 * otherwise the group is a node short until a repair. */
static void swap_in(sim_fail *x, sim *s, fail_group *g)
{
    if (g->nstand == 0) {
        g->short_nodes++;
        return;
    }
    int m = g->stand[--g->nstand];
    x->swaps++;
    if (x->swap_us == 0) {
        bring_up(x, s, m);
        return;
    }
    x->mine[m] = M_SWAP;
    x->serial[m]++;
    sim_node_set_state(s, m, NODE_PROVISIONING);
    sim_module_event_weak(s, x->index, sim_now(s) + x->swap_us, (uint32_t)m, x->serial[m], ft_aux(FT_SWAP, 0));
}

static int draw_cause(sim_fail *x, const fail_group *g, int gpus)
{
    double u = gsl_rng_uniform(x->rng) * gpu_failures_node_per_day(g->f, gpus), acc = 0;
    for (int c = 0; c < g->f->n; c++) {
        acc += gpu_failures_cause_per_day(g->f, c, gpus);
        if (u < acc)
            return c;
    }
    return g->f->n - 1;
}

static void fail_node(sim_fail *x, sim *s, int n, int c)
{
    const sim_node *nd = &sim_cluster_of(s)->nodes[n];
    fail_group *g = &x->grp[nd->group];
    x->failures++;
    x->by_cause[g->cause_ix[c]]++;
    x->mine[n] = M_DOWN;
    x->serial[n]++;
    sim_gauge_add(&x->down, sim_now(s), 1);
    sim_node_move(s, n, NODE_DOWN, &(sim_node_why){x->restart_us, &x->tally});
    gs_time_us repair_us = (gs_time_us)llround(g->f->cause[c].repair_s * 1e6);
    sim_module_event_weak(s, x->index, sim_now(s) + repair_us, (uint32_t)n, x->serial[n], ft_aux(FT_REPAIR, 0));
    swap_in(x, s, g);
}

/* Every clock due now: a node in service fails; one another mover took
 * out of service has its clock drawn again (memoryless). */
static void on_fail(sim_fail *x, sim *s)
{
    x->head_at_us = GS_TIME_MAX;
    while (x->nheap > 0 && x->next_us[x->heap[0]] <= sim_now(s)) {
        int n = heap_pop(x), st = sim_cluster_of(s)->nodes[n].state;
        if (st == NODE_UP || st == NODE_DRAINING)
            fail_node(x, s, n, draw_cause(x, &x->grp[sim_cluster_of(s)->nodes[n].group], sim_cluster_of(s)->nodes[n].ngpus));
        else
            clock_start(x, s, n);
    }
    schedule_head(x, s);
}

void sim_fail_now(sim *s, int node, int cause)
{
    sim_fail *x = sim_module_state(s, &fail_module);
    if (!x || !x->on || node < 0 || node >= sim_cluster_of(s)->nnodes)
        GS_BUG("sim_fail_now: failures are off, or no such node");
    int st = sim_cluster_of(s)->nodes[node].state;
    const fail_group *g = &x->grp[sim_cluster_of(s)->nodes[node].group];
    if ((st != NODE_UP && st != NODE_DRAINING) || cause < 0 || cause >= g->f->n)
        GS_BUG("sim_fail_now: the node is not in service, or no such cause");
    if (x->pos[node] >= 0) { /* its clock stops: it is drawn again when the node is back */
        x->next_us[node] = -1; /* first */
        sift_up(x, x->pos[node]);
        heap_pop(x);
    }
    fail_node(x, s, node, cause);
}

bool sim_fail_job_goodput(const sim *s, const job *j, double *held_gpu_s, double *ratio)
{
    const sim_fail *x = sim_module_state(s, &fail_module);
    double held, waste;
    if (!x || !x->on || j->internal || !fail_job_figures(x, s, j, &held, &waste))
        return false;
    *held_gpu_s = held;
    *ratio = (held - waste) / held;
    return true;
}

/* A repaired node fills its group's gap when a failure found no spare,
 * else stands by in the place of the spare that took its work. */
static void on_repair(sim_fail *x, sim *s, int n)
{
    fail_group *g = &x->grp[sim_cluster_of(s)->nodes[n].group];
    sim_gauge_add(&x->down, sim_now(s), -1);
    if (g->short_nodes > 0 || g->nstand >= g->spares) {
        g->short_nodes -= g->short_nodes > 0;
        bring_up(x, s, n);
    } else {
        stand_by(x, s, g, n);
    }
}

/* {==== the module ====} */

static bool fl_event_live(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    sim_fail *x = state;
    switch (aux >> 24) {
    case FT_FAIL:
        return gen == x->head_gen;
    case FT_REPAIR:
    case FT_SWAP:
        return gen == x->serial[slot] && x->mine[slot] == ((aux >> 24) == FT_REPAIR ? M_DOWN : M_SWAP) &&
               sim_cluster_of(s)->nodes[slot].state == ((aux >> 24) == FT_REPAIR ? NODE_DOWN : NODE_PROVISIONING);
    case FT_SPARES:
        return true;
    default:
        return fail_job_event_live(x, s, slot, gen, aux);
    }
}

static void fl_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    sim_fail *x = state;
    switch (aux >> 24) {
    case FT_FAIL:
        on_fail(x, s);
        break;
    case FT_REPAIR:
        on_repair(x, s, (int)slot);
        break;
    case FT_SWAP:
        bring_up(x, s, (int)slot);
        break;
    case FT_SPARES: /* the spares stand by before any job arrives */
        for (int i = 0; i < x->ngroups; i++)
            for (int k = 0; k < x->grp[i].nstand; k++)
                sim_node_set_state(s, x->grp[i].stand[k], NODE_SPARE);
        break;
    default:
        fail_job_event(x, s, slot, gen, aux);
    }
}

static void fl_started(void *state, sim *s, job *j) { fail_job_started(state, s, j); }
static void fl_stopped(void *state, sim *s, job *j) { fail_job_stopped(state, s, j); }

static bool fl_params_quiet(const void *state) { return !((const sim_fail *)state)->on; }

static void fl_free(void *state)
{
    sim_fail *x = state;
    if (!x)
        return;
    for (int i = 0; i < x->ngroups; i++)
        free(x->grp[i].stand);
    free(x->grp);
    gs_rng_free(x->rng);
    free(x->next_us);
    free(x->heap);
    free(x->pos);
    free(x->serial);
    free(x->mine);
    free(x->cause);
    free(x->by_cause);
    free(x->runs);
    free(x);
}

static int fl_init(sim *s, int index, void **state, gs_error *err)
{
    sim_fail *x = xcalloc(1, sizeof *x);
    *state = x;
    x->index = index;
    x->on = sim_param_on(s, "failures");
    x->head_at_us = GS_TIME_MAX;
    int rc = fail_groups_init(x, s, err); /* rates, spares */
    if (rc)
        return rc;
    bool spares = false;
    for (int i = 0; i < x->ngroups; i++)
        spares |= x->grp[i].nstand > 0;
    if (!x->on)
        sim_module_skip(s, index, SIM_HOOK_STARTED | SIM_HOOK_STOPPED);
    if (!x->on && !spares)
        return 0;
    if ((rc = sim_nodes_enable(s, err)) != 0)
        return rc;
    if (spares) {
        sim_module_event(s, index, 0, SIM_NO_SLOT, 0, ft_aux(FT_SPARES, 0));
        if (!x->on)
            sim_warn(s, "the cluster's spare nodes stand by unused: failures are off (--set failures=on)");
    }
    if (!x->on)
        return 0;
    for (int p = 0; p < sim_npolicies(s); p++) /* each policy's record says whether it can */
        if (sim_policy_at(s, p)->failures_refused)
            return gs_err(err, GS_EUSAGE, "--set failures=on with policy '%s': %s", sim_policy_at(s, p)->name,
                          sim_policy_at(s, p)->failures_refused);
    sim_preempt_ckpt_by_events(s);
    x->scale = sim_param_number(s, "fail_scale");
    x->restart_us = sim_param_us(s, "restart_s");
    x->swap_us = sim_param_us(s, "spare_swap_s");
    x->periodic = sim_param_us(s, "checkpoint_every") > 0;
    x->rng = gs_rng_new(sim_seed(s), RNG_FAILURES);
    int nn = sim_cluster_of(s)->nnodes;
    x->next_us = xmalloc((size_t)nn * sizeof *x->next_us);
    x->heap = xmalloc((size_t)nn * sizeof *x->heap);
    x->pos = xmalloc((size_t)nn * sizeof *x->pos);
    x->serial = xcalloc((size_t)nn, sizeof *x->serial);
    x->mine = xcalloc((size_t)nn, sizeof *x->mine);
    for (int n = 0; n < nn; n++)
        x->pos[n] = -1;
    for (int i = 0; i < x->ngroups; i++)
        x->grp[i].per_us *= x->scale;
    for (int i = 0; i < x->ngroups; i++) { /* every node but the spares: those stand by from 0 */
        int first = sim_cluster_of(s)->group_first[i], end = i + 1 < x->ngroups ? sim_cluster_of(s)->group_first[i + 1] : nn;
        for (int n = first; n < end - x->grp[i].spares; n++)
            clock_start(x, s, n);
    }
    return 0;
}

/* With failures on, placed work's checkpoint size decides its periodic
 * writes and what an interruption loses. */
static uint64_t fl_columns(const void *state, int kind)
{
    const sim_fail *x = state;
    return sim_kind_placed(kind) && x->on ? WL_COL_BIT(WL_COL_CHECKPOINT_GIB) | WL_COL_BIT(WL_COL_PARAMS_B) : 0;
}

const sim_module fail_module = {
    .name = "failures",
    .params = fail_params,
    .init = fl_init,
    .fini = fl_free,
    .started = fl_started,
    .stopped = fl_stopped,
    .event_live = fl_event_live,
    .event = fl_event,
    .report = fail_report,
    .params_quiet = fl_params_quiet,
    .columns_read = fl_columns,
};
